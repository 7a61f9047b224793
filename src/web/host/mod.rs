//! What the worker does with each message from the page: build the agent, start and cancel runs,
//! hand replies to the requests waiting for them, dispose.
//!
//! No web dependencies: the transport, the clock, the random source and the way futures are
//! spawned come in from outside, so the whole protocol is exercised natively as well as in the
//! browser. `worker.rs` only wires it to `postMessage` and `setTimeout`.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::engine::{Agent, AgentConfig, AgentError, Clock, Effects, Random};
use crate::errors::{FailureClass, KeelErrorCode, RawFailure};
use crate::store::Store;
use crate::tools::ToolSpec;

use super::locks::StoreLocks;
use super::model_source::{ModelSource, Opener};
use super::models::{self, ModelContext};
use super::openai::{platform_http, Http};
use super::protocol::{protocol_failure, Init, ModelChoice, PageMessage, WorkerMessage};
use super::rpc::{PageReply, Rpc, Transport};
use super::stores;
use super::tool_host::{RpcToolHost, Timeouts};
use super::wire::{surrogate_warning, Header};

pub use super::spawn::Spawner;
use runs::Runs;

mod approvals;
mod runs;
mod warm;

/// What the worker should do after a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// Keep listening.
    Continue,
    /// The page disposed of the agent: close the worker.
    Close,
}

/// The agent built by `init`, and what each run's effects are made from.
pub(crate) struct Built {
    /// The agent: its tools and settings. Each run brings its own effects ([`Built::effects_for`]).
    pub(crate) agent: Agent,
    /// Where every run writes, and where resumed runs are read from.
    pub(crate) store: Rc<dyn Store>,
    /// The Web Locks the store's runs hold ([`stores::Stores::locks`]).
    pub(crate) locks: StoreLocks,
    /// Time and waiting, for every run.
    pub(crate) clock: Rc<dyn Clock>,
    /// Randomness for every run's retry jitter.
    pub(crate) random: Rc<dyn Random>,
    /// Each tool's attempt timeout, sent with every call.
    pub(crate) timeouts: Rc<Timeouts>,
    /// The model backend (or chain), built afresh for each run.
    pub(crate) model: ModelChoice,
    /// HTTP for the openai backend.
    pub(crate) http: Rc<dyn Http>,
    /// The Prompt API, when the worker opened it itself.
    pub(crate) worker_prompt_api: Option<Rc<dyn ModelSource>>,
    /// The context window a page backend reported, shared between runs.
    pub(crate) page_window: Rc<Cell<Option<usize>>>,
    /// The store the agent writes to, as the page's `query` messages read it.
    pub(crate) log: Rc<dyn super::queries::FailureLog>,
}

impl Built {
    /// What the run `run_id` runs on: its own model and tool host, whose calls to the page carry
    /// the run's id, over the agent's store, clock and randomness.
    pub(crate) fn effects_for(&self, rpc: &Rc<Rpc>, run_id: &str) -> Effects {
        let context = ModelContext {
            worker_prompt_api: self.worker_prompt_api.clone(),
            page_window: self.page_window.clone(),
            ..ModelContext::for_run(rpc, run_id, self.http.clone(), self.clock.clone())
        };
        Effects {
            model: models::build(&self.model, &context),
            tools: Rc::new(RpcToolHost::new(rpc.clone(), run_id, self.timeouts.clone())),
            store: self.store.clone(),
            clock: self.clock.clone(),
            random: self.random.clone(),
        }
    }
}

/// The worker's state. Nothing here is borrowed across an await: runs take an `Rc` of what they need.
pub struct WorkerHost {
    pub(crate) rpc: Rc<Rpc>,
    pub(crate) clock: Rc<dyn Clock>,
    pub(crate) random: Rc<dyn Random>,
    pub(crate) spawn: Spawner,
    pub(crate) built: RefCell<Option<Rc<Built>>>,
    pub(crate) runs: Runs,
    http: RefCell<Rc<dyn Http>>,
    /// Opens the backends the worker runs itself.
    opener: RefCell<Option<Opener>>,
    /// An `init` is opening its backend.
    opening: Cell<bool>,
    disposed: Cell<bool>,
}

impl WorkerHost {
    /// A host posting through `transport`, with these effects and this way of spawning runs.
    pub fn new(
        transport: Rc<dyn Transport>,
        clock: Rc<dyn Clock>,
        random: Rc<dyn Random>,
        spawn: Spawner,
    ) -> Rc<WorkerHost> {
        Rc::new(WorkerHost {
            rpc: Rpc::new(transport),
            clock,
            random,
            spawn,
            built: RefCell::new(None),
            runs: Runs::default(),
            http: RefCell::new(platform_http()),
            opener: RefCell::new(None),
            opening: Cell::new(false),
            disposed: Cell::new(false),
        })
    }

