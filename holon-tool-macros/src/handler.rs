//! `#[holon_tool]`: validates the handler and its options, then emits the hidden tool
//! type, its `holon_core::Tool` impl and the link-time registration.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{
    Expr, ExprLit, FnArg, GenericArgument, Ident, ItemFn, Lit, Meta, PathArguments, ReturnType,
    Type,
};

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

/// The handler's return type, split into the success type and whether it is a `Result`.
struct Output {
    success: Type,
    is_result: bool,
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
    let function: ItemFn = match syn::parse2(item.clone()) {
        Ok(function) => function,
        Err(_) => {
            errors.at_span(
                Span::call_site(),
                "#[holon_tool] goes on a free `fn` or `async fn`",
            );
            let error = errors.into_result().err().map(|e| e.to_compile_error());
            return quote!(#error #item);
        }
    };
    let handler = validate_handler(function, &options, &mut errors);
    match errors.into_result() {
        Ok(()) => generate(&handler, &options),
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
            is_result: false,
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
    if let Type::Path(path) = ty {
        if let Some(last) = path.path.segments.last() {
            if last.ident == "Result" {
                if let PathArguments::AngleBracketed(arguments) = &last.arguments {
                    if let Some(GenericArgument::Type(success)) = arguments.args.first() {
                        return Output {
                            success: success.clone(),
                            is_result: true,
                        };
                    }
                }
            }
        }
    }
    Output {
        success: ty.clone(),
        is_result: false,
    }
}

/// The doc comment of the function: one space of indentation removed, paragraphs kept.
fn doc_comment(function: &ItemFn) -> Option<String> {
    let mut lines = Vec::new();
    for attr in &function.attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let Meta::NameValue(nv) = &attr.meta {
            if let Expr::Lit(ExprLit {
                lit: Lit::Str(lit), ..
            }) = &nv.value
            {
                let value = lit.value();
                for line in value.lines() {
                    let line = line.strip_prefix(' ').unwrap_or(line);
                    lines.push(line.trim_end().to_string());
                }
            }
        }
    }
    let text = lines.join("\n");
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

fn generate(handler: &Handler, options: &ToolOptions) -> TokenStream {
    let function = &handler.function;
    let fn_ident = &function.sig.ident;
    let span = fn_ident.span();
    let tool_type = format_ident!("__HolonTool_{}", fn_ident);

    let name = match &options.name {
        Some(lit) => quote!(#lit),
        None => {
            let name = pascal_case(&fn_ident.to_string().trim_start_matches("r#").to_string());
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
        .map(|family| quote!(::holon_core::ToolCapabilityFamily::#family));
    let stability = ident_variant(options.stability.as_ref(), "Stable");
    let visibility = ident_variant(options.visibility.as_ref(), "Model");
    let aliases = &options.aliases;
    let freeform = match &options.freeform {
        Some(freeform) => {
            let syntax = &freeform.syntax;
            let definition = &freeform.definition;
            quote! {
                ::core::option::Option::Some(::holon_core::FreeformGrammarDecl {
                    syntax: ::holon_core::GrammarSyntax::#syntax,
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

    // Compile-time checks, each spanned at the user's token it is about.
    let mut assertions = Vec::new();
    if let Some(ty) = arguments_type {
        assertions
            .push(quote_spanned!(ty.span()=> ::holon_core::__private::assert_tool_args::<#ty>();));
        if options.freeform.is_some() {
            assertions.push(
                quote_spanned!(ty.span()=> ::holon_core::__private::assert_freeform_args::<#ty>();),
            );
        }
    }
    for param in &handler.params {
        if let Param::State(ty) = param {
            assertions
                .push(quote_spanned!(ty.span()=> ::holon_core::__private::assert_state::<#ty>();));
        }
    }
    let success = &handler.output.success;
    assertions.push(
        quote_spanned!(success.span()=> ::holon_core::__private::assert_tool_result::<#success>();),
    );

    let (input_schema, input_fields, parse) = match arguments_type {
        Some(ty) => {
            let parse = if options.freeform.is_some() {
                quote_spanned!(ty.span()=> ::holon_core::__private::parse_freeform_arguments::<#ty>(input))
            } else {
                quote_spanned!(ty.span()=> ::holon_core::__private::parse_arguments::<#ty>(input))
            };
            (
                quote_spanned!(ty.span()=> ::holon_core::__private::arguments_schema::<#ty>(generator)),
                quote_spanned!(ty.span()=> ::holon_core::__private::argument_fields::<#ty>()),
                parse,
            )
        }
        None => (
            quote!(::holon_core::__private::empty_arguments_schema()),
            quote!(&[]),
            quote!(::holon_core::__private::parse_no_arguments(input)),
        ),
    };

    let mut bindings = Vec::new();
    let mut extractions = Vec::new();
    for (index, param) in handler.params.iter().enumerate() {
        let binding = format_ident!("__holon_param_{}", index);
        let extraction = match param {
            Param::Arguments(_) => quote! {
                let #binding = match #parse {
                    ::core::result::Result::Ok(arguments) => arguments,
                    ::core::result::Result::Err(error) => {
                        return ::holon_core::CallFuture::ready(::core::result::Result::Err(error));
                    }
                };
            },
            Param::Context => quote!(let #binding = context;),
            Param::State(ty) => quote_spanned! {ty.span()=>
                let #binding = match context.state::<#ty>() {
                    ::core::result::Result::Ok(state) => state,
                    ::core::result::Result::Err(error) => {
                        return ::holon_core::CallFuture::ready(::core::result::Result::Err(error));
                    }
                };
            },
        };
        bindings.push(binding);
        extractions.push(extraction);
    }
    if arguments_type.is_none() {
        extractions.insert(
            0,
            quote! {
                if let ::core::result::Result::Err(error) = #parse {
                    return ::holon_core::CallFuture::ready(::core::result::Result::Err(error));
                }
            },
        );
    }

    let convert = if handler.output.is_result {
        quote! {
            match returned {
                ::core::result::Result::Ok(value) => ::holon_core::IntoToolOutput::into_tool_output(value),
                ::core::result::Result::Err(error) => ::core::result::Result::Err(
                    ::core::convert::Into::<::holon_core::ToolError>::into(error),
                ),
            }
        }
    } else {
        quote!(::holon_core::IntoToolOutput::into_tool_output(returned))
    };
    let invoke = if function.sig.asyncness.is_some() {
        quote! {
            ::holon_core::CallFuture::boxed(async move {
                let returned = #fn_ident(#(#bindings),*).await;
                #convert
            })
        }
    } else {
        quote! {
            let returned = #fn_ident(#(#bindings),*);
            ::holon_core::CallFuture::ready(#convert)
        }
    };

    let defined_at = quote_spanned! {span=>
        ::holon_core::DefinedAt {
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

            static META: ::holon_core::ToolMeta = ::holon_core::ToolMeta {
                name: #name,
                family: #family,
                description: #description,
                stability: ::holon_core::Stability::#stability,
                visibility: ::holon_core::Visibility::#visibility,
                aliases: &[#(#aliases),*],
                freeform: #freeform,
                annotations: ::holon_core::ToolAnnotations {
                    read_only: #read_only,
                    destructive: #destructive,
                    idempotent: #idempotent,
                    open_world: #open_world,
                },
                defined_at: #defined_at,
            };

            #[allow(dead_code)]
            fn __holon_assertions() {
                #(#assertions)*
            }

            impl ::holon_core::Tool for #tool_type {
                fn meta(&self) -> &'static ::holon_core::ToolMeta {
                    &META
                }

                fn input_fields(&self) -> &'static [&'static str] {
                    #input_fields
                }

                fn input_schema(
                    &self,
                    generator: &mut ::holon_core::__private::schemars::SchemaGenerator,
                ) -> ::holon_core::__private::schemars::Schema {
                    #input_schema
                }

                fn result_schema(
                    &self,
                    generator: &mut ::holon_core::__private::schemars::SchemaGenerator,
                ) -> ::holon_core::__private::schemars::Schema {
                    <#success as ::holon_core::IntoToolOutput>::result_schema(generator)
                }

                fn call<'a>(
                    &'a self,
                    context: &'a ::holon_core::ToolContext,
                    input: ::holon_core::ToolInput,
                ) -> ::holon_core::CallFuture<'a> {
                    #(#extractions)*
                    #invoke
                }
            }

            ::holon_core::__private::inventory::submit! {
                ::holon_core::ToolRegistration::new(&#tool_type)
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
