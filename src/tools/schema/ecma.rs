//! ECMA-262 patterns (what JSON Schema's `pattern` is, with Unicode semantics) rewritten for
//! regex-lite where the two read the same text differently:
//!
//! - `\s` is ECMA's whitespace (tab, line feed, vertical tab, form feed, carriage return, space,
//!   U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF), `\S` the rest,
//!   in and out of classes; regex-lite's are ASCII only;
//! - `.` stops at every line terminator (`\n`, `\r`, U+2028, U+2029), not only `\n`;
//! - `\cX` (a control character), `\0`, `\xHH`, `\uHHHH` (a surrogate pair joined), `\u{…}`, and
//!   `[\b]` (backspace) become code points; `[]` matches nothing and `[^]` anything;
//! - inside a class `[`, `&` and `~` are literal (regex-lite would read nested classes and set
//!   operations);
//! - `\d`, `\w`, `\b` are ASCII in both and pass as they are.
//!
//! What has no regex-lite form is refused with the construct named ([`Refusal::Invalid`]): escapes
//! ECMA-262 does not define in Unicode mode (`\A`, `\z`, `\e`…), inline flags (`(?i)`), a lone
//! surrogate, and the ECMA-262 syntax regex-lite has no engine for: backreferences and Unicode
//! property classes (`\p{Letter}`). Lookaround comes back as [`Refusal::EcmaOnly`]: Zod emits it
//! for `z.email()`, and the caller decides (a `format` beside it may stand in for it).

use std::fmt::Write;

/// ECMA-262's WhiteSpace and LineTerminator code points, as class ranges.
const SPACE: [(u32, u32); 10] = [
    (0x09, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
];

/// Why a pattern has no regex-lite form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Refusal {
    /// Lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`): ECMA-262 syntax regex-lite has no engine for.
    EcmaOnly(&'static str),
    /// Not a valid ECMA-262 pattern in Unicode mode, or a construct keel cannot translate.
    Invalid(String),
}

/// `source` (ECMA-262) as a regex-lite pattern that matches the same strings.
pub(super) fn translate(source: &str) -> Result<String, Refusal> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len() + 8);
    let mut at = 0;
    while at < chars.len() {
        match chars[at] {
            '\\' => at = escape(&chars, at, false, &mut out)?,
            '.' => {
                out.push_str(r"[^\n\r\x{2028}\x{2029}]");
                at += 1;
            }
            '[' => at = class(&chars, at, &mut out)?,
            '(' if chars.get(at + 1) == Some(&'?') => {
                at = group(&chars, at, &mut out)?;
            }
            c => {
                out.push(c);
                at += 1;
            }
        }
    }
    Ok(out)
}

/// A `(?…` group opener at `at`: `(?:` and `(?<name>` pass, lookaround is ECMA-only, anything else
/// (inline flags) is refused.
fn group(chars: &[char], at: usize, out: &mut String) -> Result<usize, Refusal> {
    let next: String = chars[at + 2..].iter().take(2).collect();
    if next.starts_with('=') || next.starts_with('!') || next == "<=" || next == "<!" {
        return Err(Refusal::EcmaOnly("lookaround (?=, (?!, (?<=, (?<!"));
    }
    if next.starts_with(':') || next.starts_with('<') {
        out.push_str("(?");
        return Ok(at + 2);
    }
    let shown: String = chars[at..].iter().take(4).collect();
    Err(Refusal::Invalid(format!(
        "`{shown}`: ECMA-262 has no inline flags or other (?… groups than (?:, (?<name>, and lookaround"
    )))
}

/// A class from the `[` at `at`; returns where it ends.
fn class(chars: &[char], at: usize, out: &mut String) -> Result<usize, Refusal> {
    let mut at = at + 1;
    let negated = chars.get(at) == Some(&'^');
    if negated {
        at += 1;
    }
    if chars.get(at) == Some(&']') {
        // `[]` matches nothing and `[^]` any character (regex-lite has neither).
        out.push_str(if negated { r"[\x{0}-\x{10FFFF}]" } else { r"[^\x{0}-\x{10FFFF}]" });
        return Ok(at + 1);
    }
    out.push_str(if negated { "[^" } else { "[" });
    while at < chars.len() {
        match chars[at] {
            ']' => {
                out.push(']');
                return Ok(at + 1);
            }
            '\\' => at = escape(chars, at, true, out)?,
            // Literal in ECMA; nested classes and set operations in regex-lite.
            c @ ('[' | '&' | '~') => {
                out.push('\\');
                out.push(c);
                at += 1;
            }
            '-' if out.ends_with('-') && !out.ends_with("\\-") => {
                out.push_str("\\-");
                at += 1;
            }
            c => {
                out.push(c);
                at += 1;
            }
        }
    }
    Err(Refusal::Invalid("a `[` class that is never closed with `]`".to_string()))
}

