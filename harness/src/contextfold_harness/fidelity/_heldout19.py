"""The nineteenth held-out set, written blind: six long working sessions between a user
and an AI ops agent, each on one stack and in one human language both of them speak.

* ``strimzi_kafka_estonian``: Apache Kafka run by Strimzi on Kubernetes, in Estonian;
* ``vault_persian``: HashiCorp Vault, in Persian (Arabic script, Persian digits here and
  there, a Solar Hijri date);
* ``keycloak_bengali``: Keycloak, in Bengali (Bengali digits in dates);
* ``clickhouse_kazakh``: ClickHouse, in Kazakh (Cyrillic);
* ``rabbitmq_amharic``: RabbitMQ, in Amharic (Ge'ez script);
* ``mongodb_nepali``: a MongoDB replica set, in Nepali (Devanagari, Devanagari digits).

Tool output stays in the tool's own English/ASCII format. Each opening plants seven
probes, in an order the seed shuffles, among decoys, traps (a colleague's wrong hunch, a
closed ticket beside an open one, values superseded later) and long tool outputs:

* three identifiers of three id types of the stack, each in a listing beside same-shaped
  decoys;
* two artifacts (a named thing and what became of it), told by the tool output only, by
  the agent's words only, or by both, sometimes behind a negation ("don't delete it, only
  disable it");
* one decision, in a form the seed picks: dictated with a reason, proposed by the agent
  and approved, proposed and changed by the user, dictated then corrected later (the
  first value superseded), relayed from a named colleague, or the user's answer to an
  either/or question;
* one next step: pending work put on a relative day, a calendar date, a weekday, a
  condition, a deadline, or promised by the agent.

Then ``segments`` filler segments of later, unrelated work on the same system, which
never repeat a probe's value.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from contextfold.messages import Message
from contextfold_harness.fidelity._build import (
    Builder,
    Parts,
    Probe,
    Session,
    Template,
    build_session,
    hexits,
    token,
)

__all__ = ["HELDOUT19_KINDS", "generate_heldout19"]

DECISION_FORMS = ("dictated", "approved", "changed", "corrected", "relayed", "either_or")
NEXT_FORMS = ("relative", "date", "weekday", "condition", "deadline", "promise")
B62 = string.ascii_letters + string.digits
LOWER = string.ascii_lowercase + string.digits
Scene = Callable[[], None]


def _uuid(rng: random.Random) -> str:
    return (
        f"{hexits(rng, 8)}-{hexits(rng, 4)}-4{hexits(rng, 3)}-"
        f"{rng.choice('89ab')}{hexits(rng, 3)}-{hexits(rng, 12)}"
    )


def _ip(rng: random.Random, net: str = "10.42") -> str:
    return f"{net}.{rng.randint(0, 9)}.{rng.randint(2, 250)}"


def _ts(rng: random.Random, day: int = 11, month: int = 3) -> str:
    h, m, s = rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)
    return f"2026-{month:02d}-{day:02d}T{h:02d}:{m:02d}:{s:02d}.{rng.randint(0, 999):03d}Z"


def _log(rng: random.Random, n: int, make: Callable[[random.Random], str]) -> str:
    """``n`` log lines that start with a timestamp, in time order."""
    return "\n".join(sorted(make(rng) for _ in range(n)))


def _digits(text: str, zero: str) -> str:
    """``text`` with its ASCII digits written in the script whose zero is ``zero``."""
    return "".join(chr(ord(zero) + int(c)) if c in "0123456789" else c for c in text)


def _among(rng: random.Random, target: str, make: Callable[[], str], n: int) -> list[str]:
    """``target`` at a random place among ``n`` distinct same-shaped decoys."""
    out: list[str] = []
    while len(out) < n:
        decoy = make()
        if decoy != target and decoy not in out:
            out.append(decoy)
    out.insert(rng.randrange(n + 1), target)
    return out


def _pick(rng: random.Random, options: Sequence[str]) -> str:
    return options[rng.randrange(len(options))]


def _identifier(question: str, value: str) -> Probe:
    return Probe("identifier", question, value, ((value,),))


def _probe(
    kind: Literal["artifact", "decision", "next_step"],
    question: str,
    answer: str,
    *needles: Sequence[str],
) -> Probe:
    return Probe(kind, question, answer, tuple(tuple(group) for group in needles))


@dataclass(frozen=True, slots=True)
class Fate:
    """An artifact and what became of it, as each side would say it."""

    name: str
    question: str
    answer: str
    words: tuple[str, ...]  # the needle: any of these beside the name on one line
    tool: Callable[[random.Random, Builder], None]  # shows it by tool output only
    quiet: Callable[[random.Random, Builder], None]  # runs it without showing the state
    said: tuple[str, ...]  # the agent's sentence (``{n}`` is the name)
    trap: tuple[str, ...]  # the user's request with a negation (``{n}``)
    ask: tuple[str, ...]  # the user's plain request (``{n}``)


def _artifact_scene(
    rng: random.Random, b: Builder, fate: Fate, probes: list[Probe], neutral: Sequence[str]
) -> Scene:
    mode = _pick(rng, ("tool", "words", "both"))
    negated = rng.random() < 0.5

    def scene() -> None:
        b.user(_pick(rng, fate.trap if negated else fate.ask).format(n=fate.name))
        if mode == "words":
            fate.quiet(rng, b)
            b.assistant(_pick(rng, fate.said).format(n=fate.name))
        else:
            fate.tool(rng, b)
            if mode == "both":
                b.assistant(_pick(rng, fate.said).format(n=fate.name))
            else:
                b.assistant(_pick(rng, neutral))

    probes.append(_probe("artifact", fate.question, fate.answer, (fate.name,), fate.words))
    return scene


def _opening(
    rng: random.Random,
    b: Builder,
    intro: Scene,
    scenes: list[Scene],
    late: list[Scene],
    outro: Scene,
) -> list[Message]:
    """The intro, the scenes in a seeded order, what comes late (corrections), the outro.
    Every scene starts with the user and ends with the agent."""
    intro()
    rng.shuffle(scenes)
    for scene in scenes:
        scene()
    for scene in late:
        scene()
    outro()
    return b.take()


def _segments(
    rng: random.Random, b: Builder, count: int, fillers: Sequence[Callable[[], None]]
) -> list[list[Message]]:
    out = []
    order = list(fillers)
    for i in range(count):
        if i % len(order) == 0:
            rng.shuffle(order)
        order[i % len(order)]()
        if rng.random() < 0.5:
            order[(i + 1) % len(order)]()
        out.append(b.take())
    return out


@dataclass(frozen=True, slots=True)
class Choice:
    """A decision: what is asked, the words that name its subject, the values to draw
    from, and for each form the turns (user first, agent last) that make it. ``{v}`` is
    the value that stands, ``{o}`` the other one, ``{who}`` a colleague."""

    question: str
    subject: tuple[str, ...]
    values: tuple[str, ...]
    colleagues: tuple[str, ...]
    turns: dict[str, tuple[tuple[str, ...], ...]]


def _decision_scene(
    rng: random.Random, choice: Choice, probes: list[Probe], late: list[Scene], b: Builder
) -> Scene:
    form = _pick(rng, DECISION_FORMS)
    v, o = rng.sample(choice.values, 2)
    who = _pick(rng, choice.colleagues)

    def say(turns: tuple[str, ...]) -> None:
        for i, text in enumerate(turns):
            line = text.format(v=v, o=o, who=who)
            if i % 2 == 0:
                b.user(line)
            else:
                b.assistant(line)

    def scene() -> None:
        say(_pick_turns(rng, choice.turns[form]))

    if form == "corrected":
        late.append(lambda: say(_pick_turns(rng, choice.turns["correction"])))
        answer = f"{v} (it replaced {o}, the value first given)"
    elif form == "relayed":
        answer = f"{v} (relayed from {who})"
    elif form == "changed":
        answer = f"{v} (the user's change; the agent had proposed {o})"
    elif form == "either_or":
        answer = f"{v} (the user's answer to {v} or {o})"
    else:
        answer = v
    probes.append(_probe("decision", choice.question, answer, choice.subject, (v,)))
    return scene


def _pick_turns(rng: random.Random, options: tuple[tuple[str, ...], ...]) -> tuple[str, ...]:
    return options[rng.randrange(len(options))]


@dataclass(frozen=True, slots=True)
class When:
    """When pending work is due, as the session's language says it (``phrase``), the
    needle's alternatives (``alts``) and the judge's answer."""

    form: str
    phrase: str
    alts: tuple[str, ...]
    answer: str


@dataclass(frozen=True, slots=True)
class Pending:
    """The next step: what is left (``{x}`` the thing, ``{t}`` when), said by the user, or
    promised by the agent (the ``promise`` form)."""

    question: str
    action: str  # English, for the answer: "approve the KafkaRebalance {x}"
    things: tuple[str, ...]
    whens: tuple[When, ...]
    user: tuple[tuple[str, str], ...]  # (the user's line, the agent's reply)
    promise: tuple[tuple[str, str], ...]  # (the user's line, the agent's promise)


def _next_scene(rng: random.Random, pending: Pending, probes: list[Probe], b: Builder) -> Scene:
    form = _pick(rng, NEXT_FORMS)
    when = _pick_when(rng, [w for w in pending.whens if w.form == form])
    thing = _pick(rng, pending.things)
    pairs = pending.promise if form == "promise" else pending.user

    def scene() -> None:
        first, second = pairs[rng.randrange(len(pairs))]
        b.user(first.format(x=thing, t=when.phrase))
        b.assistant(second.format(x=thing, t=when.phrase))

    answer = f"{pending.action.format(x=thing)}: {when.answer}"
    probes.append(_probe("next_step", pending.question, answer, (thing,), when.alts))
    return scene


def _pick_when(rng: random.Random, options: list[When]) -> When:
    return options[rng.randrange(len(options))]


# --- Apache Kafka with Strimzi, in Estonian -------------------------------------------


def _kafka_log(rng: random.Random) -> str:
    broker = rng.randint(0, 5)
    topic = _pick(rng, ("inventory.events", "search.reindex", "web.sessions", "crm.contacts"))
    line = _pick(
        rng,
        (
            f"INFO [ReplicaFetcher replicaId={broker}, leaderId={rng.randint(0, 5)}, "
            f"fetcherId=0] Truncating partition {topic}-{rng.randint(0, 23)} to local high "
            f"watermark {rng.randint(1000, 99999)} (kafka.server.ReplicaFetcherThread)",
            f"INFO [LocalLog partition={topic}-{rng.randint(0, 23)}, dir=/var/lib/kafka/"
            f"data-0/kafka-log{broker}] Rolled new log segment at offset "
            f"{rng.randint(10**5, 10**7)} in {rng.randint(1, 9)} ms. (kafka.log.LocalLog)",
            f"INFO [GroupCoordinator {broker}]: Preparing to rebalance group "
            f"{_pick(rng, ('search-indexer', 'crm-sync', 'web-analytics'))} in state "
            f"PreparingRebalance with old generation {rng.randint(10, 400)} "
            "(kafka.coordinator.group.GroupCoordinator)",
            f"WARN [Producer clientId=producer-{rng.randint(1, 9)}] Got error produce "
            f"response with correlation id {rng.randint(1000, 90000)} on topic-partition "
            f"{topic}-{rng.randint(0, 23)}, retrying. Error: NOT_LEADER_OR_FOLLOWER",
        ),
    )
    return f"{_ts(rng).replace('T', ' ')[:23]} {line}"


def _kafka(rng: random.Random, b: Builder, segments: int) -> Parts:
    probes: list[Probe] = []
    late: list[Scene] = []
    ns = _pick(rng, ("kafka-prod", "streaming", "kafka-main"))
    cluster = _pick(rng, ("payments", "core", "events"))

    def cid() -> str:
        return token(rng, 22, B62 + "-_")

    # identifier 1: the cluster id, among the other clusters' ids
    cluster_id = cid()
    others = [
        ("kafka-stage", cluster),
        ("kafka-dev", cluster),
        ("analytics", "clickstream"),
        ("kafka-dr", cluster),
        ("sandbox", "playground"),
    ]
    rng.shuffle(others)
    rows = [(ns, cluster, cluster_id)] + [(n, c, cid()) for n, c in others[: rng.randint(3, 5)]]
    rng.shuffle(rows)
    probes.append(
        _identifier(f"What is the Kafka cluster ID of the {cluster} cluster in {ns}?", cluster_id)
    )

    def ident_cluster() -> None:
        b.user(
            _pick(
                rng,
                (
                    f"Mul on vaja prodi klastri ID-d, MirrorMaker2 konfi jaoks. Prod on {ns} "
                    f"namespace'is, nimi {cluster}. Teised on stage, dev ja muu kräpp, "
                    "neid ära võta.",
                    f"Leia palun {ns} all oleva {cluster} klastri clusterId — Confluenti "
                    "tugi küsib "
                    "seda piletis. Ära aja segi DR-i omaga, need on sarnase nimega.",
                ),
            )
        )
        out = "NAMESPACE      NAME          CLUSTER_ID               READY\n" + "\n".join(
            f"{n:<14} {c:<13} {i}   {_pick(rng, ('True', 'True', 'False'))}" for n, c, i in rows
        )
        b.tool(
            "Võtan kõigi Kafka ressursside clusterId-d korraga.",
            "bash",
            {
                "command": "kubectl get kafka -A -o custom-columns=NAMESPACE:.metadata.namespace,"
                "NAME:.metadata.name,CLUSTER_ID:.status.clusterId,"
                "READY:.status.conditions[0].status"
            },
            out,
        )
        b.assistant(
            _pick(
                rng,
                (
                    f"Prodi ({ns}/{cluster}) clusterId on {cluster_id}. Ülejäänud read on "
                    "stage/dev/DR "
                    "klastrid, neid MirrorMaker2 konfi ei pane.",
                    f"Selle, mida otsid, leiad {ns} realt: {cluster_id}. DR-i rida on teise ID-ga, "
                    "ehkki klastri nimi on sama.",
                ),
            )
        )

    # identifier 2: the stuck consumer's member id
    group = _pick(rng, ("invoice-sync", "ledger-writer", "fraud-scorer"))
    hosts = [_ip(rng) for _ in range(5)]
    stuck = rng.randrange(5)

    def member(i: int) -> str:
        return f"{group}-{i + 1}-{_uuid(rng)}"

    members = [member(i) for i in range(5)]
    member_id = members[stuck]
    probes.append(
        _identifier(
            f"What is the consumer member ID of the {group} consumer on host /{hosts[stuck]} "
            "that had no partitions assigned?",
            member_id,
        )
    )

    def ident_member() -> None:
        b.user(
            _pick(
                rng,
                (
                    f"Grupil {group} on lag jälle üle miljoni. Vaata, kas mõni liige ripub.",
                    f"{group} ei tarbi üldse, Grafana näitab lagi kasvu alates kella kaheksast. "
                    "Mis seal grupis toimub?",
                ),
            )
        )
        lines = [f"{'GROUP':<15}{'CONSUMER-ID':<56}{'HOST':<16}{'CLIENT-ID':<18}#PARTITIONS"]
        for i, m in enumerate(members):
            parts = 0 if i == stuck else rng.randint(3, 6)
            lines.append(
                f"{group:<15}{m:<56}/{hosts[i]:<15}{group}-{i + 1:<{17 - len(group)}} {parts}"
            )
        b.tool(
            f"Kirjeldan grupi {group} liikmeid.",
            "bash",
            {
                "command": f"kubectl exec -n {ns} {cluster}-kafka-0 -c kafka -- "
                "bin/kafka-consumer-groups.sh --bootstrap-server localhost:9092 --describe "
                f"--group {group} --members"
            },
            "\n".join(lines),
        )
        b.assistant(
            _pick(
                rng,
                (
                    f"Üks liige on grupis, aga ilma partitsioonideta: {member_id} hostil "
                    f"/{hosts[stuck]}. Ülejäänud neli jagavad partitsioonid omavahel.",
                    f"Süüdlane paistab olevat {member_id} (/{hosts[stuck]}) — 0 partitsiooni, aga "
                    "hoiab rebalance'i kinni.",
                ),
            )
        )
        b.user(
            _pick(
                rng,
                (
                    "Mart arvas, et see on võrgu MTU jama, nagu eelmisel kuul. Kas on?",
                    "Mart ütles Slackis, et broker 2 ketas on täis ja sellepärast. Kontrolli.",
                ),
            )
        )
        b.tool(
            "Kontrollin brokerite kettaid ja võrguvigu.",
            "bash",
            {
                "command": f"kubectl exec -n {ns} {cluster}-kafka-2 -c kafka -- df -h "
                "/var/lib/kafka/data-0"
            },
            "Filesystem      Size  Used Avail Use% Mounted on\n"
            f"/dev/nvme1n1    1.0T  {rng.randint(300, 480)}G  "
            f"{rng.randint(520, 700)}G  {rng.randint(31, 47)}% /var/lib/kafka/data-0",
        )
        b.assistant(
            "Ei paista: ketas on alla poole täis ja brokeri logis pole ühtegi "
            "võrguviga. Mardi hüpotees ei pea, probleem on selles ühes liikmes."
        )

    # identifier 3: the Connect pod in CrashLoopBackOff
    connect = f"{cluster}-connect"

    def pod() -> str:
        return (
            f"{connect}-{token(rng, 10, 'bcdf6789')}-{token(rng, 5, 'bcdfghjklmnpqrstvwxz2456789')}"
        )

    pods = [pod() for _ in range(rng.randint(4, 6))]
    bad = rng.randrange(len(pods))
    pod_id = pods[bad]
    old = pod()
    probes.append(_identifier("Which Kafka Connect pod was in CrashLoopBackOff?", pod_id))

    def ident_pod() -> None:
        b.user(
            _pick(
                rng,
                (
                    "Connecti taskid kukuvad. Vaata podid üle.",
                    f"Kafka Connect ({connect}) näitab Grafanas restarte. Mis pod see on?",
                ),
            )
        )
        lines = [
            "NAME                                   READY   STATUS             RESTARTS        AGE"
        ]
        for i, p in enumerate(pods):
            if i == bad:
                lines.append(
                    f"{p}   0/1     CrashLoopBackOff   {rng.randint(9, 40)} "
                    f"({rng.randint(1, 4)}m ago)   {rng.randint(2, 9)}d"
                )
            else:
                lines.append(
                    f"{p}   1/1     Running            0               {rng.randint(2, 9)}d"
                )
        b.tool(
            "Vaatan Connecti podide olekut.",
            "bash",
            {"command": f"kubectl get pods -n {ns} -l strimzi.io/kind=KafkaConnect"},
            "\n".join(lines),
        )
        b.assistant(
            _pick(
                rng,
                (
                    f"CrashLoopBackOff on {pod_id}. Ülejäänud on Running ja ilma restartideta. "
                    f"(Hommikul Slackis mainitud {old} on juba ammu kustunud, see oli eelmise "
                    "ReplicaSeti pod.)",
                    f"Probleemne pod on {pod_id}, teised on korras. Vana nimi {old}, mida "
                    "piletis mainiti, kuulus eelmisele deploymendi versioonile ja seda enam pole.",
                ),
            )
        )

    neutral = ("Tehtud, väljund on ülal.", "Valmis. Vaata väljundit.", "Ok, käsk läks läbi.")

    def connector_tool(rng: random.Random, b: Builder) -> None:
        b.tool(
            "Panen konnektori pausile ja kontrollin REST API-st.",
            "bash",
            {
                "command": f"kubectl exec -n {ns} deploy/{connect} -- curl -s "
                "localhost:8083/connectors/orders-cdc-source/status"
            },
            '{"name":"orders-cdc-source","connector":{"state":"PAUSED","worker_id":"'
            f'{_ip(rng)}:8083"}},"tasks":[{{"id":0,"state":"PAUSED","worker_id":"'
            f'{_ip(rng)}:8083"}}],"type":"source"}}',
        )

    def connector_quiet(rng: random.Random, b: Builder) -> None:
        b.tool(
            "Muudan KafkaConnectori spec.state'i.",
            "bash",
            {
                "command": f"kubectl patch kafkaconnector orders-cdc-source -n {ns} --type merge "
                '-p \'{"spec":{"state":"paused"}}\''
            },
            "kafkaconnector.kafka.strimzi.io/orders-cdc-source patched",
        )

    def mm2_tool(rng: random.Random, b: Builder) -> None:
        b.tool(
            "Skaleerin ja vaatan üle.",
            "bash",
            {"command": f"kubectl get kafkamirrormaker2 -n {ns}"},
            "NAME            DESIRED REPLICAS   READY\n"
            f"dr-replicator   0                  True\nlegacy-mm2      {rng.randint(1, 3)}"
            "                  True",
        )

    def mm2_quiet(rng: random.Random, b: Builder) -> None:
        b.tool(
            "Patchin replicas väärtuse.",
            "bash",
            {
                "command": f"kubectl patch kafkamirrormaker2 dr-replicator -n {ns} --type merge "
                '-p \'{"spec":{"replicas":0}}\''
            },
            "kafkamirrormaker2.kafka.strimzi.io/dr-replicator patched",
        )

    def topic_tool(rng: random.Random, b: Builder) -> None:
        b.tool(
            "Märgin topicu ja kontrollin annotatsiooni.",
            "bash",
            {
                "command": f"kubectl get kafkatopic clickstream-raw-v1 -n {ns} -o "
                'jsonpath=\'{.metadata.name}{" managed="}{.metadata.annotations.strimzi\\.io/'
                'managed}{"\\n"}\''
            },
            "clickstream-raw-v1 managed=false",
        )

    def topic_quiet(rng: random.Random, b: Builder) -> None:
        b.tool(
            "Lisan annotatsiooni.",
            "bash",
            {
                "command": f"kubectl annotate kafkatopic clickstream-raw-v1 -n {ns} "
                "strimzi.io/managed=false --overwrite"
            },
            "kafkatopic.kafka.strimzi.io/clickstream-raw-v1 annotated",
        )

    def user_tool(rng: random.Random, b: Builder) -> None:
        b.tool(
            "Käivitan meie roteerimisskripti.",
            "bash",
            {"command": f"./scripts/rotate-kafka-user.sh -n {ns} reporting-ro"},
            f'secret "reporting-ro" deleted\nwaiting for User Operator ...\n'
            f"KafkaUser {ns}/reporting-ro: password rotated, new secret generation 2\n"
            "old credentials rejected: SaslAuthenticationException (expected)",
        )

    def user_quiet(rng: random.Random, b: Builder) -> None:
        b.tool(
            "Kustutan secreti, operaator loob uue.",
            "bash",
            {"command": f"kubectl delete secret reporting-ro -n {ns}"},
            'secret "reporting-ro" deleted',
        )

    fates = [
        Fate(
            "orders-cdc-source",
            "What happened to the orders-cdc-source connector?",
            "It was paused (spec.state paused), not deleted.",
            ("paused", "pausil", "pausile", "peatatud"),
            connector_tool,
            connector_quiet,
            (
                "{n} on nüüd pausil — konnektor ise ja offsetid jäävad alles.",
                "Panin {n} pausile, kustutanud ei ole. Offsetid on alles.",
            ),
            ("Ära {n} konnektorit kustuta, ainult pane pausile — offsetid peavad alles jääma.",),
            ("Pane {n} seisma, andmebaasi poolel on hooldus.",),
        ),
        Fate(
            "dr-replicator",
            "What happened to the dr-replicator MirrorMaker2?",
            "It was scaled to zero replicas (kept, not deleted).",
            (
                "0 repl",
                "replicas: 0",
                "nullini",
                "scaled to zero",
                "skaleeritud 0",
                "0-le",
                "   0   ",
            ),
            mm2_tool,
            mm2_quiet,
            (
                "{n} on skaleeritud nullini (replicas: 0), ressurss ise on alles.",
                "Skaleerisin {n} 0-le; CR jäi alles, et hiljem tagasi keerata.",
            ),
            ("{n}-it ära kustuta! Lihtsalt skaleeri nullini, DR test on alles ees.",),
            ("Skaleeri {n} nullini, DR-i klaster läheb hooldusesse.",),
        ),
        Fate(
            "clickstream-raw-v1",
            "What happened to the clickstream-raw-v1 KafkaTopic?",
            "It was made unmanaged (strimzi.io/managed=false); the topic was not deleted.",
            ("managed=false", "unmanaged", "haldamata", "halduse alt"),
            topic_tool,
            topic_quiet,
            (
                "{n} on nüüd Topic Operatori halduse alt väljas (managed=false), topic ise "
                "jääb brokeritele alles.",
            ),
            ("Ära {n} topicut kustuta, võta see lihtsalt operaatori halduse alt välja.",),
            ("Võta {n} Topic Operatori halduse alt ära, me kolime selle teise repo alla.",),
        ),
        Fate(
            "reporting-ro",
            "What happened to the reporting-ro KafkaUser?",
            "Its SCRAM password was rotated (secret regenerated); the user was kept.",
            ("rotated", "roteeritud", "uus parool", "new password"),
            user_tool,
            user_quiet,
            (
                "{n} parool on roteeritud: operaator lõi uue secreti, kasutaja ise jäi alles.",
                "Kasutajal {n} on nüüd uus parool (roteeritud), ACL-id on samad.",
            ),
            ("{n} kasutajat ära kustuta, vaheta ainult parool ära — see lekkis Jirasse.",),
            ("Roteeri {n} parool, vana on ühes Jira kommentaaris näha.",),
        ),
    ]
    rng.shuffle(fates)
    scenes: list[Scene] = [ident_cluster, ident_member, ident_pod]
    scenes += [_artifact_scene(rng, b, f, probes, neutral) for f in fates[:2]]

    choice = Choice(
        "Which storage class was decided for the new Kafka node pool?",
        ("storage class", "storageclass", "storage-class"),
        ("gp3-encrypted", "io2-kafka", "premium-rwo", "local-nvme-xfs", "ceph-rbd-fast"),
        ("Kadri", "Siim", "Triin", "Rasmus"),
        {
            "dictated": (
                (
                    "Uus KafkaNodePool saab storage class'iks {v}, sest {o} maksab meie "
                    "mahtude juures liiga palju.",
                    "Selge, panen uue pool'i manifesti storage class'iks {v}.",
                ),
            ),
            "approved": (
                (
                    "Mis storage class'i uuele node pool'ile valime?",
                    "Soovitan storage class'i {v}: IOPS on piisav ja see on meil juba "
                    "teistes klastrites kasutusel.",
                    "Jah, sobib. Tee nii.",
                    "Hästi, jääb {v}.",
                ),
            ),
            "changed": (
                (
                    "Mis storage class'i uuele node pool'ile valime?",
                    "Paku, et {o} — see on vaikimisi klass.",
                    "Ei, {o} mitte. Pane storage class'iks {v}, vaikimisi klassil on "
                    "IOPS-i lagi liiga madal.",
                    "Ok, muudan: storage class {v}.",
                ),
            ),
            "corrected": (("Uue node pool'i storage class on {o}.", "Selge, {o}."),),
            "correction": (
                (
                    "Parandus eelmisele: storage class ei ole {o}, vaid {v} — ajasin "
                    "klastrid segi.",
                    "Hästi, uus pool läheb storage class'iga {v}.",
                ),
                (
                    "Vabandust, vale info: {o} oli testklastri oma. Uue pool'i "
                    "storage class on {v}.",
                    "Parandasin, storage class {v}.",
                ),
            ),
            "relayed": (
                (
                    "{who} platvormitiimist kirjutas, et uue pool'i storage class peab "
                    "olema {v}, muud nad ei toeta.",
                    "Arusaadav, kasutan storage class'i {v}.",
                ),
            ),
            "either_or": (
                (
                    "Uus node pool tuleb täna valmis teha.",
                    "Üks küsimus enne: kas storage class {o} või {v}?",
                    "{v} storage class, palun. {o} oli meil eelmisel aastal aeglane.",
                    "Selge, {v}.",
                ),
            ),
        },
    )
    scenes.append(_decision_scene(rng, choice, probes, late, b))

    days = ("esmaspäeval", "teisipäeval", "kolmapäeval", "neljapäeval", "reedel")
    en_days = ("monday", "tuesday", "wednesday", "thursday", "friday")
    d = rng.randrange(5)
    day = rng.randint(3, 27)
    month = _pick(rng, ("märtsil", "aprillil", "mail"))
    en_month = {"märtsil": "march", "aprillil": "april", "mail": "may"}[month]
    mnum = {"märtsil": 3, "aprillil": 4, "mail": 5}[month]
    pending = Pending(
        "Which KafkaRebalance is still to be approved, and when?",
        "approve the KafkaRebalance {x}",
        ("rebalance-pool-c", "rebalance-after-scale", "cruise-rebalance-q2"),
        (
            When("relative", "homme hommikul", ("homme", "tomorrow"), "tomorrow morning"),
            When(
                "relative", "ülehomme", ("ülehomme", "day after tomorrow"), "the day after tomorrow"
            ),
            When("relative", "järgmisel nädalal", ("järgmisel nädalal", "next week"), "next week"),
            When(
                "date",
                f"{day}. {month}",
                (
                    f"{day}. {month[:-1] if month != 'mail' else 'mai'}",
                    f"{day}. {month}",
                    f"{en_month} {day}",
                    f"{day} {en_month}",
                    f"{day:02d}.{mnum:02d}",
                    f"{mnum:02d}-{day:02d}",
                ),
                f"on {day} {en_month.title()}",
            ),
            When(
                "weekday",
                days[d],
                (days[d][:-2] if d < 4 else "reede", en_days[d]),
                f"on {en_days[d].title()}",
            ),
            When(
                "condition",
                "kui Velero backup on valmis",
                ("velero", "backup", "varukoopia"),
                "once the Velero backup has finished",
            ),
            When(
                "deadline",
                "enne 4.2 release'i",
                ("release", "4.2", "väljalase"),
                "before the 4.2 release",
            ),
            When(
                "promise",
                "kohe pärast tänast hooldusakent",
                ("hooldusak", "maintenance window"),
                "right after today's maintenance window (the agent's promise)",
            ),
        ),
        (
            (
                "{x} ettepanek on valmis, aga ära seda veel kinnita. Kinnitame {t}.",
                "Selge, {x} jääb ootama.",
            ),
            (
                "Jätame {x} approve'i {t}, täna on liiga palju liiklust.",
                "Hästi, ei puutu seda enne.",
            ),
        ),
        (
            (
                "Kes {x} ettepaneku ära kinnitab?",
                "Mina: kinnitan {x} {t} ja annan teada, kui Cruise Control lõpetab.",
            ),
        ),
    )
    scenes.append(_next_scene(rng, pending, probes, b))

    def ticket_trap() -> None:
        b.user(
            _pick(
                rng,
                (
                    "Muide, PLAT-2291 (ZooKeeperi eemaldamine) on suletud, aga PLAT-2317 "
                    "(TLS sertide uuendus) on veel lahti. Ära neid segi aja.",
                    "Jira: PLAT-2291 on Done, sellega enam midagi teha pole. PLAT-2317 on avatud, "
                    "see on meie oma.",
                ),
            )
        )
        b.assistant("Märgin üles: PLAT-2291 suletud, PLAT-2317 avatud ja meie laual.")

    def logs() -> None:
        b.user("Vaata brokeri logisid ka, kas seal on midagi kahtlast.")
        b.tool(
            "Viimased read brokerist 1.",
            "bash",
            {"command": f"kubectl logs -n {ns} {cluster}-kafka-1 -c kafka --since=1h | tail -40"},
            _log(rng, rng.randint(28, 40), _kafka_log),
        )
        b.assistant(
            "Tavaline müra: segmentide rullimine, üksikud NOT_LEADER_OR_FOLLOWER "
            "korduskatsed liidrivahetuse ajal. Midagi kriitilist pole."
        )

    scenes += [ticket_trap, logs]

    def intro() -> None:
        b.user(
            _pick(
                rng,
                (
                    f"Tere! Täna tegeleme {ns} Kafka klastriga ({cluster}), Strimzi 0.45 peal. "
                    "Kõigepealt paar asja, mis eile õhtul katki läksid.",
                    f"Tere hommikust. Valvekord on minu, {cluster} Kafka ({ns}) annab jälle "
                    "probleeme. Käime asjad järjest läbi.",
                ),
            )
        )
        b.assistant("Tere! Olen valmis, mul on kubectl ligipääs prodi kontekstile. Alustame.")

    def outro() -> None:
        b.user("Ok, praeguseks aitab. Paneme kokku, mis tehtud.")
        b.assistant("Kokkuvõte on käes, ülejäänu teeme järgmistes tükkides.")

    opening = _opening(rng, b, intro, scenes, late, outro)

    filler_groups = ("search-indexer", "crm-sync", "web-analytics", "email-sender")

    def f_lag() -> None:
        g = _pick(rng, filler_groups)
        b.user(_pick(rng, (f"Kas {g} lag on normaalne?", f"Vaata {g} grupi lagi.")))
        rows = "\n".join(
            f"{g:<16}{_pick(rng, ('web.sessions', 'crm.contacts'))}  {p:<10}"
            f"{(c := rng.randint(10**5, 10**6)):<16}{c + rng.randint(0, 300):<16}"
            f"{rng.randint(0, 300)}"
            for p in range(rng.randint(6, 10))
        )
        b.tool(
            "Grupi offsetid.",
            "bash",
            {
                "command": f"kubectl exec -n {ns} {cluster}-kafka-0 -c kafka -- "
                f"bin/kafka-consumer-groups.sh --bootstrap-server localhost:9092 --describe "
                f"--group {g}"
            },
            "GROUP           TOPIC         PARTITION CURRENT-OFFSET  LOG-END-OFFSET  LAG\n" + rows,
        )
        b.assistant(
            _pick(
                rng,
                (
                    "Lag on paarisaja sõnumi piires, see on normaalne.",
                    "Kõik partitsioonid on peaaegu järel, muret pole.",
                ),
            )
        )

    def f_urp() -> None:
        b.user("Kas alareplikeeritud partitsioone on?")
        b.tool(
            "Kontrollin.",
            "bash",
            {
                "command": f"kubectl exec -n {ns} {cluster}-kafka-0 -c kafka -- "
                "bin/kafka-topics.sh "
                "--bootstrap-server localhost:9092 --describe --under-replicated-partitions"
            },
            "",
        )
        b.assistant("Tühi väljund — kõik partitsioonid on täielikult replikeeritud.")

    def f_certs() -> None:
        b.user(_pick(rng, ("Millal cluster CA sert aegub?", "Vaata CA sertide kehtivus üle.")))
        b.tool(
            "Loen serdi kuupäevad.",
            "bash",
            {
                "command": f"kubectl get secret {cluster}-cluster-ca-cert -n {ns} -o "
                "jsonpath='{.data.ca\\.crt}' | base64 -d | openssl x509 -noout -dates"
            },
            f"notBefore=Jan {rng.randint(1, 28)} 09:14:02 2026 GMT\n"
            f"notAfter=Jan {rng.randint(1, 28)} 09:14:02 2027 GMT",
        )
        b.assistant("CA kehtib veel ligi aasta; Strimzi uuendab selle ise 30 päeva enne.")

    def f_helm() -> None:
        b.user("Mis versioonis operaator praegu on?")
        b.tool(
            "Vaatan Helmi release'i.",
            "bash",
            {"command": "helm list -n strimzi-system"},
            "NAME                  NAMESPACE        REVISION  UPDATED                      "
            "STATUS    CHART                          APP VERSION\n"
            f"strimzi-operator      strimzi-system   {rng.randint(4, 19)}        "
            "2026-02-18 10:02:11 +0200 EET  deployed  strimzi-kafka-operator-0.45.0  0.45.0",
        )
        b.assistant("Operaator on 0.45.0, viimane uuendus veebruaris.")

    def f_logs() -> None:
        b.user(_pick(rng, ("Heida pilk brokeri 3 logile.", "Kas brokeri logis on uusi WARN-e?")))
        b.tool(
            "Logi.",
            "bash",
            {"command": f"kubectl logs -n {ns} {cluster}-kafka-3 -c kafka --since=30m | tail -30"},
            _log(rng, rng.randint(20, 30), _kafka_log),
        )
        b.assistant("Ainult rutiinsed read, mitte midagi uut.")

    filler = _segments(rng, b, segments, (f_lag, f_urp, f_certs, f_helm, f_logs))
    return opening, filler, probes


# --- HashiCorp Vault, in Persian --------------------------------------------------------


def _vault_audit(rng: random.Random) -> str:
    path = _pick(
        rng,
        (
            "secret/data/web/session-key",
            "auth/kubernetes/login",
            "sys/health",
            "database/creds/app-ro",
            "pki_int/issue/web-internal",
        ),
    )
    op = "update" if "login" in path or "issue" in path else "read"
    return (
        f'{{"time":"{_ts(rng)}","type":"response","auth":{{"display_name":"'
        f'{_pick(rng, ("kubernetes-web", "approle", "oidc-sre"))}","policies":["default"]}},'
        f'"request":{{"id":"{_uuid(rng)}","operation":"{op}","path":"{path}",'
        f'"remote_address":"{_ip(rng, "10.8")}"}},"response":{{"mount_type":"'
        f'{path.split("/")[0]}"}}}}'
    )


def _vault(rng: random.Random, b: Builder, segments: int) -> Parts:
    probes: list[Probe] = []
    late: list[Scene] = []
    fa = "\u06f0"  # Persian zero

    # identifier 1: a token accessor, among the other tokens' accessors
    names = [
        "approle-ci-deployer",
        "kubernetes-web",
        "oidc-sara.k",
        "token-terraform",
        "approle-backup",
        "kubernetes-worker",
        "oidc-reza.m",
    ]
    rng.shuffle(names)
    target_name = names[0]
    shown = names[: rng.randint(5, 7)]
    rng.shuffle(shown)
    accessors = {n: token(rng, 24, B62) for n in shown}
    accessor = accessors[target_name]
    probes.append(
        _identifier(
            f"What is the accessor of the token whose display name is {target_name}?", accessor
        )
    )

    def ident_accessor() -> None:
        b.user(
            _pick(
                rng,
                (
                    f"یه توکن با display name «{target_name}» داریم که ttl عجیبی داره. accessorش "
                    "رو پیدا کن، بقیه‌ی توکن‌ها مهم نیستن.",
                    f"تیم امنیت accessor توکن {target_name} رو می‌خواد، برای بررسی audit log. "
                    "پیداش کن لطفاً.",
                ),
            )
        )
        rows = "\n".join(
            f"{a}    {n:<22} {_pick(rng, ('[default ci]', '[default web]', '[default]'))}"
            f"  {rng.randint(1, 760)}h{rng.randint(0, 59)}m"
            for n, a in accessors.items()
        )
        b.tool(
            "دسترسی‌ها رو لیست می‌کنم و برای هر کدوم lookup می‌زنم.",
            "bash",
            {
                "command": "for a in $(vault list -format=json auth/token/accessors | jq -r '.[]');"
                " do vault token lookup -format=json -accessor $a | jq -r '[.data.accessor,"
                ".data.display_name,(.data.policies|tostring),.data.ttl]|@tsv'; done"
            },
            "ACCESSOR                    DISPLAY_NAME           POLICIES      TTL\n" + rows,
        )
        b.assistant(
            _pick(
                rng,
                (
                    f"accessor توکن {target_name} اینه: {accessor}. بقیه‌ی ردیف‌ها توکن‌های "
                    "دیگه‌ان و ربطی ندارن.",
                    f"پیدا شد: {accessor} مال {target_name} ـه. حواست باشه ردیف بالایی‌اش هم "
                    "اسم مشابهی داره ولی یه توکن دیگه‌ست.",
                ),
            )
        )

    # identifier 2: the lease issued at the incident time
    role = _pick(rng, ("app-rw", "orders-rw", "billing-rw"))
    n_leases = rng.randint(5, 7)
    bad = rng.randrange(n_leases)
    lease_ids = [token(rng, 24, B62) for _ in range(n_leases)]
    times = sorted(f"{h:02d}:{rng.randint(0, 59):02d}" for h in rng.sample(range(0, 24), n_leases))
    incident = times[bad]
    lease = f"database/creds/{role}/{lease_ids[bad]}"
    probes.append(
        _identifier(
            f"What is the full lease ID of the {role} database lease issued at {incident}?", lease
        )
    )

    def ident_lease() -> None:
        b.user(
            _pick(
                rng,
                (
                    f"دیشب ساعت {_digits(incident, fa)} یکی با credential دیتابیس {role} کوئری‌های "
                    "سنگین زده. lease اون موقع رو پیدا کن.",
                    f"DBA می‌گه یوزر موقتی که ساعت {incident} ساخته شده هنوز وصله. lease اش کدومه؟",
                ),
            )
        )
        rows = "\n".join(
            f"database/creds/{role}/{lid}   2026-03-10T{t}:{rng.randint(10, 59)}Z   "
            f"{rng.randint(1, 71)}h"
            for lid, t in zip(lease_ids, times, strict=True)
        )
        b.tool(
            "lease ها رو با زمان صدورشون در میارم.",
            "bash",
            {
                "command": f"for l in $(vault list -format=json sys/leases/lookup/database/creds/"
                f"{role}/ | jq -r '.[]'); do vault lease lookup -format=json "
                f"database/creds/{role}/$l"
                " | jq -r '[.data.id,.data.issue_time,.data.ttl]|@tsv'; done"
            },
            "ID                                                 ISSUE_TIME             TTL\n"
            + rows,
        )
        b.assistant(
            _pick(
                rng,
                (
                    f"lease ساعت {incident}: {lease}. هنوز revoke نشده؛ اگه بخوای می‌زنمش.",
                    f"همونیه که issue_time اش {incident} ـه: {lease}. بقیه مال سرویس‌های عادی‌ان.",
                ),
            )
        )
        b.user(
            _pick(
                rng,
                (
                    "بهرام فکر می‌کنه مشکل از max_ttl رولِ دیتابیسه که زیادی بلنده. درسته؟",
                    "بهرام میگه احتمالاً کسی root token ساخته. چک کن.",
                ),
            )
        )
        b.tool(
            "تنظیمات رول و آخرین root token ها رو چک می‌کنم.",
            "bash",
            {
                "command": f"vault read database/roles/{role} && vault list auth/token/accessors "
                "| wc -l"
            },
            f"Key                      Value\n---                      -----\n"
            f'creation_statements      [CREATE ROLE "{{{{name}}}}" ...]\n'
            f"db_name                  postgres-main\ndefault_ttl              1h\n"
            f"max_ttl                  24h\n{rng.randint(40, 90)}",
        )
        b.assistant(
            "نه، max_ttl همون ۲۴ ساعت استاندارده و هیچ root tokenی هم ساخته نشده. "
            "حدس بهرام درست نیست؛ مشکل فقط همین یه lease ـه."
        )

    # identifier 3: the identity entity of a service
    svc = _pick(rng, ("svc-billing", "svc-payouts", "svc-reports"))
    ent_names = [svc, "svc-search", "svc-notify", "sara.karimi", "reza.moradi", "svc-gateway"]
    ent_names = ent_names[: rng.randint(5, 6)]
    rng.shuffle(ent_names)
    entities = {n: _uuid(rng) for n in ent_names}
    entity = entities[svc]
    probes.append(_identifier(f"What is the Vault identity entity ID of {svc}?", entity))

    def ident_entity() -> None:
        b.user(
            _pick(
                rng,
                (
                    f"برای policy جدید، entity id سرویس {svc} رو لازم دارم.",
                    f"entity مربوط به {svc} رو پیدا کن؛ می‌خوام alias کوبرنتیز رو بهش وصل کنم.",
                ),
            )
        )
        rows = "\n".join(f"{i}    {n}" for n, i in entities.items())
        b.tool(
            "entity ها رو با اسمشون لیست می‌کنم.",
            "bash",
            {
                "command": "vault list -format=json -detailed identity/entity/id | jq -r "
                "'.key_info | to_entries[] | \"\\(.key)    \\(.value.name)\"'"
            },
            rows,
        )
        b.assistant(
            _pick(
                rng,
                (
                    f"entity id سرویس {svc}: {entity}",
                    f"{svc} این entity رو داره: {entity}. بقیه آدم‌ها و سرویس‌های دیگه‌ان.",
                ),
            )
        )

    neutral = ("انجام شد، خروجی بالاست.", "اوکی، دستور بدون خطا اجرا شد.", "تموم شد.")
    key_v = rng.randint(3, 6)

    def transit_tool(rng: random.Random, b: Builder) -> None:
        b.tool(
            "کلید رو می‌چرخونم و audit log رو نگاه می‌کنم.",
            "bash",
            {
                "command": "vault write -f transit/keys/orders-pii/rotate >/dev/null && tail -n1 "
                "/var/log/vault/audit.log | jq -c '{time, path: .request.path}' && vault read "
                "-format=json transit/keys/orders-pii | jq -c '.data|{name,latest_version,"
                "min_decryption_version}'"
            },
            f'{{"time":"{_ts(rng)}","path":"transit/keys/orders-pii/rotate"}}\n'
            f'{{"name":"orders-pii","latest_version":{key_v},"min_decryption_version":1}}',
        )

    def transit_quiet(rng: random.Random, b: Builder) -> None:
        b.tool(
            "اجرا می‌کنم.",
            "bash",
            {"command": "vault write -f transit/keys/orders-pii/rotate"},
            "Success! Data written to: transit/keys/orders-pii/rotate",
        )

    def kv_tool(rng: random.Random, b: Builder) -> None:
        b.tool(
            "حذف نرم و بعد متادیتا.",
            "bash",
            {
                "command": "vault kv delete kv/payments/stripe-webhook >/dev/null && vault kv "
                "metadata get -format=json kv/payments/stripe-webhook | jq -c '.data as $d | "
                '{path:"kv/payments/stripe-webhook",current_version:$d.current_version,'
                "deletion_time:$d.versions[($d.current_version|tostring)].deletion_time,"
                "destroyed:$d.versions[($d.current_version|tostring)].destroyed}'"
            },
            f'{{"path":"kv/payments/stripe-webhook","current_version":{rng.randint(3, 9)},'
            f'"deletion_time":"{_ts(rng)}","destroyed":false}}',
        )

    def kv_quiet(rng: random.Random, b: Builder) -> None:
        b.tool(
            "اجرا می‌کنم.",
            "bash",
            {"command": "vault kv delete kv/payments/stripe-webhook"},
            "Success! Data deleted (if it existed) at: kv/data/payments/stripe-webhook",
        )

    issuer_id = _uuid(rng)

    def pki_tool(rng: random.Random, b: Builder) -> None:
        b.tool(
            "اسم issuer رو عوض می‌کنم و لیست رو می‌گیرم.",
            "bash",
            {
                "command": f"vault write pki_int/issuer/{issuer_id} issuer_name=int-ca-2025-retired"
                " >/dev/null && vault list -format=json -detailed pki_int/issuers | jq -c "
                "'.key_info | to_entries[] | {id: .key, name: .value.issuer_name}'"
            },
            f'{{"id":"{issuer_id}","name":"int-ca-2025-retired"}}\n'
            f'{{"id":"{_uuid(rng)}","name":"int-ca-2026"}}',
        )

    def pki_quiet(rng: random.Random, b: Builder) -> None:
        b.tool(
            "اجرا می‌کنم.",
            "bash",
            {"command": f"vault write pki_int/issuer/{issuer_id} issuer_name=int-ca-2025-retired"},
            f"Key           Value\n---           -----\nissuer_id     {issuer_id}\n"
            "leaf_not_after_behavior  err",
        )

    fates = [
        Fate(
            "orders-pii",
            "What happened to the transit key orders-pii?",
            f"It was rotated (new latest version {key_v}); old versions still decrypt.",
            ("rotat", "چرخ"),
            transit_tool,
            transit_quiet,
            (
                "کلید {n} چرخونده شد؛ نسخه‌های قبلی هنوز برای decrypt معتبرن.",
                "{n} رو rotate کردم، min_decryption_version دست نخورده.",
            ),
            ("کلید {n} رو پاک نکن‌ها! فقط بچرخونش (rotate)، داده‌های قدیمی باید باز بشن.",),
            ("کلید transit به اسم {n} رو rotate کن، یک سال شده.",),
        ),
        Fate(
            "stripe-webhook",
            "What happened to the KV secret kv/payments/stripe-webhook?",
            "It was soft-deleted (vault kv delete), not destroyed; it can be undeleted.",
            ("deletion_time", "soft", "حذف نرم", "undelete", "قابل برگشت"),
            kv_tool,
            kv_quiet,
            ("سکرت kv/payments/{n} حذف نرم شد، destroy نشده و با undelete برمی‌گرده.",),
            ("سکرت {n} رو destroy نکن، فقط یه delete معمولی (حذف نرم) بزن.",),
            ("سکرت kv/payments/{n} دیگه استفاده نمی‌شه، پاکش کن.",),
        ),
        Fate(
            "int-ca-2025",
            "What happened to the PKI issuer int-ca-2025?",
            "It was renamed to int-ca-2025-retired (kept, not deleted).",
            ("retired", "تغییر نام", "rename"),
            pki_tool,
            pki_quiet,
            ("issuer {n} تغییر نام داد به int-ca-2025-retired؛ حذفش نکردم.",),
            ("issuer {n} رو حذف نکن، فقط اسمش رو عوض کن به int-ca-2025-retired.",),
            ("اسم issuer {n} رو بکن int-ca-2025-retired که با جدیده قاطی نشه.",),
        ),
    ]
    rng.shuffle(fates)
    scenes: list[Scene] = [ident_accessor, ident_lease, ident_entity]
    scenes += [_artifact_scene(rng, b, f, probes, neutral) for f in fates[:2]]

    choice = Choice(
        "Which key type was decided for the new transit key?",
        ("type", "نوع"),
        ("aes256-gcm96", "chacha20-poly1305", "ecdsa-p256", "rsa-4096", "ed25519"),
        ("نگار", "امید", "پریسا", "کاوه"),
        {
            "dictated": (
                (
                    "کلید transit جدید رو با type={v} بساز؛ {o} رو کتابخونه‌ی "
                    "کلاینت‌مون ساپورت نمی‌کنه.",
                    "باشه، type={v}.",
                ),
            ),
            "approved": (
                (
                    "برای کلید جدید چه نوعی بذاریم؟",
                    "پیشنهادم type={v} ـه، سریع‌تره و کلاینت‌ها ساپورتش می‌کنن.",
                    "موافقم، همین.",
                    "پس {v}.",
                ),
            ),
            "changed": (
                (
                    "برای کلید جدید چه نوعی بذاریم؟",
                    "پیش‌فرض type={o} ـه، همون رو بذارم؟",
                    "نه، {o} نه. نوع کلید رو بذار {v}، تیم موبایل اون رو می‌خواد.",
                    "حله، نوعش می‌شه {v}.",
                ),
            ),
            "corrected": (("نوع کلید جدید: {o}.", "اوکی، {o}."),),
            "correction": (
                ("یه اصلاح: نوع کلید {o} نیست، {v} ـه. اشتباه گفتم.", "درستش کردم، نوع کلید {v}."),
                ("ببخشید، قبلی غلط بود — type کلید رو {v} بذار نه {o}.", "باشه، type={v}."),
            ),
            "relayed": (
                (
                    "{who} از تیم امنیت گفت نوع کلید transit جدید باید {v} باشه، "
                    "طبق استاندارد داخلی.",
                    "فهمیدم، نوع {v}.",
                ),
            ),
            "either_or": (
                (
                    "کلید transit جدید رو امروز بسازیم.",
                    "فقط بگو: type={o} یا type={v}؟",
                    "نوع {v}. با {o} قبلاً مشکل performance داشتیم.",
                    "حله، {v}.",
                ),
            ),
        },
    )
    scenes.append(_decision_scene(rng, choice, probes, late, b))

    esf = rng.randint(20, 28)
    days = (
        ("دوشنبه", "monday"),
        ("سه‌شنبه", "tuesday"),
        ("چهارشنبه", "wednesday"),
        ("پنجشنبه", "thursday"),
    )
    dn, de = days[rng.randrange(4)]
    pending = Pending(
        "Which lease prefix is still to be revoked, and when?",
        "revoke the leases under {x}",
        ("database/creds/legacy-etl", "database/creds/reporting-v1", "aws/creds/s3-uploader-old"),
        (
            When("relative", "فردا صبح", ("فردا", "tomorrow"), "tomorrow morning"),
            When(
                "relative",
                "پس‌فردا",
                ("پس‌فردا", "پس فردا", "day after tomorrow"),
                "the day after tomorrow",
            ),
            When("relative", "هفته‌ی بعد", ("هفته‌ی بعد", "هفته بعد", "next week"), "next week"),
            When(
                "date",
                f"{_digits(str(esf), fa)} اسفند",
                (
                    f"{_digits(str(esf), fa)} اسفند",
                    f"{esf} اسفند",
                    f"{esf} esfand",
                    f"esfand {esf}",
                    f"march {esf - 9}",
                    f"{esf - 9} march",
                ),
                f"on {esf} Esfand (Solar Hijri; {esf - 9} March)",
            ),
            When("weekday", dn, (dn, de), f"on {de.title()}"),
            When(
                "condition",
                "وقتی snapshot رافت تموم شد",
                ("snapshot", "اسنپ‌شات", "اسنپشات"),
                "once the Raft snapshot has finished",
            ),
            When(
                "deadline",
                "قبل از تعطیلات نوروز",
                ("نوروز", "nowruz", "norouz", "nowruz"),
                "before the Nowruz holidays",
            ),
            When(
                "promise",
                "امشب بعد از پنجره‌ی نگهداری",
                ("امشب", "tonight"),
                "tonight, after the maintenance window (the agent's promise)",
            ),
        ),
        (
            (
                "revoke کردن {x} رو بذاریم برای {t}؛ الان ETL شبانه داره ازش استفاده می‌کنه.",
                "باشه، فعلاً به {x} دست نمی‌زنم.",
            ),
            ("lease های {x} باید revoke بشن، ولی {t}. الان نه.", "یادداشت کردم."),
        ),
        (
            (
                "lease های {x} رو کی جمع کنیم؟",
                "من {t} با `vault lease revoke -prefix {x}` جمعشون می‌کنم و خبر می‌دم.",
            ),
        ),
    )
    scenes.append(_next_scene(rng, pending, probes, b))

    def ticket_trap() -> None:
        b.user(
            _pick(
                rng,
                (
                    "تیکت SEC-1184 (چرخش کلیدهای unseal) بسته شده، ولی SEC-1207 (audit device دوم) "
                    "هنوز بازه. قاطیشون نکن.",
                    "فقط بدون: SEC-1184 تموم و بسته‌ست. اونی که بازه و مال ماست SEC-1207 ـه.",
                ),
            )
        )
        b.assistant("یادداشت کردم: SEC-1184 بسته، SEC-1207 باز و با ماست.")

    def logs() -> None:
        b.user("یه نگاهی هم به audit log بنداز، چیز مشکوکی هست؟")
        b.tool(
            "آخرین ورودی‌های audit.",
            "bash",
            {"command": "tail -n 30 /var/log/vault/audit.log"},
            "\n".join(sorted(_vault_audit(rng) for _ in range(rng.randint(22, 30)))),
        )
        b.assistant("عادیه: لاگین‌های کوبرنتیز، خوندن سکرت‌های وب و صدور گواهی. چیز مشکوکی نیست.")

    def superseded() -> None:
        b.user("مسیر audit device دوم رو بذار /var/log/vault/audit2.log.")
        b.assistant("باشه، /var/log/vault/audit2.log.")
        b.user("نه صبر کن، اون دیسک کوچیکه. بذارش روی /vault/audit/audit2.log، قبلی رو فراموش کن.")
        b.assistant("عوضش کردم: /vault/audit/audit2.log. مسیر قبلی دیگه مطرح نیست.")

    scenes += [ticket_trap, logs, superseded]

    def intro() -> None:
        b.user(
            _pick(
                rng,
                (
                    "سلام! امروز باید کلاستر Vault پروداکشن (۳ نود Raft، نسخه‌ی 1.17) رو مرتب کنیم. "
                    "چند تا کار از دیشب مونده.",
                    "سلام، وقت بخیر. من on-call ام و Vault یه سری گیر داره. بریم یکی‌یکی.",
                ),
            )
        )
        b.assistant("سلام! VAULT_ADDR روی کلاستر پروداکشن تنظیمه و توکن ادمین دارم. شروع کنیم.")

    def outro() -> None:
        b.user("خب فعلاً کافیه. بقیه بمونه برای بعد.")
        b.assistant("باشه، کارهای امروز ثبت شد.")

    opening = _opening(rng, b, intro, scenes, late, outro)

    def f_status() -> None:
        b.user(_pick(rng, ("وضعیت کلاستر چطوره؟", "raft peers رو چک کن.")))
        b.tool(
            "وضعیت Raft.",
            "bash",
            {"command": "vault operator raft list-peers"},
            "Node       Address                   State       Voter\n----       -------"
            "                   -----       -----\n"
            f"vault-0    vault-0.vault-internal:8201    {_pick(rng, ('leader', 'follower'))}"
            "    true\nvault-1    vault-1.vault-internal:8201    follower    true\n"
            "vault-2    vault-2.vault-internal:8201    follower    true",
        )
        b.assistant("هر سه نود voter هستن و کلاستر سالمه.")

    def f_snap() -> None:
        b.user("آخرین بکاپ خودکار کی گرفته شده؟")
        b.tool(
            "لیست فایل‌های بکاپ.",
            "bash",
            {"command": "ls -lh /backups/vault/ | tail -5"},
            "\n".join(
                f"-rw------- 1 vault vault {rng.randint(40, 90)}M Mar  {d} 03:00 "
                f"raft-2026-03-{d:02d}.snap"
                for d in range(6, 11)
            ),
        )
        b.assistant("بکاپ‌های شبانه مرتب گرفته شدن، آخری مال امروز ساعت ۳ صبحه.")

    def f_mounts() -> None:
        b.user(_pick(rng, ("چه secrets engine هایی فعاله؟", "لیست mount ها رو بده.")))
        b.tool(
            "mount ها.",
            "bash",
            {"command": "vault secrets list"},
            "Path          Type         Accessor              Description\n"
            "----          ----         --------              -----------\n"
            f"cubbyhole/    cubbyhole    cubbyhole_{hexits(rng, 8)}    per-token private "
            f"secret storage\ndatabase/     database     database_{hexits(rng, 8)}     n/a\n"
            f"kv/           kv           kv_{hexits(rng, 8)}           n/a\n"
            f"pki_int/      pki          pki_{hexits(rng, 8)}          n/a\n"
            f"sys/          system       system_{hexits(rng, 8)}       system endpoints",
        )
        b.assistant("همون mount های همیشگی، چیز اضافه‌ای نیست.")

    def f_audit() -> None:
        b.user(_pick(rng, ("audit log امروز رو یه نگاه بنداز.", "خطای 403 تو audit داریم؟")))
        b.tool(
            "audit.",
            "bash",
            {"command": "tail -n 20 /var/log/vault/audit.log"},
            "\n".join(sorted(_vault_audit(rng) for _ in range(rng.randint(14, 20)))),
        )
        b.assistant("خطای permission denied نمی‌بینم، همه‌ش درخواست‌های عادیه.")

    def f_cert() -> None:
        b.user("گواهی listener کی منقضی می‌شه؟")
        b.tool(
            "بررسی.",
            "bash",
            {
                "command": "echo | openssl s_client -connect vault.internal:"
                "8200 2>/dev/null | openssl x509 -noout -enddate"
            },
            f"notAfter=Jun {rng.randint(1, 28)} 12:00:00 2026 GMT",
        )
        b.assistant("تا خرداد اعتبار داره؛ cert-manager خودش تمدیدش می‌کنه.")

    filler = _segments(rng, b, segments, (f_status, f_snap, f_mounts, f_audit, f_cert))
    return opening, filler, probes


# --- Keycloak, in Bengali -----------------------------------------------------------------


def _kc_log(rng: random.Random) -> str:
    ev = _pick(
        rng,
        (
            f'type="LOGIN", realmId="{_uuid(rng)}", clientId="web-shop", userId="{_uuid(rng)}"'
            f', ipAddress="{_ip(rng, "103.48")}", auth_method="openid-connect"',
            f'type="CODE_TO_TOKEN", realmId="{_uuid(rng)}", clientId="web-shop", userId="'
            f'{_uuid(rng)}", ipAddress="{_ip(rng, "10.20")}", token_id="{_uuid(rng)}"',
            f'type="LOGIN_ERROR", realmId="{_uuid(rng)}", clientId="web-shop", userId="null"'
            f', ipAddress="{_ip(rng, "103.48")}", error="user_not_found"',
            f'type="REFRESH_TOKEN", realmId="{_uuid(rng)}", clientId="partner-api", userId="'
            f'{_uuid(rng)}", ipAddress="{_ip(rng, "10.20")}"',
        ),
    )
    level = "WARN " if "ERROR" in ev else "DEBUG"
    return (
        f"{_ts(rng, 12).replace('T', ' ')[:23]} {level} [org.keycloak.events] "
        f"(executor-thread-{rng.randint(1, 40)}) {ev}"
    )


def _keycloak(rng: random.Random, b: Builder, segments: int) -> Parts:
    probes: list[Probe] = []
    late: list[Scene] = []
    bn = "\u09e6"  # Bengali zero
    realm = _pick(rng, ("shop", "bazar", "customers"))
    kc = "/opt/keycloak/bin/kcadm.sh"

    # identifier 1: a user's id
    who = _pick(rng, ("rahim.uddin", "nusrat.jahan", "arif.hossain"))
    usernames = [
        who,
        "rahim.uddin2",
        "nusrat.j",
        "arif.h",
        "sadia.islam",
        "tanvir.ahmed",
        "svc-import",
    ]
    usernames = [*[u for u in usernames if u != who][: rng.randint(4, 6)], who]
    rng.shuffle(usernames)
    users = {u: _uuid(rng) for u in usernames}
    user_id = users[who]
    probes.append(_identifier(f"What is the Keycloak user ID of {who} in realm {realm}?", user_id))

    def ident_user() -> None:
        b.user(
            _pick(
                rng,
                (
                    f"{who} লগইন করতে পারছে না বলছে। ওর user id টা বের করো তো, সাপোর্ট টিকিটে লাগবে।",
                    f"রিয়েলম {realm}-এ {who}-এর আইডি কী? একই রকম নামের আরও কয়েকজন আছে, "
                    "গুলিয়ে ফেলো না।",
                ),
            )
        )
        rows = "\n".join(
            f'{{"id":"{i}","username":"{u}","enabled":'
            f"{'true' if rng.random() < 0.85 else 'false'}}}"
            for u, i in users.items()
        )
        b.tool(
            "ইউজারদের তালিকা আনছি।",
            "bash",
            {
                "command": f"{kc} get users -r {realm} -q search=a --fields id,username,enabled "
                "| jq -c '.[]'"
            },
            rows,
        )
        b.assistant(
            _pick(
                rng,
                (
                    f"{who}-এর user id: {user_id}. অ্যাকাউন্ট enabled আছে, তাই সমস্যা অন্য কোথাও।",
                    f"পেয়েছি — {who} = {user_id}. নামের কাছাকাছি অন্যগুলো আলাদা অ্যাকাউন্ট।",
                ),
            )
        )
        b.user(
            _pick(
                rng,
                (
                    "তানভীর ভাবছে Infinispan ক্যাশে পুরনো সেশন আটকে আছে, সেজন্যই। একটু দেখো তো।",
                    "তানভীরের ধারণা LDAP সার্ভার ডাউন। সত্যি নাকি?",
                ),
            )
        )
        b.tool(
            "সেশন আর LDAP সংযোগ দুটোই দেখছি।",
            "bash",
            {
                "command": f"{kc} get users/{user_id}/sessions -r {realm} | jq length; "
                "ldapsearch -x -H ldaps://ldap.corp.local -b dc=corp,dc=local -s base "
                "'(objectclass=*)' "
                "namingContexts | tail -3"
            },
            "0\n# numResponses: 2\n# numEntries: 1",
        )
        b.assistant(
            "না, কোনো পুরনো সেশন নেই আর LDAP ঠিকঠাক উত্তর দিচ্ছে। তানভীরের ধারণা "
            "মিলছে না; সমস্যাটা ওর required action-এ (পাসওয়ার্ড আপডেট বাকি)।"
        )

    # identifier 2: the active RS256 key's kid
    def kid() -> str:
        return token(rng, 43, B62 + "-_")

    keys = [
        ("RS256", "ACTIVE", "rsa-generated", kid()),
        ("RS256", "PASSIVE", "rsa-2025", kid()),
        ("HS512", "ACTIVE", "hmac-generated-hs512", kid()),
        ("RSA-OAEP", "ACTIVE", "rsa-enc-generated", kid()),
        ("AES", "ACTIVE", "aes-generated", kid()),
    ]
    if rng.random() < 0.5:
        keys.append(("ES256", "ACTIVE", "ecdsa-generated", kid()))
    rng.shuffle(keys)
    active = next(k[3] for k in keys if k[:2] == ("RS256", "ACTIVE"))
    probes.append(_identifier(f"What is the kid of the active RS256 key in realm {realm}?", active))

    def ident_kid() -> None:
        b.user(
            _pick(
                rng,
                (
                    "পার্টনার টিম JWKS-এর কোন kid দিয়ে সাইন হচ্ছে জানতে চায়। অ্যাকটিভ RS256 কী-টা কোনটা?",
                    f"{realm} রিয়েলমের সাইনিং কী-এর kid লাগবে। PASSIVE-টা না, যেটা এখন চলছে সেটা।",
                ),
            )
        )
        rows = "\n".join(
            f'{{"kid":"{k}","algorithm":"{a}","status":"{s}","providerId":"{p}"}}'
            for a, s, p, k in keys
        )
        b.tool(
            "রিয়েলমের কী-গুলো দেখছি।",
            "bash",
            {
                "command": f"{kc} get keys -r {realm} | jq -c '.keys[] | "
                "{kid, algorithm, status, providerId}'"
            },
            rows,
        )
        b.assistant(
            _pick(
                rng,
                (
                    f"অ্যাকটিভ RS256 কী-এর kid হলো {active}. PASSIVE RS256-টা পুরনো, শুধু যাচাইয়ের জন্য রাখা।",
                    f"এখন টোকেন সাইন হচ্ছে {active} দিয়ে (RS256, ACTIVE)।",
                ),
            )
        )

    # identifier 3: a client's internal id
    client = _pick(rng, ("mobile-app", "merchant-portal", "pos-terminal"))
    clients = [
        client,
        "web-shop",
        "partner-api",
        "admin-cli",
        "account-console",
        "broker",
        "realm-management",
    ]
    clients = clients[:1] + rng.sample(clients[1:], rng.randint(4, 6))
    rng.shuffle(clients)
    client_ids = {c: _uuid(rng) for c in clients}
    client_id = client_ids[client]
    probes.append(
        _identifier(
            f"What is the internal ID (not the clientId) of the {client} client?", client_id
        )
    )

    def ident_client() -> None:
        b.user(
            _pick(
                rng,
                (
                    f"{client} ক্লায়েন্টের ভেতরের id (UUID) টা দাও, Terraform import করতে হবে।",
                    f"Terraform-এ {client} import করব। ওটার internal id কী?",
                ),
            )
        )
        rows = "\n".join(f'{{"id":"{i}","clientId":"{c}"}}' for c, i in client_ids.items())
        b.tool(
            "ক্লায়েন্টের তালিকা।",
            "bash",
            {"command": f"{kc} get clients -r {realm} --fields id,clientId | jq -c '.[]'"},
            rows,
        )
        b.assistant(
            _pick(
                rng,
                (
                    f"{client}-এর internal id: {client_id}. import-এ "
                    f"`{realm}/{client_id}` দিতে হবে।",
                    f"এটা: {client_id} ({client})। clientId আর id আলাদা জিনিস, "
                    "Terraform-এ UUID-টাই লাগে।",
                ),
            )
        )

    neutral = ("হয়ে গেছে, আউটপুট উপরে।", "ঠিক আছে, কমান্ড চলেছে কোনো এরর ছাড়া।", "করা হলো।")
    portal_id = _uuid(rng)

    def portal_tool(rng: random.Random, b: Builder) -> None:
        b.tool(
            "আপডেট করে যাচাই করছি।",
            "bash",
            {
                "command": f"{kc} update clients/{portal_id} -r {realm} -s enabled=false "
                f"&& {kc} get "
                f"clients -r {realm} -q clientId=legacy-portal --fields clientId,enabled | jq -c "
                "'.[]'"
            },
            '{"clientId":"legacy-portal","enabled":false}',
        )

    def portal_quiet(rng: random.Random, b: Builder) -> None:
        b.tool(
            "আপডেট করছি।",
            "bash",
            {"command": f"{kc} update clients/{portal_id} -r {realm} -s enabled=false"},
            "",
        )

    ldap_id = _uuid(rng)

    def ldap_tool(rng: random.Random, b: Builder) -> None:
        b.tool(
            "সিঙ্ক পিরিয়ড -1 করে দেখছি।",
            "bash",
            {
                "command": f"{kc} update components/{ldap_id} -r {realm} -s "
                "'config.fullSyncPeriod=[\"-1\"]' -s 'config.changedSyncPeriod=[\"-1\"]' && "
                f"{kc} get components/{ldap_id} -r {realm} | jq -c '{{name, fullSyncPeriod: "
                ".config.fullSyncPeriod[0], changedSyncPeriod: .config.changedSyncPeriod[0]}'"
            },
            '{"name":"corp-ldap","fullSyncPeriod":"-1","changedSyncPeriod":"-1"}',
        )

    def ldap_quiet(rng: random.Random, b: Builder) -> None:
        b.tool(
            "আপডেট।",
            "bash",
            {
                "command": f"{kc} update components/{ldap_id} -r {realm} -s "
                "'config.fullSyncPeriod=[\"-1\"]' -s 'config.changedSyncPeriod=[\"-1\"]'"
            },
            "",
        )

    def canary_tool(rng: random.Random, b: Builder) -> None:
        b.tool(
            "স্কেল করে দেখছি।",
            "bash",
            {
                "command": "kubectl scale statefulset keycloak-canary -n iam --replicas=0 && "
                "kubectl get statefulset -n iam"
            },
            "statefulset.apps/keycloak-canary scaled\nNAME              READY   AGE\n"
            f"keycloak          3/3     {rng.randint(90, 300)}d\nkeycloak-canary   0/0     "
            f"{rng.randint(5, 60)}d",
        )

    def canary_quiet(rng: random.Random, b: Builder) -> None:
        b.tool(
            "স্কেল করছি।",
            "bash",
            {"command": "kubectl scale statefulset keycloak-canary -n iam --replicas=0"},
            "statefulset.apps/keycloak-canary scaled",
        )

    fates = [
        Fate(
            "legacy-portal",
            "What happened to the legacy-portal client?",
            "It was disabled (enabled=false), not deleted.",
            ('"enabled":false', "disabled", "নিষ্ক্রিয়", "বন্ধ", "enabled=false"),
            portal_tool,
            portal_quiet,
            (
                "{n} ক্লায়েন্টটা নিষ্ক্রিয় (enabled=false) করা হয়েছে, মুছিনি — কনফিগ সব আছে।",
                "{n} এখন বন্ধ, ডিলিট করা হয়নি।",
            ),
            ("{n} ক্লায়েন্ট ডিলিট কোরো না, শুধু disable করো। অডিটের জন্য কনফিগ রাখতে হবে।",),
            ("{n} আর কেউ ব্যবহার করে না, ওটা বন্ধ করে দাও।",),
        ),
        Fate(
            "corp-ldap",
            "What happened to the corp-ldap user federation?",
            "Its periodic sync was paused (full and changed sync periods set to -1); the "
            "provider was kept.",
            ("-1", "paused", "স্থগিত", "বন্ধ"),
            ldap_tool,
            ldap_quiet,
            ("{n}-এর পিরিয়ডিক সিঙ্ক স্থগিত করা হয়েছে; প্রোভাইডার আর ইউজাররা যেমন ছিল আছে।",),
            ("{n} প্রোভাইডার মুছো না, শুধু সিঙ্কটা থামাও — মুছলে সব ইউজার চলে যাবে।",),
            ("LDAP মাইগ্রেশন চলছে, {n}-এর সিঙ্কটা আপাতত থামিয়ে রাখো।",),
        ),
        Fate(
            "keycloak-canary",
            "What happened to the keycloak-canary StatefulSet?",
            "It was scaled to zero replicas (kept, not deleted).",
            ("0/0", "scaled to zero", "শূন্য", "replicas=0"),
            canary_tool,
            canary_quiet,
            ("{n} শূন্যে স্কেল করা হয়েছে (replicas=0); StatefulSet আর PVC রয়ে গেছে।",),
            ("{n} ডিলিট কোরো না! শুধু শূন্যে নামাও, PVC-তে টেস্ট ডেটা আছে।",),
            ("ক্যানারি টেস্ট শেষ, {n} নামিয়ে দাও।",),
        ),
    ]
    rng.shuffle(fates)
    scenes: list[Scene] = [ident_user, ident_kid, ident_client]
    scenes += [_artifact_scene(rng, b, f, probes, neutral) for f in fates[:2]]

    choice = Choice(
        f"Which token signature algorithm was decided for the {client} client?",
        ("algorithm", "অ্যালগরিদম", "signature", "সিগনেচার"),
        ("ES256", "PS256", "RS512", "EdDSA", "ES384"),
        ("মিতু", "শাহেদ", "ফারহানা", "রাকিব"),
        {
            "dictated": (
                (
                    "{v} সিগনেচার অ্যালগরিদম দাও এই ক্লায়েন্টে, কারণ {o} পার্টনারের লাইব্রেরি সাপোর্ট করে না।",
                    "ঠিক আছে, অ্যালগরিদম {v}।",
                ),
            ),
            "approved": (
                (
                    "ক্লায়েন্টের টোকেন সাইন কোন অ্যালগরিদমে হবে?",
                    "আমার প্রস্তাব {v} সিগনেচার অ্যালগরিদম: ছোট টোকেন, মোবাইল লাইব্রেরিতে সাপোর্ট আছে।",
                    "হ্যাঁ, ঠিক আছে। ওটাই করো।",
                    "করছি, {v}।",
                ),
            ),
            "changed": (
                (
                    "ক্লায়েন্টের টোকেন সাইন কোন অ্যালগরিদমে হবে?",
                    "ডিফল্ট {o} রেখে দিই?",
                    "না, {o} না। সিগনেচার অ্যালগরিদম {v} দাও, নিরাপত্তা টিম ওটা চায়।",
                    "বদলে দিলাম: {v}।",
                ),
            ),
            "corrected": (("এই ক্লায়েন্টের অ্যালগরিদম হবে {o}।", "ঠিক আছে, {o}।"),),
            "correction": (
                ("ভুল বলেছিলাম — অ্যালগরিদম {o} না, {v}। দুঃখিত।", "ঠিক করে দিলাম, অ্যালগরিদম {v}।"),
                ("একটা সংশোধন: সিগনেচার অ্যালগরিদম {v} হবে, {o} পুরনো তথ্য ছিল।", "বুঝেছি, {v}।"),
            ),
            "relayed": (
                (
                    "{who} (সিকিউরিটি টিম) বলেছে এই ক্লায়েন্টের সিগনেচার অ্যালগরিদম {v} হতে হবে।",
                    "আচ্ছা, {v} দিচ্ছি।",
                ),
            ),
            "either_or": (
                (
                    "ক্লায়েন্টের টোকেন সেটিংস আজ ঠিক করতে হবে।",
                    "একটা প্রশ্ন: অ্যালগরিদম {o} নাকি {v}?",
                    "{v} অ্যালগরিদম। {o} দিয়ে আগে পার্টনারদের সমস্যা হয়েছিল।",
                    "ঠিক আছে, {v}।",
                ),
            ),
        },
    )
    scenes.append(_decision_scene(rng, choice, probes, late, b))

    day = rng.randint(10, 28)
    wd = (
        ("সোমবার", "monday"),
        ("মঙ্গলবার", "tuesday"),
        ("বুধবার", "wednesday"),
        ("বৃহস্পতিবার", "thursday"),
        ("শুক্রবার", "friday"),
    )
    wn, we = wd[rng.randrange(5)]
    pending = Pending(
        "Which old key provider is still to be removed, and when?",
        "remove the old key provider {x}",
        ("rsa-legacy-2024", "rsa-old-signing", "hmac-legacy-512"),
        (
            When("relative", "আগামীকাল সকালে", ("আগামীকাল", "tomorrow"), "tomorrow morning"),
            When("relative", "পরশু", ("পরশু", "day after tomorrow"), "the day after tomorrow"),
            When("relative", "আগামী সপ্তাহে", ("আগামী সপ্তাহ", "next week"), "next week"),
            When(
                "date",
                f"{_digits(str(day), bn)} মার্চ",
                (
                    f"{_digits(str(day), bn)} মার্চ",
                    f"{day} মার্চ",
                    f"march {day}",
                    f"{day} march",
                    f"{day:02d}.03",
                    f"03-{day:02d}",
                ),
                f"on {day} March",
            ),
            When("weekday", wn, (wn, we), f"on {we.title()}"),
            When(
                "condition",
                "রিয়েলম এক্সপোর্ট শেষ হলে",
                ("এক্সপোর্ট", "export"),
                "once the realm export has finished",
            ),
            When("deadline", "পরের রিলিজের আগে", ("রিলিজ", "release"), "before the next release"),
            When(
                "promise",
                "আজ রাতে মেইনটেন্যান্স উইন্ডোতে",
                ("আজ রাতে", "tonight"),
                "tonight in the maintenance window (the agent's promise)",
            ),
        ),
        (
            (
                "পুরনো {x} কী প্রোভাইডারটা সরাতে হবে, তবে {t} — এখনো কিছু টোকেন ওটা দিয়ে সাইন করা।",
                "বুঝেছি, {x} আপাতত থাকছে।",
            ),
            ("{x} মুছে ফেলার কাজটা {t} করব, মনে রেখো।", "নোট করে রাখলাম।"),
        ),
        (("{x} কে সরাবে?", "আমি {t} {x} সরিয়ে দেব, তারপর JWKS আবার চেক করব।"),),
    )
    scenes.append(_next_scene(rng, pending, probes, b))

    def ticket_trap() -> None:
        b.user(
            _pick(
                rng,
                (
                    "IAM-552 (থিম আপগ্রেড) বন্ধ হয়ে গেছে, কিন্তু IAM-561 (MFA বাধ্যতামূলক করা) এখনো খোলা।",
                    "জিরায় IAM-552 ক্লোজড, ওটা নিয়ে আর কিছু না। IAM-561 খোলা আছে, ওটা আমাদের।",
                ),
            )
        )
        b.assistant("লিখে রাখলাম: IAM-552 বন্ধ, IAM-561 খোলা ও আমাদের হাতে।")

    def logs() -> None:
        b.user("লগে কিছু অস্বাভাবিক আছে কিনা দেখো।")
        b.tool(
            "শেষ আধা ঘণ্টার ইভেন্ট লগ।",
            "bash",
            {
                "command": "kubectl logs -n iam keycloak-0 --since=30m | grep org.keycloak.events "
                "| tail -35"
            },
            _log(rng, rng.randint(25, 35), _kc_log),
        )
        b.assistant(
            "সাধারণ লগইন আর টোকেন রিফ্রেশ; কয়েকটা user_not_found আছে, সেটা টাইপো-লগইন, আক্রমণের মতো কিছু না।"
        )

    def superseded() -> None:
        b.user("SSO Session Idle টাইমআউট ৩০ মিনিট করে দাও।")
        b.assistant("ঠিক আছে, ৩০ মিনিট।")
        b.user("না, থামো — প্রোডাক্ট টিম বলছে ৩০ খুব কম। ৪৫ মিনিট করো, আগেরটা বাদ।")
        b.assistant("বদলে দিলাম: SSO Session Idle এখন ৪৫ মিনিট।")

    scenes += [ticket_trap, logs, superseded]

    def intro() -> None:
        b.user(
            _pick(
                rng,
                (
                    f"হ্যালো! আজ Keycloak (v25, কুবারনেটিসে, iam নেমস্পেস) নিয়ে কাজ। {realm} রিয়েলমে "
                    "কয়েকটা জিনিস ঠিক করতে হবে।",
                    f"শুভ সকাল। কাল রাত থেকে {realm} রিয়েলমে ঝামেলা চলছে। একটা একটা করে দেখি।",
                ),
            )
        )
        b.assistant("হ্যালো! kcadm দিয়ে মাস্টার রিয়েলমে লগইন করা আছে। শুরু করি।")

    def outro() -> None:
        b.user("আপাতত এটুকুই। বাকিটা পরে।")
        b.assistant("ঠিক আছে, আজকের কাজ লিখে রাখলাম।")

    opening = _opening(rng, b, intro, scenes, late, outro)

    def f_health() -> None:
        b.user(_pick(rng, ("Keycloak পডগুলো ঠিক আছে?", "হেলথ চেক করো।")))
        b.tool(
            "পড আর হেলথ।",
            "bash",
            {
                "command": "kubectl get pods -n iam -l app=keycloak && curl -s "
                "http://keycloak-0.keycloak-headless.iam:9000/health/ready"
            },
            "NAME         READY   STATUS    RESTARTS   AGE\n"
            + "\n".join(
                f"keycloak-{i}   1/1     Running   0          {rng.randint(2, 30)}d"
                for i in range(3)
            )
            + '\n{"status": "UP", "checks": [{"name": "Keycloak database connections health '
            'check", "status": "UP"}]}',
        )
        b.assistant("তিনটা পডই Running, হেলথ UP।")

    def f_sessions() -> None:
        b.user("এখন কতগুলো অ্যাকটিভ সেশন আছে?")
        b.tool(
            "ক্লায়েন্ট অনুযায়ী সেশন।",
            "bash",
            {"command": f"{kc} get client-session-stats -r {realm} | jq -c '.[]'"},
            "\n".join(
                f'{{"clientId":"{c}","active":"{rng.randint(10, 5000)}","offline":"'
                f'{rng.randint(0, 300)}"}}'
                for c in ("web-shop", "partner-api")
            ),
        )
        b.assistant("স্বাভাবিক সংখ্যা, গত সপ্তাহের মতোই।")

    def f_events() -> None:
        b.user(_pick(rng, ("লগইন এররগুলো একটু দেখো।", "ইভেন্ট লগে নতুন কিছু?")))
        b.tool(
            "লগ।",
            "bash",
            {
                "command": "kubectl logs -n iam keycloak-1 --since=20m | grep org.keycloak.events "
                "| tail -25"
            },
            _log(rng, rng.randint(15, 25), _kc_log),
        )
        b.assistant("বিশেষ কিছু না, রুটিন ইভেন্ট।")

    def f_db() -> None:
        b.user("ডাটাবেস কানেকশন পুল কেমন?")
        b.tool(
            "মেট্রিক্স।",
            "bash",
            {
                "command": "curl -s http://keycloak-0.keycloak-headless.iam:9000/metrics | grep "
                "agroal_active_count"
            },
            f'agroal_active_count{{datasource="default"}} {rng.randint(2, 14)}.0',
        )
        b.assistant("পুলের অল্প কয়েকটা কানেকশনই ব্যস্ত, চাপ নেই।")

    def f_backup() -> None:
        b.user("রাতের pg_dump ব্যাকআপ হয়েছে?")
        b.tool(
            "ব্যাকআপ জব।",
            "bash",
            {"command": "kubectl get jobs -n iam | tail -4"},
            "NAME                        COMPLETIONS   DURATION   AGE\n"
            + "\n".join(
                f"keycloak-db-backup-2903{d}   1/1           {rng.randint(40, 90)}s        {d}d"
                for d in range(1, 4)
            ),
        )
        b.assistant("হ্যাঁ, গত তিন রাতের ব্যাকআপ জব সফল।")

    filler = _segments(rng, b, segments, (f_health, f_sessions, f_events, f_db, f_backup))
    return opening, filler, probes


# --- ClickHouse, in Kazakh ----------------------------------------------------------------


def _ch_log(rng: random.Random) -> str:
    msg = _pick(
        rng,
        (
            f"<Information> analytics.page_views_local ({_uuid(rng)}): Merged {rng.randint(2, 9)} "
            f"parts: from 202603_{rng.randint(1, 900)}_{rng.randint(901, 1800)}_1 to "
            f"202603_{rng.randint(1801, 2400)}_{rng.randint(2401, 3000)}_1",
            f"<Debug> executeQuery: (from {_ip(rng, '10.30')}:{rng.randint(30000, 60000)}, user: "
            f"grafana) SELECT count() FROM analytics.page_views WHERE event_date = today() "
            "(stage: Complete)",
            f"<Information> MemoryTracker: Peak memory usage (for query): "
            f"{rng.randint(10, 900)}.{rng.randint(10, 99)} MiB.",
            f"<Warning> analytics.page_views_local ({_uuid(rng)}): Delaying inserting block by "
            f"{rng.randint(1, 9)}.{rng.randint(0, 99)} ms. because there are "
            f"{rng.randint(150, 290)}"
            " parts",
        ),
    )
    return (
        f"{_ts(rng).replace('T', ' ')[:19]}.{rng.randint(0, 999999):06d} [ "
        f"{rng.randint(100, 9999)} ] {{{_uuid(rng)}}} {msg}"
    )


def _clickhouse(rng: random.Random, b: Builder, segments: int) -> Parts:
    probes: list[Probe] = []
    late: list[Scene] = []
    ch = "clickhouse-client --host ch-01.dwh.local"

    # identifier 1: the long query's id
    n = rng.randint(5, 7)
    slow = rng.randrange(n)
    qids = [_uuid(rng) for _ in range(n)]
    slow_user = _pick(rng, ("analyst_ro", "bi_export", "marketing_ro"))
    users = [_pick(rng, ("grafana", "etl_writer", "default", "superset")) for _ in range(n)]
    users[slow] = slow_user
    elapsed = [round(rng.uniform(0.1, 40), 2) for _ in range(n)]
    elapsed[slow] = round(rng.uniform(1800, 4000), 2)
    query_id = qids[slow]
    probes.append(
        _identifier(
            f"What is the query_id of the long-running query of user {slow_user}?", query_id
        )
    )

    def ident_query() -> None:
        b.user(
            _pick(
                rng,
                (
                    "Кластер қатты баяулап кетті, CPU 100%. Қандай сұраныс жүріп жатыр, қарашы.",
                    f"{slow_user} қолданушысы бір ауыр сұраныс жіберген сияқты. Соның "
                    "query_id-ін тап.",
                ),
            )
        )
        rows = "\n".join(
            f"│ {q} │ {u:<12} │ {e:>8} │ {rng.randint(1, 90)}.{rng.randint(10, 99)} GiB │"
            for q, u, e in zip(qids, users, elapsed, strict=True)
        )
        b.tool(
            "system.processes кестесін қараймын.",
            "bash",
            {
                "command": f'{ch} --query "SELECT query_id, user, round(elapsed, 2) AS elapsed, '
                "formatReadableSize(read_bytes) FROM system.processes ORDER BY elapsed FORMAT "
                'PrettyCompactMonoBlock"'
            },
            "┌─query_id─────────────────────────────┬─user─────────┬──elapsed─┬─read───────┐\n"
            + rows
            + "\n└──────────────────────────────────────┴──────────────┴──────────┴"
            "────────────┘",
        )
        b.assistant(
            _pick(
                rng,
                (
                    f"Кінәлі сұраныс: {query_id} ({slow_user}), {elapsed[slow]} секундтан "
                    "бері жүріп "
                    "тұр. Қалғандары қысқа сұраныстар.",
                    f"query_id = {query_id}. Бұл {slow_user}-дың сұранысы, жарты сағаттан астам "
                    "уақыт жүріп жатыр.",
                ),
            )
        )
        b.user(
            _pick(
                rng,
                (
                    "Айдар мұның бәрі ZooKeeper-дің кесірінен деп ойлайды. Тексерші.",
                    "Айдардың ойынша, мәселе ClickHouse Keeper-де, кворум жоғалған дейді.",
                ),
            )
        )
        b.tool(
            "Keeper күйін тексеремін.",
            "bash",
            {"command": "echo mntr | nc ch-keeper-01.dwh.local 9181 | head -6"},
            f"zk_version\tv24.8.4.13-lts-{hexits(rng, 40)}\nzk_avg_latency\t{rng.randint(0, 2)}\n"
            f"zk_max_latency\t{rng.randint(10, 60)}\nzk_min_latency\t0\n"
            f"zk_packets_received\t{rng.randint(10**6, 10**7)}\nzk_server_state\tleader",
        )
        b.assistant(
            "Keeper сау: leader бар, кідіріс өте аз. Айдардың болжамы расталмады — "
            "жүктемені жаңағы бір сұраныс беріп тұр."
        )

    # identifier 2: the broken detached part
    def part() -> str:
        lo = rng.randint(100, 4000)
        return f"2026{rng.randint(1, 3):02d}_{lo}_{lo + rng.randint(1, 900)}_{rng.randint(1, 6)}"

    parts = [part() for _ in range(rng.randint(5, 7))]
    broken = rng.randrange(len(parts))
    part_id = parts[broken]
    reasons = [_pick(rng, ("", "ignored", "clone")) for _ in parts]
    reasons[broken] = "broken-on-start"
    probes.append(
        _identifier("Which detached part of analytics.events_local was broken-on-start?", part_id)
    )

    def ident_part() -> None:
        b.user(
            _pick(
                rng,
                (
                    "ch-02 қайта қосылғаннан кейін events_local-да бір бөлік detached болып қалды. "
                    "Қайсысы бұзылған?",
                    "detached_parts-та бірнеше жол бар, соның ішінде бұзылғанын тауып бер.",
                ),
            )
        )
        rows = "\n".join(
            f"│ {p:<22} │ {r:<16} │ events_local │" for p, r in zip(parts, reasons, strict=True)
        )
        b.tool(
            "system.detached_parts.",
            "bash",
            {
                "command": 'clickhouse-client --host ch-02.dwh.local --query "SELECT name, reason, '
                "table FROM system.detached_parts WHERE database = 'analytics' FORMAT "
                'PrettyCompactMonoBlock"'
            },
            "┌─name───────────────────┬─reason───────────┬─table────────┐\n"
            + rows
            + "\n└────────────────────────┴──────────────────┴──────────────┘",
        )
        b.assistant(
            _pick(
                rng,
                (
                    f"Бұзылғаны: {part_id} (reason = broken-on-start). Басқалары "
                    "ignored/clone, олар "
                    "қалыпты.",
                    f"{part_id} — осы бөлік іске қосылғанда бұзылған деп белгіленген.",
                ),
            )
        )

    # identifier 3: the stuck mutation
    base = rng.randint(30, 400)
    muts = [f"{base + i:010d}" for i in range(rng.randint(5, 7))]
    stuck = rng.randrange(len(muts))
    mutation = muts[stuck]
    probes.append(
        _identifier(
            "Which mutation_id of analytics.orders_local is stuck with a failure?", mutation
        )
    )

    def ident_mutation() -> None:
        b.user(
            _pick(
                rng,
                (
                    "orders_local-дағы ALTER DELETE біткен жоқ сияқты. Мутацияларды көрсетші.",
                    "Бір мутация ілініп қалды деп алерт келді. Қайсысы?",
                ),
            )
        )
        rows = []
        for i, m in enumerate(muts):
            if i == stuck:
                rows.append(
                    f"│ {m} │ DELETE WHERE customer_id IN (...) │       0 │ Code: 241. "
                    "DB::Exception: Memory limit exceeded │"
                )
            else:
                rows.append(
                    f"│ {m} │ UPDATE status = 'archived' WHERE … │       1 │"
                    "                                          │"
                )
        b.tool(
            "system.mutations.",
            "bash",
            {
                "command": f'{ch} --query "SELECT mutation_id, command, is_done, '
                "latest_fail_reason FROM system.mutations WHERE table = 'orders_local' FORMAT "
                'PrettyCompactMonoBlock"'
            },
            "┌─mutation_id─┬─command──────────────────────────┬─is_done─┬─latest_fail_reason─"
            "──────────────────────┐\n" + "\n".join(rows),
        )
        b.assistant(
            _pick(
                rng,
                (
                    f"Ілініп тұрғаны {mutation}: is_done = 0, соңғы қате — Memory limit exceeded.",
                    f"Мутация {mutation} аяқталмаған, жады жетпей құлап жатыр. Қалғандары біткен.",
                ),
            )
        )

    neutral = ("Орындалды, нәтижесі жоғарыда.", "Жарайды, команда қатесіз өтті.", "Дайын.")

    def rename_tool(rng: random.Random, b: Builder) -> None:
        b.tool(
            "Атын өзгертіп, query_log-тан тексеремін.",
            "bash",
            {
                "command": f'{ch} --query "RENAME TABLE analytics.events_raw_old TO '
                f'analytics.events_raw_2025" && {ch} --query "SELECT query FROM system.query_log'
                " WHERE type = 'QueryFinish' AND query_kind = 'Rename' ORDER BY event_time DESC "
                'LIMIT 1"'
            },
            "RENAME TABLE analytics.events_raw_old TO analytics.events_raw_2025",
        )

    def rename_quiet(rng: random.Random, b: Builder) -> None:
        b.tool(
            "Орындаймын.",
            "bash",
            {
                "command": f'{ch} --query "RENAME TABLE analytics.events_raw_old TO '
                'analytics.events_raw_2025"'
            },
            "",
        )

    def mv_tool(rng: random.Random, b: Builder) -> None:
        b.tool(
            "DETACH PERMANENTLY, сосын метадатаны қараймын.",
            "bash",
            {
                "command": f'{ch} --query "DETACH TABLE analytics.mv_daily_revenue PERMANENTLY" '
                "&& ls /var/lib/clickhouse/metadata/analytics/ | grep mv_"
            },
            "mv_daily_revenue.sql.detached\nmv_hourly_sessions.sql",
        )

    def mv_quiet(rng: random.Random, b: Builder) -> None:
        b.tool(
            "Орындаймын.",
            "bash",
            {"command": f'{ch} --query "DETACH TABLE analytics.mv_daily_revenue PERMANENTLY"'},
            "",
        )

    def migr_tool(rng: random.Random, b: Builder) -> None:
        b.tool(
            "Кестенің қозғалтқышын тексеремін.",
            "bash",
            {
                "command": f'{ch} --query "SELECT name, engine FROM system.tables WHERE name = '
                "'sessions_local'\""
            },
            "sessions_local\tReplicatedMergeTree",
        )

    def migr_quiet(rng: random.Random, b: Builder) -> None:
        b.tool(
            "Көшіру скриптін іске қосамын.",
            "bash",
            {"command": "./scripts/ch-convert-to-replicated.sh analytics sessions_local"},
            f"attaching {rng.randint(40, 200)} parts ... done",
        )

    fates = [
        Fate(
            "events_raw_old",
            "What happened to the table analytics.events_raw_old?",
            "It was renamed to analytics.events_raw_2025 (not dropped).",
            ("rename", "events_raw_2025", "атауы өзгер", "атын өзгер"),
            rename_tool,
            rename_quiet,
            ("{n} кестесінің атын events_raw_2025 деп өзгерттім, деректер орнында.",),
            ("{n} кестесін DROP жасама! Тек атын events_raw_2025 деп өзгерт.",),
            ("{n} кестесінің атын events_raw_2025 етіп өзгерт, шатасып жүр.",),
        ),
        Fate(
            "mv_daily_revenue",
            "What happened to the materialized view mv_daily_revenue?",
            "It was detached permanently (DETACH ... PERMANENTLY), not dropped.",
            ("detach", "ажырат"),
            mv_tool,
            mv_quiet,
            ("{n} көрінісін тұрақты түрде ажыраттым (DETACH PERMANENTLY), жойылған жоқ.",),
            ("{n}-ды жойма, тек detach жаса — кейін қайта қосамыз.",),
            ("{n} дубль жазып жатыр, оны уақытша өшір.",),
        ),
        Fate(
            "sessions_local",
            "What happened to the table analytics.sessions_local?",
            "It was migrated from MergeTree to ReplicatedMergeTree.",
            ("replicated", "репликация", "көшір"),
            migr_tool,
            migr_quiet,
            ("{n} енді ReplicatedMergeTree, көшіру аяқталды.",),
            ("{n}-ды қайта құрма, бар бөліктерді ReplicatedMergeTree-ге көшір.",),
            ("{n}-ды ReplicatedMergeTree-ге көшіру керек.",),
        ),
    ]
    rng.shuffle(fates)
    scenes: list[Scene] = [ident_query, ident_part, ident_mutation]
    scenes += [_artifact_scene(rng, b, f, probes, neutral) for f in fates[:2]]

    choice = Choice(
        "Which compression codec was decided for the new payload column?",
        ("codec", "кодек"),
        ("ZSTD(3)", "ZSTD(1)", "LZ4HC(9)", "Delta, ZSTD(1)", "ZSTD(6)"),
        ("Дина", "Ерлан", "Әсел", "Нұржан"),
        {
            "dictated": (
                (
                    "Жаңа payload бағанына CODEC({v}) қой, өйткені {o} дискіде тым көп орын алады.",
                    "Түсінікті, кодек {v}.",
                ),
            ),
            "approved": (
                (
                    "payload бағанына қандай кодек қоямыз?",
                    "Ұсынысым: CODEC({v}) — сығу жақсы, CPU шығыны аз.",
                    "Иә, келісемін.",
                    "Жақсы, {v}.",
                ),
            ),
            "changed": (
                (
                    "payload бағанына қандай кодек қоямыз?",
                    "Әдепкі {o} қалдырайын ба?",
                    "Жоқ, {o} емес. Кодек {v} болсын, диск тапшы.",
                    "Өзгерттім: кодек {v}.",
                ),
            ),
            "corrected": (("payload бағанының кодегі {o} болады.", "Жарайды, {o}."),),
            "correction": (
                ("Түзетемін: кодек {o} емес, {v}. Қателесіппін.", "Түзеттім, кодек {v}."),
                ("Кешір, алдыңғысы қате: payload кодегі {v}, {o} емес.", "Жарайды, кодек {v}."),
            ),
            "relayed": (
                (
                    "{who} айтты: payload бағанының кодегі {v} болуы керек, олардың "
                    "бенчмаркі солай көрсетті.",
                    "Жақсы, кодек {v}.",
                ),
            ),
            "either_or": (
                (
                    "Бүгін payload бағанын қосуымыз керек.",
                    "Бір сұрақ: кодек {o} ме, әлде {v} ме?",
                    "{v} кодегі. {o}-мен бұрын сұраныстар баяу болған.",
                    "Түсіндім, {v}.",
                ),
            ),
        },
    )
    scenes.append(_decision_scene(rng, choice, probes, late, b))

    day = rng.randint(10, 28)
    wd = (
        ("дүйсенбі", "monday"),
        ("сейсенбі", "tuesday"),
        ("сәрсенбі", "wednesday"),
        ("бейсенбі", "thursday"),
        ("жұма", "friday"),
    )
    wn, we = wd[rng.randrange(5)]
    pending = Pending(
        "Which table is still to get OPTIMIZE ... FINAL, and when?",
        "run OPTIMIZE TABLE {x} FINAL",
        ("analytics.orders_agg", "analytics.page_views_daily", "analytics.ad_clicks_hourly"),
        (
            When("relative", "ертең таңертең", ("ертең", "tomorrow"), "tomorrow morning"),
            When(
                "relative",
                "бүрсігүні",
                ("бүрсігүні", "day after tomorrow"),
                "the day after tomorrow",
            ),
            When("relative", "келесі аптада", ("келесі апта", "next week"), "next week"),
            When(
                "date",
                f"{day} наурызда",
                (f"{day} наурыз", f"march {day}", f"{day} march", f"{day:02d}.03", f"03-{day:02d}"),
                f"on {day} March",
            ),
            When("weekday", f"{wn}{'да' if wn == 'жұма' else 'де'}", (wn, we), f"on {we.title()}"),
            When(
                "condition",
                "clickhouse-backup аяқталғаннан кейін",
                ("clickhouse-backup", "backup", "бэкап"),
                "once clickhouse-backup has finished",
            ),
            When(
                "deadline",
                "тоқсандық есепке дейін",
                ("тоқсандық", "quarterly"),
                "before the quarterly report",
            ),
            When(
                "promise",
                "бүгін кешке, жүктеме түскен соң",
                ("бүгін кешке", "tonight", "this evening"),
                "this evening once the load drops (the agent's promise)",
            ),
        ),
        (
            (
                "{x} үшін OPTIMIZE FINAL керек, бірақ {t}. Қазір кластер бос емес.",
                "Жарайды, {x}-ке әзірге тимеймін.",
            ),
            ("Есіңде болсын: {t} {x} кестесін OPTIMIZE ... FINAL жасаймыз.", "Жазып алдым."),
        ),
        (
            (
                "{x} кестесінде бөліктер тым көп. Кім OPTIMIZE жасайды?",
                "Мен жасаймын: {t} {x} үшін OPTIMIZE TABLE ... FINAL іске қосамын.",
            ),
        ),
    )
    scenes.append(_next_scene(rng, pending, probes, b))

    def ticket_trap() -> None:
        b.user(
            _pick(
                rng,
                (
                    "DATA-318 (TTL өзгерісі) жабылды, ал DATA-327 (шард қосу) әлі ашық. "
                    "Шатастырма.",
                    "Jira-да DATA-318 Done, оған енді тимейміз. Біздікі — ашық тұрған DATA-327.",
                ),
            )
        )
        b.assistant("Белгіледім: DATA-318 жабық, DATA-327 ашық және бізде.")

    def logs() -> None:
        b.user("Сервер логын да қарашы.")
        b.tool(
            "clickhouse-server.log соңы.",
            "bash",
            {
                "command": "ssh ch-01.dwh.local tail -n 40 /var/log/clickhouse-server/"
                "clickhouse-server.log"
            },
            _log(rng, rng.randint(28, 40), _ch_log),
        )
        b.assistant(
            "Қалыпты: merge-лер, Grafana сұраныстары. Бір-екі рет insert кідіртілген, "
            "бөліктер саны көп болғандықтан — бірақ шектен аспайды."
        )

    def superseded() -> None:
        b.user("max_memory_usage-ті analyst профилі үшін 20 GB қой.")
        b.assistant("Жарайды, 20 GB.")
        b.user("Жоқ, тоқта, 20 тым көп екен. 12 GB болсын, алдыңғысын ұмыт.")
        b.assistant("Өзгерттім: analyst профилінде max_memory_usage енді 12 GB.")

    scenes += [ticket_trap, logs, superseded]

    def intro() -> None:
        b.user(
            _pick(
                rng,
                (
                    "Сәлем! Бүгін ClickHouse кластерімен жұмыс (2 шард × 2 реплика, "
                    "24.8). Түнде бірнеше "
                    "мәселе шықты.",
                    "Сәлеметсіз бе. Кезекшілік менде, DWH-тағы ClickHouse тағы мазасыз. Ретімен "
                    "қарайық.",
                ),
            )
        )
        b.assistant("Сәлем! ch-01 мен ch-02-ге қолжетімділік бар. Бастайық.")

    def outro() -> None:
        b.user("Әзірге жетеді. Қалғанын кейін.")
        b.assistant("Жақсы, бүгінгі жұмыс тіркелді.")

    opening = _opening(rng, b, intro, scenes, late, outro)

    def f_replicas() -> None:
        b.user(_pick(rng, ("Репликалар артта қалмады ма?", "Репликация кезегін қарашы.")))
        b.tool(
            "system.replicas.",
            "bash",
            {
                "command": f'{ch} --query "SELECT table, absolute_delay, queue_size FROM '
                "system.replicas WHERE database = 'analytics'\""
            },
            "\n".join(
                f"{t}\t{rng.randint(0, 3)}\t{rng.randint(0, 12)}"
                for t in ("page_views_local", "events_local", "orders_local")
            ),
        )
        b.assistant("Кідіріс бірнеше секунд қана, кезек шағын.")

    def f_disk() -> None:
        b.user("Дискте орын қанша қалды?")
        b.tool(
            "system.disks.",
            "bash",
            {
                "command": f'{ch} --query "SELECT name, formatReadableSize(free_space), '
                'formatReadableSize(total_space) FROM system.disks"'
            },
            f"default\t{rng.randint(300, 900)}.00 GiB\t1.75 TiB\ncold_s3\t16.00 EiB\t16.00 EiB",
        )
        b.assistant("Жергілікті дискте жеткілікті орын бар.")

    def f_logs() -> None:
        b.user(_pick(rng, ("Логта жаңа ескертулер бар ма?", "ch-01 логын тағы бір қарашы.")))
        b.tool(
            "Лог.",
            "bash",
            {
                "command": "ssh ch-01.dwh.local tail -n 25 /var/log/clickhouse-server/"
                "clickhouse-server.log"
            },
            _log(rng, rng.randint(15, 25), _ch_log),
        )
        b.assistant("Ерекше ештеңе жоқ.")

    def f_parts() -> None:
        b.user("page_views_local-да бөлік саны қанша?")
        b.tool(
            "system.parts.",
            "bash",
            {
                "command": f'{ch} --query "SELECT partition, count() FROM system.parts WHERE '
                "table = 'page_views_local' AND active GROUP BY partition\""
            },
            "\n".join(f"2026{m:02d}\t{rng.randint(20, 140)}" for m in (1, 2, 3)),
        )
        b.assistant("Бөліктер саны қалыпты, merge-лер үлгеріп жатыр.")

    def f_users() -> None:
        b.user("Қазір қанша қосылым бар?")
        b.tool(
            "Метрика.",
            "bash",
            {
                "command": f'{ch} --query "SELECT metric, value FROM system.metrics WHERE metric '
                "LIKE '%Connection'\""
            },
            f"TCPConnection\t{rng.randint(5, 60)}\nHTTPConnection\t{rng.randint(5, 90)}\n"
            f"InterserverConnection\t{rng.randint(0, 4)}",
        )
        b.assistant("Қосылымдар саны әдеттегідей.")

    filler = _segments(rng, b, segments, (f_replicas, f_disk, f_logs, f_parts, f_users))
    return opening, filler, probes


# --- RabbitMQ, in Amharic -----------------------------------------------------------------


def _rmq_log(rng: random.Random) -> str:
    msg = _pick(
        rng,
        (
            f"<0.{rng.randint(1000, 99999)}.0> accepting AMQP connection {_ip(rng, '10.12')}:"
            f"{rng.randint(30000, 65000)} -> 10.12.0.{rng.randint(5, 7)}:5672",
            f"<0.{rng.randint(1000, 99999)}.0> connection {_ip(rng, '10.12')}:"
            f"{rng.randint(30000, 65000)} -> 10.12.0.{rng.randint(5, 7)}:5672: user 'orders-svc' "
            "authenticated and granted access to vhost '/'",
            f"<0.{rng.randint(1000, 99999)}.0> closing AMQP connection ({_ip(rng, '10.12')}:"
            f"{rng.randint(30000, 65000)} -> 10.12.0.{rng.randint(5, 7)}:5672, vhost: '/', user: "
            "'notify-svc', duration: '"
            f"{rng.randint(1, 59)}M, {rng.randint(1, 59)}S')",
            f"<0.{rng.randint(1000, 99999)}.0> queue 'email.send' in vhost '/': "
            f"{rng.randint(1, 5)} segment files compacted",
        ),
    )
    return f"{_ts(rng).replace('T', ' ')[:23]}+00:00 [info] {msg}"


def _rabbitmq(rng: random.Random, b: Builder, segments: int) -> Parts:
    probes: list[Probe] = []
    late: list[Scene] = []
    ctl = "kubectl exec -n messaging rabbitmq-server-0 -- rabbitmqctl"

    def gen(prefix: str) -> str:
        return prefix + token(rng, 22, B62 + "-_")

    # identifier 1: the orphaned server-named queue
    queues = [gen("amq.gen-") for _ in range(rng.randint(4, 6))]
    orphan = rng.randrange(len(queues))
    queue_id = queues[orphan]
    probes.append(
        _identifier(
            "Which server-named (amq.gen-) queue had messages piling up with no consumers?",
            queue_id,
        )
    )

    def ident_queue() -> None:
        b.user(
            _pick(
                rng,
                (
                    "የመልዕክት ብዛት ማስጠንቀቂያ መጣ። ማንም የማያነበው ወረፋ አለ? ስሙ amq.gen- የሚል ይመስለኛል።",
                    "ያልተጠቀሙበት ጊዜያዊ ወረፋ እየሞላ ነው ይላሉ። የትኛው እንደሆነ ፈልግልኝ።",
                ),
            )
        )
        rows = [("orders.created", rng.randint(0, 40), 3), ("email.send", rng.randint(0, 20), 2)]
        for i, q in enumerate(queues):
            rows.append(
                (
                    q,
                    rng.randint(80000, 400000) if i == orphan else rng.randint(0, 9),
                    0 if i == orphan else 1,
                )
            )
        rng.shuffle(rows)
        out = (
            "Timeout: 60.0 seconds ...\nListing queues for vhost / ...\nname\tmessages\t"
            "consumers\n" + "\n".join(f"{n}\t{m}\t{c}" for n, m, c in rows)
        )
        b.tool(
            "ወረፋዎችን ከመልዕክትና ከተጠቃሚ ብዛታቸው ጋር እያየሁ ነው።",
            "bash",
            {"command": f"{ctl} list_queues name messages consumers"},
            out,
        )
        b.assistant(
            _pick(
                rng,
                (
                    f"ችግሩ {queue_id} ነው፤ consumer የለውም፣ መልዕክቶቹ ግን እየተከማቹ ናቸው። ሌሎቹ amq.gen "
                    "ወረፋዎች አንድ አንድ consumer አላቸው።",
                    f"ወላጅ አልባው ወረፋ {queue_id} ነው (consumers = 0)።",
                ),
            )
        )
        b.user(
            _pick(
                rng,
                (
                    "ዳዊት የኔትወርክ partition ነው ብሎ ያስባል። እውነት ነው?",
                    "ዳዊት ኖዱ ከክላስተሩ ተገንጥሏል ይላል። አረጋግጥ እስኪ።",
                ),
            )
        )
        b.tool(
            "የክላስተር ሁኔታን አያለሁ።",
            "bash",
            {
                "command": "kubectl exec -n messaging rabbitmq-server-0 -- rabbitmq-diagnostics "
                "cluster_status --formatter json | jq -c '{running_nodes, partitions}'"
            },
            '{"running_nodes":["rabbit@rabbitmq-server-0.rabbitmq-nodes.messaging",'
            '"rabbit@rabbitmq-server-1.rabbitmq-nodes.messaging","rabbit@rabbitmq-server-2.'
            'rabbitmq-nodes.messaging"],"partitions":{}}',
        )
        b.assistant(
            "አይደለም፤ ሶስቱም ኖዶች እየሰሩ ናቸው፣ partition የለም። የዳዊት ግምት ትክክል "
            "አይደለም — ችግሩ consumer የሌለው ወረፋ ነው።"
        )

    # identifier 2: the consumer tag with the huge prefetch
    tags = [gen("amq.ctag-") for _ in range(rng.randint(5, 7))]
    greedy = rng.randrange(len(tags))
    tag_id = tags[greedy]
    probe_q = _pick(rng, ("payments.settle", "ledger.post", "refunds.process"))
    probes.append(_identifier(f"Which consumer tag on {probe_q} had prefetch_count 1000?", tag_id))

    def ident_tag() -> None:
        b.user(
            _pick(
                rng,
                (
                    f"{probe_q} ላይ አንዱ consumer መልዕክቶችን ሁሉ ይዞ ተቀምጧል። የትኛው ነው?",
                    f"{probe_q} ወረፋ ላይ unacked መልዕክቶች በጣም ብዙ ናቸው። prefetch ያልተስተካከለውን "
                    "consumer ፈልግ።",
                ),
            )
        )
        rows = "\n".join(
            f"{probe_q}\t{t}\ttrue\t{1000 if i == greedy else _pick(rng, ('10', '20', '50'))}"
            for i, t in enumerate(tags)
        )
        b.tool(
            "consumers.",
            "bash",
            {
                "command": f"{ctl} list_consumers queue_name consumer_tag ack_required "
                "prefetch_count"
            },
            "Listing consumers in vhost / ...\nqueue_name\tconsumer_tag\tack_required\t"
            "prefetch_count\n" + rows,
        )
        b.assistant(
            _pick(
                rng,
                (
                    f"prefetch_count 1000 ያለው consumer፦ {tag_id}። ሌሎቹ 10–50 ናቸው።",
                    f"ተገኘ፤ {tag_id} ነው፣ prefetch 1000 ስላለው መልዕክቶቹን ሁሉ ይዞ ይቀመጣል።",
                ),
            )
        )

    # identifier 3: the blocked connection
    n = rng.randint(5, 7)
    conns = [
        f"{_ip(rng, '10.12')}:{rng.randint(30000, 65000)} -> 10.12.0.{rng.randint(5, 7)}:5672"
        for _ in range(n)
    ]
    blocked = rng.randrange(n)
    conn_id = conns[blocked]
    probes.append(
        _identifier("What is the name of the connection that was in state blocked?", conn_id)
    )

    def ident_conn() -> None:
        b.user(
            _pick(
                rng,
                (
                    "አንድ publisher ቆሟል ብለው ደውለዋል። የታገደ connection አለ?",
                    "የትኛው connection ነው blocked የሆነው? ሙሉ ስሙን ስጠኝ።",
                ),
            )
        )
        rows = "\n".join(
            f"{c}\t{_pick(rng, ('orders-svc', 'notify-svc', 'billing-svc'))}\t"
            f"{'blocked' if i == blocked else 'running'}"
            for i, c in enumerate(conns)
        )
        b.tool(
            "connections.",
            "bash",
            {"command": f"{ctl} list_connections name user state"},
            "Listing connections ...\nname\tuser\tstate\n" + rows,
        )
        b.assistant(
            _pick(
                rng,
                (
                    f"የታገደው connection፦ {conn_id}። ሌሎቹ running ናቸው።",
                    f"blocked ሁኔታ ላይ ያለው {conn_id} ብቻ ነው።",
                ),
            )
        )

    neutral = ("ተሰርቷል፣ ውጤቱ ከላይ አለ።", "እሺ፣ ትዕዛዙ ያለ ስህተት ተፈጽሟል።", "ጨርሻለሁ።")

    def purge_tool(rng: random.Random, b: Builder) -> None:
        b.tool(
            "ወረፋውን አጸዳለሁ።",
            "bash",
            {"command": f"{ctl} purge_queue invoices.retry"},
            f"Purging queue 'invoices.retry' in vhost '/' ...\n{rng.randint(1000, 90000)}",
        )

    def purge_quiet(rng: random.Random, b: Builder) -> None:
        b.tool(
            "ትዕዛዙን እልካለሁ።",
            "bash",
            {"command": "rabbitmqadmin --vhost=/ purge queue name=invoices.retry"},
            "queue purged",
        )

    def perms_tool(rng: random.Random, b: Builder) -> None:
        b.tool(
            "ፈቃዶቹን አነሳለሁ።",
            "bash",
            {"command": f"{ctl} clear_permissions -p / legacy-billing"},
            'Clearing permissions for user "legacy-billing" in vhost "/" ...',
        )

    def perms_quiet(rng: random.Random, b: Builder) -> None:
        b.tool(
            "እልካለሁ።",
            "bash",
            {
                "command": "curl -s -u admin:$RMQ_PASS -X DELETE "
                "http://rabbitmq.messaging:15672/api/permissions/%2F/legacy-billing -w "
                "'%{http_code}'"
            },
            "204",
        )

    def quorum_tool(rng: random.Random, b: Builder) -> None:
        b.tool(
            "የወረፋውን አይነት አረጋግጣለሁ።",
            "bash",
            {"command": f"{ctl} list_queues name type messages | grep -E '^notifications'"},
            f"notifications\tquorum\t{rng.randint(0, 50)}",
        )

    def quorum_quiet(rng: random.Random, b: Builder) -> None:
        b.tool(
            "የማዛወሪያ ስክሪፕቱን አስኬዳለሁ።",
            "bash",
            {"command": "./scripts/migrate-to-quorum.sh --vhost / notifications"},
            f"shovelled {rng.randint(100, 5000)} messages ... done",
        )

    fates = [
        Fate(
            "invoices.retry",
            "What happened to the invoices.retry queue?",
            "It was purged (emptied), not deleted.",
            ("purg", "ባዶ", "ተጸድ"),
            purge_tool,
            purge_quiet,
            ("{n} ወረፋ ባዶ ሆኗል (purge)፤ ወረፋው ራሱ አልተሰረዘም።", "{n}ን አጽድቼዋለሁ፣ bindings ሁሉ እንዳሉ ናቸው።"),
            ("{n}ን አትሰርዘው፤ መልዕክቶቹን ብቻ አጽዳ (purge)። bindings መቆየት አለባቸው።",),
            ("{n} ውስጥ ያሉት መልዕክቶች ሁሉ የቆዩ ናቸው፣ አጽዳው።",),
        ),
        Fate(
            "legacy-billing",
            "What happened to the RabbitMQ user legacy-billing?",
            "Its permissions on vhost / were cleared; the user was not deleted.",
            ("clearing permissions", "permissions", "ፈቃ"),
            perms_tool,
            perms_quiet,
            ("የ{n} ፈቃዶች በ / vhost ላይ ተነስተዋል፤ ተጠቃሚው ግን አልተሰረዘም።",),
            ("{n} ተጠቃሚን አትሰርዘው፣ ፈቃዶቹን ብቻ አንሳ። ኦዲተሮች ያስፈልጋቸዋል።",),
            ("{n} ከእንግዲህ መገናኘት የለበትም።",),
        ),
        Fate(
            "notifications",
            "What happened to the notifications queue?",
            "It was migrated from a classic queue to a quorum queue.",
            ("quorum", "ኮረም"),
            quorum_tool,
            quorum_quiet,
            ("{n} ወረፋ ወደ quorum ተዛውሯል።",),
            ("{n}ን አትሰርዝና እንደገና አትፍጠር፤ ወደ quorum ብቻ አዛውረው።",),
            ("{n} ወረፋ classic ነው፤ ወደ quorum እናዛውረው።",),
        ),
    ]
    rng.shuffle(fates)
    scenes: list[Scene] = [ident_queue, ident_tag, ident_conn]
    scenes += [_artifact_scene(rng, b, f, probes, neutral) for f in fates[:2]]

    choice = Choice(
        "Which RabbitMQ version was decided for the upgrade?",
        ("version", "ስሪት", "upgrade"),
        ("3.13.7", "4.0.5", "4.1.2", "3.12.14", "4.0.9"),
        ("ሄለን", "ሳሙኤል", "ብርሃኑ", "መቅደስ"),
        {
            "dictated": (("ክላስተሩን ወደ ስሪት {v} እናሳድገው፤ {o} ገና ያልተረጋጋ ነው።", "እሺ፣ ስሪት {v}።"),),
            "approved": (
                (
                    "ወደ የትኛው ስሪት እናሳድግ?",
                    "የእኔ ሀሳብ ስሪት {v} ነው፤ በ Erlang 26 ላይ ተፈትኗል።",
                    "ጥሩ፣ ይሁን።",
                    "በቃ፣ {v}።",
                ),
            ),
            "changed": (
                (
                    "ወደ የትኛው ስሪት እናሳድግ?",
                    "የቅርብ ጊዜው {o} ይሁን?",
                    "አይ፣ {o} አይሆንም። ስሪት {v} ይሁን፤ የኛ plugins ገና አልደገፉትም።",
                    "ተቀይሯል፦ ስሪት {v}።",
                ),
            ),
            "corrected": (("የupgrade ስሪቱ {o} ነው።", "እሺ፣ {o}።"),),
            "correction": (
                ("ይቅርታ፣ ተሳስቻለሁ፦ ስሪቱ {o} ሳይሆን {v} ነው።", "አስተካክያለሁ፣ ስሪት {v}።"),
                ("ማስተካከያ፦ upgrade ወደ {v} ነው እንጂ {o} አይደለም።", "እሺ፣ {v}።"),
            ),
            "relayed": (("{who} ከplatform ቡድን እንደነገረኝ፣ ስሪቱ {v} መሆን አለበት።", "ገባኝ፣ ስሪት {v}።"),),
            "either_or": (
                (
                    "የዚህ ወር upgrade ማቀድ አለብን።",
                    "ጥያቄ፦ ስሪት {o} ወይስ {v}?",
                    "{v} ስሪት። {o} ላይ ባለፈው የmemory ችግር ነበር።",
                    "እሺ፣ {v}።",
                ),
            ),
        },
    )
    scenes.append(_decision_scene(rng, choice, probes, late, b))

    meg = rng.randint(1, 19)
    day = rng.randint(10, 28)
    wd = (
        ("ሰኞ", "monday"),
        ("ማክሰኞ", "tuesday"),
        ("ረቡዕ", "wednesday"),
        ("ሐሙስ", "thursday"),
        ("ዓርብ", "friday"),
    )
    wn, we = wd[rng.randrange(5)]
    pending = Pending(
        "Which federation upstream is still to be removed, and when?",
        "remove the federation upstream {x}",
        ("upstream-dc1-old", "fed-legacy-eu", "upstream-aws-test"),
        (
            When("relative", "ነገ ጠዋት", ("ነገ", "tomorrow"), "tomorrow morning"),
            When(
                "relative", "ከነገ ወዲያ", ("ከነገ ወዲያ", "day after tomorrow"), "the day after tomorrow"
            ),
            When("relative", "በሚቀጥለው ሳምንት", ("ሚቀጥለው ሳምንት", "next week"), "next week"),
            When(
                "date",
                f"መጋቢት {meg}",
                (f"መጋቢት {meg}", f"megabit {meg}", f"march {meg + 9}", f"{meg + 9} march"),
                f"on Megabit {meg} (Ethiopian calendar; {meg + 9} March)",
            ),
            When(
                "date",
                f"ማርች {day}",
                (f"ማርች {day}", f"march {day}", f"{day} march", f"{day:02d}.03", f"03-{day:02d}"),
                f"on {day} March",
            ),
            When("weekday", f"{wn} ዕለት", (wn, we), f"on {we.title()}"),
            When(
                "condition",
                "የdefinitions ባክአፑ ሲጠናቀቅ",
                ("definitions", "backup", "ባክአ"),
                "once the definitions backup has finished",
            ),
            When(
                "deadline",
                "ከፋሲካ በዓል በፊት",
                ("ፋሲካ", "easter", "fasika"),
                "before the Fasika (Easter) holiday",
            ),
            When(
                "promise",
                "ዛሬ ማታ ከጥገና መስኮቱ በኋላ",
                ("ዛሬ ማታ", "tonight"),
                "tonight after the maintenance window (the agent's promise)",
            ),
        ),
        (
            ("{x}ን ማስወገድ አለብን፣ ግን {t}። አሁን DR ፈተና እየተካሄደ ነው።", "ገባኝ፣ {x}ን ለጊዜው አልነካውም።"),
            ("{t} {x} federation upstream ይወገዳል፤ አስታውስ።", "መዝግቤዋለሁ።"),
        ),
        (("{x}ን ማን ያስወግደዋል?", "እኔ፦ {t} {x}ን አስወግጄ federation status እንደገና አረጋግጣለሁ።"),),
    )
    scenes.append(_next_scene(rng, pending, probes, b))

    def ticket_trap() -> None:
        b.user(
            _pick(
                rng,
                (
                    "MQ-88 (TLS ሰርተፍኬት) ተዘግቷል፤ MQ-94 (የqueue ገደቦች) ግን አሁንም ክፍት ነው። እንዳታምታታቸው።",
                    "በJira MQ-88 Done ሆኗል። የኛ ክፍት ትኬት MQ-94 ነው።",
                ),
            )
        )
        b.assistant("ተመዝግቧል፦ MQ-88 ዝግ፣ MQ-94 ክፍት እና የኛ።")

    def logs() -> None:
        b.user("የrabbitmq-server-1 ሎግንም እይ።")
        b.tool(
            "የመጨረሻ መስመሮች።",
            "bash",
            {"command": "kubectl logs -n messaging rabbitmq-server-1 --since=1h | tail -40"},
            _log(rng, rng.randint(28, 40), _rmq_log),
        )
        b.assistant("የተለመዱ connection መክፈትና መዝጋት ብቻ ነው፤ ምንም አሳሳቢ ነገር የለም።")

    def superseded() -> None:
        b.user("የmessage TTL ፖሊሲውን 24 ሰዓት አድርገው።")
        b.assistant("እሺ፣ 24 ሰዓት።")
        b.user("አይ ቆይ፣ 24 በጣም ረጅም ነው። 6 ሰዓት ይሁን፤ የቀደመውን ተወው።")
        b.assistant("ቀይሬዋለሁ፦ message TTL አሁን 6 ሰዓት ነው።")

    scenes += [ticket_trap, logs, superseded]

    def intro() -> None:
        b.user(
            _pick(
                rng,
                (
                    "ሰላም! ዛሬ በRabbitMQ ክላስተሩ (3 ኖድ፣ በKubernetes ላይ በcluster-operator) ላይ እንሰራለን። "
                    "ከትናንት ማታ የቀሩ ችግሮች አሉ።",
                    "እንደምን አደርክ። የዛሬው ተረኛ እኔ ነኝ፣ RabbitMQ እንደገና እያስቸገረ ነው። አንድ በአንድ እንየው።",
                ),
            )
        )
        b.assistant("ሰላም! ወደ messaging namespace መዳረሻ አለኝ። እንጀምር።")

    def outro() -> None:
        b.user("ለአሁን ይበቃል። የቀረውን በኋላ።")
        b.assistant("እሺ፣ የዛሬው ስራ ተመዝግቧል።")

    opening = _opening(rng, b, intro, scenes, late, outro)

    def f_alarms() -> None:
        b.user(_pick(rng, ("alarm አለ?", "የmemory እና disk ማንቂያዎችን እይ።")))
        b.tool(
            "alarms.",
            "bash",
            {
                "command": "kubectl exec -n messaging rabbitmq-server-0 -- rabbitmq-diagnostics "
                "alarms"
            },
            "Asking node rabbit@rabbitmq-server-0.rabbitmq-nodes.messaging to report any known "
            "resource alarms ...\nNode rabbit@rabbitmq-server-0.rabbitmq-nodes.messaging "
            "reported no alarms, local or clusterwide",
        )
        b.assistant("ምንም ማንቂያ የለም።")

    def f_queues() -> None:
        b.user("email.send ወረፋ እንዴት ነው?")
        b.tool(
            "ወረፋ።",
            "bash",
            {"command": f"{ctl} list_queues name messages consumers | grep email"},
            f"email.send\t{rng.randint(0, 30)}\t{rng.randint(1, 3)}",
        )
        b.assistant("ጥሩ ነው፤ መልዕክቶቹ በፍጥነት እየተነበቡ ነው።")

    def f_logs() -> None:
        b.user(_pick(rng, ("ሎጉ ላይ አዲስ ነገር አለ?", "የserver-2 ሎግን እይ።")))
        b.tool(
            "ሎግ።",
            "bash",
            {"command": "kubectl logs -n messaging rabbitmq-server-2 --since=30m | tail -25"},
            _log(rng, rng.randint(15, 25), _rmq_log),
        )
        b.assistant("ልዩ ነገር የለም።")

    def f_mem() -> None:
        b.user("የኖዶቹ memory አጠቃቀም ስንት ነው?")
        b.tool(
            "memory.",
            "bash",
            {"command": "kubectl top pods -n messaging"},
            "NAME                CPU(cores)   MEMORY(bytes)\n"
            + "\n".join(
                f"rabbitmq-server-{i}   {rng.randint(80, 600)}m         {rng.randint(900, 2800)}Mi"
                for i in range(3)
            ),
        )
        b.assistant("ከገደቡ በታች ነው፤ ችግር የለም።")

    def f_fed() -> None:
        b.user("federation links ደህና ናቸው?")
        b.tool(
            "federation.",
            "bash",
            {
                "command": "kubectl exec -n messaging rabbitmq-server-0 -- rabbitmqctl "
                "federation_status --formatter json | jq -c '.[] | {upstream, status}'"
            },
            '{"upstream":"upstream-dc2","status":"running"}',
        )
        b.assistant("ሊንኩ running ነው።")

    filler = _segments(rng, b, segments, (f_alarms, f_queues, f_logs, f_mem, f_fed))
    return opening, filler, probes


# --- MongoDB replica set, in Nepali -------------------------------------------------------


def _mongo_log(rng: random.Random) -> str:
    attr = _pick(
        rng,
        (
            f'"c":"NETWORK","id":22943,"ctx":"listener","msg":"Connection accepted","attr":'
            f'{{"remote":"{_ip(rng, "10.60")}:{rng.randint(30000, 65000)}","connectionCount":'
            f"{rng.randint(40, 400)}}}",
            f'"c":"COMMAND","id":51803,"ctx":"conn{rng.randint(100, 99999)}","msg":"Slow query",'
            f'"attr":{{"type":"command","ns":"shop.products","durationMillis":'
            f'{rng.randint(100, 900)},"planSummary":"IXSCAN {{ sku: 1 }}"}}',
            f'"c":"NETWORK","id":22944,"ctx":"conn{rng.randint(100, 99999)}","msg":"Connection '
            f'ended","attr":{{"remote":"{_ip(rng, "10.60")}:{rng.randint(30000, 65000)}"}}',
            f'"c":"STORAGE","id":22430,"ctx":"Checkpointer","msg":"WiredTiger message","attr":'
            f'{{"message":"saving checkpoint snapshot min: {rng.randint(10, 999)}"}}',
        ),
    )
    return f'{{"t":{{"$date":"{_ts(rng, 11)[:-1]}+00:00"}},"s":"I",{attr}}}'


def _mongodb(rng: random.Random, b: Builder, segments: int) -> Parts:
    probes: list[Probe] = []
    late: list[Scene] = []
    dev = "\u0966"  # Devanagari zero
    sh = "mongosh 'mongodb://mongo-db-0.mongo:27017/shop?replicaSet=rs0' --quiet --eval"

    # identifier 1: an order's ObjectId
    n = rng.randint(5, 7)
    nos = rng.sample(range(20000, 29999), n)
    oids = [hexits(rng, 24) for _ in range(n)]
    pick = rng.randrange(n)
    order_no = f"NP-{nos[pick]}"
    oid = oids[pick]
    probes.append(_identifier(f"What is the ObjectId of order {order_no}?", oid))

    def ident_order() -> None:
        b.user(
            _pick(
                rng,
                (
                    f"ग्राहकले अर्डर {order_no} को पैसा काटियो तर अर्डर अड्कियो भन्छन्। त्यसको _id खोज त।",
                    f"अर्डर {_digits(order_no, dev)} (अर्थात् {order_no}) PENDING मा अड्किएको छ। "
                    "त्यसको ObjectId चाहियो।",
                ),
            )
        )
        rows = "\n".join(
            f"  {{ _id: ObjectId('{o}'), orderNo: 'NP-{no}', status: 'PENDING_PAYMENT' }},"
            for o, no in zip(oids, nos, strict=True)
        )
        b.tool(
            "PENDING अर्डरहरू हेर्छु।",
            "bash",
            {
                "command": f'{sh} \'db.orders.find({{status: "PENDING_PAYMENT"}}, {{orderNo: 1, '
                "status: 1}).limit(20).toArray()'"
            },
            "[\n" + rows + "\n]",
        )
        b.assistant(
            _pick(
                rng,
                (
                    f"{order_no} को _id: {oid}। अरू PENDING अर्डरहरू फरक ग्राहकका हुन्।",
                    f"भेटियो — ObjectId('{oid}') नै {order_no} हो।",
                ),
            )
        )

    # identifier 2: the session of the long collection scan
    n = rng.randint(5, 6)
    lsids = [_uuid(rng) for _ in range(n)]
    scan = rng.randrange(n)
    lsid = lsids[scan]
    probes.append(
        _identifier(
            "What is the lsid (logical session id) of the long-running COLLSCAN operation?", lsid
        )
    )

    def ident_lsid() -> None:
        b.user(
            _pick(
                rng,
                (
                    "प्राइमरीको CPU ९०% माथि छ। कुन अपरेसन लामो समयदेखि चलिरहेको छ, हेर न।",
                    "कसैले इन्डेक्स बिनाको query चलाएको जस्तो छ। त्यसको session id चाहियो, "
                    "killSessions गर्नलाई।",
                ),
            )
        )
        rows = []
        for i, s in enumerate(lsids):
            secs, plan = (
                (rng.randint(900, 4000), "COLLSCAN")
                if i == scan
                else (
                    rng.randint(0, 4),
                    _pick(rng, ("IXSCAN { sku: 1 }", "IXSCAN { customerId: 1 }")),
                )
            )
            rows.append(
                f"  {{ opid: {rng.randint(10**6, 10**7)}, lsid: UUID('{s}'), "
                f"secs_running: {secs}, planSummary: '{plan}' }},"
            )
        b.tool(
            "currentOp हेर्छु।",
            "bash",
            {
                "command": f"{sh} 'db.currentOp({{active: true}}).inprog.filter(o => o.lsid)."
                "map(o => ({opid: o.opid, lsid: o.lsid.id, secs_running: o.secs_running, "
                "planSummary: o.planSummary}))'"
            },
            "[\n" + "\n".join(rows) + "\n]",
        )
        b.assistant(
            _pick(
                rng,
                (
                    f"दोषी: lsid {lsid} — COLLSCAN, धेरै बेरदेखि चलिरहेको। बाँकी छोटा IXSCAN हुन्।",
                    f"COLLSCAN गरिरहेको session {lsid} हो।",
                ),
            )
        )
        b.user(
            _pick(
                rng,
                (
                    "सुमन भन्छ यो WiredTiger cache भरिएर भएको हो। साँच्चै हो?",
                    "सुमनको विचारमा सेकेन्डरी पछाडि परेर प्राइमरीमा लोड आएको हो। जाँच त।",
                ),
            )
        )
        b.tool(
            "cache र replication lag जाँच्छु।",
            "bash",
            {
                "command": f"{sh} 'const c = db.serverStatus().wiredTiger.cache; "
                'print(c["bytes currently in the cache"] / c["maximum bytes configured"]); '
                "rs.printSecondaryReplicationInfo()'"
            },
            f"0.{rng.randint(41, 69)}\nsource: mongo-db-1.mongo:27017\n{{\n  syncedTo: "
            "'Wed Mar 11 2026 10:41:07 GMT+0000',\n  replLag: '0 secs (0 hrs) behind the "
            "primary '\n}\nsource: mongo-db-2.mongo:27017\n{\n  syncedTo: 'Wed Mar 11 2026 "
            "10:41:07 GMT+0000',\n  replLag: '0 secs (0 hrs) behind the primary '\n}",
        )
        b.assistant(
            "होइन: cache आधा जति मात्र भरिएको छ र सेकेन्डरीहरू ० सेकेन्ड पछाडि छन्। "
            "सुमनको अनुमान मिलेन; समस्या त्यही COLLSCAN हो।"
        )

    # identifier 3: the last good backup snapshot before the incident
    hours = sorted(rng.sample(range(0, 24), rng.randint(5, 7)))
    snaps = [f"2026-03-10T{h:02d}:00:{rng.randint(2, 9):02d}Z" for h in hours]
    good = rng.randrange(1, len(snaps))
    failed = good + 1 if good + 1 < len(snaps) else None
    snap = snaps[good]
    probes.append(
        _identifier("Which PBM backup snapshot is the last good one before the incident?", snap)
    )

    def ident_snap() -> None:
        b.user(
            _pick(
                rng,
                (
                    "घटनाभन्दा अघिको अन्तिम सफल ब्याकअप कुन हो? restore गर्नुपर्ने पनि हुन सक्छ।",
                    "pbm मा कुन snapshot बाट restore गर्न मिल्छ? पछिल्लो राम्रो चाहियो।",
                ),
            )
        )
        rows = []
        for i, s in enumerate(snaps):
            status = "done"
            if failed is not None and i >= failed:
                status = "error: oplog gap detected"
            rows.append(f"  {s} {rng.randint(20, 60)}.{rng.randint(0, 9)}GB <logical> [{status}]")
        b.tool(
            "pbm list.",
            "bash",
            {"command": "kubectl exec -n db mongo-db-0 -c backup-agent -- pbm list"},
            "Backup snapshots:\n" + "\n".join(rows) + "\n\nPITR <off>:",
        )
        b.assistant(
            _pick(
                rng,
                (
                    f"पछिल्लो सफल snapshot {snap} हो। त्यसपछिका error भएका छन्, तिनबाट restore नगर्नू।",
                    f"Restore गर्नुपरे {snap} प्रयोग गरौँ — त्यो पछिल्लो [done] हो।",
                ),
            )
        )

    neutral = ("भयो, नतिजा माथि छ।", "ठिक छ, कमान्ड बिना त्रुटि चल्यो।", "सकियो।")

    def idx_tool(rng: random.Random, b: Builder) -> None:
        b.tool(
            "इन्डेक्स लुकाएर जाँच्छु।",
            "bash",
            {
                "command": f'{sh} \'db.orders.hideIndex("idx_orders_status_created"); '
                'db.orders.getIndexes().filter(i => i.hidden).forEach(i => print(i.name + " '
                "hidden=\" + i.hidden))'"
            },
            "idx_orders_status_created hidden=true",
        )

    def idx_quiet(rng: random.Random, b: Builder) -> None:
        b.tool(
            "चलाउँछु।",
            "bash",
            {"command": f"{sh} 'db.orders.hideIndex(\"idx_orders_status_created\")'"},
            "{ hiddenBefore: false, hiddenAfter: true, ok: 1 }",
        )

    def rename_tool(rng: random.Random, b: Builder) -> None:
        b.tool(
            "नाम फेरेर लग हेर्छु।",
            "bash",
            {
                "command": f"{sh} 'db.sessions_old.renameCollection(\"sessions_archive_2025\")' && "
                "kubectl logs -n db mongo-db-0 -c mongod --since=1m | grep -i rename"
            },
            f'{{"t":{{"$date":"{_ts(rng)[:-1]}+00:00"}},"s":"I","c":"COMMAND","id":20400,'
            f'"ctx":"conn{rng.randint(100, 9999)}","msg":"renameCollection","attr":{{'
            '"sourceNamespace":"shop.sessions_old","targetNamespace":'
            '"shop.sessions_archive_2025","dropTarget":false}}',
        )

    def rename_quiet(rng: random.Random, b: Builder) -> None:
        b.tool(
            "चलाउँछु।",
            "bash",
            {"command": f"{sh} 'db.sessions_old.renameCollection(\"sessions_archive_2025\")'"},
            "{ ok: 1 }",
        )

    def cron_tool(rng: random.Random, b: Builder) -> None:
        b.tool(
            "CronJob suspend गरेर हेर्छु।",
            "bash",
            {
                "command": "kubectl patch cronjob mongo-nightly-compact -n db -p "
                '\'{"spec":{"suspend":true}}\' >/dev/null && kubectl get cronjob '
                "mongo-nightly-compact -n db -o jsonpath='{.metadata.name} suspend={.spec.suspend}'"
            },
            "mongo-nightly-compact suspend=true",
        )

    def cron_quiet(rng: random.Random, b: Builder) -> None:
        b.tool(
            "patch गर्छु।",
            "bash",
            {
                "command": "kubectl patch cronjob mongo-nightly-compact -n db -p "
                '\'{"spec":{"suspend":true}}\''
            },
            "cronjob.batch/mongo-nightly-compact patched",
        )

    fates = [
        Fate(
            "idx_orders_status_created",
            "What happened to the index idx_orders_status_created?",
            "It was hidden (hideIndex), not dropped.",
            ("hidden", "लुकाइ", "लुकाए"),
            idx_tool,
            idx_quiet,
            ("{n} इन्डेक्स लुकाइएको छ (hidden), ड्रप गरिएको छैन — unhideIndex ले फर्काउन सकिन्छ।",),
            ("{n} इन्डेक्स ड्रप नगर है, लुकाउने मात्र (hideIndex)। फेरि बनाउन घण्टौँ लाग्छ।",),
            ("{n} इन्डेक्स चाहिन्छ कि चाहिँदैन, परीक्षण गर्न यसलाई लुकाइदेऊ।",),
        ),
        Fate(
            "sessions_old",
            "What happened to the collection shop.sessions_old?",
            "It was renamed to sessions_archive_2025 (not dropped).",
            ("renam", "sessions_archive_2025", "नाम फेर"),
            rename_tool,
            rename_quiet,
            ("{n} कलेक्सनको नाम फेरेर sessions_archive_2025 बनाइयो, डेटा जस्ताको तस्तै छ।",),
            ("{n} ड्रप नगर, नाम फेरेर sessions_archive_2025 बनाइदेऊ मात्र।",),
            ("{n} कलेक्सनको नाम sessions_archive_2025 बनाइदेऊ, नयाँसँग झुक्किन्छ।",),
        ),
        Fate(
            "mongo-nightly-compact",
            "What happened to the mongo-nightly-compact CronJob?",
            "It was suspended (spec.suspend=true), not deleted.",
            ("suspend", "स्थगित", "रोकिएको"),
            cron_tool,
            cron_quiet,
            ("{n} CronJob स्थगित (suspend) गरिएको छ; मेटिएको छैन।",),
            ("{n} CronJob मेटाउने होइन, suspend मात्र गर।",),
            ("{n} ले राति डिस्क IO बढाइरहेको छ, अहिलेलाई रोकिदेऊ।",),
        ),
    ]
    rng.shuffle(fates)
    scenes: list[Scene] = [ident_order, ident_lsid, ident_snap]
    scenes += [_artifact_scene(rng, b, f, probes, neutral) for f in fates[:2]]

    choice = Choice(
        "Which read preference was decided for the reporting service?",
        ("readpreference", "read preference", "रिड प्रेफरेन्स"),
        ("secondaryPreferred", "nearest", "primaryPreferred"),
        ("अनिता", "बिकास", "प्रकाश", "सुजाता"),
        {
            "dictated": (
                (
                    "रिपोर्टिङ सर्भिसको readPreference {v} राख, किनभने {o} ले प्राइमरीमा धेरै लोड दिन्छ।",
                    "हुन्छ, readPreference={v}।",
                ),
            ),
            "approved": (
                (
                    "रिपोर्टिङको लागि कुन read preference राख्ने?",
                    "मेरो सुझाव readPreference={v}: रिपोर्टहरू केही सेकेन्ड पुरानो डेटा सहन सक्छन्।",
                    "ठिक छ, त्यही गर।",
                    "गरेँ, {v}।",
                ),
            ),
            "changed": (
                (
                    "रिपोर्टिङको लागि कुन read preference राख्ने?",
                    "पूर्वनिर्धारित {o} नै राखौँ?",
                    "होइन, {o} होइन। readPreference {v} राख, रिपोर्ट टिमले त्यही मागेको छ।",
                    "परिवर्तन गरेँ: {v}।",
                ),
            ),
            "corrected": (("रिपोर्टिङ सर्भिसको readPreference {o} हुन्छ।", "ठिक छ, {o}।"),),
            "correction": (
                (
                    "सच्याउँछु: readPreference {o} होइन, {v} हो। मैले गल्ती गरेँ।",
                    "सच्याएँ, readPreference {v}।",
                ),
                ("माफ गर, अघिको गलत थियो — read preference {v} राख, {o} होइन।", "हुन्छ, {v}।"),
            ),
            "relayed": (("{who}ले भनिन्: रिपोर्टिङ सर्भिसको readPreference {v} हुनुपर्छ।", "बुझेँ, {v}।"),),
            "either_or": (
                (
                    "आज रिपोर्टिङ सर्भिसको connection string मिलाउनुपर्छ।",
                    "एउटा प्रश्न: readPreference {o} कि {v}?",
                    "{v} readPreference। {o} मा पहिले समस्या आएको थियो।",
                    "ठिक छ, {v}।",
                ),
            ),
        },
    )
    scenes.append(_decision_scene(rng, choice, probes, late, b))

    chait = rng.randint(1, 15)
    day = rng.randint(10, 28)
    wd = (
        ("सोमबार", "monday"),
        ("मङ्गलबार", "tuesday"),
        ("बुधबार", "wednesday"),
        ("बिहीबार", "thursday"),
        ("शुक्रबार", "friday"),
    )
    wn, we = wd[rng.randrange(5)]
    pending = Pending(
        "Which collection is still to be compacted, and when?",
        "run compact on {x}",
        ("shop.audit_log", "shop.cart_events", "shop.search_history"),
        (
            When("relative", "भोलि बिहान", ("भोलि", "tomorrow"), "tomorrow morning"),
            When("relative", "पर्सि", ("पर्सि", "day after tomorrow"), "the day after tomorrow"),
            When("relative", "अर्को हप्ता", ("अर्को हप्ता", "next week"), "next week"),
            When(
                "date",
                f"चैत {_digits(str(chait), dev)} गते",
                (
                    f"चैत {_digits(str(chait), dev)}",
                    f"चैत {chait}",
                    f"chaitra {chait}",
                    f"chait {chait}",
                    f"march {chait + 13}",
                    f"{chait + 13} march",
                ),
                f"on Chaitra {chait} (Bikram Sambat; {chait + 13} March)",
            ),
            When(
                "date",
                f"मार्च {_digits(str(day), dev)} मा",
                (
                    f"मार्च {_digits(str(day), dev)}",
                    f"मार्च {day}",
                    f"march {day}",
                    f"{day} march",
                    f"{day:02d}.03",
                    f"03-{day:02d}",
                ),
                f"on {day} March",
            ),
            When("weekday", wn, (wn, we), f"on {we.title()}"),
            When(
                "condition",
                "pbm ब्याकअप सकिएपछि",
                ("pbm", "backup", "ब्याकअप"),
                "once the PBM backup has finished",
            ),
            When(
                "deadline",
                "नयाँ वर्ष (वैशाख १) अघि",
                ("नयाँ वर्ष", "new year", "वैशाख"),
                "before the Nepali New Year (Baisakh 1)",
            ),
            When(
                "promise",
                "आज राति मर्मत विन्डोमा",
                ("आज राति", "tonight"),
                "tonight in the maintenance window (the agent's promise)",
            ),
        ),
        (
            ("{x} मा compact चलाउनुपर्छ, तर {t} मात्र — अहिले ट्राफिक धेरै छ।", "बुझेँ, {x} लाई अहिले छुँदिनँ।"),
            ("याद राख: {t} {x} कलेक्सनमा compact चलाउने।", "टिपेँ।"),
        ),
        (
            (
                "{x} ले डिस्क धेरै खाइरहेको छ। compact कसले चलाउने?",
                "म: {t} {x} मा compact चलाउँछु र डिस्क कति खाली भयो भनेर रिपोर्ट गर्छु।",
            ),
        ),
    )
    scenes.append(_next_scene(rng, pending, probes, b))

    def ticket_trap() -> None:
        b.user(
            _pick(
                rng,
                (
                    "DBA-412 (6.0 बाट 7.0 अपग्रेड) बन्द भइसक्यो, तर DBA-419 (इन्डेक्स सफाइ) अझै खुला छ। "
                    "नझुक्किनू।",
                    "Jira मा DBA-412 Done छ, त्यसमा केही गर्नु छैन। हाम्रो खुला टिकट DBA-419 हो।",
                ),
            )
        )
        b.assistant("टिपेँ: DBA-412 बन्द, DBA-419 खुला र हाम्रो जिम्मा।")

    def logs() -> None:
        b.user("mongod को लग पनि हेर त।")
        b.tool(
            "पछिल्ला लाइनहरू।",
            "bash",
            {"command": "kubectl logs -n db mongo-db-0 -c mongod --since=1h | tail -40"},
            _log(rng, rng.randint(28, 40), _mongo_log),
        )
        b.assistant(
            "सामान्य: connection खुल्ने/बन्द हुने, केही Slow query (product IXSCAN, "
            "९०० ms भन्दा कम)। चिन्ताजनक केही छैन।"
        )

    def superseded() -> None:
        b.user("slowms लाई ५०० राखिदेऊ।")
        b.assistant("हुन्छ, slowms=500।")
        b.user("होइन, पर्ख — ५०० ले धेरै कुरा छुटाउँछ। २०० राख, अघिल्लो बिर्सिदेऊ।")
        b.assistant("परिवर्तन गरेँ: slowms अब 200 छ।")

    scenes += [ticket_trap, logs, superseded]

    def intro() -> None:
        b.user(
            _pick(
                rng,
                (
                    "नमस्ते! आज MongoDB replica set (rs0, तीन नोड, 7.0, Kubernetes मा) "
                    "मा काम गर्नुपर्छ। "
                    "हिजो रातिदेखि केही समस्या छन्।",
                    "नमस्कार। आज मेरो on-call हो, shop को MongoDB फेरि दुःख दिँदैछ। एक-एक गरेर हेरौँ।",
                ),
            )
        )
        b.assistant("नमस्ते! db namespace मा पहुँच छ र mongosh प्राइमरीमा जोडिएको छ। सुरु गरौँ।")

    def outro() -> None:
        b.user("अहिलेलाई यति नै। बाँकी पछि।")
        b.assistant("हुन्छ, आजको काम टिपिएको छ।")

    opening = _opening(rng, b, intro, scenes, late, outro)

    def f_rs() -> None:
        b.user(_pick(rng, ("replica set ठिक छ?", "rs.status हेर त।")))
        b.tool(
            "rs.status.",
            "bash",
            {"command": f"{sh} 'rs.status().members.map(m => m.name + \" \" + m.stateStr)'"},
            "[\n  'mongo-db-0.mongo:27017 PRIMARY',\n  'mongo-db-1.mongo:27017 SECONDARY',\n"
            "  'mongo-db-2.mongo:27017 SECONDARY'\n]",
        )
        b.assistant("एउटा PRIMARY, दुई SECONDARY — सबै ठिक।")

    def f_disk() -> None:
        b.user("डिस्क कति भरियो?")
        b.tool(
            "df.",
            "bash",
            {"command": "kubectl exec -n db mongo-db-0 -c mongod -- df -h /data/db"},
            "Filesystem      Size  Used Avail Use% Mounted on\n"
            f"/dev/nvme2n1    500G  {rng.randint(180, 320)}G  {rng.randint(180, 320)}G  "
            f"{rng.randint(38, 64)}% /data/db",
        )
        b.assistant("आधाजति मात्र भरिएको छ, चिन्ता छैन।")

    def f_logs() -> None:
        b.user(_pick(rng, ("लगमा नयाँ केही?", "mongo-db-1 को लग हेर।")))
        b.tool(
            "लग।",
            "bash",
            {"command": "kubectl logs -n db mongo-db-1 -c mongod --since=30m | tail -25"},
            _log(rng, rng.randint(15, 25), _mongo_log),
        )
        b.assistant("खास केही छैन।")

    def f_conns() -> None:
        b.user("अहिले कति connection छन्?")
        b.tool(
            "serverStatus.",
            "bash",
            {"command": f"{sh} 'db.serverStatus().connections'"},
            f"{{ current: {rng.randint(80, 400)}, available: {rng.randint(50000, 51000)}, "
            f"totalCreated: {rng.randint(10000, 90000)}, active: {rng.randint(5, 60)} }}",
        )
        b.assistant("सामान्य संख्या।")

    def f_oplog() -> None:
        b.user("oplog window कति घण्टाको छ?")
        b.tool(
            "oplog.",
            "bash",
            {"command": f"{sh} 'rs.printReplicationInfo()'"},
            f"actual oplog size\n'{rng.randint(20, 50)}000 MB'\n---\n"
            f"log length start to end\n'{rng.randint(30, 90)} hrs'",
        )
        b.assistant("oplog window पर्याप्त छ।")

    filler = _segments(rng, b, segments, (f_rs, f_disk, f_logs, f_conns, f_oplog))
    return opening, filler, probes


_TEMPLATES: dict[str, Template] = {
    "strimzi_kafka_estonian": _kafka,
    "vault_persian": _vault,
    "keycloak_bengali": _keycloak,
    "clickhouse_kazakh": _clickhouse,
    "rabbitmq_amharic": _rabbitmq,
    "mongodb_nepali": _mongodb,
}
HELDOUT19_KINDS: tuple[str, ...] = tuple(_TEMPLATES)


def generate_heldout19(kind: str, seed: int, *, segments: int = 10) -> Session:
    """A session of the nineteenth held-out set (see the module docstring); the same
    ``kind`` and ``seed`` always give the same session."""
    return build_session(
        _TEMPLATES, kind, seed, segments, seed_prefix="heldout19:", label="heldout19"
    )
