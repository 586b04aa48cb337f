//! Generates the fixture's tools from data/catalog.txt: the catalog (one tool per
//! line, in a module per domain) always, and with the `scale` feature 10,000 tools
//! over 50 modules.

#[path = "src/generate.rs"]
#[allow(dead_code)]
mod generate;

fn main() {
    println!("cargo::rerun-if-changed=data/catalog.txt");
    println!("cargo::rerun-if-changed=src/generate.rs");
    let text = include_str!("data/catalog.txt");
    let entries = generate::parse_catalog(text);
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let catalog = generate::annotated(&generate::catalog_modules(&entries));
    write(&out.join("catalog.rs"), &catalog);
    let scale = if std::env::var_os("CARGO_FEATURE_SCALE").is_some() {
        generate::annotated(&generate::scale_modules(
            &entries,
            SCALE_TOOLS,
            SCALE_MODULES,
        ))
    } else {
        String::new()
    };
    write(&out.join("scale.rs"), &scale);
}

/// Tools of the scale fixture.
const SCALE_TOOLS: usize = 10_000;
/// Modules they are spread over (each "a crate's worth").
const SCALE_MODULES: usize = 50;

#[allow(clippy::disallowed_methods)] // build scripts write OUT_DIR, outside any gate
fn write(path: &std::path::Path, text: &str) {
    std::fs::write(path, text).expect("OUT_DIR is writable");
}
