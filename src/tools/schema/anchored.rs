//! A direct matcher for the shape most tool-schema patterns have: `^`, then literals and classes
//! (`e`, `\d`, `[A-Z_]`, `[^,]`), each with an optional quantifier (`+`, `*`, `?`, `{n}`, `{n,m}`,
//! `{n,}`), then `$` — ids, codes, dates (`^e[0-9]+$`, `^[A-Z]{3}-[0-9]{4}$`, `^\d{4}-\d{2}-\d{2}$`).
//! regex-lite runs a general engine for each match; this walks the string once with a handful of
//! states and no allocation per character. Patterns of any other shape are left to regex-lite
//! ([`Anchored::parse`] says `None`); a pattern it does take matches exactly the strings the regex
//! would (the unit tests compare both on every pattern they use).

/// Counted states per atom: past this, the pattern is left to regex-lite.
const MAX_COUNT: u32 = 64;

/// A pattern `^atom…$`, each atom a set of characters with a count.
#[derive(Debug, Clone)]
pub(super) struct Anchored {
    atoms: Vec<Atom>,
    /// Whether one greedy pass decides the match: no character an atom of varying count could
    /// take could also start what may follow it (see [`Anchored::greedy_is_exact`]).
    greedy: bool,
}

/// One character set and how many times it repeats.
#[derive(Debug, Clone)]
struct Atom {
    /// Inclusive character ranges.
    ranges: Vec<(char, char)>,
    /// Whether the set is the complement of `ranges`.
    negated: bool,
    /// Fewest repeats.
    min: u32,
    /// Most repeats; `None` for no limit.
    max: Option<u32>,
    /// The set's ASCII members, entry `c` for character `c`; entries 128 to 255 stay `false`:
    /// most patterns and texts are ASCII, and a byte is then tested with one load. Any byte
    /// indexes it without a bounds check, and a byte of a wider character is in no set.
    ascii: [bool; 256],
    /// Whether every member is ASCII (a set of ASCII ranges, not negated): a run of the set is
    /// then a run of bytes, and any byte of a wider character ends it.
    ascii_only: bool,
}

impl Atom {
    fn new(ranges: Vec<(char, char)>, negated: bool, min: u32, max: Option<u32>) -> Atom {
        let ascii_only = !negated && ranges.iter().all(|&(_, high)| high.is_ascii());
        let mut atom = Atom { ranges, negated, min, max, ascii: [false; 256], ascii_only };
        for byte in 0u8..128 {
            if atom.has_slowly(char::from(byte)) {
                atom.ascii[usize::from(byte)] = true;
            }
        }
        atom
    }

    /// Whether ASCII character `byte` is in the set; `false` for any byte from 128 up (a byte of
    /// a wider character, which an ASCII-only set cannot hold: others test those characters
    /// whole).
    #[inline(always)]
    fn has_ascii(&self, byte: u8) -> bool {
        self.ascii[usize::from(byte)]
    }

    fn has(&self, c: char) -> bool {
        match u8::try_from(c) {
            Ok(byte) if byte < 0x80 => self.has_ascii(byte),
            _ => self.has_slowly(c),
        }
    }

    fn has_slowly(&self, c: char) -> bool {
        self.ranges.iter().any(|&(low, high)| low <= c && c <= high) != self.negated
    }

    /// Whether no character is in both sets (`false` when unsure: both negated, or a range of
    /// one split across ranges of the other's complement).
    fn disjoint(&self, other: &Atom) -> bool {
        let covers = |ranges: &[(char, char)], low: char, high: char| {
            ranges.iter().any(|&(l, h)| l <= low && high <= h)
        };
        match (self.negated, other.negated) {
            (false, false) => {
                self.ranges.iter().all(|&(l, h)| other.ranges.iter().all(|&(ol, oh)| h < ol || oh < l))
            }
            (true, false) => other.ranges.iter().all(|&(l, h)| covers(&self.ranges, l, h)),
            (false, true) => self.ranges.iter().all(|&(l, h)| covers(&other.ranges, l, h)),
            (true, true) => false,
        }
    }
}

/// A character set read from the pattern: its ranges, whether negated, and where it ends.
type ReadSet = (Vec<(char, char)>, bool, usize);

/// `\d` and `\w`, ASCII as in ECMA-262.
const DIGIT: &[(char, char)] = &[('0', '9')];
const WORD: &[(char, char)] = &[('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')];

