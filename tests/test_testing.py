"""The offline transports users test with: StubTransport and FunctionTransport."""

from __future__ import annotations

import pytest

from contextfold import (
    Completion,
    ContextOverflowError,
    Message,
    ModelInfo,
    RateLimitError,
    StubExhaustedError,
    TextBlock,
    ToolSpec,
    ToolUseBlock,
    TransportTimeoutError,
    Usage,
)
from contextfold.errors import ProviderUnavailableError
from contextfold.testing import (
    FunctionTransport,
    StubRequest,
    StubResponse,
    StubTransport,
    make_overflow_error,
    make_rate_limit_error,
    make_text_response,
    make_timeout_error,
    make_tool_use_response,
    make_unavailable_error,
)

GREP = ToolSpec(
    "grep", "Search files.", {"type": "object", "properties": {"q": {"type": "string"}}}
)


async def test_empty_script_constructs_and_fails_only_when_called() -> None:
    stub = StubTransport([])
    assert stub.remaining == 0
    with pytest.raises(StubExhaustedError, match="no scripted reply left"):
        await stub.complete([Message.user("hi")])
    assert len(stub.requests) == 1


async def test_replies_play_back_in_order_then_run_out() -> None:
    stub = StubTransport([make_text_response("one"), make_text_response("two")])
    first = await stub.complete([Message.user("a")])
    second = await stub.complete([Message.user("b")])
    assert (first.text, second.text) == ("one", "two")
    assert first.stop_reason == "end_turn"
    assert first.model == "stub-model"
    with pytest.raises(StubExhaustedError, match=r"request #3"):
        await stub.complete([Message.user("c")])


async def test_add_appends_to_the_script() -> None:
    stub = StubTransport()
    stub.add(make_text_response("late"))
    assert stub.remaining == 1
    assert (await stub.complete([Message.user("x")])).text == "late"


async def test_every_request_is_recorded_as_a_copy() -> None:
    stub = StubTransport([make_text_response("ok")])
    history = [Message.user("find the bug")]
    tools = [GREP]
    await stub.complete(history, tools, system="You are terse.")
    history[0].content.append(TextBlock("mutated later"))
    history.append(Message.assistant("also later"))
    tools.clear()

    (request,) = stub.requests
    assert request.messages == [Message.user("find the bug")]
    assert request.tools == [GREP]
    assert request.system == "You are terse."
    assert request.text == "You are terse.\nfind the bug"


async def test_model_info_and_window() -> None:
    assert StubTransport().model == ModelInfo("stub-model", 128_000, 8_192)
    assert StubTransport(model="tiny").model == ModelInfo("tiny", 128_000, 8_192)
    small = ModelInfo("small", 2_000, 500)
    assert StubTransport(model=small).model is small


async def test_usage_is_realistic_and_grows_with_the_conversation() -> None:
    stub = StubTransport([make_text_response("short answer") for _ in range(3)])
    history = [Message.user("x" * 400)]
    sizes = []
    for turn in range(3):
        completion = await stub.complete(history, [GREP], system="be brief")
        sizes.append(completion.usage.input_tokens)
        assert completion.usage.input_tokens == stub.requests[-1].input_tokens
        assert completion.usage.output_tokens == 3  # "short answer" at 4 chars a token
        history += [completion.to_message(), Message.user(f"follow-up {turn} " + "y" * 400)]
    assert sizes[0] > 100  # the 400-char prompt alone is 100 tokens
    assert sizes[0] < sizes[1] < sizes[2]
    assert stub.usage_total == Usage(sum(sizes), 9)


async def test_tools_and_system_count_towards_input_tokens() -> None:
    stub = FunctionTransport(lambda request: make_text_response("ok"))
    bare = await stub.complete([Message.user("hi")])
    dressed = await stub.complete([Message.user("hi")], [GREP], system="s" * 200)
    assert dressed.usage.input_tokens > bare.usage.input_tokens + 50


async def test_scripted_usage_is_reported_as_given() -> None:
    usage = Usage(150_000, 20, cache_read_tokens=140_000)
    stub = StubTransport([make_text_response("big", usage=usage)])
    assert (await stub.complete([Message.user("x")])).usage is usage


async def test_ready_completions_pass_through() -> None:
    completion = Completion([TextBlock("as is")], "end_turn", Usage(1, 1), "other-model")
    stub = StubTransport([completion])
    assert await stub.complete([Message.user("x")]) is completion


async def test_tool_use_responses() -> None:
    reply = make_tool_use_response(
        "grep", {"q": "TODO"}, id="toolu_1", text="Searching.", calls=[("read", {"path": "a"})]
    )
    assert reply.stop_reason == "tool_use"
    text, first, second = reply.content
    assert text == TextBlock("Searching.")
    assert first == ToolUseBlock("toolu_1", "grep", {"q": "TODO"})
    assert isinstance(second, ToolUseBlock)
    assert (second.name, second.input) == ("read", {"path": "a"})
    assert second.id != first.id
    ids = {
        b.id
        for b in make_tool_use_response("x", calls=[("y", {}), ("z", {})]).content
        if isinstance(b, ToolUseBlock)
    }
    assert len(ids) == 3


