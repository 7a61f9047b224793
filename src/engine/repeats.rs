//! Detecting the same failing call made again, so the model is told to do something else instead
//! of being invited to repeat it (Verdex's "tries the exact same thing again" loop).

use std::collections::HashMap;

use crate::errors::{Envelope, ErrorCode};

use super::call_key::CallKey;

#[derive(Debug, Clone)]
struct FailedCall {
    times: u32,
    code: ErrorCode,
    envelope: Envelope,
    /// No call has succeeded since it failed, so nothing that could change its outcome happened.
    unchanged: bool,
}

/// The failing calls of a run, by tool and normalised arguments.
#[derive(Debug, Default)]
pub struct Repeats {
    failed: HashMap<CallKey, FailedCall>,
    succeeded: HashMap<CallKey, u32>,
}

impl Repeats {
    /// If this exact call already failed and nothing has succeeded since, counts the repeat and
    /// returns the envelope to show again (escalated) instead of running it.
    pub fn blocked(&mut self, key: &CallKey) -> Option<Envelope> {
        let failed = self.failed.get_mut(key).filter(|f| f.unchanged)?;
        failed.times += 1;
        let mut envelope = escalate(failed.envelope.clone(), key, failed.times, &failed.code);
        envelope.details.insert("notRun".into(), "identical to a call that already failed".into());
        Some(envelope)
    }

    /// Records a failure of `key` and returns its envelope, escalated if the call failed before.
    pub fn failed(&mut self, key: &CallKey, envelope: Envelope) -> Envelope {
        let entry = self.failed.entry(key.clone()).or_insert_with(|| FailedCall {
            times: 0,
            code: envelope.code.clone(),
            envelope: envelope.clone(),
            unchanged: true,
        });
        entry.times += 1;
        entry.unchanged = true;
        entry.code = envelope.code.clone();
        entry.envelope = envelope.clone();
        if entry.times > 1 {
            escalate(envelope, key, entry.times, &entry.code)
        } else {
            envelope
        }
    }

    /// Records a success of `key`. Returns how many times this exact call had already succeeded:
    /// more than zero means the step made no progress.
    pub fn succeeded(&mut self, key: &CallKey) -> u32 {
        for failed in self.failed.values_mut() {
            failed.unchanged = false;
        }
        let seen = self.succeeded.entry(key.clone()).or_insert(0);
        *seen += 1;
        *seen - 1
    }
}

/// Rewrites the plan for a call made `times` times: name the repeat, forbid it, keep the rest.
fn escalate(mut envelope: Envelope, key: &CallKey, times: u32, code: &ErrorCode) -> Envelope {
    let warning = format!(
        "You already called `{}` with these exact arguments {} time{}; it failed each time with {}. \
         Do not call it again with the same arguments.",
        key.tool,
        times - 1,
        if times == 2 { "" } else { "s" },
        code
    );
    envelope.recovery.retain(|step| !step.starts_with("You already called"));
    envelope.recovery.insert(0, warning);
    envelope.details.insert("repeats".into(), (times - 1).into());
    envelope
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::{classify, CallContext, Origin, RawFailure};
    use serde_json::json;

    fn envelope() -> Envelope {
        let raw = RawFailure::coded("NOT_FOUND", "Invoice INV-9 does not exist");
        Envelope::from_failure(
            &raw,
            classify(&raw, Origin::Tool),
            CallContext { tool: Some("get"), ..Default::default() },
        )
    }

    #[test]
    fn a_repeated_failure_is_escalated_and_blocked_until_something_succeeds() {
        let mut repeats = Repeats::default();
        let key = CallKey::new("get", &json!({"id": "INV-9"}));
        assert!(repeats.blocked(&key).is_none());
        let first = repeats.failed(&key, envelope());
        assert!(!first.recovery[0].starts_with("You already called"));
        let blocked = repeats.blocked(&key).expect("blocked after a failure");
        assert_eq!(
            blocked.recovery[0],
            "You already called `get` with these exact arguments 1 time; it failed each time with NOT_FOUND. \
             Do not call it again with the same arguments."
        );
        assert_eq!(blocked.details["notRun"], "identical to a call that already failed");
        assert!(repeats.blocked(&key).unwrap().recovery[0].contains("2 times;"), "each repeat counts");
        assert_eq!(repeats.succeeded(&CallKey::new("list", &json!({}))), 0);
        assert!(repeats.blocked(&key).is_none(), "a success may have changed things");
        let fourth = repeats.failed(&key, envelope());
        assert!(fourth.recovery[0].contains("3 times;"));
        assert_eq!(fourth.details["repeats"], 3);
        let fifth = repeats.failed(&key, envelope());
        assert!(fifth.recovery[0].contains("4 times;"));
        assert_eq!(fifth.recovery.iter().filter(|s| s.starts_with("You already")).count(), 1);
    }

    #[test]
    fn a_repeated_success_is_no_progress() {
        let mut repeats = Repeats::default();
        let key = CallKey::new("list", &json!({}));
        assert_eq!(repeats.succeeded(&key), 0);
        assert_eq!(repeats.succeeded(&key), 1);
    }
}
