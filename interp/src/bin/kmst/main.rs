//! The `kmst` command-line program.
#![forbid(unsafe_code)]

fn main() {
    eprintln!("kmst: not yet");
    std::process::exit(2);
}
