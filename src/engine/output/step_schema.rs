//! The JSON Schema of one step, handed to backends that constrain decoding (Prompt API
//! `responseConstraint`, llama.cpp / wllama `json_schema`, OpenAI-style `response_format`), so that
//! most format mistakes become impossible rather than repaired.

use serde_json::{json, Map, Value};

use crate::tools::ToolSpec;

/// The longest thought the schema allows, in characters. Small models under a constraint can
/// ramble in the one free-text field until the output limit cuts the step off before its action;
/// a bound makes them get to the point.
pub const THOUGHT_MAX_LENGTH: u64 = 500;

/// The schema of a step that may call one of `tools` or give the final answer; with `final_only`
/// (the forced last call once a budget is spent), or with no tools, only the final answer.
///
/// Shape and why:
/// - one `anyOf` branch per tool, each a whole object `{thought, action: {tool: const, args}}`:
///   tying the tool's name to its own argument schema stops a decoder from pairing one tool's name
///   with another's arguments, and whole-object branches are what grammar compilers handle best;
/// - then the final-answer branch `{thought, final_answer}`, `final_answer` non-empty (an empty
///   answer is a format error);
/// - `thought` first in every branch: models write fields in order, and thinking before choosing
///   the tool helps them; it is required (possibly empty) so the shape never varies;
/// - `additionalProperties: false` on the envelope, so no room for hallucinated `observation`s;
///   the tools' own schemas are left as their authors wrote them;
/// - each tool schema loses `$schema` and `$id` (an `$id` inside would re-base its `$ref`s), and its
///   `$defs` / `definitions` move to the root `$defs` as `<tool>.<name>` with `$ref`s rewritten, since
///   refs resolve from the document root; a tool schema that refers to its own root (`#`,
///   `#/properties/..`) moves whole to `$defs/<tool>` for the same reason.
///
/// A single branch is returned as the root schema itself rather than wrapped in a one-armed
/// `anyOf`. OpenAI's strict mode rejects a root `anyOf`; backends that need it wrap this schema.
pub fn step_schema(tools: &[ToolSpec], final_only: bool) -> Value {
    choice_schema(if final_only { &[] } else { tools }, true)
}

/// The step schema with one branch per tool in `tools`, and the final-answer branch when `answer`
/// (or when `tools` is empty: a step must be something): how `toolChoice` reaches the decoder.
pub(crate) fn choice_schema(tools: &[ToolSpec], answer: bool) -> Value {
    let mut defs = Map::new();
    let mut branches = Vec::new();
    for tool in tools {
        let args = args_schema(tool, &mut defs);
        let action = json!({
            "type": "object",
            "properties": {"tool": {"type": "string", "const": tool.name}, "args": args},
            "required": ["tool", "args"],
            "additionalProperties": false
        });
        branches.push(envelope("action", action));
    }
    if answer || branches.is_empty() {
        branches.push(envelope("final_answer", json!({"type": "string", "minLength": 1})));
    }
    let mut root = match branches.len() {
        1 => branches.pop().unwrap_or_default(),
        _ => json!({"type": "object", "anyOf": branches}),
    };
    if let (Value::Object(root), false) = (&mut root, defs.is_empty()) {
        root.insert("$defs".into(), Value::Object(defs));
    }
    root
}

fn envelope(key: &str, value: Value) -> Value {
    let mut properties = Map::new();
    properties.insert("thought".into(), json!({"type": "string", "maxLength": THOUGHT_MAX_LENGTH}));
    properties.insert(key.into(), value);
    json!({"type": "object", "properties": properties, "required": ["thought", key], "additionalProperties": false})
}

