//! Resuming a run cut off mid-way (a terminated worker, a reload): it continues at the step after
//! the last committed one, and the store ends with every step exactly once.

mod support;

use std::cell::RefCell;
use std::rc::Rc;

use futures_util::FutureExt;
use keel::engine::{Effects, Event, Outcome, RunOptions};
use keel::store::{EndReason, MemoryStore, RunStatus, Store};
use serde_json::json;
use support::{
    act, answer, classic, specs, Behaviour, Bound, FakeTools, FixedRandom, ScriptedModel, StuckClock,
};

fn agent(store: &Rc<MemoryStore>, model: Rc<ScriptedModel>, tools: Rc<FakeTools>) -> Bound {
    let effects = Effects {
        model,
        tools,
        store: store.clone(),
        clock: Rc::new(StuckClock),
        random: Rc::new(FixedRandom(0.0)),
    };
    // The run is cut off in `snapshot`, which is idempotent: resumed, the call is made again
    // (a call of a tool with side effects is not: loop_intents.rs).
    let specs = specs().into_iter().map(|s| if s.name == "snapshot" { s.idempotent() } else { s }).collect();
    Bound::new(effects, specs, classic())
}

fn weather(city: &str) -> support::Reply {
    act("get_weather", json!({ "city": city }))
}

fn mild() -> Behaviour {
    Behaviour::Ok(json!({ "sky": "mild" }))
}

/// Starts a run that commits steps 1 and 2, then hangs in step 3's tool; the run's future is then
/// dropped, which is all a terminated worker leaves behind.
fn cut_run(store: &Rc<MemoryStore>) {
    let model = ScriptedModel::new([weather("Paris"), weather("Oslo"), act("snapshot", json!({}))]);
    let tools =
        FakeTools::new().script("snapshot", vec![Behaviour::Hang]).script("get_weather", vec![mild()]);
    let cut = agent(store, model, tools);
    let options = RunOptions { session: "s".into(), run_id: Some("r1".into()), ..Default::default() };
    let run = cut.run("Weather in three cities", options, &|_| {});
    assert!(run.now_or_never().is_none(), "the run is stuck in step 3");
}

#[test]
fn a_cut_off_run_resumes_at_the_next_step_and_the_store_has_each_step_once() {
    let store = Rc::new(MemoryStore::new());
    cut_run(&store);
    let unfinished = futures_executor::block_on(store.unfinished_runs()).unwrap();
    assert_eq!(unfinished.len(), 1);
    assert_eq!((unfinished[0].id.as_str(), unfinished[0].status), ("r1", RunStatus::Running));
    let saved = futures_executor::block_on(store.load_run("r1")).unwrap().expect("stored");
    assert_eq!(saved.turns.iter().map(|t| t.turn.step).collect::<Vec<_>>(), [1, 2]);

    let model = ScriptedModel::new([weather("Rome"), answer("Mild everywhere.")]);
    let resumed = agent(&store, model.clone(), FakeTools::new().script("get_weather", vec![mild()]));
    let events = RefCell::new(Vec::new());
    let (run, turns) = saved.into_parts();
    let result = futures_executor::block_on(
        resumed.resume(run, turns, RunOptions::default(), &|e| events.borrow_mut().push(e.clone())),
    );

    assert!(result.success, "{result:?}");
    assert_eq!(result.run_id, "r1");
    assert_eq!(result.turns.iter().map(|t| t.step).collect::<Vec<_>>(), [1, 2, 3, 4]);
    let first = events.borrow().iter().find_map(|e| match e {
        Event::StepStarted { step } => Some(*step),
        _ => None,
    });
    assert_eq!(first, Some(3), "the resumed run starts at the step after the last committed one");
    let prompt = &model.requests.borrow()[0].messages;
    let text: String = prompt.iter().map(|m| m.content.as_str()).collect();
    assert!(text.contains("Oslo"), "the committed steps are the run's history");
    let stored: Vec<u32> = store.turns().iter().filter(|t| t.run_id == "r1").map(|t| t.turn.step).collect();
    assert_eq!(stored, [1, 2, 3, 4], "every step exactly once");
    assert_eq!(store.runs().len(), 1);
    assert_eq!(store.runs()[0].status, RunStatus::Succeeded);
    assert_eq!(store.runs()[0].counts.steps, 4);
    // The calls made before the cut count too: 2 steps committed with 2 model and 2 tool calls
    // (step 3's call, cut off in its tool, is lost with it), then 2 model and 1 tool call.
    let counts = store.runs()[0].counts;
    assert_eq!((counts.model_calls, counts.tool_calls), (4, 3), "{counts:?}");
    assert_eq!(result.counts, counts);
    assert!(futures_executor::block_on(store.unfinished_runs()).unwrap().is_empty());
}

#[test]
fn an_abandoned_run_is_marked_interrupted_and_keeps_its_steps() {
    let store = Rc::new(MemoryStore::new());
    cut_run(&store);
    let saved = futures_executor::block_on(store.load_run("r1")).unwrap().unwrap();
    let a = agent(&store, ScriptedModel::new([]), FakeTools::new());
    let (run, turns) = saved.into_parts();
    let result = futures_executor::block_on(a.abandon(run, turns, &|_| {}));
    assert_eq!(
        (result.reason.clone(), result.success, result.turns.len()),
        (EndReason::Interrupted, false, 2)
    );
    let run = &store.runs()[0];
    assert_eq!(run.status, RunStatus::Interrupted);
    assert_eq!(run.reason, Some(EndReason::Interrupted));
    assert_eq!(serde_json::to_value(run.status).unwrap(), json!("interrupted"));
    assert!(futures_executor::block_on(store.unfinished_runs()).unwrap().is_empty());
    assert_eq!(store.turns().len(), 2);
}

