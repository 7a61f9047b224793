//! What a run learns about its tools' arguments from their failures, and the step schema that
//! follows from it.
//!
//! A tool that rejects an argument and says which values it takes (`details.field` and
//! `details.options` on an `INVALID_ARGS` failure: a rule its schema did not state, as real APIs
//! have) gets that argument narrowed to those options for the rest of the run — until a call of it
//! works, for a tool that acts on what another lists (a drop-down's labels); a tool whose other
//! failure names the values that fix it the same way (a click on a covered element: the cover's
//! buttons) gets it narrowed to them until a call of it works; and a tool whose
//! identical call returned an identical result again, or was refused as an identical repeat of a
//! failed call, sits out the steps until a new call is made. Both only
//! shape constrained decoding: with a grammar, the same mistake cannot be made again — greedy
//! small models otherwise repeat it until the failure budget runs out.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::errors::{Envelope, ErrorCode};
use crate::tools::ToolSpec;

use super::output::choice_schema;

/// The most options a narrowing keeps: a longer list is not a choice a model needs made for it.
const MAX_OPTIONS: usize = 64;

/// One argument of one tool restricted to the values the tool said it takes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Narrowing {
    tool: String,
    field: String,
    options: Vec<Value>,
    /// Whether it lasts only until a call of its tool works (a value keel converted for the
    /// model, `value_forms.rs`; the values a failure named as its fix), not for the rest of the
    /// run (options the tool said it takes).
    until_worked: bool,
}

impl Narrowing {
    /// `tool`'s argument `field` restricted to `options`.
    pub(crate) fn new(tool: &str, field: &str, options: Vec<Value>) -> Narrowing {
        Narrowing { tool: tool.to_owned(), field: field.to_owned(), options, until_worked: false }
    }

    /// `tool`'s argument `field` restricted to `options` until a call of `tool` works.
    pub(crate) fn until_worked(tool: &str, field: &str, options: Vec<Value>) -> Narrowing {
        Narrowing { until_worked: true, ..Narrowing::new(tool, field, options) }
    }

    /// The narrowing an envelope of `spec`'s tool asks for, if it names a top-level field and
    /// between 1 and [`MAX_OPTIONS`] scalar options: for the rest of the run after `INVALID_ARGS`
    /// (the values the argument takes), but only until a call of the tool works when the tool acts
    /// on what another lists (`refsFrom`: a drop-down's labels are that drop-down's) or after any
    /// other failure (the values that fix it: keel-agent/dom's click on a covered
    /// element names the cover's buttons).
    pub(crate) fn from_failure(spec: &ToolSpec, envelope: &Envelope) -> Option<Narrowing> {
        let tool = spec.name.as_str();
        let field = envelope.details.get("field")?.as_str()?.trim();
        let options = envelope.details.get("options")?.as_array()?;
        let scalar = |v: &Value| matches!(v, Value::String(_) | Value::Number(_) | Value::Bool(_));
        if field.is_empty()
            || options.is_empty()
            || options.len() > MAX_OPTIONS
            || !options.iter().all(scalar)
        {
            return None;
        }
        match envelope.code {
            // The values the API takes, for the run.
            ErrorCode::InvalidArgs if spec.refs_from.is_empty() => {
                Some(Narrowing::new(tool, field, options.clone()))
            }
            // A tool that acts on what another lists (`refsFrom`) names that element's options (a
            // drop-down's labels: another element has others), another code the values that fix
            // it: until a call works, and only for an argument the tool has (the details are the
            // tool's own to word).
            _ => spec
                .input_schema
                .pointer(&format!("/properties/{}", field.replace('~', "~0").replace('/', "~1")))
                .map(|_| Narrowing::until_worked(tool, field, options.clone())),
        }
    }

    /// The narrowing without the values its tool already failed on for its field (`failed(tool,
    /// field, value)`): a greedy model otherwise sends the first ref of a listing again and again
    /// after the tool said it has no such element. When every option failed, none is left
    /// ([`Self::is_exhausted`]) and the tool sits out the step until a producer lists afresh: with
    /// the options all offered again, SmolLM2 clicked the refs of a stale listing one by one, then
    /// the last again, until the failure budget ended the run (recovery bench stale-ref, c7a04d9).
    pub(crate) fn without(mut self, failed: impl Fn(&str, &str, &str) -> bool) -> Narrowing {
        let (tool, field) = (&self.tool, &self.field);
        self.options.retain(|v| !v.as_str().is_some_and(|s| failed(tool, field, s)));
        self
    }

    /// The narrowing to `value` alone (one of its options).
    pub(crate) fn only(self, value: Value) -> Narrowing {
        self.with_options(vec![value])
    }

