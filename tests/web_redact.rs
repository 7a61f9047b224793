#![cfg(not(target_arch = "wasm32"))]
//! Redaction in the worker, natively: `config.store.redact` as a policy (masked arguments in the
//! store, no secret in the failure log or any export) and as the page's function (`redact` →
//! `redactResult` before each step is stored; a function that throws or never answers gets the
//! arguments stored dropped, with a warning), and bad settings refused at `init`.

mod worker_harness;

use keel::engine::digest;
use serde_json::{json, Value};
use worker_harness::{done, Worker};

const SECRET: &str = "hunter2-secret";

/// A worker with a `login` tool, built with `config`.
fn login_worker(config: Value) -> Worker {
    let mut w = Worker::new();
    w.send(init(config));
    let ready = w.next();
    assert_eq!(ready["type"], "ready", "{ready}");
    w
}

fn init(config: Value) -> Value {
    json!({"type": "init", "model": {"kind": "custom"}, "config": config, "tools": [
        {"name": "login", "description": "Log in.", "inputSchema": {"type": "object",
         "properties": {"user": {"type": "string"}, "password": {"type": "string"}}}}]})
}

fn login(password: &str) -> Value {
    json!({"thought": "log in", "action": {"tool": "login", "args": {"user": "bob", "password": password}}})
}

/// Answers the model with a login step, and checks the page's tool is called with the real password.
fn call_login(w: &mut Worker, password: &str, reply: Value) {
    w.model(login(password));
    run_login(w, password, reply);
}

/// Checks the page's tool is called with the real password, and answers it with `reply`.
fn run_login(w: &mut Worker, password: &str, reply: Value) {
    let call = w.next();
    assert_eq!(
        (call["type"].as_str(), call["args"]["password"].as_str()),
        (Some("toolCall"), Some(password))
    );
    w.send(json!({"type": "toolResult", "id": call["id"], "ok": reply["ok"], "value": reply["value"],
                  "error": reply["error"]}));
}

/// Everything the page can read back from the store about run `r`, as one text.
fn read_back(w: &mut Worker) -> String {
    let all = [
        w.value(json!({"kind": "exportRun", "runId": "r"})),
        w.value(json!({"kind": "exportSession", "session": "s"})),
        w.value(json!({"kind": "exportRunOtlp", "runId": "r"})),
        w.value(json!({"kind": "failures"})),
    ];
    Value::Array(all.to_vec()).to_string()
}

#[test]
fn a_policy_stores_masked_arguments_and_the_failure_log_holds_no_secret() {
    let config =
        json!({"store": {"kind": "memory", "redact": {"keys": ["Password"]}}, "retry": {"maxAttempts": 1}});
    let mut w = login_worker(config);
    w.send(json!({"type": "run", "runId": "r", "task": "Log in as bob.", "session": "s"}));
    let denied = json!({"message": format!("wrong password {SECRET} for bob"), "code": "DENIED"});
    call_login(&mut w, SECRET, json!({"ok": false, "error": denied}));
    call_login(&mut w, "n3w-secret-pass", json!({"ok": true, "value": "welcome"}));
    w.model(done("Logged in."));
    let ended = w.next();
    assert_eq!(ended["type"], "runEnded");
    assert_eq!(
        ended["result"]["turns"][0]["action"]["args"]["password"], SECRET,
        "the run keeps the real args"
    );
    assert_eq!(w.count("redact"), 0, "a policy is applied in the worker");

    let stored = read_back(&mut w);
    assert!(!stored.contains(SECRET) && !stored.contains("n3w-secret-pass"), "{stored}");
    let run = w.value(json!({"kind": "exportRun", "runId": "r"}));
    let masked = json!({"user": "bob", "password": "[redacted]"});
    assert_eq!(run["turns"][0]["turn"]["action"]["args"], masked);
    assert_eq!(run["turns"][1]["turn"]["action"]["args"], masked);
    let failure = &run["failures"][0];
    assert_eq!(failure["message"], "wrong password [redacted] for bob");
    assert_eq!(failure["argsDigest"].as_str(), Some(digest(&masked).as_str()));
}

