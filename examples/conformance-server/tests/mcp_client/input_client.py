"""The official Python MCP SDK's elicitation and sampling callbacks answering the same
holon handlers (`test_elicitation`, `test_sampling`, `test_input_required_result_multi_round`
of examples/conformance-server) at both protocol revisions, over stdio and streamable
HTTP: at 2025-11-25 the handlers' requests reach the callbacks as requests of the
server; at 2026-07-28 through the SDK's multi-round `InputRequiredResult` driver.

Usage: python input_client.py PATH/TO/conformance-server

With a 1.x SDK, which cannot pin a revision, the 2025-11-25 checks run over stdio only
(through its `ClientSession`).
Exits non-zero on any failure; ends with `mcp-input: N passed, M failed`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client, types

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..",
                                "holon-cli", "tests", "mcp_client"))
from checks import Checks, field, text_of  # noqa: E402

try:
    from mcp.client import Client
except ImportError:  # pragma: no cover - SDK 1.x: no revision pin, no driver
    Client = None


class Answers:
    """The callbacks' answers, and what they were asked."""

    def __init__(self) -> None:
        self.elicited: list[str] = []
        self.sampled: list[str] = []

    async def elicit(self, context: Any, params: Any) -> Any:
        self.elicited.append(params.message)
        schema = field(params, "requested_schema", "requestedSchema")
        properties = schema["properties"] if isinstance(schema, dict) else schema.properties
        fields = {"username": "ada", "email": "ada@example.org", "name": "Ada", "color": "blue"}
        content = {key: fields[key] for key in properties if key in fields}
        return types.ElicitResult(action="accept", content=content)

    async def sample(self, context: Any, params: Any) -> Any:
        message = params.messages[0]
        self.sampled.append(getattr(message.content, "text", ""))
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="Paris"),
            model="python-sdk-callback",
            stop_reason="endTurn",
        )


async def exercise(server: Any, mode: str, label: str, checks: Checks) -> None:
    answers = Answers()
    async with Client(
        server,
        mode=mode,
        elicitation_callback=answers.elicit,
        sampling_callback=answers.sample,
    ) as client:
        checks.check(f"{label}: the revision is {mode}",
                     mode == "legacy" or client.protocol_version == mode,
                     client.protocol_version)
        await calls(client, answers, label, checks)


async def exercise_session(binary: str, checks: Checks) -> None:
    """The 1.x SDK's way: a `ClientSession` (2025-11-25) over stdio."""
    answers = Answers()
    params = StdioServerParameters(command=binary, args=["--stdio"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, sampling_callback=answers.sample,
                                 elicitation_callback=answers.elicit) as session:
            await session.initialize()
            await calls(session, answers, "stdio legacy (ClientSession)", checks)


async def calls(client: Any, answers: Answers, label: str, checks: Checks) -> None:
    """Calls the three tools through `client`, whose callbacks are `answers`'."""
    result = await client.call_tool("test_elicitation", {"message": "Who are you?"})
    text = text_of(result)
    checks.check(f"{label}: the elicitation callback's answer reaches the handler",
                 'content={"username":"ada","email":"ada@example.org"}' in text, text)
    checks.check(f"{label}: the callback was asked the handler's message",
                 answers.elicited == ["Who are you?"], answers.elicited)
    result = await client.call_tool("test_sampling", {"prompt": "Capital of France?"})
    text = text_of(result)
    checks.check(f"{label}: the sampling callback's reply reaches the handler",
                 "LLM response: Paris" in text, text)
    checks.check(f"{label}: the callback was asked the handler's prompt",
                 answers.sampled == ["Capital of France?"], answers.sampled)
    result = await client.call_tool("test_input_required_result_multi_round", {})
    text = text_of(result)
    checks.check(f"{label}: two questions in turn are both answered",
                 "Ada likes blue" in text, text)


def start_http(binary: str) -> tuple[subprocess.Popen, str]:
    server = subprocess.Popen([binary, "--http", "127.0.0.1:0", "--no-auth"],
                              stderr=subprocess.PIPE, text=True)
    assert server.stderr is not None
    for line in server.stderr:
        found = re.search(r"http://\S+/mcp", line)
        if found:
            return server, found.group(0)
    raise RuntimeError("the conformance server did not print its URL")


async def main(binary: str) -> int:
    checks = Checks("mcp-input")
    if Client is None or "mode" not in getattr(Client, "__dataclass_fields__", {}):
        try:
            with anyio.fail_after(120):
                await exercise_session(binary, checks)
        except Exception as error:  # noqa: BLE001 - every failure is reported
            checks.crash("stdio legacy (ClientSession)", error)
        return checks.finish()
    stdio = StdioServerParameters(command=binary, args=["--stdio"])
    http, url = start_http(binary)
    try:
        for mode in ("legacy", "2026-07-28"):
            for transport, server in (("stdio", stdio), ("http", url)):
                label = f"{transport} {mode}"
                try:
                    with anyio.fail_after(120):
                        await exercise(server, mode, label, checks)
                except Exception as error:  # noqa: BLE001 - every failure is reported
                    checks.crash(label, error)
    finally:
        http.terminate()
        http.wait()
    return checks.finish()


if __name__ == "__main__":
    sys.exit(anyio.run(main, sys.argv[1]))
