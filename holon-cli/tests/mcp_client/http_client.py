"""The official Python MCP SDK client against `holon-tools serve --http` on loopback.

Usage: python http_client.py PATH/TO/holon-tools

Starts the server on 127.0.0.1 port 0 (the system picks a free port; the server prints
its URL and the bearer token it generated on stderr), checks that the SDK's streamable
HTTP client cannot initialize without the token, connects with the token in its
`Authorization` header, lists the tools, calls one well and one badly, then stops the
server with SIGTERM and checks that it exits with status 0. The server is killed
whatever happens. Exits non-zero on any failure.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import tempfile
import threading
import urllib.error
import urllib.request

import anyio
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

# The SDK's own factory of HTTP clients (httpx in 1.x, httpx2 in 2.x), with its timeouts.
from mcp.shared._httpx_utils import create_mcp_http_client

from checks import Checks, exercise

URL_LINE = re.compile(r"serving MCP over streamable HTTP at (http://127\.0\.0\.1:\d+/mcp)")
TOKEN_LINE = re.compile(r"bearer token .*: ([0-9a-f]{64})$")


def start(
    binary: str, workspace: str, policy: str | None = None
) -> tuple[subprocess.Popen[str], str | None, str | None, list[str]]:
    """`holon-tools serve --http` on loopback, under `--policy POLICY` when given."""
    chosen = ["--policy", policy] if policy else []
    server = subprocess.Popen(
        [binary, "--workspace", workspace, *chosen, "serve", "--http", "127.0.0.1:0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    urls: list[str] = []
    tokens: list[str] = []
    lines: list[str] = []

    def read() -> None:
        assert server.stderr is not None
        for line in server.stderr:
            lines.append(line.rstrip())
            for pattern, found in ((URL_LINE, urls), (TOKEN_LINE, tokens)):
                match = pattern.search(line.rstrip())
                if match and not found:
                    found.append(match.group(1))

    threading.Thread(target=read, daemon=True).start()
    for _ in range(300):
        if (urls and tokens) or server.poll() is not None:
            break
        threading.Event().wait(0.1)
    return server, (urls[0] if urls else None), (tokens[0] if tokens else None), lines


def raw_status(url: str, headers: dict[str, str]) -> tuple[int, str | None]:
    """The status of a bare `initialize` POST with `headers`, and its WWW-Authenticate."""
    body = json.dumps({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "0"}},
    }).encode()
    request = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        **headers,
    })
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers.get("WWW-Authenticate")
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("WWW-Authenticate")


async def refused_without_token(url: str) -> bool:
    """Whether a session without the token fails to initialize (the server answers 401)."""
    try:
        with anyio.fail_after(30):
            async with streamable_http_client(url) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
    except Exception:  # noqa: BLE001 - any failure to connect is the refusal
        return True
    return False


async def main(binary: str) -> int:
    checks = Checks("mcp-http")
    with tempfile.TemporaryDirectory() as workspace:
        server, url, token, lines = start(binary, workspace)
        try:
            checks.check("the server reports its loopback URL", url is not None, lines)
            checks.check("the server reports the token it generated", token is not None, lines)
            if url is not None and token is not None:
                checks.check(
                    "the SDK's client without the token cannot initialize",
                    await refused_without_token(url),
                    "the session initialized",
                )
                headers = {"Authorization": f"Bearer {token}"}
                # The token with its last digit changed.
                wrong = token[:-1] + ("1" if token.endswith("0") else "0")
                refusals = [
                    ({}, 401),
                    ({"Authorization": f"Bearer {wrong}"}, 401),
                    ({**headers, "Origin": "http://evil.example"}, 403),
                ]
                for extra, expected in refusals:
                    status, challenge = raw_status(url, extra)
                    checks.check(
                        f"a POST with {sorted(extra) or 'no headers'} is refused with {expected}",
                        status == expected
                        and (expected != 401 or (challenge or "").startswith("Bearer")),
                        (status, challenge),
                    )
                try:
                    with anyio.fail_after(120):
                        async with (
                            create_mcp_http_client(headers=headers) as http,
                            streamable_http_client(url, http_client=http) as streams,
                        ):
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
