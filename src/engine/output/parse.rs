//! Reading one step out of a model's reply: find the object, make the repairs that are safe, and
//! otherwise say precisely what is wrong.

use serde_json::{Map, Value};

use super::interpret::interpret;
use super::normalise::{normalise, Normalised};
use super::placeholder::copied_placeholder;
use super::scan::{balanced_end, Quotes, Unclosed};
use super::{FormatError, FormatErrorKind, Repair, Step};
use crate::text::{json_type_name, well_formed_json};

/// How many top-level `{…}` candidates a reply is searched for before giving up: a bound on work
/// for adversarial input; real replies put the step in the first or second one.
const MAX_CANDIDATES: usize = 8;

/// A step read from a reply, and what had to be repaired to read it (empty for a canonical reply).
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The step.
    pub step: Step,
    /// The repairs made, in the order they were made.
    pub repairs: Vec<Repair>,
}

/// Reads the model's reply as one step.
///
/// Accepts the canonical shapes (see [`Step`]) and repairs what small models commonly get wrong
/// when the repair cannot change which tool runs with which arguments (see [`Repair`]): code fences,
/// prose around the object, quote styles, trailing commas, key spellings, arguments as a string.
/// The first `{…}` that is JSON (after repair) decides; later ones are ignored, since models that
/// write several steps at once hallucinate the observations in between.
///
/// Refuses, with a precise [`FormatError`]: an empty reply, no object, invalid JSON (with the line
/// and column in the reply), a cut-off object (unless it is a final answer whose text is complete,
/// which only lacks its closing brackets), an action without a tool or with non-object arguments,
/// and an object holding both an action and a final answer.
///
/// Never panics, on any input.
pub fn parse_step(text: &str) -> Result<Parsed, FormatError> {
    // `\ufffd` is as long as the escape it replaces: error positions hold for `text` too.
    let (fixed, replaced) = well_formed_json(text);
    let mut parsed = read(&fixed).map_err(|kind| FormatError::new(kind, text))?;
    if replaced > 0 {
        parsed.repairs.insert(0, Repair::ReplacedLoneSurrogates);
    }
    match copied_placeholder(&parsed.step) {
        Some(placeholder) => Err(FormatError::new(FormatErrorKind::Placeholder { placeholder }, text)),
        None => Ok(parsed),
    }
}

fn read(text: &str) -> Result<Parsed, FormatErrorKind> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(FormatErrorKind::Empty);
    }
    // Well-formed replies, bare or in a clean fence, take the strict path; it is also where a reply
    // that is JSON but not an object (an array of steps, a bare string) is recognised.
    for (body, fenced) in [(Some(trimmed), false), (fence_body(trimmed), true)] {
        let Some(body) = body else { continue };
        match serde_json::from_str::<Value>(body) {
            Ok(Value::Object(map)) => {
                return finish(map, if fenced { vec![Repair::StrippedCodeFence] } else { vec![] })
            }
            Ok(other) => return Err(FormatErrorKind::NotAnObject { found: json_type_name(&other) }),
            Err(_) => {}
        }
    }
    let mut first_error = None;
    let mut from = 0;
    for _ in 0..MAX_CANDIDATES {
        let Some(start) = text.get(from..).and_then(|rest| rest.find('{')).map(|i| from + i) else { break };
        // JSON quotes first; the lenient end matters when a single-quoted string holds a bracket or
        // a stray `"` (`{'thought': 'a } b', ...}`).
        let json_end = balanced_end(text, start, Quotes::Json);
        let lenient_end = balanced_end(text, start, Quotes::Lenient).ok();
        let ends = match &json_end {
            Ok(end) => [Some(*end), lenient_end.filter(|l| l != end)],
            Err(unclosed) if lenient_end.is_none() => return close_final(text, start, unclosed),
            Err(_) => [lenient_end, None],
        };
        for end in ends.into_iter().flatten() {
            let normalised = normalise(&text[start..end]);
            match serde_json::from_str::<Map<String, Value>>(&normalised.text) {
                Ok(map) => {
                    let mut repairs = surroundings(text, start, end);
                    repairs.extend(normalised.repairs);
                    return finish(map, repairs);
                }
                Err(err) => {
                    first_error.get_or_insert_with(|| not_json(&err, &normalised, text, start, end));
                }
            }
        }
        from = ends[0].unwrap_or(text.len());
    }
    Err(first_error.unwrap_or(FormatErrorKind::NoObject))
}

