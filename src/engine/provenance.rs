//! Id provenance: an argument that is an id or a reference must have come from somewhere. A value
//! that appears in no earlier observation and not in the task was guessed (small models copy the
//! schema's shape, `e12`, `INV-2024-001`), so the call is refused before the tool runs, with a plan
//! naming the tools that produce such values; and once a producer has run, constrained decoding
//! narrows the argument to the ids in the output of whichever producer answered last.
//!
//! An argument is an id when its schema has a `pattern` or an identifier `format` (not a date or
//! time: those are computed from the task, `tomorrow` → a date), or its name says id/ref/key
//! (`id`, `invoice_id`, `elementRef`, `object_key`; not a bare `key`, often a keyboard key), or — for a tool that declares `refsFrom` and has no
//! such argument — it is the tool's only required string argument. An argument with an `enum`
//! is not: its schema already lists where its values come from.

use regex_lite::Regex;
use serde_json::Value;

use crate::tools::{ToolSet, ToolSpec};

use super::facts::{id_like, seen_in, tokens};
use super::narrowing::Narrowing;
use super::outputs::{Listing, Outputs};

/// Formats whose values are computed rather than copied.
const COMPUTED_FORMATS: &[&str] = &["date", "time", "date-time", "duration"];

/// The most ids a narrowing lists: a bigger page is left to the refusal check.
const MAX_IDS: usize = 200;

fn says_id(name: &str) -> bool {
    let lower = name.to_lowercase();
    let bare = lower.trim_end_matches('s');
    ["id", "ref", "key", "uuid"].iter().any(|word| {
        // A bare `key` is as often a keyboard key (keel-agent/dom's `press {key: "Enter"}`) as a
        // lookup key; refusing a key name the task never spelt would block the tool outright, while
        // missing a lookup key only loses the early refusal (the tool still answers NOT_FOUND).
        (bare == *word && *word != "key")
            || bare.ends_with(&format!("_{word}"))
            || bare.ends_with(&format!("-{word}"))
            // camelCase: `invoiceId`, `elementRef`.
            || name.trim_end_matches('s').ends_with(&format!("{}{}", word[..1].to_ascii_uppercase(), &word[1..]))
    })
}

/// The top-level arguments of `spec` that are ids, in schema order.
pub(crate) fn id_fields(spec: &ToolSpec) -> Vec<String> {
    let Some(properties) = spec.input_schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut fields: Vec<String> = properties
        .iter()
        .filter(|(name, schema)| {
            let format = schema.get("format").and_then(Value::as_str);
            schema.get("enum").is_none()
                && schema.get("const").is_none()
                && (schema.get("pattern").is_some()
                    || format.is_some_and(|f| !COMPUTED_FORMATS.contains(&f))
                    || says_id(name))
        })
        .map(|(name, _)| name.clone())
        .collect();
    if fields.is_empty() && !spec.refs_from.is_empty() {
        let required = spec.required();
        let strings: Vec<&str> = required
            .into_iter()
            .filter(|name| properties.get(*name).and_then(|s| s.get("type")) == Some(&"string".into()))
            .collect();
        if let [only] = strings.as_slice() {
            fields.push((*only).to_string());
        }
    }
    fields
}

/// The words that say a tool lists things (in its name, or its name and description): one list for
/// the producers of ids here, the listings a repeat may still act on (`seen.rs`) and the listers
/// offered with a tool (`selection.rs`).
pub(crate) const LISTING_WORDS: [&str; 6] = ["list", "search", "find", "browse", "snapshot", "query"];

/// Whether `spec`'s name or description says it lists, searches or snapshots things ("Opens this
/// URL in the tab and lists its elements."): what it returns may be what another call acts on.
pub(crate) fn says_it_lists(spec: &ToolSpec) -> bool {
    let text = format!("{} {}", spec.name, spec.description).to_lowercase();
    LISTING_WORDS.iter().any(|w| text.contains(w))
}

/// The tools that produce `spec`'s ids: its `refsFrom`, else those inferred from the tools' names
/// and descriptions — another tool that lists, searches or snapshots and mentions what the
/// argument names (`invoice` for `invoice_id`, `ref` for `ref`).
pub(crate) fn producers(tools: &ToolSet, spec: &ToolSpec) -> Vec<String> {
    if !spec.refs_from.is_empty() {
        return spec.refs_from.clone();
    }
    let fields = id_fields(spec);
    let Some(field) = fields.first() else { return Vec::new() };
    let lower = field.to_lowercase();
    let stem = lower
        .trim_end_matches('s')
        .trim_end_matches("id")
        .trim_end_matches("ref")
        .trim_end_matches("key")
        .trim_matches(['_', '-']);
    let word = if stem.is_empty() { lower.trim_end_matches('s').to_string() } else { stem.to_string() };
    tools
        .specs()
        .iter()
        .filter(|other| other.name != spec.name)
        .filter(|other| {
            let text = format!("{} {}", other.name, other.description).to_lowercase();
            says_it_lists(other) && text.contains(&word)
        })
        .map(|other| other.name.clone())
        .collect()
}

