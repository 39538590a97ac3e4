"""A third held-out set of session kinds, written without seeing the compaction code.

Written by someone who had not read the summarizer, the fact ledger or the earlier
session sets (``_sessions``, ``_heldout``, ``_heldout2``), and never run against them
before it was committed, so nothing was tuned toward it. Six kinds, in domains the
other sets do not use:

``clinic``
    a French hospital's appointment booking system (SQL, a REST API, HL7 v2 logs), the
    user writing French;
``firmware``
    a hard fault on a microcontroller (UART logs, register dumps, ``git rm``, ctest),
    with Claude Code style tools;
``refunds``
    e-commerce refunds and complaints in Polish (order JSON, a payment provider, jest);
``lims``
    a laboratory information system (instrument CSV exports, ``mv`` to quarantine,
    pytest), a user mixing English and Swedish;
``vulntriage``
    a security triage (govulncheck, SIEM JSON from parallel tool calls, ``git diff`` of
    ``go.mod``, go test, gcloud);
``operator``
    a Rust Kubernetes operator driven through Codex style ``shell`` calls (``apply_patch``,
    ``git mv``, cargo test, kubectl YAML).

Each plants seven probes in its opening: three identifiers, two artifacts, a decision
the user later corrects (the probe is the corrected one) and a next step behind a
condition. The filler that follows is unrelated work in the same domain, full of
identifiers, paths, figures and record updates drawn from namespaces the planted
identifiers never use.
"""

from __future__ import annotations

import random
import string
from collections.abc import Sequence

from contextfold.blocks import TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.messages import Message
from contextfold_harness.fidelity._build import (
    Builder,
    Parts,
    Probe,
    Session,
    Template,
    build_session,
    segments_of,
    token,
)

__all__ = ["HELDOUT3_KINDS", "generate_heldout3"]

HELDOUT3_KINDS: tuple[str, ...] = (
    "clinic",
    "firmware",
    "refunds",
    "lims",
    "vulntriage",
    "operator",
)

_UPPER_HEX = "0123456789ABCDEF"
_LOWER_ALNUM = string.ascii_lowercase + string.digits
# The alphabet Kubernetes draws pod name suffixes from: no vowels, no 0, 1 or 3.
_K8S_SAFE = "bcdfghjklmnpqrstvwxz2456789"


def _digits(rng: random.Random, n: int) -> str:
    return token(rng, n, string.digits)


def _hex_with(rng: random.Random, n: int, needs: str = "ae") -> str:
    """Lowercase hex holding at least one of ``needs`` (so it can never be a run of
    the Kubernetes-safe alphabet or of digits only)."""
    while True:
        value = token(rng, n, "0123456789abcdef")
        if any(c in needs for c in value):
            return value


def _pick(rng: random.Random, options: Sequence[str]) -> str:
    return options[rng.randrange(len(options))]


def _call(
    b: Builder, text: str, name: str, args: dict[str, object], output: str, *, error: bool
) -> None:
    """A tool call like :meth:`Builder.tool`, whose result may be an error."""
    call = f"toolu_{token(b.rng, 24, string.ascii_letters + string.digits)}"
    b.messages.append(Message("assistant", [TextBlock(text), ToolUseBlock(call, name, args)]))
    b.messages.append(Message("user", [ToolResultBlock(call, output, error)]))


def _parallel(b: Builder, text: str, calls: Sequence[tuple[str, dict[str, object], str]]) -> None:
    """Several tool calls in one assistant message, answered together."""
    ids = [f"toolu_{token(b.rng, 24, string.ascii_letters + string.digits)}" for _ in calls]
    uses = [ToolUseBlock(i, name, args) for i, (name, args, _) in zip(ids, calls, strict=True)]
    results = [ToolResultBlock(i, out) for i, (_, _, out) in zip(ids, calls, strict=True)]
    b.messages.append(Message("assistant", [TextBlock(text), *uses]))
    b.messages.append(Message("user", list(results)))


def _time(rng: random.Random) -> str:
    return f"{rng.randint(7, 19):02d}:{rng.choice((0, 15, 30, 45)):02d}"


# -- clinic: a French hospital's appointment booking ------------------------------------

_CLINIC_SERVICES = ("cardiologie", "pneumologie", "rhumatologie", "neurologie")
_CLINIC_DOCTORS = ("Dr Lemaire", "Dr Benali", "Dr Rousseau", "Dr Nguyen")
_CLINIC_PATIENTS = ("MOREL Monique", "LEFEBVRE Josiane", "GARNIER Chantal", "CHEVALIER Odette")
_CLINIC_ROOMS = ("Echo-3", "IRM-2", "Scanner-B", "EFR-1")
_FILLER_SERVICES = ("dermatologie", "ORL", "ophtalmologie", "urologie", "pédiatrie")
_FILLER_DOCTORS = ("Dr Fabre", "Dr Girard", "Dr Haddad", "Dr Perrin", "Dr Marchand", "Dr Colin")
_FILLER_PATIENTS = ("MARTIN Paul", "BERNARD Lucie", "PETIT Karim", "DURAND Élise", "LEROY Hugo")
_FILLER_ROOMS = ("Box-12", "Consult-4", "Salle-7", "Endo-1", "Plâtre-2", "Box-5")


def _clinic_nda(rng: random.Random) -> str:
    return f"NDA{_digits(rng, 8)}"


def _clinic_filler(rng: random.Random, b: Builder) -> None:
    pick = rng.randrange(5)
    service, doctor = _pick(rng, _FILLER_SERVICES), _pick(rng, _FILLER_DOCTORS)
    day = f"2024-0{rng.randint(4, 6)}-{rng.randint(10, 28)}"
    if pick == 0:
        b.user(
            f"Tu peux me sortir les créneaux libres de {doctor} ({service}) pour le {day} ? "
            "Le secrétariat a un patient à replacer."
        )
        rows = [
            f"CR{_digits(rng, 6)} | {day} {_time(rng)} | {_pick(rng, _FILLER_ROOMS):<10} | "
            f"{_pick(rng, ('libre', 'réservé', 'bloqué', 'libre'))}"
            for _ in range(rng.randint(6, 10))
        ]
        b.tool(
            "Je regarde l'agenda.",
            "sql",
            {
                "db": "rdv_preprod",
                "query": f"SELECT id, debut, salle, etat FROM creneaux WHERE medecin = "
                f"'{doctor}' AND debut::date = '{day}' ORDER BY debut",
            },
            "id       | debut            | salle      | etat\n" + "\n".join(rows),
        )
        free = sum("libre" in r for r in rows)
        b.assistant(f"{doctor} a {free} créneau(x) libre(s) le {day} ; le reste est pris.")
    elif pick == 1:
        b.user(f"Le DPI dit ne pas avoir reçu les mises à jour d'adresse d'hier ({service}).")
        lines = []
        for _ in range(rng.randint(3, 5)):
            stamp = f"2024{rng.randint(4, 6):02d}{rng.randint(10, 28)}{rng.randint(7, 19):02d}"
            stamp += f"{rng.randint(0, 59):02d}"
            lines += [
                f"MSH|^~\\&|ADT|CHU|DPI|CHU|{stamp}||ADT^A08|Q{_digits(rng, 9)}|P|2.5",
                f"PID|1||{_clinic_nda(rng)}^^^CHU^NDA||{_pick(rng, _FILLER_PATIENTS)}",
                f"MSA|{_pick(rng, ('AA', 'AA', 'AE'))}|Q{_digits(rng, 9)}",
            ]
        b.tool(
            "Je regarde le journal de l'interface HL7 sortante.",
            "shell",
            {"command": "grep -A2 'ADT^A08' /var/log/interfaces/hl7_out.log | tail -n 30"},
            "\n".join(lines),
        )
        b.assistant(
            "Les A08 sont bien partis ; ceux en MSA|AE ont été rejetés par le DPI "
            "(champ adresse trop long), il faudra les renvoyer après correction."
        )
    elif pick == 2:
        test = _pick(
            rng, ("test_annulation", "test_surbooking", "test_export_ics", "test_jours_feries")
        )
        passed, failed = rng.randint(30, 60), rng.randint(0, 2)
        b.user(f"Lance les tests du module {test.removeprefix('test_')} stp.")
        out = f"tests/booking/{test}.py " + "." * rng.randint(8, 20) + (" F" if failed else "")
        out += f"\n{'=' * 20} {passed} passed"
        out += f", {failed} failed" if failed else ""
        out += f" in {rng.uniform(1, 9):.2f}s {'=' * 20}"
        b.tool(
            "Je lance pytest.",
            "shell",
            {"command": f"python -m pytest -q tests/booking/{test}.py"},
            out,
        )
        b.assistant(
            f"{passed} tests passent"
            + (f", {failed} en échec (fuseau horaire de la CI)." if failed else ", rien en échec.")
        )
    elif pick == 3:
        room = _pick(rng, _FILLER_ROOMS)
        state = _pick(rng, ("disponible", "en_maintenance", "hors_service", "reservee_bloc"))
        b.user(f"La salle {room} passe en « {state.replace('_', ' ')} » à partir de demain.")
        b.tool(
            "Je mets à jour le référentiel des ressources.",
            "sql",
            {
                "db": "rdv_preprod",
                "query": f"UPDATE ressources SET etat = '{state}' WHERE code = '{room.upper()}'",
            },
            f"UPDATE 1\naudit: ressource={room} etat -> {state} par=agent-ia "
            f"ticket=GLPI-{_digits(rng, 5)}",
        )
        b.assistant(f"Fait : {room} est maintenant « {state} » dans le référentiel.")
    else:
        month = _pick(rng, ("janvier", "février", "mars", "avril"))
        b.user(f"Archive le bilan d'activité de {month} et dis-moi la taille.")
        listing = "\n".join(
            f"-rw-r----- 1 rdv rdv {rng.randint(20, 900)}K "
            f"export_{_pick(rng, _FILLER_SERVICES)}_{rng.randint(1, 52):02d}.csv"
            for _ in range(rng.randint(3, 6))
        )
        b.tool(
            "Je compresse le fichier.",
            "shell",
            {"command": f"gzip -v exports/bilan_{month}.csv && ls -lh exports/"},
            f"exports/bilan_{month}.csv:\t {rng.randint(60, 85)}.{rng.randint(0, 9)}% -- "
            f"replaced with exports/bilan_{month}.csv.gz\n{listing}",
        )
        b.assistant(
            f"Archivé : exports/bilan_{month}.csv.gz. Taux de présence du mois : "
            f"{rng.randint(81, 94)} %, {rng.randint(200, 900)} rappels SMS envoyés à J-2."
        )


