//! The database's life: upgrade from the v1 fixture, `versionchange`, a blocked upgrade, a full
//! storage, durability hints, and records that do not read back.

use keel::errors::ErrorCode;
use keel::store::layout::{Migration, Step, MIGRATIONS, RUNS};
use keel::store::query::FailureQuery;
use keel::store::retention::Retention;
use keel::store::{IdbOptions, RunStatus, StepWrite, Store, StoreError};
use keel::web::indexeddb::{delete_database, IdbStore};
use serde_json::{json, Value};
use wasm_bindgen::{JsCast, JsValue};

use super::{ended, failure, fresh, js, now, run, steps, turn};

/// A test-only version 2 (no version 2 was ever released): version 1, then a new index.
static V2: [Migration; 2] = [
    MIGRATIONS[0],
    Migration { version: 2, steps: &[Step::CreateIndex { store: RUNS, index: "task", key: &["task"] }] },
];

fn options(name: &str, blocked_timeout_ms: u64) -> IdbOptions {
    IdbOptions { name: name.into(), retention: Retention::KEEP_ALL, blocked_timeout_ms }
}

fn json_of(value: &JsValue) -> Value {
    serde_json::from_str(&js_sys::JSON::stringify(value).unwrap().as_string().unwrap()).unwrap()
}

pub async fn the_v1_fixture_upgrades_to_a_later_version_and_an_older_build_is_refused() {
    let name = "keel-test-upgrade";
    delete_database(name, 2_000).await.unwrap();
    js::fixture_v1(name).await.unwrap();
    let store = IdbStore::with_migrations(options(name, 2_000), &V2);
    // What version 1 wrote reads back through the upgraded database, and writing goes on from it.
    let before = store.export_session("s").await.unwrap();
    assert_eq!((before.runs.len(), before.turns.len(), before.skipped), (1, 1, 0));
    assert_eq!(before.runs[0].status, RunStatus::Succeeded);
    store.put_turn(&turn("r", "s", 2, 3)).await.unwrap();
    assert_eq!(steps(&store.session_turns("s").await.unwrap()), [("r".to_string(), 1), ("r".to_string(), 2)]);
    store.close();
    let layout = json_of(&js::layout_of(name).await.unwrap());
    assert_eq!(layout["version"], 2);
    assert!(layout["stores"]["runs"].as_array().unwrap().contains(&json!("task")), "{layout}");
    assert_eq!(layout["stores"]["failures"].as_array().unwrap().len(), 5, "version 1's indexes kept");
    // A build that only knows version 1 is refused clearly, not half-working.
    let older = IdbStore::new(options(name, 2_000));
    let error = older.put_run(&run("x", "s", 9)).await.unwrap_err();
    assert!(matches!(&error, StoreError::Unavailable(m) if m.contains("VersionError")), "{error}");
}

pub async fn versionchange_closes_the_connection_and_the_next_write_reopens_it() {
    let name = "keel-test-versionchange";
    let store = fresh(name, Retention::KEEP_ALL).await;
    store.put_run(&run("before", "s", 1)).await.unwrap();
    assert!(store.is_open());
    // Another tab deletes the database: it is not blocked, because this connection closed.
    assert_eq!(js::delete_or_blocked(name).await.unwrap(), "deleted");
    assert!(!store.is_open());
    store.put_run(&run("after", "s", 2)).await.unwrap();
    assert!(store.is_open());
    let runs = store.export_session("s").await.unwrap().runs;
    assert_eq!(runs.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["after"]);
}

pub async fn a_blocked_upgrade_is_reported_within_the_timeout() {
    let name = "keel-test-blocked";
    fresh(name, Retention::KEEP_ALL).await.open().await.unwrap();
    let old_tab: web_sys::IdbDatabase = js::hold_open(name).await.unwrap().unchecked_into();
    let newer = IdbStore::with_migrations(options(name, 300), &V2);
    let start = now();
    let error = newer.open().await.unwrap_err();
    assert!(now() - start < 2_000, "waited {} ms", now() - start);
    assert!(matches!(&error, StoreError::Unavailable(m) if m.contains("blocked by another tab")), "{error}");
    assert!(!newer.is_open());
    // Once the old tab lets go, the abandoned upgrade is aborted and its connection closed: nothing
    // is left holding the database.
    old_tab.close();
    assert_eq!(js::delete_or_blocked(name).await.unwrap(), "deleted");
}

