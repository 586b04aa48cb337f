"""Holds every item holon-provider wrote, and every whole next request, to the
providers' own SDK request types, and checks that each case came back as it must
(ids echoed, errors in the provider's error form, images carried or noted).

TypedDict params are made to refuse unknown keys (pydantic ignores them by default)
and every lazily validated iterable is consumed, so that nothing passes unchecked.
"""

import importlib
import inspect
import json
import pkgutil
import sys
from collections.abc import Iterator
from pathlib import Path

from typing_extensions import is_typeddict


def forbid_extra_keys(package):
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        try:
            module = importlib.import_module(info.name)
        except Exception:  # noqa: BLE001 - optional extras of the SDK
            continue
        for _, value in inspect.getmembers(module, inspect.isclass):
            if is_typeddict(value) and value.__module__.startswith(package.__name__):
                config = dict(getattr(value, "__pydantic_config__", None) or {})
                # Some params hold file handles (`IO[bytes]`): allowed as they were.
                config.update(extra="forbid", arbitrary_types_allowed=True)
                value.__pydantic_config__ = config


import anthropic.types  # noqa: E402
import openai.types  # noqa: E402

forbid_extra_keys(openai.types)
forbid_extra_keys(anthropic.types)

from anthropic.types import MessageParam  # noqa: E402
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming  # noqa: E402
from google.genai import types as gemini  # noqa: E402
from openai.types.chat import (  # noqa: E402
    ChatCompletionAssistantMessageParam,
    ChatCompletionToolMessageParam,
)
from openai.types.chat.completion_create_params import (  # noqa: E402
    CompletionCreateParamsNonStreaming,
)
from openai.types.responses import ResponseInputItemParam  # noqa: E402
from openai.types.responses.response_create_params import (  # noqa: E402
    ResponseCreateParamsNonStreaming,
)
from pydantic import TypeAdapter  # noqa: E402


