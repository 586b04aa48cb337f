//! `serve --discovery`: tools/list shows the discovery meta-tools (SearchTools,
//! DescribeTool, which the binary links from holon-discovery) and the `--pin` tools;
//! every built-in tool stays callable by name, and the model finds the rest with
//! SearchTools.
//!
//! The library uses nothing of holon-discovery, not even a constant: that would link
//! its meta-tools, and so register them, into every program that links this library.
//! The binary links them and hands the library what puts their state in a call's
//! context ([`super::main_with_discovery`]).

use std::sync::OnceLock;

use holon_core::{Registry, ToolContext, closest};

/// What puts the meta-tools' state (the registry they search) in a call's context.
pub type DiscoveryState = fn(ToolContext, &'static Registry) -> ToolContext;

/// Set by the binary, which links the meta-tools.
pub(super) static STATE: OnceLock<DiscoveryState> = OnceLock::new();

/// The crate that declares the meta-tools (the module path they are declared in).
const META_TOOLS_CRATE: &str = "holon_discovery";

/// Whether the tool declared in `module` is one of the meta-tools.
pub(super) fn is_meta_tool(module: &str) -> bool {
    module.split("::").next() == Some(META_TOOLS_CRATE)
}

/// The tools `serve --discovery` lists: the meta-tools and the pinned ones.
#[derive(Debug, Clone)]
pub(super) struct Listed {
    meta_tools: Vec<String>,
    pinned: Vec<String>,
}

impl Listed {
    /// Whether tools/list shows the tool `name`.
    pub(super) fn shows(&self, name: &str) -> bool {
        self.meta_tools
            .iter()
            .chain(&self.pinned)
            .any(|listed| listed == name)
    }
}

/// The registry `serve --discovery` serves (the built-in tools and the meta-tools) and
/// what it lists. An error names a pinned tool that is not a built-in tool.
pub(super) fn discovery(
    built_in: &Registry,
    pinned: &[String],
) -> Result<(&'static Registry, Listed), String> {
    let served = Registry::try_global().map_err(|error| error.to_string())?;
    let meta_tools: Vec<String> = served
        .definitions()
        .filter(|definition| is_meta_tool(definition.defined_at.module))
        .map(|definition| definition.spec.name.to_string())
        .collect();
    if STATE.get().is_none() || meta_tools.is_empty() {
        return Err("this holon-tools was built without the discovery meta-tools".to_string());
    }
    let mut names = Vec::with_capacity(pinned.len());
    for name in pinned {
        let Some(definition) = built_in.get(name) else {
            let hint = closest(name, built_in.definitions().map(|d| &*d.spec.name))
                .map(|best| format!("; did you mean `{best}`?"))
                .unwrap_or_default();
            return Err(format!(
                "--pin {name}: no built-in tool is named `{name}`{hint} (`holon-tools list` lists them)"
            ));
        };
        names.push(definition.spec.name.to_string());
    }
    Ok((
        served,
        Listed {
            meta_tools,
            pinned: names,
        },
    ))
}

/// `context` with what the meta-tools search and describe: the served registry.
pub(super) fn context(context: ToolContext, served: &'static Registry) -> ToolContext {
    match STATE.get() {
        Some(state) => state(context, served),
        None => context,
    }
}