/// The final answer event's step and text.
fn final_answer(events: &[Event]) -> Option<(u32, String)> {
    events.iter().find_map(|e| match e {
        Event::FinalAnswer { step, answer, .. } => Some((*step, answer.clone())),
        _ => None,
    })
}

#[test]
fn a_run_abandoned_before_it_committed_a_step_ends_in_step_1_not_step_0() {
    let store = Rc::new(MemoryStore::new());
    // Cut off in step 1's tool: nothing committed.
    let model = ScriptedModel::new([act("snapshot", json!({}))]);
    let cut = agent(&store, model, FakeTools::new().script("snapshot", vec![Behaviour::Hang]));
    let options = RunOptions { session: "s".into(), run_id: Some("r0".into()), ..Default::default() };
    assert!(cut.run("Look", options, &|_| {}).now_or_never().is_none());
    let saved = futures_executor::block_on(store.load_run("r0")).unwrap().unwrap();
    assert!(saved.turns.is_empty());
    let (run, turns) = saved.into_parts();
    let events = RefCell::new(Vec::new());
    let a = agent(&store, ScriptedModel::new([]), FakeTools::new());
    let result = futures_executor::block_on(a.abandon(run, turns, &|e| events.borrow_mut().push(e.clone())));
    assert_eq!((result.reason.clone(), result.success), (EndReason::Interrupted, false));
    let (step, answer) = final_answer(&events.borrow()).expect("a final answer");
    assert_eq!(step, 1, "the run was cut off in step 1");
    assert_eq!(
        answer,
        "I could not complete the task. The run was cut off in step 1, before it committed a step, and not resumed."
    );
    assert_eq!(result.answer, answer);
    assert_eq!(result.counts.steps, 0, "no step was committed");
}

#[test]
fn a_run_abandoned_after_two_steps_ends_in_the_step_it_was_cut_off_in() {
    let store = Rc::new(MemoryStore::new());
    cut_run(&store);
    let (run, turns) = futures_executor::block_on(store.load_run("r1")).unwrap().unwrap().into_parts();
    let events = RefCell::new(Vec::new());
    let a = agent(&store, ScriptedModel::new([]), FakeTools::new());
    futures_executor::block_on(a.abandon(run, turns, &|e| events.borrow_mut().push(e.clone())));
    let (step, answer) = final_answer(&events.borrow()).expect("a final answer");
    assert_eq!(step, 3);
    assert!(
        answer.ends_with("cut off in step 3, after committing steps 1 to 2, and not resumed."),
        "{answer}"
    );
}

#[test]
fn a_run_cut_after_committing_its_answer_ends_with_that_answer() {
    let store = Rc::new(MemoryStore::new());
    let a = agent(&store, ScriptedModel::new([answer("42")]), FakeTools::new());
    let options = RunOptions { session: "s".into(), run_id: Some("r1".into()), ..Default::default() };
    futures_executor::block_on(a.run("q", options, &|_| {}));
    let saved = futures_executor::block_on(store.load_run("r1")).unwrap().unwrap();
    let (mut run, turns) = saved.into_parts();
    run.status = RunStatus::Running; // as if the worker died before the last record write
    assert_eq!(turns[0].outcome, Outcome::Final);
    let none = ScriptedModel::new([]);
    let result = futures_executor::block_on(agent(&store, none.clone(), FakeTools::new()).resume(
        run,
        turns,
        RunOptions::default(),
        &|_| {},
    ));
    assert_eq!((result.answer.as_str(), result.success), ("42", true));
    assert!(none.requests.borrow().is_empty(), "no model call");
}

#[test]
fn one_agent_runs_and_resumes_over_the_effects_each_run_brings() {
    let store = Rc::new(MemoryStore::new());
    let first = ScriptedModel::new([weather("Paris"), act("snapshot", json!({}))]);
    let tools =
        FakeTools::new().script("snapshot", vec![Behaviour::Hang]).script("get_weather", vec![mild()]);
    let a = agent(&store, first.clone(), tools);
    let options = RunOptions { session: "s".into(), run_id: Some("r1".into()), ..Default::default() };
    assert!(a.run("Weather in Paris", options, &|_| {}).now_or_never().is_none(), "stuck in step 2");

    // The same agent, the run's new effects: another model and tool host over the same store.
    let second = ScriptedModel::new([answer("Mild in Paris.")]);
    let effects = Effects { model: second.clone(), tools: FakeTools::new(), ..a.effects.clone() };
    let (run, turns) = futures_executor::block_on(store.load_run("r1")).unwrap().unwrap().into_parts();
    let result =
        futures_executor::block_on(a.agent.resume(&effects, run, turns, RunOptions::default(), &|_| {}));
    assert!(result.success, "{result:?}");
    assert_eq!(result.turns.iter().map(|t| t.step).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(first.requests.borrow().len(), 2, "the first run's model is not asked again");
    assert_eq!(second.requests.borrow().len(), 1, "the resumed run asks the model it brought");
}
