//! The `holon-tools` command line.

fn main() -> std::process::ExitCode {
    holon_tools::cli::main()
}
