//! The guidance lint over the built-in tools: a fixture per finding kind, a clean
//! fixture, the project's own `guidance/` folder, every tool description, and the
//! `holon-tools lint-guidance` command.

// Tests set their fixtures up with std::fs, processes and sockets freely.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::path::{Path, PathBuf};
use std::process::Command;

use holon_core::Registry;
use holon_core::prelude::*;
use holon_lint::{Finding, FindingKind, GuidanceFile, lint_descriptions, lint_guidance};
// Links the built-in tools into this test's registry.
use holon_tools as _;

/// A tool whose description contradicts its own schema, for the description lint.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
struct LintFixtureArgs {
    /// How long to wait, in milliseconds. Defaults to 250.
    #[serde(default)]
    wait_ms: Option<u64>,
    /// How to wait. Defaults to `careful`.
    #[serde(default)]
    mode: LintFixtureMode,
}

/// How LintFixture waits.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema, ClosedInput)]
#[serde(rename_all = "snake_case")]
enum LintFixtureMode {
    #[default]
    Fast,
    Careful,
}

#[derive(Serialize, JsonSchema)]
struct LintFixtureDone {
    waited_ms: u64,
}

/// Waits `wait_ms` (default 500), then answers; see `ExecComand`.
/// Call it with `mode: turbo`.
#[holon_tool(family = CoreAgent, keywords = ["dawdle", "lint fixture", "Fixture"])]
fn lint_fixture(args: LintFixtureArgs) -> LintFixtureDone {
    let _ = args.mode;
    LintFixtureDone {
        waited_ms: args.wait_ms.unwrap_or(250),
    }
}

const FIXTURE_TOOL: &str = "tool:LintFixture";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lint_fixtures")
}

fn lint_fixture_file(name: &str) -> Vec<Finding> {
    let text = std::fs::read_to_string(fixtures().join(name)).expect("the fixture");
    lint_guidance(
        Registry::global(),
        &[GuidanceFile {
            path: name,
            text: &text,
        }],
    )
}

fn lines_and_kinds(findings: &[Finding]) -> Vec<(usize, FindingKind)> {
    findings.iter().map(|f| (f.line, f.kind)).collect()
}

#[test]
fn each_finding_kind_is_found_where_it_is() {
    use FindingKind::*;
    let cases: &[(&str, &[(usize, FindingKind)])] = &[
        (
            "unknown_tool.md",
            &[
                (3, UnknownTool),
                (4, UnknownTool),
                (4, UnknownTool),
                (6, UnknownTool),
            ],
        ),
        ("unknown_field.md", &[(3, UnknownField), (4, UnknownField)]),
        (
            "invalid_enum_value.md",
            &[(3, InvalidEnumValue), (4, InvalidEnumValue)],
        ),
        ("invalid_value.md", &[(3, InvalidValue), (3, InvalidValue)]),
        (
            "default_mismatch.md",
            &[
                (3, DefaultMismatch),
                (4, DefaultMismatch),
                (5, DefaultMismatch),
            ],
        ),
        ("valid_example_rejected.md", &[(6, ValidExampleRejected)]),
        (
            "invalid_example_accepted.md",
            &[(3, InvalidExampleAccepted)],
        ),
        (
            "invalid_example_wrong_kind.md",
            &[(4, InvalidExampleWrongKind)],
        ),
        (
            "malformed_example.md",
            &[(3, MalformedExample), (8, MalformedExample)],
        ),
    ];
    for (name, expected) in cases {
        let findings = lint_fixture_file(name);
        assert_eq!(
            lines_and_kinds(&findings),
            *expected,
            "{name}: {findings:#?}"
        );
        assert!(findings.iter().all(|f| f.file == *name));
    }
}

#[test]
fn findings_say_what_to_fix() {
    let findings = lint_fixture_file("unknown_tool.md");
    assert_eq!(
        findings[0].to_string(),
        "unknown_tool.md:3: unknown_tool: `ExecComand` is not a tool; did you mean `ExecCommand`?"
    );
    let findings = lint_fixture_file("invalid_enum_value.md");
    assert!(
        findings[0].message.contains("reuse_running, start_new"),
        "{}",
        findings[0]
    );
    let findings = lint_fixture_file("default_mismatch.md");
    assert!(
        findings[0].message.contains("defaults to 10000"),
        "the runtime default from the field description: {}",
        findings[0]
    );
    let findings = lint_fixture_file("valid_example_rejected.md");
    assert!(
        findings[0].message.contains("result_field_in_input"),
        "{}",
        findings[0]
    );
}