def _clinic(rng: random.Random, b: Builder, segments: int) -> Parts:
    service, doctor = _pick(rng, _CLINIC_SERVICES), _pick(rng, _CLINIC_DOCTORS)
    patient, room = _pick(rng, _CLINIC_PATIENTS), _pick(rng, _CLINIC_ROOMS)
    ipp = "9" + _digits(rng, 9)
    other_ipp = "9" + _digits(rng, 9)
    booking = f"RDV-{token(rng, 4)}-{token(rng, 2)}"
    control = "MC" + token(rng, 8, _UPPER_HEX)
    week = rng.randint(10, 20)
    export = f"planning_{service}_S{week}.csv"
    day = f"2024-03-{rng.randint(11, 29)}"
    slot = _time(rng)
    born, other_born = (
        f"19{rng.randint(40, 59)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}",
        (f"19{rng.randint(60, 79)}-1{rng.randint(0, 2)}-2{rng.randint(0, 8)}"),
    )
    old_delay, new_delay = _pick(rng, ("48", "72")), _pick(rng, ("24", "36"))

    b.user(
        f"Bonjour. Souci sur la prise de rendez-vous en ligne : Mme {patient.split()[1]} "
        f"{patient.split()[0].title()} "
        f"(née le {born}) n'arrive pas à réserver sa consultation de {service} avec {doctor}, "
        "le portail lui répond « créneau indisponible ». Tu peux regarder ? Attention, on "
        "est sur la pré-prod, le nouveau moteur de réservation n'est pas encore en prod."
    )
    b.tool(
        "Je cherche d'abord la patiente dans l'API patients.",
        "http",
        {"method": "GET", "url": f"https://rdv-preprod.chu.local/api/v2/patients?nom={patient}"},
        "200 OK\n"
        "{\n"
        '  "total": 2,\n'
        '  "resultats": [\n'
        "    {\n"
        f'      "ipp": "{other_ipp}",\n'
        f'      "nom_naissance": "{patient.split()[0]}",\n'
        f'      "prenom": "{patient.split()[1]}",\n'
        f'      "date_naissance": "{other_born}",\n'
        '      "portail": {"compte_actif": false}\n'
        "    },\n"
        "    {\n"
        f'      "ipp": "{ipp}",\n'
        f'      "nom_naissance": "{patient.split()[0]}",\n'
        f'      "prenom": "{patient.split()[1]}",\n'
        f'      "date_naissance": "{born}",\n'
        '      "portail": {"compte_actif": true, "derniere_connexion": "2024-03-08T18:22:10"},\n'
        f'      "medecin_traitant": "{_pick(rng, _FILLER_DOCTORS)}",\n'
        '      "droits": {"amo": "ouverts", "amc": "à vérifier"}\n'
        "    }\n"
        "  ]\n"
        "}",
    )
    b.tool(
        "Deux homonymes ; la bonne patiente est la seconde (même date de naissance, compte "
        f"portail actif). Je regarde pourquoi le créneau de {doctor} est refusé : les "
        "créneaux de la semaine et l'état des salles.",
        "sql",
        {
            "db": "rdv_preprod",
            "query": "SELECT c.debut, c.salle, r.etat FROM creneaux c JOIN ressources r ON "
            f"r.code = upper(c.salle) WHERE c.medecin = '{doctor}' AND c.debut::date = '{day}'",
        },
        "debut            | salle    | etat\n"
        + "\n".join(
            f"{day} {_time(rng)} | {_pick(rng, _CLINIC_ROOMS):<8} | "
            f"{_pick(rng, ('disponible', 'disponible', 'occupee'))}"
            for _ in range(rng.randint(4, 6))
        )
        + f"\n{day} {slot} | {room:<8} | disponible",
    )
    b.tool(
        f"Le créneau de {slot} était filtré par une règle de délai minimal mal calée "
        "(fuseau UTC). Je le réserve directement par l'API pour débloquer la patiente.",
        "http",
        {
            "method": "POST",
            "url": "https://rdv-preprod.chu.local/api/v2/creneaux/reserver",
            "body": {"ipp": ipp, "medecin": doctor, "debut": f"{day}T{slot}:00+01:00"},
        },
        f"201 Created — créneau réservé : {booking}\n"
        "{\n"
        f'  "reference": "{booking}",\n'
        f'  "service": "{service}",\n'
        f'  "salle": "{room}",\n'
        '  "statut": "CONFIRME",\n'
        '  "notification": {"sms": "planifie", "email": "envoye"}\n'
        "}",
    )
    others = []
    for _ in range(rng.randint(2, 4)):
        sent = f"202403{rng.randint(11, 29)}{_time(rng).replace(':', '')}"
        others.append(
            [
                f"MSH|^~\\&|RDV|CHU|DPI|CHU|{sent}||SIU^S12|MC{token(rng, 8, _UPPER_HEX)}|P|2.5",
                f"SCH|RDV-{token(rng, 4)}-{token(rng, 2)}||||||{_pick(rng, _CLINIC_SERVICES)}",
                "MSA|AA",
            ]
        )
    mine = [
        f"MSH|^~\\&|RDV|CHU|DPI|CHU|{day.replace('-', '')}{slot.replace(':', '')}||SIU^S12|"
        f"{control}|P|2.5",
        f"SCH|{booking}||||||{service}",
        f"PID|1||{ipp}^^^CHU^PI||{patient}",
        f"AIL|1||{room}",
        "MSA|AA",
    ]
    others.insert(rng.randint(1, len(others) - 1), mine)
    b.tool(
        "Je vérifie que le message SIU est parti vers le DPI.",
        "shell",
        {"command": "grep -A4 'SIU^S12' /var/log/interfaces/hl7_out.log | tail -n 40"},
        "\n".join(line for message in others for line in message),
    )
    b.assistant(
        f"C'est bon : rendez-vous confirmé avec {doctor} le {day} à {slot}, le SIU^S12 a été "
        "acquitté (MSA|AA) par le DPI."
    )
    b.user(
        f"Merci ! Autre chose : la salle {room} est en panne depuis ce matin (sonde HS). "
        "Passe-la hors service dans le référentiel pour que plus aucun créneau ne tombe dessus."
    )
    b.tool(
        "Mise à jour du référentiel des ressources.",
        "sql",
        {
            "db": "rdv_preprod",
            "query": f"UPDATE ressources SET etat = 'hors_service' WHERE code = '{room.upper()}'",
        },
        f"UPDATE 1\n"
        f"audit: 2024-03-{rng.randint(11, 29)}T0{rng.randint(8, 9)}:{rng.randint(10, 59)}:04 "
        f"ressource={room} etat: disponible -> hors_service par=agent-ia\n"
        f"trigger: {rng.randint(2, 7)} créneaux futurs déplacés vers la liste d'attente",
    )
    b.user(
        f"Et supprime l'export exports/{export} : il contient des noms de patients et il "
        "traîne sur le partage commun (RGPD, le DPO nous a relancés)."
    )
    b.tool(
        "Je supprime le fichier.",
        "shell",
        {"command": f"rm -v /srv/rdv/exports/{export} && ls /srv/rdv/exports"},
        f"removed '/srv/rdv/exports/{export}'\n"
        + "\n".join(
            f"export_{_pick(rng, _FILLER_SERVICES)}_{rng.randint(1, 52):02d}.csv"
            for _ in range(rng.randint(3, 5))
        ),
    )
    b.user(
        "Pour les rappels du nouveau moteur : programme l'envoi des SMS de rappel "
        f"{old_delay} h avant chaque rendez-vous."
    )
    b.tool(
        "Je regarde la configuration actuelle des rappels.",
        "read_file",
        {"path": "config/rappels.yaml"},
        "rappels:\n  canal: sms\n  expediteur: CHU-RDV\n  delai_rappel_heures: 12\n"
        '  plage_envoi: "08:00-20:00"\n  relance_si_non_lu: false',
    )
    b.user(
        "bon alors, la direction des soins a tranché ce matin : les SMS de rappel partent "
        f"{new_delay} h avant le rendez-vous, pas {old_delay}. Mets {new_delay} h."
    )
    b.tool(
        "Je modifie le délai.",
        "edit_file",
        {
            "path": "config/rappels.yaml",
            "old": "delai_rappel_heures: 12",
            "new": f"delai_rappel_heures: {new_delay}",
        },
        "config/rappels.yaml : 1 ligne modifiée",
    )
    b.user(
        "Dernière chose pour aujourd'hui : si le test de charge de cette nuit passe (p95 "
        "sous 800 ms), on active le nouveau moteur de réservation en production lundi à 7 h. "
        "Sinon on reste sur l'ancien et on en reparle."
    )
    b.assistant(
        "Noté. Lundi matin je lis le rapport du test de charge : p95 sous 800 ms, j'active "
        "le nouveau moteur en production ; au-dessus, on garde l'ancien."
    )
    opening = b.take()
    filler = segments_of(rng, b, segments, lambda r: _clinic_filler(r, b))
    probes = [
        Probe(
            "identifier",
            f"What is the IPP of the patient {patient.title()} born {born}?",
            ipp,
            ((ipp,),),
        ),
        Probe(
            "identifier",
            "What booking reference did the reserved slot get?",
            booking,
            ((booking,),),
        ),
        Probe(
            "identifier",
            "What was the HL7 message control id of the SIU^S12 sent for that booking?",
            control,
            ((control,),),
        ),
        Probe(
            "artifact",
            f"What happened to the export exports/{export}?",
            "it was deleted (rm) because it held patient names (GDPR)",
            ((export.lower(),), ("removed", "supprimé", "deleted", "effacé", "rm -v")),
        ),
        Probe(
            "artifact",
            f"What state is room {room} in the resource registry?",
            f"{room} was set to hors_service (out of service)",
            ((room.lower(),), ("hors_service", "hors service", "out of service", "indisponible")),
        ),
        Probe(
            "decision",
            "How long before the appointment do the SMS reminders go out?",
            f"{new_delay} hours before (the user corrected the earlier {old_delay} h)",
            (
                (f"{new_delay} h", f"{new_delay}h", f"{new_delay} heures", f"{new_delay} hours"),
                ("rappel", "reminder"),
            ),
        ),
        Probe(
            "next_step",
            "What is to happen on Monday with the new booking engine, and on what condition?",
            "if the overnight load test passes (p95 under 800 ms), enable the new booking "
            "engine in production on Monday at 7:00; otherwise stay on the old one",
            (
                ("active", "activer", "enable"),
                ("moteur", "engine"),
                ("test de charge", "load test", "p95"),
            ),
        ),
    ]
    return opening, filler, probes


# -- firmware: a hard fault on a microcontroller ----------------------------------------

_FW_SENSORS = ("bme280", "sht31", "lis3dh", "ina219")
_FW_FAILING = ("flash_wear_leveling", "rtc_alarm_rollover", "adc_oversampling", "crc_stream_resume")
_FW_PASSING = (
    "ringbuf_basic",
    "crc16_ccitt",
    "cobs_roundtrip",
    "pid_clamp",
    "uart_framing",
    "sched_tick",
    "fixed_point_mul",
    "bitfield_pack",
    "debounce_fsm",
    "log_format",
    "i2c_blocking_read",
    "sensor_calib",
    "eeprom_layout",
)
_FILLER_FW_TESTS = (
    "spi_flash_erase",
    "gpio_debounce",
    "ble_adv_interval",
    "lpm_wakeup",
    "pwm_deadtime",
    "can_filter_mask",
    "eeprom_emul_gc",
    "usb_cdc_echo",
)
_FILLER_FW_FILES = (
    "drivers/spi/w25q_flash.c",
    "drivers/uart/uart_log.c",
    "board/pins.h",
    "app/power_mgr.c",
    "app/ble_adv.c",
    "drivers/adc/adc_dma.c",
    "drivers/can/can_bus.c",
    "app/cli_cmds.c",
)


def _fw_addr(rng: random.Random) -> str:
    """A filler address: RAM, or flash far from where the planted fault sits."""
    base = _pick(rng, ("0x2000", "0x2001", "0x0804", "0x0806", "0x4000"))
    return base + token(rng, 4, _UPPER_HEX)


def _fw_log_line(rng: random.Random, t: float) -> str:
    kind = rng.randrange(4)
    if kind == 0:
        return f"[{t:09.3f}] adc: vbat={rng.randint(3400, 4150)}mV tcpu={rng.randint(21, 48)}C"
    if kind == 1:
        interval = rng.choice((100, 250, 500))
        return f"[{t:09.3f}] ble: adv interval={interval}ms tx={rng.randint(-8, 4)}dBm"
    if kind == 2:
        return f"[{t:09.3f}] sched: idle {rng.randint(82, 99)}% max_task_us={rng.randint(40, 900)}"
    return f"[{t:09.3f}] heap: free={rng.randint(3000, 14000)} low_water={rng.randint(900, 3000)}"


def _ctest(rng: random.Random, names: Sequence[str], failing: str | None, root: str) -> str:
    lines = [f"Test project {root}/build"]
    order = list(names)
    rng.shuffle(order)
    total = len(order)
    for i, name in enumerate(order, 1):
        dots = "." * max(3, 34 - len(name))
        lines.append(f"      Start {i:2d}: {name}")
        if name == failing:
            lines.append(
                f"{i:2d}/{total} Test #{i:2d}: {name} {dots}***Failed    "
                f"0.{rng.randint(10, 99)} sec"
            )
            lines.append(
                f"test_{name}.c:{rng.randint(40, 200)}: FAIL: expected == "
                f"{rng.randint(3, 5)}, got {rng.randint(6, 9)}"
            )
        else:
            lines.append(
                f"{i:2d}/{total} Test #{i:2d}: {name} {dots}   Passed    0.0{rng.randint(1, 9)} sec"
            )
    failed = 1 if failing else 0
    share = 100 * (total - failed) // total
    lines.append("")
    lines.append(f"{share}% tests passed, {failed} tests failed out of {total}")
    lines.append(f"\nTotal Test time (real) =   {rng.uniform(0.5, 4):.2f} sec")
    if failing:
        index = order.index(failing) + 1
        lines += ["", "The following tests FAILED:", f"\t{index:3d} - {failing} (Failed)"]
        lines.append("Errors while running CTest")
    return "\n".join(lines)


