//! Reading a chat-completions answer: the step's text and token counts, or a failure the one
//! classifier can place.
//!
//! - Non-2xx: the HTTP status (429 and 5xx are transient, 401/403/404 make the model unavailable,
//!   400/422 and other 4xx are a rejected request: `MODEL_REQUEST_REJECTED`), the backend named,
//!   the message from `error.message` (OpenAI, llama.cpp, Ollama), a top-level `message` (vLLM),
//!   `error` as a string, or the body's text cut short; a code only where the server's code says
//!   more than its status (an oversized prompt, a spent account); Retry-After from `retry-after-ms`
//!   or `Retry-After` (seconds or an HTTP date).
//! - 2xx: `choices[0].message.content` (a string, or text parts joined) and `usage`. A body that is
//!   not JSON (a proxy's or the web app's own HTML page: the base URL is wrong) makes the model
//!   unavailable; no content at all is an invalid output; a `content_filter` stop is a safety block.

use serde_json::{json, Map, Value};

use crate::engine::{ModelReply, Usage};
use crate::errors::{parse_retry_after, ErrorCode, FailureHints, RawFailure};
use crate::text::clip;

use super::HttpResponse;

/// The response headers the backend reads (the transport need not keep others).
pub const READ_HEADERS: [&str; 3] = ["retry-after", "retry-after-ms", "content-type"];

/// How much of a body a failure message quotes.
const QUOTE_CHARS: usize = 300;

/// Reads `response` to the request sent to `url`, at `now_ms` (for Retry-After dates).
pub fn read(response: &HttpResponse, url: &str, now_ms: u64) -> Result<ModelReply, RawFailure> {
    let json = serde_json::from_str::<Value>(&response.body).ok();
    if !(200..300).contains(&response.status) {
        return Err(http_failure(response, json.as_ref(), url, now_ms));
    }
    let Some(json) = json else {
        let kind = response.header("content-type").unwrap_or("no content type");
        return Err(RawFailure {
            name: Some("SyntaxError".into()),
            ..RawFailure::coded(
                ErrorCode::ModelUnavailable.as_str(),
                format!(
                    "{url} answered HTTP {} with a body that is not JSON ({kind}): {:?}. Check the \
                     model's baseUrl: it should be the API root, e.g. http://127.0.0.1:8080/v1",
                    response.status,
                    quote(&response.body)
                ),
            )
        });
    };
    if json.get("choices").is_none() && json.get("error").is_some() {
        return Err(http_failure(response, Some(&json), url, now_ms));
    }
    let choice = &json["choices"][0];
    let finish = choice["finish_reason"].as_str().unwrap_or("none");
    let text = content(&choice["message"]["content"]);
    if finish == "content_filter" {
        return Err(safety_block(url));
    }
    if text.trim().is_empty() {
        let reasoning = choice["message"]["reasoning_content"].as_str().is_some_and(|r| !r.is_empty());
        return Err(no_content(url, finish, reasoning));
    }
    Ok(ModelReply { text, usage: usage(&json["usage"]) })
}

/// The server's content filter stopped the reply.
pub(super) fn safety_block(url: &str) -> RawFailure {
    let message = format!("{url}: the server's content filter stopped the reply");
    RawFailure::coded(ErrorCode::SafetyBlocked.as_str(), message)
}

/// A reply with no text (`reasoning`: the model wrote only `reasoning_content`).
pub(super) fn no_content(url: &str, finish: &str, reasoning: bool) -> RawFailure {
    let reasoning = if reasoning {
        " (it wrote only reasoning_content: give the model more output tokens or turn reasoning off)"
    } else {
        ""
    };
    let message =
        format!("{url} answered with no content in choices[0].message (finish_reason: {finish}){reasoning}");
    RawFailure::coded(ErrorCode::InvalidOutput.as_str(), message)
}

