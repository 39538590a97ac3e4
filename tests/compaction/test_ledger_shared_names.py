"""What the agent says it did to a thing the user or its own tool call named (issue 27).

A host, a mailbox, a domain or a package is named in the user's request or in the
agent's command, and the agent tells what it did to it in the user's language. No word
list reads the verb; the name is known to be the thing acted on because the request or
the call named it too. Before, only files, long paths and names with an underscore or a
tool-named hyphen were things: "db-3.internal:5432", "juma.k@duka.co.tz" and
"acme/billing-sdk" were not, and what was done to them was lost. No case is taken from
a fidelity set.
"""

from __future__ import annotations

import pytest

from contextfold.compaction._ledger import build_ledger
from contextfold.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock


def records(*messages: Message) -> dict[str, str]:
    return {f.key: f.state for f in build_ledger(list(messages)).facts if f.kind == "record"}


def turn(request: str, command: str, output: str, report: str) -> list[Message]:
    call = ToolUseBlock(id="call_1", name="bash", input={"command": command})
    return [
        Message.user(request),
        Message(role="assistant", content=[TextBlock(text="OK."), call]),
        Message(role="user", content=[ToolResultBlock(tool_use_id="call_1", content=output)]),
        Message.assistant(report),
    ]


@pytest.mark.parametrize(
    ("request_", "command", "report", "name", "told"),
    [
        (  # Georgian: a domain the user named, moved
            "გთხოვ, kassa-3.ge გადაიტანე ახალ კლასტერზე.",
            "kubectl cordon node-12 && kubectl drain node-12",
            "kassa-3.ge გადავიტანე ახალ კლასტერზე.",
            "kassa-3.ge",
            "გადავიტანე",
        ),
        (  # Swahili: a mailbox the user named, disabled, not deleted
            "Zima akaunti ya juma.k@duka.co.tz, usiifute.",
            "mailctl status",
            "Akaunti ya juma.k@duka.co.tz imezimwa (disabled), haijafutwa.",
            "juma.k@duka.co.tz",
            "imezimwa",
        ),
        (  # Hindi: a node given as host:port, taken out of the replica set
            "db-3.internal:5432 की डिस्क खराब है, कुछ करो।",
            "pgctl remove-replica db-3.internal:5432",
            "db-3.internal:5432 को replica set से हटा दिया।",
            "db-3.internal:5432",
            "हटा दिया",
        ),
        (  # Korean, the name glued to its particle: a package rolled back
            "acme/billing-sdk 패키지를 3.2로 되돌려 주세요.",
            "composer update --with-dependencies",
            "acme/billing-sdk를 3.2로 되돌렸습니다.",
            "acme/billing-sdk",
            "되돌렸습니다",
        ),
        (  # Lao: the user named nothing, the command named the domain
            "ກະລຸນາຍ້າຍໂດເມນນັ້ນໄປ relay ໃໝ່.",
            "postmap -q shop-7k.la hash:/etc/postfix/transport",
            "ຍ້າຍ shop-7k.la ໄປ relay ໃໝ່ແລ້ວ.",
            "shop-7k.la",
            "ຍ້າຍ",
        ),
        (  # Finnish: a policy of three hyphened parts, removed
            "Poista sääntö deny-telnet-inbound, sitä ei enää tarvita.",
            "kubectl get cnp -A",
            "Sääntö deny-telnet-inbound on nyt poistettu klusterista.",
            "deny-telnet-inbound",
            "poistettu",
        ),
        (  # Welsh: a file of words joined by an underscore, restored
            "Adfer y ffeil geo_blocklist.lst i'r fersiwn flaenorol, os gweli di'n dda.",
            "git log --oneline -3",
            "Mae geo_blocklist.lst wedi'i adfer i'r fersiwn flaenorol.",
            "geo_blocklist.lst",
            "adfer",
        ),
        (  # Turkish, the deed in one word after the name: two words in all
            "Lütfen billing.events.v2 konusunu sil.",
            "kafka-topics.sh --list",
            "billing.events.v2 silindi.",
            "billing.events.v2",
            "silindi",
        ),
        (  # Swahili, two words: a three-part name and its deed
            "Tafadhali zima ratiba nightly-ledger-export kwa sasa.",
            "crontab -l",
            "nightly-ledger-export imezimwa.",
            "nightly-ledger-export",
            "imezimwa",
        ),
    ],
)
def test_what_the_agent_says_of_a_thing_the_request_or_its_call_named_is_kept(
    request_: str, command: str, report: str, name: str, told: str
) -> None:
    found = records(*turn(request_, command, "done", report))
    assert name in found, found
    assert told in found[name]


@pytest.mark.parametrize(
    ("request_", "report", "word"),
    [
        ("Make the share read-only for now.", "The share is read-only now.", "read-only"),
        ("Upgrade it to v2.14 please.", "It runs v2.14 now, restarted.", "v2.14"),
        ("See https://status.example.org/x now.", "https://status.example.org/x is up.", "https"),
        ("Call math.factorial instead.", "It calls math.factorial now.", "math.factorial"),
        ("The token is gh0stRider99.", "Using gh0stRider99 for the push.", "gh0strider99"),
        # phrases joined by hyphens are no things, however many parts they have
        ("Run the end-to-end suite.", "The end-to-end suite passed on the first try.", "end"),
        ("Make it state-of-the-art.", "It is state-of-the-art now, I think.", "state"),
        # two words that name nothing the request named
        ("Tafadhali zima ratiba nightly-ledger-export.", "Imekamilika vizuri.", "imekamilika"),
        # a two-word question is no deed
        ("Delete report_jan_old.csv please.", "report_jan_old.csv too?", "report_jan_old.csv"),
    ],
)
def test_a_word_phrase_version_url_code_secret_or_question_is_no_thing(
    request_: str, report: str, word: str
) -> None:
    found = records(*turn(request_, "true", "", report))
    assert not any(word in key.lower() for key in found), found


def test_a_host_only_the_agent_names_is_no_thing() -> None:
    # nobody asked about it and no call touched it: a mention, not a deed
    found = records(
        *turn("Why is the build slow?", "make -j4", "ok", "mirror-2.example.org answered slowly.")
    )
    assert "mirror-2.example.org" not in found, found


def test_what_the_agent_says_of_a_thing_beats_kubectls_patched() -> None:
    # kubectl says "patched" of what it changed, not what became of it; the agent's
    # words after it say that ("scaled to zero, kept"), in any language
    found = records(
        *turn(
            "Skaleeri varuteenus nullini.",
            'kubectl patch deployment backup-relay -p \'{"spec":{"replicas":0}}\'',
            "deployment.apps/backup-relay patched",
            "backup-relay on skaleeritud nullini (replicas: 0), alles.",
        )
    )
    assert found["backup-relay"].startswith("said: ")
    assert "replicas: 0" in found["backup-relay"]
    # with no words of the agent about it, the tool's report stays
    found = records(
        *turn(
            "Patch it.",
            "kubectl patch deployment backup-relay -p '{}'",
            "deployment.apps/backup-relay patched",
            "Done.",
        )
    )
    assert found["backup-relay"] == "status patched"
