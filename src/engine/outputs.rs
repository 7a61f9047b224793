//! Each tool's latest successful output as the model saw it, and when it came: where ids come from.
//!
//! A tool's ids may be listed by several producers (keel-agent/dom's `snapshot`, and `navigate` and
//! `back`, which list the page they open): the listing that counts is the one that came last. With
//! the first producer's output taken instead, both web-bench models were offered, after `navigate`,
//! the refs of the page they had left.

use std::collections::BTreeMap;

/// Each tool's latest successful output, with the step its text first came at and the order of
/// the stores.
#[derive(Debug, Default, Clone)]
pub(crate) struct Outputs {
    by_tool: BTreeMap<String, Output>,
    stores: u64,
}

/// One tool's latest output.
#[derive(Debug, Clone)]
struct Output {
    text: String,
    /// The step the text first came at: a call that returns the same text again keeps it.
    since: u32,
    /// The number of the latest store.
    store: u64,
}

impl Outputs {
    /// Keeps `text` as `tool`'s latest output, come at `step`; returns the text it replaces.
    pub(crate) fn insert(&mut self, tool: &str, text: String, step: u32) -> Option<String> {
        self.stores += 1;
        let store = self.stores;
        match self.by_tool.get_mut(tool) {
            Some(output) => {
                if output.text != text {
                    output.since = step;
                }
                output.store = store;
                Some(std::mem::replace(&mut output.text, text))
            }
            None => {
                self.by_tool.insert(tool.to_string(), Output { text, since: step, store });
                None
            }
        }
    }

    /// `tool`'s latest output.
    pub(crate) fn get(&self, tool: &str) -> Option<&String> {
        self.by_tool.get(tool).map(|o| &o.text)
    }

    /// Whether `tool` has returned an output.
    pub(crate) fn contains_key(&self, tool: &str) -> bool {
        self.by_tool.contains_key(tool)
    }

    /// Whether no tool has.
    pub(crate) fn is_empty(&self) -> bool {
        self.by_tool.is_empty()
    }

    /// Every tool's latest output, by the tool's name.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&String, &String)> {
        self.by_tool.iter().map(|(tool, o)| (tool, &o.text))
    }

    /// Every tool's latest output, in the order of the tools' names.
    pub(crate) fn values(&self) -> impl Iterator<Item = &String> {
        self.by_tool.values().map(|o| &o.text)
    }

    /// Of `tools`, the one whose output came last, with that output.
    pub(crate) fn latest_of<'a>(&'a self, tools: &[String]) -> Option<(&'a str, &'a String)> {
        tools
            .iter()
            .filter_map(|t| self.by_tool.get_key_value(t))
            .max_by_key(|(_, o)| o.store)
            .map(|(tool, o)| (tool.as_str(), &o.text))
    }

    /// The step `tool`'s current output first came at.
    pub(crate) fn since(&self, tool: &str) -> Option<u32> {
        self.by_tool.get(tool).map(|o| o.since)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_producer_counts_and_the_same_text_keeps_its_step() {
        let mut outputs = Outputs::default();
        let names = ["snapshot".to_string(), "navigate".to_string()];
        assert_eq!(outputs.latest_of(&names), None);
        outputs.insert("snapshot", "page A".into(), 1);
        outputs.insert("navigate", "page B".into(), 3);
        assert_eq!(outputs.latest_of(&names), Some(("navigate", &"page B".to_string())));
        assert_eq!(outputs.insert("snapshot", "page B".into(), 4), Some("page A".to_string()));
        assert_eq!(outputs.latest_of(&names), Some(("snapshot", &"page B".to_string())));
        assert_eq!(outputs.since("snapshot"), Some(4));
        outputs.insert("snapshot", "page B".into(), 6);
        assert_eq!(outputs.since("snapshot"), Some(4), "the same listing again is not a new one");
        outputs.insert("snapshot", "page C".into(), 7);
        assert_eq!(outputs.since("snapshot"), Some(7));
        assert!(outputs.contains_key("navigate") && !outputs.contains_key("back"));
    }
}
