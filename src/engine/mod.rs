//! The ReAct loop and everything it decides: the effects it runs on, the steps it parses, the
//! prompt it builds, the budgets it keeps and the retries it schedules.

mod cancel;
mod effects;
mod retry;
mod turn;

pub use cancel::{CancelToken, Cancelled};
pub use effects::{
    Clock, Message, Model, ModelReply, ModelRequest, Random, Role, ToolCall, ToolHost, ToolOutput, Usage,
};
pub use retry::{RetryDecision, RetryPolicy};
pub use turn::{Action, Outcome, Turn};
