"""Work the user puts on a weekday, in any language CLDR names the days of (issue 27):
the day word lists of the ledger's rules did not carry to unseen languages (next steps
3 % after three compactions on the eighteenth blind set). No case is taken from a
fidelity set."""

from __future__ import annotations

import pytest

from tests.compaction.test_ledger_rules import _said


def next_steps(text: str) -> list[str]:
    return _said(text, "next")


@pytest.mark.parametrize(
    "sentence",
    [
        "Mae angen adnewyddu'r dystysgrif erbyn dydd Mercher.",  # Welsh
        "Tunahitaji kusasisha cheti kabla ya Jumatano.",  # Swahili
        "Chúng ta cần gia hạn chứng chỉ trước thứ Tư.",  # Vietnamese
        "சான்றிதழைப் புதன்கிழமைக்குள் புதுப்பிக்க வேண்டும்.",  # Tamil, with an ending
        "Kita kailangang i-renew ang sertipiko bago mag-Miyerkules.",  # Filipino
    ],
)
def test_work_put_on_a_weekday_in_an_unlisted_language_is_a_next_step(sentence: str) -> None:
    assert next_steps(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "The sun is up and the mon repo builds.",  # short names are words elsewhere
        "Renew the certificate, it expired.",  # no day at all
    ],
)
def test_a_sentence_naming_no_weekday_is_no_next_step(sentence: str) -> None:
    assert not next_steps(sentence)
