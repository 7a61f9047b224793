//! A run's start in a long session reads the session's newest runs, as far back as its window can
//! show, not the whole session: what it reads does not grow with the session, and what the model
//! is shown is what the whole session gives.

mod support;

use std::cell::Cell;
use std::rc::Rc;

use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;
use keel::engine::{Action, AgentConfig, Outcome, RunOptions, Turn};
use keel::store::{
    FailureRecord, MemoryStore, RunCounts, RunRecord, RunStatus, SessionTail, Store, StoreError, TurnRecord,
};
use serde_json::json;
use support::*;

/// The harness's memory store, counting the run and turn records its reads of a session give.
struct Counting {
    inner: Rc<MemoryStore>,
    runs: Cell<usize>,
    turns: Cell<usize>,
}

fn ready<T>(future: LocalBoxFuture<'_, T>) -> T {
    future.now_or_never().expect("the memory store answers at once")
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
        let turns = ready(self.inner.session_turns(s));
        self.turns.set(self.turns.get() + turns.as_ref().map_or(0, Vec::len));
        futures_util::future::ready(turns).boxed_local()
    }
    fn session_runs<'a>(&'a self, s: &'a str) -> LocalBoxFuture<'a, Result<Vec<RunRecord>, StoreError>> {
        let runs = ready(self.inner.session_runs(s));
        self.runs.set(self.runs.get() + runs.as_ref().map_or(0, Vec::len));
        futures_util::future::ready(runs).boxed_local()
    }
    fn session_tail<'a>(
        &'a self,
        s: &'a str,
        skip: usize,
        limit: usize,
    ) -> LocalBoxFuture<'a, Result<SessionTail, StoreError>> {
        let tail = ready(self.inner.session_tail(s, skip, limit));
        if let Ok(tail) = &tail {
            self.runs.set(self.runs.get() + tail.runs.len());
            let turns: usize = tail.runs.iter().map(|r| r.turns.len()).sum::<usize>() + tail.orphans.len();
            self.turns.set(self.turns.get() + turns);
        }
        futures_util::future::ready(tail).boxed_local()
    }
}

/// `runs` earlier runs of `chat` as running them leaves them: each run's record, a call of
/// `get_weather` and the answer.
fn earlier_runs(store: &MemoryStore, runs: u32) {
    for r in 0..runs {
        let id = format!("old-{r}");
        let run = RunRecord {
            id: id.clone(),
            session: "chat".into(),
            task: format!("What is the weather in city {r}?"),
            status: RunStatus::Succeeded,
            started_ms: 1_600_000_000_000 + u64::from(r),
            ended_ms: None,
            answer: Some(format!("{r}°C")),
            reason: None,
            counts: RunCounts::default(),
            pending_approval: None,
            intent: None,
        };
        ready(store.put_run(&run)).unwrap();
        let call = Turn {
            step: 1,
            thought: "look".into(),
            action: Some(Action { tool: "get_weather".into(), args: json!({"city": format!("city {r}")}) }),
            observation: format!("{r}°C"),
            outcome: Outcome::Ok,
            reply: None,
        };
        let answer = Turn::final_answer(2, String::new(), format!("It is {r}°C."));
        for turn in [call, answer] {
            let record = TurnRecord {
                run_id: id.clone(),
                session: "chat".into(),
                at_ms: 0,
                turn,
                counts: None,
                idempotency_key: None,
            };
            ready(store.put_turn(&record)).unwrap();
        }
    }
}

/// A harness whose store counts its reads, after `earlier` runs of `chat`; and its counter.
fn after(earlier: u32) -> (Harness, Rc<Counting>) {
    let model = ScriptedModel::new([answer("It is 20°C.")]);
    let config = AgentConfig { context_tokens: 2_000, ..classic() };
    let mut h = Harness::new(model, FakeTools::new(), specs(), config);
    earlier_runs(&h.store, earlier);
    let counting = Rc::new(Counting { inner: h.store.clone(), runs: Cell::new(0), turns: Cell::new(0) });
    h.effects.store = counting.clone();
    (h, counting)
}

#[test]
fn a_runs_start_reads_the_newest_runs_its_window_shows_however_long_the_session() {
    let mut read = Vec::new();
    for earlier in [100, 1_000] {
        let (h, counting) = after(earlier);
        let options = RunOptions { session: "chat".into(), run_id: Some("now".into()), ..Default::default() };
        assert!(h.run_with("And today?", options).0.success);
        let prompt = &h.model.requests.borrow()[0].messages[1].content;
        let newest = format!("User asked: What is the weather in city {}?", earlier - 1);
        assert!(prompt.contains(&newest), "{prompt}");
        assert!(!prompt.contains("city 0?"), "a window of 2,000 tokens shows the oldest run: {prompt}");
        read.push((counting.runs.get(), counting.turns.get()));
    }
    // The window shows about 50 of these runs: after 100 runs and after 1,000, a run's start
    // reads about that many, not the session.
    for (earlier, (runs, turns)) in [100, 1_000].into_iter().zip(read) {
        assert!(runs < 70 && turns < 140, "after {earlier} runs, read {runs} runs and {turns} turns");
    }
}
