//! The naive baseline: `Error: <message>` on one line, as most agent loops feed a failure back
//! (prompt-chain's `Tool 'x' failed because: ${err.message}`). It exists so benchmarks can show
//! what the envelope buys; it is not meant for production prompts.

use super::clean;
use crate::errors::Envelope;
use crate::text::clip;

/// `Error: <message>`, cut to `budget` chars.
pub(super) fn render(e: &Envelope, budget: usize) -> String {
    clip(&format!("Error: {}", clean(e.message.trim())), budget)
}
