//! The final answer read out of a step while the model is still writing it: the step's JSON comes
//! in chunks cut anywhere (inside a key, an escape, a `\u` sequence), and the scanner hands back,
//! chunk by chunk, the decoded characters of the top-level `final_answer` string (or one of its
//! other spellings, as the parser reads them), so a page can show the answer as it is generated.
//!
//! It reads standard JSON only and stops at the end of the first object, as the parser's first
//! object decides; what the parser would repair (single quotes, bare keys) gives no text here. It
//! never decides anything: the step is still parsed whole when the reply is complete, and the run's
//! answer is the one the `finalAnswer` event carries.

use super::interpret::{is_answer_key, norm_key};

/// Reads the final answer out of a streamed step; see the module docs.
#[derive(Debug, Default)]
pub struct AnswerScanner {
    state: State,
    /// Object and array nesting once inside the first object (1 = its top level).
    depth: u32,
    /// At the top level: the next string is a key (else a value).
    expect_key: bool,
    /// The top-level key being read, or the last one read.
    key: String,
    /// The last top-level key names the final answer and its value has not started yet.
    answer_next: bool,
    /// A `\uD800`–`\uDBFF` escape waiting for its low half.
    high_surrogate: Option<u16>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the first `{` (a code fence, prose).
    #[default]
    Before,
    /// Inside the object, between strings.
    Structure,
    /// Inside a string.
    Text { kind: Kind, escape: Escape },
    /// The answer string or the first object ended: nothing more is read.
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Key,
    Answer,
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Escape {
    None,
    Backslash,
    /// `\u` and the hex digits read so far.
    Unicode {
        digits: u8,
        value: u16,
    },
}

impl AnswerScanner {
    /// A scanner at the start of a reply.
    pub fn new() -> Self {
        AnswerScanner::default()
    }

    /// Reads the next chunk of the reply; returns the answer's characters it completed (often
    /// empty: the chunk held no part of the answer, or only part of an escape).
    pub fn push(&mut self, chunk: &str) -> String {
        let mut out = String::new();
        for c in chunk.chars() {
            self.step(c, &mut out);
        }
        out
    }

    fn step(&mut self, c: char, out: &mut String) {
        match self.state {
            State::Before => {
                if c == '{' {
                    self.depth = 1;
                    self.expect_key = true;
                    self.state = State::Structure;
                }
            }
            State::Structure => self.structure(c),
            State::Text { kind, escape } => self.text(c, kind, escape, out),
            State::Done => {}
        }
    }

    fn structure(&mut self, c: char) {
        let top = self.depth == 1;
        match c {
            '"' => {
                let kind = if top && self.expect_key {
                    self.key.clear();
                    Kind::Key
                } else if top && self.answer_next {
                    Kind::Answer
                } else {
                    Kind::Other
                };
                self.state = State::Text { kind, escape: Escape::None };
            }
            ':' if top => self.expect_key = false,
            ',' if top => {
                self.expect_key = true;
                self.answer_next = false;
            }
            '{' | '[' => {
                self.depth += 1;
                self.answer_next = false;
            }
            '}' | ']' => {
                self.depth -= 1;
                if self.depth == 0 {
                    self.state = State::Done;
                }
            }
            c if top && !c.is_whitespace() => self.answer_next = false,
            _ => {}
        }
    }

    fn text(&mut self, c: char, kind: Kind, escape: Escape, out: &mut String) {
        let mut sink = String::new();
        let next = match escape {
            Escape::None => match c {
                '"' => {
                    self.flush_surrogate(&mut sink);
                    self.close(kind);
                    None
                }
                '\\' => Some(Escape::Backslash),
                c => {
                    self.flush_surrogate(&mut sink);
                    sink.push(c);
                    Some(Escape::None)
                }
            },
            Escape::Backslash => {
                if c == 'u' {
                    Some(Escape::Unicode { digits: 0, value: 0 })
                } else {
                    self.flush_surrogate(&mut sink);
                    sink.push(match c {
                        'n' => '\n',
                        't' => '\t',
                        'r' => '\r',
                        'b' => '\u{8}',
                        'f' => '\u{c}',
                        // `\"`, `\\`, `\/`, and an escape JSON does not have, kept as written.
                        other => other,
                    });
                    Some(Escape::None)
                }
            }
            Escape::Unicode { digits, value } => match c.to_digit(16) {
                Some(d) => {
                    let value = value * 16 + d as u16;
                    if digits == 3 {
                        self.unit(value, &mut sink);
                        Some(Escape::None)
                    } else {
                        Some(Escape::Unicode { digits: digits + 1, value })
                    }
                }
                // A broken `\u` escape: what it stood for is unknown.
                None => {
                    self.flush_surrogate(&mut sink);
                    sink.push(char::REPLACEMENT_CHARACTER);
                    if c == '"' {
                        self.close(kind);
                        None
                    } else {
                        sink.push(c);
                        Some(Escape::None)
                    }
                }
            },
        };
        match kind {
            Kind::Key => self.key.push_str(&sink),
            Kind::Answer => out.push_str(&sink),
            Kind::Other => {}
        }
        if let Some(escape) = next {
            self.state = State::Text { kind, escape };
        }
    }

    /// A UTF-16 unit from a `\u` escape: a high surrogate waits for its low half.
    fn unit(&mut self, unit: u16, sink: &mut String) {
        match (self.high_surrogate.take(), unit) {
            (Some(high), 0xDC00..=0xDFFF) => {
                let code = 0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                sink.push(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
            }
            (high, 0xD800..=0xDBFF) => {
                if high.is_some() {
                    sink.push(char::REPLACEMENT_CHARACTER);
                }
                self.high_surrogate = Some(unit);
            }
            (high, unit) => {
                if high.is_some() {
                    sink.push(char::REPLACEMENT_CHARACTER);
                }
                sink.push(char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER));
            }
        }
    }

    fn flush_surrogate(&mut self, sink: &mut String) {
        if self.high_surrogate.take().is_some() {
            sink.push(char::REPLACEMENT_CHARACTER);
        }
    }

    fn close(&mut self, kind: Kind) {
        self.state = match kind {
            Kind::Key => {
                self.answer_next = is_answer_key(&norm_key(&self.key));
                State::Structure
            }
            Kind::Answer => State::Done,
            Kind::Other => {
                self.answer_next = false;
                State::Structure
            }
        };
    }
}