    /// Replaces the HTTP transport of agents built from now on (`fetch` in the browser; tests
    /// script it).
    pub fn set_http(&self, http: Rc<dyn Http>) {
        *self.http.borrow_mut() = http;
    }

    /// Lets the worker run the backends `opener` opens itself, instead of asking the page.
    pub fn set_opener(&self, opener: Opener) {
        *self.opener.borrow_mut() = Some(opener);
    }

    /// The pending-request table (tests look at it).
    pub fn rpc(&self) -> &Rc<Rpc> {
        &self.rpc
    }

    /// Handles one message, given as JSON text. A malformed or unexpected message fails the
    /// request it belongs to, or gets an `error` reply; nothing the page sends can make the worker
    /// panic. Lone surrogates are replaced (see [`super::wire`]) and said so in a warning.
    pub fn handle(self: &Rc<Self>, text: &str) -> Control {
        if self.disposed.get() {
            return Control::Close;
        }
        let (message, replaced) = match PageMessage::read(text) {
            Ok(read) => read,
            Err(unreadable) => {
                let (header, error) = *unreadable;
                self.unreadable(&header, error);
                return Control::Continue;
            }
        };
        let warning = |what: &str| (replaced > 0).then(|| surrogate_warning(what, replaced));
        match message {
            PageMessage::Init(init) => {
                self.init(init, warning("the agent's tools and config").into_iter().collect())
            }
            PageMessage::Run(run) => self.start_run(run, warning("the run's task or session")),
            PageMessage::Cancel { run_id } => self.runs.cancel(&run_id),
            PageMessage::UnfinishedRuns { id } => self.unfinished_runs(id),
            PageMessage::ToolResult(reply) => {
                self.warn_run(reply.id(), warning("the tool's reply"));
                self.rpc.resolve(PageReply::Tool(reply));
            }
            PageMessage::ModelResult(reply) => {
                self.warn_run(reply.id(), warning("the model's reply"));
                self.rpc.resolve(PageReply::Model(reply));
            }
            PageMessage::ModelChunk { id, text } => self.rpc.chunk(id, text),
            PageMessage::RedactResult(reply) => {
                self.rpc.resolve(PageReply::Redact(reply));
            }
            PageMessage::NeedsApprovalResult(reply) => {
                self.rpc.resolve(PageReply::NeedsApproval(reply));
            }
            PageMessage::Decide { id, decision } => self.decide(id, decision),
            PageMessage::PendingApprovals { id } => self.pending_approvals(id),
            PageMessage::Query { id, query } => {
                let log = self.built.borrow().as_ref().map(|built| built.log.clone());
                super::queries::answer(log, &self.rpc, &self.spawn, id, query)
            }
            PageMessage::Ping { id } => self.rpc.post(&WorkerMessage::Pong { id }),
            PageMessage::Warm => self.warm(),
            PageMessage::Dispose => {
                self.dispose();
                return Control::Close;
            }
        }
        Control::Continue
    }

    /// Answers a message the worker could not read, where the page or the worker waits for it: a
    /// reply to a tool or model call fails that call at once, as a failure that is not retried
    /// (the tool ran: running it again would repeat its side effect); a page request gets its
    /// failed answer; anything else an `error` message.
    pub fn unreadable(&self, header: &Header, error: RawFailure) {
        let call = match header.kind.as_deref() {
            Some("toolResult") => {
                Some(("the tool ran, but its reply", FailureClass::Persistent, "it is not run again"))
            }
            Some("modelResult") => Some(("the model's reply", FailureClass::Fatal, "fix the model function")),
            Some("redactResult") => Some(("the redaction function's reply", FailureClass::Persistent, "")),
            Some("needsApprovalResult") => Some((
                "the needsApproval function's reply",
                FailureClass::Persistent,
                "the call waits for approval",
            )),
            _ => None,
        };
        if let (Some((what, class, then)), Some(id)) = (call, header.id) {
            let detail = error.message.trim_start_matches("the worker could not read ");
            let message = format!(
                "{what} could not be read by the worker ({detail}){}",
                if then.is_empty() { String::new() } else { format!("; {then}") }
            );
            let mut failure = protocol_failure(message);
            failure.hints.class = Some(class);
            if self.rpc.fail(id, failure) {
                return;
            }
        }
        let reply =
            WorkerMessage::unreadable(header, error.clone()).unwrap_or(WorkerMessage::Error { error });
        self.rpc.post(&reply);
    }

