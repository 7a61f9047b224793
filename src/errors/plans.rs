//! Default recovery plans: for each built-in code, the likely causes and numbered steps that name
//! the exact tools to call. A tool's own hints replace any of these.

use serde_json::Value;

use super::fitting_plans::{answer_mismatch, contradicts_task, not_found_name, ungrounded_answer, unseen_id};
use super::ErrorCode;

/// What a plan may refer to.
pub(crate) struct PlanContext<'a> {
    pub tool: Option<&'a str>,
    pub refs_from: &'a [String],
    pub suggestions: &'a [String],
    pub retry_after_ms: Option<u64>,
    /// Attempts made, at least 1.
    pub attempts: u32,
    /// Whether per-field issues come with the envelope.
    pub has_issues: bool,
    /// The arguments sent, when a call failed.
    pub args: Option<&'a Value>,
}

/// A code's default recovery plan.
pub(crate) struct Plan {
    /// A message for when the failure came with none.
    pub summary: String,
    pub causes: Vec<String>,
    pub recovery: Vec<String>,
    /// `None` lists every available tool.
    pub available_actions: Option<Vec<String>>,
    pub expected: bool,
}

pub(crate) fn quoted(names: &[String]) -> String {
    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(" or ")
}

/// A wait as the model reads it: seconds, rounded up to tenths (`2 s`, `1.6 s`).
pub(crate) fn seconds(ms: u64) -> String {
    let tenths = ms.div_ceil(100);
    if tenths % 10 == 0 {
        format!("{} s", tenths / 10)
    } else {
        format!("{}.{} s", tenths / 10, tenths % 10)
    }
}

