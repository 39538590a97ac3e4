"""Summaries are judged: refusals and unrelated replies are rejected, whatever their dress."""

from __future__ import annotations

import pytest

from contextfold import Message
from contextfold.compaction import compact_context
from contextfold.errors import SummaryRejectedError
from contextfold.testing import StubTransport, make_text_response


def history(n: int = 12) -> list[Message]:
    # plain English, as real transcripts are: "with", "that", "this" all occur
    return [
        Message.user(f"question {i}: can you help with this build? I think that it fails " * 6)
        if i % 2 == 0
        else Message.assistant(f"answer {i}: the build fails with a timeout in that step " * 6)
        for i in range(n)
    ]


async def judged(reply: str) -> str:
    model = StubTransport([make_text_response(reply)], scripted=False)
    with pytest.raises(SummaryRejectedError) as info:
        await compact_context(history(), model, keep_recent=2)
    return info.value.reason


@pytest.mark.parametrize(
    "reply",
    [
        "\u26a0\ufe0f I can't help with that.",
        "\u274c I cannot comply with this request.",
        "(I can't help with that.)",
        "<summary>\u26a0\ufe0f I can't help with that.</summary>",
        "<summary>\U0001f6ab I won't summarize this.</summary>",
    ],
)
async def test_a_refusal_behind_an_emoji_or_a_bracket_is_a_refusal(reply: str) -> None:
    # The detector anchors at the first letter of a clause: an emoji or an opening
    # bracket before "I can't" hid the refusal, and the untagged reply shares "with" and
    # "that" with any English transcript, so it was committed as the summary.
    assert await judged(reply) == "refusal"


@pytest.mark.parametrize(
    "reply",
    [
        "Ka yi hakuri, ba zan iya ta\u0199aita wannan transcript ba.",  # Hausa
        "Ẹ má bínú, mi ò lè ṣe àkópọ̀ transcript yìí.",  # Yoruba
        "ይቅርታ፣ ይህን transcript ማጠቃለል አልችልም።",  # Amharic
    ],
)
async def test_a_short_refusal_naming_only_the_requests_framing_is_unrelated(reply: str) -> None:
    assert await judged(reply) in ("refusal", "unrelated")


@pytest.mark.xfail(
    strict=True,
    reason=(
        "a reply inside <summary> tags is never grounded: a refusal in a language the "
        "detector does not know (Hausa, Yoruba, Amharic...) is committed as the summary"
    ),
)
@pytest.mark.parametrize(
    "reply",
    [
        "<summary>Ka yi hakuri, ba zan iya ba.</summary>",
        "<summary>\u12ed\u1245\u122d\u1273\u1363 \u12a0\u120d\u127d\u120d\u121d\u1362</summary>",
    ],
)
async def test_a_tagged_refusal_in_an_unknown_language_is_rejected(reply: str) -> None:
    assert await judged(reply) in ("refusal", "unrelated")


@pytest.mark.parametrize(
    "reply",
    [
        "\ufe0f\ufe0f\ufe0e",  # variation selectors alone
        "\u200f\u202e\u2066\u2069",  # RTL marks and isolates
        "\U000e0041\U000e0042",  # tag characters
        "<summary>\ufe0f\u200f\u034f</summary>",
        "\u115f\u1160\uffa0",
    ],
)
async def test_invisible_only_replies_are_empty(reply: str) -> None:
    assert await judged(reply) == "empty"


@pytest.mark.parametrize(
    "reply",
    [
        "<summary>The build fails with a timeout",  # never closed
        "<SUMMARY >The build fails with a timeout</summary",  # closing tag cut
    ],
)
async def test_unclosed_tags_are_rejected(reply: str) -> None:
    assert await judged(reply) == "format"


@pytest.mark.parametrize(
    "reply",
    [
        "\u2705 Build: fails with a timeout in that step; help was asked for.",
        "```\nbuild -> timeout (that step)\n```",
        "\u6784\u5efa\u5931\u8d25 build timeout \u2014 help with that",
    ],
)
async def test_terse_untagged_summaries_naming_the_conversation_are_committed(reply: str) -> None:
    model = StubTransport([make_text_response(reply)], scripted=False)
    result = await compact_context(history(), model, keep_recent=2)
    assert result is not None
