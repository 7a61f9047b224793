//! The model backends a [`ModelChoice`] names, built per run: `check` at `init` (a clear
//! `initFailed` for a bad or missing backend), `build` when a run starts (a custom model's calls
//! carry the run's id; a fallback chain starts again from its first choice and warns in that run).
//!
//! Chain members are built by the same function as a lone backend, so a new kind plugs in here
//! once. A kind this build lacks is an `initFailed` on its own, and in a chain a member that fails
//! with `MODEL_UNAVAILABLE`, so the chain moves past it with a warning.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;

use crate::engine::{Clock, Event, Model, ModelReply, ModelRequest, ReplySink};
use crate::errors::{ErrorCode, KeelErrorCode, RawFailure};

use super::fallback::{Backend, FallbackModel, WarningSink};
use super::js_model::{PageModel, PagePrompt};
use super::model_source::ModelSource;
use super::openai::{Http, OpenaiConfig, OpenaiModel};
use super::protocol::{ModelChoice, WorkerMessage};
use super::rpc::Rpc;

/// What a run's backends are made from.
pub struct ModelContext {
    /// The page, for the custom model.
    pub rpc: Rc<Rpc>,
    /// The run the calls belong to.
    pub run_id: String,
    /// HTTP for the openai backend.
    pub http: Rc<dyn Http>,
    /// The clock, for Retry-After dates.
    pub clock: Rc<dyn Clock>,
    /// Where a fallback chain's warnings go.
    pub warn: WarningSink,
    /// The Prompt API, when the worker opened it itself (an extension's worker); else the page runs it.
    pub worker_prompt_api: Option<Rc<dyn ModelSource>>,
    /// The context window a page backend reported, shared between runs.
    pub page_window: Rc<Cell<Option<usize>>>,
    /// What the page keeps of the run's last call to each of its backends (`keep` in a
    /// `modelCall`): one per backend, however often a chain names it.
    pub page_prompts: RefCell<HashMap<&'static str, Rc<RefCell<PagePrompt>>>>,
}

impl ModelContext {
    /// The context of run `run_id`: warnings become that run's `warning` events.
    pub fn for_run(rpc: &Rc<Rpc>, run_id: &str, http: Rc<dyn Http>, clock: Rc<dyn Clock>) -> Self {
        let (events, id) = (rpc.clone(), run_id.to_string());
        let warn: WarningSink = Rc::new(move |message| {
            let event = Event::Warning { step: None, message };
            events.post(&WorkerMessage::Event { run_id: id.clone(), event });
        });
        ModelContext {
            rpc: rpc.clone(),
            run_id: run_id.to_string(),
            http,
            clock,
            warn,
            worker_prompt_api: None,
            page_window: Rc::default(),
            page_prompts: RefCell::default(),
        }
    }

    /// A model the page runs, labelled so the page knows which of its backends answers.
    fn page(&self, backend: &'static str, greedy: bool) -> Rc<dyn Model> {
        Rc::new(
            PageModel::new(self.rpc.clone(), &self.run_id, backend)
                .decoding_greedily(greedy)
                .sharing_window(self.page_window.clone())
                .sharing_prompt(self.page_prompts.borrow_mut().entry(backend).or_default().clone()),
        )
    }
}

/// Checks a choice at `init`: a backend this build lacks, a malformed `openai` option, or a chain
/// with nothing this build can run is a structured failure saying what to pass instead.
pub fn check(choice: &ModelChoice) -> Result<(), RawFailure> {
    match choice {
        // The page checks the Prompt API's availability before it starts the worker.
        ModelChoice::Custom { .. } | ModelChoice::PromptApi => Ok(()),
        ModelChoice::Openai { base_url, model, .. } => {
            let url = base_url.trim();
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(invalid(format!(
                    "openai.baseUrl must be an http(s) URL such as http://127.0.0.1:8080/v1, not {base_url:?}"
                )));
            }
            if model.trim().is_empty() {
                return Err(invalid("openai.model must name the model the server should run".into()));
            }
            Ok(())
        }
        ModelChoice::Fallback { chain } => {
            let mut runnable = false;
            for member in chain {
                match check(member) {
                    Ok(()) => runnable = true,
                    Err(e) if e.code.as_deref() == Some(ErrorCode::ModelUnavailable.as_str()) => {}
                    Err(e) => return Err(e),
                }
            }
            if runnable {
                Ok(())
            } else {
                Err(missing(&format!("a fallback chain of {} backend(s) this build cannot run", chain.len())))
            }
        }
        other => Err(missing(&format!("the `{}` model backend", other.kind()))),
    }
}

/// The model for one run.
pub fn build(choice: &ModelChoice, context: &ModelContext) -> Rc<dyn Model> {
    match choice {
        ModelChoice::Fallback { chain } => {
            let mut backends = Vec::new();
            flatten(chain, context, &mut backends);
            Rc::new(FallbackModel::new(backends, context.warn.clone()))
        }
        lone => backend(lone, context).model,
    }
}

/// A chain's members, nested chains spliced in place.
fn flatten(chain: &[ModelChoice], context: &ModelContext, out: &mut Vec<Backend>) {
    for member in chain {
        match member {
            ModelChoice::Fallback { chain } => flatten(chain, context, out),
            one => out.push(backend(one, context)),
        }
    }
}

/// One backend and its label.
fn backend(choice: &ModelChoice, context: &ModelContext) -> Backend {
    let (label, model): (String, Rc<dyn Model>) = match choice {
        ModelChoice::Custom { greedy } => ("custom".into(), context.page("custom", *greedy)),
        ModelChoice::PromptApi => {
            let model = match &context.worker_prompt_api {
                Some(source) => source.for_run(&context.rpc, &context.run_id),
                None => context.page("promptApi", false),
            };
            ("prompt-api".into(), model)
        }
        ModelChoice::Openai { base_url, model, api_key, response_format, stream } => {
            let config = OpenaiConfig {
                base_url: base_url.clone(),
                model: model.clone(),
                api_key: api_key.clone(),
                response_format: *response_format,
                stream: *stream,
            };
            let openai = OpenaiModel::new(config, context.http.clone(), context.clock.clone());
            (format!("openai {model} at {base_url}"), Rc::new(openai))
        }
        other => {
            let failure = missing(&format!("the `{}` model backend", other.kind()));
            (other.kind().to_string(), Rc::new(Missing(failure)))
        }
    };
    Backend { label, model }
}

/// A backend this build lacks, as a chain member: every call fails with why.
struct Missing(RawFailure);

impl Model for Missing {
    fn complete<'a>(
        &'a self,
        _: &'a ModelRequest,
        _: Option<&'a dyn ReplySink>,
    ) -> LocalBoxFuture<'a, Result<ModelReply, RawFailure>> {
        futures_util::future::ready(Err(self.0.clone())).boxed_local()
    }
}

fn missing(what: &str) -> RawFailure {
    RawFailure {
        name: Some("NotSupportedError".into()),
        ..RawFailure::coded(
            ErrorCode::ModelUnavailable.as_str(),
            format!(
                "{what} is not in this build of keel yet; pass `model: \"prompt-api\"`, \
                 `{{ openai: {{ baseUrl, model }} }}` or `{{ custom: async (messages, {{ schema, signal }}) => text }}`"
            ),
        )
    }
}

fn invalid(message: String) -> RawFailure {
    RawFailure::coded(KeelErrorCode::InvalidModel, message)
}
