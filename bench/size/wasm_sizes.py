#!/usr/bin/env python3
"""Weighs a .wasm module by section, and its code by crate.

usage: wasm_sizes.py sections FILE            section sizes, one `name bytes` line each
       wasm_sizes.py crates FILE [--top N] [--sysroot DIR]
                                              code bytes per crate (a markdown table), then the N
                                              biggest functions; DIR (`rustc --print sysroot`)
                                              tells the standard library's copy of a crate apart
       wasm_sizes.py attribute FILE --root DIR [--sysroot DIR]
                                              code bytes per crate by DWARF line tables and names
                                              (needs debug = "line-tables-only" and v0 names);
                                              DIR is keel's root (its src/ and bench/size/src/)
       wasm_sizes.py modules FILE [--crate NAME] [--depth N]
                                              code bytes per module of one crate (default keel,
                                              depth 2: `keel::web::indexeddb`), from function names;
                                              a function counts whole for the first module of that
                                              crate its name mentions (so an impl's method for its
                                              type's module), generic std code instantiated there
                                              is not counted (it is named for std)
       wasm_sizes.py module FILE NAME            one module of keel (`keel::tools::schema`, its
                                              submodules included, by function name as `modules`
                                              counts; then with the generic code instantiated for
                                              its types): functions, code bytes, and the marginal
                                              gzip -9 bytes (the module gzipped with their bodies
                                              replaced by `unreachable`, against it whole)
       wasm_sizes.py kinds FILE                   code per kind (serde deserialising, sorting, fmt,
                                              keel::web…), by function name, with each kind's
                                              marginal gzip -9 bytes: the module gzipped with that
                                              kind's bodies replaced by `unreachable`, against it whole
       wasm_sizes.py strip FILE OUT [--debug-only]
                                              FILE without its custom sections (names, producers,
                                              DWARF), or without DWARF only

`crates` works per function: a function's bytes are its body in the code section (size prefix
included), and its crate is the one whose source defines it, read from its v0-mangled name (build
with `-C symbol-mangling-version=v0`): for an impl's method, the crate holding the impl block, so
serde derives count for keel; generic code counts for the crate that defines it
(`serde_json::value::from_value<keel::…>` is serde_json's), and the crate that instantiated it is
shown beside. Legacy `_ZN…` names are understood too, less precisely. Code inlined into a function
counts for that function's crate, which is the weakness `attribute` fixes: it reads the DWARF line
tables, so each byte counts for the crate of the source line it came from, wherever it was inlined;
standard-library lines (Vec, Option, drop glue…) count for the crate whose function they are in.

Standard library only, no dependencies.
"""

import collections
import glob
import gzip
import re
import struct
import sys

SECTION_NAMES = {
    0: "custom", 1: "type", 2: "import", 3: "function", 4: "table", 5: "memory", 6: "global",
    7: "export", 8: "start", 9: "element", 10: "code", 11: "data", 12: "datacount", 13: "tag",
}


def leb(buf, pos):
    """Reads an unsigned LEB128 at pos: (value, next pos)."""
    value = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def name_at(buf, pos):
    """Reads a length-prefixed UTF-8 name: (str, next pos)."""
    size, pos = leb(buf, pos)
    return buf[pos:pos + size].decode("utf-8", "replace"), pos + size


def sections(buf):
    """Yields (id, label, start of header, start of payload, end) for every section."""
    if buf[:4] != b"\0asm":
        sys.exit("not a wasm module")
    pos = 8
    while pos < len(buf):
        start = pos
        sid = buf[pos]
        size, pos = leb(buf, pos + 1)
        label = SECTION_NAMES.get(sid, f"unknown-{sid}")
        if sid == 0:
            custom, _ = name_at(buf, pos)
            label = f"custom:{custom}"
        yield sid, label, start, pos, pos + size
        pos += size


def imported_functions(buf, pos, end):
    count, pos = leb(buf, pos)
    funcs = 0
    for _ in range(count):
        _, pos = name_at(buf, pos)
        _, pos = name_at(buf, pos)
        kind = buf[pos]
        pos += 1
        if kind == 0:  # function: type index
            _, pos = leb(buf, pos)
            funcs += 1
        elif kind == 1:  # table: reftype, limits
            flags, pos = leb(buf, pos + 1)
            _, pos = leb(buf, pos)
            if flags & 1:
                _, pos = leb(buf, pos)
        elif kind == 2:  # memory: limits
            flags, pos = leb(buf, pos)
            _, pos = leb(buf, pos)
            if flags & 1:
                _, pos = leb(buf, pos)
        elif kind == 3:  # global: valtype, mutability
            pos += 2
        else:  # tag
            pos += 1
            _, pos = leb(buf, pos)
    return funcs


def function_names(buf, pos, end):
    """Subsection 1 of the "name" section: function index -> name."""
    names = {}
    _, pos = name_at(buf, pos)  # "name"
    while pos < end:
        sub = buf[pos]
        size, pos = leb(buf, pos + 1)
        if sub == 1:
            count, p = leb(buf, pos)
            for _ in range(count):
                index, p = leb(buf, p)
                names[index], p = name_at(buf, p)
        pos += size
    return names


