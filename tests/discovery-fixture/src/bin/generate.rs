//! Prints the generated source of the catalog's tools, for scripts/discovery-scale-build-cost:
//! `generate annotated|handwritten [TOOLS] [MODULES]` (the catalog itself when TOOLS is
//! not given).

use holon_discovery_fixture::{CATALOG, generate};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let entries = generate::parse_catalog(CATALOG);
    let modules = match (args.get(1), args.get(2)) {
        (Some(count), modules) => generate::scale_modules(
            &entries,
            count.parse().expect("TOOLS is a number"),
            modules.map_or(50, |m| m.parse().expect("MODULES is a number")),
        ),
        (None, _) => generate::catalog_modules(&entries),
    };
    match args.first().map(String::as_str) {
        Some("annotated") => print!("{}", generate::annotated(&modules)),
        Some("handwritten") => print!("{}", generate::handwritten(&modules)),
        _ => {
            eprintln!("usage: generate annotated|handwritten [TOOLS] [MODULES]");
            std::process::exit(2);
        }
    }
}
