//! What the parser changed to read a step, so the loop can log it and count sloppy models.

use serde::{Deserialize, Serialize};
use std::fmt;

/// One repair the parser made to read a step. Each is safe: it never changes which tool runs or
/// with which arguments, only how they were spelled or wrapped.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "repair", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Repair {
    /// A Markdown code fence (```` ```json ````) around the object was removed.
    StrippedCodeFence,
    /// Prose (or further objects) before or after the first object was ignored.
    StrippedSurroundingText,
    /// Commas before `}` or `]` were removed.
    RemovedTrailingCommas,
    /// Strings in single quotes or typographic quotes (“ ” ‘ ’) were turned into `"` strings.
    NormalisedQuotes,
    /// Unquoted keys (`{thought: ...}`) were quoted.
    QuotedBareKeys,
    /// Python literals `True`, `False`, `None` were turned into `true`, `false`, `null`.
    PythonLiterals,
    /// Raw control characters (newlines, tabs) or invalid escapes (`\'`, `\d`) in strings were escaped.
    EscapedStrings,
    /// A lone UTF-16 surrogate escape (`\ud83d` not followed by its pair: half an emoji) was
    /// replaced by U+FFFD: no string can hold it, and JSON readers refuse the whole reply.
    ReplacedLoneSurrogates,
    /// The closing brackets of an object cut off right after a complete final answer were added.
    /// Only ever done for a final answer: a cut-off action might lack arguments.
    ClosedTruncatedJson,
    /// A key was spelled differently (`finalAnswer`, `arguments`, `action.name`).
    RenamedKey {
        /// The key as the model wrote it, with its path (`action.name`).
        from: String,
        /// The canonical key (`action.tool`).
        to: String,
    },
    /// The tool and its arguments were given outside an `action` object (`{"tool": .., "args": ..}`,
    /// `{"action": "name", "action_input": {..}}`, `{"toolName": .., "toolInput": ..}`).
    FlatAction,
    /// The arguments were a JSON object encoded as a string and were decoded.
    ArgsFromString,
    /// The action had no `args` key: its other keys were taken as the arguments.
    ArgsFromSiblingKeys,
    /// The action had no arguments at all: `{}` was used.
    DefaultedArgs,
    /// The step had no thought: the empty thought was used.
    MissingThought,
    /// A field that should be a string (thought, final answer) was another JSON value and was written
    /// out as JSON text.
    StringifiedField {
        /// Which field (`thought`, `final_answer`).
        field: String,
    },
    /// An action naming no tool (`"none"`, `""`) next to a final answer was ignored.
    IgnoredNoneAction,
    /// The final answer was given as a call to a `final_answer` tool.
    FinalAnswerAsTool,
    /// A field the step does not use (a hallucinated `observation`, an empty `final_answer` next to
    /// an action) was ignored.
    DroppedField {
        /// The field, with its path (`observation`, `action.comment`).
        field: String,
    },
}

impl fmt::Display for Repair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Repair::StrippedCodeFence => f.write_str("removed a code fence"),
            Repair::StrippedSurroundingText => f.write_str("ignored text around the object"),
            Repair::RemovedTrailingCommas => f.write_str("removed trailing commas"),
            Repair::ReplacedLoneSurrogates => f.write_str("replaced lone surrogate escapes with U+FFFD"),
            Repair::NormalisedQuotes => f.write_str("turned single or typographic quotes into double quotes"),
            Repair::QuotedBareKeys => f.write_str("quoted bare keys"),
            Repair::PythonLiterals => f.write_str("turned True/False/None into JSON literals"),
            Repair::EscapedStrings => f.write_str("escaped raw control characters or bad escapes in strings"),
            Repair::ClosedTruncatedJson => f.write_str("closed an object cut off after the final answer"),
            Repair::RenamedKey { from, to } => write!(f, "read \"{from}\" as \"{to}\""),
            Repair::FlatAction => f.write_str("read a tool call given outside an \"action\" object"),
            Repair::ArgsFromString => f.write_str("decoded arguments given as a JSON string"),
            Repair::ArgsFromSiblingKeys => f.write_str("took the action's other keys as its arguments"),
            Repair::DefaultedArgs => f.write_str("used {} for missing arguments"),
            Repair::MissingThought => f.write_str("used an empty thought"),
            Repair::StringifiedField { field } => write!(f, "wrote \"{field}\" out as JSON text"),
            Repair::IgnoredNoneAction => f.write_str("ignored an action naming no tool"),
            Repair::FinalAnswerAsTool => f.write_str("read a final_answer tool call as the final answer"),
            Repair::DroppedField { field } => write!(f, "ignored \"{field}\""),
        }
    }
}
