//! Schema compile and validate: a generated schema (or JSON text) and a value; never a panic,
//! every issue has a kind and a path, and each input takes less than the time bound.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| keel_fuzz::cases::schema(data));
