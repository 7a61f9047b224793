//! Cancelling a run: a token the page holds and every wait in the loop watches.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

#[derive(Default)]
struct State {
    cancelled: bool,
    wakers: Vec<Waker>,
}

/// A cancellation token. Clones share one state; cancelling any clone cancels them all, and every
/// model call, tool call and retry wait racing [`CancelToken::cancelled`] ends at once.
#[derive(Clone, Default)]
pub struct CancelToken(Rc<RefCell<State>>);

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelToken").field("cancelled", &self.is_cancelled()).finish()
    }
}

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancels; idempotent.
    pub fn cancel(&self) {
        let wakers = {
            let mut state = self.0.borrow_mut();
            state.cancelled = true;
            std::mem::take(&mut state.wakers)
        };
        for waker in wakers {
            waker.wake();
        }
    }

    /// Whether [`CancelToken::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.borrow().cancelled
    }

    /// Resolves once the token is cancelled.
    pub fn cancelled(&self) -> Cancelled {
        Cancelled(self.clone())
    }
}

/// The future returned by [`CancelToken::cancelled`].
#[derive(Debug)]
pub struct Cancelled(CancelToken);

impl Future for Cancelled {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut state = (self.0).0.borrow_mut();
        if state.cancelled {
            return Poll::Ready(());
        }
        if !state.wakers.iter().any(|w| w.will_wake(cx.waker())) {
            state.wakers.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::future::{select, Either};
    use std::pin::pin;

    #[test]
    fn cancelling_wakes_a_pending_wait() {
        let token = CancelToken::new();
        let other = token.clone();
        let never = std::future::pending::<()>();
        let waiting = async move {
            match select(pin!(never), pin!(other.cancelled())).await {
                Either::Left(_) => "finished",
                Either::Right(_) => "cancelled",
            }
        };
        let cancel = async {
            token.cancel();
        };
        let (result, ()) = futures_executor::block_on(futures_util::future::join(waiting, cancel));
        assert_eq!(result, "cancelled");
        assert!(token.is_cancelled());
    }
}