def code_bodies(buf, pos, end):
    """(start, end) of the code section's bodies, size prefix included, as offsets into the
    section's payload (where DWARF addresses point)."""
    payload = pos
    count, pos = leb(buf, pos)
    spans = []
    for _ in range(count):
        start = pos
        size, pos = leb(buf, pos)
        pos += size
        spans.append((start - payload, pos - payload))
    return spans


BASIC_TYPES = {
    "a": "i8", "b": "bool", "c": "char", "d": "f64", "e": "str", "f": "f32", "h": "u8", "i": "isize",
    "j": "usize", "l": "i32", "m": "u32", "n": "i128", "o": "u128", "s": "i16", "t": "u16", "u": "()",
    "v": "...", "x": "i64", "y": "u64", "z": "!", "p": "_",
}


class V0:
    """Rust's v0 mangling (`_R…`), enough to print a name and find its crates: `path()` returns
    (text, crate), the crate being the one whose source defines the item (for an impl, the crate
    holding the impl block), as `name/disambiguator`: two crates may share a name."""

    def __init__(self, symbol):
        self.s = symbol[2:]
        self.pos = 0

    def peek(self):
        return self.s[self.pos] if self.pos < len(self.s) else ""

    def eat(self, char):
        if self.peek() == char:
            self.pos += 1
            return True
        return False

    def base62(self):
        if self.eat("_"):
            return 0
        value = 0
        while not self.eat("_"):
            char = self.s[self.pos]
            self.pos += 1
            digit = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".index(char)
            value = value * 62 + digit
        return value + 1

    def decimal(self):
        start = self.pos
        if self.eat("0"):  # a number never has a leading 0: "00" is two zeros
            return 0
        while self.peek().isdigit():
            self.pos += 1
        if start == self.pos:
            raise ValueError("expected a number")
        return int(self.s[start:self.pos])

    def ident(self):
        if self.eat("s"):
            self.base62()
        return self.undisambiguated_ident()

    def undisambiguated_ident(self):
        self.eat("u")
        size = self.decimal()
        self.eat("_")
        text = self.s[self.pos:self.pos + size]
        self.pos += size
        return text

    def backref(self, parse):
        target = self.base62()
        saved, self.pos = self.pos, target
        try:
            return parse()
        finally:
            self.pos = saved

    def path(self):
        tag = self.s[self.pos]
        self.pos += 1
        if tag == "C":
            disambiguator = self.s[self.pos + 1:self.s.index("_", self.pos) + 1] if self.peek() == "s" else ""
            name = self.ident()
            return name, f"{name}/{disambiguator}"
        if tag == "N":
            namespace = self.s[self.pos]
            self.pos += 1
            text, crate = self.path()
            name = self.ident()
            if namespace == "C":
                name = "{closure}"
            elif namespace == "S":
                name = "{shim:" + name + "}" if name else "{shim}"
            return f"{text}::{name}", crate
        if tag == "M":
            if self.eat("s"):
                self.base62()
            _, crate = self.path()
            return f"<{self.type()}>", crate
        if tag == "X":
            if self.eat("s"):
                self.base62()
            _, crate = self.path()
            self_type = self.type()
            trait, _ = self.path()
            return f"<{self_type} as {trait}>", crate
        if tag == "Y":
            self_type = self.type()
            trait, crate = self.path()
            return f"<{self_type} as {trait}>", crate
        if tag == "I":
            text, crate = self.path()
            args = []
            while not self.eat("E"):
                arg = self.generic_arg()
                if arg is not None:
                    args.append(arg)
            return f"{text}<{', '.join(args)}>" if args else text, crate
        if tag == "B":
            return self.backref(self.path)
        raise ValueError(f"unknown path tag {tag!r}")

    def generic_arg(self):
        if self.eat("L"):
            self.base62()
            return None
        if self.eat("K"):
            return self.const()
        return self.type()

    def const(self):
        if self.eat("p"):
            return "_"
        if self.eat("B"):
            return self.backref(self.const)
        self.type()
        negative = self.eat("n")
        start = self.pos
        while not self.eat("_"):
            self.pos += 1
        digits = self.s[start:self.pos - 1]
        return ("-" if negative else "") + str(int(digits, 16) if digits else 0)

    def type(self):
        char = self.peek()
        if char in BASIC_TYPES:
            self.pos += 1
            return BASIC_TYPES[char]
        if char in "CMXYNI":
            return self.path()[0]
        self.pos += 1
        if char == "B":
            return self.backref(self.type)
        if char == "A":
            inner = self.type()
            return f"[{inner}; {self.const()}]"
        if char == "S":
            return f"[{self.type()}]"
        if char == "T":
            items = []
            while not self.eat("E"):
                items.append(self.type())
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        if char in "RQ":
            if self.eat("L"):
                self.base62()
            return ("&" if char == "R" else "&mut ") + self.type()
        if char in "PO":
            return ("*const " if char == "P" else "*mut ") + self.type()
        if char == "F":
            if self.eat("G"):
                self.base62()
            unsafe = "unsafe " if self.eat("U") else ""
            if self.eat("K"):
                if not self.eat("C"):
                    self.undisambiguated_ident()
            params = []
            while not self.eat("E"):
                params.append(self.type())
            return f"{unsafe}fn({', '.join(params)}) -> {self.type()}"
        if char == "D":
            if self.eat("G"):
                self.base62()
            traits = []
            while not self.eat("E"):
                trait, _ = self.path()
                while self.eat("p"):
                    self.undisambiguated_ident()
                    self.type()
                traits.append(trait)
            self.eat("L") and self.base62()
            return "dyn " + " + ".join(traits)
        raise ValueError(f"unknown type tag {char!r}")

    def symbol(self):
        """(text, defining crate, instantiating crate or None)."""
        if self.peek().isdigit():
            self.decimal()
        text, crate = self.path()
        instantiated_by = None
        if self.peek() and self.peek() in "CMXYNIB":
            _, instantiated_by = self.path()
        return text, crate, instantiated_by


