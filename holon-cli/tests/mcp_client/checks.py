"""What both MCP client scripts check, through the official Python MCP SDK.

Each check prints `ok` or `FAIL` with a reason; `Checks.finish()` prints the closing
line `<label>: N passed, M failed` and returns the exit code (non-zero on any failure).
"""

from __future__ import annotations

import traceback
from typing import Any

from mcp import ClientSession

try:  # the SDK's protocol error: `MCPError` from 2.0 on, `McpError` before
    from mcp import MCPError as ProtocolError
except ImportError:  # pragma: no cover - SDK 1.x
    from mcp import McpError as ProtocolError


def field(obj: Any, *names: str) -> Any:
    """An attribute of an SDK object under its Python name or its wire name."""
    for name in names:
        if hasattr(obj, name):
            return getattr(obj, name)
    return None


class Checks:
    def __init__(self, label: str) -> None:
        self.label = label
        self.passed = 0
        self.failed = 0

    def check(self, name: str, condition: bool, detail: Any = "") -> None:
        if condition:
            self.passed += 1
            print(f"ok   {self.label}: {name}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL {self.label}: {name}: {detail}", flush=True)

    def crash(self, name: str, error: BaseException) -> None:
        self.failed += 1
        print(f"FAIL {self.label}: {name}: {error!r}", flush=True)
        traceback.print_exception(error)

    def finish(self) -> int:
        print(f"{self.label}: {self.passed} passed, {self.failed} failed", flush=True)
        return 0 if self.failed == 0 and self.passed > 0 else 1


def text_of(result: Any) -> str:
    return "\n".join(
        block.text for block in result.content if getattr(block, "type", None) == "text"
    )


async def exercise(session: ClientSession, checks: Checks) -> None:
    """Initialize, list the tools, call one well and one badly, and an unknown tool."""
    init = await session.initialize()
    server_info = field(init, "server_info", "serverInfo")
    checks.check("initialize names the server", server_info.name == "holon-tools", server_info)

    listed = await session.list_tools()
    tools = {tool.name: tool for tool in listed.tools}
    checks.check(
        "tools/list has the built-in tools",
        {"Sleep", "ListModelProviders", "ListProviderModels"} <= tools.keys(),
        sorted(tools),
    )
    for tool in tools.values():
        input_schema = field(tool, "input_schema", "inputSchema")
        output_schema = field(tool, "output_schema", "outputSchema")
        checks.check(
            f"{tool.name} is described, with object input and output schemas",
            bool(tool.description)
            and bool(tool.title)
            and input_schema.get("type") == "object"
            and input_schema.get("additionalProperties") is False
            and output_schema is not None
            and output_schema.get("type") == "object",
            tool,
        )
    sleep = tools.get("Sleep")
    annotations = field(sleep, "annotations") if sleep else None
    checks.check(
        "Sleep carries its annotations",
        annotations is not None and field(annotations, "read_only_hint", "readOnlyHint") is True,
        annotations,
    )

    # A call that succeeds: the receipt as text, the typed result as structured content
    # (the SDK also checks it against the tool's outputSchema).
    result = await session.call_tool("Sleep", {"duration_ms": 5, "reason": "mcp client test"})
    structured = field(result, "structured_content", "structuredContent")
    checks.check(
        "Sleep succeeds with a receipt and structured content",
        field(result, "is_error", "isError") is False
        and "slept" in text_of(result)
        and isinstance(structured, dict)
        and structured.get("slept_ms", -1) >= 0,
        result,
    )

    result = await session.call_tool("ListModelProviders", {"include_unavailable": True})
    structured = field(result, "structured_content", "structuredContent") or {}
    checks.check(
        "ListModelProviders lists the catalog",
        field(result, "is_error", "isError") is False and len(structured.get("providers", [])) > 0,
        result,
    )

    # A bad field is a tool error the model can act on, not a protocol error. An error
    # result has no structured content (the outputSchema describes successes; the SDK,
    # which validates structured content, does so for successful results only): the
    # typed error is under `_meta["holon/error"]`, the receipt in the text.
    result = await session.call_tool("Sleep", {"duration_ms": 5, "durashun_ms": 5})
    meta = field(result, "meta", "_meta") or {}
    error = meta.get("holon/error") or {}
    checks.check(
        "a bad field is isError with the typed error and no structured content",
        field(result, "is_error", "isError") is True
        and field(result, "structured_content", "structuredContent") is None
        and error.get("kind") == "unknown_field"
        and "unknown_field" in text_of(result)
        and "duration_ms" in text_of(result),
        result,
    )

    result = await session.call_tool("Sleep", {"duration_ms": 0})
    meta = field(result, "meta", "_meta") or {}
    error = meta.get("holon/error") or {}
    checks.check(
        "an out-of-range value is isError with its field",
        field(result, "is_error", "isError") is True
        and error.get("kind") == "invalid_tool_input"
        and error.get("field") == "duration_ms",
        result,
    )

    # An unknown tool is a JSON-RPC invalid-params error.
    try:
        await session.call_tool("Slep", {})
        checks.check("an unknown tool is a JSON-RPC error", False, "the call returned a result")
    except ProtocolError as raised:
        code = field(raised, "code")
        if code is None:
            code = field(field(raised, "error"), "code")
        checks.check(
            "an unknown tool is a JSON-RPC invalid-params error",
            code == -32602 and "Sleep" in str(raised),
            f"code {code}: {raised}",
        )
