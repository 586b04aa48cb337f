//! `holon-tools list`: a table of the tools.

use holon_core::Registry;

use holon_tools::plane_of;

/// The table: name, family, plane, stability, visibility; runtime-only tools only
/// with `all`.
pub(crate) fn table(registry: &Registry, all: bool) -> String {
    let mut rows = vec![[
        "NAME".to_string(),
        "FAMILY".to_string(),
        "PLANE".to_string(),
        "STABILITY".to_string(),
        "VISIBILITY".to_string(),
    ]];
    for definition in registry
        .definitions()
        .filter(|definition| all || definition.is_model_facing())
    {
        rows.push([
            definition.name().to_string(),
            definition.family.as_str().to_string(),
            plane_of(definition).to_string(),
            definition.stability.as_str().to_string(),
            definition.visibility.as_str().to_string(),
        ]);
    }
    let mut widths = [0usize; 5];
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.len());
        }
    }
    let mut out = String::new();
    for row in &rows {
        let line: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}
