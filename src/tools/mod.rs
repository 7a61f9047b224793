//! Tools: their specs, argument validation against JSON Schema, and "did you mean" for names.

mod spec;

pub use spec::ToolSpec;