def _firmware_filler(rng: random.Random, b: Builder) -> None:
    pick = rng.randrange(5)
    unit = f"U{rng.randint(100, 999)}"
    if pick == 0:
        b.user(f"Unit {unit} keeps rebooting in the cold room. Log is logs/uart_{unit}.log")
        t = rng.uniform(10, 500)
        lines = [
            f"[{0:09.3f}] boot: fw 3.{rng.randint(0, 4)}.{rng.randint(0, 9)} build nightly "
            f"rst={_pick(rng, ('BOR', 'PIN', 'IWDG'))}"
        ]
        for _ in range(rng.randint(10, 18)):
            t += rng.uniform(0.5, 40)
            lines.append(_fw_log_line(rng, t))
        lines.append(
            f"[{t + 1:09.3f}] pwr: brownout at vbat={rng.randint(2900, 3150)}mV sp={_fw_addr(rng)}"
        )
        b.tool("Reading the log.", "Read", {"file_path": f"logs/uart_{unit}.log"}, "\n".join(lines))
        b.assistant(
            "That is a brownout, not a fault: the battery sags under the radio burst at "
            "low temperature. The BOR threshold is at level 2; level 1 would ride through it."
        )
    elif pick == 1:
        names = rng.sample(_FILLER_FW_TESTS, rng.randint(4, 6))
        failing = _pick(rng, names) if rng.random() < 0.4 else None
        b.user("run the host tests again after Lena's merge")
        b.tool(
            "Running ctest.",
            "Bash",
            {"command": "cmake --build build -j8 && ctest --test-dir build --output-on-failure"},
            _ctest(rng, names, failing, "/home/dev/fw-main"),
        )
        b.assistant(f"{failing} fails after the merge." if failing else "All host tests pass.")
    elif pick == 2:
        files = rng.sample(_FILLER_FW_FILES, rng.randint(2, 4))
        b.user("what's uncommitted on the power branch?")
        status = "\n".join(
            f"\t{_pick(rng, ('modified:   ', 'modified:   ', 'new file:   ', 'deleted:    '))}{f}"
            for f in files
        )
        b.tool(
            "Checking git.",
            "Bash",
            {"command": "git status"},
            "On branch feat/low-power\nChanges not staged for commit:\n" + status,
        )
        b.assistant(f"{len(files)} files touched, nothing staged yet.")
    elif pick == 3:
        periph = _pick(rng, ("SPI1", "SPI2", "USART2", "TIM3", "LPUART1"))
        b.user(f"Dump the {periph} registers on the J-Link board, something's off with the clock.")
        regs = "\n".join(
            f"{periph}->{reg:<5} @ {_fw_addr(rng)} = 0x{token(rng, 8, _UPPER_HEX)}"
            for reg in ("CR1", "CR2", "SR", "BRR", "PSC")
        )
        b.tool(
            "Reading the registers over SWD.",
            "Bash",
            {
                "command": "JLinkExe -device STM32L476RG -if SWD -speed 4000 "
                f"-CommandFile dump_{periph.lower()}.jlink"
            },
            f"J-Link S/N: {rng.randint(100000000, 999999999)}\n{regs}",
        )
        b.assistant(
            f"{periph} runs from PCLK1 with prescaler {rng.choice((2, 4, 8))}, so "
            f"{rng.choice((4, 8, 10, 16))} MHz on the bus, as configured."
        )
    else:
        b.user("what does the PPK say about sleep current on the new board rev?")
        b.tool(
            "Reading the power profiler export.",
            "Read",
            {"file_path": f"measurements/ppk_rev{rng.choice('CDE')}.csv"},
            "state,avg_uA,peak_mA,duration_ms\n"
            + "\n".join(
                f"{s},{rng.uniform(1, 900):.1f},{rng.uniform(0.1, 30):.2f},{rng.randint(1, 5000)}"
                for s in ("stop2", "radio_rx", "radio_tx", "sensor_read", "flash_write")
            ),
        )
        b.assistant(
            f"Stop2 averages {rng.uniform(1.5, 4.9):.1f} µA, inside the 5 µA budget; the radio "
            "bursts dominate the average."
        )


def _firmware(rng: random.Random, b: Builder, segments: int) -> Parts:
    sensor, failing = _pick(rng, _FW_SENSORS), _pick(rng, _FW_FAILING)
    pc = "0x0801" + token(rng, 3, _UPPER_HEX) + _pick(rng, "02468ACE")
    lr = "0x0801" + token(rng, 4, _UPPER_HEX)
    build = _hex_with(rng, 8)
    probe_serial = token(rng, 24, _UPPER_HEX)
    other_serial = token(rng, 24, _UPPER_HEX)
    old_wdg, new_wdg = _pick(rng, ("2", "3")), _pick(rng, ("8", "10"))
    minor = rng.randint(1, 9)
    version = f"v2.7.{minor}"
    dma = f"drivers/i2c/{sensor}_dma.c"
    unit = f"FU-{rng.randint(10, 99)}"
    root = "/home/dev/fw"

    b.user(
        f"Field units on fw v2.7.0 hard-fault every few hours on the sensor board "
        f"({sensor.upper()} over I2C). I captured the UART log from unit {unit}, it's in "
        f"logs/uart_{unit}.log. Can you dig in?"
    )
    t = rng.uniform(0.5, 2)
    lines = [f"[{0:09.3f}] boot: fw 2.7.0 build {build} rst=IWDG"]
    for _ in range(rng.randint(25, 40)):
        t += rng.uniform(5, 400)
        lines.append(_fw_log_line(rng, t))
        if rng.random() < 0.3:
            lines.append(
                f"[{t + 0.01:09.3f}] i2c1: {sensor} read ok dma=1 len={rng.choice((8, 24, 32))}"
            )
    lines += [
        f"[{t + 0.2:09.3f}] i2c1: {sensor} read dma=1 len=32",
        f"[{t + 0.2:09.3f}] *** HardFault ***",
        f"  R0  = {_fw_addr(rng)}  R1  = 0x00000000  R2  = {_fw_addr(rng)}  R3  = 0x00000020",
        f"  R12 = {_fw_addr(rng)}  LR  = {lr}  PC  = {pc}  xPSR = 0x21000000",
        "  CFSR = 0x00008200  HFSR = 0x40000000  BFAR = 0x2001FFFC  MMFAR = 0x00000000",
        f"  SP  = 0x2001{token(rng, 3, _UPPER_HEX)}0  EXC_RETURN = 0xFFFFFFFD",
        f"[{t + 0.3:09.3f}] rebooting in 100 ms",
    ]
    b.tool(
        "Reading the UART capture.",
        "Read",
        {"file_path": f"logs/uart_{unit}.log"},
        "\n".join(lines),
    )
    b.tool(
        "Mapping the faulting PC to source.",
        "Bash",
        {"command": f"arm-none-eabi-addr2line -e build/app.elf -f -C {pc}"},
        f"{sensor}_dma_complete\n{root}/{dma}:{rng.randint(150, 260)}",
    )
    b.assistant(
        "CFSR 0x00008200 is a precise bus fault with a valid BFAR, just past the end of SRAM2. "
        f"The fault is in the DMA completion callback of the {sensor.upper()} driver: it writes "
        "into the receive buffer after the transfer was already torn down by the timeout path."
    )
    b.user(
        "ugh, that DMA path was always flaky. Just delete it and go back to the blocking "
        f"driver, we don't need the throughput. And set the IWDG timeout to {old_wdg} s while "
        "you're at it, the blocking reads are slower."
    )
    b.tool(
        "Removing the DMA driver from the build.",
        "Edit",
        {
            "file_path": "drivers/i2c/CMakeLists.txt",
            "old_string": f"    {sensor}_dma.c\n",
            "new_string": "",
        },
        "The file drivers/i2c/CMakeLists.txt has been updated.",
    )
    b.tool(
        "Deleting the file.",
        "Bash",
        {"command": f"git rm {dma} && git status"},
        f"rm '{dma}'\nOn branch fix/i2c-hardfault\nChanges to be committed:\n"
        '  (use "git restore --staged <file>..." to unstage)\n'
        f"\tdeleted:    {dma}\n\nChanges not staged for commit:\n"
        '  (use "git add <file>..." to update what will be committed)\n'
        "\tmodified:   drivers/i2c/CMakeLists.txt\n"
        f"\tmodified:   drivers/i2c/{sensor}.c",
    )
    b.tool(
        "Setting the watchdog timeout.",
        "Edit",
        {
            "file_path": "board/board_config.h",
            "old_string": "#define IWDG_TIMEOUT_MS  1000u",
            "new_string": f"#define IWDG_TIMEOUT_MS  {old_wdg}000u",
        },
        "The file board/board_config.h has been updated.",
    )
    b.user(
        "ok wait, the sector erase on these parts can take up to 3.2 s, so "
        f"{old_wdg} s is too tight. Make the watchdog {new_wdg} s."
    )
    b.tool(
        "Updating the watchdog timeout.",
        "Edit",
        {
            "file_path": "board/board_config.h",
            "old_string": f"#define IWDG_TIMEOUT_MS  {old_wdg}000u",
            "new_string": f"#define IWDG_TIMEOUT_MS  {new_wdg}000u",
        },
        "The file board/board_config.h has been updated.",
    )
    names = [*rng.sample(_FW_PASSING, rng.randint(9, 13)), failing]
    _call(
        b,
        "Building and running the host tests.",
        "Bash",
        {"command": "cmake --build build -j8 && cd build && ctest --output-on-failure"},
        "Exit code 8\n" + _ctest(rng, names, failing, root),
        error=True,
    )
    b.assistant(
        f"The build is clean and {len(names) - 1} of {len(names)} host tests pass. "
        f"{failing} fails, which looks unrelated to the I2C change. Should I look into it?"
    )
    b.user(
        "leave that one, Priya owns it. Flash the L4 bench unit on the HIL rig so I can soak "
        "it overnight."
    )
    b.tool(
        "Finding the right ST-Link.",
        "Bash",
        {"command": "st-info --probe"},
        "Found 2 stlink programmers\n"
        f"  version:    V2J{rng.randint(30, 45)}S7\n  serial:     {probe_serial}\n"
        "  flash:      1048576 (pagesize: 2048)\n  sram:       327680\n"
        "  chipid:     0x0415\n  descr:      L4x6\n\n"
        f"  version:    V3J{rng.randint(7, 12)}M3\n  serial:     {other_serial}\n"
        "  flash:      131072 (pagesize: 2048)\n  sram:       36864\n"
        "  chipid:     0x0460\n  descr:      G07x/G08x",
    )
    b.tool(
        "Flashing the bench unit.",
        "Bash",
        {
            "command": "openocd -f interface/stlink.cfg -f target/stm32l4x.cfg -c "
            f'"adapter serial {probe_serial}" -c "program build/app.elf verify reset exit"'
        },
        "Open On-Chip Debugger 0.12.0\n** Programming Started **\n** Programming Finished **\n"
        "** Verify Started **\n** Verified OK **\n** Resetting Target **\nshutdown command invoked",
    )
    b.user(
        "Nice. Plan for tomorrow: if the bench unit survives the overnight soak on the HIL rig "
        f"with no HardFault, tag {version} and push it to the 12 field units. If it faults "
        "again, we bring the DMA driver back from git and debug it with the J-Trace."
    )
    b.assistant(
        f"Understood: after the soak, no HardFault means tag {version} and roll it to the 12 "
        "field units; a fault means restore the DMA driver and trace it."
    )
    opening = b.take()
    filler = segments_of(rng, b, segments, lambda r: _firmware_filler(r, b))
    wdg = (f"{new_wdg} s", f"{new_wdg}s", f"{new_wdg}000", f"{new_wdg} seconds")
    probes = [
        Probe("identifier", "What was the PC in the HardFault register dump?", pc, ((pc,),)),
        Probe(
            "identifier",
            f"What build hash was unit {unit} running when it faulted?",
            build,
            ((build,),),
        ),
        Probe(
            "identifier",
            "What is the serial of the ST-Link attached to the L4 bench unit?",
            probe_serial,
            ((probe_serial,),),
        ),
        Probe(
            "artifact",
            f"What happened to {dma}?",
            f"it was deleted (git rm); the blocking {sensor} driver is used instead",
            ((f"{sensor}_dma.c",), ("deleted", "removed", "git rm", "rm '")),
        ),
        Probe(
            "artifact",
            f"What is the state of the ctest test {failing}?",
            f"{failing} fails (left to Priya, unrelated to the I2C change)",
            ((failing,), ("fail",)),
        ),
        Probe(
            "decision",
            "What is the watchdog (IWDG) timeout to be?",
            f"{new_wdg} s (the user corrected the earlier {old_wdg} s)",
            (wdg, ("watchdog", "iwdg")),
        ),
        Probe(
            "next_step",
            "What is to happen after the overnight soak, and on what condition?",
            f"if the bench unit survives the soak on the HIL rig with no HardFault, tag "
            f"{version} and push it to the 12 field units",
            (("tag",), (version,), ("soak", "hil")),
        ),
    ]
    return opening, filler, probes


