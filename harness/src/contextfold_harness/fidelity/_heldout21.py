# ruff: noqa: E501
"""The twenty-first held-out session set, written blind.

Written without seeing the compaction code, the fact ledger or any other session set.
Six long ops sessions between a user and an agent, both speaking one human language
while the tools answer in their own English/ASCII formats:

``haproxy_zulu``
    HAProxy load balancers (``haproxy -c``, the runtime API over socat, maps, ACLs), in
    isiZulu;
``flink_kannada``
    Apache Flink jobs (the REST API, savepoints, TaskManager pods, Kafka topics), in
    Kannada, some dates in Kannada digits;
``cilium_malayalam``
    Cilium on Kubernetes (endpoints, identities in Hubble flows, cilium-health,
    CiliumNetworkPolicies), in Malayalam;
``puppet_somali``
    Puppet (PuppetDB queries, the CA, reports, Hiera, the Puppetfile, r10k), in Somali;
``artifactory_tajik``
    JFrog Artifactory (build info, Xray violations, access tokens, repositories), in
    Tajik (Cyrillic);
``icinga_pashto``
    Icinga 2 (downtimes, host objects, notifications, the API), in Pashto (right to
    left, some times and dates in Pashto digits).

Each opening plants, in an order the seed shuffles: three identifiers of three id types,
each in a listing among same-shaped decoys and singled out by the agent, by the user, by
its place in the listing or by the odd state of its line; two artifacts whose change is
told by the tool, by the agent in its language, or both (sometimes behind "don't delete
it, just disable it"); one decision (dictated, approved, changed, corrected, relayed or
picked from two); one next step (tomorrow, next week, a weekday, a date, a deadline, a
condition or the agent's promise). Beside them: a colleague's wrong hunch, a closed
ticket next to an open one, superseded values. The filler segments are later unrelated
work on the same system, drawing their ids and names from namespaces the planted facts
never use (and each filler step is redrawn should it ever contain a planted string).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from contextfold_harness.fidelity._build import (
    Builder,
    Parts,
    Probe,
    Session,
    build_session,
    hexits,
    segments_of,
    token,
)

__all__ = ["HELDOUT21_KINDS", "generate_heldout21"]

R = random.Random
Args = dict[str, object]
Tool = tuple[str, Args, str]
"""A tool call: its name, its arguments, its output."""
Filler = Callable[[R], tuple[str, str, Args, str, str]]
"""A piece of later work: what is looked at, the tool, its arguments, output, a finding."""

CHANGES = ("created", "changed", "deleted", "disabled", "rolled_back", "renamed", "moved")
_EN: dict[str, tuple[str, ...]] = {
    "created": ("creat", "added"),
    "changed": ("chang", "updat", "modif", "edit"),
    "deleted": ("delet", "remov"),
    "disabled": ("disabl", "deactivat"),
    "rolled_back": ("rolled back", "roll back", "rollback", "revert", "restor"),
    "renamed": ("renam",),
    "moved": ("moved", "move ", "moving", "relocat"),
}
_PAST = {
    "created": "created",
    "changed": "changed",
    "deleted": "deleted",
    "disabled": "disabled",
    "rolled_back": "rolled back",
    "renamed": "renamed",
    "moved": "moved",
}
_VERB = {
    "created": "Create",
    "changed": "Update",
    "deleted": "Delete",
    "disabled": "Disable",
    "rolled_back": "Revert",
    "renamed": "Rename",
    "moved": "Move",
}
_ORD_EN = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


@dataclass(frozen=True)
class _Lang:
    """What the user and the agent say, in one language (``{...}`` are filled in)."""

    hello: tuple[str, ...]
    hello_reply: str
    list_ask: str
    list_run: str
    listed: str
    which: str
    agent_names: str
    user_names: str
    ordinal: str
    ords: tuple[str, ...]
    odd_pick: str
    acks: tuple[str, ...]
    hunch: str
    hunch_no: str
    art_req: Mapping[str, str]
    art_tell: Mapping[str, str]
    stems: Mapping[str, tuple[str, ...]]
    art_run: str
    art_done: tuple[str, ...]
    dont_delete: str
    dec_ask: str
    dec_dictate: str
    dec_propose: str
    dec_approve: tuple[str, ...]
    dec_change: str
    dec_correct: str
    dec_relay: str
    dec_either: str
    dec_pick: str
    dec_ok: str
    tomorrow: str
    next_week: str
    weekdays: tuple[str, ...]
    weekday_when: str
    date_when: str
    ns_when: str
    ns_deadline: str
    ns_if: str
    ns_ask: str
    ns_promise: str
    ns_ack: str
    ticket_trap: str
    fill_req: tuple[str, ...]
    fill_run: str
    fill_done: tuple[str, ...]
    digits: str | None = None


@dataclass(frozen=True)
class _IdKind:
    """An id type: how a planted one looks and the listing that shows it among decoys."""

    noun: str
    local: str
    plant: Callable[[R], str]
    listing: Callable[[R, list[str], int], Tool]
    odd_state: str
    ok_state: str
    odd_local: str
    odd_en: str
    ordinal: bool = True


@dataclass(frozen=True)
class _ArtKind:
    """A kind of named thing that gets changed, and how a tool reports the change."""

    noun: str
    names: tuple[str, ...]
    changes: tuple[str, ...]
    tell: Callable[[R, str, str, str], Tool]
    quiet: Callable[[R], Tool]
    other: Callable[[str, str], str]
    extra: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class _Topic:
    en: str
    local: str
    alts: tuple[str, ...]
    values: tuple[str, ...]
    reasons: tuple[tuple[str, str], ...]  # (in the language, in English)


@dataclass(frozen=True)
class _Step:
    en: str
    local: str
    objs: tuple[str, ...]


@dataclass(frozen=True)
class _Cond:
    en: str
    local: str
    alts: tuple[str, ...]


@dataclass(frozen=True)
class _Stack:
    system: str
    lang: _Lang
    ids: tuple[_IdKind, _IdKind, _IdKind]
    arts: tuple[_ArtKind, ...]
    topics: tuple[_Topic, ...]
    steps: tuple[_Step, ...]
    conds: tuple[_Cond, ...]
    people: tuple[tuple[str, str], ...]  # (as written in the language, in Latin letters)
    trap_ticket: Callable[[R], str]
    fillers: tuple[Filler, ...]


# --------------------------------------------------------------------------- helpers


def _distinct(rng: R, make: Callable[[R], str], n: int) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        x = make(rng)
        if all(x not in y and y not in x for y in out):
            out.append(x)
    return out


def _digits(text: str, digits: str | None) -> str:
    return text if digits is None else text.translate(str.maketrans("0123456789", digits))


def _uuid(rng: R) -> str:
    return f"{hexits(rng, 8)}-{hexits(rng, 4)}-4{hexits(rng, 3)}-{rng.choice('89ab')}{hexits(rng, 3)}-{hexits(rng, 12)}"


def _ts(rng: R, month: int = 5) -> str:
    return f"2025-{month:02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z"


def _git(rng: R, branch: str, subject: str, path: str, change: str, other: str) -> list[str]:
    """What ``git commit`` and ``git push`` print for a change to ``path``."""
    files = (
        f" 1 file changed, {rng.randint(1, 40)} insertions(+), {rng.randint(0, 12)} deletions(-)"
    )
    out = [f"[{branch} {hexits(rng, 7)}] {subject}", files]
    if change == "created":
        out.append(f" create mode 100644 {path}")
    elif change == "deleted":
        out.append(f" delete mode 100644 {path}")
    elif change in ("renamed", "moved"):
        out.append(f" rename {path} => {other} (100%)")
    objects = rng.randint(5, 14)
    out += [
        f"Enumerating objects: {objects}, done.",
        f"Counting objects: 100% ({objects}/{objects}), done.",
        "Delta compression using up to 8 threads",
        f"Compressing objects: 100% ({objects - 2}/{objects - 2}), done.",
        f"Writing objects: 100% ({objects - 3}/{objects - 3}), {rng.randint(1, 9)}.{rng.randint(10, 99)} KiB | {rng.randint(1, 9)}.{rng.randint(10, 99)} MiB/s, done.",
        f"Total {objects - 3} (delta {rng.randint(1, 4)}), reused 0 (delta 0), pack-reused 0",
        f"To git.corp.example.net:ops/{branch}-config.git",
        f"   {hexits(rng, 7)}..{hexits(rng, 7)}  {branch} -> {branch}",
    ]
    return out


def _subject(change: str, what: str, other: str) -> str:
    if change == "rolled_back":
        return f'Revert "Update {what}"'
    if change in ("renamed", "moved"):
        return f"{_VERB[change]} {what} to {other}"
    return f"{_VERB[change]} {what}"


def _file_other(folder: str) -> Callable[[str, str], str]:
    def other(name: str, change: str) -> str:
        if change == "renamed":
            stem, dot, ext = name.rpartition(".")
            return f"{stem}_retired.{ext}" if dot else f"{name}_retired"
        if change == "moved":
            return f"{folder}/archive/"
        return ""

    return other


# --------------------------------------------------------------------------- languages

ZULU = _Lang(
    hello=(
        "Sawubona! Namuhla sisebenza ku-{system}. Kunezinto eziningana okufanele sizilungise, ngizokutshela ngayinye.",
        "Sanibonani. Sinomsebenzi omningi namuhla ku-{system}; masiqale ngokubheka isimo.",
    ),
    hello_reply="Sawubona! Ngilungile. Ngizoqala ngokubheka isimo, bese ngenza lokho ongitshela khona.",
    list_ask="Ake ungibonise {noun}.",
    list_run="Ngizobheka {noun} manje.",
    listed="Nakhu uhlu, kunezinto ezingu-{count}.",
    which="Kulolu hlu, iyiphi {odd}?",
    agent_names="Ngiyibonile: {id} yiyona ethi {state}. Yileyo esizoyilungisa.",
    user_names="Sizosebenza ku-{id}. Yiyona engikhathazayo namuhla.",
    ordinal="Thatha {ord} ohlwini, yiyona esiyidingayo.",
    ords=(
        "yokuqala",
        "yesibili",
        "yesithathu",
        "yesine",
        "yesihlanu",
        "yesithupha",
        "yesikhombisa",
        "yesishiyagalombili",
    ),
    odd_pick="Thatha {odd}. Yiyona.",
    acks=(
        "Kulungile, ngiyibambile leyo. Ngizoyigcina engqondweni.",
        "Ngiyezwa. Sizoqhubeka nayo leyo.",
    ),
    hunch="U-{who} ucabanga ukuthi inkinga ku-{decoy}.",
    hunch_no="Angicabangi kanjalo: {decoy} ithi {state} ohlwini, iphilile.",
    art_req={
        "created": "Ngicela udale {name}.",
        "changed": "Ngicela ushintshe {name}.",
        "deleted": "Ngicela ususe {name}, asisayidingi.",
        "disabled": "Ngicela uvale {name} okwamanje.",
        "rolled_back": "Ngicela ubuyisele {name} esimweni sangaphambili.",
        "renamed": "Ngicela uqambe kabusha {name} ibe ngu-{other}.",
        "moved": "Ngicela uhambise {name} uye ku-{other}.",
    },
    art_tell={
        "created": "{name} idaliwe.",
        "changed": "{name} ishintshiwe.",
        "deleted": "{name} isusiwe.",
        "disabled": "{name} ivaliwe.",
        "rolled_back": "{name} ibuyiselwe esimweni sangaphambili.",
        "renamed": "{name} iqanjwe kabusha, manje ingu-{other}.",
        "moved": "{name} ihanjisiwe yaya ku-{other}.",
    },
    stems={
        "created": ("daliwe", "dalile", "dala"),
        "changed": ("shintsh",),
        "deleted": ("susiwe", "susile", "susa"),
        "disabled": ("valiwe", "valile", "vala"),
        "rolled_back": ("buyisel",),
        "renamed": ("qanjwe", "qamb", "kabusha"),
        "moved": ("hanjis", "hambis", "thuthel"),
    },
    art_run="Kulungile, ngiyakwenza manje.",
    art_done=("Kwenziwe. Bheka okukhishwe ngenhla.", "Sekuqediwe, konke kuhambe kahle."),
    dont_delete="Ungayisusi {name}! Vele uyivale nje, singase siyidinge futhi.",
    dec_ask="Sizokwenzenjani nge-{topic}? Uphakamisa ini?",
    dec_dictate="Ku-{topic} sizosebenzisa {value}, ngoba {reason}.",
    dec_propose="Ngiphakamisa {value} ku-{topic}.",
    dec_approve=("Yebo, kuhle. Qhubeka.", "Ngiyavuma, yenza kanjalo."),
    dec_change="Cha, ku-{topic} sebenzisa {value} esikhundleni salokho.",
    dec_correct="Ngiyaxolisa, bengiphosisile: ku-{topic} makube {value}.",
    dec_relay="U-{who} uthe ku-{topic} kumele kube {value}, ngoba {reason}. Masenze njalo.",
    dec_either="Ku-{topic}: {a} noma {b}?",
    dec_pick="{value}. Yilokho.",
    dec_ok="Kulungile: ku-{topic} kuzoba {value}.",
    tomorrow="kusasa",
    next_week="ngesonto elizayo",
    weekdays=(
        "uMsombuluko",
        "uLwesibili",
        "uLwesithathu",
        "uLwesine",
        "uLwesihlanu",
        "uMgqibelo",
        "iSonto",
    ),
    weekday_when="ngo-{day}",
    date_when="ngomhla ka-{date}",
    ns_when="Okulandelayo: {action} {when}.",
    ns_deadline="Okulandelayo: {action} ngaphambi kuka-{hhmm} namuhla.",
    ns_if="Uma {cond}, khona-ke {action}.",
    ns_ask="Yini okulandelayo?",
    ns_promise="Ngiyathembisa: {action}, bese ngibikela u-{who}.",
    ns_ack="Kulungile, ngikubhalile.",
    ticket_trap="Ithikithi {closed} selivaliwe, ungalinaki. {open} lisavuliwe, yilona esibhala kulo namuhla.",
    fill_req=("Manje ake sibheke {thing}.", "Sicela uhlole {thing}."),
    fill_run="Ngiyahlola {thing}.",
    fill_done=("Ngiqedile ukubheka {thing}: {fact}.", "Konke kubukeka kahle ku-{thing}; {fact}."),
)

KANNADA = _Lang(
    hello=(
        "ನಮಸ್ಕಾರ! ಇಂದು ನಾವು {system} ಮೇಲೆ ಕೆಲಸ ಮಾಡುತ್ತೇವೆ. ಮೊದಲು ಸ್ಥಿತಿ ನೋಡೋಣ.",
        "ನಮಸ್ಕಾರ. {system} ನಲ್ಲಿ ಇಂದು ಸಾಕಷ್ಟು ಕೆಲಸವಿದೆ; ಒಂದೊಂದಾಗಿ ಹೇಳುತ್ತೇನೆ.",
    ),
    hello_reply="ನಮಸ್ಕಾರ! ಸರಿ, ನಾನು ಸಿದ್ಧ. ಮೊದಲು ಸ್ಥಿತಿ ಪರಿಶೀಲಿಸುತ್ತೇನೆ.",
    list_ask="ದಯವಿಟ್ಟು {noun} ಪಟ್ಟಿ ತೋರಿಸಿ.",
    list_run="{noun} ಪಟ್ಟಿ ತೆಗೆಯುತ್ತಿದ್ದೇನೆ.",
    listed="ಪಟ್ಟಿ ಇಲ್ಲಿದೆ, ಒಟ್ಟು {count} ಸಾಲುಗಳು.",
    which="ಈ ಪಟ್ಟಿಯಲ್ಲಿ {odd} ಯಾವುದು?",
    agent_names="ಸಿಕ್ಕಿತು: {id} — ಇದರ ಸ್ಥಿತಿ {state}. ಇದನ್ನೇ ನಾವು ಸರಿಪಡಿಸಬೇಕು.",
    user_names="ನಾವು {id} ಮೇಲೆ ಕೆಲಸ ಮಾಡೋಣ. ಅದೇ ಇಂದಿನ ಮುಖ್ಯ ವಿಷಯ.",
    ordinal="ಪಟ್ಟಿಯಲ್ಲಿನ {ord} ಸಾಲಿನದನ್ನು ತೆಗೆದುಕೊಳ್ಳಿ, ನಮಗೆ ಅದೇ ಬೇಕು.",
    ords=("ಮೊದಲ", "ಎರಡನೇ", "ಮೂರನೇ", "ನಾಲ್ಕನೇ", "ಐದನೇ", "ಆರನೇ", "ಏಳನೇ", "ಎಂಟನೇ"),
    odd_pick="{odd} — ಅದನ್ನೇ ತೆಗೆದುಕೊಳ್ಳಿ.",
    acks=("ಸರಿ, ಅದನ್ನು ಗಮನಿಸಿಕೊಂಡೆ.", "ಆಯಿತು, ಅದರ ಮೇಲೆ ಮುಂದುವರಿಯುತ್ತೇನೆ."),
    hunch="{who} ಅವರ ಪ್ರಕಾರ ಸಮಸ್ಯೆ {decoy} ನಲ್ಲಿದೆ.",
    hunch_no="ಇಲ್ಲ, {decoy} ಸ್ಥಿತಿ {state}; ಅದು ಸರಿಯಾಗಿದೆ.",
    art_req={
        "created": "ದಯವಿಟ್ಟು {name} ರಚಿಸಿ.",
        "changed": "ದಯವಿಟ್ಟು {name} ಬದಲಾಯಿಸಿ.",
        "deleted": "ದಯವಿಟ್ಟು {name} ಅಳಿಸಿ, ಇನ್ನು ಬೇಕಾಗಿಲ್ಲ.",
        "disabled": "ದಯವಿಟ್ಟು {name} ಸದ್ಯಕ್ಕೆ ನಿಷ್ಕ್ರಿಯಗೊಳಿಸಿ.",
        "rolled_back": "ದಯವಿಟ್ಟು {name} ಅನ್ನು ಹಿಂದಿನ ಆವೃತ್ತಿಗೆ ಹಿಂತಿರುಗಿಸಿ.",
        "renamed": "ದಯವಿಟ್ಟು {name} ಹೆಸರನ್ನು {other} ಎಂದು ಬದಲಿಸಿ.",
        "moved": "ದಯವಿಟ್ಟು {name} ಅನ್ನು {other} ಗೆ ಸ್ಥಳಾಂತರಿಸಿ.",
    },
    art_tell={
        "created": "{name} ರಚಿಸಲಾಗಿದೆ.",
        "changed": "{name} ಬದಲಾಯಿಸಲಾಗಿದೆ.",
        "deleted": "{name} ಅಳಿಸಲಾಗಿದೆ.",
        "disabled": "{name} ನಿಷ್ಕ್ರಿಯಗೊಳಿಸಲಾಗಿದೆ.",
        "rolled_back": "{name} ಹಿಂದಿನ ಆವೃತ್ತಿಗೆ ಹಿಂತಿರುಗಿಸಲಾಗಿದೆ.",
        "renamed": "{name} ಹೆಸರನ್ನು {other} ಎಂದು ಬದಲಿಸಲಾಗಿದೆ.",
        "moved": "{name} ಅನ್ನು {other} ಗೆ ಸ್ಥಳಾಂತರಿಸಲಾಗಿದೆ.",
    },
    stems={
        "created": ("ರಚಿಸ",),
        "changed": ("ಬದಲಾಯಿಸ", "ಬದಲಿಸ"),
        "deleted": ("ಅಳಿಸ",),
        "disabled": ("ನಿಷ್ಕ್ರಿಯ",),
        "rolled_back": ("ಹಿಂತಿರುಗಿಸ",),
        "renamed": ("ಹೆಸರನ್ನು", "ಹೆಸರು ಬದಲ"),
        "moved": ("ಸ್ಥಳಾಂತರ",),
    },
    art_run="ಸರಿ, ಈಗ ಮಾಡುತ್ತೇನೆ.",
    art_done=("ಆಯಿತು. ಮೇಲಿನ output ನೋಡಿ.", "ಮುಗಿಯಿತು, ಎಲ್ಲವೂ ಸರಿಯಾಗಿ ನಡೆಯಿತು."),
    dont_delete="{name} ಅಳಿಸಬೇಡಿ! ಕೇವಲ ನಿಷ್ಕ್ರಿಯಗೊಳಿಸಿ ಸಾಕು, ಮುಂದೆ ಬೇಕಾಗಬಹುದು.",
    dec_ask="{topic} ಬಗ್ಗೆ ಏನು ಮಾಡೋಣ? ನಿಮ್ಮ ಸಲಹೆ ಏನು?",
    dec_dictate="{topic}: {value} ಬಳಸೋಣ, ಏಕೆಂದರೆ {reason}.",
    dec_propose="{topic} ಗೆ {value} ಸೂಕ್ತ ಎಂದು ನನ್ನ ಸಲಹೆ.",
    dec_approve=("ಹೌದು, ಸರಿ. ಹಾಗೆಯೇ ಮಾಡಿ.", "ಒಪ್ಪಿಗೆ ಇದೆ, ಮುಂದುವರಿಯಿರಿ."),
    dec_change="ಬೇಡ, {topic} ಗೆ ಬದಲಾಗಿ {value} ಬಳಸಿ.",
    dec_correct="ಕ್ಷಮಿಸಿ, ನಾನು ತಪ್ಪು ಹೇಳಿದೆ: {topic} {value} ಆಗಿರಬೇಕು.",
    dec_relay="{who} ಹೇಳಿದ್ದಾರೆ: {topic} {value} ಆಗಿರಬೇಕು, ಏಕೆಂದರೆ {reason}.",
    dec_either="{topic}: {a} ಅಥವಾ {b}?",
    dec_pick="{value}, ಅದೇ ಇರಲಿ.",
    dec_ok="ಸರಿ: {topic} = {value}.",
    tomorrow="ನಾಳೆ",
    next_week="ಮುಂದಿನ ವಾರ",
    weekdays=("ಸೋಮವಾರ", "ಮಂಗಳವಾರ", "ಬುಧವಾರ", "ಗುರುವಾರ", "ಶುಕ್ರವಾರ", "ಶನಿವಾರ", "ಭಾನುವಾರ"),
    weekday_when="{day}",
    date_when="{date} ರಂದು",
    ns_when="ಮುಂದಿನ ಕೆಲಸ: {when} {action}.",
    ns_deadline="ಮುಂದಿನ ಕೆಲಸ: ಇಂದು {hhmm} ಒಳಗೆ {action}.",
    ns_if="{cond} ಆದರೆ, {action}.",
    ns_ask="ಮುಂದೆ ಏನು?",
    ns_promise="ನಾನು ಮಾತು ಕೊಡುತ್ತೇನೆ: {action}, ನಂತರ {who} ಅವರಿಗೆ ತಿಳಿಸುತ್ತೇನೆ.",
    ns_ack="ಸರಿ, ಬರೆದುಕೊಂಡೆ.",
    ticket_trap="ಟಿಕೆಟ್ {closed} ಈಗಾಗಲೇ ಮುಚ್ಚಲಾಗಿದೆ, ಅದನ್ನು ಬಿಡಿ. {open} ಇನ್ನೂ ತೆರೆದಿದೆ — ಇಂದಿನ ಟಿಪ್ಪಣಿಗಳು ಅದರಲ್ಲೇ.",
    fill_req=("ಈಗ {thing} ನೋಡೋಣ.", "ದಯವಿಟ್ಟು {thing} ಪರಿಶೀಲಿಸಿ."),
    fill_run="{thing} ಪರಿಶೀಲಿಸುತ್ತಿದ್ದೇನೆ.",
    fill_done=("{thing} ನೋಡಿದೆ: {fact}.", "{thing} ಸರಿಯಾಗಿದೆ; {fact}."),
    digits="೦೧೨೩೪೫೬೭೮೯",
)

MALAYALAM = _Lang(
    hello=(
        "നമസ്കാരം! ഇന്ന് നമ്മൾ {system} ൽ ജോലി ചെയ്യും. ആദ്യം നില നോക്കാം.",
        "നമസ്കാരം. {system} ൽ ഇന്ന് കുറേ കാര്യങ്ങൾ ചെയ്യാനുണ്ട്; ഓരോന്നായി പറയാം.",
    ),
    hello_reply="നമസ്കാരം! ശരി, ഞാൻ തയ്യാറാണ്. ആദ്യം ക്ലസ്റ്ററിന്റെ നില പരിശോധിക്കാം.",
    list_ask="ദയവായി {noun} ലിസ്റ്റ് കാണിക്കൂ.",
    list_run="{noun} ലിസ്റ്റ് എടുക്കുന്നു.",
    listed="ലിസ്റ്റ് ഇതാ, ആകെ {count} എൻട്രികൾ.",
    which="ഈ ലിസ്റ്റിൽ {odd} ഏതാണ്?",
    agent_names="കണ്ടെത്തി: {id} — ഇതിന്റെ നില {state}. ഇതാണ് നമ്മൾ ശരിയാക്കേണ്ടത്.",
    user_names="നമുക്ക് {id} ൽ ജോലി ചെയ്യാം. അതാണ് ഇന്നത്തെ പ്രധാന കാര്യം.",
    ordinal="ലിസ്റ്റിലെ {ord} എൻട്രി എടുക്കൂ, നമുക്ക് വേണ്ടത് അതാണ്.",
    ords=("ഒന്നാമത്തെ", "രണ്ടാമത്തെ", "മൂന്നാമത്തെ", "നാലാമത്തെ", "അഞ്ചാമത്തെ", "ആറാമത്തെ", "ഏഴാമത്തെ", "എട്ടാമത്തെ"),
    odd_pick="{odd} — അതുതന്നെ എടുക്കൂ.",
    acks=("ശരി, അത് ശ്രദ്ധിച്ചു.", "മനസ്സിലായി, അതുമായി മുന്നോട്ട് പോകാം."),
    hunch="{who} പറയുന്നത് പ്രശ്നം {decoy} ൽ ആണെന്നാണ്.",
    hunch_no="അല്ല, {decoy} ന്റെ നില {state} ആണ്; അത് ശരിയായി പ്രവർത്തിക്കുന്നു.",
    art_req={
        "created": "ദയവായി {name} ഉണ്ടാക്കൂ.",
        "changed": "ദയവായി {name} മാറ്റൂ.",
        "deleted": "ദയവായി {name} ഇല്ലാതാക്കൂ, ഇനി ആവശ്യമില്ല.",
        "disabled": "ദയവായി {name} തൽക്കാലം പ്രവർത്തനരഹിതമാക്കൂ.",
        "rolled_back": "ദയവായി {name} പഴയ പതിപ്പിലേക്ക് തിരികെ കൊണ്ടുവരൂ.",
        "renamed": "ദയവായി {name} ന്റെ പേര് {other} എന്നാക്കൂ.",
        "moved": "ദയവായി {name} {other} ലേക്ക് മാറ്റിസ്ഥാപിക്കൂ.",
    },
    art_tell={
        "created": "{name} സൃഷ്ടിച്ചു.",
        "changed": "{name} ൽ മാറ്റം വരുത്തി.",
        "deleted": "{name} ഇല്ലാതാക്കി.",
        "disabled": "{name} പ്രവർത്തനരഹിതമാക്കി.",
        "rolled_back": "{name} പഴയ പതിപ്പിലേക്ക് തിരികെ കൊണ്ടുവന്നു.",
        "renamed": "{name} ന്റെ പേര് {other} എന്നാക്കി മാറ്റി.",
        "moved": "{name} {other} ലേക്ക് മാറ്റിസ്ഥാപിച്ചു.",
    },
    stems={
        "created": ("സൃഷ്ടി", "ഉണ്ടാക്കി"),
        "changed": ("മാറ്റം", "മാറ്റി"),
        "deleted": ("ഇല്ലാതാക്കി", "നീക്കം"),
        "disabled": ("പ്രവർത്തനരഹിത",),
        "rolled_back": ("തിരികെ",),
        "renamed": ("പേര്",),
        "moved": ("മാറ്റിസ്ഥാപി",),
    },
    art_run="ശരി, ഇപ്പോൾ ചെയ്യുന്നു.",
    art_done=("കഴിഞ്ഞു. മുകളിലെ output നോക്കൂ.", "പൂർത്തിയായി, എല്ലാം ശരിയായി നടന്നു."),
    dont_delete="{name} ഇല്ലാതാക്കരുത്! പ്രവർത്തനരഹിതമാക്കിയാൽ മതി, പിന്നീട് വേണ്ടിവരും.",
    dec_ask="{topic} കാര്യത്തിൽ എന്ത് ചെയ്യണം? നിങ്ങളുടെ നിർദ്ദേശം എന്താണ്?",
    dec_dictate="{topic}: നമ്മൾ {value} ഉപയോഗിക്കും, കാരണം {reason}.",
    dec_propose="{topic} ന് {value} ആണ് നല്ലതെന്ന് ഞാൻ നിർദ്ദേശിക്കുന്നു.",
    dec_approve=("ശരി, അങ്ങനെ ചെയ്യൂ.", "സമ്മതം, മുന്നോട്ട് പോകൂ."),
    dec_change="വേണ്ട, {topic} ന് പകരം {value} ഉപയോഗിക്കൂ.",
    dec_correct="ക്ഷമിക്കണം, ഞാൻ തെറ്റ് പറഞ്ഞു: {topic} {value} ആയിരിക്കണം.",
    dec_relay="{who} പറഞ്ഞു: {topic} {value} ആയിരിക്കണം, കാരണം {reason}.",
    dec_either="{topic}: {a} വേണോ {b} വേണോ?",
    dec_pick="{value}, അതുതന്നെ.",
    dec_ok="ശരി: {topic} = {value}.",
    tomorrow="നാളെ",
    next_week="അടുത്ത ആഴ്ച",
    weekdays=("തിങ്കളാഴ്ച", "ചൊവ്വാഴ്ച", "ബുധനാഴ്ച", "വ്യാഴാഴ്ച", "വെള്ളിയാഴ്ച", "ശനിയാഴ്ച", "ഞായറാഴ്ച"),
    weekday_when="{day}",
    date_when="{date} ന്",
    ns_when="അടുത്ത ജോലി: {when} {action}.",
    ns_deadline="അടുത്ത ജോലി: ഇന്ന് {hhmm} ന് മുമ്പ് {action}.",
    ns_if="{cond} ആണെങ്കിൽ, {action}.",
    ns_ask="ഇനി എന്താണ്?",
    ns_promise="ഞാൻ ഉറപ്പ് തരുന്നു: {action}, പിന്നെ {who} നെ അറിയിക്കും.",
    ns_ack="ശരി, കുറിച്ചുവെച്ചു.",
    ticket_trap="ടിക്കറ്റ് {closed} ഇതിനകം അടച്ചു, അത് വിട്ടേക്കൂ. {open} ഇപ്പോഴും തുറന്നിരിക്കുന്നു — ഇന്നത്തെ കുറിപ്പുകൾ അതിൽ.",
    fill_req=("ഇനി {thing} നോക്കാം.", "ദയവായി {thing} പരിശോധിക്കൂ."),
    fill_run="{thing} പരിശോധിക്കുന്നു.",
    fill_done=("{thing} നോക്കി: {fact}.", "{thing} ശരിയാണ്; {fact}."),
)

SOMALI = _Lang(
    hello=(
        "Salaan! Maanta waxaan ka shaqeynaynaa {system}. Aan marka hore eegno xaaladda.",
        "Iska warran. Shaqo badan ayaa maanta naga sugaysa {system}; mid mid ayaan kuu sheegi doonaa.",
    ),
    hello_reply="Salaan! Waan diyaarsanahay. Marka hore xaaladda ayaan eegayaa.",
    list_ask="Fadlan i tus liiska {noun}.",
    list_run="Waxaan soo saarayaa liiska {noun}.",
    listed="Waa kan liiska, wadar ahaan {count}.",
    which="Liiskan, midkee ayaa ah {odd}?",
    agent_names="Waan helay: {id} — xaaladdiisu waa {state}. Kani waa kan aan hagaajinayno.",
    user_names="Aan ka shaqeyno {id}. Kaasi waa arrinta ugu muhiimsan maanta.",
    ordinal="Qaado kan {ord} ee liiska ku jira, kaas ayaan u baahanahay.",
    ords=(
        "koowaad",
        "labaad",
        "saddexaad",
        "afaraad",
        "shanaad",
        "lixaad",
        "toddobaad",
        "siddeedaad",
    ),
    odd_pick="{odd} — kaas qaado.",
    acks=("Hagaag, waan qoray.", "Waan fahmay, kaas ayaan ku sii socanaynaa."),
    hunch="{who} wuxuu u malaynayaa in dhibaatadu ay ku jirto {decoy}.",
    hunch_no="Maya, {decoy} xaaladdiisu waa {state}; wuu fiican yahay.",
    art_req={
        "created": "Fadlan samee {name}.",
        "changed": "Fadlan beddel {name}.",
        "deleted": "Fadlan tirtir {name}, looma baahna mar dambe.",
        "disabled": "Fadlan dami {name} hadda.",
        "rolled_back": "Fadlan {name} dib ugu celi noocii hore.",
        "renamed": "Fadlan magaca {name} u beddel {other}.",
        "moved": "Fadlan {name} u rar {other}.",
    },
    art_tell={
        "created": "{name} waa la sameeyay.",
        "changed": "{name} waa la beddelay.",
        "deleted": "{name} waa la tirtiray.",
        "disabled": "{name} waa la demiyay.",
        "rolled_back": "{name} dib ayaa loogu celiyay noocii hore.",
        "renamed": "{name} magaciisa waxaa loo beddelay {other}.",
        "moved": "{name} waxaa loo raray {other}.",
    },
    stems={
        "created": ("sameey", "samee"),
        "changed": ("beddel",),
        "deleted": ("tirtir",),
        "disabled": ("demi", "dami"),
        "rolled_back": ("celi",),
        "renamed": ("magac",),
        "moved": ("raray", "u rar"),
    },
    art_run="Hagaag, hadda ayaan samaynayaa.",
    art_done=(
        "Waa la sameeyay. Eeg natiijada kore.",
        "Waa dhammaatay, wax walba si fiican ayay u socdeen.",
    ),
    dont_delete="Ha tirtirin {name}! Kaliya dami, waxaa laga yaabaa inaan mar kale u baahanno.",
    dec_ask="Maxaan ka yeelnaa {topic}? Maxaad soo jeedinaysaa?",
    dec_dictate="{topic}: waxaan isticmaalaynaa {value}, sababtoo ah {reason}.",
    dec_propose="{topic}: waxaan soo jeedinayaa {value}.",
    dec_approve=("Haa, waa fiican tahay. Sidaas samee.", "Waan ogolahay, sii wad."),
    dec_change="Maya, {topic} u isticmaal {value} beddelkeeda.",
    dec_correct="Waan ka xumahay, waan khaldamay: {topic} waa inuu noqdaa {value}.",
    dec_relay="{who} ayaa yiri: {topic} waa inuu noqdaa {value}, sababtoo ah {reason}.",
    dec_either="{topic}: {a} mise {b}?",
    dec_pick="{value}, kaas.",
    dec_ok="Hagaag: {topic} = {value}.",
    tomorrow="berri",
    next_week="toddobaadka soo socda",
    weekdays=("Isniin", "Talaado", "Arbaco", "Khamiis", "Jimce", "Sabti", "Axad"),
    weekday_when="maalinta {day}",
    date_when="{date}",
    ns_when="Tallaabada xigta: {when} {action}.",
    ns_deadline="Tallaabada xigta: {action} ka hor {hhmm} maanta.",
    ns_if="Haddii {cond}, markaas {action}.",
    ns_ask="Maxaa xiga?",
    ns_promise="Waxaan ballan qaadayaa: {action}, kadibna waan u sheegi doonaa {who}.",
    ns_ack="Hagaag, waan qoray.",
    ticket_trap="Tigidhka {closed} waa la xiray, iska daa. {open} weli wuu furan yahay — qoraallada maanta halkaas geli.",
    fill_req=("Hadda aan eegno {thing}.", "Fadlan hubi {thing}."),
    fill_run="Waxaan hubinayaa {thing}.",
    fill_done=("Waan eegay {thing}: {fact}.", "{thing} wuu fiican yahay; {fact}."),
)

TAJIK = _Lang(
    hello=(
        "Салом! Имрӯз мо бо {system} кор мекунем. Аввал ҳолатро бинем.",
        "Ассалому алейкум. Имрӯз дар {system} кори зиёд дорем; якта-якта мегӯям.",
    ),
    hello_reply="Салом! Ман тайёрам. Аввал ҳолатро месанҷам.",
    list_ask="Лутфан рӯйхатро нишон диҳед: {noun}.",
    list_run="Рӯйхатро мегирам: {noun}.",
    listed="Ин аст рӯйхат, ҳамагӣ {count} сатр.",
    which="Дар ин рӯйхат кадомаш {odd} аст?",
    agent_names="Ёфтам: {id} — ҳолаташ {state}. Ҳаминро мо бояд ислоҳ кунем.",
    user_names="Бо {id} кор мекунем. Ин масъалаи асосии имрӯз аст.",
    ordinal="Он ки дар рӯйхат {ord} аст, гиред — ҳамон лозим.",
    ords=("якум", "дуюм", "сеюм", "чорум", "панҷум", "шашум", "ҳафтум", "ҳаштум"),
    odd_pick="{odd} — ҳаминро гиред.",
    acks=("Хуб, қайд кардам.", "Фаҳмидам, бо он идома медиҳем."),
    hunch="{who} гумон мекунад, ки мушкил дар {decoy} аст.",
    hunch_no="Не, ҳолати {decoy} {state} аст; он солим аст.",
    art_req={
        "created": "Лутфан {name}-ро созед.",
        "changed": "Лутфан {name}-ро тағйир диҳед.",
        "deleted": "Лутфан {name}-ро нест кунед, дигар лозим нест.",
        "disabled": "Лутфан {name}-ро ҳозир хомӯш кунед.",
        "rolled_back": "Лутфан {name}-ро ба версияи пешина баргардонед.",
        "renamed": "Лутфан номи {name}-ро ба {other} иваз кунед.",
        "moved": "Лутфан {name}-ро ба {other} кӯчонед.",
    },
    art_tell={
        "created": "{name} сохта шуд.",
        "changed": "{name} тағйир дода шуд.",
        "deleted": "{name} нест карда шуд.",
        "disabled": "{name} хомӯш карда шуд.",
        "rolled_back": "{name} ба версияи пешина баргардонида шуд.",
        "renamed": "Номи {name} ба {other} иваз карда шуд.",
        "moved": "{name} ба {other} кӯчонида шуд.",
    },
    stems={
        "created": ("сохта", "созед"),
        "changed": ("тағйир",),
        "deleted": ("нест кар", "нест ку"),
        "disabled": ("хомӯш", "ғайрифаъол"),
        "rolled_back": ("баргардон",),
        "renamed": ("иваз", "номи"),
        "moved": ("кӯчон",),
    },
    art_run="Хуб, ҳозир иҷро мекунам.",
    art_done=("Иҷро шуд. Натиҷаро дар боло бинед.", "Тамом шуд, ҳама чиз хуб гузашт."),
    dont_delete="{name}-ро нест накунед! Танҳо хомӯш кунед, шояд боз лозим шавад.",
    dec_ask="Бо {topic} чӣ кор мекунем? Пешниҳоди шумо чист?",
    dec_dictate="{topic}: мо {value}-ро истифода мебарем, чунки {reason}.",
    dec_propose="Барои {topic} ман {value}-ро пешниҳод мекунам.",
    dec_approve=("Ҳа, хуб аст. Ҳамин тавр кунед.", "Розӣ ҳастам, идома диҳед."),
    dec_change="Не, барои {topic} ба ҷояш {value}-ро истифода баред.",
    dec_correct="Бубахшед, хато гуфтам: {topic} бояд {value} бошад.",
    dec_relay="{who} гуфт: {topic} бояд {value} бошад, чунки {reason}.",
    dec_either="{topic}: {a} ё {b}?",
    dec_pick="{value}, ҳамин.",
    dec_ok="Хуб: {topic} = {value}.",
    tomorrow="пагоҳ",
    next_week="ҳафтаи оянда",
    weekdays=("душанбе", "сешанбе", "чоршанбе", "панҷшанбе", "ҷумъа", "шанбе", "якшанбе"),
    weekday_when="рӯзи {day}",
    date_when="{date}",
    ns_when="Қадами навбатӣ: {when} {action}.",
    ns_deadline="Қадами навбатӣ: имрӯз то соати {hhmm} {action}.",
    ns_if="Агар {cond}, он гоҳ {action}.",
    ns_ask="Баъд чӣ?",
    ns_promise="Ваъда медиҳам: {action}, баъд ба {who} хабар медиҳам.",
    ns_ack="Хуб, навиштам.",
    ticket_trap="Тикети {closed} аллакай баста шудааст, онро нагиред. {open} ҳанӯз кушода аст — қайдҳои имрӯз дар он.",
    fill_req=("Акнун {thing}-ро бинем.", "Лутфан {thing}-ро санҷед."),
    fill_run="{thing}-ро месанҷам.",
    fill_done=("{thing}-ро дидам: {fact}.", "{thing} хуб аст; {fact}."),
)

PASHTO = _Lang(
    hello=(
        "سلام! نن موږ په {system} کار کوو. لومړی به حالت وګورو.",
        "السلام علیکم. نن په {system} کې ډیر کار لرو؛ یو یو به یې درته ووایم.",
    ),
    hello_reply="سلام! زه چمتو یم. لومړی حالت ګورم.",
    list_ask="مهرباني وکړئ د {noun} لیست راته وښایاست.",
    list_run="د {noun} لیست راباسم.",
    listed="دا دی لیست، ټول {count} توکي.",
    which="په دې لیست کې {odd} کوم یو دی؟",
    agent_names="ومې موند: {id} — حالت یې {state} دی. همدا باید سم کړو.",
    user_names="راځئ په {id} کار وکړو. دا د نن ورځې اصلي موضوع ده.",
    ordinal="په لیست کې {ord} یو واخله، همدا مو په کار دی.",
    ords=("لومړی", "دوهم", "دریم", "څلورم", "پنځم", "شپږم", "اووم", "اتم"),
    odd_pick="{odd} — همدا واخله.",
    acks=("سمه ده، یادداشت مې کړ.", "پوه شوم، ورسره مخ ته ځو."),
    hunch="{who} فکر کوي چې ستونزه په {decoy} کې ده.",
    hunch_no="نه، د {decoy} حالت {state} دی؛ هغه روغ دی.",
    art_req={
        "created": "مهرباني وکړئ {name} جوړ کړئ.",
        "changed": "مهرباني وکړئ {name} بدل کړئ.",
        "deleted": "مهرباني وکړئ {name} حذف کړئ، نور نه دی په کار.",
        "disabled": "مهرباني وکړئ {name} اوس غیرفعال کړئ.",
        "rolled_back": "مهرباني وکړئ {name} پخواني نسخې ته بیرته واړوئ.",
        "renamed": "مهرباني وکړئ د {name} نوم {other} ته بدل کړئ.",
        "moved": "مهرباني وکړئ {name} {other} ته ولیږدوئ.",
    },
    art_tell={
        "created": "{name} جوړ شو.",
        "changed": "{name} بدل شو.",
        "deleted": "{name} حذف شو.",
        "disabled": "{name} غیرفعال شو.",
        "rolled_back": "{name} پخواني نسخې ته بیرته واړول شو.",
        "renamed": "د {name} نوم {other} ته بدل شو.",
        "moved": "{name} {other} ته ولیږدول شو.",
    },
    stems={
        "created": ("جوړ",),
        "changed": ("بدل",),
        "deleted": ("حذف",),
        "disabled": ("غیرفعال",),
        "rolled_back": ("بیرته",),
        "renamed": ("نوم",),
        "moved": ("لیږد",),
    },
    art_run="سمه ده، همدا اوس یې کوم.",
    art_done=("وشو. پورته پایله وګورئ.", "پای ته ورسید، هر څه سم تېر شول."),
    dont_delete="{name} مه حذفوئ! یوازې یې غیرفعال کړئ، کېدای شي بیا مو په کار شي.",
    dec_ask="د {topic} په اړه څه وکړو؟ ستاسو وړاندیز څه دی؟",
    dec_dictate="{topic}: موږ به {value} وکاروو، ځکه چې {reason}.",
    dec_propose="د {topic} لپاره زه {value} وړاندیز کوم.",
    dec_approve=("هو، سمه ده. همداسې یې وکړه.", "موافق یم، مخ ته لاړ شه."),
    dec_change="نه، د {topic} لپاره پر ځای یې {value} وکاروه.",
    dec_correct="بښنه غواړم، ما غلط وویل: {topic} باید {value} وي.",
    dec_relay="{who} وویل: {topic} باید {value} وي، ځکه چې {reason}.",
    dec_either="{topic}: {a} که {b}؟",
    dec_pick="{value}، همدا.",
    dec_ok="سمه ده: {topic} = {value}.",
    tomorrow="سبا",
    next_week="راتلونکې اونۍ",
    weekdays=("دوشنبه", "سه شنبه", "چهارشنبه", "پنجشنبه", "جمعه", "شنبه", "یکشنبه"),
    weekday_when="د {day} په ورځ",
    date_when="په {date} نېټه",
    ns_when="بل ګام: {when} {action}.",
    ns_deadline="بل ګام: نن تر {hhmm} بجو پورې {action}.",
    ns_if="که {cond}، نو {action}.",
    ns_ask="بیا څه؟",
    ns_promise="ژمنه کوم: {action}، بیا به {who} ته خبر ورکړم.",
    ns_ack="سمه ده، ومې لیکل.",
    ticket_trap="ټکټ {closed} لا دمخه تړل شوی، پرېږده یې. {open} لا هم خلاص دی — د نن یادښتونه په هغه کې.",
    fill_req=("اوس راځئ {thing} وګورو.", "مهرباني وکړئ {thing} وڅیړئ."),
    fill_run="{thing} ګورم.",
    fill_done=("{thing} مې وکتل: {fact}.", "{thing} سم دی؛ {fact}."),
    digits="۰۱۲۳۴۵۶۷۸۹",
)


# --------------------------------------------------------------------------- HAProxy (isiZulu)

_HAP_SOCK = "socat stdio /run/haproxy/admin.sock"


def _hap_server(rng: R) -> str:
    return f"bk{rng.randint(100, 999)}-{rng.choice(('jnb', 'cpt', 'dbn', 'pta'))}"


def _hap_stat(rng: R, ids: list[str], odd: int) -> Tool:
    n = rng.randint
    rows = [
        "# pxname,svname,qcur,qmax,scur,smax,slim,stot,bin,bout,dreq,dresp,ereq,econ,eresp,wretr,wredis,status,weight,act,bck,chkfail,chkdown,lastchg,downtime,check_status,check_duration",
        f"fe_https,FRONTEND,,,{n(300, 900)},{n(1000, 3000)},20000,{n(10**6, 10**7)},{n(10**9, 10**10)},{n(10**10, 10**11)},0,0,{n(0, 90)},,,,,OPEN,,,,,,,,,",
    ]
    for i, sid in enumerate(ids):
        down = i == odd
        rows.append(
            f"be_checkout,{sid},0,{n(0, 9)},{0 if down else n(3, 60)},{n(40, 200)},,{n(10**5, 10**6)},{n(10**8, 10**9)},{n(10**9, 10**10)},,0,,{n(20, 90) if down else n(0, 3)},{n(0, 5)},0,0,"
            f"{'DOWN' if down else 'UP'},{0 if down else 100},1,0,{n(3, 9) if down else 0},{1 if down else 0},{n(30, 4000) if down else n(50000, 900000)},{n(30, 4000) if down else 0},"
            f"{rng.choice(('L4TOUT', 'L7STS')) if down else 'L7OK'},{n(1, 3000) if down else n(1, 9)}"
        )
    rows.append(
        f"be_checkout,BACKEND,0,{n(0, 20)},{n(100, 600)},{n(600, 2000)},2000,{n(10**6, 10**7)},{n(10**9, 10**10)},{n(10**10, 10**11)},0,0,,{n(20, 120)},{n(0, 9)},0,0,UP,{100 * (len(ids) - 1)},{len(ids) - 1},0,,0,{n(10**5, 10**6)},0,,"
    )
    rows.append(
        f"stats,FRONTEND,,,1,{n(2, 9)},100,{n(1000, 9000)},{n(10**5, 10**6)},{n(10**6, 10**7)},0,0,0,,,,,OPEN,,,,,,,,,"
    )
    return "bash", {"command": f"echo 'show stat' | {_HAP_SOCK}"}, "\n".join(rows)


def _hap_change(rng: R) -> str:
    return f"CHG{rng.randint(1000000, 9999999)}"


_HAP_CHG_TEXT = (
    "Rotate TLS bundle on edge load balancers",
    "Raise maxconn on fe_https to 30000",
    "Add canary backend for checkout v7",
    "Migrate stick tables to peers section",
    "Enable HTTP/2 on fe_api",
    "Move stats socket to /run/haproxy",
    "Tighten rate limit for /login",
    "Upgrade haproxy 2.8.3 -> 2.8.5",
    "Replace health check path /ping -> /healthz",
    "Drain pretoria DC for fibre works",
    "Add ACL for partner webhook sources",
    "Increase timeout tunnel for websockets",
    "Remove legacy SNI certs",
)


def _hap_changes(rng: R, ids: list[str], odd: int) -> Tool:
    rows = ["NUMBER        STATE       PLANNED START      ASSIGNED TO     SHORT DESCRIPTION"]
    for i, cid in enumerate(ids):
        state = "Open" if i == odd else rng.choice(("Closed", "Closed", "Cancelled"))
        rows.append(
            f"{cid:<13} {state:<11} 2025-{rng.randint(3, 5):02d}-{rng.randint(1, 28):02d} {rng.randint(18, 23)}:00   {rng.choice(('s.dlamini', 'n.mthembu', 't.zulu', 'b.khumalo')):<15} {rng.choice(_HAP_CHG_TEXT)}"
        )
    rows.append(f"\nShowing {len(ids)} of {len(ids)} records (assignment group: NetOps LB)")
    return (
        "bash",
        {"command": "sn change list --group 'NetOps LB' --updated-since 30d"},
        "\n".join(rows),
    )


def _hap_uid(rng: R) -> str:
    return f"{hexits(rng, 8).upper()}:{hexits(rng, 4).upper()}_0A1E0C2B:01BB_{hexits(rng, 8).upper()}_{hexits(rng, 4).upper()}:{hexits(rng, 4).upper()}"


def _hap_log(rng: R, ids: list[str], odd: int) -> Tool:
    n = rng.randint
    rows = []
    for i, uid in enumerate(ids):
        t = f"10:{n(10, 59)}:{n(10, 59)}"
        ip = f"196.{n(1, 254)}.{n(1, 254)}.{n(1, 254)}:{n(30000, 65000)}"
        path = rng.choice(
            (
                "/api/v2/cart",
                "/api/v2/checkout",
                "/api/v2/payment/intent",
                "/static/app.js",
                "/api/v2/session",
            )
        )
        if i == odd:
            rows.append(
                f'May 14 {t} lb-edge-01 haproxy[2841]: {ip} [14/May/2025:{t}.{n(100, 999)}] fe_https~ be_checkout/<NOSRV> 0/-1/-1/-1/0 503 217 - - SC-- {n(300, 500)}/{n(290, 480)}/0/0/0 0/0 {uid} "POST {path} HTTP/1.1"'
            )
        else:
            rt = n(20, 400)
            rows.append(
                f'May 14 {t} lb-edge-01 haproxy[2841]: {ip} [14/May/2025:{t}.{n(100, 999)}] fe_https~ be_checkout/app{n(1, 4)} 0/0/1/{rt}/{rt + 1} 200 {n(300, 9000)} - - ---- {n(300, 500)}/{n(290, 480)}/{n(5, 30)}/{n(1, 9)}/0 0/0 {uid} "GET {path} HTTP/1.1"'
            )
    return (
        "bash",
        {"command": f"grep -F 'be_checkout' /var/log/haproxy.log | tail -n {len(ids)}"},
        "\n".join(rows),
    )


def _hap_quiet(rng: R) -> Tool:
    pid = rng.randint(20000, 40000)
    out = [
        f"[NOTICE]   ({pid}) : haproxy version is 2.8.5-1ubuntu3",
        f"[NOTICE]   ({pid}) : path to executable is /usr/sbin/haproxy",
        f"[WARNING]  ({pid}) : config : parsing [/etc/haproxy/haproxy.cfg:{rng.randint(40, 90)}] : 'option httplog' not usable with frontend 'fe_stats' (needs 'mode http'). Falling back to 'option tcplog'.",
        "Configuration file is valid",
        "● haproxy.service - HAProxy Load Balancer",
        "     Loaded: loaded (/lib/systemd/system/haproxy.service; enabled; preset: enabled)",
        f"     Active: active (running) since Wed 2025-05-14 07:{rng.randint(10, 59)}:02 SAST; {rng.randint(2, 5)}h ago",
        f"    Process: {pid + 7} ExecReload=/usr/sbin/haproxy -Ws -f $CONFIG -c -q $EXTRAOPTS (code=exited, status=0/SUCCESS)",
        f"   Main PID: {pid - 311} (haproxy)",
        f"     Memory: {rng.randint(80, 300)}.{rng.randint(1, 9)}M",
        f"May 14 10:{rng.randint(10, 59)}:41 lb-edge-01 haproxy[{pid - 311}]: [NOTICE]   ({pid - 311}) : Reloading HAProxy",
        f"May 14 10:{rng.randint(10, 59)}:41 lb-edge-01 haproxy[{pid - 311}]: [NOTICE]   ({pid - 311}) : Loading success.",
    ]
    return (
        "bash",
        {
            "command": "haproxy -c -f /etc/haproxy/haproxy.cfg && systemctl reload haproxy && systemctl status haproxy --no-pager | head -n 12"
        },
        "\n".join(out),
    )


def _hap_teller(folder: str, label: str) -> Callable[[R, str, str, str], Tool]:
    def tell(rng: R, name: str, change: str, other: str) -> Tool:
        path = f"{folder}/{name}" if folder else "haproxy.cfg"
        what = f"{label} {name}" if not folder else path
        if not folder:
            target = other
        elif change == "renamed":
            target = f"{folder}/{other}"
        else:
            target = f"{other}{name}"
        subject = _subject(change, what, target)
        out = _git(rng, "main", subject, path, change, target)
        out += ["---", _hap_quiet(rng)[2]]
        return (
            "bash",
            {
                "command": f"cd /etc/haproxy && git add -A && git commit -qm '{subject}' && git show --stat --oneline HEAD | head -n 3 && git push -q && haproxy -c -f haproxy.cfg && systemctl reload haproxy"
            },
            "\n".join(out),
        )

    return tell


def _hap_backend_other(name: str, change: str) -> str:
    return f"zz_retired_{name.removeprefix('be_')}" if change == "renamed" else ""


_HAP_ARTS = (
    _ArtKind(
        "map file",
        (
            "tenant_routes.map",
            "geo_allow.map",
            "host_to_backend.map",
            "rate_tiers.map",
            "canary_hosts.map",
            "maint_paths.map",
        ),
        ("created", "changed", "deleted", "rolled_back", "renamed", "moved"),
        _hap_teller("maps", ""),
        _hap_quiet,
        _file_other("maps"),
    ),
    _ArtKind(
        "backend",
        (
            "be_legacy_soap",
            "be_reports_v1",
            "be_old_search",
            "be_partner_sftp",
            "be_pdf_render",
            "be_fax_gateway",
        ),
        ("disabled", "deleted", "renamed", "changed"),
        _hap_teller("", "backend"),
        _hap_quiet,
        _hap_backend_other,
    ),
    _ArtKind(
        "ACL file",
        (
            "blocked_asn.acl",
            "office_cidrs.acl",
            "bot_agents.acl",
            "partner_ips.acl",
            "tor_exits.acl",
        ),
        ("created", "changed", "deleted", "moved", "rolled_back"),
        _hap_teller("acl", ""),
        _hap_quiet,
        _file_other("acl"),
    ),
)


def _hap_fill_info(rng: R) -> tuple[str, str, Args, str, str]:
    n = rng.randint
    cur, idle = n(200, 900), n(40, 95)
    out = f"""Name: HAProxy
