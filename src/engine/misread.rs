//! A number read with another number's unit: "You have 25 days left" when the tool returned
//! "Vacation: 13.5 days left of 25." Every fact in it was seen, so the grounding check passed, and
//! the run was reported a success (SmolLM2's focused answer, recovery bench invent-balance). A
//! number followed by a unit word ("25 days") is misread when what the run saw gives that unit
//! only to other numbers ("13.5 days") and gives this number without it ("of 25"). A number the
//! run never saw as it is (a total, a conversion) is the grounding check's to judge, not this one's.
//!
//! Checked on every success the recovery bench recorded (`bench/results/recovery-*.json`): it
//! matches that answer and no right one.

use std::borrow::Cow;

use super::facts::{number, numbered_word, numbered_words, tokens};

/// The "number unit" pairs of `text` with the number in digits (lowercased units, numbers as
/// stated): `25 days`.
fn pairs(text: &str) -> Vec<(f64, String)> {
    numbered_words(text).into_iter().filter_map(digit_pair).collect()
}

/// `w` as a "number unit" pair, if its number is in digits (lowercased unit).
fn digit_pair(w: super::facts::NumberedWord<'_>) -> Option<(f64, String)> {
    w.digits.then(|| (w.n, w.word.to_lowercase()))
}

/// What [`misread`] reads of a text: its "number unit" pairs, the numbers its tokens state, and
/// its first and last tokens. A text that starts with a newline (each part of the checks' texts
/// does, `memory_text.rs`) has no token in common with the text before it, so the facts of two
/// texts give those of the two joined, with the pair across the join ([`misread_in`]): a
/// session's remembered lines are read once, not at each run (`memory_parts.rs`).
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct UnitFacts {
    pairs: Vec<(f64, String)>,
    stated: Vec<f64>,
    first: Option<String>,
    last: Option<String>,
}

impl UnitFacts {
    /// The facts of `text` (lowercased).
    pub(crate) fn of(text: &str) -> UnitFacts {
        let tokens = tokens(text);
        UnitFacts {
            pairs: pairs(text),
            stated: tokens.iter().filter_map(|t| number(t.trim_matches(['.', ',', ':', ';']))).collect(),
            first: tokens.first().map(|t| t.to_string()),
            last: tokens.last().map(|t| t.to_string()),
        }
    }
}

/// The pairs of `answer` (as `"25 days"`) that `seen` (the run's lowercased text) misreads: the
/// unit follows other numbers there and never this one, and this number is there without it.
pub(crate) fn misread(answer: &str, seen: &str) -> Vec<String> {
    misread_in(answer, || vec![Cow::Owned(UnitFacts::of(seen))])
}

/// [`misread`] of the text whose parts, in order, have the facts `parts` gives (read only when
/// `answer` states a number with a unit).
pub(crate) fn misread_in<'a>(answer: &str, parts: impl FnOnce() -> Vec<Cow<'a, UnitFacts>>) -> Vec<String> {
    let said = pairs(answer);
    if said.is_empty() {
        // Most answers: the run's whole text (which grows with it) is not read at all.
        return Vec::new();
    }
    let parts = parts();
    // The pairs across the joins: a part's first token after the last token before it.
    let mut joins = Vec::new();
    let mut last: Option<&str> = None;
    for part in &parts {
        if let (Some(before), Some(first)) = (last, part.first.as_deref()) {
            joins.extend(numbered_word(before, first).and_then(digit_pair));
        }
        last = part.last.as_deref().or(last);
    }
    let known = || parts.iter().flat_map(|p| &p.pairs).chain(&joins);
    said.into_iter()
        .filter(|(n, unit)| {
            let unit_seen = known().any(|(_, u)| u == unit);
            let pair_seen = known().any(|(m, u)| u == unit && m == n);
            unit_seen && !pair_seen && parts.iter().any(|p| p.stated.contains(n))
        })
        .map(|(n, unit)| format!("{n} {unit}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BALANCE: &str = "vacation: 13.5 days left of 25. sick leave: 4 days used.";

    #[test]
    fn a_number_given_another_numbers_unit_is_misread() {
        assert_eq!(misread("You have 25 days left of vacation.", BALANCE), ["25 days"]);
    }

    #[test]
    fn numbers_read_with_their_own_unit_or_not_seen_are_not() {
        assert!(misread("You have 13.5 days left.", BALANCE).is_empty());
        assert!(misread("You used 4 days of sick leave.", BALANCE).is_empty());
        assert!(
            misread("Together 2230 dollars.", "inv-1: 1250 dollars, inv-2: 980 dollars").is_empty(),
            "a total"
        );
        assert!(misread("It is 31 degrees.", "austin: 31°c, sunny.").is_empty(), "a unit never seen");
        assert!(misread("Set for 7 pm.", "alarm at 7 am").is_empty(), "too short to be a unit");
    }

    /// `text` cut before each newline: parts as the checks' texts are made of.
    fn parts(text: &str) -> Vec<Cow<'static, UnitFacts>> {
        let mut cuts: Vec<usize> = text.match_indices('\n').map(|(at, _)| at).collect();
        cuts.push(text.len());
        let mut from = 0;
        cuts.into_iter()
            .map(|to| {
                let part = UnitFacts::of(&text[from..to]);
                from = to;
                Cow::Owned(part)
            })
            .collect()
    }

    #[test]
    fn the_parts_of_a_text_read_as_the_text() {
        let texts = [
            // The pair "13.5 days" is across a cut, and an empty part sits between two.
            "vacation: 13.5\ndays left of 25.\n\nsick leave: 4 days used.",
            "leave: 13.5\n\n\ndays left of 25",
            "\n{\"id\":25}\n25\n13.5 days\n",
            BALANCE,
            "",
        ];
        for text in texts {
            for answer in ["You have 25 days left.", "13.5 days", "4 days", "It is 25 degrees."] {
                assert_eq!(
                    misread_in(answer, || parts(text)),
                    misread(answer, text),
                    "{answer:?} in {text:?}"
                );
            }
        }
        assert_eq!(misread_in("You have 25 days left.", || parts(texts[0])), ["25 days"]);
        assert_eq!(misread_in("You have 25 days left.", || parts(texts[1])), ["25 days"]);
    }
}
