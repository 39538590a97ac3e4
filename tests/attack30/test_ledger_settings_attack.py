"""Attack on the fact ledger's settings (commit 9af30fb, ``_setting_records``): inputs
the author did not choose, each asserting what a demanding user expects. Written by a
second party: 24 of the 40 failed on that commit and pass since the fixes after it (two
cases now expect a setting under the thing the command acts on, ``web``: replicas=2)."""

from __future__ import annotations

import time

import pytest

from contextfold.blocks import ToolResultBlock, ToolUseBlock
from contextfold.compaction._ledger import Fact, _setting_records, build_ledger
from contextfold.messages import Message
from tests.compaction.test_ledger import call


def ledger(*steps: tuple[str, str]) -> list[Fact]:
    """The facts of a session running each ``(command, output)`` in turn."""
    messages = [Message.user("Apply it.")]
    for n, (command, output) in enumerate(steps, 1):
        messages += call(n, "bash", {"command": command}, output)
    return build_ledger(messages).facts


def settings(command: str, output: str = "") -> dict[str, str]:
    """The settings (``status set to ...`` records) the ledger reads off one command."""
    return {
        f.key: f.state
        for f in ledger((command, output))
        if f.kind == "record" and f.state.startswith("status set to")
    }


def leaked(secret: str, facts: list[Fact]) -> list[Fact]:
    """Facts copying the ``secret`` (or a piece of it, as a key of 6+ characters)."""
    return [
        f
        for f in facts
        if secret in f.key
        or secret in f.state
        or secret in f.context
        or (len(f.key) >= 6 and f.key in secret)
    ]


# --- secrets: never in any fact (key, state, context; ids too) -----------------------

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


@pytest.mark.parametrize(
    ("command", "secret"),
    [
        ("helm upgrade db bitnami/postgresql --set auth.rootPassword=Xk29fQ7zLm", "Xk29fQ7zLm"),
        (
            "gcloud run services update api "
            "--set-env-vars DATABASE_URL=postgres://app:Hj3nWq9z@db.internal/app",
            "Hj3nWq9z",
        ),
        ("kubectl create secret generic db --from-literal=PASSWORD=Hj3nWq9zP", "Hj3nWq9zP"),
        ("helm upgrade web ./chart --set db.Passwd=Hj3nWq9zP", "Hj3nWq9zP"),
        pytest.param(
            "gcloud run services update api --update-env-vars DB_PASS=Hj3nWq9zP",
            "Hj3nWq9zP",
        ),
        pytest.param(
            f"helm upgrade pay ./chart --set aws.secretAccessKey={AWS_SECRET}",
            AWS_SECRET,
        ),
        pytest.param(
            f"app admin update --bearer {JWT}",
            JWT,
        ),
        pytest.param(
            "az devops configure --pat 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
            "9f8e7d6c5b4a39281706f5e4d3c2b1a0",
        ),
        pytest.param(
            "yarn config set npmAuthIdent admin:Zq8Wm3Lk9Xp2",
            "Zq8Wm3Lk9Xp2",
        ),
        pytest.param(
            "helm upgrade web ./chart --set app.seed=Zq8Wm3Lk9Xp2Rt7Yv5Bn4Hc6Jd1",
            "Zq8Wm3Lk9Xp2Rt7Yv5Bn4Hc6Jd1",
        ),
        pytest.param(
            "app oauth update --client-secret Qm93c2VyU2VjcmV0Xy",
            "Qm93c2VyU2VjcmV0Xy",
        ),
    ],
)
def test_a_credential_never_reaches_any_fact(command: str, secret: str) -> None:
    assert leaked(secret, ledger((command, ""))) == []


# --- false settings: nothing is set ---------------------------------------------------


def test_a_helm_set_is_one_record_not_two() -> None:
    assert settings("helm upgrade web ./chart --set image.tag=1.2.3") == {
        "image.tag": "status set to 1.2.3"
    }


@pytest.mark.parametrize(
    "command",
    [
        "git config --get user.email",
        "curl -s --max-time 5 https://status.example.com/api/v1/health",
        pytest.param(
            "helm upgrade web ./chart --set replicaCount=9 --dry-run",
        ),
        pytest.param(
            "grep -n 's/^max_connections = .*/max_connections = 250/' notes.md",
        ),
        pytest.param(
            "rg -s timeout=30 src/",
        ),
        pytest.param(
            "cat > deploy.sh <<'EOF'\nhelm upgrade web ./chart --set replicaCount=7\nEOF",
        ),
        pytest.param(
            "curl https://example.com/api/update --retry 5 --connect-timeout 3",
        ),
        pytest.param(
            "helm upgrade --install web ./chart --namespace shop",
        ),
    ],
)
def test_nothing_is_set(command: str) -> None:
    assert settings(command) == {}


def test_a_precondition_flag_is_not_a_setting() -> None:
    facts = ledger(
        ("kubectl scale deploy/web --replicas 2 --current-replicas 3", "deployment.apps/web scaled")
    )
    # the setting is the scaled deployment's (what the command acts on)
    states = {f.key: f.state for f in facts if f.kind == "record"}
    assert states == {"web": "status replicas=2"}


def test_a_search_query_sets_nothing() -> None:
    query = {"query": "helm upgrade --set replicaCount=3 not applied"}
    facts = build_ledger([Message.user("Why?"), *call(1, "web_search", query, "results")]).facts
    assert not [f for f in facts if f.state.startswith("status set to")]