    /// The narrowing to `options` (some of its options).
    pub(crate) fn with_options(mut self, options: Vec<Value>) -> Narrowing {
        self.options = options;
        self
    }

    /// Whether no option is left: every value the producer listed already failed.
    pub(crate) fn is_exhausted(&self) -> bool {
        self.options.is_empty()
    }

    /// The tool whose argument is narrowed.
    pub(crate) fn tool(&self) -> &str {
        &self.tool
    }

    /// The argument narrowed.
    pub(crate) fn field(&self) -> &str {
        &self.field
    }

    /// The values the argument may take.
    pub(crate) fn options(&self) -> &[Value] {
        &self.options
    }

    /// Restricts the field in `spec`'s input schema to the options, keeping what else it says.
    fn apply(&self, spec: &mut ToolSpec) {
        // No option left: the tool sits out rather than take an empty choice (`without`).
        if spec.name != self.tool || self.options.is_empty() {
            return;
        }
        // A schema that names no properties gets this one: the tool has just said it takes it.
        let Some(schema) = spec.input_schema.as_object_mut() else { return };
        let properties = schema.entry("properties").or_insert_with(|| Value::Object(Map::new()));
        let Some(properties) = properties.as_object_mut() else { return };
        let mut field = match properties.remove(&self.field) {
            Some(Value::Object(map)) => map,
            _ => Map::new(),
        };
        field.remove("type");
        field.remove("const");
        field.insert("enum".into(), Value::Array(self.options.clone()));
        properties.insert(self.field.clone(), Value::Object(field));
    }
}

/// The narrowings of a run, newest per tool and field.
#[derive(Debug, Default)]
pub(crate) struct Narrowings(Vec<Narrowing>);

impl Narrowings {
    /// Keeps `narrowing`, replacing an older one of the same tool and field and lifetime (one that
    /// holds until a call works leaves the run-long one under it, for after).
    pub(crate) fn learn(&mut self, narrowing: Narrowing) {
        self.0.retain(|n| {
            (n.tool.as_str(), n.field.as_str(), n.until_worked)
                != (narrowing.tool.as_str(), narrowing.field.as_str(), narrowing.until_worked)
        });
        self.0.push(narrowing);
    }

    /// The values `tool`'s `field` is held to until a call of it works, if it is.
    pub(crate) fn held(&self, tool: &str, field: &str) -> Option<&[Value]> {
        self.0.iter().find(|n| n.until_worked && n.tool == tool && n.field == field).map(|n| n.options())
    }

    /// Drops the narrowings of `tool` that last until a call of it works: one just did.
    pub(crate) fn worked(&mut self, tool: &str) {
        self.0.retain(|n| !(n.until_worked && n.tool == tool));
    }

    /// `spec` narrowed as [`Self::step_schema`] narrows it, by what was learned and by `ids` (the
    /// focused call's schema). A held argument that `ids` narrows is left to them: they hold it to
    /// the held values the latest listing still has (`RunState::id_narrowings`).
    pub(crate) fn narrowed(&self, spec: &ToolSpec, ids: &[Narrowing]) -> ToolSpec {
        let mut spec = spec.clone();
        let (held, learned): (Vec<&Narrowing>, Vec<&Narrowing>) = self.0.iter().partition(|n| n.until_worked);
        let by_ids = |n: &&Narrowing| ids.iter().any(|i| i.tool == n.tool && i.field == n.field);
        for narrowing in learned.into_iter().chain(ids).chain(held.into_iter().filter(|n| !by_ids(n))) {
            narrowing.apply(&mut spec);
        }
        spec
    }

