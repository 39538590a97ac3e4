"""A minimal agent loop over any :class:`~contextfold.stores.base.ContextStore`.

One :meth:`Agent.run`:

1. appends the user message;
2. reads the history and calls the transport;
3. after every model call, ``await store.add_context_tokens(usage.input_tokens,
   usage.output_tokens)`` - the signal :class:`~contextfold.compaction.AutoCompactStore`
   compacts on;
4. appends the assistant message;
5. runs the requested tools concurrently and appends one user message of
   :class:`~contextfold.blocks.ToolResultBlock` s, then goes back to 2 until the model
   stops asking for tools.

A tool that raises, an unknown tool and input that does not match the tool's schema
all become ``ToolResultBlock(is_error=True)``: the model sees the error and the history
stays valid. An empty reply (no content blocks) is counted but not appended, because
providers reject empty messages. If the provider rejects a request as too long, the
agent asks the store to compact (when it is :class:`~contextfold.stores.base.Compactable`)
and retries once.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import types
import typing
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias, overload

from contextfold.blocks import ContentBlock, ImageBlock, TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.errors import ContextOverflowError, MaxIterationsError, ResponseFormatError
from contextfold.messages import Message
from contextfold.stores.base import Compactable, ContextStore
from contextfold.transports.base import (
    Completion,
    CompletionTransport,
    StreamingTransport,
    ToolSpec,
)

__all__ = ["Agent", "Tool", "ToolOutput", "tool"]

logger = logging.getLogger(__name__)

ToolOutput: TypeAlias = str | list[TextBlock | ImageBlock]
ToolHandler: TypeAlias = Callable[[dict[str, Any]], Awaitable[Any] | Any]


@dataclass(frozen=True, slots=True)
class Tool(ToolSpec):
    """A tool the agent can run: a :class:`ToolSpec` plus ``handler(input) -> output``.

    The handler (sync or async) receives the validated input dict and returns a
    string, a list of text/image blocks, or any JSON-serialisable value.
    """

    handler: ToolHandler

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, self.input_schema)


_JSON_TYPES: dict[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    list: "array",
    tuple: "array",
    dict: "object",
}


def _schema_for(annotation: Any) -> dict[str, Any]:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin in (typing.Union, types.UnionType):
        options = [_schema_for(a) for a in args if a is not type(None)]
        schema = options[0] if len(options) == 1 else {"anyOf": options}
        return _nullable(schema) if type(None) in args else schema
    if origin in (list, tuple, Sequence) and args:
        return {"type": "array", "items": _schema_for(args[0])}
    base = origin or annotation
    if base in _JSON_TYPES:
        return {"type": _JSON_TYPES[base]}
    return {}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` that also accepts JSON ``null`` (an ``Optional`` parameter)."""
    if not schema:
        return schema  # already accepts anything
    if "enum" in schema:
        return {**schema, "enum": [*schema["enum"], None]}
    if isinstance(schema.get("type"), str):
        return {**schema, "type": [schema["type"], "null"]}
    if "anyOf" in schema:
        return {"anyOf": [*schema["anyOf"], {"type": "null"}]}
    return {"anyOf": [schema, {"type": "null"}]}


@overload
def tool(fn: Callable[..., Awaitable[Any]], /) -> Tool: ...
@overload
def tool(
    *, name: str | None = None, description: str | None = None
) -> Callable[[Callable[..., Awaitable[Any]]], Tool]: ...


def tool(
    fn: Callable[..., Awaitable[Any]] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
) -> Tool | Callable[[Callable[..., Awaitable[Any]]], Tool]:
    """Build a :class:`Tool` from a typed async function.

    The name is the function's name, the description its docstring, and the input
    schema comes from the parameters' annotations (``str``, ``int``, ``float``,
    ``bool``, ``list[...]``, ``dict``, ``Literal[...]``, optionals); parameters without
    a default are required.

    >>> @tool
    ... async def add(a: int, b: int) -> str:
    ...     "Add two integers."
    ...     return str(a + b)
    """

    def build(func: Callable[..., Awaitable[Any]]) -> Tool:
        hints = typing.get_type_hints(func)
        properties: dict[str, Any] = {}
        required: list[str] = []
        for param in inspect.signature(func).parameters.values():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                raise TypeError(f"tool {func.__name__!r} cannot take *args or **kwargs")
            properties[param.name] = _schema_for(hints.get(param.name, Any))
            if param.default is inspect.Parameter.empty:
                required.append(param.name)
        schema: dict[str, Any] = {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        }

        async def handler(input: dict[str, Any]) -> Any:
            result = func(**input)
            return await result if inspect.isawaitable(result) else result

        doc = inspect.getdoc(func) or ""
        return Tool(name or func.__name__, description or doc, schema, handler)

    return build(fn) if fn is not None else build


