//! Recovery before the answer (`recoverBeforeAnswer`). After a call fails in a way another call can
//! fix (bad arguments, an id or name the tool does not know, a stale reference, a permission another
//! tool grants), the model's next steps must be calls — to the tools the failure's plan offers —
//! until a call to the failed tool succeeds, for at most [`HOLD_STEPS`] steps from the latest call
//! to it with new arguments. And while that call
//! waits for its fix, a result that holds the fix says so: the stale ref's element under its new
//! ref, the name that was not found in the spelling a listing gives.
//!
//! Why (recovery bench, Qwen2.5-Coder-0.5B at 364ea66, `bench/results/recovery-issue9.md`): of the
//! 11 scenarios keel mode failed, 7 ended with an answer written straight after a failed call, or
//! straight after the listing its plan asked for, instead of the call that would have fixed it; the
//! answer either invented the value or was the listing's first line.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::errors::{Envelope, ErrorCode};
use crate::tools::closest;

use super::narrowing::Narrowing;
use super::provenance;
use super::run::RunState;

/// The most names a listing may hold for the argument to be narrowed to them.
const MAX_NAMES: usize = 64;

/// The most steps after a fixable failure that must be calls. Three covers the longest plan the
/// runtime writes (list the ids, call again) with one step to spare; after it the model may answer
/// (and say what failed).
pub const HOLD_STEPS: u32 = 3;

/// A tool whose latest call failed, with no later call of it (nor of a tool its plan names) that
/// succeeded.
#[derive(Debug, Clone)]
struct Unfixed {
    /// The step of the first failure of the latest call: a call with other arguments that fails is
    /// a new attempt, and holds the answer for [`HOLD_STEPS`] more steps (Qwen clicked `e19`, then
    /// answered while `e20` and `e21` were still untried; the failure budget still ends a model that
    /// keeps trying).
    since: u32,
    /// The step of its latest failure.
    last: u32,
    /// The latest failure's code.
    code: ErrorCode,
    /// The arguments of the latest failed call.
    sent: Option<Value>,
    /// The tools the latest failure's envelope offered next.
    actions: Vec<String>,
    /// The tools its recovery steps name: a call to another tool that works means the model moved
    /// on, and the failed call no longer holds the answer.
    named: Vec<String>,
}

impl Unfixed {
    /// Whether another call can fix it. A permission or conflict (or a tool's own code) only when
    /// its envelope offers a tool besides the one that failed (`request_access`).
    fn fixable(&self, tool: &str) -> bool {
        match self.code {
            ErrorCode::UnknownTool
            | ErrorCode::InvalidArgs
            | ErrorCode::MissingField
            | ErrorCode::NotFound
            | ErrorCode::StaleReference
            | ErrorCode::UnseenId
            | ErrorCode::ContradictsTask => true,
            ErrorCode::Permission | ErrorCode::Conflict | ErrorCode::Custom(_) => {
                self.actions.iter().any(|a| a != tool)
            }
            _ => false,
        }
    }
}

/// The run's failed calls that no later call of their tool fixed, by tool; and every argument value
/// a tool said it has no such thing for.
#[derive(Debug, Clone, Default)]
pub(crate) struct UnfixedCalls {
    unfixed: BTreeMap<String, Unfixed>,
    /// By tool, then field: each string value of a call that failed with NOT_FOUND,
    /// STALE_REFERENCE or UNSEEN_ID, and every value of a listing a STALE_REFERENCE retired.
    failed_values: BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
}

impl UnfixedCalls {
    /// A call to `tool` (possibly a name no tool has) failed at `step` with `envelope`.
    pub(crate) fn failed(&mut self, step: u32, tool: &str, envelope: &Envelope) {
        let since = match self.unfixed.get(tool) {
            Some(u) if u.sent.is_none() || envelope.sent.is_none() || u.sent == envelope.sent => u.since,
            _ => step,
        };
        let plan = envelope.recovery.join("\n");
        let named = envelope.available_actions.iter().filter(|a| has_token(&plan, a)).cloned().collect();
        let unfixed = Unfixed {
            since,
            last: step,
            code: envelope.code.clone(),
            sent: envelope.sent.clone(),
            actions: envelope.available_actions.clone(),
            named,
        };
        if matches!(envelope.code, ErrorCode::NotFound | ErrorCode::StaleReference | ErrorCode::UnseenId) {
            if let Some(Value::Object(sent)) = &envelope.sent {
                for (field, value) in sent.iter().filter_map(|(k, v)| Some((k, v.as_str()?))) {
                    let fields = self.failed_values.entry(tool.to_string()).or_default();
                    fields.entry(field.clone()).or_default().insert(value.to_string());
                }
            }
        }
        self.unfixed.insert(tool.to_string(), unfixed);
    }

