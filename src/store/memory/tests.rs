//! The memory store's indexes answer as scans of everything it holds would.

use futures_util::FutureExt;

use super::MemoryStore;
use crate::order::sort_by_key;
use crate::store::{fixtures, RunRecord, RunStatus, SavedRun, SessionTail, Store, TurnRecord};

fn ready<T>(future: futures_util::future::LocalBoxFuture<'_, T>) -> T {
    future.now_or_never().expect("the memory store answers at once")
}

fn run(id: u32, session: u32, started_ms: u64, status: RunStatus) -> RunRecord {
    RunRecord {
        task: format!("task {id}"),
        ..fixtures::run(&format!("r{id}"), &format!("s{session}"), started_ms, status)
    }
}

fn turn(run: u32, session: u32, step: u32, n: u32) -> TurnRecord {
    fixtures::turn(&format!("r{run}"), &format!("s{session}"), step, u64::from(n), format!("write {n}"))
}

/// What a scan of everything held gives for `session`: its runs by start (first written first
/// among equals), its turns in write order.
fn scanned(store: &MemoryStore, session: &str) -> (Vec<RunRecord>, Vec<TurnRecord>) {
    let mut runs: Vec<RunRecord> = store.runs().into_iter().filter(|r| r.session == session).collect();
    sort_by_key(&mut runs, |r| r.started_ms);
    (runs, store.turns().into_iter().filter(|t| t.session == session).collect())
}

#[test]
fn a_sessions_runs_turns_and_pages_are_a_scans_through_rewrites_moves_and_clearing() {
    let store = MemoryStore::new();
    // A made-up history: runs of three sessions with starts that tie and go back in time, turns
    // written out of step order, records written again with a new start, status or session.
    let mut n = 0;
    for i in 0..60u32 {
        let status = if i % 4 == 0 { RunStatus::Running } else { RunStatus::Succeeded };
        ready(store.put_run(&run(i, i % 3, u64::from((i * 7) % 23), status))).unwrap();
        for step in [2, 1, 3].into_iter().take((i % 4) as usize) {
            n += 1;
            ready(store.put_turn(&turn(i, i % 3, step, n))).unwrap();
        }
        if i % 5 == 0 && i > 0 {
            let again = i - 1;
            ready(store.put_run(&run(again, (again + 1) % 3, u64::from(i), RunStatus::Succeeded))).unwrap();
            n += 1;
            ready(store.put_turn(&turn(again / 2, 2, 1, n))).unwrap();
            ready(store.put_turn(&turn(900 + i, i % 3, 1, n))).unwrap();
        }
        if i == 40 {
            store.clear_session("s1");
        }
    }
    for session in ["s0", "s1", "s2"] {
        let (runs, turns) = scanned(&store, session);
        assert_eq!(ready(store.session_runs(session)).unwrap(), runs, "{session}");
        assert_eq!(ready(store.session_turns(session)).unwrap(), turns, "{session}");
        for (skip, limit) in [(0, 1), (0, 8), (3, 5), (10, 100), (200, 3)] {
            let page = ready(store.session_tail(session, skip, limit)).unwrap();
            let scan = SessionTail::of_session(runs.clone(), turns.clone(), skip, Some(limit));
            let ids =
                |tail: &SessionTail| -> Vec<String> { tail.runs.iter().map(|s| s.run.id.clone()).collect() };
            assert_eq!(ids(&page), ids(&scan), "{session} {skip} {limit}");
            // A page's turns are its runs' own, whatever session a turn names.
            for saved in &page.runs {
                let mut own: Vec<TurnRecord> =
                    store.turns().into_iter().filter(|t| t.run_id == saved.run.id).collect();
                sort_by_key(&mut own, |t| t.turn.step);
                assert_eq!(saved.turns, own);
            }
            assert_eq!((page.more, &page.orphans), (scan.more, &scan.orphans), "{session} {skip} {limit}");
        }
    }
    let mut running: Vec<RunRecord> =
        store.runs().into_iter().filter(|r| r.status == RunStatus::Running).collect();
    sort_by_key(&mut running, |r| r.started_ms);
    let unfinished = ready(store.unfinished_runs()).unwrap();
    assert_eq!(
        unfinished.iter().map(|r| &r.id).collect::<Vec<_>>(),
        running.iter().map(|r| &r.id).collect::<Vec<_>>()
    );
    let steps =
        |id: &str| store.turns().iter().filter(|t| t.run_id == id).map(|t| t.turn.step).max().unwrap_or(0);
    assert!(unfinished.iter().all(|r| r.counts.steps == steps(&r.id)));
    let SavedRun { run, turns } = ready(store.load_run("r14")).unwrap().expect("r14 is held");
    assert_eq!((run.id.as_str(), run.session.as_str()), ("r14", "s0"), "moved to s0 by its rewrite");
    assert_eq!(turns.iter().map(|t| t.turn.step).collect::<Vec<_>>(), [1, 2]);
}
