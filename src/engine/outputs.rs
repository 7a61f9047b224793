//! Each tool's latest successful output as the model saw it, and when it came: where ids come from.
//!
//! A tool's ids may be listed by several producers (keel-agent/dom's `snapshot`, and `navigate` and
//! `back`, which list the page they open): the listing that counts is the one that came last. With
//! the first producer's output taken instead, both web-bench models were offered, after `navigate`,
//! the refs of the page they had left. A tool that is no producer lists too when its result says
//! so ([`crate::engine::ToolOutput::lists`]: keel-agent/dom's click that opened a page): that
//! result is kept apart, as a listing, since the tool's other results list nothing. A resumed run
//! rebuilds its outputs from its turns, which do not say which results listed: until its
//! producers list again, its ids come from their outputs alone.

use std::collections::BTreeMap;

/// Each tool's latest successful output, with the step its text first came at and the order of
/// the stores.
#[derive(Debug, Default, Clone)]
pub(crate) struct Outputs {
    by_tool: BTreeMap<String, Output>,
    /// The latest result of each tool that said it lists (`ToolOutput::lists`).
    listed: BTreeMap<String, Output>,
    stores: u64,
}

/// The listing ids are narrowed to: its text, the tool that gave it, the step it first came at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Listing<'a> {
    /// The producer, or the tool whose result said it lists.
    pub tool: &'a str,
    /// Its text, as the model saw it.
    pub text: &'a String,
    /// The step the text first came at.
    pub since: u32,
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
    /// Keeps `text` as `tool`'s latest output, come at `step`, and as a listing too when the result
    /// said it lists (`lists`); returns the text it replaces.
    pub(crate) fn insert(&mut self, tool: &str, text: String, step: u32, lists: bool) -> Option<String> {
        self.stores += 1;
        if lists {
            keep(&mut self.listed, self.stores, tool, text.clone(), step);
        }
        keep(&mut self.by_tool, self.stores, tool, text, step)
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

    /// The tools whose results said they list.
    pub(crate) fn listers(&self) -> impl Iterator<Item = &str> {
        self.listed.keys().map(String::as_str)
    }

    /// The listing that came last: of `producers`' latest outputs, and of the listings of
    /// `listers` (results that said they list).
    pub(crate) fn latest_listing(&self, producers: &[String], listers: &[String]) -> Option<Listing<'_>> {
        let outputs = producers.iter().filter_map(|t| self.by_tool.get_key_value(t));
        let listings = listers.iter().filter_map(|t| self.listed.get_key_value(t));
        outputs.chain(listings).max_by_key(|(_, o)| o.store).map(|(tool, o)| Listing {
            tool: tool.as_str(),
            text: &o.text,
            since: o.since,
        })
    }
}

/// Keeps `text` as `tool`'s entry of `map`, stored `store`-th, come at `step` (the same text
/// again keeps its step); returns the text it replaces.
fn keep(
    map: &mut BTreeMap<String, Output>,
    store: u64,
    tool: &str,
    text: String,
    step: u32,
) -> Option<String> {
    match map.get_mut(tool) {
        Some(output) => {
            if output.text != text {
                output.since = step;
            }
            output.store = store;
            Some(std::mem::replace(&mut output.text, text))
        }
        None => {
            map.insert(tool.to_string(), Output { text, since: step, store });
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_producer_counts_and_the_same_text_keeps_its_step() {
        let mut outputs = Outputs::default();
        let names = ["snapshot".to_string(), "navigate".to_string()];
        let latest =
            |o: &Outputs| o.latest_listing(&names, &[]).map(|l| (l.tool.to_string(), l.text.clone()));
        assert_eq!(latest(&outputs), None);
        outputs.insert("snapshot", "page A".into(), 1, false);
        outputs.insert("navigate", "page B".into(), 3, false);
        assert_eq!(latest(&outputs), Some(("navigate".into(), "page B".into())));
        assert_eq!(outputs.insert("snapshot", "page B".into(), 4, false), Some("page A".to_string()));
        assert_eq!(latest(&outputs), Some(("snapshot".into(), "page B".into())));
        let since = |o: &Outputs| o.latest_listing(&names, &[]).map(|l| l.since);
        assert_eq!(since(&outputs), Some(4));
        outputs.insert("snapshot", "page B".into(), 6, false);
        assert_eq!(since(&outputs), Some(4), "the same listing again is not a new one");
        outputs.insert("snapshot", "page C".into(), 7, false);
        assert_eq!(since(&outputs), Some(7));
        assert!(outputs.contains_key("navigate") && !outputs.contains_key("back"));
    }

    #[test]
    fn a_result_that_lists_counts_until_a_newer_listing_and_the_tools_other_results_do_not() {
        let mut outputs = Outputs::default();
        let producers = ["snapshot".to_string()];
        let listers = ["click".to_string()];
        let latest = |o: &Outputs| {
            o.latest_listing(&producers, &listers).map(|l| (l.tool.to_string(), l.text.clone(), l.since))
        };
        outputs.insert("snapshot", "page A".into(), 1, false);
        outputs.insert("click", "Clicked.".into(), 2, false);
        assert_eq!(
            latest(&outputs),
            Some(("snapshot".into(), "page A".into(), 1)),
            "an acknowledgement lists nothing"
        );
        outputs.insert("click", "Opened page B".into(), 3, true);
        assert_eq!(latest(&outputs), Some(("click".into(), "Opened page B".into(), 3)));
        outputs.insert("click", "Clicked again.".into(), 4, false);
        assert_eq!(
            latest(&outputs),
            Some(("click".into(), "Opened page B".into(), 3)),
            "still the page click opened"
        );
        outputs.insert("snapshot", "page B, later".into(), 5, false);
        assert_eq!(latest(&outputs), Some(("snapshot".into(), "page B, later".into(), 5)));
        assert_eq!(outputs.latest_listing(&producers, &[]).map(|l| l.tool), Some("snapshot"));
    }
}
