//! Many tools (`toolSelection`): an agent with more tools than a small model's prompt holds well
//! offers, at each step, only the ones relevant to the task and the latest steps — in the prompt's
//! tool list and in the step schema — ranked lexically (`tools/rank.rs`: BM25 over names,
//! descriptions and argument names; no model to download).
//!
//! By rank, a step offers at most `maxTools`, and only those scoring at least `minRelevance` of the
//! best score: every tool ranked beside the right one is a call a small model may make instead of
//! answering (`bench/results/many-tools.md`), so a task matching one tool strongly gets that tool
//! and few others (`bench/results/tool-selection-cut.md`).
//!
//! Some tools are always offered whatever their rank: those in `alwaysInclude`, the `toolChoice`
//! tool, every tool the run has called, a tool whose failed call awaits its fix and the tools its
//! recovery plan names, the tools the task names, the tools that list what a matching offered one
//! takes (`list_museums` for `museum_hours`: the lister's name says what it lists, and the other
//! takes it by an argument named for it or names it and takes its id, name or number), and the
//! tools that supply the ids of an offered tool (`refsFrom`).
//!
//! Lexical ranking finds a tool by the words it shares with the task: "How many vacation days do I
//! have left?" does not find `get_leave_balance`. Those tools need `alwaysInclude`, or a
//! description in the words users write.
//!
//! A call to a known tool that was not offered still runs: calls are validated against all of the
//! agent's tools, never against the offered ones. Under constrained decoding the step schema lists
//! only the offered tools, so the model cannot write such a call there (that is the point: the
//! schema and the prompt shrink together); a backend that does not constrain, or ignores the schema,
//! can, and the call runs as any other.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::config::ToolChoice;
use super::memory::Remembered;
use super::provenance::{self, LISTING_WORDS};
use super::recovering::has_token;
use super::run::RunState;
use crate::settings::ConfigError;
use crate::text::clip;
use crate::tools::{rank, ToolSet, ToolSpec, MAX_TOOLS};

/// How many of the latest steps the ranking reads, besides the task.
const RECENT_STEPS: usize = 2;
/// Characters of a recent step's observation the ranking reads.
const RECENT_CHARS: usize = 1_000;

/// The default relevance cut (`toolSelection.minRelevance`): half the best tool's score.
const DEFAULT_MIN_RELEVANCE: f64 = 0.5;

/// Which tools a prompt offers when the agent has many (`toolSelection`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct ToolSelection {
    /// Whether to select at all (`false` offers every tool at every step).
    pub enabled: bool,
    /// Selection starts at this many tools: an agent with fewer offers all of them.
    pub min_tools: usize,
    /// How many tools a step offers by rank, at most; the tools always offered come on top.
    pub max_tools: usize,
    /// The relevance cut: a tool is offered by rank only when its score is at least this fraction
    /// of the best-ranked tool's (0 to 1; 0 turns the cut off, 1 keeps only the best and its ties).
    /// A task that matches one tool strongly then offers that tool and few others, not `max_tools`
    /// of which most are temptations. When no tool shares a word with the task, none stands out
    /// and the first `max_tools` are offered, as without the cut.
    pub min_relevance: f64,
    /// Tools offered at every step whatever their rank.
    pub always_include: Vec<String>,
}

impl Default for ToolSelection {
    fn default() -> Self {
        // Twenty tool declarations with their schemas take about 2,000 tokens, a quarter of Gemini
        // Nano's window; eight leave room for the history. Half the best score keeps, on the
        // recovery bench with 48 distractors, every scenario's tool that its task matches and drops
        // most of the distractors ranked beside it (bench/results/tool-selection-cut.md).
        ToolSelection {
            enabled: true,
            min_tools: 20,
            max_tools: 8,
            min_relevance: DEFAULT_MIN_RELEVANCE,
            always_include: Vec::new(),
        }
    }
}

