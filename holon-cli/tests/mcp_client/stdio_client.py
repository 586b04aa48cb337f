"""The official Python MCP SDK client against `holon-tools serve` over stdio.

Usage: python stdio_client.py PATH/TO/holon-tools

Starts the server as the SDK starts any stdio server, lists the tools, calls one well
and one badly, and checks that the server exits with status 0 when the client closes
its stdin. Exits non-zero on any failure.
"""

from __future__ import annotations

import os
import sys
import tempfile

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from checks import Checks, exercise


async def main(binary: str) -> int:
    checks = Checks("mcp-stdio")
    with tempfile.TemporaryDirectory() as workspace:
        exit_file = os.path.join(workspace, "server-exit-status")
        # A shell records the server's exit status, so that a server the SDK had to
        # kill (it did not stop when stdin closed) leaves no status behind.
        params = StdioServerParameters(
            command="sh",
            args=[
                "-c",
                'status=0; "$0" "$@" || status=$?; echo "$status" > "$HOLON_EXIT_FILE"',
                binary,
                "--workspace",
                workspace,
                "serve",
                "--families",
                "core_agent",
            ],
            env={"HOLON_EXIT_FILE": exit_file, "PATH": os.environ.get("PATH", "")},
        )
        try:
            with anyio.fail_after(120):
                async with stdio_client(params) as (read, write):
                    async with ClientSession(read, write) as session:
                        await exercise(session, checks)
        except Exception as error:  # noqa: BLE001 - every failure is reported
            checks.crash("the stdio session", error)
        status = None
        for _ in range(50):
            if os.path.exists(exit_file):
                with open(exit_file) as file:
                    status = file.read().strip()
                break
            await anyio.sleep(0.1)
        checks.check("the server exits with status 0 when stdin closes", status == "0", status)
    return checks.finish()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python stdio_client.py PATH/TO/holon-tools")
    sys.exit(anyio.run(main, sys.argv[1]))
