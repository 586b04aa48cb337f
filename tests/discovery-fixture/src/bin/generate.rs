//! Prints generated source of the catalog's tools, for scripts/discovery-scale:
//! `generate annotated|handwritten` prints the catalog's tools, and
//! `generate annotated|handwritten TOOLS MODULES INDEX` the module INDEX (from 0) of
//! TOOLS tools over MODULES modules, the source of one crate of the scale fixture.

use holon_discovery_fixture::{CATALOG, generate};

const USAGE: &str = "usage: generate annotated|handwritten [TOOLS MODULES INDEX]";

fn number(text: &str, what: &str) -> usize {
    text.parse()
        .unwrap_or_else(|_| fail(&format!("{what} is a number, not `{text}`")))
}

fn fail(message: &str) -> ! {
    eprintln!("{message}\n{USAGE}");
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let entries = generate::parse_catalog(CATALOG);
    let modules = match &args[1.min(args.len())..] {
        [] => generate::catalog_modules(&entries),
        [tools, modules, index] => {
            let index = number(index, "INDEX");
            let mut all = generate::scale_modules(
                &entries,
                number(tools, "TOOLS"),
                number(modules, "MODULES"),
            );
            if index >= all.len() {
                fail(&format!("INDEX {index} is not under MODULES {}", all.len()));
            }
            vec![all.swap_remove(index)]
        }
        _ => fail("TOOLS, MODULES and INDEX go together"),
    };
    match args.first().map(String::as_str) {
        Some("annotated") => print!("{}", generate::annotated(&modules)),
        Some("handwritten") => print!("{}", generate::handwritten(&modules)),
        _ => fail("the first argument is annotated or handwritten"),
    }
}
