"""FastMCP's BM25 search transform on the same tools and queries as holon's search:
recall@1, recall@5 and MRR@5 per query set.

    python scripts/discovery-quality-fastmcp.py TOOLS.json \
        tests/discovery-fixture/data/queries.txt tests/discovery-fixture/data/queries-user.txt \
        tests/discovery-fixture/data/queries-blind.txt \
        tests/discovery-fixture/data/queries-blind-2.txt \
        tests/discovery-fixture/data/queries-blind-3.txt

TOOLS.json is `discovery-quality --dump-tools`: each set's tools in MCP `tools/list`
form (name, description, inputSchema), exactly what holon's index is built from.
Each set is served by a FastMCP server with `BM25SearchTransform(max_results=5)`, and
every query goes through its `search_tools` tool over an in-memory client, as a model
would call it. The user-angle set's queries run over the built-in tools, split as
`half` says (the same rule as the fixture's `Half::of`). Prints one line per set, then
a JSON summary.
"""

import asyncio
import hashlib
import json
import sys
from pathlib import Path

from fastmcp import Client, FastMCP
from fastmcp.server.transforms.search import BM25SearchTransform
from fastmcp.tools.base import Tool, ToolResult


class CatalogTool(Tool):
    """A tool known by its definition only; search never runs it."""

    async def run(self, arguments):
        return ToolResult(content=[])


def read_queries(path):
    sets, current = {}, None
    for line in Path(path).read_text().splitlines():
        line = line.strip()
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1]
        elif line and not line.startswith("#") and "|" in line:
            expected, text = (part.strip() for part in line.split("|", 1))
            sets.setdefault(current, []).append((expected, text))
    return sets


def half(text):
    """The user-angle set's split: the tuning half when the first byte of the SHA-256
    of the query's text is even, else the held-out half."""
    return "user_tuning" if hashlib.sha256(text.encode()).digest()[0] % 2 == 0 else "user_held_out"


def result_names(result):
    data = result.structured_content
    if isinstance(data, dict) and "result" in data:
        data = data["result"]
    if data is None:
        data = json.loads(result.content[0].text)
    return [tool["name"] for tool in data]


async def evaluate(tools, queries):
    server = FastMCP("catalog")
    for tool in tools:
        server.add_tool(CatalogTool(
            name=tool["name"], description=tool.get("description", ""),
            parameters=tool["inputSchema"]))
    server.add_transform(BM25SearchTransform(max_results=5))
    at1 = at5 = 0
    reciprocal = 0.0
    async with Client(server) as client:
        for expected, text in queries:
            names = result_names(await client.call_tool("search_tools", {"query": text}))
            if expected in names:
                rank = names.index(expected)
                at5 += 1
                at1 += rank == 0
                reciprocal += 1 / (rank + 1)
    n = len(queries)
    return {"tools": len(tools), "queries": n, "recall_at_1": at1 / n,
            "recall_at_5": at5 / n, "mrr_at_5": reciprocal / n}


async def main(tools_path, queries_path, user_queries_path, blind_queries_path,
               blind_2_queries_path, blind_3_queries_path):
    tools = json.loads(Path(tools_path).read_text())
    queries = read_queries(queries_path)
    for expected, text in read_queries(user_queries_path)["builtin"]:
        queries.setdefault(half(text), []).append((expected, text))
    queries["blind"] = read_queries(blind_queries_path)["builtin"]
    queries["blind_2"] = read_queries(blind_2_queries_path)["builtin"]
    queries["blind_3"] = read_queries(blind_3_queries_path)["builtin"]
    summary = {}
    for name, tool_set in (("builtin", "builtin"), ("catalog", "catalog"),
                           ("user_tuning", "builtin"), ("user_held_out", "builtin"),
                           ("blind", "builtin"), ("blind_2", "builtin"),
                           ("blind_3", "builtin")):
        figures = await evaluate(tools[tool_set], queries[name])
        summary[name] = figures
        print(f"fastmcp {name:<13} {figures['tools']:>4} tools {figures['queries']:>4} queries  "
              f"recall@1 {figures['recall_at_1']:.3f}  recall@5 {figures['recall_at_5']:.3f}  "
              f"MRR@5 {figures['mrr_at_5']:.3f}")
    print(json.dumps(summary))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:7]))
