"""Holds the deferred exports (holon-discovery's deferred_exports example) to the
providers' own SDK request types: each payload goes into a whole request that must
validate, with unknown keys refused. Broken forms (`defer_loading` where an API has
none, on a namespace, a misnamed search tool) must be refused, which shows the types
do check what the exports rely on.
"""

import copy
import json
import sys
from pathlib import Path

# The request checks of holon-provider's oracle: the SDKs' TypedDicts made to refuse
# unknown keys, lazily validated iterables consumed.
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "holon-provider/tests/sdk_oracle"))
from check_requests import CHECKS  # noqa: E402

USER = "Which tools do you have?"


def request(provider, tools):
    if provider == "openai-chat":
        return {"model": "gpt-5", "messages": [{"role": "user", "content": USER}], "tools": tools}
    if provider == "openai-responses":
        return {"model": "gpt-5.4", "input": USER, "tools": tools}
    if provider == "anthropic":
        return {"model": "claude-opus-4-5", "max_tokens": 1024,
                "messages": [{"role": "user", "content": USER}], "tools": tools}
    return {"contents": [{"role": "user", "parts": [{"text": USER}]}], "tools": tools}


def refused(provider, tools):
    try:
        CHECKS[provider]["request"](request(provider, tools))
    except Exception:  # noqa: BLE001 - any validation error is a refusal
        return True
    return False


def main(path):
    exports = json.loads(Path(path).read_text())
    checked = 0
    for provider, payloads in exports.items():
        if provider == "mcp":
            continue  # MCP's list form is checked by the MCP clients and conformance suite
        for tools in payloads:
            CHECKS[provider]["request"](request(provider, tools))
            checked += 1
    def namespace_deferred(tools):
        next(t for t in tools if t["type"] == "namespace")["defer_loading"] = True

    def search_renamed(tools):
        tools[0]["name"] = "search"

    # (provider, which payload, how it is broken): the SDK types must refuse each.
    broken = [
        ("openai-chat", 0, lambda tools: tools[0].setdefault("defer_loading", True)),
        ("gemini", 0, lambda tools: tools[0]["functionDeclarations"][0].setdefault("defer_loading", True)),
        ("openai-responses", 1, namespace_deferred),
        ("anthropic", 0, search_renamed),
    ]
    for provider, index, mutate in broken:
        tools = copy.deepcopy(exports[provider][index])
        mutate(tools)
        assert refused(provider, tools), f"{provider} took a broken deferred export: {tools}"
    print(f"deferred exports: {checked} requests valid under the SDKs' request types; "
          f"{len(broken)} broken ones refused")


if __name__ == "__main__":
    main(sys.argv[1])
