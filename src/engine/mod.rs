//! The ReAct loop and everything it decides: the effects it runs on, the steps it parses, the
//! prompt it builds, the budgets it keeps and the retries it schedules.

mod effects;
mod turn;

pub use effects::{
    Clock, Message, Model, ModelReply, ModelRequest, Random, Role, ToolCall, ToolHost, ToolOutput, Usage,
};
pub use turn::{Action, Outcome, Turn};
