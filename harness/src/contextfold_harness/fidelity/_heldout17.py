# ruff: noqa: E501
"""Held-out set 17: six session kinds written blind, for the memory benchmark.

Each kind is a long working session between a user and an AI ops/coding agent on one
stack, spoken in one language by both sides (tool output stays in the tool's own English
or ASCII format). The opening plants seven probes, in an order the seed shuffles, among
decoys, traps and long tool outputs in each tool's real format; then come ``segments``
filler segments of later, unrelated work on the same system that never repeat a probe's
value. Every kind plants three ``identifier`` probes of three different types (each with
several same-shaped decoys nearby), two ``artifact`` probes (a named thing and what
happened to it, told by the tool's output only, by the agent's words only, or both, as
the seed picks), one ``decision`` probe (dictated with a reason, proposed and approved,
proposed and changed, dictated then corrected later in the session, relayed from a named
colleague, or given as the answer to the agent's question) and one ``next_step`` probe
(pending work said in passing with a weekday or a deadline, or the agent's promise to act
once a condition is met). Traps include superseded values, negated actions ("don't delete
X, only disable it"), a colleague's wrong hunch and closed tickets beside open ones.

``keycloak_realm`` — Keycloak 24 on Kubernetes, driven with kcadm.sh (Jackson-style JSON),
kubectl, psql and the Jira CLI; in Uzbek (Latin script). Identifiers: the UUID of a staff
user locked by brute-force detection (among same-surname users), the key of the still-open
Jira ticket about the expiring SAML certificate (beside closed ones and a colleague's wrong
guess), the kid of the newly generated RS256 key (beside the old, HS512, AES and RSA-OAEP
kids). Artifacts: a client disabled but not deleted; a realm exported and deleted (a
similar realm kept). Decision: the staff realm's SSO Session Idle timeout. Next step: the
Keycloak upgrade on a weekday evening, or importing a partner's new SAML metadata once
it arrives.

``asterisk_pbx`` — Asterisk 20 with PJSIP, MariaDB CDRs, the full log with pjsip logger
traces, dnsmasq leases and Yealink provisioning, /etc/asterisk in git; in Luxembourgish.
Identifiers: the CDR uniqueid of a call that dropped on RTP timeout (among the morning's
calls), the MAC address of a new T54W desk phone (another T54W already registered), the
SIP Call-ID of the INVITE the trunk rejected with 403 (beside branch/tag values and other
Call-IDs). Artifacts: a new queue created in queues.conf; a colleague's change to a
dialplan file rolled back with git revert (another file's change kept). Decision: the
ring strategy of the reception queue. Next step: a phone firmware update on a weekday,
renewing the TLS certificate by the end of the month, or adding inbound routes once the
carrier confirms a new DID block.

``ceph_rook`` — Rook-Ceph (Reef 18.2) on Kubernetes through the toolbox pod: ceph status,
device ls, crash ls/info, rbd, radosgw-admin, smartctl, kubectl; in Kyrgyz (Cyrillic).
Identifiers: the serial number of the disk predicted to fail (among nine same-model
serials), the ID of the ceph-mgr crash that was archived (beside OSD, MDS and RGW crashes,
the RGW one to be left alone), the name of the PersistentVolume whose RBD image kept a
stale watcher (beside other PVs and the csi-vol image name). Artifacts: a VM's RBD image
rolled back to a snapshot (the snapshot kept); an RGW bucket deleted with its objects (a
similarly named bucket kept). Decision: osd_memory_target. Next step: adding new SSDs to a
node on a weekday, or unsetting noout once recovery finishes.

``temporal_payouts`` — Temporal 1.22 with Go SDK workers for merchant settlements over
NIP, driven with the temporal CLI, kubectl, git, jq over a payout provider's API; in
Hausa. Identifiers: the run id of a merchant's failed settlement workflow (among other
merchants' runs and the same merchant's completed run), the short hash of the commit that
made the workflow nondeterministic (a colleague blames the SDK bump), the 30-digit NIP
session ID of a duplicated transfer (beside the original and other transfers).
Artifacts: a schedule paused, not deleted (a similar schedule left running); the old worker
deployment scaled to zero and kept for rollback. Decision: the namespace's workflow
retention. Next step: the server upgrade on a weekday night, renewing the frontend's mTLS
certificate before the end of the month, or resetting failed workflows once finance
confirms the list.

``gitlab_runners`` — self-hosted GitLab 16.11 with Docker-executor VMs and Kubernetes
runners, driven with glab api + jq, gitlab-runner, kubectl and ssh; in Amharic (Ge'ez
script). Identifiers: the job ID of a pipeline's failed integration-test job (among the
pipeline's other jobs and an older failed one), the system_id of the live runner manager
(beside stale and never-contacted managers), the name of the runner pod that was
OOMKilled (among other runner pods). Artifacts: a runner unregistered (a similarly named
runner kept); a deploy token rotated (new token, secret updated, old one revoked).
Decision: the instance's default artifact expiry. Next step: moving a runner to an arm64
node pool on a weekday, the GitLab 17.0 upgrade by the end of the month, or re-running the
pipeline once a merge request is merged.

``odoo_vanilla`` — Odoo 17 Community for a vanilla exporter in Madagascar, driven with
psql, odoo-bin shell, pg_restore/neutralize and systemctl; in Malagasy. Identifiers: the
number of a buyer's valid posted invoice (beside the cancelled one it replaced and other
invoices), the lot number of the vanilla batch with too-high moisture (among other lots),
the reference of the delivery order waiting for customs (among other delivery orders).
Artifacts: a pricelist archived, not deleted (next year's kept active); a test database
restored from last night's dump and neutralized (production untouched). Decision: the
incoterm of a buyer's new contract. Next step: the Odoo 18 upgrade test on a weekday, the
VAT declaration before the end of the month, or reconciling a payment once the bank
confirms it.
"""

from __future__ import annotations

import datetime
import json
import random
import string
from collections.abc import Callable, Sequence

from contextfold_harness.fidelity._build import (
    Builder,
    Parts,
    Probe,
    Session,
    Template,
    build_session,
    hexits,
    segments_of,
    token,
)

__all__ = ["HELDOUT17_KINDS", "generate_heldout17"]

_DECISION_MODES: tuple[str, ...] = (
    "dictated",
    "approved",
    "changed",
    "corrected",
    "relayed",
    "answer",
)


class _Fresh:
    """Hands out values that are not, and do not contain, any value handed out before."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._seen: list[str] = []

    def __call__(self, make: Callable[[random.Random], str]) -> str:
        while True:
            value = make(self._rng)
            if all(value not in seen and seen not in value for seen in self._seen):
                self._seen.append(value)
                return value


def _uuid(rng: random.Random) -> str:
    return (
        f"{hexits(rng, 8)}-{hexits(rng, 4)}-4{hexits(rng, 3)}-"
        f"{rng.choice('89ab')}{hexits(rng, 3)}-{hexits(rng, 12)}"
    )


def _b64u(rng: random.Random, n: int) -> str:
    return token(rng, n, string.ascii_letters + string.digits + "-_")


def _b64(rng: random.Random, n: int) -> str:
    return token(rng, n, string.ascii_letters + string.digits + "+/")


def _jackson(value: object, indent: int = 0) -> str:
    """JSON the way kcadm.sh (Jackson's default pretty printer) prints it."""
    pad = "  " * indent
    if isinstance(value, dict):
        if not value:
            return "{ }"
        items = [f'{pad}  "{key}" : {_jackson(item, indent + 1)}' for key, item in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list):
        if not value:
            return "[ ]"
        return "[ " + ", ".join(_jackson(item, indent) for item in value) + " ]"
    return json.dumps(value, ensure_ascii=False)


def _js(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], gap: int = 3) -> str:
    """A left-aligned, space-padded CLI table (kubectl, jira, ceph ... style)."""
    widths = [len(h) for h in header]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))
    lines = []
    for row in [header, *rows]:
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row)]
        lines.append((" " * gap).join(cells).rstrip())
    return "\n".join(lines)


def _boxed(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A psql / mysql style boxed table."""
    widths = [len(h) for h in header]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    lines = [rule, "| " + " | ".join(h.ljust(widths[i]) for i, h in enumerate(header)) + " |"]
    lines.append(rule)
    for row in rows:
        lines.append("| " + " | ".join(c.ljust(widths[i]) for i, c in enumerate(row)) + " |")
    lines.append(rule)
    lines.append(f"{len(rows)} rows in set")
    return "\n".join(lines)


def _psql(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A psql aligned result."""
    widths = [len(h) for h in header]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))
    lines = [" " + " | ".join(h.center(widths[i]) for i, h in enumerate(header)).rstrip()]
    lines.append("-" + "-+-".join("-" * w for w in widths) + "-")
    for row in rows:
        lines.append(" " + " | ".join(c.ljust(widths[i]) for i, c in enumerate(row)).rstrip())
    lines.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(lines)


def _epoch(day: int, hour: int, minute: int, second: int, utc_offset: int = 2) -> int:
    """Unix time of a wall-clock moment in June 2024 at ``utc_offset`` hours east of UTC."""
    return 1717200000 + (day - 1) * 86400 + (hour - utc_offset) * 3600 + minute * 60 + second


def _wday(day: int) -> str:
    """The English weekday abbreviation of a day of June 2024."""
    return ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")[datetime.date(2024, 6, day).weekday()]


def _clock(rng: random.Random, lo: int = 7, hi: int = 19) -> str:
    return f"{rng.randint(lo, hi):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"


# --------------------------------------------------------------------------------------
# keycloak_realm: Keycloak 24 on Kubernetes through kcadm.sh, in Uzbek (Latin script)
# --------------------------------------------------------------------------------------

_UZ_DAYS: tuple[tuple[str, str], ...] = (
    ("dushanba", "Monday"),
    ("seshanba", "Tuesday"),
    ("chorshanba", "Wednesday"),
    ("payshanba", "Thursday"),
)

# seconds, Uzbek, English
_KC_IDLE: tuple[tuple[str, str, str], ...] = (
    ("900", "15 daqiqa", "15 min"),
    ("1800", "30 daqiqa", "30 min"),
    ("2700", "45 daqiqa", "45 min"),
    ("3600", "1 soat", "60 min"),
    ("7200", "2 soat", "120 min"),
)


def _keycloak_realm(rng: random.Random, b: Builder, segments: int) -> Parts:
    fresh = _Fresh(rng)
    probes: list[Probe] = []
    late: list[Callable[[], None]] = []
    day = rng.randint(3, 26)
    stamp = 1717200000000 + day * 86_400_000
    colleague, security, dev = rng.sample(
        ["Bekzod", "Nodira", "Otabek", "Shahnoza", "Farrux", "Sevara", "Javlon"], 3
    )
    client = rng.choice(["legacy-crm", "old-helpdesk", "intranet-v1", "jasper-reports"])
    doomed = rng.choice(["qa-sandbox", "partners-staging", "demo-2023"])
    partner = rng.choice(["Navoiy Kargo", "Termiz Trans", "Farg'ona Agro"])
    idp = rng.choice(["navoiy-saml", "termiz-adfs", "fargona-saml"])

    # ---- opening -------------------------------------------------------------------
    b.user(
        rng.choice(
            [
                "Salom! Bugun Keycloak bo'yicha to'planib qolgan bir nechta ishni yakunlashimiz kerak. Klaster `iam` namespace'ida turibdi, Keycloak 24.0.5, asosiy realmlar `staff` (xodimlar) va `partners` (hamkorlar portali). kcadm.sh sozlangan, master realmga admin sifatida kirilgan. Avval umumiy holatni ko'rib chiqing, keyin vazifalarni birma-bir beraman.",
                "Assalomu alaykum. Keycloak'da ancha ish yig'ilib qoldi, bugun shularni tugatsak. Hammasi `iam` namespace'ida: Keycloak 24.0.5, realmlar — `staff` va `partners`. kcadm.sh bilan ishlashingiz mumkin, admin sessiyasi ochiq. Boshlashdan oldin podlar va realmlar holatiga bir qarab chiqing.",
            ]
        )
    )
    restarts = rng.randint(1, 4)
    b.tool(
        "Xo'p. Avval podlarni, keyin realmlar ro'yxatini tekshiraman. Podlar holati:",
        "bash",
        {"command": "kubectl get pods -n iam -o wide"},
        _table(
            ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE"],
            [
                ["keycloak-0", "1/1", "Running", "0", "12d", "10.42.1.17", "k8s-w1"],
                [
                    "keycloak-1",
                    "1/1",
                    "Running",
                    f"{restarts} (3d ago)",
                    "12d",
                    "10.42.2.23",
                    "k8s-w2",
                ],
                ["keycloak-2", "1/1", "Running", "0", "12d", "10.42.3.9", "k8s-w3"],
                ["keycloak-postgresql-0", "1/1", "Running", "0", "41d", "10.42.1.5", "k8s-w1"],
                [
                    f"keycloak-operator-{hexits(rng, 9)}-{token(rng, 5, string.ascii_lowercase + string.digits)}",
                    "1/1",
                    "Running",
                    "0",
                    "41d",
                    "10.42.3.4",
                    "k8s-w3",
                ],
            ],
        ),
    )
    realms = [
        {"realm": "master", "displayName": "Keycloak", "enabled": True},
        {"realm": "staff", "displayName": "Xodimlar", "enabled": True},
        {"realm": "partners", "displayName": "Hamkorlar portali", "enabled": True},
        {"realm": "partners-dev", "displayName": "Hamkorlar (dev)", "enabled": True},
        {"realm": doomed, "displayName": doomed.replace("-", " ").title(), "enabled": True},
    ]
    b.tool(
        "Realmlar:",
        "bash",
        {"command": "kcadm.sh get realms --fields realm,displayName,enabled"},
        _jackson(realms),
    )
    b.assistant(
        f"Hammasi joyida: uchta Keycloak pod ham Running, faqat keycloak-1 uch kun oldin {restarts} marta qayta ishga tushgan. Beshta realm bor: master, staff, partners, partners-dev va {doomed}. Vazifalarni kutyapman."
    )

    # ---- identifier: the locked user's UUID -----------------------------------------
    def scene_user() -> None:
        people = [
            ("Dilnoza", "Karimova", "moliya bo'limi"),
            ("Jasur", "Karimov", "ombor"),
            ("Sardor", "Karimov", "IT bo'limi"),
            ("Malika", "Karimova", "kadrlar bo'limi"),
            ("Aziz", "Karimov", "logistika"),
        ]
        rng.shuffle(people)
        first, last, dept = people[0]
        gone = people[1]
        uids = [fresh(_uuid) for _ in people]
        b.user(
            rng.choice(
                [
                    f"Yana bir masala: {dept}dan {first} {last} tizimga kira olmayapti, ekranda 'Account is temporarily disabled' chiqyapti. Uning akkauntini staff realmidan topib bering.",
                    f"{first} {last} ({dept}) ertalabdan beri kira olmayapti — 'Account is temporarily disabled' deb yozyapti. staff realmida uning akkauntini qidirib ko'ring.",
                ]
            )
        )
        rows = []
        for (f, la, _), uid in zip(people, uids, strict=True):
            rows.append(
                {
                    "id": uid,
                    "username": f"{f[0].lower()}.{la.lower()}",
                    "firstName": f,
                    "lastName": la,
                    "email": f"{f[0].lower()}.{la.lower()}@ipakyoli.uz",
                    "enabled": (f, la) != gone[:2],
                }
            )
        b.tool(
            "Familiya bo'yicha qidiraman:",
            "bash",
            {
                "command": "kcadm.sh get users -r staff -q search=karimov --fields id,username,firstName,lastName,email,enabled"
            },
            _jackson(rows),
        )
        target = uids[0]
        fails = rng.randint(12, 40)
        ip = f"10.14.{rng.randint(2, 9)}.{rng.randint(10, 250)}"
        b.tool(
            f"{first[0].lower()}.{last.lower()} topildi. Brute-force holatini tekshiraman:",
            "bash",
            {"command": f"kcadm.sh get attack-detection/brute-force/users/{target} -r staff"},
            _jackson(
                {
                    "numFailures": fails,
                    "disabled": True,
                    "lastIPFailure": ip,
                    "lastFailure": stamp + rng.randint(1, 9) * 3_600_000,
                }
            ),
        )
        b.assistant(
            f"Sabab aniq: akkauntni brute-force himoyasi vaqtincha bloklagan — {ip} manzildan {fails} ta muvaffaqiyatsiz urinish bo'lgan. Akkaunt o'zi yoqilgan (enabled: true). E'tibor bering: ro'yxatdagi {gone[0]} {gone[1]} esa haqiqatan ham o'chirilgan (enabled: false), u boshqa masala."
        )
        b.user(
            rng.choice(
                [
                    f"Ha, {gone[0]} ishdan ketgan, uni yoqmang. {first}ning blokini olib tashlang va keyingi kirishda parolni almashtirishni majburiy qiling.",
                    f"{gone[0]} ketgan xodim, unga tegmang. {first}ni blokdan chiqaring, kirganda parolini yangilasin.",
                ]
            )
        )
        b.tool(
            "Blokni olib tashlayman va UPDATE_PASSWORD qo'shaman:",
            "bash",
            {
                "command": f"kcadm.sh delete attack-detection/brute-force/users/{target} -r staff && kcadm.sh update users/{target} -r staff -s 'requiredActions=[\"UPDATE_PASSWORD\"]' && kcadm.sh get users/{target} -r staff --fields username,enabled,requiredActions"
            },
            _jackson(
                {
                    "username": f"{first[0].lower()}.{last.lower()}",
                    "enabled": True,
                    "requiredActions": ["UPDATE_PASSWORD"],
                }
            ),
        )
        b.assistant(
            f"Tayyor: {first} {last} blokdan chiqarildi, keyingi kirishda yangi parol so'raladi. {gone[0]} {gone[1]}ga tegmadim."
        )
        probes.append(
            Probe(
                "identifier",
                f"What is the Keycloak user id (UUID) of {first} {last}'s account in the staff realm, the account that brute-force detection had locked?",
                target,
                ((target,),),
            )
        )

    # ---- identifier: the open Jira ticket ---------------------------------------------
    def scene_ticket() -> None:
        keys = [fresh(lambda r: f"IAM-{r.randint(1000, 9999)}") for _ in range(7)]
        target, old, *others = keys
        exp = f"2024-07-{rng.randint(2, 28):02d}"
        b.user(
            rng.choice(
                [
                    f"partners realmidagi SAML imzo sertifikati muddati tugayapti. Jira'da bu haqda tiket bor edi, {colleague} {old} deb aytdi, lekin ishonchim komil emas. Qaysi tiket hozir ochiq ekanini aniqlang.",
                    f"Hamkorlar portalining SAML sertifikati yaqinda tugaydi. {colleague}ning eslashicha, tiket {old} ekan. Jira'dan tekshirib ko'ring, qaysi biri hali ochiq?",
                ]
            )
        )
        rows = [
            [
                target,
                rng.choice(["To Do", "In Progress"]),
                "Task",
                f"partners: SAML signing certificate expires {exp}",
                f"2024-06-{day:02d} 09:14",
            ],
            [
                old,
                "Done",
                "Task",
                "partners: SAML signing certificate expires 2023-07-05",
                "2023-07-04 17:40",
            ],
            [
                others[0],
                "To Do",
                "Task",
                "staff: SAML IdP metadata for Moodle LMS",
                f"2024-06-{max(1, day - 2):02d} 11:02",
            ],
            [
                others[1],
                "Done",
                "Bug",
                "partners: SAML assertion rejected, clock skew 45s",
                "2024-03-19 10:21",
            ],
            [
                others[2],
                "In Progress",
                "Story",
                "staff: enforce WebAuthn for realm admins",
                f"2024-06-{max(1, day - 1):02d} 15:47",
            ],
            [
                others[3],
                "Won't Do",
                "Task",
                f"partners: custom NameID format for {partner}",
                "2024-02-08 08:55",
            ],
            [
                others[4],
                "Done",
                "Task",
                "partners: rotate SAML encryption key (2023)",
                "2023-11-30 16:12",
            ],
        ]
        rng.shuffle(rows)
        b.tool(
            "Jira'dan SAML bo'yicha tiketlarni olaman:",
            "bash",
            {
                "command": "jira issue list -q 'project = IAM AND text ~ \"SAML\"' --plain --columns key,status,type,summary,updated"
            },
            _table(["KEY", "STATUS", "TYPE", "SUMMARY", "UPDATED"], rows, gap=2),
        )
        b.assistant(
            rng.choice(
                [
                    f"{old} yopilgan (Done) — bu o'tgan yilgi sertifikat haqidagi tiket. Hozir ochiq bo'lgani {target}: \"partners: SAML signing certificate expires {exp}\". Yana bir ochiq SAML tiketi bor, lekin u staff realmidagi Moodle metadata haqida.",
                    f"{colleague} aytgan {old} 2023-yilda yopilgan. Joriy sertifikat uchun ochiq tiket — {target} (muddati {exp}). Qolgan ochiq SAML tiketi Moodle bilan bog'liq, boshqa mavzu.",
                ]
            )
        )
        b.user("Yaxshi, ishni o'sha ochiq tiketga bog'laymiz.")
        b.assistant("Xo'p.")
        probes.append(
            Probe(
                "identifier",
                "What is the key of the Jira ticket that is still open about the expiring SAML signing certificate of the partners realm?",
                target,
                ((target,),),
            )
        )

    # ---- identifier: the new RS256 key's kid -----------------------------------------
    def scene_kid() -> None:
        new_kid = fresh(lambda r: _b64u(r, 43))
        old_kid = fresh(lambda r: _b64u(r, 43))
        enc_kid = fresh(lambda r: _b64u(r, 43))
        hs_kid, aes_kid = fresh(_uuid), fresh(_uuid)
        comp_new, comp_old, comp_enc, comp_hs, comp_aes = (fresh(_uuid) for _ in range(5))
        name = f"rsa-{2024}-{rng.choice(['06', 'q2', 'iyun'])}"
        b.user(
            rng.choice(
                [
                    "partners realmida yangi RS256 imzo kalitini yarating, prioriteti eskisidan yuqori bo'lsin. Eskisini hozircha o'chirmang, faqat passive qiling — hamkorlar yangi sertifikatni olguncha token tekshiruvi ishlashi kerak.",
                    "SAML va OIDC uchun partners'da yangi RSA kalit kerak. Yangisini yuqoriroq prioritet bilan yarating, eskisi passive bo'lib tursin, uni o'chirib tashlamang.",
                ]
            )
        )
        b.tool(
            "Yangi rsa-generated komponent yarataman (priority 200):",
            "bash",
            {
                "command": f"kcadm.sh create components -r partners -s name={name} -s providerId=rsa-generated -s providerType=org.keycloak.keys.KeyProvider -s parentId=partners -s 'config.priority=[\"200\"]' -s 'config.keySize=[\"2048\"]' -s 'config.algorithm=[\"RS256\"]'"
            },
            f"Created new component with id '{comp_new}'",
        )
        keys = [
            {
                "algorithm": "HS512",
                "type": "OCT",
                "providerId": comp_hs,
                "providerPriority": 100,
                "kid": hs_kid,
                "status": "ACTIVE",
                "use": "SIG",
            },
            {
                "algorithm": "RS256",
                "type": "RSA",
                "providerId": comp_new,
                "providerPriority": 200,
                "kid": new_kid,
                "status": "ACTIVE",
                "publicKey": "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + _b64(rng, 24) + "...",
                "certificate": "MIICozCCAYsCBgGQ" + _b64(rng, 24) + "...",
                "validTo": stamp + 3 * 365 * 86_400_000,
                "use": "SIG",
            },
            {
                "algorithm": "RS256",
                "type": "RSA",
                "providerId": comp_old,
                "providerPriority": 100,
                "kid": old_kid,
                "status": "ACTIVE",
                "publicKey": "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + _b64(rng, 24) + "...",
                "certificate": "MIICozCCAYsCBgGK" + _b64(rng, 24) + "...",
                "validTo": stamp + rng.randint(20, 40) * 86_400_000,
                "use": "SIG",
            },
            {
                "algorithm": "RSA-OAEP",
                "type": "RSA",
                "providerId": comp_enc,
                "providerPriority": 100,
                "kid": enc_kid,
                "status": "ACTIVE",
                "use": "ENC",
            },
            {
                "algorithm": "AES",
                "type": "OCT",
                "providerId": comp_aes,
                "providerPriority": 100,
                "kid": aes_kid,
                "status": "ACTIVE",
                "use": "ENC",
            },
        ]
        b.tool(
            "Kalitlar ro'yxatini tekshiraman:",
            "bash",
            {
                "command": "kcadm.sh get keys -r partners --fields 'keys(algorithm,providerId,providerPriority,kid,status)'"
            },
            _jackson(
                {
                    "keys": [
                        {
                            k: v
                            for k, v in key.items()
                            if k in ("algorithm", "providerId", "providerPriority", "kid", "status")
                        }
                        for key in keys
                    ]
                }
            ),
        )
        b.tool(
            "Yangi kalit faol. Eski RS256 kalitni passive qilaman (o'chirmasdan):",
            "bash",
            {
                "command": f"kcadm.sh update components/{comp_old} -r partners -s 'config.active=[\"false\"]' && kcadm.sh get keys -r partners --fields keys | grep -E '\"(kid|status|algorithm)\"'"
            },
            "\n".join(
                [
                    '    "algorithm" : "HS512",',
                    f'    "kid" : "{hs_kid}",',
                    '    "status" : "ACTIVE",',
                    '    "algorithm" : "RS256",',
                    f'    "kid" : "{new_kid}",',
                    '    "status" : "ACTIVE",',
                    '    "algorithm" : "RS256",',
                    f'    "kid" : "{old_kid}",',
                    '    "status" : "PASSIVE",',
                    '    "algorithm" : "RSA-OAEP",',
                    f'    "kid" : "{enc_kid}",',
                    '    "status" : "ACTIVE",',
                    '    "algorithm" : "AES",',
                    f'    "kid" : "{aes_kid}",',
                    '    "status" : "ACTIVE",',
                ]
            ),
        )
        b.assistant(
            rng.choice(
                [
                    f"Bajarildi. Yangi RS256 kalit ({name}, priority 200) endi imzo uchun faol: kid {new_kid}. Eski RS256 kalit PASSIVE holatida qoldi — u bilan imzolangan tokenlar hali tekshiriladi, lekin yangi tokenlar yangi kalit bilan imzolanadi.",
                    f"Tayyor: {name} komponenti yaratildi, uning kid'i {new_kid}, active map'da RS256 shu kalitga ishora qilyapti. Eskisi o'chirilmadi, PASSIVE.",
                ]
            )
        )
        probes.append(
            Probe(
                "identifier",
                "What is the kid of the new RS256 signing key generated in the partners realm (the priority-200 key that became active)?",
                new_kid,
                ((new_kid,),),
            )
        )

    # ---- artifact: the client that was disabled -----------------------------------------
    def scene_client() -> None:
        how = rng.randrange(3)
        cid = fresh(_uuid)
        sibling = f"{client}-api"
        b.user(
            rng.choice(
                [
                    f"partners realmidagi `{client}` klientini endi hech kim ishlatmaydi. Lekin uni o'chirib tashlamang — audit uchun konfiguratsiyasi qolsin, faqat faolsizlantiring. `{sibling}` esa ishlayapti, unga tegmang.",
                    f"`{client}` klienti kerak emas bo'lib qoldi. O'chirmang, faqat enabled=false qilib qo'ying, auditorlar sozlamalarini ko'rmoqchi. `{sibling}` ga tegilmasin.",
                ]
            )
        )
        b.tool(
            "Klientni topaman:",
            "bash",
            {
                "command": f"kcadm.sh get clients -r partners -q clientId={client} --fields id,clientId,enabled,protocol,rootUrl"
            },
            _jackson(
                [
                    {
                        "id": cid,
                        "clientId": client,
                        "enabled": True,
                        "protocol": "openid-connect",
                        "rootUrl": f"https://{client}.ipakyoli.uz",
                    }
                ]
            ),
        )
        b.tool(
            "Faolsizlantiraman:",
            "bash",
            {"command": f"kcadm.sh update clients/{cid} -r partners -s enabled=false"},
            "(no output, exit code 0)",
        )
        if how in (0, 2):
            b.tool(
                "Natijani tekshiraman:",
                "bash",
                {
                    "command": "kcadm.sh get clients -r partners --fields clientId,enabled | grep -B1 -A1 enabled"
                },
                "\n".join(
                    [
                        '  "clientId" : "account",',
                        '  "enabled" : true',
                        f'  "clientId" : "{client}",',
                        '  "enabled" : false',
                        f'  "clientId" : "{sibling}",',
                        '  "enabled" : true',
                        '  "clientId" : "partner-portal",',
                        '  "enabled" : true',
                        '  "clientId" : "security-admin-console",',
                        '  "enabled" : true',
                    ]
                ),
            )
        if how == 0:
            b.assistant("Bajarildi.")
        elif how == 1:
            b.assistant(
                f"`{client}` klienti faolsizlantirildi (enabled=false), lekin o'chirilmadi — konfiguratsiyasi auditorlar uchun saqlanib qoldi. `{sibling}` avvalgidek ishlayapti."
            )
        else:
            b.assistant(
                f"Ko'rinib turibdiki, `{client}` endi faolsiz (enabled: false), klientning o'zi va sozlamalari joyida. `{sibling}` yoqilgan holatda qoldi."
            )
        probes.append(
            Probe(
                "artifact",
                f"What was done to the `{client}` client in the partners realm?",
                f"It was disabled (enabled=false), not deleted — its configuration stays for the audit; `{sibling}` was left enabled.",
                (
                    (client,),
                    (
                        "disabled",
                        "deactivated",
                        "faolsiz",
                        "enabled=false",
                        "enabled: false",
                        "enabled to false",
                        "enabled = false",
                        "o'chirib qo'yil",
                    ),
                ),
            )
        )

    # ---- artifact: the realm deleted after export ----------------------------------------
    def scene_realm() -> None:
        how = rng.randrange(3)
        size = rng.randint(180, 900)
        b.user(
            rng.choice(
                [
                    f"`{doomed}` realmi endi kerak emas. Avval uni eksport qilib /backup ga saqlang, keyin o'chirib tashlang. partners-dev ni esa aslo o'chirmang — {dev} hali u bilan ishlayapti.",
                    f"`{doomed}` ni yo'qotamiz: oldin eksportini /backup papkasiga oling, so'ng realmni o'chiring. partners-dev qolsin, {dev}ga kerak.",
                ]
            )
        )
        b.tool(
            "Qisman eksport qilaman (klientlar, guruhlar va rollar bilan):",
            "bash",
            {
                "command": f"kcadm.sh create realms/{doomed}/partial-export -s exportClients=true -s exportGroupsAndRoles=true -o > /backup/{doomed}-2024-06-{day:02d}.json && ls -l /backup"
            },
            "\n".join(
                [
                    "total 2184",
                    f"-rw-r--r-- 1 keycloak keycloak  {rng.randint(300, 999)}412 May 30 02:00 partners-2024-05-30.json",
                    f"-rw-r--r-- 1 keycloak keycloak  {rng.randint(300, 999)}077 Jun {day - 1:>2} 02:00 partners-2024-06-{day - 1:02d}.json",
                    f"-rw-r--r-- 1 keycloak keycloak  {rng.randint(100, 299)}530 Jun {day - 1:>2} 02:00 staff-2024-06-{day - 1:02d}.json",
                    f"-rw-r--r-- 1 keycloak keycloak   {size}204 Jun {day:>2} {_clock(rng, 10, 12)[:5]} {doomed}-2024-06-{day:02d}.json",
                ]
            ),
        )
        out = "(no output, exit code 0)"
        if how in (0, 2):
            b.tool(
                "Eksport joyida. Endi realmni o'chiraman va ro'yxatni tekshiraman:",
                "bash",
                {
                    "command": f"kcadm.sh delete realms/{doomed} && kcadm.sh get realms --fields realm"
                },
                _jackson(
                    [
                        {"realm": "master"},
                        {"realm": "staff"},
                        {"realm": "partners"},
                        {"realm": "partners-dev"},
                    ]
                ),
            )
        else:
            b.tool(
                "Realmni o'chiraman:", "bash", {"command": f"kcadm.sh delete realms/{doomed}"}, out
            )
        if how == 0:
            b.assistant("Tayyor, eksport /backup da.")
        elif how == 1:
            b.assistant(
                f"`{doomed}` realmi o'chirib tashlandi; undan oldin olingan eksport /backup/{doomed}-2024-06-{day:02d}.json faylida. partners-dev ga tegmadim."
            )
        else:
            b.assistant(
                f"`{doomed}` endi ro'yxatda yo'q — realm o'chirildi. Eksporti /backup/{doomed}-2024-06-{day:02d}.json da, partners-dev joyida qoldi."
            )
        probes.append(
            Probe(
                "artifact",
                f"What happened to the `{doomed}` realm?",
                f"It was exported to /backup/{doomed}-2024-06-{day:02d}.json and then deleted; partners-dev was deliberately kept.",
                (
                    (doomed,),
                    (
                        "deleted",
                        "removed",
                        "dropped",
                        "o'chirib tashla",
                        "o'chirildi",
                        "yo'q qilindi",
                        "delete realms",
                    ),
                ),
            )
        )

    # ---- decision: SSO session idle timeout ------------------------------------------------
    def scene_decision() -> None:
        mode = rng.choice(_DECISION_MODES)
        final, other = rng.sample(_KC_IDLE, 2)

        def apply(v: tuple[str, str, str]) -> None:
            b.tool(
                f"staff realmida ssoSessionIdleTimeout={v[0]} ({v[1]}) qo'yaman:",
                "bash",
                {
                    "command": f"kcadm.sh update realms/staff -s ssoSessionIdleTimeout={v[0]} && kcadm.sh get realms/staff --fields ssoSessionIdleTimeout,ssoSessionMaxLifespan,accessTokenLifespan"
                },
                _jackson(
                    {
                        "ssoSessionIdleTimeout": int(v[0]),
                        "ssoSessionMaxLifespan": 86400,
                        "accessTokenLifespan": 300,
                    }
                ),
            )

        intro = "Hozir staff realmida SSO Session Idle 43200 soniya (12 soat) — bu juda uzun, ombordagi umumiy kompyuterlarda sessiya ochiq qolib ketyapti."
        if mode == "dictated":
            b.user(
                f"{intro} SSO Session Idle ni {final[1]} qiling: xavfsizlik auditi umumiy kompyuterlarda bundan uzun sessiyani taqiqladi."
            )
            apply(final)
            b.assistant(f"O'rnatildi: ssoSessionIdleTimeout = {final[0]} ({final[1]}).")
        elif mode == "approved":
            b.user(f"{intro} Qancha qilish kerakligini siz taklif qiling.")
            b.assistant(
                f"Taklifim: SSO Session Idle {final[1]} ({final[0]} soniya). Smena davomida odamlar tez-tez ishlaydi, shuning uchun bu yetarli, ammo tashlab ketilgan sessiyalar tez yopiladi. Qo'yaymi?"
            )
            b.user("Ha, qo'ying.")
            apply(final)
            b.assistant(f"Qo'yildi: {final[0]} soniya.")
        elif mode == "changed":
            b.user(f"{intro} Qancha qilishni taklif qilasiz?")
            b.assistant(f"Men {other[1]} ({other[0]} soniya) ni taklif qilaman. Ma'qulmi?")
            b.user(
                f"Yo'q, {final[1]} bo'lsin — omborchilar uzoq vaqt skaner bilan yurib, kompyuterga qaytmay qoladi."
            )
            apply(final)
            b.assistant(
                f"Tushunarli, {other[1]} emas, {final[1]} qo'ydim: ssoSessionIdleTimeout = {final[0]}."
            )
        elif mode == "corrected":
            b.user(f"{intro} Idle timeout'ni {other[1]} qiling.")
            apply(other)
            b.assistant(f"Qo'yildi: {other[0]} soniya.")

            def correction() -> None:
                b.user(
                    f"Kechirasiz, idle timeout bo'yicha xato aytgan ekanman: {security} bilan gaplashdim, {other[1]} emas, {final[1]} bo'lishi kerak. Shuni to'g'rilab qo'ying."
                )
                apply(final)
                b.assistant(
                    f"To'g'riladim: endi ssoSessionIdleTimeout = {final[0]} ({final[1]}); avvalgi {other[0]} qiymati bekor qilindi."
                )

            late.append(correction)
        elif mode == "relayed":
            b.user(
                f"{intro} Xavfsizlik bo'limidan {security} aytdiki, ISO auditiga ko'ra idle timeout {final[1]} bo'lishi shart. Shunday qiling."
            )
            apply(final)
            b.assistant(f"{security}ning talabiga ko'ra qo'yildi: {final[0]} soniya ({final[1]}).")
        else:
            b.user(intro + " Buni qisqartirish kerak.")
            b.assistant(
                f"Qaysi qiymatni qo'yay: {other[1]}, {final[1]} yoki boshqa? Bu faqat staff realmiga tegishli bo'ladi."
            )
            b.user(f"{final[1]}.")
            apply(final)
            b.assistant(f"Qo'yildi: ssoSessionIdleTimeout = {final[0]}.")
        probes.append(
            Probe(
                "decision",
                "What SSO Session Idle timeout was settled on for the staff realm?",
                f"{final[0]} seconds ({final[2]}).",
                (
                    (final[0], final[1], final[2], final[2].replace(" ", "")),
                    ("idle", "sessiya", "session", "timeout"),
                ),
            )
        )

    # ---- next step ---------------------------------------------------------------------------
    def scene_next() -> None:
        if rng.random() < 0.5:
            uz, en = rng.choice(_UZ_DAYS)
            b.user(
                rng.choice(
                    [
                        f"Bir gap, yodingizda tursin: Keycloak'ni 25.0.6 ga yangilashni {uz} kuni kechqurun, ish vaqtidan keyin qilamiz — hozircha operator versiyasiga tegmang. Undan oldin staff realmidagi events sozlamasini ko'rib chiqing, admin eventlari saqlanyaptimi?",
                        f"Aytgancha, 25.0.6 ga upgrade {uz} kechqurunga rejalashtirilgan, shuning uchun bugun operatorni yangilamang. Hozir esa boshqa narsa: staff realmida admin eventlari yoqilganmi, tekshiring.",
                    ]
                )
            )
            b.tool(
                "Events sozlamalarini tekshiraman:",
                "bash",
                {"command": "kcadm.sh get events/config -r staff"},
                _jackson(
                    {
                        "eventsEnabled": True,
                        "eventsExpiration": 2592000,
                        "eventsListeners": ["jboss-logging"],
                        "enabledEventTypes": [],
                        "adminEventsEnabled": True,
                        "adminEventsDetailsEnabled": False,
                    }
                ),
            )
            b.assistant(
                f"Admin eventlari yoqilgan (tafsilotlarisiz), oddiy eventlar 30 kun saqlanadi. Upgrade'ni eslab qoldim: {uz} kechqurun, 25.0.6."
            )
            probes.append(
                Probe(
                    "next_step",
                    "What upgrade is planned, and when?",
                    f"Upgrading Keycloak to 25.0.6 on {en} evening, after working hours (the operator is not to be touched before that).",
                    (("25.0.6", "upgrade", "yangilash"), (uz, en)),
                )
            )
        else:
            b.user(
                f"{partner} bilan SAML integratsiya bo'yicha: ular yangi IdP metadata faylini hali yuborishmagan, ertaga-indinga yuborishar ekan. Hozircha `{idp}` identity provider'ini qanday turganini ko'rsating."
            )
            b.tool(
                "Identity provider sozlamalari:",
                "bash",
                {
                    "command": f"kcadm.sh get identity-provider/instances/{idp} -r partners --fields alias,providerId,enabled,config"
                },
                _jackson(
                    {
                        "alias": idp,
                        "providerId": "saml",
                        "enabled": True,
                        "config": {
                            "singleSignOnServiceUrl": f"https://sso.{idp.split('-')[0]}.uz/adfs/ls/",
                            "nameIDPolicyFormat": "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
                            "wantAssertionsSigned": "true",
                            "validateSignature": "true",
                            "signingCertificate": "MIIC8DCCAdigAwIBAgIQ" + _b64(rng, 20) + "...",
                        },
                    }
                ),
            )
            b.assistant(
                rng.choice(
                    [
                        f"`{idp}` yoqilgan, imzo tekshiruvi ishlayapti, lekin sertifikati eski. {partner} yangi metadata faylini yuborgach, men uni `{idp}` ga import qilaman va signingCertificate'ni yangilayman.",
                        f"Hozirgi holat shunday. {partner}dan yangi metadata kelgandan keyin uni `{idp}` identity provider'iga import qilib, sertifikatni almashtiraman.",
                    ]
                )
            )
            probes.append(
                Probe(
                    "next_step",
                    f"What is the agent to do once {partner} sends its new SAML IdP metadata?",
                    f"Import the new metadata into the `{idp}` identity provider in the partners realm and replace its signing certificate.",
                    (
                        (idp, "metadata"),
                        ("yuborgach", "kelgandan", "once", "after", "when", "sends", "arrives"),
                    ),
                )
            )

    # ---- decoys ----------------------------------------------------------------------------
    def decoy_hunch() -> None:
        b.user(
            f"{colleague}ning fikricha, ertalab login sekinlashgani Postgres'dan ekan. Tekshirib ko'ring-chi, rostdan ham shundaymi?"
        )
        b.tool(
            "Postgres'dagi faol so'rovlarni ko'raman:",
            "bash",
            {
                "command": "kubectl exec -n iam keycloak-postgresql-0 -- psql -U keycloak -c \"select state, count(*), max(now() - query_start) as longest from pg_stat_activity where datname = 'keycloak' group by state\""
            },
            _psql(
                ["state", "count", "longest"],
                [
                    ["active", "2", "00:00:00.004"],
                    ["idle", str(rng.randint(30, 60)), "00:41:12.883"],
                    ["idle in transaction", "0", ""],
                ],
            ),
        )
        lines = []
        for _ in range(rng.randint(5, 8)):
            lines.append(
                f"2024-06-{day:02d} 08:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d},{rng.randint(100, 999)} WARN  [org.infinispan.CLUSTER] (jgroups-{rng.randint(5, 40)},keycloak-1-{rng.randint(10000, 99999)}) ISPN000094: Received new cluster view for channel ISPN: [keycloak-0-{rng.randint(10000, 99999)}|{rng.randint(10, 40)}] (2) [keycloak-0, keycloak-2]"
            )
        lines.append(
            f"2024-06-{day:02d} 08:{rng.randint(0, 59):02d}:11,402 WARN  [org.keycloak.services] (executor-thread-{rng.randint(1, 60)}) KC-SERVICES0013: Failed authentication: java.util.concurrent.TimeoutException: Replication timeout for keycloak-1"
        )
        lines.sort()
        b.tool(
            "Endi keycloak-1 logidagi ogohlantirishlar:",
            "bash",
            {
                "command": "kubectl logs -n iam keycloak-1 --since=6h | grep -E 'WARN|ERROR' | tail -n 12"
            },
            "\n".join(lines),
        )
        b.assistant(
            f"Postgres aybdor emas: faol so'rovlar millisekundlarda tugayapti. Sekinlik keycloak-1 dan: Infinispan klasteri bo'linib qolgan, replikatsiya timeout'lari bor (pod ertalab qayta ishga tushgan). {colleague}ning taxmini tasdiqlanmadi."
        )

    def decoy_events() -> None:
        b.user(
            "partners realmidagi so'nggi login xatolarini ko'rsating, hamkorlardan shikoyat kelgan."
        )
        ev = []
        for _ in range(rng.randint(4, 5)):
            ev.append(
                {
                    "time": stamp + rng.randint(1, 40_000_000),
                    "clientId": rng.choice(
                        ["partner-portal", "partner-portal", "account-console", f"{client}-api"]
                    ),
                    "userId": fresh(_uuid),
                    "ipAddress": f"195.158.{rng.randint(1, 30)}.{rng.randint(2, 250)}",
                    "error": rng.choice(
                        [
                            "invalid_user_credentials",
                            "invalid_user_credentials",
                            "user_temporarily_disabled",
                            "expired_code",
                        ]
                    ),
                }
            )
        b.tool(
            "Oxirgi LOGIN_ERROR eventlari:",
            "bash",
            {
                "command": "kcadm.sh get events -r partners -q type=LOGIN_ERROR --max 5 --fields time,clientId,userId,ipAddress,error"
            },
            _jackson(ev),
        )
        b.assistant(
            f"{len(ev)} ta xato: {sum(e['error'] == 'invalid_user_credentials' for e in ev)} tasi invalid_user_credentials (noto'g'ri parol), qolganlari bloklangan akkauntlar yoki eskirgan login sahifalari. Tizimli nosozlik ko'rinmayapti — bu foydalanuvchilarning o'z xatolari."
        )

    scenes: list[Callable[[], None]] = [
        scene_user,
        scene_ticket,
        scene_kid,
        scene_client,
        scene_realm,
        scene_decision,
        scene_next,
        decoy_hunch,
        decoy_events,
    ]
    rng.shuffle(scenes)
    for scene in scenes:
        scene()
    for fix in late:
        fix()
    b.user("Rahmat, hozircha shu. Keyingi vazifalarni birma-bir yozaman.")
    b.assistant("Xo'p, tayyorman.")
    opening = b.take()

    # ---- filler: later, unrelated work ------------------------------------------------------
    staff = [
        "Laylo Tursunova",
        "Ulug'bek Xolmatov",
        "Kamola Yusupova",
        "Rustam Sobirov",
        "Zarina Qodirova",
        "Temur Aliyev",
    ]
    groups = ["ombor-smena-2", "buxgalteriya", "it-helpdesk", "haydovchilar", "menejerlar"]
    apps = ["grafana", "gitea", "wiki", "nextcloud", "zabbix"]

    def filler(r: random.Random) -> None:
        pick = r.randrange(7)
        if pick == 0:
            person = r.choice(staff)
            group = r.choice(groups)
            uid, gid = fresh(_uuid), fresh(_uuid)
            b.user(f"{person}ni `{group}` guruhiga qo'shib qo'ying, u o'sha bo'limga o'tdi.")
            b.tool(
                "Foydalanuvchi va guruhni topib, qo'shaman:",
                "bash",
                {
                    "command": f"kcadm.sh update users/{uid}/groups/{gid} -r staff -s realm=staff -s userId={uid} -s groupId={gid} -n && kcadm.sh get users/{uid}/groups -r staff --fields name,path"
                },
                _jackson(
                    [
                        {"name": "xodimlar", "path": "/xodimlar"},
                        {"name": group, "path": f"/xodimlar/{group}"},
                    ]
                ),
            )
            b.assistant(f"{person} endi `{group}` guruhida.")
        elif pick == 1:
            b.user("Podlar qancha resurs ishlatayotganini bir ko'rib chiqing.")
            b.tool(
                "Resurslar:",
                "bash",
                {"command": "kubectl top pod -n iam"},
                _table(
                    ["NAME", "CPU(cores)", "MEMORY(bytes)"],
                    [
                        [f"keycloak-{i}", f"{r.randint(40, 400)}m", f"{r.randint(700, 1500)}Mi"]
                        for i in range(3)
                    ]
                    + [
                        [
                            "keycloak-postgresql-0",
                            f"{r.randint(10, 90)}m",
                            f"{r.randint(200, 600)}Mi",
                        ]
                    ],
                ),
            )
            b.assistant("Yuklama me'yorida, xotira limitidan (2Gi) ancha past.")
        elif pick == 2:
            app = r.choice(apps)
            sid = fresh(_uuid)
            n = r.randint(3, 6)

            def ms(lo: int, hi: int) -> int:
                while True:
                    v = r.randint(lo, hi)
                    if not any(sec in str(v) for sec, _, _ in _KC_IDLE):
                        return v

            rows = [
                {
                    "username": f"{token(r, 1, 'abdfjklmnorstuz')}.{r.choice(['rahimov', 'usmonova', 'tojiyev', 'ergasheva', 'nazarov'])}",
                    "start": ms(stamp - 40_000_000, stamp),
                    "lastAccess": ms(stamp + 1_000_000, stamp + 9_000_000),
                }
                for _ in range(n)
            ]
            b.user(f"`{app}` klientida hozir nechta faol sessiya bor?")
            b.tool(
                "Sessiyalarni olaman:",
                "bash",
                {
                    "command": f"kcadm.sh get clients/{sid}/user-sessions -r staff --fields username,start,lastAccess"
                },
                _jackson(rows),
            )
            b.assistant(f"`{app}` da hozir {n} ta faol sessiya.")
        elif pick == 3:
            app = r.choice(apps)
            sid = fresh(_uuid)
            b.user(
                f"`{app}` klientiga yangi redirect URI qo'shing: https://{app}-new.ipakyoli.uz/*"
            )
            b.tool(
                "Redirect URI'larni yangilayman:",
                "bash",
                {
                    "command": f'kcadm.sh update clients/{sid} -r staff -s \'redirectUris=["https://{app}.ipakyoli.uz/*","https://{app}-new.ipakyoli.uz/*"]\' && kcadm.sh get clients/{sid} -r staff --fields clientId,redirectUris'
                },
                _jackson(
                    {
                        "clientId": app,
                        "redirectUris": [
                            f"https://{app}.ipakyoli.uz/*",
                            f"https://{app}-new.ipakyoli.uz/*",
                        ],
                    }
                ),
            )
            b.assistant("Qo'shildi, eski URI ham saqlanib qoldi.")
        elif pick == 4:
            b.user("Keycloak serverining versiyasi va JVM ma'lumotini ko'rsating.")
            b.tool(
                "Server ma'lumoti:",
                "bash",
                {"command": "kcadm.sh get serverinfo --fields systemInfo"},
                _jackson(
                    {
                        "systemInfo": {
                            "version": "24.0.5",
                            "serverTime": f"{_wday(day + 1)} Jun {day + 1} {_clock(r)} UZT 2024",
                            "uptime": f"{r.randint(2, 12)} days, {r.randint(1, 23)} hours",
                            "javaVersion": "17.0.11",
                            "javaVendor": "Red Hat, Inc.",
                            "osName": "Linux",
                            "fileEncoding": "UTF-8",
                        }
                    }
                ),
            )
            b.assistant("Versiya 24.0.5, Java 17.0.11.")
        elif pick == 5:
            b.user("staff realmida qaysi tillar yoqilgan? Rus tili ham bormi?")
            b.tool(
                "Til sozlamalari:",
                "bash",
                {
                    "command": "kcadm.sh get realms/staff --fields internationalizationEnabled,supportedLocales,defaultLocale"
                },
                _jackson(
                    {
                        "internationalizationEnabled": True,
                        "supportedLocales": ["uz", "ru", "en"],
                        "defaultLocale": "uz",
                    }
                ),
            )
            b.assistant("Ha: o'zbek (asosiy), rus va ingliz tillari yoqilgan.")
        else:
            n = r.randint(2, 30)
            b.user("Oxirgi bir soatda keycloak-0 logida nechta ERROR bor?")
            b.tool(
                "Sanayman:",
                "bash",
                {"command": "kubectl logs -n iam keycloak-0 --since=1h | grep -c ' ERROR '"},
                str(n),
            )
            b.assistant(f"{n} ta; asosan foydalanuvchi xatolari, jiddiy narsa emas.")

    return opening, segments_of(rng, b, segments, filler), probes


