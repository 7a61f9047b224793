//! The answer asked for right after a result that leaves nothing to do. After a call that worked,
//! SmolLM2 made the same call again in 28 of its 32 runs (recovery bench, 50ce14f: "call, the same
//! call, the answer alone" where "call, answer" was enough), a model call that learned nothing; the
//! repeat then led to the focused answer (`tool_turn.rs`, `progress`) anyway. So when a call's new
//! result leaves nothing for another call — no failed call waits for its fix, the tool lists
//! nothing another tool takes (by its name, its description — keel-agent/dom's `navigate` "lists
//! its elements" — or another tool's `refsFrom`), it acts on no ref or id another tool gave (a
//! page action: the task may go on, "type the name, then click Send") unless its result showed the
//! answer appear (a new value on a line that shares two words with the task, or is labelled as
//! the task asks after a call on its subject: `page_action.rs`),
//! the model may answer, and
//! no part of the task is left to a tool never called (`task_parts.rs`) — the next model call asks
//! for the answer alone (`focused_answer.rs`), under `focusedAnswer`. The answer is checked like
//! any other; one that is refused sends the run back to the whole step. A result with warnings (a partial count, a
//! caveat) leaves the next move to the model: SmolLM2, asked for the answer alone beside "the
//! count covers the other 2", answered "2" for the 14 chairs in stock (partial-warnings, d0b18de).
//! Nor after one call of a task that names more than it sent: a name the task states (a
//! capitalised word inside a sentence) that no call sent and no result holds leaves the next move
//! to the model ("Weather in Paris and London?" after Paris's call).
//! Called by `call_step` once the turn is stored, so that the checks read the call as made.

use crate::tools::ToolSpec;

use super::choice::Allowed;
use super::facts::seen_in;
use super::memory_text::Reading;
use super::provenance::producers;
use super::run::RunState;

impl RunState<'_> {
    /// After `spec`'s call returned a new result without warnings: asks the next model call for
    /// the answer alone when the result leaves nothing for another call (see the module's text).
    pub(crate) fn answer_after_result(&mut self, spec: &ToolSpec) {
        if !self.agent.config.focused_answer
            || self.unfixed.any()
            || self.allowed() != Allowed::Any
            || self.feeds_another(&spec.name)
            || (!producers(&self.agent.tools, spec).is_empty() && !self.last_call_answered(spec))
            || self.consumer_waiting().is_some()
            || self.task_part_left().is_some()
            || self.names_left()
        {
            return;
        }
        self.focus_answer = true;
    }

    /// Whether the latest turn, `spec`'s call on a listed element, showed the answer appear
    /// (`page_action.rs`, `answer_appeared`, judged when the call returned: `RunState::appeared`).
    fn last_call_answered(&self, spec: &ToolSpec) -> bool {
        let Some(turn) = self.turns.last() else { return false };
        turn.action.as_ref().is_some_and(|a| a.tool == spec.name)
            && self.appeared.as_ref().is_some_and(|a| a.step == turn.step)
    }

    /// Whether the task states a name no call sent and no result holds (see the module's text).
    fn names_left(&mut self) -> bool {
        let NamesLeft { left, read } = &mut self.names_left;
        let left =
            left.get_or_insert_with(|| task_names(&self.task).iter().map(|n| n.to_lowercase()).collect());
        // Only the turns stored since the last step are read: a run's turns are only ever added.
        for turn in self.turns.get(*read..).unwrap_or_default() {
            if left.is_empty() {
                break;
            }
            // This run's calls' arguments and results (not the task, which holds every name).
            let mut said = String::new();
            Reading::Results.add(&mut said, turn);
            left.retain(|name| !seen_in(&said, name));
        }
        *read = self.turns.len();
        !left.is_empty()
    }
}

/// The task's names no call has sent and no result has held yet (`names_left`), kept from one step
/// to the next so that a step reads only its own turn, not the whole run again.
#[derive(Debug, Default)]
pub(crate) struct NamesLeft {
    /// The names, lowercased, once the task has been read.
    left: Option<Vec<String>>,
    /// How many of the run's turns have been read.
    read: usize,
}

/// The names `task` states: capitalised words (a capital, then a lowercase letter) of three letters
/// or more that do not open a sentence.
fn task_names(task: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut opens = true;
    for word in task.split_whitespace() {
        let bare = word.trim_matches(|c: char| !c.is_alphanumeric());
        let bare = bare.split(['\'', '’']).next().unwrap_or(bare);
        let mut chars = bare.chars();
        let capitalised =
            chars.next().is_some_and(char::is_uppercase) && chars.next().is_some_and(char::is_lowercase);
        if !opens && capitalised && bare.chars().count() >= 3 {
            names.push(bare);
        }
        opens = word.ends_with(['.', '?', '!', ':']);
    }
    names
}

#[cfg(test)]
mod tests {
    use super::task_names;

    #[test]
    fn the_names_a_task_states_are_its_capitalised_words_inside_a_sentence() {
        assert_eq!(task_names("Weather in Paris and London?"), ["Paris", "London"]);
        assert_eq!(task_names("What is the EUR to USD rate? Then tell me Dana's number."), ["Dana"]);
        assert!(task_names("What is the population of the city?").is_empty());
    }
}