impl ToolSelection {
    /// Checks the counts, and that `alwaysInclude` names the agent's tools.
    pub(crate) fn validate(&self, tools: &ToolSet) -> Result<(), ConfigError> {
        let error = |field: String, value: String, expected| Err(ConfigError { field, value, expected });
        if !(1..=MAX_TOOLS).contains(&self.min_tools) {
            let value = self.min_tools.to_string();
            return error(
                "toolSelection.minTools".into(),
                value,
                "from 1 to 256 (the most tools an agent may have)",
            );
        }
        if !(1..=MAX_TOOLS).contains(&self.max_tools) {
            let value = self.max_tools.to_string();
            return error(
                "toolSelection.maxTools".into(),
                value,
                "from 1 to 256 (the most tools an agent may have)",
            );
        }
        if !(0.0..=1.0).contains(&self.min_relevance) {
            let value = self.min_relevance.to_string();
            return error(
                "toolSelection.minRelevance".into(),
                value,
                "from 0 (no cut) to 1 (only the best-ranked tool and its ties)",
            );
        }
        match self.always_include.iter().enumerate().find(|(_, name)| tools.get(name).is_none()) {
            Some((i, name)) => error(
                format!("toolSelection.alwaysInclude[{i}]"),
                format!("\"{name}\""),
                "the name of one of the agent's tools",
            ),
            None => Ok(()),
        }
    }

    /// Whether an agent with `count` tools selects.
    pub(crate) fn applies(&self, count: usize) -> bool {
        self.enabled && count >= self.min_tools && count > self.max_tools
    }
}

/// The tools to offer, in the agent's order: the `pinned` ones, the best ranked for `query` (at
/// most `max_tools`, ties to the earlier tool, each scoring at least `min_relevance` of the best
/// score), the tools that list what one of those takes when `query` is about it by its name or
/// description (`list_museums` for `museum_hours`: a lookup by name fails without the names; see
/// [`listed`] and [`takes`]), and the tools supplying the ids of any of those (`refsFrom`, else
/// inferred as id provenance infers them).
pub fn select(
    set: &ToolSet,
    selection: &ToolSelection,
    query: &str,
    pinned: &BTreeSet<String>,
) -> Vec<ToolSpec> {
    let tools = set.specs();
    let scores = set.ranking().scores(query);
    let mut order: Vec<usize> = (0..tools.len()).collect();
    crate::order::sort_by(&mut order, |&a, &b| scores[b].total_cmp(&scores[a]));
    // With no word shared (the best score 0) the floor is 0 and the first `max_tools` pass.
    let floor = order.first().map_or(0.0, |&best| scores[best]) * selection.min_relevance;
    let mut chosen: BTreeSet<&str> = BTreeSet::new();
    chosen.extend(pinned.iter().map(String::as_str));
    chosen.extend(
        order
            .iter()
            .take(selection.max_tools)
            .filter(|&&i| scores[i] >= floor)
            .map(|&i| tools[i].name.as_str()),
    );
    // The offered tools the query is about: it shares a word with their name or description. A tool
    // found only by an argument name (`merge_pull_request`'s `number` in "the order number") is no
    // reason to offer what lists its things as well.
    // Inserted one by one: `collect()` into a BTreeSet sorts first, another copy of std's sort.
    let mut asked: BTreeSet<String> = BTreeSet::new();
    asked.extend(rank::words(query));
    let about = |t: &ToolSpec| {
        let mut words = rank::words(&t.name);
        words.extend(rank::words(&t.description));
        words.iter().any(|w| asked.contains(w))
    };
    let matching: Vec<&ToolSpec> =
        tools.iter().filter(|t| chosen.contains(t.name.as_str()) && about(t)).collect();
    let listers = tools.iter().filter(|lister| {
        listed(lister).is_some_and(|things| {
            matching.iter().any(|consumer| consumer.name != lister.name && takes(consumer, &things))
        })
    });
    chosen.extend(listers.map(|t| t.name.as_str()).collect::<Vec<_>>());
    let producers: Vec<String> = tools
        .iter()
        .filter(|t| chosen.contains(t.name.as_str()))
        .flat_map(|t| provenance::producers(set, t))
        .collect();
    chosen.extend(producers.iter().map(String::as_str));
    tools.iter().filter(|t| chosen.contains(t.name.as_str())).cloned().collect()
}

/// Argument name words that pick one thing out of a listing: its id, name, number, ref, key or code.
const IDENTIFYING: [&str; 6] = ["id", "name", "number", "ref", "key", "code"];

