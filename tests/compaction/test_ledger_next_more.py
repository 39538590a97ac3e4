"""Next steps in more languages (issue 27, the fifteenth set's round): a clause that
opens with "when / once / as soon as" after a comma and a short "and", "later" and
"don't forget" words, a deadline given as "by" and a date (or a deadline word and a
date), and the agent's first-person future. No case is taken from a fidelity set."""

from __future__ import annotations

import pytest

from contextfold.compaction._ledger import build_ledger
from contextfold.messages import Message


def _steps(*turns: Message) -> list[str]:
    return [f.key for f in build_ledger(list(turns)).facts if f.kind == "next"]


@pytest.mark.parametrize(
    "said",
    [
        "Takoj ko bo certifikat podaljšan, preveri konfiguracijo nginx na obeh strežnikih.",
        "Labi, un tiklīdz migrācija beigsies, pārbaudi indeksus replikā.",
        "Штом тестовите поминат на главната гранка, спои го барањето за промена.",
        "Mirë, dhe sapo të mbarojë build-i, publiko versionin e ri në regjistër.",
        "Nuair a bheidh an cúltaca réidh, scrios na seanchóipeanna ón diosca.",
    ],
    ids=["sl", "lv", "mk", "sq", "ga"],
)
def test_work_put_after_a_condition_is_a_next_step(said: str) -> None:
    steps = _steps(Message.user("Sveiki."), Message.assistant("Labi."), Message.user(said))
    assert steps
    assert said.split(",")[0][:12] in steps[-1]


@pytest.mark.parametrize(
    "said",
    [
        "Rok za prenos podatkov je do 14. oktobra, do takrat ne brišemo ničesar.",
        "Ekipi e financës e do raportin deri më 3 nëntor, pa ndryshime të tjera.",
        "हा अहवाल पाठवण्याची डेडलाइन 12 ऑक्टोबर आहे, आत्ता नाही.",
        "Ne zaboravite: ažuriranje mora biti gotovo do 21.11.",
    ],
    ids=["sl", "sq", "mr", "bs"],
)
def test_a_deadline_given_as_a_date_is_a_next_step(said: str) -> None:
    assert _steps(Message.user("Zdravo."), Message.assistant("Dobro."), Message.user(said))


@pytest.mark.parametrize(
    "said",
    [
        "Certifikatën do ta rinovoj pasi të mbarojë migrimi i bazës.",
        "Sabah yox, bazanı gecə yenidən yükləyəcəyəm.",
        "Es pārbaudīšu žurnālus pēc nākamās izvietošanas.",
        "मी नंतर सर्व लॉग पुन्हा तपासेन.",
        "Индексите ќе ги обновам по следното пуштање.",
    ],
    ids=["sq", "az", "lv", "mr", "mk"],
)
def test_the_agents_own_future_is_its_promise(said: str) -> None:
    steps = _steps(Message.user("Çfarë mbetet?"), Message.assistant(said))
    assert steps == [said]


def test_a_past_when_in_english_after_a_comma_is_no_next_step() -> None:
    said = "The import stopped, when the disk filled up at noon, and nothing was lost."
    assert not _steps(Message.user("Hi."), Message.assistant("Hello."), Message.user(said))
