//! A step's text on its way to the page while the model writes it: each chunk a streaming backend
//! hands over becomes one `token` event, and the part of the final answer it completes one
//! `answerDelta` event. Nothing here is stored: the step is parsed whole once the reply is complete.

use std::cell::{Cell, RefCell};

use crate::errors::ErrorCode;

use super::{AnswerScanner, Event, ReplySink};

/// The sink for one model call of one step.
pub(crate) struct StepStream<'e> {
    step: u32,
    emit: &'e dyn Fn(&Event),
    answer: RefCell<AnswerScanner>,
    /// Whether text was handed over since the reply (re)started: only then is a discard told.
    streamed: Cell<bool>,
}

impl<'e> StepStream<'e> {
    /// The sink for a model call of step `step`, telling the page through `emit`.
    pub(crate) fn new(step: u32, emit: &'e dyn Fn(&Event)) -> Self {
        StepStream { step, emit, answer: RefCell::default(), streamed: Cell::new(false) }
    }
}

impl ReplySink for StepStream<'_> {
    fn text(&self, chunk: &str) {
        if chunk.is_empty() {
            return;
        }
        self.streamed.set(true);
        (self.emit)(&Event::Token { step: self.step, text: chunk.to_string() });
        let delta = self.answer.borrow_mut().push(chunk);
        if !delta.is_empty() {
            (self.emit)(&Event::AnswerDelta { step: self.step, text: delta });
        }
    }

    fn discard(&self, code: &ErrorCode) {
        if self.streamed.replace(false) {
            *self.answer.borrow_mut() = AnswerScanner::new();
            (self.emit)(&Event::TokensDiscarded { step: self.step, code: code.clone() });
        }
    }
}
