//! Exact number arithmetic for `multipleOf`: integers compared as integers (beyond 2^53 too), the
//! rest in floating point with a tolerance for decimal steps such as `0.01`.

use serde_json::{Number, Value};

/// Whether `number` is a multiple of `step` (a positive number, checked at compile time).
pub(super) fn multiple_of(number: &Number, step: &Value) -> bool {
    let Value::Number(step) = step else { return true };
    if let (Some(x), Some(m)) = (integer(number), integer(step)) {
        return m != 0 && x % m == 0;
    }
    let (Some(x), Some(m)) = (number.as_f64(), step.as_f64()) else { return false };
    let quotient = x / m;
    // A quotient too big for a double is not known to be whole: `1e308` is no multiple of `0.123`.
    quotient.is_finite()
        && (quotient - quotient.round()).abs() <= 4.0 * f64::EPSILON * quotient.abs().max(1.0)
}

/// A JSON number as an exact integer, when serde_json holds it as one.
fn integer(number: &Number) -> Option<i128> {
    number.as_i64().map(i128::from).or_else(|| number.as_u64().map(i128::from))
}