/// The tool's argument schema ready to embed, its definitions moved into `defs`.
fn args_schema(tool: &ToolSpec, defs: &mut Map<String, Value>) -> Value {
    // `true`, `{}`-less garbage or a non-object: the arguments must still be an object.
    let Value::Object(mut schema) = tool.input_schema.clone() else { return json!({"type": "object"}) };
    schema.remove("$schema");
    schema.remove("$id");
    let mut moved = Vec::new();
    let mut renames = Vec::new();
    for keyword in ["$defs", "definitions"] {
        let Some(Value::Object(local)) = schema.remove(keyword) else { continue };
        for (name, def) in local {
            let new_name = reserve(defs, &format!("{}.{name}", tool.name));
            renames.push((format!("#/{keyword}/{}", pointer_escape(&name)), def_pointer(&new_name)));
            moved.push((new_name, def));
        }
    }
    let mut schema = Value::Object(schema);
    let mut to_root = false;
    for value in std::iter::once(&mut schema).chain(moved.iter_mut().map(|(_, def)| def)) {
        visit_refs(value, false, &mut |r| to_root |= renamed(r, &renames).is_none() && r.starts_with('#'));
    }
    let root = to_root.then(|| reserve(defs, &tool.name));
    let mut rewrite = |r: &mut String| match (renamed(r, &renames), &root) {
        (Some(new), _) => *r = new,
        (None, Some(root)) if r == "#" || r.starts_with("#/") => {
            *r = format!("{}{}", def_pointer(root), &r[1..])
        }
        _ => {}
    };
    visit_refs(&mut schema, false, &mut rewrite);
    for (name, mut def) in moved {
        visit_refs(&mut def, false, &mut rewrite);
        defs.insert(name, def);
    }
    match root {
        Some(root) => {
            defs.insert(root.clone(), schema);
            json!({"$ref": def_pointer(&root)})
        }
        None => schema,
    }
}

/// The ref `r` pointed at a moved definition: where it points now.
fn renamed(r: &str, renames: &[(String, String)]) -> Option<String> {
    renames.iter().find_map(|(old, new)| match r.strip_prefix(old.as_str()) {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => Some(format!("{new}{rest}")),
        _ => None,
    })
}

/// A root `$defs` name not taken yet, reserved with a placeholder (two tools may share a name once
/// prefixed if tool names contain dots).
fn reserve(defs: &mut Map<String, Value>, base: &str) -> String {
    let mut name = base.to_string();
    let mut n = 2;
    while defs.contains_key(&name) {
        name = format!("{base}.{n}");
        n += 1;
    }
    defs.insert(name.clone(), Value::Null);
    name
}

fn def_pointer(name: &str) -> String {
    format!("#/$defs/{}", pointer_escape(name))
}

