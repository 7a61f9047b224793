//! A failure as it arrives from a tool or a model, before classification.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{FailureClass, Severity};

/// Where a failure came from; the same error name can mean different things for each
/// (a `NotSupportedError` from the model means no model, from a tool a missing feature).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// A tool call.
    Tool,
    /// A model call.
    Model,
}

/// A failure as reported by a tool or a model backend: the JS error's `name` and `message`, an HTTP
/// status, a Retry-After, a code, and any recovery fields a tool attached (a `ToolError`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(optional_fields))]
#[serde(rename_all = "camelCase", default)]
pub struct RawFailure {
    /// The error's `name` (`TimeoutError`, `NetworkError`, `TypeError`, a DOMException name…).
    pub name: Option<String>,
    /// The error's message, as the tool wrote it.
    pub message: String,
    /// An HTTP status, when the failure came from a response (anything outside 100–599 reads as
    /// none).
    #[serde(deserialize_with = "http_status")]
    pub status: Option<u16>,
    /// A code the tool set (`NOT_FOUND`, `InvoiceNotFound`, `ECONNRESET`…). A numeric code (a
    /// DOMException's legacy `code`, e.g. 23 for TimeoutError) says nothing the name does not, and
    /// is read as no code.
    #[serde(deserialize_with = "text_code")]
    pub code: Option<String>,
    /// How long the callee asked us to wait, in milliseconds (already parsed from Retry-After).
    /// Any non-negative number is read, clamped to [`MAX_RETRY_AFTER_MS`]; a negative one or NaN
    /// reads as none.
    #[serde(deserialize_with = "clamped_ms")]
    pub retry_after_ms: Option<u64>,
    /// Recovery fields the tool attached; each one set overrides the code's default. Boxed: most
    /// failures carry none, and a failure travels in every `Result` of the loop.
    pub hints: Box<FailureHints>,
}

/// The parts of a recovery envelope a tool may set itself when it throws a `ToolError`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(optional_fields))]
#[serde(rename_all = "camelCase", default)]
pub struct FailureHints {
    /// Overrides the class derived from the code (e.g. a custom code that is transient).
    pub class: Option<FailureClass>,
    /// Overrides the severity (warning, error, critical).
    pub severity: Option<Severity>,
    /// Likely causes, most likely first.
    pub causes: Option<Vec<String>>,
    /// Numbered recovery steps, naming the exact tools to call.
    pub recovery: Option<Vec<String>>,
    /// Tools the model should try instead.
    pub available_actions: Option<Vec<String>>,
    /// Whether this failure is normal in the course of things (stale refs after navigation).
    pub expected: Option<bool>,
    /// Structured facts for the model and the failure log.
    #[cfg_attr(test, ts(as = "Option<Map<String, Value>>", optional))]
    pub details: Map<String, Value>,
}

/// The longest Retry-After a failure carries: a year. Longer asks (`1e300`, a Retry-After of
/// `99999999999999999999` seconds) are clamped to it; either way far past any retry policy's
/// `maxRetryAfterMs`, so the failure goes to the model rather than being waited out.
pub const MAX_RETRY_AFTER_MS: u64 = 365 * 24 * 3_600_000;

/// Reads a number of milliseconds of any JSON number type, clamped to [`MAX_RETRY_AFTER_MS`].
fn clamped_ms<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(match Option::<serde_json::Number>::deserialize(d)? {
        Some(n) => n.as_f64().filter(|ms| *ms >= 0.0).map(|ms| (ms.round() as u64).min(MAX_RETRY_AFTER_MS)),
        None => None,
    })
}

/// Reads an HTTP status: a whole number from 100 to 599, or none.
fn http_status<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u16>, D::Error> {
    Ok(Option::<serde_json::Number>::deserialize(d)?
        .and_then(|n| n.as_u64())
        .filter(|s| (100..=599).contains(s))
        .map(|s| s as u16))
}

/// Reads `code` as a string, or as nothing when it is a number or null.
fn text_code<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(code) => Some(code),
        _ => None,
    })
}

impl RawFailure {
    /// A failure with only a message.
    pub fn message(message: impl Into<String>) -> Self {
        RawFailure { message: message.into(), ..Default::default() }
    }

