//! Time and randomness in the browser: `Date.now()`, timers on the global (window or worker),
//! `Math.random()`.
//!
//! A clock's sleeps share one `setTimeout`, set for the earliest of them. Every model and tool
//! call of a run is raced against its timeout (`engine::guard`), and nearly every call answers
//! long before it: a timer per call was a `setTimeout`, a `clearTimeout` and a closure handed to
//! JavaScript for each, twice a step. Now a sleep is an entry in a table; dropping it removes the
//! entry, and the one timer is set again only for a sleep due before the one it waits for (the
//! table's timeouts end within a few seconds of each other, so a run sets it about once per
//! timeout, not per call). When it fires it wakes the sleeps that are due and waits for the next.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::{Rc, Weak};
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
    // Monotonic, unlike `Date.now()`: a sleep is not cut short or stretched by a change of the
    // system's time.
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

/// The browser's clock. Counts the sleeps it has pending, so a leak is visible.
pub struct WebClock {
    timers: Rc<Timers>,
}

impl Default for WebClock {
    fn default() -> Self {
        WebClock { timers: Timers::new() }
    }
}

impl std::fmt::Debug for WebClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebClock").field("pending", &self.pending_timers()).finish()
    }
}

impl WebClock {
    /// A clock.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sleeps started and neither finished nor dropped yet.
    pub fn pending_timers(&self) -> u32 {
        self.timers.sleeps.borrow().len() as u32
    }
}

impl Clock for WebClock {
    fn now_ms(&self) -> u64 {
        js_sys::Date::now() as u64
    }

    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        Sleep::start(&self.timers, ms).boxed_local()
    }
}

/// A sleep's place in the table: when it is due (µs of `performance.now()`), then the order the
/// sleeps were started in.
type Key = (u64, u64);

#[derive(Default)]
struct Shared {
    fired: bool,
    waker: Option<Waker>,
}

/// A clock's pending sleeps and the one JavaScript timer that wakes them.
struct Timers {
    /// By [`Key`], soonest first: a run has a sleep or two pending at a time (a model's or a
    /// tool's timeout, a retry's delay), so a sorted `Vec` (one copy of std's sorted-map code fewer
    /// in the wasm than a `BTreeMap`, 2 KB gzip).
    sleeps: RefCell<Vec<(Key, Rc<RefCell<Shared>>)>>,
    started: Cell<u64>,
    /// The timer set, if any, and when it is due (µs).
    armed: RefCell<Option<(u64, JsValue)>>,
    /// What the timer calls: [`Timers::fire`]. Lives as long as the table, whose drop clears the
    /// timer, so JavaScript never calls it freed.
    fire: Closure<dyn FnMut()>,
}

impl Timers {
    fn new() -> Rc<Timers> {
        Rc::new_cyclic(|me: &Weak<Timers>| {
            let me = me.clone();
            Timers {
                sleeps: RefCell::default(),
                started: Cell::new(0),
                armed: RefCell::new(None),
                fire: Closure::new(move || {
                    if let Some(timers) = me.upgrade() {
                        timers.fire();
                    }
                }),
            }
        })
    }

    /// Sets the timer for `due` unless it is set for then or earlier.
    fn arm(&self, due: u64, now: u64) {
        let mut armed = self.armed.borrow_mut();
        if armed.as_ref().is_some_and(|(at, _)| *at <= due) {
            return;
        }
        if let Some((_, id)) = armed.take() {
            clear_timeout(&id);
        }
        // setTimeout clamps to a signed 32-bit millisecond count; longer waits would fire at once.
        let ms = (due.saturating_sub(now).div_ceil(1000)).min(i32::MAX as u64) as f64;
        *armed = Some((due, set_timeout(self.fire.as_ref().unchecked_ref(), ms)));
    }

    /// The timer fired: wakes the sleeps that are due and sets it for the next one.
    fn fire(&self) {
        self.armed.borrow_mut().take();
        let now = now_us();
        let due: Vec<Rc<RefCell<Shared>>> = {
            let mut sleeps = self.sleeps.borrow_mut();
            let due = sleeps.partition_point(|((at, _), _)| *at <= now);
            sleeps.drain(..due).map(|(_, shared)| shared).collect()
        };
        let next = self.sleeps.borrow().first().map(|((at, _), _)| *at);
        if let Some(at) = next {
            self.arm(at, now);
        }
        for shared in due {
            let waker = {
                let mut shared = shared.borrow_mut();
                shared.fired = true;
                shared.waker.take()
            };
            if let Some(waker) = waker {
                waker.wake();
            }
        }
    }
}

impl Drop for Timers {
    fn drop(&mut self) {
        if let Some((_, id)) = self.armed.get_mut().take() {
            clear_timeout(&id);
        }
    }
}

fn now_us() -> u64 {
    (performance_now() * 1000.0) as u64
}

/// A sleep as a future; dropping it before it is due takes it out of the table.
struct Sleep {
    shared: Rc<RefCell<Shared>>,
    key: Key,
    timers: Rc<Timers>,
}

impl Sleep {
    fn start(timers: &Rc<Timers>, ms: u64) -> Sleep {
        let now = now_us();
        let due = now.saturating_add(ms.min(i32::MAX as u64) * 1000);
        let key = (due, timers.started.get());
        timers.started.set(key.1 + 1);
        let shared = Rc::new(RefCell::new(Shared::default()));
        let mut sleeps = timers.sleeps.borrow_mut();
        let place = sleeps.partition_point(|(k, _)| *k < key);
        sleeps.insert(place, (key, shared.clone()));
        drop(sleeps);
        timers.arm(due, now);
        Sleep { shared, key, timers: timers.clone() }
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
            let mut sleeps = self.timers.sleeps.borrow_mut();
            if let Ok(place) = sleeps.binary_search_by(|(k, _)| k.cmp(&self.key)) {
                sleeps.remove(place);
            }
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
