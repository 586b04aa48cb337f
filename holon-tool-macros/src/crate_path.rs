//! The path under which the calling crate reaches `holon-core`: the generated code
//! names everything through it, so that it works when the dependency is renamed
//! (`hc = { package = "holon-core", ... }`) or only reached through a facade crate
//! that re-exports it (`crate = facade::holon_core`). Finding a renamed dependency
//! reads the manifest (with `proc-macro-crate`, the `find-crate` feature); without
//! it the path is `::holon_core` unless `crate = ...` says otherwise.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{Expr, ExprLit, Lit, Path};

use crate::errors::Errors;

/// The path of `holon-core` for the crate being compiled: the `crate = ...` option
/// when given, else the name the crate's manifest gives the dependency (with the
/// `find-crate` feature) or `::holon_core` (without it).
pub(crate) fn resolve(explicit: Option<&Path>, errors: &mut Errors) -> TokenStream {
    match explicit {
        Some(path) => path.to_token_stream(),
        None => from_manifest(errors),
    }
}

/// `holon-core` under the name the calling crate's manifest gives it.
#[cfg(feature = "find-crate")]
fn from_manifest(errors: &mut Errors) -> TokenStream {
    use proc_macro_crate::{Error, FoundCrate, crate_name};
    use proc_macro2::Span;

    match crate_name("holon-core") {
        // `Itself` is holon-core's own doctests: they name it as an external crate.
        Ok(FoundCrate::Itself) => quote!(::holon_core),
        Ok(FoundCrate::Name(name)) => {
            let ident = syn::Ident::new(&name, Span::call_site());
            quote!(::#ident)
        }
        Err(Error::CrateNotFound { .. }) => {
            errors.at_span(
                Span::call_site(),
                "this crate does not depend on `holon-core`: add it to `[dependencies]`, or, \
                 when a crate of yours re-exports it, name that path with \
                 `crate = your_facade::holon_core`",
            );
            quote!(::holon_core)
        }
        // A manifest that cannot be read: leave it to the build to say so.
        Err(_) => quote!(::holon_core),
    }
}

/// Without the `find-crate` feature: the crate's own name.
#[cfg(not(feature = "find-crate"))]
fn from_manifest(_errors: &mut Errors) -> TokenStream {
    quote!(::holon_core)
}

/// Parses the value of a `crate = ...` option: a path, or a string holding one as in
/// `#[serde(crate = "...")]`.
pub(crate) fn parse_value(expr: &Expr, errors: &mut Errors) -> Option<Path> {
    match expr {
        Expr::Path(path) if path.qself.is_none() => Some(path.path.clone()),
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => match lit.parse::<Path>() {
            Ok(path) => Some(path),
            Err(_) => {
                errors.at(
                    lit,
                    "expected the path of the crate, e.g. `crate = \"facade::holon_core\"`",
                );
                None
            }
        },
        other => {
            errors.at(
                other,
                "expected the path of the crate, e.g. `crate = facade::holon_core`",
            );
            None
        }
    }
}
