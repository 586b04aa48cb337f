//! The `holon-tools` command line.

use holon_core::{Registry, ToolContext};
use holon_discovery::Discovery;
use holon_export::Provider;

/// The discovery meta-tools' state, which links them into this binary: `serve
/// --discovery` serves them (every other command leaves them out).
fn discovery_state(context: ToolContext, served: &'static Registry) -> ToolContext {
    context.with_state(Discovery::new_static(served, Provider::Mcp))
}

fn main() -> std::process::ExitCode {
    // The process gate starts commands through this binary to set their limits.
    if let Some(code) = holon_gates::process::limits::helper_main() {
        return code;
    }
    holon_cli::main_with_discovery(discovery_state)
}
