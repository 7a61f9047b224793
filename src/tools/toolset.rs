//! The tools of one agent, their schemas compiled once, and the check every call goes through
//! before it runs: does the tool exist, and do the arguments fit.

use serde_json::Value;

use crate::errors::FieldIssue;

use super::{closest, Formats, Schema, SchemaError, ToolSpec};

/// Why a set of tool specs was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolSetError {
    /// Two tools share a name.
    #[error("two tools are named `{0}`: tool names must be unique")]
    DuplicateName(String),
    /// A tool has an empty name or one with characters models mangle.
    #[error("tool name `{0}` is invalid: use 1-64 letters, digits, `_`, `-` or `.`")]
    InvalidName(String),
    /// A tool takes a name the step format gives a meaning of its own.
    #[error("tool name `{0}` is reserved: the step parser reads it as a final answer; rename the tool")]
    ReservedName(String),
    /// More tools than [`MAX_TOOLS`](super::MAX_TOOLS).
    #[error("{0} tools: an agent takes at most {max}", max = super::MAX_TOOLS)]
    TooMany(usize),
    /// A tool's setting is out of range.
    #[error("tool `{tool}`: {message}")]
    InvalidSetting {
        /// The tool.
        tool: String,
        /// What is wrong, with what came and what was expected.
        message: String,
    },
    /// A tool's input schema cannot be used.
    #[error("the input schema of tool `{tool}` is invalid: {error}")]
    InvalidSchema {
        /// The tool.
        tool: String,
        /// What is wrong with it.
        error: SchemaError,
    },
    /// A tool's `refsFrom` names a tool the agent does not have.
    #[error("tool `{tool}`: refsFrom names `{named}`, which is not one of the agent's tools{}",
        closest.as_ref().map(|n| format!(" (did you mean `{n}`?)")).unwrap_or_default())]
    UnknownRefsFrom {
        /// The declaring tool.
        tool: String,
        /// The name it gave.
        named: String,
        /// The agent's tool closest to that name, if one is close.
        closest: Option<String>,
    },
    /// A tool's `recoverWith` names a tool the runtime cannot call on its own.
    #[error("tool `{tool}` declares recoverWith {code} → `{named}`, but {why}")]
    BadRecoverWith {
        /// The declaring tool.
        tool: String,
        /// The error code the recovery is for.
        code: String,
        /// The tool it names.
        named: String,
        /// What is wrong with it.
        why: &'static str,
    },
}

/// Why a call cannot run.
#[derive(Debug, Clone, PartialEq)]
pub enum CallCheck<'a> {
    /// The call may run.
    Valid(&'a ToolSpec),
    /// No tool has that name.
    UnknownTool {
        /// Close names, best first ("did you mean").
        suggestions: Vec<String>,
    },
    /// The arguments do not fit the schema.
    InvalidArgs {
        /// The tool.
        spec: &'a ToolSpec,
        /// Every problem found.
        issues: Vec<FieldIssue>,
    },
}

/// An agent's tools.
#[derive(Debug, Clone)]
pub struct ToolSet {
    specs: Vec<ToolSpec>,
    schemas: Vec<Schema>,
    names: Vec<String>,
    /// The tools' ranking index, built the first time a step selects among many tools.
    ranking: std::cell::OnceCell<super::rank::Index>,
}

/// Names the step parser treats as "no tool, this is the answer" (`{"tool": "none"}`,
/// `{"tool": "final_answer"}`): a tool so named could never be called.
const RESERVED: &[&str] = &["none", "final_answer", "finalanswer", "final"];

fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

impl ToolSet {
    /// The tools' BM25 index for ranking them against a query (`engine/selection.rs`), built once.
    pub fn ranking(&self) -> &super::rank::Index {
        self.ranking.get_or_init(|| super::rank::Index::new(&self.specs))
    }

