//! Detecting the same call made again: a failing call repeated gets escalated guidance instead of an
//! invitation to repeat it (Verdex's "tries the exact same thing again" loop), and a successful call
//! repeated with the same result counts as a step with no progress.

use std::collections::{HashMap, HashSet};

use crate::errors::{Envelope, ErrorCode};

use crate::turn::CallKey;

#[derive(Debug, Clone)]
struct FailedCall {
    /// How many times the model made this call (blocked repeats included).
    times: u32,
    /// The distinct codes it failed with, in order.
    codes: Vec<ErrorCode>,
    envelope: Envelope,
    /// No call has succeeded since it failed, so nothing that could change its outcome happened.
    unchanged: bool,
    /// When the callee said it could be tried again (Retry-After), ms since the epoch.
    retry_at_ms: Option<u64>,
}

/// The calls of a run, by tool and normalised arguments.
#[derive(Debug, Default)]
pub struct Repeats {
    failed: HashMap<CallKey, FailedCall>,
    /// Digests of the results each successful call returned.
    results: HashMap<CallKey, HashSet<String>>,
}

impl Repeats {
    /// If this exact call already failed, nothing has succeeded since and no Retry-After has passed,
    /// counts the repeat and returns the escalated envelope to show instead of running it.
    pub fn blocked(&mut self, key: &CallKey, now_ms: u64) -> Option<Envelope> {
        let failed = self.failed.get_mut(key)?;
        if !failed.unchanged || failed.retry_at_ms.is_some_and(|at| now_ms >= at) {
            return None;
        }
        failed.times += 1;
        let mut envelope = escalate(failed.envelope.clone(), key, failed.times, &failed.codes);
        envelope.details.insert("notRun".into(), "identical to a call that already failed".into());
        Some(envelope)
    }

    /// Records a failure of `key` at `now_ms` and returns its envelope, escalated if the call was
    /// made before.
    pub fn failed(&mut self, key: &CallKey, envelope: Envelope, now_ms: u64) -> Envelope {
        let entry = self.failed.entry(key.clone()).or_insert_with(|| FailedCall {
            times: 0,
            codes: Vec::new(),
            envelope: envelope.clone(),
            unchanged: true,
            retry_at_ms: None,
        });
        entry.times += 1;
        entry.unchanged = true;
        entry.retry_at_ms = envelope.retry_after_ms.map(|ms| now_ms.saturating_add(ms));
        if !entry.codes.contains(&envelope.code) {
            entry.codes.push(envelope.code.clone());
        }
        entry.envelope = envelope.clone();
        if entry.times > 1 {
            escalate(envelope, key, entry.times, &entry.codes)
        } else {
            envelope
        }
    }

    /// Records a success of `key` that returned a result with digest `result`. Returns whether
    /// the step made progress: false when this exact call already returned this exact result.
    pub fn succeeded(&mut self, key: &CallKey, result: &str) -> bool {
        for failed in self.failed.values_mut() {
            failed.unchanged = false;
        }
        self.results.entry(key.clone()).or_default().insert(result.to_string())
    }
}

/// Rewrites the plan for a call made `times` times: name the repeat and forbid it, in place of the
/// plan's own "do not call again" steps, which it supersedes.
fn escalate(mut envelope: Envelope, key: &CallKey, times: u32, codes: &[ErrorCode]) -> Envelope {
    let before = times - 1;
    let codes: Vec<&str> = codes.iter().map(ErrorCode::as_str).collect();
    let warning = format!(
        "You already called `{}` with these exact arguments {before} time{}; it failed with {}. \
         Do not call it again with the same arguments.",
        key.tool,
        if before == 1 { "" } else { "s" },
        codes.join(", then ")
    );
    envelope.recovery.retain(|step| !step.starts_with("You already called") && !step.starts_with("Do not "));
    envelope.recovery.insert(0, warning);
    envelope.details.insert("repeats".into(), before.into());
    envelope
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::{classify, CallContext, Origin, RawFailure};
    use serde_json::json;

    fn envelope(raw: RawFailure) -> Envelope {
        Envelope::from_failure(
            &raw,
            classify(&raw, Origin::Tool),
            CallContext { tool: Some("get"), ..Default::default() },
        )
    }

    fn not_found() -> Envelope {
        envelope(RawFailure::coded("NOT_FOUND", "Invoice INV-9 does not exist"))
    }

    #[test]
    fn a_repeated_failure_is_escalated_and_blocked_until_something_succeeds() {
        let mut repeats = Repeats::default();
        let key = CallKey::new("get", &json!({"id": "INV-9"}));
        assert!(repeats.blocked(&key, 0).is_none());
        let first = repeats.failed(&key, not_found(), 0);
        assert!(!first.recovery[0].starts_with("You already called"));
        let blocked = repeats.blocked(&key, 0).expect("blocked after a failure");
        assert_eq!(
            blocked.recovery[0],
            "You already called `get` with these exact arguments 1 time; it failed with NOT_FOUND. \
             Do not call it again with the same arguments."
        );
        assert_eq!(blocked.details["notRun"], "identical to a call that already failed");
        assert!(repeats.blocked(&key, 0).unwrap().recovery[0].contains("2 times;"), "each repeat counts");
        assert!(repeats.succeeded(&CallKey::new("list", &json!({})), "r1"));
        assert!(repeats.blocked(&key, 0).is_none(), "a success may have changed things");
        let fourth = repeats.failed(&key, not_found(), 0);
        assert!(fourth.recovery[0].contains("3 times;"));
        assert_eq!(fourth.details["repeats"], 3);
        assert_eq!(fourth.recovery.iter().filter(|s| s.starts_with("You already")).count(), 1);
    }

    #[test]
    fn the_escalation_names_every_code_and_replaces_the_plans_own_do_not_steps() {
        let mut repeats = Repeats::default();
        let key = CallKey::new("get", &json!({}));
        repeats.failed(&key, envelope(RawFailure::http(403, "no")), 0);
        let second = repeats.failed(&key, envelope(RawFailure::named("TypeError", "x is undefined")), 0);
        assert!(second.recovery[0].contains("it failed with PERMISSION_DENIED, then INTERNAL_ERROR."));
        assert_eq!(second.recovery.iter().filter(|s| s.starts_with("Do not")).count(), 0);
    }

    #[test]
    fn a_rate_limited_call_is_unblocked_once_its_retry_after_has_passed() {
        let mut repeats = Repeats::default();
        let key = CallKey::new("get", &json!({}));
        repeats.failed(&key, envelope(RawFailure::http(429, "slow").with_retry_after_ms(60_000)), 1_000);
        assert!(repeats.blocked(&key, 30_000).is_some());
        assert!(repeats.blocked(&key, 61_000).is_none());
    }

    #[test]
    fn the_same_call_is_progress_only_when_its_result_is_new() {
        let mut repeats = Repeats::default();
        let key = CallKey::new("next_page", &json!({}));
        assert!(repeats.succeeded(&key, "page1"));
        assert!(repeats.succeeded(&key, "page2"));
        assert!(!repeats.succeeded(&key, "page2"));
    }
}
