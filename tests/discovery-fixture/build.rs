//! Generates the fixture's tools from data/catalog.txt: the catalog, one tool per
//! line, in a module per domain (the scale fixture is written by scripts/discovery-scale,
//! a crate per module, outside the workspace).

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
}

#[allow(clippy::disallowed_methods)] // build scripts write OUT_DIR, outside any gate
fn write(path: &std::path::Path, text: &str) {
    std::fs::write(path, text).expect("OUT_DIR is writable");
}
