//! `#[derive(ToolArgs)]`: enforces the argument contract at compile time.
//!
//! A tool's arguments are a closed JSON object: a struct with named fields and
//! `#[serde(deny_unknown_fields)]`. A `#[serde(flatten)]` field's type must be
//! `ClosedInput` as any other field's: with `deny_unknown_fields` on both structs serde
//! refuses exactly what the fields declared directly refuse (a differential test over
//! generated inputs shows it).

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields};

use crate::attrs::{read_serde_attrs, read_tool_args_attrs};
use crate::crate_path;
use crate::errors::Errors;
use crate::naming::apply_rename_all;

pub(crate) fn expand(input: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    let mut errors = Errors::default();
    let fields = wire_field_names(&input, &mut errors);
    let krate = read_tool_args_attrs(&input.attrs, &mut errors);
    let core = crate_path::resolve(krate.as_ref(), &mut errors);

    let ident = &input.ident;
    let (impl_generics, type_generics, where_clause) = input.generics.split_for_impl();
    let borrowed = crate::closed_input::check_owned_and_one_name(&input, &mut errors);
    let closed = crate::closed_input::implementation(&input, &core, &mut errors);
    // A generic type (`Args<T>`) is tool arguments as each instantiation whose parts
    // parse, have a schema and are closed (`Args<u32>`): the supertraits are required
    // of the type itself, so that nothing is required of `T` here.
    let where_clause = if input.generics.params.is_empty() {
        quote!(#where_clause)
    } else {
        let existing = where_clause.map(|clause| {
            let predicates = clause.predicates.iter();
            quote!(#(#predicates,)*)
        });
        quote! {
            where
                #existing
                #ident #type_generics: #core::__private::serde::de::DeserializeOwned
                    + #core::__private::schemars::JsonSchema
                    + #core::ClosedInput,
        }
    };
    // The impl is emitted even on error so that the handler macro's `ToolArgs` check
    // does not add a second, less precise error; but not for a borrowing type, whose
    // impl would fail again, less clearly, at the handler's parameter.
    if borrowed {
        return errors
            .into_result()
            .err()
            .map(|error| error.to_compile_error())
            .unwrap_or_default();
    }
    let implementation = quote! {
        impl #impl_generics #core::ToolArgs for #ident #type_generics #where_clause {
            const FIELDS: &'static [&'static str] = &[#(#fields),*];
        }
        #closed
    };
    match errors.into_result() {
        Ok(()) => implementation,
        Err(error) => {
            let error = error.to_compile_error();
            quote!(#error #implementation)
        }
    }
}

fn wire_field_names(input: &DeriveInput, errors: &mut Errors) -> Vec<String> {
    let ident = &input.ident;
    let named = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => Some(named),
            Fields::Unnamed(fields) => {
                errors.at(
                    fields,
                    format!(
                        "`{ident}` cannot be a tool's arguments: they are a JSON object, so \
                         `#[derive(ToolArgs)]` needs a struct with named fields, not a tuple \
                         struct"
                    ),
                );
                None
            }
            Fields::Unit => {
                errors.at(
                    ident,
                    format!(
                        "`{ident}` cannot be a tool's arguments: they are a JSON object, so \
                         `#[derive(ToolArgs)]` needs a struct with named fields, not a unit \
                         struct; a tool without arguments simply takes no arguments parameter"
                    ),
                );
                None
            }
        },
        Data::Enum(data) => {
            errors.at(
                data.enum_token,
                format!(
                    "`{ident}` cannot be a tool's arguments: they are a JSON object, so \
                     `#[derive(ToolArgs)]` needs a struct with named fields, not an enum; \
                     put the enum in a field of a struct"
                ),
            );
            None
        }
        Data::Union(data) => {
            errors.at(
                data.union_token,
                "`#[derive(ToolArgs)]` needs a struct with named fields, not a union",
            );
            None
        }
    };

    let container = read_serde_attrs(&input.attrs, errors);
    if !container.deny_unknown_fields {
        errors.at(
            ident,
            format!(
                "`{ident}` needs `#[serde(deny_unknown_fields)]`: a tool must reject argument \
                 fields it does not know, or a model's misspelt field is silently ignored"
            ),
        );
    }

    let Some(named) = named else {
        return Vec::new();
    };
    let mut names = Vec::new();
    // The Rust name, wire name and rename of each field read so far.
    let mut seen: Vec<(String, String, Option<syn::LitStr>)> = Vec::new();
    for field in &named.named {
        let attrs = read_serde_attrs(&field.attrs, errors);
        // A flattened struct's fields are its own (it is `ClosedInput`, so it refuses
        // unknown fields as the outer struct does: `tests/tests/flatten_differential.rs`);
        // the schema names them for hints.
        if attrs.skip || attrs.flatten.is_some() {
            continue;
        }
        let Some(field_ident) = &field.ident else {
            continue;
        };
        let rust_name = field_ident.to_string();
        let rust_name = rust_name.trim_start_matches("r#");
        let wire = match (&attrs.rename, &container.rename_all) {
            (Some(rename), _) => rename.value(),
            (None, Some(rule)) => match apply_rename_all(&rule.value(), rust_name) {
                Some(renamed) => renamed,
                None => {
                    errors.at(rule, "unknown `rename_all` rule");
                    rust_name.to_string()
                }
            },
            (None, None) => rust_name.to_string(),
        };
        // Two fields under one wire name: serde fills only the first, and no call can
        // set the other (rustc only warns of an unreachable pattern).
        if let Some((other, _, other_rename)) = seen.iter().find(|(_, name, _)| *name == wire) {
            let message = format!(
                "the fields `{other}` and `{rust_name}` are both sent as `{wire}`: serde fills \
                 only the first, so no call can ever set `{rust_name}`; give them different \
                 names"
            );
            // At the rename that made them one.
            match attrs.rename.as_ref().or(other_rename.as_ref()) {
                Some(rename) => errors.at(rename, message),
                None => errors.at(field_ident, message),
            }
        }
        seen.push((rust_name.to_string(), wire.clone(), attrs.rename.clone()));
        names.push(wire);
    }
    names
}