/// The escape at `at` (a backslash), in a class or not; returns where it ends.
fn escape(chars: &[char], at: usize, in_class: bool, out: &mut String) -> Result<usize, Refusal> {
    let Some(&c) = chars.get(at + 1) else {
        return Err(Refusal::Invalid("a `\\` at the end of the pattern".to_string()));
    };
    let next = at + 2;
    match c {
        'd' | 'D' | 'w' | 'W' | 't' | 'n' | 'r' | 'f' | 'v' => {
            out.push('\\');
            out.push(c);
            Ok(next)
        }
        'b' if in_class => {
            code_point(out, 0x08);
            Ok(next)
        }
        'b' | 'B' if !in_class => {
            out.push('\\');
            out.push(c);
            Ok(next)
        }
        's' => {
            ranges(out, &SPACE, in_class);
            Ok(next)
        }
        'S' => {
            let rest = complement(&SPACE);
            if in_class {
                ranges(out, &rest, true);
            } else {
                out.push_str("[^");
                ranges(out, &SPACE, true);
                out.push(']');
            }
            Ok(next)
        }
        'c' => match chars.get(next) {
            Some(letter) if letter.is_ascii_alphabetic() => {
                code_point(out, u32::from(*letter) % 32);
                Ok(next + 1)
            }
            _ => Err(Refusal::Invalid("`\\c` not followed by a letter A-Z or a-z".to_string())),
        },
        '0' if !chars.get(next).is_some_and(char::is_ascii_digit) => {
            code_point(out, 0);
            Ok(next)
        }
        '1'..='9' if !in_class => Err(no_engine(&format!("the backreference `\\{c}`"))),
        'k' if chars.get(next) == Some(&'<') => Err(no_engine("the named backreference `\\k<…>`")),
        'p' | 'P' => Err(no_engine(&format!("the Unicode property class `\\{c}{{…}}`"))),
        'x' => {
            let value = hex(chars, next, 2)
                .ok_or_else(|| Refusal::Invalid("`\\x` not followed by two hex digits".to_string()))?;
            code_point(out, value);
            Ok(next + 2)
        }
        'u' => unicode(chars, next, out),
        // ECMA's syntax characters and `/` (and `-` in a class) may be escaped: the same in regex-lite.
        '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|' | '/' => {
            out.push('\\');
            out.push(c);
            Ok(next)
        }
        '-' if in_class => {
            out.push_str("\\-");
            Ok(next)
        }
        other => Err(Refusal::Invalid(format!(
            "`\\{other}`: ECMA-262 (Unicode mode, as JSON Schema reads patterns) has no such escape"
        ))),
    }
}

/// `\uHHHH` (joined with a following low surrogate) or `\u{H…}`, after the `u` at `at`.
fn unicode(chars: &[char], at: usize, out: &mut String) -> Result<usize, Refusal> {
    let bad = || Refusal::Invalid("`\\u` not followed by four hex digits or {hex}".to_string());
    if chars.get(at) == Some(&'{') {
        let close = chars[at..].iter().position(|&c| c == '}').ok_or_else(bad)? + at;
        let digits: String = chars[at + 1..close].iter().collect();
        let value = u32::from_str_radix(&digits, 16).ok().filter(|v| char::from_u32(*v).is_some());
        code_point(out, value.ok_or_else(bad)?);
        return Ok(close + 1);
    }
    let high = hex(chars, at, 4).ok_or_else(bad)?;
    if (0xD800..0xDC00).contains(&high) {
        let low = (chars.get(at + 4) == Some(&'\\') && chars.get(at + 5) == Some(&'u'))
            .then(|| hex(chars, at + 6, 4))
            .flatten()
            .filter(|low| (0xDC00..0xE000).contains(low));
        if let Some(low) = low {
            code_point(out, 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00));
            return Ok(at + 10);
        }
    }
    if (0xD800..0xE000).contains(&high) {
        return Err(Refusal::Invalid(format!(
            "`\\u{high:04X}`: a lone surrogate, which no string keel checks can hold"
        )));
    }
    code_point(out, high);
    Ok(at + 4)
}

/// A refusal for ECMA-262 syntax keel has no engine for.
fn no_engine(construct: &str) -> Refusal {
    Refusal::Invalid(format!("{construct} is ECMA-262 syntax keel's regex engine (regex-lite) cannot check"))
}

/// The `len` hex digits at `at`, as a number.
fn hex(chars: &[char], at: usize, len: usize) -> Option<u32> {
    let digits = chars.get(at..at + len)?;
    digits.iter().try_fold(0u32, |value, c| Some(value * 16 + c.to_digit(16)?))
}

/// A code point in regex-lite's `\x{…}` form.
fn code_point(out: &mut String, value: u32) {
    let _ = write!(out, "\\x{{{value:X}}}");
}

/// Class ranges, bracketed unless already in a class.
fn ranges(out: &mut String, set: &[(u32, u32)], in_class: bool) {
    if !in_class {
        out.push('[');
    }
    for &(low, high) in set {
        code_point(out, low);
        if high != low {
            out.push('-');
            code_point(out, high);
        }
    }
    if !in_class {
        out.push(']');
    }
}

/// Every code point outside `set` (sorted, disjoint), as ranges.
fn complement(set: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut rest = Vec::with_capacity(set.len() + 1);
    let mut from = 0;
    for &(low, high) in set {
        if low > from {
            rest.push((from, low - 1));
        }
        from = high + 1;
    }
    rest.push((from, 0x10FFFF));
    rest
}
