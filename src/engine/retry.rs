//! The one retry policy: exponential backoff with jitter, the callee's Retry-After honoured up to a
//! cap, and an attempt limit per call. Used for tool calls and model calls alike.

use serde::{Deserialize, Serialize};

use super::Random;

/// How transient failures are retried.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct RetryPolicy {
    /// Attempts per call, the first one included (1 = never retry).
    pub max_attempts: u32,
    /// The delay before the first retry, before jitter.
    pub base_delay_ms: u64,
    /// The longest backoff delay, before jitter.
    pub max_delay_ms: u64,
    /// How much of each delay is randomised, from 0 (none) to 1 (anywhere in `[0, delay]`).
    pub jitter: f64,
    /// The longest Retry-After the runtime waits out; a longer one goes to the model instead.
    pub max_retry_after_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 3,
            base_delay_ms: 500,
            max_delay_ms: 8_000,
            jitter: 0.5,
            max_retry_after_ms: 30_000,
        }
    }
}

/// What to do after a transient failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "decision")]
pub enum RetryDecision {
    /// Wait this long, then try again.
    Retry {
        /// The delay, jitter included.
        delay_ms: u64,
    },
    /// Every allowed attempt has been made.
    AttemptsExhausted,
    /// The callee asked for a longer wait than the runtime will spend.
    RetryAfterTooLong {
        /// What the callee asked for.
        retry_after_ms: u64,
    },
}

impl RetryPolicy {
    /// A policy that never retries (the naive baseline, or a tool that must not repeat).
    pub fn never() -> Self {
        RetryPolicy { max_attempts: 1, ..RetryPolicy::default() }
    }

    /// Decides what follows failed attempt number `attempt` (from 1), given the callee's
    /// Retry-After and an attempt limit that overrides the policy's (a tool's own).
    pub fn decide(
        &self,
        attempt: u32,
        retry_after_ms: Option<u64>,
        max_attempts: Option<u32>,
        random: &dyn Random,
    ) -> RetryDecision {
        if attempt >= max_attempts.unwrap_or(self.max_attempts) {
            return RetryDecision::AttemptsExhausted;
        }
        if let Some(asked) = retry_after_ms.filter(|ms| *ms > self.max_retry_after_ms) {
            return RetryDecision::RetryAfterTooLong { retry_after_ms: asked };
        }
        let exponent = attempt.saturating_sub(1).min(32);
        let backoff = self.base_delay_ms.saturating_mul(1u64 << exponent).min(self.max_delay_ms);
        let jitter = self.jitter.clamp(0.0, 1.0);
        let unit = random.unit().clamp(0.0, 1.0);
        // "Equal jitter": keep part of the delay fixed so retries never bunch up at zero.
        let spread = (backoff as f64 * jitter * unit) as u64;
        let jittered = backoff - spread.min(backoff);
        let delay_ms = match retry_after_ms {
            // Never earlier than asked; the jitter on top keeps many clients from returning together.
            Some(asked) => {
                asked.max(jittered).saturating_add((self.base_delay_ms as f64 * jitter * unit) as u64)
            }
            None => jittered,
        };
        RetryDecision::Retry { delay_ms }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed(f64);
    impl Random for Fixed {
        fn unit(&self) -> f64 {
            self.0
        }
    }

    fn delay(d: RetryDecision) -> u64 {
        match d {
            RetryDecision::Retry { delay_ms } => delay_ms,
            other => panic!("expected a retry, got {other:?}"),
        }
    }

    #[test]
    fn backoff_doubles_up_to_the_cap_and_jitter_stays_in_bounds() {
        let p = RetryPolicy { max_attempts: 10, ..RetryPolicy::default() };
        assert_eq!(delay(p.decide(1, None, None, &Fixed(0.0))), 500);
        assert_eq!(delay(p.decide(2, None, None, &Fixed(0.0))), 1000);
        assert_eq!(delay(p.decide(3, None, None, &Fixed(0.0))), 2000);
        assert_eq!(delay(p.decide(9, None, None, &Fixed(0.0))), 8000);
        // Equal jitter: between half and all of the backoff.
        assert_eq!(delay(p.decide(2, None, None, &Fixed(0.999_999))), 501);
        assert_eq!(delay(p.decide(2, None, None, &Fixed(0.5))), 750);
    }

    #[test]
    fn retry_after_is_a_floor_with_jitter_on_top() {
        let p = RetryPolicy::default();
        assert_eq!(delay(p.decide(1, Some(2000), None, &Fixed(0.0))), 2000);
        assert_eq!(delay(p.decide(1, Some(2000), None, &Fixed(0.5))), 2000 + 125);
        assert_eq!(delay(p.decide(1, Some(10), None, &Fixed(0.0))), 500);
    }

    #[test]
    fn attempts_and_long_retry_after_end_the_retries() {
        let p = RetryPolicy::default();
        assert_eq!(p.decide(3, None, None, &Fixed(0.0)), RetryDecision::AttemptsExhausted);
        assert_eq!(p.decide(1, None, Some(1), &Fixed(0.0)), RetryDecision::AttemptsExhausted);
        assert_eq!(
            p.decide(1, Some(60_000), None, &Fixed(0.0)),
            RetryDecision::RetryAfterTooLong { retry_after_ms: 60_000 }
        );
        assert_eq!(RetryPolicy::never().decide(1, None, None, &Fixed(0.0)), RetryDecision::AttemptsExhausted);
    }

    #[test]
    fn extreme_settings_do_not_overflow() {
        let p = RetryPolicy {
            max_attempts: u32::MAX,
            base_delay_ms: u64::MAX,
            max_delay_ms: u64::MAX,
            jitter: 7.0,
            max_retry_after_ms: u64::MAX,
        };
        let _ = p.decide(u32::MAX - 1, Some(u64::MAX), None, &Fixed(f64::NAN));
    }
}
