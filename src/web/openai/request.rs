//! The chat-completions call for one step.
//!
//! The body: `model`, `messages` (`role`/`content`), `temperature: 0` and a fixed [`SEED`] (the same
//! prompt gives the same step, so traces replay), `stream` (true when the loop streams and the
//! `openai.stream` option allows it: server-sent events, read by [`super::sse`]), and, when the loop constrains
//! decoding, the step schema as `response_format` (see [`ResponseFormat`] for the shapes).
//!
//! Why `strict: false` and the schema as is: OpenAI's strict mode rejects a root `anyOf` (the step
//! schema's one-branch-per-tool shape) and requires every property required and
//! `additionalProperties: false` everywhere, which tools' own argument schemas do not promise.
//! Wrapping the step (`{"step": <schema>}`) would change the reply's shape for every backend.
//! `llama-server` ignores `strict` and turns any `json_schema.schema` into a grammar; vLLM, LM Studio
//! and Ollama constrain with the schema as given; OpenAI treats a non-strict schema as guidance.
//! `max_tokens` is the agent's `replyTokens`: a schema bounds a step, but without one (or with a
//! server that ignores it) a small model can generate until its window is full, and a server keeps
//! generating after the loop's timeout has given up on the request.

use serde_json::{json, Value};

use crate::engine::ModelRequest;
use crate::errors::RawFailure;

use super::{HttpRequest, OpenaiConfig, ResponseFormat};

/// The sampling seed sent with every request.
pub const SEED: u64 = 42;

/// The `json_schema.name` of the step schema.
pub const SCHEMA_NAME: &str = "step";

/// The full chat-completions URL for a base URL: `/chat/completions` appended, unless the page
/// already gave the full endpoint.
pub fn endpoint(base_url: &str) -> String {
    let base = base_url.trim().trim_end_matches('/');
    if base.ends_with("/chat/completions") {
        base.to_string()
    } else {
        format!("{base}/chat/completions")
    }
}

/// The JSON body for `request`, streamed or not.
pub fn body(config: &OpenaiConfig, request: &ModelRequest, stream: bool) -> Value {
    let mut body = json!({
        "model": config.model,
        "messages": request.messages,
        "temperature": 0,
        "seed": SEED,
        "stream": stream,
        "max_tokens": request.max_tokens,
    });
    let format = request.schema.as_ref().and_then(|schema| response_format(config.response_format, schema));
    if let (Some(format), Value::Object(body)) = (format, &mut body) {
        body.insert("response_format".into(), format);
    }
    body
}

/// `response_format` for the step schema, in the shape the server reads.
fn response_format(format: ResponseFormat, schema: &Value) -> Option<Value> {
    match format {
        ResponseFormat::JsonSchema => Some(json!({
            "type": "json_schema",
            "json_schema": {"name": SCHEMA_NAME, "strict": false, "schema": schema},
        })),
        ResponseFormat::JsonObject => Some(json!({"type": "json_object", "schema": schema})),
        ResponseFormat::None => None,
    }
}

/// The whole HTTP request for `request`, streamed or not.
pub fn build(config: &OpenaiConfig, request: &ModelRequest, stream: bool) -> HttpRequest {
    let accept = if stream { "text/event-stream" } else { "application/json" };
    let mut headers = vec![
        ("content-type".to_string(), "application/json".to_string()),
        ("accept".to_string(), accept.to_string()),
    ];
    if let Some(key) = config.api_key.as_deref().map(str::trim).filter(|k| !k.is_empty()) {
        headers.push(("authorization".to_string(), format!("Bearer {key}")));
    }
    HttpRequest { url: endpoint(&config.base_url), headers, body: body(config, request, stream).to_string() }
}

