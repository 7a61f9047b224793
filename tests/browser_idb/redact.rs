//! Redaction against IndexedDB: a run through the worker host with `store: {name, redact}` leaves
//! its secret nowhere in the database, whatever the page reads back.

use std::rc::Rc;

use keel::store::retention::Retention;
use keel::store::IdbOptions;
use keel::web::indexeddb::{delete_database, IdbStore};
use serde_json::json;

use crate::browser::{next, web_host, Recorder};

const SECRET: &str = "hunter2-secret";

pub async fn a_redacted_run_leaves_no_secret_in_indexeddb() {
    let name = "keel-test-redact";
    delete_database(name, 2_000).await.expect("delete the test database");
    let posted = Rc::new(Recorder::default());
    let host = web_host(&posted);
    let store = json!({"name": name, "retention": {"maxRuns": null, "maxAgeMs": null},
                       "redact": {"keys": ["password"], "mask": "<gone>"}});
    host.handle(
        &json!({"type": "init", "model": {"kind": "custom"},
                "config": {"store": store, "retry": {"maxAttempts": 1}},
                "tools": [{"name": "login", "description": "Log in."}]})
        .to_string(),
    );
    let mut seen = 0;
    assert_eq!(next(&posted, &mut seen, "ready").await["type"], "ready");
    host.handle(&json!({"type": "run", "runId": "r", "task": "Log in as bob.", "session": "s"}).to_string());
    let step = json!({"thought": "log in", "action": {"tool": "login", "args": {"user": "bob", "password": SECRET}}});
    let model = next(&posted, &mut seen, "modelCall").await;
    host.handle(
        &json!({"type": "modelResult", "id": model["id"], "ok": true, "text": step.to_string()}).to_string(),
    );
    let call = next(&posted, &mut seen, "toolCall").await;
    assert_eq!(call["args"]["password"], SECRET, "the page's tool gets the real password");
    let denied = json!({"message": format!("wrong password {SECRET}"), "code": "DENIED"});
    host.handle(&json!({"type": "toolResult", "id": call["id"], "ok": false, "error": denied}).to_string());
    let model = next(&posted, &mut seen, "modelCall").await;
    let last = json!({"thought": "give up", "final_answer": "Could not log in."}).to_string();
    host.handle(&json!({"type": "modelResult", "id": model["id"], "ok": true, "text": last}).to_string());
    next(&posted, &mut seen, "runEnded").await;
    host.handle(&json!({"type": "dispose"}).to_string());

    // What another connection reads from the database.
    let options = IdbOptions { name: name.into(), retention: Retention::KEEP_ALL, blocked_timeout_ms: 2_000 };
    let db = IdbStore::new(options);
    let export = db.export_session("s").await.unwrap();
    assert_eq!((export.turns.len(), export.failures.len()), (2, 1));
    let action = export.turns[0].turn.action.as_ref().unwrap();
    assert_eq!(action.args, json!({"user": "bob", "password": "<gone>"}));
    assert_eq!(export.failures[0].message, "wrong password <gone>");
    let text = serde_json::to_string(&export).unwrap();
    assert!(!text.contains(SECRET), "{text}");
    db.close();
}
