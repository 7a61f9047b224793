//! The step parser and its repairs over any text a model could write: never a panic, always a
//! step or a precise format error, within the time bound.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| keel_fuzz::cases::step_parser(data));
