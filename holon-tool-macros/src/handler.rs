//! `#[holon_tool]`: validates the handler and its options, then emits the hidden tool
//! type, its `holon_core::Tool` impl and the link-time registration.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{
    Expr, ExprLit, FnArg, GenericArgument, Ident, Item, ItemFn, Lit, Meta, PathArguments,
    ReturnType, TraitItemFn, Type,
};

use crate::crate_path;
use crate::naming::pascal_case;
use crate::options::{self, DescriptionSource, Errors, ToolOptions};

/// One parameter of the handler, classified.
enum Param {
    /// The arguments, by value.
    Arguments(Type),
    /// `&ToolContext`.
    Context,
    /// `&T`, a state value the host put into the context.
    State(Type),
}

/// The handler's return type, split into the success type and, for a `Result`, the
/// error type (`None` inside when it is not written, as in `io::Result<T>`).
struct Output {
    success: Type,
    error: Option<Option<Type>>,
}

/// Everything validated about the handler function.
struct Handler {
    function: ItemFn,
    params: Vec<Param>,
    output: Output,
    doc: Option<String>,
}

pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let options = options::parse(attr, &mut errors);
    let core = crate_path::resolve(options.krate.as_ref(), &mut errors);
    let function: ItemFn = match syn::parse2(item.clone()) {
        Ok(function) => function,
        Err(_) => {
            not_a_function(&item, &mut errors);
            let error = errors.into_result().err().map(|e| e.to_compile_error());
            return quote!(#error #item);
        }
    };
    let handler = validate_handler(function, &options, &mut errors);
    match errors.into_result() {
        Ok(()) => generate(&handler, &options, &core),
        Err(error) => {
            // Fallback: the function as written, so its body still type-checks and
            // nothing else reports a cascade of follow-up errors.
            let error = error.to_compile_error();
            let function = &handler.function;
            quote! {
                #error
                #[allow(dead_code)]
                #function
            }
        }
    }
}

/// Reports an attribute put on something else than a function, at the item's keyword
/// and name (`struct Echo`), or at the whole item when it is not recognised.
fn not_a_function(item: &TokenStream, errors: &mut Errors) {
    const MESSAGE: &str = "#[holon_tool] goes on a free `fn` or `async fn` (the tool's handler)";
    fn head(keyword: &dyn ToTokens, name: &dyn ToTokens) -> TokenStream {
        quote!(#keyword #name)
    }
    let head = match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Struct(item)) => Some((head(&item.struct_token, &item.ident), "a struct")),
        Ok(Item::Enum(item)) => Some((head(&item.enum_token, &item.ident), "an enum")),
        Ok(Item::Union(item)) => Some((head(&item.union_token, &item.ident), "a union")),
        Ok(Item::Trait(item)) => Some((head(&item.trait_token, &item.ident), "a trait")),
        Ok(Item::Impl(item)) => Some((head(&item.impl_token, &item.self_ty), "an `impl` block")),
        Ok(Item::Mod(item)) => Some((head(&item.mod_token, &item.ident), "a module")),
        Ok(Item::Const(item)) => Some((head(&item.const_token, &item.ident), "a constant")),
        Ok(Item::Static(item)) => Some((head(&item.static_token, &item.ident), "a static")),
        Ok(Item::Type(item)) => Some((head(&item.type_token, &item.ident), "a type alias")),
        _ => syn::parse2::<TraitItemFn>(item.clone()).ok().map(|item| {
            let what = "a function without a body";
            (head(&item.sig.fn_token, &item.sig.ident), what)
        }),
    };
    match head {
        Some((head, what)) => errors.at(head, format!("{MESSAGE}, not on {what}")),
        None if item.is_empty() => errors.at_span(Span::call_site(), MESSAGE),
        // Anything else: the whole item.
        None => errors.at(item, MESSAGE),
    }
}

