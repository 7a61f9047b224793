//! Models the page runs: each request is a `modelCall` to the page, which runs the author's
//! `async (messages, {schema, signal}) => text` (`custom`) or the Prompt API (`promptApi`, on the web
//! only the page has `LanguageModel`) and answers with `modelResult`. Dropping the call (a timeout, a
//! cancelled run) posts `modelAbort`, which aborts the call's signal on the page. A streaming call
//! (`stream: true`) gets the reply's text in `modelChunk` messages before its `modelResult`: the
//! Prompt API's `promptStreaming`, a custom model (wllama's included) that calls its `onText`.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures_util::future::LocalBoxFuture;
use futures_util::FutureExt;

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

use crate::engine::{Message, Model, ModelReply, ModelRequest, ReplySink};
use crate::errors::{classify, ErrorCode, Origin, RawFailure};
use crate::text::{common_prefix, common_suffix, utf16_len};

use super::protocol::{Edit, Span, WorkerMessage};
use super::rpc::{wrong_reply, AbortKind, PageReply, Rpc};

/// A model the page runs, for one run.
pub struct PageModel {
    rpc: Rc<Rpc>,
    run_id: String,
    /// The page backend that answers (`custom`, `promptApi`).
    backend: &'static str,
    /// Whether the page said the backend decodes greedily (`Model::greedy`).
    greedy: bool,
    /// The context window the page reported, shared by every run's model.
    window: Rc<Cell<Option<usize>>>,
    /// This model's last call, as the page keeps it: the next call sends only what follows the
    /// messages' common start (`keep`), and no schema if it is the same (`sameSchema`).
    sent: Rc<RefCell<PagePrompt>>,
}

/// What the page keeps of a run's last call to one of its backends, and the worker with it: its
/// whole prompt and its schema.
#[derive(Debug, Default)]
pub struct PagePrompt {
    messages: Vec<Message>,
    schema: Option<Value>,
}

impl PageModel {
    /// The page's `backend` (`custom`, `promptApi`) for the run `run_id`, asked through `rpc`.
    pub fn new(rpc: Rc<Rpc>, run_id: impl Into<String>, backend: &'static str) -> Self {
        PageModel {
            rpc,
            run_id: run_id.into(),
            backend,
            greedy: false,
            window: Rc::default(),
            sent: Rc::default(),
        }
    }

    /// The same, decoding greedily as the page says (`{ custom, greedy: true }`, wllama at
    /// temperature 0).
    pub fn decoding_greedily(mut self, greedy: bool) -> Self {
        self.greedy = greedy;
        self
    }

    /// The same, remembering the context window the page reports in `window` (shared between runs).
    pub fn sharing_window(mut self, window: Rc<Cell<Option<usize>>>) -> Self {
        self.window = window;
        self
    }

    /// The same, keeping what the page keeps of the run's calls to this backend in `sent` (shared
    /// with any other model of the run that the page answers with the same backend).
    pub fn sharing_prompt(mut self, sent: Rc<RefCell<PagePrompt>>) -> Self {
        self.sent = sent;
        self
    }
}

impl PageModel {
    /// A failure whose request the backend refused (`MODEL_REQUEST_REJECTED`: an HTTP 400, a bad
    /// option), its message naming the backend and the status, which the page's error may not say.
    fn named(&self, failure: RawFailure) -> RawFailure {
        if classify(&failure, Origin::Model).code != ErrorCode::ModelRequestRejected {
            return failure;
        }
        let status = failure.status.map_or_else(String::new, |s| format!(" with HTTP {s}"));
        let message =
            format!("The `{}` model backend rejected the request{status}: {}", self.backend, failure.message);
        RawFailure { message, ..failure }
    }
}

impl PageModel {
    /// What a call carries of `messages`, given the last call's (which the page keeps): how many
    /// leading messages it shares, the messages after them, and, when the first of those is the
    /// last call's message at that place with its middle rewritten (the session's memory fitted
    /// to a budget that shrinks as the run grows, the summary of a compacted run's steps), only
    /// that middle and the [`Edit`] that places it; then the last call's messages that follow
    /// it again, after those that moved into the summary. `messages` becomes what the page keeps.
    fn delta(&self, messages: &[Message]) -> Delta {
        let sent = &mut self.sent.borrow_mut().messages;
        let keep = sent.iter().zip(messages).take_while(|(a, b)| a == b).count();
        let (mut tail, mut edit, mut again, mut skip) = (messages[keep..].to_vec(), None, 0, 0);
        if let (Some(before), Some(first)) = (sent.get(keep), tail.first_mut()) {
            if before.role == first.role {
                edit = Edit::between(&before.content, &first.content).map(|(edit, middle)| {
                    first.content = middle;
                    edit
                });
            }
            // The messages after the one rewritten that are the last call's: from the first of
            // them that is the next message on (a compacted run's window moved on by a step).
            let (old, new) = (&sent[keep + 1..], &messages[keep + 1..]);
            if let Some(next) = new.first() {
                if let Some(at) = old.iter().position(|m| m == next) {
                    skip = at;
                    again = old[at..].iter().zip(new).take_while(|(a, b)| a == b).count();
                }
            }
            tail.drain(1..1 + again);
        }
        sent.truncate(keep);
        sent.extend_from_slice(&messages[keep..]);
        Delta { keep: keep as u32, tail, edit, again: again as u32, skip: skip as u32 }
    }
}

impl PageModel {
    /// Whether `schema` is the last call's, which the page keeps; if not, it becomes what the page
    /// keeps. A schema is never "the same" as none: no schema is carried as null.
    fn same_schema(&self, schema: Option<&Value>) -> bool {
        let kept = &mut self.sent.borrow_mut().schema;
        if schema.is_some() && kept.as_ref() == schema {
            return true;
        }
        *kept = schema.cloned();
        false
    }
}

