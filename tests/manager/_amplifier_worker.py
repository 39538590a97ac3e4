"""Runs a real amplifier-core session with contextfold-context; prints what happened as JSON.

``python -m tests.manager._amplifier_worker PHASE DB SESSION_ID TURNS [FIRST_TURN]``

The session is amplifier-core's own ``AmplifierSession`` (the Rust kernel). Its
context module is ``contextfold-context``, found through the ``amplifier.modules``
entry point as any bundle would find it; the orchestrator (below) stores messages
exactly as loop-basic does; the provider and the tool are fakes from
:mod:`tests.manager._loop_basic`. ``PHASE`` is ``first`` (a new session) or ``resume``
(a restart of the same session id, as the Amplifier CLI resumes one: the session is
made with ``is_resumed=True`` and the CLI hands the context its filtered transcript).

Runs in a process of its own because amplifier-core's Rust runtime can crash while
the interpreter shuts down; the worker therefore leaves with ``os._exit`` once its
JSON is written.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any, ClassVar

from amplifier_core import AmplifierSession, HookResult, ModuleLoader, ToolResult
from amplifier_core.message_models import ChatRequest, Message, ToolSpec

from tests.manager._loop_basic import FakeProvider, final_response, response_with_calls

WINDOW, MAX_OUTPUT = 6_000, 1_000
PADDING = 600


class LoopBasicLike:
    """The storing behaviour of amplifier-module-loop-basic (937a53f), line for line."""

    def __init__(self) -> None:
        self.added: list[dict[str, Any]] = []

    async def _add(self, context: Any, message: dict[str, Any]) -> None:
        self.added.append(json.loads(json.dumps(message)))
        await context.add_message(message)

    async def execute(
        self,
        prompt: str,
        context: Any,
        providers: dict[str, Any],
        tools: dict[str, Any],
        hooks: Any,
        **kwargs: Any,
    ) -> str:
        await hooks.emit("prompt:submit", {"prompt": prompt})
        await self._add(context, {"role": "user", "content": prompt})
        provider = min(providers.values(), key=lambda p: getattr(p, "priority", 100))
        specs = [
            ToolSpec(name=t.name, description=t.description, parameters=t.input_schema)
            for t in tools.values()
        ]
        while True:
            await hooks.emit("provider:request", {"provider": provider.name})
            message_dicts = list(await context.get_messages_for_request(provider=provider))
            request = ChatRequest(messages=[Message(**m) for m in message_dicts], tools=specs)
            response = await provider.complete(request)
            tool_calls = provider.parse_tool_calls(response)
            content = [block.model_dump() for block in response.content]
            if not tool_calls:
                final: dict[str, Any] = {"role": "assistant", "content": content}
                if response.metadata:
                    final["metadata"] = response.metadata
                await self._add(context, final)
                return "".join(b.text for b in response.content if b.type == "text")
            message: dict[str, Any] = {
                "role": "assistant",
                "content": content,
                "tool_calls": [
                    {"id": tc.id, "tool": tc.name, "arguments": tc.arguments or {}}
                    for tc in tool_calls
                ],
            }
            if response.metadata:
                message["metadata"] = response.metadata
            await self._add(context, message)
            results = await asyncio.gather(
                *(tools[tc.name].execute(tc.arguments) for tc in tool_calls)
            )
            for tc, result in zip(tool_calls, results, strict=True):
                output = result.get_serialized_output()
                await self._add(context, {"role": "tool", "tool_call_id": tc.id, "content": output})


class Echo:
    name = "echo"
    description = "Echoes its input back, padded."
    input_schema: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        return ToolResult(success=True, output={"echo": input, "padding": "p" * PADDING})


def script(first: int, turns: int) -> list[Any]:
    replies: list[Any] = []
    for i in range(first, first + turns):
        replies += [response_with_calls(i, 0, 2), response_with_calls(i, 1, 1, thinking=False)]
        replies.append(final_response(i))
    return replies


class Loader(ModuleLoader):  # type: ignore[misc]
    """Our orchestrator, provider and tool in process; everything else as usual."""

    def __init__(self, modules: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.modules = modules

    async def load(
        self, module_id: str, config: Any = None, source_hint: Any = None, coordinator: Any = None
    ) -> Any:
        if module_id not in self.modules:
            return await super().load(module_id, config, source_hint, coordinator)
        point, module, name = self.modules[module_id]

        async def mount(coordinator: Any) -> None:
            await coordinator.mount(point, module, name=name)

        return mount


async def run(phase: str, db: str, session_id: str, turns: int, first: int) -> dict[str, Any]:
    orchestrator = LoopBasicLike()
    provider = FakeProvider(
        script(first, turns), context_window=WINDOW, max_output_tokens=MAX_OUTPUT
    )
    plan = {
        "session": {"orchestrator": "loop-basic-like", "context": "contextfold-context"},
        "context": {
            "config": {
                "store": f"sqlite:///{db}",
                "compact_threshold": 0.5,
                "target_usage": 0.3,
                "keep_recent": 4,
                "truncate_chars": 400,
                "protected_recent": 0.3,
            }
        },
        "providers": [{"module": "provider-fake"}],
        "tools": [{"module": "tool-echo"}],
    }
    session = AmplifierSession(plan, session_id=session_id, is_resumed=phase == "resume")
    session.coordinator.loader = Loader(
        {
            "loop-basic-like": ("orchestrator", orchestrator, None),
            "provider-fake": ("providers", provider, "fake"),
            "tool-echo": ("tools", Echo(), "echo"),
        },
        coordinator=session.coordinator,
    )
    await session.initialize()
    coordinator = session.coordinator
    events: list[dict[str, Any]] = []

    async def record(event: str, data: dict[str, Any]) -> HookResult:
        events.append({"event": event, **data})
        return HookResult()

    for name in ("context:pre_compact", "context:post_compact"):
        coordinator.hooks.register(name, record, name=f"test-{name}")
    context = coordinator.get("context")
    transcript_ignored = None
    if phase == "resume":
        before = await context.get_messages()
        filtered = [m for m in before if m["role"] == "user"]  # a CLI transcript keeps less
        await context.set_messages(filtered)
        transcript_ignored = await context.get_messages() == before
    answers = [await session.execute(f"please do task {i}") for i in range(first, first + turns)]
    result = {
        "answers": answers,
        "added": orchestrator.added,
        "stored": await context.get_messages(),
        "requests": provider.agent_requests,
        "summary_requests": len(provider.summary_requests),
        "events": events,
        "contributions": await coordinator.collect_contributions("observability.events"),
        "context_class": type(context).__name__,
        "transcript_ignored": transcript_ignored,
        "script_left": len(provider.script),
        "validation": await validation() if phase == "first" else None,
    }
    await session.cleanup()
    return result


async def validation() -> list[tuple[str, bool]]:
    """amplifier-core's own checks of a context module, run on contextfold.manager."""
    from amplifier_core.validation.context import ContextValidator

    result = await ContextValidator().validate("contextfold.manager", config={})
    return [(check.name, check.passed) for check in result.checks]


def main() -> None:
    phase, db, session_id, turns = sys.argv[1:5]
    first = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    result = asyncio.run(run(phase, db, session_id, int(turns), first))
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
