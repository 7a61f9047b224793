//! Records and the failure log: ordered turns, upserts, queries against a scan, export, clearing and
//! retention.

use keel::errors::ErrorCode;
use keel::store::query::{FailureQuery, Order};
use keel::store::retention::Retention;
use keel::store::{FailureBreakdown, FailureRecord, IdbOptions, Store};
use keel::web::indexeddb::IdbStore;

use super::{ended, failure, fresh, now, run, steps, turn};

pub async fn turns_come_back_in_write_order_and_an_upsert_keeps_its_place() {
    let store = fresh("keel-test-turns", Retention::KEEP_ALL).await;
    // Two runs of session `s`, the second starting in the same millisecond the first ended, and
    // another session in between: only the write order tells them apart.
    for (r, step) in [("r1", 1), ("r1", 2), ("r1", 3), ("r2", 1), ("r2", 2)] {
        store.put_turn(&turn(r, "s", step, 1_000)).await.unwrap();
        store.put_turn(&turn("other", "t", step, 1_000)).await.unwrap();
    }
    let expected = [("r1", 1), ("r1", 2), ("r1", 3), ("r2", 1), ("r2", 2)].map(|(r, s)| (r.to_string(), s));
    assert_eq!(steps(&store.session_turns("s").await.unwrap()), expected);
    // Rewriting a step replaces it in place and does not count as a new turn.
    let mut again = turn("r1", "s", 2, 2_000);
    again.turn.thought = "rewritten".into();
    store.put_turn(&again).await.unwrap();
    let turns = store.session_turns("s").await.unwrap();
    assert_eq!(steps(&turns), expected);
    assert_eq!(turns[1].turn.thought, "rewritten");
    assert_eq!(turns[1], again, "a turn reads back exactly as written");
    assert_eq!(store.session("s").await.unwrap().unwrap().turns, 5);
    assert!(store.session_turns("nobody").await.unwrap().is_empty());
}

pub async fn a_failure_upsert_flips_recovered_without_a_second_record() {
    let store = fresh("keel-test-upsert", Retention::KEEP_ALL).await;
    let mut f = failure("r", "s", 1, Some("fetch"), ErrorCode::Timeout, 10);
    f.recovered = false;
    store.put_failure(&f).await.unwrap();
    f.recovered = true;
    store.put_failure(&f).await.unwrap();
    let found = store.failures(&FailureQuery::run("r")).await.unwrap();
    assert_eq!(found.records, [f]);
    assert_eq!(store.session("s").await.unwrap().unwrap().failures, 1);
}

const TOOLS: [Option<&str>; 4] = [Some("fetch"), Some("click"), Some("search"), None];
const CODES: [ErrorCode; 3] = [ErrorCode::Timeout, ErrorCode::RateLimited, ErrorCode::StaleReference];

/// 240 failures over 3 sessions, 6 runs, 4 tools (one none) and 3 codes, 10 ms apart.
fn generated() -> Vec<FailureRecord> {
    (0..240u32)
        .map(|i| {
            let (session, run) = (format!("s{}", i % 3), format!("r{}", i % 6));
            failure(
                &run,
                &session,
                i,
                TOOLS[i as usize % 4],
                CODES[i as usize % 3].clone(),
                1_000 + 10 * u64::from(i),
            )
        })
        .collect()
}

/// What a query should return, by scanning everything.
fn scan(all: &[FailureRecord], q: &FailureQuery) -> Vec<FailureRecord> {
    let mut hits: Vec<FailureRecord> = all.iter().filter(|r| q.matches(r)).cloned().collect();
    hits.sort_by_key(|r| (r.at_ms, r.id.clone()));
    if q.order == Order::Newest {
        hits.reverse();
    }
    hits.truncate(q.limit.map_or(usize::MAX, |n| n as usize));
    hits
}

