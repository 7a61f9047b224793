#![cfg(not(target_arch = "wasm32"))]
//! A `modelCall` carries what changed of the prompt: the messages after the `keep` it shares with
//! the run's previous call to that backend, which the page keeps (`js/agent.js`), the first of
//! them as its new middle only when the rest is the previous call's (`edit`). Rebuilt as the page
//! rebuilds it, every call's prompt is the engine's prompt exactly, whatever changed: a new step,
//! the session's memory losing its oldest lines, an earlier message rewritten (compaction), the
//! first message, nothing at all; with text outside the BMP, whose UTF-16 units the edit counts.
//! A compacted run's window of steps moves on by one each step: the steps that moved into the
//! summary are skipped, and the summary's kept lines are a span of the previous one, not resent.

mod worker_harness;

use std::cell::RefCell;
use std::rc::Rc;

use keel::engine::{Message, Model, ModelRequest, Role};
use keel::web::js_model::PageModel;
use keel::web::protocol::{ModelText, Reply, WorkerMessage};
use keel::web::rpc::{PageReply, Rpc, Transport};
use serde_json::{json, Value};
use worker_harness::rebuilt;

#[derive(Default)]
struct Wire(RefCell<Vec<Value>>);

impl Transport for Wire {
    fn post(&self, message: &WorkerMessage) {
        self.0.borrow_mut().push(serde_json::from_str(&message.to_json()).unwrap());
    }
}

fn prompt<S: AsRef<str>>(messages: &[(Role, S)]) -> ModelRequest {
    ModelRequest {
        messages: messages.iter().map(|(role, text)| Message::new(*role, text.as_ref())).collect(),
        schema: Some(json!({"type": "object"})),
        max_tokens: 300,
    }
}

#[test]
fn each_call_carries_the_changed_messages_and_the_page_rebuilds_the_whole_prompt() {
    use Role::{Assistant as A, System as S, User as U};
    let wire = Rc::new(Wire::default());
    let rpc = Rpc::new(wire.clone());
    let model = PageModel::new(rpc.clone(), "r", "custom");
    // The session's memory: lines of earlier runs, the oldest dropped as the run's steps grow.
    let line = |i: u32| format!("- lookup {{\"id\":{i}}} → ok: Ïtem {i} 🦀\n");
    let memory = |from: u32| format!("Earlier:\n{}Task: look.", (from..40).map(line).collect::<String>());
    let prompts = [
        (prompt(&[(S, "sys"), (U, "task. Next: act")]), 0, None, 0),
        // The newest observation loses its close, two messages follow.
        (prompt(&[(S, "sys"), (U, "task"), (A, "step 1"), (U, "obs 1. Next: act")]), 1, None, 0),
        (
            prompt(&[(S, "sys"), (U, "task"), (A, "step 1"), (U, "obs 1"), (A, "step 2"), (U, "obs 2")]),
            3,
            None,
            0,
        ),
        // The same prompt again (a retry): nothing to carry.
        (
            prompt(&[(S, "sys"), (U, "task"), (A, "step 1"), (U, "obs 1"), (A, "step 2"), (U, "obs 2")]),
            6,
            None,
            0,
        ),
        // Compacted: an earlier message rewritten, the prompt shorter; the step after the cut is
        // the last call's, two messages on.
        (prompt(&[(S, "sys"), (U, "task [1 step cut]"), (A, "step 2"), (U, "obs 2")]), 1, None, 2),
        // The first message changed (the tools offered), the next is the last call's.
        (prompt(&[(S, "sys, fewer tools"), (U, "task [1 step cut]")]), 0, None, 1),
        (prompt(&[(S, "sys, fewer tools".to_string()), (U, memory(0)), (A, "step 1".into())]), 1, None, 0),
        // The memory loses its two oldest lines: only its head changes; the step after it stays.
        (
            prompt(&[
                (S, "sys, fewer tools".to_string()),
                (U, memory(2)),
                (A, "step 1".into()),
                (U, "obs".into()),
            ]),
            1,
            Some(memory(2).len()),
            1,
        ),
        // …and again, with nothing else changed.
        (
            prompt(&[
                (S, "sys, fewer tools".to_string()),
                (U, memory(5)),
                (A, "step 1".into()),
                (U, "obs".into()),
            ]),
            1,
            Some(memory(5).len()),
            2,
        ),
    ];
    let mut page: Vec<Value> = Vec::new();
    for (i, (request, keep, edited_len, reused)) in prompts.iter().enumerate() {
        let call = model.complete(request, None);
        let posted = wire.0.borrow().last().cloned().unwrap();
        assert_eq!(posted["type"], "modelCall");
        assert_eq!(posted["keep"].as_u64().unwrap_or(0), *keep as u64, "call {i}: {posted}");
        let carried = posted["request"]["messages"].as_array().unwrap();
        let again = posted["again"].as_u64().unwrap_or(0) as usize;
        assert_eq!(again, *reused, "call {i}: {posted}");
        assert_eq!(
            carried.len(),
            request.messages.len() - keep - again,
            "call {i} carries only what changed"
        );
        assert_eq!(posted.get("edit").is_some(), edited_len.is_some(), "call {i}: {posted}");
        if let Some(edit) = posted.get("edit") {
            let middle = carried[0]["content"].as_str().unwrap().len();
            assert!(middle < edited_len.unwrap() / 4, "call {i} carries the middle, {middle} bytes: {edit}");
        }
        page = rebuilt(&page, &posted);
        assert_eq!(
            Value::Array(page.clone()),
            serde_json::to_value(&request.messages).unwrap(),
            "call {i}: the page's prompt"
        );
        // The schema is the same at every call: carried at the first only.
        if i == 0 {
            assert_eq!(posted["request"]["schema"], json!({"type": "object"}));
        } else {
            assert_eq!((&posted["request"]["schema"], &posted["sameSchema"]), (&Value::Null, &json!(true)));
        }
        assert_eq!(posted["request"]["maxTokens"], 300);
        let id = posted["id"].as_u64().unwrap();
        let text = ModelText { text: format!("reply {i}"), ..ModelText::default() };
        assert!(rpc.resolve(PageReply::Model(Reply::ok(id, text))));
        let reply = futures_executor::block_on(call).unwrap();
        assert_eq!(reply.text, format!("reply {i}"));
    }
}

