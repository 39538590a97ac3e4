"""The fact ledger reading the row of a listing that the words after it point to by a
state the tool printed ("the pod in ImagePullBackOff", "the container that Exited"), by a
clock time, or after the agent's one-word "done" (issue 27, the twentieth set's round).
No case is taken from a fidelity set."""

from __future__ import annotations

from contextfold.compaction._ledger import TIERS
from contextfold.messages import Message
from tests.compaction.test_ledger import call, facts_of

_PODS = """\
NAME                              READY   STATUS             RESTARTS       AGE
checkout-web-7d9f8c6b5-2xkqp      1/1     Running            0              3d
checkout-web-7d9f8c6b5-9mzrt      1/1     Running            0              3d
checkout-worker-5b6c7d8e9-lq4wn   0/1     ImagePullBackOff   0              12m
checkout-worker-5b6c7d8e9-t7hvx   1/1     Running            1 (2d ago)     3d
checkout-cron-28391045-x2bfd      0/1     Completed          0              41m
"""

_CONTAINERS = """\
CONTAINER ID   IMAGE              COMMAND                  STATUS                       NAMES
4be0d2a7c9f1   nginx:1.27         "/docker-entrypoint.…"   Up 6 hours                   edge
a71c3e9f05d2   redis:7.4          "docker-entrypoint.s…"   Up 6 hours                   cache
0e5f8b2d6a13   ghcr.io/acme/api   "/app/server --port …"   Exited (137) 14 minutes ago  api
c9d4a6e1b870   postgres:16        "docker-entrypoint.s…"   Up 6 hours                   db
"""

_SNAPSHOTS = """\
ID        Time                 Host        Tags        Paths
4f1b2c3d  2025-03-03 01:00:02  db1                     /srv/pg
9a8b7c6d  2025-03-03 03:15:40  db1                     /srv/pg
e2d4f6a8  2025-03-03 05:00:03  db1                     /srv/pg
71c3b5d9  2025-03-03 07:00:01  db1                     /srv/pg
"""


def test_a_state_word_the_tool_printed_points_to_its_one_row() -> None:
    facts = facts_of(
        [
            Message.user("¿Por qué falla el checkout?"),
            *call(1, "bash", {"command": "kubectl get pods -n shop"}, _PODS),
            Message.assistant("Listo."),
            Message.user("El pod que está en ImagePullBackOff es el que nos interesa, anótalo."),
            Message.assistant("Anotado."),
        ]
    )
    pod = facts["checkout-worker-5b6c7d8e9-lq4wn"]
    assert pod.kind == "id"
    assert "ImagePullBackOff" in pod.context
    # the conversation pointed at it: it ranks with the agent's identifiers, above the
    # tools' bulk
    assert pod.tier == TIERS["agent id"]
    # the rows nobody pointed at stay bulk
    assert "checkout-worker-5b6c7d8e9-t7hvx" not in facts
    assert "checkout-web-7d9f8c6b5-9mzrt" not in facts


def test_a_state_word_in_another_language_around_it_still_points() -> None:
    facts = facts_of(
        [
            Message.user("Warum antwortet die API nicht?"),
            *call(1, "bash", {"command": "docker ps -a"}, _CONTAINERS),
            Message.assistant("Erledigt."),
            Message.user("Der Container, der Exited ist — genau den brauchen wir. Merk ihn dir."),
        ]
    )
    assert "0e5f8b2d6a13" in facts
    assert "a71c3e9f05d2" not in facts


def test_a_clock_time_points_to_the_row_made_then() -> None:
    facts = facts_of(
        [
            Message.user("Mitkä varmuuskopiot meillä on?"),
            *call(1, "bash", {"command": "restic snapshots"}, _SNAPSHOTS),
            Message.assistant("Valmis."),
            Message.user("Tarvitsemme sen, joka otettiin klo 03:15. Muista se."),
        ]
    )
    assert "9a8b7c6d" in facts
    assert "e2d4f6a8" not in facts


def test_a_word_on_two_rows_a_common_word_or_the_head_points_to_none() -> None:
    facts = facts_of(
        [
            Message.user("Check the pods."),
            *call(1, "bash", {"command": "kubectl get pods -n shop"}, _PODS),
            Message.assistant("Done."),
            # "Running" is on three rows, "STATUS" only in the head, "the" on none of
            # them as a word a tool printed
            Message.user("So the Running ones are fine and the STATUS column says the rest."),
        ]
    )
    # (the last row may be read as any output's end is: as the tool's bulk)
    pointed = [f.key for f in facts.values() if f.tier == TIERS["agent id"]]
    assert not [key for key in pointed if key.startswith("checkout-")]
    assert "checkout-worker-5b6c7d8e9-lq4wn" not in facts


def test_words_after_a_later_call_point_to_its_output_not_an_earlier_one() -> None:
    facts = facts_of(
        [
            Message.user("Look at the containers and the backups."),
            *call(1, "bash", {"command": "docker ps -a"}, _CONTAINERS),
            *call(2, "bash", {"command": "restic snapshots"}, _SNAPSHOTS),
            Message.assistant("Done."),
            # "Exited" names a row of the first output only: the words come after the
            # second one, and point to nothing of the first
            Message.user("Whatever Exited can wait."),
        ]
    )
    assert "0e5f8b2d6a13" not in facts