/// What a tool lists, by its name: the words after a first word of [`LISTING_WORDS`]
/// (`list_pull_requests` → `pull`, `request`); `None` for a tool whose name lists nothing
/// (`add_to_grocery_list`, a bare `search`).
fn listed(tool: &ToolSpec) -> Option<Vec<String>> {
    let words = rank::words(&tool.name);
    let (verb, things) = words.split_first()?;
    (LISTING_WORDS.contains(&verb.as_str()) && !things.is_empty()).then(|| things.to_vec())
}

/// Whether `consumer` takes what a lister lists (`things`, from [`listed`]): one of its argument
/// names holds the listed noun, the last of `things` (`get_order`'s `order_id`, `opening_hours`'s
/// `branch`, `upload_photo`'s `album`), or its name holds all of `things` in order and it takes an
/// argument that picks one out ([`IDENTIFYING`]: `merge_pull_request`'s `number`, `museum_hours`'s
/// `name`). One word shared by the names is not enough: `request_access` takes no pull request,
/// `book_table` no book, `create_calendar_event` no listed event.
fn takes(consumer: &ToolSpec, things: &[String]) -> bool {
    let Some(Value::Object(arguments)) = consumer.input_schema.get("properties") else { return false };
    let arguments: Vec<Vec<String>> = arguments.keys().map(|argument| rank::words(argument)).collect();
    let named = rank::words(&consumer.name).windows(things.len()).any(|w| w == things);
    let identifies = |argument: &Vec<String>| argument.iter().any(|w| IDENTIFYING.contains(&w.as_str()));
    arguments.iter().any(|argument| things.last().is_some_and(|noun| argument.contains(noun)))
        || (named && arguments.iter().any(identifies))
}

