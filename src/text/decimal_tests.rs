use super::parse_decimal;

#[test]
fn numbers_are_read_as_std_reads_them() {
    for text in [
        "0",
        "-0",
        "+1",
        "007",
        ".5",
        "5.",
        "1.e5",
        "24.90",
        "1E+05",
        "2e-3",
        "-12.75",
        "1e22",
        "99999999999999999999",
        "1e400",
        "-1e400",
        "1e-400",
        "0e99999",
        "inf",
        "-Infinity",
        "NaN",
        "",
        "-",
        "+",
        ".",
        "e5",
        "1e",
        "1e+",
        "1.2.3",
        "1-2",
        "--1",
        "+-1",
        " 1",
        "1 ",
        "1,250",
        "0x10",
        "infinit",
        "123456789012345.00000",
        "0.000123000",
        "-nan",
        "-1e-400",
    ] {
        let std = text.parse::<f64>().ok();
        let ours = parse_decimal(text);
        match (std, ours) {
            (Some(a), Some(b)) if a.is_nan() => assert!(b.is_nan(), "{text:?}: {b}"),
            _ => assert_eq!(ours.map(f64::to_bits), std.map(f64::to_bits), "{text:?}"),
        }
    }
}

#[test]
fn a_number_past_fifteen_digits_or_a_power_of_ten_past_22_may_differ_in_its_last_bit() {
    assert_eq!(parse_decimal("1e-23"), Some(1.0000000000000001e-23));
    assert_eq!("1e-23".parse::<f64>(), Ok(1e-23));
}

/// Properties over any decimal of the grammar (proptest does not build for wasm32, where
/// `wasm-pack test` compiles these tests).
#[cfg(not(target_arch = "wasm32"))]
mod props {
    use proptest::prelude::*;

    use super::parse_decimal;

    proptest! {
        /// Up to 15 significant digits and a power of ten up to 22 (all prices, counts and measures
        /// a page shows): the same bits as std.
        #[test]
        fn any_short_decimal_is_read_as_std_reads_it(
            whole in "[0-9]{0,9}",
            fraction in proptest::option::of("[0-9]{0,6}"),
            exponent in proptest::option::of(-16i32..=13),
            negative in any::<bool>(),
        ) {
            let text = number_text(negative, &whole, fraction.as_deref(), exponent);
            prop_assert_eq!(parse_decimal(&text).map(f64::to_bits), text.parse::<f64>().ok().map(f64::to_bits), "{}", text);
        }

        /// Beyond that, serde_json's reading: within a few units in the last place of std's.
        #[test]
        fn any_long_decimal_is_read_within_a_few_units_in_the_last_place(
            whole in "[1-9][0-9]{0,24}",
            fraction in proptest::option::of("[0-9]{0,24}"),
            exponent in proptest::option::of(-80i32..80),
        ) {
            let text = number_text(false, &whole, fraction.as_deref(), exponent);
            let (ours, std) = (parse_decimal(&text).unwrap(), text.parse::<f64>().unwrap());
            prop_assert!(ours.to_bits().abs_diff(std.to_bits()) <= 4, "{}: {} against {}", text, ours, std);
        }
    }

    /// `-` (when `negative`), `whole`, `.fraction`, `eEXPONENT`.
    fn number_text(negative: bool, whole: &str, fraction: Option<&str>, exponent: Option<i32>) -> String {
        let mut text = format!("{}{whole}", if negative { "-" } else { "" });
        if let Some(f) = fraction {
            text.push('.');
            text.push_str(f);
        }
        if let Some(e) = exponent {
            text.push_str(&format!("e{e}"));
        }
        text
    }
}
