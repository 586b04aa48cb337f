//! The `holon-tools` command line.

// Links the discovery meta-tools, which `serve --discovery` serves (every other
// command leaves them out).
use holon_discovery as _;

fn main() -> std::process::ExitCode {
    // The process gate starts commands through this binary to set their limits.
    if let Some(code) = holon_runtime::process_gate::limits::helper_main() {
        return code;
    }
    holon_tools::cli::main()
}
