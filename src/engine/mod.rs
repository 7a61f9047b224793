//! The ReAct loop and everything it decides: the effects it runs on, the steps it parses, the
//! prompt it builds, the budgets it keeps and the retries it schedules.

mod compact;
mod effects;
mod prompt;
mod shrink;
mod system_prompt;
mod tokens;
mod transcript;
mod turn;

pub use effects::{
    Clock, Message, Model, ModelReply, ModelRequest, Random, Role, ToolCall, ToolHost, ToolOutput, Usage,
};
pub use prompt::{build_messages, ContextError, PromptInput};
pub use tokens::{estimate, CharEstimate, TokenCounter, MESSAGE_OVERHEAD_TOKENS};
pub use turn::{Action, Outcome, Turn};
