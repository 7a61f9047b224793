//! Streaming: a backend that hands the step's text over as it is generated gives the page `token`
//! events and the final answer's text as `answerDelta` events; a stream cut off mid-way is told as
//! discarded and retried like any model failure; the step is still parsed whole.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use std::cell::RefCell;
use std::rc::Rc;

use keel::engine::{Agent, AgentConfig, CancelToken, Effects, Event, RunOptions};
use keel::errors::{ErrorCode, RawFailure};
use keel::store::{EndReason, MemoryStore};
use serde_json::json;
use support::*;

/// What the page was told while the model wrote, in order, as (kind, step, text).
fn stream_events(events: &[Event]) -> Vec<(&'static str, u32, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Token { step, text } => Some(("token", *step, text.clone())),
            Event::AnswerDelta { step, text } => Some(("answer", *step, text.clone())),
            Event::TokensDiscarded { step, code } => Some(("discarded", *step, code.as_str().to_string())),
            _ => None,
        })
        .collect()
}

/// The text of the given kind the page holds for `step`: appended, and emptied at each discard.
fn shown(events: &[Event], kind: &str, step: u32) -> String {
    let mut text = String::new();
    for (k, s, t) in stream_events(events) {
        if s != step {
            continue;
        }
        match k {
            "discarded" => text.clear(),
            k if k == kind => text.push_str(&t),
            _ => {}
        }
    }
    text
}

fn answer_text(answer: &str) -> String {
    json!({"thought": "The tool said so.", "final_answer": answer}).to_string()
}

#[test]
fn each_chunk_is_one_token_event_and_the_answer_arrives_decoded_as_it_is_written() {
    let call =
        json!({"thought": "Weather first.", "action": {"tool": "get_weather", "args": {"city": "Oslo"}}})
            .to_string();
    let answer = answer_text("It is 4 °C in \"Oslo\".\nTake a coat 🧥.");
    let chunks = chunked(&answer, 3);
    let model =
        ScriptedModel::new([Reply::Stream(chunked(&call, 5), None), Reply::Stream(chunks.clone(), None)]);
    let tools = FakeTools::new().script("get_weather", vec![Behaviour::Ok(json!({"temp_c": 4}))]);
    let h = Harness::new(model, tools, specs(), classic());
    let (result, events) = h.run("Weather in Oslo?");
    assert!(result.success, "{result:?}");
    assert_eq!(result.answer, "It is 4 °C in \"Oslo\".\nTake a coat 🧥.");
    assert_eq!(shown(&events, "token", 1), call);
    assert_eq!(shown(&events, "answer", 1), "", "a step that calls a tool has no answer text");
    assert_eq!(shown(&events, "token", 2), answer);
    assert_eq!(shown(&events, "answer", 2), result.answer);
    let tokens = stream_events(&events).iter().filter(|(k, s, _)| *k == "token" && *s == 2).count();
    assert_eq!(tokens, chunks.len(), "one event per chunk, not per character");
    // The text comes while the step is under way: after it started, before its thought and answer.
    let at = |pred: &dyn Fn(&Event) -> bool| events.iter().position(pred).unwrap();
    let started = at(&|e| matches!(e, Event::StepStarted { step: 2 }));
    let first_token = at(&|e| matches!(e, Event::Token { step: 2, .. }));
    let thought = at(&|e| matches!(e, Event::Thought { step: 2, .. }));
    let final_answer = at(&|e| matches!(e, Event::FinalAnswer { .. }));
    assert!(started < first_token && first_token < thought && thought < final_answer, "{events:?}");
}

#[test]
fn with_streaming_off_the_same_backend_answers_whole_and_no_token_event_is_sent() {
    let model = ScriptedModel::new([Reply::Stream(chunked(&answer_text("Done."), 4), None)]);
    let config = AgentConfig { stream: false, ..classic() };
    let h = Harness::new(model, FakeTools::new(), specs(), config);
    let (result, events) = h.run("Say done.");
    assert!(result.success);
    assert_eq!(result.answer, "Done.");
    assert_eq!(stream_events(&events), vec![]);
}

#[test]
fn a_backend_that_cannot_stream_works_unchanged_with_no_token_events() {
    let model = ScriptedModel::new([answer("Done.")]);
    let h = Harness::new(model, FakeTools::new(), specs(), classic());
    let (result, events) = h.run("Say done.");
    assert!(result.success);
    assert_eq!(stream_events(&events), vec![]);
}

