//! Reading a number of a text without std's float parser.
//!
//! [`parse_decimal`] reads what `str::parse::<f64>` reads, through serde_json's number reader:
//! std's `FromStr for f64` (Eisel-Lemire with a big-decimal fallback and its table of powers of
//! five) weighs 14.0 KB of the wasm module's gzip, and serde_json's reader is in the module
//! anyway for the JSON it reads (bench/results/wasm-size.md, "std's float parser out"). A number
//! of a text is then read as the same number in a tool's JSON is, so the two agree to the last bit
//! when they are compared.

/// The number `text` states, read as `text.parse::<f64>()` reads it (an optional sign, digits
/// with an optional point, an optional exponent; `inf`, `infinity` and `nan` in any case), or
/// `None` when it is not one. The value is serde_json's reading of the same number, as for a
/// number in a tool's JSON: std's bits for up to 15 significant digits and a power of ten up to
/// 22, within a few units in the last place beyond (`1e-23` reads as 1.0000000000000001e-23).
pub(crate) fn parse_decimal(text: &str) -> Option<f64> {
    let (negative, unsigned) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let sign = if negative { -1.0 } else { 1.0 };
    if ["inf", "infinity"].iter().any(|word| unsigned.eq_ignore_ascii_case(word)) {
        return Some(sign * f64::INFINITY);
    }
    if unsigned.eq_ignore_ascii_case("nan") {
        return Some(if negative { -f64::NAN } else { f64::NAN });
    }
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all_digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty()) || !all_digits(whole) || !all_digits(fraction) {
        return None;
    }
    let exponent = match exponent {
        Some(e) => {
            let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
            if digits.is_empty() || !all_digits(digits) {
                return None;
            }
            Some(e)
        }
        None => None,
    };
    // The same number in JSON's grammar (no `+`, no leading zeros, digits on both sides of a
    // point), for serde_json's reader; without the fraction's trailing zeros, which serde_json
    // would count as digits of the significand (`123456789012345.00000` past 2^53).
    let whole = whole.trim_start_matches('0');
    let fraction = fraction.trim_end_matches('0');
    let mut json = String::with_capacity(text.len() + 2);
    json.push_str(if whole.is_empty() { "0" } else { whole });
    if !fraction.is_empty() {
        json.push('.');
        json.push_str(fraction);
    }
    if let Some(e) = exponent {
        json.push('e');
        json.push_str(e);
    }
    // serde_json reads a number too small for f64 as 0 and fails only one too large, which std
    // reads as infinity.
    let magnitude = serde_json::from_str::<f64>(&json).unwrap_or(f64::INFINITY);
    Some(sign * magnitude)
}
