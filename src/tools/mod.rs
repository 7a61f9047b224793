//! Tools: their specs, argument validation against JSON Schema, and "did you mean" for names.

mod spec;
mod toolset;

pub use spec::ToolSpec;
pub use toolset::{CallCheck, ToolSet, ToolSetError};
