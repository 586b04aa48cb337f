"""Builds provider responses with the providers' own SDK response types and dumps
them to JSON on stdout: {"<provider>": [{"case", "response"}]}.

Every response is a pydantic model of the official SDK (openai ChatCompletion and
Response, anthropic Message, google-genai GenerateContentResponse), so the bodies
the Rust side reads are shaped as the SDKs say the APIs return them.
"""

import json
import sys

from anthropic.types import Message, TextBlock, ToolUseBlock, Usage
from google.genai import types as gemini
from openai.types.chat import ChatCompletion
from openai.types.chat.chat_completion import Choice
from openai.types.chat.chat_completion_message import ChatCompletionMessage
from openai.types.chat.chat_completion_message_custom_tool_call import (
    ChatCompletionMessageCustomToolCall,
    Custom,
)
from openai.types.chat.chat_completion_message_function_tool_call import (
    ChatCompletionMessageFunctionToolCall,
    Function,
)
from openai.types.responses import (
    Response,
    ResponseCustomToolCall,
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseReasoningItem,
)

# A case is a list of calls: (tool name, arguments as JSON text, or None for the
# freeform text of `Shout`). The text is what OpenAI sends; Anthropic and Gemini get
# it parsed, so the duplicate-key case is OpenAI's only.
CASES = {
    "success": [("Echo", '{"text": "hello"}')],
    "typed_error": [("Lookup", '{"key": "missing"}')],
    "invalid_input": [("Echo", '{"txet": "typo"}')],
    "panic": [("Explode", '{"reason": "test"}')],
    "timeout": [("Sleep", '{"ms": 60000, "label": "long"}')],
    "image": [("Snapshot", "{}")],
    "freeform": [("Shout", None)],
    "unknown_tool": [("Ecko", '{"text": "x"}')],
    "parallel": [("Echo", '{"text": "%d"}' % i) for i in range(6)] + [("Snapshot", "{}")],
    "mixed": [
        ("Echo", '{"text": "a"}'),
        ("Record", '{"ms": 1, "label": "r"}'),
        ("Lookup", '{"key": "k"}'),
        ("Explode", '{"reason": "r"}'),
        ("Snapshot", "{}"),
    ],
    "duplicate_keys": [("Echo", '{"text": "a", "text": "b"}')],
    "no_calls": [],
}
OPENAI_ONLY = {"duplicate_keys"}
FREEFORM_TEXT = "hey there"


def call_id(case, index):
    return f"call_{case}_{index}"


def args(arguments):
    return json.loads(arguments) if arguments is not None else {"words": FREEFORM_TEXT}


def chat(case, calls):
    tool_calls = []
    for index, (name, arguments) in enumerate(calls):
        if arguments is None:
            tool_calls.append(ChatCompletionMessageCustomToolCall(
                id=call_id(case, index), type="custom",
                custom=Custom(name=name, input=FREEFORM_TEXT)))
        else:
            tool_calls.append(ChatCompletionMessageFunctionToolCall(
                id=call_id(case, index), type="function",
                function=Function(name=name, arguments=arguments)))
    message = ChatCompletionMessage(
        role="assistant", content=None if calls else "All done.",
        tool_calls=tool_calls or None)
    return ChatCompletion(
        id="chatcmpl-" + case, object="chat.completion", created=1, model="gpt-5",
        choices=[Choice(index=0, message=message,
                        finish_reason="tool_calls" if calls else "stop")])


def responses(case, calls):
    output = [ResponseReasoningItem(id="rs_" + case, type="reasoning", summary=[])]
    for index, (name, arguments) in enumerate(calls):
        if arguments is None:
            output.append(ResponseCustomToolCall(
                type="custom_tool_call", id=f"ctc_{case}_{index}",
                call_id=call_id(case, index), name=name, input=FREEFORM_TEXT))
        else:
            output.append(ResponseFunctionToolCall(
                type="function_call", id=f"fc_{case}_{index}",
                call_id=call_id(case, index), name=name, arguments=arguments,
                status="completed"))
    if not calls:
        output.append(ResponseOutputMessage(
            type="message", id="msg_" + case, role="assistant", status="completed",
            content=[ResponseOutputText(type="output_text", text="All done.",
                                        annotations=[])]))
    return Response(
        id="resp_" + case, object="response", created_at=1.0, model="gpt-5",
        output=output, parallel_tool_calls=True, tool_choice="auto", tools=[])


def anthropic(case, calls):
    content = [TextBlock(type="text", text="Working on it.")]
    for index, (name, arguments) in enumerate(calls):
        content.append(ToolUseBlock(type="tool_use", id=f"toolu_{case}_{index}",
                                    name=name, input=args(arguments)))
    return Message(
        id="msg_" + case, type="message", role="assistant", model="claude-sonnet-4-5",
        content=content, stop_reason="tool_use" if calls else "end_turn",
        usage=Usage(input_tokens=1, output_tokens=1))


def gemini_response(case, calls):
    parts = [gemini.Part(text="Working on it.")]
    for index, (name, arguments) in enumerate(calls):
        # Gemini leaves the id out on some models: every other call has none.
        ident = call_id(case, index) if index % 2 == 0 else None
        parts.append(gemini.Part(function_call=gemini.FunctionCall(
            id=ident, name=name, args=args(arguments))))
    return gemini.GenerateContentResponse(candidates=[gemini.Candidate(
        content=gemini.Content(role="model", parts=parts),
        finish_reason=gemini.FinishReason.STOP)])


def dump_openai(model):
    return model.model_dump(mode="json")


def dump_gemini(model):
    # The REST API's own spelling: camelCase, unset fields absent.
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


BUILDERS = {
    "openai-chat": (chat, dump_openai),
    "openai-responses": (responses, dump_openai),
    "anthropic": (anthropic, dump_openai),
    "gemini": (gemini_response, dump_gemini),
}


def main():
    out = {}
    for provider, (build, dump) in BUILDERS.items():
        cases = []
        for case, calls in CASES.items():
            if case in OPENAI_ONLY and not provider.startswith("openai"):
                continue
            if provider in ("anthropic", "gemini"):
                # Without custom tools, a freeform tool is called with its JSON form.
                calls = [(name, json.dumps(args(a))) for name, a in calls]
            cases.append({"case": case, "response": dump(build(case, calls))})
        out[provider] = cases
        print(f"{provider}: {len(cases)} responses built with the SDK's types", file=sys.stderr)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
