//! `#[derive(ClosedInput)]`, and the `ClosedInput` impl `#[derive(ToolArgs)]` emits:
//! a type whose JSON rejects unknown fields at every depth. The impl requires each
//! field's type to be `ClosedInput` too, spanned at that type, so a nested struct
//! without `#[serde(deny_unknown_fields)]` is a compile error at the field using it.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Field, Fields, Type};

use crate::attrs::{is_foreign, read_serde_attrs, read_tool_args_attrs};
use crate::crate_path;
use crate::errors::Errors;

/// `#[derive(ClosedInput)]` on a struct or enum nested in tool arguments.
pub(crate) fn expand(input: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    let mut errors = Errors::default();
    let krate = read_tool_args_attrs(&input.attrs, &mut errors);
    let core = crate_path::resolve(krate.as_ref(), &mut errors);
    check_closed(&input, &mut errors);
    check_owned_and_one_name(&input, &mut errors);
    // Emitted even on error, so that the types using this one get no second error.
    let implementation = implementation(&input, &core, &mut errors);
    match errors.into_result() {
        Ok(()) => implementation,
        Err(error) => {
            let error = error.to_compile_error();
            quote!(#error #implementation)
        }
    }
}

/// The message of a `#[serde(alias)]` in tool arguments.
const ALIAS: &str = "`#[serde(alias)]` is not allowed in tool arguments: the schema advertises one \
     name per field and the dispatcher refuses any other name before serde reads it, so the \
     alias would never be accepted; keep one name (`#[serde(rename = \"...\")]`), and for an \
     old tool name use `aliases = [...]` on `#[holon_tool]`";

/// Refuses what tool arguments cannot be, in a struct or an enum: a borrowed field
/// (arguments are owned, parsed from an input that is gone when the handler runs) and
/// a `#[serde(alias)]` (a second name the schema cannot advertise).
///
/// Returns whether the type borrows (then no `ToolArgs` impl can hold for it).
pub(crate) fn check_owned_and_one_name(input: &DeriveInput, errors: &mut Errors) -> bool {
    let ident = &input.ident;
    let fields: Vec<&Field> = match &input.data {
        Data::Struct(data) => data.fields.iter().collect(),
        Data::Enum(data) => {
            for variant in &data.variants {
                if let Some(span) = read_serde_attrs(&variant.attrs, errors).alias {
                    errors.at_span(span, ALIAS);
                }
            }
            data.variants.iter().flat_map(|v| v.fields.iter()).collect()
        }
        Data::Union(_) => Vec::new(),
    };
    let mut borrowed = false;
    for field in fields {
        let attrs = read_serde_attrs(&field.attrs, errors);
        if let Some(span) = attrs.alias {
            errors.at_span(span, ALIAS);
        }
        if let Some(reference) = first_reference(&field.ty) {
            borrowed = true;
            errors.at(
                reference,
                format!(
                    "`{ident}` cannot borrow from the input: tool arguments are owned, parsed from \
                     an input that is gone when the handler runs; use an owned type (`String` \
                     for `&str`, `Vec<T>` for `&[T]`)"
                ),
            );
        }
    }
    if !borrowed && let Some(lifetime) = input.generics.lifetimes().next() {
        errors.at(
            lifetime,
            format!(
                "`{ident}` cannot have a lifetime: tool arguments are owned, parsed from an \
                 input that is gone when the handler runs; use owned field types (`String` for \
                 `&str`)"
            ),
        );
        borrowed = true;
    }
    borrowed
}

/// The first reference type in `ty` (`&'a str`, `Option<&'a str>`, `Cow` is owned enough).
fn first_reference(ty: &Type) -> Option<&syn::TypeReference> {
    match ty {
        Type::Reference(reference) => Some(reference),
        Type::Paren(inner) => first_reference(&inner.elem),
        Type::Group(inner) => first_reference(&inner.elem),
        Type::Array(inner) => first_reference(&inner.elem),
        Type::Slice(inner) => first_reference(&inner.elem),
        Type::Tuple(tuple) => tuple.elems.iter().find_map(first_reference),
        Type::Path(path) => {
            path.path
                .segments
                .iter()
                .find_map(|segment| match &segment.arguments {
                    syn::PathArguments::AngleBracketed(arguments) => {
                        arguments.args.iter().find_map(|argument| match argument {
                            syn::GenericArgument::Type(ty) => first_reference(ty),
                            _ => None,
                        })
                    }
                    _ => None,
                })
        }
        _ => None,
    }
}

/// Refuses a type whose JSON object form accepts unknown fields.
fn check_closed(input: &DeriveInput, errors: &mut Errors) {
    let ident = &input.ident;
    let container = read_serde_attrs(&input.attrs, errors);
    let has_named_fields = match &input.data {
        Data::Struct(data) => matches!(data.fields, Fields::Named(_)),
        Data::Enum(data) => data
            .variants
            .iter()
            .any(|variant| matches!(variant.fields, Fields::Named(_))),
        Data::Union(data) => {
            errors.at(
                data.union_token,
                "`#[derive(ClosedInput)]` needs a struct or an enum, not a union",
            );
            return;
        }
    };
    if has_named_fields && !container.deny_unknown_fields && !container.custom_wire {
        errors.at(
            ident,
            format!(
                "`{ident}` needs `#[serde(deny_unknown_fields)]`: it is nested in tool arguments, \
                 and a tool must reject fields it does not know at every depth, or a model's \
                 misspelt field is silently ignored"
            ),
        );
    }
}

/// The `ClosedInput` impl of `input`, with a bound on the type of every field that
/// serde deserializes as itself.
pub(crate) fn implementation(
    input: &DeriveInput,
    core: &TokenStream,
    errors: &mut Errors,
) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, type_generics, where_clause) = input.generics.split_for_impl();
    let container = read_serde_attrs(&input.attrs, errors);
    let mut bounded: Vec<&Type> = Vec::new();
    if !container.custom_wire {
        let fields: Vec<&Field> = match &input.data {
            Data::Struct(data) => data.fields.iter().collect(),
            Data::Enum(data) => data.variants.iter().flat_map(|v| v.fields.iter()).collect(),
            Data::Union(_) => Vec::new(),
        };
        for field in fields {
            let attrs = read_serde_attrs(&field.attrs, errors);
            // A flattened field is refused by `ToolArgs` already.
            // A borrowed field is refused by `check_owned_and_one_name` already; a
            // flattened one must be closed as any other.
            let bound = !attrs.skip && !attrs.custom_wire && first_reference(&field.ty).is_none();
            if !is_foreign(&field.attrs, errors) && bound {
                bounded.push(&field.ty);
            }
        }
    }
    let bound = |ty: &Type| quote_spanned!(ty.span()=> #ty: #core::ClosedInput);
    if input.generics.params.is_empty() {
        // A concrete type: one check per field type, spanned at it, so that a missing
        // impl reads as the trait's own message at the field.
        let checks = bounded
            .iter()
            .map(|ty| quote_spanned!(ty.span()=> __holon_closed::<#ty>();));
        quote! {
            impl #core::ClosedInput for #ident {}
            const _: () = {
                fn __holon_closed<T: ?::core::marker::Sized + #core::ClosedInput>() {}
                #[allow(dead_code)]
                fn __holon_fields_are_closed() {
                    #(#checks)*
                }
            };
        }
    } else {
        let predicates = bounded.iter().map(|ty| bound(ty));
        let existing = where_clause.map(|clause| {
            let predicates = clause.predicates.iter();
            quote!(#(#predicates,)*)
        });
        quote! {
            impl #impl_generics #core::ClosedInput for #ident #type_generics
            where
                #existing
                #(#predicates,)*
            {}
        }
    }
}
