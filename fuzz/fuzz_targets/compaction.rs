//! Prompt compaction: any history, any budget; the prompt fits the budget, or the fixed part alone
//! is too large and the need reported is enough.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| keel_fuzz::cases::compaction(data));
