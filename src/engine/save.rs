//! Handing a run's records to the store: the one place the engine writes, so the one place the
//! agent's redactor (see [`crate::store::redact`]) is applied, and cannot be gone around.
//!
//! Without a redactor, records are written as they are. With one, each step's call goes through
//! it first; a redactor that fails or does not answer in time gets the arguments stored dropped,
//! with a warning. A value it removes is then scrubbed from every text the run stores, and the
//! steps and failures this run stored before are written again without it.

use std::borrow::Cow;
use std::rc::Rc;

use serde_json::Value;

use crate::store::redact::{Redactor, Scrubber, REDACT_TIMEOUT_MS};
use crate::store::{FailureRecord, RunRecord, StepWrite, TurnRecord};

use super::guard::{guarded, Guarded};
use super::run::RunState;
use super::step_write::store_warning;
use super::{Action, CancelToken};

/// One run's redaction: the redactor, what it removed so far, and each step this run stored (as
/// it was, and as stored), to write again when a later step removes a value it holds.
pub(crate) struct Redaction {
    redactor: Rc<dyn Redactor>,
    scrubber: Scrubber,
    written: Vec<(TurnRecord, TurnRecord)>,
    /// The redactor's answer for the step under way's call: asked once, before the call's intent
    /// or pause is stored, and used again when the step is committed.
    asked: Option<(u32, Action, Option<Value>)>,
}

impl Redaction {
    /// The redaction of a run of an agent with `redactor`, if it has one.
    pub(crate) fn of(redactor: Option<&Rc<dyn Redactor>>) -> Option<Redaction> {
        redactor.map(|redactor| Redaction {
            scrubber: Scrubber::new(redactor.mask()),
            redactor: redactor.clone(),
            written: Vec::new(),
            asked: None,
        })
    }
}

impl RunState<'_> {
    /// What writing step `record` puts: the record, as redacted when the agent redacts, after the
    /// steps it makes stale (this run's earlier steps holding a value the redactor just removed).
    pub(crate) async fn turns_to_write(&mut self, record: TurnRecord) -> Vec<TurnRecord> {
        let Some(redactor) = self.redaction.as_ref().map(|r| r.redactor.clone()) else {
            return vec![record];
        };
        let kept = match &record.turn.action {
            Some(action) => Some(self.kept_once(redactor.as_ref(), action, record.turn.step).await),
            None => None,
        };
        let Some(redaction) = self.redaction.as_mut() else { return vec![record] };
        let learnt = match (&record.turn.action, kept) {
            (Some(action), Some(kept)) => redaction.scrubber.note(action, kept),
            _ => false,
        };
        let mut writes = Vec::new();
        if learnt {
            for (real, stored) in &mut redaction.written {
                let again = TurnRecord { turn: redaction.scrubber.turn(&real.turn), ..real.clone() };
                if again != *stored {
                    *stored = again.clone();
                    writes.push(again);
                }
            }
            self.log.mark_all_unsaved();
        }
        let stored = TurnRecord { turn: redaction.scrubber.turn(&record.turn), ..record.clone() };
        redaction.written.push((record, stored.clone()));
        writes.push(stored);
        writes
    }

    /// A call waiting for approval as the run record stores it: its arguments (redacted when the
    /// agent redacts), its thought (scrubbed), and whether redaction changed the arguments. What
    /// the redactor removes here is learnt for good when the call's step is committed.
    pub(crate) async fn stored_call(
        &mut self,
        action: &Action,
        thought: &str,
        step: u32,
    ) -> (Value, String, bool) {
        let Some((redactor, mut scrubber)) =
            self.redaction.as_ref().map(|r| (r.redactor.clone(), r.scrubber.clone()))
        else {
            return (action.args.clone(), thought.to_string(), false);
        };
        let kept = self.kept_once(redactor.as_ref(), action, step).await;
        scrubber.note(action, kept);
        let args = scrubber.args(action);
        let redacted = args != action.args;
        (args, scrubber.text(thought), redacted)
    }

    /// What the redactor keeps of the call `action` of `step`, asked once per step's call: a call
    /// whose intent or pause was stored is not asked about again when its step is committed.
    async fn kept_once(&mut self, redactor: &dyn Redactor, action: &Action, step: u32) -> Option<Value> {
        // The redactor is the page's: the step before is stored before it is asked.
        self.settle_write().await;
        let asked = self.redaction.as_ref().and_then(|r| r.asked.as_ref());
        if let Some((_, _, kept)) = asked.filter(|(s, a, _)| *s == step && a == action) {
            return kept.clone();
        }
        let kept = self.kept(redactor, action, step).await;
        if let Some(redaction) = self.redaction.as_mut() {
            redaction.asked = Some((step, action.clone(), kept.clone()));
        }
        kept
    }

    /// What the redactor keeps of `action`'s arguments (`None`: nothing). When it fails or does
    /// not answer within [`REDACT_TIMEOUT_MS`], nothing: it fails closed, and the page is warned.
    async fn kept(&self, redactor: &dyn Redactor, action: &Action, step: u32) -> Option<Value> {
        let clock = self.effects.clock.as_ref();
        // Not the run's token: a cancelled run still commits its last step, redacted.
        let call = redactor.redact(action);
        let why = match guarded(call, clock, Some(REDACT_TIMEOUT_MS), &CancelToken::new()).await {
            Guarded::Done(Ok(kept)) => return kept,
            Guarded::Done(Err(failure)) => failure.message,
            Guarded::TimedOut | Guarded::Cancelled => format!("no answer within {REDACT_TIMEOUT_MS} ms"),
        };
        self.warn(
            Some(step),
            format!("Could not redact the arguments of `{}`, so none were stored: {why}", action.tool),
        );
        None
    }

    /// The failures recorded or changed since the last write, as stored (scrubbed when the agent
    /// redacts); they are saved from then on.
    pub(crate) fn unsaved_failures(&mut self) -> Vec<FailureRecord> {
        let failures = self.log.take_unsaved();
        match &self.redaction {
            Some(redaction) => failures.iter().map(|f| redaction.scrubber.failure(f)).collect(),
            None => failures,
        }
    }

    /// Writes the failures recorded or changed since the last write, and waits for them.
    pub(crate) async fn save_failures(&mut self) {
        let failures = self.unsaved_failures();
        self.start_write(StepWrite { failures, ..StepWrite::default() }).await;
        self.settle_write().await;
    }

    /// Writes the run record as it stands.
    pub(crate) async fn save_run(&mut self) {
        self.settle_write().await;
        let run = self.stored_run();
        if let Err(e) = self.effects.store.put_run(&run).await {
            self.warn(None, store_warning("the run record", &e));
        }
    }

    /// The run record as stored: scrubbed when the agent redacts.
    pub(crate) fn stored_run(&self) -> Cow<'_, RunRecord> {
        match &self.redaction {
            Some(redaction) => Cow::Owned(redaction.scrubber.run(&self.record)),
            None => Cow::Borrowed(&self.record),
        }
    }
}
