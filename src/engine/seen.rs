//! What a run has seen — the task, the session's earlier observations and this run's — and the
//! refusal of a call whose id argument is in none of it (id provenance, `provenance.rs`).

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::errors::{CallContext, ErrorCode};
use crate::tools::ToolSpec;

use super::facts::{id_like, iso_date, tokens};
use super::grounding::ungrounded_by;
use super::memory_text::Reading;
use super::misread::{misread_in, UnitFacts};
use super::provenance::{id_fields, producers, reading_first_of, says_it_lists, unseen};
use super::run::RunState;
use super::{Action, CallKey, Outcome, Turn};

impl RunState<'_> {
    /// What the user asked, lowercased: the task and the session's earlier tasks (theirs to give,
    /// as the task is).
    pub(crate) fn asked_text(&self) -> String {
        let mut text = self.task.to_lowercase();
        text.push_str(self.memory_text.asked(self.shown_memory()));
        text
    }

    /// [`Self::asked_text`], then what `reading` takes of every step, lowercased: the session's
    /// remembered ones (made once a run, `memory_text.rs`), then this run's.
    fn read_text(&self, reading: Reading) -> String {
        let mut text = self.asked_text();
        self.add_steps(&mut text, reading);
        text
    }

    fn add_steps(&self, text: &mut String, reading: Reading) {
        text.push_str(self.memory_text.steps(self.shown_memory(), reading));
        for turn in &self.turns {
            reading.add(text, turn);
        }
    }

    /// What `reading` takes of every step, lowercased (the session's remembered ones, then this
    /// run's), but of this run's calls that only acknowledged a page action (`acknowledged`:
    /// `Typed "P-0287" into @e12`) their id arguments alone: the value typed and what the page
    /// said back say nothing about it. A resumed run does not know which of its earlier calls
    /// only acknowledged.
    pub(crate) fn steps_text_but_acknowledgements(&self, reading: Reading) -> String {
        let mut text = self.memory_text.steps(self.shown_memory(), reading).to_string();
        for turn in &self.turns {
            match &turn.action {
                Some(action) if self.acknowledged.contains(&turn.step) => {
                    let ids = self.agent.tools.get(&action.tool).map(id_fields).unwrap_or_default();
                    let args = match &action.args {
                        Value::Object(args) => args
                            .iter()
                            .filter(|(k, _)| ids.contains(k))
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect(),
                        _ => Map::new(),
                    };
                    let call = Action { tool: action.tool.clone(), args: Value::Object(args) };
                    let sent = Turn { action: Some(call), observation: String::new(), ..turn.clone() };
                    reading.add(&mut text, &sent);
                }
                _ => reading.add(&mut text, turn),
            }
        }
        text
    }

    /// Everything the model was given, lowercased: the task, the tasks of the session's earlier
    /// runs and every observation (theirs and this run's); with `args`, the arguments of every call
    /// that worked too. Not the values a failed call sent, though its envelope quotes them: a value
    /// the tool refused or had no such thing for is the model's own guess (SmolLM2 clicked
    /// `download_report.csv`, refused as unseen, then answered "report.csv").
    pub(crate) fn seen_text(&self, args: bool) -> String {
        self.read_text(Reading::Seen { args })
    }

    /// The facts of `text` (an answer, a thought) that nothing the run has seen gives
    /// (`grounding::ungrounded` against [`Self::seen_text`] with arguments). The units and
    /// numbers `misread.rs` reads are the session's lines' kept facts (`memory_parts.rs`), then
    /// the task's and this run's steps', made here: not the whole window's, read again.
    pub(crate) fn ungrounded_here(&self, text: &str) -> Vec<String> {
        let seen = self.seen_text(true);
        ungrounded_by(text, &seen, || {
            misread_in(text, || {
                let mut run = String::new();
                for turn in &self.turns {
                    Reading::Seen { args: true }.add(&mut run, turn);
                }
                let task = Cow::Owned(UnitFacts::of(&self.task.to_lowercase()));
                let session = self.memory_text.seen_facts(self.shown_memory()).map(Cow::Borrowed);
                std::iter::once(task).chain(session).chain([Cow::Owned(UnitFacts::of(&run))]).collect()
            })
        })
    }

    /// What the user asked and what the calls that worked sent and returned (the session's and this
    /// run's), lowercased: not the failures' envelopes, whose plans number their steps
    /// (`unstated_numbers.rs`).
    pub(crate) fn worked_text(&self) -> String {
        self.read_text(Reading::Worked)
    }

    /// [`Self::returned_text`] without what the calls that only acknowledged a page action
    /// returned (`acknowledged`: `Typed "P-0287" into @e12` tells nothing of P-0287).
    pub(crate) fn told_text(&self) -> String {
        self.returned_by(|t| !self.acknowledged.contains(&t.step))
    }

    /// What this run's calls that worked returned, lowercased (`unrelated::off_the_results`).
    pub(crate) fn returned_text(&self) -> String {
        self.returned_by(|_| true)
    }

    /// What this run's calls that worked and `keep` keeps returned, lowercased, a line each.
    fn returned_by(&self, keep: impl Fn(&Turn) -> bool) -> String {
        let worked = self.turns.iter().filter(|t| t.worked() && keep(t));
        worked.map(|t| t.observation.to_lowercase()).collect::<Vec<_>>().join("\n")
    }

    /// What an answer can be about, lowercased: the task, the session's earlier tasks, the
    /// arguments of every call and what the calls that worked returned (`unrelated.rs`). Not the
    /// failures: their envelopes are keel's words.
    pub(crate) fn results_text(&self) -> String {
        self.read_text(Reading::Results)
    }

    /// The tools that produce `spec`'s ids: declared, or inferred (`provenance::producers`), or
    /// else the listing tools — for a plan that should name one.
    pub(crate) fn producers_of(&self, spec: &ToolSpec) -> Vec<String> {
        let found = reading_first_of(&self.agent.tools, &producers(&self.agent.tools, spec));
        if !found.is_empty() {
            return found;
        }
        self.agent
            .tools
            .specs()
            .iter()
            .filter(|other| other.name != spec.name && says_it_lists(other))
            .map(|other| other.name.clone())
            .collect()
    }

    /// Whether `tool`'s results are what a next call takes: it lists things (by its name or
    /// description: keel-agent/dom's `navigate` "lists its elements") or produces another tool's
    /// ids (declared or inferred). A repeat of such a call is no sign the model has its answer,
    /// nor is its first result (`answer_after_result.rs`): the model may still act on what it listed.
    pub(crate) fn feeds_another(&self, tool: &str) -> bool {
        let tools = &self.agent.tools;
        tools.get(tool).is_some_and(says_it_lists)
            || tools
                .specs()
                .iter()
                .any(|spec| spec.name != tool && producers(tools, spec).iter().any(|p| p == tool))
    }

    /// The one tool that takes its ids from this run's results, when every call that worked
    /// produces another tool's ids and that tool has not answered yet: the call the task still
    /// needs (`answer_check::focus_answer_next`).
    pub(crate) fn consumer_waiting(&self) -> Option<String> {
        let mut worked = Vec::new();
        for turn in self.turns.iter().filter(|t| t.worked()) {
            // A listing with more than ids and dates (amounts, names of things) may answer the task.
            if !ids_and_dates_only(&turn.observation) {
                return None;
            }
            worked.extend(turn.action.as_ref().map(|a| a.tool.as_str()));
        }
        let tools = &self.agent.tools;
        let mut waiting =
            tools.specs().iter().filter(|spec| !worked.contains(&spec.name.as_str())).filter_map(|spec| {
                let from = producers(tools, spec);
                from.iter().any(|p| worked.contains(&p.as_str())).then_some((spec, from))
            });
        let (only, from) = waiting.next()?;
        let feeds_it = worked.iter().all(|w| from.iter().any(|p| p == w));
        (waiting.next().is_none() && feeds_it).then(|| only.name.clone())
    }

    /// Refuses the call before it runs if an id argument appears nowhere the model could have read
    /// it: the observation and how the step ended. Until one of its producers has run, the tool also
    /// sits out the next constrained step (the grammar cannot narrow its ids yet, so it would be
    /// guessed again).
    pub(crate) fn refuse_unseen(
        &mut self,
        step: u32,
        spec: &ToolSpec,
        action: &Action,
        key: &CallKey,
    ) -> Option<(String, Outcome)> {
        if !self.agent.config.id_provenance {
            return None;
        }
        let (field, value) = unseen(spec, &action.args, || self.seen_text(false))?;
        let producers = self.producers_of(spec);
        let message = format!(
            "`{field}` is '{value}', which appears in no earlier result and not in the task: `{}` was not called.",
            spec.name
        );
        // Without any producer to call, sitting out would leave the model no way to retry with a
        // value it can see (an id from the task, mistyped).
        if !producers.is_empty() && !producers.iter().any(|p| self.outputs.contains_key(p)) {
            self.spent_tools.insert(spec.name.clone());
        }
        let ctx = CallContext { refs_from: &producers, ..CallContext::default() };
        let (observation, outcome) = self.refuse(step, action, key, ErrorCode::UnseenId, message, ctx);
        Some((observation, outcome))
    }
}

/// Whether a tool's name says it lists things: `list_orders`, `search_contacts`, `snapshot`.
/// Whether every number in `result` is part of an id or an ISO date (`ORD-5521 (2025-09-02)`): a
/// listing of things to look up, not of what they hold.
fn ids_and_dates_only(result: &str) -> bool {
    tokens(result)
        .into_iter()
        .filter(|t| t.chars().any(|c| c.is_ascii_digit()))
        .all(|t| id_like(t) || iso_date(t))
}
