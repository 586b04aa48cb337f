//! Registry validation: everything the compiler cannot check is checked when a
//! registry is built, every problem is reported, and each message names the tool and
//! its definition site.
//!
//! The broken tools here implement `holon_core::Tool` by hand: a `#[holon_tool]` tool
//! is submitted to the link-time inventory, so a broken one would make
//! `Registry::global()` panic in every other test of this binary.

use holon_core::{CallFuture, Tool, ToolOutput};
use holon_core::{
    DefinedAt, FreeformGrammarDecl, GrammarSyntax, Registry, RegistryError, Stability, TaskSupport,
    ToolAnnotations, ToolCapabilityFamily, ToolContext, ToolInput, ToolMeta, Visibility,
};
use holon_downstream_tools as _;
use schemars::{Schema, SchemaGenerator};
use serde_json::{Value, json};

/// A tool written by hand: static facts plus fixed schemas.
struct HandTool {
    meta: &'static ToolMeta,
    input: fn() -> Value,
    result: fn() -> Value,
}

impl Tool for HandTool {
    fn meta(&self) -> &'static ToolMeta {
        self.meta
    }

    fn input_fields(&self) -> &'static [&'static str] {
        &[]
    }

    fn input_schema(&self, _: &mut SchemaGenerator) -> Schema {
        Schema::try_from((self.input)()).expect("an object schema")
    }

    fn result_schema(&self, _: &mut SchemaGenerator) -> Schema {
        Schema::try_from((self.result)()).expect("an object schema")
    }

    fn call<'a>(&'a self, _: &'a ToolContext, _: ToolInput<'a>) -> CallFuture<'a> {
        CallFuture::ready(Ok(ToolOutput::new(json!({ "ok": true }).into())))
    }
}

/// The facts of a valid tool called `name`, declared at this file and `line`.
const fn meta(name: &'static str, line: u32) -> ToolMeta {
    ToolMeta {
        name,
        family: ToolCapabilityFamily::CoreAgent,
        description: "A hand-written tool used to test the registry checks.",
        stability: Stability::Stable,
        visibility: Visibility::Model,
        aliases: &[],
        freeform: None,
        annotations: ToolAnnotations {
            read_only: None,
            destructive: None,
            idempotent: None,
            open_world: None,
        },
        task: TaskSupport::Forbidden,
        keywords: &[],
        defined_at: DefinedAt {
            module: module_path!(),
            file: file!(),
            line,
        },
    }
}

fn closed_input() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "properties": { "path": { "type": "string" } },
        "required": ["path"],
    })
}

fn ok_result() -> Value {
    json!({
        "type": "object",
        "properties": { "ok": { "type": "boolean" } },
    })
}

const fn hand(meta: &'static ToolMeta) -> HandTool {
    HandTool {
        meta,
        input: closed_input,
        result: ok_result,
    }
}

static VALID_META: ToolMeta = meta("HandValid", line!());
static VALID: HandTool = hand(&VALID_META);

// A local tool that takes the name of a tool of the downstream crate.
static LOCAL_ECHO_META: ToolMeta = meta("Echo", line!());
static LOCAL_ECHO: HandTool = hand(&LOCAL_ECHO_META);

static ALIAS_A_META: ToolMeta = ToolMeta {
    aliases: &["OldName"],
    ..meta("AliasOwnerA", line!())
};
static ALIAS_A: HandTool = hand(&ALIAS_A_META);
static ALIAS_B_META: ToolMeta = ToolMeta {
    aliases: &["OldName"],
    ..meta("AliasOwnerB", line!())
};
static ALIAS_B: HandTool = hand(&ALIAS_B_META);
// An alias that is another tool's name.
static ALIAS_NAME_META: ToolMeta = ToolMeta {
    aliases: &["HandValid"],
    ..meta("AliasTakesName", line!())
};
static ALIAS_NAME: HandTool = hand(&ALIAS_NAME_META);

static OPEN_META: ToolMeta = meta("OpenInput", line!());
static OPEN: HandTool = HandTool {
    input: || json!({ "type": "object", "properties": { "path": { "type": "string" } } }),
    ..hand(&OPEN_META)
};
static NOT_OBJECT_META: ToolMeta = meta("StringInput", line!());
static NOT_OBJECT: HandTool = HandTool {
    input: || json!({ "type": "string" }),
    ..hand(&NOT_OBJECT_META)
};

