//! `warm`: a spare worker, started before the page knows its agent (`Agent.preload()`), runs the
//! work of an `init` once on throwaway input, so that the real `init` finds that code compiled.
//! Chrome compiles each wasm function lazily, the first time it is called: an `init` in a fresh
//! worker spends most of its time compiling, not building.
//!
//! Nothing is kept and nothing is opened: no store (an IndexedDB store would open the database),
//! no backend, no state the `init` after it could see. The input is fixed, so it cannot fail; if it
//! ever did, the real `init` would fail the same way and say so.

use serde_json::json;

use super::WorkerHost;
use crate::engine::Agent;
use crate::errors::RawFailure;
use crate::web::models;
use crate::web::protocol::{Init, WorkerMessage};
use crate::web::tool_host::Timeouts;

impl WorkerHost {
    /// Builds an agent from a throwaway `init` (the custom model, the default settings and one
    /// tool), drops it, and answers `warmed`.
    pub(super) fn warm(&self) {
        drop(throwaway_agent());
        self.rpc.post(&WorkerMessage::Warmed);
    }
}

/// The agent an `init` with the custom model, the default settings and one tool builds, through
/// the same steps as [`WorkerHost::build`] less the store and the redactor.
fn throwaway_agent() -> Result<Agent, RawFailure> {
    let init = Init {
        tools: vec![json!({
            "name": "warm_up",
            "description": "Never called: the warm-up's tool.",
            "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
        })],
        model: json!({"kind": "custom"}),
        config: serde_json::Value::Null,
    };
    models::check(&init.read_model()?)?;
    let config = init.read_config()?;
    let tools = init.read_tools()?;
    drop(Timeouts::new(&tools, config.tool_timeout_ms));
    super::new_agent(tools, config)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_throwaway_init_builds_an_agent() {
        // A warm-up that failed early would leave the rest of `init`'s code cold.
        let agent = super::throwaway_agent().expect("the warm-up's init builds");
        assert_eq!(agent.tools().specs().len(), 1);
    }
}