/// The first id argument of `args` whose value appears nowhere in `seen` (lowercased task and
/// observations): `(field, value)`.
pub(crate) fn unseen(
    spec: &ToolSpec,
    args: &Value,
    seen: impl FnOnce() -> String,
) -> Option<(String, String)> {
    let ids: Vec<(String, String)> = id_fields(spec)
        .into_iter()
        .filter_map(|field| match args.get(&field)? {
            Value::String(s) => Some((field, s.clone())),
            Value::Number(n) => Some((field, n.to_string())),
            _ => None,
        })
        .collect();
    if ids.is_empty() {
        // Most calls carry no id: the run's whole text is not gathered for them.
        return None;
    }
    let seen = seen();
    ids.into_iter().find(|(_, value)| !seen_in(&seen, value))
}

/// Of `names` (a tool's producers), those that only read, where any does: what a plan or the
/// prompt tells the model to call for fresh ids (`snapshot`, not `navigate` or `back`, which
/// leave the page).
/// `read_only` says whether a named tool only reads (a name it does not know: no).
pub(crate) fn reading_first(names: &[String], read_only: impl Fn(&str) -> bool) -> Vec<String> {
    let any = names.iter().any(|n| read_only(n));
    names.iter().filter(|n| !any || read_only(n)).cloned().collect()
}

/// [`reading_first`] over the agent's tools.
pub(crate) fn reading_first_of(tools: &ToolSet, names: &[String]) -> Vec<String> {
    reading_first(names, |n| tools.get(n).is_some_and(|s| s.read_only))
}

/// The listing that came last of those that give `spec`'s ids (`outputs`: each tool's latest):
/// its producers' outputs, and the results that said they list of the tools that take their ids
/// from the same producers (keel-agent/dom's click that opened a page). After `navigate` lists a
/// new page, an older `snapshot` lists a page that is gone.
pub(crate) fn producer_output<'a>(
    tools: &ToolSet,
    outputs: &'a Outputs,
    spec: &ToolSpec,
) -> Option<Listing<'a>> {
    let producers = producers(tools, spec);
    let listers: Vec<String> = outputs
        .listers()
        .filter_map(|name| tools.get(name))
        .filter(|t| self::producers(tools, t).iter().any(|p| producers.contains(p)))
        .map(|t| t.name.clone())
        .collect();
    outputs.latest_listing(&producers, &listers)
}

/// For each tool with id arguments whose producer has run, the narrowing of those arguments to
/// the ids in the listing that came last ([`producer_output`]), with that listing.
pub(crate) fn narrowings<'a>(tools: &ToolSet, outputs: &'a Outputs) -> Vec<(Narrowing, Listing<'a>)> {
    let mut found = Vec::new();
    for spec in tools.specs() {
        let fields = id_fields(spec);
        if fields.is_empty() {
            continue;
        }
        let Some(listed) = producer_output(tools, outputs, spec) else { continue };
        let output = listed.text;
        // With `refKinds`, only the lines naming a kind the tool acts on list its ids.
        let kinds = &spec.ref_kinds;
        let listing: Vec<&str> = if kinds.is_empty() {
            vec![output.as_str()]
        } else {
            output.lines().filter(|line| names_kind(line, kinds)).collect()
        };
        for field in fields {
            let pattern = spec.input_schema["properties"][&field]
                .get("pattern")
                .and_then(Value::as_str)
                .and_then(|p| Regex::new(p).ok());
            let mut ids: Vec<Value> = Vec::new();
            for token in listing.iter().flat_map(|text| tokens(text)) {
                let fits = match &pattern {
                    Some(re) => re.is_match(token),
                    None => id_like(token),
                };
                let token = Value::from(token);
                if fits && !ids.contains(&token) {
                    ids.push(token);
                }
            }
            // No id of its kinds listed: the narrowing has no option, and the tool sits out.
            if (!ids.is_empty() || !kinds.is_empty()) && ids.len() <= MAX_IDS {
                found.push((Narrowing::new(&spec.name, &field, ids), listed));
            }
        }
    }
    found
}

