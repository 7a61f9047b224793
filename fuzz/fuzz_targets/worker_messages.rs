//! The worker's message decoding, end to end: lines of text handed to a built worker as page
//! messages. Never a panic; and no request is lost: every `ping`, `query` and `unfinishedRuns`
//! with an id gets its answer, and an unreadable `init` or `run` its failure.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| keel_fuzz::cases::worker_messages(data));