def consume(value):
    """Iterates what pydantic validated lazily (an `Iterable[...]` field), so that its
    items are validated too."""
    if isinstance(value, dict):
        for item in value.values():
            consume(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            consume(item)
    elif isinstance(value, Iterator):
        for item in value:
            consume(item)


def typed_dict(adapter):
    def check(value):
        consume(adapter.validate_python(value))
    return check


def gemini_content(value):
    gemini.Content.model_validate(value)


def gemini_request(request):
    body = dict(request)
    tools = body.pop("tools")
    contents = body.pop("contents")
    assert not body, f"unexpected request fields {sorted(body)}"
    TypeAdapter(list[gemini.Content]).validate_python(contents)
    config = gemini.GenerateContentConfig.model_validate({"tools": tools})
    # The model `generate_content` builds its request from (private, but the SDK's own).
    gemini._GenerateContentParameters.model_validate(
        {"model": "gemini-2.5-pro", "contents": contents, "config": config})


CHECKS = {
    "openai-chat": {
        "model": typed_dict(TypeAdapter(ChatCompletionAssistantMessageParam)),
        "result": typed_dict(TypeAdapter(ChatCompletionToolMessageParam)),
        "request": typed_dict(TypeAdapter(CompletionCreateParamsNonStreaming)),
    },
    "openai-responses": {
        "model": typed_dict(TypeAdapter(ResponseInputItemParam)),
        "result": typed_dict(TypeAdapter(ResponseInputItemParam)),
        "request": typed_dict(TypeAdapter(ResponseCreateParamsNonStreaming)),
    },
    "anthropic": {
        "model": typed_dict(TypeAdapter(MessageParam)),
        "result": typed_dict(TypeAdapter(MessageParam)),
        "request": typed_dict(TypeAdapter(MessageCreateParamsNonStreaming)),
    },
    "gemini": {
        "model": gemini_content,
        "result": gemini_content,
        "request": gemini_request,
    },
}

# The error kind each case's calls must end with (None: success).
EXPECTED = {
    "success": [None],
    "typed_error": ["not_found"],
    "panic": ["tool_panicked"],
    "timeout": ["tool_timed_out"],
    "image": [None],
    "freeform": [None],
    "unknown_tool": ["unknown_tool"],
    "duplicate_keys": ["duplicate_field"],
    "parallel": [None] * 7,
    "mixed": [None, None, "not_found", "tool_panicked", None],
    "no_calls": [],
}


def flat_results(provider, items):
    """Each call's result as (id, is_error, texts, images), from the provider's form."""
    out = []
    for item in items:
        if provider == "openai-chat":
            content = item["content"]
            texts = [content] if isinstance(content, str) else [p["text"] for p in content]
            out.append((item["tool_call_id"], None, texts, []))
        elif provider == "openai-responses":
            output = item["output"]
            parts = [{"type": "input_text", "text": output}] if isinstance(output, str) else output
            texts = [p["text"] for p in parts if p["type"] == "input_text"]
            images = [p["image_url"] for p in parts if p["type"] == "input_image"]
            out.append((item["call_id"], None, texts, images))
        elif provider == "anthropic":
            for block in item["content"]:
                texts = [p["text"] for p in block["content"] if p["type"] == "text"]
                images = [p["source"]["data"] for p in block["content"] if p["type"] == "image"]
                out.append((block["tool_use_id"], block["is_error"], texts, images))
        else:
            for part in item["parts"]:
                response = part["functionResponse"]
                is_error = "error" in response["response"]
                texts = list(response["response"].values())
                images = [p["inlineData"]["data"] for p in response.get("parts", [])]
                out.append((response.get("id"), is_error, texts, images))
    return out


def check_case(provider, case):
    name = case["case"]
    checks = CHECKS[provider]
    for item in case["model_items"]:
        checks["model"](item)
    for item in case["result_items"]:
        checks["result"](item)
    checks["request"](case["request"])

    kinds = [r["error_kind"] for r in case["results"]]
    expected = EXPECTED.get(name)
    if expected is not None:
        assert kinds == expected, f"{name}: error kinds {kinds}, expected {expected}"
    else:  # invalid_input: refused as input, whatever the kind
        assert all(k is not None for k in kinds), f"{name}: {kinds}"
    for result in case["results"]:
        assert result["call_id"] == result["id"], f"{name}: call id {result}"

    flat = flat_results(provider, case["result_items"])
    assert len(flat) == len(case["results"]), f"{name}: {len(flat)} results written"
    for (ident, is_error, texts, images), result in zip(flat, case["results"]):
        if provider != "gemini" or result["id"] is not None:
            assert ident == result["id"], f"{name}: result for {ident}, call {result['id']}"
        failed = result["status"] == "error"
        if is_error is not None:
            assert is_error == failed, f"{name}: is_error {is_error} for status {result['status']}"
        if failed:
            assert any(result["error_kind"] in t for t in texts), f"{name}: receipt lacks the kind"
        if result["name"] == "Snapshot":
            if provider == "openai-chat":
                assert any("image/png" in t and "cannot carry" in t for t in texts), \
                    f"{name}: the image was dropped without a note"
            else:
                assert len(images) == 1, f"{name}: the image was not carried"
    # The request grew by the model's output and the results, in that order.
    field = {"openai-chat": "messages", "openai-responses": "input",
             "anthropic": "messages", "gemini": "contents"}[provider]
    grown = case["request"][field][1:]
    assert grown == case["model_items"] + case["result_items"], f"{name}: request not grown in order"


def main(path):
    outputs = json.loads(Path(path).read_text())
    total = 0
    for provider in CHECKS:
        cases = outputs[provider]
        for case in cases:
            try:
                check_case(provider, case)
            except Exception as error:  # noqa: BLE001 - report which case, then fail
                print(f"FAIL {provider} {case['case']}: {error}")
                raise
        items = sum(len(c["result_items"]) + len(c["model_items"]) for c in cases)
        total += items
        print(f"{provider}: {len(cases)} turns, {items} items and {len(cases)} next requests "
              "valid under the SDK's request types")
    print(f"provider SDK oracle: {total} items checked")


if __name__ == "__main__":
    main(sys.argv[1])
