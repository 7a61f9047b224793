//! Token estimation: how much of the model's context window a piece of text takes.
//!
//! The prompt is fitted to a budget before the backend ever sees it, so the count must never
//! fall short of the real one; overestimating only costs a little history.

use super::Message;

/// Tokens each message costs beyond its text: role markers and turn delimiters in the model's
/// chat template (Gemma's `<start_of_turn>user\n…<end_of_turn>\n` is about 4–5 tokens).
pub const MESSAGE_OVERHEAD_TOKENS: usize = 6;

/// Counts the tokens a text takes in the model's context window.
///
/// Backends that can measure (the Prompt API's `measureContextUsage`) implement it, or calibrate a
/// [`CharEstimate`]; everything else uses the estimate. Counts should grow with the text: the
/// compactor searches for cut points assuming they do (and checks the result anyway).
pub trait TokenCounter {
    /// The tokens `text` takes, without the per-message overhead.
    fn count(&self, text: &str) -> usize;

    /// Whether a text never counts more than the pieces it is cut into, counted apart: then a
    /// prompt whose pieces fit the budget fits whole, and is not counted again. The default,
    /// `false`, has every assembled prompt counted whole.
    fn subadditive(&self) -> bool {
        false
    }
}

/// Estimates tokens from the number of characters (Unicode scalar values, not bytes, so that
/// non-Latin text is not counted three or four times over), rounding up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CharEstimate {
    /// Characters per token. Must be positive; anything else is treated as 1 (the safest count).
    pub chars_per_token: f32,
}

impl CharEstimate {
    /// The default ratio, 3.5 characters per token. English prose runs about 4 per token in
    /// SentencePiece/BPE vocabularies, but prompts here are dominated by JSON (quotes, braces, ids,
    /// short keys), which tokenizes at roughly 2.5–3.5; erring low keeps the estimate above the real
    /// count so a fitted prompt does not overflow the window.
    pub const DEFAULT_CHARS_PER_TOKEN: f32 = 3.5;
}

impl Default for CharEstimate {
    fn default() -> Self {
        CharEstimate { chars_per_token: Self::DEFAULT_CHARS_PER_TOKEN }
    }
}

impl TokenCounter for CharEstimate {
    fn count(&self, text: &str) -> usize {
        let chars = text.chars().count();
        if chars == 0 {
            return 0;
        }
        let ratio = if self.chars_per_token.is_finite() && self.chars_per_token > 0.0 {
            f64::from(self.chars_per_token)
        } else {
            1.0
        };
        // f64 holds any realistic char count exactly; the cast back saturates.
        (chars as f64 / ratio).ceil() as usize
    }

    /// Characters add up, and rounding up the sum never exceeds the sum of the rounded parts.
    fn subadditive(&self) -> bool {
        true
    }
}

/// The tokens a list of messages takes: each message's text plus [`MESSAGE_OVERHEAD_TOKENS`].
/// This is the quantity [`super::build_messages`] keeps within its budget.
pub fn estimate(messages: &[Message], counter: &dyn TokenCounter) -> usize {
    messages.iter().fold(0usize, |sum, m| {
        sum.saturating_add(counter.count(&m.content)).saturating_add(MESSAGE_OVERHEAD_TOKENS)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Role;

    #[test]
    fn counts_chars_not_bytes_and_rounds_up() {
        let c = CharEstimate::default();
        assert_eq!(c.count(""), 0);
        assert_eq!(c.count("a"), 1);
        assert_eq!(c.count("abcdefg"), 2);
        assert_eq!(c.count("abcdefgh"), 3);
        // 7 chars, 21 bytes in UTF-8.
        assert_eq!(c.count("日本語のテキス"), 2);
    }

    #[test]
    fn a_bad_ratio_counts_one_token_per_char() {
        for ratio in [0.0, -2.0, f32::NAN, f32::INFINITY] {
            assert_eq!(CharEstimate { chars_per_token: ratio }.count("abcd"), 4);
        }
    }

    #[test]
    fn estimate_adds_the_overhead_per_message() {
        let c = CharEstimate { chars_per_token: 1.0 };
        let msgs = [Message::new(Role::System, "abc"), Message::new(Role::User, "")];
        assert_eq!(estimate(&msgs, &c), 3 + 2 * MESSAGE_OVERHEAD_TOKENS);
    }
}