/// Whether `line` names one of `kinds` as a word outside its quoted text (`@e7 textbox "Email"`
/// names `textbox`; `@e8 link "Textbox help"` does not).
fn names_kind(line: &str, kinds: &[String]) -> bool {
    let mut unquoted = String::with_capacity(line.len());
    let (mut quoted, mut escaped) = (false, false);
    for c in line.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => {
                quoted = !quoted;
                unquoted.push(' ');
            }
            _ if !quoted => unquoted.push(c),
            _ => {}
        }
    }
    unquoted
        .split(|c: char| !c.is_alphanumeric())
        .any(|word| kinds.iter().any(|kind| kind.eq_ignore_ascii_case(word)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, description: &str, properties: Value) -> ToolSpec {
        ToolSpec::new(name, description, json!({"type": "object", "properties": properties}))
    }

    #[test]
    fn ids_are_known_by_name_pattern_format_or_refs_from() {
        let spec = tool(
            "t",
            "",
            json!({"invoiceId": {"type": "string"}, "ref": {"type": "string"}, "element_ref": {"type": "string"},
                   "code": {"type": "string", "pattern": "^[A-Z]+$"}, "when": {"type": "string", "format": "date"},
                   "site": {"type": "string", "format": "uri"}, "key": {"type": "string", "enum": ["Enter"]},
                   "name": {"type": "string"}, "identity": {"type": "string"}, "object_key": {"type": "string"}}),
        );
        assert_eq!(id_fields(&spec), ["invoiceId", "ref", "element_ref", "code", "site", "object_key"]);
        let press =
            tool("press", "Presses a key.", json!({"key": {"type": "string"}, "ref": {"type": "string"}}));
        assert_eq!(id_fields(&press), ["ref"], "a bare key is a keyboard key, not an id");
        let declared = ToolSpec::new(
            "open",
            "",
            json!({"type": "object", "properties": {"target": {"type": "string"}, "note": {"type": "string"}},
                   "required": ["target"]}),
        )
        .with_refs_from(["list"]);
        assert_eq!(id_fields(&declared), ["target"]);
    }

    #[test]
    fn producers_are_declared_or_inferred_from_names_and_descriptions() {
        let click = tool("click", "Clicks.", json!({"ref": {"type": "string"}}));
        let snapshot = tool("snapshot", "Lists the page's elements with their refs.", json!({}));
        let get = tool("get_invoice", "One invoice.", json!({"invoice_id": {"type": "string"}}));
        let list = tool("list_invoices", "Lists invoices.", json!({}));
        let weather = tool("get_weather", "Weather.", json!({"city": {"type": "string"}}));
        let tools = ToolSet::new(vec![click.clone(), snapshot, get.clone(), list, weather]).unwrap();
        assert_eq!(producers(&tools, &click), ["snapshot"]);
        assert_eq!(producers(&tools, &get), ["list_invoices"]);
    }

    #[test]
    fn an_unseen_id_is_found_and_a_seen_one_passes() {
        let click = tool("click", "", json!({"ref": {"type": "string"}}));
        let seen = "click the buy button\ne1 link 'home'\n@e5 button 'buy'";
        assert_eq!(unseen(&click, &json!({"ref": "e5"}), || seen.to_string()), None);
        assert_eq!(unseen(&click, &json!({"ref": "@e1"}), || seen.to_string()), None);
        assert_eq!(
            unseen(&click, &json!({"ref": "e12"}), || seen.to_string()),
            Some(("ref".into(), "e12".into()))
        );
    }

    #[test]
    fn a_producers_output_narrows_the_id_argument_to_its_ids() {
        let click = tool("click", "Clicks.", json!({"ref": {"type": "string"}}));
        let snapshot = tool("snapshot", "Lists the page's elements with their refs.", json!({}));
        let tools = ToolSet::new(vec![click, snapshot]).unwrap();
        let mut outputs = Outputs::default();
        outputs.insert("snapshot", "e7 link 'Home'\n@e8 button 'Order 2'".to_string(), 1, false);
        let found: Vec<_> = narrowings(&tools, &outputs).into_iter().map(|(n, l)| (n, l.tool)).collect();
        assert_eq!(
            found,
            vec![(Narrowing::new("click", "ref", vec![json!("e7"), json!("@e8")]), "snapshot")]
        );
        assert!(narrowings(&tools, &Default::default()).is_empty());
    }
}
