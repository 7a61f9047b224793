//! Where each run's model comes from: the page (the `custom` function; the Prompt API on the web,
//! where only windows have `LanguageModel`) or a backend the worker runs itself (the Prompt API in
//! a Chrome extension's worker). The host asks an [`Opener`] first and falls back to the page.

use std::cell::Cell;
use std::rc::Rc;

use futures_util::future::LocalBoxFuture;

use crate::engine::Model;
use crate::errors::RawFailure;

use super::js_model::PageModel;
use super::protocol::ModelChoice;
use super::rpc::Rpc;

/// Makes each run's model, and releases what the backend holds when the agent is disposed.
pub trait ModelSource {
    /// The model for the run `run_id` (`""` for the agent's run-less effects); calls to the page
    /// and events go through `rpc`, tagged with the run.
    fn for_run(&self, rpc: &Rc<Rpc>, run_id: &str) -> Rc<dyn Model>;

    /// Releases the backend's resources (the Prompt API's sessions).
    fn dispose(&self) {}
}

/// Opening a backend the worker runs itself: resolves to its models, or the failure `init` reports.
pub type Opening = LocalBoxFuture<'static, Result<Rc<dyn ModelSource>, RawFailure>>;

/// Opens the backends the worker can run itself; `None` when it cannot run `choice` (the page then
/// does, if it can). The wasm glue supplies it; native tests run without one.
pub type Opener = Rc<dyn Fn(&ModelChoice) -> Option<Opening>>;

/// Models the page runs, sharing the context window the page reports between runs.
#[derive(Default)]
pub struct PageModels {
    window: Rc<Cell<Option<usize>>>,
}

impl ModelSource for PageModels {
    fn for_run(&self, rpc: &Rc<Rpc>, run_id: &str) -> Rc<dyn Model> {
        Rc::new(PageModel::new(rpc.clone(), run_id).sharing_window(self.window.clone()))
    }
}

/// The page's models for `choice`, or a clear failure for a backend this build does not have.
pub fn page_models(choice: &ModelChoice) -> Result<Rc<dyn ModelSource>, RawFailure> {
    match choice {
        ModelChoice::Custom | ModelChoice::PromptApi => Ok(Rc::new(PageModels::default())),
        _ => Err(RawFailure {
            name: Some("NotSupportedError".into()),
            ..RawFailure::coded(
                "MODEL_UNAVAILABLE",
                format!(
                    "the `{}` model backend is not in this build of keel yet; pass `model: \"prompt-api\"` \
                     or `model: {{ custom: async (messages, {{ schema, signal }}) => text }}`",
                    choice.kind()
                ),
            )
        }),
    }
}