Version: 2.8.5-1ubuntu3
Release_date: 2023/12/07
Nbthread: 8
Nbproc: 1
Process_num: 1
Pid: {n(1000, 9000)}
Uptime: 0d {n(1, 20)}h{n(10, 59)}m{n(10, 59)}s
Uptime_sec: {n(3600, 80000)}
Memmax_MB: 0
PoolAlloc_MB: {n(20, 90)}
PoolUsed_MB: {n(10, 20)}
Ulimit-n: 200039
Maxsock: 200039
Maxconn: 100000
Hard_maxconn: 100000
CurrConns: {cur}
CumConns: {n(10**6, 10**7)}
CumReq: {n(10**7, 10**8)}
MaxSslConns: 0
CurrSslConns: {cur - n(10, 100)}
CumSslConns: {n(10**6, 10**7)}
ConnRate: {n(50, 400)}
ConnRateLimit: 0
MaxConnRate: {n(400, 1500)}
SessRate: {n(50, 400)}
SslFrontendKeyRate: {n(10, 90)}
SslCacheLookups: {n(10**5, 10**6)}
SslCacheMisses: {n(1000, 9000)}
CompressBpsIn: 0
Tasks: {n(900, 3000)}
Run_queue: {n(0, 4)}
Idle_pct: {idle}
node: lb-edge-0{n(1, 2)}
Stopping: 0
Jobs: {n(300, 900)}
Listeners: 14
ActivePeers: 1
ConnectedPeers: 1"""
    return (
        "show info",
        "bash",
        {"command": f"echo 'show info' | {_HAP_SOCK}"},
        out,
        f"CurrConns {cur}, Idle_pct {idle}",
    )


def _hap_fill_table(rng: R) -> tuple[str, str, Args, str, str]:
    n = rng.randint
    rows = [f"# table: st_src_rate, type: ip, size:1048576, used:{n(2000, 9000)}"]
    top = ("", 0)
    for _ in range(n(18, 30)):
        ip, rate = f"41.{n(1, 254)}.{n(1, 254)}.{n(1, 254)}", n(0, 180)
        if rate > top[1]:
            top = (ip, rate)
        rows.append(
            f"0x55d1c{hexits(rng, 5)}: key={ip} use=0 exp={n(1000, 60000)} shard=0 gpc0={n(0, 3)} http_req_rate(10000)={rate}"
        )
    return (
        "stick table st_src_rate",
        "bash",
        {"command": f"echo 'show table st_src_rate' | {_HAP_SOCK} | head -n 40"},
        "\n".join(rows),
        f"the busiest source is {top[0]} at {top[1]} requests per 10 s",
    )


def _hap_fill_state(rng: R) -> tuple[str, str, Args, str, str]:
    n = rng.randint
    rows = [
        "1",
        "# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight srv_iweight srv_time_since_last_change srv_check_status srv_check_result srv_check_health srv_check_state srv_agent_state bk_f_forced_id srv_f_forced_id srv_fqdn srv_port srvrecord srv_use_ssl srv_check_port srv_check_addr srv_agent_addr srv_agent_port",
    ]
    up = 0
    for i in range(n(8, 16)):
        state = rng.choice((2, 2, 2, 2, 0))
        up += state == 2
        rows.append(
            f"7 be_static {i + 1} node{n(10, 99)}{rng.choice('abcdef')} 10.30.{n(1, 9)}.{n(2, 250)} {state} 0 100 100 {n(100, 90000)} {6 if state else 7} 3 {4 if state else 0} 6 0 0 0 - 80 - 0 0 - - 0"
        )
    return (
        "server state of be_static",
        "bash",
        {"command": f"echo 'show servers state be_static' | {_HAP_SOCK}"},
        "\n".join(rows),
        f"{up} of {len(rows) - 2} be_static servers are UP",
    )


def _hap_fill_log(rng: R) -> tuple[str, str, Args, str, str]:
    n = rng.randint
    times = []
    rows = []
    for _ in range(n(15, 25)):
        rt = n(5, 900)
        times.append(rt)
        t = f"1{n(1, 6)}:{n(10, 59)}:{n(10, 59)}"
        rows.append(
            f'May 15 {t} lb-edge-02 haproxy[3117]: 102.{n(1, 254)}.{n(1, 254)}.{n(1, 254)}:{n(30000, 65000)} [15/May/2025:{t}.{n(100, 999)}] fe_api~ be_static/node{n(10, 99)}{rng.choice("abcdef")} 0/0/0/{rt}/{rt + 1} 200 {n(200, 90000)} - - ---- {n(100, 300)}/{n(90, 290)}/{n(1, 9)}/0/0 0/0 req-{hexits(rng, 16)} "GET /assets/{token(rng, 8).lower()}.js HTTP/2.0"'
        )
    times.sort()
    return (
        "fe_api access log",
        "bash",
        {"command": "grep -F fe_api /var/log/haproxy.log | tail -n 25"},
        "\n".join(rows),
        f"p90 response time {times[int(len(times) * 0.9)]} ms",
    )


HAPROXY = _Stack(
    system="HAProxy (lb-edge-01, lb-edge-02)",
    lang=ZULU,
    ids=(
        _IdKind(
            "HAProxy server of be_checkout",
            "amaseva e-be_checkout (show stat)",
            _hap_server,
            _hap_stat,
            "DOWN",
            "UP",
            "leyo ethi DOWN",
            "DOWN in show stat",
        ),
        _IdKind(
            "change ticket",
            "amathikithi oshintsho eqembu le-NetOps LB",
            _hap_change,
            _hap_changes,
            "Open",
            "Closed",
            "ithikithi elisavuliwe (Open)",
            "the only ticket still Open",
        ),
        _IdKind(
            "request unique-id",
            "ama-unique-id ezicelo ku-be_checkout",
            _hap_uid,
            _hap_log,
            "503",
            "200",
            "isicelo esithole i-503",
            "the request answered with a 503",
        ),
    ),
    arts=_HAP_ARTS,
    topics=(
        _Topic(
            "the balance algorithm of be_api",
            "i-balance algorithm ye-be_api",
            ("balance", "algorithm"),
            ("leastconn", "roundrobin", "source", "random(2)"),
            (
                ("amaseshini amade ahlala isikhathi eside", "long sessions keep connections open"),
                ("amaseva awalingani ngamandla", "the servers are not equally powerful"),
            ),
        ),
        _Topic(
            "timeout server on be_api",
            "i-timeout server ku-be_api",
            ("timeout",),
            ("45s", "90s", "120s", "75s"),
            (
                ("imibiko emikhulu ithatha isikhathi", "big reports take long"),
                ("i-API yabahlinzeki ihamba kancane", "the partner API is slow"),
            ),
        ),
        _Topic(
            "the health check interval",
            "i-health check interval (inter)",
            ("check", "inter"),
            ("inter 2s", "inter 5s", "inter 10s"),
            (
                ("sifuna ukubona amaseva afile ngokushesha", "dead servers must be seen quickly"),
                ("ama-check amaningi alayisha amaseva", "too many checks load the servers"),
            ),
        ),
    ),
    steps=(
        _Step(
            "reload HAProxy on {obj} after the new config is deployed",
            "ukwenza i-reload ye-HAProxy ku-{obj}",
            ("lb-edge-03", "lb-edge-04", "lb-dmz-02"),
        ),
        _Step(
            "drain {obj} and upgrade it to HAProxy 2.8.9",
            "ukukhipha ithrafikhi ku-{obj} bese siyithuthukisela ku-HAProxy 2.8.9",
            ("lb-int-05", "lb-int-06"),
        ),
        _Step(
            "rotate the TLS bundle on {obj}",
            "ukushintsha i-TLS bundle ku-{obj}",
            ("lb-api-07", "lb-api-08"),
        ),
    ),
    conds=(
        _Cond(
            "the 5xx rate stays above 2% for 10 minutes",
            "izinga le-5xx lidlula u-2% imizuzu eyi-10",
            ("5xx",),
        ),
        _Cond("qcur on be_checkout goes above 50", "i-qcur ku-be_checkout yeqa u-50", ("qcur",)),
        _Cond("a check shows L4TOUT again", "i-check ibonisa i-L4TOUT futhi", ("L4TOUT",)),
    ),
    people=(
        ("Sipho", "Sipho"),
        ("Nomvula", "Nomvula"),
        ("Thandeka", "Thandeka"),
        ("Bongani", "Bongani"),
        ("Lindiwe", "Lindiwe"),
    ),
    trap_ticket=lambda rng: f"PRB{rng.randint(100000, 999999)}",
    fillers=(_hap_fill_info, _hap_fill_table, _hap_fill_state, _hap_fill_log),
)


# --------------------------------------------------------------------------- Flink (Kannada)

_FLINK_REST = "http://flink-jm.streaming.svc:8081"
_FLINK_OTHER_JOBS = (
    "billing-aggregator",
    "metrics-downsampler",
    "audit-trail-writer",
    "ad-click-counter",
    "user-profile-merger",
    "shipment-tracker",
    "churn-features",
    "log-anomaly-detector",
    "coupon-redemptions",
    "search-query-stats",
)


def _flink_jid(rng: R) -> str:
    return rng.choice("abcdef") + hexits(rng, 31)


def _flink_other_jid(rng: R) -> str:
    return rng.choice("0123456789") + hexits(rng, 31)


def _flink_jobs(rng: R, ids: list[str], odd: int) -> Tool:
    n = rng.randint
    head = f"""{{
  "taskmanagers": {n(8, 16)},
  "slots-total": {n(64, 128)},
  "slots-available": {n(0, 20)},
  "jobs-running": {len(ids) - 1},
  "jobs-finished": {n(10, 90)},
  "jobs-cancelled": {n(5, 40)},
  "jobs-failed": {n(1, 9)},
  "flink-version": "1.17.2",
  "flink-commit": "c0027e5"
}}
---"""
    rows = []
    for i, jid in enumerate(ids):
        state = "FAILED" if i == odd else "RUNNING"
        rows.append(f"{jid}\t{rng.choice(_FLINK_OTHER_JOBS)}\t{state}\t{n(300, 900000)}")
    return (
        "bash",
        {
            "command": f"curl -s {_FLINK_REST}/overview && echo --- && curl -s {_FLINK_REST}/jobs/overview | jq -r '.jobs[] | [.jid, .name, .state, (.duration/1000|floor)] | @tsv'"
        },
        head + "\n" + "\n".join(rows),
    )


def _flink_savepoint(rng: R) -> str:
    return f"savepoint-{rng.choice('abcdef')}{hexits(rng, 5)}-{hexits(rng, 12)}"


def _flink_savepoints(rng: R, ids: list[str], odd: int) -> Tool:
    n = rng.randint
    rows = []
    for i, sp in enumerate(ids):
        size = 0 if i == odd else n(80_000, 9_000_000)
        rows.append(
            f"2025-05-{n(1, 14):02d} {n(0, 23):02d}:{n(10, 59)}:{n(10, 59)} {size:>10} savepoints/{sp}/_metadata"
        )
    rows.append(f"\nTotal Objects: {len(ids)}\n   Total Size: {n(10, 90)}.{n(1, 9)} MiB")
    return (
        "bash",
        {
            "command": "aws s3 ls s3://flink-sp-prod/savepoints/ --recursive --summarize | grep -E '_metadata|Total'"
        },
        "\n".join(rows),
    )


def _flink_tm(rng: R) -> str:
    return f"flink-taskmanager-7d9f8c6b5-{token(rng, 5, 'bcdfghjklmnpqrstvwxz2456789')}"


def _flink_tms(rng: R, ids: list[str], odd: int) -> Tool:
    n = rng.randint
    rows = [
        "NAME                                   READY   STATUS             RESTARTS        AGE     IP             NODE"
    ]
    rows.append(
        f"flink-jobmanager-5c8b7d9f6-{token(rng, 5, 'bcdfghjkmnpqrstvwxz2456789')}     1/1     Running            0               6d      10.42.{n(1, 9)}.{n(2, 250)}    gke-stream-pool-{hexits(rng, 8)}-{token(rng, 4).lower()}"
    )
    for i, pod in enumerate(ids):
        if i == odd:
            status, ready, restarts = "CrashLoopBackOff", "0/1", f"{n(7, 40)} ({n(1, 9)}m ago)"
        else:
            status, ready, restarts = "Running", "1/1", str(n(0, 2))
        rows.append(
            f"{pod:<38} {ready:<7} {status:<18} {restarts:<15} {n(1, 6)}d      10.42.{n(1, 9)}.{n(2, 250):<4} gke-stream-pool-{hexits(rng, 8)}-{token(rng, 4).lower()}"
        )
    return (
        "bash",
        {"command": "kubectl -n streaming get pods -l app=flink -o wide"},
        "\n".join(rows),
    )


def _flink_quiet(rng: R) -> Tool:
    rows = [
        "Waiting for response...",
        "------------------ Running/Restarting Jobs -------------------",
    ]
    for _ in range(rng.randint(5, 9)):
        rows.append(
            f"1{rng.randint(0, 3)}.05.2025 {rng.randint(0, 23):02d}:{rng.randint(10, 59)}:{rng.randint(10, 59)} : {_flink_other_jid(rng)} : {rng.choice(_FLINK_OTHER_JOBS)} (RUNNING)"
        )
    rows.append("--------------------------------------------------------------")
    rows.append("No scheduled jobs.")
    return "bash", {"command": "flink list -r -m flink-jm.streaming.svc:8081"}, "\n".join(rows)


_JOBCTL = {"created": "submit", "changed": "rescale", "disabled": "stop", "rolled_back": "rollback"}


def _flink_job_tell(rng: R, name: str, change: str, other: str) -> Tool:
    jid = _flink_other_jid(rng)
    sp = f"s3://flink-sp-prod/savepoints/savepoint-{jid[:6]}-{hexits(rng, 12)}"
    p = rng.choice((4, 8, 12, 16))
    lines = [f"[jobctl] resolving {name} -> running JobID {jid}"]
    if change == "created":
        lines += [
            f"[jobctl] building command for {name} (parallelism {p}, no savepoint)",
            f"Job has been submitted with JobID {jid}",
            f"[jobctl] {name}: submitted and RUNNING (JobID {jid})",
        ]
    elif change == "changed":
        lines += [
            f"Triggering stop-with-savepoint for job {jid}.",
            "Waiting for response...",
            f"Savepoint completed. Path: {sp}",
            f"Job has been submitted with JobID {_flink_other_jid(rng)}",
            f"[jobctl] {name}: parallelism changed {p} -> {p * 2} (rescaled from {sp})",
        ]
    elif change == "disabled":
        lines += [
            f'Suspending job "{jid}" with a CANONICAL savepoint.',
            "Waiting for response...",
            f"Savepoint completed. Path: {sp}",
            f"[jobctl] {name}: stopped with savepoint, autostart disabled in jobs.yaml",
        ]
    else:
        lines += [
            f"Job has been submitted with JobID {_flink_other_jid(rng)}",
            f"[jobctl] {name}: rolled back to release 2.{rng.randint(1, 9)}.{rng.randint(0, 9)}, restored from {sp}",
        ]
    lines += [
        f"[jobctl] health: {rng.randint(0, 3)} restarts, lastCheckpoint {rng.randint(1, 59)}s ago",
        "[jobctl] done",
    ]
    return (
        "bash",
        {"command": f"./bin/jobctl {_JOBCTL[change]} {name} --cluster prod"},
        "\n".join(lines),
    )


def _flink_topic_tell(rng: R, name: str, change: str, other: str) -> Tool:
    brokers = "kafka-0.kafka:9092,kafka-1.kafka:9092,kafka-2.kafka:9092"
    parts = rng.choice((12, 24, 36))
    if change == "created":
        cmd = f"kafka-topics.sh --bootstrap-server {brokers} --create --topic {name} --partitions {parts} --replication-factor 3 --config retention.ms=604800000"
        lines = [f"Created topic {name}."]
    elif change == "changed":
        cmd = f"kafka-configs.sh --bootstrap-server {brokers} --alter --entity-type topics --entity-name {name} --add-config retention.ms=259200000,min.insync.replicas=2"
        lines = [f"Completed updating config for topic {name}."]
    else:
        cmd = f"kafka-topics.sh --bootstrap-server {brokers} --delete --topic {name}"
        lines = [
            f"Topic {name} is marked for deletion.",
            "Note: This will have no impact if delete.topic.enable is not set to true.",
        ]
    lines += [
        "---",
        f"$ kafka-topics.sh --bootstrap-server {brokers} --list | wc -l",
        str(rng.randint(80, 240)),
    ]
    return "bash", {"command": cmd}, "\n".join(lines)


def _flink_fill_ckpt(rng: R) -> tuple[str, str, Args, str, str]:
    n = rng.randint
    jid = _flink_other_jid(rng)
    durations = []
    rows = []
    for k in range(n(12, 20)):
        d = n(800, 40000)
        durations.append(d)
        rows.append(
            f'{{"id":{90000 + k},"status":"COMPLETED","is_savepoint":false,"end_to_end_duration":{d},"state_size":{n(10**8, 10**9)},"num_acknowledged_subtasks":{n(40, 96)}}}'
        )
    return (
        "checkpoint history of billing-aggregator",
        "bash",
        {
            "command": f"curl -s {_FLINK_REST}/jobs/{jid}/checkpoints | jq -c '.history[] | {{id, status, is_savepoint, end_to_end_duration, state_size, num_acknowledged_subtasks}}'"
        },
        "\n".join(rows),
        f"the slowest checkpoint took {max(durations)} ms",
    )


def _flink_fill_lag(rng: R) -> tuple[str, str, Args, str, str]:
    n = rng.randint
    group = rng.choice(("metrics-downsampler", "audit-trail-writer", "search-query-stats"))
    rows = [
        "",
        "GROUP                 TOPIC                 PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID                                         HOST            CLIENT-ID",
    ]
    total = 0
    for p in range(n(12, 24)):
        cur = n(10**6, 10**8)
        lag = n(0, 9000)
        total += lag
        rows.append(
            f"{group:<21} metrics.raw.v3        {p:<10} {cur:<15} {cur + lag:<15} {lag:<15} consumer-{group}-{n(1, 9)}-{_uuid(rng)} /10.42.{n(1, 9)}.{n(2, 250)} consumer-{group}-{n(1, 9)}"
        )
    return (
        f"Kafka lag of {group}",
        "bash",
        {
            "command": f"kafka-consumer-groups.sh --bootstrap-server kafka-0.kafka:9092 --describe --group {group}"
        },
        "\n".join(rows),
        f"total lag {total} records",
    )


def _flink_fill_tm(rng: R) -> tuple[str, str, Args, str, str]:
    n = rng.randint
    rows = []
    free = 0
    for _ in range(n(8, 14)):
        f = n(0, 4)
        free += f
        rows.append(
            f"10.42.{n(1, 9)}.{n(2, 250)}:6122-{hexits(rng, 6)}\tslots=8\tfree={f}\theapUsed={n(900, 3900)}MiB\tmanagedUsed={n(100, 2000)}MiB\tnettyShuffleFree={n(20, 400)}MiB"
        )
    return (
        "TaskManager memory of flink-tm-batch",
        "bash",
        {
            "command": f"curl -s {_FLINK_REST}/taskmanagers | jq -r '.taskmanagers[] | \"\\(.id)\\tslots=\\(.slotsNumber)\\tfree=\\(.freeSlots)\"'"
        },
        "\n".join(rows),
        f"{free} free slots in total",
    )


def _flink_fill_log(rng: R) -> tuple[str, str, Args, str, str]:
    n = rng.randint
    rows = []
    for _ in range(n(15, 25)):
        t = f"2025-05-15 {n(0, 23):02d}:{n(10, 59)}:{n(10, 59)},{n(100, 999)}"
        rows.append(
            rng.choice(
                (
                    f"{t} INFO  org.apache.flink.runtime.checkpoint.CheckpointCoordinator [] - Completed checkpoint {n(1000, 9999)} for job {_flink_other_jid(rng)} ({n(10**7, 10**9)} bytes, checkpointDuration={n(500, 9000)} ms, finalizationTime={n(1, 90)} ms).",
                    f"{t} INFO  org.apache.flink.runtime.checkpoint.CheckpointCoordinator [] - Triggering checkpoint {n(1000, 9999)} (type=CheckpointType{{name='Checkpoint', sharingFilesStrategy=FORWARD_BACKWARD}}) @ {n(10**12, 10**13)} for job {_flink_other_jid(rng)}.",
                    f"{t} INFO  org.apache.flink.runtime.resourcemanager.slotmanager.FineGrainedSlotManager [] - Received resource requirements from job {_flink_other_jid(rng)}",
                    f"{t} WARN  org.apache.kafka.clients.NetworkClient [] - [Consumer clientId=flink-tm-batch-{n(1, 9)}, groupId=churn-features] Connection to node {n(0, 2)} (kafka-{n(0, 2)}.kafka/10.43.{n(1, 9)}.{n(2, 250)}:9092) could not be established. Broker may not be available.",
                )
            )
        )
    warns = sum("WARN" in r for r in rows)
    return (
        "the JobManager log",
        "bash",
        {"command": "kubectl -n streaming logs deploy/flink-jobmanager --since=1h | tail -n 25"},
        "\n".join(rows),
        f"{warns} Kafka connection warnings in the last hour",
    )


FLINK = _Stack(
    system="Apache Flink (streaming namespace, cluster prod)",
    lang=KANNADA,
    ids=(
        _IdKind(
            "Flink job id",
            "Flink ಜಾಬ್‌ಗಳ",
            _flink_jid,
            _flink_jobs,
            "FAILED",
            "RUNNING",
            "FAILED ಆಗಿರುವ ಜಾಬ್",
            "the job in state FAILED",
        ),
        _IdKind(
            "savepoint",
            "prod savepoint ಗಳ",
            _flink_savepoint,
            _flink_savepoints,
            "0 bytes _metadata",
            "non-empty _metadata",
            "_metadata 0 bytes ಇರುವ savepoint",
            "the savepoint whose _metadata is 0 bytes",
        ),
        _IdKind(
            "TaskManager pod",
            "TaskManager pod ಗಳ",
            _flink_tm,
            _flink_tms,
            "CrashLoopBackOff",
            "Running",
            "CrashLoopBackOff ನಲ್ಲಿರುವ pod",
            "the pod in CrashLoopBackOff",
        ),
    ),
    arts=(
        _ArtKind(
            "Flink job",
            (
                "orders-enrichment",
                "fraud-scoring",
                "clickstream-sessionizer",
                "inventory-sync",
                "payment-dedup",
                "geo-fence-alerts",
            ),
            ("created", "changed", "disabled", "rolled_back"),
            _flink_job_tell,
            _flink_quiet,
            lambda name, change: "",
            {
                "created": ("submit",),
                "changed": ("rescal", "parallelism"),
                "disabled": ("stop", "suspend"),
            },
        ),
        _ArtKind(
            "Kafka topic",
            (
                "orders.enriched.v2",
                "fraud.scores.v1",
                "clicks.sessions",
                "inventory.delta",
                "payments.dedup.out",
                "geo.alerts.raw",
            ),
            ("created", "changed", "deleted"),
            _flink_topic_tell,
            _flink_quiet,
            lambda name, change: "",
            {"deleted": ("marked for deletion",)},
        ),
    ),
    topics=(
        _Topic(
            "the state backend",
            "state backend (state.backend)",
            ("state backend", "state.backend"),
            ("rocksdb", "hashmap"),
            (
                ("state ತುಂಬಾ ದೊಡ್ಡದಾಗುತ್ತಿದೆ", "the state keeps growing"),
                ("incremental checkpoint ಬೇಕು", "incremental checkpoints are needed"),
            ),
        ),
        _Topic(
            "the checkpoint interval",
            "checkpoint interval",
            ("checkpoint",),
            ("45s", "90s", "180s", "10min"),
            (
                ("S3 ಬರವಣಿಗೆ ವೆಚ್ಚ ಹೆಚ್ಚಾಗಿದೆ", "S3 write costs went up"),
                ("recovery ವೇಗವಾಗಿರಬೇಕು", "recovery must be fast"),
            ),
        ),
        _Topic(
            "the restart strategy",
            "restart strategy",
            ("restart",),
            ("fixed-delay", "exponential-delay", "failure-rate"),
            (
                (
                    "Kafka broker ಗಳು ಆಗಾಗ ಮರುಪ್ರಾರಂಭವಾಗುತ್ತವೆ",
                    "the Kafka brokers restart now and then",
                ),
                ("ಅನಂತ restart loop ಬೇಡ", "no endless restart loops"),
            ),
        ),
    ),
    steps=(
        _Step(
            "take a savepoint of {obj} and upgrade it to Flink 1.18",
            "{obj} ಜಾಬ್‌ನ savepoint ತೆಗೆದು Flink 1.18 ಗೆ upgrade ಮಾಡುವುದು",
            ("ledger-rollup", "ad-impressions", "sensor-ingest"),
        ),
        _Step(
            "raise the Kafka source parallelism of {obj} to 24",
            "{obj} ಜಾಬ್‌ನ Kafka source parallelism 24 ಕ್ಕೆ ಏರಿಸುವುದು",
            ("returns-matcher", "price-watch"),
        ),
    ),
    conds=(
        _Cond(
            "records-lag-max goes above 200000",
            "Kafka lag (records-lag-max) 200000 ಗಿಂತ ಹೆಚ್ಚು",
            ("records-lag-max", "lag"),
        ),
        _Cond(
            "a checkpoint takes longer than 10 minutes",
            "checkpoint ಸಮಯ 10 ನಿಮಿಷಕ್ಕಿಂತ ಹೆಚ್ಚು",
            ("checkpoint",),
        ),
    ),
    people=(
        ("ರಾಘವೇಂದ್ರ", "Raghavendra"),
        ("ಶ್ವೇತಾ", "Shwetha"),
        ("ಮಂಜುನಾಥ್", "Manjunath"),
        ("ಕಾವ್ಯ", "Kavya"),
        ("ಪ್ರಕಾಶ್", "Prakash"),
    ),
    trap_ticket=lambda rng: f"STRM-{rng.randint(1000, 9999)}",
    fillers=(_flink_fill_ckpt, _flink_fill_lag, _flink_fill_tm, _flink_fill_log),
)


# --------------------------------------------------------------------------- Cilium (Malayalam)

_CIL_APPS = (
    "payments-api",
    "ledger",
    "checkout-web",
    "inventory",
    "notifier",
    "search",
    "auth-gw",
    "reports",
)


def _cil_endpoint(rng: R) -> str:
    return str(rng.randint(1000, 3999))


def _cil_endpoints(rng: R, ids: list[str], odd: int) -> Tool:
    n = rng.randint
    rows = [
        "ENDPOINT   POLICY (ingress)   POLICY (egress)   IDENTITY   LABELS (source:key[=value])                         IPv6   IPv4           STATUS",
        "           ENFORCEMENT        ENFORCEMENT",
    ]
    for i, ep in enumerate(ids):
        status = "not-ready" if i == odd else "ready"
        app = rng.choice(_CIL_APPS)
        rows.append(
            f"{ep:<10} {rng.choice(('Enabled', 'Disabled')):<18} Disabled          {n(60000, 65000):<10} k8s:app={app:<42}        10.0.{n(1, 9)}.{n(2, 250):<6} {status}"
        )
        rows.append(f"{'':<10} {'':<18} {'':<17} {'':<10} k8s:io.kubernetes.pod.namespace=payments")
        rows.append(
            f"{'':<10} {'':<18} {'':<17} {'':<10} k8s:io.cilium.k8s.policy.serviceaccount={app}"
        )
    return (
        "bash",
        {
            "command": "kubectl -n kube-system exec ds/cilium -c cilium-agent -- cilium-dbg endpoint list"
        },
        "\n".join(rows),
    )


def _cil_identity(rng: R) -> str:
    return str(rng.randint(20000, 59999))


def _cil_flows(rng: R, ids: list[str], odd: int) -> Tool:
    n = rng.randint
    rows = []
    dst = n(60000, 65000)
    for i, ident in enumerate(ids):
        t = f"May 14 09:{n(10, 59)}:{n(10, 59)}.{n(100, 999)}"
        app = rng.choice(_CIL_APPS)
        src = f"payments/{app}-{hexits(rng, 5)}-{token(rng, 5).lower()}:{n(30000, 60000)}"
        if i == odd:
            rows.append(
                f"{t}: {src} (ID:{ident}) <> payments/ledger-db-0:5432 (ID:{dst}) policy-verdict:none INGRESS DENIED (TCP Flags: SYN)"
            )
            rows.append(
                f"{t}: {src} (ID:{ident}) <> payments/ledger-db-0:5432 (ID:{dst}) Policy denied DROPPED (TCP Flags: SYN)"
            )
        else:
            rows.append(
                f"{t}: {src} (ID:{ident}) -> payments/ledger-db-0:5432 (ID:{dst}) to-endpoint FORWARDED (TCP Flags: ACK, PSH)"
            )
    return (
        "bash",
        {
            "command": "hubble observe --namespace payments --to-pod payments/ledger-db-0 --last 40 -o compact"
        },
        "\n".join(rows),
    )


def _cil_node(rng: R) -> str:
    return f"aks-wrk2-38817264-vmss0000{token(rng, 2, '0123456789abcdefghijklmnopqrstuvwxyz')}"


def _cil_health(rng: R, ids: list[str], odd: int) -> Tool:
    n = rng.randint
    rows = [f"Probe time:   2025-05-14T09:{n(10, 59)}:{n(10, 59)}Z", "Nodes:"]
    for i, node in enumerate(ids):
        ip = f"10.224.0.{n(4, 250)}"
        bad = i == odd
        icmp = "Connection timed out" if bad else f"OK, RTT={n(150, 900)}.{n(1, 9)}µs"
        http = (
            f'Get "http://{ip}:4240/hello": context deadline exceeded'
            if bad
            else f"OK, RTT={n(150, 900)}.{n(1, 9)}µs"
        )
        icmp2 = "Connection timed out" if bad else f"OK, RTT={n(150, 900)}.{n(1, 9)}µs"
        rows += [
            f"  {node}{' (localhost)' if i == 0 else ''}:",
            f"    Host connectivity to {ip}:",
            f"      ICMP to stack:   {icmp}",
            f"      HTTP to agent:   {http}",
            f"    Endpoint connectivity to 10.0.{n(1, 9)}.{n(2, 250)}:",
            f"      ICMP to stack:   {icmp2}",
        ]
    return (
        "bash",
        {
            "command": "kubectl -n kube-system exec ds/cilium -c cilium-agent -- cilium-health status --probe"
        },
        "\n".join(rows),
    )


def _cil_quiet(rng: R) -> Tool:
    n = rng.randint
    out = f"""    /¯¯\\
 /¯¯\\__/¯¯\\    Cilium:             OK
 \\__/¯¯\\__/    Operator:           OK
 /¯¯\\__/¯¯\\    Envoy DaemonSet:    OK
 \\__/¯¯\\__/    Hubble Relay:       OK
    \\__/       ClusterMesh:        disabled