# -- refunds: e-commerce refunds and complaints in Polish -------------------------------

_PL_PRODUCTS = {
    "blender": "Blender kielichowy Vexa BL-900",
    "ekspres": "Ekspres do kawy Crema 15 bar",
    "odkurzacz": "Odkurzacz pionowy Zefir V12",
}
_PL_CUSTOMERS = ("Anna Wiśniewska", "Katarzyna Zając", "Magdalena Wójcik")
_PL_FAILING = ("shippingRefund.test.ts", "voucherRollback.test.ts", "splitPayment.test.ts")
_PL_PASSING = (
    "partialRefund.test.ts",
    "currency.test.ts",
    "roundingPLN.test.ts",
    "refundQueue.test.ts",
)
_FILLER_PL_PRODUCTS = (
    "Słuchawki Aura ANC",
    "Czajnik elektryczny Nordik",
    "Lampa biurkowa Lumo",
    "Router Wi-Fi 6 Piko",
    "Toster Brunch 2",
    "Hulajnoga Miejska 350",
)
_FILLER_PL_CUSTOMERS = (
    "Piotr Nowak",
    "Tomasz Kamiński",
    "Ewa Lewandowska",
    "Michał Dąbrowski",
    "Agnieszka Kaczmarek",
)
_FILLER_PL_TESTS = (
    "cartTotals.test.ts",
    "inventorySync.test.ts",
    "invoicePdf.test.ts",
    "loyaltyPoints.test.ts",
)


def _zam(rng: random.Random) -> str:
    return f"ZAM-2024-{_digits(rng, 5)}"


def _price(rng: random.Random) -> str:
    return f"{rng.randint(39, 1299)},{rng.choice(('00', '99', '49'))}"


def _jest(rng: random.Random, files: Sequence[str], failing: str | None, folder: str) -> str:
    out: list[str] = []
    tests = 0
    for name in files:
        count = rng.randint(3, 9)
        tests += count
        if name == failing:
            out += [
                f"FAIL {folder}/{name}",
                f"  ● {name.split('.')[0]} › zwraca pełną kwotę przy zwrocie całego zamówienia",
                "",
                "    expect(received).toBe(expected) // Object.is equality",
                "",
                f"    Expected: {rng.randint(900, 2500)}",
                "    Received: 0",
                "",
                f"      {rng.randint(30, 80)} |     "
                "const refund = computeRefund(order, { whole: true });",
            ]
        else:
            out.append(f"PASS {folder}/{name} ({rng.uniform(0.2, 3):.2f} s)")
    failed = 1 if failing else 0
    suites = len(files)
    bad = f"{failed} failed, " if failed else ""
    out += [
        "",
        f"Test Suites: {bad}{suites - failed} passed, {suites} total",
        f"Tests:       {bad}{tests - failed} passed, {tests} total",
        f"Time:        {rng.uniform(2, 12):.3f} s",
    ]
    return "\n".join(out)


def _refunds_filler(rng: random.Random, b: Builder) -> None:
    pick = rng.randrange(5)
    customer, product = _pick(rng, _FILLER_PL_CUSTOMERS), _pick(rng, _FILLER_PL_PRODUCTS)
    order = _zam(rng)
    if pick == 0:
        b.user(f"{customer} pyta, gdzie jest paczka z zamówienia {order}.")
        tracking = _digits(rng, 14)
        b.tool(
            "Sprawdzam zamówienie i przesyłkę DPD.",
            "orders_get",
            {"numer": order},
            "{\n"
            f'  "numer": "{order}",\n'
            f'  "klient": "{customer}",\n'
            f'  "pozycje": [{{"nazwa": "{product}", "ilosc": 1, "cena": "{_price(rng)}"}}],\n'
            '  "status": "WYSŁANE",\n'
            f'  "dostawa": {{"przewoznik": "DPD", "numer": "{tracking}", '
            f'"status": "{_pick(rng, ("w doręczeniu", "w sortowni", "awizo"))}"}}\n'
            "}",
        )
        b.assistant(f"Paczka {order} jest u DPD ({tracking}), powinna dotrzeć jutro.")
    elif pick == 1:
        state = _pick(rng, ("ODRZUCONA", "W TRAKCIE", "UZNANA", "CZEKA NA KLIENTA"))
        complaint = f"RK/2024/{rng.randint(1000, 1999)}"
        b.user(f"Zmień status reklamacji {complaint} ({product}) na {state.lower()}.")
        b.tool(
            "Aktualizuję reklamację.",
            "complaints_update",
            {"id": complaint, "status": state},
            f"Reklamacja {complaint} ({product}, {customer}): status ZGŁOSZONA → {state}",
        )
        b.assistant(f"Zrobione, {complaint} ma status {state}.")
    elif pick == 2:
        files = rng.sample(_FILLER_PL_TESTS, rng.randint(2, 4))
        failing = _pick(rng, files) if rng.random() < 0.3 else None
        b.user("Odpal testy koszyka, Bartek coś mergował.")
        _call(
            b,
            "Uruchamiam jest.",
            "shell",
            {"command": "npx jest src/cart --ci"},
            _jest(rng, files, failing, "src/cart"),
            error=failing is not None,
        )
        b.assistant(f"{failing} nie przechodzi." if failing else "Wszystko zielone.")
    elif pick == 3:
        amount = _price(rng)
        b.user(f"Zwrot {amount} zł, klient: {customer}, {product}, zamówienie {order}, BLIK.")
        b.tool(
            "Zlecam zwrot w PayU.",
            "payments_refund",
            {
                "provider": "payu",
                "order": order,
                "amount": amount.replace(",", "."),
                "method": "blik",
            },
            "{\n"
            f'  "status": "SUCCESS",\n  "refundId": "PAYU-{token(rng, 10)}",\n'
            f'  "extOrderId": "{order}",\n  "currencyCode": "PLN"\n'
            "}",
        )
        b.assistant(f"Zwrot {amount} zł zlecony przez PayU (BLIK).")
    else:
        sku = f"SKU-{token(rng, 6)}"
        b.user(f"Ile mamy na stanie {product} ({sku})?")
        b.tool(
            "Sprawdzam stany.",
            "inventory_get",
            {"sku": sku},
            "\n".join(
                f"stan magazynowy {site}: {rng.randint(0, 140)} szt. "
                f"(rezerwacje: {rng.randint(0, 9)})"
                for site in ("Stryków", "Gliwice", "Poznań")
            ),
        )
        b.assistant("Stan podany per magazyn; najwięcej sztuk jest w Strykowie.")


def _refunds(rng: random.Random, b: Builder, segments: int) -> Parts:
    key = _pick(rng, tuple(_PL_PRODUCTS))
    product, customer = _PL_PRODUCTS[key], _pick(rng, _PL_CUSTOMERS)
    email = customer.split()[0].lower() + "." + token(rng, 3, string.ascii_lowercase) + "@poczta.pl"
    order = f"ZM-{_digits(rng, 6)}-{token(rng, 2, string.ascii_uppercase)}"
    others = [f"ZM-{_digits(rng, 6)}-{token(rng, 2, string.ascii_uppercase)}" for _ in range(2)]
    refund = "p24_rf_" + token(rng, 10, _LOWER_ALNUM)
    tracking = "6" + _digits(rng, 23)
    failing = _pick(rng, _PL_FAILING)
    complaint = f"RK/2024/0{rng.randint(100, 999)}"
    price = _price(rng)

    b.user(
        f"Cześć, klientka {customer} ({email}) pisze, że {key} przyszedł rozbity, zdjęcia są "
        "w mailu. Znajdź jej zamówienie i ogarnij reklamację."
    )
    rows = []
    for number, name, state in (
        (others[0], _pick(rng, _FILLER_PL_PRODUCTS), "ZAKOŃCZONE"),
        (order, product, "DOSTARCZONE"),
        (others[1], _pick(rng, _FILLER_PL_PRODUCTS), "ANULOWANE"),
    ):
        cost = price if number == order else _price(rng)
        rows.append(
            "    {\n"
            f'      "numer": "{number}",\n'
            f'      "data": "2024-0{rng.randint(1, 3)}-{rng.randint(10, 28)}",\n'
            f'      "status": "{state}",\n'
            f'      "pozycje": [{{"nazwa": "{name}", "ilosc": 1, "cena": "{cost}"}}],\n'
            f'      "platnosc": {{"operator": "Przelewy24", "metoda": "karta", '
            f'"transakcja": "p24_tr_{token(rng, 10, _LOWER_ALNUM)}"}}\n'
            "    }"
        )
    b.tool(
        "Szukam zamówień klientki.",
        "orders_search",
        {"email": email},
        '{\n  "liczba": 3,\n  "zamowienia": [\n' + ",\n".join(rows) + "\n  ]\n}",
    )
    b.tool(
        f"Klientka ma trzy zamówienia; {key} jest w tym dostarczonym w zeszłym miesiącu, "
        f"zapłaconym kartą przez Przelewy24 ({price} zł). Zakładam reklamację.",
        "complaints_create",
        {"order": order, "reason": "uszkodzenie w transporcie", "zdjecia": 3},
        f"Utworzono reklamację {complaint} dla {order} (status: ZGŁOSZONA)",
    )
    b.user(
        "Zdjęcia są jednoznaczne, uznajemy reklamację. Zwrot pieniędzy zrób na kartę, tak "
        "jak płaciła."
    )
    b.tool(
        "Zmieniam status reklamacji.",
        "complaints_update",
        {"id": complaint, "status": "UZNANA", "notatka": "uszkodzenie potwierdzone zdjęciami"},
        f"Reklamacja {complaint} ({product}, {customer}): status ZGŁOSZONA → UZNANA",
    )
    b.user(
        "hmm, nie, właśnie dzwoniła: karta jest zastrzeżona. Zwrot przelewem na konto, "
        "numer konta podała w mailu."
    )
    b.tool(
        "Zlecam zwrot przez Przelewy24.",
        "payments_refund",
        {
            "provider": "przelewy24",
            "order": order,
            "amount": price.replace(",", "."),
            "currency": "PLN",
            "method": "bank_transfer",
            "iban": "PL** **** **** **** **** **** " + _digits(rng, 4),
        },
        "{\n"
        '  "status": "accepted",\n'
        '  "refund": {\n'
        f'    "orderId": "{order}",\n'
        f'    "amount": {int(price.replace(",", ""))},\n'
        '    "method": "TRANSFER",\n'
        f'    "id": "{refund}",\n'
        '    "eta": "1-2 dni robocze"\n'
        "  },\n"
        f'  "requestId": "{token(rng, 8, _LOWER_ALNUM)}-{token(rng, 4, _LOWER_ALNUM)}"\n'
        "}",
    )
    b.assistant(f"Zwrot {price} zł zlecony przelewem, dotrze w 1-2 dni robocze.")
    b.user(
        f"Klientka już nadała paczkę zwrotną z rozbitym sprzętem, numer przesyłki InPost: "
        f"{tracking}. Sprawdź, czy jest w drodze."
    )
    b.tool(
        "Sprawdzam przesyłkę.",
        "inpost_tracking",
        {"numer": tracking},
        "status: w drodze\nostatnie zdarzenie: przyjęta w oddziale Łódź "
        f"(2024-03-{rng.randint(11, 29)} {_time(rng)})\ncel: magazyn zwrotów Stryków",
    )
    b.user("Przy okazji: devy mówią, że testy zwrotów coś sypią. Odpal jest dla src/refunds.")
    files = [*rng.sample(_PL_PASSING, 3), failing]
    rng.shuffle(files)
    _call(
        b,
        "Uruchamiam jest.",
        "shell",
        {"command": "npx jest src/refunds --ci"},
        _jest(rng, files, failing, "src/refunds"),
        error=True,
    )
    b.assistant(
        "Jeden zestaw testów pada: przy zwrocie całego zamówienia kwota zwrotu wychodzi 0. "
        "Dam znać devom."
    )
    b.user(
        "Ok. I jeszcze: jeśli paczka zwrotna dotrze do magazynu w Strykowie do piątku, wyślij "
        "klientce kod rabatowy -10% na następne zakupy, z przeprosinami."
    )
    b.assistant(
        "Jasne: w piątek sprawdzę przesyłkę; jeśli będzie już w magazynie, wyślę kod rabatowy "
        "-10% z przeprosinami."
    )
    opening = b.take()
    filler = segments_of(rng, b, segments, lambda r: _refunds_filler(r, b))
    probes = [
        Probe(
            "identifier",
            f"Which order of {customer} is the damaged {key} from?",
            order,
            ((order,),),
        ),
        Probe("identifier", "What is the Przelewy24 refund id?", refund, ((refund,),)),
        Probe(
            "identifier",
            "What is the InPost tracking number of the return parcel?",
            tracking,
            ((tracking,),),
        ),
        Probe(
            "artifact",
            f"What happened to the complaint about the damaged {key}?",
            f"the complaint {complaint} was accepted (UZNANA)",
            ((key,), ("uznan", "accepted", "approved")),
        ),
        Probe(
            "artifact",
            f"What is the state of the jest suite {failing}?",
            f"{failing} fails (the refund comes out as 0 on a whole-order return)",
            ((failing.lower(),), ("fail", "nie przechodzi", "pada")),
        ),
        Probe(
            "decision",
            "How is the customer to be refunded?",
            "by bank transfer (przelew), not to the card, which is blocked",
            (("przelew", "bank transfer"), ("zwrot", "refund")),
        ),
        Probe(
            "next_step",
            "What is to be sent to the customer, and on what condition?",
            "a -10% discount code with an apology, if the return parcel reaches the Stryków "
            "warehouse by Friday",
            (
                ("kod rabatow", "discount code", "voucher"),
                ("10%", "10 %"),
                ("magazyn", "warehouse"),
            ),
        ),
    ]
    return opening, filler, probes