#[test]
fn a_run_starts_from_the_whole_prompt_whatever_another_run_sent() {
    let wire = Rc::new(Wire::default());
    let rpc = Rpc::new(wire.clone());
    let request = prompt(&[(Role::System, "sys"), (Role::User, "task")]);
    for run in ["r1", "r2"] {
        let model = PageModel::new(rpc.clone(), run, "custom");
        let call = model.complete(&request, None);
        let posted = wire.0.borrow().last().cloned().unwrap();
        assert!(posted.get("keep").is_none(), "{run}: {posted}");
        assert_eq!(posted["request"]["messages"].as_array().unwrap().len(), 2);
        let id = posted["id"].as_u64().unwrap();
        assert!(rpc.resolve(PageReply::Model(Reply::ok(id, ModelText::default()))));
        futures_executor::block_on(call).unwrap();
    }
}

/// Sends `request` through `model`, answers it, and returns what crossed to the page.
fn call(model: &PageModel, rpc: &Rc<Rpc>, wire: &Wire, request: &ModelRequest) -> Value {
    let pending = model.complete(request, None);
    let posted = wire.0.borrow().last().cloned().unwrap();
    let id = posted["id"].as_u64().unwrap();
    assert!(rpc.resolve(PageReply::Model(Reply::ok(id, ModelText::default()))));
    futures_executor::block_on(pending).unwrap();
    posted
}

