//! `recall.rs`: what a run reads of its session gives every prompt what the whole session gives,
//! and reads no more of a long session than its window can show.

use std::cell::Cell;

use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;
use serde_json::json;

use super::focused_answer::exchanges;
use super::prompt::{build_messages, CharEstimate, MemoryLines, PromptInput, Transcript};
use super::recall::recall;
use super::{Action, Outcome, Remembered, Turn};
use crate::store::{
    fixtures, FailureRecord, MemoryStore, RunRecord, RunStatus, SessionTail, Store, StoreError, TurnRecord,
};
use crate::tools::ToolSpec;

/// A memory store that counts the runs and turns its reads of a session give.
#[derive(Default)]
struct Counting {
    inner: MemoryStore,
    runs: Cell<usize>,
    turns: Cell<usize>,
}

impl Store for Counting {
    fn put_run<'a>(&'a self, run: &'a RunRecord) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        self.inner.put_run(run)
    }
    fn put_turn<'a>(&'a self, turn: &'a TurnRecord) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        self.inner.put_turn(turn)
    }
    fn put_failure<'a>(&'a self, failure: &'a FailureRecord) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        self.inner.put_failure(failure)
    }
    fn session_turns<'a>(&'a self, s: &'a str) -> LocalBoxFuture<'a, Result<Vec<TurnRecord>, StoreError>> {
        let turns = self.inner.session_turns(s).now_or_never().expect("the memory store answers at once");
        self.turns.set(self.turns.get() + turns.as_ref().map_or(0, Vec::len));
        futures_util::future::ready(turns).boxed_local()
    }
    fn session_runs<'a>(&'a self, s: &'a str) -> LocalBoxFuture<'a, Result<Vec<RunRecord>, StoreError>> {
        let runs = self.inner.session_runs(s).now_or_never().expect("the memory store answers at once");
        self.runs.set(self.runs.get() + runs.as_ref().map_or(0, Vec::len));
        futures_util::future::ready(runs).boxed_local()
    }
    fn session_tail<'a>(
        &'a self,
        s: &'a str,
        skip: usize,
        limit: usize,
    ) -> LocalBoxFuture<'a, Result<SessionTail, StoreError>> {
        let tail =
            self.inner.session_tail(s, skip, limit).now_or_never().expect("the memory store answers at once");
        if let Ok(tail) = &tail {
            self.runs.set(self.runs.get() + tail.runs.len());
            let turns: usize = tail.runs.iter().map(|r| r.turns.len()).sum();
            self.turns.set(self.turns.get() + turns + tail.orphans.len());
        }
        futures_util::future::ready(tail).boxed_local()
    }
}

fn record(id: &str, started_ms: u64, status: RunStatus, answer: Option<&str>) -> RunRecord {
    RunRecord {
        task: format!("What is {id}?"),
        answer: answer.map(str::to_string),
        ..fixtures::run(id, "s", started_ms, status)
    }
}

fn turn(run_id: &str, step: u32, observation: &str) -> TurnRecord {
    let action = Some(Action { tool: "look".into(), args: json!({"key": format!("{run_id}-{step}")}) });
    TurnRecord {
        run_id: run_id.into(),
        session: "s".into(),
        at_ms: 0,
        turn: Turn {
            step,
            thought: "look".into(),
            action,
            observation: observation.into(),
            outcome: Outcome::Ok,
            reply: None,
        },
        counts: None,
        idempotency_key: None,
    }
}

fn answer(run_id: &str, step: u32) -> TurnRecord {
    TurnRecord {
        turn: Turn::final_answer(step, "done".into(), format!("{run_id} is known")),
        ..turn(run_id, step, "")
    }
}

/// `runs` runs of `steps` calls and an answer each, every fifth cut off (no answer), in `store`,
/// and a run of another session between each.
fn session(store: &dyn Store, runs: u32, steps: u32, observation: &str) {
    let put = |f: LocalBoxFuture<'_, Result<(), StoreError>>| futures_executor::block_on(f).unwrap();
    for r in 0..runs {
        let id = format!("r{r}");
        let cut_off = r % 5 == 4;
        let status = if cut_off { RunStatus::Running } else { RunStatus::Succeeded };
        // Two runs started in the same millisecond now and then.
        put(store.put_run(&record(&id, u64::from(r / 2 * 2 + r % 3 / 2), status, Some("ok"))));
        for step in 1..=steps {
            put(store.put_turn(&turn(&id, step, &format!("{observation} {r}/{step}"))));
        }
        if !cut_off {
            put(store.put_turn(&answer(&id, steps + 1)));
        }
        put(store
            .put_run(&RunRecord { session: "other".into(), ..record(&format!("o{r}"), 0, status, None) }));
    }
}

