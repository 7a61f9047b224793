//! The listed elements a run has acted on: the refs [`most_named`](super::named_line::most_named)
//! no longer offers first.
//!
//! A call that worked with a ref counts for the rest of the run while the ref's line keeps its
//! label: keel-agent/dom keeps an element's ref across snapshots, and a small model that clicks by
//! habit would otherwise be offered "Place order" alone again after a fresh snapshot, and order
//! twice. A call that failed counts until the listing changes: a disabled button is offered first
//! again once the page, listed afresh, shows it enabled. A failure that names the values that fix
//! it (a click on a covered element: the cover's buttons) does not count: once the fix worked, the
//! element is offered first again.

use serde_json::Value;

use super::named_line::label_of;
use super::provenance::{id_fields, producer_output};
use super::run::RunState;
use crate::tools::ToolSpec;

/// One call with a listed id.
#[derive(Debug, Clone)]
struct Acted {
    tool: String,
    field: String,
    value: Value,
    /// The quoted label of the id's line in the listing the call was made from.
    label: String,
    step: u32,
    worked: bool,
}

/// The calls of a run made with listed ids.
#[derive(Debug, Default)]
pub(crate) struct ActedOn(Vec<Acted>);

impl ActedOn {
    /// Whether a call of `tool` with `value` as its `field` worked while `value`'s line had
    /// `label`, or failed at the step `since` (the listing's) or later.
    pub(crate) fn tried(&self, tool: &str, field: &str, value: &Value, label: &str, since: u32) -> bool {
        self.0.iter().any(|a| {
            a.tool == tool
                && a.field == field
                && a.value == *value
                && if a.worked { a.label == label } else { a.step >= since }
        })
    }
}

impl RunState<'_> {
    /// Notes a call of `spec` with `args` at `step` that worked or failed, for each id argument
    /// its latest listing holds.
    pub(crate) fn note_acted(&mut self, step: u32, spec: &ToolSpec, args: &Value, worked: bool) {
        let Some(listing) = producer_output(&self.agent.tools, &self.outputs, spec).map(|l| l.text) else {
            return;
        };
        for field in id_fields(spec) {
            let Some(value) = args.get(&field).filter(|v| v.is_string()) else { continue };
            let Some(label) = value.as_str().and_then(|id| label_of(listing, id)) else { continue };
            let acted = Acted { tool: spec.name.clone(), field, value: value.clone(), label, step, worked };
            self.acted_on.0.push(acted);
        }
    }
}
