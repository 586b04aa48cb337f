//! `holon-tools lint-guidance PATH...`: checks prompt guidance files, and every tool
//! description, against the registry (see `holon_lint` for what is read).

// The CLI's own I/O: it reads the guidance files the operator names.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use super::output::emit_line;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use holon_core::Registry;
use holon_lint::{GuidanceFile, lint_descriptions, lint_guidance};

/// Exit code when a path cannot be read.
const EXIT_UNREADABLE: u8 = 2;

/// The Markdown files of `path`: itself, or the `.md` files under it, sorted.
fn markdown_files(path: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if !path.is_dir() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)?
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for entry in entries {
        if entry.is_dir() {
            markdown_files(&entry, out)?;
        } else if entry
            .extension()
            .is_some_and(|ext| ext == "md" || ext == "markdown")
        {
            out.push(entry);
        }
    }
    Ok(())
}

/// Lints the guidance under `paths` and, unless `skip_descriptions`, every tool
/// description. Prints one `file:line: kind: message` a finding; exits 1 on any.
pub(crate) fn lint_guidance_paths(
    registry: &Registry,
    paths: &[PathBuf],
    skip_descriptions: bool,
) -> ExitCode {
    let mut files = Vec::new();
    for path in paths {
        if let Err(error) = markdown_files(path, &mut files) {
            eprintln!("holon-tools: cannot read {}: {error}", path.display());
            return ExitCode::from(EXIT_UNREADABLE);
        }
    }
    let mut texts = Vec::with_capacity(files.len());
    for file in &files {
        match std::fs::read_to_string(file) {
            Ok(text) => texts.push((file.display().to_string(), text)),
            Err(error) => {
                eprintln!("holon-tools: cannot read {}: {error}", file.display());
                return ExitCode::from(EXIT_UNREADABLE);
            }
        }
    }
    let guidance: Vec<GuidanceFile<'_>> = texts
        .iter()
        .map(|(path, text)| GuidanceFile { path, text })
        .collect();
    let mut findings = lint_guidance(registry, &guidance);
    if !skip_descriptions {
        findings.extend(lint_descriptions(registry));
    }
    for finding in &findings {
        emit_line(&finding.to_string());
    }
    let descriptions = if skip_descriptions {
        String::new()
    } else {
        format!(" and the descriptions of {} tools", registry.len())
    };
    eprintln!(
        "lint-guidance: {} finding{} in {} file{}{descriptions}",
        findings.len(),
        if findings.len() == 1 { "" } else { "s" },
        files.len(),
        if files.len() == 1 { "" } else { "s" },
    );
    if findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
