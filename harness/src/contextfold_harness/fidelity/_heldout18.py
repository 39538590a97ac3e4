# ruff: noqa: E501
"""The eighteenth held-out session set, written blind (to the compaction code and to
every other set): six long ops sessions, each on one stack and in one language that
both the user and the agent speak; tool output stays in the tool's own English/ASCII.

Every session opens with seven probes, planted in an order the seed shuffles, among
decoys, traps and long tool outputs, then ``segments`` filler segments of later,
unrelated work on the same system that never repeat a probe's value:

* three ``identifier`` probes of three different id types, each shown in a listing
  beside several same-shaped decoys (the needle is the exact id string);
* two ``artifact`` probes: a named thing and what happened to it, told by the tool's
  output only, by the agent's words only, or by both (the seed picks); the user asks
  for it either plainly or with a negation trap ("don't delete X, only disable it");
* one ``decision`` probe, in one of six forms the seed picks: dictated with a reason,
  proposed by the agent and approved, proposed and changed by the user, dictated then
  corrected later in the opening (the first value is superseded), relayed from a named
  colleague, or the user's answer to the agent's either/or question;
* one ``next_step`` probe: pending work said in passing with a weekday, a deadline
  weekday, or the agent's promise to act once a condition is met.

Other traps: a colleague's wrong hunch about the cause, and a closed ticket beside an
open one.

Kinds:

``openstack_cloud``
    OpenStack (openstack CLI, nova / neutron / cinder / glance, Horizon), in Irish.
    Ids: a nova instance UUID, a request id (``req-<uuid>``) from nova-compute.log, a
    neutron port MAC (``fa:16:3e:..``). Artifacts: a nova-compute service disabled
    (not deleted), a cinder volume migrated to the ceph-ssd backend, a glance image
    deactivated (not deleted). Decision: the flavor for the new database servers, or
    the availability zone for the new cluster. Next step: fernet key rotation, old
    snapshot clean-up or a quota raise.
``postfix_mail``
    Postfix + Dovecot + rspamd (postqueue, doveadm, journalctl, dig), in Sinhala.
    Ids: a Postfix queue id, a Dovecot session id, a TLS certificate serial. Artifacts:
    a mailbox disabled (active=0, not deleted), an rspamd multimap rule rolled back, a
    domain's transport migrated to the new relay. Decision: the DMARC policy, or the
    message size limit. Next step: DKIM rotation, MTA-STS, or the Dovecot upgrade.
``cockroach_ledger``
    CockroachDB (cockroach sql, node status, SHOW JOBS, backups to S3), in Mongolian.
    Ids: a job id, a contending transaction id (UUID), a backup subdirectory
    (``2026/12/05-221500.00``). Artifacts: a backup schedule paused (not dropped), an
    index made NOT VISIBLE (not dropped), a node decommissioned. Decision: the
    gc.ttlseconds of the ledger table, or the backup region. Next step: a version
    upgrade finalization, a changefeed sink credential rotation, or a restore drill.
``magento_shop``
    Magento 2 / Adobe Commerce (bin/magento, MySQL, OpenSearch, cron, composer), in
    Yoruba. Ids: an order increment id, a payment intent id (``pi_...``), an
    OpenSearch index name. Artifacts: a module disabled (not removed), an admin user
    made inactive (not deleted), a composer package downgraded (rolled back).
    Decision: the indexer mode, or the OpenSearch heap size. Next step: a Magento
    patch, a full reindex, or a Redis cache flush window.
``istio_mesh``
    Istio on Kubernetes (istioctl, kubectl, Envoy config dumps, Kiali), in Punjabi.
    Ids: an Envoy ``x-request-id`` (UUID), a pod name, a sidecar image digest.
    Artifacts: a PeerAuthentication switched to PERMISSIVE (not deleted), sidecar
    injection disabled on a namespace, a deployment scaled to zero (not deleted).
    Decision: the outlier-detection ejection time, or the canary weight. Next step:
    the Istio upgrade, root CA rotation, or moving a namespace to ambient mode.
``freeipa_realm``
    FreeIPA (ipa CLI, kinit / klist, certmonger, sssd logs), in Khmer. Ids: a
    certificate serial number, a certmonger request id, an ipaUniqueID (UUID).
    Artifacts: a user disabled (not deleted), a sudo rule disabled, a host keytab
    rotated. Decision: the password policy max lifetime, or the replica to promote as
    CA renewal master. Next step: a CA certificate renewal, a replica upgrade, or an
    sssd cache purge.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from contextfold.messages import Message
from contextfold_harness.fidelity._build import (
    Builder,
    Parts,
    Probe,
    Session,
    Template,
    build_session,
    hexits,
    history_text,
    token,
)

__all__ = ["HELDOUT18_KINDS", "generate_heldout18"]

_EN_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_Make = Callable[[random.Random], str]


@dataclass(frozen=True)
class _Id:
    what: str  # English, for the question
    make: _Make
    ask: str  # the user's words (the kind's language)
    command: str
    listing: Callable[[random.Random, str, list[str]], str]  # (rng, needle, decoys)
    say: str  # the agent's words, {id} and {decoy}


@dataclass(frozen=True)
class _Art:
    make: _Make
    command: str  # {name}
    loud: Callable[[random.Random, str], str]  # output telling what happened
    quiet: Callable[[random.Random, str], str]  # output that does not
    words: tuple[str, ...]  # needle alternatives for what happened
    ask: str  # plain request, {name}
    trap: str  # negated request, {name}
    say: str  # the agent tells what happened, {name}
    question: str
    answer: str


@dataclass(frozen=True)
class _Topic:
    phrase: str  # in the language, holding one of ``words``
    words: tuple[str, ...]
    values: tuple[str, ...]
    reasons: tuple[str, ...]
    question: str


@dataclass(frozen=True)
class _Task:
    phrase: str  # in the language, holding one of ``words``
    words: tuple[str, ...]
    english: str


@dataclass(frozen=True)
class _Filler:
    asks: tuple[str, ...]
    command: _Make
    output: _Make
    replies: tuple[str, ...]  # may hold {n}


@dataclass(frozen=True)
class _Kind:
    lang: dict[str, str]
    look: tuple[str, ...]
    ack: tuple[str, ...]
    done: tuple[str, ...]
    days: tuple[str, ...]
    people: tuple[str, ...]
    intro: tuple[str, ...]
    intro_command: str
    intro_output: _Make
    ids: tuple[_Id, _Id, _Id]
    arts: tuple[_Art, ...]
    topics: tuple[_Topic, ...]
    tasks: tuple[_Task, ...]
    conds: tuple[_Task, ...]
    hunches: tuple[str, ...]  # {who}
    ticket: _Make
    fillers: tuple[_Filler, ...]


# -- shared helpers ---------------------------------------------------------------


def _uuid(rng: random.Random) -> str:
    return f"{hexits(rng, 8)}-{hexits(rng, 4)}-4{hexits(rng, 3)}-{rng.choice('89ab')}{hexits(rng, 3)}-{hexits(rng, 12)}"


def _distinct(rng: random.Random, make: _Make, n: int, avoid: str) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        v = make(rng)
        if v not in out and (not avoid or (avoid not in v and v not in avoid)):
            out.append(v)
    return out


def _ts(rng: random.Random, day: int | None = None) -> str:
    d = day if day is not None else rng.randint(1, 6)
    return f"2026-12-{d:02d} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"


def _ip(rng: random.Random, prefix: str = "10.20") -> str:
    return f"{prefix}.{rng.randint(1, 254)}.{rng.randint(2, 254)}"


def _lines(rng: random.Random, n: int, make: _Make) -> str:
    return "\n".join(make(rng) for _ in range(n))


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    sep = "+" + "+".join("-" * (w + 2) for w in widths) + "+"

    def line(r: list[str]) -> str:
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) + " |"

    return "\n".join([sep, line(header), sep, *(line(r) for r in rows), sep])


def _cols(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    return "\n".join(
        "   ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
        for r in [header, *rows]
    )


# -- the engine -------------------------------------------------------------------


def _plant_id(k: _Kind, idt: _Id, rng: random.Random, b: Builder, probes: list[Probe]) -> None:
    needle = idt.make(rng)
    decoys = _distinct(rng, idt.make, rng.randint(4, 6), needle)
    b.user(idt.ask)
    b.tool(rng.choice(k.look), "bash", {"command": idt.command}, idt.listing(rng, needle, decoys))
    b.assistant(idt.say.format(id=needle, decoy=decoys[0]))
    probes.append(
        Probe("identifier", f"What is the {idt.what}?", f"{needle} (not {decoys[0]})", ((needle,),))
    )


def _plant_art(
    k: _Kind, art: _Art, form: str, rng: random.Random, b: Builder, probes: list[Probe]
) -> None:
    name = art.make(rng)
    b.user((art.trap if rng.random() < 0.5 else art.ask).format(name=name))
    output = art.loud(rng, name) if form in ("tool", "both") else art.quiet(rng, name)
    b.tool(rng.choice(k.look), "bash", {"command": art.command.format(name=name)}, output)
    b.assistant(art.say.format(name=name) if form in ("agent", "both") else rng.choice(k.done))
    probes.append(
        Probe(
            "artifact",
            art.question.format(name=name),
            art.answer.format(name=name),
            ((name,), art.words),
        )
    )


def _template(k: _Kind) -> Template:
    def write(rng: random.Random, b: Builder, segments: int) -> Parts:
        probes: list[Probe] = []
        L = k.lang
        people = rng.sample(k.people, 3)
        b.user(rng.choice(k.intro))
        b.tool(rng.choice(k.look), "bash", {"command": k.intro_command}, k.intro_output(rng))
        b.assistant(rng.choice(k.ack))

        steps: list[Callable[[], None]] = [
            partial(_plant_id, k, idt, rng, b, probes) for idt in k.ids
        ]
        for art in rng.sample(k.arts, 2):
            form = rng.choice(("tool", "agent", "both"))
            steps.append(partial(_plant_art, k, art, form, rng, b, probes))

        # the decision
        topic = rng.choice(k.topics)
        value, old = rng.sample(topic.values, 2)
        reason = rng.choice(topic.reasons)
        dform = rng.choice(("dictate", "approve", "change", "correct", "colleague", "answer"))
        ph = topic.phrase
        later: Callable[[], None] | None = None

        def confirm() -> None:
            b.assistant(L["dec_confirm"].format(topic=ph, value=value))

        def decide() -> None:
            if dform == "dictate":
                b.user(L["dec_dictate"].format(topic=ph, value=value, reason=reason))
                confirm()
            elif dform == "approve":
                b.user(L["promise_ask"])
                b.assistant(L["dec_propose"].format(topic=ph, value=value, reason=reason))
                b.user(L["dec_yes"])
                confirm()
            elif dform == "change":
                b.user(L["promise_ask"])
                b.assistant(L["dec_propose_old"].format(topic=ph, old=old))
                b.user(L["dec_change"].format(old=old, value=value, reason=reason))
                confirm()
            elif dform == "correct":
                b.user(L["dec_old"].format(topic=ph, old=old))
                b.assistant(rng.choice(k.ack))
            elif dform == "colleague":
                b.user(
                    L["dec_colleague"].format(topic=ph, value=value, reason=reason, who=people[0])
                )
                confirm()
            else:
                b.user(L["promise_ask"])
                a, c = (value, old) if rng.random() < 0.5 else (old, value)
                b.assistant(L["dec_ask"].format(topic=ph, a=a, b=c))
                b.user(L["dec_answer"].format(value=value, reason=reason))
                confirm()

        if dform == "correct":

            def correct() -> None:
                b.user(L["dec_correct"].format(topic=ph, old=old, value=value, reason=reason))
                confirm()

            later = correct
        steps.append(decide)
        notes = {
            "dictate": "dictated by the user",
            "approve": "proposed by the agent, approved by the user",
            "change": f"the agent proposed {old}, the user changed it",
            "correct": f"first {old}, corrected later",
            "colleague": "relayed from a colleague",
            "answer": f"the user's answer to the agent's question ({value} or {old})",
        }
        probes.append(
            Probe(
                "decision",
                topic.question,
                f"{value} ({notes[dform]}; reason: {reason})",
                ((value,), topic.words),
            )
        )

        # the next step
        task = rng.choice(k.tasks)
        cond = rng.choice(k.conds)
        day = rng.randrange(7)
        nform = rng.choice(("passing", "deadline", "promise"))

        def next_step() -> None:
            if nform == "promise":
                b.user(L["promise_ask"])
                b.assistant(L["next_promise"].format(cond=cond.phrase, task=task.phrase))
                b.user(L["thanks"])
                b.assistant(L["promise_ack"])
            else:
                key = "next_passing" if nform == "passing" else "next_deadline"
                b.user(L[key].format(day=k.days[day], task=task.phrase))
                b.assistant(L["next_ack"])

        steps.append(next_step)
        if nform == "promise":
            answer = f"{task.english}, once {cond.english} (the agent's promise)"
            needles: tuple[tuple[str, ...], ...] = (task.words, cond.words)
        else:
            when = "on" if nform == "passing" else "before"
            answer = f"{task.english}, {when} {_EN_DAYS[day]}"
            needles = (task.words, (k.days[day], _EN_DAYS[day]))
        probes.append(Probe("next_step", "What work is still pending, and when?", answer, needles))

        # traps: a wrong hunch, a closed ticket beside an open one
        def hunch() -> None:
            b.user(rng.choice(k.hunches).format(who=people[1]))
            b.assistant(L["hunch_reply"])

        def tickets() -> None:
            closed, open_ = _distinct(rng, k.ticket, 2, "")
            rows = [[closed, "Closed", "Done"], [open_, "Open", "In Progress"]]
            rows += [[t, "Closed", "Won't Do"] for t in _distinct(rng, k.ticket, 2, closed)]
            rng.shuffle(rows)
            b.user(L["tickets"].format(closed=closed, open=open_))
            b.tool(
                rng.choice(k.look),
                "bash",
                {"command": "jira issue list -q 'project = OPS AND updated >= -14d' --plain"},
                _cols(["KEY", "STATUS", "RESOLUTION"], rows),
            )
            b.assistant(rng.choice(k.ack))

        steps += [hunch, tickets]
        rng.shuffle(steps)
        if later is not None:
            at = steps.index(decide)
            steps.insert(rng.randint(at + 1, len(steps)), later)
        for step in steps:
            step()
        opening = b.take()

        forbidden = [p.needles[0][0] for p in probes if p.kind in ("identifier", "artifact")]
        filler: list[list[Message]] = []
        for _ in range(segments):
            for _attempt in range(50):
                for _ in range(rng.randint(2, 3)):
                    f = rng.choice(k.fillers)
                    b.user(rng.choice(f.asks))
                    b.tool(rng.choice(k.look), "bash", {"command": f.command(rng)}, f.output(rng))
                    b.assistant(rng.choice(f.replies).format(n=rng.randint(2, 97)))
                taken = b.take()
                text = history_text(taken)
                if not any(v in text for v in forbidden):
                    break
            filler.append(taken)
        return opening, filler, probes

    return write


# -- openstack_cloud (Irish) ------------------------------------------------------

_GA = {
    "dec_dictate": "Maidir le {topic}: beimid ag dul le {value}, mar {reason}.",
    "dec_propose": "Maidir le {topic}, mholfainn {value}, mar {reason}. An bhfuil tú sásta leis sin?",
    "dec_yes": "Tá, ar aghaidh leat leis sin.",
    "dec_propose_old": "Maidir le {topic}, mholfainn {old}. Céard a cheapann tú?",
    "dec_change": "Ní hea, ní {old} é. Úsáid {value} ina áit, mar {reason}.",
    "dec_old": "Maidir le {topic}, cuir {old} síos faoi láthair.",
    "dec_correct": "Ceartúchán faoi {topic}: ní {old} a bheidh ann ach {value}, mar {reason}.",
    "dec_colleague": "Maidir le {topic}, is é {value} a mholann {who}, mar {reason}. Déanaimis mar sin.",
    "dec_ask": "Ceist agam faoi {topic} — cé acu is fearr leat?\n- {a}\n- {b}",
    "dec_answer": "{value}, gan amhras — {reason}.",
    "dec_confirm": "Ceart go leor, socraithe: {topic} — {value}. Cuirfidh mé i bhfeidhm é.",
    "next_passing": "Dála an scéil, tá orainn {task} {day}.",
    "next_deadline": "Rud eile: caithfear {task} roimh {day} ar a dhéanaí.",
    "next_promise": "Geallaim duit: {cond}, déanfaidh mé an obair seo láithreach — {task}.",
    "promise_ask": "An bhfuil aon rud eile fágtha againn?",
    "thanks": "Go hiontach, go raibh maith agat.",
    "promise_ack": "Fáilte romhat; ní dhéanfaidh mé dearmad air.",
    "next_ack": "Nótáilte; chuir mé ar an liosta oibre é.",
    "tickets": "Tá an ticéad {closed} dúnta cheana — ná bac leis. Tá {open} fós oscailte, áfach.",
    "hunch_reply": "Ní dóigh liom é — níl rian ar bith de sin sna logaí.",
}


def _os_servers(rng: random.Random, needle: str, decoys: list[str]) -> str:
    names = [
        "db-primary",
        "db-replica-1",
        "db-replica-2",
        "pgbouncer-1",
        "etl-worker",
        "backup-agent",
        "metrics-db",
    ]
    rng.shuffle(names)
    rows = [
        [needle, names[0], "ERROR", f"prod-db-net={_ip(rng, '10.42')}", "ubuntu-24.04", "m1.large"]
    ]
    for d, n in zip(decoys, names[1:], strict=False):
        rows.append(
            [
                d,
                n,
                rng.choice(["ACTIVE", "ACTIVE", "SHUTOFF"]),
                f"prod-db-net={_ip(rng, '10.42')}",
                "ubuntu-24.04",
                rng.choice(["m1.large", "m1.medium"]),
            ]
        )
    rng.shuffle(rows)
    return _table(["ID", "Name", "Status", "Networks", "Image", "Flavor"], rows)


def _os_reqlog(rng: random.Random, needle: str, decoys: list[str]) -> str:
    out = []
    for d in decoys[:3]:
        out.append(
            f"{_ts(rng, 7)}.{rng.randint(100, 999)} 2291 INFO nova.compute.manager [{d} 7c1e admin - - default default] [instance: {_uuid(rng)}] Took {rng.randint(2, 9)}.{rng.randint(10, 99)} seconds to build instance."
        )
    out.append(
        f"{_ts(rng, 7)}.{rng.randint(100, 999)} 2291 ERROR nova.compute.manager [{needle} 7c1e admin - - default default] [instance: {_uuid(rng)}] Instance failed to spawn: nova.exception.PortBindingFailed: Binding failed for port, please check neutron logs for more information."
    )
    out += [
        f'{_ts(rng, 7)}.{rng.randint(100, 999)} 2291 ERROR nova.compute.manager   File "/usr/lib/python3/dist-packages/nova/network/neutron.py", line {rng.randint(300, 3000)}, in _update_port_binding'
        for _ in range(4)
    ]
    for d in decoys[3:]:
        out.append(
            f"{_ts(rng, 7)}.{rng.randint(100, 999)} 2291 WARNING nova.compute.manager [{d} 7c1e admin - - default default] While synchronizing instance power states, found 14 instances in the database and 13 instances on the hypervisor."
        )
    return "\n".join(out)


def _mac(rng: random.Random) -> str:
    return "fa:16:3e:" + ":".join(hexits(rng, 2) for _ in range(3))


def _os_ports(rng: random.Random, needle: str, decoys: list[str]) -> str:
    rows = [
        [
            _uuid(rng),
            "",
            needle,
            f"ip_address='{_ip(rng, '10.42')}', subnet_id='{_uuid(rng)}'",
            "DOWN",
        ]
    ]
    for d in decoys:
        rows.append(
            [
                _uuid(rng),
                "",
                d,
                f"ip_address='{_ip(rng, rng.choice(['10.42', '172.16']))}', subnet_id='{_uuid(rng)}'",
                "ACTIVE",
            ]
        )
    rng.shuffle(rows)
    return _table(["ID", "Name", "MAC Address", "Fixed IP Addresses", "Status"], rows)


def _os_services(rng: random.Random, name: str, state: str) -> str:
    rows = []
    for i in range(rng.randint(4, 6)):
        rows.append(
            [
                str(rng.randint(10, 99)),
                "nova-compute",
                f"cmp-r{rng.randint(1, 9)}-{i:02d}",
                "nova",
                "enabled",
                "up",
                f"2026-12-07T{rng.randint(10, 23)}:{rng.randint(10, 59)}:00.000000",
            ]
        )
    rows.append(
        [
            str(rng.randint(100, 199)),
            "nova-compute",
            name,
            "nova",
            state,
            "down",
            "2026-12-07T09:14:51.000000",
        ]
    )
    rng.shuffle(rows)
    return _table(["ID", "Binary", "Host", "Zone", "Status", "State", "Updated At"], rows)


def _os_quiet(rng: random.Random, name: str) -> str:
    return f"+ {rng.choice(['source ~/admin-openrc.sh', 'export OS_CLOUD=prod'])}\n[exit 0 after {rng.randint(1, 4)}.{rng.randint(10, 99)}s]"


def _os_volume_loud(rng: random.Random, name: str) -> str:
    vid = _uuid(rng)
    req = f"req-{_uuid(rng)}"
    hour, minute = rng.randint(8, 16), rng.randint(0, 40)

    def at(second: int) -> str:
        return f"2026-12-07 {hour:02d}:{minute + second // 60:02d}:{second % 60:02d}.{rng.randint(100, 999)} 3310 INFO"

    lines = [
        f"{at(0)} cinder.volume.manager [{req} - - - - -] Migrate volume started: volume {vid}, host cinder@lvm-hdd#lvm-hdd."
    ]
    lines += [
        f"{at(8 * i)} cinder.volume.drivers.rbd [{req} - - - - -] copy_volume_data: {i * 20}% done"
        for i in range(1, 6)
    ]
    lines.append(
        f"{at(47)} cinder.volume.manager [{req} - - - - -] Volume {name} ({vid}) migrated successfully to host cinder@ceph-ssd#ceph-ssd."
    )
    return "\n".join(lines)


def _os_image_loud(rng: random.Random, name: str) -> str:
    rows = [
        [
            _uuid(rng),
            f"ubuntu-{rng.choice(['22.04', '24.04'])}-{hexits(rng, 4)}",
            "qcow2",
            "bare",
            str(rng.randint(600, 900) * 1048576),
            "active",
        ]
        for _ in range(3)
    ]
    rows.append(
        [_uuid(rng), name, "qcow2", "bare", str(rng.randint(900, 2000) * 1048576), "deactivated"]
    )
    rng.shuffle(rows)
    return _table(["ID", "Name", "Disk Format", "Container Format", "Size", "Status"], rows)


def _os_hypervisors(rng: random.Random) -> str:
    rows = [
        [
            str(i),
            f"cmp-r{rng.randint(1, 9)}-{i:02d}.cloud.internal",
            "QEMU",
            _ip(rng, "10.0"),
            "up",
            str(rng.randint(20, 90)),
            str(rng.randint(60, 240)),
        ]
        for i in range(1, rng.randint(8, 12))
    ]
    return _table(
        [
            "ID",
            "Hypervisor Hostname",
            "Hypervisor Type",
            "Host IP",
            "State",
            "vCPUs Used",
            "Memory MB Free (GiB)",
        ],
        rows,
    )


def _os_neutron_agents(rng: random.Random) -> str:
    kinds = ["Open vSwitch agent", "DHCP agent", "L3 agent", "Metadata agent"]
    rows = [
        [
            _uuid(rng),
            k,
            f"net-{rng.randint(1, 3)}",
            rng.choice([":-)", ":-)", ":-)", "XXX"]),
            "UP",
            f"neutron-{k.split()[0].lower()}-agent",
        ]
        for k in kinds
        for _ in range(2)
    ]
    return _table(["ID", "Agent Type", "Host", "Alive", "State", "Binary"], rows)


def _os_usage(rng: random.Random) -> str:
    head = "Usage from 2026-11-07 to 2026-12-07 on project 3f0c...:"
    rows = [
        [
            p,
            str(rng.randint(3, 60)),
            f"{rng.randint(1000, 90000)}.{rng.randint(10, 99)}",
            f"{rng.randint(100, 9000)}.{rng.randint(10, 99)}",
            f"{rng.randint(10, 900)}.{rng.randint(10, 99)}",
        ]
        for p in ("analytics", "web-frontend", "ci-runners", "data-lake", "sandbox")
    ]
    return (
        head
        + "\n"
        + _table(["Project", "Servers", "RAM MB-Hours", "CPU Hours", "Disk GB-Hours"], rows)
    )


_OPENSTACK = _Kind(
    lang=_GA,
    look=(
        "Fan nóiméad, féachfaidh mé air sin.",
        "Seiceálfaidh mé é sin anois.",
        "Rithfidh mé an t-ordú le go bhfeicfimid.",
    ),
    ack=("Ceart go leor, tá sé agam.", "Go maith, nótáilte.", "Tuigim — leanfaidh mé ar aghaidh."),
    done=(
        "Sin déanta. Ar aghaidh chuig an gcéad rud eile.",
        "Rith an t-ordú gan earráid; bogaimis ar aghaidh.",
    ),
    days=(
        "Dé Luain",
        "Dé Máirt",
        "Dé Céadaoin",
        "Déardaoin",
        "Dé hAoine",
        "Dé Sathairn",
        "Dé Domhnaigh",
    ),
    people=("Aoife", "Ciarán", "Síle", "Donncha", "Niamh", "Pádraig", "Caoimhe", "Tadhg"),
    intro=(
        "Dia duit. Tá fadhbanna againn leis an scamall OpenStack táirgthe ó mhaidin: ní thagann ionstáis nua aníos sa tionscadal prod-db, agus tá gearáin ó lucht Horizon freisin. Tabharfaimid faoi le chéile.",
        "Maidin mhaith. Caithfimid an timpeallacht OpenStack a shocrú inniu — teipeann ar nova ionstáis a thógáil i prod-db, agus tá cúpla rud le glanadh i cinder agus glance.",
    ),
    intro_command="openstack hypervisor list --long",
    intro_output=_os_hypervisors,
    ids=(
        _Id(
            "nova instance UUID of the server stuck in ERROR in prod-db",
            _uuid,
            "Taispeáin dom na freastalaithe sa tionscadal prod-db, le do thoil. Tá ceann acu i stádas ERROR.",
            "openstack server list --project prod-db --long",
            _os_servers,
            "Is é {id} an t-ionstás atá i stádas ERROR. Ná measc é le {decoy} — tá an ceann sin ag obair go breá.",
        ),
        _Id(
            "request id of the failed spawn in nova-compute.log",
            lambda r: f"req-{_uuid(r)}",
            "Cuardaigh an request ID don teip sna logaí nova-compute.",
            "ssh cmp-r3-07 'grep -E \"ERROR|WARNING\" /var/log/nova/nova-compute.log | tail -n 40'",
            _os_reqlog,
            "An request ID a bhaineann leis an teip (PortBindingFailed): {id}. Níl baint ag na línte eile, mar shampla {decoy}, leis an scéal.",
        ),
        _Id(
            "MAC address of the neutron port that is DOWN",
            _mac,
            "Anois na poirt neutron ar an líonra prod-db-net — cé acu atá DOWN?",
            "openstack port list --network prod-db-net --long",
            _os_ports,
            "Seo an port lochtach: an seoladh MAC {id}, atá DOWN. Ní hé {decoy} é — tá sé sin ACTIVE ar an líonra bainistíochta.",
        ),
    ),
    arts=(
        _Art(
            lambda r: f"cmp-r{r.randint(1, 9)}-{token(r, 4).lower()}",
            "openstack compute service set --disable --disable-reason 'hw fault' {name} nova-compute",
            lambda r, n: _os_services(r, n, "disabled"),
            _os_quiet,
            ("disabled", "díchumasa"),
            "Tá fadhb crua-earraí ar an óstach {name}. Bain as an sceidealú é, le do thoil.",
            "Ná scrios an tseirbhís nova-compute ar {name} — díchumasaigh í amháin, beidh sí ar ais tar éis an deisithe.",
            "Tá nova-compute ar {name} díchumasaithe anois; níor scriosadh é, agus tá sé fós sa liosta seirbhísí.",
            "What was done to the nova-compute service on {name}?",
            "It was disabled (not deleted); the host has a hardware fault.",
        ),
        _Art(
            lambda r: (
                f"vol-{r.choice(['ledger', 'archive', 'pgdata', 'wal'])}-{token(r, 4).lower()}"
            ),
            "cinder migrate --force-host-copy True {name} cinder@ceph-ssd#ceph-ssd && sleep 60 && journalctl -u cinder-volume --since -5min",
            _os_volume_loud,
            _os_quiet,
            ("migrated", "aistr"),
            "Bog an t-imleabhar {name} ón gcúlchóras lvm-hdd, le do thoil.",
            "Ná déan snapshot agus ná scrios {name} — níl uainn ach é a aistriú go ceph-ssd.",
            "Aistríodh an t-imleabhar {name} go dtí an cúlchóras ceph-ssd; d'éirigh leis an aistriú.",
            "What happened to the volume {name}?",
            "It was migrated from lvm-hdd to the ceph-ssd backend.",
        ),
        _Art(
            lambda r: (
                f"img-{r.choice(['centos7', 'win2016', 'rhel8', 'debian10'])}-{token(r, 4).lower()}"
            ),
            "openstack image set --deactivate {name} && openstack image list --long",
            _os_image_loud,
            _os_quiet,
            ("deactivated", "díghníomhachta"),
            "Tá an íomhá {name} as dáta. Déan rud éigin faoi, le do thoil.",
            "Ná scrios an íomhá {name} — díghníomhachtaigh í; tá sí fós ag teastáil don fhoireann fiosrúcháin.",
            "Tá an íomhá {name} díghníomhachtaithe anois; níor scriosadh í, agus is féidir í a athghníomhachtú más gá.",
            "What happened to the glance image {name}?",
            "It was deactivated (not deleted).",
        ),
    ),
    topics=(
        _Topic(
            "flavor na bhfreastalaithe nua bunachair sonraí",
            ("flavor",),
            ("db.r6.xlarge", "m2.highmem-16", "c3.mem64", "db.large-nvme", "r5.db-32"),
            (
                "tá RAM níos mó ag teastáil ó PostgreSQL",
                "tá diosca NVMe áitiúil leis",
                "tá an cuóta ann dó cheana",
            ),
            "Which flavor was chosen for the new database servers?",
        ),
        _Topic(
            "crios infhaighteachta (availability zone) an chnuasaigh nua",
            ("availability zone", "crios"),
            ("az-dub-1a", "az-dub-1b", "az-cork-2", "az-gal-3", "nova-rack7"),
            (
                "tá cumhacht dúbailte sa seomra sin",
                "tá na hóstaigh is nua ansin",
                "níl an crios eile lán go fóill",
            ),
            "Which availability zone was chosen for the new cluster?",
        ),
    ),
    tasks=(
        _Task("eochracha fernet Keystone a rothlú", ("fernet",), "rotate the Keystone fernet keys"),
        _Task(
            "na sean-snapshotanna Cinder a ghlanadh",
            ("snapshot",),
            "clean up the old Cinder snapshots",
        ),
        _Task(
            "an cuóta vCPU (quota) don tionscadal analytics a ardú",
            ("quota", "cuóta"),
            "raise the vCPU quota of the analytics project",
        ),
    ),
    conds=(
        _Task(
            "nuair a bheidh an live-migration ó cmp-r2 críochnaithe",
            ("live-migration",),
            "the live migration off cmp-r2 has finished",
        ),
        _Task(
            "chomh luath agus a bheidh cnuasach RabbitMQ sláintiúil arís",
            ("RabbitMQ",),
            "the RabbitMQ cluster is healthy again",
        ),
    ),
    hunches=(
        "Ceapann {who} gurb é an DNS inmheánach is cúis leis na teipeanna, ach ní chreidim é.",
        "Deir {who} gur fadhb le Horizon atá ann agus nach bhfuil aon locht ar nova. Cad a cheapann tú?",
    ),
    ticket=lambda r: f"OPS-{r.randint(1000, 9999)}",
    fillers=(
        _Filler(
            (
                "Cén chaoi a bhfuil na hóstaigh ríomhaireachta anois?",
                "Taispeáin dom úsáid na hipearfhéitheoirí arís.",
            ),
            lambda r: "openstack hypervisor list --long",
            _os_hypervisors,
            (
                "Tá gach hipearfhéitheoir suas; tá {n} vCPU saor ar an gceann is lú úsáide.",
                "Tá cuma shláintiúil ar na hóstaigh; níl aon cheann síos.",
            ),
        ),
        _Filler(
            ("Seiceáil na gníomhairí neutron, le do thoil.", "An bhfuil na gníomhairí líonra beo?"),
            lambda r: "openstack network agent list",
            _os_neutron_agents,
            (
                "Tá formhór na ngníomhairí beo; atosóidh mé an ceann marbh má leanann sé ar aghaidh mar sin.",
                "Tá na gníomhairí L3 agus DHCP ceart go leor; {n} nóiméad ó tháinig an tuairisc dheireanach.",
            ),
        ),
        _Filler(
            (
                "Cé mhéad a d'úsáid na tionscadail an mhí seo?",
                "Tarraing amach an úsáid mhíosúil don tuarascáil.",
            ),
            lambda r: "openstack usage list --start 2026-11-07 --end 2026-12-07",
            _os_usage,
            (
                "Seo an úsáid; is é analytics an tionscadal is mó, le {n}% den CPU.",
                "Tá an tuarascáil réidh; cuirfidh mé chuig an bhfoireann airgeadais í.",
            ),
        ),
    ),
)


# -- postfix_mail (Sinhala) -------------------------------------------------------

_SI = {
    "dec_dictate": "තීරණය: {topic} — {value}. හේතුව: {reason}.",
    "dec_propose": "{topic} සඳහා මම යෝජනා කරන්නේ {value}, මොකද {reason}. ඔයා එකඟද?",
    "dec_yes": "ඔව්, එකඟයි. ඒක කරන්න.",
    "dec_propose_old": "{topic} සඳහා මම {old} යෝජනා කරනවා. ඔයා මොකද හිතන්නේ?",
    "dec_change": "නෑ, {old} එපා. ඒ වෙනුවට {value} පාවිච්චි කරන්න, මොකද {reason}.",
    "dec_old": "{topic}: දැනට {old} කියලා ලියාගන්න.",
    "dec_correct": "නිවැරදි කිරීමක් — {topic}: {old} නෙවෙයි, {value}. හේතුව: {reason}.",
    "dec_colleague": "{topic} ගැන {who} කිව්වා {value} තමයි හොඳ කියලා, මොකද {reason}. එයා කියපු විදියටම කරමු.",
    "dec_ask": "{topic} ගැන ප්‍රශ්නයක් — ඔයා කැමති මොකටද?\n- {a}\n- {b}",
    "dec_answer": "{value} — {reason}.",
    "dec_confirm": "හරි, තීරණය කළා: {topic} — {value}. මම ඒක දැන්ම apply කරන්නම්.",
    "next_passing": "අනේ, කියන්න අමතක වුණා — {day} දවසේ {task} ඕනේ.",
    "next_deadline": "තව දෙයක්: {day}ට කලින් අනිවාර්යයෙන්ම {task} ඕනේ.",
    "next_promise": "මම පොරොන්දු වෙනවා: {cond} මම වහාම {task} පටන් ගන්නවා.",
    "promise_ask": "තව මොනවා හරි ඉතුරු වෙලා තියෙනවද?",
    "thanks": "නියමයි, ස්තූතියි.",
    "promise_ack": "කමක් නෑ, මට අමතක වෙන්නේ නෑ.",
    "next_ack": "සටහන් කළා, වැඩ ලැයිස්තුවට දැම්මා.",
    "tickets": "{closed} ticket එක දැනටමත් close කරලා, ඒක අල්ලන්න එපා. හැබැයි {open} තාම open.",
    "hunch_reply": "මම එහෙම හිතන්නේ නෑ — logs වල එහෙම ලකුණක් නෑ.",
}


def _qid(rng: random.Random) -> str:
    return token(rng, rng.randint(10, 11), "0123456789ABCDEF")


def _pf_queue(rng: random.Random, needle: str, decoys: list[str]) -> str:
    out = ["-Queue ID-  --Size-- ----Arrival Time---- -Sender/Recipient-------"]
    entries = [
        (
            needle,
            "(connect to mx.ceylon-freight.lk[203.0.113.40]:25: Connection timed out)",
            "orders@ceylon-freight.lk",
        )
    ]
    for d in decoys:
        entries.append(
            (
                d,
                rng.choice(
                    [
                        "(host gmail-smtp-in.l.google.com said: 452-4.2.2 The recipient's inbox is out of storage space)",
                        "(delivery temporarily suspended: lost connection with mx1.example.net)",
                        "",
                    ]
                ),
                f"{rng.choice(['info', 'sales', 'hr', 'noreply'])}@{rng.choice(['example.net', 'gmail.com', 'outlook.com'])}",
            )
        )
    rng.shuffle(entries)
    for q, why, rcpt in entries:
        mark = "" if why else "*"
        out.append(
            f"{q}{mark}    {rng.randint(2000, 90000):>6} Mon Dec  7 {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}  billing@tea-exports.lk"
        )
        if why:
            out.append(f"{why}")
        out.append(f"                                         {rcpt}")
        out.append("")
    out.append(f"-- {rng.randint(200, 900)} Kbytes in {len(entries)} Requests.")
    return "\n".join(out)


def _dsid(rng: random.Random) -> str:
    return token(rng, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def _pf_dovecot(rng: random.Random, needle: str, decoys: list[str]) -> str:
    out = []
    for d in decoys:
        out.append(
            f"Dec 07 {rng.randint(8, 11):02d}:{rng.randint(10, 59)}:{rng.randint(10, 59)} mail1 dovecot[1187]: imap-login: Login: user=<{rng.choice(['nimal', 'kasuni', 'ruwan', 'dilki'])}@tea-exports.lk>, method=PLAIN, rip={_ip(rng, '192.168')}, lip=10.0.0.25, mpid={rng.randint(20000, 40000)}, TLS, session=<{d}>"
        )
    out.append(
        f"Dec 07 11:{rng.randint(10, 59)}:{rng.randint(10, 59)} mail1 dovecot[1187]: imap(accounts@tea-exports.lk)<{rng.randint(20000, 40000)}><{needle}>: Error: Mailbox INBOX: UID=48213: read(/var/vmail/tea-exports.lk/accounts/Maildir/cur/1733..) failed: Cached message size smaller than expected (81920 < 104857, box=INBOX, UID=48213)"
    )
    out.append(
        f"Dec 07 11:{rng.randint(10, 59)}:{rng.randint(10, 59)} mail1 dovecot[1187]: imap(accounts@tea-exports.lk)<{rng.randint(20000, 40000)}><{needle}>: Disconnected: Internal error occurred. Refer to server log for more information."
    )
    return "\n".join(out)


def _serial(rng: random.Random) -> str:
    return token(rng, 36, "0123456789ABCDEF")


def _pf_certs(rng: random.Random, needle: str, decoys: list[str]) -> str:
    out = []
    hosts = [
        "mail.tea-exports.lk (/etc/letsencrypt/live/mail/cert.pem)",
        "old: /etc/ssl/old/mail-2025.pem",
        "webmail.tea-exports.lk",
        "mx2.tea-exports.lk",
        "autodiscover.tea-exports.lk",
        "imap.tea-exports.lk",
        "smtp.tea-exports.lk",
    ]
    for i, s in enumerate([needle, *decoys]):
        out.append(
            f"== {hosts[i]} ==\nserial={s}\nnotBefore=Nov {rng.randint(1, 28)} 0{rng.randint(1, 9)}:12:44 2026 GMT\nnotAfter=Feb {rng.randint(1, 28)} 0{rng.randint(1, 9)}:12:43 2027 GMT\nissuer=C = US, O = Let's Encrypt, CN = R1{rng.randint(0, 1)}"
        )
    return "\n".join(out)


def _pf_quiet(rng: random.Random, name: str) -> str:
    return f"Reading configuration from /etc/postfix ...\n[exit 0 after {rng.randint(1, 4)}.{rng.randint(10, 99)}s]"


def _pf_mailbox_loud(rng: random.Random, name: str) -> str:
    rows = [
        [
            f"{rng.choice(['nimal', 'kasuni', 'ruwan', 'dilki', 'amaya'])}{rng.randint(1, 9)}@tea-exports.lk",
            "1",
            f"{_ts(rng)}",
        ]
        for _ in range(3)
    ]
    rows.append([name, "0", "2026-12-07 10:41:02"])
    rng.shuffle(rows)
    body = _table(["username", "active", "modified"], rows)
    return (
        body
        + f"\n{name}: active=0 (disabled), maildir kept at /var/vmail/tea-exports.lk/{name.split('@')[0]}/"
    )


def _pf_rule_loud(rng: random.Random, name: str) -> str:
    return "\n".join(
        [
            f'{hexits(rng, 7)} Revert "multimap: add {name}" — rolled back, false positives on invoices',
            f"{hexits(rng, 7)} multimap: add {name}",
            f"{hexits(rng, 7)} actions: raise reject score to 15",
            f"{hexits(rng, 7)} dkim_signing: selector per domain",
            "rspamadm configtest: syntax OK",
            "systemctl reload rspamd: done",
        ]
    )


def _pf_transport_loud(rng: random.Random, name: str) -> str:
    return "\n".join(
        [
            f"$ postmap -q {name} hash:/etc/postfix/transport",
            "smtp:[relay2.tea-exports.lk]:587",
            f"$ grep -n '{name}' /etc/postfix/transport",
            f"{rng.randint(10, 60)}:{name}   smtp:[relay2.tea-exports.lk]:587   # migrated from relay1 on 2026-12-07",
            "postfix/postfix-script: refreshing the Postfix mail system",
        ]
    )


def _pf_journal(rng: random.Random) -> str:
    def line(r: random.Random) -> str:
        return r.choice(
            [
                f"Dec 07 {r.randint(12, 23)}:{r.randint(10, 59)}:{r.randint(10, 59)} mail1 postfix/smtpd[{r.randint(2000, 9000)}]: connect from unknown[{_ip(r, '198.51')}]",
                f"Dec 07 {r.randint(12, 23)}:{r.randint(10, 59)}:{r.randint(10, 59)} mail1 postfix/smtpd[{r.randint(2000, 9000)}]: NOQUEUE: reject: RCPT from unknown[{_ip(r, '198.51')}]: 554 5.7.1 Service unavailable; Client host blocked using zen.spamhaus.org",
                f"Dec 07 {r.randint(12, 23)}:{r.randint(10, 59)}:{r.randint(10, 59)} mail1 postfix/smtp[{r.randint(2000, 9000)}]: Trusted TLS connection established to gmail-smtp-in.l.google.com[142.250.{r.randint(1, 250)}.27]:25: TLSv1.3 with cipher TLS_AES_256_GCM_SHA384",
                f'Dec 07 {r.randint(12, 23)}:{r.randint(10, 59)}:{r.randint(10, 59)} mail1 rspamd_proxy[{r.randint(900, 999)}]: <{hexits(r, 6)}>; proxy; rspamd_task_write_log: action="no action", score={r.randint(0, 4)}.{r.randint(0, 99)}/15.00',
            ]
        )

    return _lines(rng, rng.randint(25, 40), line)


def _pf_doveadm(rng: random.Random) -> str:
    rows = [
        [
            f"{u}@tea-exports.lk",
            "STORAGE",
            str(rng.randint(100000, 9000000)),
            "10485760",
            f"{rng.randint(1, 95)}",
        ]
        for u in ("accounts", "sales", "nimal.p", "kasuni.w", "ruwan.d", "dispatch", "hr")
    ]
    return _cols(["Username", "Type", "Value", "Limit", "%"], rows)


def _pf_dig(rng: random.Random) -> str:
    return "\n".join(
        [
            "; <<>> DiG 9.18.28 <<>> +short TXT tea-exports.lk",
            f'"v=spf1 mx ip4:{_ip(rng, "203.0")} include:_spf.google.com -all"',
            f'"google-site-verification={token(rng, 43)}"',
            "; <<>> DiG 9.18.28 <<>> +short TXT _dmarc.tea-exports.lk",
            '"v=DMARC1; p=quarantine; rua=mailto:dmarc@tea-exports.lk; fo=1"',
            "; <<>> DiG 9.18.28 <<>> +short MX tea-exports.lk\n10 mail1.tea-exports.lk.\n20 mx2.tea-exports.lk.",
        ]
    )


_POSTFIX = _Kind(
    lang=_SI,
    look=("පොඩ්ඩක් ඉන්න, මම බලන්නම්.", "මම දැන් command එක run කරලා බලන්නම්.", "හරි, ඒක check කරලා බලමු."),
    ack=("හරි, මම ඒක සටහන් කරගත්තා.", "තේරුණා, ඉස්සරහට යමු.", "හොඳයි, එහෙම කරමු."),
    done=("ඉවරයි. ඊළඟ එකට යමු.", "Command එක error නැතුව run වුණා, ඉස්සරහට යමු."),
    days=("සඳුදා", "අඟහරුවාදා", "බදාදා", "බ්‍රහස්පතින්දා", "සිකුරාදා", "සෙනසුරාදා", "ඉරිදා"),
    people=("නිමල්", "කසුනි", "රුවන්", "දිල්කි", "අමය", "තිසර", "සචිනි", "ලහිරු"),
    intro=(
        "ආයුබෝවන්. අපේ mail server එකේ අද උදේ ඉඳන් ප්‍රශ්න ගොඩක් — queue එක පිරිලා, සමහර අයට IMAP එකට ලොග් වෙන්න බෑ. අපි එකින් එක බලමු.",
        "සුබ උදෑසනක්. Postfix, Dovecot, rspamd තුනම අද හරි ගස්සන්න ඕනේ. පාරිභෝගිකයෝ කියනවා invoice emails යන්නේ නෑ කියලා.",
    ),
    intro_command="postqueue -p | tail -n 1 && systemctl status postfix dovecot rspamd --no-pager | grep -E 'Active|Main PID'",
    intro_output=lambda r: (
        f"-- {r.randint(900, 4000)} Kbytes in {r.randint(40, 300)} Requests.\n     Active: active (running) since Sun 2026-12-06 22:10:41 +0530; 13h ago\n   Main PID: {r.randint(900, 2000)} (master)\n     Active: active (running) since Sun 2026-12-06 22:10:44 +0530; 13h ago\n   Main PID: {r.randint(900, 2000)} (dovecot)\n     Active: active (running) since Mon 2026-12-07 08:02:19 +0530; 3h ago\n   Main PID: {r.randint(900, 2000)} (rspamd)"
    ),
    ids=(
        _Id(
            "Postfix queue id of the stuck invoice mail to ceylon-freight.lk",
            _qid,
            "Queue එකේ deferred mails ටික පෙන්නන්න. ceylon-freight.lk එකට යන invoice එක හිරවෙලා.",
            "postqueue -p | head -n 60",
            _pf_queue,
            "ගැටලුව තියෙන්නේ queue ID {id} එකේ — ceylon-freight.lk MX එකට connect වෙන්න බෑ. {decoy} නෙවෙයි, ඒක වෙන recipient කෙනෙක්.",
        ),
        _Id(
            "Dovecot session id of the failing accounts@ IMAP session",
            _dsid,
            "accounts@ mailbox එකට IMAP errors එනවා. Dovecot logs බලන්න.",
            "journalctl -u dovecot --since today --no-pager | grep -E 'Login|Error|Disconnected' | tail -n 30",
            _pf_dovecot,
            "Error එක එන්නේ session {id} එකේ — accounts@ mailbox එකේ cache එක corrupt වෙලා. {decoy} වගේ අනිත් sessions සාමාන්‍ය logins.",
        ),
        _Id(
            "serial number of the TLS certificate currently served by mail.tea-exports.lk",
            _serial,
            "දැන් ඇත්තටම serve කරන TLS certificate එක මොකක්ද? පරණ එකත් තාම disk එකේ තියෙනවා.",
            "for f in /etc/letsencrypt/live/*/cert.pem /etc/ssl/old/*.pem; do openssl x509 -in $f -noout -serial -dates -issuer; done",
            _pf_certs,
            "දැන් serve කරන certificate එකේ serial එක {id}. {decoy} කියන්නේ වෙන host එකක certificate එකක්, ඒක පටලවගන්න එපා.",
        ),
    ),
    arts=(
        _Art(
            lambda r: (
                f"{r.choice(['chaminda', 'priyanka', 'shehan', 'udari'])}.{token(r, 3).lower()}@tea-exports.lk"
            ),
            "mysql mailserver -e \"UPDATE mailbox SET active=0 WHERE username='{name}'\" && doveadm kick '{name}'",
            _pf_mailbox_loud,
            _pf_quiet,
            ("disabled", "active=0", "අක්‍රිය"),
            "{name} කෙනා company එකෙන් අයින් වුණා. ඒ mailbox එක බලාගන්න.",
            "{name} mailbox එක delete කරන්න එපා, disable විතරක් කරන්න — HR ට mails ටික ඕනේ.",
            "{name} mailbox එක දැන් අක්‍රිය කළා (active=0); delete කළේ නෑ, maildir එක තාම තියෙනවා.",
            "What happened to the mailbox {name}?",
            "It was disabled (active=0), not deleted; the maildir was kept.",
        ),
        _Art(
            lambda r: (
                f"BLOCK_{r.choice(['INVOICE', 'PDF_MACRO', 'BULK_TLD', 'FREIGHT'])}_{token(r, 3)}"
            ),
            "cd /etc/rspamd && git revert --no-edit HEAD~1 && git log --oneline -4 && rspamadm configtest && systemctl reload rspamd",
            _pf_rule_loud,
            _pf_quiet,
            ("rolled back", "revert", "ආපසු"),
            "{name} කියන rspamd rule එක නිසා invoices reject වෙනවා. ඒක හදන්න.",
            "{name} rule එක මකන්න එපා — git revert එකකින් ආපසු හරවන්න විතරක් කරන්න.",
            "{name} multimap rule එක ආපසු හැරෙව්වා (git revert); rspamd reload කළා.",
            "What happened to the rspamd rule {name}?",
            "It was rolled back with a git revert (not deleted by hand); rspamd reloaded.",
        ),
        _Art(
            lambda r: (
                f"{r.choice(['spice', 'rubber', 'gem', 'cinnamon'])}-{token(r, 4).lower()}.lk"
            ),
            "sed -i 's/relay1/relay2/' /etc/postfix/transport && postmap /etc/postfix/transport && postfix reload",
            _pf_transport_loud,
            _pf_quiet,
            ("migrated", "මාරු"),
            "{name} domain එකේ mails relay1 හරහා යන එක නවත්තන්න.",
            "{name} domain එක transport map එකෙන් අයින් කරන්න එපා — relay2 එකට මාරු කරන්න විතරයි.",
            "{name} domain එකේ transport එක relay2 එකට මාරු කළා; relay1 තවදුරටත් පාවිච්චි වෙන්නේ නෑ.",
            "What happened to the transport of the domain {name}?",
            "It was migrated from relay1 to relay2 (smtp:[relay2.tea-exports.lk]:587).",
        ),
    ),
    topics=(
        _Topic(
            "DMARC policy එක",
            ("DMARC",),
            (
                "p=reject; pct=100",
                "p=quarantine; pct=50",
                "p=reject; pct=25",
                "p=quarantine; pct=100",
            ),
            ("spoofing attacks වැඩි වෙලා", "partners ලා තාම SPF හරියට හදලා නෑ", "bank එක ඉල්ලලා තියෙනවා"),
            "Which DMARC policy was decided?",
        ),
        _Topic(
            "message_size_limit අගය",
            ("message_size_limit",),
            ("52428800", "36700160", "26214400", "73400320"),
            ("customs documents ලොකු PDF", "Gmail එකේ සීමාව 25MB", "backup scanner එක ලොකු files යවනවා"),
            "Which Postfix message_size_limit was decided?",
        ),
    ),
    tasks=(
        _Task("DKIM key එක rotate කරන්න", ("DKIM",), "rotate the DKIM key"),
        _Task("MTA-STS policy එක publish කරන්න", ("MTA-STS",), "publish the MTA-STS policy"),
        _Task("Dovecot 2.4 upgrade එක කරන්න", ("Dovecot 2.4",), "upgrade Dovecot to 2.4"),
    ),
    conds=(
        _Task("deferred queue එක හිස් වුණාම", ("deferred",), "the deferred queue is empty"),
        _Task("Spamhaus එකෙන් delist වුණු ගමන්", ("Spamhaus",), "the IP is delisted from Spamhaus"),
    ),
    hunches=(
        "{who} හිතන්නේ මේ ප්‍රශ්නයට හේතුව IPv6 කියලා, ඒත් මට නම් විශ්වාස නෑ.",
        "{who} කියනවා firewall එක port 25 block කරලා කියලා. ඔයා මොකද හිතන්නේ?",
    ),
    ticket=lambda r: f"MAIL-{r.randint(100, 999)}",
    fillers=(
        _Filler(
            ("අද දවසේ Postfix logs වල අමුතු දෙයක් තියෙනවද?", "journalctl එකෙන් අන්තිම logs ටික බලන්න."),
            lambda r: (
                f"journalctl -u postfix -u rspamd --since '-{r.randint(1, 6)}h' --no-pager | tail -n 40"
            ),
            _pf_journal,
            (
                "ලොකු ප්‍රශ්නයක් නෑ; Spamhaus නිසා reject වුණු connections {n} ක් විතරයි.",
                "TLS connections සාමාන්‍යයි, rspamd scores අඩුයි.",
            ),
        ),
        _Filler(
            ("Mailbox quota කොහොමද?", "කාගේ හරි mailbox එක පිරිලද බලන්න."),
            lambda r: "doveadm quota get -A | sort -k5 -n -r | head",
            _pf_doveadm,
            ("සමහර mailboxes {n}% ට ළඟයි; මම ඒ අයට email එකක් යවන්නම්.", "Quota ප්‍රශ්නයක් නෑ."),
        ),
        _Filler(
            ("DNS records හරිද කියලා ආයෙත් check කරන්න.", "SPF, DMARC, MX records බලන්න."),
            lambda r: (
                "dig +short TXT tea-exports.lk; dig +short TXT _dmarc.tea-exports.lk; dig +short MX tea-exports.lk"
            ),
            _pf_dig,
            ("DNS records හරි; TTL {n} minutes.", "SPF සහ MX හරි, වෙනසක් ඕනේ නෑ."),
        ),
    ),
)


# -- cockroach_ledger (Mongolian) -------------------------------------------------

_MN = {
    "dec_dictate": "Шийдвэр: {topic} — {value}. Шалтгаан нь {reason}.",
    "dec_propose": "{topic}: би {value}-г санал болгож байна, учир нь {reason}. Зөвшөөрч байна уу?",
    "dec_yes": "Тийм, зөвшөөрч байна. Тэгээд хий.",
    "dec_propose_old": "{topic}: би {old}-г санал болгож байна. Та юу гэж бодож байна?",
    "dec_change": "Үгүй ээ, {old} биш. Оронд нь {value}-г ашигла, учир нь {reason}.",
    "dec_old": "{topic}: одоохондоо {old} гэж тэмдэглээд аваарай.",
    "dec_correct": "Засвар — {topic}: {old} биш, {value} болно, учир нь {reason}.",
    "dec_colleague": "{topic} талаар {who} хэлсэн: {value} байх ёстой, учир нь {reason}. Түүний хэлснээр хийе.",
    "dec_ask": "{topic} талаар нэг асуулт байна — аль нь дээр вэ?\n- {a}\n- {b}",
    "dec_answer": "{value}, учир нь {reason}.",
    "dec_confirm": "За, тохиролцлоо: {topic} — {value}. Одоо хэрэгжүүлье.",
    "next_passing": "Дашрамд хэлэхэд, {day} гарагт {task} хэрэгтэй.",
    "next_deadline": "Бас нэг зүйл: {day} гарагаас өмнө заавал {task} ёстой.",
    "next_promise": "Амлая: {cond} би тэр даруй {task} ажлыг хийнэ.",
    "promise_ask": "Өөр хийх зүйл үлдсэн үү?",
    "thanks": "Сайн байна, баярлалаа.",
    "promise_ack": "Зүгээр ээ, мартахгүй.",
    "next_ack": "Тэмдэглэлээ, ажлын жагсаалтад нэмлээ.",
    "tickets": "{closed} тасалбар аль хэдийн хаагдсан, түүнд хүрэх хэрэггүй. Харин {open} одоо ч нээлттэй байгаа.",
    "hunch_reply": "Би тэгж бодохгүй байна — логт тийм шинж тэмдэг алга.",
}


def _jobid(rng: random.Random) -> str:
    return str(rng.randint(10**18, 10**19 - 1))


def _cr_jobs(rng: random.Random, needle: str, decoys: list[str]) -> str:
    rows = [
        [
            needle,
            "BACKUP",
            "BACKUP INTO 's3://mn-ledger-backups/cluster?AUTH=implicit' ... (ledger)",
            "running",
            f"0.{rng.randint(10, 40)}",
            "2026-12-07 01:00:00",
            "node 4: retrying after error: s3 PutObject: RequestTimeout",
        ]
    ]
    for d in decoys:
        rows.append(
            [
                d,
                rng.choice(["BACKUP", "SCHEMA CHANGE", "AUTO CREATE STATS", "CHANGEFEED"]),
                rng.choice(
                    [
                        "CREATE STATISTICS __auto__ FROM [112]",
                        "ALTER TABLE ledger.entries ADD COLUMN memo STRING",
                        "BACKUP INTO LATEST IN 's3://mn-ledger-backups/cluster' ...",
                    ]
                ),
                rng.choice(["succeeded", "succeeded", "running"]),
                "1.00",
                f"2026-12-0{rng.randint(1, 6)} 01:00:00",
                "NULL",
            ]
        )
    rng.shuffle(rows)
    return (
        _table(
            [
                "job_id",
                "job_type",
                "description",
                "status",
                "fraction_completed",
                "created",
                "error",
            ],
            rows,
        )
        + f"\n({len(rows)} rows)\n\nTime: {rng.randint(20, 90)}ms total (execution {rng.randint(10, 19)}ms / network 1ms)"
    )


def _cr_contention(rng: random.Random, needle: str, decoys: list[str]) -> str:
    rows = [
        [
            f"2026-12-07 0{rng.randint(1, 9)}:{rng.randint(10, 59)}:{rng.randint(10, 59)}",
            d,
            _uuid(rng),
            f"{rng.randint(1, 40)}ms",
            "/Table/112/1/…",
        ]
        for d in decoys
    ]
    rows.append(
        [
            f"2026-12-07 09:{rng.randint(10, 59)}:{rng.randint(10, 59)}",
            needle,
            _uuid(rng),
            f"{rng.randint(4, 12)}s",
            '/Table/112/2/"acct-0001"/…',
        ]
    )
    rng.shuffle(rows)
    return _table(
        [
            "collection_ts",
            "blocking_txn_id",
            "waiting_txn_id",
            "contention_duration",
            "contending_key",
        ],
        rows,
    )


def _bdir(rng: random.Random) -> str:
    return f"2026/12/0{rng.randint(1, 6)}-{rng.randint(0, 23):02d}{rng.randint(0, 59):02d}{rng.randint(0, 59):02d}.{rng.randint(0, 99):02d}"


def _cr_backups(rng: random.Random, needle: str, decoys: list[str]) -> str:
    all_ = sorted([needle, *decoys])
    out = [
        "> SHOW BACKUPS IN 's3://mn-ledger-backups/cluster?AUTH=implicit';",
        "         path",
        "-------------------------",
    ]
    out += [f"  /{p}" for p in all_]
    out.append(f"({len(all_)} rows)\n")
    out.append(
        f"> SHOW BACKUP '/{needle}' IN 's3://mn-ledger-backups/cluster?AUTH=implicit' WITH check_files;"
    )
    out.append(
        "  database_name | table_name | start_time | end_time | size_bytes | rows | is_full_cluster | file_bytes"
    )
    out.append(
        f"  ledger | entries | NULL | 2026-12-0{rng.randint(1, 6)} 22:15:00 | {rng.randint(10**9, 10**10)} | {rng.randint(10**6, 10**7)} | t | NULL"
    )
    out.append("ERROR: backup check_files: file 'data/917335421829545987.sst' is missing")
    return "\n".join(out)


def _cr_quiet(rng: random.Random, name: str) -> str:
    return f"{rng.choice(['PAUSE SCHEDULE', 'ALTER INDEX', 'OK'])}\n\nTime: {rng.randint(5, 90)}ms total (execution {rng.randint(2, 60)}ms / network 1ms)"


def _cr_sched_loud(rng: random.Random, name: str) -> str:
    rows = [
        [
            str(rng.randint(10**17, 10**18)),
            f"hourly-{rng.choice(['stats', 'gc', 'compact'])}",
            "ACTIVE",
            f"2026-12-07 {rng.randint(12, 23)}:00:00",
            "@hourly",
        ]
        for _ in range(2)
    ]
    rows.append([str(rng.randint(10**17, 10**18)), name, "PAUSED", "NULL", "@daily"])
    rng.shuffle(rows)
    return (
        _table(["id", "label", "schedule_status", "next_run", "state"], rows)
        + f"\n({len(rows)} rows)"
    )


def _cr_index_loud(rng: random.Random, name: str) -> str:
    rows = [
        ["entries", "entries_pkey", "f", "1", "id", "ASC", "t"],
        ["entries", "entries_account_idx", "t", "1", "account_id", "ASC", "t"],
        ["entries", name, "t", "1", "created_at", "DESC", "f (NOT VISIBLE)"],
    ]
    return (
        _table(
            [
                "table_name",
                "index_name",
                "non_unique",
                "seq_in_index",
                "column_name",
                "direction",
                "visible",
            ],
            rows,
        )
        + "\n(3 rows)"
    )


def _cr_node_loud(rng: random.Random, name: str) -> str:
    rows = [
        [str(i), f"crdb-ub-{i}.ledger.internal:26257", "true", "true", "active", "false"]
        for i in range(1, 5)
    ]
    rows.append([str(rng.randint(5, 9)), name, "false", "false", "decommissioned", "true"])
    return _cols(
        ["id", "address", "is_available", "is_live", "membership", "is_decommissioning"], rows
    )


def _cr_status(rng: random.Random) -> str:
    rows = [
        [
            str(i),
            f"crdb-ub-{i}.ledger.internal:26257",
            "v24.3.1",
            "2026-11-30 03:12:44",
            str(rng.randint(800, 1400)),
            str(rng.randint(300, 500)),
            str(rng.randint(0, 3)),
        ]
        for i in range(1, 6)
    ]
    return _cols(
        [
            "id",
            "address",
            "build",
            "started_at",
            "replicas_leaders",
            "ranges_underreplicated",
            "ranges_unavailable",
        ],
        rows,
    )


def _cr_ranges(rng: random.Random) -> str:
    rows = [
        [
            str(rng.randint(100, 9000)),
            f"/Table/{rng.randint(100, 130)}/1/{rng.randint(1000, 9999)}",
            f"/Table/{rng.randint(100, 130)}/1/{rng.randint(10000, 99999)}",
            str(rng.randint(1, 5)),
            f"{{{rng.randint(1, 5)},{rng.randint(1, 5)},{rng.randint(1, 5)}}}",
            f"{rng.randint(10, 500)} MiB",
        ]
        for _ in range(rng.randint(12, 22))
    ]
    return _table(
        ["range_id", "start_key", "end_key", "lease_holder", "replicas", "range_size"], rows
    )


def _cr_stmts(rng: random.Random) -> str:
    q = [
        "SELECT balance FROM ledger.accounts WHERE id = $1",
        "INSERT INTO ledger.entries (account_id, amount, memo) VALUES ($1, $2, $3)",
        "UPDATE ledger.accounts SET balance = balance + $1 WHERE id = $2",
        "SELECT * FROM ledger.entries WHERE account_id = $1 ORDER BY created_at DESC LIMIT $2",
    ]
    rows = [
        [
            s,
            str(rng.randint(1000, 900000)),
            f"{rng.randint(1, 90)}.{rng.randint(0, 9)}ms",
            f"{rng.randint(1, 9)}.{rng.randint(0, 9)}%",
        ]
        for s in q
    ]
    return _table(["statement", "count", "mean_latency", "contention"], rows)


_COCKROACH = _Kind(
    lang=_MN,
    look=(
        "Түр хүлээгээрэй, шалгаад үзье.",
        "Одоо командыг ажиллуулаад харъя.",
        "За, үүнийг шалгая.",
    ),
    ack=("Ойлголоо, тэмдэглэж авлаа.", "За, ойлгосон. Үргэлжлүүлье.", "Тийм, тэгье."),
    done=("Болсон. Дараагийнх руу шилжье.", "Команд алдаагүй ажиллалаа, цааш явъя."),
    days=("Даваа", "Мягмар", "Лхагва", "Пүрэв", "Баасан", "Бямба", "Ням"),
    people=(
        "Бат-Эрдэнэ",
        "Сарнай",
        "Тэмүүлэн",
        "Номин",
        "Ганбаатар",
        "Оюунаа",
        "Мөнхбат",
        "Халиун",
    ),
    intro=(
        "Сайн байна уу. Ledger кластер дээр өнөө өглөөнөөс хойш асуудал гарч байна: backup гацсан, зарим гүйлгээ удаан байна. Хамтдаа нэг нэгээр нь шалгая.",
        "Өглөөний мэнд. CockroachDB кластераа өнөөдөр цэгцлэх хэрэгтэй — шөнийн backup S3 руу бичигдээгүй, contention ихэссэн.",
    ),
    intro_command="cockroach node status --certs-dir=/certs --host=crdb-ub-1.ledger.internal --ranges",
    intro_output=_cr_status,
    ids=(
        _Id(
            "job id of the stuck backup job",
            _jobid,
            "Ямар job-ууд ажиллаж байгааг харуулаач. Шөнийн backup гацсан бололтой.",
            'cockroach sql --certs-dir=/certs -e "SHOW JOBS" | head -n 40',
            _cr_jobs,
            "Гацсан backup job бол {id} — S3 PutObject дээр timeout өгч байна. {decoy} бол өөр, амжилттай дууссан job.",
        ),
        _Id(
            "id of the blocking transaction behind the ledger contention",
            _uuid,
            "Contention хаанаас үүсч байгааг олооч. Ямар гүйлгээ бусдыг хүлээлгэж байна?",
            'cockroach sql --certs-dir=/certs -e "SELECT * FROM crdb_internal.transaction_contention_events ORDER BY contention_duration DESC LIMIT 8"',
            _cr_contention,
            "Бусдыг хамгийн удаан хүлээлгэж байгаа гүйлгээ: blocking_txn_id {id}. {decoy} зэрэг бусад нь богино, асуудалгүй.",
        ),
        _Id(
            "backup subdirectory whose check_files failed",
            _bdir,
            "S3 дээрх backup-уудыг жагсаагаад, аль нь эвдэрсэн байгааг шалгаач.",
            "cockroach sql --certs-dir=/certs -f /tmp/show_backups.sql",
            _cr_backups,
            "Эвдэрсэн backup нь /{id} хавтас — нэг SST файл дутуу байна. {decoy} бол бүрэн бүтэн.",
        ),
    ),
    arts=(
        _Art(
            lambda r: (
                f"nightly-{r.choice(['ledger', 'audit', 'fx', 'payout'])}-{token(r, 4).lower()}"
            ),
            "cockroach sql --certs-dir=/certs -e \"PAUSE SCHEDULES SELECT id FROM [SHOW SCHEDULES] WHERE label = '{name}'; SHOW SCHEDULES\"",
            _cr_sched_loud,
            _cr_quiet,
            ("PAUSED", "түр зогсоо"),
            "{name} schedule S3 алдаа гаргасаар байна. Үүнийг зохицуулаач.",
            "{name} schedule-ийг DROP хийж болохгүй, зөвхөн PAUSE хий — дараа нь дахин идэвхжүүлнэ.",
            "{name} schedule-ийг түр зогсоосон (PAUSED); устгаагүй, дараа нь RESUME хийж болно.",
            "What happened to the backup schedule {name}?",
            "It was paused (not dropped).",
        ),
        _Art(
            lambda r: (
                f"entries_{r.choice(['created', 'memo', 'ref', 'batch'])}_{token(r, 3).lower()}_idx"
            ),
            'cockroach sql --certs-dir=/certs -e "ALTER INDEX ledger.entries@{name} NOT VISIBLE; SHOW INDEXES FROM ledger.entries"',
            _cr_index_loud,
            _cr_quiet,
            ("NOT VISIBLE", "харагдахгүй"),
            "{name} индекс бичилтийг удаашруулж байх шиг байна. Үүнийг шийдээч.",
            "{name} индексийг DROP хийхгүй — зөвхөн NOT VISIBLE болго, хэрэгтэй бол буцаана.",
            "{name} индексийг NOT VISIBLE болгосон — optimizer ашиглахгүй, харагдахгүй болсон ч устгаагүй.",
            "What happened to the index {name}?",
            "It was made NOT VISIBLE (not dropped).",
        ),
        _Art(
            lambda r: (
                f"crdb-{r.choice(['ub', 'dk', 'er'])}-{token(r, 4).lower()}.ledger.internal:26257"
            ),
            "cockroach node decommission --certs-dir=/certs --host=crdb-ub-1.ledger.internal $(cockroach node status --format=tsv | awk -v a={name} '$2==a{{print $1}}') && cockroach node status --decommission",
            _cr_node_loud,
            _cr_quiet,
            ("decommissioned", "кластераас гарга"),
            "{name} хаягтай node-ийн диск муудаж байна. Юу хийх вэ?",
            "{name} node-ийг шууд унтрааж болохгүй — эхлээд decommission хий, replica-ууд нь нүүсний дараа.",
            "{name} node-ийг decommission хийж, кластераас гаргасан; replica-ууд бусад node руу нүүсэн.",
            "What happened to the node {name}?",
            "It was decommissioned (removed from the cluster after its replicas moved).",
        ),
    ),
    topics=(
        _Topic(
            "ledger.entries хүснэгтийн gc.ttlseconds",
            ("gc.ttlseconds",),
            ("14400", "90000", "86400", "3600", "172800"),
            (
                "AS OF SYSTEM TIME тайлангууд урт хугацааг уншдаг",
                "MVCC garbage хэт их хуримтлагдсан",
                "incremental backup өдөрт нэг удаа явдаг",
            ),
            "Which gc.ttlseconds was decided for ledger.entries?",
        ),
        _Topic(
            "backup хадгалах S3 бүс (region)",
            ("region", "бүс"),
            ("ap-northeast-2", "ap-east-1", "eu-central-1", "ap-southeast-1", "ap-northeast-1"),
            ("latency хамгийн бага", "хуулийн шаардлага", "зардал хямд"),
            "Which S3 region was decided for the backups?",
        ),
    ),
    tasks=(
        _Task("v24.3 upgrade-ийг finalize хийх", ("finalize",), "finalize the v24.3 upgrade"),
        _Task(
            "changefeed-ийн Kafka sink-ийн нууц үгийг солих",
            ("Kafka",),
            "rotate the changefeed's Kafka sink password",
        ),
        _Task("RESTORE дасгал хийх", ("RESTORE",), "run a RESTORE drill"),
    ),
    conds=(
        _Task(
            "under-replicated range тэг болмогц",
            ("under-replicated",),
            "there are no under-replicated ranges left",
        ),
        _Task(
            "S3 bucket-ийн IAM эрхийг засмагц",
            ("IAM",),
            "the S3 bucket's IAM permissions are fixed",
        ),
    ),
    hunches=(
        "{who} энэ асуудлыг сүлжээний MTU-тай холбоотой гэж бодож байгаа, гэхдээ би итгэхгүй байна.",
        "{who} хэлэхдээ цагийн зөрүү (clock skew) л буруутай гэнэ. Та юу гэж бодож байна?",
    ),
    ticket=lambda r: f"DBA-{r.randint(100, 999)}",
    fillers=(
        _Filler(
            ("Кластерийн node-уудын байдал ямар байна?", "Node status-ийг дахин харуулаач."),
            lambda r: (
                "cockroach node status --certs-dir=/certs --host=crdb-ub-1.ledger.internal --ranges"
            ),
            _cr_status,
            (
                "Бүх node амьд; under-replicated range {n} орчим байна.",
                "Кластер хэвийн, unavailable range алга.",
            ),
        ),
        _Filler(
            ("ledger хүснэгтийн range-уудыг харъя.", "Хамгийн том range-ууд аль нь вэ?"),
            lambda r: (
                'cockroach sql --certs-dir=/certs -e "SHOW RANGES FROM TABLE ledger.entries WITH DETAILS" | head -n 30'
            ),
            _cr_ranges,
            (
                "Range-ууд жигд тархсан; хамгийн том нь {n}0 MiB орчим.",
                "Lease holder-ууд тэнцвэртэй байна.",
            ),
        ),
        _Filler(
            ("Аль query хамгийн удаан байна?", "Statement статистикийг харуулаач."),
            lambda r: (
                "cockroach sql --certs-dir=/certs -e \"SELECT metadata->>'query' AS statement, ... FROM crdb_internal.statement_statistics LIMIT 4\""
            ),
            _cr_stmts,
            (
                "UPDATE accounts хамгийн их contention-тэй; {n}% орчим.",
                "Бусад query хэвийн хурдтай байна.",
            ),
        ),
    ),
)


# -- magento_shop (Yoruba) --------------------------------------------------------

_YO = {
    "dec_dictate": "Ìpinnu: {topic} — {value}. Ìdí ni pé {reason}.",
    "dec_propose": "Fún {topic}, mo dábàá {value}, nítorí pé {reason}. Ṣé ẹ fọwọ́ sí i?",
    "dec_yes": "Bẹ́ẹ̀ ni, mo fọwọ́ sí i. Ẹ ṣe é.",
    "dec_propose_old": "Fún {topic}, mo dábàá {old}. Kí lẹ rò?",
    "dec_change": "Rárá, kì í ṣe {old}. Ẹ lo {value} dípò rẹ̀, nítorí pé {reason}.",
    "dec_old": "Fún {topic}, ẹ kọ {old} sílẹ̀ fún báyìí.",
    "dec_correct": "Àtúnṣe — {topic}: kì í ṣe {old}, {value} ni. Ìdí ni pé {reason}.",
    "dec_colleague": "{who} bá mi sọ̀rọ̀ nípa {topic}: {value} ló yẹ, nítorí pé {reason}. Ẹ jẹ́ ká ṣe bí ó ṣe wí.",
    "dec_ask": "Ìbéèrè kan nípa {topic} — èwo lẹ fẹ́?\n- {a}\n- {b}",
    "dec_answer": "{value} — {reason}.",
    "dec_confirm": "Ó dáa, a ti pinnu: {topic} — {value}. Màá fi sílò báyìí.",
    "next_passing": "Ní ti ọ̀rọ̀ mìíràn, ní {day} a gbọ́dọ̀ {task}.",
    "next_deadline": "Ohun kan sí i: ká tó dé {day}, a gbọ́dọ̀ {task} dandan.",
    "next_promise": "Mo ṣèlérí: {cond}, màá {task} lẹ́sẹ̀kẹsẹ̀.",
    "promise_ask": "Ṣé iṣẹ́ kankan ṣì kù?",
    "thanks": "Ó dáa gan-an, ẹ ṣé.",
    "promise_ack": "Kò sí wàhálà, mi ò ní gbàgbé.",
    "next_ack": "Mo ti kọ ọ́ sílẹ̀, mo sì ti fi kún àkójọ iṣẹ́.",
    "tickets": "Tíkẹ́ẹ̀tì {closed} ti di títì tẹ́lẹ̀, ẹ má fọwọ́ kàn án. Ṣùgbọ́n {open} ṣì wà ní ṣíṣí.",
    "hunch_reply": "Mi ò rò bẹ́ẹ̀ — kò sí àmì rẹ̀ nínú àwọn log.",
}


def _order(rng: random.Random) -> str:
    return f"000{rng.randint(100000, 999999)}"


def _mg_orders(rng: random.Random, needle: str, decoys: list[str]) -> str:
    rows = [
        [
            needle,
            "pending_payment",
            "payment_review",
            f"{rng.randint(20, 400)}000.00",
            "NGN",
            "stripe_payments",
            "2026-12-07 08:14:22",
        ]
    ]
    for d in decoys:
        rows.append(
            [
                d,
                rng.choice(["processing", "complete", "canceled"]),
                rng.choice(["processing", "complete", "canceled"]),
                f"{rng.randint(5, 300)}500.00",
                "NGN",
                rng.choice(["stripe_payments", "checkmo", "paystack"]),
                _ts(rng),
            ]
        )
    rng.shuffle(rows)
    return (
        _table(
            [
                "increment_id",
                "status",
                "state",
                "grand_total",
                "order_currency_code",
                "method",
                "created_at",
            ],
            rows,
        )
        + f"\n{len(rows)} rows in set (0.0{rng.randint(1, 9)} sec)"
    )


def _pi(rng: random.Random) -> str:
    return "pi_3Q" + token(
        rng, 22, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    )


def _mg_payments(rng: random.Random, needle: str, decoys: list[str]) -> str:
    out = []
    for d in decoys:
        out.append(
            f"[2026-12-07T0{rng.randint(6, 9)}:{rng.randint(10, 59)}:{rng.randint(10, 59)}.{rng.randint(100000, 999999)}+00:00] main.INFO: StripeIntegration\\Payments: payment_intent.succeeded {d} amount={rng.randint(5000, 90000)}00 currency=ngn [] []"
        )
    out.append(
        f"[2026-12-07T08:14:{rng.randint(23, 59)}.{rng.randint(100000, 999999)}+00:00] main.ERROR: StripeIntegration\\Payments: webhook payment_intent.succeeded {needle} could not be matched to a quote: Quote is not active [] []"
    )
    out.append(
        f"[2026-12-07T08:14:{rng.randint(23, 59)}.{rng.randint(100000, 999999)}+00:00] main.CRITICAL: Magento\\Framework\\Exception\\NoSuchEntityException: No such entity with cartId = {rng.randint(100000, 999999)} in /var/www/shop/vendor/magento/module-quote/Model/QuoteRepository.php:{rng.randint(100, 300)} [] []"
    )
    return "\n".join(out)


def _osidx(rng: random.Random) -> str:
    return f"naija_mall_product_1_v{rng.randint(100, 999)}"


def _mg_indices(rng: random.Random, needle: str, decoys: list[str]) -> str:
    out = [
        "health status index                                 uuid                   pri rep docs.count store.size"
    ]
    rows = [(needle, "yellow", "open")] + [(d, "green", "open") for d in decoys]
    rng.shuffle(rows)
    for n, h, s in rows:
        out.append(
            f"{h:<6} {s:<6} {n:<40} {token(rng, 22)}   1   1      {rng.randint(10000, 90000):>6}     {rng.randint(20, 200)}mb"
        )
    out.append("")
    out.append(f"alias                     index\nnaija_mall_product_1      {decoys[0]}")
    return "\n".join(out)


def _mg_quiet(rng: random.Random, name: str) -> str:
    return f"Cache cleared successfully\nGenerated code and dependency injection configuration successfully.\n[exit 0 after {rng.randint(20, 90)}s]"


def _mg_module_loud(rng: random.Random, name: str) -> str:
    out = [
        "The following modules have been disabled:",
        f"- {name}",
        "",
        "Cache cleared successfully.",
        "To make sure that the disabled modules are properly removed from the config, run 'setup:upgrade'.",
        "",
        f"$ bin/magento module:status {name}",
        f"{name} : Module is disabled",
    ]
    return "\n".join(out)


def _mg_admin_loud(rng: random.Random, name: str) -> str:
    rows = [
        [
            str(rng.randint(1, 40)),
            f"{rng.choice(['tunde', 'bisi', 'kemi', 'segun'])}.{rng.randint(1, 9)}",
            "active",
        ]
        for _ in range(3)
    ]
    rows.append([str(rng.randint(41, 80)), name, "inactive"])
    rng.shuffle(rows)
    return _table(["id", "username", "status"], rows)


def _mg_composer_loud(rng: random.Random, name: str) -> str:
    return "\n".join(
        [
            "Loading composer repositories with package information",
            "Updating dependencies",
            "Lock file operations: 0 installs, 1 update, 0 removals",
            f"  - Downgrading {name} (2.{rng.randint(3, 9)}.{rng.randint(1, 9)} => 2.{rng.randint(0, 2)}.{rng.randint(1, 9)}) — rolled back",
            "Writing lock file",
            "Installing dependencies from lock file (including require-dev)",
            "Generating autoload files",
            f"{rng.randint(80, 140)} packages you are using are looking for funding.",
        ]
    )


def _mg_cron(rng: random.Random) -> str:
    jobs = [
        "indexer_reindex_all_invalid",
        "sales_clean_quotes",
        "catalog_product_alert",
        "newsletter_send_all",
        "sales_grid_order_async_insert",
        "catalogrule_apply_all",
        "magento_newrelicreporting_cron",
    ]
    rows = [
        [
            str(rng.randint(100000, 999999)),
            rng.choice(jobs),
            rng.choice(["success", "success", "pending", "missed"]),
            _ts(rng, 7),
        ]
        for _ in range(rng.randint(14, 24))
    ]
    return _table(["schedule_id", "job_code", "status", "scheduled_at"], rows)


def _mg_indexers(rng: random.Random) -> str:
    names = [
        "Design Config Grid",
        "Customer Grid",
        "Category Products",
        "Product Categories",
        "Catalog Rule Product",
        "Product EAV",
        "Stock",
        "Inventory",
        "Catalog Search",
        "Product Price",
    ]
    rows = [
        [
            n,
            rng.choice(["Ready", "Ready", "Reindex required"]),
            rng.choice(["Update on Save", "Update by Schedule"]),
            f"idle ({rng.randint(0, 40)} in backlog)",
            _ts(rng, 7),
        ]
        for n in names
    ]
    return _table(["Title", "Status", "Update On", "Schedule Status", "Schedule Updated"], rows)


def _mg_slowlog(rng: random.Random) -> str:
    def line(r: random.Random) -> str:
        return f"# Query_time: {r.randint(1, 9)}.{r.randint(100000, 999999)}  Lock_time: 0.000{r.randint(100, 999)} Rows_sent: {r.randint(1, 500)}  Rows_examined: {r.randint(10000, 900000)}\nSELECT `main_table`.* FROM `{r.choice(['quote', 'sales_order_grid', 'catalog_product_index_price', 'url_rewrite'])}` AS `main_table` WHERE (updated_at < '2026-11-0{r.randint(1, 9)}') LIMIT {r.randint(50, 500)};"

    return _lines(rng, rng.randint(8, 14), line)


_MAGENTO = _Kind(
    lang=_YO,
    look=(
        "Ẹ dúró díẹ̀, màá yẹ̀ ẹ́ wò.",
        "Jẹ́ kí n ṣàyẹ̀wò ẹ̀rọ náà báyìí.",
        "Ó dáa, jẹ́ kí n sá command náà.",
    ),
    ack=("Ó yé mi, mo ti kọ ọ́ sílẹ̀.", "Ó dáa, ẹ jẹ́ ká tẹ̀síwájú.", "Bẹ́ẹ̀ ni, a ó ṣe bẹ́ẹ̀."),
    done=(
        "Ó ti parí. Ẹ jẹ́ ká lọ sí èyí tó kàn.",
        "Command náà ṣiṣẹ́ láìsí àṣìṣe; ẹ jẹ́ ká tẹ̀síwájú.",
    ),
    days=("Ọjọ́ Ajé", "Ọjọ́ Ìṣẹ́gun", "Ọjọ́rú", "Ọjọ́bọ̀", "Ọjọ́ Ẹtì", "Ọjọ́ Àbámẹ́ta", "Ọjọ́ Àìkú"),
    people=("Adébáyọ̀", "Fúnmiláyọ̀", "Túndé", "Bísí", "Kẹ́hìndé", "Ṣẹ́gun", "Ìyábọ̀", "Ọláolúwa"),
    intro=(
        "Ẹ kú àárọ̀. Ilé ìtajà Magento wa ní ìṣòro láti àárọ̀ yìí: àwọn oníbàárà ń sanwó ṣùgbọ́n àwọn order kò yí padà, àti pé ìwádìí ọjà (search) ń lọ́ra. Ẹ jẹ́ ká wò ó pọ̀.",
        "Ẹ n lẹ́ o. A ní láti tún ilé ìtajà Magento ṣe lónìí — àwọn ìsanwó Stripe kan kò bá order mu, OpenSearch sì ń ṣe àìsàn.",
    ),
    intro_command="cd /var/www/shop && bin/magento indexer:status && bin/magento cron:run --group=index -v | tail -n 5",
    intro_output=_mg_indexers,
    ids=(
        _Id(
            "increment id of the order stuck in pending_payment",
            _order,
            "Ẹ fi àwọn order tí ó ṣẹ̀ṣẹ̀ wọlé hàn mí. Ọ̀kan wà tí oníbàárà sọ pé òun ti sanwó fún.",
            'mysql naija_mall -e "SELECT increment_id,status,state,grand_total,order_currency_code,p.method,created_at FROM sales_order o JOIN sales_order_payment p ON p.parent_id=o.entity_id ORDER BY created_at DESC LIMIT 7"',
            _mg_orders,
            "Order tí ó há ni {id} — ó ṣì wà ní pending_payment bí ó tilẹ̀ jẹ́ pé owó ti wọlé. Kì í ṣe {decoy}; ìyẹn ti parí dáadáa.",
        ),
        _Id(
            "Stripe payment intent id that failed to match a quote",
            _pi,
            "Ẹ wo log Stripe, kí ẹ sì wá ìsanwó tí kò bá quote mu.",
            "grep -h 'StripeIntegration\\|NoSuchEntity' var/log/system.log var/log/exception.log | tail -n 30",
            _mg_payments,
            "Ìsanwó tí kò bá quote mu ni {id}. Àwọn yòókù, bíi {decoy}, ti ṣàṣeyọrí.",
        ),
        _Id(
            "name of the yellow OpenSearch product index",
            _osidx,
            "Ẹ ṣàyẹ̀wò àwọn index OpenSearch — èwo ni ó ní ìṣòro?",
            "curl -s 'http://opensearch:9200/_cat/indices/naija_mall_product*?v' && curl -s 'http://opensearch:9200/_cat/aliases/naija_mall_product_1?v'",
            _mg_indices,
            "Index tí ó jẹ́ yellow ni {id}. Alias náà ṣì ń tọ́ka sí {decoy}, èyí tí ó jẹ́ green.",
        ),
    ),
    arts=(
        _Art(
            lambda r: (
                f"{r.choice(['Lagoon', 'Ankara', 'Eko', 'Zobo'])}_{r.choice(['GiftWrap', 'Loyalty', 'Checkout', 'Shipping'])}{token(r, 3)}"
            ),
            "bin/magento module:disable {name} && bin/magento cache:flush && bin/magento module:status {name}",
            _mg_module_loud,
            _mg_quiet,
            ("disabled", "dá dúró"),
            "Module {name} ń fa àṣìṣe ní checkout. Ẹ yanjú rẹ̀.",
            "Ẹ má yọ module {name} kúrò pẹ̀lú composer — ẹ kàn dá a dúró (disable) nìkan.",
            "Mo ti dá module {name} dúró (disabled); a kò yọ ọ́ kúrò, koodu rẹ̀ ṣì wà nínú vendor.",
            "What happened to the Magento module {name}?",
            "It was disabled (not removed with composer).",
        ),
        _Art(
            lambda r: (
                f"{r.choice(['agency', 'intern', 'contractor', 'seo'])}.{token(r, 4).lower()}"
            ),
            "n98-magerun2 admin:user:change-status {name} --deactivate && n98-magerun2 admin:user:list",
            _mg_admin_loud,
            _mg_quiet,
            ("inactive", "aláìṣiṣẹ́"),
            "Olùlò admin {name} kò gbọ́dọ̀ lè wọlé mọ́. Ẹ bójú tó o.",
            "Ẹ má pa olùlò admin {name} rẹ́ — ẹ sọ ọ́ di inactive nìkan; a nílò ìtàn iṣẹ́ rẹ̀.",
            "Olùlò admin {name} ti di aláìṣiṣẹ́ (inactive); a kò pa á rẹ́.",
            "What happened to the admin user {name}?",
            "It was made inactive (not deleted).",
        ),
        _Art(
            lambda r: (
                f"{r.choice(['paystack', 'flutterwave', 'smile', 'gig'])}/{r.choice(['magento2-module', 'm2-payments', 'magento-connector'])}-{token(r, 3).lower()}"
            ),
            "composer require '{name}:^2.1' --update-with-dependencies",
            _mg_composer_loud,
            _mg_quiet,
            ("Downgrading", "rolled back", "dá padà"),
            "Ẹ̀yà tuntun ti {name} ba checkout jẹ́. Ẹ ṣe nǹkan sí i.",
            "Ẹ má yọ {name} kúrò — ẹ dá a padà sí ẹ̀yà 2.1 nìkan.",
            "Mo ti dá {name} padà sí ẹ̀yà àtijọ́ (rolled back, 2.1); a kò yọ ọ́ kúrò.",
            "What happened to the composer package {name}?",
            "It was downgraded (rolled back) to the 2.1 line, not removed.",
        ),
    ),
    topics=(
        _Topic(
            "innodb_buffer_pool_size ti MySQL",
            ("innodb_buffer_pool_size",),
            ("24G", "20G", "28G", "18G"),
            (
                "àwọn ọjà ń yí padà lọ́pọ̀lọpọ̀ lójoojúmọ́",
                "ẹ̀rọ náà ní 32GB RAM",
                "MySQL ti rẹ̀wẹ̀sì nígbà ìtajà",
            ),
            "Which innodb_buffer_pool_size was decided for MySQL?",
        ),
        _Topic(
            "heap OpenSearch (-Xmx)",
            ("heap", "Xmx"),
            ("-Xmx8g", "-Xmx12g", "-Xmx6g", "-Xmx16g"),
            ("ẹ̀rọ náà ní 32GB RAM", "GC ń dá iṣẹ́ dúró púpọ̀", "a ò fẹ́ kọjá ìdajì RAM"),
            "Which OpenSearch heap size was decided?",
        ),
    ),
    tasks=(
        _Task("fi patch ààbò APSB26 sórí Magento", ("APSB26",), "apply the APSB26 security patch"),
        _Task("ṣe reindex kíkún fún catalog", ("reindex",), "run a full catalog reindex"),
        _Task(
            "fọ cache Redis nígbà tí ìtajà bá dínkù",
            ("Redis",),
            "flush the Redis cache in the low-traffic window",
        ),
    ),
    conds=(
        _Task("tí Black Friday bá ti parí", ("Black Friday",), "Black Friday is over"),
        _Task("nígbà tí queue RabbitMQ bá ṣófo", ("RabbitMQ",), "the RabbitMQ queue is empty"),
    ),
    hunches=(
        "{who} rò pé Cloudflare ló fa ìṣòro yìí, ṣùgbọ́n èmi kò gbà bẹ́ẹ̀.",
        "{who} sọ pé PHP-FPM ló ti kún, pé kò sí ohun tí ó ṣe Magento. Kí lẹ rò?",
    ),
    ticket=lambda r: f"SHOP-{r.randint(1000, 9999)}",
    fillers=(
        _Filler(
            ("Ṣé cron ń ṣiṣẹ́ dáadáa?", "Ẹ fi àwọn cron job tó kẹ́yìn hàn mí."),
            lambda r: (
                'mysql naija_mall -e "SELECT schedule_id, job_code, status, scheduled_at FROM cron_schedule ORDER BY scheduled_at DESC LIMIT 20"'
            ),
            _mg_cron,
            ("Cron ń ṣiṣẹ́; àwọn job {n} nìkan ni wọ́n missed.", "Kò sí ìṣòro pàtàkì nínú cron."),
        ),
        _Filler(
            ("Ipò àwọn indexer báwo ni?", "Ẹ ṣàyẹ̀wò indexer:status lẹ́ẹ̀kan sí i."),
            lambda r: "bin/magento indexer:status",
            _mg_indexers,
            ("Ọ̀pọ̀ indexer ti ṣetán; backlog tó ga jùlọ jẹ́ {n}.", "Àwọn indexer dára."),
        ),
        _Filler(
            ("Àwọn query wo ló ń lọ́ra nínú MySQL?", "Ẹ wo slow log MySQL."),
            lambda r: "tail -n 60 /var/log/mysql/mysql-slow.log",
            _mg_slowlog,
            (
                "Query tó burú jù ń gba ìṣẹ́jú-àáyá {n} lórí tábìlì quote; màá fi index kún un lẹ́yìn náà.",
                "Slow log kò burú púpọ̀.",
            ),
        ),
    ),
)


# -- istio_mesh (Punjabi) ---------------------------------------------------------

_PA = {
    "dec_dictate": "ਫ਼ੈਸਲਾ: {topic} — {value}। ਕਾਰਨ ਇਹ ਹੈ ਕਿ {reason}।",
    "dec_propose": "{topic} ਲਈ ਮੇਰਾ ਸੁਝਾਅ {value} ਹੈ, ਕਿਉਂਕਿ {reason}। ਕੀ ਤੁਸੀਂ ਸਹਿਮਤ ਹੋ?",
    "dec_yes": "ਹਾਂ ਜੀ, ਸਹਿਮਤ ਹਾਂ। ਕਰ ਦਿਓ।",
    "dec_propose_old": "{topic} ਲਈ ਮੈਂ {old} ਦਾ ਸੁਝਾਅ ਦਿੰਦਾ ਹਾਂ। ਤੁਹਾਡਾ ਕੀ ਖ਼ਿਆਲ ਹੈ?",
    "dec_change": "ਨਹੀਂ, {old} ਨਹੀਂ। ਉਸਦੀ ਥਾਂ {value} ਵਰਤੋ, ਕਿਉਂਕਿ {reason}।",
    "dec_old": "{topic} ਲਈ ਹਾਲ ਦੀ ਘੜੀ {old} ਲਿਖ ਲਓ।",
    "dec_correct": "ਸੋਧ — {topic}: {old} ਨਹੀਂ, {value} ਹੋਵੇਗਾ, ਕਿਉਂਕਿ {reason}।",
    "dec_colleague": "{topic} ਬਾਰੇ {who} ਨੇ ਕਿਹਾ ਹੈ ਕਿ {value} ਹੀ ਠੀਕ ਹੈ, ਕਿਉਂਕਿ {reason}। ਉਹਨਾਂ ਦੀ ਗੱਲ ਮੰਨ ਲੈਂਦੇ ਹਾਂ।",
    "dec_ask": "{topic} ਬਾਰੇ ਇੱਕ ਸਵਾਲ — ਤੁਹਾਨੂੰ ਕਿਹੜਾ ਚਾਹੀਦਾ ਹੈ?\n- {a}\n- {b}",
    "dec_answer": "{value} — {reason}।",
    "dec_confirm": "ਠੀਕ ਹੈ, ਤੈਅ ਹੋ ਗਿਆ: {topic} — {value}। ਮੈਂ ਹੁਣੇ ਲਾਗੂ ਕਰਦਾ ਹਾਂ।",
    "next_passing": "ਹਾਂ ਸੱਚ, {day} ਨੂੰ {task} ਹੈ।",
    "next_deadline": "ਇੱਕ ਗੱਲ ਹੋਰ: {day} ਤੋਂ ਪਹਿਲਾਂ ਹਰ ਹਾਲ ਵਿੱਚ {task} ਹੈ।",
    "next_promise": "ਮੇਰਾ ਵਾਅਦਾ ਹੈ: {cond}, ਮੈਂ ਤੁਰੰਤ {task} ਸ਼ੁਰੂ ਕਰ ਦਿਆਂਗਾ।",
    "promise_ask": "ਹੋਰ ਕੋਈ ਕੰਮ ਬਾਕੀ ਹੈ?",
    "thanks": "ਬਹੁਤ ਵਧੀਆ, ਧੰਨਵਾਦ।",
    "promise_ack": "ਕੋਈ ਗੱਲ ਨਹੀਂ, ਭੁੱਲਾਂਗਾ ਨਹੀਂ।",
    "next_ack": "ਨੋਟ ਕਰ ਲਿਆ, ਕੰਮਾਂ ਦੀ ਲਿਸਟ ਵਿੱਚ ਪਾ ਦਿੱਤਾ।",
    "tickets": "{closed} ਵਾਲੀ ticket ਤਾਂ ਪਹਿਲਾਂ ਹੀ ਬੰਦ ਹੋ ਚੁੱਕੀ ਹੈ, ਉਸਨੂੰ ਨਾ ਛੇੜੋ। ਪਰ {open} ਹਾਲੇ ਵੀ ਖੁੱਲ੍ਹੀ ਹੈ।",
    "hunch_reply": "ਮੈਨੂੰ ਨਹੀਂ ਲੱਗਦਾ — logs ਵਿੱਚ ਇਸਦਾ ਕੋਈ ਨਿਸ਼ਾਨ ਨਹੀਂ।",
}


def _is_access(rng: random.Random, needle: str, decoys: list[str]) -> str:
    out = []
    rows = [
        (needle, "503", "UF,URX", "upstream_reset_before_response_started{connection_failure}")
    ] + [(d, "200", "-", "-") for d in decoys]
    rng.shuffle(rows)
    for rid, code, flags, det in rows:
        out.append(
            f'[2026-12-07T{rng.randint(8, 11):02d}:{rng.randint(10, 59)}:{rng.randint(10, 59)}.{rng.randint(100, 999)}Z] "POST /api/v1/checkout HTTP/1.1" {code} {flags} {det} - "-" {rng.randint(100, 900)} {rng.randint(0, 9000)} {rng.randint(1, 3000)} - "{_ip(rng, "10.8")}" "okhttp/4.12.0" "{rid}" "payments.shop.svc.cluster.local:8080" "{_ip(rng, "10.8")}:8080" outbound|8080||payments.shop.svc.cluster.local'
        )
    return "\n".join(out)


def _pod(rng: random.Random) -> str:
    return f"{rng.choice(['payments', 'cart', 'ratings', 'checkout'])}-v{rng.randint(1, 3)}-{hexits(rng, rng.choice([9, 10]))}-{token(rng, 5, 'bcdfghjklmnpqrstvwxz2456789')}"


def _is_pods(rng: random.Random, needle: str, decoys: list[str]) -> str:
    rows = [
        [needle, "1/2", "CrashLoopBackOff", str(rng.randint(9, 40)), f"{rng.randint(10, 50)}m"]
    ] + [[d, "2/2", "Running", str(rng.randint(0, 2)), f"{rng.randint(2, 30)}d"] for d in decoys]
    rng.shuffle(rows)
    return _cols(["NAME", "READY", "STATUS", "RESTARTS", "AGE"], rows)


def _digest(rng: random.Random) -> str:
    return "sha256:" + hexits(rng, 64)


def _is_images(rng: random.Random, needle: str, decoys: list[str]) -> str:
    out = []
    rows = [("payments-v2", needle, "1.23.4-distroless (unexpected)")] + [
        (
            rng.choice(["cart-v1", "ratings-v3", "checkout-v1", "gateway", "payments-v1"]),
            d,
            "1.24.1-distroless",
        )
        for d in decoys
    ]
    rng.shuffle(rows)
    for dep, dg, tag in rows:
        out.append(f"{dep:<14} istio-proxy   docker.io/istio/proxyv2@{dg}   # {tag}")
    return "\n".join(out)


def _is_quiet(rng: random.Random, name: str) -> str:
    return f"Warning: resource is managed by Argo CD; changes may be reverted\n[exit 0 after {rng.randint(1, 9)}.{rng.randint(10, 99)}s]"


def _is_pa_loud(rng: random.Random, name: str) -> str:
    rows = [
        ["istio-system", "default", "STRICT", f"{rng.randint(50, 300)}d"],
        ["shop", "payments-strict", "STRICT", f"{rng.randint(5, 40)}d"],
        ["legacy", name, "PERMISSIVE", "2m"],
    ]
    return _cols(["NAMESPACE", "NAME", "MODE", "AGE"], rows)


def _is_ns_loud(rng: random.Random, name: str) -> str:
    rows = [
        ["default", "Active", f"{rng.randint(300, 900)}d", ""],
        ["shop", "Active", f"{rng.randint(100, 300)}d", "enabled"],
        ["istio-system", "Active", f"{rng.randint(100, 300)}d", ""],
        [name, "Active", f"{rng.randint(10, 90)}d", "disabled"],
    ]
    return _cols(["NAME", "STATUS", "AGE", "ISTIO-INJECTION"], rows)


def _is_deploy_loud(rng: random.Random, name: str) -> str:
    rows = [
        ["payments-v1", "3/3", "3", "3", f"{rng.randint(10, 90)}d"],
        ["cart-v1", "2/2", "2", "2", f"{rng.randint(10, 90)}d"],
        [name, "0/0", "0", "0", f"{rng.randint(2, 30)}d"],
    ]
    return f"deployment.apps/{name} scaled\n" + _cols(
        ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"], rows
    )


def _is_proxy_status(rng: random.Random) -> str:
    rows = [
        [
            f"{rng.choice(['cart', 'ratings', 'gateway', 'frontend'])}-{hexits(rng, 9)}-{token(rng, 5, 'bcdfghjklmnpqrstvwxz2456789')}.shop",
            "Kubernetes",
            rng.choice(["SYNCED", "SYNCED", "STALE"]),
            "SYNCED",
            "SYNCED",
            "SYNCED",
            f"istiod-{hexits(rng, 9)}-{token(rng, 5, 'bcdfghjklmnpqrstvwxz2456789')}",
            "1.24.1",
        ]
        for _ in range(rng.randint(10, 16))
    ]
    return _cols(["NAME", "CLUSTER", "CDS", "LDS", "EDS", "RDS", "ISTIOD", "VERSION"], rows)


def _is_clusters(rng: random.Random) -> str:
    rows = [
        [
            f"outbound|{rng.choice(['8080', '9090', '443'])}|{rng.choice(['v1', 'v2', ''])}|{rng.choice(['cart', 'ratings', 'frontend', 'inventory'])}.shop.svc.cluster.local",
            "EDS",
            rng.choice(["ROUND_ROBIN", "LEAST_REQUEST"]),
        ]
        for _ in range(rng.randint(14, 24))
    ]
    return _cols(["SERVICE FQDN", "TYPE", "LB POLICY"], rows)


def _is_events(rng: random.Random) -> str:
    def line(r: random.Random) -> str:
        return f"{r.randint(1, 59)}m   Normal   {r.choice(['Pulled', 'Created', 'Started', 'Scheduled', 'SuccessfulCreate'])}   pod/{r.choice(['cart', 'frontend', 'inventory'])}-{hexits(r, 9)}   {r.choice(['Container image already present on machine', 'Started container istio-proxy', 'Successfully assigned shop/ to node-pool-b'])}"

    return "LAST SEEN   TYPE     REASON    OBJECT    MESSAGE\n" + _lines(
        rng, rng.randint(15, 25), line
    )


_ISTIO = _Kind(
    lang=_PA,
    look=("ਇੱਕ ਮਿੰਟ, ਮੈਂ ਵੇਖਦਾ ਹਾਂ।", "ਮੈਂ ਹੁਣੇ command ਚਲਾ ਕੇ ਵੇਖਦਾ ਹਾਂ।", "ਠੀਕ ਹੈ, ਇਸਨੂੰ ਚੈੱਕ ਕਰਦੇ ਹਾਂ।"),
    ack=("ਠੀਕ ਹੈ, ਮੈਂ ਨੋਟ ਕਰ ਲਿਆ।", "ਸਮਝ ਗਿਆ, ਅੱਗੇ ਚੱਲਦੇ ਹਾਂ।", "ਹਾਂ ਜੀ, ਇਵੇਂ ਹੀ ਕਰਦੇ ਹਾਂ।"),
    done=("ਹੋ ਗਿਆ। ਅਗਲੇ ਕੰਮ ਵੱਲ ਚੱਲੀਏ।", "Command ਬਿਨਾਂ ਕਿਸੇ error ਦੇ ਚੱਲ ਗਈ, ਅੱਗੇ ਵਧਦੇ ਹਾਂ।"),
    days=("ਸੋਮਵਾਰ", "ਮੰਗਲਵਾਰ", "ਬੁੱਧਵਾਰ", "ਵੀਰਵਾਰ", "ਸ਼ੁੱਕਰਵਾਰ", "ਸ਼ਨਿੱਚਰਵਾਰ", "ਐਤਵਾਰ"),
    people=("ਹਰਪ੍ਰੀਤ", "ਗੁਰਦੀਪ", "ਮਨਜੀਤ", "ਸਿਮਰਨ", "ਜਸਪ੍ਰੀਤ", "ਅਮਨਦੀਪ", "ਨਵਨੀਤ", "ਕੁਲਵਿੰਦਰ"),
    intro=(
        "ਸਤ ਸ੍ਰੀ ਅਕਾਲ। ਸਵੇਰ ਤੋਂ mesh ਵਿੱਚ ਗੜਬੜ ਹੈ: checkout ਤੇ 503 errors ਆ ਰਹੇ ਨੇ ਅਤੇ Kiali ਵਿੱਚ payments ਵਾਲਾ ਹਿੱਸਾ ਲਾਲ ਦਿਸਦਾ ਹੈ। ਆਓ ਇੱਕ-ਇੱਕ ਕਰਕੇ ਵੇਖੀਏ।",
        "ਸਤ ਸ੍ਰੀ ਅਕਾਲ ਜੀ। ਅੱਜ Istio ਵਾਲਾ ਕਲੱਸਟਰ ਠੀਕ ਕਰਨਾ ਹੈ — payments service ਦੀਆਂ requests fail ਹੋ ਰਹੀਆਂ ਨੇ ਅਤੇ ਕੁਝ sidecars ਪੁਰਾਣੇ ਲੱਗਦੇ ਨੇ।",
    ),
    intro_command="istioctl proxy-status",
    intro_output=_is_proxy_status,
    ids=(
        _Id(
            "x-request-id of the failing 503 checkout request",
            _uuid,
            "payments ਵਾਲੇ 503 ਦੀ request ID ਲੱਭੋ, access logs ਵਿੱਚੋਂ।",
            "kubectl logs -n shop deploy/checkout -c istio-proxy --since=30m | grep 'POST /api/v1/checkout' | tail -n 8",
            _is_access,
            "503 ਵਾਲੀ request ਦੀ x-request-id {id} ਹੈ (UF,URX — upstream connection failure)। {decoy} ਵਾਲੀ request ਤਾਂ 200 ਨਾਲ ਠੀਕ ਚੱਲੀ।",
        ),
        _Id(
            "name of the pod in CrashLoopBackOff",
            _pod,
            "shop namespace ਦੇ pods ਵਿਖਾਓ — ਕਿਹੜਾ ਵਾਰ-ਵਾਰ restart ਹੋ ਰਿਹਾ ਹੈ?",
            "kubectl get pods -n shop -o wide | head -n 12",
            _is_pods,
            "ਖ਼ਰਾਬ pod {id} ਹੈ — CrashLoopBackOff ਵਿੱਚ ਅਤੇ ਸਿਰਫ਼ 1/2 ready। {decoy} ਵਰਗੇ ਬਾਕੀ pods ਠੀਕ ਨੇ।",
        ),
        _Id(
            "image digest of the stale istio-proxy sidecar",
            _digest,
            "ਕਿਹੜੇ deployment ਵਿੱਚ ਪੁਰਾਣਾ sidecar image ਚੱਲ ਰਿਹਾ ਹੈ?",
            'kubectl get deploy -n shop -o jsonpath=\'{range .items[*]}{.metadata.name}{"\\t"}{.spec.template.spec.containers[?(@.name=="istio-proxy")].image}{"\\n"}{end}\'',
            _is_images,
            "ਪੁਰਾਣਾ sidecar payments-v2 ਵਿੱਚ ਹੈ, digest {id} (1.23.4)। {decoy} ਵਾਲਾ image ਨਵਾਂ 1.24.1 ਹੈ, ਉਹ ਠੀਕ ਹੈ।",
        ),
    ),
    arts=(
        _Art(
            lambda r: (
                f"{r.choice(['legacy', 'batch', 'erp', 'mainframe'])}-mtls-{token(r, 4).lower()}"
            ),
            'kubectl patch peerauthentication {name} -n legacy --type merge -p \'{{"spec":{{"mtls":{{"mode":"PERMISSIVE"}}}}}}\' && kubectl get peerauthentication -A',
            _is_pa_loud,
            _is_quiet,
            ("PERMISSIVE",),
            "{name} PeerAuthentication ਕਰਕੇ ਪੁਰਾਣੇ ERP ਵਾਲੇ calls fail ਹੋ ਰਹੇ ਨੇ। ਇਸਦਾ ਕੁਝ ਕਰੋ।",
            "{name} PeerAuthentication ਨੂੰ delete ਨਾ ਕਰਿਓ — ਸਿਰਫ਼ PERMISSIVE mode ਵਿੱਚ ਕਰ ਦਿਓ।",
            "{name} PeerAuthentication ਹੁਣ PERMISSIVE mode ਵਿੱਚ ਹੈ; ਮੈਂ ਇਸਨੂੰ delete ਨਹੀਂ ਕੀਤਾ।",
            "What happened to the PeerAuthentication {name}?",
            "It was switched from STRICT to PERMISSIVE mode (not deleted).",
        ),
        _Art(
            lambda r: (
                f"{r.choice(['reports', 'etl', 'cronjobs', 'sandbox'])}-{token(r, 4).lower()}"
            ),
            "kubectl label namespace {name} istio-injection=disabled --overwrite && kubectl get ns -L istio-injection",
            _is_ns_loud,
            _is_quiet,
            ("disabled", "ਬੰਦ"),
            "{name} namespace ਦੇ jobs sidecar ਕਰਕੇ ਕਦੇ ਖ਼ਤਮ ਨਹੀਂ ਹੁੰਦੇ। ਵੇਖ ਲਓ।",
            "{name} namespace ਵਿੱਚੋਂ Istio uninstall ਨਾ ਕਰਿਓ — ਸਿਰਫ਼ sidecar injection ਬੰਦ ਕਰ ਦਿਓ।",
            "{name} namespace ਵਿੱਚ sidecar injection ਬੰਦ ਕਰ ਦਿੱਤੀ (istio-injection=disabled); ਬਾਕੀ mesh ਜਿਵੇਂ ਦਾ ਤਿਵੇਂ ਹੈ।",
            "What happened to sidecar injection in the namespace {name}?",
            "It was disabled (istio-injection=disabled), not uninstalled.",
        ),
        _Art(
            lambda r: (
                f"{r.choice(['payments', 'ratings', 'search', 'promo'])}-canary-{token(r, 4).lower()}"
            ),
            "kubectl scale deploy {name} -n shop --replicas=0 && kubectl get deploy -n shop",
            _is_deploy_loud,
            _is_quiet,
            ("0/0", "scaled", "ਸਕੇਲ"),
            "{name} deployment ਵਿੱਚ memory leak ਹੈ। ਇਸਨੂੰ ਰੋਕੋ।",
            "{name} deployment ਨੂੰ delete ਨਾ ਕਰਿਓ — ਸਿਰਫ਼ replicas 0 ਤੇ ਕਰ ਦਿਓ।",
            "{name} deployment ਨੂੰ 0 replicas ਤੇ ਸਕੇਲ ਡਾਊਨ ਕਰ ਦਿੱਤਾ; deployment ਆਪ ਮੌਜੂਦ ਹੈ।",
            "What happened to the deployment {name}?",
            "It was scaled down to 0 replicas (not deleted).",
        ),
    ),
    topics=(
        _Topic(
            "DestinationRule ਵਿੱਚ outlier detection ਦਾ baseEjectionTime",
            ("baseEjectionTime",),
            ("45s", "90s", "2m", "30s", "3m"),
            (
                "payments pods ਨੂੰ ਗਰਮ ਹੋਣ ਵਿੱਚ ਸਮਾਂ ਲੱਗਦਾ ਹੈ",
                "ਵਾਰ-ਵਾਰ eject ਹੋਣ ਨਾਲ capacity ਘੱਟ ਜਾਂਦੀ ਹੈ",
                "SRE ਟੀਮ ਦੀ ਸਿਫ਼ਾਰਸ਼ ਹੈ",
            ),
            "Which baseEjectionTime was decided for outlier detection?",
        ),
        _Topic(
            "payments v2 canary ਦਾ traffic weight",
            ("weight", "canary"),
            ("8%", "15%", "20%", "35%", "60%"),
            ("ਪਿਛਲੀ ਵਾਰ rollout ਵਿੱਚ ਗੜਬੜ ਹੋਈ ਸੀ", "error budget ਅਜੇ ਕਾਫ਼ੀ ਹੈ", "ਸੇਲ ਦਾ ਹਫ਼ਤਾ ਹੈ"),
            "Which traffic weight was decided for the payments v2 canary?",
        ),
    ),
    tasks=(
        _Task("Istio 1.24 ਦਾ upgrade ਕਰਨਾ", ("1.24",), "upgrade Istio to 1.24"),
        _Task("mesh ਦਾ root CA rotate ਕਰਨਾ", ("root CA",), "rotate the mesh root CA"),
        _Task(
            "reports namespace ਨੂੰ ambient mode ਵਿੱਚ ਲੈ ਜਾਣਾ",
            ("ambient",),
            "move the reports namespace to ambient mode",
        ),
    ),
    conds=(
        _Task("ਜਦੋਂ ਸਾਰੇ sidecars SYNCED ਹੋ ਜਾਣ", ("SYNCED",), "all sidecars show SYNCED"),
        _Task("ਜਿਵੇਂ ਹੀ change freeze ਖ਼ਤਮ ਹੋਵੇ", ("change freeze",), "the change freeze ends"),
    ),
    hunches=(
        "{who} ਸੋਚਦਾ ਹੈ ਕਿ ਇਹ ਸਾਰਾ ਮਸਲਾ CoreDNS ਦਾ ਹੈ, ਪਰ ਮੈਨੂੰ ਯਕੀਨ ਨਹੀਂ।",
        "{who} ਕਹਿੰਦੀ ਹੈ ਕਿ ਗੜਬੜ AWS load balancer ਵਿੱਚ ਹੈ, mesh ਵਿੱਚ ਨਹੀਂ। ਤੁਸੀਂ ਕੀ ਸੋਚਦੇ ਹੋ?",
    ),
    ticket=lambda r: f"SRE-{r.randint(1000, 9999)}",
    fillers=(
        _Filler(
            ("ਸਾਰੇ proxies sync ਵਿੱਚ ਨੇ?", "proxy-status ਦੁਬਾਰਾ ਵਿਖਾਓ।"),
            lambda r: "istioctl proxy-status",
            _is_proxy_status,
            (
                "ਜ਼ਿਆਦਾਤਰ proxies SYNCED ਨੇ; {n} ਸਕਿੰਟ ਪਹਿਲਾਂ istiod ਨੇ push ਕੀਤਾ।",
                "ਕੁਝ STALE ਨੇ, ਪਰ ਕੋਈ ਵੱਡੀ ਗੱਲ ਨਹੀਂ।",
            ),
        ),
        _Filler(
            ("frontend ਦੇ Envoy clusters ਵੇਖੋ।", "Envoy config dump ਵਿੱਚ clusters ਕਿਹੜੇ ਨੇ?"),
            lambda r: (
                f"istioctl proxy-config clusters deploy/frontend -n shop | head -n {r.randint(20, 30)}"
            ),
            _is_clusters,
            ("Clusters ਠੀਕ ਨੇ; {n} outbound clusters ਦਿਸਦੇ ਨੇ।", "ਸਾਰੇ clusters EDS ਤੋਂ ਆ ਰਹੇ ਨੇ, ਠੀਕ ਹੈ।"),
        ),
        _Filler(
            ("shop namespace ਦੇ ਤਾਜ਼ਾ events ਕੀ ਨੇ?", "kubectl events ਵੇਖ ਲਓ।"),
            lambda r: "kubectl get events -n shop --sort-by=.lastTimestamp | tail -n 25",
            _is_events,
            ("ਕੋਈ ਚੇਤਾਵਨੀ ਨਹੀਂ; ਪਿਛਲੇ {n} ਮਿੰਟਾਂ ਵਿੱਚ ਸਿਰਫ਼ ਆਮ events।", "Events ਆਮ ਨੇ।"),
        ),
    ),
)


# -- freeipa_realm (Khmer) --------------------------------------------------------

_KM = {
    "dec_dictate": "សេចក្តីសម្រេច៖ {topic} — {value}។ មូលហេតុ៖ {reason}។",
    "dec_propose": "សម្រាប់ {topic} ខ្ញុំស្នើ {value} ព្រោះ {reason}។ តើអ្នកយល់ព្រមទេ?",
    "dec_yes": "បាទ យល់ព្រម។ ធ្វើទៅ។",
    "dec_propose_old": "សម្រាប់ {topic} ខ្ញុំស្នើ {old}។ តើអ្នកគិតយ៉ាងណា?",
    "dec_change": "ទេ មិនមែន {old} ទេ។ ប្រើ {value} ជំនួសវិញ ព្រោះ {reason}។",
    "dec_old": "សម្រាប់ {topic} សូមកត់ {old} ទុកសិនទៅ។",
    "dec_correct": "កែតម្រូវ — {topic}៖ មិនមែន {old} ទេ គឺ {value} វិញ ព្រោះ {reason}។",
    "dec_colleague": "{who} បានប្រាប់ខ្ញុំអំពី {topic}៖ គាត់ថា {value} ល្អជាង ព្រោះ {reason}។ តោះធ្វើតាមគាត់។",
    "dec_ask": "មានសំណួរមួយអំពី {topic} — តើអ្នកចង់បានមួយណា?\n- {a}\n- {b}",
    "dec_answer": "{value} — {reason}។",
    "dec_confirm": "បាទ សម្រេចហើយ៖ {topic} — {value}។ ខ្ញុំនឹងអនុវត្តវាឥឡូវនេះ។",
    "next_passing": "និយាយអញ្ចឹង {day}នេះ យើងត្រូវ{task}។",
    "next_deadline": "មួយទៀត៖ មុន{day} យើងត្រូវតែ{task} ឲ្យរួច។",
    "next_promise": "ខ្ញុំសន្យា៖ {cond} ខ្ញុំនឹង{task} ភ្លាម។",
    "promise_ask": "តើនៅមានការងារអ្វីសល់ទៀតទេ?",
    "thanks": "ល្អណាស់ អរគុណច្រើន។",
    "promise_ack": "មិនអីទេ ខ្ញុំមិនភ្លេចទេ។",
    "next_ack": "បានកត់ត្រាហើយ ដាក់ក្នុងបញ្ជីការងាររួចរាល់។",
    "tickets": "Ticket {closed} ត្រូវបានបិទរួចហើយ កុំប៉ះវា។ ប៉ុន្តែ {open} នៅបើកនៅឡើយ។",
    "hunch_reply": "ខ្ញុំមិនគិតដូច្នោះទេ — ក្នុង log គ្មានសញ្ញាបែបនោះទេ។",
}


def _certserial(rng: random.Random) -> str:
    return str(rng.randint(10**9, 10**10 - 1))


def _ipa_certs(rng: random.Random, needle: str, decoys: list[str]) -> str:
    out = [
        "-----------------------",
        f"{len(decoys) + 1} certificates matched",
        "-----------------------",
    ]
    rows = [
        (
            needle,
            "CN=ldap01.corp.khmerbank.local,O=CORP.KHMERBANK.LOCAL",
            "VALID",
            "Mon Dec 14 03:11:09 2026 UTC",
        )
    ]
    rows += [
        (
            d,
            f"CN={rng.choice(['web01', 'vpn', 'mail', 'jenkins', 'grafana'])}.corp.khmerbank.local,O=CORP.KHMERBANK.LOCAL",
            rng.choice(["VALID", "REVOKED"]),
            f"Sun Oct {rng.randint(1, 28)} 0{rng.randint(1, 9)}:22:41 2027 UTC",
        )
        for d in decoys
    ]
    rng.shuffle(rows)
    for s, subj, st, until in rows:
        out += [
            f"  Serial number (hex): 0x{int(s):X}",
            f"  Serial number: {s}",
            f"  Subject: {subj}",
            "  Issuer: CN=Certificate Authority,O=CORP.KHMERBANK.LOCAL",
            f"  Not After: {until}",
            f"  Status: {st}",
            "",
        ]
    out.append(
        "----------------------------\nNumber of entries returned "
        + str(len(rows))
        + "\n----------------------------"
    )
    return "\n".join(out)


def _cmreq(rng: random.Random) -> str:
    return f"2026{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}{rng.randint(0, 23):02d}{rng.randint(0, 59):02d}{rng.randint(0, 59):02d}"


def _ipa_getcert(rng: random.Random, needle: str, decoys: list[str]) -> str:
    out = [f"Number of certificates and requests being tracked: {len(decoys) + 1}."]
    rows = [
        (
            needle,
            "CA_UNREACHABLE",
            "/etc/pki/tls/certs/ldap01.crt",
            "ca-error: Server at https://ipa02.corp.khmerbank.local/ipa/xml failed request, will retry: 4301 (RPC failed at server.  Certificate operation cannot be completed: Unable to communicate with CMS (503)).",
        )
    ]
    rows += [
        (
            d,
            "MONITORING",
            rng.choice(
                [
                    "/var/lib/ipa/ra-agent.pem",
                    "/etc/httpd/alias/server.crt",
                    "/var/lib/ipa/certs/httpd.crt",
                    "/etc/pki/pki-tomcat/alias",
                ]
            ),
            "",
        )
        for d in decoys
    ]
    rng.shuffle(rows)
    for rid, st, path, err in rows:
        out += [f"Request ID '{rid}':", f"\tstatus: {st}"]
        if err:
            out.append(f"\t{err}")
        out += [
            "\tstuck: no",
            f"\tkey pair storage: type=FILE,location='{path.replace('.crt', '.key')}'",
            f"\tcertificate: type=FILE,location='{path}'",
            "\tCA: IPA",
            f"\texpires: 2026-12-{rng.randint(10, 28)} 0{rng.randint(1, 9)}:14:03 UTC",
            "\tauto-renew: yes",
        ]
    return "\n".join(out)


def _ipa_uids(rng: random.Random, needle: str, decoys: list[str]) -> str:
    out = []
    people = ["sokha", "dara", "vuthy", "chanthou", "pisey", "rithy", "malis"]
    rng.shuffle(people)
    for uid, who in zip([needle, *decoys], people, strict=False):
        extra = (
            "  Kerberos principal alias: svc-payroll@CORP.KHMERBANK.LOCAL (conflict: duplicate alias)"
            if uid == needle
            else f"  Kerberos principal alias: {who}@CORP.KHMERBANK.LOCAL"
        )
        out += [
            f"dn: uid={who},cn=users,cn=accounts,dc=corp,dc=khmerbank,dc=local",
            f"  User login: {who}",
            f"  UID: {rng.randint(1500000000, 1599999999)}",
            f"  ipaUniqueID: {uid}",
            extra,
            "",
        ]
    return "\n".join(out)


def _ipa_quiet(rng: random.Random, name: str) -> str:
    return f"Password for admin@CORP.KHMERBANK.LOCAL: \n[exit 0 after {rng.randint(1, 5)}.{rng.randint(10, 99)}s]"


def _ipa_user_loud(rng: random.Random, name: str) -> str:
    return f'-----------------------------------\nDisabled user account "{name}"\n-----------------------------------\n  User login: {name}\n  Account disabled: True\n  Preserved user: False'


def _ipa_sudo_loud(rng: random.Random, name: str) -> str:
    return f'----------------------------------\nDisabled Sudo Rule "{name}"\n----------------------------------\n  Rule name: {name}\n  Enabled: False\n  Host category: all'


def _ipa_keytab_loud(rng: random.Random, name: str) -> str:
    k = rng.randint(2, 8)
    return f"Keytab successfully retrieved and stored in: /tmp/{name}.keytab\n[rotate-keytab] host/{name}@CORP.KHMERBANK.LOCAL: keytab rotated, kvno {k} -> {k + 1}\nKVNO Timestamp           Principal\n---- ------------------- ------------------------------------------------------\n   {k + 1} 12/07/2026 10:21:44 host/{name}@CORP.KHMERBANK.LOCAL (aes256-cts-hmac-sha1-96)"


def _ipa_sssd(rng: random.Random) -> str:
    def line(r: random.Random) -> str:
        return r.choice(
            [
                f"(2026-12-07 {r.randint(10, 23)}:{r.randint(10, 59)}:{r.randint(10, 59)}): [be[corp.khmerbank.local]] [sdap_online_check_handler_done] (0x0400): [RID#{r.randint(1000, 9999)}] Backend is online",
                f"(2026-12-07 {r.randint(10, 23)}:{r.randint(10, 59)}:{r.randint(10, 59)}): [be[corp.khmerbank.local]] [ipa_hbac_evaluate_rules] (0x0400): [RID#{r.randint(1000, 9999)}] Access granted by HBAC rule [allow_{r.choice(['admins', 'dba', 'web'])}]",
                f"(2026-12-07 {r.randint(10, 23)}:{r.randint(10, 59)}:{r.randint(10, 59)}): [pam] [pam_dp_process_reply] (0x0200): [CID#{r.randint(1, 999)}] received: [0 (Success)][corp.khmerbank.local]",
                f"(2026-12-07 {r.randint(10, 23)}:{r.randint(10, 59)}:{r.randint(10, 59)}): [nss] [cache_req_search_cache] (0x0400): [CID#{r.randint(1, 999)}] CR #{r.randint(100, 999)}: Cached entry is valid, returning..",
            ]
        )

    return _lines(rng, rng.randint(20, 35), line)


def _ipa_topology(rng: random.Random) -> str:
    out = ["------------------", f"{rng.randint(3, 6)} segments matched", "------------------"]
    for a, b_ in (("ipa01", "ipa02"), ("ipa02", "ipa03"), ("ipa01", "ipa03")):
        out += [
            f"  Segment name: {a}.corp.khmerbank.local-to-{b_}.corp.khmerbank.local",
            f"  Left node: {a}.corp.khmerbank.local",
            f"  Right node: {b_}.corp.khmerbank.local",
            "  Connectivity: both",
            "",
        ]
    out.append(
        f"replication status: last update {_ts(rng, 7)} status: Error (0) Replica acquired successfully: Incremental update succeeded"
    )
    return "\n".join(out)


def _ipa_klist(rng: random.Random) -> str:
    rows = [
        f"12/07/2026 {rng.randint(8, 11):02d}:{rng.randint(10, 59)}:00  12/08/2026 {rng.randint(8, 11):02d}:{rng.randint(10, 59)}:00  {svc}"
        for svc in (
            "krbtgt/CORP.KHMERBANK.LOCAL@CORP.KHMERBANK.LOCAL",
            "HTTP/ipa01.corp.khmerbank.local@CORP.KHMERBANK.LOCAL",
            "ldap/ipa02.corp.khmerbank.local@CORP.KHMERBANK.LOCAL",
        )
    ]
    return (
        "Ticket cache: KCM:0:41822\nDefault principal: admin@CORP.KHMERBANK.LOCAL\n\nValid starting       Expires              Service principal\n"
        + "\n".join(rows)
        + f"\n\nipa: INFO: The ipactl command was successful\nDirectory Service: RUNNING\nkrb5kdc Service: RUNNING\nkadmin Service: RUNNING\nhttpd Service: RUNNING\nipa-custodia Service: RUNNING\npki-tomcatd Service: RUNNING\nipa-otpd Service: RUNNING\nipa-dnskeysyncd Service: RUNNING\n{rng.randint(1, 9)} replicas reachable"
    )


_FREEIPA = _Kind(
    lang=_KM,
    look=("សូមរង់ចាំបន្តិច ខ្ញុំនឹងពិនិត្យមើល។", "ខ្ញុំនឹងដំណើរការ command ឥឡូវនេះ។", "បាទ តោះពិនិត្យមើលវា។"),
    ack=("បាទ ខ្ញុំបានកត់ត្រាទុកហើយ។", "យល់ហើយ តោះបន្តទៅមុខ។", "បាទ ធ្វើអញ្ចឹងចុះ។"),
    done=("រួចរាល់ហើយ។ តោះទៅកិច្ចការបន្ទាប់។", "Command ដំណើរការដោយគ្មាន error ទេ តោះបន្ត។"),
    days=("ថ្ងៃច័ន្ទ", "ថ្ងៃអង្គារ", "ថ្ងៃពុធ", "ថ្ងៃព្រហស្បតិ៍", "ថ្ងៃសុក្រ", "ថ្ងៃសៅរ៍", "ថ្ងៃអាទិត្យ"),
    people=("សុខា", "ដារា", "វុទ្ធី", "ចាន់ធូ", "ពិសី", "រិទ្ធី", "ម៉ាលិស", "សុភា"),
    intro=(
        "សួស្តី។ តាំងពីព្រឹកមក FreeIPA របស់យើងមានបញ្ហា៖ អ្នកប្រើខ្លះ login មិនបាន ហើយ certmonger បង្ហាញ error។ តោះពិនិត្យម្តងមួយៗ។",
        "អរុណសួស្តី។ ថ្ងៃនេះយើងត្រូវរៀបចំ realm FreeIPA ឲ្យបានត្រឹមត្រូវ — certificate ខ្លះជិតផុតកំណត់ ហើយ sssd នៅលើ server ខ្លះមិនដំណើរការ។",
    ),
    intro_command="kinit admin && klist && ipactl status",
    intro_output=_ipa_klist,
    ids=(
        _Id(
            "serial number of the ldap01 certificate that expires on Dec 14",
            _certserial,
            "តើ certificate មួយណាជិតផុតកំណត់? សូមរកមើលក្នុង IPA CA។",
            "ipa cert-find --validnotafter-to=2026-12-31 --all",
            _ipa_certs,
            "Certificate ដែលជិតផុតកំណត់គឺ serial {id} (ldap01 ផុតកំណត់ថ្ងៃទី 14 ខែធ្នូ)។ កុំច្រឡំជាមួយ {decoy} — វាសម្រាប់ host ផ្សេង។",
        ),
        _Id(
            "certmonger request id stuck in CA_UNREACHABLE",
            _cmreq,
            "Certmonger មួយណាដែលកំពុងមានបញ្ហា? ពិនិត្យ getcert list។",
            "getcert list",
            _ipa_getcert,
            "Request ដែលជាប់គាំងគឺ {id} — status CA_UNREACHABLE ព្រោះ CMS ឆ្លើយ 503។ {decoy} និងផ្សេងទៀតគឺ MONITORING ធម្មតា។",
        ),
        _Id(
            "ipaUniqueID of the account with the duplicate principal alias",
            _uuid,
            "មាន account មួយដែលមាន principal alias ជាន់គ្នា។ រកវាឲ្យឃើញ។",
            "ldapsearch -LLL -Y GSSAPI -b cn=users,cn=accounts,dc=corp,dc=khmerbank,dc=local '(krbPrincipalName=*)' uid ipaUniqueID krbPrincipalName",
            _ipa_uids,
            "Account ដែលមាន alias ជាន់គ្នាមាន ipaUniqueID {id}។ {decoy} គឺជា account ធម្មតា គ្មានបញ្ហាទេ។",
        ),
    ),
    arts=(
        _Art(
            lambda r: f"{r.choice(['contractor', 'temp', 'audit', 'vendor'])}{token(r, 4).lower()}",
            "ipa user-disable {name} && ipa user-show {name} --all | grep -E 'login|disabled|Preserved'",
            _ipa_user_loud,
            _ipa_quiet,
            ("Disabled user account", "disabled", "បានបិទ"),
            "{name} បានបញ្ចប់កិច្ចសន្យាហើយ។ សូមចាត់ការ account របស់គាត់។",
            "កុំលុប account {name} អី — គ្រាន់តែ disable វាបានហើយ ព្រោះ audit ត្រូវការ history។",
            "Account {name} ត្រូវបានបិទ (disabled) ហើយ មិនបានលុបទេ។",
            "What happened to the FreeIPA user {name}?",
            "The account was disabled (not deleted).",
        ),
        _Art(
            lambda r: (
                f"sudo_{r.choice(['dba', 'deploy', 'backup', 'oncall'])}_{token(r, 4).lower()}"
            ),
            "ipa sudorule-disable {name} && ipa sudorule-show {name}",
            _ipa_sudo_loud,
            _ipa_quiet,
            ("Disabled Sudo Rule", "Enabled: False", "បានបិទ"),
            "Sudo rule {name} ផ្តល់សិទ្ធិច្រើនពេក។ សូមដោះស្រាយ។",
            "កុំលុប sudo rule {name} — គ្រាន់តែ disable វាសិន យើងនឹងកែវាក្រោយ។",
            "Sudo rule {name} ត្រូវបានបិទ (disabled) ហើយ; វានៅតែមានក្នុង IPA។",
            "What happened to the sudo rule {name}?",
            "It was disabled (not deleted).",
        ),
        _Art(
            lambda r: (
                f"{r.choice(['app', 'db', 'web', 'batch'])}{r.randint(10, 99)}-{token(r, 3).lower()}.corp.khmerbank.local"
            ),
            "ipa-getkeytab -s ipa01.corp.khmerbank.local -p host/{name} -k /tmp/{name}.keytab && /usr/local/sbin/rotate-keytab {name} && klist -kt /tmp/{name}.keytab",
            _ipa_keytab_loud,
            _ipa_quiet,
            ("rotated", "បង្វិល"),
            "Keytab របស់ host {name} ប្រហែលជាលេចធ្លាយ។ តើយើងធ្វើអ្វី?",
            "កុំ unenroll host {name} — គ្រាន់តែបង្វិល (rotate) keytab របស់វាបានហើយ។",
            "Keytab របស់ host {name} ត្រូវបានបង្វិល (rotated) ហើយ kvno ថ្មីកើនឡើងមួយ។",
            "What happened to the host {name}?",
            "Its host keytab was rotated (new kvno), not unenrolled.",
        ),
    ),
    topics=(
        _Topic(
            "krbMaxPwdLife របស់ global password policy",
            ("krbMaxPwdLife", "password policy"),
            ("60", "120", "180", "45", "365"),
            ("ធនាគារជាតិតម្រូវ", "អ្នកប្រើត្អូញត្អែរច្រើនពេក", "យើងប្រើ OTP រួចហើយ"),
            "Which max password lifetime (days) was decided for the global policy?",
        ),
        _Topic(
            "replica ដែលធ្វើជា CA renewal master",
            ("CA renewal", "renewal master"),
            (
                "ipa02.corp.khmerbank.local",
                "ipa03.corp.khmerbank.local",
                "ipa04.corp.khmerbank.local",
                "ipa05.corp.khmerbank.local",
            ),
            ("វានៅក្នុង datacenter ដែលមានភ្លើងបម្រុង", "វាជា replica ថ្មីបំផុត", "ipa01 នឹងត្រូវបិទ"),
            "Which replica was decided to become the CA renewal master?",
        ),
    ),
    tasks=(
        _Task("បន្ត (renew) IPA CA certificate", ("renew",), "renew the IPA CA certificate"),
        _Task(
            "upgrade replica ipa02 ទៅ RHEL 9.5",
            ("RHEL 9.5",),
            "upgrade the ipa02 replica to RHEL 9.5",
        ),
        _Task(
            "សម្អាត cache sssd (sss_cache -E) លើ server ទាំងអស់",
            ("sss_cache",),
            "purge the sssd cache (sss_cache -E) on every server",
        ),
    ),
    conds=(
        _Task("នៅពេល replication ត្រលប់មកធម្មតាវិញ", ("replication",), "replication is healthy again"),
        _Task("ពេលដែល DNS forwarder ថ្មីដំណើរការ", ("DNS forwarder",), "the new DNS forwarder works"),
    ),
    hunches=(
        "{who} គិតថាបញ្ហានេះបណ្តាលមកពី NTP ប៉ុន្តែខ្ញុំមិនជឿទេ។",
        "{who} និយាយថា Active Directory trust ជាអ្នកបង្កបញ្ហា មិនមែន IPA ទេ។ តើអ្នកគិតយ៉ាងណា?",
    ),
    ticket=lambda r: f"IAM-{r.randint(100, 999)}",
    fillers=(
        _Filler(
            ("ពិនិត្យ log sssd ម្តងទៀត។", "តើ sssd មាន error អ្វីទេ?"),
            lambda r: f"tail -n {r.randint(30, 40)} /var/log/sssd/sssd_corp.khmerbank.local.log",
            _ipa_sssd,
            ("Log sssd ធម្មតា; backend online ហើយ HBAC អនុញ្ញាត {n} ដង។", "គ្មាន error ធ្ងន់ធ្ងរទេ។"),
        ),
        _Filler(
            ("Replication topology យ៉ាងម៉េចហើយ?", "បង្ហាញ topology segments។"),
            lambda r: (
                "ipa topologysegment-find domain && ipa-replica-manage list -v ipa01.corp.khmerbank.local"
            ),
            _ipa_topology,
            (
                "Topology ល្អ; segment ទាំងអស់ both-way ហើយ replication ជោគជ័យ។",
                "Replica ទាំងអស់តភ្ជាប់គ្នា; update ចុងក្រោយ {n} នាទីមុន។",
            ),
        ),
        _Filler(
            ("តើ service IPA ទាំងអស់ដំណើរការទេ?", "ពិនិត្យ ipactl status និង ticket ម្តងទៀត។"),
            lambda r: "kinit admin && klist && ipactl status",
            _ipa_klist,
            ("Service ទាំងអស់ RUNNING។", "អ្វីៗធម្មតា; ticket នៅមានសុពលភាព {n} ម៉ោងទៀត។"),
        ),
    ),
)


# -- the set ----------------------------------------------------------------------

_KINDS: dict[str, _Kind] = {
    "openstack_cloud": _OPENSTACK,
    "postfix_mail": _POSTFIX,
    "cockroach_ledger": _COCKROACH,
    "magento_shop": _MAGENTO,
    "istio_mesh": _ISTIO,
    "freeipa_realm": _FREEIPA,
}
_TEMPLATES: dict[str, Template] = {name: _template(k) for name, k in _KINDS.items()}
HELDOUT18_KINDS: tuple[str, ...] = tuple(_TEMPLATES)


def generate_heldout18(kind: str, seed: int, *, segments: int = 10) -> Session:
    """The eighteenth held-out set's session of ``kind`` for ``seed`` (see the module
    docstring for what each kind plants)."""
    return build_session(
        _TEMPLATES, kind, seed, segments, seed_prefix="heldout18:", label="heldout18 session"
    )
