//! What the worker does with each message from the page: build the agent, start and cancel runs,
//! hand replies to the requests waiting for them, dispose.
//!
//! No web dependencies: the transport, the clock, the random source and the way futures are
//! spawned come in from outside, so the whole protocol is exercised natively as well as in the
//! browser. `worker.rs` only wires it to `postMessage` and `setTimeout`.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures_util::future::LocalBoxFuture;

use crate::engine::{Agent, AgentConfig, Clock, Effects, Random};
use crate::errors::RawFailure;

use super::js_model::PageModel;
use super::protocol::{protocol_failure, Init, ModelChoice, PageMessage, WorkerMessage};
use super::rpc::{PageReply, Rpc, Transport};
use super::runs::Runs;
use super::tool_host::{RpcToolHost, Timeouts};

/// Starts a future on the worker's event loop (`spawn_local` in the browser, a pool in tests).
pub type Spawner = Rc<dyn Fn(LocalBoxFuture<'static, ()>)>;

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
    /// The agent with run-less effects: each run gets a copy over its own model and tool host.
    pub(crate) agent: Agent,
    /// Each tool's attempt timeout, sent with every call.
    pub(crate) timeouts: Rc<Timeouts>,
}

impl Built {
    /// The agent for one run: calls to the page carry the run's id.
    pub(crate) fn agent_for(&self, rpc: &Rc<Rpc>, run_id: &str) -> Agent {
        let effects = Effects {
            model: Rc::new(PageModel::new(rpc.clone(), run_id)),
            tools: Rc::new(RpcToolHost::new(rpc.clone(), run_id, self.timeouts.clone())),
            ..self.agent.effects().clone()
        };
        self.agent.with_effects(effects)
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
            disposed: Cell::new(false),
        })
    }

    /// The pending-request table (tests look at it).
    pub fn rpc(&self) -> &Rc<Rpc> {
        &self.rpc
    }

    /// Handles one message, given as JSON text. A malformed or unexpected message gets an `error`
    /// reply; nothing the page sends can make the worker panic.
    pub fn handle(self: &Rc<Self>, text: &str) -> Control {
        if self.disposed.get() {
            return Control::Close;
        }
        let message = match PageMessage::from_json(text) {
            Ok(message) => message,
            Err(error) => {
                self.rpc.post(&WorkerMessage::Error { error });
                return Control::Continue;
            }
        };
        match message {
            PageMessage::Init(init) => self.init(init),
            PageMessage::Run(run) => self.start_run(run),
            PageMessage::Cancel { run_id } => self.runs.cancel(&run_id),
            PageMessage::ToolResult(reply) => {
                self.rpc.resolve(PageReply::Tool(reply));
            }
            PageMessage::ModelResult(reply) => {
                self.rpc.resolve(PageReply::Model(reply));
            }
            PageMessage::Dispose => {
                self.dispose();
                return Control::Close;
            }
        }
        Control::Continue
    }

    fn init(&self, init: Init) {
        let reply = match self.build(init) {
            Ok(built) => {
                *self.built.borrow_mut() = Some(Rc::new(built));
                WorkerMessage::Ready
            }
            Err(error) => WorkerMessage::InitFailed { error },
        };
        self.rpc.post(&reply);
    }

    fn build(&self, init: Init) -> Result<Built, RawFailure> {
        if self.built.borrow().is_some() {
            return Err(protocol_failure("the agent is already built: send `init` once per worker"));
        }
        if init.model != ModelChoice::Custom {
            return Err(RawFailure {
                name: Some("NotSupportedError".into()),
                ..RawFailure::coded(
                    "MODEL_UNAVAILABLE",
                    format!(
                        "the `{}` model backend is not in this build of keel yet; pass \
                         `model: {{ custom: async (messages, {{ schema, signal }}) => text }}`",
                        init.model.kind()
                    ),
                )
            });
        }
        let store = super::stores::store_for(&init.config, &self.spawn)?;
        let config: AgentConfig = if init.config.is_null() {
            AgentConfig::default()
        } else {
            serde_json::from_value(init.config)
                .map_err(|e| invalid("INVALID_CONFIG", format!("config: {e}")))?
        };
        let timeouts = Rc::new(Timeouts::new(&init.tools, config.tool_timeout_ms));
        let effects = Effects {
            model: Rc::new(PageModel::new(self.rpc.clone(), "")),
            tools: Rc::new(RpcToolHost::new(self.rpc.clone(), "", timeouts.clone())),
            store,
            clock: self.clock.clone(),
            random: self.random.clone(),
        };
        let agent =
            Agent::new(effects, init.tools, config).map_err(|e| invalid("INVALID_TOOLS", e.to_string()))?;
        Ok(Built { agent, timeouts })
    }

    fn dispose(&self) {
        self.disposed.set(true);
        self.runs.cancel_all();
        let failure = RawFailure::named("AbortError", "the agent was disposed");
        self.rpc.fail_all(&failure);
        self.built.borrow_mut().take();
    }
}

/// A failure of what the page asked for (a bad tool spec, a bad setting).
fn invalid(code: &str, message: String) -> RawFailure {
    RawFailure { name: Some("TypeError".into()), ..RawFailure::coded(code, message) }
}