/// Guidance that drifted from the tools, written the ways it drifts: a field renamed
/// or never there, a bare word where a boolean or number belongs, a wrong enum value.
/// Each file's first line says which findings it must give (`<!-- expect: ... -->`).
#[test]
fn every_drifted_text_is_caught() {
    let folder = fixtures().join("drifted");
    let mut checked = 0;
    let mut wrong = Vec::new();
    for entry in std::fs::read_dir(&folder).expect("the drifted corpus") {
        let path = entry.expect("an entry").path();
        let name = format!("drifted/{}", path.file_name().unwrap().to_string_lossy());
        let text = std::fs::read_to_string(&path).expect("a drifted text");
        let expected: Vec<&str> = text
            .lines()
            .next()
            .and_then(|line| line.strip_prefix("<!-- expect: "))
            .and_then(|rest| rest.strip_suffix(" -->"))
            .unwrap_or_else(|| panic!("{name}: no expect line"))
            .split_whitespace()
            .collect();
        let findings = lint_guidance(
            Registry::global(),
            &[GuidanceFile {
                path: &name,
                text: &text,
            }],
        );
        let found: Vec<&str> = findings.iter().map(|f| f.kind.as_str()).collect();
        if found != expected {
            wrong.push(format!(
                "{name}: expected {expected:?}, found {findings:#?}"
            ));
        }
        checked += 1;
    }
    assert!(checked >= 15, "{checked} drifted texts");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_bare_unknown_field_names_the_fields_to_use() {
    let findings = lint_fixture_file("drifted/page_token.md");
    assert_eq!(
        findings[0].message,
        "`page_token` is no field or value of ListProviderModels (nor of any other tool); \
         its input fields are cursor, include_unavailable, limit, provider"
    );
}

#[test]
fn a_clean_fixture_has_no_findings() {
    assert_eq!(lint_fixture_file("clean.md"), []);
}

#[test]
fn the_project_guidance_is_clean() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../guidance");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&folder).expect("the guidance folder") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|ext| ext == "md") {
            let text = std::fs::read_to_string(&path).expect("a guidance file");
            files.push((path.display().to_string(), text));
        }
    }
    assert!(!files.is_empty(), "guidance/ has no Markdown files");
    let texts: Vec<GuidanceFile<'_>> = files
        .iter()
        .map(|(path, text)| GuidanceFile { path, text })
        .collect();
    let findings = lint_guidance(Registry::global(), &texts);
    assert!(findings.is_empty(), "{findings:#?}");
}

#[test]
fn every_description_is_clean_and_a_wrong_one_is_caught() {
    let findings = lint_descriptions(Registry::global());
    let (fixture, others): (Vec<&Finding>, Vec<&Finding>) = findings
        .iter()
        .partition(|f| f.file.starts_with(FIXTURE_TOOL));
    assert!(others.is_empty(), "{others:#?}");
    let found: Vec<(&str, usize, FindingKind)> = fixture
        .iter()
        .map(|f| (f.file.as_str(), f.line, f.kind))
        .collect();
    assert_eq!(
        found,
        [
            ("tool:LintFixture", 1, FindingKind::UnknownTool),
            ("tool:LintFixture", 1, FindingKind::InvalidEnumValue),
            ("tool:LintFixture", 1, FindingKind::DefaultMismatch),
            ("tool:LintFixture#mode", 1, FindingKind::DefaultMismatch),
            ("tool:LintFixture#keywords[1]", 1, FindingKind::WeakKeyword),
            ("tool:LintFixture#keywords[2]", 1, FindingKind::WeakKeyword),
        ],
        "{fixture:#?}"
    );
}

fn holon_tools(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_holon-tools"))
        .args(args)
        .output()
        .expect("holon-tools runs")
}

#[test]
fn the_command_prints_findings_and_exits_1() {
    let folder = fixtures();
    let file = folder.join("default_mismatch.md");
    let output = holon_tools(&["lint-guidance", "--no-descriptions", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    let prefix = format!("{}:3: default_mismatch: ", file.display());
    assert!(lines[0].starts_with(&prefix), "{stdout}");

    let clean = folder.join("clean.md");
    let output = holon_tools(&["lint-guidance", clean.to_str().unwrap()]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );

    // A folder is read for its Markdown files, every fixture a finding or more.
    let output = holon_tools(&[
        "lint-guidance",
        "--no-descriptions",
        folder.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    // 18 in the fixtures of each kind, 18 in the drifted corpus.
    assert_eq!(stdout.lines().count(), 36, "{stdout}");

    let output = holon_tools(&["lint-guidance", "no/such/file.md"]);
    assert_eq!(output.status.code(), Some(2));
}
