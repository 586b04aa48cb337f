//! A tool's result as an MCP `tools/call` result: holon-export's MCP form (every
//! content kind), with the call's artifacts as `resource_link`s to `file://` URIs in
//! the workspace, checked into rmcp's types.

use std::path::Path;

use holon_core::{Artifact, ContentBlock, ToolDefinition, ToolResult, ToolStatus};
use holon_export::mcp;
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ResultType};

/// Where a deferred call's `deferral` (`approval_required`) is in its result's `_meta`.
pub(crate) const DEFERRAL_META_KEY: &str = "holon/deferral";

/// The `tools/call` result of `result`, a call of `definition`; relative artifact
/// paths are taken in `workspace`. holon-export's MCP form ([`mcp::call_result`])
/// defines it; it is built here in rmcp's types directly, without a JSON round trip on
/// every call (a test checks that both agree).
pub(crate) fn call_result(
    definition: &ToolDefinition,
    mut result: ToolResult,
    workspace: Option<&Path>,
) -> Result<CallToolResult, ErrorData> {
    let links: Vec<ContentBlock> = result
        .artifacts()
        .iter()
        .filter_map(|artifact| artifact_link(artifact, workspace))
        .collect();
    if !links.is_empty() {
        result.extras_mut().content.extend(links);
    }
    let content = result
        .model_content()
        .into_iter()
        .map(rmcp_block)
        .collect::<Result<Vec<_>, _>>()?;
    let mut wire = if result.status == ToolStatus::Error {
        let mut wire = CallToolResult::error(content);
        if let Some(error) = &result.error {
            insert_meta(&mut wire, mcp::ERROR_META_KEY, error);
        }
        wire
    } else {
        let mut wire = CallToolResult::success(content);
        wire.structured_content = result
            .structured
            .as_ref()
            .map(|structured| mcp::structured_content(Some(definition), structured));
        wire
    };
    // A deferred call (the operator's approval pending) has no output to match the
    // tool's output schema; its deferral goes beside the result, as errors do.
    if let Some(deferral) = result.deferral() {
        insert_meta(&mut wire, DEFERRAL_META_KEY, deferral);
    }
    wire.result_type = Some(ResultType::COMPLETE);
    Ok(wire)
}

/// rmcp's form of `block`: a text block directly (nearly every block is one), any
/// other kind from holon-export's MCP form of it, which defines them.
fn rmcp_block(block: ContentBlock) -> Result<rmcp::model::ContentBlock, ErrorData> {
    match block {
        ContentBlock::Text { text } => Ok(rmcp::model::ContentBlock::text(text)),
        other => serde_json::from_value(mcp::content_block(&other)).map_err(|error| {
            ErrorData::internal_error(format!("the result could not be encoded: {error}"), None)
        }),
    }
}

/// Puts `value` under `key` in the `_meta` of `result`.
fn insert_meta(result: &mut CallToolResult, key: &str, value: &impl serde::Serialize) {
    if let Ok(value) = serde_json::to_value(value) {
        result
            .meta
            .get_or_insert_with(Default::default)
            .0
            .insert(key.to_string(), value);
    }
}

/// The `resource_link` of `artifact`: its `file://` URI, named by its file name and
/// described by its role. `None` for a relative path without a workspace to resolve
/// it in.
pub(crate) fn artifact_link(artifact: &Artifact, workspace: Option<&Path>) -> Option<ContentBlock> {
    let path = Path::new(&artifact.path);
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        workspace?.join(path)
    };
    let uri = file_uri(&absolute)?;
    let name = absolute
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| artifact.path.clone());
    Some(ContentBlock::ResourceLink {
        uri,
        name,
        description: Some(artifact.role.clone()),
        mime_type: None,
    })
}

/// The `file://` URI of the absolute path `path`, as `url::Url::from_file_path`
/// writes it: each component after the root percent-encoded with the WHATWG path
/// segment set (plus `\`). Unix paths are bytes, so that is all there is to it; `url`
/// itself (and its IDNA tables) is built only where drive letters and UNC hosts need it.
#[cfg(unix)]
fn file_uri(path: &Path) -> Option<String> {
    use percent_encoding::{AsciiSet, CONTROLS, percent_encode};
    use std::os::unix::ffi::OsStrExt;

    /// The WHATWG path-segment percent-encode set, and `\`, as `url` encodes a
    /// file path's segments.
    const SEGMENT: &AsciiSet = &CONTROLS
        .add(b' ')
        .add(b'"')
        .add(b'<')
        .add(b'>')
        .add(b'`')
        .add(b'#')
        .add(b'?')
        .add(b'{')
        .add(b'}')
        .add(b'/')
        .add(b'%')
        .add(b'\\');

    if !path.is_absolute() {
        return None;
    }
    let mut uri = String::from("file://");
    for component in path.components().skip(1) {
        uri.push('/');
        uri.extend(percent_encode(component.as_os_str().as_bytes(), SEGMENT));
    }
    if uri.len() == "file://".len() {
        uri.push('/');
    }
    Some(uri)
}