# -- lims: a laboratory information system ----------------------------------------------

_LIMS_FAILING = (
    "test_unit_roundtrip_si",
    "test_crea_unit_from_mapping",
    "test_si_units_in_export",
)
_LIMS_PASSING = (
    "test_header_parse",
    "test_run_id_required",
    "test_duplicate_rows",
    "test_decimal_comma",
    "test_empty_result",
    "test_flag_mapping",
    "test_operator_initials",
    "test_timezone_utc",
)
_FILLER_LIMS_TESTS = (
    "test_barcode_checksum",
    "test_worklist_split",
    "test_delta_check",
    "test_tat_report",
)
_LIMS_TESTS = {
    "K": ("mmol/L", 3.2, 5.4),
    "NA": ("mmol/L", 131, 148),
    "CREA": ("umol/L", 45, 160),
    "ALT": ("U/L", 8, 90),
    "GLU": ("mmol/L", 3.9, 11.5),
    "CRP": ("mg/L", 0.5, 80),
}


def _lab_id(rng: random.Random) -> str:
    return f"LAB-{_digits(rng, 6)}"


def _lab_value(rng: random.Random, test: str) -> str:
    unit, low, high = _LIMS_TESTS[test]
    value = rng.uniform(low, high)
    return f"{value:.0f},{unit}" if high > 50 else f"{value:.1f},{unit}"


def _pytest(rng: random.Random, path: str, names: Sequence[str], failing: str | None) -> str:
    lines = [f"{path}::{name} {'FAILED' if name == failing else 'PASSED'}" for name in names]
    for i in range(len(lines)):
        lines[i] += f" [{100 * (i + 1) // len(lines):3d}%]"
    if failing:
        lines += [
            "",
            "=" * 20 + " short test summary info " + "=" * 20,
            f"FAILED {path}::{failing} - AssertionError: expected 'umol/L', got 'mg/dL'",
            f"{'=' * 10} 1 failed, {len(names) - 1} passed in "
            f"{rng.uniform(0.3, 3):.2f}s {'=' * 10}",
        ]
    else:
        lines.append(f"{'=' * 10} {len(names)} passed in {rng.uniform(0.3, 3):.2f}s {'=' * 10}")
    return "\n".join(lines)


def _lims_filler(rng: random.Random, b: Builder) -> None:
    pick = rng.randrange(5)
    if pick == 0:
        bench = _pick(rng, ("CHEM-AM", "CHEM-PM", "HEM-1", "COAG"))
        b.user(f"Hej, what's still open on the {bench} worklist?")
        rows = "\n".join(
            f"{_lab_id(rng)} | {_pick(rng, tuple(_LIMS_TESTS))} | "
            f"{_pick(rng, ('pending', 'verified', 'on hold', 'pending', 'rerun'))} | "
            f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}"
            for _ in range(rng.randint(6, 11))
        )
        b.tool(
            "Querying the worklist.",
            "lis_query",
            {"worklist": bench, "status": "open"},
            "sample     | test | status   | received\n" + rows,
        )
        b.assistant("The pending ones are mostly late arrivals from the ward rounds.")
    elif pick == 1:
        run = f"AU5-2024{rng.randint(4, 6):02d}{rng.randint(10, 28)}-{_digits(rng, 4)}"
        b.user("Did the AU5 export from this afternoon come through?")
        rows = "\n".join(
            f"{_lab_id(rng)},{test},{_lab_value(rng, test)},"
            for test in rng.choices(tuple(_LIMS_TESTS), k=rng.randint(8, 14))
        )
        b.tool(
            "Reading the export.",
            "read_file",
            {"path": f"imports/done/au5_{run[4:12]}.csv"},
            f"#RUN,{run},AU5800,operator=mla\nsample_id,test,result,unit,flags\n{rows}",
        )
        b.assistant(f"Yes, run {run} imported cleanly.")
    elif pick == 2:
        names = rng.sample(_FILLER_LIMS_TESTS, rng.randint(2, 4))
        b.user("run the barcode tests please")
        b.tool(
            "Running pytest.",
            "shell",
            {"command": "python -m pytest -v tests/test_barcodes.py"},
            _pytest(rng, "tests/test_barcodes.py", names, None),
        )
        b.assistant("All barcode tests pass.")
    elif pick == 3:
        analyte = _pick(rng, ("ALT", "GLU", "NA", "CRP"))
        _, low, high = _LIMS_TESTS[analyte]
        mean = {1: low + (high - low) * 0.25, 2: low + (high - low) * 0.75}
        b.user(f"How does the {analyte} QC look this week?")
        rows = "\n".join(
            f"2024-03-{day:02d},L{level},{mean[level] * rng.uniform(0.95, 1.05):.1f},"
            f"{rng.uniform(-2.4, 2.4):+.2f}"
            for day in range(11, 16)
            for level in (1, 2)
        )
        b.tool(
            "Pulling the Levey-Jennings data.",
            "lis_query",
            {"qc": analyte, "days": 5},
            "date,level,value,z\n" + rows,
        )
        b.assistant(f"{analyte} QC stays within 2 SD on both levels except one excursion.")
    else:
        sample = _lab_id(rng)
        state = _pick(rng, ("verified", "reported", "cancelled", "on hold"))
        b.user(f"{sample}: the ward cancelled the CRP, set it to {state}.")
        b.tool(
            "Updating the request.",
            "lis_update",
            {"sample": sample, "test": "CRP", "status": state},
            f"{sample} CRP: pending -> {state} (by agent, audit #{_digits(rng, 6)})",
        )
        b.assistant(f"{sample} CRP is now {state}.")


def _lims(rng: random.Random, b: Builder, segments: int) -> Parts:
    date = f"2024{rng.randint(1, 3):02d}{rng.randint(10, 28)}"
    run = f"C8K-{date}-{_digits(rng, 4)}"
    sample = f"KB{_digits(rng, 7)}"
    lot = f"R{_digits(rng, 5)}-{_digits(rng, 2)}"
    csvfile = f"c8k_{date}_{_pick(rng, 'abcd')}.csv"
    failing = _pick(rng, _LIMS_FAILING)
    study = f"STUDY-{_pick(rng, ('NEPH', 'CARD', 'HEPA'))}{rng.randint(2, 9)}"

    b.user(
        "Morning! Last night's cobas run didn't import into the LIS, the file is stuck in "
        "imports/pending and the importer retries every minute. Can you look?"
    )
    rows = []
    bad_line = rng.randint(6, 20)
    for i in range(rng.randint(26, 36)):
        test = _pick(rng, tuple(_LIMS_TESTS))
        value = _lab_value(rng, test)
        flags = _pick(rng, ("", "", "", "", "LIP", "<"))
        if i == bad_line:
            test, value, flags = "CREA", f"{rng.uniform(0.6, 1.4):.2f},mg/dL", ""
        rows.append(f"KB{_digits(rng, 7)},{test},{value},{flags}")
    rows.insert(rng.randint(10, 24), f"{sample},K,{rng.uniform(5.9, 7.4):.1f},mmol/L,HEM")
    b.tool(
        "Reading the stuck export.",
        "read_file",
        {"path": f"imports/pending/{csvfile}"},
        f"#RUN,{run},cobas c 8000,module=c702,operator=ebe\n"
        "sample_id,test,result,unit,flags\n" + "\n".join(rows),
    )
    b.assistant(
        "The importer rejects the whole file on one CREA row whose unit (mg/dL) the LIS "
        "mapping does not accept; everything else looks sane. There is also one potassium "
        "with a haemolysis flag that should not be released."
    )
    b.user("ok, move it to quarantine so the importer stops retrying, we'll reimport by hand.")
    b.tool(
        "Moving the file.",
        "shell",
        {"command": f"mv -v imports/pending/{csvfile} imports/quarantine/ && ls imports/pending"},
        f"renamed 'imports/pending/{csvfile}' -> 'imports/quarantine/{csvfile}'\n"
        + "\n".join(
            f"au5_2024{rng.randint(1, 3):02d}{rng.randint(10, 28)}_{i}.csv" for i in range(2)
        ),
    )
    b.user(
        f"For the {study} export, report creatinine in mg/dL, it's a US sponsor. Change the "
        "export mapping."
    )
    b.tool(
        "Changing the export mapping.",
        "edit_file",
        {
            "path": f"lis/mappings/{study.lower()}.yaml",
            "old": "CREA: {unit: umol/L}",
            "new": "CREA: {unit: mg/dL, factor: 0.0113}",
        },
        f"lis/mappings/{study.lower()}.yaml: 1 line changed",
    )
    b.user(
        "nej vänta, I mixed up the studies. That sponsor's central lab wants SI units: "
        "creatinine in µmol/L, no conversion. Put it back."
    )
    b.tool(
        "Reverting the mapping.",
        "edit_file",
        {
            "path": f"lis/mappings/{study.lower()}.yaml",
            "old": "CREA: {unit: mg/dL, factor: 0.0113}",
            "new": "CREA: {unit: umol/L}",
        },
        f"lis/mappings/{study.lower()}.yaml: 1 line changed",
    )
    names = [*rng.sample(_LIMS_PASSING, rng.randint(5, 7)), failing]
    _call(
        b,
        "Running the export tests.",
        "shell",
        {"command": "python -m pytest -v tests/test_export.py"},
        _pytest(rng, "tests/test_export.py", names, failing),
        error=True,
    )
    b.tool(
        "The unit table still had the converted unit cached; fixing the lookup.",
        "edit_file",
        {
            "path": "lis/export.py",
            "old": "unit = UNIT_CACHE.get(code, mapping.unit)",
            "new": "unit = mapping.unit",
        },
        "lis/export.py: 1 line changed",
    )
    b.tool(
        "Rerunning the tests.",
        "shell",
        {"command": "python -m pytest -v tests/test_export.py"},
        _pytest(rng, "tests/test_export.py", names, None),
    )
    b.user(f"Tack! The reagent lot on the new ALT pack is {lot}, note it against the run.")
    b.tool(
        "Adding the note.",
        "lis_note",
        {"run": run, "note": f"ALT reagent lot {lot} loaded"},
        "note added (1)",
    )
    b.user(
        "And for tomorrow: if QC level 2 is back within 2 SD in the morning, release the "
        "held batch to the LIS. If not, we rerun it on the backup analyser."
    )
    b.assistant(
        "Will do: first thing tomorrow I check QC level 2; within 2 SD, I release the held "
        "batch, otherwise it goes to the backup analyser."
    )
    opening = b.take()
    filler = segments_of(rng, b, segments, lambda r: _lims_filler(r, b))
    probes = [
        Probe(
            "identifier",
            "Which sample had the haemolysed (HEM) potassium result?",
            sample,
            ((sample,),),
        ),
        Probe("identifier", "What is the run id of the stuck cobas export?", run, ((run,),)),
        Probe("identifier", "What is the lot of the new ALT reagent pack?", lot, ((lot,),)),
        Probe(
            "artifact",
            f"What happened to imports/pending/{csvfile}?",
            "it was moved to imports/quarantine/ (to be reimported by hand)",
            ((csvfile,), ("quarantine", "karantän")),
        ),
        Probe(
            "artifact",
            f"What is the state of {failing}?",
            f"{failing} passes after the unit lookup fix (it failed before)",
            ((failing,), ("passed", "passes", "grön", "green")),
        ),
        Probe(
            "decision",
            f"In what unit is creatinine reported for the {study} export?",
            "µmol/L (SI, no conversion); the user withdrew the earlier mg/dL",
            (("µmol/l", "umol/l", "micromol"), ("creatinin",)),
        ),
        Probe(
            "next_step",
            "What is to happen tomorrow morning, and on what condition?",
            "if QC level 2 is within 2 SD, release the held batch to the LIS; otherwise rerun "
            "on the backup analyser",
            (("release", "släpp"), ("batch", "held"), ("qc",)),
        ),
    ]
    return opening, filler, probes


