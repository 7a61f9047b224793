// Distractor tools for the recovery benchmark's many-tools modes (`keel-50tools`,
// `keel-50tools-all`): 48 realistic tools from other domains (calendar, notes, home, code, media,
// fitness…), each with a plausible description and argument schema, added to a scenario's own
// one or two so the agent has about 50. None shares a name with a scenario's tool, none can answer
// a scenario's task, and each answers a call with a fixed, plausible result, so a run is the same
// every time. Plain data and functions only (Node imports this file too).

import { obj, str } from "./scenarios.js";

const num = (description) => ({ type: "number", description });
const int = (description, minimum, maximum) => ({ type: "integer", description, minimum, maximum });
const bool = (description) => ({ type: "boolean", description });
const oneOf = (description, values) => ({ type: "string", enum: values, description });
const strings = (description) => ({ type: "array", items: { type: "string" }, description });

/** [name, description, argument properties, required (default: all), result]. */
const DECLARED = [
  ["create_calendar_event", "Creates an event in the user's calendar.", { title: str("event title"), start: str("ISO date-time"), durationMinutes: int("length in minutes", 5, 720) }, null, { created: true, eventId: "evt_5521" }],
  ["list_calendar_events", "Lists the calendar events on one day.", { date: str("YYYY-MM-DD") }, null, { events: [{ title: "Team sync", start: "09:30" }] }],
  ["add_note", "Saves a note with a title and a body.", { title: str("note title"), body: str("note text") }, null, { saved: true, noteId: "n-208" }],
  ["search_notes", "Full-text search over the user's notes.", { query: str("words to look for") }, null, { notes: [{ noteId: "n-114", title: "Packing list" }] }],
  ["create_task", "Adds a to-do item.", { title: str("what to do"), dueDate: str("YYYY-MM-DD"), priority: oneOf("how urgent", ["low", "normal", "high"]) }, ["title"], { created: true, taskId: "t-73" }],
  ["complete_task", "Marks a to-do item as done.", { taskId: str("id from create_task, e.g. t-12") }, null, { done: true }],
  ["play_song", "Plays a song on the user's speaker.", { title: str("song title"), artist: str("artist name") }, ["title"], { playing: true }],
  ["create_playlist", "Creates a music playlist.", { name: str("playlist name"), description: str("what it is for") }, ["name"], { created: true, playlistId: "pl-9" }],
  ["get_directions", "Route and travel time between two places.", { origin: str("start address"), destination: str("end address"), mode: oneOf("how to travel", ["driving", "walking", "cycling", "transit"]) }, ["origin", "destination"], { minutes: 24, distanceKm: 7.9 }],
  ["find_parking", "Parking garages near a place with their hourly price.", { near: str("address or landmark"), maxPricePerHour: num("highest hourly price") }, ["near"], { garages: [{ name: "Central P2", pricePerHour: 3.5 }] }],
  ["log_workout", "Records a workout in the fitness log.", { activity: str("e.g. running"), minutes: int("duration", 1, 600), calories: int("calories burned", 0, 5000) }, ["activity", "minutes"], { logged: true }],
  ["get_step_count", "Steps walked on one day, from the phone's pedometer.", { date: str("YYYY-MM-DD") }, null, { steps: 6412 }],
  ["search_recipes", "Finds recipes using the given ingredients.", { ingredients: strings("ingredients at hand"), maxMinutes: int("longest cooking time", 5, 300) }, ["ingredients"], { recipes: [{ recipeId: "r-31", name: "Lentil soup" }] }],
  ["get_recipe", "One recipe's ingredients and steps.", { recipeId: str("id from search_recipes") }, null, { name: "Lentil soup", steps: 6 }],
  ["set_thermostat", "Sets a room's target temperature.", { room: str("room name"), celsius: num("target temperature in °C") }, null, { set: true }],
  ["toggle_lights", "Turns a room's lights on or off.", { room: str("room name"), on: bool("true to switch on") }, null, { ok: true }],
  ["lock_door", "Locks one of the house's doors.", { door: oneOf("which door", ["front", "back", "garage"]) }, null, { locked: true }],
  ["create_github_issue", "Opens an issue in a GitHub repository.", { repo: str("owner/name"), title: str("issue title"), body: str("issue text") }, ["repo", "title"], { number: 412 }],
  ["list_pull_requests", "Lists a repository's pull requests.", { repo: str("owner/name"), state: oneOf("which ones", ["open", "closed", "all"]) }, ["repo"], { pulls: [{ number: 88, title: "Fix typo" }] }],
  ["merge_pull_request", "Merges a pull request.", { repo: str("owner/name"), number: int("pull request number", 1, 1000000) }, null, { merged: true }],
  ["create_spreadsheet", "Creates an empty spreadsheet.", { name: str("file name") }, null, { sheetId: "sh-7" }],
  ["append_spreadsheet_row", "Appends one row to a spreadsheet.", { sheetId: str("id from create_spreadsheet"), values: strings("the row's cells") }, null, { rows: 14 }],
  ["upload_photo", "Uploads a photo to an album.", { album: str("album name"), fileName: str("image file name") }, null, { uploaded: true }],
  ["list_albums", "Lists the user's photo albums.", {}, null, { albums: ["Holidays", "Garden"] }],
  ["search_podcasts", "Finds podcast episodes on a topic.", { query: str("topic or show name") }, null, { episodes: [{ show: "Deep Dive", title: "Episode 12" }] }],
  ["define_word", "A dictionary definition of an English word.", { word: str("the word") }, null, { definition: "a short explanation of meaning" }],
  ["convert_units", "Converts a quantity between units of length, mass or volume.", { value: num("the quantity"), from: str("unit, e.g. km"), to: str("unit, e.g. mi") }, null, { value: 6.21 }],
  ["search_movies", "Finds films by title.", { title: str("film title"), year: int("release year", 1900, 2100) }, ["title"], { movies: [{ movieId: "m-551", title: "Arrival" }] }],
  ["get_movie_showtimes", "Cinema showtimes of a film in a city.", { movieId: str("id from search_movies"), city: str("city name") }, null, { showtimes: ["18:10", "21:00"] }],
  ["search_books", "Finds books by author or title in the library catalogue.", { author: str("author name"), title: str("book title") }, [], { books: [{ isbn: "978-0-14-044913-6", title: "Crime and Punishment" }] }],
  ["get_sports_scores", "Final scores of a league's games on one day.", { league: oneOf("league", ["nba", "nfl", "premier-league", "nhl"]), date: str("YYYY-MM-DD") }, null, { games: [{ home: "LAL", away: "BOS", score: "102-99" }] }],
  ["schedule_vet_visit", "Books a vet appointment for a pet.", { petName: str("the pet's name"), date: str("YYYY-MM-DD") }, null, { booked: true, time: "10:20" }],
  ["water_plants", "Runs the garden irrigation in one zone.", { zone: oneOf("garden zone", ["front", "back", "greenhouse"]), minutes: int("how long", 1, 60) }, null, { watering: true }],
  ["start_car_climate", "Pre-heats or cools the car's cabin.", { celsius: num("target cabin temperature") }, null, { started: true }],
  ["get_car_battery", "The electric car's charge level and range.", {}, null, { percent: 64, rangeKm: 231 }],
  ["send_sms", "Sends a text message to a phone number.", { phoneNumber: str("E.164 number, e.g. +4712345678"), message: str("the text") }, null, { sent: true }],
  ["post_to_slack", "Posts a message in a Slack channel.", { channel: str("channel name without #"), text: str("message text") }, null, { posted: true, ts: "1716.22" }],
  ["create_video_meeting", "Creates a video-call link for a meeting.", { topic: str("meeting topic"), start: str("ISO date-time") }, null, { joinUrl: "https://meet.example/k-221" }],
  ["shorten_url", "Makes a short link for a long URL.", { url: str("the long URL") }, null, { short: "https://sho.rt/x7Q" }],
  ["generate_password", "Generates a random password.", { length: int("characters", 8, 128), symbols: bool("include symbols") }, ["length"], { password: "t9#Lq2!vWm0z" }],
  ["compress_image", "Re-encodes an image at a lower quality to save space.", { fileName: str("image file name"), quality: int("JPEG quality", 1, 100) }, null, { savedKb: 412 }],
  ["run_sql_query", "Runs a read-only SQL query on an analytics database.", { database: str("database name"), sql: str("a SELECT statement") }, null, { rows: [], rowCount: 0 }],
  ["deploy_service", "Deploys the latest build of a service.", { service: str("service name"), environment: oneOf("where", ["staging", "production"]) }, null, { deploymentId: "d-3391", status: "queued" }],
  ["get_server_metrics", "CPU, memory and disk use of a server.", { host: str("host name") }, null, { cpuPercent: 37, memoryPercent: 58, diskPercent: 71 }],
  ["create_survey", "Creates a survey form.", { title: str("survey title"), questions: strings("the questions") }, null, { surveyId: "sv-18" }],
  ["add_to_grocery_list", "Adds an item to the shared grocery list.", { item: str("what to buy"), quantity: int("how many", 1, 100) }, ["item"], { added: true }],
  ["join_fitness_class", "Signs the user up for a gym class.", { className: str("e.g. spin, yoga"), date: str("YYYY-MM-DD") }, null, { joined: true }],
  ["check_air_quality", "Air quality index and main pollutant at a place.", { location: str("address or area") }, null, { aqi: 42, pollutant: "pm2.5" }],
];

/** The distractor tools, minus any whose name is in `taken`. */
export function distractors(taken = new Set()) {
  return DECLARED.filter(([name]) => !taken.has(name)).map(([name, description, properties, required, result]) => ({
    name,
    description,
    inputSchema: obj(properties, required ?? Object.keys(properties)),
    execute: () => JSON.stringify(result),
  }));
}

/** A small deterministic hash of a string (FNV-1a), for placing a scenario's tools. */
function hash(text) {
  let h = 0x811c9dc5;
  for (const c of text) h = Math.imul(h ^ c.codePointAt(0), 0x01000193) >>> 0;
  return h;
}

/**
 * The scenario's `own` tools among the distractors, at places fixed by the scenario's `id` (not
 * first: the prompt's example action calls the first tool listed).
 */
export function withDistractors(id, own) {
  const tools = distractors(new Set(own.map((t) => t.name)));
  let at = hash(id);
  for (const tool of own) {
    at = (at * 31 + 17) >>> 0;
    tools.splice(1 + (at % tools.length), 0, tool);
  }
  return tools;
}

/** How many distractors there are. */
export const DISTRACTOR_COUNT = DECLARED.length;