def legacy(symbol):
    """Rust's legacy mangling (`_ZN…E`), to a path; its crate is the first segment, or for
    `<T as Trait>::f` the crate of T (legacy names do not say where the impl is)."""
    pos, parts = 3, []
    while pos < len(symbol) and symbol[pos].isdigit():
        digits = re.match(r"\d+", symbol[pos:]).group()
        pos += len(digits)
        parts.append(symbol[pos:pos + int(digits)])
        pos += int(digits)
    parts = [p for p in parts if not re.fullmatch(r"h[0-9a-f]{16}", p)]
    parts = [p[1:] if p.startswith("_$") else p for p in parts]
    text = "::".join(parts)
    for code, char in (("$LT$", "<"), ("$GT$", ">"), ("$u20$", " "), ("$RF$", "&"), ("$BP$", "*"),
                       ("$C$", ","), ("..", "::"), ("$u7b$", "{"), ("$u7d$", "}"), ("$SP$", "@")):
        text = text.replace(code, char)
    head = re.sub(r"^(?:<|&|mut |\*const |\*mut |dyn )+", "", text)
    match = re.match(r"[A-Za-z_][A-Za-z0-9_]*", head)
    return text, match.group() if match else "(other)", None


def demangled(text):
    """A name wasm-bindgen (`--keep-debug`) or twiggy already demangled from a legacy symbol:
    `keel::web::host::WorkerHost::handle::h1d61…`, `<f64 as core[c593…]::fmt::Display>::fmt`.
    Its crate is the first path segment; for `<T as Trait>::f` with T a primitive or a type
    parameter (no path), the trait's crate; `<str>::to_lowercase` (an inherent impl of a
    primitive, defined by the standard library) counts for core."""
    text = re.sub(r"::h[0-9a-f]{16}$", "", text)
    text = re.sub(r"\[[0-9a-f]{16}\]", "", text)
    head = re.sub(r"^(?:<|&|mut |\*const |\*mut |dyn )+", "", text)
    match = re.match(r"([A-Za-z_][A-Za-z0-9_]*)(::)?", head)
    if not match:
        return text, "(other)", None
    if not match.group(2):
        trait = re.match(r"[A-Za-z_][A-Za-z0-9_<>, ]* as (?:&|mut |dyn )*([A-Za-z_][A-Za-z0-9_]*)::", head)
        return text, trait.group(1) if trait else "core", None
    return text, match.group(1), None


def describe(name):
    """(readable name, defining crate, instantiating crate or None) of a function name."""
    symbol = name.split(".llvm.")[0]
    if symbol.startswith("_R"):
        try:
            return V0(symbol).symbol()
        except (ValueError, IndexError):
            return symbol, "(undemangled)", None
    if symbol.startswith("_ZN"):
        return legacy(symbol)
    if "::" in symbol:
        return demangled(symbol)
    # Unmangled: C ABI exports, the allocator shims, compiler-builtins' intrinsics.
    if symbol.startswith(("__rdl_", "__rust_")):
        return symbol, "alloc", None
    if symbol.startswith("keel_size_"):
        return symbol, "keel_size_bench", None
    if symbol in ("memcpy", "memmove", "memset", "memcmp", "bcmp", "fmax", "fmin") or symbol.startswith("__"):
        return symbol, "compiler_builtins", None
    return symbol, "(unmangled)", None


# rustc's crate names where cargo's differ, and harness code that is not keel's.
CRATE_LABELS = {"keel_size_bench": "(bench harness)", "serde_core": "serde", "__rustc": "std"}


