"""Work the user puts on a weekday, in any language CLDR names the days of (issue 27):
the day word lists of the ledger's rules did not carry to unseen languages (next steps
3 % after three compactions on the eighteenth blind set). No case is taken from a
fidelity set."""

from __future__ import annotations

import re
import unicodedata
from random import Random

import pytest

from contextfold.compaction._ledger import _names_weekday
from contextfold.compaction._weekdays import WEEKDAYS_LATIN, WEEKDAYS_OTHER
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


def _one_pattern() -> re.Pattern[str]:
    """Every name in one case-blind pattern, Latin names as whole words: how the
    ledger read a weekday before it looked the Latin names up by their first word."""
    from contextfold.compaction._ledger import _trie_pattern

    return re.compile(
        r"(?<![^\W\d_])(?:"
        + _trie_pattern(WEEKDAYS_LATIN)
        + r")(?![^\W\d_])|(?:"
        + _trie_pattern(WEEKDAYS_OTHER)
        + ")",
        re.IGNORECASE,
    )


def test_the_lookup_by_first_word_reads_what_one_pattern_of_all_names_reads() -> None:
    # names whole, cut short, in upper, title and decomposed case, glued to letters,
    # digits, marks and other scripts on either side
    pattern = _one_pattern()
    names = [*WEEKDAYS_LATIN, *WEEKDAYS_OTHER]
    random = Random(27)
    around = "abeéñ dDLS1-.,’#ÄÉгакıİſςϐµ"
    seen = {True: 0, False: 0}
    for i in range(20_000):
        name = random.choice(names)
        name = name[:-1] if i % 5 == 0 else name
        name = name.upper() if i % 7 == 0 else name.title() if i % 11 == 0 else name
        text = "".join(random.choice(around) for _ in range(random.randint(0, 3)))
        text += name + "".join(random.choice(around) for _ in range(random.randint(0, 3)))
        text = unicodedata.normalize("NFD", text) if i % 13 == 0 else text
        expected = pattern.search(unicodedata.normalize("NFC", text)) is not None
        assert _names_weekday(text) is expected, text
        seen[expected] += 1
    assert min(seen.values()) > 2_000  # both answers were tried many times


def test_names_of_other_scripts_all_have_a_letter_beyond_ascii() -> None:
    # the lookup seeks them only in a text with one
    assert all(not name.isascii() for name in WEEKDAYS_OTHER)
