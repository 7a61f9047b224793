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
    texts: BTreeMap<String, String>,
    /// Per tool: the step its current text first came at (a call that returns the same text
    /// again keeps it), and the number of the latest store.
    at: BTreeMap<String, (u32, u64)>,
    stores: u64,
}

impl Outputs {
    /// Keeps `text` as `tool`'s latest output, come at `step`; returns the text it replaces.
    pub(crate) fn insert(&mut self, tool: &str, text: String, step: u32) -> Option<String> {
        self.stores += 1;
        let old = self.texts.insert(tool.to_string(), text);
        let unchanged = old.as_ref() == self.texts.get(tool);
        let since = match self.at.get(tool) {
            Some((since, _)) if unchanged => *since,
            _ => step,
        };
        self.at.insert(tool.to_string(), (since, self.stores));
        old
    }

    /// `tool`'s latest output.
    pub(crate) fn get(&self, tool: &str) -> Option<&String> {
        self.texts.get(tool)
    }

    /// Whether `tool` has returned an output.
    pub(crate) fn contains_key(&self, tool: &str) -> bool {
        self.texts.contains_key(tool)
    }

    /// Whether no tool has.
    pub(crate) fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// Every tool's latest output, by the tool's name.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&String, &String)> {
        self.texts.iter()
    }

    /// Every tool's latest output, in the order of the tools' names.
    pub(crate) fn values(&self) -> impl Iterator<Item = &String> {
        self.texts.values()
    }

    /// Of `tools`, the one whose output came last, with that output.
    pub(crate) fn latest_of<'a>(&'a self, tools: &[String]) -> Option<(&'a str, &'a String)> {
        tools
            .iter()
            .filter_map(|t| {
                let (name, text) = self.texts.get_key_value(t)?;
                Some((self.at.get(t)?.1, name.as_str(), text))
            })
            .max_by_key(|(order, _, _)| *order)
            .map(|(_, tool, text)| (tool, text))
    }

    /// The step `tool`'s current output first came at.
    pub(crate) fn since(&self, tool: &str) -> Option<u32> {
        self.at.get(tool).map(|(since, _)| *since)
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