# -- vulntriage: a security triage ------------------------------------------------------

_VT_MODULES = {
    "golang.org/x/net": ("HTTP/2 rapid reset can cause excessive work in net/http", 15, 17),
    "google.golang.org/grpc": ("Denial of service from HTTP/2 Rapid Reset in grpc", 56, 58),
    "github.com/quic-go/quic-go": ("Memory exhaustion from crafted ACK frames in quic-go", 37, 40),
}
_VT_UNREACHED = {
    "golang.org/x/crypto": "Prefix truncation attack on the SSH transport",
    "github.com/docker/docker": "Authz plugin bypass with a zero-length body",
}
_VT_ACCOUNTS = ("ci-deployer", "edge-publisher", "artifact-sync")
_FILLER_VT_ACCOUNTS = ("metrics-reader", "backup-runner", "dns-updater", "log-shipper")
_FILLER_VT_MODULES = (
    "github.com/prometheus/client_golang",
    "github.com/spf13/cobra",
    "go.uber.org/zap",
    "github.com/redis/go-redis/v9",
    "gopkg.in/yaml.v3",
)
_FILLER_VT_PACKAGES = ("openssl", "libexpat", "zlib", "curl", "glibc", "busybox")


def _ghsa(rng: random.Random) -> str:
    return "GHSA-" + "-".join(token(rng, 4, "23456789cfghjmpqrvwx") for _ in range(3))


