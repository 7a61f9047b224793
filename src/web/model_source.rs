//! Backends the worker runs itself (the Prompt API in a Chrome extension's worker, where the worker
//! has `LanguageModel`): opened once at `init` by an [`Opener`], then asked for each run's model.
//! Without one, the page runs the backend (on the web only windows have `LanguageModel`).

use std::rc::Rc;

use futures_util::future::LocalBoxFuture;

use crate::engine::Model;
use crate::errors::RawFailure;

use super::protocol::ModelChoice;
use super::rpc::Rpc;

/// Makes each run's model, and releases what the backend holds when the agent is disposed.
pub trait ModelSource {
    /// The model for the run `run_id`; calls to the page and events go through `rpc`, tagged with
    /// the run.
    fn for_run(&self, rpc: &Rc<Rpc>, run_id: &str) -> Rc<dyn Model>;

    /// Releases the backend's resources (the Prompt API's sessions).
    fn dispose(&self) {}
}

/// Opening a backend the worker runs itself: resolves to its models, or the failure `init` reports.
pub type Opening = LocalBoxFuture<'static, Result<Rc<dyn ModelSource>, RawFailure>>;

/// Opens the backends the worker can run itself; `None` when it cannot run `choice` (the page then
/// does, if it can). The wasm glue supplies it; native tests run without one.
pub type Opener = Rc<dyn Fn(&ModelChoice) -> Option<Opening>>;
