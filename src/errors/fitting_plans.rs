//! Plans for failures a small model cannot read its way out of with a generic plan: an id it
//! guessed (`UNSEEN_ID`), an answer stating values no tool gave (`UNGROUNDED_ANSWER`), and a
//! `NOT_FOUND` for a name rather than an id — a plan about guessed ids does not fit a place name
//! spelt in another language.

use serde_json::Value;

use super::plans::{give_up_step, quoted, refresh_step, Plan, PlanContext};

fn strings<const N: usize>(items: [&str; N]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// `UNSEEN_ID`: the call was refused before it ran; `ctx.refs_from` holds the producers.
pub(crate) fn unseen_id(ctx: &PlanContext<'_>, tool: &str) -> Plan {
    Plan {
        summary: format!("The id sent to {tool} appears in no earlier result and not in the task, so {tool} was not called."),
        causes: strings([
            "The id was guessed from its usual shape: ids must be copied from a tool's result",
            "It has a typo, or it comes from an old result",
        ]),
        recovery: vec![
            refresh_step(ctx, "id"),
            "Copy the id exactly as that result shows it.".to_string(),
            format!("Then call {tool} with it."),
        ],
        available_actions: None,
        expected: true,
    }
}

/// `UNGROUNDED_ANSWER`: `ctx.refs_from` holds the tools that could supply the values.
pub(crate) fn ungrounded_answer(ctx: &PlanContext<'_>) -> Plan {
    let call = if ctx.refs_from.is_empty() {
        "Call the tool from available_actions that returns these values.".to_string()
    } else {
        format!("Call {} to get these values.", quoted(ctx.refs_from))
    };
    Plan {
        summary: "Your answer states values found in no tool result and not in the task.".to_string(),
        causes: strings([
            "The values were guessed or remembered, not read from a tool result",
            "A tool failed and the answer filled the gap",
        ]),
        recovery: vec![
            call,
            "Then answer with the values exactly as the result shows them.".to_string(),
            "If no tool can give them, answer that you could not find them: never state a value you did not read."
                .to_string(),
        ],
        available_actions: None,
        expected: true,
    }
}

/// `CONTRADICTS_TASK`: the call was refused once before it ran. The engine's own plan names the
/// task's values; this one stands when it has none.
pub(crate) fn contradicts_task(tool: &str) -> Plan {
    Plan {
        summary: format!(
            "An argument of {tool} contradicts a value the task states, so {tool} was not called."
        ),
        causes: strings([
            "The value was guessed or copied from elsewhere, not from the task",
            "A fix of the argument's format changed the value itself",
        ]),
        recovery: vec![
            "Send the value the task states, in the form the tool takes.".to_string(),
            format!("Then call {tool} again."),
        ],
        available_actions: None,
        expected: true,
    }
}

/// `ANSWER_MISMATCH`: the answer is grounded but does not give what the task asks for; the
/// engine's plan says what it gave and what was asked.
pub(crate) fn answer_mismatch() -> Plan {
    Plan {
        summary: "Your answer does not give what the task asks for.".to_string(),
        causes: strings([
            "The answer gives one value where the task asks for a combination, or another unit",
        ]),
        recovery: strings([
            "Read the task again: give exactly what it asks for, from the tools' results.",
            "If no tool gives it, answer that you could not find it.",
        ]),
        available_actions: None,
        expected: true,
    }
}

/// The name a failed call looked for: its first string argument with letters and no digit
/// (`Köln`, `Dana Reyes`), not an id.
fn sent_name(args: Option<&Value>) -> Option<&str> {
    args?
        .as_object()?
        .values()
        .filter_map(Value::as_str)
        .find(|s| s.chars().any(char::is_alphabetic) && !s.chars().any(|c| c.is_ascii_digit()))
}

/// `NOT_FOUND` for a call that looked for a name: spelling, another form or language of the
/// name, the tool that lists names. `None` when the call sent no name (an id: the default plan).
pub(crate) fn not_found_name(ctx: &PlanContext<'_>, tool: &str) -> Option<Plan> {
    let name = sent_name(ctx.args)?;
    let mut recovery = vec![
        format!("Check the spelling of '{name}'."),
        "Try the name in another form: its English or local-language name, without accents, the full or the short form."
            .to_string(),
    ];
    if !ctx.refs_from.is_empty() {
        recovery.push(format!(
            "Or call {} to see the names it knows, and pick the right one.",
            quoted(ctx.refs_from)
        ));
    }
    recovery.push(format!("Call {tool} again with that name."));
    recovery.push(give_up_step());
    Some(Plan {
        summary: format!("{tool} found nothing named '{name}'."),
        causes: strings([
            "The name is misspelled",
            "The name is in another form or language than the one the tool knows (Wien / Vienna)",
            "It does not exist here",
        ]),
        recovery,
        available_actions: None,
        expected: true,
    })
}