DaemonSet              cilium             Desired: {n(6, 14)}, Ready: {n(6, 14)}/{n(6, 14)}, Available: {n(6, 14)}/{n(6, 14)}
Deployment             cilium-operator    Desired: 2, Ready: 2/2, Available: 2/2
Deployment             hubble-relay       Desired: 1, Ready: 1/1, Available: 1/1
Containers:            cilium             Running: {n(6, 14)}
                       cilium-operator    Running: 2
Cluster Pods:          {n(150, 400)}/{n(400, 420)} managed by Cilium
Helm chart version:    1.15.4
Image versions         cilium             quay.io/cilium/cilium:v1.15.4: {n(6, 14)}
                       cilium-operator    quay.io/cilium/operator-generic:v1.15.4: 2"""
    return "bash", {"command": "cilium status --wait"}, out


def _cil_cnp_tell(rng: R, name: str, change: str, other: str) -> Tool:
    lines: list[str] = []
    if change == "rolled_back":
        lines += [
            f'[main {hexits(rng, 7)}] Revert "Tighten {name}"',
            " 1 file changed, 6 insertions(+), 2 deletions(-)",
        ]
    verb = {
        "created": "created",
        "changed": "configured",
        "rolled_back": "configured",
        "deleted": "deleted",
    }[change]
    obj = (
        f'ciliumnetworkpolicy.cilium.io "{name}"'
        if change == "deleted"
        else f"ciliumnetworkpolicy.cilium.io/{name}"
    )
    lines.append(f"{obj} {verb}")
    lines += ["---", "NAME                          AGE     VALID"]
    for _ in range(rng.randint(4, 8)):
        lines.append(
            f"{rng.choice(('np-', 'pol-', 'cnp-'))}{token(rng, 6).lower():<24} {rng.randint(2, 90)}d     True"
        )
    cmd = (
        f"kubectl -n payments delete cnp {name}"
        if change == "deleted"
        else f"kubectl apply -f policies/payments/{name}.yaml"
    )
    if change == "rolled_back":
        cmd = f"git revert --no-edit HEAD -- policies/payments/{name}.yaml && {cmd}"
    return "bash", {"command": f"{cmd} && kubectl -n payments get cnp"}, "\n".join(lines)


def _cil_cfg_tell(rng: R, name: str, change: str, other: str) -> Tool:
    if change == "deleted":
        cmd = f"cilium config delete {name}"
        lines = [f"🔥 Deleting {name} from ConfigMap cilium-config..."]
    else:
        value = "false" if change == "disabled" else str(rng.choice((4096, 8192, 65536)))
        cmd = f"cilium config set {name} {value}"
        lines = [f"✨ Patching ConfigMap cilium-config with {name}={value}..."]
    lines += ["♻️  Restarted Cilium pods", "---"]
    lines += [
        f"{k:<40} {v}"
        for k, v in (
            ("cluster-name", "aks-prod-weu"),
            ("ipam", "cluster-pool"),
            ("routing-mode", "tunnel"),
            ("tunnel-protocol", "vxlan"),
            ("enable-hubble", "true"),
            ("monitor-aggregation", "medium"),
            ("bpf-map-dynamic-size-ratio", "0.0025"),
        )
    ]
    return "bash", {"command": f"{cmd} && cilium config view | head -n 7"}, "\n".join(lines)


def _cil_fill_lb(rng: R) -> tuple[str, str, Args, str, str]:
    n = rng.randint
    rows = ["SERVICE ADDRESS         BACKEND ADDRESS (REVNAT_ID) (SLOT)"]
    count = 0
    for _ in range(n(6, 10)):
        vip = f"10.96.{n(0, 255)}.{n(1, 254)}:{rng.choice((80, 443, 8080, 9090))}"
        rows.append(f"{vip:<23} 0.0.0.0:0 ({n(1, 90)}) (0) [ClusterIP, non-routable]")
        for slot in range(1, n(2, 4)):
            count += 1
            rows.append(
                f"{'':<23} 10.0.{n(1, 9)}.{n(2, 250)}:{n(3000, 9000)} ({n(1, 90)}) ({slot})"
            )
    return (
        "BPF load-balancer map",
        "bash",
        {
            "command": "kubectl -n kube-system exec ds/cilium -c cilium-agent -- cilium-dbg bpf lb list | head -n 40"
        },
        "\n".join(rows),
        f"{count} backends behind the listed services",
    )


def _cil_fill_metrics(rng: R) -> tuple[str, str, Args, str, str]:
    n = rng.randint
    reasons = (
        "Stale or unroutable IP",
        "Unsupported L3 protocol",
        "CT: Map insertion failed",
        "Invalid source ip",
        "Unknown connection tracking state",
        "Policy denied",
        "Missed tail call",
    )
    rows = [
        "Metric                       Labels                                                        Value"
    ]
    total = 0
    for r in reasons:
        for d in ("EGRESS", "INGRESS"):
            v = n(0, 3000)
            total += v
            rows.append(
                f'cilium_drop_count_total      direction="{d}" reason="{r}"{"":<8} {v}.000000'
            )
    return (
        "drop counters of the agents",
        "bash",
        {
            "command": "kubectl -n kube-system exec ds/cilium -c cilium-agent -- cilium-dbg metrics list -p drop"
        },
        "\n".join(rows),
        f"{total} drops in total on this agent",
    )


def _cil_fill_flows(rng: R) -> tuple[str, str, Args, str, str]:
    n = rng.randint
    rows = []
    for _ in range(n(15, 25)):
        t = f"May 15 1{n(0, 6)}:{n(10, 59)}:{n(10, 59)}.{n(100, 999)}"
        rows.append(
            f"{t}: monitoring/prometheus-k8s-{n(0, 1)}:{n(30000, 60000)} (ID:{n(60000, 65000)}) -> {rng.choice(('observability', 'logging'))}/{rng.choice(('loki', 'tempo', 'grafana'))}-{token(rng, 5).lower()}:{rng.choice((3100, 3200, 9090))} (ID:{n(60000, 65000)}) to-endpoint FORWARDED (TCP Flags: ACK, PSH)"
        )
    return (
        "Prometheus scrape flows",
        "bash",
        {"command": "hubble observe --namespace monitoring --last 25 -o compact"},
        "\n".join(rows),
        f"all {len(rows)} flows FORWARDED",
    )


def _cil_fill_ct(rng: R) -> tuple[str, str, Args, str, str]:
    n = rng.randint
    rows = []
    for _ in range(n(15, 22)):
        rows.append(
            f"TCP OUT 10.0.{n(1, 9)}.{n(2, 250)}:{n(30000, 60000)} -> 10.1.{n(1, 9)}.{n(2, 250)}:{rng.choice((443, 5432, 6379))} expires={n(10**6, 10**7)} RxPackets={n(1, 900)} RxBytes={n(100, 90000)} RxFlagsSeen=0x1a LastRxReport={n(10**6, 10**7)} TxPackets={n(1, 900)} TxBytes={n(100, 90000)} TxFlagsSeen=0x1a LastTxReport={n(10**6, 10**7)} Flags=0x0010 [ SeenNonSyn ] RevNAT={n(1, 90)} SourceSecurityID={n(60000, 65000)} IfIndex=0"
        )
    entries = n(20000, 90000)
    return (
        "the conntrack table",
        "bash",
        {
            "command": "kubectl -n kube-system exec ds/cilium -c cilium-agent -- cilium-dbg bpf ct list global | head -n 22"
        },
        "\n".join(rows),
        f"about {entries} entries, well below the limit",
    )


CILIUM = _Stack(
    system="Cilium (cluster aks-prod-weu)",
    lang=MALAYALAM,
    ids=(
        _IdKind(
            "Cilium endpoint id",
            "Cilium endpoint കളുടെ",
            _cil_endpoint,
            _cil_endpoints,
            "not-ready",
            "ready",
            "not-ready ആയ endpoint",
            "the endpoint that is not-ready",
        ),
        _IdKind(
            "security identity",
            "ledger-db ലേക്കുള്ള Hubble flow കളുടെ",
            _cil_identity,
            _cil_flows,
            "DROPPED",
            "FORWARDED",
            "DROPPED ആയ flow ന്റെ identity",
            "the source identity whose flow was DROPPED",
        ),
        _IdKind(
            "node",
            "cilium-health node കളുടെ",
            _cil_node,
            _cil_health,
            "Connection timed out",
            "OK",
            "ICMP timeout കാണിക്കുന്ന node",
            "the node whose probes timed out",
        ),
    ),
    arts=(
        _ArtKind(
            "CiliumNetworkPolicy",
            (
                "allow-payments-egress",
                "deny-legacy-ftp",
                "allow-dns-kube-system",
                "l7-orders-get-only",
                "isolate-staging-ns",
                "allow-prometheus-scrape",
            ),
            ("created", "changed", "deleted", "rolled_back"),
            _cil_cnp_tell,
            _cil_quiet,
            lambda name, change: "",
            {"changed": ("configured",)},
        ),
        _ArtKind(
            "cilium-config key",
            (
                "enable-l7-proxy",
                "enable-bandwidth-manager",
                "enable-ipv4-masquerade",
                "bpf-lb-sock-hostns-only",
                "enable-hubble-open-metrics",
            ),
            ("disabled", "changed", "deleted"),
            _cil_cfg_tell,
            _cil_quiet,
            lambda name, change: "",
            {"disabled": ("=false",), "changed": ("patching",)},
        ),
    ),
    topics=(
        _Topic(
            "the datapath mode",
            "datapath routing mode",
            ("routing", "datapath", "tunnel"),
            ("vxlan", "geneve", "native"),
            (
                ("Azure CNI overlay ഉമായി ചേരണം", "it has to fit the Azure CNI overlay"),
                ("MTU പ്രശ്നങ്ങൾ ഒഴിവാക്കണം", "MTU trouble must be avoided"),
            ),
        ),
        _Topic(
            "the IPAM mode",
            "IPAM mode",
            ("ipam",),
            ("cluster-pool", "kubernetes", "multi-pool"),
            (
                ("pod CIDR തീർന്നുകൊണ്ടിരിക്കുന്നു", "the pod CIDR is running out"),
                ("node കൾ ഓട്ടോസ്കെയിൽ ചെയ്യുന്നു", "the nodes autoscale"),
            ),
        ),
        _Topic(
            "the Hubble event buffer capacity",
            "hubble-event-buffer-capacity",
            ("buffer", "hubble"),
            ("4095", "8191", "16383", "65535"),
            (
                ("flow കൾ നഷ്ടപ്പെടുന്നു", "flows are being lost"),
                ("agent ന്റെ മെമ്മറി കുറവാണ്", "the agent is short of memory"),
            ),
        ),
    ),
    steps=(
        _Step(
            "upgrade Cilium to 1.15.6 on {obj}",
            "{obj} ൽ Cilium 1.15.6 ലേക്ക് അപ്ഗ്രേഡ് ചെയ്യുക",
            ("aks-prod-neu", "aks-dr-sea"),
        ),
        _Step(
            "run cilium connectivity test in namespace {obj}",
            "{obj} namespace ൽ cilium connectivity test ഓടിക്കുക",
            ("ct-canary", "cilium-test-7"),
        ),
        _Step(
            "rotate the Hubble TLS certificates on {obj}",
            "{obj} ൽ Hubble TLS സർട്ടിഫിക്കറ്റുകൾ മാറ്റുക",
            ("aks-stg-weu", "aks-perf-weu"),
        ),
    ),
    conds=(
        _Cond(
            "DROPPED flows go above 100 a minute",
            "DROPPED flow കൾ മിനിറ്റിൽ 100 ൽ കൂടുതൽ",
            ("dropped",),
        ),
        _Cond("the ICMP probes time out again", "ICMP probe കൾ വീണ്ടും timeout", ("icmp", "timeout")),
    ),
    people=(
        ("അനന്ദ്", "Anand"),
        ("ലക്ഷ്മി", "Lakshmi"),
        ("അർജുൻ", "Arjun"),
        ("ദിവ്യ", "Divya"),
        ("സുരേഷ്", "Suresh"),
    ),
    trap_ticket=lambda rng: f"NET-{rng.randint(10000, 99999)}",
    fillers=(_cil_fill_lb, _cil_fill_metrics, _cil_fill_flows, _cil_fill_ct),
)


# --------------------------------------------------------------------------- Puppet (Somali)


def _pup_certname(rng: R) -> str:
    return (
        f"{rng.choice(('app', 'web', 'api', 'wrk'))}-ams-{rng.randint(100, 999)}.corp.example.net"
    )


def _pup_nodes(rng: R, ids: list[str], odd: int) -> Tool:
    rows = ["["]
    for i, cert in enumerate(ids):
        deact = f'"{_ts(rng)}"' if i == odd else "null"
        rows += [
            "  {",
            f'    "certname": "{cert}",',
            f'    "deactivated": {deact},',
            f'    "latest_report_status": "{rng.choice(("unchanged", "changed", "unchanged"))}",',
            f'    "report_timestamp": "{_ts(rng)}"',
            "  }" + ("," if i < len(ids) - 1 else ""),
        ]
    rows.append("]")
    return (
        "bash",
        {
            "command": 'puppet query \'nodes[certname, deactivated, latest_report_status, report_timestamp] { certname ~ "-ams-" and facts { name = "role" and value = "app" } }\''
        },
        "\n".join(rows),
    )


def _pup_fingerprint(rng: R) -> str:
    return ":".join(hexits(rng, 2).upper() for _ in range(32))


def _pup_ca(rng: R, ids: list[str], odd: int) -> Tool:
    def line(fp: str) -> str:
        host = (
            f"{rng.choice(('db', 'mq', 'cache', 'lb'))}-rtm-{rng.randint(10, 99)}.corp.example.net"
        )
        return f'    "{host}"       (SHA256) {fp}\talt names: ["DNS:{host}"]'

    rows = ["Signed Certificates:"]
    rows += [line(fp) for i, fp in enumerate(ids) if i != odd]
    rows += ["", "Revoked Certificates:", line(ids[odd])]
    return "bash", {"command": "puppetserver ca list --all"}, "\n".join(rows)


def _pup_reports(rng: R, ids: list[str], odd: int) -> Tool:
    rows = ["["]
    host = f"pg-ams-{rng.randint(10, 99)}.corp.example.net"
    for i, uuid in enumerate(ids):
        rows += [
            "  {",
            f'    "certname": "{host}",',
            f'    "transaction_uuid": "{uuid}",',
            f'    "status": "{"failed" if i == odd else rng.choice(("changed", "unchanged", "unchanged"))}",',
            f'    "start_time": "2025-05-14T0{9 - i % 9}:{rng.randint(10, 59)}:{rng.randint(10, 59)}.{rng.randint(100, 999)}Z"',
            "  }" + ("," if i < len(ids) - 1 else ""),
        ]
    rows.append("]")
    return (
        "bash",
        {
            "command": f"puppet query 'reports[certname, transaction_uuid, status, start_time] {{ certname = \"{host}\" order by start_time desc limit {len(ids)} }}'"
        },
        "\n".join(rows),
    )


def _pup_quiet(rng: R) -> Tool:
    mods = (
        "stdlib",
        "concat",
        "inifile",
        "firewall",
        "ntp",
        "sudo",
        "logrotate",
        "accounts",
        "systemd",
    )
    rows = [
        "INFO\t -> Using Puppetfile '/etc/puppetlabs/code/environments/production/Puppetfile'",
        "INFO\t -> Deploying environment /etc/puppetlabs/code/environments/production",
        f"INFO\t -> Environment production is now at {hexits(rng, 40)}",
    ]
    rows += [
        f"INFO\t -> Deploying module to /etc/puppetlabs/code/environments/production/modules/{m}"
        for m in rng.sample(mods, 6)
    ]
    rows += [
        "INFO\t -> Finished deploying environments.",
        "---",
        "$ puppet parser validate manifests/site.pp && echo ok",
        "ok",
    ]
    return (
        "bash",
        {
            "command": "r10k deploy environment production --modules -v info && puppet parser validate manifests/site.pp && echo ok"
        },
        "\n".join(rows),
    )


def _pup_hiera_tell(rng: R, name: str, change: str, other: str) -> Tool:
    path = "data/common.yaml"
    what = f"hiera key {name} in {path}"
    target = other if change != "moved" else f"{other} ({name})"
    subject = _subject(change, what, target)
    out = _git(rng, "production", subject, path, "changed", "")
    return (
        "bash",
        {
            "command": f"cd ~/control-repo && git commit -qam '{subject}' && git show --stat --oneline HEAD | head -n 2 && git push -q origin production"
        },
        "\n".join(out) + "\n" + _pup_quiet(rng)[2],
    )


def _pup_module_tell(rng: R, name: str, change: str, other: str) -> Tool:
    version = f"{rng.randint(1, 12)}.{rng.randint(0, 9)}.{rng.randint(0, 9)}"
    what = f"module {name} in Puppetfile" + (f" (now {version})" if change == "changed" else "")
    subject = _subject(change, what, other)
    out = _git(rng, "production", subject, "Puppetfile", "changed", "")
    return (
        "bash",
        {
            "command": f"cd ~/control-repo && git commit -qam '{subject}' && git push -q origin production && r10k deploy environment production --modules -v info"
        },
        "\n".join(out) + "\n" + _pup_quiet(rng)[2],
    )


def _pup_env_tell(rng: R, name: str, change: str, other: str) -> Tool:
    base = "/etc/puppetlabs/code/environments"
    if change == "created":
        rows = [
            f"INFO\t -> Deploying environment {base}/{name}",
            f"INFO\t -> Environment {name} is now at {hexits(rng, 40)}",
            f"INFO\t -> Deploying module to {base}/{name}/modules/stdlib",
        ]
        cmd = f"git push -q origin {name} && r10k deploy environment {name} --modules -v info"
    else:
        rows = [
            "INFO\t -> Deploying environment /etc/puppetlabs/code/environments/production",
            f"INFO\t -> Removing unmanaged path {base}/{name}",
        ]
        cmd = f"git push -q origin --delete {name} && r10k deploy environment -v info"
    rows += ["INFO\t -> Finished deploying environments.", "---", f"$ ls {base}"]
    rows += ["production", "staging"] + [
        f"feature_{token(rng, 5).lower()}" for _ in range(rng.randint(2, 4))
    ]
    if change == "created":
        rows.append(name)
    return "bash", {"command": f"{cmd} && ls {base}"}, "\n".join(rows)


def _pup_hiera_other(name: str, change: str) -> str:
    if change == "renamed":
        head, _, tail = name.rpartition("::")
        return f"{head}::legacy_{tail}"
    return "data/role/db.yaml" if change == "moved" else ""


def _pup_fill_agent(rng: R) -> tuple[str, str, Args, str, str]:
    n = rng.randint
    host = f"{rng.choice(('ci', 'build', 'test'))}-dub-{n(10, 99)}.lab.example.net"
    rows = [
        "Info: Using environment 'production'",
        "Info: Retrieving pluginfacts",
        "Info: Retrieving plugin",
        "Info: Loading facts",
        f"Info: Caching catalog for {host}",
        f"Info: Applying configuration version '{n(10**9, 2 * 10**9)}'",
    ]
    changes = n(0, 6)
    for _ in range(changes):
        f = rng.choice(
            (
                "/etc/motd",
                "/etc/chrony.conf",
                "/etc/sudoers.d/ops",
                "/etc/logrotate.d/app",
                "/etc/ssh/sshd_config",
            )
        )
        rows += [
            f"Notice: /Stage[main]/Profile::Base/File[{f}]/content: ",
            f"--- {f}\t{_ts(rng)}",
            f"+++ /tmp/puppet-file{n(10**5, 10**6)}\t{_ts(rng)}",
            "@@ -1,4 +1,4 @@",
            f"-# managed by puppet, rev {n(100, 999)}",
            f"+# managed by puppet, rev {n(100, 999)}",
            f"Notice: /Stage[main]/Profile::Base/File[{f}]/content: content changed '{{sha256}}{hexits(rng, 64)}' to '{{sha256}}{hexits(rng, 64)}'",
        ]
    rows.append(f"Notice: Applied catalog in {n(3, 60)}.{n(10, 99)} seconds")
    return (
        f"the Puppet run on {host}",
        "bash",
        {"command": f"ssh {host} sudo puppet agent -t"},
        "\n".join(rows),
        f"{changes} resources changed",
    )


def _pup_fill_lookup(rng: R) -> tuple[str, str, Args, str, str]:
    n = rng.randint
    key = rng.choice(
        (
            "profile::chrony::pool",
            "profile::users::admins",
            "profile::monitoring::agent_version",
            "profile::journald::max_use",
        )
    )
    value = rng.choice(
        ("'2.ie.pool.ntp.org'", f"'{n(1, 9)}.{n(0, 30)}.{n(0, 9)}'", f"'{n(1, 9)}G'")
    )
    rows = [
        'Searching for "lookup_options"',
        "  Global Data Provider (hiera configuration version 5)",
        '    No such key: "lookup_options"',
        f'Searching for "{key}"',
        "  Global Data Provider (hiera configuration version 5)",
        "    No such key",
    ]
    rows += [
        "  Environment Data Provider (hiera configuration version 5)",
        '    Using configuration "/etc/puppetlabs/code/environments/production/hiera.yaml"',
        '    Hierarchy entry "Per-node data"',
        '      Path "/etc/puppetlabs/code/environments/production/data/nodes/ci-dub-17.lab.example.net.yaml"',
        '        Original path: "nodes/%{trusted.certname}.yaml"',
        "        Path not found",
        '    Hierarchy entry "Per-role data"',
        '      Path "/etc/puppetlabs/code/environments/production/data/role/ci.yaml"',
        '        Original path: "role/%{facts.role}.yaml"',
        "        Path not found",
        '    Hierarchy entry "Common data"',
        '      Path "/etc/puppetlabs/code/environments/production/data/global.yaml"',
        '        Original path: "global.yaml"',
        f'        Found key: "{key}" value: {value}',
    ]
    return (
        f"the hiera lookup of {key}",
        "bash",
        {"command": f"puppet lookup {key} --node ci-dub-17.lab.example.net --explain"},
        "\n".join(rows),
        f"the value comes from global.yaml: {value}",
    )


def _pup_fill_facts(rng: R) -> tuple[str, str, Args, str, str]:
    n = rng.randint
    rows = ["["]
    versions: dict[str, int] = {}
    for _ in range(n(10, 16)):
        v = rng.choice(("8.4.0", "8.5.1", "8.6.0"))
        versions[v] = versions.get(v, 0) + 1
        rows += [
            "  {",
            f'    "certname": "{rng.choice(("ci", "build", "test"))}-dub-{n(10, 99)}.lab.example.net",',
            f'    "value": "{v}"',
            "  },",
        ]
    rows[-1] = "  }"
    rows.append("]")
    top = max(versions, key=lambda k: versions[k])
    return (
        "puppet agent versions in the lab",
        "bash",
        {
            "command": 'puppet query \'facts[certname, value] { name = "puppetversion" and certname ~ "lab.example.net" }\''
        },
        "\n".join(rows),
        f"most lab nodes run {top} ({versions[top]})",
    )


def _pup_fill_metrics(rng: R) -> tuple[str, str, Args, str, str]:
    n = rng.randint
    jrubies = n(2, 8)
    out = f"""{{
  "pe-jruby-metrics": {{
    "status": {{
      "experimental": {{
        "metrics": {{
          "average-requested-jrubies": {n(0, 3)}.{n(10, 99)},
          "num-free-jrubies": {jrubies},
          "num-jrubies": 8,
          "borrow-timeout-count": {n(0, 4)},
          "average-borrow-time": {n(30, 900)},
          "average-wait-time": {n(0, 40)},
          "requested-count": {n(10**5, 10**6)},
          "queue-limit-hit-count": 0
        }}
      }}
    }}
  }},
  "status-service": {{ "state": "running", "service_version": "8.4.0" }}
}}"""
    return (
        "the puppetserver JRuby pool",
        "bash",
        {
            "command": 'curl -sk https://puppet-cm-01:8140/status/v1/services/jruby-metrics?level=debug | jq \'{"pe-jruby-metrics": ., "status-service": {state, service_version}}\''
        },
        out,
        f"{jrubies} of 8 JRubies free",
    )


PUPPET = _Stack(
    system="Puppet (puppet-cm-01, PuppetDB, r10k)",
    lang=SOMALI,
    ids=(
        _IdKind(
            "node certname",
            "noodhadhka app ee PuppetDB",
            _pup_certname,
            _pup_nodes,
            "deactivated",
            "active",
            "noodhka la deactivate-gareeyay",
            "the node that PuppetDB shows as deactivated",
        ),
        _IdKind(
            "certificate fingerprint",
            "shahaadooyinka CA-ga",
            _pup_fingerprint,
            _pup_ca,
            "revoked",
            "signed",
            "shahaadada la revoke-gareeyay",
            "the revoked certificate",
            ordinal=False,
        ),
        _IdKind(
            "report transaction_uuid",
            "warbixinnada Puppet ee pg-ams",
            _uuid,
            _pup_reports,
            "failed",
            "unchanged",
            "warbixinta failed ah",
            "the run whose report status is failed",
        ),
    ),
    arts=(
        _ArtKind(
            "hiera key",
            (
                "profile::nginx::worker_connections",
                "profile::ntp::servers",
                "role::db::max_connections",
                "profile::sshd::permit_root_login",
                "profile::backup::retention_days",
                "profile::logrotate::rotate_count",
            ),
            ("created", "changed", "deleted", "rolled_back", "renamed", "moved"),
            _pup_hiera_tell,
            _pup_quiet,
            _pup_hiera_other,
        ),
        _ArtKind(
            "Puppetfile module",
            (
                "puppetlabs-apache",
                "puppet-nginx",
                "puppetlabs-postgresql",
                "puppet-archive",
                "saz-ssh",
                "puppetlabs-haproxy",
            ),
            ("created", "changed", "deleted", "rolled_back"),
            _pup_module_tell,
            _pup_quiet,
            lambda name, change: "",
        ),
        _ArtKind(
            "r10k environment",
            (
                "feature_tls13",
                "hotfix_ntp_drift",
                "feature_pg15",
                "spike_sssd_cache",
                "feature_ipv6_only",
            ),
            ("created", "deleted"),
            _pup_env_tell,
            _pup_quiet,
            lambda name, change: "",
            {"created": ("deploy",), "deleted": ("purg",)},
        ),
    ),
    topics=(
        _Topic(
            "the agent runinterval",
            "runinterval-ka agent-ka",
            ("runinterval",),
            ("30m", "45m", "2h", "4h"),
            (
                ("puppetserver-ku wuu culus yahay", "the puppetserver is overloaded"),
                ("isbeddelada waa inay si dhakhso ah u gaaraan", "changes must arrive quickly"),
            ),
        ),
        _Topic(
            "the code deploy tool",
            "code deploy tool-ka",
            ("deploy",),
            ("r10k", "g10k", "Code Manager"),
            (
                ("deploy-gu aad buu u gaabis yahay", "the deploy is very slow"),
                ("waxaan rabnaa webhook", "we want a webhook"),
            ),
        ),
        _Topic(
            "the CA certificate ttl",
            "ca_ttl-ka shahaadooyinka",
            ("ttl",),
            ("2y", "5y", "3y"),
            (
                ("siyaasadda amniga ayaa sidaas dhigaysa", "the security policy says so"),
                (
                    "dib u cusboonaysiinta shahaadooyinku waa shaqo badan",
                    "renewing certificates is a lot of work",
                ),
            ),
        ),
    ),
    steps=(
        _Step(
            "run puppet agent -t --noop on {obj}",
            "in la socodsiiyo puppet agent -t --noop ee {obj}",
            ("cache-hel-09", "kafka-ams-21", "smtp-lon-04"),
        ),
        _Step(
            "upgrade puppetserver to 8.6.1 on {obj}",
            "in puppetserver loo cusboonaysiiyo 8.6.1 ee {obj}",
            ("puppet-cm-02", "puppet-cm-03"),
        ),
        _Step(
            "clean and re-sign the certificate of {obj}",
            "in la nadiifiyo oo dib loo saxiixo shahaadada {obj}",
            ("vpn-hel-02", "ldap-lon-07"),
        ),
    ),
    conds=(
        _Cond(
            "catalog failures in PuppetDB go above 5 an hour",
            "catalog failures-ka PuppetDB ay ka badato 5 saacaddii",
            ("catalog",),
        ),
        _Cond("the r10k deploy fails again", "r10k deploy-gu uu mar kale fashilmo", ("r10k",)),
    ),
    people=(
        ("Abdi", "Abdi"),
        ("Hodan", "Hodan"),
        ("Farhiya", "Farhiya"),
        ("Warsame", "Warsame"),
        ("Ayaan", "Ayaan"),
    ),
    trap_ticket=lambda rng: f"OPS-{rng.randint(1000, 9999)}",
    fillers=(_pup_fill_agent, _pup_fill_lookup, _pup_fill_facts, _pup_fill_metrics),
)


# --------------------------------------------------------------------------- Artifactory (Tajik)


def _art_build(rng: R) -> str:
    return str(rng.randint(3000, 4999))


def _art_builds(rng: R, ids: list[str], odd: int) -> Tool:
    rows = ["{", '"results" : [ {']
    for i, num in enumerate(ids):
        status = "Rolled-back" if i == odd else rng.choice(("Released", "Released", "Staged"))
        rows += [
            '  "build.name" : "orders-service",',
            f'  "build.number" : "{num}",',
            f'  "build.created" : "{_ts(rng)}",',
            f'  "build.promotion.status" : "{status}"',
            "}, {" if i < len(ids) - 1 else "} ],",
        ]
    rows += [
        '"range" : {',
        '  "start_pos" : 0,',
        f'  "end_pos" : {len(ids)},',
        f'  "total" : {len(ids)}',
        "}",
        "}",
    ]
    aql = 'builds.find({"name":"orders-service"}).include("number","created","promotion.status").sort({"$desc":["created"]}).limit(12)'
    return (
        "bash",
        {
            "command": f"jf rt curl -s -XPOST /api/search/aql -H 'Content-Type: text/plain' -d '{aql}'"
        },
        "\n".join(rows),
    )


def _art_xray(rng: R) -> str:
    return f"XRAY-{rng.randint(500000, 599999)}"


_ART_SUMMARIES = (
    "Jackson-databind deserialization of untrusted data",
    "Netty HTTP/2 rapid reset denial of service",
    "Log4j2 JNDI lookup remote code execution",
    "Spring Framework path traversal in static resources",
    "Apache Commons Text variable interpolation RCE",
    "SnakeYAML constructor deserialization",
    "OpenSSL X.400 address type confusion",
    "Guava temp directory permission issue",
    "protobuf-java denial of service in parser",
)


def _art_violations(rng: R, ids: list[str], odd: int) -> Tool:
    rows = ["{", f'  "total_violations": {len(ids)},', '  "violations": [']
    for i, xid in enumerate(ids):
        rows += [
            "    {",
            f'      "issue_id": "{xid}",',
            f'      "severity": "{"Critical" if i == odd else rng.choice(("High", "Medium", "Low"))}",',
            '      "type": "security",',
            '      "watch_name": "orders-prod-watch",',
            f'      "summary": "{rng.choice(_ART_SUMMARIES)}",',
            f'      "created": "{_ts(rng)}"',
            "    }" + ("," if i < len(ids) - 1 else ""),
        ]
    rows += ["  ]", "}"]
    return (
        "bash",
        {
            "command": 'jf xr curl -s -XPOST /api/v1/violations -H \'Content-Type: application/json\' -d \'{"filters":{"watch_name":"orders-prod-watch"},"pagination":{"limit":25}}\''
        },
        "\n".join(rows),
    )


def _art_tokens(rng: R, ids: list[str], odd: int) -> Tool:
    rows = [
        "TOKEN_ID                               SUBJECT                                        EXPIRES                STATE"
    ]
    for i, tid in enumerate(ids):
        subject = f"jfac@01h{token(rng, 6).lower()}/users/{rng.choice(('ci-orders', 'ci-billing', 'svc-deploy', 'ci-mobile', 'svc-scanner'))}"
        state = "expired" if i == odd else "active"
        rows.append(
            f"{tid}   {subject:<46} {_ts(rng, 4 if state == 'expired' else rng.randint(6, 12))}   {state}"
        )
    return (
        "bash",
        {
            "command": 'jf rt curl -s /access/api/v1/tokens | jq -r \'.tokens[] | [.token_id, .subject, (.expiry|todate), (if .expiry < now then "expired" else "active" end)] | @tsv\' | column -t'
        },
        "\n".join(rows),
    )


def _art_quiet(rng: R) -> Tool:
    out = f"""Server ID:                      art-prod
