"""Amplifier-shaped messages, made the way Amplifier's orchestrators make them.

loop-basic (microsoft/amplifier-module-loop-basic @ 937a53f) stores:

* the prompt as ``{"role": "user", "content": prompt}``;
* an assistant reply with tool calls as ``{"role": "assistant", "content":
  [block.model_dump() for block in response.content], "tool_calls": [{"id", "tool",
  "arguments"}], "metadata": response.metadata}`` (metadata only when truthy), before
  the tools run;
* each result as ``{"role": "tool", "tool_call_id": id, "content": <str>}``, in call
  order, after all tools finished;
* the final reply as ``{"role": "assistant", "content": [block.model_dump() ...]}``.

loop-streaming adds ``"name"`` to tool results and ``"thinking_block"`` to assistant
messages. The blocks here are amplifier-core's own pydantic models, dumped as the
orchestrators dump them (``None`` fields included), so the dicts are the real thing.
"""

from __future__ import annotations

import json
from typing import Any

from amplifier_core.message_models import (
    ChatResponse,
    ImageBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolCallBlock,
    Usage,
)

Wire = dict[str, Any]

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAcCBlCwAAAABJRU5Erk"
    "Jggg=="
)


def response_with_calls(turn: int, step: int, calls: int, *, thinking: bool = True) -> ChatResponse:
    """A provider reply that calls ``calls`` tools (with a signed thinking block first)."""
    blocks: list[Any] = []
    if thinking:
        blocks.append(ThinkingBlock(thinking=f"plan {turn}.{step}", signature=f"sig-{turn}-{step}"))
    blocks.append(TextBlock(text=f"calling {calls} tool(s) in turn {turn}"))
    tool_calls = []
    for k in range(calls):
        call_id = f"call-{turn}-{step}-{k}"
        arguments = {"text": f"payload {turn}.{step}.{k}", "n": k}
        blocks.append(ToolCallBlock(id=call_id, name="echo", input=arguments))
        tool_calls.append(ToolCall(id=call_id, name="echo", arguments=arguments))
    return ChatResponse(
        content=blocks,
        tool_calls=tool_calls,
        usage=Usage(input_tokens=10, output_tokens=5, total_tokens=15),
        metadata={"turn": turn, "step": step},
    )


def final_response(turn: int) -> ChatResponse:
    return ChatResponse(content=[TextBlock(text=f"turn {turn} is done")])


def assistant_dict(response: ChatResponse, *, streaming: bool = False) -> Wire:
    """The dict loop-basic (or loop-streaming) stores for ``response``."""
    content = [block.model_dump() for block in response.content]
    wire: Wire = {"role": "assistant", "content": content}
    if response.tool_calls:
        wire["tool_calls"] = [
            {"id": tc.id, "tool": tc.name, "arguments": tc.arguments or {}}
            for tc in response.tool_calls
        ]
    if response.metadata:
        wire["metadata"] = response.metadata
    if streaming:
        thinking = next((b for b in response.content if b.type == "thinking"), None)
        if thinking is not None:
            wire["thinking_block"] = thinking.model_dump()
    return wire


def tool_dict(call_id: str, output: str, *, name: str | None = None) -> Wire:
    wire: Wire = {"role": "tool", "tool_call_id": call_id, "content": output}
    if name is not None:
        wire["name"] = name  # loop-streaming
    return wire


def echo_output(arguments: dict[str, Any], padding: int) -> str:
    return json.dumps({"echo": arguments, "padding": "p" * padding})


def turn(i: int, *, padding: int = 600, streaming: bool = False) -> list[Wire]:
    """One user turn: two tool-calling steps (2 calls, then 1) and a final answer."""
    out: list[Wire] = [{"role": "user", "content": f"please do task {i} " + "x" * 100}]
    for step, calls in ((0, 2), (1, 1)):
        response = response_with_calls(i, step, calls, thinking=step == 0)
        out.append(assistant_dict(response, streaming=streaming))
        for tc in response.tool_calls or []:
            name = "echo" if streaming else None
            out.append(tool_dict(tc.id, echo_output(tc.arguments, padding), name=name))
    out.append(assistant_dict(final_response(i), streaming=streaming))
    return out


