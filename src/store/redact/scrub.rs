//! What the store gets of a run once a redactor has removed values from its calls: the kept
//! arguments, and the run's text with every removed value masked.

use std::cmp::Reverse;
use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::errors::render::written_forms;
use crate::store::{EndReason, FailureRecord, RunRecord};
use crate::turn::{digest, Action, CallKey, Turn};

/// Removed values shorter than this, in chars, are masked in the arguments but not scrubbed from
/// text: replacing every `42` or `yes` in a run's text would garble it and hide little.
pub const MIN_SCRUBBED_CHARS: usize = 4;

/// The mark of a cut in stored text (`clip`, `head_tail`, `cut_middle`): a removed value may end
/// just before one, or start just after it.
const CUT: char = '…';

/// One run's redaction so far: what the redactor kept of each call, and every form of every
/// value it removed, to be masked wherever the run's stored text holds it.
#[derive(Debug, Clone)]
pub struct Scrubber {
    mask: String,
    /// The arguments kept, by call: the tool and the digest of its real arguments (what failure
    /// records carry).
    kept: HashMap<CallKey, Value>,
    /// Longest first, so that a value is masked whole before a shorter one inside it.
    forms: Vec<String>,
}

impl Scrubber {
    /// A scrubber that has removed nothing yet, masking with `mask`.
    pub fn new(mask: &str) -> Scrubber {
        Scrubber { mask: mask.to_string(), kept: HashMap::new(), forms: Vec::new() }
    }

    /// Notes that the store keeps `kept` (`None`: nothing, the mask) of `call`'s arguments. Every
    /// string or number of the real arguments that `kept` no longer holds counts as removed.
    /// Returns whether a value not removed before in this run was: earlier text may hold it.
    pub fn note(&mut self, call: &Action, kept: Option<Value>) -> bool {
        let real = &call.args;
        let kept = kept.unwrap_or_else(|| Value::String(self.mask.clone()));
        let (mut staying, mut sent) = (HashSet::new(), HashSet::new());
        leaves(&kept, &mut staying);
        leaves(real, &mut sent);
        let mut learnt = false;
        for value in sent.difference(&staying).filter(|v| v.chars().count() >= MIN_SCRUBBED_CHARS) {
            for form in written_forms(value) {
                if !self.forms.contains(&form) {
                    self.forms.push(form);
                    learnt = true;
                }
            }
        }
        crate::order::sort_by_key(&mut self.forms, |form| Reverse(form.len()));
        self.kept.insert(CallKey::new(&call.tool, real), kept);
        learnt
    }

    /// `text` with every removed value masked: each whole occurrence, in one pass that steps over
    /// the mask (a removed `dact` leaves `[redacted]` alone), then the part of one cut short next
    /// to a `…`.
    pub fn text(&self, text: &str) -> String {
        if self.forms.is_empty() {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            if !self.mask.is_empty() && rest.starts_with(&self.mask) {
                out.push_str(&self.mask);
                rest = &rest[self.mask.len()..];
                continue;
            }
            match self.forms.iter().find(|form| rest.starts_with(form.as_str())) {
                Some(form) => {
                    out.push_str(&self.mask);
                    rest = &rest[form.len()..];
                }
                None => {
                    out.push(c);
                    rest = &rest[c.len_utf8()..];
                }
            }
        }
        self.cut_ends(&out)
    }

    /// The arguments stored for `call`, scrubbed; the mask for a call never noted (nothing
    /// unredacted is stored by mistake).
    pub fn args(&self, call: &Action) -> Value {
        match self.kept.get(&CallKey::new(&call.tool, &call.args)) {
            Some(kept) => self.value(kept),
            None => Value::String(self.mask.clone()),
        }
    }

    /// A step as stored: its call's kept arguments, its texts scrubbed.
    pub fn turn(&self, turn: &Turn) -> Turn {
        Turn {
            thought: self.text(&turn.thought),
            action: turn.action.as_ref().map(|a| Action { tool: a.tool.clone(), args: self.args(a) }),
            observation: self.text(&turn.observation),
            reply: turn.reply.as_deref().map(|reply| self.text(reply)),
            ..turn.clone()
        }
    }