JFrog Platform URL:             https://jfrog.corp.example.net/
Artifactory URL:                https://jfrog.corp.example.net/artifactory/
Distribution URL:               https://jfrog.corp.example.net/distribution/
Xray URL:                       https://jfrog.corp.example.net/xray/
Mission Control URL:            https://jfrog.corp.example.net/mc/
Pipelines URL:                  https://jfrog.corp.example.net/pipelines/
User:                           ops-automation
Access token:                   ***
Default:                        true
---
OK
---
Artifactory version: 7.{rng.randint(71, 90)}.{rng.randint(1, 12)}, license: Enterprise+, nodes: 3 (all healthy)"""
    return (
        "bash",
        {
            "command": "jf config show art-prod && jf rt ping && jf rt curl -s /api/system/version | jq -r '\"Artifactory version: \" + .version'"
        },
        out,
    )


def _art_repo_tell(rng: R, name: str, change: str, other: str) -> Tool:
    if change == "created":
        cmd, rows = (
            f"jf rt repo-create repos/{name}.json",
            [
                f"[Info] Creating local repository {name}...",
                f"[Info] Done creating repository {name}.",
            ],
        )
    elif change == "deleted":
        cmd, rows = (
            f"jf rt repo-delete {name} --quiet",
            [f"[Info] Deleting repository {name}...", f"[Info] Done deleting repository {name}."],
        )
    elif change == "disabled":
        cmd, rows = (
            f"jf rt repo-update repos/{name}.json --vars 'offline=true'",
            [
                f"[Info] Updating remote repository {name} (offline: true)...",
                "[Info] Done updating repository.",
            ],
        )
    else:
        cmd, rows = (
            f"jf rt repo-update repos/{name}.json --vars 'xrayIndex=true;maxUniqueSnapshots=10'",
            [
                f"[Info] Updating repository {name} (xrayIndex: true, maxUniqueSnapshots: 10)...",
                "[Info] Done updating repository.",
            ],
        )
    rows += ["---", "KEY                           TYPE      PACKAGE TYPE"]
    for k, t, p in (
        ("gradle-plugins-remote", "REMOTE", "Gradle"),
        ("go-proxy-virtual", "VIRTUAL", "Go"),
        ("generic-tools-local", "LOCAL", "Generic"),
        ("conan-local", "LOCAL", "Conan"),
        ("alpine-remote", "REMOTE", "Alpine"),
    ):
        rows.append(f"{k:<29} {t:<9} {p}")
    return (
        "bash",
        {
            "command": f"{cmd} && jf rt curl -s /api/repositories | jq -r '.[] | [.key, .type, .packageType] | @tsv' | head -n 5"
        },
        "\n".join(rows),
    )


def _art_file_tell(rng: R, name: str, change: str, other: str) -> Tool:
    group = name.rsplit("-", 1)[0]
    version = name.rsplit("-", 1)[1].removesuffix(".jar")
    path = f"com/acme/{group}/{version}/{name}"
    if change == "created":
        cmd, rows = (
            f"jf rt u build/libs/{name} libs-staging-local/{path}",
            [
                "[Info] Log path: /home/ops/.jfrog/logs/jfrog-cli.log",
                f"[Info] [Thread 0] Uploading artifact: build/libs/{name}",
            ],
        )
    elif change == "moved":
        cmd, rows = (
            f"jf rt mv libs-staging-local/{path} libs-release-local/{path}",
            [
                f"[Info] [Thread 1] Moving artifact: libs-staging-local/{path} to: libs-release-local/{path}"
            ],
        )
    else:
        cmd, rows = (
            f"jf rt del libs-staging-local/{path} --quiet",
            [f"[Info] [Thread 2] Deleting: libs-staging-local/{path}"],
        )
    rows += [
        "{",
        '  "status": "success",',
        '  "totals": {',
        '    "success": 1,',
        '    "failure": 0',
        "  }",
        "}",
    ]
    return "bash", {"command": cmd}, "\n".join(rows)


def _art_watch_tell(rng: R, name: str, change: str, other: str) -> Tool:
    verb = {
        "created": "created",
        "changed": "updated",
        "disabled": "updated",
        "deleted": "deleted",
    }[change]
    rows = [f'{name}: {{"info":"Watch has been successfully {verb}"}}']
    if change == "disabled":
        rows.append(f'{{"name":"{name}","active":false}}')
    elif change != "deleted":
        rows.append(f'{{"name":"{name}","active":true,"policies":["block-critical-cves"]}}')
    method = {"created": "POST", "changed": "PUT", "disabled": "PUT", "deleted": "DELETE"}[change]
    return (
        "bash",
        {
            "command": f"echo -n '{name}: '; jf xr curl -s -X{method} /api/v2/watches/{name} -d @watches/{name}.json; echo; jf xr curl -s /api/v2/watches/{name} | jq -c '{{name: .general_data.name, active: .general_data.active, policies: [.assigned_policies[].name]}}'"
        },
        "\n".join(rows),
    )


def _art_fill_storage(rng: R) -> tuple[str, str, Args, str, str]:
    n = rng.randint
    rows = [
        "{",
        '  "binariesSummary": {',
        f'    "binariesCount": "{n(10**5, 10**6):,}",',
        f'    "binariesSize": "{n(2, 9)}.{n(10, 99)} TB",',
        f'    "artifactsSize": "{n(10, 30)}.{n(10, 99)} TB",',
        f'    "optimization": "{n(20, 60)}.{n(10, 99)}%"',
        "  },",
        '  "repositoriesSummaryList": [',
    ]
    biggest = ("", 0.0)
    for key in (
        "gradle-plugins-remote",
        "go-proxy-virtual",
        "generic-tools-local",
        "conan-local",
        "alpine-remote",
        "npm-mirror-remote",
        "maven-central-cache",
    ):
        gb = round(rng.uniform(1, 900), 2)
        if gb > biggest[1]:
            biggest = (key, gb)
        rows += [
            "    {",
            f'      "repoKey": "{key}",',
            f'      "usedSpace": "{gb} GB",',
            f'      "filesCount": {n(1000, 400000)}',
            "    },",
        ]
    rows[-1] = "    }"
    rows += ["  ]", "}"]
    return (
        "storage summary",
        "bash",
        {
            "command": "jf rt curl -s /api/storageinfo | jq '{binariesSummary, repositoriesSummaryList: [.repositoriesSummaryList[] | {repoKey, usedSpace, filesCount}]}'"
        },
        "\n".join(rows),
        f"the biggest repository is {biggest[0]} at {biggest[1]} GB",
    )


def _art_fill_search(rng: R) -> tuple[str, str, Args, str, str]:
    n = rng.randint
    rows = ["["]
    for _ in range(n(6, 10)):
        v = f"{n(1, 4)}.{n(0, 20)}.{n(0, 9)}"
        rows += [
            "  {",
            f'    "path": "generic-tools-local/terraform-providers/acme/{v}/terraform-provider-acme_{v}_linux_amd64.zip",',
            '    "type": "file",',
            f'    "size": {n(10**6, 9 * 10**7)},',
            f'    "created": "{_ts(rng, 6)}",',
            f'    "sha256": "{hexits(rng, 64)}"',
            "  },",
        ]
    count = (len(rows) - 1) // 8
    rows[-1] = "  }"
    rows.append("]")
    return (
        "the terraform provider binaries",
        "bash",
        {
            "command": "jf rt s 'generic-tools-local/terraform-providers/acme/*' --sort-by=created --sort-order=desc --limit 10"
        },
        "\n".join(rows),
        f"{count} provider builds found",
    )


def _art_fill_repl(rng: R) -> tuple[str, str, Args, str, str]:
    rows = []
    ok = 0
    for key in (
        "generic-tools-local",
        "conan-local",
        "go-proxy-virtual",
        "alpine-remote",
        "docker-base-images-local",
        "rpm-internal-local",
    ):
        status = rng.choice(("ok", "ok", "ok", "failure"))
        ok += status == "ok"
        rows.append(
            f'{{"repoKey":"{key}","status":"{status}","lastCompleted":"{_ts(rng, 6)}","targets":[{{"url":"https://jfrog-dr.corp.example.net/artifactory/{key}","status":"{status}"}}]}}'
        )
    return (
        "replication to the DR site",
        "bash",
        {
            "command": "for r in generic-tools-local conan-local go-proxy-virtual alpine-remote docker-base-images-local rpm-internal-local; do jf rt curl -s /api/replication/$r/status | jq -c --arg r $r '{repoKey: $r, status, lastCompleted, targets: [.targets[] | {url, status}]}'; done"
        },
        "\n".join(rows),
        f"{ok} of 6 replications ok",
    )


def _art_fill_scan(rng: R) -> tuple[str, str, Args, str, str]:
    n = rng.randint
    rows = [
        "{",
        '  "scan_id": "' + _uuid(rng) + '",',
        '  "component_id": "docker://platform/base-jdk:21",',
        '  "vulnerabilities": [',
    ]
    crit = 0
    for _ in range(n(6, 10)):
        sev = rng.choice(("High", "Medium", "Low", "Critical"))
        crit += sev == "Critical"
        rows += [
            "    {",
            f'      "issue_id": "XRAY-{n(100000, 499999)}",',
            f'      "cves": [{{"cve": "CVE-202{n(2, 4)}-{n(1000, 49999)}"}}],',
            f'      "severity": "{sev}",',
            f'      "components": {{"deb://debian:bookworm:{rng.choice(("libssl3", "zlib1g", "libc6", "curl", "libexpat1"))}": {{"fixed_versions": ["{n(1, 3)}.{n(0, 9)}.{n(0, 9)}-{n(1, 9)}"]}}}}',
            "    },",
        ]
    rows[-1] = "    }"
    rows += ["  ]", "}"]
    return (
        "the Xray scan of platform/base-jdk:21",
        "bash",
        {
            "command": "jf docker scan platform/base-jdk:21 --format json | jq '{scan_id, component_id, vulnerabilities: [.vulnerabilities[] | {issue_id, cves, severity, components}]}'"
        },
        "\n".join(rows),
        f"{crit} critical findings in the base image",
    )


ARTIFACTORY = _Stack(
    system="JFrog Artifactory (art-prod, Xray)",
    lang=TAJIK,
    ids=(
        _IdKind(
            "orders-service build number",
            "build-ҳои orders-service",
            _art_build,
            _art_builds,
            "Rolled-back",
            "Released",
            "он build, ки ҳолаташ Rolled-back аст",
            "the build whose promotion status is Rolled-back",
        ),
        _IdKind(
            "Xray violation",
            "violation-ҳои Xray барои orders-prod-watch",
            _art_xray,
            _art_violations,
            "Critical",
            "High",
            "violation бо severity Critical",
            "the violation with severity Critical",
        ),
        _IdKind(
            "access token id",
            "access token-ҳо",
            _uuid,
            _art_tokens,
            "expired",
            "active",
            "токене, ки мӯҳлаташ гузаштааст (expired)",
            "the token that has expired",
        ),
    ),
    arts=(
        _ArtKind(
            "repository",
            (
                "libs-hotfix-local",
                "npm-remote-cache",
                "docker-prod-local",
                "pypi-virtual",
                "helm-stable-local",
                "maven-snapshots-local",
            ),
            ("created", "deleted", "disabled", "changed"),
            _art_repo_tell,
            _art_quiet,
            lambda name, change: "",
            {"disabled": ("offline",)},
        ),
        _ArtKind(
            "artifact",
            (
                "billing-core-4.2.0.jar",
                "ledger-api-2.7.1.jar",
                "notify-worker-1.9.3.jar",
                "search-indexer-3.0.5.jar",
                "orders-client-5.1.2.jar",
            ),
            ("created", "moved", "deleted"),
            _art_file_tell,
            _art_quiet,
            lambda name, change: "libs-release-local" if change == "moved" else "",
            {"created": ("upload",), "deleted": ("deleting",)},
        ),
        _ArtKind(
            "Xray watch",
            (
                "watch-prod-critical",
                "watch-docker-base",
                "watch-npm-licenses",
                "watch-release-gate",
            ),
            ("created", "changed", "disabled", "deleted"),
            _art_watch_tell,
            _art_quiet,
            lambda name, change: "",
            {"disabled": ('"active":false', "inactive"), "changed": ("updated",)},
        ),
    ),
    topics=(
        _Topic(
            "the Xray fail-build severity threshold",
            "остонаи severity-и Xray барои fail-build",
            ("severity", "fail-build", "xray"),
            ("Critical", "High", "Medium"),
            (
                (
                    "релизҳо набояд бе сабаб боздошта шаванд",
                    "releases must not be blocked for nothing",
                ),
                ("аудитори амният инро талаб кард", "the security auditor asked for it"),
            ),
        ),
        _Topic(
            "the expiry of CI access tokens",
            "мӯҳлати (expiry) access token-ҳои CI",
            ("expiry", "expir", "token"),
            ("24h", "7d", "30d", "90d"),
            (
                ("токенҳо дар логҳо мемонанд", "tokens end up in logs"),
                (
                    "дастаҳо аз навсозии зуд хаста шуданд",
                    "the teams are tired of frequent renewals",
                ),
            ),
        ),
        _Topic(
            "the checksum policy of local repositories",
            "checksum policy-и репозиторийҳои local",
            ("checksum",),
            ("client-checksums", "server-generated-checksums"),
            (
                ("баъзе клиентҳо checksum намефиристанд", "some clients send no checksums"),
                ("мо ба checksum-и клиент бовар надорем", "we do not trust client checksums"),
            ),
        ),
    ),
    steps=(
        _Step(
            "promote the latest build of {obj} to libs-release-local",
            "build-и охирини {obj}-ро ба libs-release-local promote кардан",
            ("pricing-engine", "returns-portal", "tax-calculator"),
        ),
        _Step(
            "run garbage collection and empty the trash can on {obj}",
            "дар {obj} garbage collection иҷро карда, trash can-ро холӣ кардан",
            ("art-prod-eu", "art-prod-us"),
        ),
        _Step(
            "rotate the CI access token of {obj}",
            "access token-и CI-и {obj}-ро иваз кардан",
            ("team-mobile", "team-data"),
        ),
    ),
    conds=(
        _Cond(
            "Xray shows a Critical violation again",
            "Xray боз violation-и Critical нишон диҳад",
            ("critical",),
        ),
        _Cond(
            "the filestore disk goes above 85%",
            "диски filestore аз 85% гузарад",
            ("filestore", "85%"),
        ),
    ),
    people=(
        ("Фирӯз", "Firuz"),
        ("Зарина", "Zarina"),
        ("Рустам", "Rustam"),
        ("Мадина", "Madina"),
        ("Шаҳром", "Shahrom"),
    ),
    trap_ticket=lambda rng: f"DEVOPS-{rng.randint(1000, 9999)}",
    fillers=(_art_fill_storage, _art_fill_search, _art_fill_repl, _art_fill_scan),
)


# --------------------------------------------------------------------------- Icinga 2 (Pashto)

_ICI_API = "https://icinga-m1.corp.example.af:5665/v1"


def _ici_downtime(rng: R) -> str:
    return f"icinga-m1-{rng.randint(1747000000, 1747999999)}-{rng.randint(1, 9)}"


def _ici_downtimes(rng: R, ids: list[str], odd: int) -> Tool:
    rows = [
        "NAME                           HOST              SERVICE           AUTHOR      START              END                STATE"
    ]
    for i, name in enumerate(ids):
        host = f"qnd-{rng.choice(('web', 'db', 'mq', 'app'))}-{rng.randint(1, 9):02d}"
        service = rng.choice(("http", "disk /var", "postgres", "ping4", "ssl-cert", "load"))
        state = "cancelled" if i == odd else rng.choice(("active", "scheduled"))
        rows.append(
            f"{name:<30} {host:<17} {service:<17} {rng.choice(('ahmad', 'wahid', 'nasir', 'zarghuna')):<11} 2025-05-{rng.randint(10, 20)} {rng.randint(0, 23):02d}:00   2025-05-{rng.randint(20, 28)} {rng.randint(0, 23):02d}:00   {state}"
        )
    return (
        "bash",
        {
            "command": f'curl -k -s -u "root:$ICINGA_API_PASS" \'{_ICI_API}/objects/downtimes\' | jq -r \'.results[].attrs | [.name, .host_name, .service_name, .author, (.start_time|todate), (.end_time|todate), (if .was_cancelled then "cancelled" elif .trigger_time > 0 then "active" else "scheduled" end)] | @tsv\' | column -t'
        },
        "\n".join(rows),
    )


def _ici_host(rng: R) -> str:
    return f"kbl-{rng.choice(('web', 'db', 'app', 'mq'))}-{rng.randint(100, 999)}"


def _ici_hosts(rng: R, ids: list[str], odd: int) -> Tool:
    rows = []
    for i, host in enumerate(ids):
        if i == odd:
            rows.append(f"{host}\t1\tPING CRITICAL - Packet loss = 100%")
        else:
            rows.append(
                f"{host}\t0\tPING OK - Packet loss = 0%, RTA = {rng.randint(0, 9)}.{rng.randint(10, 99)} ms"
            )
    return (
        "bash",
        {
            "command": f"curl -k -s -u \"root:$ICINGA_API_PASS\" '{_ICI_API}/objects/hosts?filter=match(%22kbl-*%22,host.name)&attrs=name&attrs=state&attrs=last_check_result' | jq -r '.results[] | [.attrs.name, .attrs.state, .attrs.last_check_result.output] | @tsv'"
        },
        "\n".join(rows),
    )


def _ici_ticket(rng: R) -> str:
    return f"2025{rng.randint(4, 5):02d}{rng.randint(10, 28)}10{rng.randint(100000, 999999)}"


def _ici_tickets(rng: R, ids: list[str], odd: int) -> Tool:
    rows = ["TicketNumber       State               Queue        Title"]
    for i, num in enumerate(ids):
        state = "open" if i == odd else "closed successful"
        rows.append(
            f"{num:<18} {state:<19} Monitoring   [Icinga] PROBLEM - {rng.choice(('qnd-web', 'qnd-db', 'qnd-mq'))}-{rng.randint(1, 9):02d} {rng.choice(('ping4', 'disk /var', 'http', 'load'))} is {rng.choice(('CRITICAL', 'DOWN', 'WARNING'))}"
        )
    rows.append(f"\n{len(ids)} tickets found.")
    return (
        "bash",
        {
            "command": "znuny-ticket search --queue Monitoring --created-after 2025-04-01 --fields TicketNumber,State,Queue,Title"
        },
        "\n".join(rows),
    )


def _ici_validate(rng: R) -> str:
    n = rng.randint
    return f"""[2025-05-14 10:{n(10, 59)}:{n(10, 59)} +0430] information/cli: Icinga application loader (version: r2.14.2-1)
