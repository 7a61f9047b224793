//! Racing a call against its timeout and the run's cancellation: the loser is dropped, which is how
//! a hung tool gets aborted.

use std::future::Future;
use std::pin::pin;

use futures_util::future::{select, Either};

use super::{CancelToken, Clock};

/// How a guarded call ended.
pub(crate) enum Guarded<T> {
    /// It finished.
    Done(T),
    /// Its timeout fired first; the call was dropped (aborted).
    TimedOut,
    /// The run was cancelled first; the call was dropped (aborted).
    Cancelled,
}

/// Runs `call` until it finishes, `timeout_ms` passes, or `cancel` fires, whichever is first.
pub(crate) async fn guarded<T>(
    call: impl Future<Output = T>,
    clock: &dyn Clock,
    timeout_ms: Option<u64>,
    cancel: &CancelToken,
) -> Guarded<T> {
    if cancel.is_cancelled() {
        return Guarded::Cancelled;
    }
    let timer = async {
        match timeout_ms {
            Some(ms) => clock.sleep(ms).await,
            None => std::future::pending().await,
        }
    };
    match select(pin!(call), select(pin!(timer), pin!(cancel.cancelled()))).await {
        Either::Left((value, _)) => Guarded::Done(value),
        Either::Right((Either::Left(_), _)) => Guarded::TimedOut,
        Either::Right((Either::Right(_), _)) => Guarded::Cancelled,
    }
}

/// Waits `ms` unless the run is cancelled first; returns whether the wait completed.
pub(crate) async fn pause(clock: &dyn Clock, ms: u64, cancel: &CancelToken) -> bool {
    matches!(guarded(clock.sleep(ms), clock, None, cancel).await, Guarded::Done(()))
}
