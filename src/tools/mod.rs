//! Tools: their specs, argument validation against JSON Schema, and "did you mean" for names.

mod limits;
pub mod rank;
mod schema;
mod spec;
mod suggest;
mod toolset;

pub use limits::{
    depth, MAX_ATTEMPTS, MAX_DESCRIPTION_CHARS, MAX_SCHEMA_BYTES, MAX_SCHEMA_DEPTH, MAX_TOOLS, MAX_WAIT_MS,
};
pub use schema::{Formats, Schema, SchemaError};
pub use spec::{NeedsApproval, OnUnknownOutcome, ToolSpec};
pub use suggest::closest;
pub use toolset::{CallCheck, ToolSet, ToolSetError};
