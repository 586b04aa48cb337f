//! Rust source for the tools of `data/catalog.txt`, declared with `#[holon_tool]` or
//! written by hand (serde + schemars + a `match` dispatcher). Used by build.rs (the
//! fixture's own tools) and by the `generate` binary (scripts/discovery-scale, which
//! writes the scale fixture as a crate per generated module). Standard library only,
//! since build.rs uses it too.

use std::fmt::Write;

/// One field of a catalog tool.
pub struct Field {
    /// The field name.
    pub name: String,
    /// `string`, `integer`, `number`, `boolean` or `enum(a,b,...)`.
    pub ty: String,
    /// The field's description.
    pub description: String,
}

/// One tool of the catalog.
pub struct Entry {
    /// PascalCase tool name.
    pub name: String,
    /// Capability family, snake_case.
    pub family: String,
    /// The domain module it belongs to.
    pub module: String,
    /// Model-visible description.
    pub description: String,
    /// Its arguments.
    pub fields: Vec<Field>,
}

/// The catalog's entries, in file order.
pub fn parse_catalog(text: &str) -> Vec<Entry> {
    text.lines()
        .filter(|line| !line.starts_with('#') && line.contains('|'))
        .map(|line| {
            let parts: Vec<&str> = line.split('|').map(str::trim).collect();
            let fields = parts
                .get(4)
                .unwrap_or(&"")
                .split("; ")
                .map(str::trim)
                .filter(|field| !field.is_empty())
                .map(|field| {
                    let mut pieces = field.splitn(3, ':');
                    Field {
                        name: pieces.next().unwrap_or_default().to_string(),
                        ty: pieces.next().unwrap_or_default().to_string(),
                        description: pieces.next().unwrap_or_default().to_string(),
                    }
                })
                .collect();
            Entry {
                name: parts[0].to_string(),
                family: parts[1].to_string(),
                module: parts[2].to_string(),
                description: parts[3].to_string(),
                fields,
            }
        })
        .collect()
}

/// One tool to generate: an entry under a name and description of its own.
pub struct Instance<'a> {
    /// The catalog entry.
    pub entry: &'a Entry,
    /// The tool's name.
    pub name: String,
    /// The tool's description.
    pub description: String,
}