/// The whole session's memory, read the way runs read it before `recall`.
fn whole(store: &dyn Store, except: Option<&str>) -> Vec<Remembered> {
    let runs = futures_executor::block_on(store.session_runs("s")).unwrap();
    let turns = futures_executor::block_on(store.session_turns("s")).unwrap();
    Remembered::of_session(runs, turns, except)
}

/// Asserts that every prompt a run's memory feeds is the same from what `recall` read as from
/// the whole session, and returns what was recalled's length.
fn same_prompts(store: &dyn Store, except: Option<&str>, budget: usize) -> usize {
    let counter = CharEstimate::default();
    let recalled = futures_executor::block_on(recall(store, "s", except, &counter, budget)).unwrap();
    let all = whole(store, except);
    assert!(all.ends_with(&recalled.memory), "the newest lines of the whole memory");
    let tools = [ToolSpec::new("look", "Looks a key up.", json!({"type": "object"}))];
    let input = |memory| PromptInput {
        tools: &tools,
        task: "And now?",
        memory,
        turns: &[],
        withheld_thoughts: &[],
        final_only: None,
        instructions: None,
        past_steps: Default::default(),
    };
    let from_whole = build_messages(&input(&all), &counter, budget).unwrap();
    let mut seeded = Transcript::new();
    let shown = recalled.lines.shown();
    seeded.seed_memory(recalled.lines);
    assert_eq!(seeded.build(&input(&recalled.memory), &counter, budget).unwrap(), from_whole);
    assert_eq!(build_messages(&input(&recalled.memory), &counter, budget).unwrap(), from_whole);
    assert_eq!(shown, MemoryLines::render(&all, &counter, budget).shown());
    assert_eq!(exchanges(&recalled.memory), exchanges(&all), "the focused requests' questions");
    recalled.memory.len()
}

#[test]
fn a_long_session_is_read_back_only_as_far_as_the_window_shows_and_prompts_are_the_same() {
    let store = Counting::default();
    session(&store, 300, 3, "the value is");
    let read = same_prompts(&store, None, 1_500);
    assert!(read < whole(&store, None).len() / 5, "{read} lines recalled");
    // Counted from the recall alone: `whole` reads through the same counters.
    let store = Counting::default();
    session(&store, 300, 3, "the value is");
    let counter = CharEstimate::default();
    futures_executor::block_on(recall(&store, "s", None, &counter, 1_500)).unwrap();
    assert!(
        store.runs.get() < 60 && store.turns.get() < 240,
        "read {} runs, {} turns",
        store.runs.get(),
        store.turns.get()
    );
}

#[test]
fn a_session_that_fits_is_read_whole_with_the_steps_of_runs_whose_record_is_gone() {
    let store = MemoryStore::new();
    futures_executor::block_on(store.put_turn(&turn("gone", 1, "from a lost run"))).unwrap();
    session(&store, 7, 2, "short");
    let read = same_prompts(&store, None, 8_000);
    assert_eq!(read, whole(&store, None).len());
    let orphan = Remembered::Step(turn("gone", 1, "from a lost run").turn);
    assert_eq!(
        futures_executor::block_on(recall(&store, "s", None, &CharEstimate::default(), 8_000))
            .unwrap()
            .memory[0],
        orphan
    );
}

#[test]
fn a_window_one_run_fills_still_reads_the_last_questions_the_focused_requests_quote() {
    let store = MemoryStore::new();
    session(&store, 10, 1, "small");
    // The newest run alone overflows the window, even summarised.
    let id = "huge";
    futures_executor::block_on(store.put_run(&record(id, 1_000, RunStatus::Succeeded, None))).unwrap();
    for step in 1..=200 {
        futures_executor::block_on(store.put_turn(&turn(id, step, &"x".repeat(300)))).unwrap();
    }
    same_prompts(&store, None, 1_000);
    // Less the run being resumed (the newest), as when it is resumed.
    same_prompts(&store, Some(id), 1_000);
    same_prompts(&store, Some("r7"), 500);
}