# What each dependency choice brings in, for the summary: crate label -> group.
GROUPS = {
    "keel": "keel's own code (thiserror and serde derives included)",
    "serde": "serde + serde_json (+ itoa, zmij, memchr)",
    "serde_json": "serde + serde_json (+ itoa, zmij, memchr)",
    "itoa": "serde + serde_json (+ itoa, zmij, memchr)",
    "zmij": "serde + serde_json (+ itoa, zmij, memchr)",
    "memchr": "serde + serde_json (+ itoa, zmij, memchr)",
    "indexmap": "serde_json's preserve_order (indexmap + hashbrown)",
    "hashbrown": "serde_json's preserve_order (indexmap + hashbrown)",
    "equivalent": "serde_json's preserve_order (indexmap + hashbrown)",
    "foldhash": "serde_json's preserve_order (indexmap + hashbrown)",
    "regex_lite": "regex-lite",
    "strsim": "strsim",
    "futures_util": "futures-util (+ futures-core, futures-task)",
    "futures_core": "futures-util (+ futures-core, futures-task)",
    "futures_task": "futures-util (+ futures-core, futures-task)",
    "thiserror": "keel's own code (thiserror and serde derives included)",
    "wasm_bindgen": "wasm-bindgen",
    "(bench harness)": "the bench harness (fakes, JSON in and out)",
}
STD_CRATES = {"core", "alloc", "std", "dlmalloc", "compiler_builtins", "rustc_demangle", "(unmangled)"}
STD_GROUP = "Rust standard library (core, alloc, std, its hashbrown, dlmalloc, compiler-builtins)"


def std_disambiguator(sysroot, name):
    """The disambiguator of the standard library's own copy of crate `name` (std depends on
    hashbrown, memchr…), from its rlib in the wasm32 sysroot; None if there is none."""
    if not sysroot:
        return None
    found = glob.glob(f"{sysroot}/lib/rustlib/wasm32-unknown-unknown/lib/lib{name}-*.rlib")
    if not found:
        return None
    data = open(found[0], "rb").read()
    pattern = rb"Cs([0-9A-Za-z]+_)" + str(len(name)).encode() + re.escape(name.encode())
    counts = collections.Counter(re.findall(pattern, data))
    return counts.most_common(1)[0][0].decode() if counts else None


def labeller(crates, sysroot):
    """Maps `name/disambiguator` (or a bare name, from an unmangled or legacy symbol) to a label:
    the name, unless two crates share it; then the standard library's copy is `name (std's)`."""
    by_name = collections.defaultdict(set)
    for crate in crates:
        name, _, dis = crate.partition("/")
        if dis:
            by_name[name].add(dis)
    labels = {}
    for crate in crates:
        name, _, dis = crate.partition("/")
        label = CRATE_LABELS.get(name, name)
        if len(by_name[name]) > 1 and dis:
            std_copy = std_disambiguator(sysroot, name)
            if dis == std_copy:
                label = f"{label} (std's)"
            elif not std_copy:
                label = f"{label} [{dis.rstrip('_')}]"
        labels[crate] = label
    return labels


def weigh(path):
    buf = open(path, "rb").read()
    out = {"file": len(buf), "sections": [], "imports": 0, "names": {}, "bodies": []}
    for sid, label, start, pos, end in sections(buf):
        out["sections"].append((label, end - start))
        if sid == 2:
            out["imports"] = imported_functions(buf, pos, end)
        elif sid == 10:
            out["spans"] = code_bodies(buf, pos, end)
            out["bodies"] = [e - s for s, e in out["spans"]]
        elif label == "custom:name":
            out["names"] = function_names(buf, pos, end)
    return out


def cmd_sections(path):
    w = weigh(path)
    for label, size in w["sections"]:
        print(label, size)


def cmd_crates(path, top, sysroot):
    w = weigh(path)
    if not w["names"]:
        sys.exit(f"{path} has no function names (a \"name\" section): build it with symbols")
    described = []
    for i, size in enumerate(w["bodies"]):
        index = w["imports"] + i
        described.append((size,) + describe(w["names"].get(index, f"(function {index})")))
    labels = labeller({c for _, _, c, b in described for c in (c, b) if c}, sysroot)
    per_crate, functions = {}, []
    for size, text, crate, by in described:
        crate = labels[crate]
        by = labels.get(by)
        row = per_crate.setdefault(crate, [0, 0, 0, {}])
        row[0] += 1
        row[1] += size
        if by is not None and by != crate:
            row[2] += size
            row[3][by] = row[3].get(by, 0) + size
        functions.append((size, crate, by, text))
    sizes = dict(w["sections"])
    code = sizes.get("code", 0)
    shipped = w["file"] - sum(s for label, s in w["sections"] if label.startswith("custom"))
    print(f"<!-- {path}: {w['file']} bytes, {shipped} without custom sections, code section {code}, "
          f"data section {sizes.get('data', 0)}, {len(w['bodies'])} functions -->\n")
    print("| crate (defining the code) | functions | code bytes | % of code | % of module | "
          "of which generic code instantiated by other crates |")
    print("|---|---:|---:|---:|---:|---|")
    for crate, (count, total, foreign, by) in sorted(per_crate.items(), key=lambda kv: -kv[1][1]):
        users = ", ".join(f"{c} {b}" for c, b in sorted(by.items(), key=lambda kv: -kv[1]))
        print(f"| {crate} | {count} | {total} | {100 * total / code:.1f} | {100 * total / shipped:.1f} | "
              f"{foreign if foreign else ''}{' (' + users + ')' if users else ''} |")
    groups = {}
    for crate, (_, total, _, _) in per_crate.items():
        group = GROUPS.get(crate, STD_GROUP if crate in STD_CRATES or crate.endswith("(std's)") else crate)
        groups[group] = groups.get(group, 0) + total
    summary = ["| dependency choice | code bytes | % of code | % of module |", "|---|---:|---:|---:|"]
    for group, total in sorted(groups.items(), key=lambda kv: -kv[1]):
        summary.append(f"| {group} | {total} | {100 * total / code:.1f} | {100 * total / shipped:.1f} |")
    other = shipped - code - sizes.get("data", 0)
    print(f"| (data section: strings, tables, statics) | | {sizes.get('data', 0)} | | "
          f"{100 * sizes.get('data', 0) / shipped:.1f} | |")
    print(f"| (code section framing, other sections, header) | | {other + code - sum(w['bodies'])} | | "
          f"{100 * (other + code - sum(w['bodies'])) / shipped:.1f} | |")
    print(f"| **module without custom sections** | {len(w['bodies'])} | **{shipped}** | | 100.0 | |")
    print("\nGrouped by dependency choice:\n")
    print("\n".join(summary))
    if top:
        print(f"\nThe {top} biggest functions:\n")
        print("| bytes | crate | instantiated by | function |")
        print("|---:|---|---|---|")
        for size, crate, by, name in sorted(functions, key=lambda f: -f[0])[:top]:
            short = (name if len(name) <= 120 else name[:117] + "…").replace("|", "\\|")
            print(f"| {size} | {crate} | {by or ''} | `{short}` |")


