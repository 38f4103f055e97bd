//! The `memviz` binary: the library's CLI over the process's arguments.

fn main() -> std::process::ExitCode {
    // `memviz ... | head` closes the pipe early: end quietly as other Unix
    // tools do (Rust ignores SIGPIPE, so println! would panic instead).
    #[cfg(unix)]
    {
        extern "C" {
            fn signal(signum: i32, handler: usize) -> usize;
        }
        const SIGPIPE: i32 = 13;
        const SIG_DFL: usize = 0;
        // SAFETY: restoring the default action of one signal, before any thread starts.
        unsafe {
            signal(SIGPIPE, SIG_DFL);
        }
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::ExitCode::from(memviz_cli::main(&args))
}