#[test]
fn a_stream_that_breaks_mid_way_is_discarded_then_retried_and_the_retry_streams_from_the_start() {
    let answer = answer_text("Forty-two.");
    let broken = Reply::Stream(
        vec!["{\"thought\": \"".into(), "The tool\", \"final_answer\": \"Forty".into()],
        Some(Ok(RawFailure::named("NetworkError", "the connection dropped"))),
    );
    let model = ScriptedModel::new([broken, Reply::Stream(chunked(&answer, 6), None)]);
    let h = Harness::new(model, FakeTools::new(), specs(), classic());
    let (result, events) = h.run("The answer?");
    assert!(result.success, "{result:?}");
    assert_eq!(result.answer, "Forty-two.");
    let discarded = events
        .iter()
        .position(|e| matches!(e, Event::TokensDiscarded { step: 1, code: ErrorCode::Network }))
        .expect("the page is told the partial text is discarded");
    let retry = events.iter().position(|e| matches!(e, Event::RetryScheduled { step: 1, .. })).unwrap();
    assert!(discarded < retry, "discarded before the retry is announced: {events:?}");
    let before: String = events[..discarded]
        .iter()
        .filter_map(|e| if let Event::AnswerDelta { text, .. } = e { Some(text.as_str()) } else { None })
        .collect();
    assert_eq!(before, "Forty", "the broken stream's answer text reached the page before the break");
    assert_eq!(shown(&events, "token", 1), answer, "after the discard the page holds the retry's text only");
    assert_eq!(shown(&events, "answer", 1), "Forty-two.");
    assert_eq!(result.failures.len(), 1, "the break is logged like any transient model failure");
    assert_eq!(result.failures[0].code, ErrorCode::Network);
    assert!(result.failures[0].recovered);
}

#[test]
fn a_stream_that_stalls_past_the_model_timeout_is_discarded_as_a_timeout() {
    let stall = Reply::Stream(vec!["{\"thought\": \"Hm".into()], Some(Err(())));
    let model = ScriptedModel::new([stall, Reply::Stream(chunked(&answer_text("Ok."), 7), None)]);
    let h = Harness::new(model, FakeTools::new(), specs(), classic());
    let (result, events) = h.run("Ok?");
    assert!(result.success, "{result:?}");
    assert!(events.iter().any(|e| matches!(e, Event::TokensDiscarded { step: 1, code: ErrorCode::Timeout })));
    assert_eq!(shown(&events, "answer", 1), "Ok.");
}

#[test]
fn a_failure_before_any_text_tells_no_discard() {
    let model = ScriptedModel::new([
        Reply::Stream(vec![], Some(Ok(RawFailure::named("NetworkError", "the connection dropped")))),
        Reply::Stream(chunked(&answer_text("Ok."), 7), None),
    ]);
    let h = Harness::new(model, FakeTools::new(), specs(), classic());
    let (result, events) = h.run("Ok?");
    assert!(result.success);
    assert!(!events.iter().any(|e| matches!(e, Event::TokensDiscarded { .. })), "{events:?}");
}

#[test]
fn cancelling_mid_stream_ends_the_run_cancelled_with_the_partial_text_discarded() {
    let model = ScriptedModel::new([Reply::Stream(vec!["{\"thought\": \"Let me".into()], Some(Err(())))]);
    let effects = Effects {
        model: model.clone(),
        tools: FakeTools::new(),
        store: Rc::new(MemoryStore::new()),
        clock: Rc::new(StuckClock),
        random: Rc::new(FixedRandom(0.0)),
    };
    let agent = Agent::new(specs(), classic()).unwrap();
    let cancel = CancelToken::new();
    let events = RefCell::new(Vec::new());
    let on_event = |e: &Event| {
        if matches!(e, Event::Token { .. }) {
            cancel.cancel();
        }
        events.borrow_mut().push(e.clone());
    };
    let options = RunOptions { session: "s".into(), cancel: cancel.clone(), ..Default::default() };
    let result = futures_executor::block_on(agent.run(&effects, "Wait.", options, &on_event));
    assert_eq!(result.reason, EndReason::Cancelled);
    let events = events.into_inner();
    assert_eq!(
        stream_events(&events),
        vec![("token", 1, "{\"thought\": \"Let me".to_string()), ("discarded", 1, "ABORTED".to_string())]
    );
}
