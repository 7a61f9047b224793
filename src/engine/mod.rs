//! The ReAct loop and everything it decides: the effects it runs on, the steps it parses, the
//! prompt it builds, the budgets it keeps and the retries it schedules.
//!
//! - the loop: [`Agent`] (`agent.rs`), one run (`run.rs`), a tool call (`tool_turn.rs`), a model
//!   call (`model_turn.rs`), committing and ending (`finish.rs`), writing to the store, redacted
//!   when the agent has a redactor (`save.rs`), a step's write in flight while the next prompt is
//!   built (`step_write.rs`), resuming a cut-off run (`resume.rs`), pausing a
//!   call for the user's approval (`approval.rs`);
//! - its bookkeeping: [`FailureLog`], [`Repeats`], [`RetryPolicy`], [`CancelToken`], [`Event`];
//! - [`output`]: reading the model's step; [`prompt`]: building and compacting the prompt, with
//!   the session's earlier runs as [`Remembered`] lines.

mod acted_on;
mod agent;
mod answer_after_result;
mod answer_check;
mod answer_shape;
mod answer_tidy;
mod approval;
mod cancel;
mod choice;
mod config;
#[cfg(test)]
mod config_reading_tests;
mod conversion_codes;
mod effects;
mod events;
mod facts;
mod failure_log;
mod finish;
mod focused_answer;
mod focused_call;
mod gave_up;
mod greedy_replies;
mod grounding;
mod guard;
mod intent;
mod latest_listed;
mod memory;
mod memory_parts;
mod memory_text;
mod misread;
mod model_stream;
mod model_turn;
mod named_line;
mod narrowing;
mod observation;
pub mod output;
mod outputs;
mod own_names;
mod page_action;
mod parrot;
pub mod prompt;
mod provenance;
mod recall;
#[cfg(test)]
mod recall_tests;
mod recovering;
mod recovery_call;
mod repeats;
mod resume;
mod retry;
mod run;
mod save;
mod seen;
mod selection;
mod step_write;
mod task_parts;
mod task_values;
mod thought_answer;
mod times_of_day;
mod tool_turn;
mod unrelated;
mod unreturned_item;
mod unstated_numbers;
mod value_forms;
mod withheld;

pub use crate::settings::ConfigError;
pub use crate::turn::{digest, CallKey};
pub use crate::turn::{Action, Outcome, Turn};
pub use agent::{Agent, AgentError, Effects, RunOptions, RunResult};
pub use approval::{ApprovalError, Approvals, Decision};
pub use cancel::{CancelToken, Cancelled};
pub use config::{AgentConfig, PastSteps, ThoughtReplay, ToolChoice};
pub use effects::{
    Clock, Message, Model, ModelReply, ModelRequest, Random, ReplySink, Role, ToolCall, ToolHost, ToolOutput,
    Usage,
};
pub use events::Event;
pub use failure_log::{FailureLog, NewFailure};
pub use memory::Remembered;
pub use observation::describe_output;
pub use output::{parse_step, step_schema, AnswerScanner, FormatError, Parsed, Step};
pub use prompt::{
    build_messages, estimate, CharEstimate, ContextError, PromptInput, TokenCounter, Transcript,
};
pub use repeats::Repeats;
pub use retry::{RetryDecision, RetryPolicy};
pub use selection::{select, ToolSelection};