/// The catalog's tools, each once, grouped by domain module.
pub fn catalog_modules(entries: &[Entry]) -> Vec<(String, Vec<Instance<'_>>)> {
    let mut modules: Vec<(String, Vec<Instance<'_>>)> = Vec::new();
    for entry in entries {
        let instance = Instance {
            entry,
            name: entry.name.clone(),
            description: entry.description.clone(),
        };
        match modules.iter_mut().find(|(name, _)| *name == entry.module) {
            Some((_, tools)) => tools.push(instance),
            None => modules.push((entry.module.clone(), vec![instance])),
        }
    }
    modules
}

/// What the library name of every crate of the scale fixture begins with: module `N`
/// of [`scale_modules`] is crate `holon_scale_NN` (scripts/discovery-scale names them).
pub const SCALE_CRATE_PREFIX: &str = "holon_scale_";

/// `count` tools over `module_count` modules, cycling through the catalog: each a
/// catalog tool under a name and description of its own.
pub fn scale_modules(
    entries: &[Entry],
    count: usize,
    module_count: usize,
) -> Vec<(String, Vec<Instance<'_>>)> {
    let per_module = count.div_ceil(module_count);
    (0..module_count)
        .map(|m| {
            let tools = (0..per_module)
                .map(|i| m * per_module + i)
                .filter(|n| *n < count)
                .map(|n| {
                    let entry = &entries[n % entries.len()];
                    Instance {
                        entry,
                        name: format!("{}{m:02}x{:03}", entry.name, n % per_module),
                        description: format!(
                            "{} Served by the {} service, instance {m}.",
                            entry.description, entry.module
                        ),
                    }
                })
                .collect();
            (
                format!("{}_{m:02}", entries[m % entries.len()].module),
                tools,
            )
        })
        .collect()
}

const KEYWORDS: &[&str] = &[
    "ref", "type", "match", "in", "fn", "loop", "move", "use", "mod", "where",
];

fn ident(name: &str) -> String {
    if KEYWORDS.contains(&name) {
        format!("r#{name}")
    } else {
        name.to_string()
    }
}

fn pascal(text: &str) -> String {
    text.split(['_', '-'])
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

fn family_variant(family: &str) -> String {
    pascal(family)
}

/// The argument types of one tool: its struct and an enum per enum field.
fn argument_types(out: &mut String, tool: &Instance<'_>, derives: &str, enum_derives: &str) {
    let args = format!("{}Args", tool.name);
    for field in &tool.entry.fields {
        if let Some(values) = field
            .ty
            .strip_prefix("enum(")
            .and_then(|v| v.strip_suffix(')'))
        {
            let _ = writeln!(out, "/// {}", field.description);
            let _ = writeln!(out, "#[derive(Debug, {enum_derives})]");
            let _ = writeln!(out, "pub enum {}{} {{", tool.name, pascal(&field.name));
            for value in values.split(',') {
                let _ = writeln!(out, "    /// `{value}`.");
                let _ = writeln!(out, "    #[serde(rename = \"{value}\")]");
                let _ = writeln!(out, "    {},", pascal(value));
            }
            let _ = writeln!(out, "}}");
        }
    }
    let _ = writeln!(out, "/// Arguments of {}.", tool.name);
    let _ = writeln!(out, "#[derive(Debug, {derives})]");
    let _ = writeln!(out, "#[serde(deny_unknown_fields)]");
    let _ = writeln!(out, "pub struct {args} {{");
    for (i, field) in tool.entry.fields.iter().enumerate() {
        let ty = match field.ty.as_str() {
            "integer" => "i64".to_string(),
            "number" => "f64".to_string(),
            "boolean" => "bool".to_string(),
            "string" => "String".to_string(),
            _ => format!("{}{}", tool.name, pascal(&field.name)),
        };
        let _ = writeln!(out, "    /// {}", field.description);
        // The first field is required, the others optional.
        if i == 0 {
            let _ = writeln!(out, "    pub {}: {ty},", ident(&field.name));
        } else {
            let _ = writeln!(out, "    #[serde(default)]");
            let _ = writeln!(out, "    pub {}: Option<{ty}>,", ident(&field.name));
        }
    }
    let _ = writeln!(out, "}}");
}

/// The tools declared with `#[holon_tool]`, one module per group.
pub fn annotated(modules: &[(String, Vec<Instance<'_>>)]) -> String {
    let mut out = String::new();
    for (module, tools) in modules {
        let _ = writeln!(out, "/// The {module} tools.");
        let _ = writeln!(out, "pub mod {module} {{");
        let _ = writeln!(out, "use holon_core::prelude::*;");
        for tool in tools {
            argument_types(
                &mut out,
                tool,
                "Deserialize, JsonSchema, ToolArgs",
                "Deserialize, JsonSchema, ClosedInput",
            );
            let _ = writeln!(out, "/// {}", tool.description);
            let _ = writeln!(
                out,
                "#[holon_tool(family = {}, name = \"{}\")]",
                family_variant(&tool.entry.family),
                tool.name
            );
            let _ = writeln!(
                out,
                "pub fn {}(args: {}Args) -> String {{ format!(\"{{args:?}}\") }}",
                snake(&tool.name),
                tool.name
            );
        }
        let _ = writeln!(out, "}}");
    }
    out
}

/// The same tools written by hand: argument types with serde and schemars, a list of
/// definitions and a `match` dispatcher.
pub fn handwritten(modules: &[(String, Vec<Instance<'_>>)]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "use schemars::schema_for;");
    let _ = writeln!(out, "use serde_json::Value;");
    let _ = writeln!(out, "/// A tool as a model sees it.");
    let _ = writeln!(
        out,
        "pub struct Definition {{ pub name: &'static str, pub family: &'static str, pub description: &'static str, pub input_schema: Value }}"
    );
    for (module, tools) in modules {
        let _ = writeln!(out, "/// The {module} tools.");
        let _ = writeln!(out, "pub mod {module} {{");
        let _ = writeln!(out, "use schemars::JsonSchema;");
        let _ = writeln!(out, "use serde::Deserialize;");
        for tool in tools {
            argument_types(
                &mut out,
                tool,
                "Deserialize, JsonSchema",
                "Deserialize, JsonSchema",
            );
            let _ = writeln!(out, "/// {}", tool.description);
            let _ = writeln!(
                out,
                "pub fn {}(args: {}Args) -> String {{ format!(\"{{args:?}}\") }}",
                snake(&tool.name),
                tool.name
            );
        }
        let _ = writeln!(out, "}}");
    }
    let _ = writeln!(out, "/// Every tool's definition.");
    let _ = writeln!(out, "pub fn definitions() -> Vec<Definition> {{ vec![");
    for (module, tools) in modules {
        for tool in tools {
            let _ = writeln!(
                out,
                "Definition {{ name: \"{}\", family: \"{}\", description: {:?}, input_schema: schema_for!({module}::{}Args).to_value() }},",
                tool.name, tool.entry.family, tool.description, tool.name
            );
        }
    }
    let _ = writeln!(out, "] }}");
    let _ = writeln!(out, "/// Calls the tool `name` with JSON arguments.");
    let _ = writeln!(
        out,
        "pub fn dispatch(name: &str, input: Value) -> Result<String, String> {{ match name {{"
    );
    for (module, tools) in modules {
        for tool in tools {
            let _ = writeln!(
                out,
                "\"{}\" => {{ let args: {module}::{}Args = serde_json::from_value(input).map_err(|e| e.to_string())?; Ok({module}::{}(args)) }}",
                tool.name,
                tool.name,
                snake(&tool.name)
            );
        }
    }
    let _ = writeln!(
        out,
        "other => Err(format!(\"unknown tool {{other}}\")), }} }}"
    );
    out
}