/// An `error` event in a stream, read like an error body with the status it names (llama.cpp's
/// `error.code`), else as a 500: generation failed on the server after the 200 was sent.
pub(super) fn stream_error(response: &HttpResponse, error: &Value, url: &str, now_ms: u64) -> RawFailure {
    let named = error["error"]["code"].as_u64().and_then(|c| u16::try_from(c).ok());
    let status = named.filter(|c| (400..600).contains(c)).unwrap_or(500);
    let answer = HttpResponse { status, ..response.clone() };
    http_failure(&answer, Some(error), url, now_ms)
}

/// The message's text: a string, or the `text` of each content part, joined.
fn content(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        _ => String::new(),
    }
}

/// `usage`'s token counts, when both are there.
pub(super) fn usage(value: &Value) -> Option<Usage> {
    let count = |key: &str| value[key].as_u64().map(|n| u32::try_from(n).unwrap_or(u32::MAX));
    Some(Usage { prompt_tokens: count("prompt_tokens")?, completion_tokens: count("completion_tokens")? })
}

/// A non-2xx answer (or a 2xx carrying only an `error`) as a failure.
fn http_failure(response: &HttpResponse, json: Option<&Value>, url: &str, now_ms: u64) -> RawFailure {
    let error = json.map(|j| match &j["error"] {
        Value::Null => j,
        inner => inner,
    });
    let said = error.and_then(|e| match e {
        Value::String(text) => Some(text.clone()),
        e => e["message"].as_str().map(str::to_owned),
    });
    let said = said.unwrap_or_else(|| quote(&response.body));
    let server_code = error.and_then(|e| e["code"].as_str().or_else(|| e["type"].as_str()));
    let code = error.and_then(|e| known_code(e["code"].as_str()).or_else(|| known_code(e["type"].as_str())));
    let status = (!(200..300).contains(&response.status)).then_some(response.status);
    let shown = status.map_or_else(String::new, |s| format!("HTTP {s} "));
    let tag = server_code.map_or_else(String::new, |c| format!(" ({c})"));
    RawFailure {
        status,
        code: code.map(|c| c.as_str().to_owned()),
        retry_after_ms: retry_after(response, now_ms),
        ..RawFailure::message(format!("{shown}from the OpenAI-compatible backend at {url}: {said}{tag}"))
    }
    .with_hints(FailureHints { details: context_sizes(error), ..Default::default() })
}

/// Server codes (OpenAI's `code`, llama.cpp's `type`) that say more than the status: the built-in
/// code they mean. Others are left to the status (`rate_limit_exceeded` is a 429 anyway).
fn known_code(code: Option<&str>) -> Option<ErrorCode> {
    Some(match code? {
        "context_length_exceeded" | "exceed_context_size_error" => ErrorCode::ContextOverflow,
        // A spent account or an unknown model is no passing state, whatever the status says.
        "insufficient_quota" | "model_not_found" => ErrorCode::ModelUnavailable,
        _ => return None,
    })
}

/// llama.cpp's `n_prompt_tokens` / `n_ctx`, as the `requested` / `quota` the loop scales its
/// prompt budget by after an overflow.
fn context_sizes(error: Option<&Value>) -> Map<String, Value> {
    let mut details = Map::new();
    if let Some(error) = error {
        if let (Some(requested), Some(quota)) = (error["n_prompt_tokens"].as_u64(), error["n_ctx"].as_u64()) {
            details.insert("requested".into(), json!(requested));
            details.insert("quota".into(), json!(quota));
        }
    }
    details
}

fn retry_after(response: &HttpResponse, now_ms: u64) -> Option<u64> {
    let ms = response.header("retry-after-ms").and_then(|v| crate::text::parse_decimal(v.trim()));
    ms.filter(|ms| ms.is_finite() && *ms >= 0.0)
        .map(|ms| ms.round() as u64)
        .or_else(|| response.header("retry-after").and_then(|v| parse_retry_after(v, now_ms)))
}

fn quote(body: &str) -> String {
    let body = body.trim();
    if body.is_empty() {
        return "(empty body)".to_string();
    }
    clip(body, QUOTE_CHARS)
}
