//! The direct matcher for `^…$` patterns against regex-lite on the translated pattern: the same
//! answer for every pattern it takes, on chosen strings and on random ones.

use proptest::prelude::*;
use regex_lite::Regex;

use super::super::anchored::Anchored;
use super::super::ecma::translate;

/// Patterns of the shape the matcher takes, as tool schemas write them.
const TAKEN: [&str; 17] = [
    "^e[0-9]+$",
    "^[A-Z]{3}-[0-9]{4}$",
    r"^\d{4}-\d{2}-\d{2}$",
    "^[a-z_]+$",
    r"^[a-zA-Z0-9_\-\.]{1,64}$",
    "^a*a*b?$",
    "^[^,]*,?[0-9]{2,}$",
    "^[^,]*,[0-9]+$",
    r"^\w+@\w+\.[a-z]{2,6}$",
    "^x{0}y$",
    "^$",
    "^[-a]+$",
    "^[a-]{2,3}$",
    r"^\$\.\*$",
    "^é+ü?$",
    // ASCII members the bytes of `é` (0xC3 0xA9) would hit with their top bit dropped.
    "^[C)]+$",
    // More live states at once than the matcher keeps on the stack: it runs again with a Vec.
    "^a{0,20}a{0,20}b$",
];

/// Patterns it leaves to regex-lite.
const LEFT: [&str; 10] =
    ["e[0-9]+$", "^e[0-9]+", "^(ab)+$", "^a|b$", "^.+$", r"^\s$", "^a+?$", "^[]$", r"^a\$", "^a{1,100}$"];

fn regex(pattern: &str) -> Regex {
    Regex::new(&translate(pattern).expect("translates")).expect("compiles")
}

#[test]
fn the_matcher_takes_simple_anchored_patterns_only() {
    for pattern in TAKEN {
        assert!(Anchored::parse(pattern).is_some(), "{pattern} is taken");
    }
    for pattern in LEFT {
        assert!(Anchored::parse(pattern).is_none(), "{pattern} is left to regex-lite");
    }
}

#[test]
fn it_answers_as_regex_lite_does_on_chosen_strings() {
    let texts = [
        "",
        "e",
        "e4",
        "e42",
        "E42",
        "e42x",
        "xe42",
        "ABC-1234",
        "ABC-123",
        "abc-1234",
        "2026-11-26",
        "2026-1-26",
        "a_b",
        "a-b",
        "aab",
        "aaa",
        "b",
        "ab,12",
        ",123",
        "a,b,12",
        "x@y.io",
        "x@y.toolongtld",
        "y",
        "x",
        "-a-",
        "a-",
        "$.*",
        "éé",
        "éü",
        "ü",
        "\n",
        "e4\n",
    ];
    let long = ["a".repeat(25) + "b", "a".repeat(40) + "b", "a".repeat(41) + "b", "a".repeat(30)];
    let texts = texts.iter().copied().chain(long.iter().map(String::as_str));
    for pattern in TAKEN {
        let (anchored, regex) = (Anchored::parse(pattern).unwrap(), regex(pattern));
        for text in texts.clone() {
            assert_eq!(anchored.is_match(text), regex.is_match(text), "{pattern} on {text:?}");
            let (greedy, states) = anchored.both_ways(text);
            assert_eq!(states, regex.is_match(text), "{pattern} on {text:?}, the state machine");
            assert!(greedy.is_none_or(|g| g == states), "{pattern} on {text:?}, the greedy walk");
        }
    }
}

proptest! {
    #[test]
    fn it_answers_as_regex_lite_does_on_random_strings(index in 0..TAKEN.len(), text in "[ae0-9A-Z_,.@$*é-]{0,12}") {
        let pattern = TAKEN[index];
        let (anchored, regex) = (Anchored::parse(pattern).unwrap(), regex(pattern));
        prop_assert_eq!(anchored.is_match(&text), regex.is_match(&text), "{} on {:?}", pattern, text);
        let (greedy, states) = anchored.both_ways(&text);
        prop_assert_eq!(states, regex.is_match(&text), "{} on {:?}, the state machine", pattern, text);
        prop_assert!(greedy.is_none_or(|g| g == states), "{} on {:?}, the greedy walk", pattern, text);
    }
}

#[test]
fn one_greedy_pass_decides_the_patterns_that_never_choose() {
    let greedy: Vec<&str> =
        TAKEN.into_iter().filter(|p| Anchored::parse(p).unwrap().both_ways("").0.is_some()).collect();
    // `^a*a*b?$` chooses which `a*` takes an `a`; `^[^,]*,?[0-9]{2,}$` whether a digit ends the
    // first part; `[^,]*` before a `,` and `\w+` before an `@` never do.
    assert_eq!(
        greedy,
        [
            "^e[0-9]+$",
            "^[A-Z]{3}-[0-9]{4}$",
            r"^\d{4}-\d{2}-\d{2}$",
            "^[a-z_]+$",
            r"^[a-zA-Z0-9_\-\.]{1,64}$",
            "^[^,]*,[0-9]+$",
            r"^\w+@\w+\.[a-z]{2,6}$",
            "^x{0}y$",
            "^$",
            "^[-a]+$",
            "^[a-]{2,3}$",
            r"^\$\.\*$",
            "^é+ü?$",
            "^[C)]+$",
        ]
    );
}
