//! Parsing and validation of the `#[holon_tool(...)]` options.
//!
//! Every option is checked here; all problems are collected into one list so that
//! several mistakes in one attribute are reported together.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Ident, Lit, LitStr, Meta, Token};

use crate::errors::Errors;
use crate::naming::is_portable_tool_name;

/// The capability families, in the order the error message lists them.
pub(crate) const FAMILIES: &[&str] = &[
    "CoreAgent",
    "LocalEnvironment",
    "AuthorityExpanding",
    "Web",
    "AgentCreation",
    "ExternalTrigger",
];

const OPTIONS: &str = "family, name, description, stability, visibility, aliases, freeform, annotations, keep_doc_sections, crate, timeout_ms, example, example_file, task, keywords";

const ANNOTATIONS: &[&str] = &["read_only", "destructive", "idempotent", "open_world"];

/// A description given in the attribute: a literal, or an expression such as
/// `include_str!("...")` that is emitted as written.
pub(crate) enum DescriptionSource {
    Literal(LitStr),
    Expr(Expr),
}

/// A validated freeform declaration.
pub(crate) struct Freeform {
    pub(crate) syntax: Ident,
    pub(crate) definition: Expr,
}

/// The MCP behaviour hints; `None` keeps the protocol's default.
#[derive(Default)]
pub(crate) struct Annotations {
    pub(crate) read_only: Option<bool>,
    pub(crate) destructive: Option<bool>,
    pub(crate) idempotent: Option<bool>,
    pub(crate) open_world: Option<bool>,
}

/// All options of one attribute, after validation.
#[derive(Default)]
pub(crate) struct ToolOptions {
    pub(crate) family: Option<Ident>,
    pub(crate) name: Option<LitStr>,
    pub(crate) description: Option<DescriptionSource>,
    pub(crate) stability: Option<Ident>,
    pub(crate) visibility: Option<Ident>,
    pub(crate) aliases: Vec<LitStr>,
    pub(crate) freeform: Option<Freeform>,
    pub(crate) annotations: Annotations,
    /// `crate = path`: where `holon-core` is, for a crate that reaches it through a
    /// facade re-exporting it.
    pub(crate) krate: Option<syn::Path>,
    /// `keep_doc_sections`: the doc comment's code blocks and `# Examples`, `# Panics`
    /// and `# Errors` sections reach the model too.
    pub(crate) keep_doc_sections: bool,
    /// `timeout_ms = N`: the tool's time limit in milliseconds (at least 1).
    pub(crate) timeout_ms: Option<u64>,
    /// `example = "..."` and `example_file = "..."`, repeatable: input examples.
    pub(crate) examples: Vec<crate::examples::Example>,
    /// `task = optional | required`: a call may (or must) run as an MCP task.
    pub(crate) task: Option<Ident>,
    /// `keywords = ["grep", ...]`: words a user may search for the tool by that its
    /// description does not use; the search index weighs them, no model sees them.
    pub(crate) keywords: Vec<LitStr>,
}