/// Adds where and the likely causes to a network failure. The message keeps the browser's own
/// words ("Failed to fetch"), which is what classifies a `TypeError` as a network failure.
pub fn on_network(failure: RawFailure, request: &HttpRequest) -> RawFailure {
    if failure.name.as_deref() != Some("TypeError") {
        return failure;
    }
    let message = format!(
        "{} (POST {}): the server is down, the URL is wrong, or the server does not allow this \
         page's origin (CORS)",
        failure.message, request.url
    );
    RawFailure { message, ..failure }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Message, Role};
    use crate::errors::{classify, ErrorCode, FailureClass, Origin};

    fn config(format: ResponseFormat, key: Option<&str>) -> OpenaiConfig {
        OpenaiConfig {
            base_url: "http://127.0.0.1:8080/v1/".into(),
            model: "smollm2".into(),
            api_key: key.map(Into::into),
            response_format: format,
            stream: true,
        }
    }

    fn ask(schema: Option<Value>) -> ModelRequest {
        let messages = vec![Message::new(Role::System, "rules"), Message::new(Role::User, "task")];
        ModelRequest { messages, schema, max_tokens: 1_024 }
    }

    #[test]
    fn the_endpoint_is_appended_once() {
        assert_eq!(endpoint("http://h:1/v1/"), "http://h:1/v1/chat/completions");
        assert_eq!(endpoint(" http://h:1/v1 "), "http://h:1/v1/chat/completions");
        assert_eq!(endpoint("http://h:1/v1/chat/completions"), "http://h:1/v1/chat/completions");
    }

    #[test]
    fn a_body_without_schema_has_no_response_format() {
        let body = body(&config(ResponseFormat::JsonSchema, None), &ask(None), false);
        assert_eq!(
            body,
            json!({"model": "smollm2", "messages": [{"role": "system", "content": "rules"},
                {"role": "user", "content": "task"}], "temperature": 0, "seed": SEED, "stream": false, "max_tokens": 1_024})
        );
    }

    #[test]
    fn the_schema_goes_as_json_schema_or_json_object_or_not_at_all() {
        let schema = json!({"type": "object", "anyOf": [{"required": ["final_answer"]}]});
        let request = ask(Some(schema.clone()));
        let openai = body(&config(ResponseFormat::JsonSchema, None), &request, false);
        assert_eq!(
            openai["response_format"],
            json!({"type": "json_schema", "json_schema": {"name": "step", "strict": false, "schema": schema}})
        );
        let object = body(&config(ResponseFormat::JsonObject, None), &request, false);
        assert_eq!(object["response_format"], json!({"type": "json_object", "schema": schema}));
        let none = body(&config(ResponseFormat::None, None), &request, false);
        assert!(none.get("response_format").is_none());
    }

    #[test]
    fn the_request_has_json_headers_and_a_bearer_token_when_given() {
        let plain = build(&config(ResponseFormat::JsonSchema, Some("  ")), &ask(None), false);
        assert_eq!(plain.url, "http://127.0.0.1:8080/v1/chat/completions");
        assert!(plain.headers.iter().all(|(name, _)| name != "authorization"));
        let keyed = build(&config(ResponseFormat::JsonSchema, Some("sk-1")), &ask(None), false);
        assert!(keyed.headers.contains(&("authorization".into(), "Bearer sk-1".into())));
        assert!(keyed.headers.contains(&("content-type".into(), "application/json".into())));
        let sent: Value = serde_json::from_str(&keyed.body).unwrap();
        assert_eq!(sent["model"], "smollm2");
    }

    #[test]
    fn a_streamed_request_asks_for_server_sent_events() {
        let request = build(&config(ResponseFormat::JsonSchema, None), &ask(None), true);
        assert!(request.headers.contains(&("accept".into(), "text/event-stream".into())));
        let sent: Value = serde_json::from_str(&request.body).unwrap();
        assert_eq!(sent["stream"], true);
    }

    #[test]
    fn a_network_failure_says_where_and_stays_a_network_failure() {
        let request = build(&config(ResponseFormat::JsonSchema, None), &ask(None), false);
        let failure = on_network(RawFailure::named("TypeError", "Failed to fetch"), &request);
        assert!(failure.message.contains("127.0.0.1:8080/v1/chat/completions"), "{}", failure.message);
        let found = classify(&failure, Origin::Model);
        assert_eq!((found.class, found.code), (FailureClass::Transient, ErrorCode::Network));
        let other = RawFailure::named("NotSupportedError", "no fetch");
        assert_eq!(on_network(other.clone(), &request), other);
    }
}
