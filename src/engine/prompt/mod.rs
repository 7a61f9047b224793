//! The prompt for each step: one system message (rules, tools, output format), the task with the
//! session's memory, and this run's steps, compacted so the estimate never exceeds the budget.

mod build;
mod compact;
mod history;
mod shrink;
mod system_prompt;
mod tokens;
mod transcript;

use super::{Message, Outcome, PastSteps, Remembered, Role, Turn};

pub use build::{build_messages, ContextError, PromptInput};
pub use history::Transcript;
pub(crate) use history::{MemoryLines, NewestFirst};
pub use tokens::{estimate, CharEstimate, TokenCounter, MESSAGE_OVERHEAD_TOKENS};
pub(crate) use transcript::next_step_text;