impl RunState<'_> {
    /// The tools the next step offers: `None` when it offers every tool (selection is off, or the
    /// agent has few tools).
    pub(crate) fn offered_tools(&self) -> Option<Vec<ToolSpec>> {
        let agent = self.agent;
        let selection = &agent.config.tool_selection;
        let specs = agent.tools.specs();
        if !selection.applies(specs.len()) {
            return None;
        }
        Some(select(&agent.tools, selection, &self.selection_query(), &self.pinned_tools()))
    }

    /// What the ranking reads: the task, the session's previous task (a follow-up such as "and in
    /// Oslo?" names no tool), and the latest steps' thoughts, calls and observations.
    fn selection_query(&self) -> String {
        let mut query = self.task.clone();
        if let Some(Remembered::Asked(previous)) =
            self.memory.iter().rev().find(|m| matches!(m, Remembered::Asked(_)))
        {
            query.push('\n');
            query.push_str(previous);
        }
        for turn in self.turns.iter().rev().take(RECENT_STEPS) {
            query.push('\n');
            query.push_str(&turn.thought);
            if let Some(action) = &turn.action {
                query.push('\n');
                query.push_str(&action.tool);
            }
            query.push('\n');
            query.push_str(&clip(&turn.observation, RECENT_CHARS));
        }
        query
    }

    /// The tools offered whatever their rank.
    fn pinned_tools(&self) -> BTreeSet<String> {
        let agent = self.agent;
        let known = |name: &String| agent.tools.get(name).is_some();
        let mut pinned = BTreeSet::new();
        pinned.extend(agent.config.tool_selection.always_include.iter().cloned());
        if let Some(ToolChoice::Tool(name)) = &agent.config.tool_choice {
            pinned.insert(name.clone());
        }
        pinned.extend(
            self.turns.iter().filter_map(|t| t.action.as_ref()).map(|a| a.tool.clone()).filter(known),
        );
        pinned.extend(self.unfixed.named_tools().filter(|&name| known(name)).cloned());
        pinned.extend(agent.tools.names().iter().filter(|name| has_token(&self.task, name)).cloned());
        pinned
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, description: &str) -> ToolSpec {
        ToolSpec::new(name, description, json!({"type": "object", "properties": {}}))
    }

    /// A tool taking string arguments named `arguments`.
    fn taking(name: &str, description: &str, arguments: &[&str]) -> ToolSpec {
        let properties: serde_json::Map<String, serde_json::Value> =
            arguments.iter().map(|a| (a.to_string(), json!({"type": "string"}))).collect();
        ToolSpec::new(name, description, json!({"type": "object", "properties": properties}))
    }

    /// At most `max_tools` by rank, and no relevance cut.
    fn up_to(max_tools: usize) -> ToolSelection {
        ToolSelection { max_tools, min_relevance: 0.0, ..ToolSelection::default() }
    }

    fn names(offered: Vec<ToolSpec>) -> Vec<String> {
        offered.into_iter().map(|t| t.name).collect()
    }

    #[test]
    fn the_best_ranked_the_pinned_and_their_producers_are_offered_in_the_agents_order() {
        let mut click = tool("click", "Clicks an element.");
        click.refs_from = vec!["snapshot".into()];
        let tools = ToolSet::new(vec![
            tool("snapshot", "Lists the page's elements."),
            tool("get_weather", "Current weather for a city."),
            tool("send_email", "Sends an e-mail to a contact."),
            click,
            tool("list_contacts", "Lists contacts."),
            taking("contact_details", "Details of a person, by name.", &["name"]),
        ])
        .unwrap();
        let none = BTreeSet::new();
        assert_eq!(names(select(&tools, &up_to(1), "weather in Oslo", &none)), ["get_weather"]);
        assert_eq!(
            names(select(&tools, &up_to(2), "e-mail my contacts", &none)),
            ["send_email", "list_contacts"]
        );
        // The listing of what a matching tool takes comes with it.
        assert_eq!(
            names(select(&tools, &up_to(1), "Ann's details", &none)),
            ["list_contacts", "contact_details"]
        );
        let pinned = BTreeSet::from(["click".to_string()]);
        assert_eq!(
            names(select(&tools, &up_to(1), "weather in Oslo", &pinned)),
            ["snapshot", "get_weather", "click"]
        );
    }

    #[test]
    fn a_lister_comes_with_a_tool_that_takes_what_it_lists() {
        let tools = ToolSet::new(vec![
            taking("list_pull_requests", "Lists a repository's pull requests.", &["repo", "state"]),
            taking("merge_pull_request", "Merges a pull request.", &["repo", "number"]),
            taking("request_access", "Asks for read access to a file.", &["path"]),
            taking("list_museums", "Lists the museums the hours service knows.", &[]),
            taking("museum_hours", "Today's opening hours of a museum, by its exact name.", &["name"]),
            taking("find_branch", "The library branch nearest to a street.", &["street"]),
            taking("opening_hours", "Today's opening hours of a library branch.", &["branch"]),
            taking("list_orders", "Lists your orders, newest first.", &[]),
            taking("get_order", "One order by id.", &["order_id"]),
            taking("list_albums", "Lists the user's photo albums.", &[]),
            taking("upload_photo", "Uploads a photo to an album.", &["album", "fileName"]),
        ])
        .unwrap();
        let offered = |query| names(select(&tools, &up_to(1), query, &BTreeSet::new()));
        // The lister's listed noun is in the taker's name, and the taker picks one out by it.
        assert_eq!(offered("merge it"), ["list_pull_requests", "merge_pull_request"]);
        assert_eq!(offered("the exact name"), ["list_museums", "museum_hours"]);
        // Or an argument of the taker is named for what the lister lists.
        assert_eq!(offered("the order_id"), ["list_orders", "get_order"]);
        assert_eq!(offered("when it closes, hours of a library"), ["find_branch", "opening_hours"]);
        assert_eq!(offered("upload my photo"), ["list_albums", "upload_photo"]);
    }

    #[test]
    fn a_lister_sharing_one_word_with_an_offered_tool_does_not_come_with_it() {
        let tools = ToolSet::new(vec![
            taking("list_pull_requests", "Lists a repository's pull requests.", &["repo", "state"]),
            taking("request_access", "Asks for read access to a file.", &["path"]),
            taking("search_books", "Finds books by author or title.", &["author", "title"]),
            taking("book_table", "Books a restaurant table.", &["restaurant", "people", "time"]),
            taking("list_calendar_events", "Lists the calendar events on one day.", &["date"]),
            taking("create_calendar_event", "Creates an event in the calendar.", &["title", "start"]),
            taking("search_notes", "Full-text search over the user's notes.", &["query"]),
            taking("add_note", "Saves a note with a title and a body.", &["title", "body"]),
            taking("add_to_grocery_list", "Adds an item to the shared grocery list.", &["item"]),
            taking("list_invoices", "Lists a customer's invoices.", &["customer"]),
            taking("list_unpaid_invoices", "Lists your unpaid invoices with their totals.", &[]),
        ])
        .unwrap();
        let offered = |query| names(select(&tools, &up_to(1), query, &BTreeSet::new()));
        // `request` in both names, but access is not a pull request.
        assert_eq!(offered("ask for read access to the file"), ["request_access"]);
        // `book` is what `book_table` does, not what it takes.
        assert_eq!(offered("a restaurant table for four"), ["book_table"]);
        // Creating an event or saving a note takes no listed one.
        assert_eq!(offered("create an event at noon"), ["create_calendar_event"]);
        assert_eq!(offered("save a body text"), ["add_note"]);
        // (`add_to_grocery_list` shares `add` with `add_note`, but a name ending in `list` lists
        // nothing.)
        // Two listings of invoices do not bring each other.
        assert_eq!(offered("invoices with their totals, unpaid"), ["list_unpaid_invoices"]);
    }

    #[test]
    fn a_tool_found_only_by_an_argument_name_brings_no_lister() {
        let tools = ToolSet::new(vec![
            taking("list_pull_requests", "Lists a repository's pull requests.", &["repo", "state"]),
            taking("merge_pull_request", "Merges a pull request.", &["repo", "number"]),
        ])
        .unwrap();
        let offered = |query| names(select(&tools, &up_to(1), query, &BTreeSet::new()));
        // "number" finds `merge_pull_request` by its argument: the task is not about pull requests.
        assert_eq!(offered("tell me the order number"), ["merge_pull_request"]);
        assert_eq!(offered("merge the pull request"), ["list_pull_requests", "merge_pull_request"]);
    }

    #[test]
    fn a_tool_scoring_under_the_relevance_cut_is_not_offered_by_rank() {
        let tools = ToolSet::new(vec![
            tool("get_weather", "Current weather forecast for a city."),
            tool("set_thermostat", "Sets the target temperature."),
            tool("play_song", "Plays a song."),
            tool("add_note", "Saves a note."),
        ])
        .unwrap();
        let none = BTreeSet::new();
        let query = "weather forecast and temperature in Oslo";
        let scores = tools.ranking().scores(query);
        assert!(scores[0] > scores[1] && scores[1] > 0.0 && scores[2] == 0.0, "{scores:?}");
        let ratio = scores[1] / scores[0];
        // No cut: the four places are filled, the two matching first.
        assert_eq!(names(select(&tools, &up_to(4), query, &none)).len(), 4);
        let cut = |min_relevance| ToolSelection { min_relevance, ..up_to(4) };
        // A cut under the second tool's share of the best score keeps both matching tools only.
        assert_eq!(
            names(select(&tools, &cut(ratio - 0.01), query, &none)),
            ["get_weather", "set_thermostat"]
        );
        assert_eq!(names(select(&tools, &cut(ratio + 0.01), query, &none)), ["get_weather"]);
        // Pinned tools stay whatever their score; `maxTools` still caps the ranked ones.
        let pinned = BTreeSet::from(["add_note".to_string()]);
        assert_eq!(names(select(&tools, &cut(1.0), query, &pinned)), ["get_weather", "add_note"]);
        assert_eq!(
            names(select(&tools, &ToolSelection { max_tools: 1, ..cut(0.01) }, query, &none)),
            ["get_weather"]
        );
        // Nothing matches: none stands out, the first `maxTools` are offered as without the cut.
        assert_eq!(
            names(select(&tools, &ToolSelection { max_tools: 2, ..cut(0.5) }, "hello", &none)),
            ["get_weather", "set_thermostat"]
        );
    }

    #[test]
    fn a_relevance_cut_outside_0_to_1_is_refused_by_name() {
        let tools = ToolSet::new(vec![tool("a", "A.")]).unwrap();
        for bad in [-0.1, 1.5, f64::NAN] {
            let error = ToolSelection { min_relevance: bad, ..ToolSelection::default() }
                .validate(&tools)
                .unwrap_err();
            assert_eq!(error.field, "toolSelection.minRelevance", "{bad}");
        }
        for good in [0.0, 0.5, 1.0] {
            let selection = ToolSelection { min_relevance: good, ..ToolSelection::default() };
            assert_eq!(selection.validate(&tools), Ok(()));
        }
    }
}
