"""What a bundle configuration can say to ``contextfold-context`` (issue 18, item 2).

Spec strings for the summarizer, the host's own providers, the config keys of
Amplifier's default context modules, and the methods orchestrators and apps call on
those modules.
"""

from __future__ import annotations

import copy
import logging
from pathlib import Path
from typing import Any

import pytest
import respx
from amplifier_core import llm_errors

from contextfold.errors import (
    ContextOverflowError,
    RateLimitError,
    ResponseFormatError,
    TransportError,
)
from contextfold.manager import CompactingContextManager, ManagerOptions, mount
from contextfold.manager._provider import ProviderTransport, completion_from
from contextfold.manager._transports import SDKModelTransport
from contextfold.messages import Message
from tests.manager._loop_basic import FakeProvider, Wire, hook_note, rebuilds, turn
from tests.transports.conftest import (
    ANTHROPIC_URL,
    FAKE_ANTHROPIC_KEY,
    FAKE_OPENAI_KEY,
    OPENAI_URL,
    anthropic_text,
    body,
    openai_text,
)

BUDGET = 2_500


def history(turns: int) -> list[Wire]:
    return [{"role": "system", "content": "agent"}] + [m for i in range(turns) for m in turn(i)]


class Events:
    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, Any]]] = []

    def emit(self, event: str, data: dict[str, Any]) -> None:
        self.seen.append((event, data))

    def post(self) -> list[dict[str, Any]]:
        return [data for event, data in self.seen if event == "context:post_compact"]


async def filled(manager: CompactingContextManager, wires: list[Wire]) -> CompactingContextManager:
    for wire in copy.deepcopy(wires):
        await manager.add_message(wire)
    return manager


# --- "provider:model" strings -----------------------------------------------------------------


