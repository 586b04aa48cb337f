"""The official Python MCP SDK's elicitation callback deciding calls that the host's
approval policy asks about (`holon-tools serve` with a policy asking before
CreateWorkItem), over stdio: the callback accepts one call and declines another; the
accepted one must have run once, the declined one not at all. With a 2.x SDK, at both
protocol revisions (2025-11-25 as a request of the server, 2026-07-28 through the SDK's
`InputRequiredResult` driver); with 1.x, at 2025-11-25 through its `ClientSession`.

Usage: python approvals_client.py PATH/TO/holon-tools
Exits non-zero on any failure; ends with `mcp-approvals: N passed, M failed`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client, types

from checks import Checks, field

try:
    from mcp.client import Client
except ImportError:  # pragma: no cover - SDK 1.x: no revision pin, no driver
    Client = None

POLICY = """
[[rule]]
tool = "CreateWorkItem"
decision = "ask"
reason = "work items are the operator's plan"
"""


class Decider:
    """Accepts calls whose objective is `accepted`, declines the others."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def elicit(self, context: Any, params: Any) -> Any:
        self.asked.append(params.message)
        action = "accept" if '"accepted' in params.message else "decline"
        return types.ElicitResult(action=action, content={} if action == "accept" else None)


def objectives(binary: str, workspace: str) -> list[str]:
    """The objectives of the work items that exist: what the asked calls create."""
    output = subprocess.run(
        [binary, "--workspace", workspace, "--policy", "none", "call", "ListWorkItems",
         '{"filter": "all"}', "--json"],
        env=environment(workspace), capture_output=True, text=True, check=True)
    items = json.loads(output.stdout)["structured"]["work_items"]
    return sorted(item["objective"] for item in items)


def environment(workspace: str) -> dict[str, str]:
    return {"HOLON_HOME": os.path.join(workspace, ".holon"),
            "PATH": os.environ.get("PATH", "")}


def workspace_with_policy() -> tempfile.TemporaryDirectory:
    workspace = tempfile.TemporaryDirectory()
    os.makedirs(os.path.join(workspace.name, ".holon"))
    with open(os.path.join(workspace.name, ".holon", "policy.toml"), "w") as policy:
        policy.write(POLICY)
    return workspace


async def decide(client: Any, decider: Decider, binary: str, workspace: str,
                 label: str, checks: Checks) -> None:
    accepted = await client.call_tool(
        "CreateWorkItem", {"objective": f"accepted {label}", "plan": "build, test"})
    checks.check(f"{label}: the accepted call answers its result",
                 not field(accepted, "isError", "is_error"), accepted)
    declined = await client.call_tool(
        "CreateWorkItem", {"objective": f"declined {label}", "plan": "build, test"})
    error = (field(declined, "meta", "_meta") or {}).get("holon/error") or {}
    checks.check(f"{label}: the declined call is the typed denial",
                 bool(field(declined, "isError", "is_error"))
                 and error.get("kind") == "approval_denied", declined)
    checks.check(f"{label}: the callback was shown each call with the policy's reason",
                 len(decider.asked) >= 2
                 and all("CreateWorkItem" in asked and "operator's plan" in asked
                         for asked in decider.asked), decider.asked)
    made = objectives(binary, workspace)
    checks.check(f"{label}: the accepted call ran once and the declined one not at all",
                 made == [f"accepted {label}"], made)


def server(binary: str, workspace: str) -> StdioServerParameters:
    return StdioServerParameters(command=binary, args=["--workspace", workspace, "serve"],
                                 env=environment(workspace))


async def main(binary: str) -> int:
    checks = Checks("mcp-approvals")
    driver = Client is not None and "mode" in getattr(Client, "__dataclass_fields__", {})
    modes = ("legacy", "2026-07-28") if driver else ("session",)
    for mode in modes:
        label = f"stdio {mode}"
        workspace = workspace_with_policy()
        decider = Decider()
        try:
            with anyio.fail_after(120):
                params = server(binary, workspace.name)
                if mode == "session":
                    async with stdio_client(params) as (read, write):
                        async with ClientSession(read, write,
                                                 elicitation_callback=decider.elicit) as session:
                            await session.initialize()
                            await decide(session, decider, binary, workspace.name, label, checks)
                else:
                    async with Client(params, mode=mode,
                                      elicitation_callback=decider.elicit) as client:
                        await decide(client, decider, binary, workspace.name, label, checks)
        except Exception as error:  # noqa: BLE001 - every failure is reported
            checks.crash(label, error)
        finally:
            workspace.cleanup()
    return checks.finish()


if __name__ == "__main__":
    sys.exit(anyio.run(main, sys.argv[1]))