pub async fn failure_queries_by_session_run_tool_code_and_time_match_a_scan() {
    let store = fresh("keel-test-queries", Retention::KEEP_ALL).await;
    let all = generated();
    for f in &all {
        store.put_failure(f).await.unwrap();
    }
    let q = |v: serde_json::Value| serde_json::from_value::<FailureQuery>(v).unwrap();
    let queries = [
        q(serde_json::json!({})),
        q(serde_json::json!({"session": "s1"})),
        q(serde_json::json!({"runId": "r4", "order": "oldest"})),
        q(serde_json::json!({"tool": "click", "limit": 7})),
        q(serde_json::json!({"code": "RATE_LIMITED", "since": 1500, "until": 2000})),
        q(serde_json::json!({"since": 1200, "until": 1300})),
        q(serde_json::json!({"session": "s2", "tool": "fetch", "code": "TIMEOUT"})),
        q(serde_json::json!({"session": "s0", "runId": "r1"})),
        q(serde_json::json!({"tool": "nothing"})),
    ];
    for query in &queries {
        let found = store.failures(query).await.unwrap();
        assert_eq!(found.records, scan(&all, query), "{query:?}");
        assert_eq!(found.skipped, 0);
    }
    assert_eq!(store.failures(&queries[1]).await.unwrap().records.len(), 80);
    assert_eq!(
        store.failures(&queries[5]).await.unwrap().records.len(),
        10,
        "since inclusive, until exclusive"
    );
    let session = FailureQuery::session("s1");
    let (stats, skipped) =
        store.failure_stats(&FailureQuery { limit: Some(1), ..session.clone() }).await.unwrap();
    assert_eq!(stats, FailureBreakdown::of(&scan(&all, &session)), "stats ignore the limit");
    assert_eq!((stats.total.faults, skipped), (80, 0));
    assert_eq!(stats.by_tool.len(), 4);
    // Each generated failure is its own call, so the per-code faults add up to the total too.
    assert_eq!(
        stats.by_code.keys().collect::<Vec<_>>(),
        ["RATE_LIMITED"],
        "s1 is every 3rd record, like the codes"
    );
    assert_eq!(stats.by_code.values().map(|s| s.faults).sum::<u32>(), 80);
}

