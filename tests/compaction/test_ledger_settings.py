"""The fact ledger reading the settings a command sets (issue 27, the seventeenth set's
round): a value set with ``-s``/``--set``, ``config set``, a flag of an update command
or a sed substitution is a record of that setting, the last value set winning; never a
credential, never a flag that only says where a command runs. No case is taken from a
fidelity set."""

from __future__ import annotations

import pytest

from contextfold.messages import Message
from tests.compaction.test_ledger import call, facts_of


def settings(command: str, output: str = "") -> dict[str, str]:
    facts = facts_of([Message.user("Apply it."), *call(1, "bash", {"command": command}, output)])
    return {k: f.state for k, f in facts.items() if f.kind == "record"}


@pytest.mark.parametrize(
    ("command", "key", "value"),
    [
        ("helm upgrade web ./chart --set replicaCount=4 -n web", "replicaCount", "4"),
        ("ceph config set osd osd_max_backfills 3", "osd_max_backfills", "3"),
        ("redis-cli CONFIG SET maxmemory-policy allkeys-lru", "maxmemory-policy", "allkeys-lru"),
        (
            "tctl namespace update --namespace billing --history-archival-state enabled",
            "history-archival-state",
            "enabled",
        ),
        (
            "gcloud run services update api --min-instances 2 --region europe-west1",
            "min-instances",
            "2",
        ),
        (
            "sed -i 's/^max_connections = .*/max_connections = 250/' /etc/pg/pg.conf",
            "max_connections",
            "250",
        ),
    ],
)
def test_a_setting_a_command_sets_is_a_record(command: str, key: str, value: str) -> None:
    assert settings(command).get(key) == f"status set to {value}"


def test_the_last_value_set_holds() -> None:
    facts = facts_of(
        [
            Message.user("Retention 30 days."),
            *call(1, "bash", {"command": "app admin update --retention 30d"}, ""),
            Message.user("No, make it 14."),
            *call(2, "bash", {"command": "app admin update --retention 14d"}, ""),
        ]
    )
    assert facts["retention"].state == "status set to 14d"


@pytest.mark.parametrize(
    "command",
    [
        "app admin update --namespace billing --region eu --output json",  # where, not what
        "helm upgrade web ./chart --set db.password=hunter22x",  # a credential
        "kcadm.sh update users/1 -s credentials=Zk29xPq",
        "grep -r 'max_connections = 250' /etc/pg/",  # a search, nothing set
        "ssh -o StrictHostKeyChecking=no db1 uptime",  # an option of the client
    ],
)
def test_no_setting_where_nothing_is_set(command: str) -> None:
    found = settings(command)
    assert not [k for k in found if k not in ("/etc/pg/",)]


def test_a_refused_command_sets_nothing() -> None:
    found = settings(
        "ceph config set osd osd_max_backfills 3", "Error EINVAL: unrecognized config target"
    )
    assert "osd_max_backfills" not in found


def test_a_setting_of_a_thing_a_command_acts_on_is_that_things_record() -> None:
    found = settings("kcadm.sh update realms/shop -s accessTokenLifespan=600 -s enabled=true")
    assert found["shop"] == "status accessTokenLifespan=600, enabled=true"
    found = settings("kubectl -n pay scale deployment/ledger-sync --replicas=0")
    assert found["ledger-sync"] == "status replicas=0"


def test_a_thing_addressed_by_its_id_is_named_as_an_earlier_answer_named_it() -> None:
    listing = '[{"id": "9b1c0e7a-55f2-4d8e-a1f0-3c2b7d9e6a41", "clientId": "billing-portal"}]'
    facts = facts_of(
        [
            Message.user("Turn the billing-portal client off, do not delete it."),
            *call(
                1,
                "bash",
                {"command": "kcadm.sh get clients -r shop -q clientId=billing-portal"},
                listing,
            ),
            *call(
                2,
                "bash",
                {
                    "command": "kcadm.sh update clients/9b1c0e7a-55f2-4d8e-a1f0-3c2b7d9e6a41 "
                    "-r shop -s enabled=false"
                },
                "",
            ),
        ]
    )
    assert facts["billing-portal"].state == "status enabled=false"
