"""A scripted model behind the proxy, for driving real agent clients end to end.

It speaks the three wire formats the clients use (Anthropic Messages, OpenAI Chat
Completions, OpenAI Responses; JSON and server-sent events) and plays a model that
works through a task in ``steps`` tool turns: while the conversation's latest tool
result does not report the last step, it calls the client's own shell tool with a
command that prints ``step-K`` and a few kilobytes of text; then it answers in
text. The step is read from the latest tool result, so it survives compaction.

For aider (no tools) it answers in aider's SEARCH/REPLACE edit format instead: each
turn appends a line to a file, quoting a line it can only know from the file text
aider sends (:attr:`Scripted.file_probe`).

Summarizer calls (contextfold's built-in summary prompt) get a summary, tagged or
not (:attr:`Scripted.tagged`). Every request is kept in :attr:`Scripted.seen`; the
model checks each conversation it is sent for broken tool pairing and records what
it finds in :attr:`Scripted.problems`.

Run it alone to capture what a client sends: ``python -m tests.clients.scripted
--port 9100 --record DIR`` writes each request body to ``DIR``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from contextfold_harness.fake_upstream import SUMMARY_PROMPT_START

STEP = re.compile(r"step-(\d+)\b")
SHELLS = ("bash", "shell", "shell_command", "exec_command", "local_shell")


@dataclass
class Request_:
    """One request as the model received it."""

    path: str
    headers: dict[str, str]
    body: Any
    size: int
    summary: bool = False

    @property
    def dialect(self) -> str:
        if self.path.endswith("/messages"):
            return "anthropic"
        return "responses" if self.path.endswith("/responses") else "openai"


@dataclass
class Scripted:
    """The scripted model's state; :meth:`app` serves it."""

    steps: int = 20
    output_lines: int = 60  # lines each tool command prints (about 60 characters each)
    tagged: bool = True  # summaries inside <summary> tags
    record: Path | None = None
    file_probe: str | None = None  # aider: a line of the chat file the edits must quote
    reply_chars: int = 0  # aider: explanation written before each edit (history growth)
    seen: list[Request_] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # -- recording -----------------------------------------------------------------

    @property
    def chats(self) -> list[Request_]:
        return [r for r in self.seen if not r.summary and isinstance(r.body, dict)]

    @property
    def summaries(self) -> list[Request_]:
        return [r for r in self.seen if r.summary]

    async def _take(self, request: Request) -> Request_:
        raw = await request.body()
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {
            k.lower(): v
            for k, v in request.headers.items()
            if k.lower() not in ("authorization", "x-api-key")
        }
        seen = Request_(request.url.path, headers, body, len(raw))
        seen.summary = isinstance(body, dict) and _system_text(body).startswith(
            SUMMARY_PROMPT_START
        )
        with self._lock:
            self.seen.append(seen)
            n = len(self.seen)
        if self.record is not None:
            self.record.mkdir(parents=True, exist_ok=True)
            name = f"{n:03d}-{seen.path.strip('/').replace('/', '_')}.json"
            (self.record / name).write_text(
                json.dumps({"path": seen.path, "headers": headers, "body": body}, indent=1)
            )
        return seen

    # -- the app -------------------------------------------------------------------

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/messages", self.messages, methods=["POST"]),
                Route("/v1/messages/count_tokens", self.count_tokens, methods=["POST"]),
                Route("/v1/chat/completions", self.chat, methods=["POST"]),
                Route("/chat/completions", self.chat, methods=["POST"]),
                Route("/v1/responses", self.responses, methods=["POST"]),
                Route("/responses", self.responses, methods=["POST"]),
                Route("/v1/models", self.models, methods=["GET"]),
                Route("/models", self.models, methods=["GET"]),
                Route("/{rest:path}", self.other, methods=["GET", "POST", "HEAD"]),
            ]
        )

    async def other(self, request: Request) -> Response:
        await self._take(request)
        return JSONResponse({"error": {"message": "not here", "type": "not_found"}}, 404)

    async def models(self, request: Request) -> Response:
        await self._take(request)
        data = [{"id": "scripted", "object": "model", "created": 0, "owned_by": "me"}]
        return JSONResponse({"object": "list", "data": data})

    async def count_tokens(self, request: Request) -> Response:
        seen = await self._take(request)
        return JSONResponse({"input_tokens": seen.size // 4})

    # -- the model -----------------------------------------------------------------

    def _summary(self, seen: Request_) -> str:
        n = len(self.summaries)
        steps = sorted({int(k) for k in STEP.findall(json.dumps(seen.body))})
        done = f"step-{steps[0]} to step-{steps[-1]}" if steps else "no step yet"
        text = (
            f"SUMMARY-{n}: the shell commands printed the lines of {done} "
            "(the quick brown fox jumps over the lazy dog); continue after the latest step."
        )
        return f"<summary>\n{text}\n</summary>" if self.tagged else text

    def _next(self, seen: Request_, turns: list[dict[str, Any]]) -> tuple[str, str | None]:
        """``(text, command)``: the reply, with a shell command to call or ``None``."""
        self._check(seen)
        last = turns[-1] if turns else {}
        step = 0
        if last.get("tool_result"):
            found = STEP.findall(last["tool_result"])
            step = int(found[-1]) if found else 0
        elif last.get("text") and self.file_probe is None:
            step = 0
        if self.file_probe is not None:
            return self._aider(seen, turns), None
        if step >= self.steps:
            return f"All {self.steps} steps are done.", None
        k = step + 1
        command = (
            f"for i in $(seq 1 {self.output_lines}); do "
            f'echo "step-{k} line $i: the quick brown fox jumps over the lazy dog"; done'
        )
        return f"Running step {k}.", command

    def _aider(self, seen: Request_, turns: list[dict[str, Any]]) -> str:
        """A SEARCH/REPLACE edit of the chat file that appends one line after the probe
        line, or a plain answer when the request does not show the file's text."""
        sent = json.dumps(seen.body)
        probe = self.file_probe or ""
        if probe not in sent:
            self.problems.append(f"request {len(self.seen)}: the file text is missing")
            return "I cannot see big.py in this request."
        n = len(self.chats)
        words = "This edit appends one more marker line after the last function. "
        explanation = (words * (self.reply_chars // len(words) + 1))[: self.reply_chars]
        return (
            f"Adding a line. {explanation}\n\nbig.py\n```python\n<<<<<<< SEARCH\n{probe}\n"
            f"=======\n{probe}\n# edit {n}\n>>>>>>> REPLACE\n```\n"
        )

    def _check(self, seen: Request_) -> None:
        for problem in pairing_problems(seen.dialect, seen.body):
            self.problems.append(f"request {len(self.seen)} ({seen.dialect}): {problem}")

    # -- Anthropic Messages ----------------------------------------------------------

    async def messages(self, request: Request) -> Response:
        seen = await self._take(request)
        body = seen.body
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return _error(400)
        tokens = max(1, seen.size // 4)
        if seen.summary:
            blocks: list[dict[str, Any]] = [{"type": "text", "text": self._summary(seen)}]
            stop = "end_turn"
        else:
            text, command = self._next(seen, _anthropic_turns(body["messages"]))
            blocks = [{"type": "text", "text": text}]
            stop = "end_turn"
            if _thinking(body):  # as with display "omitted": no text, a signature
                signature = f"sig-{len(self.seen):04d}"
                blocks.insert(0, {"type": "thinking", "thinking": "", "signature": signature})
            tool = _shell_tool(body.get("tools"), "anthropic")
            if command is not None and tool is not None:
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": f"toolu_{len(self.seen):04d}",
                        "name": tool[0],
                        "input": tool[1](command),
                    }
                )
                stop = "tool_use"
        message = {
            "id": f"msg_{len(self.seen):04d}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "scripted"),
            "content": blocks,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": tokens, "output_tokens": 20},
        }
        if not body.get("stream"):
            return JSONResponse(message)
        return _sse(_anthropic_events(message))

    # -- OpenAI Chat Completions -----------------------------------------------------

    async def chat(self, request: Request) -> Response:
        seen = await self._take(request)
        body = seen.body
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return _error(400)
        tokens = max(1, seen.size // 4)
        calls: list[dict[str, Any]] = []
        if seen.summary:
            text = self._summary(seen)
        else:
            text, command = self._next(seen, _openai_turns(body["messages"]))
            tool = _shell_tool(body.get("tools"), "openai")
            if command is not None and tool is not None:
                arguments = json.dumps(tool[1](command))
                calls.append(
                    {
                        "id": f"call_{len(self.seen):04d}",
                        "type": "function",
                        "function": {"name": tool[0], "arguments": arguments},
                    }
                )
        usage = {"prompt_tokens": tokens, "completion_tokens": 20, "total_tokens": tokens + 20}
        finish = "tool_calls" if calls else "stop"
        model = body.get("model", "scripted")
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": text}
            if calls:
                message["tool_calls"] = calls
            completion = {
                "id": f"chatcmpl-{len(self.seen)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": usage,
            }
            return JSONResponse(completion)
        return _sse(_chat_events(len(self.seen), model, text, calls, finish, usage))

    # -- OpenAI Responses ------------------------------------------------------------

    async def responses(self, request: Request) -> Response:
        seen = await self._take(request)
        body = seen.body
        if not isinstance(body, dict):
            return _error(400)
        n = len(self.seen)
        tokens = max(1, seen.size // 4)
        items = body.get("input")
        items = [{"role": "user", "content": items}] if isinstance(items, str) else items or []
        output: list[dict[str, Any]] = []
        if seen.summary:
            text, command = self._summary(seen), None
        else:
            text, command = self._next(seen, _responses_turns(items))
        part = {"type": "output_text", "text": text, "annotations": []}
        output.append(
            {
                "type": "message",
                "id": f"msg_{n}",
                "status": "completed",
                "role": "assistant",
                "content": [part],
            }
        )
        tool = _shell_tool(body.get("tools"), "responses") if command is not None else None
        step = STEP.search(command or "")
        patch = _custom_tool(body.get("tools"), "apply_patch")
        if step is not None and step.group(0) == "step-3" and patch:
            # Codex edits files through a custom (free-form) tool: one step uses it
            output.append(
                {
                    "type": "custom_tool_call",
                    "id": f"ctc_{n}",
                    "call_id": f"call_{n}",
                    "name": "apply_patch",
                    "input": (
                        "*** Begin Patch\n*** Add File: step-3.txt\n"
                        "+step-3 written by apply_patch\n*** End Patch\n"
                    ),
                    "status": "completed",
                }
            )
        elif command is not None and tool is not None:
            output.append(
                {
                    "type": "function_call",
                    "id": f"fc_{n}",
                    "call_id": f"call_{n}",
                    "name": tool[0],
                    "arguments": json.dumps(tool[1](command)),
                    "status": "completed",
                }
            )
        response = {
            "id": f"resp_{n}",
            "object": "response",
            "created_at": int(time.time()),
            "status": "completed",
            "model": body.get("model", "scripted"),
            "output": output,
            "usage": {
                "input_tokens": tokens,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 20,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": tokens + 20,
            },
        }
        if not body.get("stream"):
            return JSONResponse(response)
        return _sse(_responses_events(response))


# -- reading conversations ------------------------------------------------------------


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            _text_of(c.get("text") or c.get("content") or "")
            for c in content
            if isinstance(c, dict)
        )
    return ""


def _anthropic_turns(messages: list[Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in messages:
        if not isinstance(m, dict):
            continue
        content = m.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        if results:
            out.append({"tool_result": "\n".join(_text_of(b.get("content")) for b in results)})
        else:
            out.append({"text": _text_of(content), "role": m.get("role")})
    return out


def _openai_turns(messages: list[Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in messages:
        if not isinstance(m, dict):
            continue
        if m.get("role") == "tool":
            out.append({"tool_result": _text_of(m.get("content"))})
        else:
            out.append({"text": _text_of(m.get("content")), "role": m.get("role")})
    return out


def _responses_turns(items: list[Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        if item.get("type") in ("function_call_output", "custom_tool_call_output"):
            out.append({"tool_result": _text_of(item.get("output"))})
        elif item.get("type") in (None, "message"):
            out.append({"text": _text_of(item.get("content")), "role": item.get("role")})
    return out


def _thinking(body: dict[str, Any]) -> bool:
    thinking = body.get("thinking")
    return isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive")


def pairing_problems(dialect: str, body: Any) -> list[str]:
    """What breaks tool pairing in a request body: a call without its result right
    after it, or a result without its call (each dialect's own rule); with Anthropic's
    thinking on, a tool-use turn in progress that does not open with its thinking."""
    if not isinstance(body, dict):
        return []
    if dialect == "anthropic":
        problems = _anthropic_pairing(body.get("messages") or [])
        if _thinking(body):
            problems += _thinking_rule(body.get("messages") or [])
        return problems
    if dialect == "openai":
        return _openai_pairing(body.get("messages") or [])
    items = body.get("input")
    return _responses_pairing(items) if isinstance(items, list) else []


def _anthropic_pairing(messages: list[Any]) -> list[str]:
    problems: list[str] = []
    pending: set[str] = set()
    for i, m in enumerate(messages):
        content = m.get("content") if isinstance(m, dict) else None
        blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
        results = {b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"}
        if pending and (m.get("role") != "user" or not pending <= results):
            problems.append(f"message {i}: tool uses {sorted(pending - results)} have no result")
        if results - pending:
            problems.append(f"message {i}: results {sorted(results - pending)} have no call")
        pending = {b.get("id") for b in blocks if b.get("type") == "tool_use"}
        if pending and m.get("role") != "assistant":
            problems.append(f"message {i}: a tool use in a {m.get('role')} message")
    return problems


def _thinking_rule(messages: list[Any]) -> list[str]:
    """Anthropic's rule with thinking on: in the turn in progress (after the last user
    message that is not tool results), a tool-using turn's first assistant message
    starts with a thinking block."""

    def blocks(m: Any) -> list[Any]:
        content = m.get("content") if isinstance(m, dict) else None
        return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []

    def prompt(m: Any) -> bool:
        return m.get("role") == "user" and not any(
            b.get("type") == "tool_result" for b in blocks(m)
        )

    start = max((i for i, m in enumerate(messages) if prompt(m)), default=-1)
    turn = [m for m in messages[start + 1 :] if m.get("role") == "assistant"]
    if not turn or not any(b.get("type") == "tool_use" for m in turn for b in blocks(m)):
        return []
    first = blocks(turn[0])
    if first and first[0].get("type") in ("thinking", "redacted_thinking"):
        return []
    return ["the tool-use turn in progress does not open with its thinking block"]


def _openai_pairing(messages: list[Any]) -> list[str]:
    problems: list[str] = []
    pending: set[str] = set()
    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            continue
        if m.get("role") == "tool":
            call = m.get("tool_call_id")
            if call not in pending:
                problems.append(f"message {i}: result {call} has no call")
            pending.discard(call)
            continue
        if pending:
            problems.append(f"message {i}: calls {sorted(pending)} have no result")
        pending = {c.get("id") for c in m.get("tool_calls") or [] if isinstance(c, dict)}
    return problems


def _responses_pairing(items: list[Any]) -> list[str]:
    problems: list[str] = []
    calls: set[str] = set()
    answered: set[str] = set()
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind in ("function_call", "custom_tool_call", "local_shell_call"):
            calls.add(item.get("call_id"))
        elif kind in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
            if item.get("call_id") not in calls:
                problems.append(f"item {i}: output {item.get('call_id')} has no call")
            answered.add(item.get("call_id"))
    problems += [f"call {c} has no output" for c in sorted(calls - answered)]
    return problems


def _system_text(body: dict[str, Any]) -> str:
    system = body.get("system", body.get("instructions"))
    if system:
        return _text_of(system)
    for message in body.get("messages") or []:
        if isinstance(message, dict) and message.get("role") in ("system", "developer"):
            return _text_of(message.get("content"))
    return ""


def _shell_tool(tools: Any, dialect: str) -> tuple[str, Any] | None:
    """``(name, make_arguments)`` for the client's shell tool, if it offers one."""
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, dict):
            continue
        spec = tool.get("function") if dialect == "openai" else tool
        if not isinstance(spec, dict):
            continue
        name = spec.get("name")
        if not isinstance(name, str) or name.lower() not in SHELLS:
            continue
        schema = spec.get("input_schema") or spec.get("parameters") or {}
        props = schema.get("properties") or {}
        return name, _arguments_for(props)
    return None


def _custom_tool(tools: Any, name: str) -> bool:
    """Whether a Responses request offers the custom (free-form) tool ``name``."""
    return any(
        isinstance(t, dict) and t.get("type") == "custom" and t.get("name") == name
        for t in (tools if isinstance(tools, list) else [])
    )


def _arguments_for(props: dict[str, Any]) -> Any:
    def make(command: str) -> dict[str, Any]:
        args: dict[str, Any] = {}
        if "cmd" in props:
            args["cmd"] = command
        elif (props.get("command") or {}).get("type") == "array":
            args["command"] = ["bash", "-lc", command]
        else:
            args["command"] = command
        if "description" in props:
            args["description"] = "Print the next step"
        return args

    return make


# -- writing answers ------------------------------------------------------------------


def _error(status: int) -> Response:
    return JSONResponse(
        {"error": {"message": "malformed request", "type": "invalid_request"}}, status
    )


def _sse(events: Iterator[tuple[str | None, Any]]) -> StreamingResponse:
    async def body() -> AsyncIterator[bytes]:
        for name, payload in events:
            head = f"event: {name}\n" if name else ""
            data = payload if isinstance(payload, str) else json.dumps(payload)
            yield f"{head}data: {data}\n\n".encode()
            await asyncio.sleep(0)

    return StreamingResponse(body(), media_type="text/event-stream")


def _anthropic_events(message: dict[str, Any]) -> Iterator[tuple[str | None, Any]]:
    start = {**message, "content": [], "stop_reason": None}
    start["usage"] = {**message["usage"], "output_tokens": 1}
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            empty = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        elif block["type"] == "thinking":
            empty = {"type": "thinking", "thinking": "", "signature": ""}
            delta = {"type": "signature_delta", "signature": block["signature"]}
        else:
            empty = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": empty,
            },
        )
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": message["usage"]["output_tokens"]},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def _chat_events(
    n: int, model: str, text: str, calls: list[dict[str, Any]], finish: str, usage: dict[str, Any]
) -> Iterator[tuple[str | None, Any]]:
    base = {"id": f"chatcmpl-{n}", "object": "chat.completion.chunk", "created": 0, "model": model}

    def chunk(delta: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": reason}]}

    yield None, chunk({"role": "assistant", "content": text})
    for i, call in enumerate(calls):
        yield None, chunk({"tool_calls": [{"index": i, **call}]})
    yield None, chunk({}, finish)
    yield None, {**base, "choices": [], "usage": usage}
    yield None, "[DONE]"


def _responses_events(response: dict[str, Any]) -> Iterator[tuple[str | None, Any]]:
    seq = iter(range(1, 10_000))

    def event(kind: str, **fields: Any) -> tuple[str, Any]:
        return kind, {"type": kind, "sequence_number": next(seq), **fields}

    pending = {**response, "status": "in_progress", "output": [], "usage": None}
    yield event("response.created", response=pending)
    yield event("response.in_progress", response=pending)
    for index, item in enumerate(response["output"]):
        where = {"output_index": index, "item_id": item["id"]}
        if item["type"] == "message":
            text = item["content"][0]["text"]
            yield event(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "content": []},
            )
            empty = {"type": "output_text", "text": "", "annotations": []}
            yield event("response.content_part.added", content_index=0, part=empty, **where)
            yield event("response.output_text.delta", content_index=0, delta=text, **where)
            yield event("response.output_text.done", content_index=0, text=text, **where)
            yield event(
                "response.content_part.done",
                content_index=0,
                part={**empty, "text": text},
                **where,
            )
        elif item["type"] == "custom_tool_call":
            yield event(
                "response.output_item.added",
                output_index=index,
                item={**item, "input": "", "status": "in_progress"},
            )
            yield event("response.custom_tool_call_input.delta", delta=item["input"], **where)
            yield event("response.custom_tool_call_input.done", input=item["input"], **where)
        else:
            yield event(
                "response.output_item.added",
                output_index=index,
                item={**item, "arguments": "", "status": "in_progress"},
            )
            yield event("response.function_call_arguments.delta", delta=item["arguments"], **where)
            yield event(
                "response.function_call_arguments.done", arguments=item["arguments"], **where
            )
        yield event("response.output_item.done", output_index=index, item=item)
    yield event("response.completed", response=response)


# -- serving --------------------------------------------------------------------------


class Served:
    """:class:`Scripted` served by uvicorn on a thread of its own (``with`` it)."""

    def __init__(self, model: Scripted, port: int = 0) -> None:
        self.model = model
        config = uvicorn.Config(model.app(), host="127.0.0.1", port=port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def port(self) -> int:
        servers = self.server.servers
        return int(servers[0].sockets[0].getsockname()[1])

    def __enter__(self) -> Served:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the scripted upstream did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=9100)
    parser.add_argument("--record", type=Path)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--untagged", action="store_true")
    parser.add_argument("--file-probe")
    args = parser.parse_args()
    model = Scripted(
        steps=args.steps, tagged=not args.untagged, record=args.record, file_probe=args.file_probe
    )
    uvicorn.run(model.app(), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
