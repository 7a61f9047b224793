use futures_executor::block_on;
use serde_json::{json, Value};

use super::*;
use crate::errors::render::{render, Format};
use crate::errors::{CallContext, Classification, Envelope, ErrorCode, FailureClass};
use crate::store::{EndReason, FailureRecord, RunCounts, RunRecord, RunStatus};
use crate::text::{clip, head_tail};
use crate::turn::{digest, Outcome, Turn};

fn policy(value: Value) -> RedactPolicy {
    RedactPolicy::from_json(&value).unwrap()
}

fn error(value: Value) -> String {
    RedactSetting::from_config(&json!({ "store": { "redact": value } })).unwrap_err().to_string()
}

#[test]
fn keys_are_masked_at_any_depth_inside_arrays_and_whatever_their_case() {
    let p = policy(json!({"keys": ["password", "Token"]}));
    let args = json!({
        "user": "bob",
        "PASSWORD": "hunter22",
        "auth": {"token": {"value": "t0k3n", "kind": "bearer"}, "note": "password"},
        "logins": [{"site": "a", "Password": "pw-a"}, [{"password": 1234}]],
    });
    assert_eq!(
        p.apply("login", &args),
        Some(json!({
            "user": "bob",
            "PASSWORD": "[redacted]",
            "auth": {"token": "[redacted]", "note": "password"},
            "logins": [{"site": "a", "Password": "[redacted]"}, [{"password": "[redacted]"}]],
        }))
    );
    assert_eq!(p.apply("t", &json!(["password", 3])), Some(json!(["password", 3])), "values are not keys");
}

#[test]
fn a_tool_rule_drops_its_calls_or_masks_more_keys_for_it_alone() {
    let p = policy(json!({"keys": ["pin"], "tools": {"vault": "drop", "login": ["user"]}, "mask": "***"}));
    assert_eq!(p.apply("vault", &json!({"anything": 1})), None);
    let args = json!({"user": "bob", "pin": 1234});
    assert_eq!(p.apply("login", &args), Some(json!({"user": "***", "pin": "***"})));
    assert_eq!(p.apply("search", &args), Some(json!({"user": "bob", "pin": "***"})));
    assert_eq!(Redactor::mask(&p), "***");
    let call = Action { tool: "vault".into(), args: json!({}) };
    assert_eq!(block_on(p.redact(&call)), Ok(None));
    assert_eq!(policy(json!({})).apply("t", &args), Some(args), "an empty policy keeps everything");
    assert_eq!(Redactor::mask(&policy(json!({}))), DEFAULT_MASK);
}

#[test]
fn the_setting_reads_a_policy_the_page_hook_or_nothing() {
    let setting = |config: Value| RedactSetting::from_config(&config).unwrap();
    assert_eq!(setting(json!({})), None);
    assert_eq!(setting(json!({"store": "memory"})), None);
    assert_eq!(setting(json!({"store": {"name": "db", "redact": null}})), None);
    assert_eq!(setting(json!({"store": {"redact": "page"}})), Some(RedactSetting::PageHook));
    let Some(RedactSetting::Policy(p)) = setting(json!({"store": {"redact": {"keys": ["a"]}}})) else {
        panic!("a policy");
    };
    assert_eq!(p.apply("t", &json!({"A": 1})), Some(json!({"A": "[redacted]"})));
}

#[test]
fn a_bad_policy_is_an_error_naming_the_setting() {
    assert_eq!(
        error(json!({"keys": ["password", 3]})),
        "config `store.redact.keys[1]` is 3: an argument name (a non-empty string)"
    );
    assert!(error(json!({"keys": ["", "a"]})).starts_with("config `store.redact.keys[0]` is \"\""));
    assert!(error(json!({"keys": "password"})).starts_with("config `store.redact.keys` is \"password\""));
    assert_eq!(
        error(json!({"tools": {"login": "hide"}})),
        "config `store.redact.tools.login` is \"hide\": \"drop\" or an array of argument names"
    );
    assert!(error(json!({"tools": {"login": [" "]}})).starts_with("config `store.redact.tools.login[0]`"));
    assert!(error(json!({"tools": ["login"]})).starts_with("config `store.redact.tools` is"));
    assert_eq!(error(json!({"mask": 0})), "config `store.redact.mask` is 0: a string");
    assert!(
        error(json!({"key": ["password"]})).contains("`store.redact.key` is [\"password\"]: not a redaction")
    );
    assert!(error(json!(true)).starts_with("config `store.redact` is true: an object"));
    assert!(error(json!("pager")).starts_with("config `store.redact` is \"pager\""));
    let p = policy(json!({"tools": {"logn": "drop"}}));
    let known = ["login".to_string()];
    assert_eq!(p.check_tools(&known).unwrap_err().field, "store.redact.tools.logn");
    assert_eq!(policy(json!({"tools": {"login": "drop"}})).check_tools(&known), Ok(()));
}

