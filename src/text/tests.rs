use serde_json::json;

use super::*;

/// A shortening to a char budget.
type Shorten = fn(&str, usize) -> String;

/// Each of the three shortenings, for tests that hold for all of them.
const SHORTENINGS: [(&str, Shorten); 3] =
    [("clip", clip), ("head_tail", head_tail), ("cut_middle", cut_middle)];

#[test]
fn text_that_fits_is_returned_whole() {
    for (name, shorten) in SHORTENINGS {
        assert_eq!(shorten("héllo", 5), "héllo", "{name}");
        assert_eq!(shorten("héllo", 99), "héllo", "{name}");
        assert_eq!(shorten("", 0), "", "{name}");
    }
    assert_eq!(cut_middle_keeping("héllo", 5), "héllo");
}

#[test]
fn tiny_budgets_give_the_mark_or_nothing() {
    for (name, shorten) in SHORTENINGS {
        assert_eq!(shorten("héllo", 0), "", "{name}");
        assert_eq!(shorten("héllo", 1), "…", "{name}");
    }
}

#[test]
fn clip_keeps_the_head_and_counts_chars() {
    assert_eq!(clip("héllo", 4), "hél…");
    assert_eq!(clip("héllo", 3), "hé…");
    assert_eq!(clip(&"é".repeat(200), 80), format!("{}…", "é".repeat(79)));
}

#[test]
fn head_tail_keeps_both_ends_the_odd_char_at_the_head() {
    assert_eq!(head_tail("{\"a\":1,\"b\":2}", 7), "{\"a…:2}");
    assert_eq!(head_tail("abcdef", 2), "a…");
    assert_eq!(head_tail("abcdef", 3), "a…f");
    assert_eq!(head_tail("ééééé", 4), "éé…é");
}

#[test]
fn cut_middle_fills_the_budget_and_counts_what_it_cut() {
    let text: String = (0..500).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
    let cut = cut_middle(&text, 100);
    assert_eq!(cut.chars().count(), 100);
    // 83 chars kept (56 head, 27 tail) plus a 17-char marker.
    assert_eq!(cut, format!("{}…[cut 417 chars]…{}", &text[..56], &text[473..]));
    // The count's width takes room from the text: 99 cut fits two digits; 100 would need a
    // third, which costs one more kept char, so 101 are cut.
    let cut = cut_middle(&"x".repeat(183), 100);
    assert_eq!((cut.chars().count(), cut.contains("…[cut 99 chars]…")), (100, true), "{cut}");
    let cut = cut_middle(&"x".repeat(184), 100);
    assert_eq!((cut.chars().count(), cut.contains("…[cut 101 chars]…")), (100, true), "{cut}");
}

#[test]
fn cut_middle_below_its_minimum_falls_back_to_head_and_tail() {
    assert_eq!(cut_middle("abcdef", 3), "a…f");
    // 14 marker chars + 2 digits + 7 kept: one short of the minimum.
    let text = "y".repeat(100);
    assert_eq!(cut_middle(&text, 23), head_tail(&text, 23));
    assert!(cut_middle(&text, 24).contains("…[cut 92 chars]…"));
}

#[test]
fn cut_middle_keeping_adds_the_marker_on_top() {
    let text = "ééééééééééabcdefghij";
    assert_eq!(cut_middle_keeping(text, 6), "éééé…[cut 14 chars]…ij");
    assert_eq!(cut_middle_keeping(text, 0), "…[cut 20 chars]…");
    assert_eq!(cut_middle_keeping(text, 100), text);
}

#[test]
fn cuts_count_code_points_not_graphemes() {
    // "e" + combining acute, and a family emoji of 5 code points joined by zero-width joiners.
    let accented = "e\u{301}e\u{301}e\u{301}";
    assert_eq!(clip(accented, 4), "e\u{301}e…");
    let family = "👨\u{200d}👩\u{200d}👧";
    assert_eq!(head_tail(family, 3), "👨…👧");
    assert_eq!(cut_middle(&"🦀".repeat(50), 30).chars().count(), 30);
}

#[test]
fn json_types_are_named_with_their_article() {
    let names: Vec<_> = [json!(null), json!(true), json!(1.5), json!("s"), json!([]), json!({})]
        .iter()
        .map(json_type_name)
        .collect();
    assert_eq!(names, ["null", "a boolean", "a number", "a string", "an array", "an object"]);
}

