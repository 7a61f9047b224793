//! Runs saved inputs through a target's body and prints how long each took:
//! `cargo run --release --example replay -- <target> <file>...` (from fuzz/).

use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let target = args.next().expect("usage: replay <target> <file>...");
    for file in args {
        let data = std::fs::read(&file).expect("readable input");
        let started = Instant::now();
        match target.as_str() {
            "step_parser" => keel_fuzz::cases::step_parser(&data),
            "schema" => keel_fuzz::cases::schema(&data),
            "render" => keel_fuzz::cases::render(&data),
            "compaction" => keel_fuzz::cases::compaction(&data),
            "worker_messages" => keel_fuzz::cases::worker_messages(&data),
            other => panic!("no target {other}"),
        }
        println!("{:>9.2} ms  {file}", started.elapsed().as_secs_f64() * 1000.0);
    }
}
