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
}

impl Atom {
    fn has(&self, c: char) -> bool {
        self.ranges.iter().any(|&(low, high)| low <= c && c <= high) != self.negated
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
            atoms.push(Atom { ranges, negated, min, max });
            at = after;
        }
        Some(Anchored { atoms })
    }

    /// Whether the whole of `text` matches.
    pub fn is_match(&self, text: &str) -> bool {
        let n = self.atoms.len();
        let mut states: Vec<(usize, u32)> = Vec::with_capacity(8);
        let mut next: Vec<(usize, u32)> = Vec::with_capacity(8);
        self.enter(&mut states, 0, 0);
        for c in text.chars() {
            next.clear();
            for &(i, count) in &states {
                let Some(atom) = self.atoms.get(i) else { continue };
                if atom.has(c) && atom.max.is_none_or(|max| count < max) {
                    // Past its minimum an unlimited atom's count no longer matters.
                    let counted = if atom.max.is_none() { (count + 1).min(atom.min) } else { count + 1 };
                    self.enter(&mut next, i, counted);
                }
            }
            if next.is_empty() {
                return false;
            }
            std::mem::swap(&mut states, &mut next);
        }
        states.iter().any(|&(i, _)| i == n)
    }

    /// Adds state (`i`, `count`) and every state reachable from it without reading a character.
    fn enter(&self, states: &mut Vec<(usize, u32)>, mut i: usize, mut count: u32) {
        loop {
            if !states.contains(&(i, count)) {
                states.push((i, count));
            }
            match self.atoms.get(i) {
                Some(atom) if count >= atom.min => {
                    i += 1;
                    count = 0;
                }
                _ => return,
            }
        }
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
