//! Grounded answers: the facts a final answer states — numbers, amounts, ids and codes, e-mail
//! addresses, file names, quoted values — must be found in what the run has seen (the task, a tool result, a
//! tool argument), or follow from seen numbers by one arithmetic step (a total, a difference, a
//! percentage the task asks for). Small models answer at step 1 with an invented value, or fill
//! in a value after a tool failed, and a run that reports that as success is the worst outcome.
//!
//! What is not checked, on purpose: plain words and names (a model rephrases them), single-digit
//! counts (a model counts the items of a list), and quotes most of whose words were seen (a model
//! shortens them).

use super::facts::{decimals, number, numbers, quotes, seen_in, tokens};
use super::misread::misread;

/// The most seen numbers tried in pairs for arithmetic: the rest are compared as they are.
const MAX_OPERANDS: usize = 80;

/// The extensions that make a token a file name, a fact to be checked though it has no digit
/// (SmolLM2 answered "Download report.csv" for a file the page named `q3-report.pdf`, recovery
/// bench guessed-ref at e612171). Not `js` or `net`: `Node.js` and `ASP.NET` are names.
const FILE_EXTENSIONS: &[&str] = &[
    "csv", "doc", "docx", "gif", "gz", "htm", "html", "jpeg", "jpg", "json", "log", "md", "mp3", "mp4",
    "odt", "ods", "pdf", "png", "ppt", "pptx", "rtf", "svg", "tgz", "tsv", "txt", "wav", "xls", "xlsx",
    "xml", "yaml", "yml", "zip",
];

/// Whether `token` is a file name: a stem, a dot and one of [`FILE_EXTENSIONS`].
fn file_name(token: &str) -> bool {
    token.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && FILE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
    })
}

/// The facts of `answer` that `seen` (the lowercased task, observations and arguments) does not
/// hold, in order, each once, then the numbers it reads with another number's unit
/// (`misread.rs`: "25 days" where the result says "13.5 days left of 25").
pub(crate) fn ungrounded(answer: &str, seen: &str) -> Vec<String> {
    ungrounded_by(answer, seen, || misread(answer, seen))
}

/// [`ungrounded`], with the numbers of `seen` read with another number's unit given by `misread`
/// (`misread.rs`; a run reads its session's part from facts kept across its runs, `seen.rs`).
pub(crate) fn ungrounded_by(answer: &str, seen: &str, misread: impl FnOnce() -> Vec<String>) -> Vec<String> {
    // Read from the whole of `seen` only for a value not found in it as it is written: most are
    // (and a thought or an answer without such a value costs no scan of all the run has seen).
    let known = std::cell::OnceCell::new();
    let known = || {
        known.get_or_init(|| {
            let mut known = numbers(seen);
            known.dedup();
            known
        })
    };
    let mut out: Vec<String> = Vec::new();
    let mut flag = |value: &str| {
        if !out.iter().any(|v| v == value) {
            out.push(value.to_string());
        }
    };
    for token in tokens(answer) {
        let has_digit = token.chars().any(|c| c.is_ascii_digit());
        if !(has_digit || token.contains('@') || file_name(token)) || seen_in(seen, token) {
            continue;
        }
        let grounded = if !has_digit {
            false // an e-mail address or a file name that was never seen
        } else if let Some(n) = number(token) {
            number_grounded(n, decimals(token), known())
        } else if let Some(n) = amount(token) {
            number_grounded(n, decimals(token), known())
        } else if !token.chars().any(char::is_alphabetic) {
            // A date, a time, a phone number: each part seen (a 24-hour time may come from a
            // 12-hour one).
            token.split(|c: char| !c.is_ascii_digit()).filter(|p| !p.is_empty()).all(|part| {
                let n = crate::text::parse_decimal(part).unwrap_or(0.0);
                n < 10.0 || known().contains(&n) || (n > 12.0 && n < 24.0 && known().contains(&(n - 12.0)))
            })
        } else {
            false // an id or a code that was never seen
        };
        if !grounded {
            flag(token);
        }
    }
    for quote in quotes(answer) {
        let words: Vec<String> =
            tokens(quote).into_iter().filter(|w| w.chars().count() >= 4).map(str::to_lowercase).collect();
        let found = words.iter().filter(|w| seen.contains(w.as_str())).count();
        if !words.is_empty() && found * 2 <= words.len() {
            flag(quote);
        }
    }
    for value in misread() {
        flag(&value);
    }
    out
}