def _internal_ip(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return f"10.{rng.randint(0, 40)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
    return f"172.16.{rng.randint(0, 31)}.{rng.randint(1, 254)}"


def _vulntriage_filler(rng: random.Random, b: Builder) -> None:
    pick = rng.randrange(5)
    if pick == 0:
        host = f"bastion-{rng.randint(1, 4)}"
        b.user(f"SOC asks about the failed SSH logins on {host} last night, anything real?")
        events = ",\n".join(
            "    {"
            f'"@timestamp": "2024-03-1{rng.randint(0, 9)}T0{rng.randint(0, 6)}:'
            f'{rng.randint(10, 59)}:00Z", '
            f'"host": "{host}", "source": {{"ip": "{_internal_ip(rng)}"}}, '
            f'"user": "{_pick(rng, ("root", "admin", "deploy", "ubuntu", "jenkins"))}", '
            f'"outcome": "failure", "count": {rng.randint(1, 40)}'
            "}"
            for _ in range(rng.randint(4, 7))
        )
        b.tool(
            "Searching the SIEM.",
            "siem_search",
            {
                "query": f"event.category:authentication AND host:{host} AND outcome:failure",
                "range": "24h",
            },
            '{\n  "hits": [\n' + events + "\n  ]\n}",
        )
        b.assistant(
            "All from internal ranges: a misconfigured Jenkins agent retrying with an old key."
        )
    elif pick == 1:
        app = _pick(rng, ("billing", "auth", "search", "mailer"))
        image = f"ghcr.io/acme/{app}:{rng.randint(1, 4)}.{rng.randint(0, 12)}.{rng.randint(0, 9)}"
        b.user(f"Trivy the {image} image before the release goes out.")
        rows = "\n".join(
            f"│ {_pick(rng, _FILLER_VT_PACKAGES):<9} │ "
            f"CVE-{_pick(rng, ('2022', '2024'))}-{_digits(rng, rng.choice((4, 5)))} │ "
            f"{_pick(rng, ('LOW', 'MEDIUM', 'HIGH'))} │ "
            f"{_pick(rng, ('fixed', 'affected', 'will_not_fix'))} │"
            for _ in range(rng.randint(3, 6))
        )
        b.tool(
            "Scanning the image.",
            "shell",
            {"command": f"trivy image --severity LOW,MEDIUM,HIGH {image}"},
            f"{image} (alpine 3.19)\n│ Library   │ Vulnerability  │ Severity │ Status │\n{rows}",
        )
        b.assistant("Nothing critical; the HIGH ones are in the base image and fixed upstream.")
    elif pick == 2:
        pkgs = rng.sample(
            (
                "internal/ratelimit",
                "internal/config",
                "internal/cache",
                "internal/auth",
                "cmd/edge",
            ),
            3,
        )
        failing = pkgs[0] if rng.random() < 0.4 else None
        b.user("go test on the auth service after the cobra bump?")
        lines = []
        for pkg in pkgs:
            if pkg == failing:
                lines += [
                    f"--- FAIL: TestRetryBudget (0.0{rng.randint(1, 9)}s)",
                    f"    budget_test.go:{rng.randint(20, 90)}: "
                    f"got {rng.randint(3, 9)} retries, want 2",
                    f"FAIL\tgithub.com/acme/auth/{pkg}\t0.{rng.randint(100, 999)}s",
                ]
            else:
                lines.append(f"ok  \tgithub.com/acme/auth/{pkg}\t0.{rng.randint(100, 999)}s")
        _call(
            b,
            "Running go test.",
            "shell",
            {"command": "cd ~/src/auth && go test ./..."},
            "\n".join(lines),
            error=failing is not None,
        )
        b.assistant(
            "One package fails on a flaky timing test." if failing else "All packages pass."
        )
    elif pick == 3:
        ticket = f"VULN-{rng.randint(1000, 9999)}"
        state = _pick(rng, ("Risk accepted", "Fixed", "In progress", "Won't fix"))
        b.user(f"Move {ticket} to {state}, the owner signed off.")
        b.tool(
            "Transitioning the ticket.",
            "jira_update",
            {"issue": ticket, "status": state},
            f"{ticket} transitioned: Open -> {state}",
        )
        b.assistant(f"{ticket} is now {state}.")
    else:
        module = _pick(rng, _FILLER_VT_MODULES)
        old, new = rng.randint(1, 20), rng.randint(21, 40)
        account = _pick(rng, _FILLER_VT_ACCOUNTS)
        b.user(f"Dependabot PR for {module}, can you check the diff? It runs as {account}.")
        b.tool(
            "Showing the diff.",
            "shell",
            {"command": "gh pr diff 4412 -- go.mod"},
            f"-\t{module} v1.{old}.0\n+\t{module} v1.{new}.0",
        )
        b.assistant("A minor bump with no API changes in the parts we use; fine to merge.")


def _vulntriage(rng: random.Random, b: Builder, segments: int) -> Parts:
    module = _pick(rng, tuple(_VT_MODULES))
    summary, found, fixed = _VT_MODULES[module]
    prefix = "v1." if module == "google.golang.org/grpc" else "v0."
    bump = f"{prefix}{fixed + rng.randint(2, 8)}.0"
    cve = f"CVE-2023-{rng.randint(20000, 52999)}"
    other_cve = f"CVE-2023-{rng.randint(20000, 52999)}"
    ip = f"185.220.{rng.randint(100, 102)}.{rng.randint(2, 250)}"
    ticket = f"IR-{rng.randint(1000, 9999)}"
    account = _pick(rng, _VT_ACCOUNTS)
    unreached = _pick(rng, tuple(_VT_UNREACHED))
    key_id = token(rng, 40, "0123456789abcdef")

    b.user(
        "The scanner flagged the edge-proxy repo this morning and the SOC sees weird HTTP/2 "
        "traffic on the edge. Can you triage? Start with govulncheck."
    )
    go_id, other_id = f"GO-2023-{rng.randint(2000, 2199)}", f"GO-2023-{rng.randint(2200, 2399)}"
    findings = [
        "{\n"
        '  "osv": {\n'
        f'    "id": "{other_id}",\n'
        f'    "aliases": ["{other_cve}", "{_ghsa(rng)}"],\n'
        f'    "summary": "{_VT_UNREACHED[unreached]}",\n'
        f'    "affected": [{{"package": {{"name": "{unreached}"}}}}]\n'
        "  }\n"
        "}",
        "{\n"
        '  "osv": {\n'
        f'    "id": "{go_id}",\n'
        f'    "aliases": ["{cve}", "{_ghsa(rng)}"],\n'
        f'    "summary": "{summary}",\n'
        f'    "affected": [{{"package": {{"name": "{module}"}}, "ranges": [{{"events": '
        f'[{{"introduced": "0"}}, {{"fixed": "{prefix[1:]}{fixed}.0"}}]}}]}}]\n'
        "  }\n"
        "}",
        "{\n"
        '  "finding": {\n'
        f'    "osv": "{go_id}",\n'
        f'    "fixed_version": "{prefix}{fixed}.0",\n'
        '    "trace": [\n'
        f'      {{"module": "{module}", "version": "{prefix}{found}.0", "function": "Serve"}},\n'
        '      {"module": "github.com/acme/edge-proxy", "package": "internal/proxy", '
        '"function": "Stream", "position": {"filename": "internal/proxy/stream.go", '
        f'"line": {rng.randint(40, 200)}}}}}\n'
        "    ]\n"
        "  }\n"
        "}",
    ]
    b.tool(
        "Running govulncheck with JSON output.",
        "shell",
        {"command": "cd ~/src/edge-proxy && govulncheck -format json ./..."},
        '{"config": {"protocol_version": "v1.0.0", "scanner_name": "govulncheck"}}\n'
        + "\n".join(findings),
    )
    reachable = (
        f"Two advisories match our dependencies, but only {go_id} is reachable: the trace goes "
        f"from internal/proxy/stream.go into {module} {prefix}{found}.0. The other one is in "
        f"{unreached}, which we import but never call on that path. Now the SIEM: the "
        "HTTP/2 resets and the 5xx by edge node."
    )
    flood = []
    for _ in range(rng.randint(3, 5)):
        flood.append(
            "    {"
            f'"@timestamp": "2024-03-12T0{rng.randint(0, 5)}:{rng.randint(10, 59)}:'
            f'{rng.randint(10, 59)}Z", '
            f'"source": {{"ip": "{_internal_ip(rng)}", "geo": {{"country_iso_code": "ZZ"}}}}, '
            f'"http2": {{"rst_stream": {rng.randint(0, 40)}}}, '
            f'"edge_node": "edge-fra-0{rng.randint(1, 6)}"'
            "}"
        )
    flood.insert(
        rng.randint(1, len(flood) - 1),
        "    {"
        f'"@timestamp": "2024-03-12T03:{rng.randint(10, 59)}:{rng.randint(10, 59)}Z", '
        f'"source": {{"ip": "{ip}", "geo": {{"country_iso_code": "DE"}}, "as": {{"organization": '
        '{"name": "Tor exit"}}}, '
        f'"http2": {{"rst_stream": {rng.randint(40000, 90000)}}}, '
        f'"edge_node": "edge-fra-0{rng.randint(1, 6)}"'
        "}",
    )
    buckets = ",\n".join(
        f'    {{"key": "edge-fra-0{n}", "doc_count": {rng.randint(100, 9000)}, '
        f'"5xx_rate": {rng.uniform(0.1, 9):.2f}}}'
        for n in range(1, 7)
    )
    _parallel(
        b,
        reachable,
        [
            (
                "siem_search",
                {
                    "query": "http2.rst_stream > 0 AND service:edge-proxy",
                    "range": "24h",
                    "sort": "@timestamp",
                },
                '{\n  "hits": [\n' + ",\n".join(flood) + "\n  ]\n}",
            ),
            (
                "siem_search",
                {
                    "query": "service:edge-proxy AND http.response.status_code >= 500",
                    "aggs": "edge_node",
                },
                '{\n  "buckets": [\n' + buckets + "\n  ]\n}",
            ),
        ],
    )
    b.assistant(
        "A single Tor exit node accounts for almost all the stream resets, hitting several "
        "edge nodes; the 5xx rate follows it. It is the rapid reset pattern the advisory describes."
    )
    b.user("Open an incident ticket for this.")
    b.tool(
        "Creating the incident ticket.",
        "jira_create",
        {"project": "IR", "summary": "HTTP/2 rapid reset against edge-proxy", "priority": "P1"},
        f"Created {ticket} (P1): HTTP/2 rapid reset against edge-proxy\n"
        f"https://acme.atlassian.net/browse/{ticket}\nassignee: unassigned, watchers: 3",
    )
    b.user("Block that IP at the WAF right away.")
    b.assistant("Preparing a deny rule on the edge-waf security policy at priority 1000.")
    b.user(
        "ok wait, legal just pinged: don't block yet, they want evidence for the abuse report. "
        "Put the WAF rule in preview mode (log only) instead."
    )
    b.tool(
        "Creating the rule in preview.",
        "shell",
        {
            "command": "gcloud compute security-policies rules create 1000 "
            "--security-policy=edge-waf "
            f"--src-ip-ranges={ip}/32 --action=deny-403 --preview"
        },
        "Creating rule [1000]...done.\npreview: true",
    )
    b.user("Now bump the module and show me the go.mod diff.")
    old_text = f"{prefix}{found}.0"
    b.tool(
        "Bumping the dependency.",
        "shell",
        {"command": f"go get {module}@{bump} && go mod tidy && git diff go.mod"},
        f"go: upgraded {module} {old_text} => {bump}\n"
        "go: upgraded golang.org/x/text v0.13.0 => v0.14.0\n"
        "diff --git a/go.mod b/go.mod\n"
        f"index {token(rng, 7, '0123456789abcdef')}..{token(rng, 7, '0123456789abcdef')} 100644\n"
        "--- a/go.mod\n+++ b/go.mod\n@@ -8,10 +8,10 @@ require (\n"
        "\tgithub.com/prometheus/client_golang v1.17.0\n"
        f"-\t{module} {old_text}\n+\t{module} {bump}\n"
        "-\tgolang.org/x/text v0.13.0 // indirect\n+\tgolang.org/x/text v0.14.0 // indirect\n"
        "\tgopkg.in/yaml.v3 v3.0.1\n )",
    )
    b.tool(
        "Running the tests.",
        "shell",
        {"command": "go test ./..."},
        "\n".join(
            f"ok  \tgithub.com/acme/edge-proxy/{pkg}\t{rng.uniform(0.1, 2):.3f}s"
            for pkg in ("internal/config", "internal/proxy", "internal/ratelimit", "internal/tls")
        )
        + "\n?   \tgithub.com/acme/edge-proxy/cmd/edge\t[no test files]",
    )
    b.user(
        f"SOC also says the {account} service account key was used from that same address. "
        "Kill the key."
    )
    b.tool(
        "Disabling the key.",
        "shell",
        {
            "command": f"gcloud iam service-accounts keys disable {key_id} "
            f"--iam-account={account}@acme-edge-prod.iam.gserviceaccount.com"
        },
        f"Disabled key [{key_id}] for service account "
        f"[{account}@acme-edge-prod.iam.gserviceaccount.com].",
    )
    b.user(
        "Plan: if go test ./... passes in CI on the bump branch, roll it out to the "
        "edge-canary pool tonight; the full fleet only after 24 h without alerts."
    )
    b.assistant(
        "Noted: CI green on the bump branch, then the edge-canary pool tonight, and the full "
        "fleet after 24 h without alerts."
    )
    opening = b.take()
    filler = segments_of(rng, b, segments, lambda r: _vulntriage_filler(r, b))
    probes = [
        Probe(
            "identifier",
            f"Which CVE is the reachable advisory in {module}?",
            cve,
            ((cve,),),
        ),
        Probe("identifier", "Which source IP sent the HTTP/2 reset flood?", ip, ((ip,),)),
        Probe("identifier", "Which incident ticket was opened?", ticket, ((ticket,),)),
        Probe(
            "artifact",
            f"What happened to {module} in go.mod?",
            f"it was bumped from {old_text} to {bump}",
            ((module,), (bump,)),
        ),
        Probe(
            "artifact",
            f"What happened to the {account} service account key?",
            "it was disabled (used from the attacking address)",
            ((account,), ("disabled", "revoked", "deactivated")),
        ),
        Probe(
            "decision",
            "How is the attacking IP handled at the WAF?",
            "a WAF rule in preview (log only) mode, not a block, because legal wants evidence",
            (("preview", "log only", "log-only", "monitor"), ("waf",)),
        ),
        Probe(
            "next_step",
            "What is to happen tonight, and on what condition?",
            "if go test passes in CI on the bump branch, roll it out to the edge-canary pool; "
            "the full fleet only after 24 h without alerts",
            (("canary",), ("roll", "deploy"), ("go test", "ci green", "ci passes", "green")),
        ),
    ]
    return opening, filler, probes


# -- operator: a Rust Kubernetes operator through Codex style shell calls ---------------

_OP_DIR = "/home/dev/src/snapshot-operator"
_OP_RENAMES = (
    ("finalizer.rs", "cleanup.rs"),
    ("gc.rs", "orphans.rs"),
    ("retention.rs", "pruning.rs"),
)
_OP_FAILING = (
    "status_patch_on_conflict",
    "cron_dst_transition",
    "schema_rejects_negative_retention",
)
_OP_PASSING = (
    "controller::tests::reconcile_creates_schedule",
    "controller::tests::ignores_foreign_snapshots",
    "crd::tests::defaults_keep_last",
    "schedule::tests::next_run_after_midnight",
    "schedule::tests::parses_step_values",
    "metrics::tests::counts_failures",
    "webhook::tests::rejects_empty_selector",
    "webhook::tests::accepts_minimal_policy",
    "telemetry::tests::span_names",
)
_OP_MODULE = {
    "status_patch_on_conflict": "controller",
    "cron_dst_transition": "schedule",
    "schema_rejects_negative_retention": "crd",
}
_FILLER_OP_TESTS = (
    "metrics::tests::histogram_buckets",
    "webhook::tests::mutates_labels",
    "leader::tests::lease_renewal",
    "events::tests::dedupes_warnings",
)
_FILLER_OP_FILES = (
    "src/metrics.rs",
    "src/webhook.rs",
    "src/leader.rs",
    "src/events.rs",
    "charts/snapshot-operator/templates/deployment.yaml",
    "docs/architecture.md",
)


_CLIPPY = ("redundant clone", "this `if` has identical blocks", "needless borrow", "unused import")
_EVENT_REASONS = ("Reconciled", "SnapshotCreated", "SnapshotPruned", "BackOff")
_EVENT_MESSAGES = ("created 1 VolumeSnapshot", "pruned 2 VolumeSnapshots", "retrying after 429")


def _codex_out(code: int, seconds: float, output: str) -> str:
    return f"Exit code: {code}\nWall time: {seconds:.1f} seconds\nOutput:\n{output}"


def _sh(command: str) -> dict[str, object]:
    return {"command": ["bash", "-lc", command], "workdir": _OP_DIR, "timeout_ms": 120000}


def _patch(body: str) -> dict[str, object]:
    return {
        "command": ["apply_patch", f"*** Begin Patch\n{body}*** End Patch\n"],
        "workdir": _OP_DIR,
    }


def _pod(rng: random.Random, name: str) -> str:
    return f"{name}-{token(rng, 9, _K8S_SAFE)}-{token(rng, 5, _K8S_SAFE)}"


def _cargo_test(rng: random.Random, names: Sequence[str], failing: str | None) -> str:
    lines = [
        f"   Compiling snapshot-operator v0.9.{rng.randint(2, 6)} ({_OP_DIR})",
        f"    Finished test [unoptimized + debuginfo] target(s) in {rng.uniform(8, 60):.2f}s",
        "     Running unittests src/main.rs",
        "",
        f"running {len(names)} tests",
    ]
    for name in names:
        lines.append(f"test {name} ... {'FAILED' if name == failing else 'ok'}")
    if failing:
        lines += [
            "",
            "failures:",
            "",
            f"---- {failing} stdout ----",
            f"thread '{failing}' panicked at "
            f"src/{failing.split('::')[0]}.rs:{rng.randint(80, 300)}:9:",
            "assertion `left == right` failed",
            f"  left: {rng.randint(2, 5)}\n right: 1",
            "",
            "failures:",
            f"    {failing}",
            "",
            f"test result: FAILED. {len(names) - 1} passed; 1 failed; 0 ignored; 0 measured; "
            f"0 filtered out; finished in 0.{rng.randint(10, 99)}s",
        ]
    else:
        lines.append(
            f"\ntest result: ok. {len(names)} passed; 0 failed; 0 ignored; 0 measured; "
            f"0 filtered out; finished in 0.{rng.randint(10, 99)}s"
        )
    return "\n".join(lines)


def _operator_filler(rng: random.Random, b: Builder) -> None:
    pick = rng.randrange(5)
    if pick == 0:
        b.user("why is the operator restarting in staging?")
        rows = "\n".join(
            f"{_pod(rng, name):<48} {_pick(rng, ('1/1', '1/1', '0/1'))}   "
            f"{_pick(rng, ('Running', 'Running', 'CrashLoopBackOff'))}   {rng.randint(0, 14)}   "
            f"{rng.randint(1, 40)}h"
            for name in (
                "snapshot-operator",
                "snapshot-operator",
                "snapshot-webhook",
                "prometheus-adapter",
            )
        )
        b.tool(
            "Listing the pods.",
            "shell",
            _sh("kubectl --context staging -n snapshot-system get pods"),
            _codex_out(
                0, rng.uniform(0.4, 2), "NAME" + " " * 45 + "READY STATUS RESTARTS AGE\n" + rows
            ),
        )
        b.assistant(
            "The restarts are OOM kills on the webhook, whose limit is 64Mi; the operator "
            "itself is stable."
        )
    elif pick == 1:
        file = _pick(rng, ("src/metrics.rs", "src/webhook.rs", "src/leader.rs"))
        b.user(f"clean up the clippy warnings in {file}")
        warnings = "\n".join(
            f"warning: {_pick(rng, _CLIPPY)}\n"
            f"  --> {file}:{rng.randint(10, 300)}:{rng.randint(5, 40)}"
            for _ in range(rng.randint(2, 4))
        )
        b.tool(
            "Running clippy.",
            "shell",
            _sh("cargo clippy --all-targets"),
            _codex_out(0, rng.uniform(5, 30), warnings),
        )
        b.tool(
            "Fixing them.",
            "shell",
            _patch(
                f"*** Update File: {file}\n@@\n-    let labels = selector.labels.clone();\n"
                "+    let labels = &selector.labels;\n"
            ),
            _codex_out(0, 0.1, f"Success. Updated the following files:\nM {file}"),
        )
        b.assistant(f"{file} is clippy-clean now.")
    elif pick == 2:
        names = rng.sample(_FILLER_OP_TESTS, 3)
        failing = names[0] if rng.random() < 0.3 else None
        b.user("run the tests for the webhook and metrics crates")
        _call(
            b,
            "Running cargo test.",
            "shell",
            _sh("cargo test -p snapshot-webhook -p snapshot-metrics"),
            _codex_out(
                101 if failing else 0, rng.uniform(10, 60), _cargo_test(rng, names, failing)
            ),
            error=failing is not None,
        )
        b.assistant(f"{failing} fails." if failing else "All green.")
    elif pick == 3:
        b.user("what does kubectl say about the nightly-logs policy?")
        events = "\n".join(
            f"  {_pick(rng, ('Normal ', 'Warning'))}  {_pick(rng, _EVENT_REASONS)}  "
            f"{rng.randint(1, 59)}m  snapshot-operator  {_pick(rng, _EVENT_MESSAGES)}"
            for _ in range(rng.randint(3, 6))
        )
        b.tool(
            "Describing the policy.",
            "shell",
            _sh("kubectl -n logging describe snapshotpolicy nightly-logs"),
            _codex_out(
                0, 0.8, f"Name:         nightly-logs\nNamespace:    logging\nEvents:\n{events}"
            ),
        )
        b.assistant(
            "It reconciles fine; the 429s are the apiserver's priority and fairness limits."
        )
    else:
        files = rng.sample(_FILLER_OP_FILES, rng.randint(2, 4))
        b.user("what's dirty in the tree?")
        status = "\n".join(f"{_pick(rng, (' M', ' M', 'A ', 'D ', '??'))} {f}" for f in files)
        b.tool("Checking git.", "shell", _sh("git status --short"), _codex_out(0, 0.1, status))
        b.assistant(f"{len(files)} paths changed, none staged for the fix branch.")


def _operator(rng: random.Random, b: Builder, segments: int) -> Parts:
    old_name, new_name = _OP_RENAMES[rng.randrange(len(_OP_RENAMES))]
    failing = _pick(rng, _OP_FAILING)
    failing_full = f"{_OP_MODULE[failing]}::tests::{failing}"
    digest = "sha256:" + token(rng, 64, "0123456789abcdef")
    hexes = "0123456789abcdef"
    uid = (
        f"{token(rng, 8, hexes)}-{token(rng, 4, hexes)}-4{token(rng, 3, hexes)}-"
        f"{_pick(rng, '89ab')}{token(rng, 3, hexes)}-{token(rng, 12, hexes)}"
    )
    commit = _hex_with(rng, 9)
    release = f"release-0.{rng.randint(7, 12)}"
    minutes = _pick(rng, ("5", "10"))
    seconds = str(int(minutes) * 60)
    policy = _pick(rng, ("nightly-db", "hourly-pg", "weekly-vault"))

    b.user(
        f"snapshot-operator: SnapshotPolicy objects get stuck Terminating in prod-euw4. Look at "
        f"{policy} in databases and fix the finalizer race. Repo is ~/src/snapshot-operator."
    )
    yaml = (
        "apiVersion: snapshots.acme.dev/v1alpha1\n"
        "kind: SnapshotPolicy\n"
        "metadata:\n"
        f'  creationTimestamp: "2024-02-{rng.randint(10, 28)}T08:14:55Z"\n'
        "  deletionGracePeriodSeconds: 0\n"
        f'  deletionTimestamp: "2024-03-{rng.randint(10, 28)}T02:00:41Z"\n'
        "  finalizers:\n"
        "  - snapshots.acme.dev/cleanup\n"
        f"  generation: {rng.randint(3, 12)}\n"
        f"  name: {policy}\n"
        "  namespace: databases\n"
        f'  resourceVersion: "{rng.randint(100000000, 999999999)}"\n'
        f"  uid: {uid}\n"
        "spec:\n"
        '  schedule: "0 2 * * *"\n'
        f"  retention:\n    keepLast: {rng.randint(7, 30)}\n"
        "  selector:\n    matchLabels:\n      backup: enabled\n"
        "status:\n"
        "  conditions:\n"
        "  - type: Ready\n"
        '    status: "False"\n'
        "    reason: CleanupPending\n"
        f'    message: "{rng.randint(2, 6)} VolumeSnapshots still reference the policy"\n'
        f'  lastScheduleTime: "2024-03-{rng.randint(10, 28)}T02:00:00Z"'
    )
    b.tool(
        "Looking at the stuck object.",
        "shell",
        _sh(f"kubectl --context prod-euw4 -n databases get snapshotpolicy {policy} -o yaml"),
        _codex_out(0, 1.1, yaml),
    )
    b.tool(
        "Finding the finalizer code.",
        "shell",
        _sh('rg -n "finalizer" src | head -n 20'),
        _codex_out(
            0,
            0.1,
            f"src/{old_name}:{rng.randint(10, 30)}:"
            'pub const FINALIZER: &str = "snapshots.acme.dev/cleanup";\n'
            f"src/{old_name}:{rng.randint(40, 90)}:"
            "        finalizer::Event::Cleanup(p) => cleanup(p, ctx).await,\n"
            f"src/{old_name}:{rng.randint(100, 160)}:"
            "    // remove the finalizer, then delete the snapshots\n"
            f"src/controller.rs:{rng.randint(30, 80)}:"
            "    finalizer(&api, FINALIZER, policy, |event| async {",
        ),
    )
    b.assistant(
        f"The cleanup in src/{old_name} drops the finalizer before the VolumeSnapshot deletions "
        "are confirmed, so a failed delete leaves orphans and the retry finds no finalizer; and "
        "error_policy requeues after 5 seconds, which hammers the apiserver while it fails."
    )
    b.user(
        f"Rename src/{old_name} to src/{new_name} while you're at it, the name confuses "
        "everyone. And on error, requeue every 30s."
    )
    module_old, module_new = old_name.removesuffix(".rs"), new_name.removesuffix(".rs")
    b.tool(
        "Renaming the module.",
        "shell",
        _sh(
            f"git mv src/{old_name} src/{new_name} && "
            f"sed -i 's/^mod {module_old};/mod {module_new};/' "
            "src/main.rs && git status --short"
        ),
        _codex_out(0, 0.2, f"R  src/{old_name} -> src/{new_name}\n M src/main.rs"),
    )
    b.tool(
        "Applying the requeue interval.",
        "shell",
        _patch(
            "*** Update File: src/controller.rs\n@@ fn error_policy(\n"
            "-    Action::requeue(Duration::from_secs(5))\n"
            "+    Action::requeue(Duration::from_secs(30))\n"
        ),
        _codex_out(0, 0.1, "Success. Updated the following files:\nM src/controller.rs"),
    )
    b.user(
        "hmm, actually the apiserver folks complained about our QPS: make the error requeue "
        f"{minutes} minutes with jitter, not 30s."
    )
    b.tool(
        "Changing the requeue to a jittered interval.",
        "shell",
        _patch(
            "*** Update File: src/controller.rs\n@@ fn error_policy(\n"
            "-    Action::requeue(Duration::from_secs(30))\n"
            f"+    Action::requeue(jittered(Duration::from_secs({seconds})))\n"
        ),
        _codex_out(0, 0.1, "Success. Updated the following files:\nM src/controller.rs"),
    )
    b.tool(
        "Fixing the order: delete the snapshots, confirm, then drop the finalizer.",
        "shell",
        _patch(
            f"*** Update File: src/{new_name}\n@@ async fn cleanup(\n"
            "-    remove_finalizer(&api, &policy).await?;\n"
            "-    delete_snapshots(&snaps, &policy).await?;\n"
            "+    delete_snapshots(&snaps, &policy).await?;\n"
            "+    wait_gone(&snaps, &policy, ctx.timeout).await?;\n"
            "+    remove_finalizer(&api, &policy).await?;\n"
        ),
        _codex_out(0, 0.1, f"Success. Updated the following files:\nM src/{new_name}"),
    )
    b.user("Also pin the snapctl image in the chart by digest, the 1.4 tag keeps moving.")
    b.tool(
        "Resolving the digest.",
        "shell",
        _sh("crane digest ghcr.io/acme/snapctl:1.4"),
        _codex_out(0, 0.9, digest),
    )
    b.tool(
        "Pinning it in the chart values.",
        "shell",
        _patch(
            "*** Update File: charts/snapshot-operator/values.yaml\n@@ snapctl:\n"
            "   repository: ghcr.io/acme/snapctl\n"
            '-  tag: "1.4"\n'
            f'+  digest: "{digest}"\n'
        ),
        _codex_out(
            0, 0.1, "Success. Updated the following files:\nM charts/snapshot-operator/values.yaml"
        ),
    )
    names = [*rng.sample(_OP_PASSING, rng.randint(7, 9)), failing_full]
    rng.shuffle(names)
    _call(
        b,
        "Running the tests.",
        "shell",
        _sh("cargo test"),
        _codex_out(101, rng.uniform(20, 70), _cargo_test(rng, names, failing_full)),
        error=True,
    )
    b.tool(
        f"{len(names) - 1} of {len(names)} pass. The one failure is in a module I did not "
        "touch; it fails the same way on main, so it predates this change. Committing.",
        "shell",
        _sh('git add -A && git commit -m "Fix finalizer race; requeue errors with jitter"'),
        _codex_out(
            0,
            0.3,
            f"[fix/finalizer-race {commit}] Fix finalizer race; requeue errors with jitter\n"
            f" 4 files changed, {rng.randint(30, 90)} insertions(+), "
            f"{rng.randint(10, 40)} deletions(-)\n"
            f" rename src/{{{old_name} => {new_name}}} ({rng.randint(60, 90)}%)",
        ),
    )
    b.user(
        f"Once cargo test is green on the rebased branch, open a pull request against {release} "
        "and ask Marta for review. Don't merge it yourself."
    )
    b.assistant(
        f"Will do: rebase, and when cargo test passes, open the pull request against {release} "
        "with Marta as reviewer, without merging."
    )
    opening = b.take()
    filler = segments_of(rng, b, segments, lambda r: _operator_filler(r, b))
    requeue = (f"{minutes} min", f"{seconds}s", f"{seconds} s", f"from_secs({seconds})")
    probes = [
        Probe("identifier", "Which digest is the snapctl image pinned to?", digest, ((digest,),)),
        Probe(
            "identifier", f"What is the uid of the stuck SnapshotPolicy {policy}?", uid, ((uid,),)
        ),
        Probe("identifier", "What is the hash of the fix commit?", commit, ((commit,),)),
        Probe(
            "artifact",
            f"What happened to src/{old_name}?",
            f"it was renamed (git mv) to src/{new_name}",
            ((old_name,), (new_name,)),
        ),
        Probe(
            "artifact",
            f"What is the state of the test {failing_full}?",
            f"{failing} fails (it fails on main too, predating the change)",
            ((failing,), ("failed", "fails", "failing")),
        ),
        Probe(
            "decision",
            "How long does the operator wait before requeueing after an error?",
            f"{minutes} minutes with jitter (the user corrected the earlier 30s)",
            (requeue, ("requeue",)),
        ),
        Probe(
            "next_step",
            "What is to happen once the branch is rebased, and on what condition?",
            f"once cargo test is green, open a pull request against {release} and ask Marta to "
            "review, without merging",
            (("pull request",), (release,), ("cargo test", "green", "passes")),
        ),
    ]
    return opening, filler, probes


_TEMPLATES: dict[str, Template] = {
    "clinic": _clinic,
    "firmware": _firmware,
    "refunds": _refunds,
    "lims": _lims,
    "vulntriage": _vulntriage,
    "operator": _operator,
}


def generate_heldout3(kind: str, seed: int, *, segments: int = 10) -> Session:
    """The third held-out session of ``kind`` (one of :data:`HELDOUT3_KINDS`) for ``seed``,
    written from ``random.Random(f"heldout3:{kind}:{seed}")`` with ``segments`` filler
    segments after the opening."""
    return build_session(
        _TEMPLATES, kind, seed, segments, seed_prefix="heldout3:", label="heldout3"
    )