def _check_input(schema: dict[str, Any], value: Any) -> str | None:
    """A short reason why ``value`` does not fit the top level of ``schema``, or None."""
    if not isinstance(value, dict):
        return f"input must be a JSON object, got {type(value).__name__}"
    missing = [k for k in schema.get("required", []) if k not in value]
    if missing:
        return f"missing required field(s): {', '.join(missing)}"
    properties: dict[str, Any] = schema.get("properties", {})
    if schema.get("additionalProperties") is False:
        unknown = sorted(set(value) - set(properties))
        if unknown:
            return f"unknown field(s): {', '.join(unknown)}"
    checks: dict[str, Callable[[Any], bool]] = {
        "null": lambda v: v is None,
        "string": lambda v: isinstance(v, str),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
        "boolean": lambda v: isinstance(v, bool),
        "array": lambda v: isinstance(v, list),
        "object": lambda v: isinstance(v, dict),
    }
    for key, sub in properties.items():
        if key not in value or not isinstance(sub, dict):
            continue
        expected = sub.get("type")
        allowed = [expected] if isinstance(expected, str) else expected
        if (
            isinstance(allowed, list)
            and allowed
            and all(t in checks for t in allowed)
            and not any(checks[t](value[key]) for t in allowed)
        ):
            return f"field {key!r} must be {' or '.join(allowed)}, got {type(value[key]).__name__}"
        if "enum" in sub and value[key] not in sub["enum"]:
            return f"field {key!r} must be one of {sub['enum']!r}"
    return None


def _as_output(result: Any) -> ToolOutput:
    if isinstance(result, str):
        return result
    if isinstance(result, list) and all(isinstance(b, TextBlock | ImageBlock) for b in result):
        return list(result)
    try:
        return json.dumps(result, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(result)


class Agent:
    """An LLM agent: a system prompt, a transport, and tools it may call."""

    def __init__(
        self,
        system: str | None,
        transport: CompletionTransport,
        tools: Iterable[Tool] = (),
        max_iterations: int = 50,
    ) -> None:
        if max_iterations < 1:
            raise ValueError(f"max_iterations must be at least 1, got {max_iterations}")
        self.system = system
        self.transport = transport
        self.tools: dict[str, Tool] = {}
        for t in tools:
            if t.name in self.tools:
                raise ValueError(f"two tools are named {t.name!r}")
            self.tools[t.name] = t
        self.max_iterations = max_iterations

    async def run(self, prompt: str | Message, store: ContextStore) -> str:
        """Run until the model stops asking for tools; return its final text."""
        final = ""
        async for item in self._loop(prompt, store, streaming=False):
            if isinstance(item, Completion):
                final = item.text
        return final

    async def run_stream(self, prompt: str | Message, store: ContextStore) -> AsyncIterator[str]:
        """Like :meth:`run`, yielding the model's text deltas as they arrive."""
        async for item in self._loop(prompt, store, streaming=True):
            if isinstance(item, str):
                yield item

    async def _loop(
        self, prompt: str | Message, store: ContextStore, *, streaming: bool
    ) -> AsyncIterator[str | Completion]:
        message = Message.user(prompt) if isinstance(prompt, str) else prompt
        await store.append(message)
        specs = [t.spec for t in self.tools.values()]
        for _ in range(self.max_iterations):
            completion: Completion | None = None
            async for item in self._call_model(store, specs, streaming=streaming):
                if isinstance(item, Completion):
                    completion = item
                else:
                    yield item
            if completion is None:
                raise ResponseFormatError(
                    "the transport's stream ended without a Completion",
                    model=self.transport.model.name,
                )
            await store.add_context_tokens(
                completion.usage.input_tokens, completion.usage.output_tokens
            )
            reply = completion.to_message()
            if reply.content:
                await store.append(reply)
            else:
                # Providers reject an empty assistant message on the next request.
                logger.warning("the model returned an empty reply; it is not recorded")
            yield completion
            calls = completion.tool_uses
            if not calls:
                return
            results = await asyncio.gather(*(self._run_tool(call) for call in calls))
            await store.append(Message("user", list(results)))
        raise MaxIterationsError(self.max_iterations)

    async def _call_model(
        self, store: ContextStore, specs: Sequence[ToolSpec], *, streaming: bool
    ) -> AsyncIterator[str | Completion]:
        retried = False
        while True:
            history = await store.get_history()
            emitted = False
            try:
                if streaming and isinstance(self.transport, StreamingTransport):
                    async for item in self.transport.stream(history, specs, self.system):
                        emitted = emitted or isinstance(item, str)
                        yield item
                else:
                    yield await self.transport.complete(history, specs, self.system)
                return
            except ContextOverflowError:
                if retried or emitted or not isinstance(store, Compactable):
                    raise
                retried = True
                logger.warning("request overflowed the context window; compacting and retrying")
                if not await store.compact(force=True):
                    raise

    async def _run_tool(self, call: ToolUseBlock) -> ContentBlock:
        found = self.tools.get(call.name)
        if found is None:
            known = ", ".join(sorted(self.tools)) or "none"
            return ToolResultBlock(
                call.id, f"Error: unknown tool {call.name!r} (available: {known})", is_error=True
            )
        problem = _check_input(found.input_schema, call.input)
        if problem is not None:
            return ToolResultBlock(
                call.id, f"Error: invalid input for {call.name}: {problem}", is_error=True
            )
        try:
            result = found.handler(dict(call.input))
            if inspect.isawaitable(result):
                result = await result
        except Exception as exc:
            logger.info("tool %s raised %s", call.name, type(exc).__name__)
            return ToolResultBlock(call.id, f"Error: {type(exc).__name__}: {exc}", is_error=True)
        output = _as_output(result)
        return ToolResultBlock(call.id, output if isinstance(output, str) else [*output])
