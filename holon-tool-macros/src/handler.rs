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
use crate::errors::Errors;
use crate::naming::pascal_case;
use crate::options::{self, DescriptionSource, ToolOptions};

/// The handler's return type, split into the success type and, for a `Result`, the
/// error type (`None` inside when it is not written, as in `io::Result<T>`).
struct Output {
    success: Type,
    error: Option<Option<Type>>,
}

/// Everything validated about the handler function.
struct Handler {
    function: ItemFn,
    /// The parameters' types. Which one is the arguments is for the compiler to say
    /// (by the traits the types implement, see `holon_core`'s `params` module).
    params: Vec<Type>,
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

    let has_receiver = signature
        .inputs
        .iter()
        .any(|input| matches!(input, FnArg::Receiver(_)));
    if !has_receiver && crate::impl_context::is_associated(signature.ident.span()) {
        let name = &signature.ident;
        errors.at(
            name,
            format!(
                "`{name}` is an associated fn inside an `impl` block, but #[holon_tool] goes on a \
                 free function: the tool calls its handler by name; move `{name}` out of the \
                 `impl`, to module level (a state it needs is a `&State` parameter)"
            ),
        );
    }

    let mut params = Vec::new();
    for input in &signature.inputs {
        match input {
            FnArg::Receiver(receiver) => errors.at(
                receiver,
                "a tool handler must be a free function, not a method: `self` is not allowed; \
                 put the state it needs into the `ToolContext` and take it as `&State`",
            ),
            FnArg::Typed(typed) => {
                if let Type::Reference(reference) = &*typed.ty
                    && let Some(mutability) = &reference.mutability
                {
                    errors.at(
                        mutability,
                        "context parameters are shared references: take `&T`, not `&mut T` \
                         (use interior mutability inside the state)",
                    );
                }
                params.push((*typed.ty).clone());
            }
        }
    }

    let output = match &signature.output {
        ReturnType::Default => Output {
            success: syn::parse_quote!(()),
            error: None,
        },
        ReturnType::Type(_, ty) => split_result(ty),
    };
    if let Type::ImplTrait(opaque) = &output.success {
        errors.at(
            opaque,
            format!(
                "a tool handler cannot return `{}`: the tool's result schema is derived from \
                 the result's type, so it must be named; return a type with \
                 `#[derive(Serialize, JsonSchema)]`",
                opaque.to_token_stream()
            ),
        );
    }