/// Properties for any text and any budget, multi-byte chars included.
#[cfg(not(target_arch = "wasm32"))]
mod props {
    use proptest::prelude::*;

    use super::*;

    /// Text mixing ASCII, 2-, 3- and 4-byte chars and combining marks.
    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![Just('a'), Just('é'), Just('\u{301}'), Just('中'), Just('🦀')],
            0..200,
        )
        .prop_map(|chars| chars.into_iter().collect())
    }

    /// `text`'s first `n` chars and its last `m` chars.
    fn ends(text: &str, n: usize, m: usize) -> (String, String) {
        let len = text.chars().count();
        (text.chars().take(n).collect(), text.chars().skip(len - m).collect())
    }

    proptest! {
        #[test]
        fn last_chars_start_where_the_first_len_minus_n_end(text in text(), n in 0usize..220) {
            let len = text.chars().count();
            let at = last_chars_at(&text, n);
            prop_assert_eq!(at, if n >= len { 0 } else { byte_at(&text, len - n) });
            prop_assert_eq!(text[at..].chars().count(), n.min(len));
        }

        #[test]
        fn clip_is_a_marked_prefix_within_budget(text in text(), max in 0usize..220) {
            let out = clip(&text, max);
            let len = out.chars().count();
            prop_assert!(len <= max);
            if out != text {
                prop_assert!(max == 0 || len == max);
                let head = out.strip_suffix('…').unwrap_or(&out);
                prop_assert!(text.starts_with(head));
            }
        }

        #[test]
        fn head_tail_is_a_marked_prefix_and_suffix_within_budget(text in text(), max in 0usize..220) {
            let out = head_tail(&text, max);
            let len = out.chars().count();
            prop_assert!(len <= max);
            if out != text && max > 0 {
                let keep = max - 1;
                let (head, tail) = ends(&text, keep.div_ceil(2), keep / 2);
                prop_assert_eq!(out, format!("{head}…{tail}"));
            }
        }

        #[test]
        fn cut_middle_is_head_marker_tail_within_budget(text in text(), max in 0usize..220) {
            let out = cut_middle(&text, max);
            let len = text.chars().count();
            prop_assert!(out.chars().count() <= max);
            if out == text || out == head_tail(&text, max) {
                return Ok(());
            }
            // Otherwise exactly full, and the marker's count matches the chars left out.
            prop_assert_eq!(out.chars().count(), max);
            let (head, rest) = out.split_once("…[cut ").expect("a marker");
            let (count, tail) = rest.split_once(" chars]…").expect("a closed marker");
            let cut: usize = count.parse().expect("a count");
            let (h, t) = (head.chars().count(), tail.chars().count());
            prop_assert!(h + t >= MIN_KEPT && h >= 2 * t);
            prop_assert_eq!(h + cut + t, len);
            prop_assert_eq!((head.to_owned(), tail.to_owned()), ends(&text, h, t));
        }

        #[test]
        fn common_ends_are_what_a_byte_walk_finds(a in text(), b in text(), shared in text()) {
            // With a shared middle, so that the runs are long enough for the word steps.
            let (x, y) = (format!("{shared}{a}{shared}"), format!("{shared}{b}{shared}"));
            for (x, y) in [(a.as_bytes(), b.as_bytes()), (x.as_bytes(), y.as_bytes())] {
                let prefix = x.iter().zip(y).take_while(|(p, q)| p == q).count();
                let suffix = x.iter().rev().zip(y.iter().rev()).take_while(|(p, q)| p == q).count();
                prop_assert_eq!(common_prefix(x, y), prefix);
                prop_assert_eq!(common_suffix(x, y), suffix);
            }
        }

        #[test]
        fn utf16_len_counts_as_javascript_does(text in text()) {
            prop_assert_eq!(utf16_len(&text), text.encode_utf16().count());
        }

        #[test]
        fn cut_middle_keeping_keeps_exactly_keep_chars(text in text(), keep in 0usize..220) {
            let out = cut_middle_keeping(&text, keep);
            let len = text.chars().count();
            if keep >= len {
                prop_assert_eq!(out, text);
            } else {
                let (head, tail) = ends(&text, keep - keep / 3, keep / 3);
                prop_assert_eq!(out, format!("{head}…[cut {} chars]…{tail}", len - keep));
            }
        }
    }
}
