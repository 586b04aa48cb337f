"""The official Python MCP SDK client against `holon-tools serve --http` on loopback.

Usage: python http_client.py PATH/TO/holon-tools

Starts the server on 127.0.0.1 port 0 (the system picks a free port; the server prints
its URL on stderr), connects with the SDK's streamable HTTP client, lists the tools,
calls one well and one badly, then stops the server with SIGTERM and checks that it
exits with status 0. The server is killed whatever happens. Exits non-zero on any
failure.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import tempfile
import threading

import anyio
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from checks import Checks, exercise

URL_LINE = re.compile(r"serving MCP over streamable HTTP at (http://127\.0\.0\.1:\d+/mcp)")


def start(binary: str, workspace: str) -> tuple[subprocess.Popen[str], str | None, list[str]]:
    server = subprocess.Popen(
        [binary, "--workspace", workspace, "serve", "--http", "127.0.0.1:0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    found: list[str] = []
    lines: list[str] = []

    def read() -> None:
        assert server.stderr is not None
        for line in server.stderr:
            lines.append(line.rstrip())
            match = URL_LINE.search(line)
            if match and not found:
                found.append(match.group(1))

    threading.Thread(target=read, daemon=True).start()
    for _ in range(300):
        if found or server.poll() is not None:
            break
        threading.Event().wait(0.1)
    return server, (found[0] if found else None), lines


async def main(binary: str) -> int:
    checks = Checks("mcp-http")
    with tempfile.TemporaryDirectory() as workspace:
        server, url, lines = start(binary, workspace)
        try:
            checks.check("the server reports its loopback URL", url is not None, lines)
            if url is not None:
                try:
                    with anyio.fail_after(120):
                        async with streamable_http_client(url) as streams:
                            read, write = streams[0], streams[1]
                            async with ClientSession(read, write) as session:
                                await exercise(session, checks)
                except Exception as error:  # noqa: BLE001 - every failure is reported
                    checks.crash("the HTTP session", error)
            if server.poll() is None:
                server.send_signal(signal.SIGTERM)
            try:
                status = server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                status = None
            checks.check("the server exits with status 0 on SIGTERM", status == 0, (status, lines))
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
    return checks.finish()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python http_client.py PATH/TO/holon-tools")
    sys.exit(anyio.run(main, sys.argv[1]))
