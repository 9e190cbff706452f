//! The `paces` command line.
fn main() {
    eprintln!("paces: no subcommand implemented yet");
    std::process::exit(2);
}