/// Parses the attribute's tokens; problems are added to `errors`.
pub(crate) fn parse(attr: TokenStream, errors: &mut Errors) -> ToolOptions {
    let mut options = ToolOptions::default();
    let metas = match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(attr.clone()) {
        Ok(metas) => metas,
        Err(error) => {
            errors.push(error);
            return options;
        }
    };
    let mut seen: Vec<String> = Vec::new();
    for meta in metas {
        let Some(key) = meta.path().get_ident().map(Ident::to_string) else {
            errors.at(
                meta.path(),
                format!("unknown option; expected one of: {OPTIONS}"),
            );
            continue;
        };
        // Examples are the options given more than once.
        if seen.contains(&key) && !key.starts_with("example") {
            errors.at(
                meta.path(),
                format!("duplicate option `{key}`: give each option once"),
            );
            continue;
        }
        seen.push(key.clone());
        match key.as_str() {
            "family" => options.family = parse_family(&meta, errors),
            "name" => options.name = parse_name(&meta, errors),
            "description" => options.description = parse_description(&meta, errors),
            "stability" => {
                options.stability = parse_choice(
                    &meta,
                    "stability",
                    &["stable", "experimental", "deprecated"],
                    errors,
                )
            }
            "visibility" => {
                options.visibility =
                    parse_choice(&meta, "visibility", &["model", "runtime"], errors)
            }
            "aliases" => options.aliases = parse_aliases(&meta, errors),
            "freeform" => options.freeform = parse_freeform(&meta, errors),
            "annotations" => options.annotations = parse_annotations(&meta, errors),
            "keep_doc_sections" => match &meta {
                Meta::Path(_) => options.keep_doc_sections = true,
                _ => errors.at(&meta, "`keep_doc_sections` is a flag: write it alone"),
            },
            "crate" => {
                options.krate = value_of(&meta, "crate", "facade::holon_core", errors)
                    .and_then(|expr| crate::crate_path::parse_value(expr, errors))
            }
            "timeout_ms" => options.timeout_ms = parse_timeout(&meta, errors),
            "task" => options.task = parse_choice(&meta, "task", &["optional", "required"], errors),
            "keywords" => options.keywords = parse_keywords(&meta, errors),
            "example" | "example_file" => options
                .examples
                .extend(crate::examples::parse(&meta, &key, errors)),
            other => errors.at(
                meta.path(),
                format!("unknown option `{other}`; expected one of: {OPTIONS}"),
            ),
        }
    }
    if options.family.is_none() && !seen.iter().any(|k| k == "family") {
        let message = format!(
            "missing `family = ...`: every tool belongs to a capability family, one of: {}",
            FAMILIES.join(", ")
        );
        // At the options written, or at the attribute when there are none.
        if attr.is_empty() {
            errors.at_span(Span::call_site(), message);
        } else {
            errors.at(&attr, message);
        }
    }
    options
}

fn value_of<'m>(meta: &'m Meta, key: &str, form: &str, errors: &mut Errors) -> Option<&'m Expr> {
    match meta {
        Meta::NameValue(nv) => Some(&nv.value),
        _ => {
            errors.at(meta, format!("expected `{key} = {form}`"));
            None
        }
    }
}

fn string_literal(expr: &Expr) -> Option<&LitStr> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => Some(lit),
        _ => None,
    }
}

fn parse_family(meta: &Meta, errors: &mut Errors) -> Option<Ident> {
    let expr = value_of(meta, "family", "CoreAgent", errors)?;
    if let Some(lit) = string_literal(expr) {
        let value = lit.value();
        let advice = if FAMILIES.contains(&value.as_str()) {
            format!("write `family = {value}`")
        } else {
            format!("one of: {}", FAMILIES.join(", "))
        };
        errors.at(
            lit,
            format!("the family is a name, not a string: drop the quotes ({advice})"),
        );
        return None;
    }
    let ident = match expr {
        Expr::Path(path) => path.path.get_ident().cloned(),
        _ => None,
    };
    match ident {
        Some(ident) if FAMILIES.contains(&ident.to_string().as_str()) => Some(ident),
        _ => {
            errors.at(
                expr,
                format!(
                    "unknown capability family `{}`; expected one of: {}",
                    expr.to_token_stream(),
                    FAMILIES.join(", ")
                ),
            );
            None
        }
    }
}

fn check_portable(lit: &LitStr, what: &str, errors: &mut Errors) -> bool {
    let ok = is_portable_tool_name(&lit.value());
    if !ok {
        errors.at(
            lit,
            format!(
                "invalid {what} {:?}: a tool name must match ^[A-Za-z_][A-Za-z0-9_-]{{0,63}}$ \
                 (a letter or `_`, then up to 63 letters, digits, `_` or `-`) to be accepted \
                 by every model API",
                lit.value()
            ),
        );
    }
    ok
}

fn parse_name(meta: &Meta, errors: &mut Errors) -> Option<LitStr> {
    let expr = value_of(meta, "name", "\"ToolName\"", errors)?;
    let Some(lit) = string_literal(expr) else {
        errors.at(expr, "expected a string literal, e.g. `name = \"WaitFor\"`");
        return None;
    };
    check_portable(lit, "tool name", errors).then(|| lit.clone())
}

