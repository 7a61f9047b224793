//! The loop end to end, natively: a scripted model makes the mistakes small models make, the tools
//! fail the ways real tools fail, and keel recovers. Prints the trace as the page would show it.
//!
//! Run with `./build.sh demo` (or `cargo run --example demo`).

#[path = "../tests/support/mod.rs"]
mod support;

use keel::engine::{AgentConfig, Event, RunOptions};
use keel::errors::render::Format;
use keel::errors::RawFailure;
use serde_json::json;
use support::*;

fn main() {
    let model = ScriptedModel::new([
        // A hallucinated tool name: keel answers with "did you mean".
        act("get_wether", json!({"city": "Paris"})),
        // Wrong types and an unknown key: every issue reported at once.
        act("get_weather", json!({"city": "Paris", "unit": "kelvin", "cty": "FR"})),
        // The weather service answers 503 once: the runtime retries, the model never knows.
        act("get_weather", json!({"city": "Paris", "unit": "c"})),
        // A stale element reference: the plan names the snapshot tool.
        act("click", json!({"ref": "e5"})),
        act("snapshot", json!({})),
        act("click", json!({"ref": "e7"})),
        // The invoice service is rate limited with a Retry-After: waited out, with jitter.
        act("list_invoices", json!({})),
        // Not JSON at all.
        Reply::Text("The invoice is INV-1, I think.".into()),
        answer("It is 18°C in Paris; I subscribed you to the newsletter; your invoice is INV-1."),
    ]);
    let tools = FakeTools::new()
        .script(
            "get_weather",
            vec![
                Behaviour::Fail(RawFailure::http(503, "Service Unavailable")),
                Behaviour::Ok(json!("18°C, light rain")),
            ],
        )
        .script(
            "click",
            vec![
                Behaviour::Fail(RawFailure::coded(
                    "STALE_REFERENCE",
                    "Element e5 was removed from the page.",
                )),
                Behaviour::Ok(json!("Clicked \"Subscribe\".")),
            ],
        )
        .script(
            "snapshot",
            vec![Behaviour::Ok(json!("heading \"News\" [ref=e6]\nbutton \"Subscribe\" [ref=e7]"))],
        )
        .script(
            "list_invoices",
            vec![
                Behaviour::Fail(RawFailure::http(429, "Too Many Requests").with_retry_after_ms(1_500)),
                Behaviour::Warn(json!(["INV-1"]), vec!["Only the first page of invoices was read.".into()]),
            ],
        );
    let harness =
        Harness::new(model, tools, specs(), AgentConfig { format: Format::Text, ..AgentConfig::default() });
    let task = "What's the weather in Paris? Then subscribe me to the newsletter and tell me my invoice id.";
    let options =
        RunOptions { session: "demo".into(), run_id: Some("demo-run".into()), ..Default::default() };
    let on_event = |event: &Event| print_event(event);
    let result = futures_executor::block_on(harness.agent.run(&harness.effects, task, options, &on_event));

    println!("\n══ Failure log ══");
    for f in &result.failures {
        println!(
            "  step {:>2}  {:<14} {:<10} {:<16} attempt {}  retried {:<5}  recovered {}",
            f.step,
            f.tool.as_deref().unwrap_or("(model)"),
            f.class.as_str(),
            f.code.as_str(),
            f.attempt,
            f.retried,
            f.recovered
        );
    }
    let s = result.stats;
    println!(
        "  faults {}, retried by the runtime {}, recovered {} ({:.0}%)",
        s.faults,
        s.retried,
        s.recovered,
        s.recovery_rate * 100.0
    );
    println!("  virtual time waited: {} ms", harness.clock.sleeps.borrow().iter().sum::<u64>());
}

fn print_event(event: &Event) {
    match event {
        Event::RunStarted { task, .. } => println!("══ Task ══\n  {task}"),
        Event::StepStarted { step } => println!("\n── step {step} ──"),
        Event::Thought { text, .. } => println!("  💭 {text}"),
        Event::Action { tool, args, .. } => println!("  ▶ {tool} {args}"),
        Event::RetryScheduled { tool, attempt, delay_ms, code, .. } => println!(
            "  ↻ {} failed with {code} (attempt {attempt}); the runtime retries in {delay_ms} ms",
            tool.as_deref().unwrap_or("model")
        ),
        Event::Failure { class, code, envelope: Some(_), .. } => {
            println!("  ✗ {} failure: {code}", class.as_str())
        }
        Event::Observation { text, .. } => {
            println!("  👁 observation shown to the model:");
            for line in text.lines() {
                println!("     {line}");
            }
        }
        Event::Warning { message, .. } => println!("  ⚠ {message}"),
        Event::FinalAnswer { answer, success, .. } => {
            println!("\n══ Answer ({}) ══\n  {answer}", if *success { "success" } else { "not complete" })
        }
        Event::RunEnded { reason, .. } => println!("  ({})", reason.describe()),
        _ => {}
    }
}
