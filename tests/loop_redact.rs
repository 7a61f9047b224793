//! Redaction through the loop: what the store gets of a run whose calls carry a secret, with the
//! declarative policy and with redactors that fail or never answer (the engine fails closed).

mod support;

use std::rc::Rc;

use futures_util::future::{self, LocalBoxFuture};
use futures_util::FutureExt;
use keel::engine::{digest, Action, AgentConfig, Event};
use keel::errors::RawFailure;
use keel::store::redact::{RedactPolicy, Redactor};
use keel::tools::ToolSpec;
use serde_json::{json, Value};
use support::{act, answer, Behaviour, FakeTools, Harness, ScriptedModel};

const SECRET: &str = "hunter2-secret";

fn specs() -> Vec<ToolSpec> {
    vec![
        ToolSpec::new(
            "login",
            "Log in.",
            json!({"type": "object", "properties": {"user": {"type": "string"}, "password": {"type": "string"}},
                   "required": ["user", "password"]}),
        ),
        ToolSpec::new("get_credentials", "The saved credentials.", json!({"type": "object"})),
    ]
}

fn login(password: &str) -> support::Reply {
    act("login", json!({"user": "bob", "password": password}))
}

fn password_policy() -> Rc<dyn Redactor> {
    Rc::new(RedactPolicy::from_json(&json!({"keys": ["password"]})).unwrap())
}

/// Everything the store holds, as one JSON text.
fn stored(h: &Harness) -> String {
    json!({"runs": h.store.runs(), "turns": h.store.turns(), "failures": h.store.failures()}).to_string()
}

#[test]
fn the_store_gets_masked_arguments_scrubbed_text_and_a_digest_of_what_it_keeps() {
    let model = ScriptedModel::new([login(SECRET), login("other-pass"), answer("Logged in.")]);
    let denied = RawFailure::coded("DENIED", format!("wrong password {SECRET} for bob"));
    let tools =
        FakeTools::new().script("login", vec![Behaviour::Fail(denied), Behaviour::Ok(json!("welcome"))]);
    let h = Harness::new(model, tools, specs(), AgentConfig::default()).redacting(password_policy());
    let (result, _) = h.run("Log in as bob.");

    // The run itself kept the real arguments: the tool got them, the result carries them.
    assert_eq!(h.tools.calls.borrow()[0].args["password"], SECRET);
    assert_eq!(result.turns[0].action.as_ref().unwrap().args["password"], SECRET);
    assert!(result.turns[0].observation.contains(SECRET), "the model was shown the tool's message");

    let all = stored(&h);
    assert!(!all.contains(SECRET) && !all.contains("other-pass"), "{all}");
    let turns = h.store.turns();
    let masked = json!({"user": "bob", "password": "[redacted]"});
    assert_eq!(turns[0].turn.action.as_ref().unwrap().args, masked);
    assert!(turns[0].turn.observation.contains("[redacted]"), "{}", turns[0].turn.observation);
    let failures = h.store.failures();
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].message, "wrong password [redacted] for bob");
    assert_eq!(failures[0].args_digest, Some(digest(&masked)));
    assert_eq!(result.failures[0].args_digest, Some(digest(&json!({"user": "bob", "password": SECRET}))));
}

#[test]
fn a_value_first_removed_at_a_later_step_is_scrubbed_from_the_steps_stored_before() {
    let model = ScriptedModel::new([act("get_credentials", json!({})), login(SECRET), answer("done")]);
    let tools = FakeTools::new()
        .script("get_credentials", vec![Behaviour::Ok(json!({"user": "bob", "password": SECRET}))])
        .script("login", vec![Behaviour::Ok(json!("welcome"))]);
    let h = Harness::new(model, tools, specs(), AgentConfig::default()).redacting(password_policy());
    h.run("Log in with the saved credentials.");
    let turns = h.store.turns();
    assert_eq!(turns.iter().map(|t| t.turn.step).collect::<Vec<_>>(), [1, 2, 3], "rewritten in place");
    assert!(turns[0].turn.observation.contains("[redacted]"), "{}", turns[0].turn.observation);
    assert!(!stored(&h).contains(SECRET));
}

#[test]
fn the_next_run_remembers_the_session_as_stored_redacted() {
    let model = ScriptedModel::new([login(SECRET), answer("in"), answer("again")]);
    let tools = FakeTools::new().script("login", vec![Behaviour::Ok(json!("welcome"))]);
    let h = Harness::new(model, tools, specs(), AgentConfig::default()).redacting(password_policy());
    h.run("Log in.");
    h.run("What did you do?");
    let requests = h.model.requests.borrow();
    let prompt = serde_json::to_string(&requests.last().unwrap().messages).unwrap();
    assert!(prompt.contains("[redacted]") && !prompt.contains(SECRET), "{prompt}");
}

/// A redactor that fails, or never answers.
enum Broken {
    Throws,
    Silent,
}

impl Redactor for Broken {
    fn redact<'a>(&'a self, _: &'a Action) -> LocalBoxFuture<'a, Result<Option<Value>, RawFailure>> {
        match self {
            Broken::Throws => future::ready(Err(RawFailure::message("hook exploded"))).boxed_local(),
            Broken::Silent => future::pending().boxed_local(),
        }
    }
}

#[test]
fn a_redactor_that_fails_or_never_answers_gets_the_arguments_dropped_with_a_warning() {
    for (broken, why) in [(Broken::Throws, "hook exploded"), (Broken::Silent, "no answer within 5000 ms")] {
        let model = ScriptedModel::new([login(SECRET), answer("done")]);
        let denied = RawFailure::coded("DENIED", format!("wrong password {SECRET}"));
        let tools = FakeTools::new().script("login", vec![Behaviour::Fail(denied)]);
        let h = Harness::new(model, tools, specs(), AgentConfig::default()).redacting(Rc::new(broken));
        let (result, events) = h.run("Log in.");
        assert!(!result.success, "it answered straight after the failed login");
        let turns = h.store.turns();
        assert_eq!(turns[0].turn.action.as_ref().unwrap().args, json!("[redacted]"));
        assert_eq!(h.store.failures()[0].args_digest, Some(digest(&json!("[redacted]"))));
        assert!(!stored(&h).contains(SECRET), "every value of a dropped call is scrubbed");
        let warning = events.iter().find_map(|e| match e {
            Event::Warning { step: Some(1), message } => Some(message.clone()),
            _ => None,
        });
        let warning = warning.expect("a warning");
        assert!(warning.contains("`login`") && warning.contains(why), "{warning}");
    }
}
