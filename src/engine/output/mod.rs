//! The model's output: reading a step out of whatever the model wrote (with safe repairs), the
//! precise format errors fed back when that fails, and the step schema that constrains decoding.

mod answer_stream;
mod format_error;
mod interpret;
mod normalise;
mod parse;
mod placeholder;
mod repair;
mod scan;
mod step;
mod step_schema;

pub use answer_stream::AnswerScanner;
pub use format_error::{FormatError, FormatErrorKind, EXPECTED_SHAPE};
pub use parse::{parse_step, Parsed};
pub(crate) use placeholder::is_answer_placeholder;
pub use repair::Repair;
pub use step::Step;
pub(crate) use step_schema::choice_schema;
pub use step_schema::{step_schema, THOUGHT_MAX_LENGTH};