/// The next `redact` request, checked to carry the real arguments of `password`'s call.
fn redact_request(w: &mut Worker, password: &str) -> Value {
    let request = w.next();
    assert_eq!(request["type"], "redact", "{request}");
    assert_eq!(request["tool"], "login");
    assert_eq!(request["args"], json!({"user": "bob", "password": password}));
    request
}

fn warnings(w: &Worker) -> Vec<String> {
    let events = w.events();
    events
        .iter()
        .filter(|e| e["type"] == "warning")
        .map(|e| e["message"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_page_function_is_asked_before_each_step_is_stored_and_fails_closed() {
    let mut w = login_worker(json!({"store": {"redact": "page"}}));
    w.send(json!({"type": "run", "runId": "r", "task": "Log in as bob.", "session": "s"}));
    let ok = json!({"ok": true, "value": "welcome"});

    // `login` has side effects, so its intent is stored (redacted) before it runs: the page is
    // asked then, once per step, and its answer serves the step's commit too.
    w.model(login("first-secret"));
    let request = redact_request(&mut w, "first-secret");
    let kept = json!({"user": "bob", "password": "***"});
    w.send(json!({"type": "redactResult", "id": request["id"], "ok": true, "args": kept}));
    run_login(&mut w, "first-secret", ok.clone());

    w.model(login("second-secret"));
    let request = redact_request(&mut w, "second-secret");
    let thrown = json!({"name": "TypeError", "message": "the hook threw"});
    w.send(json!({"type": "redactResult", "id": request["id"], "ok": false, "error": thrown}));
    run_login(&mut w, "second-secret", ok.clone());

    w.model(login("third-secret"));
    let request = redact_request(&mut w, "third-secret");
    assert!(w.nothing_more(), "the call waits for the page's answer");
    w.clock.advance(5_000);
    w.pool.run_until_stalled();
    // A late answer finds no request waiting, and changes nothing.
    w.send(json!({"type": "redactResult", "id": request["id"], "ok": true, "args": {"password": "third-secret"}}));
    run_login(&mut w, "third-secret", ok);

    w.model(done("in"));
    assert_eq!(w.next()["type"], "runEnded");
    assert_eq!(w.count("redact"), 3, "the final answer has no call to redact");
    let warned = warnings(&w);
    assert_eq!(warned.len(), 2, "{warned:?}");
    assert!(
        warned[0].contains("the hook threw") && warned[1].contains("no answer within 5000 ms"),
        "{warned:?}"
    );

    let run = w.value(json!({"kind": "exportRun", "runId": "r"}));
    let args: Vec<Value> = (0..3).map(|i| run["turns"][i]["turn"]["action"]["args"].clone()).collect();
    assert_eq!(args, [kept, json!("[redacted]"), json!("[redacted]")]);
    let stored = read_back(&mut w);
    assert!(
        ["first-secret", "second-secret", "third-secret"].iter().all(|s| !stored.contains(s)),
        "{stored}"
    );
}

#[test]
fn a_bad_redaction_setting_fails_init_naming_the_setting() {
    for (redact, field) in [
        (json!({"keys": ["password", ""]}), "`store.redact.keys[1]`"),
        (json!({"keys": [7]}), "`store.redact.keys[0]`"),
        (json!({"tools": {"login": "hide"}}), "`store.redact.tools.login`"),
        (json!({"tools": {"logn": "drop"}}), "`store.redact.tools.logn`"),
        (json!({"mask": false}), "`store.redact.mask`"),
        (json!({"keys": ["a"], "tool": {}}), "`store.redact.tool`"),
        (json!(["password"]), "`store.redact`"),
    ] {
        let mut w = Worker::new();
        w.send(init(json!({"store": {"redact": redact}})));
        let failed = w.next();
        assert_eq!(
            (failed["type"].as_str(), failed["error"]["code"].as_str()),
            (Some("initFailed"), Some("INVALID_CONFIG"))
        );
        let message = failed["error"]["message"].as_str().unwrap();
        assert!(message.contains(field), "{message} should name {field}");
        assert!(failed["error"]["name"].is_null(), "keel's own error passes on no other's name");
    }
}
