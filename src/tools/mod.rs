//! Tools: their specs, argument validation against JSON Schema, and "did you mean" for names.

mod schema;
mod spec;
mod suggest;
mod toolset;

pub use schema::{Schema, SchemaError};
pub use spec::ToolSpec;
pub use suggest::closest;
pub use toolset::{CallCheck, ToolSet, ToolSetError};