def cmd_modules(path, crate, depth):
    w = weigh(path)
    if not w["names"]:
        sys.exit(f"{path} has no function names (a \"name\" section): build it with symbols")
    path_re = re.compile(re.escape(crate) + r"((?:::[a-z_][a-z0-9_]*)*)")
    per_module, in_crate = {}, 0
    for i, size in enumerate(w["bodies"]):
        text, defining, _ = describe(w["names"].get(w["imports"] + i, ""))
        if CRATE_LABELS.get(defining, defining) != crate:
            continue
        match = path_re.search(text)
        parts = match.group(1).split("::")[1:] if match else []
        module = "::".join([crate] + parts[:depth])
        row = per_module.setdefault(module, [0, 0])
        row[0] += 1
        row[1] += size
        in_crate += size
    code = dict(w["sections"]).get("code", 0)
    print(f"| module of {crate} | functions | code bytes | % of {crate}'s code | % of code |")
    print("|---|---:|---:|---:|---:|")
    for module, (count, total) in sorted(per_module.items(), key=lambda kv: -kv[1][1]):
        print(f"| `{module}` | {count} | {total} | {100 * total / in_crate:.1f} | {100 * total / code:.1f} |")
    print(f"| **{crate}, all modules** | {sum(c for c, _ in per_module.values())} | **{in_crate}** | 100.0 | "
          f"{100 * in_crate / code:.1f} |")


# Kinds of code, by function name (first match wins), for `kinds`.
KINDS = [
    ("serde: deserialising (derives, visitors, Content buffering, serde_path_to_error)",
     r"[Dd]eserializ|visit_|Visitor|__Field|next_key|next_value|content::|serde_path_to_error"),
    ("serde: serialising", r"[Ss]erializ"),
    ("fmt: Display/Debug impls, float formatting", r"fmt|Display|Debug|Formatter|format|flt2dec"),
    ("slice sorting (std's sorts, one copy per element type and comparator)", r"sort"),
    ("maps and sets (hashbrown, indexmap, BTreeMap)", r"hashbrown|HashMap|indexmap|IndexMap|btree|BTree"),
    ("regex-lite", r"regex_lite"),
    ("keel::web (the worker, IndexedDB, OpenAI, Prompt API)", r"^<?keel::web"),
    ("keel::store (records, memory store, OTLP, redaction)", r"^<?keel::store"),
    ("the rest of keel (engine, errors, tools)", r"^<?keel::"),
]


def leb_bytes(value):
    """value as unsigned LEB128."""
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | 0x80 if value else byte)
        if not value:
            return bytes(out)


def without_bodies(buf, w, dropped):
    """The module `buf` (weighed as `w`) without custom sections, the bodies of the functions
    whose `dropped` flag is set made `unreachable`."""
    bodies = b"".join(b"\x03\x00\x00\x0b" if dropped[i] else buf[s:e] for i, (s, e) in enumerate(w["spans"]))
    payload = leb_bytes(len(w["spans"])) + bodies
    out = bytearray(buf[:8])
    for sid, _, start, _, end in sections(buf):
        if sid == 10:
            out += b"\x0a" + leb_bytes(len(payload)) + payload
        elif sid != 0:
            out += buf[start:end]
    return bytes(out)


def gz(data):
    """gzip -9 bytes of `data`."""
    return len(gzip.compress(data, 9, mtime=0))


def keel_module(name):
    """The module of keel a function name belongs to (`keel::tools::schema::verdict`), as
    `modules` reads it, or None for a function keel does not define."""
    text, defining, _ = describe(name)
    if CRATE_LABELS.get(defining, defining) != "keel":
        return None
    match = re.search(r"keel((?:::[a-z_][a-z0-9_]*)*)", text)
    return "keel" + (match.group(1) if match else "")


