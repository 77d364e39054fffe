//! The `chessgold` command: see `chessgold --help`.

fn main() -> std::process::ExitCode {
    chessgold::cli::run()
}