fn validate_handler(function: ItemFn, options: &ToolOptions, errors: &mut Errors) -> Handler {
    let signature = &function.sig;
    if !signature.generics.params.is_empty() {
        errors.at(
            &signature.generics,
            "a tool handler cannot be generic: the framework must know the exact argument \
             and result types to derive their schemas",
        );
    }
    if let Some(where_clause) = &signature.generics.where_clause {
        errors.at(where_clause, "a tool handler cannot have a `where` clause");
    }
    if let Some(unsafety) = &signature.unsafety {
        errors.at(unsafety, "a tool handler cannot be `unsafe`");
    }
    if let Some(variadic) = &signature.variadic {
        errors.at(variadic, "a tool handler cannot be variadic");
    }

    let mut params = Vec::new();
    let mut arguments_seen: Option<Span> = None;
    for input in &signature.inputs {
        match input {
            FnArg::Receiver(receiver) => errors.at(
                receiver,
                "a tool handler must be a free function, not a method: `self` is not allowed; \
                 put the state it needs into the `ToolContext` and take it as `&State`",
            ),
            FnArg::Typed(typed) => match &*typed.ty {
                Type::Reference(reference) => {
                    if let Some(mutability) = &reference.mutability {
                        errors.at(
                            mutability,
                            "context parameters are shared references: take `&T`, not `&mut T` \
                             (use interior mutability inside the state)",
                        );
                    }
                    if is_tool_context(&reference.elem) {
                        params.push(Param::Context);
                    } else {
                        params.push(Param::State((*reference.elem).clone()));
                    }
                }
                ty => {
                    if arguments_seen.is_some() {
                        errors.at(
                            typed,
                            "a tool handler takes at most one parameter by value (its arguments); \
                             every other parameter is a shared reference to context, such as \
                             `&ToolContext` or `&State`",
                        );
                    } else {
                        arguments_seen = Some(ty.span());
                    }
                    params.push(Param::Arguments(ty.clone()));
                }
            },
        }
    }

    let output = match &signature.output {
        ReturnType::Default => Output {
            success: syn::parse_quote!(()),
            error: None,
        },
        ReturnType::Type(_, ty) => split_result(ty),
    };

    let doc = doc_comment(&function);
    if options.description.is_none() && doc.is_none() {
        errors.at(
            &signature.ident,
            format!(
                "tool `{}` has no description: add a doc comment (`/// ...`) or \
                 `description = \"...\"`; it is the text the model reads to decide when and \
                 how to call the tool",
                signature.ident
            ),
        );
    }
    if options.freeform.is_some() && arguments_seen.is_none() {
        errors.at(
            &signature.ident,
            "a `freeform` tool needs an arguments parameter whose type implements `FromFreeform`",
        );
    }

    Handler {
        function,
        params,
        output,
        doc,
    }
}

/// Whether the referenced type is the framework's `ToolContext` (by its last path segment,
/// so both `ToolContext` and `holon_core::ToolContext` work).
fn is_tool_context(ty: &Type) -> bool {
    match ty {
        Type::Path(path) => path
            .path
            .segments
            .last()
            .is_some_and(|segment| segment.ident == "ToolContext"),
        _ => false,
    }
}

fn split_result(ty: &Type) -> Output {
    if let Type::Path(path) = ty
        && let Some(last) = path.path.segments.last()
        && last.ident == "Result"
        && let PathArguments::AngleBracketed(arguments) = &last.arguments
    {
        let mut types = arguments.args.iter().filter_map(|argument| match argument {
            GenericArgument::Type(ty) => Some(ty),
            _ => None,
        });
        if let Some(success) = types.next() {
            return Output {
                success: success.clone(),
                error: Some(types.next().cloned()),
            };
        }
    }
    Output {
        success: ty.clone(),
        error: None,
    }
}

/// The doc comment of the function: one space of indentation removed, blank lines (and
/// so paragraphs) kept.
fn doc_comment(function: &ItemFn) -> Option<String> {
    let mut lines = Vec::new();
    for attr in &function.attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let Meta::NameValue(nv) = &attr.meta
            && let Expr::Lit(ExprLit {
                lit: Lit::Str(lit), ..
            }) = &nv.value
        {
            let value = lit.value();
            // `///` alone gives an empty string, for which `lines()` yields nothing.
            if value.is_empty() {
                lines.push(String::new());
            }
            for line in value.lines() {
                let line = line.strip_prefix(' ').unwrap_or(line);
                lines.push(line.trim_end().to_string());
            }
        }
    }
    let text = lines.join("\n");
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

