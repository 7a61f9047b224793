//! The replies a greedy backend gave in this run, by request. A backend that decodes greedily
//! (temperature 0 and a fixed seed: [`Model::greedy`](super::Model::greedy)) answers the same
//! request with the same reply, so asking it again spends a model call (seconds on a small local
//! model) to learn nothing: the loop answers such a request from here and says so in a warning.
//!
//! Where it happens: a focused answer (`focused_answer.rs`) refused, then asked again with the
//! same request. SmolLM2's recovery-bench runs at a9450b9 sent 8 requests identical to an earlier
//! one of the same run, every one answered as before (bench/results/recovery-issue9.md).

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use super::ModelRequest;

/// One kept reply: the [`request_key`] it answered, the step that first got it, and the text.
struct Kept {
    key: u64,
    step: u32,
    text: String,
}

/// The run's replies from a greedy backend. Requests are kept as a 64-bit hash of everything
/// the backend is sent ([`request_key`]), not whole: a long run's prompts would weigh megabytes.
#[derive(Default)]
pub(crate) struct GreedyReplies {
    kept: Vec<Kept>,
}

impl GreedyReplies {
    /// The reply the request with this key got, with the step that got it.
    pub(crate) fn get(&self, key: u64) -> Option<(u32, &str)> {
        self.kept.iter().find(|k| k.key == key).map(|k| (k.step, k.text.as_str()))
    }

    /// Keeps `text` as the reply to the request with this key, first asked at `step`. Asked only
    /// after [`Self::get`] found none for it.
    pub(crate) fn keep(&mut self, key: u64, step: u32, text: &str) {
        self.kept.push(Kept { key, step, text: text.to_string() });
    }
}

/// The hash of what the backend is sent: messages with their roles, schema, reply limit. Worked
/// out once per request, for both the lookup and the keeping.
pub(crate) fn request_key(request: &ModelRequest) -> u64 {
    let mut hasher = DefaultHasher::new();
    for message in &request.messages {
        (message.role as u8).hash(&mut hasher);
        message.content.hash(&mut hasher);
    }
    request.schema.as_ref().map(ToString::to_string).hash(&mut hasher);
    request.max_tokens.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::engine::{Message, Role};

    fn request(user: &str, schema: Option<serde_json::Value>) -> ModelRequest {
        ModelRequest {
            messages: vec![Message::new(Role::System, "rules"), Message::new(Role::User, user)],
            schema,
            max_tokens: 1_024,
        }
    }

    #[test]
    fn only_the_same_request_gets_the_kept_reply() {
        let mut replies = GreedyReplies::default();
        let asked = request("Question: q", Some(json!({"type": "object"})));
        replies.keep(request_key(&asked), 3, "reply");
        let get = |r: &ModelRequest| replies.get(request_key(r)).map(|(step, text)| (step, text.to_string()));
        assert_eq!(get(&asked), Some((3, "reply".to_string())));
        assert_eq!(get(&request("Question: q ", Some(json!({"type": "object"})))), None);
        assert_eq!(get(&request("Question: q", None)), None, "another schema is another request");
        let mut roles = asked.clone();
        roles.messages[0].role = Role::User;
        assert_eq!(get(&roles), None, "the roles are part of the request");
        let mut limited = asked.clone();
        limited.max_tokens = 10;
        assert_eq!(get(&limited), None, "so is the reply limit");
        replies.keep(request_key(&asked), 5, "later");
        assert_eq!(replies.get(request_key(&asked)), Some((3, "reply")), "the first reply stays");
    }
}
