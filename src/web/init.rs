//! What `init` carries, read into the engine's types when the agent is built: each part on its
//! own, so that a mistake fails `init` with a code and the place it is (`tools[1].timeoutMs`,
//! `config.retry.maxAttemps`), read by [`crate::settings::read`] against the types themselves.

use serde_json::{json, Value};

use super::protocol::{Init, ModelChoice};
use crate::engine::AgentConfig;
use crate::errors::{KeelErrorCode, RawFailure};
use crate::settings::{read, SettingError};
use crate::tools::ToolSpec;

impl Init {
    /// The model choice, or an INVALID_CONFIG failure naming what is wrong with it.
    pub fn read_model(&self) -> Result<ModelChoice, RawFailure> {
        read(&self.model, "model", &[]).map_err(|e| misread(KeelErrorCode::InvalidConfig, &e, ""))
    }

    /// The tool specs, or an INVALID_TOOLS failure naming the tool and the field.
    pub fn read_tools(&self) -> Result<Vec<ToolSpec>, RawFailure> {
        let read_one = |(i, tool): (usize, &Value)| {
            read::<ToolSpec>(tool, &format!("tools[{i}]"), &[]).map_err(|e| {
                let name = tool.get("name").and_then(Value::as_str).map(|n| format!(" (tool `{n}`)"));
                misread(KeelErrorCode::InvalidTools, &e, &name.unwrap_or_default())
            })
        };
        self.tools.iter().enumerate().map(read_one).collect()
    }

    /// The agent's settings (the config less `store`, which the store reads), or an INVALID_CONFIG
    /// failure naming the key.
    pub fn read_config(&self) -> Result<AgentConfig, RawFailure> {
        let config = match &self.config {
            Value::Null => return Ok(AgentConfig::default()),
            Value::Object(fields) => {
                let mut fields = fields.clone();
                fields.remove("store");
                Value::Object(fields)
            }
            other => other.clone(),
        };
        read(&config, "config", &["store"]).map_err(|e| misread(KeelErrorCode::InvalidConfig, &e, ""))
    }
}

/// A setting the page got wrong, with `code`.
pub fn invalid_setting(code: KeelErrorCode, message: String) -> RawFailure {
    RawFailure::coded(code, message)
}

/// A setting that could not be read, with `code`: the message, and the place (`path`) and the
/// closest known key (`suggestion`) in the details, which the page's `KeelError` carries as fields.
pub fn misread(code: KeelErrorCode, error: &SettingError, note: &str) -> RawFailure {
    let mut failure = invalid_setting(code, format!("{error}{note}"));
    failure.hints.details.insert("path".into(), json!(error.path));
    if let Some(near) = &error.suggestion {
        failure.hints.details.insert("suggestion".into(), json!(near));
    }
    failure
}
