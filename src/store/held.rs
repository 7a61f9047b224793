//! What a durable store knows of a session while one of its runs holds it, so that the run's
//! writes after its first read nothing and a step's write is its turn alone.
//!
//! A run holds its session's lock (`web::locks`) from its record's first write to its last, so
//! nobody else writes the session meanwhile. The first write reads the session's record (and its
//! newest turn) and puts the record; the store then keeps the record, and which records it wrote
//! since with the `seq` each turn was given, in a [`HeldSession`]. After that:
//!
//! - a **step's turn** is put alone: its `seq` is the session's turn count, which goes up in
//!   memory and is stored with the session's record at its next write;
//! - a **new failure** puts the session's record too (its count is kept for good at once: a
//!   failure is rare, and a run cut off before its end could not count it again);
//! - a rewrite of a record already written (a call's intent in its run's record, a turn written
//!   again without a secret) is put alone and keeps its `seq`;
//! - the **run's last write** puts the session's record, with every count.
//!
//! So a run cut off before its end (a terminated worker, a reload) leaves the stored record
//! counting fewer turns than were stored. Whoever reads the record next brings it up to date
//! from the session's newest turn ([`reconcile`]): `seq`s are given in order, so the newest is
//! the count less one.

use std::collections::HashMap;

use super::session::SessionRecord;

/// What a record written to a session adds to the session's counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A run record.
    Run,
    /// A step's turn, numbered by `seq`.
    Turn,
    /// A failure record.
    Failure,
}

/// The session's newest turn as stored: its `seq` and `atMs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LastTurn {
    /// Its place in the session's write order.
    pub seq: u64,
    /// When it was written.
    pub at_ms: u64,
}

/// How one write goes: the `seq` a turn is stored with, and whether the session's record is put
/// in the same transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    /// The turn's `seq`; `None` for runs and failures.
    pub seq: Option<u64>,
    /// Whether the session's record ([`HeldSession::record`]) goes with it.
    pub with_session: bool,
}

/// A session as a store last read or wrote it, and the records it wrote since.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HeldSession {
    /// The session's record as last stored.
    stored: SessionRecord,
    /// As it stands, counting what was written since.
    now: SessionRecord,
    /// Each record written (by the name the store gives its key), with its `seq` if a turn.
    written: HashMap<String, Option<u64>>,
}

impl HeldSession {
    /// The session as just read: its record (`None`: none yet), its newest turn, and the stored
    /// `seq` of each record about to be written that exists, by name (`None` for a record that
    /// has none). What `cached` knew of the records written stays known if the record read is the
    /// one it last stored (nobody else wrote the session since).
    pub fn read(
        session: &str,
        now_ms: u64,
        stored: Option<SessionRecord>,
        last_turn: Option<LastTurn>,
        existing: &[(&str, Option<u64>)],
        cached: Option<HeldSession>,
    ) -> HeldSession {
        let mut record = stored.unwrap_or_else(|| SessionRecord::new(session, now_ms));
        let mut written = match cached {
            Some(cached) if cached.stored == record => cached.written,
            _ => HashMap::new(),
        };
        reconcile(&mut record, last_turn);
        for (name, seq) in existing {
            written.insert(name.to_string(), *seq);
        }
        HeldSession { stored: record.clone(), now: record, written }
    }

    /// Whether a write of `name` can go on what is known, without reads: any once the session
    /// was read, except the first write of a run's record (a run starting reads the session).
    pub fn knows(&self, kind: Kind, name: &str) -> bool {
        kind != Kind::Run || self.written.contains_key(name)
    }

    /// Places the write of `name` at `now_ms`: a record not written before gets the next `seq`
    /// (a turn) and adds to its count. The session's record goes with it when `read` (the write
    /// that read it puts it back up to date), when `ends_run`, or when a run or a failure was
    /// added; a step's turn and a rewrite go alone.
    pub fn place(&mut self, kind: Kind, name: &str, now_ms: u64, read: bool, ends_run: bool) -> Placement {
        self.now.updated_ms = now_ms;
        let (seq, counted) = match self.written.get(name) {
            Some(seq) => (*seq, false),
            None => {
                let counter = match kind {
                    Kind::Run => &mut self.now.runs,
                    Kind::Turn => &mut self.now.turns,
                    Kind::Failure => &mut self.now.failures,
                };
                let seq = (kind == Kind::Turn).then_some(*counter);
                *counter += 1;
                self.written.insert(name.to_string(), seq);
                (seq, kind != Kind::Turn)
            }
        };
        Placement { seq, with_session: read || ends_run || counted }
    }