/// The tokens of `text` with a digit that `task` (lowercase) does not hold: the values it states
/// of its own.
pub(crate) fn own_values<'a>(text: &'a str, task: &'a str) -> impl Iterator<Item = &'a str> {
    tokens(text).into_iter().filter(move |t| t.chars().any(|c| c.is_ascii_digit()) && !seen_in(task, t))
}

/// Whether `text` states a value of `result` (lowercase) as written there that `task`
/// (lowercase) does not hold: a token with a digit (a thought stating a result,
/// `thought_answer.rs`).
pub(crate) fn states_a_result(text: &str, result: &str, task: &str) -> bool {
    own_values(text, task).any(|token| seen_in(result, token))
}

/// Whether `answer` states a value of `result` (lowercase): as written ([`states_a_result`]), or
/// a number one arithmetic step from the amounts it lists (written with decimals or thousands
/// separators: `$1,250.00`; not the parts of its dates and ids, from which arithmetic reaches
/// nearly any small number), not a small count, and not a value of `task` (lowercase).
pub(crate) fn states_from(answer: &str, result: &str, task: &str) -> bool {
    if states_a_result(answer, result, task) {
        return true;
    }
    let amounts = std::cell::OnceCell::new();
    let amounts = || {
        amounts.get_or_init(|| {
            let listed = tokens(result).into_iter().filter(|t| decimals(t) > 0 || t.contains(','));
            listed.filter_map(number).collect::<Vec<f64>>()
        })
    };
    own_values(answer, task).any(|token| {
        let Some(n) = number(token).or_else(|| amount(token)) else { return false };
        let small_count = decimals(token) == 0 && n.abs() < 10.0;
        !small_count && number_grounded(n, decimals(token), amounts())
    })
}

/// A number with a unit or scale after it (`4.2M`, `10k`, `3pm`, `5kg`): its number.
fn amount(token: &str) -> Option<f64> {
    let split = token.find(|c: char| c.is_alphabetic())?;
    let (digits, unit) = token.split_at(split);
    (unit.chars().all(char::is_alphabetic) && unit.len() <= 3).then(|| number(digits)).flatten()
}

