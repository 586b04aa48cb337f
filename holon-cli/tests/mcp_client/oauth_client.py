"""The official Python MCP SDK against `holon-tools serve --http --oauth-*` on loopback.

Usage: python oauth_client.py PATH/TO/holon-tools

Makes an EC P-256 key and its JWKS file with `cryptography` and PyJWT (the SDK's own
dependencies: a JWT implementation we did not write), starts the server as an OAuth
resource server for its loopback URL, then checks with the SDK's own OAuth helpers that
the 401 points at metadata the SDK accepts for this resource; that a token PyJWT signed
opens a session whose calls of a granted family succeed; that an expired token is
`invalid_token`; and that a call of a family the token lacks is a 403 whose scope the
SDK reads as the one to step up to. Exits non-zero on any failure.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

import anyio
import jwt
from cryptography.hazmat.primitives.asymmetric import ec
from mcp import ClientSession
from mcp.client.auth.utils import (
    extract_field_from_www_auth,
    extract_resource_metadata_from_www_auth,
    extract_scope_from_www_auth,
    handle_protected_resource_response,
)
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth_utils import check_resource_allowed

from checks import Checks, field

URL_LINE = re.compile(r"serving MCP over streamable HTTP at (http://127\.0\.0\.1:\d+/mcp)")
ISSUER = "https://auth.example"
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(binary: str, workspace: str, resource: str, jwks: str, port: int):
    server = subprocess.Popen(
        [binary, "--workspace", workspace, "serve", "--http", f"127.0.0.1:{port}",
         "--oauth-resource", resource, "--oauth-issuer", ISSUER, "--oauth-jwks-file", jwks],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    urls: list[str] = []
    lines: list[str] = []

    def read() -> None:
        assert server.stderr is not None
        for line in server.stderr:
            lines.append(line.rstrip())
            match = URL_LINE.search(line)
            if match and not urls:
                urls.append(match.group(1))

    threading.Thread(target=read, daemon=True).start()
    for _ in range(300):
        if urls or server.poll() is not None:
            break
        time.sleep(0.1)
    return server, (urls[0] if urls else None), lines


def initialize_body(id_: int = 1) -> str:
    return json.dumps({
        "jsonrpc": "2.0", "id": id_, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "oauth-raw", "version": "0"}},
    })


async def main(binary: str) -> int:
    checks = Checks("mcp-oauth")
    key = ec.generate_private_key(ec.SECP256R1())
    public_jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(key.public_key()))
    public_jwk.update({"kid": "test-key", "alg": "ES256", "use": "sig"})
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"

    def token(scope: str, lifetime: int = 300) -> str:
        now = int(time.time())
        claims = {"iss": ISSUER, "aud": resource, "sub": "alice", "client_id": "py-client",
                  "scope": scope, "iat": now, "exp": now + lifetime}
        return jwt.encode(claims, key, algorithm="ES256", headers={"kid": "test-key"})

    with tempfile.TemporaryDirectory() as workspace:
        jwks = f"{workspace}/jwks.json"
        with open(jwks, "w", encoding="utf-8") as file:
            json.dump({"keys": [public_jwk]}, file)
        server, url, lines = start(binary, workspace, resource, jwks, port)
        try:
            checks.check("the server reports its loopback URL", url == resource, lines)
            if url is None:
                return checks.finish()
            async with create_mcp_http_client() as http:
                refused = await http.post(url, content=initialize_body(), headers=ACCEPT)
                metadata_url = extract_resource_metadata_from_www_auth(refused)
                checks.check(
                    "a request without a token is 401 naming the metadata",
                    refused.status_code == 401 and metadata_url is not None,
                    (refused.status_code, refused.headers),
                )
                if metadata_url is not None:
                    metadata = await handle_protected_resource_response(await http.get(metadata_url))
                    checks.check(
                        "the SDK accepts the metadata, for this resource",
                        metadata is not None
                        and check_resource_allowed(resource, str(metadata.resource))
                        and [str(server) for server in metadata.authorization_servers]
                        in ([ISSUER], [ISSUER + "/"])
                        and "tools:core_agent" in (metadata.scopes_supported or []),
                        metadata,
                    )
                expired = await http.post(url, content=initialize_body(), headers={
                    **ACCEPT, "Authorization": f"Bearer {token('tools:core_agent', -3600)}"})
                checks.check(
                    "an expired token is 401 invalid_token",
                    expired.status_code == 401
                    and extract_field_from_www_auth(expired, "error") == "invalid_token",
                    (expired.status_code, expired.headers),
                )
                # A session with a core_agent token; ExecCommand is local_environment.
                granted = {**ACCEPT, "Authorization": f"Bearer {token('tools:core_agent')}"}
                opened = await http.post(url, content=initialize_body(), headers=granted)
                session_id = opened.headers.get("mcp-session-id")
                checks.check("a valid token opens a session", opened.status_code == 200
                             and session_id is not None, (opened.status_code, opened.text))
                if session_id is not None:
                    in_session = {**granted, "Mcp-Session-Id": session_id,
                                  "Mcp-Protocol-Version": "2025-11-25"}
                    await http.post(url, headers=in_session, content=json.dumps(
                        {"jsonrpc": "2.0", "method": "notifications/initialized"}))
                    call = json.dumps({
                        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
                        "params": {"name": "ExecCommand", "arguments": {"cmd": "true"}},
                    })
                    forbidden = await http.post(url, headers=in_session, content=call)
                    scope = extract_scope_from_www_auth(forbidden) or ""
                    checks.check(
                        "a call of a family the token lacks is 403 with the scope to step up to",
                        forbidden.status_code == 403
                        and extract_field_from_www_auth(forbidden, "error") == "insufficient_scope"
                        and set(scope.split()) == {"tools:core_agent", "tools:local_environment"},
                        (forbidden.status_code, forbidden.headers),
                    )
            try:
                with anyio.fail_after(120):
                    headers = {"Authorization": f"Bearer {token('tools:core_agent')}"}
                    async with (
                        create_mcp_http_client(headers=headers) as http,
                        streamable_http_client(url, http_client=http) as streams,
                    ):
                        async with ClientSession(streams[0], streams[1]) as session:
                            await session.initialize()
                            result = await session.call_tool(
                                "Sleep", {"duration_ms": 1, "reason": "oauth client test"})
                            checks.check(
                                "the SDK's session with a PyJWT token calls a granted tool",
                                field(result, "is_error", "isError") is False,
                                result,
                            )
            except Exception as error:  # noqa: BLE001 - every failure is reported
                checks.crash("the SDK session with an access token", error)
        finally:
            if server.poll() is None:
                server.terminate()
                try:
                    server.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    server.kill()
                    server.wait()
    return checks.finish()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python oauth_client.py PATH/TO/holon-tools")
    sys.exit(anyio.run(main, sys.argv[1]))
