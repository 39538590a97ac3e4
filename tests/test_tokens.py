"""Token counters: heuristic, exact offline tiktoken, cached and calibrated."""

from __future__ import annotations

import base64
import builtins
import gzip
import math
import socket
from collections.abc import Callable
from typing import Any

import pytest

from contextfold import _tiktoken
from contextfold.blocks import ImageBlock, TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.messages import Message
from contextfold.tokens import (
    CachedMessageCounter,
    CalibratedTokenCounter,
    HeuristicTokenCounter,
    TiktokenCounter,
    count_message_tokens,
    count_tokens,
)
from tests._histories import PNG


class Recorder:
    """A heuristic counter that records every text it is asked to count."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, text: str) -> int:
        self.texts.append(text)
        return HeuristicTokenCounter()(text)


def transcript(turns: int) -> list[Message]:
    history = [Message.user("Refactor the parser module and keep the tests green.")]
    for n in range(turns):
        history += [
            Message("assistant", [ToolUseBlock(f"t{n}", "read_file", {"path": f"src/m{n}.py"})]),
            Message("user", [ToolResultBlock(f"t{n}", f"def f{n}(x):\n    return x * {n}\n")]),
        ]
    return history


# Exact counts, offline -----------------------------------------------------------------------

EXACT = [
    # (text, o200k_base, cl100k_base) - token ids as tiktoken publishes them
    ("hello world", [24912, 2375], [15339, 1917]),
    ("tiktoken is great!", [83, 8251, 2488, 382, 2212, 0], [83, 1609, 5963, 374, 2294, 0]),
]


@pytest.mark.parametrize(("text", "o200k", "cl100k"), EXACT)
def test_offline_encodings_give_tiktokens_token_ids(
    text: str, o200k: list[int], cl100k: list[int]
) -> None:
    assert _tiktoken.load_encoding("o200k_base").encode_ordinary(text) == o200k
    assert _tiktoken.load_encoding("cl100k_base").encode_ordinary(text) == cl100k


def test_tiktoken_counter_counts_exactly_without_network() -> None:
    # the autouse fixture already refuses remote sockets; prove nothing even tries
    with pytest.MonkeyPatch.context() as mp:

        def refuse(*args: Any, **kwargs: Any) -> Any:
            raise AssertionError("no socket may be opened")

        mp.setattr(socket, "create_connection", refuse)
        mp.setattr(socket.socket, "connect", refuse)
        o200k = TiktokenCounter()
        cl100k = TiktokenCounter("cl100k_base")
        assert o200k("hello world") == 2
        assert cl100k("tiktoken is great!") == 6
        assert o200k("Привет, мир! 日本語のテキスト") == 11
        assert cl100k("Привет, мир! 日本語のテキスト") == 15
        assert o200k("") == 0
        # special-token text is counted as ordinary text, never rejected
        assert cl100k("<|endoftext|>") > 1
        assert count_tokens([Message.user("hello world")], o200k) == 2 + 4


@pytest.mark.parametrize(
    ("model", "encoding"),
    [("gpt-4o-mini", "o200k_base"), ("gpt-4-turbo", "cl100k_base"), ("o3", "o200k_base")],
)
def test_tiktoken_counter_for_model(model: str, encoding: str) -> None:
    assert TiktokenCounter.for_model(model).encoding == encoding
    assert repr(TiktokenCounter.for_model(model)) == f"TiktokenCounter({encoding!r})"


def test_unknown_encoding_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="unknown encoding 'p50k_base'"):
        TiktokenCounter("p50k_base")  # type: ignore[arg-type]


def test_missing_tiktoken_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_tiktoken(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "tiktoken":
            raise ImportError("No module named 'tiktoken'")
        return real_import(name, *args, **kwargs)

    _tiktoken.load_encoding.cache_clear()
    monkeypatch.setattr(builtins, "__import__", no_tiktoken)
    try:
        with pytest.raises(ImportError, match=r"contextfold\[tiktoken\]"):
            TiktokenCounter()
    finally:
        monkeypatch.undo()
        _tiktoken.load_encoding.cache_clear()


def test_parse_ranks_reads_the_rank_file_format() -> None:
    data = b"IQ== 0\nIg== 1\n\n" + base64.b64encode(b"hello") + b" 2\n"
    assert _tiktoken.parse_ranks(data) == {b"!": 0, b'"': 1, b"hello": 2}
    with pytest.raises(ValueError, match="line 2"):
        _tiktoken.parse_ranks(b"IQ== 0\nnot-base64!! x\n")


def test_corrupted_vocabulary_is_detected(monkeypatch: pytest.MonkeyPatch) -> None:
    class FakeFile:
        def __truediv__(self, name: str) -> FakeFile:
            return self

        def read_bytes(self) -> bytes:
            return gzip.compress(b"IQ== 0\n")

    _tiktoken.load_encoding.cache_clear()
    monkeypatch.setattr(_tiktoken.resources, "files", lambda package: FakeFile())
    try:
        with pytest.raises(RuntimeError, match="SHA-256"):
            _tiktoken.load_encoding("cl100k_base")
    finally:
        monkeypatch.undo()
        _tiktoken.load_encoding.cache_clear()


# Heuristic and message counting --------------------------------------------------------------


def test_heuristic_counts_and_message_framing() -> None:
    assert HeuristicTokenCounter()("abcdefghi") == 3
    assert HeuristicTokenCounter(2.0)("abcde") == 3
    with pytest.raises(ValueError, match="chars_per_token"):
        HeuristicTokenCounter(0)
    image = Message("user", [TextBlock("abcd"), ImageBlock("image/png", PNG)])
    assert count_message_tokens(image, tokens_per_media=100, per_message_overhead=3) == 104


# Cached message counter ----------------------------------------------------------------------


def test_cached_counter_matches_count_tokens() -> None:
    history = transcript(20)
    cached = CachedMessageCounter(per_message_overhead=5, tokens_per_media=7)
    expected = count_tokens(
        history, system="sys prompt", per_message_overhead=5, tokens_per_media=7
    )
    assert cached.count(history, system="sys prompt") == expected
    assert cached.count(history, system="sys prompt") == expected


def test_recounting_a_growing_transcript_counts_only_new_messages() -> None:
    recorder = Recorder()
    cached = CachedMessageCounter(recorder)
    history = transcript(200)
    cached.count(history)
    full = len(recorder.texts)
    assert cached.misses == len(history)

    # fresh copies, as a store's get_history returns them, still hit the cache
    history = [Message.from_dict(m.to_dict()) for m in history]
    history.append(Message.user("now add type hints"))
    cached.count(history)
    assert recorder.texts[full:] == ["now add type hints"]
    assert cached.hits == len(history) - 1


def test_cached_counter_tells_different_contents_apart() -> None:
    cached = CachedMessageCounter(lambda text: len(text))
    a = Message("assistant", [ToolUseBlock("1", "run", {"cmd": "ls"})])
    b = Message("assistant", [ToolUseBlock("1", "run", {"cmd": "ls -la"})])
    assert cached.count_message(a) != cached.count_message(b)
    assert cached.count_message(Message.user("x")) != cached.count_message(Message.assistant("xyz"))


def test_cached_counter_is_bounded() -> None:
    cached = CachedMessageCounter(max_entries=3)
    for n in range(10):
        cached.count_message(Message.user(str(n)))
    cached.count_message(Message.user("0"))
    assert cached.misses == 11  # "0" had been evicted
    cached.clear()
    cached.count_message(Message.user("9"))
    assert cached.misses == 12


@pytest.mark.parametrize(
    "kwargs",
    [{"per_message_overhead": -1}, {"tokens_per_media": 1.5}, {"max_entries": 0}, {"counter": 3}],
)
def test_cached_counter_rejects_bad_arguments(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="must"):
        CachedMessageCounter(**kwargs)


# Calibrated counter --------------------------------------------------------------------------


def exact_prompt(overhead: int) -> Callable[[list[Message]], int]:
    """What a provider would report: exact o200k counts of the messages, plus overhead."""
    return lambda messages: overhead + count_tokens(messages, TiktokenCounter())


def test_calibrated_estimate_is_the_heuristic_before_calibration() -> None:
    calibrated = CalibratedTokenCounter()
    history = transcript(5)
    assert calibrated.estimate(history) == count_tokens(history)
    assert calibrated.anchor_tokens is None


def test_calibrated_estimate_adds_only_the_new_suffix() -> None:
    calibrated = CalibratedTokenCounter()
    history = transcript(10)
    heuristic = count_tokens(history)
    measured = 1_000 + round(1.2 * heuristic)
    calibrated.calibrate(history, measured, overhead_tokens=1_000)
    assert calibrated.ratio == pytest.approx(1.2, rel=0.01)
    assert calibrated.estimate(history) == measured

    new = Message.user("x" * 400)  # 100 heuristic tokens + 4 framing
    assert calibrated.estimate([*history, new]) == measured + math.ceil(104 * calibrated.ratio)
    # a rewritten history (compaction) is estimated from what it shares with the anchor
    removed = count_tokens(history[5:])
    assert calibrated.estimate(history[:5]) == math.ceil(measured - removed * calibrated.ratio)
    assert calibrated.estimate([]) == 1_000


def test_calibrated_counter_tracks_real_usage_closely() -> None:
    provider = exact_prompt(overhead=1_200)
    calibrated = CalibratedTokenCounter()
    history = transcript(30)
    errors = []
    for turn in range(10):
        calibrated.calibrate(history, provider(history), overhead_tokens=1_200)
        history = [*history, *transcript(31 + turn)[-2:]]
        real = provider(history)
        errors.append(abs(calibrated.estimate(history) - real) / real)
    assert max(errors) < 0.01  # anchored: only the newest round is estimated


def test_calibrated_estimates_count_only_new_messages() -> None:
    recorder = Recorder()
    calibrated = CalibratedTokenCounter(recorder)
    history = transcript(100)
    calibrated.calibrate(history, 9_000)
    before = len(recorder.texts)
    for n in range(5):
        history = [*history, Message.user(f"step {n}")]
        calibrated.estimate(history)
    assert recorder.texts[before:] == [f"step {n}" for n in range(5)]


def test_calibration_ratio_is_clamped_and_resettable() -> None:
    calibrated = CalibratedTokenCounter(min_ratio=0.5, max_ratio=2.0)
    history = transcript(3)
    calibrated.calibrate(history, 10**9)
    assert calibrated.ratio == 2.0
    calibrated.calibrate(history, 1)
    assert calibrated.ratio == 0.5
    calibrated.reset()
    assert calibrated.ratio == 1.0
    assert calibrated.estimate(history) == count_tokens(history)


def test_calibration_is_not_fooled_by_later_mutation() -> None:
    calibrated = CalibratedTokenCounter()
    history = transcript(3)
    calibrated.calibrate(history, 500)
    history[-1].content.append(TextBlock("y" * 4_000))
    assert calibrated.estimate(history) > 500 + 900


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [((-1,), {}), ((10,), {"overhead_tokens": 11}), ((10,), {"overhead_tokens": -1})],
)
def test_calibrate_rejects_bad_counts(args: tuple[int], kwargs: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="tokens"):
        CalibratedTokenCounter().calibrate(transcript(1), *args, **kwargs)


def test_calibrated_counter_rejects_bad_bounds() -> None:
    with pytest.raises(ValueError, match="min_ratio"):
        CalibratedTokenCounter(min_ratio=0)
    with pytest.raises(ValueError, match="max_ratio"):
        CalibratedTokenCounter(max_ratio=0.5)