impl Anchored {
    /// The matcher for an ECMA-262 `source`, when it has the shape this module handles.
    pub fn parse(source: &str) -> Option<Anchored> {
        let body = source.strip_prefix('^')?.strip_suffix('$')?;
        if body.ends_with('\\') && !body.ends_with("\\\\") {
            return None; // `\$`: the dollar was escaped, not an anchor.
        }
        let chars: Vec<char> = body.chars().collect();
        let mut atoms = Vec::new();
        let mut at = 0;
        while at < chars.len() {
            let (ranges, negated, next) = match chars[at] {
                '\\' => (escape(*chars.get(at + 1)?)?, false, at + 2),
                '[' => class(&chars, at + 1)?,
                '.' | '*' | '+' | '?' | '(' | ')' | '{' | '}' | '|' | '^' | '$' | ']' => return None,
                c => (vec![(c, c)], false, at + 1),
            };
            let (min, max, after) = quantifier(&chars, next)?;
            atoms.push(Atom::new(ranges, negated, min, max));
            at = after;
        }
        let greedy = Anchored::greedy_is_exact(&atoms);
        Some(Anchored { atoms, greedy })
    }

    /// Whether taking each character into the current atom while it can, and moving on only when
    /// it cannot, decides every match: true when every atom of varying count shares no character
    /// with the atoms that may come right after it (up to and including the first that must
    /// occur). Then a character the current atom can take is one nothing after it could, so the
    /// walk never has to choose.
    fn greedy_is_exact(atoms: &[Atom]) -> bool {
        atoms.iter().enumerate().all(|(i, atom)| {
            if atom.max == Some(atom.min) {
                return true;
            }
            for next in &atoms[i + 1..] {
                if !atom.disjoint(next) {
                    return false;
                }
                if next.min > 0 {
                    break;
                }
            }
            true
        })
    }

    /// The greedy walk ([`Anchored::greedy_is_exact`] says when it is exact): each atom takes
    /// every character it can (up to its most), then must have its fewest; the text must be used
    /// up at the end. ASCII bytes are tested without decoding a character.
    fn greedy_match(&self, text: &str) -> bool {
        let bytes = text.as_bytes();
        let mut at: usize = 0;
        for atom in &self.atoms {
            let most = atom.max.map_or(usize::MAX, |max| max as usize);
            if atom.ascii_only {
                let end = bytes.len().min(at.saturating_add(most));
                let span = bytes.get(at..end).unwrap_or_default();
                // A byte from 128 up is in no ASCII-only set (`has_ascii`), so it ends the run.
                let mut run = 0;
                while let Some(&byte) = span.get(run) {
                    if !atom.has_ascii(byte) {
                        break;
                    }
                    run += 1;
                }
                if run < atom.min as usize {
                    return false;
                }
                at += run;
                continue;
            }
            let mut count = 0;
            while count < most {
                let Some(&byte) = bytes.get(at) else { break };
                let width = if byte < 0x80 {
                    if !atom.has_ascii(byte) {
                        break;
                    }
                    1
                } else {
                    match text[at..].chars().next() {
                        Some(c) if atom.has(c) => c.len_utf8(),
                        _ => break,
                    }
                };
                at += width;
                count += 1;
            }
            if count < atom.min as usize {
                return false;
            }
        }
        at == bytes.len()
    }

    /// The greedy walk's answer (`None` when it is not exact for this pattern) and the state
    /// machine's, for the tests that hold them to each other and to regex-lite (native only, as
    /// those tests are).
    #[cfg(all(test, not(target_arch = "wasm32")))]
    pub fn both_ways(&self, text: &str) -> (Option<bool>, bool) {
        let greedy = self.greedy.then(|| self.greedy_match(text));
        (greedy, self.run::<Vec<State>>(text).unwrap_or(false))
    }

    /// Whether the whole of `text` matches. The live states sit in two arrays on the stack (no
    /// allocation per call); a pattern whose counts need more of them at once runs again with
    /// growable ones.
    pub fn is_match(&self, text: &str) -> bool {
        if self.greedy {
            return self.greedy_match(text);
        }
        match self.run::<Inline>(text) {
            Some(matched) => matched,
            None => self.run::<Vec<State>>(text).unwrap_or(false),
        }
    }

    /// The match with state sets of kind `S`; `None` when `S` ran out of room. Never inlined:
    /// its state sets would take stack room (and register saves) in [`Anchored::is_match`] even
    /// when the greedy walk decides.
    #[inline(never)]
    fn run<S: States>(&self, text: &str) -> Option<bool> {
        let n = self.atoms.len();
        let mut states = S::default();
        let mut next = S::default();
        self.enter(&mut states, 0, 0)?;
        for c in text.chars() {
            next.clear();
            for &(i, count) in states.as_slice() {
                let Some(atom) = self.atoms.get(i) else { continue };
                if atom.has(c) && atom.max.is_none_or(|max| count < max) {
                    // Past its minimum an unlimited atom's count no longer matters.
                    let counted = if atom.max.is_none() { (count + 1).min(atom.min) } else { count + 1 };
                    self.enter(&mut next, i, counted)?;
                }
            }
            if next.as_slice().is_empty() {
                return Some(false);
            }
            std::mem::swap(&mut states, &mut next);
        }
        Some(states.as_slice().iter().any(|&(i, _)| i == n))
    }

