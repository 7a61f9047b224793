//! Reading a streamed chat-completions answer (`stream: true`): server-sent events, one
//! `data: {json}` line per chunk with the new text in `choices[0].delta.content`, `data: [DONE]`
//! at the end. [`SseDecoder`] takes the body in pieces cut anywhere and hands back each piece's new
//! text (for the page's `token` events); [`read`] reads the whole body into the reply, or into the
//! failure a non-streamed answer would have given:
//!
//! - an `error` event (`data: {"error": {...}}`, sent by llama.cpp and vLLM when generation fails
//!   mid-way) is read like an error body, with the status its `code` names (else 500: the server
//!   failed after its 200) and the response's headers;
//! - a stream that ends before `[DONE]` and without a `finish_reason` broke mid-way: a
//!   `NetworkError`, transient, retried like a dropped connection;
//! - a `content_filter` finish is a safety block, no text an invalid output (as in [`super::response`]).

use serde_json::Value;

use crate::engine::{ModelReply, Usage};
use crate::errors::RawFailure;

use super::response::{no_content, safety_block, stream_error, usage};
use super::HttpResponse;

/// The state of one streamed answer; see the module docs.
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// The start of a line whose end has not come yet.
    partial: String,
    text: String,
    reasoning: bool,
    finish: Option<String>,
    usage: Option<Usage>,
    done: bool,
    error: Option<Value>,
}

impl SseDecoder {
    /// A decoder at the start of a body.
    pub fn new() -> Self {
        SseDecoder::default()
    }

    /// Reads the next piece of the body; returns the reply's text its complete lines added.
    pub fn push(&mut self, piece: &str) -> String {
        self.partial.push_str(piece);
        let Some(end) = self.partial.rfind('\n') else { return String::new() };
        let lines: String = self.partial.drain(..=end).collect();
        let mut added = String::new();
        for line in lines.split('\n') {
            added.push_str(&self.line(line.strip_suffix('\r').unwrap_or(line)));
        }
        added
    }

    fn line(&mut self, line: &str) -> String {
        let Some(data) = line.strip_prefix("data:") else { return String::new() };
        let data = data.trim();
        if self.done || self.error.is_some() {
            return String::new();
        }
        if data == "[DONE]" {
            self.done = true;
            return String::new();
        }
        let Ok(json) = serde_json::from_str::<Value>(data) else { return String::new() };
        if json.get("choices").is_none() && json.get("error").is_some() {
            self.error = Some(json);
            return String::new();
        }
        let choice = &json["choices"][0];
        if let Some(finish) = choice["finish_reason"].as_str() {
            self.finish = Some(finish.to_string());
        }
        if let Some(usage) = usage(&json["usage"]) {
            self.usage = Some(usage);
        }
        if choice["delta"]["reasoning_content"].as_str().is_some_and(|r| !r.is_empty()) {
            self.reasoning = true;
        }
        let added = choice["delta"]["content"].as_str().unwrap_or_default();
        self.text.push_str(added);
        added.to_string()
    }

    /// The reply the whole stream gave, or its failure; `response` is the answer the body came in.
    pub fn finish(
        mut self,
        response: &HttpResponse,
        url: &str,
        now_ms: u64,
    ) -> Result<ModelReply, RawFailure> {
        let rest = std::mem::take(&mut self.partial);
        self.line(rest.strip_suffix('\r').unwrap_or(&rest));
        if let Some(error) = &self.error {
            return Err(stream_error(response, error, url, now_ms));
        }
        if !self.done && self.finish.is_none() {
            let message = format!(
                "the stream from {url} broke off after {} characters, before its end ([DONE])",
                self.text.chars().count()
            );
            return Err(RawFailure::named("NetworkError", message));
        }
        let finish = self.finish.as_deref().unwrap_or("none");
        if finish == "content_filter" {
            return Err(safety_block(url));
        }
        if self.text.trim().is_empty() {
            return Err(no_content(url, finish, self.reasoning));
        }
        Ok(ModelReply { text: self.text, usage: self.usage })
    }
}

/// Whether a 2xx answer is a stream of events (a server may ignore `stream: true` and answer whole).
pub fn is_event_stream(response: &HttpResponse) -> bool {
    response.header("content-type").is_some_and(|t| t.trim_start().starts_with("text/event-stream"))
}

/// Reads a whole streamed body (see the module docs).
pub fn read(response: &HttpResponse, url: &str, now_ms: u64) -> Result<ModelReply, RawFailure> {
    let mut decoder = SseDecoder::new();
    decoder.push(&response.body);
    decoder.finish(response, url, now_ms)
}
