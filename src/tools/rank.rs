//! Lexical ranking of tools against a query (BM25 over each tool's name, description and argument
//! names), for offering a model only the tools relevant to its task when it has many.
//!
//! No model, no vocabulary: words are split at anything that is not a letter or digit and at
//! snake_case and camelCase boundaries (`getInvoice`, `get_invoice` → `get`, `invoice`), lowercased,
//! stripped of a plural `s`, and common English words are dropped. About a hundred lines instead of
//! the `bm25` crate, whose tokenizer brings stemmers and stop-word lists for many languages into the
//! wasm module (`bench/results/wasm-size.md`).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::ToolSpec;

/// BM25's term-frequency saturation.
const K1: f64 = 1.2;
/// BM25's length normalisation.
const B: f64 = 0.75;
/// How many times a tool's name counts against its description: the name is what the tool is.
const NAME_WEIGHT: usize = 2;

/// Words too common to tell tools apart.
const STOP_WORDS: [&str; 38] = [
    "an", "and", "are", "as", "at", "be", "by", "can", "do", "for", "from", "get", "give", "has", "have",
    "in", "is", "it", "its", "me", "my", "of", "on", "or", "our", "that", "the", "then", "this", "to", "was",
    "what", "when", "which", "will", "with", "you", "your",
];

/// The words of `text` as ranking compares them: split at non-alphanumerics and at case changes
/// (`HTTPServer` → `http`, `server`), lowercased, a plural `s` dropped, single letters and stop words left out.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            flush(&mut word, &mut out);
            continue;
        }
        let prev = i.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(i + 1).copied();
        let camel = c.is_uppercase() && prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit())
            || c.is_uppercase()
                && prev.is_some_and(char::is_uppercase)
                && next.is_some_and(char::is_lowercase);
        if camel {
            flush(&mut word, &mut out);
        }
        word.extend(c.to_lowercase());
    }
    flush(&mut word, &mut out);
    out
}

fn flush(word: &mut String, out: &mut Vec<String>) {
    let mut w = std::mem::take(word);
    if w.chars().count() > 3 && w.ends_with('s') && !w.ends_with("ss") {
        w.pop();
    }
    // One letter is the tail of a contraction or a possessive (`what's`, `user's`), not a word.
    if w.chars().count() > 1 && !STOP_WORDS.contains(&w.as_str()) {
        out.push(w);
    }
}

/// The words a tool is found by: its name (counted [`NAME_WEIGHT`] times), its description, and its
/// argument names (the top-level properties of its input schema).
fn document(tool: &ToolSpec) -> Vec<String> {
    let mut doc = Vec::new();
    for _ in 0..NAME_WEIGHT {
        doc.extend(words(&tool.name));
    }
    doc.extend(words(&tool.description));
    if let Some(Value::Object(properties)) = tool.input_schema.get("properties") {
        for name in properties.keys() {
            doc.extend(words(name));
        }
    }
    doc
}

/// What BM25 needs of a set of tools, worked out once (an agent's tools do not change): each
/// tool's words, how many tools hold each word, the average length.
#[derive(Debug, Clone)]
pub struct Index {
    docs: Vec<Vec<String>>,
    containing: BTreeMap<String, usize>,
    average: f64,
}

impl Index {
    /// The index of `tools`, in their order.
    pub fn new(tools: &[ToolSpec]) -> Index {
        let docs: Vec<Vec<String>> = tools.iter().map(document).collect();
        let average =
            (docs.iter().map(Vec::len).sum::<usize>() as f64 / (docs.len() as f64).max(1.0)).max(1.0);
        let mut containing: BTreeMap<String, usize> = BTreeMap::new();
        for doc in &docs {
            let mut counted = BTreeSet::new();
            for word in doc {
                if counted.insert(word) {
                    *containing.entry(word.clone()).or_default() += 1;
                }
            }
        }
        Index { docs, containing, average }
    }

    /// Each tool's BM25 score for `query`, in the order of the tools: 0 for a tool sharing no
    /// word with it. A query word counts once however often it occurs.
    pub fn scores(&self, query: &str) -> Vec<f64> {
        let n = self.docs.len() as f64;
        let mut distinct = BTreeSet::new();
        distinct.extend(words(query));
        let query = distinct;
        self.docs
            .iter()
            .map(|doc| {
                let length = doc.len() as f64;
                query
                    .iter()
                    .filter_map(|word| {
                        let tf = doc.iter().filter(|w| *w == word).count() as f64;
                        let df = *self.containing.get(word)? as f64;
                        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                        Some(idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * length / self.average)))
                    })
                    .sum()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn words_split_at_snake_and_camel_case_and_drop_plurals_and_stop_words() {
        assert_eq!(words("get_invoiceStatus"), ["invoice", "statu"]);
        assert_eq!(words("HTTPServer lists the Invoices"), ["http", "server", "list", "invoice"]);
        assert_eq!(words("send_email2Address"), ["send", "email2", "address"]);
        assert_eq!(words("class"), ["class"]);
    }

    #[test]
    fn the_tool_sharing_the_rarest_words_ranks_first() {
        let tool = |name: &str, description: &str, arg: &str| {
            ToolSpec::new(
                name,
                description,
                json!({"type": "object", "properties": {arg: {"type": "string"}}}),
            )
        };
        let tools = [
            tool("get_weather", "Current weather for a city.", "city"),
            tool("send_email", "Sends an e-mail.", "to"),
            tool("list_invoices", "Lists the user's invoices.", "status"),
            tool("pay_invoice", "Pays an invoice by id.", "invoiceId"),
        ];
        let s = Index::new(&tools).scores("Pay my latest invoice");
        assert!(s[3] > s[2] && s[2] > 0.0, "{s:?}");
        assert_eq!((s[0], s[1]), (0.0, 0.0));
        let s = Index::new(&tools).scores("What's the weather in Oslo?");
        assert!(s[0] > 0.0 && s[1..].iter().all(|x| *x == 0.0), "{s:?}");
    }
}