    let doc = doc_comment(&function)
        .map(|doc| crate::doc_text::model_text(&doc, options.keep_doc_sections))
        .filter(|text| !text.trim().is_empty());
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
    if options.freeform.is_some() && signature.inputs.is_empty() {
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

/// Where an error about a parameter's type points: the type, or for `&T` the `T` (a
/// span covers one token on stable Rust, and `&` alone says little).
fn param_span(ty: &Type) -> Span {
    match ty {
        Type::Reference(reference) => reference.elem.span(),
        ty => ty.span(),
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
    let const_name = format_ident!("__HOLON_TOOL_{}", fn_ident);

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
    let keywords = &options.keywords;
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
    let task = task_variant(options.task.as_ref());
    let open_world = annotation(options.annotations.open_world);

    // The user's result and error types are required to fit where they are used,
    // once each, through a trait whose message says what is missing, spanned at the
    // type in the handler's signature. So a missing derive is one error at the user's
    // token. They are plain paths, not constants: a constant per tool would cost the
    // compiler an evaluation of its own.
    let success = &handler.output.success;
    let result_schema = quote_spanned!(success.span()=>
        <#success as #core::__private::ToolResultSchema<_>>::schema
    );
    let output_of = quote_spanned!(success.span()=>
        <#success as #core::__private::ToolResultSerialize<_>>::output
    );
    let convert_error = match &handler.output.error {
        Some(Some(error)) => quote_spanned!(error.span()=>
            <#error as #core::__private::ToolErrorType<_>>::into_tool_error(error)
        ),
        // `io::Result<T>`, `anyhow::Result<T>`: the error type is not written; the
        // check is spanned at the return type, so that an error that does not convert
        // reads as the check trait's message, with its hint.
        _ => {
            let span = match &function.sig.output {
                syn::ReturnType::Type(_, ty) => ty.span(),
                syn::ReturnType::Default => Span::call_site(),
            };
            quote_spanned!(span=>
                <_ as #core::__private::ToolErrorType<_>>::into_tool_error(error)
            )
        }
    };

    // Each parameter is classified by the compiler (see `holon_core`'s `params`
    // module): `tag_i` says whether it is the arguments (by value or by reference) or
    // taken from the context, and a type that is neither fails at `hold`, spanned at
    // the parameter's type.
    // A freeform tool's arguments go through `freeform()`, the one call that requires
    // `FromFreeform`. Every method name is spanned at the type, so that an unmet bound
    // is reported there.
    let via_freeform = |ty: &Type| {
        if options.freeform.is_some() {
            let method = Ident::new("freeform", param_span(ty));
            quote!(.#method())
        } else {
            TokenStream::new()
        }
    };
    let probes: Vec<TokenStream> = handler
        .params
        .iter()
        .map(|ty| {
            quote_spanned! {param_span(ty)=>
                (&&&#core::__private::Probe::<#ty>::new()).holon_param()
            }
        })
        .collect();
    // Spanned at the types, as everything an unmet bound could be reported at.
    let tags: Vec<Ident> = handler
        .params
        .iter()
        .enumerate()
        .map(|(index, ty)| Ident::new(&format!("__holon_tag_{index}"), param_span(ty)))
        .collect();
    let bindings: Vec<Ident> = (0..probes.len())
        .map(|index| format_ident!("__holon_param_{}", index))
        .collect();
    let inputs_span = function.sig.paren_token.span.join();
    let tag_list = probes.iter().rev().fold(
        quote_spanned!(inputs_span=> ()),
        |rest, probe| quote_spanned!(inputs_span=> (#probe, #rest)),
    );
    let tag_pattern = tags
        .iter()
        .rev()
        .fold(quote!(()), |rest, tag| quote!((#tag, #rest)));
    let tag_list =
        quote_spanned!(inputs_span=> #core::__private::at_most_one_arguments(#tag_list, input));
    let holds = handler
        .params
        .iter()
        .zip(&tags)
        .zip(&bindings)
        .map(|((ty, tag), binding)| {
            let hold = Ident::new("hold", param_span(ty));
            let freeform = via_freeform(ty);
            let held =
                quote_spanned!(param_span(ty)=> #tag #freeform.#hold(context, &mut __holon_input));
            quote! {
                let #binding = match #held {
                    ::core::result::Result::Ok(value) => value,
                    ::core::result::Result::Err(error) => return ::core::result::Result::Err(error),
                };
            }
        });
    // A handler without an arguments parameter is refused any input but `{}` here,
    // before a parameter is taken from the context.
    let extractions = quote! {
        let (#tag_pattern, mut __holon_input) = match #tag_list {
            ::core::result::Result::Ok(taken) => taken,
            ::core::result::Result::Err(error) => return ::core::result::Result::Err(error),
        };
        #(#holds)*
    };
    let facts = handler.params.iter().zip(&probes).map(|(ty, probe)| {
        let arguments = Ident::new("arguments", param_span(ty));
        let freeform = via_freeform(ty);
        quote_spanned!(param_span(ty)=> #probe #freeform.#arguments())
    });
    let arguments_fn = quote! {
        /// The facts of the parameter that is the arguments, if one is.
        fn __holon_arguments() -> ::core::option::Option<#core::__private::ArgumentsInfo> {
            let found = ::core::option::Option::None;
            #(let found = ::core::option::Option::or(found, #facts);)*
            found
        }
    };
    let bindings: Vec<TokenStream> = bindings
        .iter()
        .map(|binding| quote!(#binding.param()))
        .collect();

    // The handler's result, as the tool's output.
    let awaited = function.sig.asyncness.map(|_| quote!(.await));
    let output = if handler.output.error.is_some() {
        quote! {
            match returned {
                ::core::result::Result::Ok(value) => #output_of(value),
                ::core::result::Result::Err(error) => ::core::result::Result::Err(#convert_error),
            }
        }
    } else {
        quote!(#output_of(returned))
    };

    // A synchronous handler runs in the call, which returns its finished result.
    let body = quote! {
        #extractions
        let returned = #fn_ident(#(#bindings),*) #awaited;
        #output
    };
    let call = match function.sig.asyncness {
        Some(_) => quote!(#core::CallFuture::boxed(async move { #body })),
        None => quote!(#core::CallFuture::ready((move || { #body })())),
    };

    let timeout = match options.timeout_ms {
        Some(millis) => quote! {
            ::core::option::Option::Some(::core::time::Duration::from_millis(#millis))
        },
        None => quote!(::core::option::Option::None),
    };

    let defined_at = quote_spanned! {span=>
        #core::DefinedAt {
            module: ::core::module_path!(),
            file: ::core::file!(),
            line: ::core::line!(),
        }
    };

    let sources = options
        .examples
        .iter()
        .map(crate::examples::Example::source);

    quote! {
        #function

        // Named: should `impl_context` miss an associated fn (its file unreadable),
        // rustc then reports the handler's name, not "`const` items in this context
        // need a name".
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        const #const_name: () = {
            #[allow(unused_imports)]
            use #core::__private::{
                ViaArgumentsByRef as _, ViaArgumentsByValue as _, ViaExtractor as _,
                ViaPlainValue as _, ViaUnresolved as _,
            };

            #arguments_fn

            /// Parses the input and runs the handler.
            fn __holon_call<'a>(
                context: &'a #core::ToolContext,
                input: #core::ToolInput<'a>,
            ) -> #core::CallFuture<'a> {
                #call
            }

            // Data, not a type with a `Tool` impl of its own: one impl serves every
            // declared tool, which keeps each declaration cheap to compile. It lives
            // in the registration's static, not in one of its own: each static costs
            // the compiler an evaluation.
            #core::__private::inventory::submit! {
                #core::ToolRegistration::new(&#core::__private::DeclaredTool {
                    meta: &#core::ToolMeta {
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
                        task: #core::TaskSupport::#task,
                        keywords: &[#(#keywords),*],
                        defined_at: #defined_at,
                    },
                    arguments: __holon_arguments,
                    result_schema: #result_schema,
                    call: __holon_call,
                    timeout: #timeout,
                    examples: &[#(#sources),*],
                })
            }
        };
    }
}

/// The `TaskSupport` variant of `task = optional | required` (none: `Forbidden`).
fn task_variant(task: Option<&Ident>) -> Ident {
    let variant = match task.map(Ident::to_string).as_deref() {
        Some("optional") => "Optional",
        Some("required") => "Required",
        _ => "Forbidden",
    };
    Ident::new(variant, task.map_or_else(Span::call_site, Ident::span))
}

fn ident_variant(ident: Option<&Ident>, default: &str) -> Ident {
    let text = ident.map_or_else(
        || default.to_string(),
        |ident| pascal_case(&ident.to_string()),
    );
    Ident::new(&text, ident.map_or_else(Span::call_site, Ident::span))
}
