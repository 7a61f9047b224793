//! "Did you mean": the few valid names or values closest to one the model got slightly wrong.
//!
//! Small models mostly err in three ways: typos (`serch_web`), the wrong naming convention
//! (`getWeather` for `get_weather`) and shortenings (`snapshot` for `browser_snapshot`, `qty` for
//! `quantity`). Each gets its own measure; a candidate's score is the best of them.

/// More suggestions than this is noise the model has to read past.
const MAX_SUGGESTIONS: usize = 3;

/// Similarity (0 to 1) a candidate needs to count as a plausible slip: one edit in four characters,
/// two in seven, three in ten.
const THRESHOLD: f64 = 0.7;

/// Shorter fragments than this are contained in too many names to mean anything.
const MIN_FRAGMENT: usize = 3;

/// Longer text than this is not a slip for a name: no suggestion, and no quadratic comparison.
const MAX_TARGET_CHARS: usize = 256;

/// The candidates (at most 3, best first) that `target` is plausibly a slip for.
///
/// Comparison ignores case and the separators `_`, `-`, `.`, `/` and spaces, so naming conventions
/// (`getWeather`, `get-weather`, `get_weather`) compare equal. Ties keep the candidates' order, and
/// repeated candidates count once. An empty result means nothing is close enough to suggest.
///
/// ```
/// use keel::tools::closest;
/// assert_eq!(closest("serch_web", ["search_web", "delete_file"]), ["search_web"]);
/// assert!(closest("delete", ["search_web"]).is_empty());
/// ```
pub fn closest<'a>(target: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut unlimited = usize::MAX;
    closest_within(target, candidates, &mut unlimited)
}

/// [`closest`], spending at most `budget` units of work (one unit per pair of characters
/// compared), less what it spent; once the budget is gone it stops and returns what it found.
/// Validation gives one budget to all the suggestions of a value, so that thousands of near-miss
/// values against a thousand-option enum stay quick.
pub(crate) fn closest_within<'a>(
    target: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    budget: &mut usize,
) -> Vec<&'a str> {
    closest_in(target, &mut candidates.into_iter(), budget)
}

/// [`closest_within`] over any iterator through one copy of the code (it is called with four kinds
/// of iterator; generic, each was a copy in the wasm module).
fn closest_in<'a>(
    target: &str,
    candidates: &mut dyn Iterator<Item = &'a str>,
    budget: &mut usize,
) -> Vec<&'a str> {
    let wanted = normalize(target);
    let wanted_len = wanted.chars().count();
    if wanted.is_empty() || wanted_len > MAX_TARGET_CHARS {
        return Vec::new();
    }
    let mut scored: Vec<(f64, f64, &'a str)> = Vec::new();
    for candidate in candidates {
        let cost = (wanted_len + 1).saturating_mul(candidate.len() + 1);
        if cost > *budget {
            *budget = 0;
            break;
        }
        *budget -= cost;
        if scored.iter().any(|&(_, _, seen)| seen == candidate) {
            continue;
        }
        let normal = normalize(candidate);
        let score = similarity(&wanted, &normal);
        if score >= THRESHOLD {
            // Jaro-Winkler favours a shared start, which breaks ties the way people read names.
            scored.push((score, strsim::jaro_winkler(&wanted, &normal), candidate));
        }
    }
    // A stable sort, so equal scores keep the caller's order.
    crate::order::sort_by(&mut scored, |a, b| b.0.total_cmp(&a.0).then(b.1.total_cmp(&a.1)));
    scored.into_iter().take(MAX_SUGGESTIONS).map(|(_, _, candidate)| candidate).collect()
}

/// Lower case without separators: what is left once naming conventions are set aside.
fn normalize(name: &str) -> String {
    name.chars().filter(|c| !matches!(c, '_' | '-' | '.' | '/' | ' ')).flat_map(char::to_lowercase).collect()
}

/// How alike two normalized names are, from 0 to 1.
fn similarity(a: &str, b: &str) -> f64 {
    if a == b {
        return 1.0;
    }
    let edits = strsim::normalized_damerau_levenshtein(a, b);
    edits.max(fragment(a, b)).max(fragment(b, a))
}