fn pointer_escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// Calls `f` on every `$ref` string in a schema. `names` marks a map of names to schemas
/// (`properties`), whose keys are not keywords: a property called `$ref` or `const` is a schema.
/// Values of `const`, `enum`, `default` and `examples` are data, not schemas, and are skipped.
fn visit_refs(value: &mut Value, names: bool, f: &mut impl FnMut(&mut String)) {
    match value {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                if names {
                    visit_refs(child, false, f);
                    continue;
                }
                match (key.as_str(), child) {
                    ("$ref", Value::String(r)) => f(r),
                    ("const" | "enum" | "default" | "examples", _) => {}
                    (
                        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas",
                        child,
                    ) => visit_refs(child, true, f),
                    (_, child) => visit_refs(child, false, f),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| visit_refs(item, false, f)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thought() -> Value {
        json!({"type": "string", "maxLength": THOUGHT_MAX_LENGTH})
    }

    fn final_branch() -> Value {
        json!({
            "type": "object",
            "properties": {"thought": thought(), "final_answer": {"type": "string", "minLength": 1}},
            "required": ["thought", "final_answer"],
            "additionalProperties": false
        })
    }

    fn action_branch(tool: &str, args: Value) -> Value {
        json!({
            "type": "object",
            "properties": {"thought": thought(), "action": {
                "type": "object",
                "properties": {"tool": {"type": "string", "const": tool}, "args": args},
                "required": ["tool", "args"],
                "additionalProperties": false
            }},
            "required": ["thought", "action"],
            "additionalProperties": false
        })
    }

    fn tools() -> Vec<ToolSpec> {
        let search = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"q": {"type": "string"}},
            "required": ["q"]
        });
        let add_contact = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "$id": "https://example.com/contact",
            "type": "object",
            "properties": {
                "home": {"$ref": "#/$defs/Address"},
                "work": {"$ref": "#/definitions/Address"},
                "$ref": {"type": "string", "const": {"$ref": "#/$defs/Address"}}
            },
            "$defs": {"Address": {"type": "object", "properties": {"city": {"$ref": "#/$defs/City"}}}, "City": {"type": "string"}},
            "definitions": {"Address": {"type": "string"}}
        });
        vec![ToolSpec::new("search", "Search", search), ToolSpec::new("add_contact", "Add", add_contact)]
    }

    #[test]
    fn one_branch_per_tool_then_the_final_answer_with_defs_hoisted() {
        let schema = step_schema(&tools(), false);
        let expected = json!({
            "type": "object",
            "anyOf": [
                action_branch("search", json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]})),
                action_branch("add_contact", json!({
                    "type": "object",
                    "properties": {
                        "home": {"$ref": "#/$defs/add_contact.Address"},
                        "work": {"$ref": "#/$defs/add_contact.Address.2"},
                        "$ref": {"type": "string", "const": {"$ref": "#/$defs/Address"}}
                    }
                })),
                final_branch()
            ],
            "$defs": {
                "add_contact.Address": {"type": "object", "properties": {"city": {"$ref": "#/$defs/add_contact.City"}}},
                "add_contact.City": {"type": "string"},
                "add_contact.Address.2": {"type": "string"}
            }
        });
        assert_eq!(schema, expected);
        // The thought comes first in every branch: models fill fields in order.
        for branch in schema["anyOf"].as_array().unwrap() {
            assert_eq!(branch["properties"].as_object().unwrap().keys().next().unwrap(), "thought");
        }
    }

    #[test]
    fn final_only_or_no_tools_leaves_only_the_final_answer() {
        assert_eq!(step_schema(&tools(), true), final_branch());
        assert_eq!(step_schema(&[], false), final_branch());
    }

    #[test]
    fn a_schema_referring_to_its_own_root_moves_whole_into_defs() {
        let tree = json!({
            "type": "object",
            "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#"}},
                           "first": {"$ref": "#/properties/name"}}
        });
        let schema =
            step_schema(&[ToolSpec::new("tree", "", tree), ToolSpec::new("noop", "", json!(true))], false);
        assert_eq!(schema["anyOf"][0], action_branch("tree", json!({"$ref": "#/$defs/tree"})));
        assert_eq!(schema["anyOf"][1], action_branch("noop", json!({"type": "object"})));
        assert_eq!(
            schema["$defs"]["tree"],
            json!({
                "type": "object",
                "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/tree"}},
                               "first": {"$ref": "#/$defs/tree/properties/name"}}
            })
        );
    }

    #[test]
    fn same_definition_names_in_two_tools_do_not_clash() {
        let with_item = |name: &str| {
            ToolSpec::new(
                name,
                "",
                json!({"properties": {"i": {"$ref": "#/$defs/Item"}}, "$defs": {"Item": {"type": "integer"}}}),
            )
        };
        let schema = step_schema(&[with_item("a"), with_item("b")], false);
        assert_eq!(
            schema["anyOf"][0]["properties"]["action"]["properties"]["args"]["properties"]["i"]["$ref"],
            "#/$defs/a.Item"
        );
        assert_eq!(
            schema["anyOf"][1]["properties"]["action"]["properties"]["args"]["properties"]["i"]["$ref"],
            "#/$defs/b.Item"
        );
        assert_eq!(schema["$defs"].as_object().unwrap().keys().collect::<Vec<_>>(), ["a.Item", "b.Item"]);
    }
}