#[test]
fn a_compacted_run_whose_window_moves_on_carries_the_newest_step_and_the_summary_change() {
    use Role::{Assistant as A, System as S, User as U};
    let wire = Rc::new(Wire::default());
    let rpc = Rpc::new(wire.clone());
    let model = PageModel::new(rpc.clone(), "r", "custom");
    let line = |i: u32| {
        format!("{i}. lookup {{\"id\":{i}}} → ok: {{\"name\":\"Ïtem {i} 🦀\",\"next\":{}}}\n", i + 1)
    };
    // The summary as a compacted run writes it: a count of the steps left out, then a window of
    // step lines that drops its oldest line and gains a newer one each step.
    let summary = |from: u32, to: u32| {
        format!(
            "Task: look.\n\nSteps so far ({} earlier steps omitted)\n{}",
            from - 1,
            (from..to).map(line).collect::<String>()
        )
    };
    // The steps after it: the newest ones, the window of them moving on by one step each call.
    let prompt_at = |k: u32| {
        let mut messages = vec![(S, "sys".to_string()), (U, summary(k, k + 60))];
        for step in k + 60..k + 65 {
            messages.push((A, format!("step {step}")));
            messages.push((U, format!("obs {step}")));
        }
        prompt(&messages)
    };
    let mut page: Vec<Value> = Vec::new();
    for k in 1..=4 {
        let request = prompt_at(k);
        let posted = call(&model, &rpc, &wire, &request);
        page = rebuilt(&page, &posted);
        assert_eq!(Value::Array(page.clone()), serde_json::to_value(&request.messages).unwrap(), "call {k}");
        let bytes = posted.to_string().len();
        let whole = serde_json::to_string(&request.messages).unwrap().len();
        if k == 1 {
            assert_eq!(posted.get("keep"), None, "the first call carries the whole prompt");
            continue;
        }
        assert_eq!(posted["keep"], 1, "call {k}: {posted}");
        assert_eq!(
            (posted["skip"].as_u64(), posted["again"].as_u64()),
            (Some(2), Some(8)),
            "call {k}: {posted}"
        );
        let span = &posted["edit"]["span"];
        assert!(span.is_object(), "call {k}: the summary's kept lines are a span: {posted}");
        assert!(bytes * 8 < whole, "call {k} carries {bytes} bytes of a {whole}-byte prompt: {posted}");
    }
}

#[test]
fn a_rewritten_message_with_no_run_in_common_is_carried_whole() {
    use Role::{System as S, User as U};
    let wire = Rc::new(Wire::default());
    let rpc = Rpc::new(wire.clone());
    let model = PageModel::new(rpc.clone(), "r", "custom");
    let text = |seed: u32| (0..200).map(|i| format!("line {} of {seed}\n", i * 7 + seed)).collect::<String>();
    let mut page: Vec<Value> = Vec::new();
    for seed in [1, 2] {
        let request = prompt(&[(S, "sys".to_string()), (U, format!("A{}", text(seed)))]);
        let posted = call(&model, &rpc, &wire, &request);
        page = rebuilt(&page, &posted);
        assert_eq!(Value::Array(page.clone()), serde_json::to_value(&request.messages).unwrap());
        if seed == 2 {
            assert_eq!(posted.get("edit"), None, "nothing long in common: {posted}");
        }
    }
}

#[test]
fn a_schema_is_carried_when_it_changes_and_the_page_keeps_it_until_then() {
    use Role::{System as S, User as U};
    let wire = Rc::new(Wire::default());
    let rpc = Rpc::new(wire.clone());
    let model = PageModel::new(rpc.clone(), "r", "custom");
    let (a, b) = (json!({"type": "object", "required": ["a"]}), json!({"type": "object", "required": ["b"]}));
    // The same schema again, another (fewer tools offered), none (asked without constraining: a
    // backend refused the schema), then the first again.
    let schemas = [Some(&a), Some(&a), Some(&b), Some(&b), None, None, Some(&a)];
    let mut kept = Value::Null;
    let mut carried = Vec::new();
    for (i, schema) in schemas.into_iter().enumerate() {
        let mut request = prompt(&[(S, "sys".to_string()), (U, format!("task {i}"))]);
        request.schema = schema.cloned();
        let posted = call(&model, &rpc, &wire, &request);
        // As the page reads it (js/agent.js).
        if posted["sameSchema"] == true {
            assert!(!kept.is_null(), "call {i} reuses a schema the page does not have: {posted}");
            assert!(posted["request"]["schema"].is_null(), "call {i}: {posted}");
        } else {
            kept = posted["request"]["schema"].clone();
        }
        assert_eq!(kept, schema.cloned().unwrap_or(Value::Null), "call {i}: the page's schema");
        carried.push(!posted["request"]["schema"].is_null());
    }
    assert_eq!(carried, [true, false, true, false, false, false, true]);
}