fn strings<const N: usize>(items: [&str; N]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// The steps that get fresh ids/references: the tools named in the spec, or any listing tool.
pub(crate) fn refresh_step(ctx: &PlanContext<'_>, what: &str) -> String {
    if ctx.refs_from.is_empty() {
        format!("Find a valid {what} in an earlier observation, or call a tool from available_actions that lists them.")
    } else {
        format!("Call {} to get valid {what}s.", quoted(ctx.refs_from))
    }
}

/// ", even after N attempts" when the runtime retried, nothing otherwise.
fn tried(attempts: u32) -> String {
    if attempts > 1 {
        format!(", even after {attempts} attempts")
    } else {
        String::new()
    }
}

/// What to do about a temporary failure, saying truthfully whether the runtime already retried.
fn wait_step(tool: &str, attempts: u32) -> String {
    if attempts > 1 {
        format!("Do not call {tool} again right away: the runtime already tried it {attempts} times.")
    } else {
        format!("Wait before calling {tool} again, or use another tool.")
    }
}

pub(crate) fn give_up_step() -> String {
    "If nothing works, give a final_answer that says what failed and what you found.".to_string()
}

/// The default plan for `code`.
pub(crate) fn default_plan(code: &ErrorCode, ctx: &PlanContext<'_>) -> Plan {
    let tool = ctx.tool.map(|t| format!("`{t}`")).unwrap_or_else(|| "the tool".to_string());
    let retry_with_new = |what: &str| format!("Call {tool} again with the {what} from that result.");
    let plan = |summary: String, causes: Vec<String>, recovery: Vec<String>, expected: bool| Plan {
        summary,
        causes,
        recovery,
        available_actions: None,
        expected,
    };
    if let (ErrorCode::NotFound, Some(fitting)) = (code, not_found_name(ctx, &tool)) {
        return fitting;
    }
    match code {
        ErrorCode::UnknownTool => {
            let mut recovery = Vec::new();
            if !ctx.suggestions.is_empty() {
                recovery.push(format!(
                    "Did you mean {}? Call it with the same arguments if it does what you intended.",
                    quoted(ctx.suggestions)
                ));
            }
            recovery.push("Otherwise choose a tool from available_actions: only those exist.".to_string());
            recovery.push("If none fits, give a final_answer with what you have.".to_string());
            plan(
                format!("{tool} does not exist."),
                strings(["The tool name is misspelled", "The tool is not provided in this session"]),
                recovery,
                false,
            )
        }
        ErrorCode::InvalidArgs | ErrorCode::MissingField => plan(
            format!("The arguments for {tool} do not match its input schema."),
            strings([
                "A value has the wrong type or is not one of the allowed values",
                "A required field is missing, or a key is misspelled or not in the schema",
            ]),
            vec![
                if ctx.has_issues {
                    "Fix every field listed above; keep the fields that were right.".to_string()
                } else {
                    format!("Check every argument against the schema of {tool}: types, required fields, allowed values.")
                },
                format!("Call {tool} again with the corrected arguments. Do not explain the error."),
            ],
            false,
        ),
        ErrorCode::InvalidOutput => plan(
            "Your reply was not a valid step.".to_string(),
            strings(["The reply was not one JSON object of the expected shape"]),
            strings([
                "Reply with exactly one JSON object: {\"thought\": \"...\", \"action\": {\"tool\": \"<name>\", \"args\": {...}}} or {\"thought\": \"...\", \"final_answer\": \"...\"}.",
            ]),
            false,
        ),
        ErrorCode::Timeout | ErrorCode::Unavailable | ErrorCode::Network => {
            let (what, causes) = match code {
                ErrorCode::Timeout => (
                    format!("{tool} did not answer within its time limit"),
                    strings(["The service is slow or overloaded", "The request asks for too much at once"]),
                ),
                ErrorCode::Network => (
                    format!("{tool} could not reach the network"),
                    strings(["The device is offline or the connection dropped", "The service's address is unreachable"]),
                ),
                _ => (
                    format!("The service behind {tool} is temporarily unavailable"),
                    strings(["The service is overloaded or restarting"]),
                ),
            };
            plan(
                format!("{what}{}.", tried(ctx.attempts)),
                causes,
                vec![
                    wait_step(&tool, ctx.attempts),
                    "Use another tool from available_actions if one can get the same information.".to_string(),
                    give_up_step(),
                ],
                true,
            )
        }
        ErrorCode::RateLimited => {
            let wait = match ctx.retry_after_ms {
                Some(ms) => format!("Do not call {tool} again for {}.", seconds(ms)),
                None => wait_step(&tool, ctx.attempts),
            };
            plan(
                format!("{tool} is rate limited{}.", tried(ctx.attempts)),
                strings(["Too many requests in a short time"]),
                vec![wait, "Work with another tool from available_actions meanwhile.".to_string(), give_up_step()],
                true,
            )
        }
        ErrorCode::UnseenId => unseen_id(ctx, &tool),
        ErrorCode::UngroundedAnswer => ungrounded_answer(ctx),
        ErrorCode::ContradictsTask => contradicts_task(&tool),
        ErrorCode::AnswerMismatch => answer_mismatch(),
        ErrorCode::NotFound => plan(
            format!("What {tool} was asked for does not exist."),
            strings([
                "The id or name is wrong or misspelled",
                "The id was guessed: ids must come from an earlier result",
                "It was deleted",
            ]),
            vec![refresh_step(ctx, "id"), "Pick the right one from its result.".to_string(), retry_with_new("id")],
            true,
        ),
        ErrorCode::StaleReference => plan(
            "The reference is no longer valid.".to_string(),
            strings([
                "The page or data changed since the reference was taken (navigation, refresh, update)",
                "The reference came from an old result",
            ]),
            vec![
                refresh_step(ctx, "reference"),
                "Find the same item in the new result.".to_string(),
                retry_with_new("new reference"),
            ],
            true,
        ),
        ErrorCode::Permission => plan(
            format!("{tool} is not allowed to do this."),
            strings(["Access has not been granted", "This needs another tool or account"]),
            vec![
                format!("Do not call {tool} again with the same arguments."),
                "Use another tool from available_actions that can do this.".to_string(),
                "Otherwise give a final_answer that says which permission is missing.".to_string(),
            ],
            true,
        ),
        ErrorCode::Conflict => plan(
            "The request conflicts with the current state.".to_string(),
            strings(["The state changed since it was read", "The action was already done"]),
            vec![refresh_step(ctx, "current value"), format!("Adjust the arguments, then call {tool} again.")],
            true,
        ),
        ErrorCode::QuotaExceeded => plan(
            "A storage or usage quota is full.".to_string(),
            strings(["Too much data was requested or stored"]),
            vec![format!("Call {tool} with a smaller request."), give_up_step()],
            true,
        ),
        ErrorCode::ContextOverflow => plan(
            "The conversation no longer fits the model's context window.".to_string(),
            strings(["The history or an observation is too long"]),
            strings(["Keep thoughts short and ask tools for less data."]),
            true,
        ),
        ErrorCode::SafetyBlocked => plan(
            "The content was blocked by a safety filter.".to_string(),
            strings(["The request or the result touched filtered content"]),
            vec!["Rephrase the request or use another tool.".to_string(), give_up_step()],
            true,
        ),
        ErrorCode::Unsupported => plan(
            format!("{tool} cannot do this here."),
            strings(["The feature is not supported by this browser or service"]),
            vec!["Use another tool from available_actions.".to_string(), give_up_step()],
            true,
        ),
        ErrorCode::ModelUnavailable => plan(
            "The model is not available.".to_string(),
            strings(["No model is installed, allowed or reachable on this device"]),
            Vec::new(),
            false,
        ),
        ErrorCode::ModelRequestRejected => plan(
            "The model backend rejected the request.".to_string(),
            strings(["A wrong model name or option", "A request the server cannot take"]),
            Vec::new(),
            false,
        ),
        ErrorCode::Aborted => plan(
            format!("{tool} was aborted before it finished."),
            strings(["The user dismissed or declined it", "The page cancelled it"]),
            vec![
                format!("Do not call {tool} again with the same arguments: it was declined, not broken."),
                "Go on without it, or give a final_answer that says what was declined.".to_string(),
            ],
            true,
        ),
        ErrorCode::ApprovalRejected => plan(
            format!("The user rejected the call to {tool}, so it was not run."),
            strings(["The user does not want this action taken, or not with these arguments"]),
            vec![
                format!("Do not call {tool} again with the same arguments: the user refused it."),
                "Go on with another tool from available_actions if one can do what the user allows.".to_string(),
                "Otherwise give a final_answer that says what was not done and why.".to_string(),
            ],
            true,
        ),
        ErrorCode::OutcomeUnknown => plan(
            format!("It is not known whether the call to {tool} took effect."),
            strings(["The page was reloaded or the worker stopped while the call ran, before its result was stored"]),
            vec![
                format!("Do not assume that {tool} took effect, nor that it did not."),
                "Check with a tool from available_actions that reads the current state whether it took effect."
                    .to_string(),
                format!(
                    "If it did not, call {tool} again with the same arguments: it gets the same idempotency key, so a service that honours the key does it only once."
                ),
                "If you cannot tell, say so in your final_answer.".to_string(),
            ],
            true,
        ),
        ErrorCode::Internal => plan(
            format!("{tool} failed unexpectedly."),
            strings(["A bug in the tool", "Arguments the tool did not anticipate"]),
            vec![
                "Do not repeat the same call with identical arguments.".to_string(),
                "Try different arguments or another tool from available_actions.".to_string(),
                give_up_step(),
            ],
            false,
        ),
        ErrorCode::Custom(name) => plan(
            format!("{tool} reported {name}."),
            Vec::new(),
            vec![
                "Read the message and details above.".to_string(),
                "Change the arguments or use another tool from available_actions.".to_string(),
                give_up_step(),
            ],
            false,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_rounded_up_to_tenths() {
        assert_eq!(seconds(2000), "2 s");
        assert_eq!(seconds(1501), "1.6 s");
        assert_eq!(seconds(0), "0 s");
    }
}
