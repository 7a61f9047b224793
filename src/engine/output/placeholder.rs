//! Replies that copy the system prompt's example instead of filling it in: an argument sent as its
//! placeholder (`"city": "<city>"`, also as the `&lt;city&gt;` the XML envelopes escape it to) or
//! a final answer that is the format's placeholder text. Tiny models do this; read as a real step
//! it calls a tool with a placeholder or ends the run with a template.

use serde_json::Value;

use super::Step;

/// The final-answer placeholders the system prompt shows.
const ANSWER_PLACEHOLDERS: [&str; 2] = ["<what you found, in plain words>", "<answer for the user>"];

/// Whether `text` is one of the final answer's placeholders (as copied, maybe escaped).
pub(crate) fn is_answer_placeholder(text: &str) -> bool {
    ANSWER_PLACEHOLDERS.contains(&unescape(text.trim()).as_str())
}

/// The placeholder `step` copies, if it copies one.
pub(crate) fn copied_placeholder(step: &Step) -> Option<String> {
    match step {
        Step::Final { answer, .. } => {
            let answer = unescape(answer.trim());
            ANSWER_PLACEHOLDERS.contains(&answer.as_str()).then_some(answer)
        }
        Step::Action { args: Value::Object(args), .. } => args.iter().find_map(|(key, value)| {
            let text = unescape(value.as_str()?.trim());
            (text == format!("<{key}>")).then_some(text)
        }),
        Step::Action { .. } => None,
    }
}

/// `text` with the XML envelopes' escapes undone, however often they were applied (SmolLM2 sent
/// `"city": "&amp;lt;city&gt;"`, copied from an envelope quoting its own escaped reply, and the
/// call ran: recovery bench garbage-output).
fn unescape(text: &str) -> String {
    let mut text = text.to_string();
    while text.contains("&amp;") {
        text = text.replace("&amp;", "&");
    }
    text.replace("&lt;", "<").replace("&gt;", ">")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn action(args: Value) -> Step {
        Step::Action { thought: String::new(), tool: "get_time".into(), args }
    }

    #[test]
    fn an_argument_equal_to_its_placeholder_is_caught_escaped_or_not() {
        assert_eq!(copied_placeholder(&action(json!({"city": "<city>"}))).as_deref(), Some("<city>"));
        assert_eq!(copied_placeholder(&action(json!({"city": "&lt;city&gt;"}))).as_deref(), Some("<city>"));
        assert_eq!(copied_placeholder(&action(json!({"city": "Tokyo", "n": 1}))), None);
        assert_eq!(
            copied_placeholder(&action(json!({"tag": "<div>"}))),
            None,
            "only the key's own placeholder"
        );
    }

    #[test]
    fn a_final_answer_that_is_the_template_is_caught_and_a_real_one_is_not() {
        let fin = |answer: &str| Step::Final { thought: String::new(), answer: answer.into() };
        assert!(copied_placeholder(&fin("<what you found, in plain words>")).is_some());
        assert!(copied_placeholder(&fin(" &lt;answer for the user&gt; ")).is_some());
        assert_eq!(copied_placeholder(&fin("It is 14:05 in Tokyo <approx>")), None);
    }
}