pub async fn a_full_storage_is_pruned_harder_each_round_until_the_write_fits() {
    let name = "keel-test-quota";
    let store = fresh(name, Retention::KEEP_ALL).await;
    // The oldest run is still `running` (live in another tab, or cut off and waiting for resume);
    // twelve ended runs; the newest, r12, is the one being written.
    store.put_run(&run("live", "s", 10)).await.unwrap();
    store.put_turn(&turn("live", "s", 1, 10)).await.unwrap();
    for i in 0..13u64 {
        let id = format!("r{i}");
        let record = if i < 12 { ended(&id, "s", 100 + i) } else { run(&id, "s", 100 + i) };
        store.put_run(&record).await.unwrap();
        store.put_turn(&turn(&id, "s", 1, 100 + i)).await.unwrap();
    }
    let ids = |runs: &[keel::store::RunRecord]| runs.iter().map(|r| r.id.clone()).collect::<Vec<_>>();

    // One failed put: a tenth of the 12 ended runs (2) goes, and the second try fits.
    js::quota_times(name, "turns", 1);
    let error = store.put_turn(&turn("r12", "s", 2, 200)).await.unwrap_err();
    assert!(matches!(&error, StoreError::Pruned(m) if m.contains("2 runs (2 turns")), "{error}");
    let left = store.export_session("s").await.unwrap();
    assert_eq!(ids(&left.runs)[..3], ["live", "r2", "r3"]);
    assert!(steps(&left.turns).contains(&("r12".to_string(), 2)), "saved on the second try");

    // Three failed puts: rounds of 1 (a tenth of 10), 2 (a fifth of 9) and 3 (two fifths of 7).
    js::quota_times(name, "turns", 3);
    let error = store.put_turn(&turn("r12", "s", 3, 300)).await.unwrap_err();
    assert!(matches!(&error, StoreError::Pruned(m) if m.contains("6 runs (6 turns")), "{error}");
    let left = store.export_session("s").await.unwrap();
    assert_eq!(ids(&left.runs), ["live", "r8", "r9", "r10", "r11", "r12"]);
    assert!(steps(&left.turns).contains(&("r12".to_string(), 3)));

    // A storage that stays full (the first put and the three after rounds of one run each): every
    // ended run but the newest goes, never the running ones, and the write is reported as not saved.
    js::quota_times(name, "turns", 4);
    let error = store.put_turn(&turn("r12", "s", 4, 400)).await.unwrap_err();
    assert!(matches!(&error, StoreError::QuotaExceeded(m) if m.contains("still does not fit")), "{error}");
    let left = store.export_session("s").await.unwrap();
    assert_eq!(ids(&left.runs), ["live", "r11", "r12"]);
    assert!(steps(&left.turns).contains(&("live".to_string(), 1)), "a running run keeps its steps");

    // With nothing older to drop, the write fails as full, once, and the store keeps working.
    let lone = fresh("keel-test-quota-lone", Retention::KEEP_ALL).await;
    lone.put_run(&run("only", "s", 1)).await.unwrap();
    js::quota_times("keel-test-quota-lone", "turns", 1);
    let error = lone.put_turn(&turn("only", "s", 1, 2)).await.unwrap_err();
    assert!(matches!(&error, StoreError::QuotaExceeded(m) if m.contains("no older history")), "{error}");
    lone.put_turn(&turn("only", "s", 1, 2)).await.unwrap();
}

/// Each write is one transaction, `strict` or `relaxed` per record; once the run's first write
/// has read the session, a step is its turn alone (one put), and so is a call's intent (the run's
/// record written again); a new failure and the run's end carry the session's record.
pub async fn writes_use_strict_or_relaxed_durability_per_record() {
    let name = "keel-test-durability";
    let store = fresh(name, Retention::KEEP_ALL).await;
    store.open().await.unwrap();
    let watch = js::watch_durability(name);
    let mut r = run("r", "s", 1);
    store.put_run(&r).await.unwrap();
    store.put_turn(&turn("r", "s", 1, 2)).await.unwrap();
    store.put_run(&r).await.unwrap();
    store.put_turn(&turn("r", "s", 2, 2)).await.unwrap();
    store.put_failure(&failure("r", "s", 2, None, ErrorCode::Timeout, 3)).await.unwrap();
    r.status = RunStatus::Failed;
    store.put_run(&r).await.unwrap();
    let log = stopped(&watch);
    assert_eq!(
        log,
        json!([
            "runs,sessions,turns:relaxed put runs,sessions",
            "turns:strict put turns",
            "runs:relaxed put runs",
            "turns:strict put turns",
            "failures,sessions:relaxed put failures,sessions",
            "runs,sessions:strict put runs,sessions"
        ])
    );
    let counted = store.session("s").await.unwrap().unwrap();
    assert_eq!((counted.runs, counted.turns, counted.failures), (1, 2, 1));
}