fn generate(handler: &Handler, options: &ToolOptions, core: &TokenStream) -> TokenStream {
    let function = &handler.function;
    let fn_ident = &function.sig.ident;
    let span = fn_ident.span();
    let tool_type = format_ident!("__HolonTool_{}", fn_ident);

    let name = match &options.name {
        Some(lit) => quote!(#lit),
        None => {
            let name = pascal_case(fn_ident.to_string().trim_start_matches("r#"));
            quote!(#name)
        }
    };
    let description = match (&options.description, &handler.doc) {
        (Some(DescriptionSource::Literal(lit)), _) => quote!(#lit),
        (Some(DescriptionSource::Expr(expr)), _) => quote!(#expr),
        (None, Some(doc)) => quote!(#doc),
        (None, None) => quote!(""),
    };
    let family = options
        .family
        .as_ref()
        .map(|family| quote!(#core::ToolCapabilityFamily::#family));
    let stability = ident_variant(options.stability.as_ref(), "Stable");
    let visibility = ident_variant(options.visibility.as_ref(), "Model");
    let aliases = &options.aliases;
    let freeform = match &options.freeform {
        Some(freeform) => {
            let syntax = &freeform.syntax;
            let definition = &freeform.definition;
            quote! {
                ::core::option::Option::Some(#core::FreeformGrammarDecl {
                    syntax: #core::GrammarSyntax::#syntax,
                    definition: #definition,
                })
            }
        }
        None => quote!(::core::option::Option::None),
    };
    let annotation = |value: Option<bool>| match value {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    };
    let read_only = annotation(options.annotations.read_only);
    let destructive = annotation(options.annotations.destructive);
    let idempotent = annotation(options.annotations.idempotent);
    let open_world = annotation(options.annotations.open_world);

    let arguments_type = handler.params.iter().find_map(|param| match param {
        Param::Arguments(ty) => Some(ty),
        _ => None,
    });

    // The checks of the user's types. Each is the only place where a bound of that
    // type is required, and it is spanned at the type in the handler's signature; the
    // rest of the code uses the function pointers the checks return. So a missing
    // derive is one error at the user's token, not one per use.
    let mut checks = Vec::new();
    if let Some(ty) = arguments_type {
        let check = quote_spanned!(ty.span()=> #core::__private::assert_tool_args::<#ty>());
        checks.push(quote! {
            const __HOLON_ARGUMENTS: #core::__private::ArgumentsFns<#ty> = #check;
        });
        if options.freeform.is_some() {
            let check = quote_spanned!(ty.span()=> #core::__private::assert_freeform_args::<#ty>());
            checks.push(quote! {
                const __HOLON_FREEFORM: #core::__private::FreeformFn<#ty> = #check;
            });
        }
    }
    for (index, param) in handler.params.iter().enumerate() {
        if let Param::State(ty) = param {
            let state = format_ident!("__HOLON_STATE_{}", index);
            let check = quote_spanned!(ty.span()=> #core::__private::assert_state::<#ty, _>());
            checks.push(quote! {
                const #state: #core::__private::StateFn<#ty> = #check;
            });
        }
    }
    let success = &handler.output.success;
    let check =
        quote_spanned!(success.span()=> #core::__private::assert_tool_result::<#success, _>());
    checks.push(quote! {
        const __HOLON_RESULT: #core::__private::ResultFns<#success> = #check;
    });
    let convert_error = match &handler.output.error {
        Some(Some(error)) => {
            let check =
                quote_spanned!(error.span()=> #core::__private::assert_tool_error::<#error, _>());
            checks.push(quote! {
                const __HOLON_ERROR: fn(#error) -> #core::ToolError = #check;
            });
            quote!(__HOLON_ERROR(error))
        }
        // `io::Result<T>` and the like: the error type is not written, nothing to span.
        _ => quote!(::core::convert::Into::<#core::ToolError>::into(
            error
        )),
    };

    let (input_fields, input_schema, parse) = match arguments_type {
        Some(_) => {
            let parse = if options.freeform.is_some() {
                quote! {
                    match input {
                        #core::ToolInput::Freeform(text) => __HOLON_FREEFORM(text),
                        input => (__HOLON_ARGUMENTS.parse)(input),
                    }
                }
            } else {
                quote!((__HOLON_ARGUMENTS.parse)(input))
            };
            (
                quote!(__HOLON_ARGUMENTS.fields),
                quote!((__HOLON_ARGUMENTS.schema)(generator)),
                parse,
            )
        }
        None => (
            quote!(&[]),
            quote!(#core::__private::empty_arguments_schema()),
            quote!(#core::__private::parse_no_arguments(input)),
        ),
    };

    let mut bindings = Vec::new();
    let mut extractions = Vec::new();
    if arguments_type.is_none() {
        extractions.push(quote! {
            if let ::core::result::Result::Err(error) = #parse {
                return #core::CallFuture::ready(::core::result::Result::Err(error));
            }
        });
    }
    for (index, param) in handler.params.iter().enumerate() {
        let binding = format_ident!("__holon_param_{}", index);
        let fallible = match param {
            Param::Context => None,
            Param::Arguments(_) => Some(quote!({ #parse })),
            Param::State(_) => {
                let state = format_ident!("__HOLON_STATE_{}", index);
                Some(quote!(#state(context)))
            }
        };
        extractions.push(match fallible {
            None => quote!(let #binding = context;),
            Some(value) => quote! {
                let #binding = match #value {
                    ::core::result::Result::Ok(value) => value,
                    ::core::result::Result::Err(error) => {
                        return #core::CallFuture::ready(::core::result::Result::Err(error));
                    }
                };
            },
        });
        bindings.push(binding);
    }

    let convert = if handler.output.error.is_some() {
        quote! {
            match returned {
                ::core::result::Result::Ok(value) => (__HOLON_RESULT.convert)(value),
                ::core::result::Result::Err(error) => ::core::result::Result::Err(#convert_error),
            }
        }
    } else {
        quote!((__HOLON_RESULT.convert)(returned))
    };
    let invoke = if function.sig.asyncness.is_some() {
        quote! {
            #core::CallFuture::boxed(async move {
                let returned = #fn_ident(#(#bindings),*).await;
                #convert
            })
        }
    } else {
        quote! {
            let returned = #fn_ident(#(#bindings),*);
            #core::CallFuture::ready(#convert)
        }
    };

    let defined_at = quote_spanned! {span=>
        #core::DefinedAt {
            module: ::core::module_path!(),
            file: ::core::file!(),
            line: ::core::line!(),
        }
    };

    quote! {
        #function

        #[doc(hidden)]
        const _: () = {
            #[allow(non_camel_case_types)]
            struct #tool_type;

            static __HOLON_META: #core::ToolMeta = #core::ToolMeta {
                name: #name,
                family: #family,
                description: #description,
                stability: #core::Stability::#stability,
                visibility: #core::Visibility::#visibility,
                aliases: &[#(#aliases),*],
                freeform: #freeform,
                annotations: #core::ToolAnnotations {
                    read_only: #read_only,
                    destructive: #destructive,
                    idempotent: #idempotent,
                    open_world: #open_world,
                },
                defined_at: #defined_at,
            };

            #(#checks)*

            impl #core::Tool for #tool_type {
                fn meta(&self) -> &'static #core::ToolMeta {
                    &__HOLON_META
                }

                fn input_fields(&self) -> &'static [&'static str] {
                    #input_fields
                }

                fn input_schema(
                    &self,
                    generator: &mut #core::__private::schemars::SchemaGenerator,
                ) -> #core::__private::schemars::Schema {
                    #input_schema
                }

                fn result_schema(
                    &self,
                    generator: &mut #core::__private::schemars::SchemaGenerator,
                ) -> #core::__private::schemars::Schema {
                    (__HOLON_RESULT.schema)(generator)
                }

                fn check_input(
                    &self,
                    input: #core::ToolInput,
                ) -> ::core::result::Result<(), #core::ToolError> {
                    ::core::result::Result::map(#parse, ::core::mem::drop)
                }

                fn call<'a>(
                    &'a self,
                    context: &'a #core::ToolContext,
                    input: #core::ToolInput,
                ) -> #core::CallFuture<'a> {
                    #(#extractions)*
                    #invoke
                }
            }

            #core::__private::inventory::submit! {
                #core::ToolRegistration::new(&#tool_type)
            }
        };
    }
}

fn ident_variant(ident: Option<&Ident>, default: &str) -> Ident {
    let text = ident.map_or_else(
        || default.to_string(),
        |ident| pascal_case(&ident.to_string()),
    );
    Ident::new(&text, ident.map_or_else(Span::call_site, Ident::span))
}