[2025-05-14 10:{n(10, 59)}:{n(10, 59)} +0430] information/cli: Loading configuration file(s).
[2025-05-14 10:{n(10, 59)}:{n(10, 59)} +0430] information/ConfigItem: Committing config item(s).
[2025-05-14 10:{n(10, 59)}:{n(10, 59)} +0430] information/ApiListener: My API identity: icinga-m1.corp.example.af
[2025-05-14 10:{n(10, 59)}:{n(10, 59)} +0430] information/ConfigItem: Instantiated 1 NotificationComponent.
[2025-05-14 10:{n(10, 59)}:{n(10, 59)} +0430] information/ConfigItem: Instantiated {n(100, 300)} Hosts.
[2025-05-14 10:{n(10, 59)}:{n(10, 59)} +0430] information/ConfigItem: Instantiated {n(1000, 4000)} Services.
[2025-05-14 10:{n(10, 59)}:{n(10, 59)} +0430] information/ConfigItem: Instantiated {n(200, 900)} Notifications.
[2025-05-14 10:{n(10, 59)}:{n(10, 59)} +0430] information/ConfigItem: Instantiated {n(5, 40)} Downtimes.
[2025-05-14 10:{n(10, 59)}:{n(10, 59)} +0430] information/ConfigItem: Instantiated 4 Zones.
[2025-05-14 10:{n(10, 59)}:{n(10, 59)} +0430] information/ConfigItem: Instantiated 6 Endpoints.
[2025-05-14 10:{n(10, 59)}:{n(10, 59)} +0430] information/ScriptGlobal: Dumping variables to file '/var/cache/icinga2/icinga2.vars'
[2025-05-14 10:{n(10, 59)}:{n(10, 59)} +0430] information/cli: Finished validating the configuration file(s)."""


def _ici_quiet(rng: R) -> Tool:
    return "bash", {"command": "icinga2 daemon -C && systemctl reload icinga2"}, _ici_validate(rng)


def _ici_teller(label: str, folder: str) -> Callable[[R, str, str, str], Tool]:
    def tell(rng: R, name: str, change: str, other: str) -> Tool:
        path = f"zones.d/master/{folder}/{name}.conf"
        what = f"{label} {name}"
        if change == "disabled":
            what += (
                " (enable_active_checks = false)"
                if label == "host"
                else " (enable_notifications = false)"
            )
        target = f"{other}{name}.conf" if change == "moved" else other
        subject = _subject(change, what, target)
        out = _git(
            rng,
            "master",
            subject,
            path,
            change,
            f"zones.d/master/{folder}/{other}.conf" if change == "renamed" else target,
        )
        return (
            "bash",
            {
                "command": f"cd /etc/icinga2 && git add -A && git commit -qm '{subject}' && git push -q && icinga2 daemon -C && systemctl reload icinga2"
            },
            "\n".join(out) + "\n" + _ici_validate(rng),
        )

    return tell


def _ici_other(name: str, change: str) -> str:
    if change == "renamed":
        return f"{name}-decom"
    return "zones.d/satellite-kdh/" if change == "moved" else ""


def _ici_fill_services(rng: R) -> tuple[str, str, Args, str, str]:
    n = rng.randint
    rows = []
    crit = 0
    for _ in range(n(15, 25)):
        state = rng.choice(("OK", "OK", "OK", "WARNING", "CRITICAL"))
        crit += state == "CRITICAL"
        host = f"mzr-{rng.choice(('web', 'db', 'fs', 'dns'))}-{n(10, 99)}"
        svc = rng.choice(("disk /", "load", "swap", "procs", "ntp", "apt"))
        rows.append(
            f"{state:<9} {host:<12} {svc:<8} (since {n(1, 59)}m {n(1, 59)}s) {rng.choice(('DISK OK - free space: / ' + str(n(2000, 90000)) + ' MB', 'OK - load average: ' + str(n(0, 9)) + '.' + str(n(10, 99)), 'PROCS OK: ' + str(n(100, 400)) + ' processes', 'NTP OK: Offset ' + str(n(1, 900)) + 'e-06 secs'))}"
        )
    return (
        "the services of the Mazar hosts",
        "bash",
        {
            "command": "icingacli monitoring list services --host 'mzr-*' --format '$service_state$ $host_name$ $service_description$ (since $service_last_state_change$) $service_output$'"
        },
        "\n".join(rows),
        f"{crit} CRITICAL services in Mazar",
    )


def _ici_fill_status(rng: R) -> tuple[str, str, Args, str, str]:
    n = rng.randint
    latency = round(rng.uniform(0.001, 0.9), 4)
    out = f"""{{
  "results": [
    {{
      "name": "CIB",
      "perfdata": [],
      "status": {{
        "active_host_checks": {n(1, 9)}.{n(10, 99)},
        "active_host_checks_15min": {n(100, 900)},
        "active_service_checks": {n(10, 90)}.{n(10, 99)},
        "active_service_checks_15min": {n(10000, 90000)},
        "avg_execution_time": {round(rng.uniform(0.01, 2), 4)},
        "avg_latency": {latency},
        "current_concurrent_checks": {n(1, 90)},
        "current_pending_callbacks": 0,
        "max_execution_time": {round(rng.uniform(2, 30), 4)},
        "max_latency": {round(rng.uniform(1, 5), 4)},
        "num_hosts_down": {n(0, 4)},
        "num_hosts_up": {n(100, 300)},
        "num_services_critical": {n(0, 30)},
        "num_services_ok": {n(1000, 4000)},
        "num_services_warning": {n(0, 60)},
        "remote_check_queue": 0,
        "uptime": {n(10**5, 10**7)}.{n(100, 999)}
      }}
    }}
  ]
}}"""
    return (
        "the CIB status",
        "bash",
        {
            "command": f"curl -k -s -u \"root:$ICINGA_API_PASS\" '{_ICI_API.replace('icinga-m1', 'icinga-m2')}/status/CIBStatus' | jq ."
        },
        out,
        f"average check latency {latency} s",
    )


def _ici_fill_features(rng: R) -> tuple[str, str, Args, str, str]:
    disabled = rng.sample(
        (
            "compatlog",
            "debuglog",
            "elasticsearch",
            "gelf",
            "graphite",
            "influxdb",
            "opentsdb",
            "perfdata",
            "syslog",
        ),
        6,
    )
    enabled = ("api", "checker", "icingadb", "mainlog", "notification", "influxdb2")
    out = (
        f"Disabled features: {' '.join(sorted(disabled))}\nEnabled features: {' '.join(enabled)}\n---\n"
        + "\n".join(
            f"{z}\t{e}"
            for z, e in (
                ("master", "icinga-m2.corp.example.af"),
                ("satellite-hrt", "icinga-sat-hrt-01.corp.example.af"),
                ("satellite-mzr", "icinga-sat-mzr-01.corp.example.af"),
                ("global-templates", "-"),
                ("director-global", "-"),
            )
        )
    )
    return (
        "the enabled features and zones on icinga-m2",
        "bash",
        {
            "command": "ssh icinga-m2 'icinga2 feature list && icinga2 object list --type Zone | awk ...'"
        },
        out,
        f"{len(enabled)} features enabled",
    )


def _ici_fill_checks(rng: R) -> tuple[str, str, Args, str, str]:
    n = rng.randint
    rows = []
    slow = 0
    for _ in range(n(15, 24)):
        t = round(rng.uniform(0.01, 12), 3)
        slow += t > 5
        rows.append(
            f"[2025-05-15 {n(0, 23):02d}:{n(10, 59)}:{n(10, 59)} +0430] notice/Process: PID {n(10000, 99999)} ('/usr/lib/nagios/plugins/{rng.choice(('check_http', 'check_disk', 'check_ping', 'check_ssh'))}' '-H' 'mzr-{rng.choice(('web', 'db', 'fs'))}-{n(10, 99)}') terminated with exit code {rng.choice((0, 0, 0, 1, 2))} after {t} seconds"
        )
    return (
        "the slow plugin runs on icinga-m2",
        "bash",
        {
            "command": "ssh icinga-m2 'grep -E \"terminated with exit code\" /var/log/icinga2/debug.log | tail -n 24'"
        },
        "\n".join(rows),
        f"{slow} plugin runs over 5 s",
    )


ICINGA = _Stack(
    system="Icinga 2 (icinga-m1, icinga-m2, satellites)",
    lang=PASHTO,
    ids=(
        _IdKind(
            "downtime",
            "downtime ګانو",
            _ici_downtime,
            _ici_downtimes,
            "cancelled",
            "active",
            "هغه downtime چې cancelled دی",
            "the downtime that was cancelled",
        ),
        _IdKind(
            "Kabul host",
            "کابل (kbl-*) کوربه ګانو",
            _ici_host,
            _ici_hosts,
            "DOWN (state 1)",
            "UP (state 0)",
            "هغه کوربه چې DOWN دی",
            "the host that is DOWN",
        ),
        _IdKind(
            "monitoring ticket",
            "Monitoring queue ټکټونو",
            _ici_ticket,
            _ici_tickets,
            "open",
            "closed successful",
            "هغه ټکټ چې لا خلاص (open) دی",
            "the only ticket still open",
        ),
    ),
    arts=(
        _ArtKind(
            "host object",
            (
                "lgr-backup-02",
                "kdh-proxy-01",
                "jlb-dns-03",
                "bmy-ntp-01",
                "gzn-vpn-02",
                "khs-ldap-01",
            ),
            ("created", "deleted", "disabled", "renamed", "moved"),
            _ici_teller("host", "hosts"),
            _ici_quiet,
            _ici_other,
        ),
        _ArtKind(
            "notification object",
            (
                "notify-oncall-sms",
                "mail-dba-team",
                "escalate-noc-l2",
                "chat-infra-alerts",
                "notify-netops-voice",
            ),
            ("created", "changed", "disabled", "deleted", "renamed"),
            _ici_teller("notification", "notifications"),
            _ici_quiet,
            _ici_other,
        ),
        _ArtKind(
            "service apply rule",
            (
                "check-disk-var",
                "check-ntp-offset",
                "check-cert-expiry",
                "check-pg-replication",
                "check-raid-state",
            ),
            ("changed", "deleted", "moved", "rolled_back"),
            _ici_teller("service apply rule", "services"),
            _ici_quiet,
            _ici_other,
        ),
    ),
    topics=(
        _Topic(
            "the check_interval of the disk checks",
            "د disk checks check_interval",
            ("check_interval", "interval"),
            ("2m", "5m", "10m"),
            (
                ("ډیسکونه ژر ډکیږي", "the disks fill up fast"),
                ("satellite ډیر بار لري", "the satellite is overloaded"),
            ),
        ),
        _Topic(
            "the notification interval",
            "د notification interval",
            ("notification", "interval"),
            ("30m", "1h", "4h"),
            (
                ("on-call ټیم ډیر پیغامونه ترلاسه کوي", "the on-call team gets too many messages"),
                ("مهمې ستونزې باید هیرې نشي", "important problems must not be forgotten"),
            ),
        ),
        _Topic(
            "the notification channel for CRITICAL alerts",
            "د CRITICAL alerts لپاره notification channel",
            ("channel", "notification"),
            ("Mattermost", "SMS", "PagerDuty"),
            (
                ("شپه کې څوک بریښنالیک نه ګوري", "nobody reads email at night"),
                ("SMS ګران دی", "SMS is expensive"),
            ),
        ),
    ),
    steps=(
        _Step(
            "add {obj} to the satellite zone",
            "{obj} satellite zone ته اضافه کول",
            ("sat-hrt-03", "sat-kdh-02"),
        ),
        _Step(
            "upgrade Icinga 2 to 2.14.3 on {obj}",
            "په {obj} Icinga 2 تر 2.14.3 پورې لوړول",
            ("icinga-sat-04", "icinga-sat-05"),
        ),
        _Step(
            "schedule a maintenance downtime for {obj}",
            "د {obj} لپاره maintenance downtime ټاکل",
            ("bst-core-sw1", "bst-core-sw2"),
        ),
    ),
    conds=(
        _Cond(
            "check_ping goes CRITICAL again",
            "check_ping بیا CRITICAL شي",
            ("check_ping", "critical"),
        ),
        _Cond(
            "the notification queue goes above 500",
            "د notification queue له 500 څخه واوړي",
            ("queue",),
        ),
    ),
    people=(
        ("احمد", "Ahmad"),
        ("زرغونه", "Zarghuna"),
        ("وحید", "Wahid"),
        ("ملالۍ", "Malalai"),
        ("نصیر", "Nasir"),
    ),
    trap_ticket=lambda rng: (
        f"Ticket#2025{rng.randint(7, 9):02d}{rng.randint(10, 28)}20{rng.randint(100000, 999999)}"
    ),
    fillers=(_ici_fill_services, _ici_fill_status, _ici_fill_features, _ici_fill_checks),
)


# --------------------------------------------------------------------------- the sessions

_MODES = ("agent", "user", "ordinal", "odd")


def _id_scene(rng: R, b: Builder, stack: _Stack, kind: _IdKind, hunch: bool) -> Probe:
    lang = stack.lang
    mode = rng.choice(_MODES)
    if mode == "ordinal" and not kind.ordinal:
        mode = "odd"
    n = rng.randint(8, 12)
    ids = _distinct(rng, kind.plant, n)
    odd = rng.randrange(n)
    if mode == "ordinal":
        pos = rng.randrange(min(n, len(lang.ords)))
        while pos == odd:
            pos = rng.randrange(min(n, len(lang.ords)))
    elif mode == "user":
        pos = rng.choice([i for i in range(n) if i != odd])
    else:
        pos = odd
    planted = ids[pos]
    b.user(lang.list_ask.format(noun=kind.local))
    tool, args, output = kind.listing(rng, ids, odd)
    b.tool(lang.list_run.format(noun=kind.local), tool, args, output)
    b.assistant(lang.listed.format(count=n))
    question_tail = ""
    if hunch:
        who_local, who = rng.choice(stack.people)
        decoy = ids[rng.choice([i for i in range(n) if i not in (pos, odd)])]
        b.user(lang.hunch.format(who=who_local, decoy=decoy))
        b.assistant(lang.hunch_no.format(decoy=decoy, state=kind.ok_state))
        question_tail = f" ({who} wrongly suspected {decoy}.)"
    if mode == "agent":
        b.user(lang.which.format(odd=kind.odd_local))
        b.assistant(lang.agent_names.format(id=planted, state=kind.odd_state))
        question = f"In the {kind.noun} listing, which one did the agent identify as {kind.odd_en}?"
    elif mode == "user":
        b.user(lang.user_names.format(id=planted))
        b.assistant(rng.choice(lang.acks))
        question = f"Which {kind.noun} did the user name as the one to work on?"
    elif mode == "ordinal":
        b.user(lang.ordinal.format(ord=lang.ords[pos]))
        b.assistant(rng.choice(lang.acks))
        question = f"Which {kind.noun} was the {_ORD_EN[pos]} entry of the listing, the one the user picked?"
    else:
        b.user(lang.odd_pick.format(odd=kind.odd_local))
        b.assistant(rng.choice(lang.acks))
        question = f"Which {kind.noun} was {kind.odd_en}, the one the user pointed to?"
    return Probe("identifier", question + question_tail, planted, ((planted,),))


def _art_scene(rng: R, b: Builder, stack: _Stack, kind: _ArtKind, name: str) -> Probe:
    lang = stack.lang
    change = rng.choice(kind.changes)
    other = kind.other(name, change)
    told = rng.choice(("tool", "agent", "both"))
    trap = change == "disabled" and rng.random() < 0.6
    if trap:
        b.user(lang.art_req["deleted"].format(name=name, other=other))
        b.assistant(rng.choice(lang.acks))
        b.user(lang.dont_delete.format(name=name))
    else:
        b.user(lang.art_req[change].format(name=name, other=other))
    tool, args, output = kind.tell(rng, name, change, other) if told != "agent" else kind.quiet(rng)
    b.tool(lang.art_run, tool, args, output)
    if told == "tool":
        b.assistant(rng.choice(lang.art_done))
    else:
        b.assistant(
            f"{lang.art_tell[change].format(name=name, other=other)} {rng.choice(lang.art_done)}"
        )
    needles = (*_EN[change], *kind.extra.get(change, ()), *lang.stems[change])
    answer = f"The {kind.noun} {name} was {_PAST[change]}"
    if other:
        answer += f" ({'to ' if change in ('renamed', 'moved') else ''}{other})"
    if trap:
        answer += (
            "; the user first asked to delete it, then said not to delete it but only disable it"
        )
    question = rng.choice(
        (
            f"What happened to the {kind.noun} {name}?",
            f"What state did the {kind.noun} {name} end up in?",
        )
    )
    return Probe("artifact", question, answer + ".", ((name,), needles))


def _decision_scene(rng: R, b: Builder, stack: _Stack) -> Probe:
    lang = stack.lang
    topic = rng.choice(stack.topics)
    first, second = rng.sample(topic.values, 2)
    reason_local, reason = rng.choice(topic.reasons)
    form = rng.choice(("dictated", "approved", "changed", "corrected", "relayed", "either"))
    t = topic.local
    if form == "dictated":
        b.user(lang.dec_dictate.format(topic=t, value=first, reason=reason_local))
        b.assistant(lang.dec_ok.format(topic=t, value=first))
        final, how = first, f"the user decided it because {reason}"
    elif form == "approved":
        b.user(lang.dec_ask.format(topic=t))
        b.assistant(lang.dec_propose.format(topic=t, value=first))
        b.user(rng.choice(lang.dec_approve))
        b.assistant(rng.choice(lang.acks))
        final, how = first, "the agent proposed it and the user approved"
    elif form == "changed":
        b.user(lang.dec_ask.format(topic=t))
        b.assistant(lang.dec_propose.format(topic=t, value=first))
        b.user(lang.dec_change.format(topic=t, value=second))
        b.assistant(lang.dec_ok.format(topic=t, value=second))
        final, how = second, f"the agent proposed {first}, the user changed it"
    elif form == "corrected":
        b.user(lang.dec_dictate.format(topic=t, value=first, reason=reason_local))
        b.assistant(rng.choice(lang.acks))
        b.user(lang.dec_correct.format(topic=t, value=second))
        b.assistant(lang.dec_ok.format(topic=t, value=second))
        final, how = second, f"the user first said {first}, then corrected it"
    elif form == "relayed":
        who_local, who = rng.choice(stack.people)
        b.user(lang.dec_relay.format(who=who_local, topic=t, value=second, reason=reason_local))
        b.assistant(lang.dec_ok.format(topic=t, value=second))
        final, how = second, f"decided by {who} and relayed by the user, because {reason}"
    else:
        b.user(lang.dec_ask.format(topic=t))
        b.assistant(lang.dec_either.format(topic=t, a=first, b=second))
        b.user(lang.dec_pick.format(value=second))
        b.assistant(lang.dec_ok.format(topic=t, value=second))
        final, how = second, f"the user picked it over {first}"
    question = rng.choice(
        (
            f"What was decided for {topic.en}?",
            f"Which value should {topic.en} have, as finally decided?",
        )
    )
    return Probe("decision", question, f"{final} ({how}).", ((final,), topic.alts))


def _next_scene(rng: R, b: Builder, stack: _Stack) -> Probe:
    lang = stack.lang
    step = rng.choice(stack.steps)
    obj = rng.choice(step.objs)
    action, action_en = step.local.format(obj=obj), step.en.format(obj=obj)
    form = rng.choice(
        ("tomorrow", "next_week", "weekday", "date", "deadline", "condition", "promise")
    )
    question = "What is the pending next step, and when is it due?"
    if form in ("tomorrow", "next_week"):
        when = lang.tomorrow if form == "tomorrow" else lang.next_week
        alts: tuple[str, ...] = (form.replace("_", " "), when)
        b.user(lang.ns_when.format(when=when, action=action))
        answer = f"{action_en}, {form.replace('_', ' ')}"
    elif form == "weekday":
        day = rng.randrange(7)
        b.user(
            lang.ns_when.format(
                when=lang.weekday_when.format(day=lang.weekdays[day]), action=action
            )
        )
        alts = (_WEEKDAYS[day], lang.weekdays[day])
        answer = f"{action_en}, on {_WEEKDAYS[day]}"
    elif form == "date":
        month, day = rng.randint(6, 9), rng.randint(1, 28)
        iso = f"2025-{month:02d}-{day:02d}"
        shown = _digits(iso, lang.digits) if lang.digits and rng.random() < 0.6 else iso
        b.user(lang.ns_when.format(when=lang.date_when.format(date=shown), action=action))
        alts = (
            iso,
            shown,
            f"{day} {_MONTHS[month - 1]}",
            f"{_MONTHS[month - 1]} {day}",
            f"{day:02d}.{month:02d}",
            f"{day}/{month}",
        )
        answer = f"{action_en}, on {day} {_MONTHS[month - 1]} 2025 ({iso})"
    elif form == "deadline":
        hhmm = f"{rng.randint(14, 19)}:{rng.choice(('00', '30'))}"
        shown = _digits(hhmm, lang.digits) if lang.digits and rng.random() < 0.6 else hhmm
        b.user(lang.ns_deadline.format(hhmm=shown, action=action))
        alts = (hhmm, shown)
        answer = f"{action_en}, today before {hhmm}"
    elif form == "condition":
        cond = rng.choice(stack.conds)
        b.user(lang.ns_if.format(cond=cond.local, action=action))
        alts = cond.alts
        question = "What did the user say should be done, and on what condition?"
        answer = f"If {cond.en}, then {action_en}"
    else:
        who_local, who = rng.choice(stack.people)
        b.user(lang.ns_ask)
        b.assistant(lang.ns_promise.format(action=action, who=who_local))
        b.user(rng.choice(lang.dec_approve))
        alts = (who_local, who)
        question = "What did the agent promise to do next?"
        answer = f"To {action_en}, then tell {who}"
    b.assistant(lang.ns_ack)
    return Probe("next_step", question, answer + ".", ((obj,), alts))


def _trap_scene(rng: R, b: Builder, stack: _Stack) -> None:
    closed, opened = _distinct(rng, stack.trap_ticket, 2)
    b.user(stack.lang.ticket_trap.format(closed=closed, open=opened))
    b.assistant(rng.choice(stack.lang.acks))


def _work(rng: R, b: Builder, stack: _Stack, forbidden: list[str]) -> None:
    """One piece of unrelated work: redrawn while it would show a planted string."""
    lang = stack.lang
    for _ in range(50):
        thing, tool, args, output, fact = rng.choice(stack.fillers)(rng)
        if not any(f in f"{thing}\n{args}\n{output}\n{fact}" for f in forbidden):
            break
    thing = thing.removeprefix("the ")
    b.user(rng.choice(lang.fill_req).format(thing=thing))
    b.tool(lang.fill_run.format(thing=thing), tool, args, output)
    b.assistant(rng.choice(lang.fill_done).format(thing=thing, fact=fact))


def _template(stack: _Stack) -> Callable[[R, Builder, int], Parts]:
    def write(rng: R, b: Builder, segments: int) -> Parts:
        lang = stack.lang
        b.user(rng.choice(lang.hello).format(system=stack.system))
        b.assistant(lang.hello_reply)
        probes: list[Probe] = []
        hunch_at = rng.randrange(3)
        arts = rng.sample(stack.arts, 2)
        names = [rng.choice(kind.names) for kind in arts]
        scenes = [("id", 0), ("id", 1), ("id", 2), ("art", 0), ("art", 1)]
        scenes += [("decision", 0), ("next", 0), ("trap", 0), ("work", 0)]
        rng.shuffle(scenes)
        for scene, k in scenes:
            if scene == "id":
                probes.append(_id_scene(rng, b, stack, stack.ids[k], k == hunch_at))
            elif scene == "art":
                probes.append(_art_scene(rng, b, stack, arts[k], names[k]))
            elif scene == "decision":
                probes.append(_decision_scene(rng, b, stack))
            elif scene == "next":
                probes.append(_next_scene(rng, b, stack))
            elif scene == "trap":
                _trap_scene(rng, b, stack)
            else:
                _work(rng, b, stack, [])
        opening = b.take()
        forbidden = [p.needles[0][0] for p in probes if p.kind in ("identifier", "artifact")]
        filler = segments_of(rng, b, segments, lambda r: _work(r, b, stack, forbidden))
        return opening, filler, probes

    return write


_STACKS: dict[str, _Stack] = {
    "haproxy_zulu": HAPROXY,
    "flink_kannada": FLINK,
    "cilium_malayalam": CILIUM,
    "puppet_somali": PUPPET,
    "artifactory_tajik": ARTIFACTORY,
    "icinga_pashto": ICINGA,
}
HELDOUT21_KINDS: tuple[str, ...] = tuple(_STACKS)
_TEMPLATES = {kind: _template(stack) for kind, stack in _STACKS.items()}


def generate_heldout21(kind: str, seed: int, *, segments: int = 10) -> Session:
    """The twenty-first held-out session of ``kind`` (one of :data:`HELDOUT21_KINDS`) for
    ``seed``: the same seed always gives the same session."""
    return build_session(
        _TEMPLATES, kind, seed, segments, seed_prefix="heldout21:", label="heldout21"
    )