    /// Checks and compiles `specs`, `format` an annotation.
    pub fn new(specs: Vec<ToolSpec>) -> Result<ToolSet, ToolSetError> {
        ToolSet::with_formats(specs, Formats::Annotation)
    }

    /// Checks and compiles `specs`, asserting `format` when `formats` says so.
    pub fn with_formats(specs: Vec<ToolSpec>, formats: Formats) -> Result<ToolSet, ToolSetError> {
        if specs.len() > super::MAX_TOOLS {
            return Err(ToolSetError::TooMany(specs.len()));
        }
        let mut schemas = Vec::with_capacity(specs.len());
        for (i, spec) in specs.iter().enumerate() {
            if RESERVED.contains(&spec.name.to_ascii_lowercase().as_str()) {
                return Err(ToolSetError::ReservedName(spec.name.clone()));
            }
            if !valid_name(&spec.name) {
                return Err(ToolSetError::InvalidName(spec.name.clone()));
            }
            if specs[..i].iter().any(|s| s.name == spec.name) {
                return Err(ToolSetError::DuplicateName(spec.name.clone()));
            }
            super::limits::check(spec)
                .map_err(|message| ToolSetError::InvalidSetting { tool: spec.name.clone(), message })?;
            let schema = Schema::compile_with(&spec.input_schema, formats)
                .map_err(|error| ToolSetError::InvalidSchema { tool: spec.name.clone(), error })?;
            schemas.push(schema);
        }
        let set = ToolSet {
            names: specs.iter().map(|s| s.name.clone()).collect(),
            specs,
            schemas,
            ranking: std::cell::OnceCell::new(),
        };
        set.check_links()?;
        Ok(set)
    }

    /// Every tool named by another's `refsFrom` or `recoverWith` exists, and a recovery tool is
    /// read-only and accepts `{}`: the runtime calls it on its own, with nothing from the model.
    fn check_links(&self) -> Result<(), ToolSetError> {
        for spec in &self.specs {
            if let Some(named) = spec.refs_from.iter().find(|n| self.get(n).is_none()) {
                let closest = super::closest(named, self.names.iter().map(String::as_str))
                    .first()
                    .map(|n| n.to_string());
                return Err(ToolSetError::UnknownRefsFrom {
                    tool: spec.name.clone(),
                    named: named.clone(),
                    closest,
                });
            }
            for (code, named) in &spec.recover_with {
                let why = match self.check(named, &Value::Object(Default::default())) {
                    CallCheck::UnknownTool { .. } => Some("there is no tool by that name"),
                    CallCheck::InvalidArgs { .. } => Some("it does not accept `{}` as its arguments"),
                    CallCheck::Valid(target) if !target.read_only => {
                        Some("it is not declared readOnly: the runtime only calls read-only tools itself")
                    }
                    CallCheck::Valid(_) => None,
                };
                if let Some(why) = why {
                    return Err(ToolSetError::BadRecoverWith {
                        tool: spec.name.clone(),
                        code: code.clone(),
                        named: named.clone(),
                        why,
                    });
                }
            }
        }
        Ok(())
    }

    /// The specs, in the order given.
    pub fn specs(&self) -> &[ToolSpec] {
        &self.specs
    }

    /// The tool names, in the order given.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The spec named `name`.
    pub fn get(&self, name: &str) -> Option<&ToolSpec> {
        self.specs.iter().find(|s| s.name == name)
    }

    /// Checks a call before it runs.
    pub fn check(&self, tool: &str, args: &Value) -> CallCheck<'_> {
        let Some(i) = self.specs.iter().position(|s| s.name == tool) else {
            let suggestions = closest(tool, self.names.iter().map(String::as_str))
                .into_iter()
                .map(str::to_string)
                .collect();
            return CallCheck::UnknownTool { suggestions };
        };
        let issues = self.schemas[i].validate(args);
        if issues.is_empty() {
            CallCheck::Valid(&self.specs[i])
        } else {
            CallCheck::InvalidArgs { spec: &self.specs[i], issues }
        }
    }
}