static SHARED_META: ToolMeta = meta("SharedField", line!());
static SHARED: HandTool = HandTool {
    result: || {
        json!({
            "type": "object",
            "properties": { "path": { "type": "string" }, "ok": { "type": "boolean" } },
        })
    },
    ..hand(&SHARED_META)
};

static EMPTY_DESCRIPTION_META: ToolMeta = ToolMeta {
    description: " \n\t ",
    ..meta("NoDescription", line!())
};
static EMPTY_DESCRIPTION: HandTool = hand(&EMPTY_DESCRIPTION_META);

static EMPTY_GRAMMAR_META: ToolMeta = ToolMeta {
    freeform: Some(FreeformGrammarDecl {
        syntax: GrammarSyntax::Lark,
        definition: "  \n",
    }),
    ..meta("EmptyGrammar", line!())
};
static EMPTY_GRAMMAR: HandTool = hand(&EMPTY_GRAMMAR_META);

static BROKEN_LARK_META: ToolMeta = ToolMeta {
    freeform: Some(FreeformGrammarDecl {
        syntax: GrammarSyntax::Lark,
        definition: "start: header body\nheader: \"#\" /[^\\n]+/\n",
    }),
    ..meta("BrokenLark", line!())
};
static BROKEN_LARK: HandTool = hand(&BROKEN_LARK_META);

static BROKEN_REGEX_META: ToolMeta = ToolMeta {
    freeform: Some(FreeformGrammarDecl {
        syntax: GrammarSyntax::Regex,
        definition: "[a-z+",
    }),
    ..meta("BrokenRegex", line!())
};
static BROKEN_REGEX: HandTool = hand(&BROKEN_REGEX_META);

static GOOD_GRAMMAR_META: ToolMeta = ToolMeta {
    freeform: Some(FreeformGrammarDecl {
        syntax: GrammarSyntax::Lark,
        definition: "start: line+\nline: /[a-z]+/ LF\n%import common.LF\n",
    }),
    ..meta("GoodGrammar", line!())
};
static GOOD_GRAMMAR: HandTool = hand(&GOOD_GRAMMAR_META);

static BAD_NAME_META: ToolMeta = meta("Bad Name!", line!());
static BAD_NAME: HandTool = hand(&BAD_NAME_META);

