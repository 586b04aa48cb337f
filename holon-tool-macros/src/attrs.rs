//! What the derives read from `#[serde(...)]` and `#[tool_args(...)]` attributes.

use syn::meta::ParseNestedMeta;
use syn::{Attribute, LitStr, Token};

use crate::crate_path;
use crate::errors::Errors;

/// What the derive reads from the `#[serde(...)]` attributes of the struct or a field.
#[derive(Default)]
pub(crate) struct SerdeAttrs {
    pub(crate) deny_unknown_fields: bool,
    pub(crate) rename_all: Option<LitStr>,
    pub(crate) rename: Option<LitStr>,
    pub(crate) flatten: Option<proc_macro2::Span>,
    pub(crate) skip: bool,
    /// `alias = "..."`: a second wire name, which the schema cannot advertise.
    pub(crate) alias: Option<proc_macro2::Span>,
    /// `with`, `deserialize_with`, or on a container `from`, `try_from` or
    /// `transparent`: the JSON is not the Rust type's own fields.
    pub(crate) custom_wire: bool,
}

/// Reads `#[tool_args(crate = "facade::holon_core")]`, the path of `holon-core` for a
/// crate that reaches it through a facade (as `#[serde(crate = "...")]`).
pub(crate) fn read_tool_args_attrs(attrs: &[Attribute], errors: &mut Errors) -> Option<syn::Path> {
    let mut krate = None;
    for_each_tool_args(attrs, errors, |meta, errors| {
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
    krate
}

/// Whether a field is marked `#[tool_args(foreign)]`: its type is another crate's,
/// which cannot implement `ClosedInput`; the registry checks its schema instead.
pub(crate) fn is_foreign(field_attrs: &[Attribute], errors: &mut Errors) -> bool {
    let mut foreign = false;
    for_each_tool_args(field_attrs, errors, |meta, _| {
        if meta.path.is_ident("foreign") {
            foreign = true;
            Ok(())
        } else {
            Err(meta.error("unknown `tool_args` field option; expected `foreign`"))
        }
    });
    foreign
}

/// Calls `read` with each option of every `#[tool_args(...)]` in `attrs`.
fn for_each_tool_args(
    attrs: &[Attribute],
    errors: &mut Errors,
    mut read: impl FnMut(ParseNestedMeta<'_>, &mut Errors) -> syn::Result<()>,
) {
    for attr in attrs
        .iter()
        .filter(|attr| attr.path().is_ident("tool_args"))
    {
        let mut found = Vec::new();
        let result = attr.parse_nested_meta(|meta| {
            let mut inner = Errors::default();
            let outcome = read(meta, &mut inner);
            found.push(inner);
            outcome
        });
        for inner in found {
            if let Err(error) = inner.into_result() {
                errors.push(error);
            }
        }
        if let Err(error) = result {
            errors.push(error);
        }
    }
}

pub(crate) fn read_serde_attrs(attrs: &[Attribute], errors: &mut Errors) -> SerdeAttrs {
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
            } else if meta.path.is_ident("alias") {
                found.alias = meta.path.get_ident().map(proc_macro2::Ident::span);
                skip_value(&meta)?;
            } else if meta.path.is_ident("skip") || meta.path.is_ident("skip_deserializing") {
                found.skip = true;
            } else if ["with", "deserialize_with", "from", "try_from"]
                .iter()
                .any(|key| meta.path.is_ident(key))
            {
                found.custom_wire = true;
                skip_value(&meta)?;
            } else if meta.path.is_ident("transparent") {
                found.custom_wire = true;
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