fn finish(map: Map<String, Value>, mut repairs: Vec<Repair>) -> Result<Parsed, FormatErrorKind> {
    let step = interpret(map, &mut repairs)?;
    Ok(Parsed { step, repairs })
}

/// A reply whose object never closes. Closing it is safe only when the result is a final answer
/// whose text ended on its own closing quote: the answer is complete, only brackets are missing.
/// An action is never completed: the missing part might have held arguments.
fn close_final(text: &str, start: usize, unclosed: &Unclosed) -> Result<Parsed, FormatErrorKind> {
    let truncated = FormatErrorKind::Truncated { open: unclosed.open.len(), in_string: unclosed.in_string };
    if unclosed.in_string {
        return Err(truncated);
    }
    let body = text[start..].trim_end();
    let body = body.strip_suffix("```").unwrap_or(body).trim_end();
    let normalised = normalise(&format!("{body}{}", unclosed.closers()));
    let Ok(map) = serde_json::from_str::<Map<String, Value>>(&normalised.text) else { return Err(truncated) };
    let mut repairs = surroundings(text, start, start + body.len());
    repairs.extend(normalised.repairs);
    repairs.push(Repair::ClosedTruncatedJson);
    let stringified = |r: &Repair| matches!(r, Repair::StringifiedField { field } if field == "final_answer");
    match finish(map, repairs) {
        // A number or object as the answer might itself be what was cut short.
        Ok(parsed) if parsed.step.is_final() && !parsed.repairs.iter().any(stringified) => Ok(parsed),
        _ => Err(truncated),
    }
}

/// The body of a reply that is one fenced block (```` ```json … ``` ````), closing fence optional.
fn fence_body(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("```")?.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
    Some(rest.strip_suffix("```").unwrap_or(rest).trim())
}

/// The repairs that describe what surrounds the object at `start..end`: a fence, other text.
fn surroundings(text: &str, start: usize, end: usize) -> Vec<Repair> {
    let before = text[..start].trim_end();
    let (before, opened) = match before.rfind("```") {
        Some(i) if before[i + 3..].chars().all(|c| c.is_ascii_alphanumeric()) => (&before[..i], true),
        _ => (before, false),
    };
    let after = text.get(end..).unwrap_or("").trim_start();
    let (after, closed) = match after.strip_prefix("```") {
        Some(rest) => (rest, true),
        None => (after, false),
    };
    let mut repairs = Vec::new();
    if opened || closed {
        repairs.push(Repair::StrippedCodeFence);
    }
    if !before.trim().is_empty() || !after.trim().is_empty() {
        repairs.push(Repair::StrippedSurroundingText);
    }
    repairs
}

/// A JSON error in the normalised candidate `text[start..end]`, placed back in the reply.
fn not_json(
    err: &serde_json::Error,
    normalised: &Normalised,
    text: &str,
    start: usize,
    end: usize,
) -> FormatErrorKind {
    let out = &normalised.text;
    // serde_json counts lines from 1 and columns in bytes from 1 (0 when at a line's start).
    let line_start: usize = out.split_inclusive('\n').take(err.line().saturating_sub(1)).map(str::len).sum();
    let at_out = line_start + err.column().saturating_sub(1);
    let at = normalised.origin.get(at_out).map_or(end, |offset| start + offset);
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    let near = text[at..].chars().take(20).map(|c| if c.is_control() { ' ' } else { c }).collect();
    let message = err.to_string();
    let detail = message.rfind(" at line ").map_or(message.as_str(), |i| &message[..i]).to_string();
    FormatErrorKind::NotJson { detail, line, column, near }
}
