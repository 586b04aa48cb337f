//! [`link!`](crate::link): the one way to put a tool crate into a program. rustc links
//! a dependency only when the code names it, and a tool crate's tools register at link
//! time, so a crate that is listed in `Cargo.toml` but never named is silently absent.
//! `link!(my_tools)` names the crate (so it is linked) and records that the program
//! expects tools from it; [`Registry::try_global`](crate::Registry::try_global) refuses
//! to build when an expected crate contributed none.

use crate::tool::Tool;

/// A crate a program named with [`link!`](crate::link), and where it did.
#[derive(Debug)]
pub struct ExpectedToolCrate {
    /// The crate's name, as `module_path!()` starts in its own code.
    pub krate: &'static str,
    /// `file!()` of the `link!`.
    pub file: &'static str,
    /// `line!()` of the `link!`.
    pub line: u32,
}

impl ExpectedToolCrate {
    /// The expectation of `krate`, written at `file:line`.
    pub const fn new(krate: &'static str, file: &'static str, line: u32) -> Self {
        Self { krate, file, line }
    }
}

inventory::collect!(ExpectedToolCrate);

/// Every crate named with `link!` in this program.
pub fn expected_tool_crates() -> impl Iterator<Item = &'static ExpectedToolCrate> {
    inventory::iter::<ExpectedToolCrate>.into_iter()
}

/// The crate a tool was declared in: the first segment of its module path.
fn crate_of(tool: &dyn Tool) -> &'static str {
    let module = tool.meta().defined_at.module;
    module.split("::").next().unwrap_or(module)
}

/// One problem per expected crate that contributed no tool to `tools`.
pub(crate) fn unmet_expectations<'a>(
    expected: impl IntoIterator<Item = &'a ExpectedToolCrate>,
    tools: &[&'static dyn Tool],
) -> Vec<String> {
    let mut problems: Vec<String> = expected
        .into_iter()
        .filter(|expected| !tools.iter().any(|tool| crate_of(*tool) == expected.krate))
        .map(|expected| {
            format!(
                "`holon_core::link!({krate})` at {file}:{line} expects tools from the crate `{krate}`, and none of its tools is registered: declare at least one `#[holon_tool]` in `{krate}` (check its `cfg` and features), or remove it from `link!`; a dependency renamed in `Cargo.toml` is written `link!(alias as library_name)`",
                krate = expected.krate,
                file = expected.file,
                line = expected.line,
            )
        })
        .collect();
    problems.sort();
    problems.dedup();
    problems
}

/// Links the named tool crates into this program and expects tools from each.
///
/// A tool crate's tools reach [`Registry::global`](crate::Registry::global) only when
/// the crate is linked, and rustc links a dependency only when the code names it: a
/// crate listed in `Cargo.toml` and never named is silently missing, in debug and
/// release builds alike. Write `link!` once per program (in `main.rs`, or at the top
/// of a test file), at module level, for every tool crate it uses nothing else from:
///
/// ```ignore
/// holon_core::link!(my_tools, more_tools);
///
/// fn main() {
///     let registry = holon_core::Registry::global();
///     // ...
/// }
/// ```
///
/// It names each crate (so it is linked) and records the expectation: the registry
/// refuses to build, listing each crate that contributed no tool and the `link!` that
/// expected it, when one is linked but has no tool (a `cfg` or a feature left them
/// out). A dependency that `Cargo.toml` renames is written `link!(alias as library_name)`,
/// the library name being what `module_path!()` begins with in the crate's own code.
#[macro_export]
macro_rules! link {
    (@expect $krate:ident, $library:ident) => {
        const _: () = {
            #[allow(unused_imports)]
            use ::$krate as _;
            $crate::__private::inventory::submit! {
                $crate::__private::ExpectedToolCrate::new(
                    ::core::stringify!($library),
                    ::core::file!(),
                    ::core::line!(),
                )
            }
        };
    };
    () => {};
    ($krate:ident as $library:ident $(, $($rest:tt)*)?) => {
        $crate::link!(@expect $krate, $library);
        $($crate::link!($($rest)*);)?
    };
    ($krate:ident $(, $($rest:tt)*)?) => {
        $crate::link!(@expect $krate, $krate);
        $($crate::link!($($rest)*);)?
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_expected_crate_without_tools_is_one_problem_naming_the_link() {
        let expected = [
            ExpectedToolCrate::new("no_tools_here", "src/main.rs", 3),
            ExpectedToolCrate::new("no_tools_here", "src/main.rs", 3),
        ];
        let problems = unmet_expectations(&expected, &[]);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].starts_with("`holon_core::link!(no_tools_here)` at src/main.rs:3"),
            "{problems:?}"
        );
    }
}
