//! The `memviz` binary: the library's CLI over the process's arguments.

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::ExitCode::from(memviz_cli::main(&args))
}