/// The `file://` URI of the absolute path `path` (drive letters, UNC hosts).
#[cfg(not(unix))]
fn file_uri(path: &Path) -> Option<String> {
    url::Url::from_file_path(path).ok().map(String::from)
}

#[cfg(test)]
mod tests {

    use holon_core::prelude::holon_tool;
    use holon_core::{Registry, ResultExtras, ToolStatus};
    use rmcp::model::{ContentBlock as Rmcp, Resource, ResourceContents};

    use super::*;

    /// Answers ok.
    #[holon_tool(family = CoreAgent)]
    fn answer_ok() -> bool {
        true
    }

    fn result_with(content: Vec<ContentBlock>, artifacts: Vec<Artifact>) -> ToolResult {
        ToolResult {
            tool_name: "AnswerOk".into(),
            call_id: None,
            status: ToolStatus::Success,
            structured: Some(serde_json::json!({ "ok": true }).into()),
            error: None,
            extras: Some(Box::new(ResultExtras {
                content,
                artifacts,
                receipt: Some("done".to_string()),
                ..ResultExtras::default()
            })),
        }
    }

    fn definition() -> &'static ToolDefinition {
        Registry::global()
            .get("AnswerOk")
            .expect("AnswerOk is declared above")
    }

    /// rmcp, the reference: each kind of ours arrives as the block rmcp's own
    /// constructors build for the same data.
    #[test]
    fn every_content_kind_arrives_as_the_rmcp_block_of_that_kind() {
        let cases = [
            (
                ContentBlock::Image {
                    mime_type: "image/png".into(),
                    data: "iVBORw0=".into(),
                },
                Rmcp::image("iVBORw0=", "image/png"),
            ),
            (
                ContentBlock::Audio {
                    mime_type: "audio/wav".into(),
                    data: "UklGRg==".into(),
                },
                Rmcp::audio("UklGRg==", "audio/wav"),
            ),
            (
                ContentBlock::ResourceText {
                    uri: "test://embedded".into(),
                    mime_type: Some("text/plain".into()),
                    text: "hello".into(),
                },
                Rmcp::embedded_text("test://embedded", "hello"),
            ),
            (
                ContentBlock::ResourceBlob {
                    uri: "test://blob".into(),
                    mime_type: Some("application/octet-stream".into()),
                    blob: "AAEC".into(),
                },
                Rmcp::resource(ResourceContents::BlobResourceContents {
                    uri: "test://blob".into(),
                    mime_type: Some("application/octet-stream".into()),
                    blob: "AAEC".into(),
                    meta: None,
                }),
            ),
            (
                ContentBlock::ResourceText {
                    uri: "test://no-mime".into(),
                    mime_type: None,
                    text: "plain".into(),
                },
                Rmcp::resource(ResourceContents::TextResourceContents {
                    uri: "test://no-mime".into(),
                    mime_type: None,
                    text: "plain".into(),
                    meta: None,
                }),
            ),
            (
                ContentBlock::ResourceLink {
                    uri: "file:///tmp/a.txt".into(),
                    name: "a.txt".into(),
                    description: Some("stdout".into()),
                    mime_type: Some("text/plain".into()),
                },
                Rmcp::resource_link(
                    Resource::new("file:///tmp/a.txt", "a.txt")
                        .with_description("stdout")
                        .with_mime_type("text/plain"),
                ),
            ),
        ];
        for (ours, reference) in cases {
            let result = call_result(definition(), result_with(vec![ours.clone()], vec![]), None)
                .expect("encodes");
            assert_eq!(
                result.content.len(),
                2,
                "{ours:?}: the receipt, then the block"
            );
            assert_eq!(result.content[0], Rmcp::text("done"));
            assert_eq!(result.content[1], reference, "{ours:?}");
        }
    }

    /// holon-export's MCP form, the definition: the typed result serializes to it (plus
    /// the result type and a deferral's `_meta`) for every content kind, an error, a
    /// wrapped structured result and a deferred call.
    #[test]
    fn the_typed_result_is_holon_exports_mcp_form() {
        let blocks = vec![
            ContentBlock::Image {
                mime_type: "image/png".into(),
                data: "iVBORw0=".into(),
            },
            ContentBlock::Audio {
                mime_type: "audio/wav".into(),
                data: "UklGRg==".into(),
            },
            ContentBlock::ResourceText {
                uri: "test://embedded".into(),
                mime_type: None,
                text: "hello".into(),
            },
            ContentBlock::ResourceBlob {
                uri: "test://blob".into(),
                mime_type: Some("application/octet-stream".into()),
                blob: "AAEC".into(),
            },
            ContentBlock::ResourceLink {
                uri: "file:///tmp/a.txt".into(),
                name: "a.txt".into(),
                description: None,
                mime_type: Some("text/plain".into()),
            },
            ContentBlock::ToolUse {
                id: "call-1".into(),
                name: "Other".into(),
                input: serde_json::json!({ "x": 1 }),
            },
            ContentBlock::Text {
                text: "more".into(),
            },
        ];
        let mut deferred = result_with(vec![], vec![]);
        deferred.structured = None;
        deferred.extras_mut().deferral = Some(holon_core::Deferral::ApprovalRequired(
            holon_core::ApprovalRequired {
                approval_id: "a-1".into(),
                tool: "AnswerOk".into(),
                arguments: serde_json::json!({}),
                arguments_sha256: "00".into(),
                principal: "local".into(),
                caller: None,
                reason: "asks".into(),
                expires_at_ms: 1,
            },
        ));
        let failed = ToolResult::from_error(
            "AnswerOk",
            holon_core::ToolError::new(holon_core::ToolErrorKind::INVALID_TOOL_INPUT, "bad input"),
        );
        let results = [
            result_with(blocks, vec![]),
            result_with(vec![], vec![]),
            failed,
            deferred,
        ];
        for result in results {
            let mut expected = mcp::call_result(Some(definition()), &result);
            expected["resultType"] = serde_json::json!("complete");
            if let Some(deferral) = result.deferral() {
                expected["_meta"] = serde_json::json!({ DEFERRAL_META_KEY: deferral });
            }
            let typed = call_result(definition(), result.clone(), None).expect("encodes");
            let typed = serde_json::to_value(typed).expect("serializes");
            assert_eq!(typed, expected, "{result:?}");
        }
    }

    #[test]
    fn artifacts_become_file_links_in_the_workspace() {
        let workspace = Path::new("/work space/project");
        let artifacts = vec![
            Artifact {
                path: "out/run log.txt".into(),
                role: "stdout".into(),
            },
            Artifact {
                path: "/elsewhere/picture.png".into(),
                role: "image".into(),
            },
        ];
        let result = call_result(
            definition(),
            result_with(vec![], artifacts),
            Some(workspace),
        )
        .expect("encodes");
        let links: Vec<_> = result.content[1..]
            .iter()
            .map(|block| {
                let link = block.as_resource_link().expect("a resource link");
                (
                    link.uri.as_str(),
                    link.name.as_str(),
                    link.description.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            links,
            [
                (
                    "file:///work%20space/project/out/run%20log.txt",
                    "run log.txt",
                    Some("stdout")
                ),
                (
                    "file:///elsewhere/picture.png",
                    "picture.png",
                    Some("image")
                ),
            ]
        );
    }

    #[test]
    fn a_relative_artifact_without_a_workspace_gets_no_link() {
        let artifact = Artifact {
            path: "out/log.txt".into(),
            role: "stdout".into(),
        };
        assert_eq!(artifact_link(&artifact, None), None);
    }

    /// `url` is the oracle: the links are what `Url::from_file_path` makes of the
    /// same paths, down to the bytes that are not UTF-8.
    #[cfg(unix)]
    #[test]
    fn file_uris_are_the_ones_url_makes() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;

        let mut paths: Vec<std::path::PathBuf> = [
            "/",
            "/tmp/a.txt",
            "/work space/run log.txt",
            "/a//b/./c/../d/",
            "/odd/%41 #frag ?query {x} `tick` \"q\" <lt> >gt\\back\\slash",
            "/ünïcödé/日本語/😀.png",
            "/ctl/\u{1}\u{7f}tab\there",
            "/keep/!$&'()*+,;=:@~-._[]|^",
        ]
        .iter()
        .map(std::path::PathBuf::from)
        .collect();
        paths.push(Path::new(OsStr::from_bytes(b"/not/utf8/\xff\xfe.bin")).to_path_buf());
        for path in paths {
            let expected = url::Url::from_file_path(&path).unwrap().to_string();
            assert_eq!(
                file_uri(&path).as_deref(),
                Some(expected.as_str()),
                "{path:?}"
            );
        }
        assert_eq!(file_uri(Path::new("relative/a.txt")), None);
    }
}