def cmd_module(path, name):
    buf = open(path, "rb").read()
    w = weigh(path)
    if not w["names"]:
        sys.exit(f"{path} has no function names (a \"name\" section): build it with symbols")
    defined, mentioned = [], []
    for i in range(len(w["spans"])):
        symbol = w["names"].get(w["imports"] + i, "")
        module = keel_module(symbol)
        defined.append(module is not None and (module == name or module.startswith(name + "::")))
        # Generic code of other crates instantiated for the module's types (`drop_in_place`,
        # `Vec<…>::clone`) names them: counted in the second row.
        mentioned.append(defined[-1] or re.search(re.escape(name) + r"\b", describe(symbol)[0]) is not None)
    whole = without_bodies(buf, w, [False] * len(defined))
    whole_gz = gz(whole)
    print(f"<!-- {path}: {len(whole)} bytes without custom sections, {whole_gz} gzip -9 -->\n")
    print("| functions | count | code bytes | % of the module's bytes | marginal gzip -9 bytes | % of gzip |")
    print("|---|---:|---:|---:|---:|---:|")
    rows = [(f"defined in `{name}`", defined), (f"… or whose name mentions `{name}` (generic code for its types)", mentioned)]
    for label, inside in rows:
        code = sum(e - s for (s, e), held in zip(w["spans"], inside) if held)
        marginal = whole_gz - gz(without_bodies(buf, w, inside))
        print(f"| {label} | {sum(inside)} | {code} | {100 * code / len(whole):.1f} | {marginal} | "
              f"{100 * marginal / whole_gz:.1f} |")


def cmd_kinds(path):
    buf = open(path, "rb").read()
    w = weigh(path)
    if not w["names"]:
        sys.exit(f"{path} has no function names (a \"name\" section): build it with symbols")
    kinds = []
    for i in range(len(w["spans"])):
        name = w["names"].get(w["imports"] + i, "")
        kinds.append(next((label for label, pattern in KINDS if re.search(pattern, name)), "other"))

    def module(dropped):
        """The module without custom sections, the bodies of kind `dropped` made `unreachable`."""
        return without_bodies(buf, w, [kind == dropped for kind in kinds])

    whole = module(None)
    whole_gz = gz(whole)
    code = dict(w["sections"]).get("code", 0)
    print(f"<!-- {path}: {len(whole)} bytes without custom sections, {whole_gz} gzip -9 -->\n")
    print("| kind of code | functions | code bytes | % of code | marginal gzip -9 bytes | % of gzip |")
    print("|---|---:|---:|---:|---:|---:|")
    rows = []
    for label in [k for k, _ in KINDS] + ["other"]:
        count = kinds.count(label)
        if not count:
            continue
        size = sum(e - s for (s, e), k in zip(w["spans"], kinds) if k == label)
        rows.append((size, label, count, whole_gz - gz(module(label))))
    for size, label, count, saved in sorted(rows, reverse=True):
        print(f"| {label} | {count} | {size} | {100 * size / code:.1f} | {saved} | {100 * saved / whole_gz:.1f} |")
    data = dict(w["sections"]).get("data", 0)
    print(f"| (data section: strings, tables, statics) | | {data} | | | |")


def cmd_strip(path, out, debug_only):
    """Writes `path` without its custom sections, or only without DWARF (`.debug_*`)."""
    buf = open(path, "rb").read()
    kept = [buf[:8]]
    for sid, label, start, _, end in sections(buf):
        if sid != 0 or (debug_only and not label.startswith("custom:.debug")):
            kept.append(buf[start:end])
    open(out, "wb").write(b"".join(kept))


def custom_sections(buf):
    """name -> payload of every custom section."""
    found = {}
    for sid, label, _, pos, end in sections(buf):
        if sid == 0:
            _, start = name_at(buf, pos)
            found[label[len("custom:"):]] = buf[start:end]
    return found


def cstring(data, pos):
    end = data.index(b"\0", pos)
    return data[pos:end].decode("utf-8", "replace"), end + 1


def sleb(data, pos):
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            if byte & 0x40:
                value -= 1 << shift
            return value, pos