    /// A failure with a JS error name and a message.
    pub fn named(name: impl Into<String>, message: impl Into<String>) -> Self {
        RawFailure { name: Some(name.into()), message: message.into(), ..Default::default() }
    }

    /// A failure from an HTTP response.
    pub fn http(status: u16, message: impl Into<String>) -> Self {
        RawFailure { status: Some(status), message: message.into(), ..Default::default() }
    }

    /// A failure carrying a code the tool chose.
    pub fn coded(code: impl Into<String>, message: impl Into<String>) -> Self {
        RawFailure { code: Some(code.into()), message: message.into(), ..Default::default() }
    }

    /// Sets the Retry-After, in milliseconds.
    pub fn with_retry_after_ms(mut self, ms: u64) -> Self {
        self.retry_after_ms = Some(ms);
        self
    }

    /// Sets the recovery fields the tool attached.
    pub fn with_hints(mut self, hints: FailureHints) -> Self {
        self.hints = Box::new(hints);
        self
    }
}

/// Parses an HTTP `Retry-After` value: delta-seconds, or an HTTP date relative to `now_ms`
/// (milliseconds since the Unix epoch). Returns milliseconds to wait, or `None` if unreadable.
pub fn parse_retry_after(value: &str, now_ms: u64) -> Option<u64> {
    let value = value.trim();
    if let Some(seconds) = crate::text::parse_decimal(value) {
        let ms = (seconds.is_finite() && seconds >= 0.0).then(|| (seconds * 1000.0).round() as u64);
        return ms.map(|ms| ms.min(MAX_RETRY_AFTER_MS));
    }
    let at_ms = parse_http_date(value)?;
    Some(at_ms.saturating_sub(now_ms).min(MAX_RETRY_AFTER_MS))
}

/// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) into milliseconds since the epoch.
fn parse_http_date(value: &str) -> Option<u64> {
    let parts: Vec<&str> = value.split_whitespace().collect();
    let [_, day, month, year, time, zone] = parts.as_slice() else { return None };
    if *zone != "GMT" {
        return None;
    }
    const MONTHS: [&str; 12] =
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let month = MONTHS.iter().position(|m| m == month)? as u64 + 1;
    let day: u64 = day.parse().ok()?;
    let year: u64 = year.parse().ok()?;
    let hms: Vec<u64> = time.split(':').map(|p| p.parse().ok()).collect::<Option<_>>()?;
    let [h, m, s] = hms.as_slice() else { return None };
    // Years past 9999 are not HTTP dates; bounding them keeps the arithmetic below from overflowing.
    if !(1..=31).contains(&day) || !(1970..=9999).contains(&year) || *h > 23 || *m > 59 || *s > 60 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    Some(((days * 24 + h) * 60 + m) * 60_000 + s * 1000)
}

/// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: u64, month: u64, day: u64) -> u64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y / 400;
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_reads_seconds_and_http_dates() {
        assert_eq!(parse_retry_after("2", 0), Some(2000));
        assert_eq!(parse_retry_after(" 0.5 ", 0), Some(500));
        assert_eq!(parse_retry_after("-1", 0), None);
        let at = 784_111_777_000; // Sun, 06 Nov 1994 08:49:37 GMT
        assert_eq!(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", at - 3000), Some(3000));
        assert_eq!(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", at + 10), Some(0));
        assert_eq!(parse_retry_after("soon", 0), None);
        assert_eq!(parse_retry_after("Sun, 06 Nov 99999999999 08:49:37 GMT", 0), None);
        // A date or a delay past a year is clamped to one: far past any policy's wait either way.
        assert_eq!(parse_retry_after("Fri, 31 Dec 9999 23:59:59 GMT", 0), Some(MAX_RETRY_AFTER_MS));
        assert_eq!(parse_retry_after("99999999999999999999", 0), Some(MAX_RETRY_AFTER_MS));
    }

    #[test]
    fn a_numeric_code_is_read_as_no_code() {
        let raw: RawFailure =
            serde_json::from_str(r#"{"name":"TimeoutError","message":"t","code":23}"#).expect("readable");
        assert_eq!(raw.code, None);
        assert_eq!(raw.name.as_deref(), Some("TimeoutError"));
    }
}
