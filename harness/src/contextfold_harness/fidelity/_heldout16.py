# ruff: noqa: E501
"""The sixteenth held-out set: six long agent sessions, each in another human language
and on another stack, written blind (without seeing the compaction code or the other
sets).

``proxmox_zfs_resilver``
    a Proxmox VE node whose ZFS pool went DEGRADED, a disk to swap, guests to move,
    run with zpool, zfs, qm and pct (Galician);
``symfony_doctrine_deploy``
    a Symfony shop whose release broke on a Doctrine migration, run with bin/console,
    composer and the Messenger failure transport (Maltese);
``cassandra_node_repair``
    a Cassandra ring with a dead node, tombstone warnings and a stuck repair, run with
    nodetool and cqlsh (Afrikaans);
``velero_cluster_restore``
    a Kubernetes namespace lost by a bad cleanup and brought back with Velero backups,
    restores and kubectl (Belarusian, Cyrillic);
``firebase_functions_release``
    a Firebase app whose Cloud Functions release broke orders, run with the firebase CLI,
    Firestore indexes and Hosting channels (Gujarati, Gujarati script);
``stripe_fastapi_webhooks``
    a FastAPI payments service losing Stripe webhooks, run with the Stripe CLI, Alembic
    and SQLAlchemy scripts (Nepali, Devanagari).

Each opening plants seven probes in an order the seed shuffles, among decoys and long
tool outputs in the tools' own formats: three identifiers of different types (a disk WWN,
a datacenter ticket, a MAC address; a migration version, a commit, a Messenger message
id; a Cassandra host id, a snapshot tag, a Jira key; a Velero backup name, an EBS
snapshot id, an image digest; a Cloud Run revision, a Firestore document id, a Cloud
Build id; a Stripe event id, a PaymentIntent, an Alembic revision), each with
same-shaped decoys that are not asked about, set inside tables, JSON, logs or prose; two
artifacts (a named thing and what happened to it), told by the tool's output, by the
agent's words only, or both; a decision dictated by the user, corrected later by the
user, proposed by the agent and approved or changed, relayed from a colleague, or given
as the answer to the agent's question; and a next step, the user's with a weekday, a
date or a deadline said in passing in a longer message, or the agent's promise to do
something once something else is done. Superseded values, negated actions ("don't
delete it"), a colleague's wrong hunch and closed tickets sit beside the real ones. The
filler segments are later work on the same project and never repeat a probe's value.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypedDict

from contextfold_harness.fidelity._build import (
    Builder,
    Parts,
    Probe,
    Session,
    Template,
    build_session,
    hexits,
    noise_lines,
    segments_of,
    token,
)

__all__ = ["HELDOUT16_KINDS", "generate_heldout16"]

Episode = Callable[[], None]


def _run(
    rng: random.Random, first: Episode, episodes: list[Episode], last: Episode | None = None
) -> None:
    """Write ``first``, then ``episodes`` in an order the seed picks, then ``last``."""
    first()
    order = list(episodes)
    rng.shuffle(order)
    for episode in order:
        episode()
    if last is not None:
        last()


def _digits(rng: random.Random, n: int) -> str:
    return token(rng, n, "0123456789")


def _lower(rng: random.Random, n: int) -> str:
    return token(rng, n, "abcdefghijklmnopqrstuvwxyz0123456789")


# -- decisions: one voice per language, one topic per seed ------------------------------


@dataclass(frozen=True, slots=True)
class _Voice:
    """How people of one language decide things; fields: {t} topic, {v} value, {old}
    the value set aside, {why} the reason, {who} a colleague."""

    prompt: tuple[str, ...]  # user asks for a proposal / starts the topic
    dictated: tuple[str, ...]  # user
    first: tuple[str, ...]  # user, later corrected
    correction: tuple[str, ...]  # user
    propose: tuple[str, ...]  # assistant
    approve: tuple[str, ...]  # user
    modify: tuple[str, ...]  # user
    relay: tuple[str, ...]  # user
    ask: tuple[str, ...]  # assistant; {a} and {b} the two options
    answer: tuple[str, ...]  # user
    ack: tuple[str, ...]  # assistant


class _Topic(TypedDict):
    t: str  # the topic as a noun phrase in the session language
    words: tuple[str, ...]  # needle: words tying a line to the topic (language and English)
    values: tuple[tuple[str, str], ...]  # (value as written, the reason in the language)
    question: str  # English question for the judge
    tool: Callable[[random.Random, Builder], None]  # a call that gives the topic context


_MODES = ("dictated", "corrected", "approved", "modified", "relayed", "answered")


def _decision(rng: random.Random, b: Builder, voice: _Voice, topic: _Topic, who: str) -> Probe:
    """One decision exchange; the probe is its final value."""
    mode = rng.choice(_MODES)
    (v, why), (old, old_why) = rng.sample(topic["values"], 2)
    t = topic["t"]

    def say(options: tuple[str, ...], **extra: str) -> str:
        fields = {"t": t, "v": v, "old": old, "why": why, "who": who, **extra}
        return rng.choice(options).format(**fields)

    if mode == "dictated":
        b.user(say(voice.dictated))
        topic["tool"](rng, b)
        b.assistant(say(voice.ack))
        note = "dictated by the user"
    elif mode == "corrected":
        b.user(rng.choice(voice.first).format(t=t, v=old, why=old_why))
        topic["tool"](rng, b)
        b.assistant(rng.choice(voice.ack).format(t=t, v=old))
        b.user(say(voice.correction))
        b.assistant(say(voice.ack))
        note = f"the user first said {old}, then corrected it"
    elif mode == "approved":
        b.user(say(voice.prompt))
        topic["tool"](rng, b)
        b.assistant(say(voice.propose))
        b.user(say(voice.approve))
        b.assistant(say(voice.ack))
        note = "the agent proposed it and the user approved"
    elif mode == "modified":
        b.user(say(voice.prompt))
        topic["tool"](rng, b)
        b.assistant(rng.choice(voice.propose).format(t=t, v=old, why=old_why))
        b.user(say(voice.modify))
        b.assistant(say(voice.ack))
        note = f"the agent proposed {old}; the user changed it"
    elif mode == "relayed":
        b.user(say(voice.relay))
        topic["tool"](rng, b)
        b.assistant(say(voice.ack))
        note = f"relayed by the user from {who}"
    else:
        b.user(say(voice.prompt))
        topic["tool"](rng, b)
        a, c = rng.sample((v, old), 2)
        b.assistant(say(voice.ask, a=a, b=c))
        b.user(say(voice.answer))
        b.assistant(say(voice.ack))
        note = "the user's answer to the agent's question"
    return Probe(
        "decision",
        topic["question"],
        f"{v} ({note}; reason: {why})",
        ((v,), topic["words"]),
    )


# -- proxmox_zfs_resilver (Galician) -----------------------------------------------------

_GL = _Voice(
    prompt=(
        "Imos ter que decidir {t}. Que propós?",
        "Mira o que hai e dime que farías con {t}.",
        "Antes de pedir nada: como resolvemos {t}? Dáme unha proposta.",
    ),
    dictated=(
        "Xa está decidido: para {t} imos con {v}, porque {why}",
        "Apunta isto: {t}, {v}; {why} Non quero debate sobre iso.",
        "Para {t} quero {v}; {why}",
    ),
    first=(
        "Para {t} poñamos {v}, polo menos de momento.",
        "De entrada, {t}: {v}. Xa o afinaremos.",
    ),
    correction=(
        "Corrixo o de antes: para {t} non {old}, mellor {v}: {why}",
        "Estiven pensando e cambio de idea, {t} vai ser {v} e non {old}: {why}",
        "Esquece o que dixen de {old}. Para {t}, {v}; {why}",
    ),
    propose=(
        "Propoño {v} para {t}, porque {why} Dásme o visto bo?",
        "A miña proposta para {t} é {v}: {why} Se che parece ben, sigo por aí.",
    ),
    approve=(
        "Vale, adiante: {v} para {t}.",
        "Perfecto, {t} con {v}. Segue.",
        "Si, {v} para {t}, de acordo.",
    ),
    modify=(
        "Case. En vez de {old}, para {t} mellor {v}: {why}",
        "Non me convence {old}. Para {t} usa {v}, {why}",
    ),
    relay=(
        "Falei con {who}, que é quen asina os pedidos: para {t} quere {v}, porque {why}",
        "{who} acaba de chamarme: {t} ten que ser {v}, que {why}",
        "Mensaxe de {who} no chat do equipo: para {t}, {v}; {why}",
    ),
    ask=(
        "Antes de seguir necesito que me digas unha cousa: para {t}, {a} ou {b}?",
        "Dúbida: {t}, prefires {a} ou {b}? As dúas opcións son viables.",
    ),
    answer=(
        "{v} para {t}: {why}",
        "Vai con {v} para {t}, {why}",
        "Para {t}, {v}, xa que {why}",
    ),
    ack=(
        "Entendido: {t}, {v}. Déixoo anotado.",
        "Feito, queda {v} para {t}.",
        "De acordo, {t} con {v}; sigo con iso en mente.",
    ),
)


def _proxmox(rng: random.Random, b: Builder, segments: int) -> Parts:
    probes: list[Probe] = []
    node = rng.choice(("pve-vigo-02", "pve-vigo-03", "pve-compostela-01"))
    other = rng.choice(("pve-vigo-01", "pve-lugo-01"))
    model = "ST4000VN008-2DR166"
    serials = [f"ZDH{token(rng, 5)}" for _ in range(6)]
    wwns = [f"0x5000c500{hexits(rng, 8)}" for _ in range(6)]
    bad = rng.randrange(1, 6)
    suspect = rng.choice([i for i in range(6) if i != bad])
    letters = "bcdefg"
    ticket = f"INC{_digits(rng, 7)}"
    old_ticket = f"INC{_digits(rng, 7)}"
    vm_mac = rng.randint(120, 139)
    vm_name = rng.choice(("xestion-nominas", "portal-clientes", "crm-interno"))
    mac = "BC:24:11:" + ":".join(hexits(rng, 2).upper() for _ in range(3))
    mac2 = "BC:24:11:" + ":".join(hexits(rng, 2).upper() for _ in range(3))

    def zpool_status() -> str:
        rows = []
        for i, s in enumerate(serials):
            name = f"ata-{model}_{s}"
            if i == bad:
                rows.append(f"\t    {name:<38}FAULTED     23   118     0  too many errors")
            else:
                rows.append(f"\t    {name:<38}ONLINE       0     0     0")
        return (
            "  pool: tanque\n state: DEGRADED\nstatus: One or more devices are faulted in response to persistent errors.\n"
            "\tSufficient replicas exist for the pool to continue functioning in a\n\tdegraded state.\n"
            "action: Replace the faulted device, or use 'zpool clear' to mark the device\n\trepaired.\n"
            f"  scan: scrub repaired 0B in 05:{rng.randint(10, 59)}:{rng.randint(10, 59)} with 0 errors on Sun Jun  9 05:36:45 2024\nconfig:\n\n"
            "\tNAME                                      STATE     READ WRITE CKSUM\n"
            "\ttanque                                    DEGRADED     0     0     0\n"
            "\t  raidz2-0                                DEGRADED     0     0     0\n"
            + "\n".join(rows)
            + "\n\terrors: No known data errors"
        )

    def intro() -> None:
        b.user(
            f"Bos días. Temos un problema no nodo {node} do clúster Proxmox: o pool ZFS `tanque` "
            "aparece DEGRADED desde onte á noite e as máquinas van lentas. Revísao comigo, pero "
            "non toques nada en produción sen avisarme antes. Temos un raidz2 de seis discos de 4 TB."
        )
        b.tool(
            "Miro primeiro o estado do pool.",
            "shell",
            {"cmd": f"ssh root@{node} zpool status tanque"},
            zpool_status(),
        )
        b.assistant(
            f"O pool segue funcionando grazas ao raidz2, pero un disco, o de serie {serials[bad]}, "
            "está en FAULTED con 23 erros de lectura e 118 de escritura. Non hai erros de datos. "
            "Conviría substituílo canto antes: con outro fallo quedariamos sen redundancia."
        )

    def id_wwn() -> None:
        b.user(
            f"No CPD identifican os discos polo WWN, non polo número de serie. Eu diría que o malo é o /dev/sd{letters[suspect]}, "
            "pero compróbao ti, que non me fío da miña memoria."
        )
        table = [
            "NAME   SIZE MODEL                  SERIAL          WWN",
            f"sda  465.8G Samsung SSD 870 EVO    S6PNNX0T{token(rng, 6)}  0x5002538f{hexits(rng, 8)}",
        ]
        for i, (s, w) in enumerate(zip(serials, wwns, strict=True)):
            table.append(f"sd{letters[i]}    3.6T {model}     {s}        {w}")
        table.append("zd0     32G                                        ")
        b.tool(
            "Cruzo series e WWN con lsblk.",
            "shell",
            {"cmd": f"ssh root@{node} lsblk -d -o NAME,SIZE,MODEL,SERIAL,WWN"},
            "\n".join(table),
        )
        if rng.random() < 0.5:
            b.assistant(
                f"Non é o sd{letters[suspect]}: ese está ONLINE. O disco en FAULTED é o sd{letters[bad]}, serie {serials[bad]}; "
                "o seu WWN está na táboa de arriba, na mesma fila. Ese é o que hai que pasarlle ao CPD."
            )
        else:
            b.assistant(
                f"O sd{letters[suspect]} está ben. O avariado é o sd{letters[bad]} (serie {serials[bad]}), WWN {wwns[bad]}. "
                "Con iso o técnico do CPD debería localizalo sen dúbida na bandexa."
            )
        probes.append(
            Probe(
                "identifier",
                f"What is the WWN of the faulted disk in pool tanque on {node}?",
                f"{wwns[bad]} (sd{letters[bad]}, serial {serials[bad]}; not sd{letters[suspect]})",
                ((wwns[bad],),),
            )
        )

    def id_ticket() -> None:
        if rng.random() < 0.5:
            b.user(
                f"Abrín o ticket {ticket} co CPD para que teñan un disco de reposto preparado. "
                f"Ollo, o {old_ticket} é o de marzo, o da fonte de alimentación, e xa está pechado: non os mesturemos. "
                "Podes mirar se no portal xa aparece?"
            )
            body = (
                '{\n  "tickets": [\n'
                f'    {{"id": "{ticket}", "status": "open", "priority": "high", "subject": "Disk replacement {node} bay {bad + 1}", "updated": "2024-06-11T08:{rng.randint(10, 59)}:02Z"}},\n'
                f'    {{"id": "{old_ticket}", "status": "closed", "priority": "normal", "subject": "PSU swap {other}", "updated": "2024-03-19T16:04:51Z"}}\n'
                "  ]\n}"
            )
            b.tool(
                "Consulto a API do portal do CPD.",
                "shell",
                {
                    "cmd": "curl -s -H @~/.cpd-token https://portal.cpd.example/api/v2/tickets?customer=me | jq ."
                },
                body,
            )
            b.assistant(
                "Si, xa aparece aberto e con prioridade alta. O outro, como dicías, está pechado."
            )
        else:
            b.user(
                "Podes mirar no portal do CPD se xa abriron algo polo disco? Eu non cheguei a abrir nada."
            )
            rows = [
                "ID          STATUS   PRIO    UPDATED              SUBJECT",
                f"{old_ticket}  closed   normal  2024-03-19 16:04     PSU swap {other}",
                f"{ticket}  open     high    2024-06-11 07:{rng.randint(10, 59)}     Disk replacement {node} bay {bad + 1} (auto: SMART)",
                f"INC{_digits(rng, 7)}  closed   low     2024-01-08 10:22     Rack 14 cable labels",
            ]
            b.tool(
                "Listo os tickets do portal.",
                "shell",
                {"cmd": "cpdctl tickets list --all"},
                "\n".join(rows),
            )
            b.assistant(
                f"O CPD abriu un automaticamente pola alerta SMART: {ticket}, aberto, prioridade alta, bandexa {bad + 1}. "
                f"O {old_ticket} é vello (fonte de alimentación) e está pechado."
            )
        probes.append(
            Probe(
                "identifier",
                f"Which datacenter ticket tracks the disk replacement on {node}?",
                f"{ticket} (open; {old_ticket} is an old, closed PSU ticket)",
                ((ticket,),),
            )
        )

    def id_mac() -> None:
        b.user(
            f"Cando movamos o {vm_name} ao {other} vaise manter a IP por reserva DHCP no router, así que necesito a MAC da interface principal."
        )
        conf = (
            "agent: 1\nboot: order=scsi0;net0\ncores: 4\ncpu: x86-64-v2-AES\n"
            f"memory: 8192\nmeta: creation-qemu=8.1.5,ctime=17{_digits(rng, 8)}\nname: {vm_name}\n"
            f"net0: virtio={mac},bridge=vmbr0,firewall=1\n"
            f"net1: virtio={mac2},bridge=vmbr1,tag=40\n"
            "numa: 0\nonboot: 1\nostype: l26\n"
            f"scsi0: tanque:vm-{vm_mac}-disk-0,discard=on,iothread=1,size=64G\n"
            "scsihw: virtio-scsi-single\n"
            f"smbios1: uuid={hexits(rng, 8)}-{hexits(rng, 4)}-{hexits(rng, 4)}-{hexits(rng, 4)}-{hexits(rng, 12)}\n"
            "sockets: 1\n"
            f"vmgenid: {hexits(rng, 8)}-{hexits(rng, 4)}-{hexits(rng, 4)}-{hexits(rng, 4)}-{hexits(rng, 12)}"
        )
        b.tool(
            f"Miro a configuración da VM {vm_mac}.",
            "shell",
            {"cmd": f"ssh root@{node} qm config {vm_mac}"},
            conf,
        )
        if rng.random() < 0.5:
            b.assistant(
                f"A interface principal é net0 (vmbr0): {mac}. A net1 ({mac2}) é a da VLAN 40 de xestión, esa non vai ao router."
            )
        else:
            b.assistant(
                "A principal é a net0, a que colga de vmbr0; tes a MAC na configuración de arriba. "
                "A net1 vai pola VLAN 40 e non necesita reserva."
            )
        probes.append(
            Probe(
                "identifier",
                f"What is the MAC address of net0 of VM {vm_mac} ({vm_name}), needed for the DHCP reservation?",
                f"{mac} (net0 on vmbr0; {mac2} is net1 on VLAN 40)",
                ((mac,),),
            )
        )

    def decoy_guest() -> None:
        b.user(
            f"Outra cousa: vin que o {other} tamén ten un contedor vello, o ct 2{_digits(rng, 2)}. Non o borres aínda, que é de Marta e quere sacar uns datos."
        )
        b.tool(
            "Miro que hai no outro nodo.",
            "shell",
            {"cmd": f"ssh root@{other} pct list"},
            "VMID       Status     Lock         Name\n"
            + noise_lines(
                rng,
                5,
                lambda r: (
                    f"{r.randint(200, 299)}        {r.choice(('running', 'stopped'))}                 {r.choice(('proxy-web', 'dns-externo', 'monitor', 'ldap-replica', 'build-runner', 'mail-relay'))}"
                ),
            ),
        )
        b.assistant("Vale, non toco ese contedor. Anoto que é de Marta e que queda como está.")

    def art_dataset() -> None:
        choice = rng.randrange(3)
        how = rng.randrange(3)  # 0 tool, 1 agent, 2 both
        words: tuple[str, ...]
        if choice == 0:
            name = f"tanque/vm-{rng.randint(140, 159)}-disk-0@pre-upgrade"
            b.user(
                "Temos o pool ao 86 %. Hai algunha snapshot grande que sobre? A da actualización de maio xa non fai falta."
            )
            out = (
                f"will destroy {name}\nwill reclaim {rng.randint(30, 90)}.{rng.randint(1, 9)}G"
                if how != 1
                else f"NAME                                   USED  AVAIL  REFER\n{name}   {rng.randint(30, 90)}.{rng.randint(1, 9)}G      -   51.2G"
            )
            cmd = (
                f"zfs destroy -v {name}"
                if how != 1
                else f"zfs list -t snapshot -o name,used,avail,refer {name} && zfs destroy {name}"
            )
            b.tool("Busco a snapshot e bórroa.", "shell", {"cmd": f"ssh root@{node} {cmd}"}, out)
            words = ("eliminad", "borrad", "destruíd", "destroy", "deleted", "removed")
            said = (
                f"Snapshot {name} eliminada; liberamos uns cantos gigas."
                if how != 0
                else "Listo, fixo o que tiña que facer; o espazo xa se recupera."
            )
            q = "What happened to the pre-upgrade ZFS snapshot on tanque?"
            a = f"{name} was destroyed (deleted) to free space"
        elif choice == 1:
            yr = rng.choice(("2018", "2019", "2020"))
            name = f"tanque/arquivo-{yr}"
            b.user(
                f"O dataset do arquivo de {yr} non o usa ninguén. Renoméao a old-arquivo-{yr} para que se vexa que vai para fóra, pero non o borres."
            )
            out = (
                f"History for 'tanque':\n2024-06-11.09:{rng.randint(10, 59)}:12 zpool scrub tanque\n"
                f"2024-06-11.10:{rng.randint(10, 59)}:40 zfs rename {name} tanque/old-arquivo-{yr}"
                if how != 1
                else f"NAME                       USED  AVAIL     REFER  MOUNTPOINT\ntanque/old-arquivo-{yr}   {rng.randint(200, 900)}G  1.91T   {rng.randint(200, 900)}G  /tanque/old-arquivo-{yr}"
            )
            b.tool(
                "Fago o cambio e comprobo.",
                "shell",
                {
                    "cmd": f"ssh root@{node} 'zfs rename {name} tanque/old-arquivo-{yr} && zpool history tanque | tail -2'"
                    if how != 1
                    else f"ssh root@{node} zfs list tanque/old-arquivo-{yr}"
                },
                out,
            )
            words = ("renomead", "rename")
            said = (
                f"O dataset {name} xa está renomeado a tanque/old-arquivo-{yr}; segue intacto."
                if how != 0
                else "Feito; o historial do pool confírmao."
            )
            q = f"What was done to the ZFS dataset {name}?"
            a = f"renamed to tanque/old-arquivo-{yr} (not deleted)"
        else:
            ct = rng.randint(210, 229)
            snap = f"antes-php{rng.choice(('81', '82', '83'))}"
            name = f"tanque/subvol-{ct}-disk-0"
            b.user(
                f"O contedor {ct} quedou roto coa actualización de PHP de esta mañá. Volve atrás á snapshot {snap}, que o fixemos xusto antes."
            )
            out = (
                f"2024-06-11.11:{rng.randint(10, 59)}:03 zfs rollback -r {name}@{snap}"
                if how != 1
                else f"NAME                                  CREATION\n{name}@{snap}  Tue Jun 11  7:58 2024"
            )
            b.tool(
                "Paro o contedor, reverto e arrinco.",
                "shell",
                {
                    "cmd": f"ssh root@{node} 'pct stop {ct} && zfs rollback -r {name}@{snap} && pct start {ct} && zpool history tanque | tail -1'"
                    if how != 1
                    else f"ssh root@{node} zfs list -t snapshot -o name,creation {name}@{snap}"
                },
                out,
            )
            words = ("revertid", "rolled back", "rollback")
            said = (
                f"{name} revertido á snapshot {snap}; o contedor volve estar arriba."
                if how != 0
                else "Xa está, o contedor arrincou sen queixarse."
            )
            q = f"What was done to the root disk of container {ct} after the PHP update broke it?"
            a = f"{name} was rolled back to snapshot @{snap}"
        b.assistant(said)
        probes.append(Probe("artifact", q, a, ((name,), words)))

    def art_guest() -> None:
        choice = rng.randrange(3)
        how = rng.randrange(3)
        words: tuple[str, ...]
        if choice == 0:
            ct = rng.randint(230, 249)
            name = rng.choice(("dns-interno", "wiki-equipo", "ntp-local"))
            stamp = f"2024-06-{rng.randint(1, 10):02d}T23:00:{rng.randint(10, 59)}Z"
            b.user(
                f"O contedor {name} (ct {ct}) tiña o disco no anaco danado e non arrinca. Restáurao desde o último backup do PBS."
            )
            out = (
                f"recovering backed-up configuration from 'pbs-vigo:backup/ct/{ct}/{stamp}'\n"
                f"restoring 'pbs-vigo:backup/ct/{ct}/{stamp}' now..\nTotal bytes read: {rng.randint(2, 9)}.{rng.randint(10, 99)} GiB"
                if how != 1
                else "Detected container architecture: amd64\nTASK OK"
            )
            b.tool(
                "Lanzo a restauración sobre o mesmo VMID.",
                "shell",
                {
                    "cmd": f"ssh root@{node} pct restore {ct} pbs-vigo:backup/ct/{ct}/{stamp} --storage tanque --force 1"
                },
                out,
            )
            words = ("restaurad", "restored", "restoring", "restore")
            alts = (name, f"ct/{ct}")
            said = (
                f"O {name} está restaurado desde o backup do {stamp[:10]} e xa responde."
                if how != 0
                else "Rematou sen erros."
            )
            q = f"What happened to container {name}?"
            a = f"restored (ct {ct}) from the PBS backup of {stamp[:10]}"
        elif choice == 1:
            vm = rng.randint(160, 179)
            name = rng.choice(("erp-probas", "jenkins-vello", "demo-feira"))
            b.user(
                f"A VM {name} non a usa ninguén desde o ano pasado. Bórraa co disco, así gañamos sitio no pool."
            )
            out = (
                f"purging VM {vm} from related configurations..\nvm-{vm}: no datasets left ({name} destroyed)"
                if how != 1
                else "purging VM from related configurations.."
            )
            b.tool(
                "Borro a VM e os seus discos.",
                "shell",
                {
                    "cmd": f"ssh root@{node} 'qm destroy {vm} --purge --destroy-unreferenced-disks 1; zfs list -H tanque/vm-{vm}-disk-0 2>/dev/null || echo \"vm-{vm}: no datasets left ({name} destroyed)\"'"
                },
                out,
            )
            words = ("eliminad", "borrad", "destruíd", "destroyed", "deleted")
            alts = (name, f"VM {vm}")
            said = f"A VM {name} ({vm}) está eliminada, discos incluídos." if how != 0 else "Feito."
            q = f"What happened to VM {name}?"
            a = f"destroyed (VM {vm}) with its disks"
        else:
            vm = rng.randint(180, 199)
            name = rng.choice(("nextcloud-vello", "intranet-2019", "sftp-proveedores"))
            b.user(
                f"A {name} non debería arrincar soa se se reinicia o nodo, que xa non a queremos en marcha. Desactívalle o arranque automático, pero non a borres."
            )
            out = f"update VM {vm}: -onboot 0" if how != 1 else f"onboot: 0\nname: {name}"
            b.tool(
                "Cambio a opción onboot.",
                "shell",
                {
                    "cmd": f"ssh root@{node} qm set {vm} --onboot 0"
                    if how != 1
                    else f"ssh root@{node} 'qm set {vm} --onboot 0 >/dev/null && qm config {vm} | grep -E \"^(onboot|name)\"'"
                },
                out,
            )
            words = ("desactivad", "disabled", "onboot 0", "onboot: 0")
            alts = (name, f"VM {vm}")
            said = (
                f"Arranque automático da {name} desactivado; a VM segue existindo."
                if how != 0
                else "Listo."
            )
            q = f"What was changed on VM {name}?"
            a = f"autostart (onboot) disabled on VM {vm}; it was not deleted"
        b.assistant(said)
        probes.append(Probe("artifact", q, a, (alts, words)))

    def decide() -> None:
        def t_disk(r: random.Random, bb: Builder) -> None:
            bb.tool(
                "Miro o modelo actual e o firmware.",
                "shell",
                {"cmd": f"ssh root@{node} smartctl -i /dev/sd{letters[bad]}"},
                f"smartctl 7.3 2022-02-28 r5338 [x86_64-linux-6.8.4-3-pve] (local build)\n=== START OF INFORMATION SECTION ===\nModel Family:     Seagate IronWolf\nDevice Model:     {model}\nSerial Number:    {serials[bad]}\nFirmware Version: SC60\nUser Capacity:    4,000,787,030,016 bytes [4.00 TB]\nRotation Rate:    5900 rpm\nSMART support is: Enabled",
            )

        def t_arc(r: random.Random, bb: Builder) -> None:
            bb.tool(
                "Miro o tamaño do ARC e a memoria.",
                "shell",
                {"cmd": f"ssh root@{node} 'arc_summary -s arc | head -12; free -g'"},
                f"ARC size (current):                                    {r.randint(40, 60)}.{r.randint(0, 9)} %   {r.randint(20, 31)}.{r.randint(0, 9)} GiB\n        Target size (adaptive):                       100.0 %   62.8 GiB\n        Min size (hard limit):                          6.2 %    3.9 GiB\n        Max size (high water):                           16:1   62.8 GiB\n               total        used        free      shared  buff/cache   available\nMem:             125          {r.randint(70, 90)}          {r.randint(2, 9)}           0          {r.randint(20, 40)}          {r.randint(10, 30)}",
            )

        def t_comp(r: random.Random, bb: Builder) -> None:
            bb.tool(
                "Miro a compresión actual.",
                "shell",
                {"cmd": f"ssh root@{node} zfs get -r -d1 compression,compressratio tanque"},
                "NAME                     PROPERTY       VALUE     SOURCE\n"
                + noise_lines(
                    r,
                    6,
                    lambda x: (
                        f"tanque/vm-{x.randint(100, 199)}-disk-0  compressratio  {x.randint(1, 2)}.{x.randint(0, 99):02d}x     -"
                    ),
                ),
            )

        topics: list[_Topic] = [
            {
                "t": "o disco de reposto",
                "words": ("disco", "disk"),
                "values": (
                    ("IronWolf Pro", "ten cinco anos de garantía."),
                    ("WD Red Plus", "o provedor halo ter mañá mesmo."),
                    ("Toshiba N300", "sae máis barato e rende igual."),
                ),
                "question": "Which replacement disk model was chosen for the pool?",
                "tool": t_disk,
            },
            {
                "t": "o límite do ARC",
                "words": ("ARC", "zfs_arc_max"),
                "values": (
                    ("16 GiB", "as VMs necesitan a memoria."),
                    ("24 GiB", "é un punto medio razoable."),
                    ("32 GiB", "o pool vai lento e a caché axuda."),
                ),
                "question": "What maximum ARC size (zfs_arc_max) was decided?",
                "tool": t_arc,
            },
            {
                "t": "a compresión dos datasets novos",
                "words": ("compresión", "compression"),
                "values": (
                    ("zstd", "comprime máis e a CPU sobra."),
                    ("lz4", "é máis rápida e xa a usamos no resto."),
                ),
                "question": "Which compression was chosen for the new datasets?",
                "tool": t_comp,
            },
        ]
        who = rng.choice(("Uxía", "Brais", "Antía"))
        probes.append(_decision(rng, b, _GL, rng.choice(topics), who))

    ns_mode = rng.randrange(3)

    def next_step() -> None:
        days = (
            ("o luns", "monday"),
            ("o martes", "tuesday"),
            ("o mércores", "wednesday"),
            ("o xoves", "thursday"),
            ("o venres", "friday"),
        )
        mode = ns_mode
        if mode == 0:
            day, en = rng.choice(days)
            b.user(
                f"Por certo, {day} vou eu ao CPD cambiar fisicamente o disco, que o técnico deles non ten acceso á nosa bandexa. Déixame preparado o comando de zpool replace."
            )
            b.tool(
                "Preparo o comando (sen executalo).",
                "shell",
                {
                    "cmd": f"echo zpool replace tanque ata-{model}_{serials[bad]} /dev/disk/by-id/NOVO"
                },
                f"zpool replace tanque ata-{model}_{serials[bad]} /dev/disk/by-id/NOVO",
            )
            b.assistant(
                "Aí o tes; cando estea o disco novo só hai que cambiar NOVO polo seu by-id."
            )
            probes.append(
                Probe(
                    "next_step",
                    "What is the user going to do in person, and when?",
                    f"go to the datacenter and physically swap the failed disk {en}",
                    (("disco", "disk"), (day.split()[-1], en)),
                )
            )
        elif mode == 1:
            b.user(
                "Ben, polo de agora chega co pool. Onte falei co xefe e hai varias cousas no aire: o "
                f"presuposto dos discos, a renovación do soporte de {other}, e antes de fin de mes hai que "
                "actualizar o clúster a PVE 8.2, pero iso xa o faremos con calma. Agora mira se os backups de onte remataron ben."
            )
            b.tool(
                "Reviso as tarefas de backup.",
                "shell",
                {
                    "cmd": f"ssh root@{node} 'pvesh get /nodes/{node}/tasks --typefilter vzdump --limit 5 --output-format text'"
                },
                "upid                                                                 status  starttime   endtime\n"
                + noise_lines(
                    rng,
                    5,
                    lambda r: (
                        f"UPID:{node}:{hexits(r, 8).upper()}:{hexits(r, 8).upper()}:{hexits(r, 8).upper()}:vzdump::root@pam:  OK      17181{r.randint(10000, 99999)}  17181{r.randint(10000, 99999)}"
                    ),
                ),
            )
            b.assistant(
                "Os cinco últimos vzdump remataron OK. Anotado o da actualización a PVE 8.2 para antes de fin de mes."
            )
            probes.append(
                Probe(
                    "next_step",
                    "What cluster-wide task is pending and by when?",
                    "upgrade the cluster to PVE 8.2 before the end of the month",
                    (("PVE 8.2", "8.2"), ("fin de mes", "end of month", "end of the month")),
                )
            )
        else:
            b.user("Xa puxeron o disco novo e lancei o replace. Canto lle queda ao resilver?")
            b.tool(
                "Miro o progreso.",
                "shell",
                {"cmd": f"ssh root@{node} zpool status tanque | sed -n 1,6p"},
                f"  pool: tanque\n state: DEGRADED\nstatus: One or more devices is currently being resilvered.\naction: Wait for the resilver to complete.\n  scan: resilver in progress since Tue Jun 11 12:{rng.randint(10, 59)}:07 2024\n\t{rng.randint(1, 3)}.{rng.randint(10, 99)}T scanned at {rng.randint(300, 700)}M/s, {rng.randint(300, 900)}G issued at {rng.randint(200, 500)}M/s, 14.2T total",
            )
            b.assistant(
                f"Vai polo {rng.randint(10, 40)} %, quedan unhas {rng.randint(5, 9)} horas. Cando remate o resilver, lanzarei un `zpool scrub tanque` "
                "e revisarei que non apareza ningún erro antes de dar o pool por bo."
            )
            probes.append(
                Probe(
                    "next_step",
                    "What did the agent promise to do, and after what?",
                    "run a zpool scrub on tanque once the resilver finishes, and check for errors",
                    (("scrub",), ("resilver",)),
                )
            )

    def noise() -> None:
        b.user("Mentres tanto, mira se hai algo raro no log do kernel relacionado cos discos.")
        b.tool(
            "Filtro o dmesg.",
            "shell",
            {"cmd": f"ssh root@{node} 'dmesg -T | grep -iE \"ata|sd[b-g]\" | tail -14'"},
            noise_lines(
                rng,
                14,
                lambda r: (
                    f"[Tue Jun 11 0{r.randint(1, 7)}:{r.randint(10, 59)}:{r.randint(10, 59)} 2024] ata{r.randint(3, 8)}.00: {r.choice(('failed command: WRITE FPDMA QUEUED', 'status: { DRDY ERR }', 'error: { UNC }', 'configured for UDMA/133', 'exception Emask 0x0 SAct 0x10 SErr 0x0 action 0x0'))}"
                ),
            ),
        )
        b.assistant(
            "Son os erros do disco que xa sabemos (UNC e escrituras fallidas no mesmo porto). Nada noutros discos."
        )

    episodes = [id_wwn, id_ticket, id_mac, decoy_guest, art_dataset, art_guest, decide, noise]
    if ns_mode == 2:  # the resilver runs once the new disk is in: the last thing told
        _run(rng, intro, episodes, next_step)
    else:
        _run(rng, intro, [*episodes, next_step])
    opening = b.take()

    def filler(r: random.Random) -> None:
        pick = r.randrange(4)
        if pick == 0:
            b.user("Cando poidas, mira como van de espazo os almacenamentos do clúster.")
            b.tool(
                "Consulto pvesm.",
                "shell",
                {"cmd": "pvesm status"},
                "Name             Type     Status           Total            Used       Available        %\n"
                + noise_lines(
                    r,
                    4,
                    lambda x: (
                        f"{x.choice(('local', 'local-zfs', 'pbs-remoto', 'iso-nfs'))}{' ' * 8}{x.choice(('dir', 'zfspool', 'pbs', 'nfs'))}     active      {x.randint(10**8, 10**9)}      {x.randint(10**7, 10**8)}      {x.randint(10**7, 10**9)}   {x.randint(5, 80)}.{x.randint(10, 99)}%"
                    ),
                ),
            )
            b.assistant("Todo por baixo do 80 %. O NFS das ISOs é o máis cheo, pero ten marxe.")
        elif pick == 1:
            ct = r.randint(300, 399)
            b.user(f"Actualiza os paquetes do contedor do proxy, o {ct}.")
            b.tool(
                "Miro que hai pendente.",
                "shell",
                {"cmd": f"pct exec {ct} -- apt list --upgradable"},
                "Listing... Done\n"
                + noise_lines(
                    r,
                    6,
                    lambda x: (
                        f"{x.choice(('nginx', 'openssl', 'libssl3', 'curl', 'tzdata', 'systemd'))}/stable-security 1.{x.randint(0, 24)}.{x.randint(0, 9)}-{x.randint(1, 9)}+deb12u{x.randint(1, 5)} amd64 [upgradable from: 1.{x.randint(0, 24)}.{x.randint(0, 9)}-1]"
                    ),
                ),
            )
            b.assistant("Son parches de seguridade; apliqueinos e nginx recargou sen erros.")
        elif pick == 2:
            b.user("Está ben o quórum do clúster?")
            b.tool(
                "Miro pvecm.",
                "shell",
                {"cmd": "pvecm status"},
                f"Cluster information\n-------------------\nName:             galicia-prod\nConfig Version:   {r.randint(10, 40)}\nTransport:        knet\nSecure auth:      on\n\nVotequorum information\n----------------------\nExpected votes:   3\nHighest expected: 3\nTotal votes:      3\nQuorum:           2\nFlags:            Quorate",
            )
            b.assistant("Tres votos de tres, quorate. Todo ben.")
        else:
            b.user("Caduca pronto o certificado da interface web?")
            b.tool(
                "Reviso os certificados do nodo.",
                "shell",
                {"cmd": "pvenode cert info --output-format text | grep -E 'filename|notafter'"},
                f"filename   pveproxy-ssl.pem\nnotafter   2024-0{r.randint(7, 9)}-{r.randint(10, 28)} 10:1{r.randint(0, 9)}:00\nfilename   pve-root-ca.pem\nnotafter   2034-02-0{r.randint(1, 9)} 09:00:00",
            )
            b.assistant(
                "O de pveproxy vai con ACME e renóvase só un mes antes; non hai que facer nada."
            )

    return opening, segments_of(rng, b, segments, filler), probes


# -- symfony_doctrine_deploy (Maltese) ---------------------------------------------------

_MT = _Voice(
    prompt=(
        "Irridu niddeċiedu dwar {t}. X'tissuġġerixxi?",
        "Ħares lejn is-sitwazzjoni u għidli x'tagħmel int dwar {t}.",
        "Qabel nimxu: x'nagħmlu dwar {t}? Agħtini proposta.",
    ),
    dictated=(
        "Iddeċidejt dwar {t}: se nużaw {v}, għax {why}",
        "Niżżel din: {t}, {v}; {why} M'hemmx għalfejn niddiskutuha.",
        "Dwar {t} irrid {v}; {why}",
    ),
    first=(
        "Dwar {t}, ejja npoġġu {v} għalissa.",
        "Għall-bidu, {t}: {v}. Naraw aktar tard.",
    ),
    correction=(
        "Qed nikkoreġi dak li għidt dwar {t}: mhux {old}, aħjar {v}, għax {why}",
        "Bdilt fehmti, {t} se jkun {v} u mhux {old}: {why}",
        "Insa dak li għidt dwar {old}; {t}: {v}, għax {why}",
    ),
    propose=(
        "Dwar {t}, nipproponi {v}, għax {why} Naqblu?",
        "Il-proposta tiegħi dwar {t} hija {v}: {why} Jekk taqbel, nimxi hekk.",
    ),
    approve=(
        "Sewwa, għaddi: {t}, {v}.",
        "Perfett, {t}: {v}. Kompli.",
        "Iva, {v} dwar {t}, naqbel.",
    ),
    modify=(
        "Kważi. Minflok {old}, dwar {t} aħjar {v}: {why}",
        "{old} ma jikkonvinċinix. Dwar {t} uża {v}, għax {why}",
    ),
    relay=(
        "Tkellimt ma' {who}, li hu responsabbli mis-servers: dwar {t} irid {v}, għax {why}",
        "{who} għadu kemm ċemplili: dwar {t} irid {v}, għax {why}",
        "Messaġġ minn {who} fuq Teams: {t}, {v}; {why}",
    ),
    ask=(
        "Qabel inkompli għandi bżonn tgħidli ħaġa dwar {t}: {a} jew {b}?",
        "Mistoqsija: {t}, tippreferi {a} jew {b}? It-tnejn jaħdmu.",
    ),
    answer=(
        "{v}, dwar {t}: {why}",
        "Dwar {t}, {v}, għax {why}",
        "Ejja {v} dwar {t}; {why}",
    ),
    ack=(
        "Fhimt: {t}, {v}. Niżżilt nota.",
        "Tajjeb, dwar {t} se nżomm {v}.",
        "Sewwa, {v} dwar {t}; inkompli b'dan f'moħħi.",
    ),
)


def _symfony(rng: random.Random, b: Builder, segments: int) -> Parts:
    probes: list[Probe] = []
    host = rng.choice(("web1.hanut.mt", "app-prod-1.hanut.mt", "sf-prod-02.hanut.mt"))
    minor = rng.randint(3, 9)
    release = f"2.14.{minor}"

    def version(day: int) -> str:
        return f"Version202406{day:02d}{rng.randint(0, 23):02d}{rng.randint(0, 59):02d}{rng.randint(0, 59):02d}"

    versions = sorted({version(d) for d in rng.sample(range(1, 11), 6)})
    failed = versions[-2] if rng.random() < 0.5 else versions[-1]
    pending = versions[versions.index(failed) + 1 :]
    commit = hexits(rng, 9)
    commits = [hexits(rng, 9) for _ in range(6)]
    authors = ("Ġorġ Camilleri", "Maria Borg", "Luke Farrugia")
    msg_id = str(rng.randint(310000, 389999))
    other_ids = [str(rng.randint(310000, 389999)) for _ in range(4)]
    order_no = f"HN-{_digits(rng, 6)}"

    def intro() -> None:
        b.user(
            f"Bonġu. Id-deploy tal-verżjoni {release} tal-ħanut (Symfony 6.4, MariaDB) waqaf f'nofs il-migrations "
            "ilbieraħ filgħaxija u issa l-checkout qed jagħti error 500. Għinni nifhem x'ġara. "
            "Tmissx id-database tal-produzzjoni mingħajr ma tgħidli l-ewwel."
        )
        events = (
            'request.INFO: Matched route "app_cart_show".',
            "doctrine.DEBUG: SELECT t0.id AS id_1 FROM product t0 WHERE t0.slug = ?",
            "security.DEBUG: Checking for authenticator support.",
            "request.CRITICAL: Uncaught PHP Exception Doctrine\\DBAL\\Exception\\InvalidFieldNameException: \"An exception occurred while executing a query: SQLSTATE[42S22]: Column not found: 1054 Unknown column 'o0_.vat_scheme' in 'field list'\" at ExceptionConverter.php line 67",
        )
        log = noise_lines(
            rng,
            9,
            lambda r: (
                f"[2024-06-11T21:{r.randint(10, 59)}:{r.randint(10, 59)}.{_digits(r, 6)}+02:00] {r.choice(events)} {{}} []"
            ),
        )
        b.tool(
            "Ħa nara l-aħħar errors fil-log tal-produzzjoni.",
            "shell",
            {"cmd": f"ssh deploy@{host} 'tail -n 9 /var/www/hanut/current/var/log/prod.log'"},
            log,
        )
        b.assistant(
            "Il-kodiċi l-ġdid qed jistenna l-kolonna `vat_scheme` fuq it-tabella tal-ordnijiet, imma l-migration li kellha "
            "toħloqha ma spiċċatx. Jiġifieri l-applikazzjoni hija fil-verżjoni l-ġdida u d-database baqgħet nofs triq."
        )

    def id_migration() -> None:
        b.user("Liema migration eżattament falliet? Irrid l-isem preċiż għax se nikteb lil Ġorġ.")
        rows = []
        for v in versions:
            if v in pending or v == failed:
                rows.append(
                    f" | DoctrineMigrations\\{v} | not migrated |                     |                | {rng.choice(('Add vat_scheme to order', 'Split address lines', 'Index on product.sku', 'Drop legacy promo table'))} |"
                )
            else:
                rows.append(
                    f" | DoctrineMigrations\\{v} | migrated     | 2024-06-0{rng.randint(1, 9)} 1{rng.randint(0, 9)}:{rng.randint(10, 59)}:{rng.randint(10, 59)} | {rng.randint(20, 900)}ms          | {rng.choice(('Customer newsletter flag', 'Cart expiry', 'Shipping zones', 'Product EAN'))} |"
                )
        table = (
            " +--------------------------------------------+--------------+---------------------+----------------+-----------------------------+\n | Migration                                  | Status       | Migrated At         | Execution Time | Description                 |\n"
            + "\n".join(rows)
        )
        b.tool(
            "Nara l-lista tal-migrations.",
            "shell",
            {
                "cmd": f"ssh deploy@{host} 'cd /var/www/hanut/current && php bin/console doctrine:migrations:list'"
            },
            table,
        )
        b.tool(
            "U l-log tad-deploy biex naf liema waħda waqgħet.",
            "shell",
            {
                "cmd": f"ssh deploy@{host} 'grep -B2 -A3 \"failed during\" /var/www/hanut/.dep/deploy.log'"
            },
            f"[{host}] run cd /var/www/hanut/releases/{rng.randint(140, 180)} && php bin/console doctrine:migrations:migrate --no-interaction\n"
            f"[{host}]  [notice] Migrating up to DoctrineMigrations\\{versions[-1]}\n"
            f'[{host}]  [error] Migration DoctrineMigrations\\{failed} failed during Execution. Error: "An exception occurred while executing a query: SQLSTATE[HY000]: General error: 1205 Lock wait timeout exceeded; try restarting transaction"\n'
            f"[{host}] In ExceptionConverter.php line 56:",
        )
        if rng.random() < 0.5:
            b.assistant(
                f"Dik li falliet hija DoctrineMigrations\\{failed}, b'lock wait timeout fuq it-tabella tal-ordnijiet. Dawk ta' qabilha għaddew kollha."
            )
        else:
            b.assistant(
                "Falliet waħda biss, bi 'Lock wait timeout exceeded' (1205); l-isem tagħha jidher fil-log tad-deploy hawn fuq. Il-migrations ta' qabilha huma kollha migrated."
            )
        probes.append(
            Probe(
                "identifier",
                "Which Doctrine migration version failed during the deploy?",
                f"DoctrineMigrations\\{failed} (lock wait timeout 1205)",
                ((failed,),),
            )
        )

    def id_commit() -> None:
        b.user(
            "Min żied dik il-migration, u f'liema commit? Irrid nagħmel revert jekk ikun hemm bżonn."
        )
        lines = []
        pos = rng.randrange(1, 5)
        for i, c in enumerate(commits):
            if i == pos:
                lines.append(
                    f"{commit} ({authors[0]}, 2024-06-10) Order: add vat_scheme column and migration"
                )
            lines.append(
                f"{c} ({rng.choice(authors[1:])}, 2024-06-0{rng.randint(1, 9)}) {rng.choice(('Fix cart total rounding', 'Bump symfony/mailer to 6.4.8', 'Translations: Maltese checkout strings', 'Refactor ShippingCalculator', 'Add sku index', 'CI: cache composer'))}"
            )
        b.tool(
            "Ħa nara l-istorja tal-folder migrations.",
            "shell",
            {
                "cmd": "git log --format='%h (%an, %ad) %s' --date=short -8 -- migrations/ src/Entity/Order.php"
            },
            "\n".join(lines),
        )
        if rng.random() < 0.5:
            b.assistant(
                f"Żiedha {authors[0]} fil-commit {commit}, fl-10 ta' Ġunju. Il-bqija huma bidliet oħra li m'għandhomx x'jaqsmu."
            )
        else:
            b.assistant(
                f"Kienet ta' {authors[0]}; il-commit huwa dak b'\"add vat_scheme column\" fil-lista. Jekk nagħmlu revert, irridu nneħħu wkoll il-bidla fl-entity Order."
            )
        probes.append(
            Probe(
                "identifier",
                "Which git commit added the failing vat_scheme migration?",
                f"{commit} (by {authors[0]})",
                ((commit,),),
            )
        )

    def id_message() -> None:
        b.user(
            f"Klijent ċempel: ħallas għall-ordni {order_no} imma ma rċieva l-ebda email. Hemm xi messaġġ fallut fil-Messenger?"
        )
        classes = [
            "App\\Message\\SendOrderConfirmation",
            "App\\Message\\SyncStockLevel",
            "App\\Message\\SendNewsletterWelcome",
            "App\\Message\\RecalculateCart",
        ]
        rows = [
            f" {i:<7} {rng.choice(classes[1:]):<40} 2024-06-11 2{rng.randint(0, 3)}:{rng.randint(10, 59)}:{rng.randint(10, 59)}  {rng.choice(('Lock wait timeout exceeded', 'Connection refused', 'Unknown column vat_scheme'))}"
            for i in other_ids
        ]
        rows.insert(
            rng.randrange(len(rows) + 1),
            f" {msg_id:<7} {classes[0]:<40} 2024-06-11 21:{rng.randint(10, 59)}:{rng.randint(10, 59)}  Unknown column 'o0_.vat_scheme' (order {order_no})",
        )
        out = (
            " ------- ---------------------------------------- -------------------- -------------------------------------\n  Id      Class                                    Failed at            Error\n ------- ---------------------------------------- -------------------- -------------------------------------\n"
            + "\n".join(rows)
            + f"\n ------- ---------------------------------------- -------------------- -------------------------------------\n\n // Showing first {len(rows)} messages."
        )
        b.tool(
            "Ħa nara l-failure transport.",
            "shell",
            {
                "cmd": f"ssh deploy@{host} 'cd /var/www/hanut/current && php bin/console messenger:failed:show --max=20'"
            },
            out,
        )
        b.assistant(
            f"Iva: il-konferma tal-ordni {order_no} waqgħet fuq il-kolonna li m'hemmx. Il-messaġġ għadu fil-failure transport, "
            "mela jista' jerġa' jintbagħat ladarba d-database tkun f'postha. Ma rridx nagħmel retry tal-oħrajn għalissa."
        )
        probes.append(
            Probe(
                "identifier",
                f"What is the id of the failed Messenger message carrying the confirmation email of order {order_no}?",
                f"{msg_id} (App\\Message\\SendOrderConfirmation)",
                ((msg_id,),),
            )
        )

    def art_schema() -> None:
        choice = rng.randrange(3)
        how = rng.randrange(3)
        words: tuple[str, ...]
        if choice == 0:
            name = rng.choice(("promo_code_legacy", "cart_item_old", "newsletter_optin_2019"))
            b.user(
                f"Qabel nerġgħu nippruvaw il-migrations: it-tabella {name} m'għadhiex tintuża minn sena. Neħħiha, imma agħmel dump qabel."
            )
            out = (
                f"-- dump: /var/backups/hanut/{name}-20240611.sql.gz ({rng.randint(2, 40)} MB)\n> DROP TABLE {name};\nQuery OK, 0 rows affected ({rng.randint(1, 9)}.{rng.randint(10, 99)} sec)"
                if how != 1
                else f"-- dump: /var/backups/hanut/{name}-20240611.sql.gz ({rng.randint(2, 40)} MB)\nQuery OK, 0 rows affected ({rng.randint(1, 9)}.{rng.randint(10, 99)} sec)"
            )
            b.tool(
                "Nagħmel dump u mbagħad inneħħiha.",
                "shell",
                {
                    "cmd": f"ssh deploy@{host} 'mysqldump hanut {name} | gzip > /var/backups/hanut/{name}-20240611.sql.gz && mysql hanut -vve \"DROP TABLE {name}\"'"
                },
                out,
            )
            words = ("tneħħ", "tħassr", "ħassart", "dropped", "drop table", "deleted")
            said = (
                f"It-tabella {name} tneħħiet; id-dump qiegħed f'/var/backups/hanut."
                if how != 0
                else "Lest, id-dump sar l-ewwel."
            )
            q = f"What happened to the table {name}?"
            a = "dropped after a dump to /var/backups/hanut"
            alts: tuple[str, ...] = (name,)
        elif choice == 1:
            name = rng.choice(("product.ean", "customer.fax", "order.coupon"))
            table, col = name.split(".")
            new = {"ean": "gtin", "fax": "phone_alt", "coupon": "promo_code"}[col]
            b.user(
                f"Il-kolonna {name} issa għandha tissejjaħ {new}, kif fl-entity. Agħmilha bl-idejn, mhux b'migration ġdida."
            )
            out = (
                f"--------------\nALTER TABLE `{table}` RENAME COLUMN `{col}` TO `{new}`\n--------------\n\nQuery OK, 0 rows affected ({rng.randint(0, 2)}.{rng.randint(10, 99)} sec)\nRecords: 0  Duplicates: 0  Warnings: 0"
                if how != 1
                else f"Field\tType\n{new}\tvarchar(32)"
            )
            b.tool(
                "Nibdel l-isem tal-kolonna.",
                "shell",
                {
                    "cmd": f"ssh deploy@{host} mysql hanut -vve 'ALTER TABLE `{table}` RENAME COLUMN `{col}` TO `{new}`'"
                    if how != 1
                    else f"ssh deploy@{host} mysql hanut -e 'ALTER TABLE `{table}` RENAME COLUMN `{col}` TO `{new}`; SHOW COLUMNS FROM `{table}` LIKE \"{new}\"'"
                },
                out,
            )
            words = ("rinominat", "rinomin", "rename", "renamed", "isem ġdid")
            said = (
                f"Il-kolonna {name} ġiet rinominata għal {table}.{new}."
                if how != 0
                else "Sar, mingħajr warnings."
            )
            q = f"What was done to the column {name}?"
            a = f"renamed to {table}.{new} by hand (no new migration)"
            alts = (name, f"RENAME COLUMN `{col}`")
        else:
            name = f"hotfix/{rng.choice(('vat-scheme-lock', 'checkout-500', 'order-migration'))}"
            b.user(
                "Ħa nsewwu l-migration biex taqsam l-ALTER f'biċċiet iżgħar. Iftaħ branch ġdida mill-main."
            )
            out = (
                f"Switched to a new branch '{name}'"
                if how != 1
                else "Your branch is up to date with 'origin/main'."
            )
            b.tool(
                "Noħloq il-branch.",
                "shell",
                {
                    "cmd": f"git fetch -q && git switch -c {name} origin/main"
                    if how != 1
                    else f"git switch -q -c {name} origin/main && git status -sb | head -1"
                },
                out,
            )
            words = ("ħloqt", "inħolq", "ġdida", "new branch", "created")
            said = (
                f"Ħloqt il-branch {name} minn origin/main; se naħdem hemm."
                if how != 0
                else "Issa qegħdin fuqha."
            )
            q = "Which git branch was created for the migration fix?"
            a = f"{name}, created from origin/main"
            alts = (name,)
        b.assistant(said)
        probes.append(Probe("artifact", q, a, (alts, words)))

    def art_runtime() -> None:
        choice = rng.randrange(3)
        how = rng.randrange(3)
        words: tuple[str, ...]
        if choice == 0:
            name = rng.choice(
                ("messenger-worker@async", "messenger-worker@emails", "messenger-worker@stock")
            )
            b.user(
                f"Il-worker {name} qed jerġa' jipprova l-istess messaġġi u jimla l-log. Itfih u tħallihx jerġa' jqum waħdu wara reboot."
            )
            out = (
                f'Removed "/etc/systemd/system/multi-user.target.wants/{name}.service".'
                if how != 1
                else ""
            )
            out = (
                out
                or f"○ {name}.service - Symfony Messenger consumer\n     Loaded: loaded (/etc/systemd/system/messenger-worker@.service; enabled; preset: enabled)\n     Active: inactive (dead) since Tue 2024-06-11 22:{rng.randint(10, 59)}:{rng.randint(10, 59)} CEST"
            )
            b.tool(
                "Inwaqqaf is-servizz.",
                "shell",
                {
                    "cmd": f"ssh deploy@{host} 'sudo systemctl disable --now {name}.service'"
                    if how != 1
                    else f"ssh deploy@{host} 'sudo systemctl disable --now {name}.service 2>/dev/null; systemctl status {name}.service --no-pager | head -3'"
                },
                out,
            )
            words = ("itfejt", "mitfi", "waqqaft", "disabled", "removed", "stopped")
            said = (
                f"Il-worker {name} waqqaftu u ma jerġax jibda waħdu (disabled)."
                if how != 0
                else "Issa hu kwiet."
            )
            q = f"What was done to the {name} service?"
            a = "stopped and disabled (no autostart after reboot)"
        elif choice == 1:
            rel = rng.randint(140, 180)
            name = f"releases/{rel}"
            b.user(
                "Il-checkout irid jaħdem illejla. Mur lura għar-release ta' qabel sakemm insewwu."
            )
            out = (
                f"[{host}] info Rollback to `{name}` release was successful."
                if how != 1
                else f"[{host}] info current -> /var/www/hanut/releases/{rel}"
            )
            b.tool(
                "Nuża r-rollback ta' Deployer.",
                "shell",
                {"cmd": "vendor/bin/dep rollback production"},
                out,
            )
            words = ("rollback", "rolled back", "lura għar", "irritornajna")
            said = (
                f"Għamilt rollback: issa current qed jindika lejn {name}."
                if how != 0
                else "Il-checkout reġa' jaħdem."
            )
            q = "What was done with the production release after the failed deploy?"
            a = f"rolled back to {name} (the previous release)"
        else:
            name = rng.choice(("cache.product_prices", "cache.shipping_rates", "cache.vat_rules"))
            b.user(
                f"Il-prezzijiet għadhom juru l-VAT l-antika. Naddaf il-pool {name} biss, mhux il-cache kollha."
            )
            out = (
                f" // Clearing cache pool: {name}\n\n [OK] Cache was successfully cleared."
                if how != 1
                else " [OK] Cache was successfully cleared."
            )
            b.tool(
                "Innaddaf il-pool.",
                "shell",
                {
                    "cmd": f"ssh deploy@{host} 'cd /var/www/hanut/current && php bin/console cache:pool:clear {name}'"
                },
                out,
            )
            words = ("naddaf", "imnaddaf", "clearing", "cleared")
            said = (
                f"Il-pool {name} ġie mnaddaf; il-bqija tal-cache ma messejthiex."
                if how != 0
                else "Sar."
            )
            q = f"What was done to the cache pool {name}?"
            a = "cleared (only that pool, not the whole cache)"
        b.assistant(said)
        probes.append(Probe("artifact", q, a, ((name,), words)))

    def decoy() -> None:
        b.user(
            f"Ġorġ qal li jista' jkun li l-migration ta' qabel, {versions[0]}, kienet ukoll problema. Iċċekkja, imma tagħmel xejn."
        )
        b.tool(
            "Nara jekk hijiex eżegwita.",
            "shell",
            {
                "cmd": f"ssh deploy@{host} 'mysql hanut -e \"SELECT version, executed_at FROM doctrine_migration_versions ORDER BY version LIMIT 4\"'"
            },
            "+---------------------------------------------+---------------------+\n| version                                     | executed_at         |\n+---------------------------------------------+---------------------+\n"
            + "\n".join(
                f"| DoctrineMigrations\\{v} | 2024-06-0{rng.randint(1, 9)} 10:{rng.randint(10, 59)}:00 |"
                for v in versions
                if v != failed and v not in pending
            )
            + "\n+---------------------------------------------+---------------------+",
        )
        b.assistant(
            f"Le, {versions[0]} hija eżegwita u m'għandha l-ebda problema. Ġorġ żbalja; ma mistu xejn."
        )

    def decide() -> None:
        def t_transport(r: random.Random, bb: Builder) -> None:
            bb.tool(
                "Ħa nara l-konfigurazzjoni tal-Messenger.",
                "shell",
                {"cmd": "php bin/console debug:config framework messenger.transports"},
                "Current configuration for \"framework.messenger.transports\"\n=============================================================\n\nasync:\n    dsn: '%env(MESSENGER_TRANSPORT_DSN)%'\n    retry_strategy:\n        max_retries: 3\n        multiplier: 2\nfailed:\n    dsn: 'doctrine://default?queue_name=failed'\n",
            )

        def t_php(r: random.Random, bb: Builder) -> None:
            bb.tool(
                "Nara l-PHP fuq is-server.",
                "shell",
                {
                    "cmd": f"ssh deploy@{host} 'php -v; composer check-platform-reqs --no-dev | tail -4'"
                },
                f"PHP 8.1.{r.randint(20, 29)} (cli) (built: May 12 2024 09:11:02) (NTS)\nCopyright (c) The PHP Group\nZend Engine v4.1.{r.randint(20, 29)}, Copyright (c) Zend Technologies\n    with Zend OPcache v8.1.{r.randint(20, 29)}, Copyright (c), by Zend Technologies\nphp           8.1.{r.randint(20, 29)}   success\nsymfony/runtime requires php >=8.1 success",
            )

        def t_window(r: random.Random, bb: Builder) -> None:
            bb.tool(
                "Nara meta jkun hemm l-inqas traffiku.",
                "shell",
                {
                    "cmd": f"ssh deploy@{host} \"awk '{{print substr(\\$4,14,2)}}' /var/log/nginx/access.log | sort | uniq -c | sort -n | head -6\""
                },
                noise_lines(r, 6, lambda x: f"   {x.randint(200, 2500)} {x.randint(0, 23):02d}"),
            )

        topics: list[_Topic] = [
            {
                "t": "it-transport tal-Messenger",
                "words": ("transport", "Messenger"),
                "values": (
                    ("Redis", "diġà għandna Redis għall-cache u huwa aktar mgħaġġel."),
                    ("Doctrine", "ma rridux servizz ieħor x'nżommu."),
                ),
                "question": "Which Messenger transport was chosen for the async queue?",
                "tool": t_transport,
            },
            {
                "t": "il-verżjoni tal-PHP fuq il-produzzjoni",
                "words": ("PHP",),
                "values": (
                    ("8.2", "hija l-istess bħal fuq l-ambjent tat-test."),
                    ("8.3", "Symfony 7 jaħdem aħjar biha u l-pakketti kollha jappoġġjawha."),
                ),
                "question": "Which PHP version will production run?",
                "tool": t_php,
            },
            {
                "t": "il-ħin tad-deploy",
                "words": ("deploy",),
                "values": (
                    ("06:00", "f'dak il-ħin ħadd ma jkun qed jixtri."),
                    ("22:30", "it-tim ikun għadu online jekk xi ħaġa tfalli."),
                    ("13:00", "hekk ikun hawn kulħadd fl-uffiċċju."),
                ),
                "question": "At what time of day will deploys be done from now on?",
                "tool": t_window,
            },
        ]
        probes.append(
            _decision(rng, b, _MT, rng.choice(topics), rng.choice(("Ġorġ", "Maria", "Luke")))
        )

    def next_step() -> None:
        days = (
            ("it-Tnejn", "monday"),
            ("it-Tlieta", "tuesday"),
            ("l-Erbgħa", "wednesday"),
            ("il-Ħamis", "thursday"),
            ("il-Ġimgħa", "friday"),
        )
        mode = rng.randrange(3)
        if mode == 0:
            day, en = rng.choice(days)
            b.user(
                f"{day[0].upper()}{day[1:]} filgħodu nagħmlu d-deploy tal-2.15 flimkien, bil-migration maqsuma. Sa dakinhar ħallina b'din il-verżjoni."
            )
            b.tool(
                "Nara x'fadal fil-milestone.",
                "shell",
                {"cmd": "glab issue list --milestone 2.15 --per-page 5"},
                "Showing 5 open issues in hanut/web that match your search (Page 1)\n\n"
                + noise_lines(
                    rng,
                    5,
                    lambda r: (
                        f"#{r.randint(300, 420)}\thanut/web#{r.randint(300, 420)}\t{r.choice(('Checkout: VAT per scheme', 'Split ALTER in migration', 'Maltese translations for emails', 'Stock sync retries', 'Order export CSV'))}\t(about {r.randint(1, 9)} days ago)"
                    ),
                ),
            )
            b.assistant(
                f"Ok. Fadal ftit issues miftuħa għall-2.15; nieħu ħsieb li jkunu lesti qabel {day}."
            )
            probes.append(
                Probe(
                    "next_step",
                    "When will the 2.15 release be deployed?",
                    f"on {en.capitalize()} morning, together, with the split migration",
                    (("2.15",), (day.split("-")[-1], en)),
                )
            )
        elif mode == 1:
            b.user(
                "Tajjeb, dak li hemm bżonn għal-lejla sar. Biex tkun taf, il-ġimgħa d-dieħla għandna ħafna: il-kampanja tas-sajf, "
                "il-fatturi l-ġodda tal-VAT, u meta jlesti l-audit tal-GDPR irridu nħassru l-ordnijiet anonimi ta' qabel l-2021. "
                "Issa, iċċekkja li l-cron tal-invoices għadu jaħdem."
            )
            b.tool(
                "Nara l-crontab.",
                "shell",
                {"cmd": f"ssh deploy@{host} 'crontab -l | grep -v ^#'"},
                "*/5 * * * * cd /var/www/hanut/current && php bin/console app:stock:sync --quiet\n15 2 * * * cd /var/www/hanut/current && php bin/console app:invoices:generate --env=prod\n0 4 * * 0 cd /var/www/hanut/current && php bin/console app:sitemap:dump",
            )
            b.assistant(
                "Il-cron tal-invoices hemm, kuljum fis-2:15. Niżżilt ukoll li l-ordnijiet anonimi ta' qabel l-2021 jitħassru meta jlesti l-audit."
            )
            probes.append(
                Probe(
                    "next_step",
                    "What data cleanup is pending, and on what condition?",
                    "delete the anonymous orders from before 2021 once the GDPR audit is finished",
                    (("ordnijiet anonimi", "anonymous orders"), ("audit",)),
                )
            )
        else:
            b.user("Tista' terġa' tibgħat l-emails li waqgħu?")
            b.tool(
                "Ħa nara l-hotfix fejn wasal.",
                "shell",
                {"cmd": "glab mr list --source-branch hotfix --state opened"},
                f"Showing 1 open merge request on hanut/web (Page 1)\n\n!{rng.randint(200, 260)}\thanut/web!{rng.randint(200, 260)}\tFix vat_scheme migration lock\t(hotfix) ← (main)",
            )
            b.assistant(
                "Għadu kmieni: jekk nibgħathom issa jerġgħu jfallu fuq l-istess kolonna. Wara d-deploy tal-hotfix, "
                "nerġa' nibgħat il-messaġġi falluti b'messenger:failed:retry u nara li l-emails ħarġu."
            )
            probes.append(
                Probe(
                    "next_step",
                    "What did the agent promise to do, and after what?",
                    "retry the failed Messenger messages (messenger:failed:retry) after the hotfix is deployed",
                    (("failed:retry", "retry"), ("hotfix",)),
                )
            )

    _run(
        rng,
        intro,
        [id_migration, id_commit, id_message, art_schema, art_runtime, decoy, decide, next_step],
    )
    opening = b.take()

    def filler(r: random.Random) -> None:
        pick = r.randrange(4)
        if pick == 0:
            b.user("Ħaddem it-testijiet tal-cart, jekk jogħġbok.")
            b.tool(
                "Inħaddem PHPUnit.",
                "shell",
                {"cmd": "php bin/phpunit --testsuite cart"},
                f"PHPUnit 10.5.{r.randint(10, 20)} by Sebastian Bergmann and contributors.\n\nRuntime:       PHP 8.1.{r.randint(20, 29)}\n\n{'.' * r.randint(40, 60)}\n\nTime: 00:0{r.randint(1, 9)}.{r.randint(100, 999)}, Memory: {r.randint(30, 60)}.00 MB\n\nOK ({r.randint(40, 60)} tests, {r.randint(100, 200)} assertions)",
            )
            b.assistant("Kollha għaddew.")
        elif pick == 1:
            b.user("Hemm pakketti tal-Composer li għandhom bżonn update?")
            b.tool(
                "Nara composer outdated.",
                "shell",
                {"cmd": "composer outdated --direct --minor-only"},
                noise_lines(
                    r,
                    5,
                    lambda x: (
                        f"{x.choice(('symfony/mailer', 'twig/twig', 'doctrine/orm', 'phpstan/phpstan', 'symfony/ux-turbo'))} {x.randint(1, 6)}.{x.randint(0, 20)}.{x.randint(0, 9)} ! {x.randint(1, 6)}.{x.randint(0, 20)}.{x.randint(0, 9)} {x.choice(('Symfony Mailer', 'Twig engine', 'Object-Relational-Mapper', 'Static analysis', 'Turbo for Symfony'))}"
                    ),
                ),
            )
            b.assistant("Ftit minor updates; xejn urġenti. Nagħmilhom f'MR separat.")
        elif pick == 2:
            b.user("Il-traduzzjonijiet bil-Malti tal-emails huma kompluti?")
            b.tool(
                "Nestratta l-messaġġi nieqsa.",
                "shell",
                {
                    "cmd": "php bin/console translation:extract mt --dump-messages --domain=emails | tail -5"
                },
                f'Messages extracted for domain "emails" ({r.randint(2, 9)} messages)\n------------------------------------------------\n\n * email.shipping.subject\n * email.invoice.footer\n\n [OK] Translation files were successfully updated.',
            )
            b.assistant("Fadal ftit strings mhux tradotti; bgħattilhom lil Maria.")
        else:
            b.user("Ara jekk il-container tas-servizzi huwiex validu.")
            b.tool(
                "Lint tal-container.",
                "shell",
                {"cmd": "php bin/console lint:container"},
                " [OK] The container was linted successfully: all services are injected with values that are compatible with their type declarations.",
            )
            b.assistant("Il-container huwa validu.")

    return opening, segments_of(rng, b, segments, filler), probes


# -- cassandra_node_repair (Afrikaans) ---------------------------------------------------

_AF = _Voice(
    prompt=(
        "Ons moet besluit oor {t}. Wat stel jy voor?",
        "Kyk wat ons het en sê vir my wat jy sou doen met {t}.",
        "Voor ons aangaan: wat doen ons met {t}? Gee my 'n voorstel.",
    ),
    dictated=(
        "Dis besluit: vir {t} gebruik ons {v}, want {why}",
        "Skryf dit neer: {t}, {v}; {why} Ek wil nie nou daaroor stry nie.",
        "Vir {t} wil ek {v} hê; {why}",
    ),
    first=(
        "Vir {t} sit ons voorlopig {v}.",
        "Om mee te begin, {t}: {v}. Ons kyk later weer.",
    ),
    correction=(
        "Ek korrigeer wat ek vroeër gesê het: vir {t} nie {old} nie, eerder {v}, want {why}",
        "Ek het van plan verander, {t} word {v} en nie {old} nie: {why}",
        "Vergeet wat ek oor {old} gesê het. Vir {t}, {v}; {why}",
    ),
    propose=(
        "Ek stel {v} voor vir {t}, want {why} Is jy tevrede?",
        "My voorstel vir {t} is {v}: {why} As jy saamstem, gaan ek so voort.",
    ),
    approve=(
        "Reg so, gaan voort: {v} vir {t}.",
        "Perfek, {t} met {v}. Gaan aan.",
        "Ja, {v} vir {t}, ek stem saam.",
    ),
    modify=(
        "Amper. In plaas van {old}, vir {t} eerder {v}: {why}",
        "{old} oortuig my nie. Gebruik {v} vir {t}, want {why}",
    ),
    relay=(
        "Ek het met {who} gepraat, wat die begroting hanteer: vir {t} wil {who} {v} hê, want {why}",
        "{who} het netnou gebel: {t} moet {v} wees, want {why}",
        "Boodskap van {who} op Slack: vir {t}, {v}; {why}",
    ),
    ask=(
        "Voor ek verder gaan moet jy my iets sê: vir {t}, {a} of {b}?",
        "Vraag: {t}, verkies jy {a} of {b}? Albei werk.",
    ),
    answer=(
        "{v} vir {t}: {why}",
        "Gaan met {v} vir {t}, want {why}",
        "Vir {t}, {v}, want {why}",
    ),
    ack=(
        "Verstaan: {t}, {v}. Ek het dit aangeteken.",
        "Klaar, {v} vir {t}.",
        "Goed, {t} met {v}; ek hou dit in gedagte.",
    ),
)


def _uuid(rng: random.Random) -> str:
    return f"{hexits(rng, 8)}-{hexits(rng, 4)}-4{hexits(rng, 3)}-{rng.choice('89ab')}{hexits(rng, 3)}-{hexits(rng, 12)}"


def _cassandra(rng: random.Random, b: Builder, segments: int) -> Parts:
    probes: list[Probe] = []
    hosts = [f"cass-jhb-0{i}" for i in (1, 2, 3)] + [f"cass-cpt-0{i}" for i in (1, 2, 3)]
    ips = [f"10.20.1.1{i}" for i in (1, 2, 3)] + [f"10.30.1.1{i}" for i in (1, 2, 3)]
    ids = [_uuid(rng) for _ in hosts]
    dead, decom, restart, coord = rng.sample(range(6), 4)
    epoch = f"1718{_digits(rng, 6)}"
    snap = f"pre-drop-{epoch}"
    old_snaps = [f"pre-drop-1717{_digits(rng, 6)}", f"weekly-1717{_digits(rng, 6)}"]
    ticket = f"PLAT-{rng.randint(4000, 4999)}"
    old_ticket = f"PLAT-{rng.randint(3000, 3999)}"

    def status() -> str:
        out = []
        for dc, rng_idx in (("dc-jhb", range(0, 3)), ("dc-cpt", range(3, 6))):
            out.append(
                f"Datacenter: {dc}\n{'=' * (12 + len(dc))}\nStatus=Up/Down\n|/ State=Normal/Leaving/Joining/Moving\n--  Address     Load        Tokens  Owns (effective)  Host ID                               Rack"
            )
            for i in rng_idx:
                st = "DN" if i == dead else "UN"
                out.append(
                    f"{st}  {ips[i]}  {rng.randint(380, 460)}.{rng.randint(10, 99)} GiB  16      {rng.randint(45, 55)}.{rng.randint(0, 9)}%             {ids[i]}  rack{i % 3 + 1}"
                )
            out.append("")
        return "\n".join(out)

    def intro() -> None:
        b.user(
            "Môre. Ons Cassandra-ring vir die telemetrie (4.1, twee datasentrums, ses nodusse) is sedert die nag in die moeilikheid: "
            "een nodus reageer nie, die skryf-latensie het verdubbel en system.log is vol tombstone-waarskuwings. "
            "Help my om te kyk, maar moenie iets op produksie verander sonder om my eers te vra nie."
        )
        b.tool(
            "Ek kyk eers na die toestand van die ring.",
            "shell",
            {"cmd": f"ssh {hosts[(dead + 1) % 6]} nodetool status telemetry"},
            status(),
        )
        b.assistant(
            f"Vyf nodusse is UN; {ips[dead]} ({hosts[dead]}) is DN. Met RF=3 per datasentrum en LOCAL_QUORUM hou die skryfwerk nog, "
            "maar die hints vir daardie nodus stapel op."
        )

    def id_host() -> None:
        b.user(
            f"As {hosts[dead]} nie terugkom nie, gaan ons dit met removenode uit die ring haal. Watter Host ID het dit? Ek wil dit in die runbook sit."
        )
        b.tool(
            "Ek kyk na gossipinfo vir die nodus.",
            "shell",
            {"cmd": f"ssh {hosts[(dead + 2) % 6]} 'nodetool gossipinfo | grep -A12 /{ips[dead]}'"},
            f"/{ips[dead]}\n  generation:17{_digits(rng, 8)}\n  heartbeat:{rng.randint(100000, 999999)}\n  STATUS:{rng.randint(10, 99)}:NORMAL,-{_digits(rng, 18)}\n  LOAD:{rng.randint(10, 99)}:4.2{_digits(rng, 9)}E11\n  SCHEMA:{rng.randint(10, 99)}:{_uuid(rng)}\n  DC:{rng.randint(5, 9)}:{'dc-jhb' if dead < 3 else 'dc-cpt'}\n  RACK:{rng.randint(5, 9)}:rack{dead % 3 + 1}\n  RELEASE_VERSION:4:4.1.5\n  INTERNAL_IP:6:{ips[dead]}\n  RPC_READY:{rng.randint(50, 99)}:true\n  HOST_ID:2:{ids[dead]}\n  TOKENS:{rng.randint(10, 30)}:<hidden>",
        )
        if rng.random() < 0.5:
            b.assistant(
                f"Die Host ID van {hosts[dead]} ({ips[dead]}) is {ids[dead]}; dieselfde as in nodetool status. Die SCHEMA-UUID daarbo is iets anders, nie verwar nie."
            )
        else:
            b.assistant(
                "Dit staan in die HOST_ID-reël van gossipinfo hierbo, en dit stem ooreen met die DN-reël in nodetool status. Let op: die SCHEMA-waarde is nie die Host ID nie."
            )
        probes.append(
            Probe(
                "identifier",
                f"What is the Host ID of the down node {hosts[dead]} ({ips[dead]})?",
                ids[dead],
                ((ids[dead],),),
            )
        )

    def id_snapshot() -> None:
        b.user(
            "Voordat ons enigiets skrap, neem 'n snapshot van die telemetry-keyspace op al die lewende nodusse."
        )
        b.tool(
            "Ek neem die snapshot oral met dieselfde naam.",
            "shell",
            {
                "cmd": f"for h in {' '.join(h for i, h in enumerate(hosts) if i != dead)}; do ssh $h nodetool snapshot -t {snap} telemetry; done"
            },
            "\n".join(
                f"Requested creating snapshot(s) for [telemetry] with snapshot name [{snap}] and options {{skipFlush=false}}\nSnapshot directory: {snap}"
                for i in range(5)
            ),
        )
        b.tool(
            "En ek kyk watter ander snapshots nog daar lê.",
            "shell",
            {"cmd": f"ssh {hosts[(dead + 1) % 6]} nodetool listsnapshots"},
            "Snapshot Details: \nSnapshot name       Keyspace name Column family name True size Size on disk Creation time\n"
            + "\n".join(
                f"{n}  telemetry     {t}  {rng.randint(1, 90)}.{rng.randint(1, 99)} GiB  {rng.randint(100, 400)}.{rng.randint(1, 99)} GiB  2024-0{rng.randint(5, 6)}-{rng.randint(10, 28)}T0{rng.randint(1, 9)}:00:00Z"
                for n in (old_snaps[0], old_snaps[1], snap)
                for t in ("device_state", "readings_hourly")
            ),
        )
        if rng.random() < 0.5:
            b.assistant(
                f"Snapshot {snap} bestaan nou op al vyf lewende nodusse. Die ouer {old_snaps[0]} en {old_snaps[1]} neem baie spasie in; ons kan hulle later skoonmaak."
            )
        else:
            b.assistant(
                "Klaar: die nuwe snapshot is op al vyf nodusse (naam in die uitvoer hierbo). Daar lê ook twee ouer snapshots wat skyfspasie vreet."
            )
        probes.append(
            Probe(
                "identifier",
                "What is the name (tag) of the snapshot taken before the destructive changes?",
                f"{snap} (on the five live nodes; {old_snaps[0]} and {old_snaps[1]} are older)",
                ((snap,),),
            )
        )

    def id_ticket() -> None:
        if rng.random() < 0.5:
            b.user(
                f"Log alles wat ons vandag doen onder {ticket}. {old_ticket} was die ou een oor die JVM-heap en is reeds toe, moenie daarin skryf nie. Kyk of die kaartjie al die regte status het."
            )
            b.tool(
                "Ek kyk na die kaartjie.",
                "shell",
                {"cmd": f"jira issue view {ticket} --plain | head -8"},
                f"🐞 Bug  🚧 In Progress  ⌛ Tue, 11 Jun 24  👷 you  🔑️ {ticket}  💭 {rng.randint(1, 5)} comments  🧵 0 linked\n# Cassandra: node down in ring, write latency doubled\n⏱️  Tue, 11 Jun 24  🔎 High  🚀 None  📦 None  🏷️  cassandra, telemetry  👀 You + 1 watcher\n\n------------------------ Description ------------------------\n\nPager alert at 02:{rng.randint(10, 59)}: p99 write latency > 40 ms on telemetry.",
            )
            b.assistant("Dit is In Progress en aan jou toegewys; ek sal die notas daar byvoeg.")
        else:
            b.user("Is daar al 'n kaartjie vir hierdie voorval? Ek het nog nie een oopgemaak nie.")
            b.tool(
                "Ek soek in Jira.",
                "shell",
                {
                    "cmd": "jira issue list -q 'project = PLAT AND labels = cassandra' --plain --columns key,status,summary"
                },
                "KEY\tSTATUS\tSUMMARY\n"
                + f"{old_ticket}\tDone\tCassandra JVM heap pressure on dc-cpt\n{ticket}\tIn Progress\tCassandra: node down in ring, write latency doubled (auto: pager)\nPLAT-{rng.randint(1000, 2999)}\tDone\tUpgrade Cassandra 4.0 -> 4.1",
            )
            b.assistant(
                f"Ja, die pager het outomaties {ticket} oopgemaak (In Progress). {old_ticket} oor die heap is lankal Done."
            )
        probes.append(
            Probe(
                "identifier",
                "Which Jira ticket tracks today's Cassandra incident?",
                f"{ticket} ({old_ticket} is an old, closed heap ticket)",
                ((ticket,),),
            )
        )

    def art_table() -> None:
        choice = rng.randrange(3)
        how = rng.randrange(3)
        words: tuple[str, ...]
        ts = f"2024-06-11 0{rng.randint(7, 9)}:{rng.randint(10, 59)}:{rng.randint(10, 59)},{rng.randint(100, 999)}"
        if choice == 0:
            tbl = rng.choice(("raw_events_v1", "ingest_debug", "readings_legacy"))
            name = f"telemetry.{tbl}"
            b.user(
                f"Die tabel {name} word sedert die migrasie nie meer gelees nie, en dis waar die meeste tombstones vandaan kom. Skrap hom (die snapshot het ons)."
            )
            out = (
                f"INFO  [Native-Transport-Requests-1] {ts} MigrationCoordinator.java:{rng.randint(100, 999)} - Drop table 'telemetry/{tbl}'"
                if how != 1
                else ""
            )
            b.tool(
                "Ek skrap die tabel en kyk na die log.",
                "shell",
                {
                    "cmd": f"ssh {hosts[(dead + 1) % 6]} \"cqlsh -e 'DROP TABLE {name};' && grep -i 'drop table' /var/log/cassandra/system.log | tail -1\""
                    if how != 1
                    else f"ssh {hosts[(dead + 1) % 6]} \"cqlsh -e 'DROP TABLE {name};'\""
                },
                out or "(no output)",
            )
            words = ("geskrap", "verwyder", "drop", "dropped", "deleted")
            said = (
                f"Die tabel {name} is geskrap; die data is nog in die snapshot."
                if how != 0
                else "Gedoen; die skema het op al die lewende nodusse ooreengekom."
            )
            q = f"What happened to the table {name}?"
            a = "dropped (a snapshot was taken first)"
            alts: tuple[str, ...] = (name, f"telemetry/{tbl}")
        elif choice == 1:
            tbl = rng.choice(("sensor_readings", "gateway_events", "metrics_minute"))
            name = f"telemetry.{tbl}"
            b.user(
                f"Die tabel {name} is tydreeks-data met TTL. Verander sy compaction na TimeWindowCompactionStrategy met dag-vensters."
            )
            out = (
                f"INFO  [Native-Transport-Requests-2] {ts} MigrationCoordinator.java:{rng.randint(100, 999)} - Update table 'telemetry/{tbl}' From org.apache.cassandra.config.CFMetaData@{hexits(rng, 8)}[...compaction={{class=SizeTieredCompactionStrategy}}] To [...compaction={{class=TimeWindowCompactionStrategy, compaction_window_unit=DAYS, compaction_window_size=1}}]"
                if how != 1
                else "    AND compaction = {'class': 'org.apache.cassandra.db.compaction.TimeWindowCompactionStrategy', 'compaction_window_size': '1', 'compaction_window_unit': 'DAYS'}"
            )
            b.tool(
                "Ek verander die tabel.",
                "shell",
                {
                    "cmd": f"ssh {hosts[(dead + 1) % 6]} \"cqlsh -e \\\"ALTER TABLE {name} WITH compaction = {{'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': 1}};\\\"\""
                },
                out,
            )
            words = ("verander", "gewysig", "update table", "altered", "changed")
            said = (
                f"Die compaction van {name} is verander na TWCS met dag-vensters."
                if how != 0
                else "Dit het deurgegaan."
            )
            q = f"What was changed on the table {name}?"
            a = "its compaction was changed (altered) to TimeWindowCompactionStrategy with 1-day windows"
            alts = (name, f"telemetry/{tbl}")
        else:
            tbl = rng.choice(("alerts_dedup", "notify_outbox", "rule_cache"))
            name = f"telemetry.{tbl}"
            b.user(
                f"{name} is net 'n dedup-buffer; die inhoud is waardeloos na die voorval. Maak hom leeg, maar moenie die tabel self skrap nie."
            )
            out = f"truncated {name}" if how != 1 else "(no output)"
            b.tool(
                "Ek maak die tabel leeg.",
                "shell",
                {
                    "cmd": f"ssh {hosts[(dead + 1) % 6]} \"cqlsh -e 'CONSISTENCY ALL; TRUNCATE {name};' && echo truncated {name}\""
                    if how != 1
                    else f"ssh {hosts[(dead + 1) % 6]} \"cqlsh -e 'CONSISTENCY ALL; TRUNCATE {name};'\""
                },
                out,
            )
            words = ("leeggemaak", "truncate", "truncated", "emptied")
            said = (
                f"{name} is leeggemaak (TRUNCATE); die tabel self bestaan nog."
                if how != 0
                else "Klaar."
            )
            q = f"What was done to the table {name}?"
            a = "truncated (emptied); the table itself was kept"
            alts = (name,)
        b.assistant(said)
        probes.append(Probe("artifact", q, a, (alts, words)))

    def art_node() -> None:
        choice = rng.randrange(3)
        how = rng.randrange(3)
        words: tuple[str, ...]
        if choice == 0:
            name = hosts[decom]
            b.user(
                f"{name} was in elk geval op die lys om uitgefaseer te word. Noudat ons kapasiteit elders het: decommission dit."
            )
            out = (
                f"{name}: Mode: DECOMMISSIONED"
                if how != 1
                else "Mode: NORMAL\nNot sending any streams."
            )
            b.tool(
                "Ek begin die decommission en kyk die modus.",
                "shell",
                {
                    "cmd": f"ssh {name} 'nodetool decommission' ; echo -n '{name}: '; ssh {name} 'nodetool netstats | head -1'"
                    if how != 1
                    else f"ssh {name} 'nodetool decommission'; ssh {hosts[(dead + 1) % 6]} 'nodetool netstats | head -2'"
                },
                out,
            )
            words = ("uitgefaseer", "decommission", "decommissioned")
            said = (
                f"{name} is uitgefaseer (decommissioned); sy data is na die ander nodusse gestroom."
                if how != 0
                else "Dit is klaar gestroom."
            )
            q = f"What happened to node {name}?"
            a = "decommissioned (removed from the ring, data streamed away)"
            alts: tuple[str, ...] = (name,)
        elif choice == 1:
            name = rng.choice(
                ("medusa-backup.timer", "cassandra-snapshot.timer", "nodetool-cleanup.timer")
            )
            b.user(
                f"Die {name} loop elke nag en dit maak die I/O nog erger terwyl die ring swak is. Skakel dit af tot verder kennisgewing."
            )
            out = (
                f'Removed "/etc/systemd/system/timers.target.wants/{name}".'
                if how != 1
                else "0 timers listed."
            )
            b.tool(
                "Ek skakel die timer af.",
                "shell",
                {
                    "cmd": f"for h in {' '.join(hosts)}; do ssh $h sudo systemctl disable --now {name}; done 2>/dev/null | sort -u"
                    if how != 1
                    else f"ssh {hosts[(dead + 1) % 6]} 'sudo systemctl disable --now {name} 2>/dev/null; systemctl list-timers {name} --no-legend | wc -l | sed s/$/\\ timers\\ listed./'"
                },
                out,
            )
            words = ("afgeskakel", "gedeaktiveer", "disabled", "removed", "stopped")
            said = (
                f"Die {name} is oral afgeskakel en sal nie weer vanself loop nie."
                if how != 0
                else "Gedoen."
            )
            q = f"What was done to {name}?"
            a = "disabled and stopped on all nodes until further notice"
            alts = (name,)
        else:
            name = hosts[restart]
            b.user(
                f"{name} se heap is vol en GC-pouses is 4 sekondes. Herbegin Cassandra daar, net daardie een."
            )
            out = (
                f"Jun 11 09:{rng.randint(10, 59)}:{rng.randint(10, 59)} {name} systemd[1]: Stopped cassandra.service - Apache Cassandra.\nJun 11 09:{rng.randint(10, 59)}:{rng.randint(10, 59)} {name} systemd[1]: Started cassandra.service - Apache Cassandra."
                if how != 1
                else "active"
            )
            b.tool(
                "Ek herbegin die diens.",
                "shell",
                {
                    "cmd": f"ssh {name} 'nodetool drain && sudo systemctl restart cassandra && journalctl -u cassandra -n 2 --no-pager -o short'"
                    if how != 1
                    else f"ssh {name} 'nodetool drain && sudo systemctl restart cassandra && systemctl is-active cassandra'"
                },
                out,
            )
            words = ("herbegin", "restarted", "started")
            said = (
                f"Cassandra op {name} is herbegin (eers drain); die nodus is weer UN."
                if how != 0
                else "Die nodus is terug."
            )
            q = f"What was done on node {name}?"
            a = "Cassandra was restarted there (after nodetool drain)"
            alts = (name,)
        b.assistant(said)
        probes.append(Probe("artifact", q, a, (alts, words)))

    def decoy() -> None:
        b.user(
            f"Iemand in die kanaal sê ons moet {hosts[(dead + 3) % 6]} ook herbegin. Moenie; kyk net of dit gesond lyk."
        )
        b.tool(
            "Ek kyk net na tpstats.",
            "shell",
            {"cmd": f"ssh {hosts[(dead + 3) % 6]} 'nodetool tpstats | head -8'"},
            "Pool Name                         Active Pending Completed Blocked All time blocked\n"
            + noise_lines(
                rng,
                7,
                lambda r: (
                    f"{r.choice(('ReadStage', 'MutationStage', 'CompactionExecutor', 'GossipStage', 'MemtableFlushWriter', 'Native-Transport-Requests', 'HintsDispatcher')):<33} {r.randint(0, 4):<6} {r.randint(0, 30):<7} {r.randint(10**5, 10**8):<9} 0       0"
                ),
            ),
        )
        b.assistant("Dit lyk gesond, niks geblokkeer nie. Ek het dit nie herbegin nie.")

    def decide() -> None:
        def t_repair(r: random.Random, bb: Builder) -> None:
            bb.tool(
                "Ek kyk hoe lank die laaste repair gevat het.",
                "shell",
                {
                    "cmd": f"ssh {hosts[(dead + 1) % 6]} \"grep -i 'repair' /var/log/cassandra/system.log | tail -4\""
                },
                noise_lines(
                    r,
                    4,
                    lambda x: (
                        f"INFO  [Repair#{x.randint(1, 40)}:1] 2024-06-0{x.randint(1, 9)} 0{x.randint(1, 5)}:{x.randint(10, 59)}:{x.randint(10, 59)},{x.randint(100, 999)} RepairRunnable.java:{x.randint(100, 400)} - Repair session {_uuid(x)} for range [(-{_digits(x, 18)},{_digits(x, 18)}]] finished"
                    ),
                ),
            )

        def t_gc(r: random.Random, bb: Builder) -> None:
            bb.tool(
                "Ek kyk die huidige gc_grace_seconds.",
                "shell",
                {
                    "cmd": f'ssh {hosts[(dead + 1) % 6]} "cqlsh -e \\"SELECT table_name, gc_grace_seconds, default_time_to_live FROM system_schema.tables WHERE keyspace_name=\'telemetry\';\\""'
                },
                " table_name      | gc_grace_seconds | default_time_to_live\n-----------------+------------------+----------------------\n"
                + noise_lines(
                    r,
                    4,
                    lambda x: (
                        f" {x.choice(('device_state', 'readings_hourly', 'firmware_log', 'alarms')):<15} |           864000 |              {x.choice(('0', '2592000', '7776000'))}"
                    ),
                )
                + "\n\n(4 rows)",
            )

        def t_inst(r: random.Random, bb: Builder) -> None:
            bb.tool(
                "Ek kyk die beskikbare instance-tipes in die streek.",
                "shell",
                {
                    "cmd": "aws ec2 describe-instance-type-offerings --region af-south-1 --filters Name=instance-type,Values=i4i.2xlarge,r6id.2xlarge,m6id.2xlarge --query 'InstanceTypeOfferings[].InstanceType' --output text"
                },
                "i4i.2xlarge\tm6id.2xlarge\tr6id.2xlarge",
            )

        topics: list[_Topic] = [
            {
                "t": "die repair-skedule",
                "words": ("repair",),
                "values": (
                    (
                        "Reaper",
                        "dit verdeel die werk in klein segmente en ons kan dit in die UI volg.",
                    ),
                    ("nodetool repair -pr", "ons wil nie nog 'n diens hê om te onderhou nie."),
                ),
                "question": "How will repairs be run from now on?",
                "tool": t_repair,
            },
            {
                "t": "gc_grace_seconds van die telemetrie-tabelle",
                "words": ("gc_grace_seconds", "gc_grace"),
                "values": (
                    ("259200", "drie dae is genoeg as repair elke dag loop."),
                    ("432000", "vyf dae gee ons 'n buffer oor naweke."),
                    ("86400", "die tombstones moet so vinnig as moontlik weg."),
                ),
                "question": "What gc_grace_seconds was chosen for the telemetry tables?",
                "tool": t_gc,
            },
            {
                "t": "die vervangingsnodus",
                "words": ("nodus", "node"),
                "values": (
                    ("i4i.2xlarge", "die NVMe-skywe is vinniger vir compaction."),
                    ("r6id.2xlarge", "meer geheue vir die page cache."),
                    ("m6id.2xlarge", "dis die goedkoopste en genoeg vir ons las."),
                ),
                "question": "Which instance type was chosen for the replacement node?",
                "tool": t_inst,
            },
        ]
        probes.append(
            _decision(rng, b, _AF, rng.choice(topics), rng.choice(("Annelie", "Pieter", "Thandi")))
        )

    def next_step() -> None:
        mode = rng.randrange(3)
        if mode == 0:
            d = rng.randint(14, 28)
            b.user(
                f"Die nuwe nodus moet teen {d} Junie in die ring wees; dis die sperdatum wat ek vir die bestuur gegee het. Kyk of ons genoeg kwota het."
            )
            b.tool(
                "Ek kyk die EC2-kwota.",
                "shell",
                {
                    "cmd": "aws service-quotas get-service-quota --service-code ec2 --quota-code L-1216C47A --region af-south-1 --query 'Quota.Value'"
                },
                f"{rng.choice((64, 128, 256))}.0",
            )
            b.assistant(
                f"Daar is genoeg kwota. Ek hou {d} Junie as die sperdatum vir die nuwe nodus in gedagte."
            )
            probes.append(
                Probe(
                    "next_step",
                    "By when must the new node be in the ring?",
                    f"by {d} June (deadline given to management)",
                    (("nodus", "node"), (f"{d} Junie", f"{d} June", f"June {d}")),
                )
            )
        elif mode == 1:
            b.user(
                "Goed, vir nou is die ring stabiel. Net sodat jy weet wat nog kom: die span verhuis volgende week na die nuwe monitering, "
                "Annelie wil 'n verslag oor die koste, en teen die einde van die maand moet die kliënt-TLS-sertifikate van die ring hernu word. "
                "Kyk intussen of die skema-weergawes ooreenstem."
            )
            b.tool(
                "Ek kyk describecluster.",
                "shell",
                {"cmd": f"ssh {hosts[(dead + 1) % 6]} 'nodetool describecluster | sed -n 1,12p'"},
                f"Cluster Information:\n\tName: telemetry-prod\n\tSnitch: org.apache.cassandra.locator.GossipingPropertyFileSnitch\n\tDynamicEndPointSnitch: enabled\n\tPartitioner: org.apache.cassandra.dht.Murmur3Partitioner\n\tSchema versions:\n\t\t{_uuid(rng)}: [{', '.join(i for n, i in enumerate(ips) if n != dead)}]\n\n\t\tUNREACHABLE: [{ips[dead]}]",
            )
            b.assistant(
                "Een skema-weergawe op al die bereikbare nodusse. En ek het die hernuwing van die TLS-sertifikate vir die einde van die maand genoteer."
            )
            probes.append(
                Probe(
                    "next_step",
                    "What has to be renewed, and by when?",
                    "the ring's client TLS certificates, by the end of the month",
                    (
                        ("sertifika", "certificate", "TLS"),
                        ("einde van die maand", "end of the month", "end of month"),
                    ),
                )
            )
        else:
            b.user("Hoe lyk die repair wat ons vanoggend begin het?")
            b.tool(
                "Ek kyk na die lopende repair.",
                "shell",
                {"cmd": f"ssh {hosts[coord]} 'nodetool repair_admin list'"},
                f"id                                   | state   | last activity | coordinator    | participants\n{_uuid(rng)} | REPAIRING | {rng.randint(1, 59)} (s)  | /{ips[coord]}:7000 | {','.join(i for n, i in enumerate(ips) if n != dead)}",
            )
            b.assistant(
                f"Dit loop nog. Sodra die repair op {hosts[coord]} klaar is, sal ek die tombstone-waarskuwings in system.log weer nagaan "
                "en kyk of die getalle afgekom het."
            )
            probes.append(
                Probe(
                    "next_step",
                    "What did the agent promise to do, and after what?",
                    f"re-check the tombstone warnings in system.log once the repair on {hosts[coord]} finishes",
                    (("tombstone",), ("repair",)),
                )
            )

    _run(
        rng, intro, [id_host, id_snapshot, id_ticket, art_table, art_node, decoy, decide, next_step]
    )
    opening = b.take()

    def filler(r: random.Random) -> None:
        pick = r.randrange(4)
        if pick == 0:
            b.user("Hoe lyk die lees-latensie op device_state?")
            b.tool(
                "Ek kyk tablehistograms.",
                "shell",
                {"cmd": "nodetool tablehistograms telemetry device_state"},
                "telemetry/device_state histograms\nPercentile      Read Latency     Write Latency          SSTables    Partition Size        Cell Count\n                    (micros)          (micros)                             (bytes)\n"
                + "\n".join(
                    f"{p:<15} {r.randint(100, 9000):>12.2f} {r.randint(20, 400):>17.2f} {r.randint(1, 8):>17.2f} {r.randint(300, 9000):>17} {r.randint(2, 90):>17}"
                    for p in ("50%", "75%", "95%", "98%", "99%", "Min", "Max")
                ),
            )
            b.assistant("Die p99 lees-latensie is aanvaarbaar; die partisies is klein.")
        elif pick == 1:
            b.user("Hoeveel toestelle het vandag data gestuur?")
            b.tool(
                "Ek tel in cqlsh.",
                "shell",
                {
                    "cmd": "cqlsh -e \"SELECT count(*) FROM telemetry.readings_hourly WHERE day='2024-06-11' ALLOW FILTERING;\""
                },
                f"\n count\n-------\n {r.randint(1000, 9000)}\n\n(1 rows)\n\nWarnings :\nAggregation query used without partition key",
            )
            b.assistant("Ongeveer soveel toestelle as gister; niks ongewoons nie.")
        elif pick == 2:
            b.user("Hoe gaan dit met compactions?")
            b.tool(
                "Ek kyk compactionstats.",
                "shell",
                {"cmd": "nodetool compactionstats -H"},
                f"pending tasks: {r.randint(0, 12)}\n- telemetry.device_state: {r.randint(0, 5)}\n- telemetry.readings_hourly: {r.randint(0, 5)}\n\nid                                   compaction type keyspace  table           completed  total     unit  progress\n{_uuid(r)} Compaction      telemetry readings_hourly {r.randint(1, 9)}.{r.randint(1, 99)} GiB  {r.randint(10, 20)}.{r.randint(1, 99)} GiB bytes {r.randint(10, 90)}.{r.randint(10, 99)}%",
            )
            b.assistant("'n Paar take in die tou, maar dit beweeg.")
        else:
            b.user("Kyk die GC-pouses op hierdie nodus.")
            b.tool(
                "Ek kyk gcstats.",
                "shell",
                {"cmd": "nodetool gcstats"},
                f"       Interval (ms) Max GC Elapsed (ms)Total GC Elapsed (ms)Stdev GC Elapsed (ms)   GC Reclaimed (MB)         Collections      Direct Memory Bytes\n          {r.randint(10000, 99999)}                 {r.randint(50, 400)}                {r.randint(400, 3000)}                  {r.randint(5, 90)}          {r.randint(1000, 90000)}                  {r.randint(5, 60)}                       -1",
            )
            b.assistant("Die pouses is kort; die heap is nie die probleem hier nie.")

    return opening, segments_of(rng, b, segments, filler), probes


# -- velero_cluster_restore (Belarusian) -------------------------------------------------

_BE = _Voice(
    prompt=(
        "Трэба вырашыць пытанне: {t}. Што прапануеш?",
        "Паглядзі, што ёсць, і скажы, што б ты зрабіў. Пытанне — {t}.",
        "Перш чым ісці далей: {t} — як робім? Дай прапанову.",
    ),
    dictated=(
        "Вырашана: {t} — {v}, бо {why}",
        "Запішы: {t}, {v}; {why} Спрачацца тут няма пра што.",
        "Што да пытання «{t}», хачу {v}; {why}",
    ),
    first=(
        "Пакуль што {t} — {v}.",
        "Для пачатку {t}: {v}. Потым удакладнім.",
    ),
    correction=(
        "Выпраўляю тое, што казаў раней: {t} — не {old}, а {v}, бо {why}",
        "Я перадумаў: {t} будзе {v}, не {old}: {why}",
        "Забудзь пра {old}: {t} — {v}; {why}",
    ),
    propose=(
        "Прапаную {v} ({t}), бо {why} Згодны?",
        "Мая прапанова: {t} — {v}, бо {why} Калі згодны, раблю так.",
    ),
    approve=(
        "Добра, рабі: {t} — {v}.",
        "Выдатна, {t}: {v}. Працягвай.",
        "Так, {v}, {t} — згодны.",
    ),
    modify=(
        "Амаль, але {t} — не {old}, а {v}: {why}",
        "{old} мяне не пераконвае. Для пытання «{t}» бяры {v}, бо {why}",
    ),
    relay=(
        "{who} кажа (размаўлялі раніцай, яна адказвае за кластар): {t} — {v}, бо {why}",
        "{who} толькі што тэлефанавала: {t} мусіць быць {v}, бо {why}",
        "{who} напісала ў Slack: {t} — {v}; {why}",
    ),
    ask=(
        "Перш чым працягваць, скажы мне адно: {t} — {a} ці {b}?",
        "Пытанне: {t}, што лепш — {a} ці {b}? Абодва варыянты рабочыя.",
    ),
    answer=(
        "{t} — {v}, бо {why}",
        "Бяры {v} ({t}), бо {why}",
        "Няхай {t} будзе {v}; {why}",
    ),
    ack=(
        "Зразумела: {t} — {v}. Занатаваў.",
        "Гатова, {t}: {v}.",
        "Добра, {v} ({t}); улічваю гэта далей.",
    ),
)


def _velero(rng: random.Random, b: Builder, segments: int) -> Parts:
    probes: list[Probe] = []
    cluster = rng.choice(("prod-minsk", "prod-eu-1", "k8s-prod-02"))

    def stamp(day: int) -> str:
        return f"202406{day:02d}02{rng.randint(0, 5):02d}{rng.randint(0, 59):02d}"

    good = f"daily-billing-{stamp(10)}"
    bad_b = f"daily-billing-{stamp(11)}"
    older = [f"daily-billing-{stamp(d)}" for d in (9, 8, 7)]
    snap = f"snap-0{hexits(rng, 16)}"
    snaps = [f"snap-0{hexits(rng, 16)}" for _ in range(2)]
    pv_db, pv_other = f"pvc-{_uuid(rng)}", f"pvc-{_uuid(rng)}"
    tag = f"v3.{rng.randint(5, 9)}.{rng.randint(0, 9)}"
    digest = f"sha256:{hexits(rng, 64)}"
    other_digests = [f"sha256:{hexits(rng, 64)}" for _ in range(3)]
    restore = f"billing-restore-{hexits(rng, 5)}"

    def intro() -> None:
        b.user(
            f"Прывітанне. Учора вечарам скрыпт ачысткі (CronJob ns-cleanup) у кластары {cluster} выдаліў увесь namespace billing — "
            "разам з базай і сакрэтамі. Бэкапы робіць Velero (бакет у S3, здымкі тамоў EBS). Дапамажы ўсё вярнуць, "
            "але нічога не аднаўляй без майго «так»."
        )
        b.tool(
            "Спачатку паглядзім, ці namespace сапраўды знік і якія падзеі засталіся.",
            "shell",
            {
                "cmd": "kubectl get ns billing; kubectl get events -A --field-selector involvedObject.kind=Namespace | tail -5"
            },
            'Error from server (NotFound): namespaces "billing" not found\nNAMESPACE   LAST SEEN   TYPE     REASON              OBJECT              MESSAGE\n'
            + noise_lines(
                rng,
                5,
                lambda r: (
                    f"default     {r.randint(2, 20)}h         Normal   {r.choice(('NamespaceDeleted', 'Killing', 'SuccessfulDelete'))}    namespace/billing   {r.choice(('Namespace billing deleted by system:serviceaccount:ops:ns-cleanup', 'Stopping container billing-api', 'Deleted pod: billing-worker-7c9d'))}"
                ),
            ),
        )
        b.assistant(
            "Так, namespace billing выдалены сэрвіс-акаўнтам ops:ns-cleanup. Пашукаем апошні добры бэкап."
        )

    def id_backup() -> None:
        b.user("Які бэкап бярэм? Выдаленне было недзе ў 01:40, калі верыць падзеям.")
        rows = [
            f"{bad_b}   PartiallyFailed   2        0          2024-06-11 {bad_b[-6:-4]}:{bad_b[-4:-2]}:{bad_b[-2:]} +0300 +03   29d       default            app=billing"
        ]
        rows.append(
            f"{good}   Completed         0        0          2024-06-10 {good[-6:-4]}:{good[-4:-2]}:{good[-2:]} +0300 +03   28d       default            app=billing"
        )
        for o, d in zip(older, (9, 8, 7), strict=True):
            rows.append(
                f"{o}   Completed         0        {rng.randint(0, 2)}          2024-06-{d:02d} {o[-6:-4]}:{o[-4:-2]}:{o[-2:]} +0300 +03   {d + 18}d       default            app=billing"
            )
        b.tool(
            "Глядзім спіс бэкапаў.",
            "shell",
            {"cmd": "velero backup get -l app=billing"},
            "NAME                           STATUS            ERRORS   WARNINGS   CREATED                         EXPIRES   STORAGE LOCATION   SELECTOR\n"
            + "\n".join(rows),
        )
        if rng.random() < 0.5:
            b.assistant(
                f"Сённяшні {bad_b} — PartiallyFailed і зроблены ўжо пасля выдалення, ён пусты. Бярэм учорашні {good}: Completed, без памылак."
            )
        else:
            b.assistant(
                "Сённяшні бэкап (02:00, PartiallyFailed) зроблены пасля выдалення — у ім нічога няма. Апошні добры — учорашні, Completed, другі радок у табліцы."
            )
        probes.append(
            Probe(
                "identifier",
                "Which Velero backup was chosen as the last good one for the restore?",
                f"{good} (Completed; {bad_b} is PartiallyFailed and empty)",
                ((good,),),
            )
        )

    def id_snapshot() -> None:
        b.user("А база? Правер, што ва ўчорашнім бэкапе ёсць здымак тома базы.")
        b.tool(
            "Глядзім дэталі бэкапу.",
            "shell",
            {
                "cmd": f"velero backup describe {good} --details | sed -n '/Velero-Native Snapshots/,$p'"
            },
            "Velero-Native Snapshots:\n"
            f"  {pv_other}:\n    Snapshot ID:        {snaps[0]}\n    Type:               gp3\n    Availability Zone:  eu-central-1b\n    IOPS:               <N/A>\n"
            f"  {pv_db}:\n    Snapshot ID:        {snap}\n    Type:               gp3\n    Availability Zone:  eu-central-1a\n    IOPS:               <N/A>\n"
            f"  pvc-{_uuid(rng)}:\n    Snapshot ID:        {snaps[1]}\n    Type:               gp3\n    Availability Zone:  eu-central-1c\n    IOPS:               <N/A>",
        )
        if rng.random() < 0.5:
            b.assistant(
                f"Ёсць. Том базы (billing-db-data) — гэта {pv_db}, яго здымак EBS {snap}. Астатнія два — кэш і логі."
            )
        else:
            b.assistant(
                f"Ёсць: billing-db-data адпавядае PV {pv_db}, і ў яго ёсць свой Snapshot ID (другі блок вышэй). Два іншыя здымкі — для кэша і логаў."
            )
        probes.append(
            Probe(
                "identifier",
                "What is the EBS snapshot ID of the billing database volume (billing-db-data) in the chosen backup?",
                f"{snap} (PV {pv_db})",
                ((snap,),),
            )
        )

    def id_digest() -> None:
        b.user(
            f"Пасля аднаўлення хачу зафіксаваць вобраз billing-api па digest, а не па тэгу. Працавала версія {tag}. Знайдзі яе digest у ECR."
        )
        tags = [
            f"v3.{rng.randint(0, 4)}.{rng.randint(0, 9)}",
            "latest",
            f"v3.{rng.randint(10, 12)}.0-rc1",
        ]
        items = [(tag, digest), *zip(tags, other_digests, strict=True)]
        rng.shuffle(items)
        body = (
            '{\n    "imageDetails": [\n'
            + ",\n".join(
                f'        {{\n            "registryId": "4{_digits(rng, 11)}",\n            "repositoryName": "billing-api",\n            "imageDigest": "{d}",\n            "imageTags": [\n                "{t}"\n            ],\n            "imageSizeInBytes": {rng.randint(40, 90) * 10**6 + rng.randint(0, 999999)},\n            "imagePushedAt": "2024-0{rng.randint(4, 6)}-{rng.randint(10, 28)}T1{rng.randint(0, 9)}:{rng.randint(10, 59)}:00+03:00"\n        }}'
                for t, d in items
            )
            + "\n    ]\n}"
        )
        b.tool(
            "Пытаемся ў ECR.",
            "shell",
            {
                "cmd": "aws ecr describe-images --repository-name billing-api --query 'imageDetails[?imageTags!=null]' --output json"
            },
            body,
        )
        if rng.random() < 0.5:
            b.assistant(
                f"Digest для {tag}: {digest}. Тэг latest указвае на іншы вобраз, яго не чапаем."
            )
        else:
            b.assistant(
                f"Знайшоў: у JSON вышэй запіс з тэгам {tag} мае свой imageDigest, яго і ўпішам у Deployment. latest — гэта іншы вобраз."
            )
        probes.append(
            Probe(
                "identifier",
                f"What is the image digest of billing-api {tag}, to pin after the restore?",
                digest,
                ((digest,),),
            )
        )

    def art_first() -> None:
        choice = rng.randrange(3)
        how = rng.randrange(3)
        words: tuple[str, ...]
        if choice == 0:
            name = "billing-staging"
            b.user(
                "Namespace billing-staging ужо не патрэбны, а менавіта ён сапсаваў логіку скрыпта (шаблон billing-*). Выдалі яго."
            )
            out = f'namespace "{name}" deleted' if how != 1 else ""
            b.tool(
                "Выдаляем namespace.",
                "shell",
                {
                    "cmd": f"kubectl delete ns {name}"
                    if how != 1
                    else f"kubectl delete ns {name} >/dev/null && kubectl get ns -o name | grep -c billing-staging"
                },
                out or "0",
            )
            words = ("выдалены", "выдалілі", "deleted")
            said = f"Namespace {name} выдалены." if how != 0 else "Гатова."
            q = "What happened to the billing-staging namespace?"
            a = "deleted (its name matched the cleanup script's billing-* pattern)"
        elif choice == 1:
            name = "ns-cleanup"
            b.user(
                "Пакуль фікс скрыпта не гатовы, CronJob ns-cleanup не павінен запускацца. Спыні яго, але не выдаляй."
            )
            out = f"cronjob.batch/{name} patched" if how != 1 else "true"
            b.tool(
                "Ставім suspend.",
                "shell",
                {
                    "cmd": f'kubectl -n ops patch cronjob {name} -p \'{{"spec":{{"suspend":true}}}}\''
                    if how != 1
                    else f"kubectl -n ops patch cronjob {name} -p '{{\"spec\":{{\"suspend\":true}}}}' >/dev/null && kubectl -n ops get cronjob {name} -o jsonpath='{{.spec.suspend}}'"
                },
                out,
            )
            words = ("прыпынены", "спынены", "suspend", "patched")
            said = (
                f"CronJob {name} прыпынены (suspend: true); сам аб'ект застаўся."
                if how != 0
                else "Зроблена."
            )
            q = "What was done to the ns-cleanup CronJob?"
            a = "suspended (suspend: true), not deleted"
        else:
            name = rng.choice(("billing-worker", "invoice-mailer", "billing-cron"))
            b.user(
                f"Пасля аднаўлення {name} адразу пачне рассылаць рахункі па старых даных. Пастаў яго на нуль рэплік, пакуль не праверым базу."
            )
            out = f"deployment.apps/{name} scaled" if how != 1 else "0/0"
            b.tool(
                "Маштабуем у нуль.",
                "shell",
                {
                    "cmd": f"kubectl -n billing scale deploy {name} --replicas=0"
                    if how != 1
                    else f"kubectl -n billing scale deploy {name} --replicas=0 >/dev/null && kubectl -n billing get deploy {name} -o jsonpath='{{.status.readyReplicas}}/{{.spec.replicas}}'"
                },
                out,
            )
            words = ("нуль рэплік", "спынены", "scaled", "replicas=0")
            said = f"{name} спынены: нуль рэплік." if how != 0 else "Так, гатова."
            q = f"What was done to the {name} deployment?"
            a = "scaled to 0 replicas until the database is checked"
        b.assistant(said)
        probes.append(Probe("artifact", q, a, ((name,), words)))

    def art_second() -> None:
        choice = rng.randrange(3)
        how = rng.randrange(3)
        words: tuple[str, ...]
        if choice == 0:
            name = restore
            b.user("Так, аднаўляй з учорашняга бэкапу. І скажы, чым скончылася.")
            out = (
                f"NAME                     BACKUP                         STATUS            STARTED                         COMPLETED                       ERRORS   WARNINGS\n{name}   {good}   PartiallyFailed   2024-06-11 10:{rng.randint(10, 40)}:02 +0300 +03   2024-06-11 10:{rng.randint(41, 59)}:40 +0300 +03   1        {rng.randint(3, 9)}"
                if how != 1
                else f'Restore request "{name}" submitted successfully.'
            )
            b.tool(
                "Запускаем restore і глядзім статус.",
                "shell",
                {
                    "cmd": f"velero restore create {name} --from-backup {good} --wait >/dev/null; velero restore get {name}"
                    if how != 1
                    else f"velero restore create {name} --from-backup {good}"
                },
                out,
            )
            words = ("часткова", "partiallyfailed", "partially failed")
            said = (
                f"Restore {name} скончыўся часткова (PartiallyFailed): адна памылка — сакрэт billing-db-credentials, астатняе на месцы."
                if how != 0
                else "Ёсць адна памылка, разбяромся."
            )
            q = f"How did the Velero restore {name} end?"
            a = "PartiallyFailed: one error (the billing-db-credentials secret), the rest restored"
        elif choice == 1:
            name = "billing-db-credentials"
            b.user(
                f"Сакрэт {name} не аднавіўся. Ствары яго нанова з Vault-экспарту, які ляжыць у ~/secrets/billing.env."
            )
            out = f"secret/{name} created" if how != 1 else "Opaque   3      1s"
            b.tool(
                "Ствараем сакрэт.",
                "shell",
                {
                    "cmd": f"kubectl -n billing create secret generic {name} --from-env-file ~/secrets/billing.env"
                    if how != 1
                    else f"kubectl -n billing create secret generic {name} --from-env-file ~/secrets/billing.env >/dev/null && kubectl -n billing get secret {name} --no-headers | awk '{{print $2, $3, $4}}'"
                },
                out,
            )
            words = ("створаны нанова", "створаны", "created", "recreated")
            said = f"Сакрэт {name} створаны нанова з трох ключоў." if how != 0 else "Гатова."
            q = f"What happened to the secret {name}?"
            a = "recreated from the env file export (it had not been restored)"
        else:
            name = "minio-secondary"
            b.user(
                f"Бэкапы трэба пісаць і ў рэзервовае сховішча. Зрабі {name} сховішчам па змаўчанні для Velero."
            )
            out = (
                f'Backup storage location "{name}" configured successfully.' if how != 1 else "true"
            )
            b.tool(
                "Мяняем BSL па змаўчанні.",
                "shell",
                {
                    "cmd": f"velero backup-location set {name} --default"
                    if how != 1
                    else f"velero backup-location set {name} --default >/dev/null && kubectl -n velero get bsl {name} -o jsonpath='{{.spec.default}}'"
                },
                out,
            )
            words = ("па змаўчанні", "default")
            said = f"{name} цяпер сховішча па змаўчанні." if how != 0 else "Гатова."
            q = f"What was changed about the backup storage location {name}?"
            a = "it became Velero's default backup storage location"
        b.assistant(said)
        probes.append(Probe("artifact", q, a, ((name,), words)))

    def decoy() -> None:
        b.user(
            "Ганна пытае, ці не выдаліць заадно і старыя бэкапы billing за мінулы тыдзень, каб не блыталіся. Не, не выдаляй — проста пакажы, колькі яны займаюць."
        )
        b.tool(
            "Толькі глядзім памер.",
            "shell",
            {
                "cmd": "aws s3 ls s3://velero-backups-prod/backups/ --recursive --summarize | tail -2"
            },
            f"Total Objects: {rng.randint(2000, 9000)}\n   Total Size: {rng.randint(100, 900)}{_digits(rng, 9)}",
        )
        b.assistant("Нічога не выдаляў. Старыя бэкапы застаюцца, пакуль іх не прыбярэ TTL.")

    def decide() -> None:
        def t_ttl(r: random.Random, bb: Builder) -> None:
            bb.tool(
                "Глядзім расклады Velero.",
                "shell",
                {"cmd": "velero schedule get"},
                "NAME            STATUS    CREATED                         SCHEDULE    BACKUP TTL   LAST BACKUP   SELECTOR      PAUSED\n"
                + noise_lines(
                    r,
                    3,
                    lambda x: (
                        f"{x.choice(('daily-billing', 'daily-platform', 'weekly-full'))}   Enabled   2023-1{x.randint(0, 2)}-0{x.randint(1, 9)} 12:00:00 +0300 +03   0 2 * * *   720h0m0s     {x.randint(1, 20)}h ago       app=billing   false"
                    ),
                ),
            )

        def t_method(r: random.Random, bb: Builder) -> None:
            bb.tool(
                "Глядзім, што ўключана ў Velero.",
                "shell",
                {
                    "cmd": "kubectl -n velero get ds node-agent -o wide; kubectl get volumesnapshotclass"
                },
                f"NAME         DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR   AGE\nnode-agent   {r.randint(4, 9)}         {r.randint(4, 9)}         {r.randint(4, 9)}       {r.randint(4, 9)}            {r.randint(4, 9)}           <none>          210d\nNAME            DRIVER            DELETIONPOLICY   AGE\nebs-csi-vsc     ebs.csi.aws.com   Retain           98d",
            )

        topics: list[_Topic] = [
            {
                "t": "тэрмін захоўвання бэкапаў",
                "words": ("захоўван", "TTL", "retention"),
                "values": (
                    ("720h", "трыццаці дзён хапае для аўдыту."),
                    ("336h", "S3 каштуе дорага, двух тыдняў дастаткова."),
                    ("2160h", "фінансавы аддзел патрабуе тры месяцы."),
                ),
                "question": "What backup retention (TTL) was decided for the billing schedule?",
                "tool": t_ttl,
            },
            {
                "t": "метад бэкапу тамоў",
                "words": ("метад", "тамоў", "volume"),
                "values": (
                    ("kopia", "ён не залежыць ад зоны даступнасці."),
                    ("CSI snapshots", "аднаўленне з іх значна хутчэйшае."),
                ),
                "question": "Which volume backup method was chosen?",
                "tool": t_method,
            },
            {
                "t": "расклад штодзённага бэкапу",
                "words": ("расклад", "schedule"),
                "values": (
                    ("0 1 * * *", "скрыпты ачысткі ідуць пасля двух ночы."),
                    ("30 3 * * *", "у гэты час найменшая нагрузка."),
                    ("15 23 * * *", "бэкап павінен быць да начных задач."),
                ),
                "question": "What cron schedule was decided for the daily backup?",
                "tool": t_ttl,
            },
        ]
        probes.append(
            _decision(rng, b, _BE, rng.choice(topics), rng.choice(("Алеся", "Ганна", "Вольга")))
        )

    def next_step() -> None:
        days = (
            ("у панядзелак", "monday"),
            ("у аўторак", "tuesday"),
            ("у сераду", "wednesday"),
            ("у чацвер", "thursday"),
            ("у пятніцу", "friday"),
        )
        mode = rng.randrange(3)
        if mode == 0:
            day, en = rng.choice(days)
            b.user(
                f"Каб такое не паўтарылася, {day} правядзём тэставае аднаўленне billing на staging-кластары. Падрыхтуй для гэтага каманду."
            )
            b.tool(
                "Правяраем, ці бачыць staging тое ж сховішча.",
                "shell",
                {"cmd": "kubectl --context staging -n velero get bsl"},
                f"NAME      PHASE       LAST VALIDATED   AGE    DEFAULT\ndefault   Available   {rng.randint(5, 50)}s              {rng.randint(100, 300)}d   true",
            )
            b.assistant(
                f"Staging бачыць бакет. Каманда будзе: velero restore create --from-backup <бэкап> --namespace-mappings billing:billing-drill. Тэставае аднаўленне {day} — занатаваў."
            )
            probes.append(
                Probe(
                    "next_step",
                    "What drill is planned, and when?",
                    f"a test restore of billing on the staging cluster on {en.capitalize()}",
                    (("тэставае аднаўленне", "test restore"), (day.split()[-1][:5], en)),
                )
            )
        elif mode == 1:
            b.user(
                "Ну, асноўнае зроблена. Каб ты ведаў, што яшчэ вісіць: Вольга хоча справаздачу аб інцыдэнце, трэба абнавіць runbook, "
                "а да канца месяца трэба наладзіць капіраванне бэкапаў у другі рэгіён. Цяпер правер, ці ўсе поды billing у Running."
            )
            b.tool(
                "Глядзім поды.",
                "shell",
                {"cmd": "kubectl -n billing get pods"},
                "NAME                           READY   STATUS    RESTARTS   AGE\n"
                + noise_lines(
                    rng,
                    5,
                    lambda r: (
                        f"{r.choice(('billing-api', 'billing-db', 'billing-web', 'pdf-render'))}-{_lower(r, 10)}-{_lower(r, 5)}   1/1     Running   {r.randint(0, 2)}          {r.randint(5, 50)}m"
                    ),
                ),
            )
            b.assistant(
                "Усе поды Running. Капіраванне бэкапаў у другі рэгіён да канца месяца таксама занатаваў."
            )
            probes.append(
                Probe(
                    "next_step",
                    "What has to be set up by the end of the month?",
                    "copying (replicating) the backups to a second region",
                    (
                        ("другі рэгіён", "second region"),
                        ("канца месяца", "end of the month", "end of month"),
                    ),
                )
            )
        else:
            b.user("Ці можна ўжо адкрываць billing для карыстальнікаў?")
            b.tool(
                "Глядзім, як ідзе restore тамоў.",
                "shell",
                {
                    "cmd": "velero restore describe --details $(velero restore get -o name | tail -1) | grep -A3 'Restore Volumes'"
                },
                f"Restore Volumes:\n  Velero-Native Snapshots:\n    billing/billing-db-data: specify --details for more information\n  Progress: {rng.randint(40, 90)}%",
            )
            b.assistant(
                "Яшчэ не. Калі restore скончыцца, я звяру колькасць радкоў у табліцы invoices з учорашнім экспартам "
                "і толькі тады скажу, ці можна адкрываць."
            )
            probes.append(
                Probe(
                    "next_step",
                    "What did the agent promise to do, and after what?",
                    "compare the invoices table row count with yesterday's export once the restore finishes",
                    (("invoices",), ("restore",)),
                )
            )

    _run(
        rng,
        intro,
        [id_backup, id_snapshot, id_digest, art_first, art_second, decoy, decide, next_step],
    )
    opening = b.take()

    def filler(r: random.Random) -> None:
        pick = r.randrange(4)
        if pick == 0:
            b.user("Колькі рэсурсаў зараз ест кластар?")
            b.tool(
                "Глядзім kubectl top.",
                "shell",
                {"cmd": "kubectl top nodes"},
                "NAME                                          CPU(cores)   CPU%   MEMORY(bytes)   MEMORY%\n"
                + noise_lines(
                    r,
                    5,
                    lambda x: (
                        f"ip-10-{x.randint(0, 9)}-{x.randint(0, 255)}-{x.randint(0, 255)}.eu-central-1.compute.internal   {x.randint(200, 3500)}m        {x.randint(5, 90)}%    {x.randint(2000, 14000)}Mi         {x.randint(10, 90)}%"
                    ),
                ),
            )
            b.assistant("Нагрузка нармальная, ні адзін вузел не перагружаны.")
        elif pick == 1:
            b.user("Ці ёсць поды, якія пастаянна перазапускаюцца?")
            b.tool(
                "Шукаем рэстарты.",
                "shell",
                {
                    "cmd": "kubectl get pods -A --sort-by='.status.containerStatuses[0].restartCount' | tail -4"
                },
                "NAMESPACE     NAME                                  READY   STATUS    RESTARTS       AGE\n"
                + noise_lines(
                    r,
                    4,
                    lambda x: (
                        f"{x.choice(('monitoring', 'ingress', 'kube-system'))}    {x.choice(('prometheus-node-exporter', 'ingress-nginx-controller', 'coredns', 'aws-node'))}-{_lower(x, 5)}   1/1     Running   {x.randint(0, 9)} ({x.randint(1, 9)}d ago)   {x.randint(20, 200)}d"
                    ),
                ),
            )
            b.assistant("Некалькі старых рэстартаў, нічога свежага.")
        elif pick == 2:
            b.user("Калі заканчваюцца сертыфікаты ingress?")
            b.tool(
                "Глядзім Certificate-рэсурсы.",
                "shell",
                {"cmd": "kubectl get certificate -A"},
                "NAMESPACE   NAME          READY   SECRET            AGE\n"
                + noise_lines(
                    r,
                    3,
                    lambda x: (
                        f"{x.choice(('web', 'auth', 'docs'))}     {x.choice(('web-tls', 'auth-tls', 'docs-tls'))}     True    {x.choice(('web-tls', 'auth-tls', 'docs-tls'))}      {x.randint(10, 80)}d"
                    ),
                ),
            )
            b.assistant("Усе сертыфікаты Ready, абнаўляюцца аўтаматычна.")
        else:
            b.user("Якая версія кластара і вузлоў?")
            b.tool(
                "Глядзім версію.",
                "shell",
                {"cmd": "kubectl version -o yaml | grep gitVersion"},
                f"  gitVersion: v1.{r.randint(27, 29)}.{r.randint(1, 9)}\n  gitVersion: v1.{r.randint(27, 29)}.{r.randint(1, 9)}-eks-{hexits(r, 6)}",
            )
            b.assistant("Кліент і сервер у межах дапушчальнага адхілення версій.")

    return opening, segments_of(rng, b, segments, filler), probes


# -- firebase_functions_release (Gujarati) -----------------------------------------------

_GU = _Voice(
    prompt=(
        "આપણે {t} વિશે નક્કી કરવું પડશે. તમે શું સૂચવો છો?",
        "જે છે તે જુઓ અને કહો કે {t} માટે તમે શું કરશો.",
        "આગળ વધતા પહેલાં: {t} માટે શું કરીએ? મને એક પ્રસ્તાવ આપો.",
    ),
    dictated=(
        "નક્કી થઈ ગયું છે: {t} માટે આપણે {v} વાપરીશું, કારણ કે {why}",
        "આ લખી લો: {t}, {v}; {why} આ પર ચર્ચા નથી કરવી.",
        "{t} માટે મારે {v} જોઈએ; {why}",
    ),
    first=(
        "હમણાં માટે {t} માટે {v} રાખીએ.",
        "શરૂઆતમાં {t}: {v}. પછી જોઈશું.",
    ),
    correction=(
        "પહેલાં મેં જે કહ્યું તે સુધારું છું: {t} માટે {old} નહીં, {v} વધુ સારું, કારણ કે {why}",
        "મેં વિચાર બદલ્યો છે, {t} {v} રહેશે, {old} નહીં: {why}",
        "{old} વિશે જે કહ્યું તે ભૂલી જાઓ; {t} માટે {v}, કારણ કે {why}",
    ),
    propose=(
        "હું {t} માટે {v} સૂચવું છું, કારણ કે {why} તમે સહમત છો?",
        "{t} માટે મારો પ્રસ્તાવ {v} છે: {why} તમે સહમત હો તો એ રીતે આગળ વધું.",
    ),
    approve=(
        "બરાબર, આગળ વધો: {t} માટે {v}.",
        "સરસ, {t}: {v}. ચાલુ રાખો.",
        "હા, {t} માટે {v}, હું સહમત છું.",
    ),
    modify=(
        "લગભગ. {old}ને બદલે {t} માટે {v} વધુ સારું: {why}",
        "{old} મને ગળે નથી ઊતરતું. {t} માટે {v} વાપરો, કારણ કે {why}",
    ),
    relay=(
        "મેં {who} સાથે વાત કરી, એ બિલિંગ સંભાળે છે: {t} માટે એમને {v} જોઈએ છે, કારણ કે {why}",
        "{who}નો હમણાં ફોન હતો: {t} {v} જ હોવું જોઈએ, કારણ કે {why}",
        "{who}નો Slack પર મેસેજ: {t} માટે {v}; {why}",
    ),
    ask=(
        "આગળ વધતા પહેલાં એક વાત કહો: {t} માટે {a} કે {b}?",
        "સવાલ: {t} માટે તમને {a} ગમશે કે {b}? બંને ચાલે એવાં છે.",
    ),
    answer=(
        "{t} માટે {v}: {why}",
        "{v} જ રાખો {t} માટે, કારણ કે {why}",
        "{t}? {v}, કારણ કે {why}",
    ),
    ack=(
        "સમજાયું: {t}, {v}. નોંધી લીધું.",
        "થઈ ગયું, {t} માટે {v}.",
        "બરાબર, {t} માટે {v}; આ ધ્યાનમાં રાખીને આગળ વધું છું.",
    ),
)


def _firebase(rng: random.Random, b: Builder, segments: int) -> Parts:
    probes: list[Probe] = []
    project = rng.choice(("khana-express-prod", "thali-app-prod", "tiffin-go-prod"))
    region = "asia-south1"
    rev_n = rng.randint(30, 80)
    good_rev = f"onordercreate-{rev_n:05d}-{_lower(rng, 3)}"
    bad_rev = f"onordercreate-{rev_n + 1:05d}-{_lower(rng, 3)}"
    older = [f"onordercreate-{rev_n - i:05d}-{_lower(rng, 3)}" for i in (1, 2)]
    doc = token(rng, 20, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    other_docs = [
        token(rng, 20, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        for _ in range(3)
    ]
    build = _uuid(rng)
    other_builds = [_uuid(rng) for _ in range(2)]
    customer = rng.choice(("નેહા પટેલ", "કૃણાલ શાહ", "હેતલ દેસાઈ"))

    def intro() -> None:
        b.user(
            f"નમસ્તે. ગઈ કાલે રાત્રે {project} પર Cloud Functions નું નવું રિલીઝ ગયું ત્યારથી નવા ઓર્ડર 'pending' માં અટકી જાય છે. "
            "onOrderCreate ફંક્શન રસોડાને નોટિફિકેશન મોકલતું નથી. મને તપાસમાં મદદ કરો, પણ પ્રોડક્શનમાં કંઈ પણ બદલતા પહેલાં મને પૂછજો."
        )
        b.tool(
            "પહેલા ફંક્શનના લૉગ જોઉં છું.",
            "shell",
            {"cmd": f"firebase functions:log --only onOrderCreate --project {project} -n 8"},
            noise_lines(
                rng,
                8,
                lambda r: (
                    f"2024-06-11T2{r.randint(0, 3)}:{r.randint(10, 59)}:{r.randint(10, 59)}.{_digits(r, 6)}Z {r.choice(('E', 'I', 'E'))} onordercreate: {r.choice(('Error: 9 FAILED_PRECONDITION: The query requires an index. You can create it here: https://console.firebase.google.com/v1/r/project/' + project + '/firestore/indexes?create_composite=...', 'Function execution started', 'Function execution took 812 ms, finished with status: crash', 'Unhandled error FirebaseError: Missing or insufficient permissions.'))}"
                ),
            ),
        )
        b.assistant(
            "મુખ્ય ભૂલ FAILED_PRECONDITION છે: નવો કોડ orders પર એવી ક્વેરી ચલાવે છે જેના માટે Firestore માં composite index નથી. "
            "સાથે થોડા permission ના errors પણ છે, એ કદાચ નવા service account ના છે."
        )

    def id_revision() -> None:
        b.user("છેલ્લું કયું revision બરાબર ચાલતું હતું? જરૂર પડે તો ટ્રાફિક ત્યાં પાછો લઈ જઈશું.")
        rows = [
            f"✔  {bad_rev}     onordercreate  yes     2024-06-11 20:{rng.randint(10, 59)}:{rng.randint(10, 59)} UTC  functions-deployer@{project}.iam.gserviceaccount.com"
        ]
        rows.append(
            f"✔  {good_rev}     onordercreate          2024-06-0{rng.randint(5, 9)} 11:{rng.randint(10, 59)}:{rng.randint(10, 59)} UTC  functions-deployer@{project}.iam.gserviceaccount.com"
        )
        for o in older:
            rows.append(
                f"✔  {o}     onordercreate          2024-05-{rng.randint(10, 28)} 09:{rng.randint(10, 59)}:{rng.randint(10, 59)} UTC  functions-deployer@{project}.iam.gserviceaccount.com"
            )
        b.tool(
            "Cloud Run ના revisions જોઉં છું (2nd gen ફંક્શન).",
            "shell",
            {
                "cmd": f"gcloud run revisions list --service onordercreate --region {region} --project {project}"
            },
            "   REVISION                        SERVICE        ACTIVE  DEPLOYED                 DEPLOYED BY\n"
            + "\n".join(rows),
        )
        if rng.random() < 0.5:
            b.assistant(
                f"હાલનું {bad_rev} ગઈ રાતનું છે. એ પહેલાંનું {good_rev} અઠવાડિયાથી કોઈ ભૂલ વગર ચાલતું હતું; rollback માટે એ જ."
            )
        else:
            b.assistant(
                "ACTIVE વાળું revision ગઈ રાતનું છે. એની નીચેનું (બીજી લાઇન) છેલ્લું સારું revision છે; rollback કરવું હોય તો એના પર ટ્રાફિક મોકલીશું."
            )
        probes.append(
            Probe(
                "identifier",
                "Which Cloud Run revision of onOrderCreate was the last good one (rollback target)?",
                f"{good_rev} ({bad_rev} is last night's broken one)",
                ((good_rev,),),
            )
        )

    def id_doc() -> None:
        b.user(
            f"ગ્રાહક {customer} નો ફોન આવ્યો: પૈસા કપાયા પણ ઓર્ડર હજી pending છે. એનો ઓર્ડર ડૉક્યુમેન્ટ શોધો."
        )
        rows = [
            (
                d,
                rng.choice(("delivered", "cancelled", "pending")),
                rng.choice(("રાજેશ મહેતા", "પૂજા જોષી", "અમિત ત્રિવેદી")),
            )
            for d in other_docs
        ]
        rows.insert(rng.randrange(4), (doc, "pending", customer))
        body = (
            "[\n"
            + ",\n".join(
                f'  {{ "id": "{d}", "status": "{st}", "customerName": "{c}", "paid": {str(st != "cancelled").lower()}, "total": {rng.randint(180, 1400)}, "createdAt": "2024-06-11T2{rng.randint(0, 3)}:{rng.randint(10, 59)}:00Z" }}'
                for d, st, c in rows
            )
            + "\n]"
        )
        b.tool(
            "Admin SDK ની સ્ક્રિપ્ટથી છેલ્લા ઓર્ડર શોધું છું.",
            "shell",
            {
                "cmd": f"npx tsx scripts/find-orders.ts --project {project} --since 2024-06-11T20:00Z --limit 4"
            },
            body,
        )
        if rng.random() < 0.5:
            b.assistant(
                f"મળી ગયું: orders/{doc}, status pending, paid true. બાકીના ત્રણ બીજા ગ્રાહકોના છે."
            )
        else:
            b.assistant(
                f"{customer} નો ઓર્ડર યાદીમાં છે: pending અને paid બંને સાચા. ડૉક્યુમેન્ટ ID ઉપરની JSON માં એના નામ વાળી લાઇનમાં છે."
            )
        probes.append(
            Probe(
                "identifier",
                f"What is the Firestore document ID of {customer}'s stuck order?",
                f"orders/{doc} (pending, paid)",
                ((doc,),),
            )
        )

    def id_build() -> None:
        b.user("ગઈ કાલના ડિપ્લોયમાં બધાં ફંક્શન ગયાં હતાં? મને લાગે છે એક ફેલ થયું હતું.")
        b.tool(
            "CI નો ડિપ્લોય લૉગ જોઉં છું.",
            "shell",
            {
                "cmd": "gh run view --log --job deploy-functions | grep -E 'functions\\[|Build failed' | tail -6"
            },
            f"✔  functions[onOrderCreate({region})] Successful update operation.\n"
            f"✔  functions[sendOtp({region})] Successful update operation.\n"
            f"i  functions: build logs for sendOtp at https://console.cloud.google.com/cloud-build/builds;region={region}/{other_builds[0]}?project={project}\n"
            f"✖  functions[assignRider({region})] Failed to update function projects/{project}/locations/{region}/functions/assignRider\n"
            f"Build failed: npm ERR! Cannot find module '@googlemaps/google-maps-services-js'; Error ID: {hexits(rng, 8)}. Logs are available at https://console.cloud.google.com/cloud-build/builds;region={region}/{build}?project={project}\n"
            f"i  functions: build logs for onOrderCreate at https://console.cloud.google.com/cloud-build/builds;region={region}/{other_builds[1]}?project={project}",
        )
        if rng.random() < 0.5:
            b.assistant(
                f"હા, assignRider ફેલ થયું હતું: એની dependency package.json માં નથી. એ build નું ID {build} છે; બાકીનાં સફળ થયાં."
            )
        else:
            b.assistant(
                "હા: assignRider નું build એક ખૂટતા npm મોડ્યુલને લીધે ફેલ થયું (એની લૉગ લિંક 'Build failed' વાળી લાઇનમાં છે). onOrderCreate અને sendOtp અપડેટ થયાં."
            )
        probes.append(
            Probe(
                "identifier",
                "What is the Cloud Build ID of the failed assignRider build?",
                build,
                ((build,),),
            )
        )

    def art_first() -> None:
        choice = rng.randrange(3)
        how = rng.randrange(3)
        words: tuple[str, ...]
        if choice == 0:
            name = f"pr-{rng.randint(300, 499)}"
            b.user(
                f"Hosting નો preview channel {name} એ જૂના PR નો છે અને એમાં જૂનું checkout છે; ગ્રાહકોને લિંક મળી ગઈ છે. એ ચેનલ કાઢી નાખો."
            )
            out = (
                f"✔  hosting:channel: Successfully deleted channel {name}."
                if how != 1
                else "✔  Done."
            )
            b.tool(
                "ચેનલ ડિલીટ કરું છું.",
                "shell",
                {"cmd": f"firebase hosting:channel:delete {name} --project {project} --force"},
                out,
            )
            words = ("કાઢી નાખ", "ડિલીટ", "deleted")
            said = (
                f"Preview channel {name} ડિલીટ થઈ ગઈ; હવે એ લિંક ખૂલશે નહીં." if how != 0 else "થઈ ગયું."
            )
            q = f"What happened to the Hosting preview channel {name}?"
            a = "deleted (it served an old checkout)"
        elif choice == 1:
            name = rng.choice(("legacyPushNotify", "oldInvoicePdf", "smsFallbackV1"))
            b.user(f"{name} ફંક્શન હવે કોઈ વાપરતું નથી અને દર કલાકે errors આપે છે. એને ડિલીટ કરો.")
            out = (
                f"i  functions: deleting function {name}({region})...\n✔  functions[{name}({region})] Successful delete operation."
                if how != 1
                else "i  functions: deleting 1 function(s)...\n✔  Deployment complete!"
            )
            b.tool(
                "ફંક્શન ડિલીટ કરું છું.",
                "shell",
                {
                    "cmd": f"firebase functions:delete {name} --region {region} --project {project} --force"
                },
                out,
            )
            words = ("ડિલીટ", "કાઢી નાખ", "delete", "deleted")
            said = f"{name} ફંક્શન ડિલીટ થઈ ગયું." if how != 0 else "થઈ ગયું."
            q = f"What happened to the function {name}?"
            a = "deleted"
        else:
            name = rng.choice(("new_checkout_enabled", "rider_tips_enabled", "upi_autopay_enabled"))
            b.user(f"જ્યાં સુધી ફિક્સ ન આવે ત્યાં સુધી Remote Config માં {name} ને false કરો.")
            out = (
                f'  "{name}": {{ "defaultValue": {{ "value": "false" }}, "description": "disabled during incident" }}'
                if how != 1
                else "✔  Published Remote Config template version 58."
            )
            b.tool(
                "ટેમ્પ્લેટ બદલીને પબ્લિશ કરું છું.",
                "shell",
                {
                    "cmd": f"firebase remoteconfig:get -o rc.json --project {project} && jq '.parameters.{name}.defaultValue.value=\"false\"' rc.json > rc2.json && firebase deploy --only remoteconfig --project {project} && grep {name} rc2.json"
                },
                out,
            )
            words = ("બંધ", "false", "disabled")
            said = f"Remote Config માં {name} હવે false છે (બંધ)." if how != 0 else "પબ્લિશ થઈ ગયું."
            q = f"What was changed about the Remote Config parameter {name}?"
            a = "set to false (disabled) until the fix ships"
        b.assistant(said)
        probes.append(Probe("artifact", q, a, ((name,), words)))

    def art_second() -> None:
        choice = rng.randrange(3)
        how = rng.randrange(3)
        words: tuple[str, ...]
        if choice == 0:
            name = rng.choice(("cart_sessions_tmp", "debug_orders", "otp_attempts_old"))
            b.user(
                f"Firestore માં {name} કલેક્શન ટેસ્ટિંગ વખતે બન્યું હતું અને એ કારણે ક્વેરી ધીમી પડે છે. આખું કલેક્શન કાઢી નાખો."
            )
            out = (
                f"Deleting the following path: /{name}\n✔  Deleted path: /{name}"
                if how != 1
                else "✔  Deleted."
            )
            b.tool(
                "કલેક્શન ડિલીટ કરું છું.",
                "shell",
                {
                    "cmd": f"firebase firestore:delete {name} --recursive --force --project {project}"
                },
                out,
            )
            words = ("કાઢી નાખ", "ડિલીટ", "deleted")
            said = f"{name} કલેક્શન ડિલીટ થઈ ગયું." if how != 0 else "પૂરું થયું."
            q = f"What happened to the Firestore collection {name}?"
            a = "deleted recursively"
        elif choice == 1:
            name = rng.choice(("RAZORPAY_KEY_SECRET", "MSG91_AUTH_KEY", "MAPS_SERVER_KEY"))
            b.user(
                f"ગઈ રાતના લૉગમાં {name} છપાઈ ગયું હતું. એ secret બદલી નાખો; નવી કી મેં ~/keys/new.txt માં મૂકી છે."
            )
            out = (
                f"✔  Created a new secret version projects/{_digits(rng, 12)}/secrets/{name}/versions/{rng.randint(3, 9)}"
                if how != 1
                else "i  functions: redeploying functions that use the secret..."
            )
            b.tool(
                "નવું secret version બનાવું છું.",
                "shell",
                {
                    "cmd": f"firebase functions:secrets:set {name} --data-file ~/keys/new.txt --project {project}"
                },
                out,
            )
            words = ("બદલી", "નવું વર્ઝન", "new secret version", "rotated")
            said = (
                f"{name} બદલી નાખ્યું: નવું secret version બન્યું છે અને ફંક્શન્સ ફરી ડિપ્લોય થાય છે."
                if how != 0
                else "થઈ ગયું."
            )
            q = f"What was done with the secret {name}?"
            a = "rotated: a new secret version was created after it leaked into the logs"
        else:
            name = rng.choice(("dailyPayoutReport", "nightlyMenuSync", "weeklyRiderBonus"))
            job = f"firebase-schedule-{name}-{region}"
            b.user(f"{name} રાત્રે ચાલે છે અને ખોટા ઓર્ડર ડેટા સાથે ખોટો રિપોર્ટ બનાવશે. એનો શેડ્યૂલ અટકાવો.")
            out = (
                f"ID                                              LOCATION     SCHEDULE (TZ)              TARGET_TYPE  STATE\n{job}  {region}  0 6 * * * (Asia/Kolkata)  HTTP         PAUSED"
                if how != 1
                else "Job has been paused."
            )
            b.tool(
                "Scheduler જોબ અટકાવું છું.",
                "shell",
                {
                    "cmd": f"gcloud scheduler jobs pause {job} --location {region} --project {project} && gcloud scheduler jobs list --location {region} --filter=name:{name}"
                    if how != 1
                    else f"gcloud scheduler jobs pause {job} --location {region} --project {project}"
                },
                out,
            )
            words = ("અટકાવ", "paused")
            said = f"{name} નો શેડ્યૂલ અટકાવ્યો (PAUSED)." if how != 0 else "થઈ ગયું."
            q = f"What was done to the scheduled function {name}?"
            a = "its Cloud Scheduler job was paused"
        b.assistant(said)
        probes.append(Probe("artifact", q, a, ((name,), words)))

    def decoy() -> None:
        b.user(
            "રવિ કહે છે કે Firestore rules પણ ગઈ કાલે બદલાયા હતા. મને નથી લાગતું; જુઓ, પણ કંઈ ડિપ્લોય ન કરતા."
        )
        b.tool(
            "Rules નો ઇતિહાસ જોઉં છું.",
            "shell",
            {"cmd": "git log --oneline -4 -- firestore.rules"},
            noise_lines(
                rng,
                4,
                lambda r: (
                    f"{hexits(r, 7)} {r.choice(('rules: allow riders to read assigned orders', 'rules: tighten menu writes', 'rules: restaurants can update status'))} (2024-0{r.randint(3, 5)}-{r.randint(10, 28)})"
                ),
            ),
        )
        b.assistant("છેલ્લો ફેરફાર મે મહિનાનો છે; ગઈ કાલે rules બદલાયા નથી. મેં કંઈ ડિપ્લોય કર્યું નથી.")

    def decide() -> None:
        def t_region(r: random.Random, bb: Builder) -> None:
            bb.tool(
                "ફંક્શન્સ ક્યાં છે તે જોઉં છું.",
                "shell",
                {"cmd": f"firebase functions:list --project {project}"},
                "┌──────────────────┬─────────┬──────────────┬─────────────┬────────┬──────────┐\n│ Function         │ Version │ Trigger      │ Location    │ Memory │ Runtime  │\n├──────────────────┼─────────┼──────────────┼─────────────┼────────┼──────────┤\n"
                + noise_lines(
                    r,
                    4,
                    lambda x: (
                        f"│ {x.choice(('sendOtp', 'assignRider', 'onOrderCreate', 'menuSearch')):<16} │ v2      │ {x.choice(('https', 'firestore', 'scheduled')):<12} │ {region} │ {x.choice(('256', '512'))}    │ nodejs18 │"
                    ),
                )
                + "\n└──────────────────┴─────────┴──────────────┴─────────────┴────────┴──────────┘",
            )

        topics: list[_Topic] = [
            {
                "t": "ફંક્શન્સનું રીજન",
                "words": ("રીજન", "region"),
                "values": (
                    ("asia-south1", "Firestore પણ મુંબઈમાં જ છે."),
                    ("asia-south2", "દિલ્હીમાં ક્વોટા વધુ મળે છે."),
                ),
                "question": "Which region was chosen for the functions?",
                "tool": t_region,
            },
            {
                "t": "onOrderCreate ના ઇન્સ્ટન્સ",
                "words": ("ઇન્સ્ટન્સ", "minInstances", "instances"),
                "values": (
                    ("minInstances=1", "કોલ્ડ સ્ટાર્ટ ટાળવા એક પૂરતું છે."),
                    ("minInstances=3", "રાત્રે ઓર્ડર ઘણા વધી જાય છે."),
                    ("minInstances=0", "ખર્ચ ઓછો રાખવો છે."),
                ),
                "question": "What minimum instance setting was chosen for onOrderCreate?",
                "tool": t_region,
            },
            {
                "t": "Node રનટાઇમ",
                "words": ("રનટાઇમ", "runtime"),
                "values": (
                    ("nodejs20", "nodejs18 નો સપોર્ટ પૂરો થવાનો છે."),
                    ("nodejs22", "નવાં fetch APIs જોઈએ છે."),
                ),
                "question": "Which Node runtime was chosen for the functions?",
                "tool": t_region,
            },
        ]
        probes.append(
            _decision(rng, b, _GU, rng.choice(topics), rng.choice(("પ્રિયા", "રવિ", "ધ્રુવી")))
        )

    def next_step() -> None:
        days = (
            ("સોમવારે", "monday"),
            ("મંગળવારે", "tuesday"),
            ("બુધવારે", "wednesday"),
            ("ગુરુવારે", "thursday"),
            ("શુક્રવારે", "friday"),
        )
        mode = rng.randrange(3)
        if mode == 0:
            day, en = rng.choice(days)
            b.user(
                f"{day} Android ઍપનું નવું વર્ઝન સ્ટોરમાં જશે, એ પહેલાં Hosting પર નવું checkout પેજ લાઇવ હોવું જોઈએ. એના માટે શું બાકી છે?"
            )
            b.tool(
                "Checkout પેજની બ્રાન્ચ જોઉં છું.",
                "shell",
                {"cmd": "gh pr list --search checkout --state open"},
                noise_lines(
                    rng,
                    3,
                    lambda r: (
                        f"{r.randint(500, 560)}\t{r.choice(('checkout: UPI intent flow', 'checkout: address autocomplete', 'checkout: coupon validation'))}\tfeat/checkout-{_lower(r, 4)}\tOPEN"
                    ),
                ),
            )
            b.assistant(f"ત્રણ PR ખુલ્લાં છે. {day} પહેલાં checkout પેજ લાઇવ કરવાનું મેં નોંધ્યું છે.")
            probes.append(
                Probe(
                    "next_step",
                    "What must go live on Hosting, and by when?",
                    f"the new checkout page, before {en.capitalize()} (when the Android release goes out)",
                    (("checkout",), (day[:-1], en)),
                )
            )
        elif mode == 1:
            b.user(
                "ઠીક છે, આજ માટે પૂરતું. આગળનું કામ પણ જાણી રાખો: પ્રિયાને ઘટનાનો રિપોર્ટ જોઈએ છે, રાઇડર ઍપના ટેસ્ટ બાકી છે, "
                "અને મહિનાના અંત સુધીમાં Blaze પ્લાન પર બજેટ એલર્ટ ગોઠવવાનું છે. હમણાં માટે Firestore નો વપરાશ જુઓ."
            )
            b.tool(
                "વપરાશ જોઉં છું.",
                "shell",
                {
                    "cmd": f"gcloud monitoring time-series list --project {project} --filter='metric.type=\"firestore.googleapis.com/document/read_count\"' --interval-start-time=2024-06-11T00:00:00Z --format='value(points[0].value.int64Value)' | paste -sd+ | bc"
                },
                str(rng.randint(200000, 900000)),
            )
            b.assistant("આજના reads સામાન્ય છે. મહિનાના અંત સુધીમાં બજેટ એલર્ટ ગોઠવવાનું નોંધી લીધું છે.")
            probes.append(
                Probe(
                    "next_step",
                    "What has to be configured by the end of the month?",
                    "a budget alert on the Blaze plan",
                    (
                        ("બજેટ એલર્ટ", "budget alert"),
                        ("મહિનાના અંત", "end of the month", "end of month"),
                    ),
                )
            )
        else:
            b.user("ઇન્ડેક્સ બનાવવાનું શરૂ કર્યું? ક્યારે તૈયાર થશે?")
            b.tool(
                "ઇન્ડેક્સની સ્થિતિ જોઉં છું.",
                "shell",
                {
                    "cmd": f"gcloud firestore indexes composite list --project {project} --format='table(name.basename(),collectionGroup,state)'"
                },
                f"NAME          COLLECTION_GROUP  STATE\nCICAgJi{_lower(rng, 6)}  orders            CREATING\nCICAgOi{_lower(rng, 6)}  menus             READY",
            )
            b.assistant(
                "orders નો ઇન્ડેક્સ હજી CREATING માં છે. ઇન્ડેક્સ તૈયાર થઈ જાય પછી હું onOrderCreate ફરીથી ડિપ્લોય કરીશ અને pending ઓર્ડર ફરી પ્રોસેસ થાય છે કે નહીં તે જોઈશ."
            )
            probes.append(
                Probe(
                    "next_step",
                    "What did the agent promise to do, and after what?",
                    "redeploy onOrderCreate (and check pending orders) once the orders index is built",
                    (("ફરીથી ડિપ્લોય", "redeploy"), ("ઇન્ડેક્સ", "index")),
                )
            )

    _run(
        rng, intro, [id_revision, id_doc, id_build, art_first, art_second, decoy, decide, next_step]
    )
    opening = b.take()

    def filler(r: random.Random) -> None:
        pick = r.randrange(4)
        if pick == 0:
            b.user("Rules ના unit tests ચલાવો.")
            b.tool(
                "Emulator સાથે ટેસ્ટ ચલાવું છું.",
                "shell",
                {"cmd": "firebase emulators:exec --only firestore 'npm test -- rules'"},
                f"i  emulators: Starting emulators: firestore\n✔  firestore: Firestore Emulator UI websocket is running on 9150.\n\n  firestore.rules\n{noise_lines(r, 4, lambda x: '    ✓ ' + x.choice(('rider can read assigned order', 'customer cannot edit status', 'restaurant can update menu', 'anonymous cannot list orders')))}\n\n  {r.randint(20, 40)} passing ({r.randint(2, 9)}s)\n\n✔  Script exited successfully (code 0)",
            )
            b.assistant("બધા rules ટેસ્ટ પાસ થયા.")
        elif pick == 1:
            b.user("ઍપ્સની યાદી બતાવો, iOS નું bundle id જોઈએ છે.")
            b.tool(
                "ઍપ્સ જોઉં છું.",
                "shell",
                {"cmd": "firebase apps:list"},
                "┌──────────────────┬───────────────────────────────────────────────┬──────────┐\n│ App Display Name │ App ID                                        │ Platform │\n├──────────────────┼───────────────────────────────────────────────┼──────────┤\n"
                + noise_lines(
                    r,
                    3,
                    lambda x: (
                        f"│ {x.choice(('Customer iOS', 'Customer Android', 'Rider Android', 'Web')):<16} │ 1:{_digits(x, 12)}:{x.choice(('ios', 'android', 'web'))}:{hexits(x, 16)}  │ {x.choice(('IOS', 'ANDROID', 'WEB')):<8} │"
                    ),
                )
                + "\n└──────────────────┴───────────────────────────────────────────────┴──────────┘",
            )
            b.assistant("યાદી ઉપર છે; iOS ઍપ પહેલી લાઇનમાં છે.")
        elif pick == 2:
            b.user("lint ચલાવો.")
            warn = f"src/menu/search.ts\n  {r.randint(10, 90)}:7  warning  Unexpected any  @typescript-eslint/no-explicit-any\n"
            b.tool(
                "ESLint ચલાવું છું.",
                "shell",
                {"cmd": "npm --prefix functions run lint"},
                f"> lint\n> eslint --ext .ts src\n\n{warn}\n✖ 1 problem (0 errors, 1 warning)",
            )
            b.assistant("કોઈ error નથી, ફક્ત એક warning.")
        else:
            b.user("sendOtp કેટલું ઝડપી છે?")
            b.tool(
                "લૉગ જોઉં છું.",
                "shell",
                {"cmd": "firebase functions:log --only sendOtp -n 4"},
                noise_lines(
                    r,
                    4,
                    lambda x: (
                        f"2024-06-1{x.randint(2, 5)}T0{x.randint(1, 9)}:{x.randint(10, 59)}:{x.randint(10, 59)}.{_digits(x, 6)}Z D sendotp: Function execution took {x.randint(80, 900)} ms, finished with status code: 200"
                    ),
                ),
            )
            b.assistant("બધા કૉલ એક સેકન્ડથી ઓછા સમયમાં પૂરા થાય છે.")

    return opening, segments_of(rng, b, segments, filler), probes


# -- stripe_fastapi_webhooks (Nepali) ----------------------------------------------------

_NE = _Voice(
    prompt=(
        "हामीले {t}बारे निर्णय गर्नुपर्छ। तपाईंको सुझाव के छ?",
        "अवस्था हेरेर भन्नुस्, {t}का लागि तपाईं के गर्नुहुन्छ।",
        "अगाडि बढ्नुअघि: {t}का लागि के गर्ने? एउटा प्रस्ताव दिनुस्।",
    ),
    dictated=(
        "निर्णय भइसक्यो: {t}का लागि {v} प्रयोग गर्ने, किनभने {why}",
        "यो लेखिराख्नुस्: {t}, {v}; {why} यसमा बहस गर्नु छैन।",
        "{t}का लागि मलाई {v} चाहिन्छ; {why}",
    ),
    first=(
        "अहिलेलाई {t}का लागि {v} राखौँ।",
        "सुरुमा {t}: {v}। पछि हेरौँला।",
    ),
    correction=(
        "अघि भनेको कुरा सच्याउँछु: {t}का लागि {old} होइन, {v} राम्रो, किनभने {why}",
        "मैले विचार बदलेँ, {t} {v} हुन्छ, {old} होइन: {why}",
        "{old}बारे भनेको बिर्सिनुस्; {t}का लागि {v}, किनभने {why}",
    ),
    propose=(
        "म {t}का लागि {v} प्रस्ताव गर्छु, किनभने {why} सहमत हुनुहुन्छ?",
        "{t}का लागि मेरो प्रस्ताव {v} हो: {why} सहमत भए यसै गरी अघि बढ्छु।",
    ),
    approve=(
        "ठीक छ, अघि बढ्नुस्: {t}का लागि {v}।",
        "राम्रो, {t}: {v}। जारी राख्नुस्।",
        "हो, {t}का लागि {v}, म सहमत छु।",
    ),
    modify=(
        "लगभग। {old}को सट्टा {t}का लागि {v} राम्रो: {why}",
        "{old}मा म विश्वस्त छैन। {t}का लागि {v} प्रयोग गर्नुस्, किनभने {why}",
    ),
    relay=(
        "{who}सँग कुरा गरेँ, उहाँ भुक्तानी टिम हेर्नुहुन्छ: {t}का लागि उहाँलाई {v} चाहिन्छ, किनभने {why}",
        "{who}को भर्खरै फोन आयो: {t} {v} नै हुनुपर्छ, किनभने {why}",
        "{who}ले Slack मा लेख्नुभयो: {t}का लागि {v}; {why}",
    ),
    ask=(
        "अगाडि बढ्नुअघि एउटा कुरा भन्नुस्: {t}का लागि {a} कि {b}?",
        "प्रश्न: {t}का लागि {a} रोज्ने कि {b}? दुवै चल्छन्।",
    ),
    answer=(
        "{t}का लागि {v}: {why}",
        "{v} नै राख्नुस् {t}का लागि, किनभने {why}",
        "{t}? {v}, किनभने {why}",
    ),
    ack=(
        "बुझेँ: {t}, {v}। नोट गरेँ।",
        "भयो, {t}का लागि {v}।",
        "ठीक छ, {t}का लागि {v}; यो ध्यानमा राखेर अघि बढ्छु।",
    ),
)

_B62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _stripe(rng: random.Random, b: Builder, segments: int) -> Parts:
    probes: list[Probe] = []
    api = rng.choice(("api.yatra-pay.com.np", "payments.himal-store.com", "api.momo-bazar.np"))
    evt = f"evt_{token(rng, 24, _B62)}"
    other_evts = [f"evt_{token(rng, 24, _B62)}" for _ in range(4)]
    pi = f"pi_{token(rng, 24, _B62)}"
    other_pis = [f"pi_{token(rng, 24, _B62)}" for _ in range(3)]
    rev = hexits(rng, 12)
    prev_rev = hexits(rng, 12)
    older_revs = [hexits(rng, 12) for _ in range(2)]
    customer = rng.choice(("सुनिता श्रेष्ठ", "राजन गुरुङ", "बिपना थापा"))
    amount = rng.choice((2499, 4999, 12900, 899))

    def intro() -> None:
        b.user(
            f"नमस्ते। हाम्रो भुक्तानी सेवा (FastAPI + SQLAlchemy, {api}) ले हिजो साँझदेखि Stripe का webhook हरू 400 फर्काइरहेको छ, "
            "त्यसैले भुक्तानी भइसकेका अर्डरहरू 'unpaid' मै अड्किएका छन्। कारण पत्ता लगाउन सघाउनुस्, तर production मा केही बदल्नुअघि मलाई सोध्नुस्।"
        )
        b.tool(
            "पहिले सेवाको लग हेर्छु।",
            "shell",
            {
                "cmd": f"ssh deploy@{api} 'journalctl -u payments-api --since \"-2h\" -n 8 --no-pager -o cat'"
            },
            noise_lines(
                rng,
                8,
                lambda r: (
                    f'INFO:     10.0.{r.randint(0, 9)}.{r.randint(2, 250)}:{r.randint(30000, 60000)} - "POST /webhooks/stripe HTTP/1.1" {r.choice(("400 Bad Request", "400 Bad Request", "200 OK"))}'
                    if r.random() < 0.7
                    else "ERROR:    app.webhooks: stripe.error.SignatureVerificationError: No signatures found matching the expected signature for payload"
                ),
            ),
        )
        b.assistant(
            "धेरैजसो webhook मा SignatureVerificationError आएको छ: हामीले प्रयोग गरिरहेको signing secret र Stripe ले पठाउने secret मेल खाँदैनन्। "
            "हिजोको deploy मा environment variable परिवर्तन भएको हुनसक्छ।"
        )

    def id_event() -> None:
        b.user(
            f"{customer}ले रु. {amount} तिर्नुभयो तर अर्डर unpaid देखिन्छ। त्यो भुक्तानीको webhook घटना कुन हो?"
        )
        items = [
            (
                e,
                rng.choice(
                    (
                        "charge.succeeded",
                        "customer.updated",
                        "invoice.paid",
                        "payment_intent.created",
                    )
                ),
                rng.choice(other_pis),
            )
            for e in other_evts
        ]
        items[0] = (other_evts[0], "customer.updated", items[0][2])  # the colleague's hunch
        items.insert(rng.randrange(5), (evt, "payment_intent.succeeded", pi))
        body = (
            '{\n  "object": "list",\n  "data": [\n'
            + ",\n".join(
                f'    {{\n      "id": "{e}",\n      "object": "event",\n      "type": "{t}",\n      "created": 17181{_digits(rng, 5)},\n      "pending_webhooks": {1 if e == evt else 0},\n      "data": {{ "object": {{ "id": "{p}", "amount": {amount * 100 if e == evt else rng.randint(500, 20000) * 100}, "currency": "npr" }} }}\n    }}'
                for e, t, p in items
            )
            + '\n  ],\n  "has_more": true\n}'
        )
        b.tool(
            "Stripe CLI बाट हालका घटनाहरू हेर्छु।",
            "shell",
            {"cmd": "stripe events list --limit 5"},
            body,
        )
        if rng.random() < 0.5:
            b.assistant(
                f"भेटियो: {evt}, प्रकार payment_intent.succeeded, रकम रु. {amount}, अझै pending_webhooks: 1। यो घटना हाम्रो endpoint मा पुग्न सकेको छैन।"
            )
        else:
            b.assistant(
                f"रु. {amount} को payment_intent.succeeded घटना सूचीमा छ (माथिको JSON, pending_webhooks 1 भएको)। अरू घटनाहरू यो भुक्तानीसँग सम्बन्धित छैनन्।"
            )
        probes.append(
            Probe(
                "identifier",
                f"What is the Stripe event id of {customer}'s payment_intent.succeeded webhook?",
                evt,
                ((evt,),),
            )
        )

    def id_intent() -> None:
        if rng.random() < 0.5:
            b.user(
                f"ग्राहक सेवाले PaymentIntent {pi} पठाएको छ, दोहोरो शुल्क लागेको गुनासो छ। {other_pis[0]} चाहिँ पुरानो, फिर्ता भइसकेको केस हो, त्यसमा नअल्झिनुस्। एक पटक मात्र शुल्क लागेको हो कि हेर्नुस्।"
            )
            b.tool(
                "PaymentIntent हेर्छु।",
                "shell",
                {
                    "cmd": f"stripe payment_intents retrieve {pi} | jq '{{id, status, amount, latest_charge, customer}}'"
                },
                f'{{\n  "id": "{pi}",\n  "status": "succeeded",\n  "amount": {amount * 100},\n  "latest_charge": "ch_{token(rng, 24, _B62)}",\n  "customer": "cus_{token(rng, 14, _B62)}"\n}}',
            )
            b.assistant(
                "एउटै charge मात्र छ; दोहोरो शुल्क लागेको छैन। अर्डर unpaid देखिनुको कारण webhook नै हो।"
            )
        else:
            b.user(
                "ग्राहक सेवाको टिकटमा दोहोरो शुल्कको गुनासो छ, तर PaymentIntent लेखिएको छैन। हाम्रो डाटाबेसमा अड्किएका भुक्तानी हेर्नुस्।"
            )
            rows = [
                f" {rng.randint(80000, 89999)} | {p} | {rng.randint(500, 20000) * 100:>8} | unpaid | 2024-06-11 1{rng.randint(7, 9)}:{rng.randint(10, 59)}"
                for p in other_pis
            ]
            rows.insert(
                rng.randrange(4),
                f" {rng.randint(80000, 89999)} | {pi} | {amount * 100:>8} | unpaid | 2024-06-11 18:{rng.randint(10, 59)}  ← duplicate complaint",
            )
            b.tool(
                "SQLAlchemy स्क्रिप्टबाट unpaid अर्डरहरू निकाल्छु।",
                "shell",
                {"cmd": "python -m app.scripts.stuck_orders --since 2024-06-11T17:00"},
                "   id  | payment_intent                  |   amount | status | created\n-------+---------------------------------+----------+--------+------------------\n"
                + "\n".join(rows),
            )
            b.assistant(
                "दोहोरो शुल्कको गुनासो भएको अर्डर तालिकामा चिन्ह लगाइएको छ; त्यसको PaymentIntent मा एउटै charge छ, त्यसैले फिर्ता गर्नुपर्दैन।"
            )
        probes.append(
            Probe(
                "identifier",
                "Which PaymentIntent had the double-charge complaint?",
                f"{pi} (only one charge; {other_pis[0]} is unrelated)",
                ((pi,),),
            )
        )

    def id_revision() -> None:
        b.user(
            "processed_events तालिका थप्ने नयाँ Alembic migration बन्यो? त्यसको revision id चाहियो, PR मा लेख्नुपर्छ।"
        )
        b.tool(
            "Alembic को इतिहास हेर्छु।",
            "shell",
            {"cmd": "alembic history -r -4:head"},
            f"{prev_rev} -> {rev} (head), add processed_events table for webhook idempotency\n{older_revs[0]} -> {prev_rev}, add refunds.reason column\n{older_revs[1]} -> {older_revs[0]}, orders: index on created_at\n<base> -> {older_revs[1]}, initial schema",
        )
        if rng.random() < 0.5:
            b.assistant(
                f"नयाँ migration {rev} हो (head), जसको down_revision {prev_rev} हो। PR मा {rev} लेख्नुस्।"
            )
        else:
            b.assistant(
                "हो, बनेको छ: माथिको पहिलो लाइनको (head) revision नै processed_events थप्ने migration हो। त्यसभन्दा अघिको refunds.reason वाला हो।"
            )
        probes.append(
            Probe(
                "identifier",
                "What is the Alembic revision id of the new processed_events migration?",
                f"{rev} (head; down_revision {prev_rev})",
                ((rev,),),
            )
        )

    def art_first() -> None:
        choice = rng.randrange(3)
        how = rng.randrange(3)
        words: tuple[str, ...]
        if choice == 0:
            path = rng.choice(
                ("/webhooks/stripe-v1", "/api/legacy/stripe-hook", "/hooks/payments-old")
            )
            name = f"https://{api}{path}"
            b.user(
                f"Stripe मा पुरानो endpoint {name} अझै सक्रिय छ र सबै घटनाहरू दोहोरो पठाउँछ। त्यसलाई disable गर्नुस्, delete होइन।"
            )
            out = (
                f"we_{token(rng, 24, _B62)}\t{name}\tdisabled"
                if how != 1
                else '{\n  "object": "webhook_endpoint",\n  "status": "disabled"\n}'
            )
            b.tool(
                "Endpoint disable गर्छु।",
                "shell",
                {
                    "cmd": f"stripe webhook_endpoints update $(stripe webhook_endpoints list | jq -r '.data[] | select(.url==\"{name}\") | .id') --disabled=true | jq -r '[.id, .url, .status] | @tsv'"
                },
                out,
            )
            words = ("निष्क्रिय", "disable", "disabled")
            said = (
                f"पुरानो endpoint {name} अब निष्क्रिय (disabled) छ; मेटाइएको छैन।"
                if how != 0
                else "भयो।"
            )
            q = f"What was done to the Stripe webhook endpoint {name}?"
            a = "disabled (not deleted)"
        elif choice == 1:
            name = rng.choice(("webhook_events_old", "stripe_events_raw", "payment_logs_2022"))
            b.user(
                f"{name} तालिका अब कसैले प्रयोग गर्दैन। नयाँ migration मा त्यसलाई हटाउनुस् र staging मा चलाउनुस्।"
            )
            out = (
                f"INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.\nINFO  [alembic.runtime.migration] Will assume transactional DDL.\nINFO  [alembic.runtime.migration] Running upgrade {hexits(rng, 12)} -> {hexits(rng, 12)}, drop {name} table"
                if how != 1
                else "INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.\nINFO  [alembic.runtime.migration] Will assume transactional DDL."
            )
            b.tool(
                "Staging मा upgrade चलाउँछु।",
                "shell",
                {"cmd": "ENV=staging alembic upgrade head"},
                out,
            )
            words = ("हटाइयो", "हटाएँ", "drop", "dropped")
            said = f"{name} तालिका staging बाट हटाइयो (drop)।" if how != 0 else "Upgrade सफल भयो।"
            q = f"What happened to the {name} table?"
            a = "dropped by a new Alembic migration (run on staging)"
        else:
            name = rng.choice(("reconcile_payments", "sync_refunds", "expire_checkouts"))
            b.user(
                f"{name} cron ले अहिले गलत अवस्थाका अर्डरहरूलाई 'failed' बनाइदिन्छ। समस्या नसुल्झिएसम्म त्यसलाई बन्द गर्नुस्।"
            )
            out = (
                f"# DISABLED 2024-06-11 (webhook incident): */10 * * * * /srv/payments/.venv/bin/python -m app.jobs.{name}"
                if how != 1
                else "crontab: installing new crontab"
            )
            b.tool(
                "Crontab मा लाइन comment गर्छु।",
                "shell",
                {
                    "cmd": f"ssh deploy@{api} \"crontab -l | sed 's|^\\(.*app.jobs.{name}\\)|# DISABLED 2024-06-11 (webhook incident): \\1|' | crontab - && crontab -l | grep {name}\""
                },
                out,
            )
            words = ("बन्द", "disabled")
            said = f"{name} cron बन्द गरियो (comment गरेर)।" if how != 0 else "भयो।"
            q = f"What was done to the {name} cron job?"
            a = "disabled (commented out in the crontab) until the incident is fixed"
        b.assistant(said)
        probes.append(Probe("artifact", q, a, ((name,), words)))

    def art_second() -> None:
        choice = rng.randrange(3)
        how = rng.randrange(3)
        words: tuple[str, ...]
        if choice == 0:
            name = rng.choice(("Premium Plan (old)", "Festival Bundle 2023", "Trial Pack v1"))
            b.user(f'Stripe मा "{name}" product ले checkout मा भ्रम ल्याइरहेको छ। त्यसलाई archive गर्नुस्।')
            out = (
                f"prod_{token(rng, 14, _B62)}\t{name}\tarchived"
                if how != 1
                else '{\n  "active": false\n}'
            )
            b.tool(
                "Product archive गर्छु।",
                "shell",
                {
                    "cmd": f'stripe products update $(stripe products list --limit 100 | jq -r \'.data[] | select(.name=="{name}") | .id\') --active=false | jq -r \'[.id, .name, (if .active then "active" else "archived" end)] | @tsv\''
                },
                out,
            )
            words = ("archive", "archived", "संग्रह")
            said = (
                f'"{name}" product archive गरियो; पुराना subscription हरूमा असर पर्दैन।'
                if how != 0
                else "भयो।"
            )
            q = f'What was done to the Stripe product "{name}"?'
            a = "archived (set inactive)"
        elif choice == 1:
            name = rng.choice(("payments-worker", "webhook-consumer", "payments-api"))
            b.user(f"नयाँ signing secret .env मा राखेँ। {name} सेवा पुनः सुरु गर्नुस्।")
            out = (
                f"Jun 11 19:{rng.randint(10, 59)}:{rng.randint(10, 59)} {api.split('.')[1]} systemd[1]: Stopped {name}.service.\nJun 11 19:{rng.randint(10, 59)}:{rng.randint(10, 59)} {api.split('.')[1]} systemd[1]: Started {name}.service - Payments service."
                if how != 1
                else "active"
            )
            b.tool(
                "सेवा restart गर्छु।",
                "shell",
                {
                    "cmd": f"ssh deploy@{api} 'sudo systemctl restart {name} && journalctl -u {name} -n 2 --no-pager -o short'"
                    if how != 1
                    else f"ssh deploy@{api} 'sudo systemctl restart {name} && systemctl is-active {name}'"
                },
                out,
            )
            words = ("पुनः सुरु", "restarted", "started")
            said = f"{name} पुनः सुरु भयो, नयाँ secret लोड भएको छ।" if how != 0 else "सेवा चलिरहेको छ।"
            q = f"What was done to the {name} service?"
            a = "restarted to load the new webhook signing secret"
        else:
            name = f"fix/{rng.choice(('webhook-signature', 'stripe-secret-env', 'webhook-idempotency'))}"
            b.user("Secret पढ्ने कोड सच्याउन नयाँ branch बनाउनुस्, main बाट।")
            out = f"Switched to a new branch '{name}'" if how != 1 else "## HEAD (no branch)"
            b.tool(
                "Branch बनाउँछु।",
                "shell",
                {
                    "cmd": f"git switch -c {name} origin/main"
                    if how != 1
                    else f"git switch -q -c {name} origin/main; git status -sb | head -1"
                },
                out,
            )
            words = ("बनाइयो", "बनाएँ", "new branch", "created")
            said = (
                f"{name} branch बनाइयो (origin/main बाट)।" if how != 0 else "अब त्यही branch मा छु।"
            )
            q = "Which git branch was created for the fix?"
            a = f"{name}, created from origin/main"
        b.assistant(said)
        probes.append(Probe("artifact", q, a, ((name,), words)))

    def decoy() -> None:
        b.user(f"प्रकाशले भन्यो {other_evts[0]} पनि हराएको छ। मलाई लाग्दैन। हेर्नुस्, तर resend नगर्नुस्।")
        b.tool(
            "घटनाको delivery हेर्छु।",
            "shell",
            {
                "cmd": f"stripe events retrieve {other_evts[0]} | jq '{{id, type, pending_webhooks}}'"
            },
            f'{{\n  "id": "{other_evts[0]}",\n  "type": "customer.updated",\n  "pending_webhooks": 0\n}}',
        )
        b.assistant(
            "त्यो customer.updated घटना हो र पहिल्यै डेलिभर भइसकेको छ (pending_webhooks 0)। मैले resend गरिनँ।"
        )

    def decide() -> None:
        def t_ver(r: random.Random, bb: Builder) -> None:
            bb.tool(
                "खाताको API संस्करण र SDK हेर्छु।",
                "shell",
                {
                    "cmd": "stripe get /v1/account | jq -r .settings.dashboard.display_name; pip show stripe | head -2"
                },
                f"{api.split('.')[1]}\nName: stripe\nVersion: {r.randint(7, 9)}.{r.randint(0, 12)}.0",
            )

        def t_queue(r: random.Random, bb: Builder) -> None:
            bb.tool(
                "Webhook handler कति समय लिन्छ हेर्छु।",
                "shell",
                {
                    "cmd": f"ssh deploy@{api} \"grep 'webhook handled' /var/log/payments/app.log | tail -5\""
                },
                noise_lines(
                    r,
                    5,
                    lambda x: (
                        f"2024-06-11 1{x.randint(0, 9)}:{x.randint(10, 59)}:{x.randint(10, 59)},{x.randint(100, 999)} INFO app.webhooks webhook handled type=payment_intent.succeeded ms={x.randint(400, 9000)}"
                    ),
                ),
            )

        topics: list[_Topic] = [
            {
                "t": "Stripe API संस्करण",
                "words": ("API संस्करण", "API version", "Stripe API"),
                "values": (
                    ("2024-04-10", "नयाँ SDK त्यसैमा परीक्षण गरिएको छ।"),
                    ("2023-10-16", "अहिलेको कोड त्यसैमा लेखिएको हो र जोखिम कम छ।"),
                ),
                "question": "Which Stripe API version is the service pinned to?",
                "tool": t_ver,
            },
            {
                "t": "webhook प्रोसेसिङको क्यू",
                "words": ("क्यू", "queue"),
                "values": (
                    ("arq", "Redis पहिल्यै छ र retry सजिलो हुन्छ।"),
                    ("BackgroundTasks", "नयाँ सेवा थप्नु पर्दैन।"),
                ),
                "question": "What will process webhooks in the background?",
                "tool": t_queue,
            },
            {
                "t": "idempotency को भण्डारण",
                "words": ("idempotency",),
                "values": (
                    ("processed_events", "डाटाबेसमै राख्दा transaction सँगै commit हुन्छ।"),
                    ("Redis SETNX", "छिटो हुन्छ र पुराना key आफैँ expire हुन्छन्।"),
                ),
                "question": "Where will processed webhook event ids be stored for idempotency?",
                "tool": t_queue,
            },
        ]
        probes.append(
            _decision(rng, b, _NE, rng.choice(topics), rng.choice(("अनिता", "प्रकाश", "सरिता")))
        )

    def next_step() -> None:
        days = (
            ("सोमबार", "monday"),
            ("मङ्गलबार", "tuesday"),
            ("बुधबार", "wednesday"),
            ("बिहीबार", "thursday"),
            ("शुक्रबार", "friday"),
        )
        mode = rng.randrange(3)
        if mode == 0:
            day, en = rng.choice(days)
            b.user(
                f"{day} हामी नयाँ webhook endpoint लाई live mode मा सार्छौँ। त्यसअघि test mode मा पूरा flow एक पटक चलाइहेर्नुपर्छ।"
            )
            b.tool(
                "Test mode मा घटना trigger गर्छु।",
                "shell",
                {"cmd": "stripe trigger payment_intent.succeeded"},
                "Setting up fixture for: payment_intent\nRunning fixture for: payment_intent\nTrigger succeeded! Check dashboard for event details.",
            )
            b.assistant(f"Test mode मा flow ठीक चल्यो। {day} live mode मा सार्ने कुरा नोट गरेँ।")
            probes.append(
                Probe(
                    "next_step",
                    "What switch is planned, and when?",
                    f"moving the new webhook endpoint to live mode on {en.capitalize()}",
                    (("live mode", "लाइभ"), (day, en)),
                )
            )
        elif mode == 1:
            b.user(
                "ठीक छ, आजका लागि यति। अरू बाँकी कामहरू पनि थाहा होस्: अनिताले घटनाको रिपोर्ट माग्नुभएको छ, refund API को test लेख्न बाँकी छ, "
                "र महिनाको अन्त्यसम्ममा PCI को SAQ A प्रश्नावली भर्नुपर्छ। अहिलेलाई test suite चलाउनुस्।"
            )
            b.tool(
                "pytest चलाउँछु।",
                "shell",
                {"cmd": "pytest -q tests/webhooks"},
                f"{'.' * rng.randint(20, 40)}                                      [100%]\n{rng.randint(20, 40)} passed in {rng.randint(2, 9)}.{rng.randint(10, 99)}s",
            )
            b.assistant("सबै test पास भए। महिनाको अन्त्यसम्म SAQ A भर्ने कुरा पनि नोट गरेँ।")
            probes.append(
                Probe(
                    "next_step",
                    "What compliance task is due, and when?",
                    "fill in the PCI SAQ A questionnaire by the end of the month",
                    (("SAQ", "PCI"), ("महिनाको अन्त्य", "end of the month", "end of month")),
                )
            )
        else:
            b.user("छुटेका webhook हरू कहिले फेरि पठाउने?")
            b.tool(
                "Production मा migration को अवस्था हेर्छु।",
                "shell",
                {"cmd": f"ssh deploy@{api} 'cd /srv/payments && .venv/bin/alembic current'"},
                f"{hexits(rng, 12)}\nINFO  [alembic.runtime.migration] Context impl PostgresqlImpl.",
            )
            b.assistant(
                "Production मा नयाँ migration अझै लागू भएको छैन। Migration लागू भएपछि म stripe events resend ले छुटेका घटनाहरू "
                "फेरि पठाउनेछु, अनि अर्डरहरू paid भए कि भएनन् जाँच्नेछु।"
            )
            probes.append(
                Probe(
                    "next_step",
                    "What did the agent promise to do, and after what?",
                    "resend the missed Stripe events (stripe events resend) once the new migration is applied in production",
                    (("resend", "फेरि पठाउ"), ("migration",)),
                )
            )

    _run(
        rng,
        intro,
        [id_event, id_intent, id_revision, art_first, art_second, decoy, decide, next_step],
    )
    opening = b.take()

    def filler(r: random.Random) -> None:
        pick = r.randrange(4)
        if pick == 0:
            b.user("Refund endpoint को test चलाउनुस्।")
            b.tool(
                "pytest चलाउँछु।",
                "shell",
                {"cmd": "pytest -q tests/refunds"},
                f"{'.' * r.randint(8, 20)}                                      [100%]\n{r.randint(8, 20)} passed in {r.randint(1, 5)}.{r.randint(10, 99)}s",
            )
            b.assistant("सबै पास।")
        elif pick == 1:
            b.user("Mypy ले के भन्छ?")
            b.tool(
                "Mypy चलाउँछु।",
                "shell",
                {"cmd": "mypy app"},
                r.choice(
                    (
                        "Success: no issues found in 64 source files",
                        f'app/refunds/service.py:{r.randint(10, 90)}: error: Item "None" of "Optional[Order]" has no attribute "total"  [union-attr]\nFound 1 error in 1 file (checked 64 source files)',
                    )
                ),
            )
            b.assistant("परिणाम माथि छ; एउटा सानो type त्रुटि भए म छुट्टै सच्याउँछु।")
        elif pick == 2:
            b.user("अहिले API को latency कस्तो छ?")
            b.tool(
                "Nginx लगबाट p95 निकाल्छु।",
                "shell",
                {
                    "cmd": "awk '{print $NF}' /var/log/nginx/api_access.log | sort -n | awk '{a[NR]=$1} END {print a[int(NR*0.95)]}'"
                },
                f"0.{r.randint(80, 400)}",
            )
            b.assistant("p95 ठीकै छ।")
        else:
            b.user("Dependabot का PR हरू हेर्नुस्।")
            b.tool(
                "PR सूची हेर्छु।",
                "shell",
                {"cmd": "gh pr list --author app/dependabot"},
                noise_lines(
                    r,
                    3,
                    lambda x: (
                        f"{x.randint(100, 200)}\tBump {x.choice(('fastapi', 'uvicorn', 'sqlalchemy', 'pydantic'))} from 0.{x.randint(100, 111)}.0 to 0.{x.randint(112, 115)}.0\tdependabot/pip/{_lower(x, 6)}\tOPEN"
                    ),
                ),
            )
            b.assistant("केही version bump हरू छन्; CI हरियो भए merge गर्न सकिन्छ।")

    return opening, segments_of(rng, b, segments, filler), probes


# -- the set ----------------------------------------------------------------------------

_TEMPLATES: dict[str, Template] = {
    "proxmox_zfs_resilver": _proxmox,
    "symfony_doctrine_deploy": _symfony,
    "cassandra_node_repair": _cassandra,
    "velero_cluster_restore": _velero,
    "firebase_functions_release": _firebase,
    "stripe_fastapi_webhooks": _stripe,
}

HELDOUT16_KINDS: tuple[str, ...] = tuple(_TEMPLATES)


def generate_heldout16(kind: str, seed: int, segments: int = 3) -> Session:
    """The sixteenth held-out set's session of ``kind`` for ``seed`` (see the module
    docstring); the same seed always gives the same session."""
    return build_session(
        _TEMPLATES, kind, seed, segments, seed_prefix="heldout16:", label="heldout16"
    )
