// The official TypeScript MCP SDK client against `holon-tools serve` over stdio.
//
// Usage: node ts_stdio_client.mjs PATH/TO/holon-tools (from a directory whose
// node_modules has @modelcontextprotocol/sdk; .ci/mcp-clients installs it).
//
// Node starts a child with Unix socket pairs as its stdin and stdout, not pipes, so
// this is the server's socket path (holon-mcp's stdio_pipes.rs). Lists the tools, calls
// one well and one badly, and makes one whose answer (about 600 KB: Sleep's receipt
// repeats its reason) is more than a socket holds. Exits non-zero on any failure, after the line
// `mcp-ts-stdio: N passed, M failed`.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const binary = process.argv[2];
let passed = 0;
let failed = 0;

function check(name, ok, detail) {
  if (ok) {
    passed += 1;
    console.log(`ok   mcp-ts-stdio: ${name}`);
  } else {
    failed += 1;
    console.log(`FAIL mcp-ts-stdio: ${name}: ${JSON.stringify(detail)?.slice(0, 500)}`);
  }
}

const workspace = mkdtempSync(join(tmpdir(), "holon-ts-client-"));
try {
  const transport = new StdioClientTransport({
    command: binary,
    args: ["--workspace", workspace, "serve", "--families", "core_agent"],
    stderr: "ignore",
  });
  const client = new Client({ name: "holon-ts-check", version: "1.0.0" });
  await client.connect(transport);
  check("initialize names the server", client.getServerVersion()?.name === "holon-tools",
    client.getServerVersion());

  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name);
  check("tools/list has the built-in tools",
    ["Sleep", "ListModelProviders"].every((name) => names.includes(name)), names);

  // The SDK checks a success's structured content against the tool's outputSchema.
  const slept = await client.callTool({
    name: "Sleep",
    arguments: { duration_ms: 5, reason: "ts client test" },
  });
  check("Sleep succeeds with structured content",
    slept.isError === false && slept.structuredContent?.slept_ms >= 0, slept);

  const bad = await client.callTool({
    name: "Sleep",
    arguments: { duration_ms: 5, durashun_ms: 5 },
  });
  check("a misspelt field is a tool error", bad.isError === true, bad);

  const reason = "x".repeat(600_000);
  const large = await client.callTool({ name: "Sleep", arguments: { duration_ms: 1, reason } });
  const text = large.content?.map((block) => block.text ?? "").join("") ?? "";
  check("a 600 KB answer arrives whole",
    large.isError === false && text.includes(reason),
    { isError: large.isError, length: text.length });

  const again = await client.callTool({
    name: "Sleep",
    arguments: { duration_ms: 1, reason: "after the large answer" },
  });
  check("the session goes on after it", again.isError === false, again);
  await client.close();
} catch (error) {
  check("the stdio session", false, String(error?.stack ?? error));
} finally {
  rmSync(workspace, { recursive: true, force: true });
}

console.log(`mcp-ts-stdio: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