    /// A `warning` event for the run that made request `id`, if there is something to say.
    fn warn_run(&self, id: u64, warning: Option<String>) {
        if let (Some(message), Some(run_id)) = (warning, self.rpc.run_of(id)) {
            let event = crate::engine::Event::Warning { step: None, message };
            self.rpc.post(&WorkerMessage::Event { run_id, event });
        }
    }

    /// Builds the agent, after opening its backend when the worker runs it itself (asynchronously:
    /// `ready` or `initFailed` comes once the backend answered).
    fn init(self: &Rc<Self>, init: Init, warnings: Vec<String>) {
        if self.built.borrow().is_some() || self.opening.get() {
            let error = protocol_failure("the agent is already built: send `init` once per worker");
            self.rpc.post(&WorkerMessage::InitFailed { error });
            return;
        }
        let model = match init.read_model() {
            Ok(model) => model,
            Err(error) => return self.rpc.post(&WorkerMessage::InitFailed { error }),
        };
        let opening = self.opener.borrow().as_ref().and_then(|open| open(&model));
        let Some(opening) = opening else {
            self.finish_init(init, model, Ok(None), warnings);
            return;
        };
        self.opening.set(true);
        let host = self.clone();
        (self.spawn)(Box::pin(async move {
            let opened = opening.await;
            host.opening.set(false);
            match opened {
                Ok(source) if host.disposed.get() => source.dispose(),
                opened => host.finish_init(init, model, opened.map(Some), warnings),
            }
        }));
    }

    /// Builds the agent over the Prompt API the worker opened, if it did.
    fn finish_init(
        &self,
        init: Init,
        model: ModelChoice,
        opened: Result<Option<Rc<dyn ModelSource>>, RawFailure>,
        warnings: Vec<String>,
    ) {
        let built = opened.and_then(|source| {
            self.build(init, model, source.clone()).inspect_err(|_| {
                if let Some(source) = &source {
                    source.dispose();
                }
            })
        });
        let reply = match built {
            Ok(built) => {
                *self.built.borrow_mut() = Some(Rc::new(built));
                WorkerMessage::Ready { warnings }
            }
            Err(error) => WorkerMessage::InitFailed { error },
        };
        self.rpc.post(&reply);
        // The page has its answer before the work `build` spawned (the database's open) first runs.
        self.rpc.flush();
    }

    fn build(
        &self,
        init: Init,
        model: ModelChoice,
        worker_prompt_api: Option<Rc<dyn ModelSource>>,
    ) -> Result<Built, RawFailure> {
        models::check(&model)?;
        let config = init.read_config()?;
        let tools = init.read_tools()?;
        let names: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
        let redactor = stores::redactor_for(&init.config, &names, &self.rpc)?;
        let stores::Stores { store, log, locks } = stores::store_for(&init.config, &self.spawn)?;
        let timeouts = Rc::new(Timeouts::new(&tools, config.tool_timeout_ms));
        let agent = new_agent(tools, config)?;
        let agent = match redactor {
            Some(redactor) => agent.with_redactor(redactor),
            None => agent,
        };
        let page_window = Rc::default();
        Ok(Built {
            agent,
            store,
            locks,
            clock: self.clock.clone(),
            random: self.random.clone(),
            timeouts,
            model,
            http: self.http.borrow().clone(),
            worker_prompt_api,
            page_window,
            log,
        })
    }

    fn dispose(&self) {
        self.disposed.set(true);
        self.runs.cancel_all();
        let failure = RawFailure::named("AbortError", "the agent was disposed");
        self.rpc.fail_all(&failure);
        let built = self.built.borrow_mut().take();
        if let Some(built) = built {
            if let Some(source) = &built.worker_prompt_api {
                source.dispose();
            }
        }
    }
}

/// The agent of an `init`'s tools and settings, its errors as `init` reports them: a setting
/// (`INVALID_CONFIG`) or a tool (`INVALID_TOOLS`). The real `init` and the warm-up build it alike.
pub(super) fn new_agent(tools: Vec<ToolSpec>, config: AgentConfig) -> Result<Agent, RawFailure> {
    Agent::new(tools, config).map_err(|e| match e {
        AgentError::Config(e) => stores::invalid_config(e.to_string()),
        e => invalid_tools(e.to_string()),
    })
}

/// A tool spec the page got wrong.
fn invalid_tools(message: String) -> RawFailure {
    super::init::invalid_setting(KeelErrorCode::InvalidTools, message)
}