    /// A call to `tool` worked: its failures are fixed, and so is a call to a tool that does not
    /// exist (any valid call is its fix); a failed call whose recovery steps do not name `tool` is
    /// let go (the model moved on).
    pub(crate) fn fixed(&mut self, tool: &str) {
        self.unfixed.remove(tool);
        self.unfixed.retain(|_, u| u.code != ErrorCode::UnknownTool && u.named.iter().any(|n| n == tool));
    }

    /// Each of `values` counts as failed for `tool`'s argument `field`: the listing they came
    /// from is out of date.
    pub(crate) fn failed_all(&mut self, tool: &str, field: &str, values: impl IntoIterator<Item = String>) {
        let fields = self.failed_values.entry(tool.to_string()).or_default();
        fields.entry(field.to_string()).or_default().extend(values);
    }

    /// Whether `tool` said it has no such thing for `value` as its argument `field`, or `value`
    /// came from a listing that went stale.
    pub(crate) fn failed_on(&self, tool: &str, field: &str, value: &str) -> bool {
        self.failed_values.get(tool).and_then(|fields| fields.get(field)).is_some_and(|v| v.contains(value))
    }

    /// The tools whose failures are still unfixed, and the tools their recovery plans name.
    pub(crate) fn named_tools(&self) -> impl Iterator<Item = &String> {
        self.unfixed.iter().flat_map(|(tool, u)| std::iter::once(tool).chain(&u.named))
    }

    /// Whether a failed call still waits for its fix.
    pub(crate) fn any(&self) -> bool {
        !self.unfixed.is_empty()
    }

    /// The most recent failure still unfixed.
    fn latest(&self) -> Option<(&String, &Unfixed)> {
        self.unfixed.iter().max_by_key(|(_, u)| u.last)
    }
}