    /// A failure as stored: its message scrubbed, its args digest that of the stored arguments
    /// (none for a call never noted).
    pub fn failure(&self, failure: &FailureRecord) -> FailureRecord {
        let call = failure.tool.clone().zip(failure.args_digest.clone());
        let stored = call.and_then(|(tool, args_digest)| self.kept.get(&CallKey { tool, args_digest }));
        FailureRecord {
            args_digest: stored.map(|kept| digest(&self.value(kept))),
            message: self.text(&failure.message),
            ..failure.clone()
        }
    }

    /// A run as stored: its answer and its end's message scrubbed; its task as given.
    pub fn run(&self, run: &RunRecord) -> RunRecord {
        let reason = run.reason.as_ref().map(|reason| match reason {
            EndReason::Fatal { code, message } => {
                EndReason::Fatal { code: code.clone(), message: self.text(message) }
            }
            other => other.clone(),
        });
        RunRecord { answer: run.answer.as_deref().map(|answer| self.text(answer)), reason, ..run.clone() }
    }

    /// `value` with its strings scrubbed (object keys are names, not values, and stay).
    fn value(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.text(s)),
            Value::Array(items) => Value::Array(items.iter().map(|item| self.value(item)).collect()),
            Value::Object(map) => {
                Value::Object(map.iter().map(|(k, v)| (k.clone(), self.value(v))).collect())
            }
            other => other.clone(),
        }
    }

    /// Masks what is left of a removed value cut short: a start of one just before a `…`, an end
    /// of one just after it.
    fn cut_ends(&self, text: &str) -> String {
        if !text.contains(CUT) {
            return text.to_string();
        }
        let parts: Vec<&str> = text.split(CUT).collect();
        let last = parts.len() - 1;
        let scrubbed: Vec<String> = parts
            .iter()
            .enumerate()
            .map(|(i, part)| {
                let start = if i > 0 { self.longest_end_at_start(part) } else { 0 };
                let rest = &part[start..];
                let end = if i < last { rest.len() - self.longest_start_at_end(rest) } else { rest.len() };
                let mask = |n: usize| if n > 0 { self.mask.as_str() } else { "" };
                format!("{}{}{}", mask(start), &rest[..end], mask(rest.len() - end))
            })
            .collect();
        scrubbed.join(&CUT.to_string())
    }

    /// The length in bytes of the longest start of `s` (of at least [`MIN_SCRUBBED_CHARS`] chars)
    /// that ends a removed value; 0 if none.
    fn longest_end_at_start(&self, s: &str) -> usize {
        let ends: Vec<usize> =
            s.char_indices().map(|(i, c)| i + c.len_utf8()).skip(MIN_SCRUBBED_CHARS - 1).collect();
        ends.into_iter().rev().find(|&n| self.forms.iter().any(|f| f.ends_with(&s[..n]))).unwrap_or(0)
    }

    /// The length in bytes of the longest end of `s` (of at least [`MIN_SCRUBBED_CHARS`] chars)
    /// that starts a removed value; 0 if none.
    fn longest_start_at_end(&self, s: &str) -> usize {
        let starts: Vec<usize> = s.char_indices().map(|(i, _)| i).collect();
        let Some(last) = starts.len().checked_sub(MIN_SCRUBBED_CHARS) else { return 0 };
        starts[..=last]
            .iter()
            .map(|&i| &s[i..])
            .find(|tail| self.forms.iter().any(|f| f.starts_with(tail)))
            .map_or(0, str::len)
    }
}

/// Every string and number in `value`, as text: the values a redactor may remove.
fn leaves(value: &Value, out: &mut HashSet<String>) {
    match value {
        Value::String(s) => {
            out.insert(s.clone());
        }
        Value::Number(n) => {
            out.insert(n.to_string());
        }
        Value::Array(items) => items.iter().for_each(|item| leaves(item, out)),
        Value::Object(map) => map.values().for_each(|item| leaves(item, out)),
        Value::Bool(_) | Value::Null => {}
    }
}
