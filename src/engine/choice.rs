//! Tool choice (`config.toolChoice`): what the model may do at a step, the step schema that says
//! so to a constrained decoder, and the check of a step where decoding is not constrained.

use serde_json::Value;

use super::config::ToolChoice;
use super::named_line::{most_named, named_option, task_names_tool};
use super::provenance;
use super::run::RunState;
use crate::tools::ToolSpec;

/// What the model may do at the next step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Allowed {
    /// Call any tool or answer.
    Any,
    /// Only answer (`none`).
    AnswerOnly,
    /// Call a tool; no answer yet (`required`, before the first call).
    CallFirst,
    /// Call this tool; no answer yet (`{ tool }`, before its first call).
    Only(String),
    /// Call one of these tools; no answer yet: a failed call waits for its fix
    /// (`recoverBeforeAnswer`, `recovering.rs`).
    Recover(Vec<String>),
}

impl RunState<'_> {
    /// What the model may do now: the tool choice, then a failed call waiting for its fix.
    pub(crate) fn allowed(&self) -> Allowed {
        match self.chosen() {
            Allowed::Any => self.held_to().map_or(Allowed::Any, Allowed::Recover),
            chosen => chosen,
        }
    }

    /// What the tool choice allows now: `required` and `{ tool }` bind the steps before the
    /// model's first call (to any existing tool, or to that tool), whatever that call's outcome.
    fn chosen(&self) -> Allowed {
        let tools = &self.agent.tools;
        let called = |name: Option<&str>| {
            self.turns.iter().filter_map(|t| t.action.as_ref()).any(|a| match name {
                Some(name) => a.tool == name,
                None => tools.get(&a.tool).is_some(),
            })
        };
        match self.agent.config.tool_choice(!tools.specs().is_empty()) {
            ToolChoice::Auto => Allowed::Any,
            ToolChoice::None => Allowed::AnswerOnly,
            ToolChoice::Required if called(None) => Allowed::Any,
            ToolChoice::Required => Allowed::CallFirst,
            ToolChoice::Tool(name) if called(Some(&name)) => Allowed::Any,
            ToolChoice::Tool(name) => Allowed::Only(name),
        }
    }

    /// The id arguments narrowed to the latest listing of their producers, without the values
    /// their tool already failed on; to the values held until a call works that the listing has;
    /// else to the one on the line whose label the task names while it has not failed
    /// (`named_line.rs`); else, for an id that is its tool's only required argument, to those on
    /// the lines whose labels share the most words with the task and not acted on (`most_named`,
    /// `acted_on.rs`) (`idProvenance`).
    pub(crate) fn id_narrowings(&self) -> Vec<super::narrowing::Narrowing> {
        if !self.agent.config.id_provenance {
            return Vec::new();
        }
        provenance::narrowings(&self.agent.tools, &self.outputs)
            .into_iter()
            .map(|(n, listing)| {
                let n = n.without(|tool, field, value| self.unfixed.failed_on(tool, field, value));
                // Held until a call works (a failure's fix, the latest item): to what the listing
                // still has of it (a cover closed another way leaves no such button).
                if let Some(held) = self.narrowings.held(n.tool(), n.field()) {
                    let kept: Vec<Value> = held.iter().filter(|v| n.options().contains(v)).cloned().collect();
                    if !kept.is_empty() {
                        return n.with_options(kept);
                    }
                }
                let out = listing.text;
                let named = Some(out)
                    .filter(|_| task_names_tool(&self.task, n.tool()))
                    .and_then(|out| named_option(&self.task, out, n.options()))
                    .filter(|id| !self.worked_with(n.tool(), n.field(), id));
                if let Some(named) = named {
                    return n.only(named);
                }
                if !self.only_required(n.tool(), n.field()) {
                    return n;
                }
                // The listing's lines the task names most, without those acted on (`acted_on.rs`).
                let since = listing.since;
                let tried =
                    |id: &Value, label: &str| self.acted_on.tried(n.tool(), n.field(), id, label, since);
                match most_named(&self.task, out, n.options(), tried) {
                    Some(options) => n.with_options(options),
                    None => n,
                }
            })
            .collect()
    }

    /// Whether `field` is the one argument `tool` requires: the task's words can only say which
    /// element it acts on (`click`, `check`), not fill a value (`type`'s text).
    fn only_required(&self, tool: &str, field: &str) -> bool {
        self.agent.tools.get(tool).is_some_and(|spec| spec.required() == [field])
    }

    /// Whether a call of `tool` with `value` as its `field` has worked this run.
    fn worked_with(&self, tool: &str, field: &str, value: &Value) -> bool {
        self.turns
            .iter()
            .filter(|t| t.worked())
            .filter_map(|t| t.action.as_ref())
            .any(|a| a.tool == tool && a.args.get(field) == Some(value))
    }

    /// The step schema for constrained decoding now: the tool choice, the tools sitting out, the
    /// arguments narrowed by what tools said, and the id arguments narrowed to their producer's
    /// latest output. `final_only` for the forced last call; `offered`, the tools this step offers
    /// when not all of them (`toolSelection`).
    pub(crate) fn current_schema(&self, final_only: bool, offered_now: Option<&[ToolSpec]>) -> Value {
        let agent = self.agent;
        let allowed = self.allowed();
        if final_only || allowed == Allowed::AnswerOnly {
            return agent.step_schema(true).clone();
        }
        let ids = self.id_narrowings();
        if allowed == Allowed::Any
            && offered_now.is_none()
            && self.spent_tools.is_empty()
            && self.narrowings.is_empty()
            && ids.is_empty()
        {
            return agent.step_schema(false).clone();
        }
        // A tool whose id argument has no listed value left sits out until a producer lists afresh.
        let mut sitting_out = self.spent_tools.clone();
        sitting_out.extend(ids.iter().filter(|n| n.is_exhausted()).map(|n| n.tool().to_string()));
        let specs = agent.tools.specs();
        let offered = |names: &[String]| -> Vec<_> {
            specs.iter().filter(|s| names.contains(&s.name)).cloned().collect()
        };
        match allowed {
            Allowed::Only(name) => self.narrowings.step_schema(&offered(&[name]), &sitting_out, &ids, false),
            Allowed::Recover(names) => {
                // A plan's envelope offers every tool; with many, the step offers those selected.
                let selected = |n: &String| offered_now.is_none_or(|o| o.iter().any(|s| &s.name == n));
                let kept: Vec<String> = names.iter().filter(|n| selected(n)).cloned().collect();
                let names = if kept.is_empty() { names } else { kept };
                let names = self.callable(names, &sitting_out);
                self.narrowings.step_schema(&offered(&names), &sitting_out, &ids, false)
            }
            allowed => self.narrowings.step_schema(
                offered_now.unwrap_or(specs),
                &sitting_out,
                &ids,
                allowed == Allowed::Any,
            ),
        }
    }

    /// Of the tools a failed call's recovery may call (`names`), those not sitting out; if every
    /// one sits out (no listed id of its kinds, every listed id failed), the tools that list their
    /// ids (those that only read, where some do), so that the held step never offers no tool (its
    /// schema would allow only the answer the step then refuses); if none of those is free either,
    /// `names`.
    fn callable(&self, names: Vec<String>, sitting_out: &std::collections::BTreeSet<String>) -> Vec<String> {
        let free = |n: &String| !sitting_out.contains(n);
        if names.iter().any(free) {
            return names.into_iter().filter(free).collect();
        }
        let tools = &self.agent.tools;
        let mut producers: Vec<String> = Vec::new();
        for spec in names.iter().filter_map(|n| tools.get(n)) {
            for producer in provenance::producers(tools, spec) {
                // Producers are the agent's tools (`refsFrom` is checked, inferred ones are found among them).
                if !producers.contains(&producer) {
                    producers.push(producer);
                }
            }
        }
        // Where a lister only reads (`snapshot`), not one that acts (`navigate` leaves the page).
        let mut listers = provenance::reading_first_of(tools, &producers);
        listers.retain(free);
        if listers.is_empty() {
            names
        } else {
            listers
        }
    }

    /// Why the tool choice refuses a step (the model answered, or called `tool`), when it does: for
    /// decoding that was not constrained, or a backend that ignored the schema.
    pub(crate) fn choice_refuses(&self, tool: Option<&str>) -> Option<(String, Vec<String>)> {
        match (self.allowed(), tool) {
            (Allowed::AnswerOnly, Some(tool)) => Some((
                format!("Tools are off for this agent (toolChoice \"none\"), so `{tool}` was not called."),
                vec!["Give your final_answer now, from the task alone.".to_string()],
            )),
            (Allowed::CallFirst, None) => Some((
                "A tool call must come first (toolChoice \"required\"): the answer was not accepted."
                    .to_string(),
                vec![
                    "Call the tool from available_actions that gets what the task asks for.".to_string(),
                    "Answer only from what the tools return.".to_string(),
                ],
            )),
            (Allowed::Recover(names), None) => Some((
                "A failed call is not fixed yet, so the answer was not accepted: follow its recovery steps first."
                    .to_string(),
                vec![
                    format!("Call {} as the recovery steps above say.", crate::errors::quoted(&names)),
                    "If that fails too, answer and say plainly what failed.".to_string(),
                ],
            )),
            (Allowed::Only(name), called) if called != Some(name.as_str()) => Some((
                format!("The first call must be to `{name}` (toolChoice), so this step was not accepted."),
                vec![format!("Call `{name}` now.")],
            )),
            _ => None,
        }
    }
}