@pytest.mark.parametrize(
    ("error", "kind", "status"),
    [
        (make_rate_limit_error(retry_after=3), RateLimitError, 429),
        (make_overflow_error(), ContextOverflowError, 400),
        (make_timeout_error(), TransportTimeoutError, None),
        (make_unavailable_error(), ProviderUnavailableError, 529),
    ],
)
async def test_scripted_errors_are_raised_in_turn(
    error: Exception, kind: type[Exception], status: int | None
) -> None:
    stub = StubTransport([error, make_text_response("recovered")])
    with pytest.raises(kind) as info:
        await stub.complete([Message.user("x")])
    assert getattr(info.value, "status", None) == status
    assert (await stub.complete([Message.user("x")])).text == "recovered"
    assert len(stub.requests) == 2


async def test_rate_limit_error_carries_retry_after() -> None:
    assert make_rate_limit_error(retry_after=3).retry_after == 3


async def test_enforce_window_raises_overflow_like_a_provider() -> None:
    model = ModelInfo("small", 1_000, 200)
    stub = StubTransport([make_text_response("fits")] * 2, model=model, enforce_window=True)
    assert (await stub.complete([Message.user("x" * 2_000)])).text == "fits"  # ~500 tokens
    with pytest.raises(ContextOverflowError, match=r"prompt is too long: \d+ tokens > 800"):
        await stub.complete([Message.user("x" * 4_000)])  # ~1000 tokens
    assert stub.remaining == 1  # the rejected request consumed no reply
    assert len(stub.requests) == 2


async def test_window_is_not_enforced_by_default() -> None:
    stub = StubTransport([make_text_response("ok")], model=ModelInfo("small", 1_000, 200))
    assert (await stub.complete([Message.user("x" * 40_000)])).text == "ok"


async def test_stream_yields_deltas_then_the_completion() -> None:
    stub = StubTransport([make_text_response("Hello, streaming world!")], stream_chunk_chars=5)
    items = [item async for item in stub.stream([Message.user("hi")])]
    *deltas, final = items
    assert deltas == ["Hello", ", str", "eamin", "g wor", "ld!"]
    assert isinstance(final, Completion)
    assert final.text == "".join(d for d in deltas if isinstance(d, str))


async def test_stream_of_a_tool_call_yields_only_the_completion() -> None:
    stub = StubTransport([make_tool_use_response("grep", {"q": "x"})])
    items = [item async for item in stub.stream([Message.user("hi")])]
    assert len(items) == 1
    assert isinstance(items[0], Completion)
    assert items[0].tool_uses[0].name == "grep"


async def test_a_callable_in_the_script_sees_the_request() -> None:
    def echo(request: StubRequest) -> StubResponse:
        return make_text_response(f"you said {request.messages[-1].text}")

    stub = StubTransport([echo, make_text_response("static")])
    assert (await stub.complete([Message.user("ping")])).text == "you said ping"
    assert (await stub.complete([Message.user("ping")])).text == "static"


async def test_function_transport_answers_every_request() -> None:
    async def handler(request: StubRequest) -> StubResponse:
        return make_text_response(f"{len(request.messages)} messages, system={request.system}")

    transport = FunctionTransport(handler, model="fn-model")
    reply = await transport.complete(
        [Message.user("a"), Message.assistant("b"), Message.user("c")], system="S"
    )
    assert reply.text == "3 messages, system=S"
    assert reply.model == "fn-model"
    assert len(transport.requests) == 1


async def test_function_transport_can_raise() -> None:
    transport = FunctionTransport(lambda request: make_overflow_error("too long for me"))
    with pytest.raises(ContextOverflowError, match="too long for me"):
        await transport.complete([Message.user("x")])


async def test_a_handler_returning_the_wrong_type_is_a_clear_type_error() -> None:
    transport = FunctionTransport(lambda request: "just a string")  # type: ignore[arg-type, return-value]
    with pytest.raises(TypeError, match=r"must give a StubResponse .* got 'just a string'"):
        await transport.complete([Message.user("x")])


async def test_the_output_cap_is_recorded_and_seen_by_a_handler() -> None:
    seen: list[int | None] = []

    def handler(request: StubRequest) -> StubResponse:
        seen.append(request.max_output_tokens)
        return make_text_response("ok")

    transport = FunctionTransport(handler)
    await transport.complete([Message.user("a")])
    await transport.complete([Message.user("b")], max_output_tokens=300)
    [item async for item in transport.stream([Message.user("c")], max_output_tokens=40)]
    assert seen == [None, 300, 40]
    assert [r.max_output_tokens for r in transport.requests] == [None, 300, 40]
    with pytest.raises(ValueError, match="max_output_tokens"):
        await transport.complete([Message.user("d")], max_output_tokens=0)
    assert len(transport.requests) == 3  # an invalid cap is not a request


def test_stub_replies_are_scripted_unless_told_otherwise() -> None:
    assert StubTransport().scripted is True
    assert FunctionTransport(lambda r: make_text_response("x")).scripted is True
    assert StubTransport(scripted=False).scripted is False