/// A step's turn and failures are one `strict` transaction: read first when the store knows
/// nothing of the session yet, a rewritten failure not counted again, the session's record put
/// only with a new failure.
pub async fn a_steps_turn_and_failures_are_one_transaction() {
    let name = "keel-test-step-write";
    let store = fresh(name, Retention::KEEP_ALL).await;
    store.open().await.unwrap();
    let watch = js::watch_durability(name);
    let mut first = failure("r", "s", 1, Some("fetch"), ErrorCode::Timeout, 3);
    let step1 = StepWrite { turns: vec![turn("r", "s", 1, 2)], failures: vec![first.clone()], run: None };
    store.put_step(&step1).await.unwrap();
    first.recovered = true;
    let second = failure("r", "s", 2, Some("fetch"), ErrorCode::NotFound, 4);
    let step2 = StepWrite {
        turns: vec![turn("r", "s", 2, 4)],
        failures: vec![first.clone(), second.clone()],
        run: None,
    };
    store.put_step(&step2).await.unwrap();
    let step3 = StepWrite { turns: vec![turn("r", "s", 3, 5)], failures: vec![first.clone()], run: None };
    store.put_step(&step3).await.unwrap();
    store.put_step(&StepWrite { turns: vec![turn("r", "s", 4, 6)], ..StepWrite::default() }).await.unwrap();
    let log = stopped(&watch);
    assert_eq!(
        log,
        json!([
            "failures,sessions,turns:strict put turns,failures,sessions",
            "failures,sessions,turns:strict put turns,failures,failures,sessions",
            "failures,turns:strict put turns,failures",
            "turns:strict put turns"
        ])
    );
    let counted = store.session("s").await.unwrap().unwrap();
    assert_eq!((counted.turns, counted.failures), (4, 2), "a rewritten failure is not counted again");
    assert_eq!(steps(&store.session_turns("s").await.unwrap()).len(), 4);
    let failures = store.failures(&FailureQuery::run("r")).await.unwrap().records;
    assert_eq!(failures, [second, first], "newest first");
    let mixed = StepWrite { turns: vec![turn("r", "s", 5, 7), turn("q", "t", 1, 7)], ..StepWrite::default() };
    let refused = store.put_step(&mixed).await.unwrap_err();
    assert_eq!(
        refused,
        StoreError::Failed("a step's records belong to one session, not to `s` and `t`".into())
    );
}

/// The answering step's turn and the run's end are one `strict` transaction, which carries the
/// session's record: the run counted once, its end stored, and a second run of the session read
/// afresh.
pub async fn the_answering_step_and_the_runs_end_are_one_transaction() {
    let name = "keel-test-run-end";
    let store = fresh(name, Retention::KEEP_ALL).await;
    store.open().await.unwrap();
    let watch = js::watch_durability(name);
    store.put_run(&run("r", "s", 1)).await.unwrap();
    store.put_step(&StepWrite { turns: vec![turn("r", "s", 1, 2)], ..StepWrite::default() }).await.unwrap();
    let last =
        StepWrite { turns: vec![turn("r", "s", 2, 3)], failures: Vec::new(), run: Some(ended("r", "s", 1)) };
    store.put_step(&last).await.unwrap();
    store.put_run(&run("q", "s", 5)).await.unwrap();
    let log = stopped(&watch);
    assert_eq!(
        log,
        json!([
            "runs,sessions,turns:relaxed put runs,sessions",
            "turns:strict put turns",
            "runs,sessions,turns:strict put turns,runs,sessions",
            "runs,sessions,turns:relaxed put runs,sessions"
        ])
    );
    let counted = store.session("s").await.unwrap().unwrap();
    assert_eq!((counted.runs, counted.turns), (2, 2), "each run and turn counted once");
    let stored = store.session_runs("s").await.unwrap();
    let statuses: Vec<_> = stored.iter().map(|r| (r.id.as_str(), r.status)).collect();
    assert_eq!(statuses, [("r", RunStatus::Succeeded), ("q", RunStatus::Running)]);
    assert_eq!(steps(&store.session_turns("s").await.unwrap()).len(), 2);
}

pub async fn a_corrupt_record_is_skipped_and_counted() {
    let name = "keel-test-corrupt";
    let store = fresh(name, Retention::KEEP_ALL).await;
    store.put_failure(&failure("r", "s", 1, Some("fetch"), ErrorCode::Timeout, 5)).await.unwrap();
    store.put_turn(&turn("r", "s", 1, 5)).await.unwrap();
    let bad_failure =
        json!({"id": "bad", "runId": "r", "session": "s", "atMs": 7, "code": 42, "tool": "fetch"});
    js::put_raw(name, "failures", js_sys::JSON::parse(&bad_failure.to_string()).unwrap()).await.unwrap();
    let bad_turn = json!({"runId": "r", "session": "s", "seq": 9, "turn": {"step": 2}});
    js::put_raw(name, "turns", js_sys::JSON::parse(&bad_turn.to_string()).unwrap()).await.unwrap();
    let found = store.failures(&FailureQuery::session("s")).await.unwrap();
    assert_eq!((found.records.len(), found.skipped), (1, 1));
    assert_eq!(steps(&store.session_turns("s").await.unwrap()), [("r".to_string(), 1)]);
    assert_eq!(store.skipped(), 2);
    assert_eq!(store.export_session("s").await.unwrap().skipped, 2);
}

/// Stops a `watch_durability` watch and returns its log: each transaction's stores, durability and
/// requests, in order.
fn stopped(watch: &JsValue) -> Value {
    let stop: js_sys::Function = js_sys::Reflect::get(watch, &"stop".into()).unwrap().unchecked_into();
    stop.call0(&JsValue::NULL).unwrap();
    json_of(&js_sys::Reflect::get(watch, &"log".into()).unwrap())
}