def hook_note(text: str) -> Wire:
    """A system message injected by a hook, as the kernel stores it."""
    meta = {"source": "hook", "hook_name": "h", "event": "prompt:submit", "ephemeral": False}
    return {"role": "system", "content": text, "metadata": meta}


def unusual_blocks() -> list[Wire]:
    """Amplifier blocks loop-basic does not produce but ``Message`` accepts."""
    return [
        {
            "role": "user",
            "content": [
                TextBlock(text="look").model_dump(),
                ImageBlock(
                    source={"type": "base64", "media_type": "image/png", "data": PNG}
                ).model_dump(),
            ],
        },
        {
            "role": "assistant",
            "content": [
                RedactedThinkingBlock(data="opaque-redacted").model_dump(),
                ToolCallBlock(id="blk-1", name="echo", input={"a": 1}).model_dump(),
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "blk-1",
            "content": [{"type": "tool_result", "tool_call_id": "blk-1", "output": {"a": 1}}],
        },
        {"role": "assistant", "content": "seen it", "name": "agent-7"},
    ]


def rebuilds(wires: list[Wire]) -> list[Message]:
    """What the orchestrator does with every dict a context returns (raises if it cannot)."""
    return [Message(**wire) for wire in wires]


def tool_pairs_intact(wires: list[Wire]) -> list[str]:
    """Problems with tool pairing in ``wires`` (empty when every call meets its results)."""
    problems: list[str] = []
    i = 0
    while i < len(wires):
        wire = wires[i]
        calls = (
            [c["id"] for c in wire.get("tool_calls") or []] if wire["role"] == "assistant" else []
        )
        i += 1
        answered: list[str] = []
        while i < len(wires) and wires[i]["role"] == "tool":
            answered.append(wires[i]["tool_call_id"])
            i += 1
        if sorted(answered) != sorted(calls) and not (i == len(wires) and not answered):
            problems.append(f"calls {calls} answered by {answered}")
    return problems


class FakeProvider:
    """An Amplifier provider: agent requests (with tools) get the next scripted reply,
    summary requests (no tools) get a numbered summary. Records what it was sent."""

    def __init__(
        self,
        script: list[ChatResponse] | None = None,
        *,
        name: str = "fake",
        context_window: int = 8_000,
        max_output_tokens: int = 1_000,
        priority: int = 100,
    ) -> None:
        self.name = name
        self.priority = priority
        self.script = list(script or [])
        self.window = (context_window, max_output_tokens)
        self.agent_requests: list[list[Wire]] = []
        self.summary_requests: list[list[Wire]] = []
        self.failure: Exception | None = None

    def get_info(self) -> Any:
        from amplifier_core import ProviderInfo

        window, max_output = self.window
        defaults = {"context_window": window, "max_output_tokens": max_output}
        return ProviderInfo(id=self.name, display_name=self.name, defaults=defaults)

    async def list_models(self) -> list[Any]:
        return []

    async def complete(self, request: Any, **kwargs: Any) -> ChatResponse:
        sent = [m.model_dump(mode="json", exclude_none=True) for m in request.messages]
        if self.failure is not None:
            raise self.failure
        if request.tools:
            self.agent_requests.append(sent)
            return self.script.pop(0)
        self.summary_requests.append(sent)
        number = len(self.summary_requests)
        text = (  # a model following the built-in prompt: the summary inside <summary> tags
            f"<summary>## User requests and intent\nSummary #{number} of the work.\n"
            "## Current state\nok</summary>"
        )
        usage = Usage(input_tokens=100 + number, output_tokens=20, total_tokens=120 + number)
        return ChatResponse(content=[TextBlock(text=text)], usage=usage, finish_reason="stop")

    def parse_tool_calls(self, response: ChatResponse) -> list[ToolCall]:
        return list(response.tool_calls or [])