fn parse_description(meta: &Meta, errors: &mut Errors) -> Option<DescriptionSource> {
    let expr = value_of(meta, "description", "\"...\"", errors)?;
    if let Some(lit) = string_literal(expr) {
        if lit.value().trim().is_empty() {
            errors.at(
                lit,
                "the description is empty: it is the text the model reads to decide when and how to call the tool",
            );
            return None;
        }
        return Some(DescriptionSource::Literal(lit.clone()));
    }
    match expr {
        Expr::Macro(_) => Some(DescriptionSource::Expr(expr.clone())),
        _ => {
            errors.at(
                expr,
                "expected a string literal or `include_str!(\"file.md\")`",
            );
            None
        }
    }
}

fn parse_timeout(meta: &Meta, errors: &mut Errors) -> Option<u64> {
    let expr = value_of(meta, "timeout_ms", "30000", errors)?;
    let millis = match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) => int.base10_parse::<u64>().ok(),
        _ => None,
    };
    match millis {
        Some(millis) if millis > 0 => Some(millis),
        _ => {
            errors.at(
                expr,
                "`timeout_ms` is the tool's time limit: a whole number of milliseconds, at least 1, such as `timeout_ms = 30000`",
            );
            None
        }
    }
}

fn parse_choice(meta: &Meta, key: &str, choices: &[&str], errors: &mut Errors) -> Option<Ident> {
    let expr = value_of(meta, key, choices[0], errors)?;
    let ident = match expr {
        Expr::Path(path) => path.path.get_ident().cloned(),
        _ => None,
    };
    match ident {
        Some(ident) if choices.contains(&ident.to_string().as_str()) => Some(ident),
        _ => {
            errors.at(
                expr,
                format!(
                    "unknown {key} `{}`; expected one of: {}",
                    expr.to_token_stream(),
                    choices.join(", ")
                ),
            );
            None
        }
    }
}

fn parse_aliases(meta: &Meta, errors: &mut Errors) -> Vec<LitStr> {
    let Some(expr) = value_of(meta, "aliases", "[\"OldName\"]", errors) else {
        return Vec::new();
    };
    let Expr::Array(array) = expr else {
        errors.at(
            expr,
            "expected an array of names, e.g. `aliases = [\"TaskList\"]`",
        );
        return Vec::new();
    };
    let mut aliases = Vec::new();
    for element in &array.elems {
        match string_literal(element) {
            Some(lit) => {
                if check_portable(lit, "alias", errors) {
                    aliases.push(lit.clone());
                }
            }
            None => errors.at(element, "expected a string literal"),
        }
    }
    aliases
}

fn parse_keywords(meta: &Meta, errors: &mut Errors) -> Vec<LitStr> {
    const FORM: &str = "`keywords = [\"grep\", \"search files\"]`";
    let Some(expr) = value_of(meta, "keywords", "[\"grep\", \"search files\"]", errors) else {
        return Vec::new();
    };
    let Expr::Array(array) = expr else {
        errors.at(
            expr,
            format!("expected an array of search keywords, e.g. {FORM}"),
        );
        return Vec::new();
    };
    if array.elems.is_empty() {
        errors.at(
            array,
            "`keywords` is empty: give the words a user would search for, or leave the option out",
        );
    }
    let mut keywords: Vec<LitStr> = Vec::new();
    for element in &array.elems {
        let Some(lit) = string_literal(element) else {
            errors.at(element, format!("expected a string literal, e.g. {FORM}"));
            continue;
        };
        let value = lit.value();
        if value.trim().is_empty() {
            errors.at(
                lit,
                "the keyword is blank: write a word or phrase a user would search for, or remove it",
            );
        } else if value.trim() != value {
            errors.at(
                lit,
                format!(
                    "the keyword {value:?} has spaces around it: write {:?}",
                    value.trim()
                ),
            );
        } else if keywords
            .iter()
            .any(|seen| seen.value().to_lowercase() == value.to_lowercase())
        {
            errors.at(
                lit,
                format!("duplicate keyword {value:?}: give each keyword once"),
            );
        } else {
            keywords.push(lit.clone());
        }
    }
    keywords
}

