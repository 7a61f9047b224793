//! The envelope renderers: any envelope, any budget; never over the budget, never empty from 20
//! chars on, and the XML well-formed (escaped) from `XML_MIN_BUDGET` on.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| keel_fuzz::cases::render(data));