/// Scores `part` as a shortening of `whole`: contained in it (`snapshot` in `browsersnapshot`), or
/// its abbreviation (`qty` in `quantity`: same first letter, the rest in order). Containment always
/// clears the threshold; an abbreviation only when it keeps enough of the word.
fn fragment(part: &str, whole: &str) -> f64 {
    let (len, whole_len) = (part.chars().count(), whole.chars().count());
    if len < MIN_FRAGMENT || len >= whole_len {
        return 0.0;
    }
    let kept = len as f64 / whole_len as f64;
    if whole.contains(part) {
        THRESHOLD + 0.25 * kept
    } else if part.chars().next() == whole.chars().next() && is_subsequence(part, whole) && kept >= 0.3 {
        THRESHOLD + 0.1 * kept
    } else {
        0.0
    }
}

/// Whether every character of `part` appears in `whole`, in order.
fn is_subsequence(part: &str, whole: &str) -> bool {
    let mut rest = whole.chars();
    part.chars().all(|c| rest.any(|w| w == c))
}

#[cfg(test)]
mod tests {
    use super::closest;

    const TOOLS: [&str; 6] =
        ["search_web", "get_weather", "click", "browser_snapshot", "delete_file", "type_text"];

    #[test]
    fn typos_match() {
        assert_eq!(closest("serch_web", TOOLS), ["search_web"]);
        assert_eq!(closest("clik", TOOLS), ["click"]);
        assert_eq!(closest("serch_wbe", TOOLS), ["search_web"]);
        assert_eq!(closest("cty", ["city", "units"]), ["city"]);
    }

    #[test]
    fn naming_conventions_are_equal() {
        assert_eq!(closest("getWeather", TOOLS), ["get_weather"]);
        assert_eq!(closest("GET-WEATHER", TOOLS), ["get_weather"]);
        assert_eq!(closest("Click", TOOLS), ["click"]);
    }

    #[test]
    fn shortenings_match() {
        assert_eq!(closest("snapshot", TOOLS), ["browser_snapshot"]);
        assert_eq!(closest("qty", ["quantity", "price"]), ["quantity"]);
        assert_eq!(closest("temp", ["temperature", "units"]), ["temperature"]);
    }

    #[test]
    fn unrelated_names_do_not_match() {
        assert!(closest("delete", ["search_web"]).is_empty());
        assert_eq!(closest("delete", TOOLS), ["delete_file"]);
        assert!(closest("city", ["country", "zip"]).is_empty());
        assert!(closest("id", ["ids", "kind"]).is_empty());
        assert!(closest("", TOOLS).is_empty());
        assert!(closest("__", TOOLS).is_empty());
        assert!(closest("x", Vec::<&str>::new()).is_empty());
    }

    #[test]
    fn best_first_at_most_three_no_repeats() {
        let got = closest("item", ["items", "item_id", "item", "itemz", "items"]);
        assert_eq!(got, ["item", "items", "itemz"]);
        assert_eq!(closest("colour", ["color", "colours"]), ["colours", "color"]);
    }

    #[test]
    fn the_work_is_bounded_by_the_budget() {
        let mut budget = 10_000;
        assert_eq!(super::closest_within("clik", TOOLS, &mut budget), ["click"]);
        assert!(budget < 10_000 && budget > 0);
        let mut budget = 20;
        assert!(super::closest_within("clik", TOOLS, &mut budget).is_empty());
        assert_eq!(budget, 0, "spent");
        assert!(closest(&"a".repeat(300), ["a"]).is_empty(), "a long text is no slip");
    }

    #[test]
    fn odd_input_does_not_panic() {
        assert!(closest("ßẞ\u{0}é", ["SS", "é", "\u{1F600}"]).len() <= 3);
        assert_eq!(closest("\u{1F600}abc", ["\u{1F600}abd", "zz"]), ["\u{1F600}abd"]);
    }
}
