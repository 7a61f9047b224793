//! The item the task names, never returned: "What is the price of part P-0287 in the catalogue?",
//! the page's first screen listed P-0001 to P-0040, and Qwen answered "The price of part P-0287 in
//! the catalogue is €31.19." — P-0001's price (web bench long-page, 14f97c6). Every value of that
//! answer is grounded: P-0287 in the task, €31.19 in a result. What grounding cannot see is that no
//! result ever said anything about P-0287.
//!
//! When the task names an item by an id (a token with letters and digits: `P-0287`, `INV-9`, not a
//! date) that no call that worked sent and no result (of this run or the session's shown lines)
//! holds — of a page action that only acknowledged (`Typed "P-0287" into @e12`), only its id
//! arguments count — while a result holds another id of the same shape (`P-0001`: letters, digits
//! and marks in the same places), an answer stating that id beside a value of its own (a token with a digit the
//! task does not state) is judged like an ungrounded answer (under `grounding`): the first gets an
//! `UNGROUNDED_ANSWER` envelope naming the id and one more step, one after that ends the run
//! unsuccessful with the runtime's honest answer. The same shape is what makes the value likely
//! another item's; a term the task uses that no tool echoes ("COVID-19", "3pm" with no other time
//! in the results) is not read as an item.

use super::facts::{id_like, iso_date, seen_in, tokens};
use super::gave_up::says_not_done;
use super::grounding::own_values;
use super::memory_text::Reading;
use super::parrot::echoes_the_id;
use super::run::RunState;

/// Why an answer is not founded on what the tools returned (under `grounding`).
pub(crate) enum Unfounded {
    /// It states these values, which nothing the run has seen gives (`grounding.rs`).
    Values(Vec<String>),
    /// It is about this item the task names, which no result held (this module).
    Item(String),
}

impl Unfounded {
    /// What the run's result lists as `ungrounded`.
    pub(crate) fn into_values(self) -> Vec<String> {
        match self {
            Unfounded::Values(values) => values,
            Unfounded::Item(item) => vec![item],
        }
    }
}

impl RunState<'_> {
    /// Whether `answer` is unfounded: values nothing gave, else an item no result held.
    pub(crate) fn unfounded(&self, answer: &str) -> Option<Unfounded> {
        let values = self.ungrounded_here(answer);
        if !values.is_empty() {
            return Some(Unfounded::Values(values));
        }
        self.unreturned_item(answer).map(Unfounded::Item)
    }

    /// The id the task names that `answer` states beside a value of its own, while no call that
    /// worked sent it and no result holds it (see the module's text).
    fn unreturned_item(&self, answer: &str) -> Option<String> {
        let ids = task_ids(&self.task);
        if ids.is_empty() {
            return None;
        }
        let answer_lower = answer.to_lowercase();
        let stated: Vec<&str> = ids.into_iter().filter(|id| seen_in(&answer_lower, id)).collect();
        // An answer saying the item was not found may count what was ("not among the 40 parts").
        let task_lower = self.task.to_lowercase();
        if stated.is_empty() || own_values(answer, &task_lower).next().is_none() || says_not_done(answer) {
            return None;
        }
        // What the calls that worked sent and returned: the session's shown lines', then this run's,
        // but a value typed into the page: on the web bench (b187d71) Qwen typed P-0287 into the
        // search box without sending it, then answered with P-0001's price.
        let worked = self.steps_text_but_acknowledgements(Reading::Worked);
        let unreturned: Vec<&str> = stated.into_iter().filter(|id| !seen_in(&worked, id)).collect();
        if unreturned.is_empty() {
            return None;
        }
        let shapes: Vec<String> = tokens(&worked).into_iter().map(shape).collect();
        unreturned.into_iter().find(|id| shapes.contains(&shape(id))).map(str::to_string)
    }
}

impl RunState<'_> {
    /// Why `answer` is no answer about the one item the task names, while no result told of it
    /// (`told_text`: a page action that only acknowledged tells nothing): it is that id alone
    /// ("P-0287" for "What is the price of part P-0287 in the catalogue?", `parrot::echoes_the_id`),
    /// or states another id of its shape and not it ("P-0001 Wing nut 1 — €31.19"): Qwen on the web
    /// bench's long-page at ab2bfc6 and 02a00ab, its answers about P-0287 refused. Once a result
    /// told of the item, its id alone may be the answer ("Which order is late, A-12?"), and so may
    /// another id ("its replacement is P-0305").
    pub(crate) fn untold_item_answer(&self, answer: &str) -> Option<&'static str> {
        let id = sole_id(&self.task)?;
        if seen_in(&self.told_text(), id) {
            return None;
        }
        if echoes_the_id(answer, &self.task).is_some() {
            return Some(
                "Your final_answer only repeats the id the task names: it is not an answer to the task.",
            );
        }
        let asked = shape(id);
        let other = !seen_in(&answer.to_lowercase(), id)
            && tokens(answer).into_iter().any(|t| shape(t) == asked && !t.eq_ignore_ascii_case(id));
        other.then_some(
            "Your final_answer is about another item than the one the task names: it is not an answer to the task.",
        )
    }
}

/// A token's shape: each letter `a`, each digit `9`, the rest as it is (`P-0287` and `p-0001` are
/// both `a-9999`).
fn shape(token: &str) -> String {
    token
        .chars()
        .map(|c| match c {
            _ if c.is_ascii_digit() => '9',
            _ if c.is_alphabetic() => 'a',
            _ => c,
        })
        .collect()
}

/// The one id `task` names ([`task_ids`]), when it names exactly one and that is no file name or
/// e-mail address (`q3-2024.csv`, which an answer may name).
pub(crate) fn sole_id(task: &str) -> Option<&str> {
    let [id] = task_ids(task)[..] else { return None };
    (!id.contains(['.', '@'])).then_some(id)
}

/// The ids `task` names: its tokens that open with a letter and hold digits, with a separator
/// (`P-0287`, `INV-9`) or two digits or more (`A12`), not dates; not "3pm", "2nd", "10km", "v2".
pub(crate) fn task_ids(task: &str) -> Vec<&str> {
    let mut ids: Vec<&str> = Vec::new();
    for token in tokens(task) {
        let token = token.trim_start_matches(['#', '@']);
        let digits = token.chars().filter(char::is_ascii_digit).count();
        let separated = token.contains(['-', '_', '/']);
        let opens_with_letter = token.chars().next().is_some_and(char::is_alphabetic);
        let shaped = opens_with_letter && (separated || digits >= 2);
        if shaped && id_like(token) && !iso_date(token) && !ids.contains(&token) {
            ids.push(token);
        }
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::{shape, task_ids};

    #[test]
    fn ids_of_one_kind_have_one_shape() {
        assert_eq!(shape("P-0287"), shape("p-0001"));
        assert_ne!(shape("P-0287"), shape("P-28"));
        assert_ne!(shape("3pm"), shape("COVID-19"));
    }

    #[test]
    fn a_task_names_its_items_by_tokens_with_letters_and_digits_not_dates() {
        assert_eq!(task_ids("What is the price of part P-0287 in the catalogue?"), ["P-0287"]);
        assert_eq!(task_ids("Total of INV-9, due 2025-09-02, for 4 people?"), ["INV-9"]);
        assert!(task_ids("What is the price of the Wool blanket?").is_empty());
        assert_eq!(task_ids("Is order #A1234 open at 3pm on the 2nd? 10km, v2, H2O."), ["A1234"]);
    }
}