    /// The session's record as it stands, to put with a write that carries it.
    pub fn record(&self) -> &SessionRecord {
        &self.now
    }

    /// The write that carried the record committed: it is what is stored now.
    pub fn stored(&mut self) {
        self.stored = self.now.clone();
    }
}

/// Brings a session's stored record up to date with its newest turn: a run cut off before its
/// last write stored turns its record does not count yet.
pub fn reconcile(record: &mut SessionRecord, last_turn: Option<LastTurn>) {
    if let Some(last) = last_turn {
        record.turns = record.turns.max(last.seq + 1);
        record.updated_ms = record.updated_ms.max(last.at_ms);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn started() -> HeldSession {
        let mut held = HeldSession::read("s", 10, None, None, &[], None);
        let first = held.place(Kind::Run, "r", 10, true, false);
        assert_eq!(
            first,
            Placement { seq: None, with_session: true },
            "a run's first write reads, and stores the session"
        );
        held.stored();
        held
    }

    #[test]
    fn a_steps_turn_goes_alone_with_the_next_seq_and_the_runs_end_stores_the_count() {
        let mut held = started();
        assert!(held.knows(Kind::Turn, "r\u{0}1") && held.knows(Kind::Run, "r"));
        for step in 0..3 {
            let placed = held.place(Kind::Turn, &format!("r\u{0}{}", step + 1), 11, false, false);
            assert_eq!(placed, Placement { seq: Some(step), with_session: false });
        }
        let intent = held.place(Kind::Run, "r", 12, false, false);
        assert_eq!(intent, Placement { seq: None, with_session: false }, "an intent rewrites the run alone");
        let end = held.place(Kind::Run, "r", 13, false, true);
        assert_eq!(end, Placement { seq: None, with_session: true });
        assert_eq!((held.record().runs, held.record().turns, held.record().updated_ms), (1, 3, 13));
    }

    #[test]
    fn a_failure_stores_the_session_and_a_rewrite_keeps_its_seq() {
        let mut held = started();
        held.place(Kind::Turn, "r\u{0}1", 11, false, false);
        let failure = held.place(Kind::Failure, "f1", 11, false, false);
        assert_eq!(failure, Placement { seq: None, with_session: true });
        assert!(
            !held.place(Kind::Failure, "f1", 12, false, false).with_session,
            "a failure flipped to recovered"
        );
        assert_eq!(
            held.place(Kind::Turn, "r\u{0}1", 12, false, false),
            Placement { seq: Some(0), with_session: false }
        );
        assert_eq!((held.record().turns, held.record().failures), (1, 1));
    }

    #[test]
    fn a_new_run_reads_and_what_was_written_stays_known_only_if_nobody_wrote_the_session_since() {
        let mut held = started();
        held.place(Kind::Turn, "r\u{0}1", 11, false, false);
        held.place(Kind::Run, "r", 12, false, true);
        held.stored();
        assert!(!held.knows(Kind::Run, "r2"), "another run's first write reads");
        let stored = held.record().clone();
        let again = HeldSession::read("s", 20, Some(stored.clone()), None, &[], Some(held.clone()));
        assert!(again.written.contains_key("r\u{0}1"));
        let other = SessionRecord { updated_ms: 15, ..stored };
        let after_another = HeldSession::read("s", 20, Some(other), None, &[], Some(held));
        assert!(after_another.written.is_empty());
    }

    #[test]
    fn a_record_behind_its_turns_is_counted_from_the_newest_turn() {
        let stored =
            SessionRecord { id: "s".into(), created_ms: 1, updated_ms: 5, runs: 1, turns: 1, failures: 0 };
        let last = LastTurn { seq: 6, at_ms: 9 };
        let mut held =
            HeldSession::read("s", 20, Some(stored), Some(last), &[("r2", None), ("r\u{0}3", Some(2))], None);
        assert_eq!((held.record().turns, held.record().updated_ms), (7, 9));
        assert_eq!(held.place(Kind::Turn, "r\u{0}8", 21, false, false).seq, Some(7));
        assert_eq!(held.place(Kind::Run, "r2", 21, true, false), Placement { seq: None, with_session: true });
        assert_eq!(held.record().runs, 1, "a record read back is not counted again");
        assert_eq!(held.place(Kind::Turn, "r\u{0}3", 21, true, false).seq, Some(2), "a turn keeps its seq");
        let mut ahead = SessionRecord { turns: 9, ..SessionRecord::new("s", 1) };
        reconcile(&mut ahead, Some(last));
        assert_eq!(ahead.turns, 9, "retention never lowers the count");
    }
}
