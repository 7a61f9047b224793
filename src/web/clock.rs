//! Time and randomness in the browser: `Date.now()`, `setTimeout` on the global (window or
//! worker), `Math.random()`.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::*;

use crate::engine::{Clock, Random};

#[wasm_bindgen]
extern "C" {
    // The global functions, present in windows and workers alike.
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(callback: &js_sys::Function, ms: f64) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue);
}

/// The browser's clock. Counts the timers it has pending, so a leak is visible.
#[derive(Debug, Default)]
pub struct WebClock {
    pending: Rc<Cell<u32>>,
}

impl WebClock {
    /// A clock.
    pub fn new() -> Self {
        Self::default()
    }

    /// Timers set and neither fired nor cleared yet.
    pub fn pending_timers(&self) -> u32 {
        self.pending.get()
    }
}

impl Clock for WebClock {
    fn now_ms(&self) -> u64 {
        js_sys::Date::now() as u64
    }

    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        Sleep::start(ms, self.pending.clone()).boxed_local()
    }
}

#[derive(Default)]
struct Shared {
    fired: bool,
    waker: Option<Waker>,
}

/// A `setTimeout` as a future; dropping it before it fires clears the timer.
struct Sleep {
    shared: Rc<RefCell<Shared>>,
    id: JsValue,
    pending: Rc<Cell<u32>>,
    // Kept alive until the timer fired or was cleared: JS holds a reference to it.
    _callback: Closure<dyn FnMut()>,
}

impl Sleep {
    fn start(ms: u64, pending: Rc<Cell<u32>>) -> Sleep {
        let shared = Rc::new(RefCell::new(Shared::default()));
        let fired = shared.clone();
        let count = pending.clone();
        let callback = Closure::<dyn FnMut()>::new(move || {
            count.set(count.get().saturating_sub(1));
            let waker = {
                let mut shared = fired.borrow_mut();
                shared.fired = true;
                shared.waker.take()
            };
            if let Some(waker) = waker {
                waker.wake();
            }
        });
        // setTimeout clamps to a signed 32-bit millisecond count; longer waits would fire at once.
        let ms = ms.min(i32::MAX as u64) as f64;
        let id = set_timeout(callback.as_ref().unchecked_ref(), ms);
        pending.set(pending.get() + 1);
        Sleep { shared, id, pending, _callback: callback }
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut shared = self.shared.borrow_mut();
        if shared.fired {
            return Poll::Ready(());
        }
        shared.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        if !self.shared.borrow().fired {
            clear_timeout(&self.id);
            self.pending.set(self.pending.get().saturating_sub(1));
        }
    }
}

/// `Math.random()`, for retry jitter.
#[derive(Debug, Default, Clone, Copy)]
pub struct WebRandom;

impl Random for WebRandom {
    fn unit(&self) -> f64 {
        js_sys::Math::random()
    }
}