fn build(tools: &[&'static dyn Tool]) -> Result<Registry, RegistryError> {
    Registry::from_tools(tools.iter().copied())
}

fn problems(tools: &[&'static dyn Tool]) -> Vec<String> {
    match build(tools) {
        Ok(registry) => panic!("the registry should be refused, got {registry:?}"),
        Err(error) => error.problems,
    }
}

/// `file:line` of a hand-written tool.
fn site(meta: &ToolMeta) -> String {
    format!("{}:{}", meta.defined_at.file, meta.defined_at.line)
}

fn downstream_tools() -> impl Iterator<Item = &'static dyn Tool> {
    holon_core::registered_tools().filter(|tool| {
        tool.meta()
            .defined_at
            .module
            .starts_with("holon_downstream_tools")
    })
}

#[tokio::test]
async fn a_valid_hand_written_tool_is_accepted_and_dispatchable() {
    let registry = build(&[&VALID, &GOOD_GRAMMAR]).expect("valid tools");
    assert_eq!(registry.len(), 2);
    let definition = registry.get("GoodGrammar").expect("registered");
    assert!(definition.spec.freeform_grammar.is_some());

    let context = ToolContext::new(holon_core::FamilyPolicy::all());
    let call = holon_core::ToolCall::new("HandValid", json!({ "path": "a" }));
    let result = registry.dispatch(&context, call).await;
    assert!(result.is_success(), "{result:?}");
    assert_eq!(result.tool_name, "HandValid");

    // `CallFuture::ready` does not know the tool's name: the dispatcher gives it the
    // registered one on either entry point, the text one's path of its own included.
    let result = registry
        .dispatch_text(&context, "HandValid", r#"{"path": "a"}"#)
        .await;
    assert!(result.is_success(), "{result:?}");
    assert_eq!(result.tool_name, "HandValid");
    assert_eq!(result.structured.as_deref(), Some(&json!({ "ok": true })));
}

#[test]
fn the_global_registry_of_this_binary_is_valid() {
    let registry = Registry::try_global().expect("the linked tools are valid");
    assert!(registry.get("Echo").is_some());
}

#[test]
fn a_duplicate_name_across_crates_names_both_definition_sites() {
    let downstream_echo = downstream_tools()
        .find(|tool| tool.meta().name == "Echo")
        .expect("the downstream crate declares Echo");
    let downstream_site = site(downstream_echo.meta());
    assert!(
        downstream_site.contains("downstream-tools"),
        "{downstream_site}"
    );

    let problems = problems(
        &downstream_tools()
            .chain([&LOCAL_ECHO as &dyn Tool])
            .collect::<Vec<_>>(),
    );
    assert_eq!(problems.len(), 1, "{problems:#?}");
    let problem = &problems[0];
    assert!(problem.contains("`Echo`"), "{problem}");
    assert!(problem.contains(&downstream_site), "{problem}");
    assert!(problem.contains(&site(&LOCAL_ECHO_META)), "{problem}");
    assert!(problem.contains("rename"), "{problem}");

    // Whatever order the linker gives, both sites are named.
    let problems = problems_reversed();
    assert!(problems[0].contains(&downstream_site), "{problems:#?}");
    assert!(
        problems[0].contains(&site(&LOCAL_ECHO_META)),
        "{problems:#?}"
    );
}

fn problems_reversed() -> Vec<String> {
    let mut tools: Vec<&'static dyn Tool> = vec![&LOCAL_ECHO];
    tools.extend(downstream_tools());
    problems(&tools)
}

#[test]
fn a_duplicate_alias_names_both_tools_and_sites() {
    let problems = problems(&[&ALIAS_A, &ALIAS_B]);
    assert_eq!(problems.len(), 1, "{problems:#?}");
    let problem = &problems[0];
    assert!(problem.contains("alias `OldName`"), "{problem}");
    assert!(problem.contains(&site(&ALIAS_A_META)), "{problem}");
    assert!(problem.contains(&site(&ALIAS_B_META)), "{problem}");
    assert!(problem.contains("AliasOwnerA"), "{problem}");
    assert!(problem.contains("AliasOwnerB"), "{problem}");
}

#[test]
fn an_alias_may_not_take_another_tools_name() {
    let problems = problems(&[&VALID, &ALIAS_NAME]);
    assert_eq!(problems.len(), 1, "{problems:#?}");
    let problem = &problems[0];
    assert!(problem.contains("`HandValid`"), "{problem}");
    assert!(problem.contains(&site(&VALID_META)), "{problem}");
    assert!(problem.contains(&site(&ALIAS_NAME_META)), "{problem}");
}

#[test]
fn an_input_schema_must_be_a_closed_object() {
    let problems = problems(&[&OPEN, &NOT_OBJECT]);
    assert_eq!(problems.len(), 2, "{problems:#?}");
    for (problem, meta) in problems.iter().zip([&OPEN_META, &NOT_OBJECT_META]) {
        assert!(problem.contains(meta.name), "{problem}");
        assert!(problem.contains(&site(meta)), "{problem}");
        assert!(problem.contains("closed object"), "{problem}");
        assert!(problem.contains("deny_unknown_fields"), "{problem}");
    }
}

#[test]
fn input_and_result_may_share_a_field() {
    // `path` is on both sides: ordinary, no startup refusal (the dispatch tests of
    // `author_traps` show that a result-only field is still refused as input).
    let registry = build(&[&SHARED]).unwrap_or_else(|error| panic!("{error}"));
    assert!(registry.get("SharedField").is_some());
}

#[test]
fn a_description_must_not_be_empty() {
    let problems = problems(&[&EMPTY_DESCRIPTION]);
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert!(problems[0].contains("NoDescription"), "{problems:#?}");
    assert!(problems[0].contains("empty description"), "{problems:#?}");
    assert!(
        problems[0].contains(&site(&EMPTY_DESCRIPTION_META)),
        "{problems:#?}"
    );
}

#[test]
fn a_freeform_grammar_must_not_be_empty() {
    let problems = problems(&[&EMPTY_GRAMMAR]);
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert!(problems[0].contains("EmptyGrammar"), "{problems:#?}");
    assert!(problems[0].contains("lark"), "{problems:#?}");
    assert!(problems[0].contains("empty"), "{problems:#?}");
}

#[test]
fn a_freeform_grammar_must_parse() {
    let problems = problems(&[&BROKEN_LARK, &BROKEN_REGEX]);
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert!(problems[0].contains("BrokenLark"), "{problems:#?}");
    assert!(
        problems[0].contains("llguidance refuses it")
            && problems[0].contains("unknown name: \"body\""),
        "{problems:#?}"
    );
    assert!(problems[1].contains("BrokenRegex"), "{problems:#?}");
    assert!(problems[1].contains("regex"), "{problems:#?}");
    assert!(problems[1].contains("does not parse"), "{problems:#?}");
}

#[test]
fn a_name_must_be_portable() {
    let problems = problems(&[&BAD_NAME]);
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert!(problems[0].contains("`Bad Name!`"), "{problems:#?}");
    assert!(problems[0].contains("^[A-Za-z_]"), "{problems:#?}");
}

#[test]
fn every_problem_is_reported_not_only_the_first() {
    let tools: Vec<&'static dyn Tool> = downstream_tools()
        .chain([
            &VALID as &dyn Tool,
            &LOCAL_ECHO,
            &ALIAS_A,
            &ALIAS_B,
            &OPEN,
            &NOT_OBJECT,
            &EMPTY_DESCRIPTION,
            &EMPTY_GRAMMAR,
            &BROKEN_LARK,
            &BROKEN_REGEX,
            &BAD_NAME,
        ])
        .collect();
    let error = build(&tools).expect_err("broken tools");
    let expected = [
        "`Echo`",
        "`OldName`",
        "OpenInput",
        "StringInput",
        "NoDescription",
        "EmptyGrammar",
        "BrokenLark",
        "BrokenRegex",
        "`Bad Name!`",
    ];
    assert_eq!(error.problems.len(), expected.len(), "{error}");
    let text = error.to_string();
    assert!(
        text.starts_with(&format!(
            "the tool registry is invalid ({} problems):",
            expected.len()
        )),
        "{text}"
    );
    for needle in expected {
        assert!(
            error
                .problems
                .iter()
                .any(|problem| problem.contains(needle)),
            "no problem mentions {needle}: {text}"
        );
        assert!(text.contains(needle), "{text}");
    }
}

#[test]
fn a_broken_tool_still_has_its_duplicate_name_reported() {
    // The tool with an empty description also takes a name already in use: both
    // problems are reported at once, so the author fixes them in one round.
    static TWIN_META: ToolMeta = ToolMeta {
        description: "",
        ..meta("HandValid", line!())
    };
    static TWIN: HandTool = hand(&TWIN_META);
    let problems = problems(&[&VALID, &TWIN]);
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert!(
        problems.iter().any(|p| p.contains("empty description")),
        "{problems:#?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains(&site(&VALID_META)) && p.contains(&site(&TWIN_META))),
        "{problems:#?}"
    );
}

/// Arguments whose nested type accepts unknown fields: `Inner` has no
/// `#[serde(deny_unknown_fields)]`, so `{"inner": {"x": 1, "evil": 2}}` would parse.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct OpenOuter {
    inner: Inner,
    many: Vec<Inner>,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Inner {
    x: u32,
}

/// A tool whose input schema comes from `OpenOuter`, as a `#[holon_tool]`'s does.
struct NestedOpen;

static NESTED_OPEN_META: ToolMeta = meta("NestedOpen", line!());

impl Tool for NestedOpen {
    fn meta(&self) -> &'static ToolMeta {
        &NESTED_OPEN_META
    }

    fn input_fields(&self) -> &'static [&'static str] {
        &["inner", "many"]
    }

    fn input_schema(&self, generator: &mut SchemaGenerator) -> Schema {
        generator.root_schema_for::<OpenOuter>()
    }

    fn result_schema(&self, _: &mut SchemaGenerator) -> Schema {
        Schema::try_from(ok_result()).expect("an object schema")
    }

    fn call<'a>(&'a self, _: &'a ToolContext, _: ToolInput<'a>) -> CallFuture<'a> {
        CallFuture::ready(Ok(ToolOutput::new(json!({ "ok": true }).into())))
    }
}

#[test]
fn a_nested_object_that_accepts_unknown_fields_is_refused_naming_its_type() {
    let problems = problems(&[&NestedOpen]);
    // One problem per type, however many fields use it.
    assert_eq!(problems.len(), 1, "{problems:#?}");
    let problem = &problems[0];
    assert!(problem.contains("`NestedOpen`"), "{problem}");
    assert!(problem.contains(&site(&NESTED_OPEN_META)), "{problem}");
    assert!(problem.contains("`Inner`"), "{problem}");
    assert!(problem.contains("deny_unknown_fields"), "{problem}");
}