# --------------------------------------------------------------------------------------
# asterisk_pbx: Asterisk 20 with PJSIP, MariaDB CDRs and Yealink phones, in Luxembourgish
# --------------------------------------------------------------------------------------

_LB_DAYS: tuple[tuple[str, str], ...] = (
    ("Méindeg", "Monday"),
    ("Dënschdeg", "Tuesday"),
    ("Mëttwoch", "Wednesday"),
    ("Donneschdeg", "Thursday"),
    ("Freideg", "Friday"),
)

_AST_STRATEGIES: tuple[str, ...] = ("rrmemory", "leastrecent", "fewestcalls", "rrordered", "linear")


def _asterisk_pbx(rng: random.Random, b: Builder, segments: int) -> Parts:
    fresh = _Fresh(rng)
    probes: list[Probe] = []
    late: list[Callable[[], None]] = []
    day = rng.randint(3, 26)
    date = f"2024-06-{day:02d}"
    colleague = rng.choice(["Pit", "Jang", "Mett", "Claude", "Romain", "Gaston"])
    boss_title = rng.choice(["d'Madame Weber", "den Här Weber"])
    qname = rng.choice(["steierberodung", "hotline-fr", "lounen", "grenzgänger"])
    conf = rng.choice(["extensions.conf", "extensions_night.conf", "followme.conf"])
    public_ip = f"80.90.{rng.randint(40, 60)}.{rng.randint(2, 250)}"
    trunk_ip = "194.154.192.10"
    exts = [str(200 + i) for i in range(1, 13)]

    def log_ts(on: str = date) -> str:
        return f"[{on} {_clock(rng)}]"

    # ---- opening -------------------------------------------------------------------
    b.user(
        rng.choice(
            [
                "Moien! Mir hunn haut e puer Saachen op eiser Telefonanlag ze erleedegen. Et ass en Asterisk 20 um Server pbx01 (Debian 12), mat PJSIP; den Trunk geet op POST Luxembourg, d'Telefoner um Bureau sinn Yealink. Du hues root-Zougang iwwer SSH. Kuck dir w.e.g. fir d'éischt un, wéi et mat dem Trunk an den Apparater ausgesäit.",
                "Salut! Haut musse mer eis Asterisk-Anlag e bëssen op Vorderman bréngen. Server ass pbx01 (Debian 12, Asterisk 20, PJSIP), Trunk bei der POST, Telefoner vu Yealink. SSH als root geet. Maach w.e.g. als éischt e klengen Iwwerbléck: Trunk, Kontakter, Versioun.",
            ]
        )
    )
    b.tool(
        "Ok, ech kucken als éischt d'Versioun, d'Registréierung vum Trunk an déi registréiert Kontakter. Versioun a Registréierung:",
        "bash",
        {"command": "asterisk -rx 'core show version' && asterisk -rx 'pjsip show registrations'"},
        "\n".join(
            [
                f"Asterisk 20.8.1 built by root @ pbx01 on a x86_64 running Linux on 2024-05-{rng.randint(10, 28)} 08:11:03 UTC",
                "",
                " <Registration/ServerURI..............................>  <Auth....................>  <Status.......>",
                "==========================================================================================",
                "",
                f" post-trunk/sip:sip.post.lu                               post-trunk-auth             Registered        (exp. {rng.randint(100, 299)}s)",
                "",
                "Objects found: 1",
            ]
        ),
    )
    contacts = []
    for ext in exts[:9]:
        contacts.append(
            f"  Contact:  {ext}/sip:{ext}@192.168.20.{int(ext) - 170}:{rng.choice(['5060', '5062', '5064'])};transport=udp {hexits(rng, 10)} Avail      {rng.randint(3, 40)}.{rng.randint(100, 999)}"
        )
    contacts.append(
        f"  Contact:  post-trunk/sip:sip.post.lu                    {hexits(rng, 10)} Avail      {rng.randint(8, 25)}.{rng.randint(100, 999)}"
    )
    b.tool(
        "Kontakter:",
        "bash",
        {"command": "asterisk -rx 'pjsip show contacts'"},
        "\n".join(
            [
                "  Contact:  <Aor/ContactUri..........................> <Hash....> <Status> <RTT(ms)..>",
                "==========================================================================================",
                "",
                *contacts,
                "",
                f"Objects found: {len(contacts)}",
            ]
        ),
    )
    b.assistant(
        "Den Trunk bei der POST ass registréiert, an néng Extensiounen (201 bis 209) sinn online, all mat gudder Äntwertzäit. Asterisk leeft an der Versioun 20.8.1. Wat steet als éischt un?"
    )

    # ---- identifier: the CDR uniqueid of the dropped call -------------------------------
    def scene_cdr() -> None:
        who, her, hers = rng.choice(
            [
                ("d'Madame Schmit vun der Bäckerei Hoffmann", "Hir", "hiren"),
                ("den Här Klein vum Garage Klein", "Seng", "säin"),
                ("d'Madame Reuter vun der Apdikt Reuter", "Hir", "hiren"),
            ]
        )
        num = f"+352621{rng.randint(100000, 999999)}"
        hour = rng.randint(8, 10)
        cut = rng.randint(24, 41)
        rows: list[list[str]] = []

        def call(h: int, m: int, sec: int) -> tuple[str, str]:
            epoch = _epoch(day, h, m, sec)
            uid = fresh(lambda r: f"{epoch}.{r.randint(100, 9999)}")
            return f"{date} {h:02d}:{m:02d}:{sec:02d}", uid

        m0, s0 = rng.randint(10, 20), rng.randint(10, 50)
        when, dropped = call(hour, m0, s0)
        rows.append(
            [
                when,
                num,
                "s",
                "PJSIP/202-0000" + hexits(rng, 4),
                str(cut + 6),
                str(cut),
                "ANSWERED",
                dropped,
            ]
        )
        when2, again = call(hour, rng.randint(25, 40), rng.randint(10, 59))
        rows.append(
            [
                when2,
                num,
                "s",
                "PJSIP/202-0000" + hexits(rng, 4),
                str(rng.randint(300, 600)),
                str(rng.randint(280, 290)),
                "ANSWERED",
                again,
            ]
        )
        for _ in range(6):
            other = f"+352{rng.choice(['691', '661', '26', '27'])}{rng.randint(100000, 999999)}"
            disp = rng.choice(["ANSWERED", "ANSWERED", "NO ANSWER", "BUSY"])
            bill = str(rng.randint(20, 700)) if disp == "ANSWERED" else "0"
            ow, oid = call(rng.randint(8, 11), rng.randint(0, 59), rng.randint(10, 59))
            rows.append(
                [
                    ow,
                    other,
                    "s",
                    f"PJSIP/{rng.choice(exts[:9])}-0000{hexits(rng, 4)}",
                    str(int(bill) + rng.randint(3, 15)),
                    bill,
                    disp,
                    oid,
                ]
            )
        rows.sort(key=lambda row: row[0])
        b.user(
            rng.choice(
                [
                    f"{who[0].upper()}{who[1:]} huet haut de Moien géint {hour} Auer ugeruff, an d'Gespréich ass no ongeféier enger hallwer Minutt einfach ofgebrach. Duerno gouf nach eng Kéier ugeruff, an dat Gespréich war ok. {her} Nummer ass {num}. Kanns du dat am CDR fannen a kucken, firwat et ofgebrach ass?",
                    f"Kleng Reklamatioun: {who} seet, {hers} Uruff vu {num} wier haut de Moien (ëm {hour} Auer ronderëm) no gutt drësseg Sekonnen ofgebrach. Den zweeten Uruff duerno ass gaangen. Sich w.e.g. am CDR no deem ofgebrachenen Uruff.",
                ]
            )
        )
        b.tool(
            "Ech froen d'CDR-Datebank fir d'Uriff vun haut de Moien of:",
            "bash",
            {
                "command": "mysql asteriskcdrdb -e \"SELECT calldate, src, dst, dstchannel, duration, billsec, disposition, uniqueid FROM cdr WHERE calldate >= CURDATE() AND dcontext = 'from-post' ORDER BY calldate\""
            },
            _boxed(
                [
                    "calldate",
                    "src",
                    "dst",
                    "dstchannel",
                    "duration",
                    "billsec",
                    "disposition",
                    "uniqueid",
                ],
                rows,
            ),
        )
        t0 = _epoch(day, hour, m0, s0)

        def at(offset: int) -> str:
            t = t0 + offset - _epoch(day, 0, 0, 0)
            return f"[{date} {t // 3600:02d}:{t % 3600 // 60:02d}:{t % 60:02d}]"

        chan = f"PJSIP/post-trunk-0000{hexits(rng, 4)}"
        cid = f"C-0000{hexits(rng, 4)}"
        b.tool(
            f"D'Uriff vu {num}: een mat {cut} Sekonnen, een zweeten dee méi laang war. Ech kucken am Log, wat beim kuerzen geschitt ass:",
            "bash",
            {"command": f"grep -F '{dropped}' /var/log/asterisk/full | tail -n 8"},
            "\n".join(
                [
                    f'{at(0)} VERBOSE[{rng.randint(2000, 9000)}][{cid}] pbx.c: Executing [s@from-post:1] NoOp("{chan}", "Incoming call {num} uniqueid={dropped}") in new stack',
                    f"{at(0)} VERBOSE[{rng.randint(2000, 9000)}][{cid}] app_queue.c: Called PJSIP/202",
                    f"{at(6)} VERBOSE[{rng.randint(2000, 9000)}][{cid}] app_queue.c: PJSIP/202-0000{hexits(rng, 4)} answered {chan}",
                    f"{at(6 + cut)} WARNING[{rng.randint(2000, 9000)}][{cid}] res_rtp_asterisk.c: RTP Read too short (uniqueid {dropped}); no RTP from {trunk_ip}:{rng.randint(10000, 20000)} for 30 seconds",
                    f"{at(6 + cut)} NOTICE[{rng.randint(2000, 9000)}][{cid}] chan_pjsip.c: Disconnecting call '{chan}' for lack of RTP activity in 30 seconds",
                    f"{at(6 + cut)} VERBOSE[{rng.randint(2000, 9000)}][{cid}] app_queue.c: Hangup cause: 38 (Network out of order)",
                ]
            ),
        )
        b.assistant(
            rng.choice(
                [
                    f"Fonnt: den ofgebrachenen Uruff huet d'uniqueid {dropped} ({cut} Sekonnen billsec, Apparat 202). Asterisk huet d'Gespréich ofgebrach, well 30 Sekonnen laang keen RTP méi vum POST-Trunk koum (rtp_timeout, Hangup cause 38). Dat zweet Uruff vun där Nummer war normal.",
                    f"Et ass den Uruff mat der uniqueid {dropped}: no {cut} Sekonnen huet Asterisk en ofgebrach, well vum Trunk ({trunk_ip}) keng RTP-Paketer méi ukomm sinn. Also e Problem um Wee vun der POST, net um Apparat 202.",
                ]
            )
        )
        b.user("Merci. Dat mellen ech der POST, mat där ID.")
        b.assistant("Ok. Wann se méi Detailer brauchen, hunn ech de Log-Auszuch parat.")
        probes.append(
            Probe(
                "identifier",
                f"What is the Asterisk uniqueid (CDR) of the call from {num} that broke off after about half a minute this morning?",
                dropped,
                ((dropped,),),
            )
        )

    # ---- identifier: the MAC of the new phone ------------------------------------------------
    def scene_mac() -> None:
        person = rng.choice(
            ["d'Anne Becker", "de Luc Muller", "d'Sophie Wagner", "de Tom Hoffmann"]
        )
        ext = str(rng.randint(210, 219))
        ouis = ["80:5e:c0", "24:9a:d8", "44:db:d2", "80:5e:c0", "24:9a:d8"]

        def mac(r: random.Random) -> str:
            return r.choice(ouis) + ":" + ":".join(hexits(r, 2) for _ in range(3))

        macs = [fresh(mac) for _ in range(8)]
        new_mac = macs[0]
        leases = [
            [new_mac, "192.168.20.44", "SIP-T54W"],
            [macs[1], "192.168.20.37", "SIP-T54W"],
            [macs[2], "192.168.20.31", "SIP-T46U"],
            [macs[3], "192.168.20.33", "SIP-T46U"],
            [macs[4], "192.168.20.35", "SIP-T46U"],
            [macs[5], "192.168.20.52", "W73P"],
            [
                "3c:22:fb:" + ":".join(hexits(rng, 2) for _ in range(3)),
                "192.168.20.60",
                "MacBook-Air",
            ],
            [macs[6], "192.168.20.39", "SIP-T33G"],
        ]
        rng.shuffle(leases)
        exp = 1718000000 + day * 86400
        b.user(
            rng.choice(
                [
                    f"Nächst Saach: {person} huet en neien Telefon um Bureau kritt, e Yealink T54W, deen kritt d'Extensioun {ext}. E steet schonn un, ass awer nach net konfiguréiert. Fann en w.e.g. an den DHCP-Leases a provisionéier en.",
                    f"Fir {person}: neien T54W, gëtt d'Extensioun {ext}. D'Apparat ass ugeschloss a kritt eng IP, mee nach keng Konfiguratioun. Sich d'MAC-Adress eraus a provisionéier e w.e.g.",
                ]
            )
        )
        b.tool(
            "D'DHCP-Leases vum dnsmasq:",
            "bash",
            {"command": "cat /var/lib/misc/dnsmasq.leases"},
            "\n".join(
                f"{exp + rng.randint(0, 80000)} {m} {ip} {host} 01:{m}" for m, ip, host in leases
            ),
        )
        b.tool(
            "Et ginn zwee T54W. Ech kucken, wéi eng IP schonn als Extensioun registréiert ass:",
            "bash",
            {"command": "asterisk -rx 'pjsip show contacts' | grep -E '192.168.20.(37|44)'"},
            f"  Contact:  207/sip:207@192.168.20.37:5062;transport=udp {hexits(rng, 10)} Avail      {rng.randint(5, 30)}.{rng.randint(100, 999)}",
        )
        b.tool(
            f"192.168.20.37 ass schonn d'Extensioun 207, also ass deen neien Apparat deen op 192.168.20.44. Ech provisionéieren en als {ext}:",
            "bash",
            {
                "command": f"/usr/local/sbin/yealink-provision --mac {new_mac} --ext {ext} --model T54W --template t54w.tmpl && asterisk -rx 'pjsip reload'"
            },
            "\n".join(
                [
                    f"[provision] phone {new_mac} -> ext {ext} (model T54W, template t54w.tmpl)",
                    f"[provision] endpoint {ext} / aor {ext} / auth {ext}-auth appended to pjsip_phones.conf",
                    "[provision] config rendered, served via https://prov.fiduciaire-weber.lu/",
                    "[provision] SIP NOTIFY check-sync sent to 192.168.20.44 -> 200 OK",
                    "Module 'res_pjsip.so' reloaded successfully.",
                ]
            ),
        )
        b.assistant(
            rng.choice(
                [
                    f"Gemaach. Deen neien T54W huet d'MAC-Adress {new_mac} (IP 192.168.20.44); deen aneren T54W an de Leases ass schonn d'Extensioun 207. D'Telefon ass elo als {ext} provisionéiert an huet d'Konfiguratioun no engem check-sync gelueden.",
                    f"D'Apparat fir {person} ass {new_mac} op 192.168.20.44 — net ze verwiessele mam T54W op .37, dat ass 207. Provisionéiert als Extensioun {ext}, de Reboot ass duerch.",
                ]
            )
        )
        probes.append(
            Probe(
                "identifier",
                f"What is the MAC address of the new Yealink T54W phone that was provisioned as extension {ext}?",
                new_mac,
                ((new_mac,),),
            )
        )

    # ---- identifier: the SIP Call-ID of the rejected INVITE -----------------------------------
    def scene_callid() -> None:
        fr = f"0033387{rng.randint(100000, 999999)}"
        mobile = f"00352691{rng.randint(100000, 999999)}"
        bad, good, opt = fresh(_uuid), fresh(_uuid), fresh(_uuid)
        before = f"2024-06-{day - 1:02d}"
        b.user(
            rng.choice(
                [
                    f"Eis Assistentin huet gëschter de Mëtteg probéiert, e Client a Frankräich unzeruffen ({fr}), an et koum just direkt e Besetztzeechen. Bannen am Land telefonéiere geet. Kanns du am SIP-Log kucken, wat do lass war?",
                    f"Uriff a Frankräich ginn net: gëschter Mëtteg op {fr} — direkt besat. Lëtzebuerger Nummere ginn ouni Problem. Kuck w.e.g. am PJSIP-Log no.",
                ]
            )
        )

        def stamp(h: int, m: int, sec: int) -> str:
            return f"[{before} {h:02d}:{m:02d}:{sec:02d}]"

        def invite(when: str, num: str, callid: str, cseq: int) -> list[str]:
            return [
                f"{when} VERBOSE[{rng.randint(2000, 9000)}] res_pjsip_logger.c: <--- Transmitting SIP request ({rng.randint(1000, 1300)} bytes) to UDP:{trunk_ip}:5060 --->",
                f"INVITE sip:{num}@sip.post.lu SIP/2.0",
                f"Via: SIP/2.0/UDP {public_ip}:5060;rport;branch=z9hG4bKPj{fresh(_uuid)}",
                f'From: "Fiduciaire Weber" <sip:+35227{rng.randint(100000, 999999)}@sip.post.lu>;tag={fresh(_uuid)}',
                f"To: <sip:{num}@sip.post.lu>",
                f"Call-ID: {callid}",
                f"CSeq: {cseq} INVITE",
                "User-Agent: Asterisk PBX 20.8.1",
            ]

        def response(when: str, code: str, callid: str, cseq: int, extra: str) -> list[str]:
            return [
                f"{when} VERBOSE[{rng.randint(2000, 9000)}] res_pjsip_logger.c: <--- Received SIP response ({rng.randint(400, 900)} bytes) from UDP:{trunk_ip}:5060 --->",
                f"SIP/2.0 {code}",
                f"Call-ID: {callid}",
                f"CSeq: {cseq} INVITE",
                *([extra] if extra else []),
            ]

        c1, c2, c3 = (rng.randint(10000, 40000) for _ in range(3))
        h1, h2 = rng.randint(12, 13), rng.randint(14, 15)
        m1, m2 = rng.randint(0, 50), rng.randint(0, 50)
        log = [
            f"{stamp(h1, m1, rng.randint(0, 9))} VERBOSE[{rng.randint(2000, 9000)}] res_pjsip_logger.c: <--- Transmitting SIP request (512 bytes) to UDP:{trunk_ip}:5060 --->",
            "OPTIONS sip:sip.post.lu SIP/2.0",
            f"Call-ID: {opt}",
            f"CSeq: {c3} OPTIONS",
            *invite(stamp(h1, m1 + 2, 11), mobile, good, c1),
            *response(stamp(h1, m1 + 2, 14), "200 OK", good, c1, ""),
            *invite(stamp(h2, m2, 40), fr, bad, c2),
            *response(
                stamp(h2, m2, 41),
                "403 Forbidden",
                bad,
                c2,
                'Reason: Q.850;cause=21;text="International calls barred for this account"',
            ),
        ]
        b.tool(
            "Ech sichen d'INVITEen vu gëschter Mëtteg an hir Äntwerten:",
            "bash",
            {
                "command": "grep -A7 -E 'Transmitting SIP request|Received SIP response' /var/log/asterisk/full.1 | grep -E '^\\[|^(INVITE|OPTIONS|SIP/2.0|Via|From|To|Call-ID|CSeq|User-Agent|Reason)' | sed -n '1,40p'"
            },
            "\n".join(log),
        )
        b.assistant(
            rng.choice(
                [
                    f'D\'Ursaach ass kloer: d\'POST refuséiert den INVITE op {fr} mat "403 Forbidden", Reason "International calls barred for this account". Dat ass kee Problem op eiser Säit, mä eng Spär um Kont. D\'Call-ID vum refuséierten INVITE ass {bad} — déi brauch de Support vun der POST. Den Uruff op déi Lëtzebuerger Handysnummer (Call-ID {good}) ass normal mat 200 OK duerchgaangen.',
                    f"Den Trunk äntwert op den INVITE a Frankräich mat 403 (International calls barred). Fir d'Reklamatioun bei der POST: Call-ID {bad}. Inland-Uriff wéi dee mat der Call-ID {good} ginn duerch.",
                ]
            )
        )
        b.user(
            rng.choice(
                [
                    "Ok, ech ruffen d'POST un a ginn hinnen déi Call-ID.",
                    "Gutt, ech maachen en Ticket bei der POST op, mat der Call-ID.",
                ]
            )
        )
        b.assistant("Ok, de Log-Auszuch vum refuséierten INVITE hunn ech parat, wann se e froen.")
        probes.append(
            Probe(
                "identifier",
                "What is the SIP Call-ID of the outbound INVITE to the French number that the POST trunk rejected with 403 Forbidden?",
                bad,
                ((bad,),),
            )
        )

    # ---- artifact: the new queue ---------------------------------------------------------
    def scene_queue() -> None:
        how = rng.randrange(3)
        members = sorted(rng.sample(exts[1:9], 3))
        b.user(
            rng.choice(
                [
                    f"Mir brauchen eng nei Schlaang `{qname}` mat den Extensiounen {', '.join(members)}. Strategie ringall, Waardmusek wéi bei der Schlaang empfang. D'Schlaang empfang selwer w.e.g. net upaken.",
                    f"Maach w.e.g. eng nei Queue `{qname}` op, Memberen {' / '.join(members)}, ringall, selwecht Musek wéi empfang. Un der empfang-Schlaang näischt änneren!",
                ]
            )
        )
        block = "\n".join(
            [
                f"[{qname}]",
                "strategy = ringall",
                "musicclass = default",
                "timeout = 20",
                "wrapuptime = 10",
                *[f"member => PJSIP/{m}" for m in members],
            ]
        )
        b.tool(
            "Ech hänken d'Definitioun un queues.conf un a lueden d'Schlaangen nei:",
            "bash",
            {
                "command": f"cat >> /etc/asterisk/queues.conf <<'EOF'\n\n{block}\nEOF\nasterisk -rx 'queue reload all'"
            },
            "(no output)",
        )
        if how in (0, 2):
            b.tool(
                "Kontroll:",
                "bash",
                {"command": f"asterisk -rx 'queue show {qname}'"},
                "\n".join(
                    [
                        f"{qname} has 0 calls (max unlimited) in 'ringall' strategy (0s holdtime, 0s talktime), W:0, C:0, A:0, SL:0.0%, SL2:0.0% within 0s",
                        "   Members: ",
                        *[
                            f"      PJSIP/{m} (ringinuse disabled) (Not in use) has taken no calls yet"
                            for m in members
                        ],
                        "   No Callers",
                    ]
                ),
            )
        if how == 0:
            b.assistant("Fäerdeg.")
        elif how == 1:
            b.assistant(
                f"D'Schlaang `{qname}` ass ugeluecht an aktiv: ringall, Memberen {', '.join(members)}, Musek default. D'Schlaang empfang hunn ech net ugepaakt."
            )
        else:
            b.assistant(
                f"Wéi een gesäit, ass déi nei Schlaang `{qname}` elo do, mat den dräi Memberen, all fräi. empfang ass onverännert."
            )
        probes.append(
            Probe(
                "artifact",
                f"What was done with the `{qname}` queue?",
                f"It was newly created in queues.conf (ringall, members {', '.join(members)}) and loaded; the empfang queue was left alone.",
                (
                    (qname,),
                    (
                        "created",
                        "new",
                        "set up",
                        "added",
                        "ugeluecht",
                        "ageriicht",
                        "erstallt",
                        "nei",
                    ),
                ),
            )
        )

    # ---- artifact: the config file rolled back ---------------------------------------------
    def scene_revert() -> None:
        how = rng.randrange(3)
        hashes = [fresh(lambda r: hexits(r, 7)) for _ in range(6)]
        bad = hashes[1]
        log_rows = [
            f"{hashes[0]} voicemail.conf: neien E-Mail-Text fir d'Voicemail ({colleague})",
            f"{bad} {conf}: Nuetsmodus iwwer GotoIfTime ëmgebaut ({colleague})",
            f"{hashes[2]} pjsip_phones.conf: ext 209 codec g722 (admin)",
            f"{hashes[3]} {conf}: Feierdeeg 2024 ergänzt (admin)",
            f"{hashes[4]} queues.conf: empfang timeout 20s (admin)",
        ]
        b.user(
            rng.choice(
                [
                    f"{colleague} huet gëschter an der {conf} eppes geännert, an zënterhier geet den Nuetsmodus net méi: owes schellen d'Telefoner am Bureau amplaz datt d'Leit op d'Mailbox kommen. Setz w.e.g. just déi Ännerung zréck. voicemail.conf huet hien och geännert, dat ass awer richteg, dat bleift sou.",
                    f"Zënter dem {colleague} senger Ännerung gëschter an der {conf} funktionéiert den Nuetsmodus net méi. Maach déi Ännerung réckgängeg, mä looss seng Ännerung un der voicemail.conf wéi se ass.",
                ]
            )
        )
        b.tool(
            "Ech kucken d'Git-Historique vun /etc/asterisk:",
            "bash",
            {"command": "git -C /etc/asterisk log --oneline --format='%h %s (%an)' -5"},
            "\n".join(log_rows),
        )
        new = fresh(lambda r: hexits(r, 7))
        b.tool(
            f"D'Ännerung un der {conf} ass de Commit {bad}. Ech maachen e revert an lueden den Dialplan nei:",
            "bash",
            {
                "command": f"git -C /etc/asterisk revert --no-edit {bad} && asterisk -rx 'dialplan reload'"
            },
            "\n".join(
                [
                    f'[main {new}] Revert "{conf}: Nuetsmodus iwwer GotoIfTime ëmgebaut"',
                    f" 1 file changed, {rng.randint(3, 9)} insertions(+), {rng.randint(3, 12)} deletions(-)",
                    "Dialplan reloaded.",
                ]
                if how in (0, 2)
                else ["Dialplan reloaded."]
            ),
        )
        if how in (0, 2):
            b.tool(
                "Test vum Nuetsmodus (Simulatioun fir 21:00):",
                "bash",
                {"command": "asterisk -rx 'dialplan show s@from-post' | head -n 8"},
                "\n".join(
                    [
                        "[ Context 'from-post' created by 'pbx_config' ]",
                        "  's' =>            1. NoOp(Incoming call ${CALLERID(num)} uniqueid=${UNIQUEID}) [extensions.conf:12]",
                        "                    2. GotoIfTime(08:00-18:00,mon-fri,*,*?tag:open) [extensions.conf:13]",
                        "                    3. GotoIf(${DB_EXISTS(feierdag/${STRFTIME(,,%Y%m%d)})}?closed) [extensions.conf:14]",
                        "                    4. Voicemail(200@default,u)      [extensions.conf:15]",
                        "     [open]         5. Queue(empfang,t,,,60)         [extensions.conf:16]",
                        "-= 1 extension (5 priorities) in 1 context. =-",
                    ]
                ),
            )
        if how == 0:
            b.assistant("Gemaach; Dialplan ass nei gelueden.")
        elif how == 1:
            b.assistant(
                f"D'Ännerung vum {colleague} un der {conf} ass zréckgesat (git revert vum Commit {bad}), den Dialplan ass nei gelueden, an ausserhalb vun den Ëffnungszäite geet et erëm op d'Mailbox. voicemail.conf hunn ech net ugepaakt."
            )
        else:
            b.assistant(
                f"De Revert ass drann: {conf} ass erëm op dem Stand vu virdrun, owes geet den Uruff nees op d'Voicemail. Dem {colleague} seng voicemail.conf-Ännerung bleift."
            )
        probes.append(
            Probe(
                "artifact",
                f"What was done to {colleague}'s change in `{conf}`?",
                f"It was reverted (git revert of commit {bad}) and the dialplan reloaded, so night mode works again; the voicemail.conf change was kept.",
                (
                    (conf,),
                    (
                        "reverted",
                        "revert",
                        "rolled back",
                        "restored",
                        "undone",
                        "zréckgesat",
                        "réckgängeg",
                        "restauréiert",
                    ),
                ),
            )
        )

    # ---- decision: strategy of the empfang queue -----------------------------------------------
    def scene_decision() -> None:
        mode = rng.choice(_DECISION_MODES)
        final, other = rng.sample(_AST_STRATEGIES, 2)

        def apply(v: str) -> None:
            b.tool(
                f"Ech setzen d'Strategie vun empfang op {v}:",
                "bash",
                {
                    "command": f"sed -i '/^\\[empfang\\]/,/^\\[/ s/^strategy = .*/strategy = {v}/' /etc/asterisk/queues.conf && asterisk -rx 'queue reload all' && asterisk -rx 'queue show empfang' | head -n 1"
                },
                f"empfang has 0 calls (max unlimited) in '{v}' strategy ({rng.randint(5, 30)}s holdtime, {rng.randint(60, 240)}s talktime), W:0, C:{rng.randint(20, 90)}, A:{rng.randint(0, 6)}, SL:{rng.randint(80, 99)}.0%, SL2:{rng.randint(80, 99)}.0% within 20s",
            )

        intro = "Bei der Schlaang empfang schellen am Moment all d'Telefoner gläichzäiteg (ringall), dat stéiert am Sekretariat immens."
        if mode == "dictated":
            b.user(
                f"{intro} Stell d'Strategie op {final}, well dann d'Uriff méi gerecht op d'Leit verdeelt ginn an net jiddereen all Kéier gestéiert gëtt."
            )
            apply(final)
            b.assistant(f"Gemaach, empfang leeft elo mat {final}.")
        elif mode == "approved":
            b.user(f"{intro} Wat géifs du virschloen?")
            b.assistant(
                f"Ech géif {final} huelen: et schellt just een Apparat, an d'Uriff ginn iwwer d'Leit verdeelt. Soll ech dat sou astellen?"
            )
            b.user("Jo, maach.")
            apply(final)
            b.assistant(f"Ass ageriicht: Strategie {final}.")
        elif mode == "changed":
            b.user(f"{intro} Wat mengs du?")
            b.assistant(f"Ech géif {other} virschloen. Ass dat an der Rei?")
            b.user(
                f"Neen, huel léiwer {final} — esou hu mir et och an der aler Anlag gehat, d'Leit sinn dat gewinnt."
            )
            apply(final)
            b.assistant(f"Ok, net {other}, mee {final}; ass ageriicht.")
        elif mode == "corrected":
            b.user(f"{intro} Setz d'Strategie w.e.g. op {other}.")
            apply(other)
            b.assistant(f"Gemaach: {other}.")

            def correction() -> None:
                b.user(
                    f"Pardon, wéinst der Schlaang empfang: ech hat mech vertan. Net {other}, mä {final} soll et sinn — {boss_title} wëll dat esou. Änner dat w.e.g. nach."
                )
                apply(final)
                b.assistant(
                    f"Verbessert: empfang leeft elo mat {final}, {other} ass net méi aktiv."
                )

            late.append(correction)
        elif mode == "relayed":
            b.user(
                f"{intro} {boss_title.capitalize()} huet gesot, mir sollen d'Strategie {final} huelen, sou wéi an hirer viregter Firma. Maach dat w.e.g."
            )
            apply(final)
            b.assistant(f"Sou wéi {boss_title} et wollt: empfang ass op {final}.")
        else:
            b.user(intro + " Dat muss anescht ginn.")
            b.assistant(
                f"Wéi eng Strategie wëlls du: {other}, {final}, oder eppes anescht? Ech änneren dann just empfang."
            )
            b.user(f"{final}.")
            apply(final)
            b.assistant(f"Ass ageriicht: empfang mat {final}.")
        probes.append(
            Probe(
                "decision",
                "Which ring strategy was settled on for the empfang queue?",
                final,
                ((final,), ("strategy", "strategie", "empfang", "queue", "schlaang")),
            )
        )

    # ---- next step --------------------------------------------------------------------------
    def scene_next() -> None:
        variant = rng.randrange(3)
        if variant == 0:
            lb, en = rng.choice(_LB_DAYS)
            b.user(
                f"Iwwregens, fir deng Agenda: {lb} de Moien, ier d'Leit kommen, maache mir de Firmware-Update vun den T54W-Telefoner op 96.86.0.75, dat hunn ech mam Yealink-Support esou ofgemaach. Haut nach net. Kanns du mer elo just soen, wéi eng Firmware déi T54W de Moment hunn?"
            )
            b.tool(
                "User-Agents vun de registréierten Apparater:",
                "bash",
                {
                    "command": "asterisk -rx 'pjsip show contacts' >/dev/null; grep -h 'User-Agent: Yealink' /var/log/asterisk/full | sort | uniq -c"
                },
                "\n".join(
                    [
                        f"     {rng.randint(20, 90)} User-Agent: Yealink SIP-T46U 108.86.0.90",
                        f"     {rng.randint(20, 90)} User-Agent: Yealink SIP-T54W 96.86.0.70",
                        f"     {rng.randint(5, 20)} User-Agent: Yealink SIP-T33G 124.86.0.40",
                        f"      {rng.randint(2, 9)} User-Agent: Yealink W73P 146.85.0.20",
                    ]
                ),
            )
            b.assistant(
                f"D'T54W sinn op 96.86.0.70. Den Update op 96.86.0.75 hunn ech mer fir {lb} de Moien notéiert."
            )
            probes.append(
                Probe(
                    "next_step",
                    "What phone work is scheduled, and when?",
                    f"The firmware update of the Yealink T54W phones to 96.86.0.75, on {en} morning before staff arrive.",
                    (("firmware", "96.86.0.75"), (lb, en)),
                )
            )
        elif variant == 1:
            b.user(
                "Nach eppes: den TLS-Zertifikat vu pbx.fiduciaire-weber.lu leeft geschwë of. Dat muss bis Enn vum Mount erneiert sinn, soss funktionéiert d'Provisionéierung vun den Telefoner net méi. Kuck mer elo just, wéini e genee ofleeft."
            )
            b.tool(
                "Zertifikat:",
                "bash",
                {
                    "command": "openssl x509 -in /etc/asterisk/keys/pbx.fiduciaire-weber.lu.crt -noout -subject -issuer -enddate"
                },
                "\n".join(
                    [
                        "subject=CN = pbx.fiduciaire-weber.lu",
                        "issuer=C = US, O = Let's Encrypt, CN = R11",
                        f"notAfter=Jul  {rng.randint(1, 9)} 11:{rng.randint(10, 59)}:{rng.randint(10, 59)} 2024 GMT",
                    ]
                ),
            )
            b.assistant(
                "Hie leeft Ufank Juli of. Notéiert: Zertifikat vu pbx.fiduciaire-weber.lu bis Enn vum Mount erneieren."
            )
            probes.append(
                Probe(
                    "next_step",
                    "What has to be done by the end of the month?",
                    "Renew the TLS certificate of pbx.fiduciaire-weber.lu (otherwise phone provisioning stops working).",
                    (
                        ("certificate", "zertifikat", "tls", "cert"),
                        ("enn vum mount", "end of month", "end of the month", "month", "mount"),
                    ),
                )
            )
        else:
            block = f"27 86 {rng.randint(10, 99)}"
            b.user(
                f"D'POST huet eis en neie Block vun Direktwahlnummeren ({block} 00 bis 99) versprach, mee nach net confirméiert. Kanns du mer weisen, wéi déi aktuell inbound-Routen ausgesinn?"
            )
            b.tool(
                "Aktuell Inbound-Routen:",
                "bash",
                {"command": "asterisk -rx 'dialplan show from-post' | grep -E \"^  '\""},
                "\n".join(
                    [
                        "  's' =>            1. NoOp(Incoming call ${CALLERID(num)} uniqueid=${UNIQUEID}) [extensions.conf:12]",
                        "  '_+352271122XX' => 1. Goto(internal,${EXTEN:-2},1) [extensions.conf:31]",
                        "  '+35227112200' =>  1. Goto(from-post,s,1)        [extensions.conf:35]",
                    ]
                ),
            )
            b.assistant(
                rng.choice(
                    [
                        f"Aktuell geet just de Block 27 11 22 XX eran. Soubal d'POST den neie Block {block} confirméiert, setzen ech déi inbound-Routen dofir an extensions.conf op.",
                        f"Et gëtt bis elo nëmmen eng Route fir 27 11 22 XX. Wann d'POST den neie Block {block} bestätegt, leeën ech d'DID-Routen dofir un.",
                    ]
                )
            )
            probes.append(
                Probe(
                    "next_step",
                    "What will the agent do once POST confirms the new block of direct-dial numbers?",
                    f"Add inbound (DID) routes for the new {block} block in extensions.conf.",
                    (
                        ("inbound", "did", "route", block),
                        (
                            "confirm",
                            "bestätegt",
                            "confirméiert",
                            "once",
                            "after",
                            "when",
                            "wann",
                            "soubal",
                        ),
                    ),
                )
            )

    # ---- decoys ------------------------------------------------------------------------------
    def decoy_hunch() -> None:
        b.user(
            f"{colleague} mengt, d'Passwuert vum POST-Trunk wier ofgelaf, well dee Moien e puer Uriff net erakoum. Kanns du dat iwwerpréiwen?"
        )
        lines = []
        for _ in range(rng.randint(4, 6)):
            lines.append(
                f"{log_ts()} VERBOSE[{rng.randint(2000, 9000)}] res_pjsip_outbound_registration.c: Outbound registration to 'sip:sip.post.lu' with client 'sip:+35227112200@sip.post.lu' now Registered, expires {rng.choice(['300', '600'])}"
            )
        lines.append(
            f"{log_ts()} WARNING[{rng.randint(2000, 9000)}] res_pjsip_session.c: Endpoint 'anonymous': Call from '{rng.randint(100, 999)}' (UDP:{rng.randint(1, 223)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}:5060) to extension '0046{rng.randint(10000000, 99999999)}' rejected because extension not found in context 'default'."
        )
        lines.sort()
        b.tool(
            "Registréierungen vun de leschten 24 Stonnen:",
            "bash",
            {
                "command": "grep -E 'outbound_registration|rejected because' /var/log/asterisk/full | tail -n 8"
            },
            "\n".join(lines),
        )
        b.assistant(
            f"Dat stëmmt net: den Trunk war déi ganzen Zäit 'Registered', all Erneierung huet geklappt — d'Passwuert ass also gutt. Am Log sinn nëmmen SIP-Scanner vu bausse mat refuséierten Uriff op auslännesch Nummeren. Dem {colleague} seng Vermutung bestätegt sech net."
        )

    def decoy_channels() -> None:
        b.user("Wéi vill Gespréicher lafen elo grad?")
        rows = []
        for _ in range(rng.randint(3, 5)):
            ext = rng.choice(exts[:9])
            rows.append(
                f"PJSIP/{ext}-0000{hexits(rng, 4)}!internal!+352{rng.randint(20000000, 69999999)}!1!Up!Dial!PJSIP/+352@post-trunk,60!{ext}!!!3!{rng.randint(10, 900)}!{fresh(lambda r: f'{_epoch(day, 11, 0, 0) + r.randint(0, 1800)}.{r.randint(100, 9999)}')}!"
            )
        b.tool(
            "Aktiv Kanäl:",
            "bash",
            {"command": "asterisk -rx 'core show channels concise'"},
            "\n".join(rows),
        )
        b.assistant(
            f"Et lafen elo {len(rows)} Gespréicher no bausse, all iwwer den POST-Trunk; keen hänkt."
        )

    scenes: list[Callable[[], None]] = [
        scene_cdr,
        scene_mac,
        scene_callid,
        scene_queue,
        scene_revert,
        scene_decision,
        scene_next,
        decoy_hunch,
        decoy_channels,
    ]
    rng.shuffle(scenes)
    for scene in scenes:
        scene()
    for fix in late:
        fix()
    b.user("Merci fir de Moment. Ech mellen mech, wann nach eppes ufält.")
    b.assistant("Gären. Ech sinn do.")
    opening = b.take()

    # ---- filler -------------------------------------------------------------------------------
    def filler(r: random.Random) -> None:
        pick = r.randrange(7)
        if pick == 0:
            b.user("Wéi laang leeft den Asterisk elo scho sonner Neistart?")
            b.tool(
                "Uptime:",
                "bash",
                {"command": "asterisk -rx 'core show uptime'"},
                f"System uptime: {r.randint(2, 9)} weeks, {r.randint(1, 6)} days, {r.randint(1, 23)} hours, {r.randint(1, 59)} minutes\nLast reload: {r.randint(1, 23)} hours, {r.randint(1, 59)} minutes, {r.randint(1, 59)} seconds",
            )
            b.assistant("E leeft zënter e puer Wochen ouni Neistart; de leschte Reload war haut.")
        elif pick == 1:
            ext = r.choice(exts[:9])
            b.user(f"Hat d'Extensioun {ext} nei Messagen op der Mailbox?")
            b.tool(
                "Mailboxen:",
                "bash",
                {"command": "asterisk -rx 'voicemail show users'"},
                "\n".join(
                    ["Context    Mbox  User                      Zone       NewMsg"]
                    + [
                        f"default    {e}   {r.choice(['Empfang', 'Buchhaltung', 'Sekretariat', 'Direktioun', 'Lounbüro'])}{' ' * 14}european   {r.randint(0, 4)}"
                        for e in exts[:9]
                    ]
                    + [f"{9} voicemail users configured."]
                ),
            )
            b.assistant(
                f"D'Lëscht weist d'nei Messagen pro Mailbox; fir {ext} steet et an der leschter Kolonn."
            )
        elif pick == 2:
            num = f"+33{r.randint(600000000, 799999999)}"
            b.user(f"Spär w.e.g. d'Nummer {num}, dat ass e Spam-Uruff deen all Dag kënnt.")
            b.tool(
                "Op d'Blacklist:",
                "bash",
                {
                    "command": f"asterisk -rx 'database put blacklist {num} spam' && asterisk -rx 'database show blacklist'"
                },
                "\n".join(
                    [
                        f"/blacklist/{num}                       : spam",
                        f"/blacklist/+4930{r.randint(1000000, 9999999)}                 : spam",
                        f"{2} results found.",
                    ]
                ),
            )
            b.assistant(f"{num} ass gespaart.")
        elif pick == 3:
            ext = r.choice(exts[:9])
            b.user(f"Ass d'Extensioun {ext} online?")
            b.tool(
                "Endpoint-Status:",
                "bash",
                {"command": f"asterisk -rx 'pjsip show endpoint {ext}' | head -n 6"},
                "\n".join(
                    [
                        " Endpoint:  <Endpoint/CID.....................................>  <State.....>  <Channels.>",
                        "==========================================================================================",
                        "",
                        f' Endpoint:  {ext}/"{ext}" <{ext}>                                    Not in use    0 of inf',
                        f"     InAuth:  {ext}-auth/{ext}",
                        f"        Aor:  {ext}                                               1",
                    ]
                ),
            )
            b.assistant(f"Jo, {ext} ass registréiert a fräi.")
        elif pick == 4:
            n = r.randint(40, 140)
            b.user("Wéi vill Uriff hate mir gëschter am Ganzen?")
            b.tool(
                "CDR-Zuel:",
                "bash",
                {
                    "command": 'mysql asteriskcdrdb -N -e "SELECT disposition, COUNT(*) FROM cdr WHERE DATE(calldate) = CURDATE() - INTERVAL 1 DAY GROUP BY disposition"'
                },
                f"ANSWERED\t{n}\nNO ANSWER\t{r.randint(3, 20)}\nBUSY\t{r.randint(0, 5)}\nFAILED\t{r.randint(0, 3)}",
            )
            b.assistant(
                f"Gëschter waren et {n} beäntwert Uriff, plus e puer déi net opgeholl goufen."
            )
        elif pick == 5:
            ext = r.choice(exts[:9])
            name = r.choice(["Buchhaltung", "Lounbüro", "Direktioun", "Sekretariat"])
            b.user(f'Änner w.e.g. den Affichage-Numm vun {ext} op "{name}".')
            b.tool(
                "Caller-ID setzen:",
                "bash",
                {
                    "command": f"sed -i '/^\\[{ext}\\]/,/^\\[/ s/^callerid=.*/callerid=\"{name}\" <{ext}>/' /etc/asterisk/pjsip_phones.conf && asterisk -rx 'pjsip reload'"
                },
                "Module 'res_pjsip.so' reloaded successfully.",
            )
            b.assistant(f'{ext} weist elo "{name}".')
        else:
            b.user("Wéi gutt ass d'Verbindung op den Trunk grad?")
            b.tool(
                "Qualify:",
                "bash",
                {
                    "command": "asterisk -rx 'pjsip qualify post-trunk' && sleep 2 && asterisk -rx 'pjsip show contacts' | grep post-trunk"
                },
                f"Sent OPTIONS request to contact sip:sip.post.lu on AOR post-trunk\n  Contact:  post-trunk/sip:sip.post.lu                    {hexits(r, 10)} Avail      {r.randint(8, 25)}.{r.randint(100, 999)}",
            )
            b.assistant("D'Äntwertzäit vum Trunk ass gutt, ënner 30 ms.")

    return opening, segments_of(rng, b, segments, filler), probes