/// What a `modelCall` carries of a prompt (see [`WorkerMessage::ModelCall`]).
struct Delta {
    keep: u32,
    tail: Vec<Message>,
    edit: Option<Edit>,
    again: u32,
    skip: u32,
}

/// Below this many UTF-16 units kept of a rewritten message, it is sent whole.
const EDIT_MIN_KEPT: usize = 64;

/// A rewritten middle shorter than this many bytes is sent whole, without a search for a run of
/// the previous content in it.
const SPAN_MIN_MIDDLE: usize = 1024;

/// Where in the new middle a run of the previous content is looked for: its start and the starts
/// of its first lines (the window of steps moved on: the first line or two changed).
const SPAN_LINES: usize = 4;

/// Bytes of the new middle looked up in the previous one to find a run they share.
const SPAN_PROBE: usize = 64;

impl Edit {
    /// The edit that turns `before` into `after` by rewriting its middle, and what it carries of
    /// that middle; `None` when they share less than [`EDIT_MIN_KEPT`] units.
    fn between(before: &str, after: &str) -> Option<(Edit, String)> {
        let (b, a) = (before.as_bytes(), after.as_bytes());
        let mut head = common_prefix(b, a);
        while !after.is_char_boundary(head) {
            head -= 1;
        }
        // After the head: the tail does not overlap it.
        let mut tail = common_suffix(&b[head..], &a[head..]);
        while !after.is_char_boundary(a.len() - tail) {
            tail -= 1;
        }
        let (old, new) = (&before[head..b.len() - tail], &after[head..a.len() - tail]);
        let (head_units, tail_units) = (utf16_len(&after[..head]), utf16_len(&after[a.len() - tail..]));
        let mut edit = Edit { head: head_units as u32, tail: tail_units as u32, span: None };
        let mut kept = head_units + tail_units;
        let mut middle = new.to_string();
        if let Some((from, at, len)) = shared_run(old, new) {
            let from = head_units + utf16_len(&old[..from]);
            let run = utf16_len(&new[at..at + len]);
            edit.span =
                Some(Span { at: utf16_len(&new[..at]) as u32, from: from as u32, to: (from + run) as u32 });
            kept += run;
            middle = format!("{}{}", &new[..at], &new[at + len..]);
        }
        (kept >= EDIT_MIN_KEPT).then_some((edit, middle))
    }
}

/// The longest run of `old` found at the start of `new` or of one of its first lines, as
/// (where in `old`, where in `new`, length in bytes, on char boundaries); `None` for a middle too
/// short to look in, or a run shorter than [`EDIT_MIN_KEPT`] bytes.
fn shared_run(old: &str, new: &str) -> Option<(usize, usize, usize)> {
    if new.len() < SPAN_MIN_MIDDLE || old.len() < EDIT_MIN_KEPT {
        return None;
    }
    let starts = std::iter::once(0).chain(new.match_indices('\n').map(|(i, _)| i + 1)).take(SPAN_LINES + 1);
    let mut best: Option<(usize, usize, usize)> = None;
    for at in starts {
        let mut end = (at + SPAN_PROBE).min(new.len());
        while !new.is_char_boundary(end) {
            end -= 1;
        }
        if end - at < SPAN_PROBE / 2 {
            continue;
        }
        let Some(from) = old.find(&new[at..end]) else { continue };
        let mut len = common_prefix(&old.as_bytes()[from..], &new.as_bytes()[at..]);
        while !new.is_char_boundary(at + len) {
            len -= 1;
        }
        if best.is_none_or(|(_, _, longest)| len > longest) {
            best = Some((from, at, len));
        }
        // Most of the middle found: no other start can beat it by much.
        if len * 2 >= new.len() {
            break;
        }
    }
    best.filter(|&(_, _, len)| len >= EDIT_MIN_KEPT)
}

impl Model for PageModel {
    /// A `modelCall` to the page, with `stream: true` when there is a sink.
    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
        sink: Option<&'a dyn ReplySink>,
    ) -> LocalBoxFuture<'a, Result<ModelReply, RawFailure>> {
        let Delta { keep, tail, edit, again, skip } = self.delta(&request.messages);
        let same_schema = self.same_schema(request.schema.as_ref());
        let schema = if same_schema { None } else { request.schema.clone() };
        let mut pending = self.rpc.request(AbortKind::Model, |id| WorkerMessage::ModelCall {
            id,
            run_id: self.run_id.clone(),
            backend: self.backend.to_string(),
            request: ModelRequest { messages: tail, schema, ..*request },
            keep,
            edit,
            again,
            skip,
            same_schema,
            stream: sink.is_some(),
        });
        async move {
            let id = pending.id();
            // The pieces that came are handed over before the reply that follows them is taken.
            let answer = futures_util::future::poll_fn(|cx| {
                if let Some(sink) = sink {
                    for chunk in pending.take_chunks() {
                        sink.text(&chunk);
                    }
                }
                Pin::new(&mut pending).poll(cx)
            })
            .await;
            match answer? {
                PageReply::Model(reply) => {
                    let text = reply.into_result().map_err(|failure| self.named(failure))?;
                    if text.context_window.is_some() {
                        self.window.set(text.context_window);
                    }
                    Ok(ModelReply { text: text.text, usage: text.usage })
                }
                _ => Err(wrong_reply(id, "modelResult")),
            }
        }
        .boxed_local()
    }

    fn context_window(&self) -> Option<usize> {
        self.window.get()
    }

    fn greedy(&self) -> bool {
        self.greedy
    }
}
