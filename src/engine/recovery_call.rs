//! Recovery the runtime runs itself: a tool that declares `recoverWith` for a failure's code gets
//! the named read-only tool called by the runtime, with `{}`, right after it fails, so the model's
//! next observation already holds the fresh result (a new snapshot after a stale reference) and the
//! plan says so. Small models otherwise take the snapshot and still send the old reference, or
//! never take it.

use serde_json::Value;

use crate::errors::Envelope;

use super::observation::describe_output;
use super::run::RunState;
use super::tool_turn::ToolEnd;
use super::{CallKey, Event};
use crate::turn::result_digest;

impl RunState<'_> {
    /// After `tool` failed with `envelope` (recorded in the log at `index`): if `tool` declares a
    /// recovery tool for the code, calls it and returns the observation the model sees — the
    /// envelope, its plan saying what the runtime did, and the fresh output. `None` when no
    /// recovery is declared (or the run was cancelled during it).
    pub(crate) async fn recovery_call(
        &mut self,
        step: u32,
        tool: &str,
        envelope: &Envelope,
        index: usize,
    ) -> Option<String> {
        let agent = self.agent;
        let target = agent.tools.get(tool)?.recover_with.get(envelope.code.as_str())?;
        // Checked at Agent::new: the target exists, is read-only and accepts `{}`.
        let spec = agent.tools.get(target)?;
        let args = Value::Object(Default::default());
        let key = CallKey::new(&spec.name, &args);
        // Read-only, so it needs no intent; its key is its own within the step.
        let idempotency_key = format!("{}:{step}:{}", self.record.id, spec.name);
        let end = self.run_tool(step, spec, &args, &key, &idempotency_key).await.ok()?;
        self.log.note_recovery_call(index, &spec.name);
        let mut shown = envelope.clone();
        shown.details.insert("recoveryCall".into(), spec.name.clone().into());
        let (ok, fresh) = match end {
            ToolEnd::Done(output) => {
                let text = describe_output(&output, agent.config.observation_chars);
                self.outputs.insert(&spec.name, text.clone(), step, output.lists);
                self.repeats.succeeded(&key, &result_digest(&output.value, &output.warnings));
                let named = format!("`{}`", spec.name);
                shown.recovery.retain(|step| !step.contains(&named));
                shown.recovery.insert(
                    0,
                    format!(
                        "The runtime already called {named} for you after this failure: its fresh result is below. \
                         Use the values in it (not older ones) and call `{tool}` again."
                    ),
                );
                let text = self.with_fix_notes(&spec.name, text);
                (true, format!("\n\nFresh result of {named}, called by the runtime:\n{text}"))
            }
            ToolEnd::Advisory(failed) | ToolEnd::Failed(failed, _) => {
                let message = failed.message.clone();
                (
                    false,
                    format!(
                        "\n\nThe runtime called `{}` to recover, and it failed too: {message}",
                        spec.name
                    ),
                )
            }
        };
        (self.emit)(&Event::RecoveryCall {
            step,
            tool: tool.to_string(),
            code: envelope.code.clone(),
            called: spec.name.clone(),
            ok,
        });
        Some(self.show(&shown) + &fresh)
    }
}