def test_spec_strings_make_lazy_sdk_transports_without_a_key() -> None:
    manager = CompactingContextManager(transport="anthropic:claude-haiku-4-5")
    assert isinstance(manager.transport, SDKModelTransport)
    assert manager.transport.model.name == "claude-haiku-4-5"
    assert manager.transport.model.context_window == 200_000
    other = CompactingContextManager(summary_transport=" openai : gpt-4o-mini ")
    assert isinstance(other.transport, SDKModelTransport)
    assert (other.transport.provider, other.transport.model.name) == ("openai", "gpt-4o-mini")
    default = CompactingContextManager(transport="anthropic")
    assert default.transport is not None
    assert default.transport.model.name == "claude-haiku-4-5"
    assert CompactingContextManager(transport="none").transport is None


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        ("gemini:pro", r"unknown transport 'gemini:pro'.*providers: anthropic, openai"),
        ("anthropic:", "names no model"),
        ("mounted:", "names no provider"),
        ("", "unknown transport ''"),
    ],
)
def test_bad_spec_strings_name_the_valid_forms(spec: str, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        CompactingContextManager(transport=spec)


def test_transport_and_summary_transport_are_synonyms() -> None:
    with pytest.raises(ValueError, match="not both"):
        CompactingContextManager(transport="anthropic:a", summary_transport="openai:b")
    same = CompactingContextManager(transport="openai:x", summary_transport="openai:x")
    assert same.transport is not None


async def test_a_missing_key_fails_the_summary_at_request_time_and_strategies_fit_it() -> None:
    events = Events()
    manager = await filled(
        CompactingContextManager(transport="anthropic:claude-haiku-4-5", hooks=events),
        history(10),
    )
    view = await manager.get_messages_for_request(token_budget=BUDGET)
    (post,) = events.post()
    assert post["summary"] == "failed"
    assert "ANTHROPIC_API_KEY" in post["error"]
    assert post["strategies_applied"] is True
    assert post["tokens_after"] <= int(BUDGET * manager.compaction_threshold)
    rebuilds(view)


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
async def test_with_the_key_in_the_environment_the_sdk_writes_the_summary(
    provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    key, url, path = {
        "anthropic": (FAKE_ANTHROPIC_KEY, ANTHROPIC_URL, "/v1/messages"),
        "openai": (FAKE_OPENAI_KEY, OPENAI_URL, "/chat/completions"),
    }[provider]
    text = "<summary>## User requests and intent\nFrom the SDK.\n## Current state\nDone.</summary>"
    reply = anthropic_text(text) if provider == "anthropic" else openai_text(text)
    events = Events()
    manager = await filled(
        CompactingContextManager(transport=f"{provider}:my-model", hooks=events), history(10)
    )
    monkeypatch.setenv(f"{provider.upper()}_API_KEY", key)  # read at call time, not before
    with respx.mock(base_url=url) as api:
        route = api.post(path).respond(json=reply)
        async with manager:
            view = await manager.get_messages_for_request(token_budget=BUDGET)
    assert events.post()[0]["summary"] == "new"
    assert body(route)["model"] == "my-model"
    request = route.calls[0].request
    assert (request.headers.get("x-api-key") or request.headers["authorization"]).endswith(key)
    assert any("From the SDK." in str(w["content"]) for w in view)


# --- the host's providers -------------------------------------------------------------------------


async def test_mounted_summaries_go_through_the_requests_amplifier_provider() -> None:
    provider = FakeProvider(context_window=4_000, max_output_tokens=500)
    events = Events()
    manager = await filled(
        CompactingContextManager(transport="mounted", hooks=events, keep_recent=4), history(10)
    )
    view = await manager.get_messages_for_request(provider=provider)
    sent = provider.summary_requests[0]  # more than one when the old part needs chunks
    assert sent[0]["role"] == "system"
    assert "summar" in sent[0]["content"].lower()
    assert events.post()[0]["summary"] == "new"
    assert events.post()[0]["budget"] == 4_000 - 500 - 200  # the provider's window
    last = f"Summary #{len(provider.summary_requests)} "
    assert any(last in str(w["content"]) for w in view)
    calls = len(provider.summary_requests)  # each reply reports 100 + its number, 20 out
    assert manager.summarizer_usage.input_tokens == sum(100 + n for n in range(1, calls + 1))
    assert manager.summarizer_usage.output_tokens == 20 * calls
    rebuilds(view)


async def test_mounted_by_name_and_the_preferred_provider_are_looked_up_at_request_time() -> None:
    mounted: dict[str, object] = {}
    manager = await filled(
        CompactingContextManager(
            transport="mounted:second", options=ManagerOptions(provider_lookup=lambda: mounted)
        ),
        history(10),
    )
    first, second = FakeProvider(name="first", priority=1), FakeProvider(name="second")
    mounted.update(first=first, second=second)  # after the manager was made, as Amplifier does
    await manager.get_messages_for_request(token_budget=BUDGET, provider=first)
    assert first.summary_requests == []
    assert second.summary_requests

    anyone = await filled(
        CompactingContextManager(
            transport="mounted", options=ManagerOptions(provider_lookup=lambda: mounted)
        ),
        history(10),
    )
    await anyone.get_messages_for_request(token_budget=BUDGET)  # no provider passed
    assert first.summary_requests  # the lowest priority wins, as in loop-basic


@pytest.mark.parametrize(
    ("raised", "mapped"),
    [
        (llm_errors.ContextLengthError("too long", provider="p"), ContextOverflowError),
        (llm_errors.RateLimitError("slow down", provider="p"), RateLimitError),
        (RuntimeError("boom with key sk-ant-api03-SECRETSECRETSECRET"), TransportError),
    ],
)
async def test_provider_failures_become_transport_errors_without_secrets(
    raised: Exception, mapped: type[TransportError]
) -> None:
    provider = FakeProvider()
    provider.failure = raised
    transport = await ProviderTransport.wrap(provider)
    with pytest.raises(mapped) as caught:
        await transport.complete([Message.user("hi")], system="s")
    assert "SECRETSECRET" not in str(caught.value)
    assert caught.value.__cause__ is None
    assert caught.value.__context__ is None
    assert caught.value.provider == "fake"


async def test_a_failing_host_provider_falls_back_to_strategies() -> None:
    provider = FakeProvider(context_window=4_000, max_output_tokens=500)
    provider.failure = llm_errors.ProviderUnavailableError("down", provider="fake")
    events = Events()
    manager = await filled(CompactingContextManager(transport="mounted", hooks=events), history(10))
    view = await manager.get_messages_for_request(provider=provider)
    assert events.post()[0]["summary"] == "failed"
    assert "ProviderUnavailableError" in events.post()[0]["error"]
    rebuilds(view)


# --- mount: the config keys of Amplifier's default context modules -----------------------------


class Host:
    """A coordinator as Amplifier's kernel offers it (minus the Rust)."""

    def __init__(self, session_id: str = "s-1") -> None:
        self.session_id = session_id
        self.hooks = Events()
        self.mounted: dict[str, object] = {}
        self.providers: dict[str, object] = {}
        self.cleanups: list[Any] = []
        self.contributors: list[tuple[str, str, Any]] = []

    async def mount(self, point: str, module: object, name: str | None = None) -> None:
        self.mounted[point] = module

    def get(self, point: str) -> object:
        return self.providers if point == "providers" else self.mounted.get(point)

    def register_cleanup(self, cleanup: Any) -> None:
        self.cleanups.append(cleanup)

    def register_contributor(self, channel: str, name: str, callback: Any) -> None:
        self.contributors.append((channel, name, callback))

    async def cleanup(self) -> None:
        for cleanup in reversed(self.cleanups):
            await cleanup()


async def test_context_simple_keys_map_to_ours_and_the_others_are_noted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    config = {
        "max_tokens": 5_000,
        "compact_threshold": 0.6,
        "target_usage": 0.3,
        "truncate_chars": 250,
        "protected_recent": 0.3,
        "protected_tool_results": 5,
        "compaction_notice_enabled": True,
        "token_meter": "actual",
    }
    with caplog.at_level(logging.INFO, logger="contextfold.manager"):
        manager = await mount(Host(), config)
    assert (manager.max_tokens, manager.compaction_threshold, manager.target_ratio) == (
        5_000,
        0.6,
        0.3,
    )
    assert manager.settings.max_tool_chars == 250
    assert manager.protected_recent == 0.3
    noted = " ".join(r.getMessage() for r in caplog.records)
    for key in ("protected_tool_results", "compaction_notice_enabled"):
        assert f"{key!r} has no equivalent" in noted
    assert "'protected_recent' has no equivalent" not in noted


def six_call_session() -> list[Wire]:
    """Eight exchanges, then one assistant turn of six parallel calls, their six results
    and a question: 24 dicts, as context-simple's multi-call regression test builds them."""
    calls = [
        {"id": f"toolu_{k}", "tool": "web_fetch", "arguments": {"url": f"http://example.com/{k}"}}
        for k in range(1, 7)
    ]
    return [
        *(
            wire
            for i in range(8)
            for wire in (
                {"role": "user", "content": f"request {i}"},
                {"role": "assistant", "content": f"response {i}"},
            )
        ),
        {"role": "assistant", "content": "", "tool_calls": calls},
        *(
            {"role": "tool", "tool_call_id": f"toolu_{k}", "content": f"page {k}"}
            for k in range(1, 7)
        ),
        {"role": "user", "content": "what did you find?"},
    ]


@pytest.mark.parametrize("summarizer", [True, False], ids=["summarized", "strategies-alone"])
@pytest.mark.parametrize(
    ("share", "protected"),
    [(0.5, 12), (0.2, 8)],  # 0.2 protects dicts 19.. (inside the results): widened to 16..
    ids=["half", "inside-the-results"],
)
async def test_protected_recent_keeps_the_multi_call_turn_whole(
    share: float, protected: int, summarizer: bool
) -> None:
    """Issue 24, item 7.3: Amplifier's context-simple test with protected_recent=0.5: the
    view summarized the six-call turn away (or, with no provider to summarize, the
    window fitting left it out)."""
    host = Host()
    if summarizer:
        host.providers["fake"] = FakeProvider(context_window=4_000, max_output_tokens=500)
    config = {
        "max_tokens": 200,
        "compact_threshold": 0.5,
        "protected_recent": share,
        "compaction_notice_enabled": False,
    }
    manager = await filled(await mount(host, config), six_call_session())
    view = await manager.get_messages_for_request()
    [post] = host.hooks.post()
    assert post["tokens_before"] > post["threshold_tokens"]  # it was compacted
    # The protected messages (the last share of the dicts, widened to the whole turn that
    # holds the six calls) come last, verbatim; the turn is never split or dropped.
    assert view[-protected:] == six_call_session()[-protected:]
    [calls] = [i for i, wire in enumerate(view) if wire.get("tool_calls")]
    assert len(view[calls]["tool_calls"]) == 6
    answers = view[calls + 1 : calls + 7]
    assert [wire.get("tool_call_id") for wire in answers] == [f"toolu_{k}" for k in range(1, 7)]
    rebuilds(view)


async def test_a_tiny_truncate_chars_is_raised_to_our_minimum(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="contextfold.manager"):
        manager = await mount(Host(), {"truncate_chars": 10})
    assert manager.settings.max_tool_chars == 64
    assert "raised to 64" in caplog.text


@pytest.mark.parametrize(
    ("config", "error"),
    [
        ({"compact_treshold": 0.5}, r"compact_treshold \(valid: .*compact_threshold.*store"),
        ({"compact_threshold": 0.5, "compaction_threshold": 0.7}, "twice"),
        ({"memory_files": "AGENTS.md"}, "list of file paths"),
        ({"transport": "bedrock:x"}, "unknown transport"),
        ({"store": "mysql://x"}, "unknown scheme"),
    ],
)
async def test_bad_config_is_a_value_error_that_says_what_is_valid(
    config: dict[str, Any], error: str
) -> None:
    host = Host()
    with pytest.raises(ValueError, match=error):
        await mount(host, config)
    assert host.mounted == {}


async def test_without_a_transport_mount_summarizes_with_the_providers_mounted_after_it() -> None:
    host = Host()
    manager = await mount(host, {"max_tokens": 3_000, "compact_threshold": 0.5, "keep_recent": 4})
    provider = FakeProvider(context_window=4_000, max_output_tokens=500)
    host.providers["fake"] = provider  # Amplifier mounts providers after the context
    await filled(manager, history(8))
    await manager.get_messages_for_request()  # loop-basic passes provider=; this host did not
    assert provider.summary_requests
    assert [e for e, _ in host.hooks.seen] == ["context:pre_compact", "context:post_compact"]


async def test_mount_declares_its_events_and_its_cleanup() -> None:
    # (amplifier-core's own coordinator does the same in tests/manager/test_amplifier_session.py)
    host = Host()
    manager = await mount(host, {})
    assert host.mounted["context"] is manager
    ((channel, name, callback),) = host.contributors
    assert (channel, name) == ("observability.events", "contextfold-context")
    assert callback() == ["context:pre_compact", "context:post_compact", "context:prepared"]
    assert host.cleanups == [manager.aclose]


async def test_a_store_url_resumes_the_coordinators_session_and_memory_files_seed_it(
    tmp_path: Path,
) -> None:
    notes = tmp_path / "AGENTS.md"
    notes.write_text("Always run the tests.", encoding="utf-8")
    config = {
        "store": f"sqlite:///{tmp_path}/state/ctx.db",
        "memory_files": [str(notes), "missing.md"],
    }
    host = Host(session_id="session-a")
    manager = await mount(host, config)
    seeded = await manager.get_messages()
    assert seeded == [
        {"role": "system", "content": "[Context from AGENTS.md]\n\nAlways run the tests."}
    ]
    await filled(manager, history(2))
    await host.cleanup()
    with pytest.raises(ValueError, match=r"[Cc]losed"):  # mount's connection closed
        await manager.store.get_history()  # type: ignore[union-attr]

    again = Host(session_id="session-a")
    resumed = await mount(again, config)
    assert await resumed.get_messages() == seeded + history(2)  # memory files not added twice
    third = Host(session_id="session-b")
    other = await mount(third, {"store": f"sqlite:{tmp_path}/state/ctx.db"})
    assert await other.get_messages() == []  # another session of the same file
    for done in (again, third):
        await done.cleanup()


# --- what orchestrators and apps call on the default context modules ----------------------------


async def test_a_system_prompt_factory_replaces_stored_system_messages_but_not_hooks() -> None:
    manager = await filled(
        CompactingContextManager(),
        [{"role": "system", "content": "static"}, hook_note("hook says hi"), *turn(0)],
    )
    calls = 0

    async def factory() -> str:
        nonlocal calls
        calls += 1
        return f"dynamic prompt #{calls}"

    await manager.set_system_prompt_factory(factory)
    view = await manager.get_messages_for_request()
    assert view[0] == {"role": "system", "content": "dynamic prompt #1"}
    assert [w["content"] for w in view if w["role"] == "system"] == [
        "dynamic prompt #1",
        "hook says hi",
    ]
    assert (await manager.get_messages_for_request())[0]["content"] == "dynamic prompt #2"
    assert (await manager.get_messages())[0] == {"role": "system", "content": "static"}
    await manager.set_system_prompt_factory(None)
    assert (await manager.get_messages_for_request())[0]["content"] == "static"


async def test_should_compact_and_compact_exist_as_on_the_default_modules() -> None:
    manager = await filled(CompactingContextManager(), history(6))
    before = await manager.get_messages()
    assert await manager.should_compact(token_budget=1_000) is True
    assert await manager.should_compact(token_budget=1_000_000) is False
    await manager.compact()
    assert await manager.get_messages() == before


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (
            {"content": [{"type": "text", "text": "hi"}], "finish_reason": "length"},
            ("max_tokens", "hi"),
        ),
        (
            {
                "content": [{"type": "thinking", "thinking": "t", "signature": "s"}],
                "tool_calls": [{"id": "c", "name": "f", "arguments": {"x": 1}}],
            },
            ("tool_use", ""),
        ),
        ({"content": None, "usage": {"input_tokens": 3, "output_tokens": 2}}, ("end_turn", "")),
    ],
)
def test_replies_of_amplifier_providers_become_completions(
    reply: dict[str, Any], expected: tuple[str, str]
) -> None:
    completion = completion_from(reply, "m")
    assert (completion.stop_reason, completion.text) == expected


@pytest.mark.parametrize("reply", ["not a response", {"content": [{"type": "tool_call"}]}])
def test_a_reply_that_is_not_a_chat_response_is_a_response_format_error(reply: object) -> None:
    with pytest.raises(ResponseFormatError):
        completion_from(reply, "m")
