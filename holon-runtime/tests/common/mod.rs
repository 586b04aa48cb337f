//! What the approval tests share: Bump, a destructive tool that counts its runs in a
//! file, and the policy that asks for it.

use std::io::Write;
use std::path::{Path, PathBuf};

use holon_core::prelude::*;
use holon_policy::{AnnotationMatch, ApprovalPolicy, Rule, Verdict};

/// The file each run of Bump appends a line to.
pub struct RunLog(pub PathBuf);

/// Arguments of Bump.
#[derive(Debug, Deserialize, JsonSchema, ToolArgs)]
#[serde(deny_unknown_fields)]
pub struct BumpArgs {
    /// A label, written to the log.
    pub label: String,
}

/// Appends one line to the host's run log.
#[holon_tool(family = LocalEnvironment, annotations(destructive, open_world = false))]
pub fn bump(log: &RunLog, args: BumpArgs) -> Result<String, ToolError> {
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(&log.0)?;
    writeln!(file, "{}", args.label)?;
    Ok(args.label)
}

/// How many times Bump ran with `log` as its run log.
pub fn runs(log: &Path) -> usize {
    std::fs::read_to_string(log).map_or(0, |text| text.lines().count())
}

/// Allows every call but asks for destructive ones (Bump is one).
pub fn ask_destructive() -> ApprovalPolicy {
    ApprovalPolicy::new(Verdict::Allow)
        .with_rule(Rule::new(Verdict::Ask).for_annotation(AnnotationMatch::Destructive))
}

/// A runtime to block on a dispatch in.
pub fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}