# --------------------------------------------------------------------------------------
# ceph_rook: Rook-Ceph (Reef) on Kubernetes through the toolbox pod, in Kyrgyz (Cyrillic)
# --------------------------------------------------------------------------------------

_KY_DAYS: tuple[tuple[str, str], ...] = (
    ("дүйшөмбү", "Monday"),
    ("шейшемби", "Tuesday"),
    ("шаршемби", "Wednesday"),
    ("бейшемби", "Thursday"),
)

# bytes, GiB, Kyrgyz, short
_CEPH_MEM: tuple[tuple[str, str, str, str], ...] = (
    ("5368709120", "5 GiB", "5 ГБ", "5G"),
    ("6442450944", "6 GiB", "6 ГБ", "6G"),
    ("7516192768", "7 GiB", "7 ГБ", "7G"),
    ("10737418240", "10 GiB", "10 ГБ", "10G"),
)

_TOOLS = "kubectl -n rook-ceph exec deploy/rook-ceph-tools -- "


def _ceph_rook(rng: random.Random, b: Builder, segments: int) -> Parts:
    fresh = _Fresh(rng)
    probes: list[Probe] = []
    late: list[Callable[[], None]] = []
    day = rng.randint(3, 26)
    colleague, lead = rng.sample(["Азамат", "Мирлан", "Айгерим", "Нурлан", "Бакыт", "Жылдыз"], 2)
    fsid = fresh(_uuid)
    hosts = ["node-a", "node-b", "node-c"]
    osd_host = {i: hosts[i // 3] for i in range(9)}
    vm = rng.choice(["gitlab", "1c-server", "zabbix", "jira"])
    img = f"vm-{vm}-disk0"
    bucket = rng.choice(["tmp-exports", "old-logs-2022", "migration-staging"])
    keep = {
        "tmp-exports": "tmp-exports-2024",
        "old-logs-2022": "old-logs-2023",
        "migration-staging": "migration-staging-v2",
    }[bucket]

    def ceph(cmd: str) -> dict[str, object]:
        return {"command": _TOOLS + cmd}

    # ---- opening -------------------------------------------------------------------
    b.user(
        rng.choice(
            [
                "Салам! Бүгүн Ceph кластерибизде бир топ иш бар. Кластер Rook аркылуу Kubernetes'те турат (rook-ceph namespace), Ceph 18.2.2 Reef, үч нода жана тогуз OSD. Командаларды rook-ceph-tools подунан иштете аласың. Адегенде жалпы абалын карап чыкчы.",
                "Саламатсызбы! Ceph боюнча топтолуп калган маселелерди бүгүн чечели. Rook-Ceph, namespace rook-ceph, Reef 18.2.2, үч нода, ар биринде үчтөн OSD. Toolbox поду иштеп турат. Алгач ceph status'ту көрүп, абал кандай экенин айтып берчи.",
            ]
        )
    )
    b.tool(
        "Макул. Адегенде ceph status'ту карайм. Кластердин абалы:",
        "bash",
        ceph("ceph status"),
        "\n".join(
            [
                "  cluster:",
                f"    id:     {fsid}",
                "    health: HEALTH_WARN",
                "            2 daemons have recently crashed",
                "            1 device(s) expected to fail soon",
                "",
                "  services:",
                f"    mon: 3 daemons, quorum a,b,c (age {rng.randint(3, 20)}d)",
                f"    mgr: a(active, since {rng.randint(1, 4)}d), standbys: b",
                "    mds: 1/1 daemons up, 1 hot standby",
                f"    osd: 9 osds: 9 up (since {rng.randint(1, 4)}d), 9 in (since 3w)",
                "    rgw: 2 daemons active (2 hosts, 1 zones)",
                "",
                "  data:",
                "    volumes: 1/1 healthy",
                "    pools:   11 pools, 353 pgs",
                f"    objects: {rng.randint(10, 15)}.{rng.randint(10, 99)}M objects, {rng.randint(3, 5)}.{rng.randint(1, 9)} TiB",
                f"    usage:   {rng.randint(11, 14)} TiB used, {rng.randint(18, 21)} TiB / 32 TiB avail",
                "    pgs:     353 active+clean",
                "",
                "  io:",
                f"    client:   {rng.randint(10, 80)} MiB/s rd, {rng.randint(5, 30)} MiB/s wr, {rng.randint(1, 3)}.{rng.randint(10, 99)}k op/s rd, {rng.randint(300, 900)} op/s wr",
            ]
        ),
    )
    b.assistant(
        "Кластер HEALTH_WARN абалында: эки демон жакында кулаган (crash) жана бир диск жакында иштен чыгышы мүмкүн деген эскертүү бар. Калганы жакшы: тогуз OSD тең up жана in, 353 PG active+clean, мониторлор кворумда. Эмнеден баштайбыз?"
    )

    # ---- identifier: serial of the failing disk --------------------------------------------
    def scene_serial() -> None:
        bad_osd = rng.randrange(9)
        host = osd_host[bad_osd]
        serials = [fresh(lambda r: "ZL2" + token(r, 5)) for _ in range(9)]
        devs = ["sdb", "sdc", "sdd"]
        rows = []
        for i in range(9):
            life = f"<2024-07-{rng.randint(1, 20):02d}" if i == bad_osd else ""
            rows.append(
                [
                    f"SEAGATE_ST4000NM000A-2HZ100_{serials[i]}",
                    f"{osd_host[i]}:{devs[i % 3]}",
                    f"osd.{i}",
                    f"{rng.randint(0, 6)}%",
                    life,
                ]
            )
        b.user(
            rng.choice(
                [
                    "Датацентрдеги техник бүгүн түштөн кийин келет. Ceph бир диск жакында иштен чыгат деп эскертип жатат — кайсы диск экенин аныктап, анын сериялык номерин тап, техник ошону суурушу керек. Азырынча OSD'ни кластерден чыгарба.",
                    "Иштен чыгып бара жаткан диск жөнүндө: техникке дисктин сериялык номери керек, ал аны сервердин алдынан табат. Кайсы диск экенин тактап берчи. OSD'ге азырынча тийбе.",
                ]
            )
        )
        b.tool(
            "Түзмөктөрдүн тизмеси:",
            "bash",
            ceph("ceph device ls"),
            _table(["DEVICE", "HOST:DEV", "DAEMONS", "WEAR", "LIFE EXPECTANCY"], rows, gap=2),
        )
        dev = devs[bad_osd % 3]
        realloc = rng.randint(800, 4000)
        b.tool(
            f"osd.{bad_osd} ({host}:/dev/{dev}) үчүн мөөнөт алдын ала айтылган. SMART'ты текшерем:",
            "bash",
            {"command": f"ssh {host} sudo smartctl -i -H -A /dev/{dev} | head -n 30"},
            "\n".join(
                [
                    "smartctl 7.3 2022-02-28 r5338 [x86_64-linux-6.1.0-21-amd64] (local build)",
                    "",
                    "=== START OF INFORMATION SECTION ===",
                    "Device Model:     ST4000NM000A-2HZ100",
                    f"Serial Number:    {serials[bad_osd]}",
                    "LU WWN Device Id: 5 000c50 0" + hexits(rng, 8),
                    "Firmware Version: TN02",
                    "User Capacity:    4,000,787,030,016 bytes [4.00 TB]",
                    "Rotation Rate:    7200 rpm",
                    "",
                    "=== START OF READ SMART DATA SECTION ===",
                    "SMART overall-health self-assessment test result: FAILED!",
                    "Drive failure expected in less than 24 hours. SAVE ALL DATA.",
                    "",
                    "ID# ATTRIBUTE_NAME          FLAG     VALUE WORST THRESH TYPE      UPDATED  WHEN_FAILED RAW_VALUE",
                    f"  5 Reallocated_Sector_Ct   0x0033   00{rng.randint(1, 9)}   00{rng.randint(1, 9)}   010    Pre-fail  Always   FAILING_NOW {realloc}",
                    f"  9 Power_On_Hours          0x0032   0{rng.randint(60, 90)}   0{rng.randint(60, 90)}   000    Old_age   Always       -       {rng.randint(18000, 30000)}",
                    f"187 Reported_Uncorrect      0x0032   0{rng.randint(50, 90)}   0{rng.randint(50, 90)}   000    Old_age   Always       -       {rng.randint(10, 90)}",
                    f"197 Current_Pending_Sector  0x0012   100   100   000    Old_age   Always       -       {rng.randint(8, 64)}",
                ]
            ),
        )
        b.assistant(
            rng.choice(
                [
                    f"Табылды: osd.{bad_osd}, {host} серверинде /dev/{dev}. SMART FAILED, Reallocated_Sector_Ct = {realloc}. Техникке бере турган сериялык номер: {serials[bad_osd]} (Seagate ST4000NM000A). OSD'ге азырынча тийген жокмун.",
                    f"Иштен чыгып жаткан диск — {host}:/dev/{dev}, анын үстүндө osd.{bad_osd}. Сериялык номери {serials[bad_osd]}; SMART өзү да FAILED деп жатат. Башка дисктердин баары жакшы.",
                ]
            )
        )
        probes.append(
            Probe(
                "identifier",
                f"What is the serial number of the failing disk behind osd.{bad_osd} that the datacenter technician has to pull?",
                serials[bad_osd],
                ((serials[bad_osd],),),
            )
        )

    # ---- identifier: the mgr crash id ----------------------------------------------------
    def scene_crash() -> None:
        def cid(d: int) -> str:
            return fresh(
                lambda r: (
                    f"2024-{'06' if d > 0 else '05'}-{d if d > 0 else r.randint(10, 28):02d}T{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}.{r.randint(100000, 999999)}Z_{_uuid(r)}"
                )
            )

        mgr_crash = cid(max(1, day - 1))
        rgw_crash = cid(day)
        old = [cid(0), cid(0), cid(max(1, day - 9))]
        rows = [
            [old[0], "osd.3", ""],
            [old[1], "mds.myfs-b", ""],
            [old[2], "osd.7", ""],
            [mgr_crash, "mgr.a", "*"],
            [rgw_crash, "client.rgw.objstore.a", "*"],
        ]
        b.user(
            rng.choice(
                [
                    "ceph status'та 'recently crashed' деп жатат. Эмне кулаганын карачы. RGW'га тиешелүүлөрүн архивдебе, аларды RGW командасы өзү карайт.",
                    "Crash'тарды карап чыкчы. RGW'дикине тийбе — аны Бакыттын командасы иликтеп жатат, архивдебе.",
                ]
            )
        )
        b.tool(
            "Crash'тардын тизмеси:",
            "bash",
            ceph("ceph crash ls"),
            _table(["ID", "ENTITY", "NEW"], rows, gap=2),
        )
        b.tool(
            "Экөө жаңы: mgr.a жана RGW. mgr'дикинин чоо-жайын карайм:",
            "bash",
            ceph(f"ceph crash info {mgr_crash}"),
            _js(
                {
                    "backtrace": [
                        '  File "/usr/share/ceph/mgr/prometheus/module.py", line 1791, in serve\n    self.collect()',
                        '  File "/usr/share/ceph/mgr/prometheus/module.py", line 1042, in get_pool_stats\n    pool_id = pool["pool_id"]',
                        "KeyError: 'pool_id'",
                    ],
                    "ceph_version": "18.2.2",
                    "crash_id": mgr_crash,
                    "entity_name": "mgr.a",
                    "mgr_module": "prometheus",
                    "mgr_module_caller": "PyModuleRunner.serve",
                    "mgr_python_exception": "KeyError",
                    "os_id": "centos",
                    "os_version_id": "9",
                    "process_name": "ceph-mgr",
                    "stack_sig": hexits(rng, 64),
                    "timestamp": mgr_crash.split("_")[0].replace("T", " "),
                    "utsname_hostname": f"rook-ceph-mgr-a-{hexits(rng, 10)}-{token(rng, 5, string.ascii_lowercase + string.digits)}",
                    "utsname_release": "6.1.0-21-amd64",
                }
            ),
        )
        b.assistant(
            "mgr.a'нын prometheus модулу KeyError: 'pool_id' менен кулаган — бул 18.2.2'деги белгилүү ката, mgr өзү кайра көтөрүлгөн, метрикалар келип жатат. Бул crash'ти архивдейинби? RGW'дикине тийбейм."
        )
        b.user(rng.choice(["Ооба, архивде.", "Ооба, архивдей бер."]))
        b.tool(
            "Архивдейм:",
            "bash",
            ceph(f"ceph crash archive {mgr_crash} && ceph crash ls-new"),
            _table(["ID", "ENTITY", "NEW"], [[rgw_crash, "client.rgw.objstore.a", "*"]], gap=2),
        )
        b.assistant(
            rng.choice(
                [
                    f"Даяр: {mgr_crash} архивделди. Жаңы катары RGW'нын crash'и гана калды, аны RGW командасына калтырдым.",
                    f"mgr.a'нын crash'и ({mgr_crash}) архивде. ls-new'да азыр RGW'дики гана турат — ага тийген жокмун.",
                ]
            )
        )
        probes.append(
            Probe(
                "identifier",
                "What is the ID of the ceph-mgr crash (prometheus module, KeyError) that was inspected and archived?",
                mgr_crash,
                ((mgr_crash,),),
            )
        )

    # ---- identifier: the PV with the stale watcher -------------------------------------------
    def scene_pvc() -> None:
        pv_data, pv_wal, pv_backup, pv_other = (
            fresh(lambda r: f"pvc-{_uuid(r)}") for _ in range(4)
        )
        csi = fresh(lambda r: f"csi-vol-{_uuid(r)}")
        node_ip = f"10.42.{rng.randint(1, 3)}.{rng.randint(10, 99)}"
        nonce = rng.randint(1000000000, 3999999999)
        b.user(
            rng.choice(
                [
                    f"billing namespace'индеги postgres-billing-0 поду ContainerCreating'де тыгылып калды. {colleague} түнкү нода кайра жүктөлгөндөн бери ушундай дейт. Карап берчи.",
                    "postgres-billing-0 (billing namespace) көтөрүлбөй жатат, ContainerCreating'де турат. Түнү node-b кайра жүктөлгөн. Эмне болгонун тапчы.",
                ]
            )
        )
        b.tool(
            "Поддун окуялары:",
            "bash",
            {
                "command": "kubectl -n billing describe pod postgres-billing-0 | sed -n '/Events:/,$p'"
            },
            "\n".join(
                [
                    "Events:",
                    "  Type     Reason       Age                  From     Message",
                    "  ----     ------       ----                 ----     -------",
                    "  Normal   Scheduled    14m                  default-scheduler  Successfully assigned billing/postgres-billing-0 to node-c",
                    f'  Warning  FailedMount  2m (x{rng.randint(6, 12)} over 14m)  kubelet  MountVolume.MountDevice failed for volume "{pv_data}" : rpc error: code = Internal desc = rbd image replicapool/{csi} is still being used',
                    "  Warning  FailedMount  1m (x6 over 12m)     kubelet  Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data wal kube-api-access]: timed out waiting for the condition",
                ]
            ),
        )
        b.tool(
            "billing'деги PVC'лер:",
            "bash",
            {"command": "kubectl -n billing get pvc"},
            _table(
                ["NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS MODES", "STORAGECLASS", "AGE"],
                [
                    [
                        "data-postgres-billing-0",
                        "Bound",
                        pv_data,
                        "200Gi",
                        "RWO",
                        "ceph-block",
                        "214d",
                    ],
                    [
                        "wal-postgres-billing-0",
                        "Bound",
                        pv_wal,
                        "20Gi",
                        "RWO",
                        "ceph-block",
                        "214d",
                    ],
                    [
                        "pgbackrest-repo",
                        "Bound",
                        pv_backup,
                        "500Gi",
                        "RWX",
                        "ceph-filesystem",
                        "190d",
                    ],
                    ["redis-billing-data", "Bound", pv_other, "8Gi", "RWO", "ceph-block", "87d"],
                ],
            ),
        )
        b.tool(
            "RBD сүрөтүнүн watcher'лери:",
            "bash",
            ceph(f"rbd status replicapool/{csi}"),
            f"Watchers:\n\twatcher={node_ip}:0/{nonce} client.{rng.randint(100000, 999999)} cookie={rng.randint(10**17, 10**18)}",
        )
        b.tool(
            f"Watcher эски node-b'дан ({node_ip}) — нода кайра жүктөлгөндө ал сессия жабылбай калган. Аны blocklist'ке кошом:",
            "bash",
            ceph(
                f"ceph osd blocklist add {node_ip}:0/{nonce} && sleep 60 && kubectl -n billing get pod postgres-billing-0"
            ),
            f"blocklisting {node_ip}:0/{nonce} until 2024-06-{day:02d}T{rng.randint(10, 20)}:{rng.randint(10, 59)}:{rng.randint(10, 59)}.{rng.randint(100000, 999999)}+0000 (3600 sec)\n"
            + _table(
                ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
                [["postgres-billing-0", "1/1", "Running", "0", "16m"]],
            ),
        )
        b.assistant(
            rng.choice(
                [
                    f"Себеби табылды: data-postgres-billing-0 PVC'синин тому {pv_data} (RBD сүрөтү replicapool/{csi}) кайра жүктөлгөн node-b'дан калган эски watcher'ди кармап турган. Ал клиентти бир саатка blocklist'ке коштум — под node-c'де Running болду. {colleague} айткандай, себеп түнкү кайра жүктөө экен.",
                    f"Даяр: postgres-billing-0 Running. Маселе {pv_data} томунда эле — анын RBD сүрөтүндө node-b'дан калган өлүк watcher бар болчу, аны blocklist аркылуу чыгардым.",
                ]
            )
        )
        probes.append(
            Probe(
                "identifier",
                "What is the name of the PersistentVolume (pvc-…) backing the billing claim data-postgres-billing-0, whose RBD image had a stale watcher?",
                pv_data,
                ((pv_data,),),
            )
        )

    # ---- artifact: the RBD image rolled back ------------------------------------------------
    def scene_rollback() -> None:
        how = rng.randrange(3)
        snaps = [
            [
                str(rng.randint(20, 40)),
                "weekly-2024-05-26",
                "80 GiB",
                "",
                "Sun May 26 02:00:11 2024",
            ],
            [
                str(rng.randint(41, 60)),
                "weekly-2024-06-02",
                "80 GiB",
                "",
                "Sun Jun  2 02:00:09 2024",
            ],
            [
                str(rng.randint(61, 90)),
                "before-upgrade",
                "80 GiB",
                "",
                f"{_wday(max(1, day - 1))} Jun {max(1, day - 1):>2} 18:{rng.randint(10, 59)}:{rng.randint(10, 59)} 2024",
            ],
        ]
        b.user(
            rng.choice(
                [
                    f"`{vm}` виртуалдык машинасын кечээ жаңыртканбыз, эми жүктөлбөй жатат. Анын дискин (replicapool/{img}) 'before-upgrade' снапшотуна артка кайтаралы. Снапшотту кийин өчүрбө — дагы керек болушу мүмкүн.",
                    f"Кечээки жаңыртуудан кийин `{vm}` VM'и ачылбай калды. Дискин 'before-upgrade' снапшотуна кайтар: replicapool/{img}. Снапшоттун өзүн калтыр, өчүрбө.",
                ]
            )
        )
        b.tool(
            "Снапшоттор:",
            "bash",
            ceph(f"rbd snap ls replicapool/{img}"),
            _table(["SNAPID", "NAME", "SIZE", "PROTECTED", "TIMESTAMP"], snaps),
        )
        b.tool(
            "VM'ди токтотом (rollback учурунда диск колдонулбашы керек):",
            "bash",
            {
                "command": f"virtctl stop {vm} -n vms && kubectl -n vms wait vmi/{vm} --for=delete --timeout=120s"
            },
            f"VM {vm} was scheduled to stop\nvirtualmachineinstance.kubevirt.io/{vm} condition met",
        )
        out = (
            "Rolling back to snapshot: 100% complete...done." if how in (0, 2) else "(exit code 0)"
        )
        b.tool(
            "Rollback:", "bash", ceph(f"rbd snap rollback replicapool/{img}@before-upgrade"), out
        )
        b.tool(
            "VM'ди кайра иштетем:",
            "bash",
            {"command": f"virtctl start {vm} -n vms && sleep 90 && kubectl -n vms get vmi {vm}"},
            f"VM {vm} was scheduled to start\n"
            + _table(
                ["NAME", "AGE", "PHASE", "IP", "NODENAME", "READY"],
                [
                    [
                        vm,
                        "92s",
                        "Running",
                        f"10.42.{rng.randint(1, 3)}.{rng.randint(100, 200)}",
                        rng.choice(hosts),
                        "True",
                    ]
                ],
            ),
        )
        if how == 0:
            b.assistant("Даяр, VM Running.")
        elif how == 1:
            b.assistant(
                f"replicapool/{img} диски 'before-upgrade' снапшотуна артка кайтарылды (rbd snap rollback), `{vm}` кайра иштеп жатат. Снапшот өчүрүлгөн жок, ордунда."
            )
        else:
            b.assistant(
                f"Rollback 100% бүттү: {img} жаңыртууга чейинки абалга кайтты, VM Running. 'before-upgrade' снапшоту сакталып турат."
            )
        probes.append(
            Probe(
                "artifact",
                f"What was done to the RBD image replicapool/{img} of the `{vm}` VM?",
                "It was rolled back to the 'before-upgrade' snapshot (VM stopped, rbd snap rollback, VM started); the snapshot itself was kept.",
                (
                    (img,),
                    (
                        "rolled back",
                        "rollback",
                        "reverted",
                        "restored",
                        "артка кайтар",
                        "кайтарылды",
                        "калыбына келтир",
                    ),
                ),
            )
        )

    # ---- artifact: the RGW bucket deleted ------------------------------------------------------
    def scene_bucket() -> None:
        how = rng.randrange(3)
        objs = rng.randint(20000, 400000)
        size = rng.randint(100, 900)
        b.user(
            rng.choice(
                [
                    f"RGW'дагы `{bucket}` бакетин ичиндеги объекттери менен кошо толугу менен өчүр, андагы файлдар эми эч кимге керек эмес. `{keep}` бакетине тийбе, ал дагы колдонулат.",
                    f"`{bucket}` бакети бош эле орун ээлеп турат — объекттери менен кошо жок кыл. Аты окшош `{keep}` калсын, ал иштеп жатат.",
                ]
            )
        )
        b.tool(
            "Бакеттин статистикасы:",
            "bash",
            ceph(f"radosgw-admin bucket stats --bucket={bucket}"),
            _js(
                {
                    "bucket": bucket,
                    "num_shards": 11,
                    "tenant": "",
                    "zonegroup": fresh(_uuid),
                    "placement_rule": "default-placement",
                    "id": f"{fresh(_uuid)}.{rng.randint(10000, 99999)}.{rng.randint(1, 9)}",
                    "owner": "data-team",
                    "mtime": f"2023-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T09:12:44.{rng.randint(100000, 999999)}Z",
                    "usage": {"rgw.main": {"size_actual": size * 1024**3, "num_objects": objs}},
                }
            ),
        )
        if how in (0, 2):
            b.tool(
                "Өчүрөм (--purge-objects) жана тизмени текшерем:",
                "bash",
                ceph(
                    f"radosgw-admin bucket rm --bucket={bucket} --purge-objects && radosgw-admin bucket list"
                ),
                _js(["loki-chunks", "velero-backups", keep, "harbor-registry", "mattermost-files"]),
            )
        else:
            b.tool(
                "Өчүрөм:",
                "bash",
                ceph(f"radosgw-admin bucket rm --bucket={bucket} --purge-objects"),
                "(exit code 0)",
            )
        if how == 0:
            b.assistant("Бүттү.")
        elif how == 1:
            b.assistant(
                f"`{bucket}` бакети {objs} объекти ({size} GiB) менен кошо өчүрүлдү. `{keep}` ордунда, ага тийген жокмун."
            )
        else:
            b.assistant(
                f"Тизмеде `{bucket}` жок — бакет жок кылынды, ~{size} GiB бошоду. `{keep}` калды."
            )
        probes.append(
            Probe(
                "artifact",
                f"What happened to the RGW bucket `{bucket}`?",
                f"It was deleted together with its objects (radosgw-admin bucket rm --purge-objects); `{keep}` was kept.",
                (
                    (bucket,),
                    (
                        "deleted",
                        "removed",
                        "purged",
                        "өчүрүлдү",
                        "жок кылынды",
                        "өчүрдүм",
                        "bucket rm",
                    ),
                ),
            )
        )

    # ---- decision: osd_memory_target ---------------------------------------------------------
    def scene_decision() -> None:
        mode = rng.choice(_DECISION_MODES)
        final, other = rng.sample(_CEPH_MEM, 2)

        def apply(v: tuple[str, str, str, str]) -> None:
            b.tool(
                f"osd_memory_target = {v[1]} коём:",
                "bash",
                ceph(
                    f"ceph config set osd osd_memory_target {v[0]} && ceph config get osd.0 osd_memory_target && ceph config dump | grep memory"
                ),
                f"{v[0]}\nosd                          advanced  osd_memory_target                 {v[0]}\nosd                          basic     osd_memory_target_autotune        false",
            )

        intro = "OSD'лордо кэш аз: азыр osd_memory_target демейки 4 ГБ, ал эми ар бир нодада 128 ГБ RAM бар, анын көбү бош турат."
        if mode == "dictated":
            b.user(
                f"{intro} osd_memory_target'ти {final[2]} кылып кой — PostgreSQL'дин дисктери ушул кластерде, окуу кечигүүсү азайсын."
            )
            apply(final)
            b.assistant(f"Коюлду: osd_memory_target = {final[0]} ({final[1]}).")
        elif mode == "approved":
            b.user(f"{intro} Канча коюу керек, сен сунушта.")
            b.assistant(
                f"Сунушум: {final[1]} ({final[0]}). Ар бир нодада үч OSD, демек OSD'лерге {final[2]}×3 кетет, калганы ашыгы менен жетет. Коёюнбу?"
            )
            b.user("Ооба, кой.")
            apply(final)
            b.assistant(f"Коюлду: {final[1]}.")
        elif mode == "changed":
            b.user(f"{intro} Канча коёбуз?")
            b.assistant(f"Мен {other[1]} сунуштайт элем. Макулсуңбу?")
            b.user(
                f"Жок, {final[2]} кой — ушул эле нодаларда KubeVirt VM'дер да иштейт, аларга да эс тутум калышы керек."
            )
            apply(final)
            b.assistant(f"Түшүндүм, {other[1]} эмес, {final[1]} койдум.")
        elif mode == "corrected":
            b.user(f"{intro} osd_memory_target'ти {other[2]} кыл.")
            apply(other)
            b.assistant(f"Коюлду: {other[1]}.")

            def correction() -> None:
                b.user(
                    f"Кечиресиң, osd_memory_target боюнча катачылык кетирдим: {lead} менен сүйлөштүм, {other[2]} эмес, {final[2]} болушу керек. Оңдоп кой."
                )
                apply(final)
                b.assistant(
                    f"Оңдолду: эми osd_memory_target = {final[0]} ({final[1]}), мурунку {other[1]} жокко чыгарылды."
                )

            late.append(correction)
        elif mode == "relayed":
            b.user(
                f"{intro} {lead} osd_memory_target {final[2]} болсун деди, ал сыйымдуулук пландоосун ошого эсептеген. Ошону кой."
            )
            apply(final)
            b.assistant(f"{lead} айткандай коюлду: {final[1]}.")
        else:
            b.user(intro + " Муну көбөйтүү керек.")
            b.assistant(
                f"Канча коёюн: {other[1]}, {final[1]}, же башкасы? Бул бардык OSD'лерге тиешелүү болот."
            )
            b.user(f"{final[2]}.")
            apply(final)
            b.assistant(f"Коюлду: osd_memory_target = {final[0]}.")
        probes.append(
            Probe(
                "decision",
                "What osd_memory_target was settled on for the OSDs?",
                f"{final[1]} ({final[0]} bytes).",
                (
                    (final[0], final[1], final[2], final[3], final[1].replace(" ", "")),
                    ("osd_memory_target", "memory_target", "memory", "эс тутум"),
                ),
            )
        )

    # ---- next step -----------------------------------------------------------------------------
    def scene_next() -> None:
        if rng.random() < 0.5:
            ky, en = rng.choice(_KY_DAYS)
            b.user(
                rng.choice(
                    [
                        f"Айтмакчы, жаңы эки SSD келди, {ky} күнү аларды node-c'ге орнотуп, жаңы OSD катары кошобуз — ошого чейин node-c'де эч нерсе өзгөртпө. Азыр болсо пулдардын толушун көрсөтчү.",
                        f"Эсиңде болсун: {ky} күнү node-c'ге эки жаңы SSD салып, аларды OSD кылып кошобуз. Азырынча node-c'ге тийбе. Эми ceph df'ти көрсөт.",
                    ]
                )
            )
            b.tool(
                "Пулдардын толушу:",
                "bash",
                ceph("ceph df"),
                "\n".join(
                    [
                        "--- RAW STORAGE ---",
                        "CLASS    SIZE   AVAIL    USED  RAW USED  %RAW USED",
                        f"hdd    32 TiB  {rng.randint(18, 21)} TiB  {rng.randint(11, 14)} TiB    {rng.randint(11, 14)} TiB      {rng.randint(35, 44)}.{rng.randint(10, 99)}",
                        "",
                        "--- POOLS ---",
                        "POOL                        ID  PGS   STORED  OBJECTS     USED  %USED  MAX AVAIL",
                        f".mgr                         1    1  {rng.randint(20, 60)} MiB        7   {rng.randint(60, 180)} MiB      0    5.9 TiB",
                        f"replicapool                  2  128  {rng.randint(2, 3)}.{rng.randint(1, 9)} TiB  {rng.randint(500, 900)}k  {rng.randint(7, 9)}.{rng.randint(1, 9)} TiB  {rng.randint(30, 40)}.{rng.randint(10, 99)}    5.9 TiB",
                        f"myfs-metadata                3   16  {rng.randint(200, 900)} MiB   {rng.randint(10, 90)}k  {rng.randint(1, 3)}.{rng.randint(1, 9)} GiB   0.02    5.9 TiB",
                        f"myfs-replicated              4   64  {rng.randint(300, 900)} GiB  {rng.randint(100, 400)}k  {rng.randint(1, 2)}.{rng.randint(1, 9)} TiB   9.{rng.randint(10, 99)}    5.9 TiB",
                        f"objstore.rgw.buckets.data    9   64  {rng.randint(300, 900)} GiB  {rng.randint(100, 500)}k  {rng.randint(1, 2)}.{rng.randint(1, 9)} TiB   8.{rng.randint(10, 99)}    5.9 TiB",
                    ]
                ),
            )
            b.assistant(
                f"Эң толугу replicapool, бирок баары 45%'тен төмөн. Белгилеп алдым: {ky} күнү node-c'ге эки SSD кошобуз, ага чейин node-c'ге тийбейм."
            )
            probes.append(
                Probe(
                    "next_step",
                    "What hardware work is planned, and when?",
                    f"Installing two new SSDs in node-c and adding them as new OSDs on {en}; node-c is not to be changed before that.",
                    (("ssd", "node-c", "osd"), (ky, en)),
                )
            )
        else:
            b.user(
                "node-a'нын ядросун жаңыртып, кайра жүктөшүбүз керек. Rebalance башталбасын деп noout коюп, анан ребут кыл."
            )
            b.tool(
                "noout коюп, node-a'ны drain кылып, кайра жүктөйм:",
                "bash",
                {
                    "command": _TOOLS
                    + "ceph osd set noout && kubectl drain node-a --ignore-daemonsets --delete-emptydir-data --timeout=10m && ssh node-a sudo reboot; sleep 240; kubectl uncordon node-a && "
                    + _TOOLS
                    + "ceph -s | sed -n '/health/,/pgs:/p'"
                },
                "\n".join(
                    [
                        "noout is set",
                        "node/node-a cordoned",
                        "node/node-a drained",
                        "node/node-a uncordoned",
                        "    health: HEALTH_WARN",
                        "            noout flag(s) set",
                        f"            Degraded data redundancy: {rng.randint(20000, 90000)}/{rng.randint(3000000, 4000000)} objects degraded ({rng.randint(1, 3)}.{rng.randint(100, 999)}%), {rng.randint(30, 90)} pgs degraded",
                        "    osd: 9 osds: 9 up (since 41s), 9 in (since 3w)",
                        f"    pgs:     {rng.randint(30, 90)} active+recovery_wait+degraded",
                        f"             {rng.randint(200, 300)} active+clean",
                        f"             {rng.randint(2, 8)} active+recovering+degraded",
                    ]
                ),
            )
            b.assistant(
                rng.choice(
                    [
                        "node-a кайра көтөрүлдү, үч OSD'си тең up, азыр recovery жүрүп жатат. Recovery бүтүп, кластер HEALTH_OK болгондо, noout флагын алып салам — ага чейин флаг тура берсин.",
                        "Ребут бүттү, OSD'лер up, degraded PG'лер калыбына келип жатат. noout азырынча турат; recovery аяктап, HEALTH_OK болгондон кийин аны unset кылам.",
                    ]
                )
            )
            probes.append(
                Probe(
                    "next_step",
                    "What is the agent to do once the recovery after the node-a reboot finishes?",
                    "Unset the noout flag once recovery is done and the cluster is HEALTH_OK.",
                    (
                        ("noout",),
                        (
                            "health_ok",
                            "recovery",
                            "бүткөндө",
                            "болгондо",
                            "аяктап",
                            "once",
                            "after",
                            "when",
                            "finish",
                        ),
                    ),
                )
            )

    # ---- decoys -----------------------------------------------------------------------------
    def decoy_hunch() -> None:
        b.user(
            f"{colleague} кластер жай иштеп жатканын PG саны аздыгынан деп ойлойт. Текшерип көрчү, чын эле ошондойбу?"
        )
        rows = [
            [
                ".mgr",
                f"{rng.randint(20, 60)}M",
                "",
                "3.0",
                "32768G",
                "0.0000",
                "",
                "1.0",
                "1",
                "",
                "on",
                "False",
            ],
            [
                "replicapool",
                f"{rng.randint(2, 3)}T",
                "",
                "3.0",
                "32768G",
                f"0.{rng.randint(2100, 2900)}",
                "",
                "1.0",
                "128",
                "",
                "on",
                "False",
            ],
            [
                "myfs-metadata",
                f"{rng.randint(200, 900)}M",
                "",
                "3.0",
                "32768G",
                "0.0001",
                "4.0",
                "1.0",
                "16",
                "",
                "on",
                "True",
            ],
            [
                "myfs-replicated",
                f"{rng.randint(300, 900)}G",
                "",
                "3.0",
                "32768G",
                f"0.0{rng.randint(500, 900)}",
                "",
                "1.0",
                "64",
                "",
                "on",
                "False",
            ],
            [
                "objstore.rgw.buckets.data",
                f"{rng.randint(300, 900)}G",
                "",
                "1.5",
                "32768G",
                f"0.0{rng.randint(200, 500)}",
                "",
                "1.0",
                "64",
                "",
                "on",
                "False",
            ],
            [
                "objstore.rgw.buckets.index",
                f"{rng.randint(10, 90)}M",
                "",
                "3.0",
                "32768G",
                "0.0000",
                "",
                "1.0",
                "8",
                "",
                "on",
                "False",
            ],
        ]
        b.tool(
            "Autoscaler'дин абалы:",
            "bash",
            ceph("ceph osd pool autoscale-status"),
            _table(
                [
                    "POOL",
                    "SIZE",
                    "TARGET SIZE",
                    "RATE",
                    "RAW CAPACITY",
                    "RATIO",
                    "TARGET RATIO",
                    "EFFECTIVE RATIO",
                    "PG_NUM",
                    "NEW PG_NUM",
                    "AUTOSCALE",
                    "BULK",
                ],
                rows,
                gap=2,
            ),
        )
        lat = rng.randint(40, 120)
        b.tool(
            "OSD'лордун кечигүүсү:",
            "bash",
            ceph("ceph osd perf"),
            "\n".join(
                ["osd  commit_latency(ms)  apply_latency(ms)"]
                + [
                    f"  {i}  {rng.randint(2, 9) if i != 5 else lat:>18}  {rng.randint(2, 9) if i != 5 else lat:>17}"
                    for i in range(8, -1, -1)
                ]
            ),
        )
        b.assistant(
            f"PG саны туура: autoscaler бардык пулдар үчүн 'NEW PG_NUM' сунуштабай жатат, демек өзгөртүүнүн кереги жок. Жайлыктын булагы башка — osd.5'тин кечигүүсү {lat} ms, калгандары 10 ms'ке жетпейт. {colleague}нын божомолу туура эмес болуп чыкты; osd.5'ти өзүнчө карап көрүш керек."
        )

    def decoy_tree() -> None:
        b.user("OSD'лор нодалар боюнча кандай бөлүнгөнүн жана толушун көрсөтчү.")
        lines = [
            "ID  CLASS  WEIGHT    REWEIGHT  SIZE     RAW USE  DATA     OMAP     META     AVAIL    %USE   VAR   PGS  STATUS  TYPE NAME",
            "-1         32.74786         -   33 TiB   13 TiB   13 TiB  2.1 GiB   41 GiB   20 TiB  39.71  1.00    -          root default",
        ]
        for h in hosts:
            lines.append(
                f"-{hosts.index(h) * 2 + 3}         10.91595         -   11 TiB  {rng.randint(4, 5)}.{rng.randint(1, 9)} TiB  {rng.randint(4, 5)}.{rng.randint(1, 9)} TiB  {rng.randint(500, 900)} MiB   {rng.randint(10, 16)} GiB  {rng.randint(6, 7)}.{rng.randint(1, 9)} TiB  {rng.randint(36, 44)}.{rng.randint(10, 99)}  {rng.randint(90, 110) / 100:.2f}    -              host {h}"
            )
            for i in range(hosts.index(h) * 3, hosts.index(h) * 3 + 3):
                lines.append(
                    f" {i}    hdd   3.63869   1.00000  3.6 TiB  {rng.randint(1, 2)}.{rng.randint(1, 9)} TiB  {rng.randint(1, 2)}.{rng.randint(1, 9)} TiB  {rng.randint(100, 300)} MiB  {rng.randint(3, 6)}.{rng.randint(1, 9)} GiB  {rng.randint(2, 3)}.{rng.randint(1, 9)} TiB  {rng.randint(34, 46)}.{rng.randint(10, 99)}  {rng.randint(85, 115) / 100:.2f}  {rng.randint(100, 130)}      up          osd.{i}"
                )
        b.tool("OSD дарагы:", "bash", ceph("ceph osd df tree"), "\n".join(lines))
        b.assistant(
            "Ар бир нодада үч OSD, толушу 34–46% аралыгында, бир калыпта бөлүнгөн. Тең салмактоо (balancer) жакшы иштеп жатат."
        )

    scenes: list[Callable[[], None]] = [
        scene_serial,
        scene_crash,
        scene_pvc,
        scene_rollback,
        scene_bucket,
        scene_decision,
        scene_next,
        decoy_hunch,
        decoy_tree,
    ]
    rng.shuffle(scenes)
    for scene in scenes:
        scene()
    for fix in late:
        fix()
    b.user("Азырынча ушул. Рахмат! Кийинки тапшырмаларды кийинчерээк жазам.")
    b.assistant("Макул, күтөм.")
    opening = b.take()

    # ---- filler -------------------------------------------------------------------------------
    teams = ["analytics", "devops", "qa-team", "support-tools", "ml-lab"]

    def filler(r: random.Random) -> None:
        pick = r.randrange(6)
        if pick == 0:
            b.user("Мониторлордун кворумун текшерип койчу.")
            b.tool(
                "Кворум:",
                "bash",
                ceph("ceph quorum_status -f json-pretty | head -n 14"),
                _js(
                    {
                        "election_epoch": r.randint(100, 400),
                        "quorum": [0, 1, 2],
                        "quorum_names": ["a", "b", "c"],
                        "quorum_leader_name": "a",
                        "quorum_age": r.randint(100000, 900000),
                    }
                ),
            )
            b.assistant("Үч монитор тең кворумда, лидер — a.")
        elif pick == 1:
            team = r.choice(teams)
            size = r.choice([30, 80, 150])
            b.user(f"`{team}` командасы үчүн CephFS'те {size} ГБ subvolume түзүп берчи.")
            b.tool(
                "Subvolume түзөм:",
                "bash",
                ceph(
                    f"ceph fs subvolume create myfs {team} --size {size * 1024**3} --group_name csi && ceph fs subvolume getpath myfs {team} --group_name csi"
                ),
                f"/volumes/csi/{team}/{fresh(_uuid)}",
            )
            b.assistant(f"`{team}` үчүн {size} ГБ subvolume даяр.")
        elif pick == 2:
            b.user("Rook операторунун логунда акыркы бир саатта ката барбы?")
            b.tool(
                "Оператордун логу:",
                "bash",
                {
                    "command": "kubectl -n rook-ceph logs deploy/rook-ceph-operator --since=1h | grep -E ' E \\| ' | tail -n 5"
                },
                "\n".join(
                    f'2024-06-{r.randint(10, 28)} {_clock(r)}.{r.randint(100, 999)} E | ceph-spec: failed to update cluster condition to {{Type:Progressing Status:True}}. Operation cannot be fulfilled on cephclusters.ceph.rook.io "rook-ceph": the object has been modified'
                    for _ in range(r.randint(1, 3))
                ),
            )
            b.assistant(
                "Бир нече 'object has been modified' катасы гана бар — бул зыянсыз, оператор кайра аракет кылат."
            )
        elif pick == 3:
            b.user("Scrub'дар кандай жүрүп жатат? Убагында бүтпөй калган PG жокпу?")
            b.tool(
                "PG абалы:",
                "bash",
                ceph("ceph pg dump pgs_brief 2>/dev/null | awk '{print $2}' | sort | uniq -c"),
                f"    {r.randint(340, 350)} active+clean\n      {r.randint(1, 4)} active+clean+scrubbing+deep\n      1 STATE",
            )
            b.assistant("Баары active+clean, бир нечеси deep-scrub'да. Кечиккен scrub жок.")
        elif pick == 4:
            user = r.choice(["grafana-loki", "harbor", "velero", "mattermost"])
            b.user(f"RGW'дагы `{user}` колдонуучусунун квотасы канча?")
            b.tool(
                "Колдонуучу:",
                "bash",
                ceph(
                    f"radosgw-admin user info --uid={user} | jq '{{user_id, max_buckets, user_quota}}'"
                ),
                _js(
                    {
                        "user_id": user,
                        "max_buckets": 1000,
                        "user_quota": {
                            "enabled": True,
                            "check_on_raw": False,
                            "max_size": r.choice([300, 1200, 2500]) * 1024**3,
                            "max_size_kb": 0,
                            "max_objects": -1,
                        },
                    }
                ),
            )
            b.assistant(f"`{user}` үчүн квота күйгүзүлгөн, чеги max_size'та көрсөтүлгөн.")
        else:
            b.user("Ceph'тин версиялары бардык демондордо бирдейби?")
            b.tool(
                "Версиялар:",
                "bash",
                ceph("ceph versions"),
                _js(
                    {
                        "mon": {
                            "ceph version 18.2.2 (531c0d11a1c5d39fbfe6aa8a521f023abf3bf3e2) reef (stable)": 3
                        },
                        "mgr": {
                            "ceph version 18.2.2 (531c0d11a1c5d39fbfe6aa8a521f023abf3bf3e2) reef (stable)": 2
                        },
                        "osd": {
                            "ceph version 18.2.2 (531c0d11a1c5d39fbfe6aa8a521f023abf3bf3e2) reef (stable)": 9
                        },
                    }
                ),
            )
            b.assistant("Ооба, баары 18.2.2 Reef.")

    return opening, segments_of(rng, b, segments, filler), probes


# --------------------------------------------------------------------------------------
# temporal_payouts: Temporal (Go SDK workers) on Kubernetes via the temporal CLI, in Hausa
# --------------------------------------------------------------------------------------

_HA_DAYS: tuple[tuple[str, str], ...] = (
    ("Litinin", "Monday"),
    ("Talata", "Tuesday"),
    ("Laraba", "Wednesday"),
    ("Alhamis", "Thursday"),
)

# CLI value, English, Hausa, hours
_TMP_RETENTION: tuple[tuple[str, str, str, str], ...] = (
    ("10d", "10 days", "kwanaki 10", "240h"),
    ("21d", "21 days", "kwanaki 21", "504h"),
    ("30d", "30 days", "kwanaki 30", "720h"),
    ("45d", "45 days", "kwanaki 45", "1080h"),
    ("60d", "60 days", "kwanaki 60", "1440h"),
)


def _temporal_payouts(rng: random.Random, b: Builder, segments: int) -> Parts:
    fresh = _Fresh(rng)
    probes: list[Probe] = []
    late: list[Callable[[], None]] = []
    day = rng.randint(3, 26)
    colleague, lead = rng.sample(["Musa", "Ibrahim", "Sani", "Bello", "Umar"], 2)
    finance = rng.choice(["Aisha", "Zainab", "Hauwa", "Fatima"])
    sched = rng.choice(["nightly-reconcile", "hourly-fx-sync", "daily-merchant-statements"])
    other_sched = {
        "nightly-reconcile": "nightly-reconcile-v2",
        "hourly-fx-sync": "hourly-fx-sync-ngn",
        "daily-merchant-statements": "daily-merchant-statements-sms",
    }[sched]
    old_deploy = rng.choice(["settlement-worker-v1", "payout-worker-v1", "ledger-worker-v1"])
    new_deploy = old_deploy.replace("-v1", "-v2")
    merchants = [
        ("Kano Textiles", 4471),
        ("Dala Foods", 3308),
        ("Sabon Gari Pharmacy", 5120),
        ("Kurmi Electronics", 2894),
        ("Zaria Agro Mills", 6613),
        ("Bompai Motors", 7042),
    ]
    rng.shuffle(merchants)

    def tctl(cmd: str) -> dict[str, object]:
        head, pipe, tail = cmd.partition(" | ")
        flags = " --namespace payments --address temporal-frontend.temporal:7233"
        return {"command": f"temporal {head}{flags}{pipe}{tail}"}

    # ---- opening -------------------------------------------------------------------
    b.user(
        rng.choice(
            [
                "Sannu! Yau muna da ayyuka da dama a kan Temporal ɗinmu. Server ɗin Temporal 1.22 ne a cikin Kubernetes (namespace na k8s `temporal`), namespace na Temporal kuma shi ne `payments`. Workers ɗinmu na Go ne, suna biyan kuɗi ga 'yan kasuwa ta NIP. Za ka iya amfani da `temporal` CLI da kubectl. Da farko ka duba yanayin tsarin gaba ɗaya.",
                "Barka da yau! Akwai aiki a kan Temporal yau. Muna da Temporal 1.22 a Kubernetes (`temporal` namespace), sai namespace na Temporal `payments`, da workers na Go da ke tura kuɗi zuwa asusun 'yan kasuwa. Kana da `temporal` CLI da kubectl. Kafin komai, ka duba yadda abubuwa suke.",
            ]
        )
    )
    b.tool(
        "To, zan fara da duba pods na Temporal da kuma workers. Pods na server:",
        "bash",
        {"command": "kubectl get pods -n temporal"},
        _table(
            ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
            [
                [
                    f"temporal-frontend-{hexits(rng, 10)}-{token(rng, 5, string.ascii_lowercase + string.digits)}",
                    "1/1",
                    "Running",
                    "0",
                    "19d",
                ],
                [
                    f"temporal-history-{hexits(rng, 10)}-{token(rng, 5, string.ascii_lowercase + string.digits)}",
                    "1/1",
                    "Running",
                    "1 (6d ago)",
                    "19d",
                ],
                [
                    f"temporal-matching-{hexits(rng, 10)}-{token(rng, 5, string.ascii_lowercase + string.digits)}",
                    "1/1",
                    "Running",
                    "0",
                    "19d",
                ],
                [
                    f"temporal-worker-{hexits(rng, 10)}-{token(rng, 5, string.ascii_lowercase + string.digits)}",
                    "1/1",
                    "Running",
                    "0",
                    "19d",
                ],
                [
                    f"temporal-web-{hexits(rng, 10)}-{token(rng, 5, string.ascii_lowercase + string.digits)}",
                    "1/1",
                    "Running",
                    "0",
                    "19d",
                ],
                ["temporal-postgresql-0", "1/1", "Running", "0", "62d"],
            ],
        ),
    )
    b.tool(
        "Deployments na workers:",
        "bash",
        {"command": "kubectl get deploy -n payments"},
        _table(
            ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
            [
                ["settlement-worker-v1", "2/2", "2", "2", "143d"]
                if old_deploy != "settlement-worker-v1"
                else [old_deploy, "3/3", "3", "3", "143d"],
                ["payout-worker-v1", "2/2", "2", "2", "143d"]
                if old_deploy != "payout-worker-v1"
                else [old_deploy, "3/3", "3", "3", "143d"],
                ["ledger-worker-v1", "2/2", "2", "2", "98d"]
                if old_deploy != "ledger-worker-v1"
                else [old_deploy, "3/3", "3", "3", "98d"],
                [new_deploy, "3/3", "3", "3", "2d"],
                ["fx-worker", "1/1", "1", "1", "61d"],
            ],
        ),
    )
    b.assistant(
        f"Komai yana aiki: dukkan pods na server suna Running, history ya sake farawa sau ɗaya kwana shida da suka wuce. A payments akwai workers guda biyar, ciki har da sabon {new_deploy} da aka tura kwana biyu da suka wuce. Me za mu fara da shi?"
    )

    # ---- identifier: the run id of the failed settlement -------------------------------------
    def scene_run() -> None:
        name, mid = merchants[0]
        rows = []
        runs = [fresh(_uuid) for _ in range(7)]
        target = runs[0]
        rows.append(
            [
                f"settlement-{mid}-2024-06-{day:02d}",
                target,
                "WORKFLOW_EXECUTION_STATUS_FAILED",
                f"2024-06-{day:02d}T06:00:0{rng.randint(1, 9)}Z",
            ]
        )
        rows.append(
            [
                f"settlement-{mid}-2024-06-{day - 1:02d}",
                runs[1],
                "WORKFLOW_EXECUTION_STATUS_COMPLETED",
                f"2024-06-{day - 1:02d}T06:00:0{rng.randint(1, 9)}Z",
            ]
        )
        for i, (_, other) in enumerate(merchants[1:6]):
            status = rng.choice(
                [
                    "WORKFLOW_EXECUTION_STATUS_FAILED",
                    "WORKFLOW_EXECUTION_STATUS_COMPLETED",
                    "WORKFLOW_EXECUTION_STATUS_COMPLETED",
                ]
            )
            rows.append(
                [
                    f"settlement-{other}-2024-06-{day:02d}",
                    runs[2 + i],
                    status,
                    f"2024-06-{day:02d}T06:00:{rng.randint(10, 59)}Z",
                ]
            )
        rng.shuffle(rows)
        b.user(
            rng.choice(
                [
                    f"{name} (merchant {mid}) sun kira, sun ce ba su karɓi kuɗin settlement na yau ba. Ka nemo workflow ɗin settlement ɗinsu na yau ka ga me ya faru.",
                    f"Matsala daga {name}: settlement ɗinsu na yau bai iso ba. Merchant ID ɗinsu {mid} ne. Ka duba Temporal ka gano dalili.",
                ]
            )
        )
        b.tool(
            "Settlement workflows na kwanaki biyu:",
            "bash",
            {
                "command": f"temporal workflow list --namespace payments --query \"WorkflowType='SettlementWorkflow' AND StartTime > '2024-06-{day - 1:02d}T00:00:00Z'\" -o json | jq -r '.[] | [.execution.workflowId, .execution.runId, .status, .startTime] | @tsv'"
            },
            "\n".join("\t".join(r) for r in rows),
        )
        acct = f"{rng.randint(10, 99)}{rng.randint(10000000, 99999999)}"
        b.tool(
            f"Na yau na {mid} ya kasa. Bayanin wannan run ɗin:",
            "bash",
            tctl(
                f"workflow describe --workflow-id settlement-{mid}-2024-06-{day:02d} --run-id {target}"
            ),
            "\n".join(
                [
                    "Execution Info:",
                    f"  WorkflowId            settlement-{mid}-2024-06-{day:02d}",
                    f"  RunId                 {target}",
                    "  Type                  SettlementWorkflow",
                    "  Namespace             payments",
                    "  TaskQueue             settlement-tq",
                    f"  StartTime             2024-06-{day:02d} 06:00:0{rng.randint(1, 9)} +0000 UTC",
                    f"  CloseTime             2024-06-{day:02d} 06:{rng.randint(10, 40)}:{rng.randint(10, 59)} +0000 UTC",
                    "  Status                FAILED",
                    f"  HistoryLength         {rng.randint(30, 80)}",
                    "",
                    "Failure:",
                    "  Message    activity error",
                    "  ActivityType  SendNIPTransfer",
                    f"  Cause      NIBSS response 57: Transaction not permitted to sender (beneficiary account {acct[:3]}****{acct[-3:]})",
                    "  Retry      MaximumAttempts (5) reached",
                ]
            ),
        )
        b.assistant(
            rng.choice(
                [
                    f'Na samo shi: settlement na {name} na yau (run {target}) ya kasa bayan ƙoƙari biyar — NIBSS ya ba da amsa 57 "Transaction not permitted to sender". Wannan ba kuskure a code ɗinmu ba ne; bankin mai karɓa ya ƙi. Na jiya ya kammala lafiya.',
                    f"Run ɗin da ya kasa shi ne {target}: activity SendNIPTransfer ya gaza sau biyar da lambar NIBSS 57. Sauran settlements na yau — wasu sun yi nasara, wasu kuma sun kasa saboda dalilai daban-daban.",
                ]
            )
        )
        b.user("Na gode. Zan tuntuɓi bankinsu.")
        b.assistant("To, shi ke nan.")
        probes.append(
            Probe(
                "identifier",
                f"What is the run id of today's failed SettlementWorkflow execution for {name} (merchant {mid})?",
                target,
                ((target,),),
            )
        )

    # ---- identifier: the commit that broke determinism ---------------------------------------
    def scene_commit() -> None:
        shas = [fresh(lambda r: hexits(r, 7)) for _ in range(7)]
        culprit, sdk = shas[2], shas[1]
        log = [
            f"{shas[0]} (HEAD -> main, tag: v2.8.1) chore: bump chart version",
            f"{sdk} deps: bump go.temporal.io/sdk from v1.26.1 to v1.27.0",
            f"{culprit} feat(settlement): send SMS receipt activity after transfer",
            f"{shas[3]} fix(ledger): round kobo amounts half-even",
            f"{shas[4]} test: replay tests for PayoutWorkflow",
            f"{shas[5]} feat(fx): cache CBN rates for 10 minutes",
        ]
        b.user(
            rng.choice(
                [
                    f"Tun bayan mun tura {new_deploy}, wasu settlement workflows da suka fara kafin deploy suna makale da kuskuren nondeterminism. {colleague} yana ganin laifin commit ɗin da ya haɓaka Temporal SDK ne. Ka duba ka gano wane commit ne ya jawo.",
                    f"Workflows da aka fara kafin deploy na {new_deploy} suna nuna 'nondeterministic error'. {colleague} ya ce sabon SDK ne. Ka tabbatar, ka gano ainihin commit ɗin.",
                ]
            )
        )
        b.tool(
            "Kuskuren daga worker log:",
            "bash",
            {
                "command": f"kubectl logs -n payments deploy/{new_deploy} --since=2h | grep -m 4 -i nondetermin"
            },
            "\n".join(
                f'{{"level":"ERROR","ts":"2024-06-{day:02d}T0{rng.randint(7, 9)}:{rng.randint(10, 59)}:{rng.randint(10, 59)}Z","msg":"Workflow panic","Namespace":"payments","TaskQueue":"settlement-tq","WorkflowType":"SettlementWorkflow","WorkflowID":"settlement-{rng.choice(merchants)[1]}-2024-06-{day - 2:02d}","RunID":"{fresh(_uuid)}","Attempt":{rng.randint(2, 40)},"Error":"[TMPRL1100] During replay, a matching ScheduleActivityTask command was expected in history event position 11. However, the replayed code did not produce that. Possible cause is nondeterministic workflow definition code, or an incompatible change in the workflow definition. Expected: SendSMSReceipt, got: RecordLedgerEntry"}}'
                for _ in range(3)
            ),
        )
        b.tool(
            "Tarihin commits na workflow code:",
            "bash",
            {"command": "git log --oneline -6 -- internal/ go.mod"},
            "\n".join(log),
        )
        b.tool(
            f"Bari in duba canjin {culprit}:",
            "bash",
            {"command": f"git show --stat --format='%h %an %ad%n%s' {culprit}"},
            "\n".join(
                [
                    f"{culprit} {lead} {_wday(max(1, day - 3))} Jun {max(1, day - 3)} 16:{rng.randint(10, 59)}:{rng.randint(10, 59)} 2024 +0100",
                    "feat(settlement): send SMS receipt activity after transfer",
                    "",
                    " internal/settlement/workflow.go      | 14 +++++++++++---",
                    " internal/settlement/activities.go    | 41 +++++++++++++++++++++++++++++++++++++++++",
                    " internal/settlement/workflow_test.go |  9 +++++++++",
                    " 3 files changed, 61 insertions(+), 3 deletions(-)",
                ]
            ),
        )
        b.assistant(
            rng.choice(
                [
                    f"Ba SDK ba ne: commit {sdk} kawai ya canza go.mod. Ainihin dalilin shi ne commit {culprit} — ya ƙara activity SendSMSReceipt a cikin SettlementWorkflow ba tare da workflow.GetVersion ba, don haka workflows da suka fara kafin deploy ba za su iya replay ba. Mafita: a sa GetVersion a kewaye da sabon activity.",
                    f'Kuskuren ya fito ne daga {culprit} ("send SMS receipt activity"): an ƙara sabon activity a tsakiyar workflow ba tare da versioning ba. Haɓaka SDK ({sdk}) ba shi da alaƙa da wannan.',
                ]
            )
        )
        probes.append(
            Probe(
                "identifier",
                "What is the short hash of the commit that made SettlementWorkflow nondeterministic (the one that added an activity without versioning)?",
                culprit,
                ((culprit,),),
            )
        )

    # ---- identifier: the NIP session id of the duplicate transfer -------------------------------
    def scene_session() -> None:
        name, mid = merchants[1]
        bank = rng.choice(["000013", "000014", "000016", "000004"])

        def hms(t: int) -> str:
            return f"{t // 3600:02d}:{t % 3600 // 60:02d}:{t % 60:02d}"

        def sid(t: int) -> str:
            wat = t + 3600  # NIBSS stamps session ids in West Africa Time
            return fresh(
                lambda r: (
                    f"{bank}2406{day:02d}{wat // 3600:02d}{wat % 3600 // 60:02d}{wat % 60:02d}{r.randint(10**11, 10**12 - 1)}"
                )
            )

        t0 = 6 * 3600 + rng.randint(60, 300)
        t_retry = t0 + 11 + rng.randint(120, 400)
        first, dup = sid(t0 + 3), sid(t_retry + 1)
        amount = f"{rng.randint(200, 4000)}{rng.choice(['000.00', '500.00', '250.00'])}"
        txs = [
            {
                "session_id": first,
                "merchant_id": mid,
                "amount": amount,
                "status": "SUCCESSFUL",
                "reference": f"STL-{mid}-{day:02d}06-1",
                "created_at": f"2024-06-{day:02d}T{hms(t0 + 3)}Z",
            },
            {
                "session_id": dup,
                "merchant_id": mid,
                "amount": amount,
                "status": "SUCCESSFUL",
                "reference": f"STL-{mid}-{day:02d}06-1",
                "created_at": f"2024-06-{day:02d}T{hms(t_retry + 1)}Z",
            },
        ]
        for _, om in merchants[2:6]:
            t = 6 * 3600 + rng.randint(30, 1800)
            txs.append(
                {
                    "session_id": sid(t),
                    "merchant_id": om,
                    "amount": f"{rng.randint(100, 3000)}000.00",
                    "status": rng.choice(["SUCCESSFUL", "SUCCESSFUL", "FAILED"]),
                    "reference": f"STL-{om}-{day:02d}06-1",
                    "created_at": f"2024-06-{day:02d}T{hms(t)}Z",
                }
            )
        txs.sort(key=lambda tx: str(tx["created_at"]))
        b.user(
            rng.choice(
                [
                    f"{name} sun ce an tura musu kuɗin settlement sau biyu yau. Ka duba a wurin mai ba mu sabis na NIP ka gano wanne ne na biyu — wannan za mu nemi a mayar.",
                    f"Akwai zargin biyan sau biyu ga {name} (merchant {mid}). Ka samo mini transfer na biyun daga API na provider, saboda mu nemi reversal.",
                ]
            )
        )
        b.tool(
            "Transfers na yau daga provider:",
            "bash",
            {
                "command": f"curl -s -H @/run/secrets/nip-auth 'https://api.nip-gateway.internal/v2/transfers?date=2024-06-{day:02d}&channel=settlement' | jq -c '.data[]'"
            },
            "\n".join(json.dumps(tx, ensure_ascii=False) for tx in txs),
        )
        b.tool(
            "Bari in duba tarihin activity don gane dalilin:",
            "bash",
            tctl(
                f"workflow show --workflow-id settlement-{mid}-2024-06-{day:02d} | grep -E 'ActivityTask(Scheduled|Started|Completed|TimedOut)'"
            ),
            "\n".join(
                [
                    f"  5  2024-06-{day:02d}T{hms(t0)}Z  ActivityTaskScheduled  {{ActivityType:{{Name:SendNIPTransfer}}, StartToCloseTimeout:10s}}",
                    f"  6  2024-06-{day:02d}T{hms(t0 + 1)}Z  ActivityTaskStarted    {{Attempt:1}}",
                    f"  7  2024-06-{day:02d}T{hms(t0 + 11)}Z  ActivityTaskTimedOut   {{TimeoutType:StartToClose}}",
                    f"  8  2024-06-{day:02d}T{hms(t_retry)}Z  ActivityTaskStarted    {{Attempt:2}}",
                    f"  9  2024-06-{day:02d}T{hms(t_retry + 2)}Z  ActivityTaskCompleted  {{Result:{{SessionID:{dup[:10]}...}}}}",
                ]
            ),
        )
        b.assistant(
            rng.choice(
                [
                    f"Gaskiya ne, an biya sau biyu. Attempt na farko ya wuce StartToClose (10s) amma a zahiri transfer ya tafi ({first}); retry ya sake tura kuɗin. Transfer na biyu, wanda za a nemi reversal, yana da NIP session ID {dup}. Dalili: babu idempotency key a kiran provider.",
                    f"Na biyun shi ne session ID {dup} (na farko {first}), kuɗi ɗaya {amount}. Timeout na activity ya sa retry ya sake tura kuɗi. Sai a nemi reversal na {dup} kawai.",
                ]
            )
        )
        b.user("To, zan aika wa bankin buƙatar reversal da wannan session ID.")
        b.assistant("Madalla.")
        probes.append(
            Probe(
                "identifier",
                f"What is the NIP session ID of the duplicate (second) settlement transfer to {name} that is to be reversed?",
                dup,
                ((dup,),),
            )
        )

    # ---- artifact: the paused schedule --------------------------------------------------------
    def scene_schedule() -> None:
        how = rng.randrange(3)
        b.user(
            rng.choice(
                [
                    f"Schedule ɗin `{sched}` yana ƙara wa database nauyi a lokacin da muke migration. Kar ka goge shi — ka dakatar da shi kawai har sai mun gama. `{other_sched}` kuma ka bar shi yadda yake.",
                    f"Don Allah ka dakatar da schedule `{sched}` na ɗan lokaci; ba goge shi ba, pause kawai. Kada ka taɓa `{other_sched}`.",
                ]
            )
        )
        b.tool(
            "Schedules da ke akwai:",
            "bash",
            tctl("schedule list"),
            _table(
                ["ScheduleId", "WorkflowType", "Paused", "Notes", "NextRunTime"],
                [
                    [
                        sched,
                        "ReconcileWorkflow"
                        if "reconcile" in sched
                        else ("FXSyncWorkflow" if "fx" in sched else "StatementWorkflow"),
                        "false",
                        "",
                        f"2024-06-{day:02d}T{rng.randint(18, 23)}:00:00Z",
                    ],
                    [
                        other_sched,
                        "ReconcileWorkflow"
                        if "reconcile" in sched
                        else ("FXSyncWorkflow" if "fx" in sched else "StatementWorkflow"),
                        "false",
                        "",
                        f"2024-06-{day:02d}T{rng.randint(18, 23)}:30:00Z",
                    ],
                    [
                        "weekly-payout-report",
                        "ReportWorkflow",
                        "false",
                        "",
                        f"2024-06-{min(28, day + 3):02d}T07:00:00Z",
                    ],
                    [
                        "kyc-expiry-reminder",
                        "KYCReminderWorkflow",
                        "true",
                        "paused by ibrahim: template review",
                        "-",
                    ],
                ],
                gap=2,
            ),
        )
        b.tool(
            "Ina dakatar da shi:",
            "bash",
            tctl(
                f"schedule toggle --schedule-id {sched} --pause --reason 'db migration, paused by ops'"
            ),
            "Schedule updated" if how in (0, 2) else "(no output)",
        )
        if how in (0, 2):
            b.tool(
                "Tabbatarwa:",
                "bash",
                tctl(
                    f"schedule describe --schedule-id {sched} | grep -E 'ScheduleId|Paused|Notes'"
                ),
                f"  ScheduleId   {sched}\n  Paused       true\n  Notes        db migration, paused by ops",
            )
        if how == 0:
            b.assistant("An gama.")
        elif how == 1:
            b.assistant(
                f"An dakatar da schedule `{sched}` (paused) — ba a goge shi ba, za a iya sake kunna shi da `schedule toggle --unpause`. `{other_sched}` yana nan yana aiki."
            )
        else:
            b.assistant(
                f"Yanzu `{sched}` yana Paused: true, tare da bayanin dalili. Ba a goge komai ba; `{other_sched}` bai canza ba."
            )
        probes.append(
            Probe(
                "artifact",
                f"What was done to the Temporal schedule `{sched}`?",
                f"It was paused (not deleted) for the database migration; `{other_sched}` was left running.",
                (
                    (sched,),
                    ("paused", "pause", "dakatar", "an tsayar", "toggle"),
                ),
            )
        )

    # ---- artifact: the old worker deployment scaled to zero -----------------------------------
    def scene_scale() -> None:
        how = rng.randrange(3)
        b.user(
            rng.choice(
                [
                    f"{new_deploy} yana aiki lafiya tun kwana biyu. Ka rage {old_deploy} zuwa sifili (replicas 0), amma kar ka goge deployment ɗin — muna iya buƙatar komawa gare shi.",
                    f"Lokaci ya yi na kashe tsohon worker: {old_deploy} ya koma replicas 0. Kada a goge deployment ɗin, muna ajiye shi don rollback.",
                ]
            )
        )
        b.tool(
            "Kafin in rage shi, bari in tabbatar babu workflows da ke jiran tsohon build:",
            "bash",
            tctl("task-queue describe --task-queue settlement-tq"),
            "\n".join(
                [
                    "  Identity                                               LastAccessTime                 RatePerSecond",
                    *[
                        f"  1@{new_deploy}-{hexits(rng, 10)}-{token(rng, 5, string.ascii_lowercase + string.digits)}@  2024-06-{day:02d}T10:{rng.randint(10, 59)}:{rng.randint(10, 59)}Z  100000"
                        for _ in range(3)
                    ],
                    *[
                        f"  1@{old_deploy}-{hexits(rng, 10)}-{token(rng, 5, string.ascii_lowercase + string.digits)}@  2024-06-{day:02d}T10:{rng.randint(10, 59)}:{rng.randint(10, 59)}Z  100000"
                        for _ in range(2)
                    ],
                ]
            ),
        )
        b.tool(
            "Ina rage shi:",
            "bash",
            {
                "command": f"kubectl scale deploy/{old_deploy} -n payments --replicas=0"
                + (
                    f" && kubectl get deploy {old_deploy} {new_deploy} -n payments"
                    if how in (0, 2)
                    else ""
                )
            },
            f"deployment.apps/{old_deploy} scaled"
            + (
                "\n"
                + _table(
                    ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
                    [[old_deploy, "0/0", "0", "0", "143d"], [new_deploy, "3/3", "3", "3", "2d"]],
                )
                if how in (0, 2)
                else ""
            ),
        )
        if how == 0:
            b.assistant("Shi ke nan.")
        elif how == 1:
            b.assistant(
                f"An rage {old_deploy} zuwa replicas 0 — deployment ɗin yana nan, ba a goge ba, don haka rollback zai yiwu da `kubectl scale --replicas=3`. {new_deploy} ne kawai ke aiki yanzu."
            )
        else:
            b.assistant(
                f"{old_deploy} yanzu 0/0 ne, {new_deploy} 3/3. Deployment ɗin tsohon yana nan don rollback."
            )
        probes.append(
            Probe(
                "artifact",
                f"What was done to the `{old_deploy}` deployment?",
                f"It was scaled down to 0 replicas (not deleted, kept for rollback); {new_deploy} now does all the work.",
                (
                    (old_deploy,),
                    (
                        "scaled",
                        "replicas=0",
                        "replicas 0",
                        "0 replicas",
                        "0/0",
                        "zero",
                        "sifili",
                        "an rage",
                    ),
                ),
            )
        )

    # ---- decision: namespace retention ----------------------------------------------------------
    def scene_decision() -> None:
        mode = rng.choice(_DECISION_MODES)
        final, other = rng.sample(_TMP_RETENTION, 2)

        def apply(v: tuple[str, str, str, str]) -> None:
            b.tool(
                f"Ina saita retention zuwa {v[0]}:",
                "bash",
                {
                    "command": f"temporal operator namespace update --namespace payments --retention {v[0]} --address temporal-frontend.temporal:7233 && temporal operator namespace describe --namespace payments --address temporal-frontend.temporal:7233"
                },
                "\n".join(
                    [
                        "  NamespaceInfo.Name                    payments",
                        f"  NamespaceInfo.Id                      {fresh(_uuid)}",
                        "  NamespaceInfo.State                   Registered",
                        f"  Config.WorkflowExecutionRetentionTtl  {v[3]}0m0s",
                        "  ReplicationConfig.ActiveClusterName   active",
                        "  Config.HistoryArchivalState           Disabled",
                        "  Config.VisibilityArchivalState        Disabled",
                    ]
                ),
            )

        intro = "Tsawon lokacin riƙe tarihin workflows da suka ƙare (retention) a namespace `payments` yanzu 72h ne kawai; masu binciken kuɗi suna buƙatar tarihi mai tsawo."
        if mode == "dictated":
            b.user(
                f"{intro} Ka saita retention zuwa {final[2]}, saboda dokar CBN tana buƙatar mu iya nuna tarihin kowane biyan kuɗi na wannan tsawon."
            )
            apply(final)
            b.assistant(f"An saita: retention {final[0]} ({final[3]}).")
        elif mode == "approved":
            b.user(f"{intro} Me kake ba da shawara?")
            b.assistant(
                f"Shawarata: {final[0]} ({final[2]}). Wannan ya isa masu bincike, kuma database ba zai cika da sauri ba. In saita?"
            )
            b.user("I, saita.")
            apply(final)
            b.assistant(f"An saita {final[0]}.")
        elif mode == "changed":
            b.user(f"{intro} Nawa za mu saita?")
            b.assistant(f"Ina ba da shawarar {other[0]} ({other[2]}). Ya yi?")
            b.user(f"A'a, mu yi {final[2]} — rahoton wata-wata na finance yana buƙatar haka.")
            apply(final)
            b.assistant(f"To, ba {other[0]} ba; na saita {final[0]}.")
        elif mode == "corrected":
            b.user(f"{intro} Ka saita shi zuwa {other[2]}.")
            apply(other)
            b.assistant(f"An saita: {other[0]}.")

            def correction() -> None:
                b.user(
                    f"Yi haƙuri, na yi kuskure game da retention: na yi magana da {lead}, ba {other[2]} ba ne, {final[2]} ne. Ka gyara don Allah."
                )
                apply(final)
                b.assistant(
                    f"An gyara: retention yanzu {final[0]} ({final[3]}); {other[0]} ɗin da ya gabata an soke shi."
                )

            late.append(correction)
        elif mode == "relayed":
            b.user(
                f"{intro} {finance} daga sashen finance ta ce retention ya zama {final[2]}, domin auditors na waje za su zo. Ka saita haka."
            )
            apply(final)
            b.assistant(f"Kamar yadda {finance} ta faɗa: retention {final[0]}.")
        else:
            b.user(intro + " Dole a ƙara shi.")
            b.assistant(
                f"Nawa kake so: {other[2]}, {final[2]}, ko wani daban? Zai shafi namespace `payments` ne kawai."
            )
            b.user(f"{final[2].capitalize()}.")
            apply(final)
            b.assistant(f"An saita: {final[0]}.")
        probes.append(
            Probe(
                "decision",
                "What workflow retention was settled on for the Temporal namespace `payments`?",
                f"{final[1]} ({final[0]}).",
                ((final[0], final[1], final[2], final[3]), ("retention", "riƙe", "ajiye")),
            )
        )

    # ---- next step -------------------------------------------------------------------------------
    def scene_next() -> None:
        variant = rng.randrange(3)
        if variant == 0:
            ha, en = rng.choice(_HA_DAYS)
            b.user(
                rng.choice(
                    [
                        f"Wani abu: ranar {ha} da dare za mu haɓaka Temporal server daga 1.22 zuwa 1.24, bayan an rufe settlement na rana. Har zuwa lokacin kar ka taɓa schema na database. Yanzu dai ka nuna min girman database ɗin visibility.",
                        f"Don sani: haɓakawa zuwa Temporal 1.24 za ta kasance ranar {ha} da dare. Kada ka canza schema kafin nan. Yanzu, nawa ne girman tebura na visibility?",
                    ]
                )
            )
            b.tool(
                "Girman tebura:",
                "bash",
                {
                    "command": 'kubectl exec -n temporal temporal-postgresql-0 -- psql -U temporal -d temporal_visibility -c "select relname, pg_size_pretty(pg_total_relation_size(relid)) from pg_catalog.pg_statio_user_tables order by pg_total_relation_size(relid) desc limit 4"'
                },
                _psql(
                    ["relname", "pg_size_pretty"],
                    [
                        ["executions_visibility", f"{rng.randint(2, 9)}.{rng.randint(1, 9)} GB"],
                        ["schema_version", "16 kB"],
                        ["schema_update_history", "16 kB"],
                        ["namespace_metadata", "8192 bytes"],
                    ],
                ),
            )
            b.assistant(
                f"executions_visibility ne mafi girma. Na lura: haɓaka zuwa 1.24 ranar {ha} da dare, kuma ba zan taɓa schema kafin nan ba."
            )
            probes.append(
                Probe(
                    "next_step",
                    "What upgrade is planned, and when?",
                    f"Upgrading the Temporal server from 1.22 to 1.24 on {en} night, after the day's settlement closes; the DB schema is not to be touched before.",
                    (("1.24", "upgrade", "haɓaka"), (ha, en)),
                )
            )
        elif variant == 1:
            b.user(
                "Wani abu kuma da bai kamata mu manta ba: satifiket na mTLS na temporal-frontend zai ƙare nan ba da jimawa ba. Dole a sabunta shi kafin ƙarshen wata, in ba haka ba workers ba za su iya haɗuwa ba. Yanzu dai ka duba ranar da zai ƙare."
            )
            b.tool(
                "Satifiket ɗin:",
                "bash",
                {
                    "command": "kubectl get secret -n temporal temporal-frontend-tls -o jsonpath='{.data.tls\\.crt}' | base64 -d | openssl x509 -noout -subject -enddate"
                },
                f"subject=CN = temporal-frontend.temporal.svc\nnotAfter=Jul  {rng.randint(1, 6)} 23:59:59 2024 GMT",
            )
            b.assistant(
                "Zai ƙare farkon watan Yuli. Na rubuta: sabunta satifiket na mTLS na temporal-frontend kafin ƙarshen wata."
            )
            probes.append(
                Probe(
                    "next_step",
                    "What has to be done before the end of the month?",
                    "Renew the mTLS certificate of temporal-frontend (otherwise workers cannot connect).",
                    (
                        ("mtls", "certificate", "satifiket", "cert"),
                        ("ƙarshen wata", "end of month", "end of the month", "month"),
                    ),
                )
            )
        else:
            failed = rng.randint(6, 19)
            b.user(
                f"Akwai settlements {failed} da suka kasa jiya saboda matsalar bankin. {finance} daga finance za ta tabbatar wanne ne za a sake turawa — wasu an biya su da hannu. Ka nuna mini jerin su."
            )
            b.tool(
                "Settlements da suka kasa jiya:",
                "bash",
                tctl(
                    f"workflow count --query \"WorkflowType='SettlementWorkflow' AND ExecutionStatus='Failed' AND StartTime > '2024-06-{day - 1:02d}T00:00:00Z' AND StartTime < '2024-06-{day:02d}T00:00:00Z'\""
                ),
                f"Total: {failed}",
            )
            b.assistant(
                rng.choice(
                    [
                        f"Akwai {failed}. Da zarar {finance} ta tabbatar da jerin, zan sake kunna su da `temporal workflow reset` zuwa LastWorkflowTask — kawai waɗanda ta amince da su.",
                        f"Jimilla {failed}. Ba zan yi komai ba tukuna; bayan {finance} ta tabbatar, zan yi `temporal workflow reset` ga waɗanda ta zaɓa.",
                    ]
                )
            )
            probes.append(
                Probe(
                    "next_step",
                    f"What will the agent do once {finance} from finance confirms the list of failed settlements?",
                    "Reset (temporal workflow reset) only the confirmed failed SettlementWorkflow executions so they run again.",
                    (
                        ("reset",),
                        ("confirm", "tabbatar", "once", "after", "when", "bayan", "da zarar"),
                    ),
                )
            )

    # ---- decoys --------------------------------------------------------------------------------
    def decoy_hunch() -> None:
        b.user(
            f"{colleague} yana cewa payouts suna jinkiri saboda provider na NIP yana da matsala. Ka duba ko gaskiya ne."
        )
        b.tool(
            "Status na provider:",
            "bash",
            {
                "command": "curl -s https://status.nip-gateway.internal/api/v2/summary.json | jq '{status: .status.description, components: [.components[] | {name, status}]}'"
            },
            _js(
                {
                    "status": "All Systems Operational",
                    "components": [
                        {"name": "NIP Outward", "status": "operational"},
                        {"name": "NIP Inward", "status": "operational"},
                        {"name": "Name Enquiry", "status": "operational"},
                        {"name": "Webhooks", "status": "operational"},
                    ],
                }
            ),
        )
        b.tool(
            "Latency na activities a Prometheus:",
            "bash",
            {
                "command": "curl -s 'http://prometheus.monitoring:9090/api/v1/query' --data-urlencode 'query=histogram_quantile(0.95, sum by (le, activity_type) (rate(temporal_activity_schedule_to_start_latency_bucket{namespace=\"payments\"}[15m])))' | jq -r '.data.result[] | [.metric.activity_type, .value[1]] | @tsv'"
            },
            "\n".join(
                [
                    f"SendNIPTransfer\t{rng.randint(20, 60)}.{rng.randint(10, 99)}",
                    f"RecordLedgerEntry\t0.0{rng.randint(10, 99)}",
                    f"FetchFXRate\t0.0{rng.randint(10, 99)}",
                    f"SendSMSReceipt\t0.{rng.randint(10, 99)}",
                ]
            ),
        )
        b.assistant(
            f"Provider yana aiki lafiya. Jinkirin yana gefenmu: SendNIPTransfer yana jira sama da daƙiƙa 20 kafin worker ya ɗauke shi (schedule-to-start), wato workers ba su isa ba a settlement-tq. Zato na {colleague} bai tabbata ba."
        )

    def decoy_pending() -> None:
        b.user("Workflows nawa ne ke gudana yanzu a payments, kuma na wane iri?")
        b.tool(
            "Ƙidaya ta nau'i:",
            "bash",
            tctl("workflow count --query \"ExecutionStatus='Running'\" --group-by WorkflowType"),
            "\n".join(
                [
                    f"Total: {rng.randint(300, 900)}",
                    f"  SettlementWorkflow  {rng.randint(100, 400)}",
                    f"  PayoutWorkflow  {rng.randint(50, 300)}",
                    f"  KYCReminderWorkflow  {rng.randint(10, 80)}",
                    f"  FXSyncWorkflow  {rng.randint(1, 3)}",
                ]
            ),
        )
        b.assistant(
            "Yawancin waɗanda ke gudana SettlementWorkflow ne da PayoutWorkflow; babu wani abu na ban mamaki."
        )

    scenes: list[Callable[[], None]] = [
        scene_run,
        scene_commit,
        scene_session,
        scene_schedule,
        scene_scale,
        scene_decision,
        scene_next,
        decoy_hunch,
        decoy_pending,
    ]
    rng.shuffle(scenes)
    for scene in scenes:
        scene()
    for fix in late:
        fix()
    b.user("Na gode sosai. Za mu ci gaba da sauran ayyuka daga baya.")
    b.assistant("Madalla, ina nan.")
    opening = b.take()

    # ---- filler -----------------------------------------------------------------------------------
    def filler(r: random.Random) -> None:
        pick = r.randrange(6)
        if pick == 0:
            b.user("Ka duba ko frontend na Temporal yana amsa lafiya.")
            b.tool(
                "Health check:",
                "bash",
                {
                    "command": "temporal operator cluster health --address temporal-frontend.temporal:7233"
                },
                "SERVING",
            )
            b.assistant("Frontend yana SERVING.")
        elif pick == 1:
            n = r.randint(3, 40)
            b.user("PayoutWorkflows nawa suka kammala a awa ɗaya da ta wuce?")
            b.tool(
                "Ƙidaya:",
                "bash",
                tctl(
                    "workflow count --query \"WorkflowType='PayoutWorkflow' AND ExecutionStatus='Completed' AND CloseTime > '-1h'\""
                ),
                f"Total: {n}",
            )
            b.assistant(f"{n} ne suka kammala.")
        elif pick == 2:
            b.user("Nawa ne amfani da CPU da memory na workers yanzu?")
            b.tool(
                "Resources:",
                "bash",
                {"command": "kubectl top pod -n payments"},
                _table(
                    ["NAME", "CPU(cores)", "MEMORY(bytes)"],
                    [
                        [
                            f"fx-worker-{hexits(r, 10)}-{token(r, 5, string.ascii_lowercase + string.digits)}",
                            f"{r.randint(5, 40)}m",
                            f"{r.randint(40, 120)}Mi",
                        ]
                    ]
                    + [
                        [
                            f"{new_deploy}-{hexits(r, 10)}-{token(r, 5, string.ascii_lowercase + string.digits)}",
                            f"{r.randint(50, 400)}m",
                            f"{r.randint(100, 400)}Mi",
                        ]
                        for _ in range(3)
                    ],
                ),
            )
            b.assistant("Amfani yana cikin ƙa'ida, babu wanda ya kusa iyaka.")
        elif pick == 3:
            attr = r.choice(["MerchantTier", "SettlementBank", "PayoutChannel"])
            b.user(f"Ka ƙara search attribute `{attr}` na nau'in Keyword.")
            b.tool(
                "Ƙara search attribute:",
                "bash",
                {
                    "command": f"temporal operator search-attribute create --namespace payments --name {attr} --type Keyword --address temporal-frontend.temporal:7233 && temporal operator search-attribute list --namespace payments --address temporal-frontend.temporal:7233 | tail -n 4"
                },
                _table(
                    ["Name", "Type"],
                    [["MerchantId", "Keyword"], [attr, "Keyword"], ["SettlementDate", "Datetime"]],
                ),
            )
            b.assistant(f"An ƙara `{attr}` (Keyword).")
        elif pick == 4:
            b.user("Ka nuna min ƙarshen log na fx-worker.")
            fx_day, fx_hour = min(28, day + r.randint(1, 5)), r.randint(7, 18)
            b.tool(
                "Log:",
                "bash",
                {"command": "kubectl logs -n payments deploy/fx-worker --tail=4"},
                "\n".join(
                    f'{{"level":"INFO","ts":"2024-06-{fx_day:02d}T{fx_hour:02d}:{5 * i:02d}:0{i}Z","msg":"fetched rates","pair":"{pair}","rate":{r.randint(1400, 1900)}.{r.randint(10, 99)}}}'
                    for i, pair in enumerate(["USD/NGN", "EUR/NGN", "GBP/NGN", "USD/NGN"])
                ),
            )
            b.assistant("fx-worker yana ɗauko farashin musaya akai-akai, babu kuskure.")
        else:
            b.user("Wane version na temporal CLI muke amfani da shi?")
            b.tool(
                "Version:",
                "bash",
                {"command": "temporal --version"},
                "temporal version 0.13.2 (server 1.22.7) (ui 2.21.3)",
            )
            b.assistant("CLI 0.13.2, server 1.22.7.")

    return opening, segments_of(rng, b, segments, filler), probes


# --------------------------------------------------------------------------------------
# gitlab_runners: self-hosted GitLab 16.11 with Docker and Kubernetes runners, in Amharic
# --------------------------------------------------------------------------------------

_AM_DAYS: tuple[tuple[str, str], ...] = (
    ("ማክሰኞ", "Tuesday"),
    ("ረቡዕ", "Wednesday"),
    ("ሐሙስ", "Thursday"),
    ("ዓርብ", "Friday"),
)

# YAML value, Amharic, short
_GL_EXPIRY: tuple[tuple[str, str, str], ...] = (
    ("3 days", "3 ቀን", "3d"),
    ("10 days", "10 ቀን", "10d"),
    ("2 weeks", "2 ሳምንት", "2w"),
    ("1 month", "1 ወር", "1mo"),
)


def _gitlab_runners(rng: random.Random, b: Builder, segments: int) -> Parts:
    fresh = _Fresh(rng)
    probes: list[Probe] = []
    late: list[Callable[[], None]] = []
    day = rng.randint(3, 26)
    colleague, lead, dev = rng.sample(["ዳዊት", "ዮናስ", "ሳሙኤል", "ኤልያስ", "ሄኖክ", "ቴዎድሮስ"], 3)
    gone = rng.choice(["docker-amd64-01", "docker-amd64-02", "docker-amd64-03"])
    keep = {
        "docker-amd64-01": "docker-amd64-01b",
        "docker-amd64-02": "docker-amd64-02b",
        "docker-amd64-03": "docker-amd64-03b",
    }[gone]
    dtoken = rng.choice(["registry-pull-prod", "helm-charts-read", "k8s-image-pull"])
    lower = string.ascii_lowercase + string.digits

    def glab(path: str, jq: str = "") -> dict[str, object]:
        return {"command": f"glab api '{path}'" + (f" | jq {jq}" if jq else "")}

    # ---- opening -------------------------------------------------------------------
    b.user(
        rng.choice(
            [
                "ሰላም! ዛሬ በGitLab runners ላይ የሚሠሩ ብዙ ስራዎች አሉን። GitLab 16.11 በራሳችን ሰርቨር ላይ ነው (gitlab.abyssiniasoft.et)። Runners ሁለት ዓይነት ናቸው፦ Docker executor ያላቸው VMs እና በKubernetes ክላስተር ውስጥ የሚሠራ kubernetes executor። glab፣ kubectl እና ssh መጠቀም ትችላለህ። መጀመሪያ አጠቃላይ ሁኔታውን ተመልከትና ንገረኝ።",
                "እንደምን ዋልክ! በCI በኩል የተከማቹ ጉዳዮችን ዛሬ እንጨርስ። የራሳችን GitLab 16.11 (gitlab.abyssiniasoft.et) አለ፣ runners ደግሞ በDocker VMs እና በKubernetes ላይ ናቸው። glab እና kubectl ተዘጋጅተዋል። ከመጀመራችን በፊት የrunners ሁኔታ ምን እንደሚመስል አሳየኝ።",
            ]
        )
    )
    runner_ids = {
        name: rng.randint(20, 180)
        for name in [
            "docker-amd64-01",
            "docker-amd64-02",
            "docker-amd64-03",
            keep,
            "k8s-default",
            "k8s-highmem",
            "macos-m2",
        ]
    }
    rows = []
    for name, rid in runner_ids.items():
        status = "online"
        if name == "macos-m2":
            status = "offline"
        rows.append(
            [
                str(rid),
                name,
                status,
                "instance_type",
                "true",
                f"10.20.30.{rng.randint(10, 90)}"
                if "docker" in name
                else ("10.42.0.0" if "k8s" in name else f"10.20.40.{rng.randint(10, 90)}"),
            ]
        )
    b.tool(
        "እሺ፣ መጀመሪያ የinstance runners ዝርዝሩን እና ሁኔታቸውን አያለሁ። Runners:",
        "bash",
        glab(
            "runners/all?per_page=50",
            "-r '.[] | [.id, .description, .status, .runner_type, .active, .ip_address] | @tsv'",
        ),
        "\n".join("\t".join(r) for r in rows),
    )
    b.assistant(
        "ሰባት instance runners አሉ፤ ስድስቱ online ናቸው፣ macos-m2 ብቻ offline ነው። Docker runners አራት (01፣ 02፣ 03 እና "
        + keep
        + ")፣ Kubernetes ላይ ደግሞ k8s-default እና k8s-highmem አሉ። በምን እንጀምር?"
    )

    # ---- identifier: the failed job id ------------------------------------------------------
    def scene_job() -> None:
        pipeline = rng.randint(180000, 260000)
        base = int(fresh(lambda r: str(r.randint(4100000, 4800000))))
        names = [
            ("lint", "test"),
            ("test:unit", "test"),
            ("test:integration", "test"),
            ("build:image", "build"),
            ("scan:trivy", "build"),
            ("deploy:staging", "deploy"),
        ]

        def after(prev: int) -> Callable[[random.Random], str]:
            return lambda r: str(prev + r.randint(1, 3))

        ids = [base]
        for _ in names[1:]:
            ids.append(int(fresh(after(ids[-1]))))
        target = str(ids[2])
        status = ["success", "success", "failed", "success", "success", "skipped"]
        dur = [
            str(rng.randint(20, 80)),
            str(rng.randint(90, 300)),
            "3600.0",
            str(rng.randint(200, 500)),
            str(rng.randint(40, 120)),
            "",
        ]
        runner = ["k8s-default", "k8s-default", "docker-amd64-02", "k8s-default", "k8s-default", ""]
        older = fresh(lambda r: str(r.randint(4000000, 4099999)))
        b.user(
            rng.choice(
                [
                    f"merkato-api ፕሮጀክት ላይ የmain pipeline #{pipeline} አልተሳካም፤ {colleague} ትናንት ማታ አይቶት ነበር። የትኛው job እንደወደቀና ለምን እንደሆነ ፈልግልኝ።",
                    f"በmerkato-api የmain ቅርንጫፍ pipeline #{pipeline} ቀይ ሆኗል። የወደቀውን job ፈልገህ ምክንያቱን ንገረኝ።",
                ]
            )
        )
        b.tool(
            f"የpipeline #{pipeline} jobs:",
            "bash",
            glab(
                f"projects/abyssinia%2Fmerkato-api/pipelines/{pipeline}/jobs",
                "-r '.[] | [.id, .name, .stage, .status, .duration, .runner.description] | @tsv'",
            ),
            "\n".join(
                "\t".join([str(i), n, s, st, d, r])
                for i, (n, s), st, d, r in zip(ids, names, status, dur, runner, strict=True)
            ),
        )
        b.tool(
            f"test:integration ({target}) ነው የወደቀው። የjob logን መጨረሻ አያለሁ:",
            "bash",
            {"command": f"glab ci trace {target} -R abyssinia/merkato-api | tail -n 12"},
            "\n".join(
                [
                    "Running with gitlab-runner 16.11.1 (535ced5f)",
                    f"  on docker-amd64-02 {token(rng, 8, lower)}, system ID: s_{hexits(rng, 12)}",
                    'Preparing the "docker" executor',
                    "Using docker image sha256:" + hexits(rng, 12) + " for postgres:16-alpine ...",
                    "Waiting for services to be up and running (timeout 30 seconds)...",
                    "*** WARNING: Service runner-"
                    + token(rng, 8, lower)
                    + "-project-412-concurrent-0-"
                    + hexits(rng, 16)
                    + "-postgres-0 probably didn't start properly.",
                    "Health check error:",
                    'service "postgres" timeout',
                    "$ go test -tags=integration ./... -count=1",
                    "=== RUN   TestOrderFlow_EndToEnd",
                    "    orders_test.go:88: dial tcp 127.0.0.1:5432: connect: connection refused",
                    "ERROR: Job failed: execution took longer than 1h0m0s seconds",
                ]
            ),
        )
        b.assistant(
            rng.choice(
                [
                    f"የወደቀው job test:integration ነው፣ መለያው (job ID) {target}። docker-amd64-02 ላይ ሮጦ የpostgres service አልተነሳም፤ ፈተናዎቹ ከዳታቤዝ ጋር መገናኘት ስላልቻሉ job-ኡ የአንድ ሰዓት timeout ደርሶ ቆመ። ሌሎቹ jobs በk8s-default ላይ በስኬት አልፈዋል።",
                    f"Job {target} (test:integration) ነው የወደቀው — postgres service በdocker-amd64-02 ላይ ስላልተነሳ 1 ሰዓት ጠብቆ timeout ሆነ። ይህ የኮድ ስህተት አይደለም፣ የrunner ችግር ነው።",
                ]
            )
        )
        b.user(f"ገባኝ። የትናንቱ ሌላ pipeline ውስጥ የነበረው job {older} ደግሞ በራሱ ምክንያት ነው የወደቀው፣ እሱን ተወው።")
        b.assistant("እሺ፣ እሱን አልነካውም።")
        probes.append(
            Probe(
                "identifier",
                f"What is the job ID of the failed test:integration job in merkato-api pipeline #{pipeline} (the one that hit the 1h timeout)?",
                target,
                ((target,),),
            )
        )

    # ---- identifier: the live runner manager's system_id ---------------------------------------
    def scene_system() -> None:
        rid = runner_ids[keep]
        sids = [fresh(lambda r: "s_" + hexits(r, 12)) for _ in range(4)]
        live = sids[0]
        managers = [
            {
                "id": rng.randint(1000, 1999),
                "system_id": sids[1],
                "version": "16.9.0",
                "revision": "656c1943",
                "platform": "linux",
                "architecture": "amd64",
                "ip_address": "10.20.30.44",
                "created_at": "2024-02-11T08:12:40.118Z",
                "contacted_at": "2024-03-02T19:40:02.551Z",
                "status": "stale",
            },
            {
                "id": rng.randint(2000, 2999),
                "system_id": sids[2],
                "version": "16.10.0",
                "revision": "81ab07f6",
                "platform": "linux",
                "architecture": "amd64",
                "ip_address": "10.20.30.45",
                "created_at": "2024-03-03T10:01:12.002Z",
                "contacted_at": f"2024-05-{rng.randint(10, 28)}T11:20:09.660Z",
                "status": "stale",
            },
            {
                "id": rng.randint(3000, 3999),
                "system_id": live,
                "version": "16.11.1",
                "revision": "535ced5f",
                "platform": "linux",
                "architecture": "amd64",
                "ip_address": "10.20.30.47",
                "created_at": f"2024-05-{rng.randint(20, 30)}T09:33:51.871Z",
                "contacted_at": f"2024-06-{day:02d}T10:{rng.randint(10, 59)}:{rng.randint(10, 59)}.000Z",
                "status": "online",
            },
            {
                "id": rng.randint(4000, 4999),
                "system_id": sids[3],
                "version": "16.11.1",
                "revision": "535ced5f",
                "platform": "linux",
                "architecture": "amd64",
                "ip_address": "10.20.30.47",
                "created_at": f"2024-05-{rng.randint(20, 30)}T09:30:02.004Z",
                "contacted_at": f"2024-05-{rng.randint(20, 30)}T09:31:40.334Z",
                "status": "never_contacted",
            },
        ]
        rng.shuffle(managers)
        b.user(
            rng.choice(
                [
                    f"በGitLab UI ውስጥ {keep} runner ስር ብዙ 'managers' ይታያሉ፣ አንዳንዶቹ stale ናቸው። VM-ኡ ሁለት ጊዜ እንደገና ስለተፈጠረ ነው። አሁን በእውነት የሚሠራው የትኛው ነው? የsystem_id-ውን ፈልግልኝ፣ ሌሎቹን በኋላ እናጸዳለን።",
                    f"{keep} runner ላይ managers ተደራርበዋል። በአሁኑ ጊዜ online የሆነውን manager system_id ንገረኝ፤ stale የሆኑትን ገና አትንካቸው።",
                ]
            )
        )
        b.tool(
            f"የrunner #{rid} managers:",
            "bash",
            glab(
                f"runners/{rid}/managers",
                "'.[] | {id, system_id, version, ip_address, contacted_at, status}'",
            ),
            "\n".join(
                _js(
                    {
                        k: m[k]
                        for k in (
                            "id",
                            "system_id",
                            "version",
                            "ip_address",
                            "contacted_at",
                            "status",
                        )
                    }
                )
                for m in managers
            ),
        )
        b.tool(
            "በVM-ኡ ላይ ያለውን system ID አረጋግጣለሁ:",
            "bash",
            {
                "command": f"ssh ci-{keep.replace('docker-', '')} 'sudo cat /etc/gitlab-runner/.runner_system_id; sudo gitlab-runner --version | head -n 2'"
            },
            f"{live}\nVersion:      16.11.1\nGit revision: 535ced5f",
        )
        b.assistant(
            rng.choice(
                [
                    f"በአሁኑ ጊዜ የሚሠራው manager system_id {live} ነው (10.20.30.47፣ version 16.11.1፣ status online)። VM-ኡ ላይ ያለው .runner_system_id ፋይልም ይህንኑ ያሳያል። ሌሎቹ ሦስቱ stale ወይም never_contacted ናቸው፤ ምንም አልነካሁም።",
                    f"ሕያው የሆነው {live} ነው — በVM-ኡ ላይ ካለው ፋይል ጋር ይመሳሰላል። ሁለቱ የቆዩ managers stale ናቸው፣ አንዱ ደግሞ በጭራሽ አልተገናኘም።",
                ]
            )
        )
        probes.append(
            Probe(
                "identifier",
                f"What is the system_id of the runner manager of `{keep}` that is actually live (online) now?",
                live,
                ((live,),),
            )
        )

    # ---- identifier: the OOMKilled runner pod -----------------------------------------------------
    def scene_pod() -> None:
        short = token(rng, 8, lower)
        pods = [
            fresh(
                lambda r: (
                    f"runner-{short}-project-{r.choice(['412', '388', '519', '601'])}-concurrent-{r.randint(0, 5)}-{token(r, 8, lower)}"
                )
            )
            for _ in range(7)
        ]
        oom = pods[0]
        states = ["Error", "Running", "Running", "Completed", "Running", "Init:0/1", "Completed"]
        b.user(
            rng.choice(
                [
                    "addis-web (frontend) ላይ ያለው webpack build በk8s-default runner ላይ ደጋግሞ እየሞተ ነው፣ 'exit code 137' ይላል። የትኛው pod እንደሞተና ለምን እንደሆነ ተመልከት።",
                    "የaddis-web build job በKubernetes runner ላይ በ137 ይወጣል። የሞተውን pod ፈልገህ ምክንያቱን አረጋግጥ።",
                ]
            )
        )
        b.tool(
            "Runner pods:",
            "bash",
            {"command": "kubectl get pods -n gitlab-runner -o wide | grep runner-"},
            _table(
                ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "NODE"],
                [
                    [
                        p,
                        "0/2"
                        if s in ("Error", "Completed")
                        else ("0/2" if s.startswith("Init") else "2/2"),
                        s,
                        "0",
                        f"{rng.randint(1, 40)}m",
                        f"k8s-pool-{rng.randint(1, 6)}",
                    ]
                    for p, s in zip(pods, states, strict=True)
                ],
            ),
        )
        b.tool(
            "Error ያለውን pod እመረምራለሁ:",
            "bash",
            {"command": f"kubectl describe pod -n gitlab-runner {oom} | grep -E -A6 '^  build:'"},
            "\n".join(
                [
                    "  build:",
                    "    Container ID:  containerd://" + hexits(rng, 64),
                    "    Image:         node:20-bookworm",
                    "    State:          Terminated",
                    "      Reason:       OOMKilled",
                    "      Exit Code:    137",
                    "    Limits:  cpu: 2  memory: 2Gi",
                ]
            ),
        )
        b.assistant(
            rng.choice(
                [
                    f"የሞተው pod {oom} ነው፡ build container-ኡ OOMKilled ሆኗል (exit code 137)፣ ገደቡ 2Gi ብቻ ነው። webpack ከዚያ በላይ ማህደረ ትውስታ ይፈልጋል። መፍትሔው job-ኡን ወደ k8s-highmem ማዛወር ወይም በconfig.toml ውስጥ memory_limit ማሳደግ ነው።",
                    f"Pod {oom} በOOMKilled ተቋርጧል — የ2Gi memory limit በቂ አልነበረም። ሌሎቹ pods ደህና ናቸው።",
                ]
            )
        )
        probes.append(
            Probe(
                "identifier",
                "What is the name of the runner pod that was OOMKilled (exit code 137) during the addis-web build?",
                oom,
                ((oom,),),
            )
        )

    # ---- artifact: the unregistered runner ----------------------------------------------------
    def scene_runner() -> None:
        how = rng.randrange(3)
        rid = runner_ids[gone]
        b.user(
            rng.choice(
                [
                    f"{gone} የሚባለው VM ይዘጋል፣ አሮጌ ሃርድዌር ነው። runner-ኡን ከGitLab አስወግደው (unregister አድርገው)። {keep}ን ግን አትንካ፣ እሱ ምትኩ ነው።",
                    f"{gone} runner ከእንግዲህ አያስፈልገንም — VM-ኡ እየተዘጋ ነው። ከGitLab ሰርዘው። ስሙ የሚመሳሰለው {keep} ግን ይቆይ።",
                ]
            )
        )
        b.tool(
            "በVM-ኡ ላይ unregister አደርጋለሁ:",
            "bash",
            {
                "command": f"ssh ci-{gone.replace('docker-', '')} 'sudo gitlab-runner unregister --name {gone} && sudo systemctl disable --now gitlab-runner'"
            },
            f"Runtime platform                                    arch=amd64 os=linux pid={rng.randint(1000, 60000)} revision=535ced5f version=16.11.1\nUnregistering runner from GitLab succeeded          runner={token(rng, 8, lower)}\nRemoved symlink /etc/systemd/system/multi-user.target.wants/gitlab-runner.service."
            if how in (0, 2)
            else "(no output)",
        )
        if how in (0, 2):
            b.tool(
                "ከGitLab በኩል አረጋግጣለሁ:",
                "bash",
                glab(f"runners/{rid}", "-r '.message // .description'"),
                "404 Not found",
            )
        if how == 0:
            b.assistant("ተጠናቋል።")
        elif how == 1:
            b.assistant(
                f"{gone} runner ከGitLab ተሰርዟል (unregister ተደርጓል)፣ በVM-ኡ ላይ ያለው gitlab-runner service ደግሞ ቆሟል። {keep} አልተነካም፣ online ነው።"
            )
        else:
            b.assistant(f"{gone} አሁን በGitLab ውስጥ የለም (404) — runner-ኡ ተወግዷል። {keep} እንደቀድሞው ይሠራል።")
        probes.append(
            Probe(
                "artifact",
                f"What happened to the `{gone}` runner?",
                f"It was unregistered/removed from GitLab and its service stopped (the VM is being decommissioned); `{keep}` was kept.",
                (
                    (gone,),
                    ("unregistered", "unregister", "removed", "deleted", "ተሰርዟል", "ተወግዷል", "404"),
                ),
            )
        )

    # ---- artifact: the rotated deploy token ----------------------------------------------------
    def scene_token() -> None:
        how = rng.randrange(3)
        old_id, new_id = rng.randint(100, 180), rng.randint(181, 260)
        exp_old = f"2024-06-{min(28, day + 3):02d}"
        exp_new = f"2025-06-{min(28, day + 3):02d}"
        b.user(
            rng.choice(
                [
                    f"የmerkato-api deploy token `{dtoken}` በዚህ ሳምንት ጊዜው ያበቃል። አዲስ token ፍጠርና በKubernetes ውስጥ ያለውን image pull secret አዘምን፤ ከዚያ አሮጌውን revoke አድርግ። token-ኡን ራሱ እዚህ ቻት ላይ አትጻፍ።",
                    f"`{dtoken}` የሚባለው deploy token ሊያልፍበት ነው። rotate አድርገው፦ አዲስ ፍጠር፣ secret-ኡን አዘምን፣ አሮጌውን ሰርዝ። ምስጢሩን በቻት ውስጥ አታሳይ።",
                ]
            )
        )
        b.tool(
            "አሁን ያሉት deploy tokens:",
            "bash",
            glab(
                "projects/abyssinia%2Fmerkato-api/deploy_tokens",
                "-r '.[] | [.id, .name, .username, .expires_at, .revoked, (.scopes|join(\",\"))] | @tsv'",
            ),
            "\n".join(
                [
                    f"{old_id}\t{dtoken}\tgitlab+deploy-token-{old_id}\t{exp_old}T00:00:00.000Z\tfalse\tread_registry",
                    f"{rng.randint(20, 99)}\tci-mirror\tgitlab+deploy-token-ci\t2025-01-31T00:00:00.000Z\tfalse\tread_repository",
                    f"{rng.randint(20, 99)}\t{dtoken}-old\tgitlab+deploy-token-legacy\t2023-12-31T00:00:00.000Z\ttrue\tread_registry",
                ]
            ),
        )
        b.tool(
            "አዲሱን እፈጥራለሁ፣ secret-ኡን አዘምናለሁ (token በpipe ብቻ ይተላለፋል):",
            "bash",
            {
                "command": f'NEW=$(glab api -X POST projects/abyssinia%2Fmerkato-api/deploy_tokens -f name={dtoken} -f \'scopes[]=read_registry\' -f expires_at={exp_new}) && echo "$NEW" | jq \'{{id, name, username, expires_at, token: "[REDACTED]"}}\' && kubectl -n merkato create secret docker-registry {dtoken} --docker-server=registry.abyssiniasoft.et --docker-username=$(echo "$NEW" | jq -r .username) --docker-password=$(echo "$NEW" | jq -r .token) --dry-run=client -o yaml | kubectl apply -f -'
            },
            _js(
                {
                    "id": new_id,
                    "name": dtoken,
                    "username": f"gitlab+deploy-token-{new_id}",
                    "expires_at": f"{exp_new}T00:00:00.000Z",
                    "token": "[REDACTED]",
                }
            )
            + f"\nsecret/{dtoken} configured",
        )
        b.tool(
            "አሮጌውን revoke አደርጋለሁ:",
            "bash",
            {
                "command": f"glab api -X DELETE projects/abyssinia%2Fmerkato-api/deploy_tokens/{old_id}"
                + (
                    f" && glab api projects/abyssinia%2Fmerkato-api/deploy_tokens | jq -r '.[] | select(.name==\"{dtoken}\") | [.id, .expires_at, .revoked] | @tsv'"
                    if how in (0, 2)
                    else ""
                )
            },
            f"{new_id}\t{exp_new}T00:00:00.000Z\tfalse" if how in (0, 2) else "(no output)",
        )
        if how == 0:
            b.assistant("ሆኗል።")
        elif how == 1:
            b.assistant(
                f"`{dtoken}` deploy token ታድሷል (rotate ተደርጓል)፦ አዲሱ token እስከ {exp_new} ያገለግላል፣ Kubernetes secret-ኡ ተዘምኗል፣ አሮጌው (id {old_id}) revoke ተደርጓል። ምስጢሩ በቻቱ ውስጥ አልታየም።"
            )
        else:
            b.assistant(
                f"አሁን `{dtoken}` አንድ ብቻ ነው — አዲሱ፣ እስከ {exp_new}። አሮጌው ተሰርዟል፣ secret-ኡም ተቀይሯል።"
            )
        probes.append(
            Probe(
                "artifact",
                f"What was done with the merkato-api deploy token `{dtoken}`?",
                f"It was rotated: a new token (valid until {exp_new}) was created, the Kubernetes pull secret updated, and the old token (id {old_id}) revoked.",
                (
                    (dtoken,),
                    (
                        "rotated",
                        "rotate",
                        "renewed",
                        "replaced",
                        "new token",
                        "ታድሷል",
                        "ተቀይሯል",
                        "revoked",
                    ),
                ),
            )
        )

    # ---- decision: default artifact expiry ----------------------------------------------------------
    def scene_decision() -> None:
        mode = rng.choice(_DECISION_MODES)
        final, other = rng.sample(_GL_EXPIRY, 2)

        def apply(v: tuple[str, str, str]) -> None:
            b.tool(
                f"default_artifacts_expire_in = {v[0]} አደርጋለሁ:",
                "bash",
                {
                    "command": f"glab api -X PUT application/settings -f 'default_artifacts_expire_in={v[0]}' | jq '{{default_artifacts_expire_in, keep_latest_artifact}}'"
                },
                _js({"default_artifacts_expire_in": v[0], "keep_latest_artifact": True}),
            )

        intro = f"የartifacts ማከማቻ (MinIO) {rng.randint(88, 96)}% ሞልቷል። አሁን default artifact ማብቂያ ጊዜ (expire_in) 3 months ነው።"
        if mode == "dictated":
            b.user(
                f"{intro} ወደ {final[1]} ዝቅ አድርገው፤ የቆዩ artifacts ማንም አይጠቀምባቸውም፣ የመጨረሻው ደግሞ ለየብቻ ይቀመጣል።"
            )
            apply(final)
            b.assistant(f"ተቀምጧል፦ default_artifacts_expire_in = {final[0]}።")
        elif mode == "approved":
            b.user(f"{intro} ምን ያህል እናድርገው? አንተ ሐሳብ አቅርብ።")
            b.assistant(
                f"ሐሳቤ {final[0]} ነው ({final[1]})፤ keep_latest_artifact ስለበራ የእያንዳንዱ ቅርንጫፍ የመጨረሻ artifact ይጠበቃል። ላስቀምጠው?"
            )
            b.user("አዎ፣ አስቀምጠው።")
            apply(final)
            b.assistant(f"ተቀምጧል፦ {final[0]}።")
        elif mode == "changed":
            b.user(f"{intro} ምን ያህል ብናደርገው ይሻላል?")
            b.assistant(f"{other[0]} ({other[1]}) እመክራለሁ። ይስማማሃል?")
            b.user(f"አይ፣ {final[1]} ይሁን — QA ቡድኑ የቆዩ build-ዎችን ለመፈተሽ ያስፈልጋቸዋል።")
            apply(final)
            b.assistant(f"እሺ፣ {other[0]} ሳይሆን {final[0]} አድርጌዋለሁ።")
        elif mode == "corrected":
            b.user(f"{intro} ወደ {other[1]} ቀይረው።")
            apply(other)
            b.assistant(f"ተቀምጧል፦ {other[0]}።")

            def correction() -> None:
                b.user(
                    f"ይቅርታ፣ ስለ artifact expiry የተሳሳተ ነገር ነግሬህ ነበር፦ ከ{lead} ጋር ተነጋግረናል፣ {other[1]} ሳይሆን {final[1]} መሆን አለበት። እባክህ አስተካክለው።"
                )
                apply(final)
                b.assistant(
                    f"ተስተካክሏል፦ አሁን default_artifacts_expire_in = {final[0]} ነው፤ የቀድሞው {other[0]} ተሽሯል።"
                )

            late.append(correction)
        elif mode == "relayed":
            b.user(
                f"{intro} {lead} (የinfra ኃላፊ) {final[1]} እንዲሆን ወስኗል፣ ከማከማቻ በጀቱ ጋር ይጣጣማል ብሏል። እንዲያ አድርገው።"
            )
            apply(final)
            b.assistant(f"{lead} እንዳለው ተቀምጧል፦ {final[0]}።")
        else:
            b.user(intro + " መቀነስ አለበት።")
            b.assistant(f"ምን ያህል ላድርገው፦ {other[1]}፣ {final[1]} ወይስ ሌላ? ይህ ለመላው instance ነው።")
            b.user(f"{final[1]}።")
            apply(final)
            b.assistant(f"ተቀምጧል፦ {final[0]}።")
        probes.append(
            Probe(
                "decision",
                "What default artifact expiry (default_artifacts_expire_in) was settled on for the GitLab instance?",
                final[0],
                (
                    (final[0], final[1], final[2]),
                    ("expire", "artifact", "አርቲፋክት", "ማብቂያ", "expiry"),
                ),
            )
        )

    # ---- next step ---------------------------------------------------------------------------------
    def scene_next() -> None:
        variant = rng.randrange(3)
        if variant == 0:
            am, en = rng.choice(_AM_DAYS)
            b.user(
                rng.choice(
                    [
                        f"በነገራችን ላይ፣ k8s-default runner-ኡን {am} ወደ አዲሱ ARM (arm64) node pool እናዛውረዋለን፤ ከዚያ በፊት የrunner Helm values-ን አትቀይር። አሁን ግን በk8s-default ላይ ያሉትን concurrent jobs ብዛት አሳየኝ።",
                        f"ለማስታወስ ያህል፦ {am} k8s-default-ን ወደ arm64 node pool እንወስደዋለን፣ እስከዚያ Helm values አይነኩ። ለአሁኑ ምን ያህል jobs በአንድ ጊዜ እየሄዱ እንደሆነ ንገረኝ።",
                    ]
                )
            )
            b.tool(
                "Runner metrics:",
                "bash",
                {
                    "command": "kubectl -n gitlab-runner exec deploy/k8s-default -- wget -qO- localhost:9252/metrics | grep -E '^gitlab_runner_(jobs|concurrent|limit)'"
                },
                "\n".join(
                    [
                        f"gitlab_runner_concurrent {rng.choice([10, 20])}",
                        f'gitlab_runner_jobs{{executor_stage="build_script",runner="{token(rng, 8, lower)}",stage="step_script",state="running",system_id="s_{hexits(rng, 12)}"}} {rng.randint(2, 9)}',
                        f'gitlab_runner_limit{{runner="{token(rng, 8, lower)}",system_id="s_{hexits(rng, 12)}"}} 0',
                    ]
                ),
            )
            b.assistant(
                f"አሁን በk8s-default ላይ ጥቂት jobs እየሄዱ ነው። ማስታወሻ ይዣለሁ፦ {am} ወደ arm64 node pool እንዛወራለን፣ እስከዚያ Helm values አልነካም።"
            )
            probes.append(
                Probe(
                    "next_step",
                    "What runner migration is planned, and when?",
                    f"Moving the k8s-default runner to the new ARM (arm64) node pool on {en}; its Helm values are not to be changed before that.",
                    (("arm64", "arm", "node pool"), (am, en)),
                )
            )
        elif variant == 1:
            b.user(
                "ሌላም ነገር፦ GitLab-ን ወደ 17.0 ማሻሻል አለብን፣ እስከ ወሩ መጨረሻ ድረስ መጠናቀቅ አለበት ምክንያቱም 16.11 የደህንነት ድጋፍ ያበቃል። ለአሁኑ ግን የአሁኑን version እና የbackground migrations ሁኔታ ብቻ አሳየኝ።"
            )
            b.tool(
                "Version እና background migrations:",
                "bash",
                {
                    "command": 'ssh gitlab \'sudo gitlab-rake gitlab:env:info | grep -E "^(Version|Revision)"; sudo gitlab-rails runner "puts Gitlab::Database::BackgroundMigration::BatchedMigration.queued.count"\''
                },
                f"Version:\t16.11.4-ee\nRevision:\t{hexits(rng, 11)}\n0",
            )
            b.assistant(
                "16.11.4 ላይ ነን፣ በመጠባበቅ ላይ ያለ background migration የለም — ማሻሻል ይቻላል። ማስታወሻ፦ እስከ ወሩ መጨረሻ ወደ 17.0 ማሻሻል።"
            )
            probes.append(
                Probe(
                    "next_step",
                    "What has to be done by the end of the month?",
                    "Upgrade GitLab to 17.0 (16.11 security support ends).",
                    (
                        ("17.0", "upgrade", "ማሻሻል"),
                        ("ወሩ መጨረሻ", "end of month", "end of the month", "month"),
                    ),
                )
            )
        else:
            mr = rng.randint(1200, 1900)
            b.user(
                f"{dev} የ.gitlab-ci.yml ጥገና በMR !{mr} ውስጥ እያዘጋጀ ነው — test:integration ከk8s-highmem ጋር እንዲሮጥ ያደርጋል። ገና merge አልተደረገም። የMR-ኡ ሁኔታ ምንድን ነው?"
            )
            b.tool(
                "MR ሁኔታ:",
                "bash",
                glab(
                    f"projects/abyssinia%2Fmerkato-api/merge_requests/{mr}",
                    "'{title, state, merge_status, draft, head_pipeline: .head_pipeline.status}'",
                ),
                _js(
                    {
                        "title": "ci: run integration tests on k8s-highmem",
                        "state": "opened",
                        "merge_status": "can_be_merged",
                        "draft": False,
                        "head_pipeline": "success",
                    }
                ),
            )
            b.assistant(
                rng.choice(
                    [
                        f"MR !{mr} ክፍት ነው፣ pipeline-ኡ አልፏል። {dev} merge ካደረገው በኋላ በmain ላይ ያለውን pipeline እንደገና አስነሳለሁ (retry) እና test:integration እንደሚያልፍ አረጋግጣለሁ።",
                        "MR ገና አልተዋሀደም። merge እንደተደረገ የmain pipeline-ን ድጋሚ አስኬዳለሁ፣ ውጤቱንም እነግርሃለሁ።",
                    ]
                )
            )
            probes.append(
                Probe(
                    "next_step",
                    f"What will the agent do once MR !{mr} is merged?",
                    "Re-run (retry) the main pipeline of merkato-api and check that test:integration passes.",
                    (
                        ("retry", "re-run", "rerun", "run again", "ድጋሚ", "እንደገና"),
                        ("merge", f"!{mr}", "once", "after", "when", "በኋላ", "እንደተደረገ"),
                    ),
                )
            )

    # ---- decoys ----------------------------------------------------------------------------------
    def decoy_hunch() -> None:
        b.user(f"{colleague} Docker runners ቀርፋፋ የሆኑት ዲስካቸው ስለሞላ ነው ይላል። እውነት መሆኑን ተመልከት።")
        b.tool(
            "የዲስክ አጠቃቀም:",
            "bash",
            {
                "command": "for h in ci-amd64-01 ci-amd64-02 ci-amd64-03; do ssh $h 'hostname; df -h /var/lib/docker | tail -n 1'; done"
            },
            "\n".join(
                f"ci-amd64-0{i}\n/dev/vdb1       200G  {rng.randint(40, 90)}G  {rng.randint(110, 160)}G  {rng.randint(20, 45)}% /var/lib/docker"
                for i in (1, 2, 3)
            ),
        )
        b.tool(
            "የjob ወረፋ ጊዜ:",
            "bash",
            {
                "command": "curl -s https://gitlab.abyssiniasoft.et/-/metrics | grep -E '^gitlab_ci_queue_(retrieval_duration_seconds|size_total)'"
            },
            "\n".join(
                [
                    f'gitlab_ci_queue_retrieval_duration_seconds{{quantile="0.5"}} {rng.randint(2, 6)}.{rng.randint(1, 9)}',
                    f'gitlab_ci_queue_retrieval_duration_seconds{{quantile="0.95"}} {rng.randint(12, 30)}.{rng.randint(1, 9)}',
                    f'gitlab_ci_queue_size_total{{runner_type="instance_type"}} {rng.randint(20, 60)}',
                ]
            ),
        )
        b.assistant(
            f"ዲስኮቹ ከ50% በታች ናቸው፣ ስለዚህ ችግሩ ዲስክ አይደለም። ቀርፋፋነቱ የሚመጣው ከወረፋው ነው — jobs runner እስኪያገኙ ረጅም ጊዜ ይጠብቃሉ። የ{colleague} ግምት ትክክል አልሆነም።"
        )

    def decoy_queue() -> None:
        b.user("አሁን pending ላይ ያሉ jobs ስንት ናቸው፣ በየትኛው ፕሮጀክት?")
        rows = [
            [
                fresh(lambda r: str(r.randint(4100000, 4900000))),
                rng.choice(["merkato-api", "addis-web", "ledger-svc", "sms-gateway"]),
                rng.choice(["test:unit", "build:image", "lint", "deploy:staging"]),
                "pending",
                f"{rng.randint(1, 15)}m",
            ]
            for _ in range(rng.randint(4, 7))
        ]
        b.tool(
            "Pending jobs:",
            "bash",
            glab(
                "jobs?scope=pending&per_page=20",
                "-r '.[] | [.id, .project.name, .name, .status, .queued_duration] | @tsv'",
            ),
            "\n".join("\t".join(r) for r in rows),
        )
        b.assistant("ጥቂት jobs ብቻ pending ላይ ናቸው፣ ከ15 ደቂቃ በላይ የጠበቀ የለም።")

    scenes: list[Callable[[], None]] = [
        scene_job,
        scene_system,
        scene_pod,
        scene_runner,
        scene_token,
        scene_decision,
        scene_next,
        decoy_hunch,
        decoy_queue,
    ]
    rng.shuffle(scenes)
    for scene in scenes:
        scene()
    for fix in late:
        fix()
    b.user("አመሰግናለሁ! ለአሁኑ ይበቃል፣ ሌሎቹን ቀስ ብዬ እልክልሃለሁ።")
    b.assistant("እሺ፣ ዝግጁ ነኝ።")
    opening = b.take()

    # ---- filler ---------------------------------------------------------------------------------------
    projects = ["ledger-svc", "sms-gateway", "hr-portal", "docs-site"]

    def filler(r: random.Random) -> None:
        pick = r.randrange(6)
        if pick == 0:
            proj = r.choice(projects)
            b.user(f"የ{proj} የመጨረሻ pipeline ሁኔታ ምንድን ነው?")
            b.tool(
                "Pipelines:",
                "bash",
                glab(
                    f"projects/abyssinia%2F{proj}/pipelines?per_page=3",
                    "-r '.[] | [.id, .ref, .status, .updated_at] | @tsv'",
                ),
                "\n".join(
                    f"{r.randint(180000, 260000)}\t{r.choice(['main', 'develop', 'feature/i18n'])}\t{r.choice(['success', 'success', 'running'])}\t2024-06-{r.randint(10, 28)}T{_clock(r)}Z"
                    for _ in range(3)
                ),
            )
            b.assistant(f"{proj}፦ የቅርብ ጊዜዎቹ pipelines በአብዛኛው success ናቸው።")
        elif pick == 1:
            b.user("የk8s-highmem runner pods ምን ያህል memory እየተጠቀሙ ነው?")
            b.tool(
                "kubectl top:",
                "bash",
                {"command": "kubectl top pod -n gitlab-runner -l app=k8s-highmem"},
                _table(
                    ["NAME", "CPU(cores)", "MEMORY(bytes)"],
                    [
                        [
                            f"k8s-highmem-{hexits(r, 10)}-{token(r, 5, lower)}",
                            f"{r.randint(5, 60)}m",
                            f"{r.randint(40, 160)}Mi",
                        ]
                    ],
                ),
            )
            b.assistant("የrunner manager pod-ኡ ራሱ ትንሽ memory ብቻ ይጠቀማል።")
        elif pick == 2:
            proj = r.choice(projects)
            var = r.choice(["SENTRY_ENVIRONMENT", "NODE_OPTIONS", "GOFLAGS"])
            b.user(f"በ{proj} ውስጥ `{var}` የሚባል CI variable አለ? ምን ዓይነት ነው?")
            b.tool(
                "Variable:",
                "bash",
                glab(
                    f"projects/abyssinia%2F{proj}/variables/{var}",
                    "'{key, variable_type, protected, masked, environment_scope}'",
                ),
                _js(
                    {
                        "key": var,
                        "variable_type": "env_var",
                        "protected": r.choice([True, False]),
                        "masked": False,
                        "environment_scope": "*",
                    }
                ),
            )
            b.assistant(f"አዎ፣ `{var}` env_var ሆኖ ለሁሉም environments ተቀምጧል።")
        elif pick == 3:
            b.user("የDocker runners ምን version ላይ ናቸው?")
            b.tool(
                "Versions:",
                "bash",
                {
                    "command": "for h in ci-amd64-01 ci-amd64-02 ci-amd64-03; do ssh $h 'gitlab-runner --version | head -n 1'; done"
                },
                "\n".join("Version:      16.11.1" for _ in range(3)),
            )
            b.assistant("ሁሉም 16.11.1 ላይ ናቸው።")
        elif pick == 4:
            proj = r.choice(projects)
            b.user(f"የ{proj} container registry ምን ያህል ቦታ ይዟል?")
            b.tool(
                "Registry size:",
                "bash",
                glab(
                    f"projects/abyssinia%2F{proj}?statistics=true",
                    "'.statistics | {container_registry_size, job_artifacts_size, repository_size}'",
                ),
                _js(
                    {
                        "container_registry_size": r.randint(10**9, 9 * 10**9),
                        "job_artifacts_size": r.randint(10**8, 9 * 10**8),
                        "repository_size": r.randint(10**7, 9 * 10**7),
                    }
                ),
            )
            b.assistant(f"{proj} በአብዛኛው በcontainer images ቦታ ይዟል።")
        else:
            b.user("ዛሬ ስንት pipelines ሮጡ በጠቅላላ?")
            n = r.randint(60, 300)
            b.tool(
                "Count:",
                "bash",
                {
                    "command": 'ssh gitlab "sudo gitlab-psql -t -c \\"select count(*) from ci_pipelines where created_at > now() - interval \'1 day\'\\""'
                },
                f"   {n}",
            )
            b.assistant(f"ባለፉት 24 ሰዓታት {n} pipelines ሮጠዋል።")

    return opening, segments_of(rng, b, segments, filler), probes


# --------------------------------------------------------------------------------------
# odoo_vanilla: Odoo 17 Community for a vanilla exporter (psql, odoo-bin shell), in Malagasy
# --------------------------------------------------------------------------------------

_MG_DAYS: tuple[tuple[str, str], ...] = (
    ("Alatsinainy", "Monday"),
    ("Alarobia", "Wednesday"),
    ("Alakamisy", "Thursday"),
    ("Zoma", "Friday"),
)

# code, place
_ODOO_INCOTERMS: tuple[tuple[str, str], ...] = (
    ("FOB", "Toamasina"),
    ("CIF", "Le Havre"),
    ("CFR", "Hamburg"),
    ("FCA", "Antananarivo"),
)


def _odoo_vanilla(rng: random.Random, b: Builder, segments: int) -> Parts:
    fresh = _Fresh(rng)
    probes: list[Probe] = []
    late: list[Callable[[], None]] = []
    day = rng.randint(3, 26)
    colleague, boss, qc = rng.sample(
        ["Rakoto", "Rasoa", "Hery", "Voahangy", "Fanja", "Tiana", "Njaka"], 3
    )
    buyers = [
        "Gewürzhaus Bremen GmbH",
        "Arômes de Provence SARL",
        "Nordic Vanilla AB",
        "Spice Valley Inc.",
        "Maison Vanillée SAS",
        "Kyoto Flavors K.K.",
    ]
    rng.shuffle(buyers)
    pricelist = rng.choice(["Export EUR 2023", "Grossistes USD 2023", "Tarif Réunion 2023"])
    keep_pl = pricelist.replace("2023", "2024")
    testdb = rng.choice(["vanille_test", "vanille_staging", "sava_preprod"])

    def shell(code: str) -> dict[str, object]:
        return {
            "command": f"sudo -u odoo /opt/odoo/odoo-bin shell -c /etc/odoo/odoo.conf -d vanille_prod --no-http <<'PY'\n{code}\nPY"
        }

    def psql(sql: str) -> dict[str, object]:
        return {"command": f'sudo -u postgres psql vanille_prod -c "{sql}"'}

    # ---- opening -------------------------------------------------------------------
    b.user(
        rng.choice(
            [
                "Manao ahoana! Manana raharaha maromaro amin'ny Odoo isika anio. Odoo 17 Community no ampiasainay, ao amin'ny serveur erp01 (Ubuntu 22.04), ary ny base de données dia `vanille_prod`. Afaka mampiasa ssh, psql ary odoo-bin shell ianao. Jereo aloha ny toe-javatra ankapobeny alohan'ny hanombohantsika.",
                "Salama! Misy asa vitsivitsy tokony hovitaina amin'ny Odoo anio. Odoo 17 Community ao amin'ny erp01 izy, `vanille_prod` ny base de données. Manana fidirana ssh, psql ary odoo-bin shell ianao. Mba jereo aloha raha mandeha tsara ny zava-drehetra.",
            ]
        )
    )
    b.tool(
        "Eny, hojereko aloha ny serivisy Odoo sy ny base de données. Toetry ny serivisy:",
        "bash",
        {
            "command": "systemctl status odoo --no-pager | head -n 8 && sudo -u postgres psql -l | grep -E 'vanille|sava'"
        },
        "\n".join(
            [
                "● odoo.service - Odoo 17.0 Community",
                "     Loaded: loaded (/etc/systemd/system/odoo.service; enabled; vendor preset: enabled)",
                f"     Active: active (running) since {_wday(max(1, day - 2))} 2024-06-{max(1, day - 2):02d} 05:12:44 EAT; 2 days ago",
                f"   Main PID: {rng.randint(1000, 9000)} (python3)",
                f"      Tasks: {rng.randint(20, 40)} (limit: 9419)",
                f"     Memory: {rng.randint(900, 1900)}.{rng.randint(1, 9)}M",
                "        CPU: 3h 12min 9.331s",
                "     CGroup: /system.slice/odoo.service",
                " vanille_prod    | odoo     | UTF8     | C.UTF-8 | C.UTF-8 |",
                f" {testdb:<15} | odoo     | UTF8     | C.UTF-8 | C.UTF-8 |",
                " vanille_archive | odoo     | UTF8     | C.UTF-8 | C.UTF-8 |",
            ]
        ),
    )
    b.assistant(
        f"Mandeha tsara ny Odoo (active, running) nanomboka roa andro lasa izay. Misy base de données telo: vanille_prod (production), {testdb} ary vanille_archive. Inona no atombokantsika?"
    )

    # ---- identifier: the posted invoice ----------------------------------------------------------
    def scene_invoice() -> None:
        buyer = buyers[0]
        nums = sorted(fresh(lambda r: f"INV/2024/{r.randint(200, 499):05d}") for _ in range(7))
        amount = f"{rng.randint(30, 90)} {rng.randint(100, 999)}.00"
        # (tag, partner, date, total, currency, state, payment state); numbered in date order
        drafts = [
            (
                "target",
                buyer,
                f"2024-06-{max(1, day - 2):02d}",
                amount,
                "EUR",
                "posted",
                "not_paid",
            ),
            (
                "cancelled",
                buyer,
                f"2024-06-{max(1, day - 3):02d}",
                amount,
                "EUR",
                "cancel",
                "not_paid",
            ),
            (
                "may",
                buyer,
                "2024-05-14",
                f"{rng.randint(30, 90)} {rng.randint(100, 999)}.00",
                "EUR",
                "posted",
                "paid",
            ),
        ]
        for other in buyers[1:5]:
            drafts.append(
                (
                    "other",
                    other,
                    f"2024-06-{rng.randint(1, max(1, day - 1)):02d}",
                    f"{rng.randint(10, 90)} {rng.randint(100, 999)}.00",
                    rng.choice(["EUR", "USD"]),
                    "posted",
                    rng.choice(["paid", "not_paid", "partial"]),
                )
            )
        drafts.sort(key=lambda d: (d[2], d[0] == "target"))
        rows = [[num, *d[1:]] for num, d in zip(nums, drafts, strict=True)]
        target = next(num for num, d in zip(nums, drafts, strict=True) if d[0] == "target")
        cancelled = next(num for num, d in zip(nums, drafts, strict=True) if d[0] == "cancelled")
        b.user(
            rng.choice(
                [
                    f"Nanoratra ny {buyer} fa nahazo faktiora roa izy ho an'ny entana tamin'ny jona, ka tsy fantany izay marina. Tadiavo ny faktiora tena manan-kery (posted) ho azy.",
                    f"Very hevitra ny {buyer}: faktiora roa no tonga tany aminy ho an'ny fandefasana tamin'ny jona. Jereo hoe iza no tena izy, ilay efa posted.",
                ]
            )
        )
        b.tool(
            "Faktioran'ny mpanjifa hatramin'ny mey:",
            "bash",
            psql(
                "select m.name, p.name as partner, m.invoice_date, to_char(m.amount_total, 'FM999 999.00') as total, c.name as cur, m.state, m.payment_state from account_move m join res_partner p on p.id = m.partner_id join res_currency c on c.id = m.currency_id where m.move_type = 'out_invoice' and m.invoice_date >= '2024-05-01' order by m.invoice_date"
            ),
            _psql(
                ["name", "partner", "invoice_date", "total", "cur", "state", "payment_state"], rows
            ),
        )
        b.tool(
            "Hojereko ny antony nanafoanana ilay iray:",
            "bash",
            psql(
                f"select m.name, mm.body from mail_message mm join account_move m on m.id = mm.res_id and mm.model = 'account.move' where m.name in ('{cancelled}', '{target}') and mm.message_type = 'comment' order by mm.date"
            ),
            _psql(
                ["name", "body"],
                [
                    [
                        cancelled,
                        "<p>Annulée : incoterm erroné, remplacée par une nouvelle facture.</p>",
                    ],
                    [target, f"<p>Remplace {cancelled}. Envoyée au client.</p>"],
                ],
            ),
        )
        b.assistant(
            rng.choice(
                [
                    f"Ny faktiora marina ho an'i {buyer} dia {target} (posted, mbola tsy voaloa, {amount} EUR). Ilay {cancelled} dia nofoanana (cancel) satria diso ny incoterm, ary nosoloina ny {target}. Ilay tamin'ny mey kosa efa voaloa.",
                    f"{target} no manan-kery: posted, {amount} EUR. Ny {cancelled} dia nofoanana noho ny incoterm diso. Azonao lazaina amin'ny mpanjifa ny hanariany ilay nofoanana.",
                ]
            )
        )
        b.user("Misaotra, halefako aminy izany.")
        b.assistant("Tsara.")
        probes.append(
            Probe(
                "identifier",
                f"What is the number of the valid (posted) June customer invoice for {buyer}, the one that replaced the cancelled one?",
                target,
                ((target,),),
            )
        )

    # ---- identifier: the wet vanilla lot ------------------------------------------------------
    def scene_lot() -> None:
        lots = [
            fresh(lambda r: f"VAN-24{r.choice(['04', '05', '06'])}-{r.randint(100, 999):04d}")
            for _ in range(8)
        ]
        wet = lots[0]
        hum = f"{rng.randint(36, 41)}.{rng.randint(0, 9)}"
        rows = []
        for i, lot in enumerate(lots):
            h = hum if i == 0 else f"{rng.randint(27, 32)}.{rng.randint(0, 9)}"
            code = rng.choice(["VN-GOUR-1618", "VN-GOUR-1416", "VN-TK-1214", "VN-GOUR-1618"])
            rows.append(
                [
                    lot,
                    code,
                    h,
                    f"{rng.randint(14, 18)}",
                    f"{rng.randint(80, 600)}.0",
                    rng.choice(["WH/Stock/Séchage", "WH/Stock/Caisses", "WH/Stock/Caisses"]),
                ]
            )
        wet_loc = rows[0][5]
        rng.shuffle(rows)
        b.user(
            rng.choice(
                [
                    f"Nilaza i {qc} avy amin'ny fanaraha-maso kalitao fa misy lot iray mando loatra, ambony noho ny 35% ny humidité. Tsy maintsy averina maina io alohan'ny hamonosana azy. Tadiavo hoe iza io lot io.",
                    f"Misy lot vanille iray manana humidité mihoatra ny 35%, hoy i {qc}. Ilaina ny hamantatra azy mba haverina any amin'ny fanamainana.",
                ]
            )
        )
        b.tool(
            "Lot vanille ao amin'ny tahiry sy ny fandrefesana humidité:",
            "bash",
            psql(
                "select l.name as lot, p.default_code, l.x_humidite as humidite_pct, l.x_longueur_cm as longueur, sum(q.quantity) as kg, loc.complete_name as emplacement from stock_lot l join product_product p on p.id = l.product_id join stock_quant q on q.lot_id = l.id join stock_location loc on loc.id = q.location_id where q.quantity > 0 group by 1,2,3,4,6 order by 1"
            ),
            _psql(
                ["lot", "default_code", "humidite_pct", "longueur", "kg", "emplacement"],
                sorted(rows),
            ),
        )
        b.assistant(
            rng.choice(
                [
                    f"Ny lot {wet} no mando loatra: {hum}% ny humidité, raha 27–33% monja ny hafa rehetra. Ao amin'ny {wet_loc} izy izao. Io no tokony haverina amin'ny fanamainana.",
                    f"Hitako: lot {wet}, humidité {hum}% — io irery no mihoatra ny 35%. Ny lot hafa rehetra dia ao anatin'ny fetra.",
                ]
            )
        )
        b.user("Tsara. Aza ampidirina amin'ny fandefasana io mandra-pahamainany.")
        b.assistant("Eny, voamarika: tsy hampidirina amin'ny fandefasana io lot io.")
        probes.append(
            Probe(
                "identifier",
                "What is the lot number of the vanilla batch whose moisture is above 35% and has to be dried again?",
                wet,
                ((wet,),),
            )
        )

    # ---- identifier: the delivery order waiting for customs ---------------------------------------
    def scene_picking() -> None:
        buyer = buyers[1]
        refs = [fresh(lambda r: f"WH/OUT/{r.randint(300, 699):05d}") for _ in range(7)]
        target = refs[0]
        cont = f"MSKU{rng.randint(1000000, 9999999)}"
        rows = [
            [
                target,
                buyer,
                f"2024-06-{day:02d}",
                "assigned",
                f"S{rng.randint(10000, 19999):05d}",
                cont,
                "Attente BAE douane Toamasina",
            ],
            [
                refs[1],
                buyer,
                f"2024-05-{rng.randint(10, 28):02d}",
                "done",
                f"S{rng.randint(10000, 19999):05d}",
                f"MSKU{rng.randint(1000000, 9999999)}",
                "",
            ],
            [
                refs[2],
                buyers[2],
                f"2024-06-{max(1, day - 1):02d}",
                "done",
                f"S{rng.randint(10000, 19999):05d}",
                f"CMAU{rng.randint(1000000, 9999999)}",
                "",
            ],
            [
                refs[3],
                buyers[3],
                f"2024-06-{min(28, day + 2):02d}",
                "confirmed",
                f"S{rng.randint(10000, 19999):05d}",
                "",
                "Attente stock",
            ],
            [
                refs[4],
                buyers[0],
                f"2024-06-{min(28, day + 5):02d}",
                "draft",
                f"S{rng.randint(10000, 19999):05d}",
                "",
                "",
            ],
            [
                refs[5],
                buyers[4],
                f"2024-06-{max(1, day - 4):02d}",
                "cancel",
                f"S{rng.randint(10000, 19999):05d}",
                "",
                "Commande annulée",
            ],
        ]
        rng.shuffle(rows)
        b.user(
            rng.choice(
                [
                    f"Ny container ho an'i {buyer} dia mbola miandry ny douane any Toamasina. Inona no référence an'ilay bon de livraison (WH/OUT) mifandray aminy? Ilaina amin'ny transitaire izany.",
                    f"Mila ny référence an'ny bon de livraison ho an'ny container an'i {buyer}, ilay mbola tsy navotsotry ny douane, ny transitaire.",
                ]
            )
        )
        b.tool(
            "Bon de livraison mivoaka:",
            "bash",
            psql(
                "select sp.name, p.name as partner, sp.scheduled_date::date, sp.state, sp.origin, sp.x_container as container, sp.note from stock_picking sp join res_partner p on p.id = sp.partner_id join stock_picking_type t on t.id = sp.picking_type_id where t.code = 'outgoing' and sp.scheduled_date >= '2024-05-01' order by sp.scheduled_date"
            ),
            _psql(
                ["name", "partner", "scheduled_date", "state", "origin", "container", "note"], rows
            ),
        )
        b.assistant(
            rng.choice(
                [
                    f"Ny bon de livraison dia {target} (container {cont}, état assigned): vonona ny entana fa miandry ny BAE avy amin'ny douane Toamasina. Ilay bon hafa an'i {buyer} tamin'ny mey kosa dia efa vita (done).",
                    f"{target} io — container {cont}, mbola 'assigned' satria tsy mbola nomen'ny douane ny BAE. Ny bon hafa rehetra an'i {buyer} dia efa vita.",
                ]
            )
        )
        probes.append(
            Probe(
                "identifier",
                f"What is the reference of the delivery order (WH/OUT/…) for {buyer}'s container that is waiting for customs clearance in Toamasina?",
                target,
                ((target,),),
            )
        )

    # ---- artifact: archived pricelist --------------------------------------------------------------
    def scene_pricelist() -> None:
        how = rng.randrange(3)
        pl_id = rng.randint(5, 30)
        b.user(
            rng.choice(
                [
                    f"Ny lisitry ny vidiny `{pricelist}` dia tsy ampiasaina intsony. Aza fafana — misy faktiora taloha mifandray aminy — fa ataovy arisiva fotsiny. Ny `{keep_pl}` kosa avelao ho mavitrika.",
                    f"Ataovy arisiva ny pricelist `{pricelist}`; tsy fafana fa arisiva ihany, satria ilaina ho an'ny tantaran'ny faktiora. Aza kasihina ny `{keep_pl}`.",
                ]
            )
        )
        b.tool(
            "Ny pricelists misy:",
            "bash",
            psql(
                "select id, name->>'fr_FR' as name, active, currency_id from product_pricelist order by id"
            ),
            _psql(
                ["id", "name", "active", "currency_id"],
                [
                    [str(pl_id), pricelist, "t", "1"],
                    [str(pl_id + 3), keep_pl, "t", "1"],
                    ["1", "Liste de prix publique", "t", "142"],
                    [str(pl_id + 5), "Échantillons gratuits", "t", "142"],
                ],
            ),
        )
        out = (
            f"product.pricelist({pl_id},) active=False\n{keep_pl}: active=True"
            if how in (0, 2)
            else "(no output)"
        )
        b.tool(
            "Ataoko arisiva:",
            "bash",
            shell(
                f"pl = env['product.pricelist'].browse({pl_id})\npl.action_archive()\nenv.cr.commit()\nprint(pl, 'active=%s' % pl.active)\nprint('{keep_pl}: active=%s' % env['product.pricelist'].search([('name', '=', '{keep_pl}')]).active)"
                if how in (0, 2)
                else f"env['product.pricelist'].browse({pl_id}).action_archive()\nenv.cr.commit()"
            ),
            out,
        )
        if how == 0:
            b.assistant("Vita.")
        elif how == 1:
            b.assistant(
                f"Natao arisiva ny `{pricelist}` (active = False) — tsy voafafa, mbola hita amin'ny faktiora taloha. Ny `{keep_pl}` dia mbola mavitrika."
            )
        else:
            b.assistant(
                f"Araka ny hita eo: `{pricelist}` dia lasa arisiva, `{keep_pl}` mbola mavitrika. Tsy nisy voafafa."
            )
        probes.append(
            Probe(
                "artifact",
                f"What was done to the `{pricelist}` pricelist?",
                f"It was archived (active=False), not deleted, because old invoices refer to it; `{keep_pl}` stays active.",
                (
                    (pricelist,),
                    (
                        "archived",
                        "archive",
                        "arisiva",
                        "active=false",
                        "active = false",
                        "inactive",
                    ),
                ),
            )
        )

    # ---- artifact: the restored test database --------------------------------------------------------
    def scene_restore() -> None:
        how = rng.randrange(3)
        dump = f"/var/backups/odoo/vanille_prod-2024-06-{max(1, day - 1):02d}-0300.dump"
        b.user(
            rng.choice(
                [
                    f"Mila averina avy amin'ny backup farany (omaly alina 03:00) ny `{testdb}` mba hanandramana ny fanavaozana. Ataovy `neutralize` koa mba tsy handefa mailaka any amin'ny mpanjifa. Aza kasihina mihitsy ny `vanille_prod`!",
                    f"Avereno amin'ny dump omaly alina ny base `{testdb}`, dia neutralize-o (tsy tokony handefa mailaka na hampandeha cron). Tandremo: tsy misy kasihina ao amin'ny `vanille_prod`.",
                ]
            )
        )
        b.tool(
            "Ireo backup misy:",
            "bash",
            {"command": "ls -lh /var/backups/odoo/ | tail -n 5"},
            "\n".join(
                [
                    f"-rw-r----- 1 postgres postgres 1.{rng.randint(1, 9)}G Jun {max(1, day - 3):>2} 03:04 vanille_prod-2024-06-{max(1, day - 3):02d}-0300.dump",
                    f"-rw-r----- 1 postgres postgres 1.{rng.randint(1, 9)}G Jun {max(1, day - 2):>2} 03:04 vanille_prod-2024-06-{max(1, day - 2):02d}-0300.dump",
                    f"-rw-r----- 1 postgres postgres 1.{rng.randint(1, 9)}G Jun {max(1, day - 1):>2} 03:05 vanille_prod-2024-06-{max(1, day - 1):02d}-0300.dump",
                    f"-rw-r----- 1 postgres postgres  {rng.randint(200, 400)}M Jun {max(1, day - 1):>2} 03:06 filestore-2024-06-{max(1, day - 1):02d}.tar.zst",
                ]
            ),
        )
        nm, pid = rng.randint(10, 59), rng.randint(1000, 9000)
        steps = f"sudo -u postgres dropdb --if-exists {testdb} && sudo -u postgres createdb -O odoo {testdb} && sudo -u postgres pg_restore -j 4 --no-owner --role=odoo -d {testdb} {dump} && sudo -u odoo /opt/odoo/odoo-bin neutralize -c /etc/odoo/odoo.conf -d {testdb}"
        b.tool(
            f"Averiko ao amin'ny {testdb} (vanille_prod tsy kasihina):",
            "bash",
            {"command": steps},
            "\n".join(
                [
                    f"2024-06-{day:02d} 10:{nm:02d}:0{rng.randint(0, 9)},{rng.randint(100, 999)} {pid} INFO {testdb} odoo.modules.loading: loading 1 modules...",
                    f"2024-06-{day:02d} 10:{nm:02d}:1{rng.randint(0, 9)},{rng.randint(100, 999)} {pid} INFO {testdb} odoo.modules.neutralize: neutralizing database",
                    f"2024-06-{day:02d} 10:{nm:02d}:4{rng.randint(0, 9)},{rng.randint(100, 999)} {pid} INFO {testdb} odoo.modules.neutralize: Neutralization finished",
                ]
            )
            if how in (0, 2)
            else "(no output)",
        )
        if how in (0, 2):
            b.tool(
                "Fanamarinana:",
                "bash",
                {
                    "command": f'sudo -u postgres psql {testdb} -tc "select max(create_date) from account_move" && sudo -u postgres psql {testdb} -tc "select count(*) from ir_cron where active"'
                },
                f" 2024-06-{max(1, day - 1):02d} 18:{rng.randint(10, 59)}:{rng.randint(10, 59)}.{rng.randint(100000, 999999)}\n\n     0",
            )
        if how == 0:
            b.assistant("Vita.")
        elif how == 1:
            b.assistant(
                f"Naverina avy amin'ny dump omaly alina ({dump}) ny `{testdb}` ary natao neutralize: tsy mandefa mailaka intsony, maty ny cron rehetra. Tsy nisy nokasihina tao amin'ny vanille_prod."
            )
        else:
            b.assistant(
                f"Araka ny hita, ny `{testdb}` dia manana ny angona hatramin'ny omaly hariva, ary aotra ny cron mavitrika — voaverina sy voa-neutralize izy. vanille_prod tsy voakasika."
            )
        probes.append(
            Probe(
                "artifact",
                f"What was done to the `{testdb}` database?",
                "It was restored from last night's 03:00 dump of vanille_prod and neutralized (no mails, crons off); vanille_prod was not touched.",
                (
                    (testdb,),
                    ("restored", "restore", "naverina", "voaverina", "pg_restore", "reloaded from"),
                ),
            )
        )

    # ---- decision: incoterm for a buyer ---------------------------------------------------------------
    def scene_decision() -> None:
        mode = rng.choice(_DECISION_MODES)
        final, other = rng.sample(_ODOO_INCOTERMS, 2)
        buyer = buyers[2]

        def apply(v: tuple[str, str]) -> None:
            n = rng.randint(2, 5)
            b.tool(
                f"Apetrako ny incoterm {v[0]} {v[1]} ho an'i {buyer}:",
                "bash",
                shell(
                    f"inc = env['account.incoterms'].search([('code', '=', '{v[0]}')])\npartner = env['res.partner'].search([('name', '=', '{buyer}')])\npartner.x_default_incoterm_id = inc\norders = env['sale.order'].search([('partner_id', '=', partner.id), ('state', 'in', ('draft', 'sent'))])\norders.write({{'incoterm': inc.id, 'incoterm_location': '{v[1]}'}})\nenv.cr.commit()\nprint(partner.name, partner.x_default_incoterm_id.code, len(orders))"
                ),
                f"{buyer} {v[0]} {n}",
            )

        intro = f"Ho an'ny fifanarahana vaovao amin'i {buyer}, mbola tsy voafaritra ny incoterm."
        if mode == "dictated":
            b.user(
                f"{intro} Ataovy {final[0]} {final[1]} izany, satria izy no nanapa-kevitra hikarakara ny fitaterana an-dranomasina sy ny fiantohana."
            )
            apply(final)
            b.assistant(
                f"Vita: {final[0]} {final[1]} no incoterm an'i {buyer}, na amin'ny fiche na amin'ny devis misokatra."
            )
        elif mode == "approved":
            b.user(f"{intro} Inona no soso-kevitrao?")
            b.assistant(
                f"Manoro hevitra {final[0]} {final[1]} aho — izy no mifanaraka amin'ny fomba fandefasana nifanarahana tamin'ny fifanarahana teo aloha. Apetrako ve?"
            )
            b.user("Eny, ataovy.")
            apply(final)
            b.assistant(f"Vita: {final[0]} {final[1]}.")
        elif mode == "changed":
            b.user(f"{intro} Inona no tokony hapetraka?")
            b.assistant(f"{other[0]} {other[1]} no soso-kevitro. Mety ve?")
            b.user(
                f"Tsia, {final[0]} {final[1]} no apetraho — izany no voasoratra ao amin'ny fifanarahana nosoniavina."
            )
            apply(final)
            b.assistant(f"Eny ary, tsy {other[0]} fa {final[0]} {final[1]}.")
        elif mode == "corrected":
            b.user(f"{intro} Apetraho {other[0]} {other[1]}.")
            apply(other)
            b.assistant(f"Vita: {other[0]} {other[1]}.")

            def correction() -> None:
                b.user(
                    f"Miala tsiny, diso ny incoterm nolazaiko teo: niresaka tamin'i {boss} aho, ka tsy {other[0]} fa {final[0]} {final[1]} no marina. Mba ovay azafady."
                )
                apply(final)
                b.assistant(
                    f"Voaova: {final[0]} {final[1]} izao ny incoterm an'i {buyer}; tsy mihatra intsony ny {other[0]}."
                )

            late.append(correction)
        elif mode == "relayed":
            b.user(
                f"{intro} Nilaza i {boss}, tompon'ny orinasa, fa {final[0]} {final[1]} no hampiasaina, satria izay no nifanarahany tamin'ny mpividy. Apetraho izany."
            )
            apply(final)
            b.assistant(f"Araka ny nolazain'i {boss}: {final[0]} {final[1]}.")
        else:
            b.user(intro + " Tokony hofaritana izany.")
            b.assistant(
                f"Inona no apetrako: {other[0]} {other[1]}, {final[0]} {final[1]}, sa hafa?"
            )
            b.user(f"{final[0]} {final[1]}.")
            apply(final)
            b.assistant(f"Vita: {final[0]} {final[1]}.")
        probes.append(
            Probe(
                "decision",
                f"Which incoterm was settled on for the new contract with {buyer}?",
                f"{final[0]} {final[1]}",
                ((f"{final[0]} {final[1]}", final[0]), ("incoterm", "fandefasana")),
            )
        )

    # ---- next step ------------------------------------------------------------------------------------
    def scene_next() -> None:
        variant = rng.randrange(3)
        if variant == 0:
            mg, en = rng.choice(_MG_DAYS)
            b.user(
                rng.choice(
                    [
                        f"Mba ho fantatrao: ny {mg} ho avy izao no hanaovantsika ny fanavaozana ho amin'ny Odoo 18 eo amin'ny base fanandramana, rehefa lasa ny mpiasa. Alohan'izay aza apetraka ny module vaovao. Amin'izao fotoana izao, mba lazao ahy hoe module custom firy no ampiasainay.",
                        f"Fanamarihana kely: ny {mg} no hanandramana ny fiakarana ho Odoo 18 ao amin'ny base test. Aza mametraka module vaovao mialoha izany. Ankehitriny, lazao ahy ny module custom rehetra misy.",
                    ]
                )
            )
            b.tool(
                "Module custom voapetraka:",
                "bash",
                psql(
                    "select name, latest_version, state from ir_module_module where author ilike '%Vanille Sava%' order by name"
                ),
                _psql(
                    ["name", "latest_version", "state"],
                    [
                        ["vs_export_docs", "17.0.1.3.0", "installed"],
                        ["vs_lot_quality", "17.0.1.1.2", "installed"],
                        ["vs_sale_incoterm", "17.0.1.0.1", "installed"],
                        ["vs_stock_container", "17.0.1.2.0", "installed"],
                    ],
                ),
            )
            b.assistant(
                f"Module custom efatra no misy, samy installed avokoa. Voamarika: fanandramana fiakarana Odoo 18 amin'ny {mg}, tsy hametraka module vaovao aho mialoha izay."
            )
            probes.append(
                Probe(
                    "next_step",
                    "What upgrade test is planned, and when?",
                    f"Trying the upgrade to Odoo 18 on the test database on {en}, after staff leave; no new modules before that.",
                    (("odoo 18", "upgrade", "fanavaozana", "fiakarana"), (mg, en)),
                )
            )
        elif variant == 1:
            b.user(
                "Zavatra iray hafa tsy tokony hadinoina: ny fanambarana TVA ho an'ny volana jona dia tsy maintsy alefa alohan'ny faran'ny volana, ka mila ny tatitra TVA avy amin'ny Odoo isika. Amin'izao fotoana izao, jereo fotsiny raha voarakitra daholo ny faktioran'ny mpamatsy tamin'ny jona."
            )
            b.tool(
                "Faktioran'ny mpamatsy tamin'ny jona:",
                "bash",
                psql(
                    "select state, count(*), to_char(sum(amount_total_signed), 'FM999 999 999.00') from account_move where move_type = 'in_invoice' and invoice_date >= '2024-06-01' group by state"
                ),
                _psql(
                    ["state", "count", "to_char"],
                    [
                        [
                            "draft",
                            str(rng.randint(1, 6)),
                            f"-{rng.randint(1, 9)} {rng.randint(100, 999)} {rng.randint(100, 999)}.00",
                        ],
                        [
                            "posted",
                            str(rng.randint(20, 60)),
                            f"-{rng.randint(20, 90)} {rng.randint(100, 999)} {rng.randint(100, 999)}.00",
                        ],
                    ],
                ),
            )
            b.assistant(
                "Mbola misy faktioran'ny mpamatsy vitsivitsy amin'ny draft, tokony ho posted alohan'ny hanaovana ny tatitra. Voamarika: fanambarana TVA alohan'ny faran'ny volana."
            )
            probes.append(
                Probe(
                    "next_step",
                    "What has to be filed before the end of the month?",
                    "The June VAT (TVA) declaration, using the Odoo VAT report (the draft vendor bills must be posted first).",
                    (
                        ("tva", "vat", "fanambarana", "declaration"),
                        ("faran'ny volana", "end of month", "end of the month", "month"),
                    ),
                )
            )
        else:
            buyer = buyers[3]
            b.user(
                f"Nilaza ny banky fa mety ho tonga rahampitso ny fandoavam-bola SWIFT avy amin'i {buyer}, saingy mbola tsy nahazo fanamafisana izahay. Jereo aloha ny faktiora misokatra ho azy."
            )
            b.tool(
                "Faktiora misokatra:",
                "bash",
                psql(
                    f"select m.name, m.invoice_date, to_char(m.amount_residual, 'FM999 999.00') as reste, m.payment_state from account_move m join res_partner p on p.id = m.partner_id where p.name = '{buyer}' and m.move_type = 'out_invoice' and m.payment_state in ('not_paid', 'partial')"
                ),
                _psql(
                    ["name", "invoice_date", "reste", "payment_state"],
                    [
                        [
                            f"INV/2024/{rng.randint(500, 699):05d}",
                            f"2024-06-{max(1, day - 6):02d}",
                            f"{rng.randint(20, 80)} {rng.randint(100, 999)}.00",
                            "not_paid",
                        ]
                    ],
                ),
            )
            b.assistant(
                rng.choice(
                    [
                        f"Faktiora iray no misokatra. Rehefa manamafy ny banky fa tonga ny SWIFT avy amin'i {buyer}, dia hanao ny réconciliation amin'io faktiora io aho ary hamotsotra ny lot natokana ho azy.",
                        "Rehefa tonga sy voamarin'ny banky ny fandoavam-bola, dia hampifandraisiko (réconciliation) amin'ny faktiora ary havoakako ny lot voatokana.",
                    ]
                )
            )
            probes.append(
                Probe(
                    "next_step",
                    f"What will the agent do once the bank confirms {buyer}'s SWIFT payment?",
                    "Reconcile the payment with the open invoice and release the lots reserved for that buyer.",
                    (
                        ("reconcil", "réconciliation", "lot"),
                        ("rehefa", "confirm", "manamafy", "once", "after", "when"),
                    ),
                )
            )

    # ---- decoys ---------------------------------------------------------------------------------------
    def decoy_hunch() -> None:
        b.user(
            f"Hoy i {colleague}, miadana ny Odoo satria tsy ampy ny RAM an'ny serveur. Marina ve izany? Jereo azafady."
        )
        b.tool(
            "Fitadidiana:",
            "bash",
            {"command": "free -h"},
            "\n".join(
                [
                    "               total        used        free      shared  buff/cache   available",
                    f"Mem:            15Gi       {rng.randint(4, 7)}.{rng.randint(1, 9)}Gi       {rng.randint(1, 3)}.{rng.randint(1, 9)}Gi       {rng.randint(200, 600)}Mi       {rng.randint(5, 8)}.{rng.randint(1, 9)}Gi       {rng.randint(7, 10)}.{rng.randint(1, 9)}Gi",
                    "Swap:          2.0Gi          0B       2.0Gi",
                ]
            ),
        )
        b.tool(
            "Fangatahana miadana indrindra ao amin'ny PostgreSQL:",
            "bash",
            psql(
                "select round(mean_exec_time) as ms, calls, left(query, 70) as query from pg_stat_statements order by mean_exec_time desc limit 4"
            ),
            _psql(
                ["ms", "calls", "query"],
                [
                    [
                        str(rng.randint(4000, 9000)),
                        str(rng.randint(50, 200)),
                        'SELECT "stock_lot"."id" FROM "stock_lot" WHERE ("stock_lot"."x_humidite" IS N',
                    ],
                    [
                        str(rng.randint(300, 900)),
                        str(rng.randint(1000, 5000)),
                        'SELECT "account_move_line"."id" FROM "account_move_line" LEFT JOIN "acc',
                    ],
                    [
                        str(rng.randint(100, 300)),
                        str(rng.randint(5000, 20000)),
                        'UPDATE "ir_cron" SET "lastcall" = $1 WHERE id = $2',
                    ],
                    [
                        str(rng.randint(50, 100)),
                        str(rng.randint(10000, 50000)),
                        'SELECT "res_partner"."id" FROM "res_partner" WHERE "res_partner"."act',
                    ],
                ],
            ),
        )
        b.assistant(
            f"Tsy ny RAM no olana: mbola maherin'ny 7 Gi no malalaka ary tsy ampiasaina ny swap. Ny tena mahatonga ny fahamiadanana dia fangatahana iray avy amin'ny module vs_lot_quality amin'ny stock_lot.x_humidite (4–9 segondra isaky ny antso) — tsy misy index io tsanganana io. Tsy marina ny hevitr'i {colleague}."
        )

    def decoy_crons() -> None:
        b.user("Inona avy ireo cron mandeha ao amin'ny vanille_prod ary oviana no nandeha farany?")
        rows = [
            [
                "Mail: Email Queue Manager",
                "t",
                "1 minutes",
                f"2024-06-{day:02d} 10:{rng.randint(10, 59)}",
            ],
            ["Currency: rate update", "t", "1 days", f"2024-06-{day:02d} 06:00"],
            ["Lot: recompute humidity alerts", "t", "1 hours", f"2024-06-{day:02d} 10:00"],
            ["Snailmail: process letters queue", "f", "1 days", "2024-01-03 02:00"],
            ["Partner Autocomplete: Sync with remote DB", "f", "1 days", "2023-11-20 02:00"],
        ]
        b.tool(
            "Cron:",
            "bash",
            psql(
                "select cron_name->>'en_US' as name, active, interval_number || ' ' || interval_type as every, to_char(lastcall, 'YYYY-MM-DD HH24:MI') as lastcall from ir_cron order by active desc, name"
            ),
            _psql(["name", "active", "every", "lastcall"], rows),
        )
        b.assistant(
            "Telo no mavitrika ary nandeha ara-dalàna androany; ny roa hafa efa maty hatry ny ela."
        )

    scenes: list[Callable[[], None]] = [
        scene_invoice,
        scene_lot,
        scene_picking,
        scene_pricelist,
        scene_restore,
        scene_decision,
        scene_next,
        decoy_hunch,
        decoy_crons,
    ]
    rng.shuffle(scenes)
    for scene in scenes:
        scene()
    for fix in late:
        fix()
    b.user("Misaotra betsaka! Izay aloha hatreto, handefa ny asa manaraka aho any aoriana.")
    b.assistant("Eny, miandry aho.")
    opening = b.take()

    # ---- filler ---------------------------------------------------------------------------------------
    staff = ["Mamy Rabe", "Lova Randria", "Onja Rasolo", "Feno Rakotomalala"]

    def filler(r: random.Random) -> None:
        pick = r.randrange(6)
        if pick == 0:
            b.user("Ohatrinona ny taham-bola EUR/MGA ao amin'ny Odoo androany?")
            b.tool(
                "Taham-bola:",
                "bash",
                psql(
                    "select name, rate, inverse_company_rate from res_currency_rate where currency_id = 1 order by name desc limit 3"
                ),
                _psql(
                    ["name", "rate", "inverse_company_rate"],
                    [
                        [
                            f"2024-06-{d:02d}",
                            f"0.000{r.randint(200, 220)}",
                            f"{r.randint(4700, 4950)}.{r.randint(10, 99)}",
                        ]
                        for d in (27, 26, 25)
                    ],
                ),
            )
            b.assistant("Manodidina ny 4 800 MGA ny 1 EUR, araka ny taham-bola farany.")
        elif pick == 1:
            person = r.choice(staff)
            login = person.split()[0].lower()
            b.user(
                f"Mamoròna kaonty Odoo ho an'i {person}, ao amin'ny sampana fitantanana tahiry (Inventory User)."
            )
            b.tool(
                "Kaonty vaovao:",
                "bash",
                shell(
                    f"u = env['res.users'].create({{'name': '{person}', 'login': '{login}@vanillesava.mg', 'groups_id': [(4, env.ref('stock.group_stock_user').id)]}})\nenv.cr.commit()\nprint(u.id, u.login)"
                ),
                f"{r.randint(20, 60)} {login}@vanillesava.mg",
            )
            b.assistant(f"Voaforona ny kaonty an'i {person} ({login}@vanillesava.mg).")
        elif pick == 2:
            b.user("Firy kilao ny vanille Gourmet 16-18cm misy ao amin'ny tahiry?")
            b.tool(
                "Tahiry:",
                "bash",
                psql(
                    "select p.default_code, sum(q.quantity) as kg from stock_quant q join product_product p on p.id = q.product_id join stock_location l on l.id = q.location_id where l.usage = 'internal' and p.default_code like 'VN-GOUR%' group by 1"
                ),
                _psql(
                    ["default_code", "kg"],
                    [
                        ["VN-GOUR-1416", f"{r.randint(200, 900)}.0"],
                        ["VN-GOUR-1618", f"{r.randint(500, 2000)}.0"],
                    ],
                ),
            )
            b.assistant("Ao amin'ny andalana VN-GOUR-1618 ny isa.")
        elif pick == 3:
            b.user("Feno firy isan-jato ny kapila ao amin'ny erp01?")
            b.tool(
                "Kapila:",
                "bash",
                {"command": "df -h / /var/lib/postgresql /var/backups"},
                "\n".join(
                    [
                        "Filesystem      Size  Used Avail Use% Mounted on",
                        f"/dev/sda2        80G   {r.randint(20, 50)}G   {r.randint(20, 50)}G  {r.randint(30, 60)}% /",
                        f"/dev/sdb1       200G   {r.randint(40, 90)}G  {r.randint(100, 150)}G  {r.randint(20, 45)}% /var/lib/postgresql",
                        f"/dev/sdc1       500G  {r.randint(100, 300)}G  {r.randint(200, 380)}G  {r.randint(20, 60)}% /var/backups",
                    ]
                ),
            )
            b.assistant("Tsy misy feno loatra; samy ambanin'ny 60% avokoa.")
        elif pick == 4:
            b.user("Jereo raha misy hadisoana ao amin'ny log an'ny Odoo tao anatin'ny adiny iray.")
            n = r.randint(0, 4)
            b.tool(
                "Log:",
                "bash",
                {"command": "journalctl -u odoo --since '1 hour ago' | grep -c ' ERROR '"},
                str(n),
            )
            b.assistant(f"Hadisoana {n} ihany no hita — tsy misy zava-dehibe.")
        else:
            b.user("Firy ny devis (quotation) mbola misokatra?")
            n = r.randint(5, 30)
            b.tool(
                "Devis:",
                "bash",
                psql(
                    "select state, count(*) from sale_order where state in ('draft', 'sent') group by state"
                ),
                _psql(["state", "count"], [["draft", str(n)], ["sent", str(r.randint(2, 12))]]),
            )
            b.assistant(f"Misy devis {n} amin'ny draft, ary vitsivitsy efa nalefa.")

    return opening, segments_of(rng, b, segments, filler), probes


# --------------------------------------------------------------------------------------
# the set
# --------------------------------------------------------------------------------------

_TEMPLATES: dict[str, Template] = {
    "keycloak_realm": _keycloak_realm,
    "asterisk_pbx": _asterisk_pbx,
    "ceph_rook": _ceph_rook,
    "temporal_payouts": _temporal_payouts,
    "gitlab_runners": _gitlab_runners,
    "odoo_vanilla": _odoo_vanilla,
}

HELDOUT17_KINDS: tuple[str, ...] = tuple(_TEMPLATES)


def generate_heldout17(kind: str, seed: int, *, segments: int = 10) -> Session:
    """The held-out-17 session of ``kind`` for ``seed``: the same seed always gives the
    same session. An unknown ``kind`` raises :class:`ValueError` naming the kinds."""
    return build_session(
        _TEMPLATES,
        kind,
        seed,
        segments,
        seed_prefix="heldout17:",
        label="heldout17 session",
    )
