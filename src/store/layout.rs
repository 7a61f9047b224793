//! The IndexedDB layout as data: object stores, their keys and indexes, the migrations that build
//! them, and the key ranges the queries use. Pure, so the layout and the key encoding are tested
//! natively; `web/indexeddb` only interprets it.
//!
//! Records are stored as the JSON of their Rust type (camelCase fields), so key paths name those
//! fields. Turns also carry `seq`, their write order within the session (see `web/indexeddb`).

use serde_json::{json, Value};

/// Sessions: `{id, createdMs, updatedMs, runs, turns, failures}`, key `id`.
pub const SESSIONS: &str = "sessions";
/// Runs ([`super::RunRecord`]), key `id`.
pub const RUNS: &str = "runs";
/// Turns ([`super::TurnRecord`] plus `seq`), key `[runId, turn.step]`.
pub const TURNS: &str = "turns";
/// Failures ([`super::FailureRecord`]), key `id`.
pub const FAILURES: &str = "failures";
/// Every store, for transactions that touch them all.
pub const ALL_STORES: [&str; 4] = [SESSIONS, RUNS, TURNS, FAILURES];

/// Runs of a session by start: `[session, startedMs]`.
pub const RUNS_BY_SESSION: &str = "session_startedMs";
/// Runs by start, oldest first: what retention walks.
pub const RUNS_BY_START: &str = "startedMs";
/// Runs by status, then start: `[status, startedMs]` (interrupted runs, for resume).
pub const RUNS_BY_STATUS: &str = "status_startedMs";
/// A session's turns in the order they were written: `[session, seq]`.
pub const TURNS_BY_SESSION: &str = "session_seq";
/// Failures of a session by time: `[session, atMs]`.
pub const FAILURES_BY_SESSION: &str = "session_atMs";
/// Failures of a run by time: `[runId, atMs]`.
pub const FAILURES_BY_RUN: &str = "runId_atMs";
/// Failures of a tool by time: `[tool, atMs]`.
pub const FAILURES_BY_TOOL: &str = "tool_atMs";
/// Failures with a code by time: `[code, atMs]`.
pub const FAILURES_BY_CODE: &str = "code_atMs";
/// Failures by time.
pub const FAILURES_BY_TIME: &str = "atMs";
/// Sessions by last write.
pub const SESSIONS_BY_UPDATE: &str = "updatedMs";

/// One change to the layout, applied inside an upgrade transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Creates an object store whose key is the field(s) at `key` (one path: a plain key; several:
    /// an array key).
    CreateStore {
        /// The store's name.
        store: &'static str,
        /// Its key path(s).
        key: &'static [&'static str],
    },
    /// Creates a non-unique index on an existing store.
    CreateIndex {
        /// The store.
        store: &'static str,
        /// The index's name.
        index: &'static str,
        /// Its key path(s): several make a compound (array) key.
        key: &'static [&'static str],
    },
}

/// The steps that take a database from `version - 1` to `version`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Migration {
    /// The version it produces.
    pub version: u32,
    /// What it does, in order.
    pub steps: &'static [Step],
}

const fn index(store: &'static str, index: &'static str, key: &'static [&'static str]) -> Step {
    Step::CreateIndex { store, index, key }
}

/// Version 1, the first released layout: creation from nothing. A version 2 appends a
/// [`Migration`] here; databases are brought up one version at a time, so each step only ever
/// sees the layout of the version before it.
pub const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    steps: &[
        Step::CreateStore { store: SESSIONS, key: &["id"] },
        index(SESSIONS, SESSIONS_BY_UPDATE, &["updatedMs"]),
        Step::CreateStore { store: RUNS, key: &["id"] },
        index(RUNS, RUNS_BY_SESSION, &["session", "startedMs"]),
        index(RUNS, RUNS_BY_START, &["startedMs"]),
        index(RUNS, RUNS_BY_STATUS, &["status", "startedMs"]),
        Step::CreateStore { store: TURNS, key: &["runId", "turn.step"] },
        index(TURNS, TURNS_BY_SESSION, &["session", "seq"]),
        Step::CreateStore { store: FAILURES, key: &["id"] },
        index(FAILURES, FAILURES_BY_SESSION, &["session", "atMs"]),
        index(FAILURES, FAILURES_BY_RUN, &["runId", "atMs"]),
        index(FAILURES, FAILURES_BY_TOOL, &["tool", "atMs"]),
        index(FAILURES, FAILURES_BY_CODE, &["code", "atMs"]),
        index(FAILURES, FAILURES_BY_TIME, &["atMs"]),
    ],
}];

/// The version a list of migrations produces (0 for none).
pub fn target_version(migrations: &[Migration]) -> u32 {
    migrations.last().map_or(0, |m| m.version)
}

