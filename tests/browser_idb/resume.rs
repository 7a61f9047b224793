//! What resume reads: the runs left `running` (`Store::unfinished_runs`) and one run with its
//! committed turns (`Store::load_run`), through the `Store` trait as the worker calls them.

use keel::store::retention::Retention;
use keel::store::{RunRecord, RunStatus, Store};
use serde_json::json;

use super::{ended, fresh, js, run, turn};

fn ids(runs: &[RunRecord]) -> Vec<&str> {
    runs.iter().map(|r| r.id.as_str()).collect()
}

pub async fn unfinished_runs_are_the_running_ones_of_every_session_oldest_first() {
    let name = "keel-test-unfinished";
    let store = fresh(name, Retention::KEEP_ALL).await;
    assert!(store.unfinished_runs().await.unwrap().is_empty(), "a new database has none");
    // Written out of start order, across sessions, among runs that ended every way.
    store.put_run(&run("late", "a", 30)).await.unwrap();
    store.put_run(&run("early", "a", 10)).await.unwrap();
    store.put_run(&run("elsewhere", "b", 20)).await.unwrap();
    store.put_run(&ended("done", "a", 5)).await.unwrap();
    for (id, status) in [("failed", RunStatus::Failed), ("cancelled", RunStatus::Cancelled)] {
        store.put_run(&RunRecord { status, ..ended(id, "a", 15) }).await.unwrap();
    }
    store.put_run(&RunRecord { status: RunStatus::Interrupted, ..ended("given-up", "b", 25) }).await.unwrap();
    let unfinished = store.unfinished_runs().await.unwrap();
    assert_eq!(ids(&unfinished), ["early", "elsewhere", "late"]);
    assert_eq!(unfinished[0], run("early", "a", 10), "a record reads back exactly as written");

    // A run that ends (its record rewritten) leaves the list; one abandoned as interrupted too.
    store.put_run(&ended("early", "a", 10)).await.unwrap();
    let interrupted = RunRecord { status: RunStatus::Interrupted, ..run("late", "a", 30) };
    store.put_run(&interrupted).await.unwrap();
    assert_eq!(ids(&store.unfinished_runs().await.unwrap()), ["elsewhere"]);

    // A running record that does not read back is skipped and counted, not an error.
    let bad = json!({"id": "bad", "session": "a", "status": "running", "startedMs": 1, "counts": 7});
    js::put_raw(name, "runs", js_sys::JSON::parse(&bad.to_string()).unwrap()).await.unwrap();
    let skipped = store.skipped();
    assert_eq!(ids(&store.unfinished_runs().await.unwrap()), ["elsewhere"]);
    assert_eq!(store.skipped(), skipped + 1);
}

pub async fn load_run_returns_the_record_and_its_turns_in_step_order_and_nothing_of_other_runs() {
    let name = "keel-test-load-run";
    let store = fresh(name, Retention::KEEP_ALL).await;
    let mut record = run("r1", "s", 100);
    record.counts.steps = 10;
    store.put_run(&record).await.unwrap();
    // Steps written out of order (10 sorts after 2 as a number, not as text), and runs whose ids
    // start alike: `r10`'s turns must not be read as `r1`'s.
    for step in [2, 10, 1] {
        store.put_turn(&turn("r1", "s", step, 100 + u64::from(step))).await.unwrap();
    }
    store.put_run(&run("r10", "s", 200)).await.unwrap();
    store.put_turn(&turn("r10", "s", 1, 200)).await.unwrap();
    store.put_turn(&turn("r", "s", 1, 50)).await.unwrap();

    let saved = store.load_run("r1").await.unwrap().expect("r1 is stored");
    assert_eq!(saved.run, record);
    let steps: Vec<u32> = saved.turns.iter().map(|t| t.turn.step).collect();
    assert_eq!(steps, [1, 2, 10]);
    assert!(saved.turns.iter().all(|t| t.run_id == "r1"));
    assert_eq!(saved.turns[1], turn("r1", "s", 2, 102), "a turn reads back exactly as written");
    let other = store.load_run("r10").await.unwrap().unwrap();
    assert_eq!((other.run.id.as_str(), other.turns.len()), ("r10", 1));

    // Unknown, or only turns and no record (its run record was never written): nothing to resume.
    assert!(store.load_run("missing").await.unwrap().is_none());
    assert!(store.load_run("r").await.unwrap().is_none());

    // A committed turn that does not read back is skipped and counted; the others still load.
    let bad = json!({"runId": "r1", "session": "s", "seq": 99, "turn": {"step": 5}});
    js::put_raw(name, "turns", js_sys::JSON::parse(&bad.to_string()).unwrap()).await.unwrap();
    let skipped = store.skipped();
    let saved = store.load_run("r1").await.unwrap().unwrap();
    assert_eq!(saved.turns.iter().map(|t| t.turn.step).collect::<Vec<_>>(), [1, 2, 10]);
    assert_eq!(store.skipped(), skipped + 1);
}