fn call(tool: &str, args: &Value) -> Action {
    Action { tool: tool.into(), args: args.clone() }
}

fn noted(real: &Value, kept: Option<Value>) -> Scrubber {
    let mut s = Scrubber::new(DEFAULT_MASK);
    assert!(s.note(&call("t", real), kept));
    s
}

#[test]
fn removed_values_are_scrubbed_from_text_in_every_written_form() {
    let real = json!({"user": "bob", "password": "p<a\"ss 42"});
    let s = noted(&real, policy(json!({"keys": ["password"]})).apply("login", &real));
    assert_eq!(s.text("wrong password p<a\"ss 42 for bob"), "wrong password [redacted] for bob");
    // The envelope shown to the model echoes the arguments, JSON inside escaped XML.
    let envelope = Envelope::from_failure(
        &crate::errors::RawFailure::message("denied"),
        Classification::of(ErrorCode::Custom("DENIED".into())),
        CallContext { tool: Some("login"), args: Some(&real), ..CallContext::default() },
    );
    for format in [Format::Xml, Format::Text] {
        let shown = render(&envelope, format, 1_500);
        assert!(shown.contains("ss 42"), "the secret is in the rendering: {shown}");
        let stored = s.text(&shown);
        assert!(!stored.contains("ss 42") && stored.contains("[redacted]"), "{stored}");
        assert!(stored.contains("bob"));
    }
    assert_eq!(s.text("no secret here"), "no secret here");
}

#[test]
fn the_part_of_a_value_cut_short_next_to_an_ellipsis_is_masked_too() {
    let key = "sk-live-0123456789abcdefghij";
    let s = noted(&json!({"key": key}), None);
    let head = clip(&format!("token {key}"), 20);
    assert_eq!(head, "token sk-live-01234…");
    assert_eq!(s.text(&head), "token [redacted]…");
    let both = head_tail(&format!("{key} and more text"), 12);
    assert_eq!(both, "sk-liv… text");
    assert_eq!(s.text(&both), "[redacted]… text");
    let tail = format!("start…{}", &key[10..]);
    assert_eq!(s.text(&tail), "start…[redacted]");
    assert_eq!(s.text("sk-…ghij"), "sk-…[redacted]", "a start under 4 chars stays; an end of 4 goes");
    assert_eq!(s.text("sk-live…cdef"), "[redacted]…cdef", "`cdef` does not end the value");
    assert_eq!(s.text("[cut] x…y"), "[cut] x…y");
}

#[test]
fn short_values_are_masked_in_arguments_but_left_in_text_and_the_mask_is_never_rescrubbed() {
    let real = json!({"pin": 42, "code": "abc", "admin": true, "secret": "dact"});
    let kept = policy(json!({"keys": ["pin", "code", "admin", "secret"]})).apply("t", &real);
    let s = noted(&real, kept);
    assert_eq!(s.text("42 abc true"), "42 abc true");
    assert_eq!(s.text("dact"), "[redacted]");
    assert_eq!(s.text("[redacted] dact"), "[redacted] [redacted]", "`dact` inside the mask is left alone");
    let mut again = s.clone();
    assert!(!again.note(&call("t", &json!({"secret": "dact"})), None), "nothing new");
    assert_eq!(s.args(&call("t", &real))["secret"], "[redacted]");
}

#[test]
fn a_value_still_stored_elsewhere_is_not_counted_as_removed() {
    let real = json!({"user": "alice", "password": "alice"});
    let mut s = Scrubber::new(DEFAULT_MASK);
    assert!(!s.note(&call("t", &real), policy(json!({"keys": ["password"]})).apply("t", &real)));
    assert_eq!(s.text("hello alice"), "hello alice");
}