/// The migrations a database at `old` needs, oldest first. Errs when the list is not numbered
/// 1, 2, 3… (a gap or a repeat would skip or replay a step on some databases).
pub fn pending(migrations: &[Migration], old: u32) -> Result<Vec<&Migration>, String> {
    for (i, m) in migrations.iter().enumerate() {
        if m.version as usize != i + 1 {
            return Err(format!("migration #{} is numbered {}, expected {}", i + 1, m.version, i + 1));
        }
    }
    Ok(migrations.iter().filter(|m| m.version > old).collect())
}

/// An IndexedDB key range, as JSON keys (strings, numbers and arrays of them). `None` is unbounded.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyRange {
    /// Lowest key.
    pub lower: Option<Value>,
    /// Highest key.
    pub upper: Option<Value>,
    /// Whether `lower` itself is excluded.
    pub lower_open: bool,
    /// Whether `upper` itself is excluded.
    pub upper_open: bool,
}

impl KeyRange {
    /// Every array key starting with `prefix`: from `[..prefix]` (a proper prefix sorts before all
    /// its extensions) to `[..prefix, []]` (an array sorts after every number and string).
    pub fn prefix(prefix: &[Value]) -> KeyRange {
        let mut upper = prefix.to_vec();
        upper.push(json!([]));
        KeyRange { lower: Some(Value::Array(prefix.to_vec())), upper: Some(Value::Array(upper)), ..Self::ALL }
    }

    /// Keys `[first, t]` with `since <= t < until`; a missing bound leaves that side open-ended
    /// within `first`.
    pub fn prefix_between(first: &str, since: Option<u64>, until: Option<u64>) -> KeyRange {
        KeyRange {
            lower: Some(match since {
                Some(t) => json!([first, t]),
                None => json!([first]),
            }),
            upper: Some(match until {
                Some(t) => json!([first, t]),
                None => json!([first, []]),
            }),
            lower_open: false,
            upper_open: until.is_some(),
        }
    }

    /// Plain number keys with `since <= t < until`.
    pub fn between(since: Option<u64>, until: Option<u64>) -> KeyRange {
        KeyRange {
            lower: since.map(Value::from),
            upper: until.map(Value::from),
            lower_open: false,
            upper_open: until.is_some(),
        }
    }

    /// Number keys strictly below `t`.
    pub fn below(t: u64) -> KeyRange {
        KeyRange { upper: Some(Value::from(t)), upper_open: true, ..Self::ALL }
    }

    /// Every key.
    pub const ALL: KeyRange = KeyRange { lower: None, upper: None, lower_open: false, upper_open: false };

    /// Whether the range has no bound at all.
    pub fn is_all(&self) -> bool {
        self.lower.is_none() && self.upper.is_none()
    }
}

/// The turns of one run: primary keys `[runId, step]`.
pub fn run_turns(run_id: &str) -> KeyRange {
    KeyRange::prefix(&[json!(run_id)])
}

/// The turns of one session in order, on [`TURNS_BY_SESSION`].
pub fn session_turns(session: &str) -> KeyRange {
    KeyRange::prefix(&[json!(session)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_released_migrations_are_numbered_from_one_and_all_pending_on_a_new_database() {
        assert_eq!(target_version(MIGRATIONS), 1);
        assert_eq!(pending(MIGRATIONS, 0).unwrap().len(), 1);
        assert!(pending(MIGRATIONS, 1).unwrap().is_empty());
        let gap = [MIGRATIONS[0], Migration { version: 3, steps: &[] }];
        assert!(pending(&gap, 0).unwrap_err().contains("numbered 3"));
    }

    #[test]
    fn every_index_is_created_on_a_store_created_before_it() {
        let mut stores = vec![];
        for step in MIGRATIONS.iter().flat_map(|m| m.steps) {
            match step {
                Step::CreateStore { store, .. } => stores.push(*store),
                Step::CreateIndex { store, index, .. } => assert!(stores.contains(store), "{index}"),
            }
        }
        assert_eq!(stores, ALL_STORES);
    }

    #[test]
    fn ranges_bound_a_prefix_from_its_shortest_to_past_its_longest_key() {
        let r = run_turns("r1");
        assert_eq!((r.lower, r.upper), (Some(json!(["r1"])), Some(json!(["r1", []]))));
        let t = KeyRange::prefix_between("fetch", Some(10), Some(20));
        assert_eq!((t.lower, t.upper), (Some(json!(["fetch", 10])), Some(json!(["fetch", 20]))));
        assert!(!t.lower_open && t.upper_open, "since is inclusive, until exclusive");
        let open = KeyRange::prefix_between("fetch", None, None);
        assert_eq!((open.lower, open.upper), (Some(json!(["fetch"])), Some(json!(["fetch", []]))));
        assert!(!open.upper_open);
        assert!(KeyRange::between(None, None).is_all());
        assert_eq!(KeyRange::below(5).upper, Some(json!(5)));
    }
}