def line_rows(debug_line, comp_dirs):
    """Yields (unit offset, (start address, end address, file path)) for every row of every
    sequence of a DWARF 2-4 .debug_line section; addresses are offsets into the code section's
    payload. `comp_dirs` maps a unit's offset to its compile unit's directory (directory 0)."""
    unit = 0
    while unit < len(debug_line):
        length, version = struct.unpack_from("<IH", debug_line, unit)
        if length == 0xFFFFFFFF or version > 4:
            sys.exit(f"unsupported .debug_line unit (64-bit or DWARF {version})")
        end = unit + 4 + length
        (header_length,) = struct.unpack_from("<I", debug_line, unit + 6)
        pos = unit + 10
        min_inst = debug_line[pos]
        pos += 2 if version >= 4 else 1  # maximum_operations_per_instruction since DWARF 4
        pos += 1  # default_is_stmt
        line_base = struct.unpack_from("<b", debug_line, pos)[0]
        line_range, opcode_base = debug_line[pos + 1], debug_line[pos + 2]
        lengths = debug_line[pos + 3:pos + 3 + opcode_base - 1]
        pos += 3 + opcode_base - 1
        dirs = [comp_dirs.get(unit, "")]
        while debug_line[pos]:
            text, pos = cstring(debug_line, pos)
            dirs.append(text)
        pos += 1
        files = [None]
        while debug_line[pos]:
            text, pos = cstring(debug_line, pos)
            index, pos = leb(debug_line, pos)
            _, pos = leb(debug_line, pos)
            _, pos = leb(debug_line, pos)
            directory = dirs[index] if index < len(dirs) else ""
            if directory and not directory.startswith("/") and dirs[0]:
                directory = f"{dirs[0]}/{directory}"
            files.append(text if text.startswith("/") or not directory else f"{directory}/{text}")
        pos = unit + 10 + header_length
        address, file, last = 0, 1, None
        while pos < end:
            op = debug_line[pos]
            pos += 1
            emit = False
            if op >= opcode_base:
                adjusted = op - opcode_base
                address += (adjusted // line_range) * min_inst
                emit = True
            elif op == 0:  # extended
                size, pos = leb(debug_line, pos)
                sub = debug_line[pos]
                if sub == 1:  # end_sequence
                    if last is not None:
                        yield unit, (last[0], address, last[1])
                    last = None
                    address, file = 0, 1
                elif sub == 2:  # set_address
                    address = int.from_bytes(debug_line[pos + 1:pos + size], "little")
                elif sub == 3:  # define_file
                    text, _ = cstring(debug_line, pos + 1)
                    files.append(text)
                pos += size
            elif op == 1:  # copy
                emit = True
            elif op == 2:  # advance_pc
                step, pos = leb(debug_line, pos)
                address += step * min_inst
            elif op == 3:  # advance_line
                _, pos = sleb(debug_line, pos)
            elif op == 4:  # set_file
                file, pos = leb(debug_line, pos)
            elif op == 8:  # const_add_pc
                address += ((255 - opcode_base) // line_range) * min_inst
            elif op == 9:  # fixed_advance_pc
                (step,) = struct.unpack_from("<H", debug_line, pos)
                address += step
                pos += 2
            else:  # set_column, negate_stmt, set_basic_block, prologue/epilogue, isa: skip operands
                for _ in range(lengths[op - 1]):
                    _, pos = leb(debug_line, pos)
            if emit:
                if last is not None and address > last[0]:
                    yield unit, (last[0], address, last[1])
                last = (address, files[file] if file < len(files) else None)
        unit = end


FORM_SIZES = {0x0B: 1, 0x05: 2, 0x06: 4, 0x07: 8, 0x11: 1, 0x12: 2, 0x13: 4, 0x14: 8, 0x0C: 1,
              0x0E: 4, 0x17: 4, 0x10: 4, 0x19: 0, 0x20: 8}


def compile_dirs(sections_by_name):
    """.debug_line offset -> DW_AT_comp_dir of the compile unit that owns that line program."""
    info, abbrev, strings = (sections_by_name.get(n, b"") for n in (".debug_info", ".debug_abbrev", ".debug_str"))
    dirs = {}
    unit = 0
    while unit < len(info):
        length, version, abbrev_offset = struct.unpack_from("<IHI", info, unit)
        address_size = info[unit + 10]
        pos = unit + 11
        code, pos = leb(info, pos)
        # Find the abbreviation `code` in the unit's abbreviation table.
        a = abbrev_offset
        while True:
            entry, a = leb(abbrev, a)
            _, a = leb(abbrev, a)  # tag
            a += 1  # children
            specs = []
            while True:
                name, a = leb(abbrev, a)
                form, a = leb(abbrev, a)
                if name == 0 and form == 0:
                    break
                specs.append((name, form))
            if entry == code:
                break
        stmt_list = comp_dir = None
        for name, form in specs:
            if form == 0x08:  # string
                value, pos = cstring(info, pos)
            elif form == 0x01:  # addr
                value = int.from_bytes(info[pos:pos + address_size], "little")
                pos += address_size
            elif form in (0x0F, 0x15):  # udata, ref_udata
                value, pos = leb(info, pos)
            elif form == 0x0D:  # sdata
                value, pos = sleb(info, pos)
            elif form in FORM_SIZES:
                size = FORM_SIZES[form]
                value = int.from_bytes(info[pos:pos + size], "little")
                pos += size
            else:
                break  # a form we do not need to go past: the two attributes come first
            if name == 0x10:  # DW_AT_stmt_list
                stmt_list = value
            elif name == 0x1B:  # DW_AT_comp_dir
                comp_dir = cstring(strings, value)[0] if form == 0x0E else value
        if stmt_list is not None:
            dirs[stmt_list] = comp_dir or ""
        unit += 4 + length
    return dirs


def crate_of_file(path, root):
    """The crate a source file belongs to, from its path."""
    if root and path.startswith(root.rstrip("/") + "/bench/size/src/"):
        return "keel_size_bench"
    if root and path.startswith(root.rstrip("/") + "/src/"):
        return "keel"
    match = re.search(r"(?:^|/)library/([a-z_-]+)/", path)
    if match:
        return match.group(1).replace("-", "_")
    match = re.search(r"/rust/deps/([A-Za-z0-9_-]+?)-\d+\.\d+[^/]*/", path)
    if match:
        return match.group(1).replace("-", "_") + " (std's)"
    match = re.search(r"/registry/src/[^/]+/([A-Za-z0-9_-]+?)-\d+\.\d+[^/]*/", path)
    if match:
        return match.group(1).replace("-", "_")
    return f"(other: {path})"


def cmd_attribute(path, root, sysroot):
    """Code bytes per crate, inlining seen through: each byte counts for the crate of the source
    line it was compiled from (DWARF line tables), except standard-library lines (core, alloc, std:
    Vec, Option, drop glue… inlined or instantiated for a caller), which count for the crate
    whose function they are in (by v0 name: its defining crate, else the crate that instantiated
    it), so that they show up as a cost of the crate that uses them."""
    buf = open(path, "rb").read()
    found = custom_sections(buf)
    if ".debug_line" not in found:
        sys.exit(f"{path} has no .debug_line: build it with debug = \"line-tables-only\"")
    w = weigh(path)
    if not w["names"]:
        sys.exit(f"{path} has no function names (a \"name\" section): build it with symbols")
    size = dict(w["sections"])["code"]
    payload = next(end - pos for sid, _, _, pos, end in sections(buf) if sid == 10)
    line_crate = [None] * payload
    for _, (start, end, file) in line_rows(found[".debug_line"], compile_dirs(found)):
        if start < payload:  # beyond: code the linker dropped ("tombstone" addresses)
            line_crate[start:min(end, payload)] = [crate_of_file(file or "", root)] * (min(end, payload) - start)
    described = [describe(w["names"].get(w["imports"] + i, "")) for i in range(len(w["spans"]))]
    labels = labeller({c for _, c, b in described for c in (c, b) if c}, sysroot)

    def label(crate):
        name, _, tail = crate.partition(" ")
        return (CRATE_LABELS.get(name, name) + (" " + tail if tail else "")) if crate else crate

    def is_std(crate):
        return crate is None or crate in STD_CRATES or crate.endswith("(std's)")

    own, charged = collections.Counter(), collections.Counter()
    for (start, end), (_, crate, by) in zip(w["spans"], described):
        crate, by = labels.get(crate), labels.get(by)
        payer = crate if not is_std(crate) else by if not is_std(by) else "std"
        for byte in range(start, end):
            line = line_crate[byte]
            line = label(line) if line else None
            if line is not None and not is_std(line):
                own[line] += 1
            elif payer == "std":
                own[line or "std"] += 1
            else:
                charged[payer] += 1
    sizes = dict(w["sections"])
    shipped = w["file"] - sum(n for l, n in w["sections"] if l.startswith("custom"))
    framing = size - sum(own.values()) - sum(charged.values())
    print(f"<!-- {path}: code section {size}, data section {sizes.get('data', 0)}, "
          f"{shipped} bytes without custom sections -->\n")
    print("| crate | from its own source lines | + standard-library code in its functions | "
          "= code bytes | % of code | % of module |")
    print("|---|---:|---:|---:|---:|---:|")
    totals = collections.Counter(own) + charged
    for crate, total in totals.most_common():
        print(f"| {crate} | {own[crate]} | {charged[crate] or ''} | {total} | {100 * total / size:.1f} | "
              f"{100 * total / shipped:.1f} |")
    data = sizes.get("data", 0)
    print(f"| (data section: strings, tables, statics) | | | {data} | | {100 * data / shipped:.1f} |")
    other = shipped - size - data + framing
    print(f"| (section headers, function table, types, exports) | | | {other} | | {100 * other / shipped:.1f} |")
    print(f"| **module without custom sections** | | | **{shipped}** | | 100.0 |")
    groups = collections.Counter()
    for crate, total in totals.items():
        groups[GROUPS.get(crate, STD_GROUP if is_std(crate) else crate)] += total
    print("\nGrouped by dependency choice:\n")
    print("| dependency choice | code bytes | % of code | % of module |")
    print("|---|---:|---:|---:|")
    for group, total in groups.most_common():
        print(f"| {group} | {total} | {100 * total / size:.1f} | {100 * total / shipped:.1f} |")


def main(argv):
    if len(argv) >= 2 and argv[0] == "sections":
        cmd_sections(argv[1])
    elif len(argv) >= 2 and argv[0] == "crates":
        options = dict(zip(argv[2::2], argv[3::2]))
        cmd_crates(argv[1], int(options.get("--top", 0)), options.get("--sysroot"))
    elif len(argv) >= 2 and argv[0] == "attribute":
        options = dict(zip(argv[2::2], argv[3::2]))
        cmd_attribute(argv[1], options.get("--root"), options.get("--sysroot"))
    elif len(argv) >= 2 and argv[0] == "modules":
        options = dict(zip(argv[2::2], argv[3::2]))
        cmd_modules(argv[1], options.get("--crate", "keel"), int(options.get("--depth", 2)))
    elif len(argv) == 3 and argv[0] == "module":
        cmd_module(argv[1], argv[2])
    elif len(argv) == 2 and argv[0] == "kinds":
        cmd_kinds(argv[1])
    elif len(argv) in (3, 4) and argv[0] == "strip":
        cmd_strip(argv[1], argv[2], argv[3:] == ["--debug-only"])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
