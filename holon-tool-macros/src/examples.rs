//! `example = r#"{...}"#` and `example_file = "path"`: input examples of a tool, checked
//! to be JSON here, and checked against the tool's schema and argument type when the
//! registry is built (the macro cannot see the schema).

// Compile-time I/O of the tool author's own crate: the example files a tool names.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Expr, ExprLit, Lit, LitStr, Meta};

use crate::errors::Errors;

/// Where an example comes from.
pub(crate) enum Example {
    /// `example = "..."`: one call's arguments, a JSON object.
    Literal(LitStr),
    /// `example_file = "path"`: a file of the crate, relative to its `Cargo.toml`,
    /// holding one example object or an array of them.
    File(LitStr),
}

impl Example {
    /// The JSON text of the example, as the tool's `input_examples` hands it out. A
    /// file is read with `include_str!`, so that editing it rebuilds the crate.
    pub(crate) fn source(&self) -> TokenStream {
        match self {
            Example::Literal(lit) => quote!(#lit),
            Example::File(path) => quote! {
                ::core::include_str!(::core::concat!(::core::env!("CARGO_MANIFEST_DIR"), "/", #path))
            },
        }
    }
}

/// Parses `example = ...` or `example_file = ...` (`key`); problems go to `errors`.
pub(crate) fn parse(meta: &Meta, key: &str, errors: &mut Errors) -> Option<Example> {
    let form = if key == "example" {
        "r#\"{\"path\": \"src/main.rs\"}\"#"
    } else {
        "\"examples/read_file.json\""
    };
    let value = match meta {
        Meta::NameValue(nv) => &nv.value,
        _ => {
            errors.at(meta, format!("expected `{key} = {form}`"));
            return None;
        }
    };
    let Expr::Lit(ExprLit {
        lit: Lit::Str(lit), ..
    }) = value
    else {
        let what = if key == "example" {
            "the JSON text of one call's arguments"
        } else {
            "the path of a JSON file, relative to the crate's Cargo.toml"
        };
        errors.at(
            value,
            format!("expected a string literal, {what}: `{key} = {form}`"),
        );
        return None;
    };
    if key == "example" {
        check_json(lit, &lit.value(), false, errors).then(|| Example::Literal(lit.clone()))
    } else {
        let text = read_file(lit, errors)?;
        check_json(lit, &text, true, errors).then(|| Example::File(lit.clone()))
    }
}

/// Reads an example file relative to the calling crate's directory.
fn read_file(path: &LitStr, errors: &mut Errors) -> Option<String> {
    let Ok(directory) = std::env::var("CARGO_MANIFEST_DIR") else {
        errors.at(
            path,
            "`example_file` needs Cargo: CARGO_MANIFEST_DIR is not set",
        );
        return None;
    };
    let full = std::path::Path::new(&directory).join(path.value());
    match std::fs::read_to_string(&full) {
        Ok(text) => Some(text),
        Err(error) => {
            let reason = match error.kind() {
                std::io::ErrorKind::NotFound => "there is no such file".to_string(),
                _ => error.to_string(),
            };
            errors.at(
                path,
                format!(
                    "cannot read the example file `{}` (relative to the directory of the crate's Cargo.toml): {reason}",
                    path.value()
                ),
            );
            None
        }
    }
}

/// Whether `text` is one example object, or (`several`) an array of them.
fn check_json(lit: &LitStr, text: &str, several: bool, errors: &mut Errors) -> bool {
    let value: serde_json::Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(error) => {
            errors.at(lit, format!("the example is not valid JSON: {error}"));
            return false;
        }
    };
    let objects = match &value {
        serde_json::Value::Object(_) => true,
        serde_json::Value::Array(items) if several => items.iter().all(|item| item.is_object()),
        _ => false,
    };
    if !objects {
        let expected = if several {
            "a JSON object (one call's arguments) or an array of them"
        } else {
            "a JSON object: one call's arguments"
        };
        errors.at(lit, format!("an example must be {expected}"));
    }
    objects
}