/// Whether `n` (shown with `places` decimals) is a seen number, a small count, or one arithmetic
/// step from two seen numbers.
///
/// A seen number may be shown rounded ("$1,235" for $1,234.56); a computed one must match at the
/// precision shown, and a whole number shown for a computed fraction is not grounded: Qwen answered
/// "10 days" where 13.5 − 4 = 9.5 (recovery bench, invent-balance), and rounding accepted it.
fn number_grounded(n: f64, places: usize, known: &[f64]) -> bool {
    if places == 0 && n.abs() < 10.0 {
        return true;
    }
    let scale = 10f64.powi(places.min(6) as i32);
    let rounded = |x: f64| (x * scale).round() == (n * scale).round();
    if known.iter().any(|k| rounded(*k)) {
        return true;
    }
    // Zero is grounded by no computation but an exact one: a tiny quotient (2 / 7731) rounds to 0.00.
    let exact = |x: f64| rounded(x) && (places > 0 || (x - x.round()).abs() < 1e-9) && (n != 0.0 || x == 0.0);
    let operands = &known[..known.len().min(MAX_OPERANDS)];
    operands.iter().enumerate().any(|(i, &a)| {
        operands[i + 1..].iter().any(|&b| {
            // A number less itself, or over itself, is no computation: 0 and 1 would be grounded by
            // any number seen twice.
            let trivial = a == b;
            [a + b, a * b, a * b / 100.0]
                .into_iter()
                .chain([a - b, b - a, a / b, b / a].into_iter().filter(|_| !trivial))
                .any(|x| x.is_finite() && exact(x))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(answer: &str, seen: &str) -> Vec<String> {
        ungrounded(answer, &seen.to_lowercase())
    }

    #[test]
    fn values_read_from_a_result_or_the_task_are_grounded() {
        let seen = "What is the total of invoice INV-2025-014?\nINV-2025-014: ACME Corp, total $1,250.00, due 2025-07-30";
        assert!(check("The total of INV-2025-014 is $1,250.00 (due 2025-07-30).", seen).is_empty());
        assert!(check("It is 1250 dollars.", seen).is_empty());
        assert!(check("Alarm AL-305 is set for 19:30.", "set an alarm for 7:30 pm\nalarm set. id: al-305")
            .is_empty());
    }

    #[test]
    fn invented_numbers_ids_and_addresses_are_flagged() {
        let seen = "What is the balance of account 7731?\nThe banking service is down.";
        assert_eq!(check("The balance of account 7731 is $2,450.75.", seen), ["2,450.75"]);
        assert_eq!(
            check("Your order number is KX-9921; mail help@shop.io.", "click place order"),
            ["KX-9921", "help@shop.io"]
        );
    }

    #[test]
    fn file_names_are_facts_and_names_with_a_dot_are_not() {
        let seen = "click 'download report'\nstarted download of q3-report.pdf";
        assert_eq!(check("Download report.csv", seen), ["report.csv"]);
        assert!(check("The file is q3-report.pdf.", seen).is_empty());
        assert!(check("It is built with Node.js and ASP.NET.", seen).is_empty());
    }

    #[test]
    fn arithmetic_on_seen_numbers_and_small_counts_are_not_flagged() {
        let seen = "how much do the two invoices come to together?\ninv-1: $1,250.00\ninv-2: $980.00";
        assert!(check("Together they come to $2,230.00; that is 2 invoices.", seen).is_empty());
        assert!(check("The difference is 270.", seen).is_empty());
        assert!(check("Revenue grew 8% to 4.2M.", "q3 revenue: $4.2m (up 8%).").is_empty());
        assert_eq!(check("Together they come to $2,999.00.", seen), ["2,999.00"]);
        // A computed fraction shown as a whole number is not the computed value.
        let days = "how many vacation days are left after 4?
vacation days: 13.5";
        assert_eq!(check("You have 10 vacation days left.", days), ["10"]);
        assert!(check("You have 9.5 vacation days left.", days).is_empty());
        assert!(check("You had about 14 days.", days).is_empty());
        // A number seen twice gives no 0 or 1 by itself, nor a tiny quotient 0.00 (Qwen's "The balance
        // is $0.00." from 2 / 7731, recovery bench `unrecoverable` at b9eb4d8).
        let twice =
            "what is the balance of account 7731?\nstep 2: the service is down.\n{\"account\":\"7731\"}";
        assert_eq!(check("The balance is $0.00.", twice), ["0.00"]);
        assert_eq!(check("The ratio is 1.00.", twice), ["1.00"]);
    }

    #[test]
    fn an_answer_states_a_results_values_or_a_sum_of_them() {
        let result = "inv-2025-014 (2025-06-30): $1,250.00\ninv-2025-009 (2025-03-31): $980.00";
        assert!(states_from("Your latest invoice is $1,250.00.", result, ""));
        assert!(states_from("They come to $2,230.00 together.", result, ""));
        assert!(states_from("It is INV-2025-014.", result, ""));
        assert!(!states_from("Paris: 18°C, light rain.", result, ""));
        assert!(!states_from("You have 2 invoices.", result, ""), "a small count is no value of the result");
        assert!(!states_from("The total of my latest invoice is 0.", result, ""));
    }

    #[test]
    fn quotes_need_most_of_their_words_seen() {
        let seen = "top technology headline: 'quantum chip passes 1,000 qubits'";
        assert!(check("The headline is 'Quantum chip passes 1,000 qubits' at Luigi's.", seen).is_empty());
        assert_eq!(
            check("The headline is \"Robots learn poetry quickly\".", seen),
            ["Robots learn poetry quickly"]
        );
    }
}
