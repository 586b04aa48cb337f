//! `#[derive(ToolArgs)]`: enforces the argument contract at compile time.
//!
//! A tool's arguments are a closed JSON object: a struct with named fields and
//! `#[serde(deny_unknown_fields)]`. `#[serde(flatten)]` is refused because serde lets
//! unknown fields through a flattened struct even with `deny_unknown_fields`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, Data, DeriveInput, Fields, LitStr, Token};

use crate::crate_path;
use crate::errors::Errors;
use crate::naming::apply_rename_all;

/// What the derive reads from the `#[serde(...)]` attributes of the struct or a field.
#[derive(Default)]
struct SerdeAttrs {
    deny_unknown_fields: bool,
    rename_all: Option<LitStr>,
    rename: Option<LitStr>,
    flatten: Option<proc_macro2::Span>,
    skip: bool,
}

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
    // The impl is emitted even on error so that the handler macro's `ToolArgs` check
    // does not add a second, less precise error.
    let implementation = quote! {
        impl #impl_generics #core::ToolArgs for #ident #type_generics #where_clause {
            const FIELDS: &'static [&'static str] = &[#(#fields),*];
        }
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
    for field in &named.named {
        let attrs = read_serde_attrs(&field.attrs, errors);
        if let Some(span) = attrs.flatten {
            errors.at_span(
                span,
                "`#[serde(flatten)]` is not allowed in tool arguments: serde does not reject \
                 unknown fields through a flattened struct; declare the fields directly",
            );
        }
        if attrs.skip {
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
        names.push(wire);
    }
    names
}

/// Reads `#[tool_args(crate = "facade::holon_core")]`, the path of `holon-core` for a
/// crate that reaches it through a facade (as `#[serde(crate = "...")]`).
fn read_tool_args_attrs(attrs: &[Attribute], errors: &mut Errors) -> Option<syn::Path> {
    let mut krate = None;
    for attr in attrs
        .iter()
        .filter(|attr| attr.path().is_ident("tool_args"))
    {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                let value: syn::Expr = meta.value()?.parse()?;
                if krate.is_some() {
                    errors.at(&meta.path, "duplicate option `crate`: give it once");
                }
                krate = crate_path::parse_value(&value, errors).or(krate.take());
                Ok(())
            } else {
                Err(meta.error("unknown `tool_args` option; expected `crate = \"path\"`"))
            }
        });
        if let Err(error) = result {
            errors.push(error);
        }
    }
    krate
}

fn read_serde_attrs(attrs: &[Attribute], errors: &mut Errors) -> SerdeAttrs {
    let mut found = SerdeAttrs::default();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("serde")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("deny_unknown_fields") {
                found.deny_unknown_fields = true;
            } else if meta.path.is_ident("flatten") {
                found.flatten = Some(
                    meta.path
                        .get_ident()
                        .map_or_else(proc_macro2::Span::call_site, proc_macro2::Ident::span),
                );
            } else if meta.path.is_ident("skip") || meta.path.is_ident("skip_deserializing") {
                found.skip = true;
            } else if meta.path.is_ident("rename_all") && meta.input.peek(Token![=]) {
                found.rename_all = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("rename") && meta.input.peek(Token![=]) {
                found.rename = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("rename") || meta.path.is_ident("rename_all") {
                // `rename(deserialize = "...")`: the deserialize name is the wire name.
                let mut deserialize_name = None;
                meta.parse_nested_meta(|inner| {
                    if inner.path.is_ident("deserialize") {
                        deserialize_name = Some(inner.value()?.parse::<LitStr>()?);
                    } else {
                        skip_value(&inner)?;
                    }
                    Ok(())
                })?;
                if meta.path.is_ident("rename") {
                    found.rename = deserialize_name.or(found.rename.take());
                } else {
                    found.rename_all = deserialize_name.or(found.rename_all.take());
                }
            } else {
                skip_value(&meta)?;
            }
            Ok(())
        });
        if let Err(error) = result {
            errors.push(error);
        }
    }
    found
}

/// Consumes the value of a serde option this derive does not need (`default`,
/// `bound(...)`, `with = "..."`, ...).
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip_value(&inner))?;
    }
    Ok(())
}