fn failure(args_digest: Option<String>, message: &str) -> FailureRecord {
    FailureRecord {
        id: "r:1:1:0".into(),
        run_id: "r".into(),
        session: "s".into(),
        step: 1,
        tool: Some("login".into()),
        args_digest,
        class: FailureClass::Persistent,
        code: ErrorCode::InvalidArgs,
        attempt: 1,
        message: message.into(),
        retried: false,
        recovered: false,
        recovery_call: None,
        idempotency_key: None,
        at_ms: 5,
    }
}

#[test]
fn the_stored_turn_failure_and_run_hold_the_redacted_form_and_its_digest() {
    let real = json!({"user": "bob", "password": "hunter22"});
    let kept = policy(json!({"keys": ["password"]})).apply("login", &real);
    let mut s = Scrubber::new(DEFAULT_MASK);
    s.note(&call("login", &real), kept);
    // A later call sends the secret under a key no rule covers: it is scrubbed there too.
    let search = call("search", &json!({"q": "hunter22"}));
    s.note(&search, Some(search.args.clone()));
    // The same arguments to a tool whose calls are dropped: kept apart, by tool.
    s.note(&call("audit", &real), None);
    let redacted = json!({"user": "bob", "password": "[redacted]"});
    let turn = Turn {
        step: 1,
        thought: "log in with hunter22".into(),
        action: Some(Action { tool: "login".into(), args: real.clone() }),
        observation: "hunter22 was refused".into(),
        outcome: Outcome::Failed,
        reply: Some("{\"password\": \"hunter22\"}".into()),
    };
    let stored = s.turn(&turn);
    assert_eq!(stored.action.as_ref().unwrap().args, redacted);
    assert_eq!(stored.thought, "log in with [redacted]");
    assert_eq!(stored.observation, "[redacted] was refused");
    assert_eq!(stored.reply.as_deref(), Some("{\"password\": \"[redacted]\"}"));
    assert_eq!(s.args(&search), json!({"q": "[redacted]"}));
    assert_eq!(s.args(&call("audit", &real)), json!("[redacted]"));
    assert_eq!(s.args(&call("login", &json!({"never": "noted"}))), json!("[redacted]"), "fails closed");

    let stored = s.failure(&failure(Some(digest(&real)), "bad password hunter22"));
    assert_eq!(stored.args_digest, Some(digest(&redacted)));
    assert_ne!(stored.args_digest, Some(digest(&real)));
    assert_eq!(stored.message, "bad password [redacted]");
    assert_eq!(s.failure(&failure(Some("unknown".into()), "m")).args_digest, None);
    assert_eq!(s.failure(&failure(None, "m")).args_digest, None);
    let audit = FailureRecord { tool: Some("audit".into()), ..failure(Some(digest(&real)), "m") };
    assert_eq!(s.failure(&audit).args_digest, Some(digest(&json!("[redacted]"))));

    let run = RunRecord {
        id: "r".into(),
        session: "s".into(),
        task: "log in as bob with hunter22".into(),
        status: RunStatus::Failed,
        started_ms: 0,
        ended_ms: Some(1),
        answer: Some("hunter22 did not work".into()),
        reason: Some(EndReason::Fatal { code: ErrorCode::Internal, message: "hunter22 rejected".into() }),
        counts: RunCounts::default(),
        pending_approval: None,
        intent: None,
    };
    let stored = s.run(&run);
    assert_eq!(stored.task, run.task, "the task is the page's own text");
    assert_eq!(stored.answer.as_deref(), Some("[redacted] did not work"));
    assert_eq!(
        stored.reason,
        Some(EndReason::Fatal { code: ErrorCode::Internal, message: "[redacted] rejected".into() })
    );
}

#[test]
fn dropped_arguments_remove_every_value_and_store_the_mask() {
    let real = json!({"card": {"number": "4111 1111 1111 1111", "cvc": 123}});
    let s = noted(&real, None);
    assert_eq!(s.args(&call("t", &real)), json!("[redacted]"));
    assert_eq!(s.text("card 4111 1111 1111 1111 declined"), "card [redacted] declined");
}