    /// Adds state (`i`, `count`) and every state reachable from it without reading a character;
    /// `None` when the set is full.
    fn enter<S: States>(&self, states: &mut S, mut i: usize, mut count: u32) -> Option<()> {
        loop {
            if !states.as_slice().contains(&(i, count)) {
                states.push((i, count))?;
            }
            match self.atoms.get(i) {
                Some(atom) if count >= atom.min => {
                    i += 1;
                    count = 0;
                }
                _ => return Some(()),
            }
        }
    }
}

/// A matcher state: the atom reached and how many times it has repeated.
type State = (usize, u32);

/// A set of live states.
trait States: Default {
    /// The states, in the order added.
    fn as_slice(&self) -> &[State];
    /// Empties the set.
    fn clear(&mut self);
    /// Adds a state; `None` when there is no room.
    fn push(&mut self, state: State) -> Option<()>;
}

/// Live states held at once before [`Inline`] gives up: `^e[0-9]+$` needs 2, `^[A-Z]{3}-[0-9]{4}$` 1.
const INLINE_STATES: usize = 16;

/// A fixed-size set on the stack.
#[derive(Default)]
struct Inline {
    items: [State; INLINE_STATES],
    len: usize,
}

impl States for Inline {
    fn as_slice(&self) -> &[State] {
        &self.items[..self.len]
    }

    fn clear(&mut self) {
        self.len = 0;
    }

    fn push(&mut self, state: State) -> Option<()> {
        *self.items.get_mut(self.len)? = state;
        self.len += 1;
        Some(())
    }
}

impl States for Vec<State> {
    fn as_slice(&self) -> &[State] {
        self
    }

    fn clear(&mut self) {
        Vec::clear(self);
    }

    fn push(&mut self, state: State) -> Option<()> {
        Vec::push(self, state);
        Some(())
    }
}

/// An escape outside a class: `\d`, `\w` or an escaped punctuation character.
fn escape(c: char) -> Option<Vec<(char, char)>> {
    match c {
        'd' => Some(DIGIT.to_vec()),
        'w' => Some(WORD.to_vec()),
        c if c.is_ascii_punctuation() => Some(vec![(c, c)]),
        _ => None,
    }
}

/// A class after its `[`: ranges, whether negated, and where it ends.
fn class(chars: &[char], mut at: usize) -> Option<ReadSet> {
    let negated = chars.get(at) == Some(&'^');
    if negated {
        at += 1;
    }
    let mut ranges = Vec::new();
    let mut first = true;
    loop {
        let c = *chars.get(at)?;
        match c {
            // `[]` matches nothing and `[^]` anything in ECMA-262: left to the translation.
            ']' if first => return None,
            ']' => return Some((ranges, negated, at + 1)),
            _ => {}
        }
        first = false;
        let (low, after) = match c {
            '\\' => match *chars.get(at + 1)? {
                'd' => {
                    ranges.extend_from_slice(DIGIT);
                    at += 2;
                    continue;
                }
                'w' => {
                    ranges.extend_from_slice(WORD);
                    at += 2;
                    continue;
                }
                e if e.is_ascii_punctuation() => (e, at + 2),
                _ => return None,
            },
            '[' | ']' | '&' | '~' => return None,
            c => (c, at + 1),
        };
        if chars.get(after) == Some(&'-') && chars.get(after + 1).is_some_and(|&h| h != ']') {
            let high = *chars.get(after + 1)?;
            if high == '\\' || high == '[' || high < low {
                return None;
            }
            ranges.push((low, high));
            at = after + 2;
        } else {
            ranges.push((low, low));
            at = after;
        }
    }
}

/// The quantifier at `at`, if any: (min, max, where it ends).
fn quantifier(chars: &[char], at: usize) -> Option<(u32, Option<u32>, usize)> {
    let (min, max, after) = match chars.get(at) {
        Some('*') => (0, None, at + 1),
        Some('+') => (1, None, at + 1),
        Some('?') => (0, Some(1), at + 1),
        Some('{') => {
            let close = chars[at..].iter().position(|&c| c == '}')? + at;
            let inside: String = chars[at + 1..close].iter().collect();
            let (min, max) = match inside.split_once(',') {
                None => {
                    let n = inside.parse().ok()?;
                    (n, Some(n))
                }
                Some((low, "")) => (low.parse().ok()?, None),
                Some((low, high)) => (low.parse().ok()?, Some(high.parse().ok()?)),
            };
            (min, max, close + 1)
        }
        _ => (1, Some(1), at),
    };
    // A lazy or possessive mark, or counts past the bound: left to regex-lite.
    if matches!(chars.get(after), Some('?' | '+' | '*' | '{')) || min > MAX_COUNT {
        return None;
    }
    if max.is_some_and(|max| max < min || max > MAX_COUNT) {
        return None;
    }
    Some((min, max, after))
}
