//! Many tools (`toolSelection`, `engine/selection.rs`): with at least `minTools` tools, a step offers
//! the `maxTools` ranked most relevant to the task and the latest steps, in the prompt and in the
//! step schema; tools used in the run, named by a pending recovery plan or in `alwaysInclude` stay
//! offered; a known tool that was not offered still runs when called.

mod support;

use keel::engine::{AgentConfig, AgentError, ToolSelection};
use keel::errors::{FailureHints, RawFailure};
use keel::settings::read;
use keel::tools::ToolSpec;
use serde_json::json;
use support::*;

/// The demo's five tools among twenty from other domains: 25 in all.
fn many() -> Vec<ToolSpec> {
    let others = [
        ("create_calendar_event", "Creates an event in the user's calendar.", "title"),
        ("add_note", "Saves a note with a title and a body.", "body"),
        ("create_task", "Adds a to-do item.", "dueDate"),
        ("play_song", "Plays a song on the user's speaker.", "artist"),
        ("get_directions", "Route and travel time between two places.", "destination"),
        ("find_parking", "Parking garages near a place.", "near"),
        ("log_workout", "Records a workout in the fitness log.", "activity"),
        ("search_recipes", "Finds recipes using the given ingredients.", "ingredients"),
        ("set_thermostat", "Sets a room's target temperature.", "celsius"),
        ("toggle_lights", "Turns a room's lights on or off.", "room"),
        ("lock_door", "Locks one of the house's doors.", "door"),
        ("create_github_issue", "Opens an issue in a GitHub repository.", "repo"),
        ("send_sms", "Sends a text message to a phone number.", "phoneNumber"),
        ("post_to_slack", "Posts a message in a Slack channel.", "channel"),
        ("shorten_url", "Makes a short link for a long URL.", "url"),
        ("define_word", "A dictionary definition of an English word.", "word"),
        ("convert_units", "Converts a quantity between units.", "value"),
        ("read_report", "Reads a sales report by name.", "report"),
        ("request_access", "Asks an administrator to grant a permission.", "permission"),
        ("list_contacts", "Lists the user's contacts.", "letter"),
    ];
    let mut all = specs();
    all.extend(others.iter().map(|(name, description, arg)| {
        ToolSpec::new(
            *name,
            *description,
            json!({"type": "object", "properties": {*arg: {"type": "string"}}}),
        )
    }));
    all
}

/// At most `max_tools` by rank, without the relevance cut.
fn selecting(max_tools: usize) -> AgentConfig {
    let tool_selection = ToolSelection { max_tools, min_relevance: 0.0, ..ToolSelection::default() };
    AgentConfig { tool_selection, ..AgentConfig::default() }
}

/// The tools request `n` offered: those listed in its system message and those in its step schema.
fn offered(h: &Harness, n: usize) -> (Vec<String>, Vec<String>) {
    offered_tools(&h.model, n)
}

#[test]
fn a_step_offers_only_the_tools_ranked_most_relevant() {
    let model =
        ScriptedModel::new([act("get_weather", json!({"city": "Oslo"})), answer("It is 4°C in Oslo.")]);
    let tools = FakeTools::new().script("get_weather", vec![Behaviour::Ok(json!({"temp": "4°C"}))]);
    let h = Harness::new(model, tools, many(), selecting(3));
    let (result, _) = h.run("What is the weather in Oslo?");
    assert!(result.success, "{}", result.answer);
    let (listed, in_schema) = offered(&h, 0);
    assert_eq!(listed.len(), 3, "{listed:?}");
    assert_eq!(listed, in_schema, "the prompt and the schema offer the same tools");
    assert!(listed.contains(&"get_weather".to_string()), "{listed:?}");
    // The id producer comes with the tool taking its ids.
    let model = ScriptedModel::new([answer("-")]);
    let h = Harness::new(model, FakeTools::new(), many(), selecting(1));
    h.run("Show me invoice INV-7.");
    let (listed, _) = offered(&h, 0);
    assert_eq!(listed, ["list_invoices", "get_invoice"]);
}

#[test]
fn few_tools_or_selection_off_offer_every_tool() {
    let off = AgentConfig {
        tool_selection: ToolSelection { enabled: false, max_tools: 3, ..ToolSelection::default() },
        ..AgentConfig::default()
    };
    let h = Harness::new(ScriptedModel::new([answer("-")]), FakeTools::new(), many(), off);
    h.run("What is the weather in Oslo?");
    assert_eq!(offered(&h, 0).0.len(), 25);
    // 25 tools are fewer than minTools 30.
    let mut config = selecting(3);
    config.tool_selection.min_tools = 30;
    let h = Harness::new(ScriptedModel::new([answer("-")]), FakeTools::new(), many(), config);
    h.run("What is the weather in Oslo?");
    assert_eq!(offered(&h, 0).1.len(), 25);
}

