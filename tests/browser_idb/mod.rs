//! IndexedDB store tests, shared by `web_window.rs` and `web_worker.rs` (the worker is where the
//! store runs). Each test opens its own database, deleted first. `redact` drives a whole run
//! through the worker host (`browser::web_host`).
#![allow(dead_code)]

mod js;
mod lifecycle;
mod log;
mod redact;
mod resume;

pub use lifecycle::*;
pub use log::*;
pub use redact::*;
pub use resume::*;

/// The wrappers `wasm_bindgen_test` needs in each file: one per shared test, named alike.
macro_rules! idb_browser_tests {
    () => {
        idb_browser_tests!(
            turns_come_back_in_write_order_and_an_upsert_keeps_its_place,
            a_failure_upsert_flips_recovered_without_a_second_record,
            steps_written_without_reads_keep_their_order_and_counts,
            a_run_cut_off_before_its_end_is_counted_from_its_turns,
            failure_queries_by_session_run_tool_code_and_time_match_a_scan,
            a_run_and_a_session_export_whole,
            clearing_a_session_leaves_the_others,
            a_sessions_runs_and_history_come_in_start_order_and_clearing_forgets_them,
            a_sessions_tail_pages_back_from_its_newest_run_as_its_whole_read_orders_them,
            retention_drops_runs_over_the_count_and_past_the_age_with_their_records,
            the_v1_fixture_upgrades_to_a_later_version_and_an_older_build_is_refused,
            versionchange_closes_the_connection_and_the_next_write_reopens_it,
            a_blocked_upgrade_is_reported_within_the_timeout,
            a_full_storage_is_pruned_harder_each_round_until_the_write_fits,
            writes_use_strict_or_relaxed_durability_per_record,
            a_steps_turn_and_failures_are_one_transaction,
            the_answering_step_and_the_runs_end_are_one_transaction,
            a_corrupt_record_is_skipped_and_counted,
            a_redacted_run_leaves_no_secret_in_indexeddb,
            unfinished_runs_are_the_running_ones_of_every_session_oldest_first,
            load_run_returns_the_record_and_its_turns_in_step_order_and_nothing_of_other_runs,
        );
    };
    ($($name:ident),* $(,)?) => {
        $(
            #[wasm_bindgen_test::wasm_bindgen_test]
            async fn $name() {
                browser_idb::$name().await;
            }
        )*
    };
}

use keel::engine::{Action, Outcome, Turn};
use keel::errors::{ErrorCode, FailureClass};
use keel::store::retention::Retention;
use keel::store::{FailureRecord, IdbOptions, RunCounts, RunRecord, RunStatus, TurnRecord};
use keel::web::indexeddb::{delete_database, IdbStore};
use serde_json::json;

/// A store on a fresh database `name` (deleted first), keeping everything unless told otherwise.
pub async fn fresh(name: &str, retention: Retention) -> IdbStore {
    delete_database(name, 2_000).await.expect("delete the test database");
    IdbStore::new(IdbOptions { name: name.into(), retention, blocked_timeout_ms: 2_000 })
}

pub fn run(id: &str, session: &str, started_ms: u64) -> RunRecord {
    RunRecord {
        id: id.into(),
        session: session.into(),
        task: format!("task of {id}"),
        status: RunStatus::Running,
        started_ms,
        ended_ms: None,
        answer: None,
        reason: None,
        counts: RunCounts::default(),
        pending_approval: None,
        intent: None,
    }
}

/// A run that has ended (retention may drop it; it never drops a `running` one).
pub fn ended(id: &str, session: &str, started_ms: u64) -> RunRecord {
    RunRecord { status: RunStatus::Succeeded, ended_ms: Some(started_ms + 1), ..run(id, session, started_ms) }
}

pub fn turn(run_id: &str, session: &str, step: u32, at_ms: u64) -> TurnRecord {
    TurnRecord {
        run_id: run_id.into(),
        session: session.into(),
        at_ms,
        turn: Turn {
            step,
            thought: format!("{run_id} thinks at {step}"),
            action: Some(Action { tool: "fetch".into(), args: json!({"step": step}) }),
            observation: "ok".into(),
            outcome: Outcome::Ok,
            reply: None,
        },
        counts: None,
        idempotency_key: None,
    }
}

pub fn failure(
    run_id: &str,
    session: &str,
    n: u32,
    tool: Option<&str>,
    code: ErrorCode,
    at_ms: u64,
) -> FailureRecord {
    FailureRecord {
        id: format!("{run_id}:{n}"),
        run_id: run_id.into(),
        session: session.into(),
        step: n,
        tool: tool.map(Into::into),
        args_digest: None,
        class: FailureClass::Transient,
        code,
        attempt: 1,
        message: format!("failure {n}"),
        retried: n % 2 == 0,
        recovered: n % 3 == 0,
        recovery_call: None,
        idempotency_key: None,
        at_ms,
    }
}

/// Which (run, step) pairs, in order.
pub fn steps(turns: &[TurnRecord]) -> Vec<(String, u32)> {
    turns.iter().map(|t| (t.run_id.clone(), t.turn.step)).collect()
}

/// Milliseconds since the epoch.
pub fn now() -> u64 {
    js_sys::Date::now() as u64
}