def test_a_command_the_agent_only_shows_sets_nothing() -> None:
    messages = [
        Message.user("How would I scale it?"),
        Message.assistant("Run:\n```\nhelm upgrade web ./chart --set replicaCount=3\n```"),
    ]
    assert not [f for f in build_ledger(messages).facts if f.state.startswith("status set")]


# --- values ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "key", "value"),
    [
        ("app admin update --retention=10d", "retention", "10d"),
        ("spark-submit --conf spark.executor.memory=4g app.py", "spark.executor.memory", "4g"),
        pytest.param(
            "app admin update -s 'displayName=Shop Staff'",
            "displayName",
            "Shop Staff",
        ),
        pytest.param(
            "helm upgrade web ./chart --set a=1,b=2",
            "b",
            "2",
        ),
        pytest.param(
            "app admin update --retention 30d --retention 14d",
            "retention",
            "14d",
        ),
    ],
)
def test_the_value_set_is_read_whole(command: str, key: str, value: str) -> None:
    assert settings(command).get(key) == f"status set to {value}"


def test_a_later_unset_clears_the_setting() -> None:
    facts = ledger(("git config set core.pager less", ""), ("git config unset core.pager", ""))
    assert not [f for f in facts if f.key == "core.pager" and f.state == "status set to less"]


def test_the_same_setting_of_two_objects_keeps_both_values() -> None:
    facts = ledger(
        ("kcadm.sh update realms/staff -s ssoSessionIdleTimeout=900", ""),
        ("kcadm.sh update realms/customers -s ssoSessionIdleTimeout=1800", ""),
    )
    states = [f.state for f in facts if "ssoSessionIdleTimeout" in f.key + f.state]
    assert any("900" in s and "1800" not in s for s in states)
    assert any("1800" in s for s in states)


# --- refusals -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("ceph config set osd osd_max_backfills 3", "Fehler: unbekannte Option"),
        (
            "kubectl scale deploy web --replicas=3 && kubectl scale deploy api --replicas=5",
            'deployment.apps/web scaled\nError from server (NotFound): deployments.apps "api"',
        ),
        pytest.param(
            "redis-cli CONFIG SET maxmemory-policy allkeys-lru",
            "(error) ERR Unsupported CONFIG parameter: maxmemory-policy",
        ),
        pytest.param(
            "app admin update --retention 10d",
            "bash: app: command not found",
        ),
        pytest.param(
            "app admin update --retention 10d",
            "Не удалось применить настройку retention",
        ),
    ],
)
def test_a_refused_command_sets_nothing(command: str, output: str) -> None:
    found = settings(command, output)
    assert not {"osd_max_backfills", "replicas", "maxmemory-policy", "retention"} & set(found)


def test_an_error_result_sets_nothing() -> None:
    messages = [
        Message.user("Apply it."),
        Message("assistant", [ToolUseBlock("c1", "bash", {"command": "app update --mode fast"})]),
        Message("user", [ToolResultBlock("c1", "exit status 1", is_error=True)]),
    ]
    assert not [f for f in build_ledger(messages).facts if f.key == "mode"]


# --- performance ----------------------------------------------------------------------

_PATTERNS = {
    "set": lambda n: "helm upgrade web ./chart " + "--set a=b " * n,
    "sed": lambda n: "sed -i '" + "s/^k = .*/k = v/;" * n + "' f",
    "flags": lambda n: "app update " + "--flag value " * n,
}


def test_long_commands_stay_fast() -> None:
    for make in _PATTERNS.values():
        for size in (19_900, 200_000):  # under the 20,000 chars a command is read for, over
            command = make(size)[:size]
            started = time.perf_counter()
            ledger((command, "ok"))
            assert time.perf_counter() - started < 2.0


def test_the_reading_grows_linearly() -> None:
    def best(text: str) -> float:
        times = []
        for _ in range(3):
            started = time.thread_time()  # this thread's CPU: other processes' load is no growth
            list(_setting_records(text))
            times.append(time.thread_time() - started)
        return min(times)

    for make in _PATTERNS.values():
        small, large = make(5_000)[:50_000], make(20_000)[:200_000]
        assert best(large) < 8 * max(best(small), 1e-4)


# --- newlines -------------------------------------------------------------------------


def test_no_fact_holds_another_line_break() -> None:
    for brk in ("\r", "\x0b", "\x85", "\u2028"):  # _SED_SET's value only excludes \n
        facts = ledger((f"sed -i 's/^mode = .*/mode = fast{brk}slow/' app.conf", ""))
        assert [f for f in facts if f.key == "mode"]
        assert not [f for f in facts if len(f"{f.key} {f.state} {f.context}".splitlines()) > 1]


def test_no_fact_holds_a_newline_of_a_multiline_command() -> None:
    command = (
        "helm upgrade web ./chart \\\n  --set image.tag=1.2.3 \\\n  --set replicaCount=4\n"
        "sed -i 's/^mode = .*/mode = fast/' app.conf\nceph config set osd osd_max_backfills 3"
    )
    facts = ledger((command, ""))
    assert [f for f in facts if f.state.startswith("status set")]
    assert not [f for f in facts if "\n" in f.key + f.state + f.context]