pub async fn a_run_and_a_session_export_whole() {
    let store = fresh("keel-test-export", Retention::KEEP_ALL).await;
    for (r, started) in [("a", 100), ("b", 200)] {
        store.put_run(&run(r, "s", started)).await.unwrap();
        for step in 1..=3 {
            store.put_turn(&turn(r, "s", step, started + u64::from(step))).await.unwrap();
        }
        store.put_failure(&failure(r, "s", 1, Some("fetch"), ErrorCode::Timeout, started + 1)).await.unwrap();
    }
    store.put_run(&run("c", "elsewhere", 150)).await.unwrap();
    let one = store.export_run("b").await.unwrap();
    assert_eq!((one.session.as_ref(), one.runs.len(), one.skipped), (None, 1, 0));
    assert_eq!(steps(&one.turns), [1, 2, 3].map(|s| ("b".to_string(), s)));
    assert_eq!(one.failures.len(), 1);
    let whole = store.export_session("s").await.unwrap();
    assert_eq!(whole.session.as_ref().map(|s| (s.runs, s.turns, s.failures)), Some((2, 6, 2)));
    assert_eq!(whole.runs.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(whole.turns.len(), 6);
    let json = serde_json::to_value(&whole).unwrap();
    assert_eq!(json["turns"][3]["turn"]["step"], 1, "camelCase JSON, turns in order");
    assert_eq!(json["runs"][0]["startedMs"], 100);
    assert!(store.export_run("missing").await.unwrap().runs.is_empty());
}

pub async fn clearing_a_session_leaves_the_others() {
    let store = fresh("keel-test-clear", Retention::KEEP_ALL).await;
    for session in ["gone", "kept"] {
        let r = format!("{session}-run");
        store.put_run(&run(&r, session, 1)).await.unwrap();
        store.put_turn(&turn(&r, session, 1, 2)).await.unwrap();
        store.put_failure(&failure(&r, session, 1, None, ErrorCode::InvalidOutput, 3)).await.unwrap();
    }
    let pruned = store.clear_session("gone").await.unwrap();
    assert_eq!((pruned.runs, pruned.turns, pruned.failures), (1, 1, 1));
    let gone = store.export_session("gone").await.unwrap();
    assert!(
        gone.session.is_none() && gone.runs.is_empty() && gone.turns.is_empty() && gone.failures.is_empty()
    );
    let kept = store.export_session("kept").await.unwrap();
    assert_eq!((kept.runs.len(), kept.turns.len(), kept.failures.len()), (1, 1, 1));
}

pub async fn a_sessions_runs_and_history_come_in_start_order_and_clearing_forgets_them() {
    let store = fresh("keel-test-history", Retention::KEEP_ALL).await;
    // Written out of order: the later run first, and a run of another session between them.
    store.put_run(&ended("second", "chat", 20)).await.unwrap();
    store.put_run(&ended("elsewhere", "other", 15)).await.unwrap();
    let mut first = ended("first", "chat", 10);
    first.answer = Some("the first answer".into());
    store.put_run(&first).await.unwrap();
    for (r, step) in [("first", 1), ("first", 2), ("second", 1)] {
        store.put_turn(&turn(r, "chat", step, 30)).await.unwrap();
    }
    let runs = store.session_runs("chat").await.unwrap();
    assert_eq!(runs.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["first", "second"]);
    let history = store.history("chat").await.unwrap();
    let rows: Vec<_> =
        history.iter().map(|e| (e.run_id.as_str(), e.task.as_str(), e.answer.as_deref(), e.steps)).collect();
    assert_eq!(
        rows,
        [("first", "task of first", Some("the first answer"), 2), ("second", "task of second", None, 1)]
    );
    store.clear_session("chat").await.unwrap();
    assert!(store.history("chat").await.unwrap().is_empty());
    assert!(store.session_runs("chat").await.unwrap().is_empty());
    assert_eq!(store.history("other").await.unwrap().len(), 1);
}

pub async fn retention_drops_runs_over_the_count_and_past_the_age_with_their_records() {
    let day = 24 * 60 * 60 * 1000;
    let now = now();
    let retention = Retention { max_runs: Some(3), max_age_ms: Some(10 * day), every_writes: 0 };
    let store = fresh("keel-test-retention", retention).await;
    // Ancient (past the age limit), then five recent runs: the two oldest recent ones are over the count.
    let starts = [
        ("ancient", now - 20 * day),
        ("r1", now - 5),
        ("r2", now - 4),
        ("r3", now - 3),
        ("r4", now - 2),
        ("r5", now - 1),
    ];
    for (id, started) in starts {
        store.put_run(&ended(id, "s", started)).await.unwrap();
        store.put_turn(&turn(id, "s", 1, started)).await.unwrap();
        store.put_failure(&failure(id, "s", 1, Some("fetch"), ErrorCode::Timeout, started)).await.unwrap();
    }
    // An orphan failure (its run never saved) past the age limit goes too.
    store.put_failure(&failure("lost", "s", 9, None, ErrorCode::Timeout, now - 30 * day)).await.unwrap();
    // A run still `running` stays, however old: it is live, or waiting for resume or abandon.
    store.put_run(&run("unfinished", "s", now - 40 * day)).await.unwrap();
    store.put_turn(&turn("unfinished", "s", 1, now - 40 * day)).await.unwrap();
    let pruned = store.apply_retention().await.unwrap();
    assert_eq!((pruned.runs, pruned.turns, pruned.failures), (3, 3, 4));
    let left = store.export_session("s").await.unwrap();
    let ids = left.runs.iter().map(|r| r.id.as_str()).collect::<Vec<_>>();
    assert_eq!(ids, ["unfinished", "r3", "r4", "r5"]);
    assert_eq!(left.turns.len(), 4);
    assert!(left.failures.iter().all(|f| ["r3", "r4", "r5"].contains(&f.run_id.as_str())));
    assert_eq!(store.apply_retention().await.unwrap().runs, 0, "nothing more to drop");

    // Every N writes, without being asked.
    let every = Retention { max_runs: Some(2), max_age_ms: None, every_writes: 4 };
    let store = fresh("keel-test-retention-every", every).await;
    for i in 0..4 {
        store.put_run(&ended(&format!("e{i}"), "s", 100 + i)).await.unwrap();
    }
    let left = store.export_session("s").await.unwrap();
    assert_eq!(left.runs.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["e2", "e3"]);
}

/// A run's steps are written from what the store knows of the session (no reads), and still come
/// back in order, once each, with the session's counts right: a step rewritten after the run's
/// record was written again keeps its place; another store (another worker) writing the session
/// once the run ended, and a cleared session, are read afresh.
pub async fn steps_written_without_reads_keep_their_order_and_counts() {
    let name = "keel-test-known";
    let a = fresh(name, Retention::KEEP_ALL).await;
    a.put_run(&run("r1", "s", 1_000)).await.unwrap();
    for step in 1..=2 {
        a.put_turn(&turn("r1", "s", step, 1_000)).await.unwrap();
    }
    a.put_failure(&failure("r1", "s", 1, Some("fetch"), ErrorCode::Timeout, 1_000)).await.unwrap();
    a.put_run(&run("r1", "s", 1_000)).await.unwrap();
    let mut again = turn("r1", "s", 1, 1_001);
    again.turn.thought = "rewritten".into();
    a.put_turn(&again).await.unwrap();
    a.put_run(&ended("r1", "s", 1_000)).await.unwrap();
    let b = IdbStore::new(IdbOptions {
        name: name.into(),
        retention: Retention::KEEP_ALL,
        blocked_timeout_ms: 2_000,
    });
    b.put_run(&run("r2", "s", 2_000)).await.unwrap();
    b.put_turn(&turn("r2", "s", 1, 2_000)).await.unwrap();
    a.put_turn(&turn("r1", "s", 3, 3_000)).await.unwrap();
    let turns = a.session_turns("s").await.unwrap();
    let order = [("r1", 1), ("r1", 2), ("r2", 1), ("r1", 3)].map(|(r, s)| (r.to_string(), s));
    assert_eq!(steps(&turns), order);
    assert_eq!(turns[0], again);
    let session = b.session("s").await.unwrap().unwrap();
    assert_eq!((session.runs, session.turns, session.failures), (2, 4, 1));
    a.clear_session("s").await.unwrap();
    a.put_turn(&turn("r3", "s", 1, 4_000)).await.unwrap();
    assert_eq!(steps(&a.session_turns("s").await.unwrap()), [("r3".to_string(), 1)]);
    assert_eq!(a.session("s").await.unwrap().unwrap().turns, 1);
}

/// A run cut off before its last write (its worker gone) stored steps its session's record does
/// not count yet, since a step writes its turn alone: whoever reads the session next counts them
/// from the newest turn, and the session's next run numbers its turns after them.
pub async fn a_run_cut_off_before_its_end_is_counted_from_its_turns() {
    let name = "keel-test-cut-off";
    let cut = fresh(name, Retention::KEEP_ALL).await;
    cut.put_run(&run("r1", "s", 1_000)).await.unwrap();
    for step in 1..=3 {
        cut.put_turn(&turn("r1", "s", step, 1_000 + u64::from(step))).await.unwrap();
    }
    drop(cut);
    let next = IdbStore::new(IdbOptions {
        name: name.into(),
        retention: Retention::KEEP_ALL,
        blocked_timeout_ms: 2_000,
    });
    let counted = next.session("s").await.unwrap().unwrap();
    assert_eq!((counted.runs, counted.turns), (1, 3));
    next.put_run(&run("r2", "s", 2_000)).await.unwrap();
    next.put_turn(&turn("r2", "s", 1, 2_000)).await.unwrap();
    next.put_run(&ended("r2", "s", 2_000)).await.unwrap();
    let order = [("r1", 1), ("r1", 2), ("r1", 3), ("r2", 1)].map(|(r, s)| (r.to_string(), s));
    assert_eq!(steps(&next.session_turns("s").await.unwrap()), order);
    let exported = next.export_session("s").await.unwrap().session.unwrap();
    assert_eq!((exported.runs, exported.turns, exported.failures), (2, 4, 0));
}

pub async fn a_sessions_tail_pages_back_from_its_newest_run_as_its_whole_read_orders_them() {
    let store = fresh("keel-test-tail", Retention::KEEP_ALL).await;
    // Five runs of `chat`, two of them started together (`c` and `d`: the id breaks the tie),
    // written out of order among another session's; a turn whose run record is gone.
    for (id, started) in [("e", 50), ("a", 10), ("d", 30), ("b", 20), ("c", 30)] {
        store.put_run(&ended(id, "chat", started)).await.unwrap();
        store.put_run(&ended(&format!("other-{id}"), "other", started)).await.unwrap();
    }
    for (r, step) in [("a", 1), ("gone", 1), ("c", 2), ("c", 1), ("e", 1), ("other-a", 1)] {
        let session = if r.starts_with("other") { "other" } else { "chat" };
        store.put_turn(&turn(r, session, step, 60)).await.unwrap();
    }
    let runs = store.session_runs("chat").await.unwrap();
    let turns = store.session_turns("chat").await.unwrap();
    for (skip, limit) in [(0, 2), (2, 2), (4, 2), (0, 9), (1, 3), (7, 1)] {
        let page = store.session_tail("chat", skip, limit).await.unwrap();
        let whole = keel::store::SessionTail::of_session(runs.clone(), turns.clone(), skip, Some(limit));
        assert_eq!(page, whole, "skip {skip}, limit {limit}");
    }
    let first = store.session_tail("chat", 0, 2).await.unwrap();
    let ids: Vec<&str> = first.runs.iter().map(|s| s.run.id.as_str()).collect();
    assert_eq!(ids, ["e", "d"], "newest first, the later id first of two started together");
    assert!(first.more && first.orphans.is_empty());
    let last = store.session_tail("chat", 4, 2).await.unwrap();
    assert_eq!(last.runs.len(), 1);
    assert!(!last.more);
    assert_eq!(steps(&last.orphans), [("gone".to_string(), 1)], "the session's start has the turn of no run");
    let c = store.session_tail("chat", 2, 1).await.unwrap();
    assert_eq!(steps(&c.runs[0].turns), [("c".to_string(), 1), ("c".to_string(), 2)], "in step order");
}
