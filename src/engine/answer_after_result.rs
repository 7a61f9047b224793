//! The answer asked for right after a result that leaves nothing to do. After a call that worked,
//! SmolLM2 made the same call again in 28 of its 32 runs (recovery bench, 50ce14f: "call, the same
//! call, the answer alone" where "call, answer" was enough), a model call that learned nothing; the
//! repeat then led to the focused answer (`tool_turn.rs`, `progress`) anyway. So when a call's new
//! result leaves nothing for another call — no failed call waits for its fix, the tool lists
//! nothing another tool takes (by its name, its description — keel-agent/dom's `navigate` "lists
//! its elements" — or another tool's `refsFrom`), it acts on no ref or id another tool gave (a
//! page action: the task may go on, "type the name, then click Send"), the model may answer, and
//! no part of the task is left to a tool never called (`task_parts.rs`) — the next model call asks
//! for the answer alone (`focused_answer.rs`), under `focusedAnswer`. The answer is checked like any other; one that is
//! refused sends the run back to the whole step. A result with warnings (a partial count, a
//! caveat) leaves the next move to the model: SmolLM2, asked for the answer alone beside "the
//! count covers the other 2", answered "2" for the 14 chairs in stock (partial-warnings, d0b18de).
//! Called by `call_step` once the turn is stored, so that the checks read the call as made.

use crate::tools::ToolSpec;

use super::choice::Allowed;
use super::provenance::{producers, says_it_lists};
use super::run::RunState;

impl RunState<'_> {
    /// After `spec`'s call returned a new result without warnings: asks the next model call for
    /// the answer alone when the result leaves nothing for another call (see the module's text).
    pub(crate) fn answer_after_result(&mut self, spec: &ToolSpec) {
        if !self.agent.config.focused_answer
            || self.unfixed.any()
            || self.allowed() != Allowed::Any
            || self.feeds_another(&spec.name)
            || says_it_lists(spec)
            || !producers(&self.agent.tools, spec).is_empty()
            || self.consumer_waiting().is_some()
            || self.task_part_left().is_some()
        {
            return;
        }
        self.focus_answer = true;
    }
}