#[test]
fn a_tool_not_offered_still_runs_when_called_and_then_stays_offered() {
    let model = ScriptedModel::new([
        act("define_word", json!({"word": "Oslo"})),
        act("get_weather", json!({"city": "Oslo"})),
        answer("It is 4°C in Oslo."),
    ]);
    let tools = FakeTools::new()
        .script("define_word", vec![Behaviour::Ok(json!("Oslo: the capital of Norway."))])
        .script("get_weather", vec![Behaviour::Ok(json!({"temp": "4°C"}))]);
    let h = Harness::new(model, tools, many(), selecting(2));
    let (result, _) = h.run("What is the weather in Oslo?");
    assert!(!offered(&h, 0).0.contains(&"define_word".to_string()), "{:?}", offered(&h, 0));
    // The scripted model ignored the schema: the call was checked against every tool and ran.
    assert_eq!(h.tools.calls_to("define_word"), 1);
    assert_eq!(result.turns[0].outcome, keel::engine::Outcome::Ok, "{}", result.turns[0].observation);
    let (listed, in_schema) = offered(&h, 1);
    assert!(listed.contains(&"define_word".to_string()) && in_schema.contains(&"define_word".to_string()));
    assert!(result.success, "{}", result.answer);
}

#[test]
fn the_tools_a_recovery_plan_names_stay_offered() {
    let denied = RawFailure::coded("PERMISSION", "You may not read this report.").with_hints(FailureHints {
        recovery: Some(vec!["Call `request_access` for the report, then read it again.".to_string()]),
        ..FailureHints::default()
    });
    let model = ScriptedModel::new([act("read_report", json!({"report": "sales"})), answer("-")]);
    let tools = FakeTools::new().script("read_report", vec![Behaviour::Fail(denied)]);
    let h = Harness::new(model, tools, many(), selecting(1));
    h.run("Read the sales report.");
    assert_eq!(offered(&h, 0).0, ["read_report"]);
    let (listed, in_schema) = offered(&h, 1);
    assert!(listed.contains(&"request_access".to_string()), "{listed:?}");
    assert!(in_schema.contains(&"request_access".to_string()), "{in_schema:?}");
}

#[test]
fn always_include_keeps_a_tool_offered_and_must_name_one() {
    let mut config = selecting(1);
    config.tool_selection.always_include = vec!["list_contacts".into()];
    let h = Harness::new(ScriptedModel::new([answer("-")]), FakeTools::new(), many(), config.clone());
    h.run("What is the weather in Oslo?");
    assert_eq!(offered(&h, 0).0, ["get_weather", "list_contacts"]);

    config.tool_selection.always_include = vec!["list_contact".into()];
    let error = keel::engine::Agent::new(many(), config).err().expect("refused");
    let AgentError::Config(error) = error else { panic!("{error:?}") };
    assert_eq!(error.field, "toolSelection.alwaysInclude[0]");
    let error = keel::engine::Agent::new(many(), selecting(0)).err().expect("refused");
    assert!(error.to_string().contains("toolSelection.maxTools"), "{error}");
}

#[test]
fn unknown_or_misspelt_keys_are_refused() {
    let error = read::<AgentConfig>(&json!({"toolSelection": {"maxTool": 5}}), "config", &[]).unwrap_err();
    assert_eq!(error.to_string(), "`config.toolSelection.maxTool`: unknown key (did you mean `maxTools`?)");
    let read: AgentConfig =
        read(&json!({"toolSelection": {"maxTools": 5, "alwaysInclude": ["a"]}}), "config", &[]).unwrap();
    assert_eq!(read.tool_selection.max_tools, 5);
    assert_eq!(read.tool_selection.min_tools, 20);
}

#[test]
fn the_relevance_cut_offers_only_the_tools_scoring_near_the_best() {
    let model =
        ScriptedModel::new([act("get_weather", json!({"city": "Oslo"})), answer("It is 4°C in Oslo.")]);
    let tools = FakeTools::new().script("get_weather", vec![Behaviour::Ok(json!({"temp": "4°C"}))]);
    // The defaults: at most 8 by rank, each scoring at least half the best. (The step after the
    // call is a whole step, not the answer asked for alone, so that its tools can be read.)
    let whole_steps = AgentConfig { focused_answer: false, ..AgentConfig::default() };
    let h = Harness::new(model, tools, many(), whole_steps);
    let (result, _) = h.run("What is the weather in Oslo?");
    assert!(result.success, "{}", result.answer);
    assert_eq!(offered(&h, 0), (vec!["get_weather".to_string()], vec!["get_weather".to_string()]));
    // After the call, the tools ranked beside it for the step's words are not offered either.
    let (listed, _) = offered(&h, 1);
    assert!(listed.len() <= 2 && listed.contains(&"get_weather".to_string()), "{listed:?}");
    // Two tools matching about as well are both offered.
    let h = Harness::new(ScriptedModel::new([answer("-")]), FakeTools::new(), many(), AgentConfig::default());
    h.run("Set the thermostat and turn on the lights in the living room.");
    assert_eq!(offered(&h, 0).0, ["set_thermostat", "toggle_lights"]);
}

#[test]
fn a_relevance_cut_out_of_range_is_refused_naming_it() {
    let error = read::<AgentConfig>(&json!({"toolSelection": {"minRelevance": 2}}), "config", &[])
        .map_err(|e| e.to_string())
        .and_then(|config| keel::engine::Agent::new(many(), config).map(|_| ()).map_err(|e| e.to_string()))
        .unwrap_err();
    assert!(error.contains("toolSelection.minRelevance"), "{error}");
    let read: AgentConfig = read(&json!({"toolSelection": {"minRelevance": 0.25}}), "config", &[]).unwrap();
    assert_eq!(read.tool_selection.min_relevance, 0.25);
}