    /// Whether nothing was learned.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The step schema over `tools` narrowed (by the options tools said they take, then by `ids`:
    /// the id arguments narrowed to the latest listing of their producers, then by what holds until a
    /// call works: a value keel named for the model, which a producer's whole list must not widen
    /// again), without the branches of `leave_out`; with the final-answer branch when `answer` or
    /// when no tool is left.
    pub(crate) fn step_schema(
        &self,
        tools: &[ToolSpec],
        leave_out: &BTreeSet<String>,
        ids: &[Narrowing],
        answer: bool,
    ) -> Value {
        let specs: Vec<ToolSpec> = tools
            .iter()
            .filter(|t| !leave_out.contains(&t.name))
            .map(|spec| self.narrowed(spec, ids))
            .collect();
        choice_schema(&specs, answer || specs.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::errors::{classify, CallContext, Origin, RawFailure};

    fn rejected(details: Value) -> Envelope {
        let raw = RawFailure::coded("INVALID_ARGS", "cabin 'coach' is not allowed");
        let mut envelope = Envelope::from_failure(&raw, classify(&raw, Origin::Tool), CallContext::default());
        envelope.details = details.as_object().cloned().unwrap_or_default();
        envelope
    }

    fn flights() -> ToolSpec {
        ToolSpec::new(
            "search_flights",
            "Finds flights.",
            json!({"type": "object", "properties": {"cabin": {"type": "string", "description": "class"}}}),
        )
    }

    #[test]
    fn a_field_and_its_options_narrow_that_argument_and_keep_its_description() {
        let found = Narrowing::from_failure(
            &flights(),
            &rejected(json!({"field": "cabin", "options": ["economy", "first"]})),
        );
        let mut narrowings = Narrowings::default();
        narrowings.learn(found.expect("narrowing"));
        let schema = narrowings.step_schema(&[flights()], &BTreeSet::new(), &[], true);
        let text = schema.to_string();
        assert!(text.contains(r#""cabin":{"description":"class","enum":["economy","first"]}"#), "{text}");
    }

    #[test]
    fn nothing_is_learned_without_a_field_and_options_and_other_codes_hold_until_a_call_works() {
        for details in [
            json!({"options": ["a"]}),
            json!({"field": "cabin"}),
            json!({"field": "cabin", "options": []}),
            json!({"field": "cabin", "options": [{"nested": 1}]}),
            json!({"field": " ", "options": ["a"]}),
        ] {
            assert_eq!(Narrowing::from_failure(&flights(), &rejected(details.clone())), None, "{details}");
        }
        let raw = RawFailure::coded("NOT_INTERACTABLE", "covered");
        let mut other = Envelope::from_failure(&raw, classify(&raw, Origin::Tool), CallContext::default());
        other.details = json!({"field": "cabin", "options": ["a"]}).as_object().cloned().unwrap_or_default();
        assert_eq!(
            Narrowing::from_failure(&flights(), &other),
            Some(Narrowing::until_worked("search_flights", "cabin", vec![json!("a")]))
        );
        // A tool acting on a listed element: its options are that element's, held until a call works.
        let select = ToolSpec::new(
            "select",
            "Chooses an option of a drop-down.",
            json!({"type": "object", "properties": {"ref": {"type": "string", "pattern": "^e[0-9]+$"},
                   "value": {"type": "string"}}}),
        )
        .with_refs_from(["snapshot"]);
        let labels = json!({"field": "value", "options": ["Small", "Large"]});
        assert_eq!(
            Narrowing::from_failure(&select, &rejected(labels)),
            Some(Narrowing::until_worked("select", "value", vec![json!("Small"), json!("Large")]))
        );
        // Not an argument of the tool: its details are its own.
        other.details = json!({"field": "seat", "options": ["a"]}).as_object().cloned().unwrap_or_default();
        assert_eq!(Narrowing::from_failure(&flights(), &other), None);
        // Held over a run-long narrowing of the same argument, which is there again after it.
        let mut narrowings = Narrowings::default();
        let rule = json!({"field": "cabin", "options": ["economy", "first"]});
        narrowings.learn(Narrowing::from_failure(&flights(), &rejected(rule)).expect("narrowing"));
        narrowings.learn(Narrowing::until_worked("search_flights", "cabin", vec![json!("first")]));
        assert_eq!(narrowings.held("search_flights", "cabin"), Some(&[json!("first")][..]));
        let text = narrowings.step_schema(&[flights()], &BTreeSet::new(), &[], true).to_string();
        assert!(text.contains(r#""enum":["first"]"#), "{text}");
        narrowings.worked("search_flights");
        assert_eq!(narrowings.held("search_flights", "cabin"), None, "a call of the tool that works ends it");
        let text = narrowings.step_schema(&[flights()], &BTreeSet::new(), &[], true).to_string();
        assert!(text.contains(r#""enum":["economy","first"]"#), "{text}");
    }

    #[test]
    fn the_newest_options_win_and_a_left_out_tool_leaves_final_answers_only() {
        let mut narrowings = Narrowings::default();
        for options in [json!(["a"]), json!(["b"])] {
            let details = json!({"field": "cabin", "options": options});
            narrowings.learn(Narrowing::from_failure(&flights(), &rejected(details)).expect("narrowing"));
        }
        let text = narrowings.step_schema(&[flights()], &BTreeSet::new(), &[], true).to_string();
        assert!(text.contains(r#""enum":["b"]"#) && !text.contains(r#""enum":["a"]"#), "{text}");
        let only_final =
            narrowings.step_schema(&[flights()], &BTreeSet::from(["search_flights".to_string()]), &[], true);
        assert_eq!(only_final["required"], json!(["thought", "final_answer"]));
    }
}
