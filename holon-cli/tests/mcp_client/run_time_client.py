"""The official Python MCP SDK client against `holon-tools serve`, over stdio and over
streamable HTTP on loopback: progress and cancellation of a call.

Usage: python run_time_client.py PATH/TO/holon-tools

- Progress: ExecCommand printing five lines, called with the SDK's `progress_callback`,
  must report increasing progress with its lines, the last at 5 with `line 5`, before
  the call returns.
- Cancellation, where the SDK sends one: from 2.0 on, a call whose caller abandons it
  (its anyio scope is cancelled) sends `notifications/cancelled`. ExecCommand running
  `sleep 30 &` is abandoned once it wrote its pids; the shell and the sleep must be
  gone, and the server must go on serving. SDK 1.x sends no cancellation for an
  abandoned call and has no API for one, so the check is left out there (and says so).

Exits non-zero on any failure.
"""

from __future__ import annotations

import importlib.metadata
import os
import sys
import tempfile

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from checks import Checks, field, text_of
from http_client import start


def alive(pid: int) -> bool:
    """Whether `pid` is a process that is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            state = stat.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


async def gone(pids: list[int]) -> bool:
    """Waits (at most 10 s, so that a regression fails rather than hangs) for `pids` to end."""
    for _ in range(500):
        if not any(alive(pid) for pid in pids):
            return True
        await anyio.sleep(0.02)
    return False


async def pids_of(path: str) -> list[int]:
    while not os.path.exists(path):
        await anyio.sleep(0.01)
    with open(path) as file:
        return [int(pid) for pid in file.read().split()]


async def progress(session: ClientSession, checks: Checks) -> None:
    reports: list[tuple[float, float | None, str | None]] = []

    async def record(progress: float, total: float | None, message: str | None) -> None:
        reports.append((progress, total, message))

    result = await session.call_tool(
        "ExecCommand",
        {"cmd": "for i in 1 2 3 4 5; do echo line $i; done"},
        progress_callback=record,
    )
    values = [report[0] for report in reports]
    checks.check(
        "ExecCommand with a progress callback succeeds",
        field(result, "is_error", "isError") is False,
        text_of(result),
    )
    checks.check(
        "its progress arrives, increasing, ending at its fifth line",
        len(reports) > 0
        and all(a < b for a, b in zip(values, values[1:]))
        and reports[-1][0] == 5
        and reports[-1][2] == "line 5",
        reports,
    )


async def cancellation(session: ClientSession, checks: Checks, workspace: str) -> None:
    pids_path = os.path.join(workspace, "pids")
    command = f"sleep 30 & echo $$ $! > {pids_path}.tmp; mv {pids_path}.tmp {pids_path}; wait"
    pids: list[int] = []
    async with anyio.create_task_group() as group:

        async def call() -> None:
            await session.call_tool("ExecCommand", {"cmd": command, "yield_time_ms": 600_000})

        group.start_soon(call)
        pids = await pids_of(pids_path)
        checks.check("the command runs", all(alive(pid) for pid in pids), pids)
        # Abandoning the call is how the SDK cancels it.
        group.cancel_scope.cancel()
    checks.check(
        "an abandoned call's command is killed, its whole process group",
        await gone(pids),
        [pid for pid in pids if alive(pid)],
    )
    result = await session.call_tool("Sleep", {"duration_ms": 1})
    checks.check(
        "the server serves the next call",
        field(result, "is_error", "isError") is False,
        result,
    )


async def run_time(session: ClientSession, checks: Checks, workspace: str, version: str) -> None:
    await session.initialize()
    await progress(session, checks)
    if int(version.split(".")[0]) >= 2:
        await cancellation(session, checks, workspace)
    else:
        print(
            f"skip {checks.label}: SDK {version} sends no cancellation for an abandoned call",
            flush=True,
        )


async def over_stdio(binary: str, version: str, checks: Checks) -> None:
    with tempfile.TemporaryDirectory() as workspace:
        params = StdioServerParameters(
            command=binary,
            # Its subject is progress and cancellation, not the approval policy (whose
            # default asks before ExecCommand).
            args=["--workspace", workspace, "--policy", "none", "serve"],
            env={"PATH": os.environ.get("PATH", "")},
        )
        try:
            with anyio.fail_after(120):
                async with stdio_client(params) as (read, write):
                    async with ClientSession(read, write) as session:
                        await run_time(session, checks, workspace, version)
        except Exception as error:  # noqa: BLE001 - every failure is reported
            checks.crash("the stdio session", error)


async def over_http(binary: str, version: str, checks: Checks) -> None:
    with tempfile.TemporaryDirectory() as workspace:
        server, url, token, lines = start(binary, workspace, policy="none")
        try:
            checks.check("the HTTP server starts", url is not None and token is not None, lines)
            if url is None or token is None:
                return
            headers = {"Authorization": f"Bearer {token}"}
            with anyio.fail_after(120):
                async with (
                    create_mcp_http_client(headers=headers) as http,
                    streamable_http_client(url, http_client=http) as streams,
                ):
                    async with ClientSession(streams[0], streams[1]) as session:
                        await run_time(session, checks, workspace, version)
        except Exception as error:  # noqa: BLE001 - every failure is reported
            checks.crash("the HTTP session", error)
        finally:
            server.kill()
            server.wait()


async def main(binary: str) -> int:
    version = importlib.metadata.version("mcp")
    stdio_checks = Checks("mcp-run-time-stdio")
    await over_stdio(binary, version, stdio_checks)
    http_checks = Checks("mcp-run-time-http")
    await over_http(binary, version, http_checks)
    return max(stdio_checks.finish(), http_checks.finish())


if __name__ == "__main__":
    sys.exit(anyio.run(main, sys.argv[1]))