impl RunState<'_> {
    /// A STALE_REFERENCE from `tool` (`envelope`): the producer's listing that held the value it
    /// was sent is out of date, so none of that listing's values for the argument is offered again
    /// (`choice.rs`) until a producer lists afresh.
    pub(crate) fn listing_went_stale(&mut self, tool: &str, envelope: &Envelope) {
        let Some(Value::Object(sent)) = &envelope.sent else { return };
        if !self.agent.config.id_provenance {
            return;
        }
        let stale: Vec<(String, Vec<String>)> = provenance::narrowings(&self.agent.tools, &self.outputs)
            .into_iter()
            .map(|(n, _)| n)
            .filter(|n| n.tool() == tool && sent.get(n.field()).is_some_and(|v| n.options().contains(v)))
            .map(|n| {
                let values = n.options().iter().filter_map(|v| v.as_str().map(str::to_string)).collect();
                (n.field().to_string(), values)
            })
            .collect();
        for (field, values) in stale {
            self.unfixed.failed_all(tool, &field, values);
        }
    }

    /// A call to `tool` succeeded: the failure log and the unfixed calls learn it.
    pub(crate) fn call_worked(&mut self, tool: &str) {
        self.log.recover(Some(tool));
        self.unfixed.fixed(tool);
        self.narrowings.worked(tool);
    }

    /// The tools the next step must call one of, while a failed call waits for its fix; `None` when
    /// the model may answer.
    pub(crate) fn held_to(&self) -> Option<Vec<String>> {
        if !self.agent.config.recover_before_answer {
            return None;
        }
        let (tool, unfixed) = self.unfixed.latest()?;
        if !unfixed.fixable(tool) || self.step() + 1 - unfixed.since > HOLD_STEPS {
            return None;
        }
        let offered = self.offered(unfixed.actions.iter().chain(std::iter::once(tool)));
        (!offered.is_empty()).then_some(offered)
    }

    /// The tools of `names` the model can still call, once each, in order.
    fn offered<'n>(&self, names: impl Iterator<Item = &'n String>) -> Vec<String> {
        let mut offered: Vec<String> = Vec::new();
        for name in names {
            if self.agent.tools.get(name).is_some()
                && !self.spent_tools.contains(name)
                && !offered.contains(name)
            {
                offered.push(name.clone());
            }
        }
        offered
    }

    /// `observation`, a new result of `producer`, with [`RunState::fix_notes`] under it (also kept
    /// as keel's own words, which an answer must not be made of); part of `recoverBeforeAnswer`.
    pub(crate) fn with_fix_notes(&mut self, producer: &str, observation: String) -> String {
        if !self.agent.config.recover_before_answer {
            return observation;
        }
        let (notes, names) = self.fix_notes(producer, &observation);
        for narrowing in names {
            self.narrowings.learn(narrowing);
        }
        self.runtime_text.push_str(&notes);
        observation + &notes
    }

    /// What a new result of `producer` tells about a call still waiting for its fix, as notes for
    /// the model under the result: a ref that went stale is shown under its new ref (the same
    /// element, found by the rest of its line in the earlier result), a name that was not found in
    /// the closest spelling the result holds — and that argument is narrowed to the names the
    /// result lists, for constrained decoding (Qwen copied the task's misspelling back three times
    /// past the note). Empty when it tells nothing.
    fn fix_notes(&self, producer: &str, text: &str) -> (String, Vec<Narrowing>) {
        let mut notes = String::new();
        let mut names = Vec::new();
        let mut unfixed: Vec<_> = self.unfixed.unfixed.iter().filter(|(tool, _)| *tool != producer).collect();
        crate::order::sort_by_key(&mut unfixed, |(_, u)| std::cmp::Reverse(u.last));
        for (tool, u) in unfixed {
            if !matches!(u.code, ErrorCode::StaleReference | ErrorCode::NotFound | ErrorCode::UnseenId) {
                continue;
            }
            let Some(Value::Object(sent)) = &u.sent else { continue };
            for (field, value) in sent.iter().filter_map(|(k, v)| Some((k, v.as_str()?))) {
                let value = value.trim();
                if value.chars().count() < 2 || value.len() > 200 || has_token(text, value) {
                    continue;
                }
                if let Some((label, fresh)) = self.moved(value, text) {
                    notes.push_str(&format!(
                        "\nNote: `{value}` ({label}), which `{tool}` could not use, is `{fresh}` in this result."
                    ));
                } else if let Some(near) = nearest_item(value, text) {
                    notes.push_str(&format!(
                        "\nNote: '{near}' in this result is the closest to '{value}', which `{tool}` did not find."
                    ));
                    let listed: Vec<Value> = items(text).into_iter().map(Value::from).collect();
                    if listed.len() <= MAX_NAMES {
                        names.push(Narrowing::new(tool, field, listed));
                    }
                }
            }
        }
        (notes, names)
    }

    /// `value`'s element in `text`: the line of an earlier successful result that held `value`,
    /// without it, is the label; the one line of `text` that holds the label and one other token
    /// gives the fresh ref.
    fn moved(&self, value: &str, text: &str) -> Option<(String, String)> {
        let earlier =
            super::memory::steps(self.shown_memory()).chain(&self.turns).rev().filter(|t| t.worked());
        let line = earlier.flat_map(|t| t.observation.lines()).find(|line| has_token(line, value))?;
        let label = line.replacen(value, "", 1).trim().to_string();
        if label.chars().filter(|c| c.is_alphanumeric()).count() < 3 {
            return None;
        }
        let mut fresh = text.lines().filter_map(|line| {
            let rest = line.replacen(&label, "", 1);
            let rest = rest.trim();
            (line.contains(&label)
                && !rest.is_empty()
                && !rest.contains(char::is_whitespace)
                && rest != value)
                .then(|| rest.to_string())
        });
        match (fresh.next(), fresh.next()) {
            (Some(one), None) => Some((label, one)),
            _ => None,
        }
    }
}

/// Whether `token` occurs in `text` with no letter, digit, `-` or `_` right before or after it.
pub(super) fn has_token(text: &str, token: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
    text.match_indices(token).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + token.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

/// The item of `text` ([`items`]) closest to `value`, when one is a plausible misspelling or another
/// casing of it.
fn nearest_item(value: &str, text: &str) -> Option<String> {
    if value.chars().count() < 4 {
        return None;
    }
    closest(value, items(text)).first().map(|s| s.to_string())
}

/// The items `text` lists: its lines, or the comma- or semicolon-separated parts of a line, each at
/// most 200 bytes, in order, once each.
fn items(text: &str) -> Vec<&str> {
    let mut items: Vec<&str> = Vec::new();
    for item in text.lines().flat_map(|line| line.split([',', ';'])).map(str::trim) {
        if !item.is_empty() && item.len() <= 200 && !items.contains(&item) {
            items.push(item);
        }
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_matched_whole() {
        assert!(has_token("e7 link 'Home'\ne2 button", "e2"));
        assert!(!has_token("e21 button 'Subscribe'", "e2"));
        assert!(!has_token("ORD-5521", "5521"));
    }

    #[test]
    fn the_nearest_item_is_a_plausible_misspelling() {
        let list = "Smithsonian Castle, National Gallery of Art, Air and Space Museum";
        assert_eq!(nearest_item("Smithsonion Castle", list).as_deref(), Some("Smithsonian Castle"));
        assert_eq!(nearest_item("Louvre", list), None);
    }
}