fn nested(meta: &Meta, key: &str, form: &str, errors: &mut Errors) -> Option<Vec<Meta>> {
    let Meta::List(list) = meta else {
        errors.at(meta, format!("expected `{key}({form})`"));
        return None;
    };
    match list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated) {
        Ok(items) => Some(items.into_iter().collect()),
        Err(error) => {
            errors.push(error);
            None
        }
    }
}

fn parse_freeform(meta: &Meta, errors: &mut Errors) -> Option<Freeform> {
    const FORM: &str = "syntax = \"lark\", definition = include_str!(\"grammar.lark\")";
    let items = nested(meta, "freeform", FORM, errors)?;
    let mut syntax = None;
    let mut definition = None;
    let mut failed = false;
    for item in &items {
        let key = item.path().get_ident().map(Ident::to_string);
        match key.as_deref() {
            Some("syntax") if syntax.is_none() => {
                let Some(expr) = value_of(item, "syntax", "\"lark\"", errors) else {
                    failed = true;
                    continue;
                };
                match string_literal(expr).map(LitStr::value).as_deref() {
                    Some(value @ ("lark" | "regex")) => {
                        syntax = Some(Ident::new(
                            if value == "lark" { "Lark" } else { "Regex" },
                            expr.span(),
                        ))
                    }
                    _ => {
                        failed = true;
                        errors.at(
                            expr,
                            format!(
                                "unknown freeform syntax `{}`; expected \"lark\" or \"regex\"",
                                expr.to_token_stream()
                            ),
                        )
                    }
                }
            }
            Some("definition") if definition.is_none() => {
                match value_of(item, "definition", "include_str!(\"grammar.lark\")", errors) {
                    Some(expr) => {
                        if string_literal(expr).is_some_and(|lit| lit.value().trim().is_empty()) {
                            failed = true;
                            errors.at(expr, "the freeform grammar definition is empty");
                        } else {
                            definition = Some(expr.clone());
                        }
                    }
                    None => failed = true,
                }
            }
            Some(key @ ("syntax" | "definition")) => {
                failed = true;
                errors.at(
                    item.path(),
                    format!("duplicate option `{key}` in `freeform`: give it once"),
                );
            }
            _ => {
                failed = true;
                errors.at(
                    item.path(),
                    "unknown `freeform` option; expected `syntax` and `definition`",
                );
            }
        }
    }
    if definition.is_none() && !failed {
        errors.at(
            meta.path(),
            format!("`freeform` needs a grammar: `freeform({FORM})`"),
        );
    }
    match (syntax, definition) {
        (Some(syntax), Some(definition)) => Some(Freeform { syntax, definition }),
        (None, Some(_)) if !failed => {
            errors.at(
                meta.path(),
                "`freeform` needs `syntax = \"lark\"` or `syntax = \"regex\"`",
            );
            None
        }
        _ => None,
    }
}

fn parse_annotations(meta: &Meta, errors: &mut Errors) -> Annotations {
    let mut annotations = Annotations::default();
    let Some(items) = nested(meta, "annotations", "read_only, idempotent", errors) else {
        return annotations;
    };
    for item in &items {
        let key = item.path().get_ident().map(Ident::to_string);
        let value = match item {
            Meta::Path(_) => Some(true),
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Bool(b), ..
                }) => Some(b.value),
                other => {
                    errors.at(other, "expected `true` or `false`");
                    None
                }
            },
            Meta::List(_) => {
                errors.at(
                    item,
                    "expected a flag such as `read_only` or `destructive = false`",
                );
                None
            }
        };
        let slot = match key.as_deref() {
            Some("read_only") => &mut annotations.read_only,
            Some("destructive") => &mut annotations.destructive,
            Some("idempotent") => &mut annotations.idempotent,
            Some("open_world") => &mut annotations.open_world,
            _ => {
                errors.at(
                    item.path(),
                    format!(
                        "unknown annotation; expected one of: {}",
                        ANNOTATIONS.join(", ")
                    ),
                );
                continue;
            }
        };
        if slot.is_some() {
            errors.at(
                item.path(),
                format!(
                    "duplicate annotation `{}`: give each annotation once",
                    item.path().to_token_stream()
                ),
            );
        }
        *slot = value;
    }
    annotations
}
