"""The eleventh held-out set: six kinds written blind to the compaction code, the fact
ledger and every other session set.

Each kind is a project an agent works on with a user in another language and on
another stack; the tool output stays as the tools print it:

``villamos_terraform``
    a tram company's ticket-validator infrastructure in Terraform on AWS, in
    Hungarian;
``merdvakt_phoenix``
    a salmon farm's feeding and sea-lice app in Elixir/Phoenix, in Norwegian;
``farsh_grpc``
    a carpet marketplace's pricing microservice in Go with gRPC on Kubernetes, in
    Persian;
``wakala_ansible``
    a mobile-money agent network's servers run with Ansible, in Swahili;
``rozalia_cargo``
    a rose-oil distillery's sensor gateway in Rust (cargo), in Bulgarian;
``parapo_wrangler``
    a jeepney fare app on Cloudflare Workers (wrangler) with GitHub Actions (gh), in
    Tagalog.

The opening of every session plants three identifiers of different types, two
artifacts (told by the tool's output, by the agent's words, or both, as the seed
says), one decision (dictated, corrected later, proposed and approved or changed,
relayed from a colleague, or answered to the agent's question) and one open next step
(a deadline, a condition, a promise or a reminder), in a seeded order among reads,
logs, decoys and chatter. The filler segments never repeat a planted identifier or
artifact name.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from contextfold.blocks import TextBlock
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

__all__ = ["HELDOUT11_KINDS", "generate_heldout11"]

_LOW = string.ascii_lowercase + string.digits
_Block = Callable[[], None]


class _W:
    """A builder that folds the agent's remark into its next tool call, so that two
    assistant messages never follow each other."""

    def __init__(self, b: Builder) -> None:
        self.b = b
        self.rng = b.rng

    def _held(self) -> str:
        messages = self.b.messages
        if not messages or messages[-1].role != "assistant":
            return ""
        texts = [x.text for x in messages[-1].content if isinstance(x, TextBlock)]
        if len(texts) != len(messages[-1].content):
            return ""
        messages.pop()
        return "\n\n".join(texts) + "\n\n"

    def user(self, text: str) -> None:
        self.b.user(text)

    def say(self, text: str) -> None:
        self.b.assistant(self._held() + text)

    def tool(self, text: str, name: str, args: dict[str, object], output: str) -> None:
        self.b.tool(self._held() + text, name, args, output)

    def sh(self, text: str, command: str, output: str) -> None:
        self.tool(text, "bash", {"command": command}, output)


def _pick(rng: random.Random, options: Sequence[str], **values: object) -> str:
    return rng.choice(options).format(**values)


def _ident(question: str, value: str) -> Probe:
    return Probe("identifier", question, value, ((value,),))


def _probe(kind: str, question: str, answer: str, *groups: Sequence[str]) -> Probe:
    assert kind in ("artifact", "decision", "next_step")
    return Probe(kind, question, answer, tuple(tuple(g) for g in groups))  # type: ignore[arg-type]


def _uuid(rng: random.Random) -> str:
    return (
        f"{hexits(rng, 8)}-{hexits(rng, 4)}-4{hexits(rng, 3)}-"
        f"{rng.choice('89ab')}{hexits(rng, 3)}-{hexits(rng, 12)}"
    )


def _clock(rng: random.Random) -> str:
    return f"{rng.randint(9, 17)}:{rng.choice((5, 10, 20, 25, 35, 40, 50, 55)):02d}"


def _stamp(rng: random.Random) -> str:
    return f"2024-0{rng.randint(3, 6)}-{rng.randint(10, 28)}T{rng.randint(0, 23):02d}:" + (
        f"{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z"
    )


@dataclass(frozen=True, slots=True)
class _Art:
    """An artifact the opening tells the state of.

    ``shown`` runs a tool whose output tells the state, ``quiet`` one whose output does
    not; ``words`` are the agent's phrasings in the session's language (``{n}`` is the
    name). The seed picks the tool, the words or both.
    """

    names: tuple[str, ...]
    states: tuple[str, ...]
    question: str
    answer: str
    shown: Callable[[_W], None]
    quiet: Callable[[_W], None]
    words: tuple[str, ...]
    after: tuple[str, ...]
    modes: tuple[str, ...] = ("tool", "words", "both")

    def plant(self, w: _W) -> Probe:
        mode = w.rng.choice(self.modes)
        (self.quiet if mode == "words" else self.shown)(w)
        if mode == "tool":
            w.say(w.rng.choice(self.after))
        else:
            w.say(w.rng.choice(self.words).format(n=self.names[0]))
        return _probe("artifact", self.question, self.answer, self.names, self.states)


def _opening(rng: random.Random, first: Sequence[_Block], middle: list[_Block]) -> None:
    for block in first:
        block()
    rng.shuffle(middle)
    for block in middle:
        block()


def _git_status(line: str, branch: str = "main") -> str:
    return (
        f"On branch {branch}\nChanges to be committed:\n"
        '  (use "git restore --staged <file>..." to unstage)\n'
        f"\t{line}"
    )


_Step = tuple[str, Sequence[str]]
"""One message of a decision: ``"u"`` (the user) or ``"a"`` (the agent), and phrasings."""


def _talk(w: _W, steps: Sequence[_Step], **values: object) -> None:
    for who, options in steps:
        (w.user if who == "u" else w.say)(_pick(w.rng, options, **values))


# ---------------------------------------------------------------------------------------
# villamos_terraform: Hungarian, Terraform on AWS
# ---------------------------------------------------------------------------------------

_HU_DAYS = ("hétfő", "kedd", "szerda", "csütörtök", "péntek")
_HU_OK = (
    "Rendben, ez megvan. Megyek tovább.",
    "Oké, ezzel végeztem, jöhet a következő.",
    "Ez lefutott, nézem a többit.",
)


def _tf_refresh(rng: random.Random, resources: Sequence[str]) -> str:
    return "\n".join(
        f"{r}: Refreshing state... [id={r.split('.')[-1].replace('_', '-')}-{hexits(rng, 6)}]"
        for r in resources
    )


_HU_DECOY_RESOURCES = (
    "aws_ecs_cluster.validator",
    "aws_ecs_service.tap_api",
    "aws_lb.public",
    "aws_lb_target_group.tap_api",
    "aws_sqs_queue.tap_events",
    "aws_dynamodb_table.card_blacklist",
    "aws_iam_role.task_exec",
    "aws_security_group.tap_api",
    "aws_cloudwatch_log_group.tap_api",
)


def _villamos(rng: random.Random, b: Builder, segments: int) -> Parts:
    w = _W(b)
    acct = f"{rng.randint(1, 9)}{token(rng, 11, string.digits)}"
    role = f"arn:aws:iam::{acct}:role/validator-ci-{token(rng, 5, _LOW)}"
    readonly = f"arn:aws:iam::{acct}:role/validator-readonly-{token(rng, 5, _LOW)}"
    lock = _uuid(rng)
    ticket, old_ticket = (f"DKZ-{n}" for n in rng.sample(range(1000, 9999), 2))
    probes: list[Probe] = []

    def intro() -> None:
        w.user(
            _pick(
                rng,
                (
                    "Szia! Ma a jegykezelő validátorok infrastruktúráján dolgozunk "
                    "(infra-validator repó, Terraform, AWS eu-central-1). Először nézz "
                    "körül, mi az állapot.",
                    "Helló, a validátor backend Terraform kódjával kellene rendet rakni. "
                    "A repó az infra-validator, prod és staging környezet van. Kezdd "
                    "azzal, hogy megnézed a git állapotot.",
                    "Jó reggelt! Ma az infra-validator repóban kell pár dolgot "
                    "elvégezni az AWS-en (Terraform). Nézd át gyorsan, mit találsz.",
                ),
            )
        )
        w.sh(
            "Megnézem a repó állapotát és a Terraform verziót.",
            "git status && terraform version",
            "On branch main\nYour branch is up to date with 'origin/main'.\n\n"
            "nothing to commit, working tree clean\n"
            "Terraform v1.7.5\non linux_amd64\n"
            "+ provider registry.terraform.io/hashicorp/aws v5.41.0\n"
            "+ provider registry.terraform.io/hashicorp/random v3.6.0",
        )
        w.sh(
            "És a könyvtárszerkezetet:",
            "ls envs modules modules/validator",
            "envs:\nprod\nstaging\n\nmodules:\ncdn\nnetwork\nvalidator\n\n"
            "modules/validator:\nbuckets.tf\necs.tf\nevents.tf\nlambda.tf\n"
            "legacy_policies.tf\noutputs.tf\nvariables.tf",
        )
        w.say(
            _pick(
                rng,
                (
                    "Tiszta a munkakönyvtár, a validator modulban hét fájl van. Mi legyen az első?",
                    "Minden commitolva, a Terraform 1.7.5-ös. Mondd, mivel kezdjük.",
                    "Áttekintettem: main branch, tiszta állapot, három modul. Mehetünk.",
                ),
            )
        )

    def role_block() -> None:
        v = rng.randrange(3)
        if v == 0:
            w.user("Melyik role-lal deployol a CI? Nézd meg a kimenetekben.")
            w.sh(
                "Lekérem a Terraform outputokat a prod környezetből.",
                "cd envs/prod && terraform output",
                f'ci_role_arn = "{role}"\n'
                f'exports_bucket_name = "dk-validator-tmp-{hexits(rng, 4)}"\n'
                f'readonly_role_arn = "{readonly}"\n'
                f'tap_api_url = "https://tap-{hexits(rng, 6)}.eu-central-1.elb.amazonaws.com"',
            )
            w.say(
                f"A CI deploy role: {role}. A readonly role csak a dashboardoknak kell, "
                "azt nem használjuk."
            )
        elif v == 1:
            w.sh(
                "Kipróbálom, fel tudom-e venni a deploy role-t.",
                f"aws sts assume-role --role-arn {role} --role-session-name agent-check",
                "An error occurred (AccessDenied) when calling the AssumeRole operation: "
                f"User: arn:aws:iam::{acct}:user/kiss.gabor is not authorized to perform: "
                f"sts:AssumeRole on resource: {role}",
            )
            w.user(
                "Igen, az a role csak a GitHub Actions OIDC-ből vehető fel, ez így jó. "
                f"A {readonly} role-t se próbáld, az csak olvas."
            )
        else:
            w.user(
                f"Infó: a GitHub Actions a {role} role-lal deployol. A readonly "
                f"({readonly}) nem kell, ne keverd össze."
            )
            w.say("Értem, a deploy role-t jegyzem, a readonly-t figyelmen kívül hagyom.")
        probes.append(_ident("What is the ARN of the CI deploy role of the validator?", role))

    def lock_block() -> None:
        v = rng.randrange(3)
        created = f"2024-03-{rng.randint(10, 28)} 0{rng.randint(6, 9)}:{rng.randint(10, 59)}"
        if v == 0:
            w.sh(
                "Futtatok egy plan-t a prod környezetben.",
                "cd envs/prod && terraform plan -no-color",
                "Acquiring state lock. This may take a few moments...\n╷\n"
                "│ Error: Error acquiring the state lock\n│ \n"
                "│ Error message: ConditionalCheckFailedException: The conditional request failed\n"
                "│ Lock Info:\n"
                f"│   ID:        {lock}\n"
                "│   Path:      dk-tfstate-prod/validator/terraform.tfstate\n"
                "│   Operation: OperationTypeApply\n"
                "│   Who:       kiss.gabor@dk-build-07\n"
                "│   Version:   1.7.5\n"
                f"│   Created:   {created}:17.311502 +0000 UTC\n"
                "│   Info:      \n│ \n"
                "│ Terraform acquires a state lock to protect the state from being written\n"
                "│ by multiple users at the same time. Please resolve the issue above and try\n"
                '│ again. For most commands, you can disable locking with the "-lock=false"\n'
                "│ flag, but this is not recommended.\n╵",
            )
            w.say("A state zárolva van, Gábor egy félbehagyott apply-ja fogja. Feloldjam?")
            w.user("Gábor szerint nyugodtan, az ő gépe lefagyott. Oldd fel.")
        elif v == 1:
            w.user(
                f"A CI-ban beragadt egy state lock, ez az ID: {lock}. Gábor gépe "
                "fagyott le apply közben. Oldd fel légyszi."
            )
        else:
            w.sh(
                "Megnézem a lock táblát, mert a plan várakozik.",
                "aws dynamodb scan --table-name dk-tf-locks --output json | jq '.Items[]'",
                "{\n"
                '  "LockID": {"S": "dk-tfstate-prod/validator/terraform.tfstate"},\n'
                f'  "Info": {{"S": "{{\\"ID\\":\\"{lock}\\",\\"Operation\\":'
                '\\"OperationTypeApply\\",\\"Who\\":\\"kiss.gabor@dk-build-07\\",'
                f'\\"Version\\":\\"1.7.5\\",\\"Created\\":\\"{created}\\"}}"}}\n'
                "}\n{\n"
                '  "LockID": {"S": "dk-tfstate-prod/validator/terraform.tfstate-md5"},\n'
                f'  "Digest": {{"S": "{hexits(rng, 32)}"}}\n}}',
            )
            w.user("Ez Gábor régi lockja, nyugodtan feloldhatod.")
        w.sh(
            "Feloldom a lockot.",
            f"cd envs/prod && terraform force-unlock -force {lock}",
            "Terraform state has been successfully unlocked!\n\n"
            "The state has been unlocked, and Terraform commands should now be able to\n"
            "obtain a new lock on the remote state.",
        )
        probes.append(
            _ident("What was the ID of the Terraform state lock that was force-unlocked?", lock)
        )

    def ticket_block() -> None:
        v = rng.randrange(3)
        if v == 0:
            w.user(
                f"Ez az egész a {ticket} jegyhez tartozik; a {old_ticket} már le van "
                "zárva, oda ne írj."
            )
            w.say(f"Rendben, a commitokba és a PR-be a {ticket} kerül.")
        elif v == 1:
            w.sh(
                "Megnézem az utolsó commitokat.",
                "git log --oneline -6",
                f"{hexits(rng, 7)} {ticket}: add fare sync skeleton\n"
                f"{hexits(rng, 7)} {ticket}: split validator IAM\n"
                f"{hexits(rng, 7)} {old_ticket}: bump aws provider to 5.41\n"
                f"{hexits(rng, 7)} {old_ticket}: tap_api health check grace period\n"
                f"{hexits(rng, 7)} chore: terraform fmt\n"
                f"{hexits(rng, 7)} network: tag subnets for karpenter",
            )
            w.say(
                f"A friss munka a {ticket} alatt megy, a {old_ticket} a provider-frissítés "
                f"volt. A mai commitokat is a {ticket} alá teszem?"
            )
            w.user("Igen.")
        else:
            w.sh(
                "Melyik branchen vagyunk a feature-höz?",
                "git branch -a | grep -i dkz",
                f"  feature/{ticket}-fare-sync\n  remotes/origin/feature/{ticket}-fare-sync\n"
                f"  remotes/origin/feature/{old_ticket}-provider-bump",
            )
            w.user(f"A {ticket} branchre válts, a másik már be van mergelve.")
            w.sh(
                "Átváltok.",
                f"git switch feature/{ticket}-fare-sync",
                f"Switched to branch 'feature/{ticket}-fare-sync'\n"
                f"Your branch is up to date with 'origin/feature/{ticket}-fare-sync'.",
            )
        probes.append(_ident("Which Jira ticket does the validator work belong to?", ticket))

    def apply_out(lines: str, added: int, changed: int, destroyed: int) -> str:
        return (
            f"{lines}\n\nApply complete! Resources: {added} added, {changed} changed, "
            f"{destroyed} destroyed.\n\nOutputs:\n\n"
            f'tap_api_url = "https://tap-{hexits(rng, 6)}.eu-central-1.elb.amazonaws.com"'
        )

    def exports_shown(w: _W) -> None:
        w.user("A validator_exports bucket már nem kell, szedd ki a kódból és az AWS-ből.")
        s = rng.randint(2, 6)
        w.sh(
            "Kivettem a resource-t a buckets.tf-ből, jöhet az apply.",
            "cd envs/prod && terraform apply -auto-approve -no-color",
            apply_out(
                "aws_s3_bucket.validator_exports: Destroying... "
                f"[id=dk-validator-exports-prod]\n"
                f"aws_s3_bucket.validator_exports: Destruction complete after {s}s",
                0,
                0,
                1,
            ),
        )

    def exports_quiet(w: _W) -> None:
        w.user("A validator_exports bucket már nem kell, szedd ki a kódból és az AWS-ből.")
        w.sh(
            "Kivettem a buckets.tf-ből, apply:",
            "cd envs/prod && terraform apply -auto-approve -no-color | tail -n 1",
            "Apply complete! Resources: 0 added, 0 changed, 1 destroyed.",
        )

    def fare_shown(w: _W) -> None:
        w.user("Kell egy fare_sync Lambda, ami éjjel szinkronizálja a tarifákat. A kód kész.")
        s = rng.randint(11, 19)
        w.sh(
            "Felvettem a lambda.tf-be, apply:",
            "cd envs/prod && terraform apply -auto-approve -no-color",
            apply_out(
                "aws_lambda_function.fare_sync: Creating...\n"
                "aws_lambda_function.fare_sync: Still creating... [10s elapsed]\n"
                f"aws_lambda_function.fare_sync: Creation complete after {s}s "
                "[id=validator-fare-sync]",
                1,
                0,
                0,
            ),
        )

    def fare_quiet(w: _W) -> None:
        w.user("Kell egy fare_sync Lambda, ami éjjel szinkronizálja a tarifákat. A kód kész.")
        w.sh(
            "Felvettem a lambda.tf-be, apply a logfájlba:",
            "cd envs/prod && terraform apply -auto-approve -no-color > /tmp/apply.log; echo $?",
            "0",
        )

    def rollup_shown(w: _W) -> None:
        w.user("A nightly_rollup ütemezés zavarja a migrációt, állítsd le, de ne töröld.")
        w.sh(
            "Az events.tf-ben is_enabled = false, apply:",
            "cd envs/prod && terraform apply -auto-approve -no-color",
            apply_out(
                "aws_cloudwatch_event_rule.nightly_rollup: Modifying... [id=nightly-rollup]\n"
                "aws_cloudwatch_event_rule.nightly_rollup: Modifications complete after 1s "
                "[id=nightly-rollup]",
                0,
                1,
                0,
            ),
        )

    def rollup_quiet(w: _W) -> None:
        w.user("A nightly_rollup ütemezés zavarja a migrációt, állítsd le, de ne töröld.")
        w.sh(
            "Átírtam az events.tf-et, apply:",
            "cd envs/prod && terraform apply -auto-approve -no-color | grep '^Apply'",
            "Apply complete! Resources: 0 added, 1 changed, 0 destroyed.",
        )

    def rename_shown(w: _W) -> None:
        w.user("A legacy_policies.tf név félrevezető, legyen validator_iam.tf.")
        w.sh(
            "git mv, hogy a history megmaradjon:",
            "git mv modules/validator/legacy_policies.tf modules/validator/validator_iam.tf "
            "&& git status",
            "On branch main\nChanges to be committed:\n"
            '  (use "git restore --staged <file>..." to unstage)\n'
            "\trenamed:    modules/validator/legacy_policies.tf -> "
            "modules/validator/validator_iam.tf",
        )

    def rename_quiet(w: _W) -> None:
        w.user("A legacy_policies.tf név félrevezető, legyen validator_iam.tf.")
        w.sh(
            "git mv:",
            "git mv modules/validator/legacy_policies.tf modules/validator/validator_iam.tf",
            "(no output)",
        )

    arts = [
        _Art(
            ("validator_exports",),
            (
                "destroy",
                "destruct",
                "delet",
                "remov",
                "töröl",
                "törlé",
                "megszűn",
                "megszün",
                "eltávolít",
                "kivett",
                "kiszed",
            ),
            "What happened to the aws_s3_bucket.validator_exports resource?",
            "It was destroyed (removed from the code and from AWS by the apply).",
            exports_shown,
            exports_quiet,
            (
                "A {n} bucket törölve lett, a kódból is kivettem a resource-t.",
                "Kész: a {n} S3 bucketet megszüntettem, az apply egy erőforrást törölt.",
                "{n}: eltávolítva, az AWS-ben sincs már meg.",
            ),
            _HU_OK,
        ),
        _Art(
            ("fare_sync",),
            ("creat", "added", "new", "létreh", "létrej", "elkészült", "új "),
            "What happened to the aws_lambda_function.fare_sync resource?",
            "It was created (new Lambda validator-fare-sync).",
            fare_shown,
            fare_quiet,
            (
                "Létrehoztam a {n} Lambdát (validator-fare-sync), 512 MB memóriával.",
                "Létrejött az új {n} függvény, a trigger még nincs rákötve.",
                "A {n} Lambda elkészült, új erőforrásként fut a prodon.",
            ),
            _HU_OK,
        ),
        _Art(
            ("nightly_rollup",),
            (
                "disabl",
                "modif",
                "paus",
                "stopp",
                "kikapcs",
                "letilt",
                "szünetel",
                "leállít",
                "módosít",
            ),
            "What happened to the nightly_rollup CloudWatch event rule?",
            "It was disabled (is_enabled = false), not deleted.",
            rollup_shown,
            rollup_quiet,
            (
                "A {n} szabályt kikapcsoltam (is_enabled = false), megmaradt.",
                "{n}: letiltva, amíg a migráció fut.",
                "Szüneteltettem a {n} ütemezést, a szabály maga megvan.",
            ),
            _HU_OK,
        ),
        _Art(
            ("legacy_policies.tf", "validator_iam.tf"),
            ("renam", "moved", "átnevez", "áthelyez", "új név"),
            "What happened to modules/validator/legacy_policies.tf?",
            "It was renamed to validator_iam.tf (git mv).",
            rename_shown,
            rename_quiet,
            (
                "A {n} fájlt átneveztem validator_iam.tf-re, a tartalma nem változott.",
                "Átnevezés kész: {n} → validator_iam.tf.",
                "{n} mostantól validator_iam.tf (átnevezve git mv-vel).",
            ),
            _HU_OK,
        ),
    ]

    def art_block(art: _Art) -> _Block:
        return lambda: probes.append(art.plant(w))

    region, old_region = rng.sample(("eu-west-1", "eu-north-1", "eu-west-3", "eu-south-1"), 2)
    mode = rng.randrange(6)
    early: list[_Block] = []

    def decision() -> None:
        if mode == 0:
            w.user(
                _pick(
                    rng,
                    (
                        "A DR replika a {r} régióba kerüljön, ez nem vita tárgya.",
                        "Döntöttünk: a tartalék (DR) replika régiója {r}.",
                        "DR replika: {r} régió. Ennyi.",
                    ),
                    r=region,
                )
            )
            w.say(f"Rendben, a DR replika régiója {region} lesz.")
        elif mode == 1:
            w.user(
                f"Módosítás: a DR replika mégis a {region} régióba menjen, a {old_region} "
                "kiesett, ott nincs meg a kvótánk."
            )
            w.say(f"Értem, átírom: a replika régiója {region}, nem {old_region}.")
        elif mode == 2:
            w.say(
                f"Javaslom, hogy a DR replika a {region} régióba kerüljön: ott van Graviton "
                "kapacitás és olcsóbb a forgalom. Mehet?"
            )
            w.user(rng.choice(("Igen.", "Mehet.", "Oké, legyen.")))
        elif mode == 3:
            w.say(
                f"A DR replikát a {old_region} régióba tenném, mert ott a legkisebb a "
                "késleltetés. Jó így?"
            )
            w.user(f"Nem, inkább {region} régió legyen a replikának, a {old_region} drága.")
        elif mode == 4:
            w.user(
                f"Bence a securitytől üzeni: a DR replika csak {region} régióban lehet, a "
                f"{old_region} compliance okból nem jöhet szóba."
            )
            w.say(f"Köszi, akkor a replika régiója {region}.")
        else:
            w.say(f"Melyik régióba kerüljön a DR replika: {old_region} vagy {region}?")
            w.user(f"{region}, a másik túl messze van a felhasználóktól.")

    if mode == 1:
        early.append(
            lambda: w.user(f"Még valami: a DR replika menjen a {old_region} régióba, ha odaérünk.")
        )
    probes.append(
        _probe(
            "decision",
            (
                "Which AWS region did the user set for the DR replica?",
                f"Which region replaced {old_region} for the DR replica?",
                "Which DR replica region did the user approve?",
                "Which region did the user want for the DR replica instead of the "
                "agent's proposal?",
                "Which DR replica region did the security colleague require?",
                "Which region did the user pick for the DR replica when asked?",
            )[mode],
            f"{region} (not {old_region})",
            (region,),
            ("region", "régió", "replica", "replik", "dr ", "disaster", "tartalék", "failover"),
        )
    )

    nxt = rng.randrange(3)
    day = rng.choice(_HU_DAYS)
    at = _clock(rng)
    bucket = f"dk-archive-{token(rng, 4, _LOW)}"
    svc = f"svc-validator-{token(rng, 4, _LOW)}"

    def next_step() -> None:
        if nxt == 0:
            w.user(
                _pick(
                    rng,
                    (
                        "Fontos: a prod apply-nak {d} {t}-ig le kell futnia, utána "
                        "változtatási tilalom van.",
                        "Ne felejtsük: prod apply legkésőbb {d} {t}, mert utána freeze.",
                        "A prod élesítést {d} {t} előtt meg kell csinálni, különben a "
                        "freeze miatt két hetet csúszunk.",
                    ),
                    d=day,
                    t=at,
                )
            )
            w.say(f"Felírtam: prod apply {day} {at} előtt.")
        elif nxt == 1:
            w.user(
                f"Ha a CAB jóváhagyja a változást, importáld a meglévő {bucket} bucketet "
                "a state-be. Addig ne nyúlj hozzá."
            )
            w.say(
                _pick(
                    rng,
                    (
                        "Rendben: a {k} importja a CAB jóváhagyására vár.",
                        "Értem, a {k} bucket state-be importálása csak a CAB után jön.",
                        "Jegyzem: CAB oké után terraform import a {k} bucketre.",
                    ),
                    k=bucket,
                )
            )
        else:
            w.say(
                _pick(
                    rng,
                    (
                        "A {k} IAM user access key-ét a deploy után rotálom, azt én vállalom.",
                        "Vállalom: a deploy után lecserélem a {k} user kulcsát (rotáció).",
                        "Amint lement a deploy, rotálom a {k} kulcsát, nem felejtem el.",
                    ),
                    k=svc,
                )
            )
            w.user("Köszi, az jó lesz.")

    if nxt == 0:
        step: tuple[str, tuple[str, ...]] = (
            at,
            ("apply", "prod", "éles", "freeze", "deadline", "határid"),
        )
        q, a = "What has to happen before the freeze?", f"The prod apply, by {day} {at}."
    elif nxt == 1:
        step = (bucket, ("import", "state", "állapot"))
        q = "What is pending once the CAB approves?"
        a = f"Import the existing bucket {bucket} into the Terraform state."
    else:
        step = (svc, ("rotat", "rotál", "kulcs", "key", "cserél"))
        q = "What did the agent promise to do after the deploy?"
        a = f"Rotate the access key of the IAM user {svc}."
    probes.append(_probe("next_step", q, a, (step[0],), step[1]))

    def plan_noise() -> None:
        picked = rng.sample(_HU_DECOY_RESOURCES, 6)
        w.sh(
            "Futtatok egy plan-t, hogy lássam, van-e drift.",
            "cd envs/staging && terraform plan -no-color -lock=false",
            _tf_refresh(rng, picked)
            + "\n\nTerraform used the selected providers to generate the following "
            "execution\nplan. Resource actions are indicated with the following symbols:\n"
            "  ~ update in-place\n\nTerraform will perform the following actions:\n\n"
            f"  # {picked[0]} will be updated in-place\n"
            f'  ~ resource "{picked[0].split(".")[0]}" "{picked[0].split(".")[1]}" {{\n'
            f'        id   = "{hexits(rng, 10)}"\n'
            '      ~ tags = {\n          + "CostCenter" = "tap-2024"\n        }\n'
            "        # (9 unchanged attributes hidden)\n    }\n\n"
            "Plan: 0 to add, 1 to change, 0 to destroy.",
        )
        w.say("A staging-en csak egy tag drift van, az ártalmatlan.")

    def read_noise() -> None:
        w.sh(
            "Megnézem a változókat, mielőtt bármit írok.",
            "cat modules/validator/variables.tf",
            'variable "environment" {\n  type = string\n}\n\n'
            'variable "tap_api_desired_count" {\n  type    = number\n'
            f"  default = {rng.randint(2, 6)}\n}}\n\n"
            'variable "alarm_email" {\n  type    = string\n'
            '  default = "ops@dunapart.example"\n}\n\n'
            'variable "card_blacklist_ttl_days" {\n  type    = number\n'
            f"  default = {rng.randint(7, 60)}\n}}",
        )

    def logs_noise() -> None:
        w.sh(
            "Belenézek a tap API logjába is.",
            "aws logs tail /ecs/tap-api --since 30m --format short",
            noise_lines(
                rng,
                rng.randint(6, 10),
                lambda r: (
                    f"{_stamp(r)} POST /v1/taps {r.choice((200, 200, 200, 202, 409))} "
                    f"{r.randint(4, 90)}ms card={token(r, 4)}…{token(r, 2, string.digits)}"
                ),
            ),
        )
        w.say("A logban nincs semmi rendkívüli, néhány 409-es duplikált érintés.")

    def lint_noise() -> None:
        w.sh(
            "tflint a validator modulra:",
            "tflint --chdir=modules/validator",
            "2 issue(s) found:\n\n"
            "Warning: `tap_api_desired_count` variable has no description "
            "(terraform_documented_variables)\n\n  on variables.tf line 5:\n"
            '   5: variable "tap_api_desired_count" {\n\n'
            'Warning: Missing version constraint for provider "random" in '
            '"required_providers" (terraform_required_providers)\n\n'
            "  on ecs.tf line 1:",
        )

    middle: list[_Block] = [
        role_block,
        lock_block,
        ticket_block,
        decision,
        next_step,
        *(art_block(a) for a in rng.sample(arts, 2)),
        *rng.sample((plan_noise, read_noise, logs_noise, lint_noise), rng.randint(3, 4)),
    ]
    _opening(rng, (intro, *early), middle)
    w.say(
        _pick(
            rng,
            (
                "Ennyi volt a mai kör; ha van még valami a validátorral, szólj.",
                "Készen vagyok a kért lépésekkel. Jöhet a következő téma.",
                "Ezzel a mostani feladatok megvannak.",
            ),
        )
    )
    opening = b.take()

    def fill(r: random.Random) -> None:
        v = r.randrange(4)
        if v == 0:
            w.user("Formázd meg a network és a cdn modult.")
            files = r.sample(
                (
                    "modules/network/main.tf",
                    "modules/network/outputs.tf",
                    "modules/cdn/main.tf",
                    "modules/cdn/origin.tf",
                    "envs/staging/backend.tf",
                ),
                r.randint(1, 3),
            )
            w.sh(
                "terraform fmt:",
                "terraform fmt -recursive modules/network modules/cdn",
                "\n".join(files),
            )
            w.say(f"Megformáztam, {len(files)} fájl változott.")
        elif v == 1:
            w.user("Mennyibe kerül havonta a staging hálózat?")
            rows = noise_lines(
                r,
                4,
                lambda q: (
                    f" {q.choice(('aws_nat_gateway.az', 'aws_eip.nat', 'aws_vpc_endpoint.s3'))}"
                    f"[{q.randint(0, 2)}]      ${q.randint(3, 90)}.{q.randint(10, 99)}"
                ),
            )
            w.sh(
                "infracost:",
                "infracost breakdown --path envs/staging --format table",
                f" Name                          Monthly Cost\n{rows}\n\n OVERALL TOTAL   "
                f"${r.randint(120, 400)}.{r.randint(10, 99)}",
            )
            w.say("A NAT gateway a legdrágább tétel, a többi elhanyagolható.")
        elif v == 2:
            w.user("Milyen security group szabályok vannak a CDN originen?")
            sg = f"sg-0{hexits(r, 16)}"
            w.tool(
                "Lekérdezem.",
                "aws_cli",
                {
                    "command": f"aws ec2 describe-security-group-rules --filters "
                    f"Name=group-id,Values={sg}"
                },
                f'{{"SecurityGroupRules": [{{"GroupId": "{sg}", "IpProtocol": "tcp", '
                f'"FromPort": 443, "ToPort": 443, "CidrIpv4": "0.0.0.0/0"}}, '
                f'{{"GroupId": "{sg}", "IpProtocol": "-1", "IsEgress": true}}]}}',
            )
            w.say("Csak 443 befelé, kifelé minden nyitva; ez rendben van.")
        else:
            w.user("Van drift a network modulban?")
            w.sh(
                "plan a network modulra:",
                "terraform plan -no-color -target=module.network",
                _tf_refresh(
                    r,
                    (
                        "module.network.aws_vpc.main",
                        "module.network.aws_subnet.a",
                        "module.network.aws_subnet.b",
                    ),
                )
                + "\n\nNo changes. Your infrastructure matches the configuration.",
            )
            w.say("Nincs drift, a hálózat egyezik a kóddal.")

    return opening, segments_of(rng, b, segments, fill), probes


# ---------------------------------------------------------------------------------------
# merdvakt_phoenix: Norwegian, Elixir/Phoenix on Fly.io
# ---------------------------------------------------------------------------------------

_NO_OK = (
    "Greit, det er gjort. Går videre.",
    "Ok, ferdig med den biten.",
    "Det gikk gjennom. Neste.",
)
_NO_DAYS = ("mandag", "tirsdag", "onsdag", "torsdag", "fredag")


def _merdvakt(rng: random.Random, b: Builder, segments: int) -> Parts:
    w = _W(b)
    sha, old_sha = hexits(rng, 12), hexits(rng, 12)
    minor, patch = rng.randint(3, 19), rng.randint(0, 9)
    version, previous = f"2.{minor}.{patch}", f"2.{minor - 1}.{rng.randint(0, 9)}"
    pen = f"M{rng.randint(2, 14)}"
    kg = f"{rng.randint(1200, 4800)} kg"
    probes: list[Probe] = []

    def intro() -> None:
        w.user(
            _pick(
                rng,
                (
                    "Hei! Vi skal jobbe med Merdvakt i dag (Phoenix-appen for fôring og "
                    "lusetelling på anlegget). Start med å se på repoet.",
                    "Morn. Merdvakt trenger litt kjærlighet: fôringsrapporten er feil og "
                    "det er noe gammel kode som skal ut. Ta en titt på repoet først.",
                    "Hei, kan du hjelpe meg med Merdvakt-appen (Elixir/Phoenix, kjører på "
                    "Fly)? Begynn med å sjekke tilstanden i repoet.",
                ),
            )
        )
        w.sh(
            "Sjekker git og versjonene.",
            "git status && elixir --version | tail -1",
            "On branch main\nYour branch is up to date with 'origin/main'.\n\n"
            "nothing to commit, working tree clean\n"
            "Elixir 1.16.2 (compiled with Erlang/OTP 26)",
        )
        w.sh(
            "Og strukturen under lib/:",
            "ls lib/merdvakt lib/merdvakt/sensors lib/merdvakt_web/live",
            "lib/merdvakt:\naccounts.ex\nfeeding.ex\nfeeding\nlice.ex\nrepo.ex\nsensors\n\n"
            "lib/merdvakt/sensors:\naquasense_client.ex\nlegacy_poller.ex\npoller.ex\n\n"
            "lib/merdvakt_web/live:\ndashboard_live.ex\nfeeding_live.ex\nlice_live.ex\n"
            "pen_live",
        )
        w.say(
            _pick(
                rng,
                (
                    "Rent arbeidstre, Elixir 1.16. Det ligger en gammel poller ved siden "
                    "av den nye. Hva tar vi først?",
                    "Repoet er rent. Jeg ser både poller.ex og legacy_poller.ex. Si fra "
                    "hvor du vil begynne.",
                    "Alt er committet. Klar.",
                ),
            )
        )

    def sha_block() -> None:
        v = rng.randrange(3)
        if v == 0:
            w.sh(
                "Hvilken commit kjører prod? Jeg spør health-endepunktet.",
                "curl -s https://merdvakt.fly.dev/healthz | jq .",
                f'{{\n  "status": "ok",\n  "commit": "{sha}",\n  "node": '
                f'"merdvakt@{hexits(rng, 8)}",\n  "uptime_s": {rng.randint(4000, 90000)}\n}}',
            )
            w.say(f"Prod kjører commit {sha}.")
        elif v == 1:
            w.user(
                f"Til info: prod kjører commit {sha}; {old_sha} var den som ble rullet "
                "tilbake forrige uke."
            )
            w.say(f"Notert: {sha} i prod, ikke {old_sha}.")
        else:
            w.sh(
                "Ser på de siste commitene og hva Fly har deployet.",
                "git log --format='%h %s' --abbrev=12 -4 && fly releases -a merdvakt | head -3",
                f"{sha} feeding: sum per pen and day\n{old_sha} lice: round counts\n"
                f"{hexits(rng, 12)} deps: bump phoenix_live_view\n"
                f"{hexits(rng, 12)} sensors: add aquasense client\n"
                "VERSION\tSTATUS  \tDESCRIPTION\tUSER              \tDATE\n"
                f"v{rng.randint(80, 140)}   \tcomplete\tRelease    \tingrid@sjoklar.no\t"
                f"{rng.randint(2, 9)}h ago",
            )
            w.say(f"Siste release er bygget fra {sha}, altså HEAD på main.")
        probes.append(_ident("Which commit is Merdvakt production running?", sha))

    def version_block() -> None:
        v = rng.randrange(3)
        if v == 0:
            w.sh(
                "Sjekker versjonen i mix.exs.",
                "grep -n 'version:' mix.exs",
                f'7:      version: "{version}",',
            )
            w.say(f"Appen står på {version}.")
        elif v == 1:
            w.sh(
                "Lister taggene.",
                "git tag --sort=-v:refname | head -3",
                f"v{version}\nv{previous}\nv2.{max(minor - 2, 1)}.{rng.randint(0, 9)}",
            )
            w.say(f"Siste tag er v{version}; v{previous} er den før.")
        else:
            w.user(
                f"Versjonen vi har ute nå er {version}. Ikke bland den med {previous}, "
                "som fortsatt står i changelogen."
            )
        probes.append(_ident("What is the current release version of Merdvakt?", version))

    def kg_block() -> None:
        v = rng.randrange(3)
        if v == 0:
            w.user(
                f"Merd {pen} fikk {kg} fôr i går ifølge fôringsloggen, men dashboardet "
                "viser 0. Det er hovedbuggen."
            )
            w.say(f"Skjønner: {pen}, {kg} i loggen, 0 i dashboardet.")
        elif v == 1:
            w.sh(
                "Ser i loggene etter fôringsrapporten.",
                "fly logs -a merdvakt --no-tail | grep FeedReport | tail -4",
                f"{_stamp(rng)} app[{hexits(rng, 14)}] arn [info] FeedReport: "
                f"M{rng.randint(15, 20)} total 0 kg (0 events)\n"
                f"{_stamp(rng)} app[{hexits(rng, 14)}] arn [info] FeedReport: {pen} total "
                f"{kg} ({rng.randint(9, 30)} events)\n"
                f"{_stamp(rng)} app[{hexits(rng, 14)}] arn [warning] FeedReport: "
                f"dashboard total for {pen} is 0",
            )
            w.say(f"Loggen sier {kg} for {pen}, men dashboardet får 0.")
        else:
            w.sh(
                "Teller i databasen.",
                'fly postgres connect -a merdvakt-db -d merdvakt <<< "select pen, '
                "sum(amount_kg) || ' kg' as total from feed_events where day = "
                'current_date - 1 group by pen order by pen;"',
                f" pen | total\n-----+---------\n {pen} | {kg}\n"
                f" M{rng.randint(15, 20)} | {rng.randint(100, 900)} kg\n(2 rows)",
            )
            w.say(f"Databasen har {kg} for {pen} i går.")
        probes.append(
            _ident(f"How much feed did pen {pen} get yesterday according to the data?", kg)
        )

    def lice_shown(w: _W) -> None:
        w.user("Lusetellingen skal vise to desimaler, ikke avrundet til heltall.")
        w.sh(
            "Har endret formateringen, sjekker status.",
            "git add -A && git status",
            _git_status("modified:   lib/merdvakt_web/live/lice_live.ex"),
        )

    def lice_quiet(w: _W) -> None:
        w.user("Lusetellingen skal vise to desimaler, ikke avrundet til heltall.")
        w.sh(
            "Diffstat:",
            "git diff --stat",
            " lib/merdvakt_web/live/lice_live.ex | 12 ++++++++----\n"
            " 1 file changed, 8 insertions(+), 4 deletions(-)",
        )

    def mig_shown(w: _W) -> None:
        w.user("Vi trenger en egen tabell for fôringshendelser.")
        w.sh(
            "Genererer en migrasjon.",
            "mix ecto.gen.migration add_feed_events",
            f"* creating priv/repo/migrations/2024031{rng.randint(0, 9)}0{rng.randint(1, 9)}"
            f"4511_add_feed_events.exs",
        )

    def mig_quiet(w: _W) -> None:
        w.user("Vi trenger en egen tabell for fôringshendelser.")
        w.sh(
            "Kjører migrasjonene lokalt.",
            "mix ecto.migrate",
            "08:45:11.402 [info] == Running 20240312084511 "
            "Merdvakt.Repo.Migrations.AddFeedEvents.change/0 forward\n"
            "08:45:11.405 [info] create table feed_events\n"
            "08:45:11.409 [info] create index feed_events_pen_id_day_index\n"
            "08:45:11.411 [info] == Migrated 20240312084511 in 0.0s",
        )

    def test_shown(w: _W) -> None:
        w.sh(
            "Kjører fôringstestene.",
            "mix test test/merdvakt/feeding_test.exs",
            "..\n\n  1) test daily_total/2 sums events per pen (Merdvakt.FeedingTest)\n"
            "     test/merdvakt/feeding_test.exs:42\n     Assertion with == failed\n"
            "     code:  assert Feeding.daily_total(pen, ~D[2024-03-11]) == "
            'Decimal.new("812.5")\n     left:  Decimal.new("0")\n'
            '     right: Decimal.new("812.5")\n     stacktrace:\n'
            "       test/merdvakt/feeding_test.exs:49: (test)\n\n"
            "  2) test daily_total/2 ignores deleted events (Merdvakt.FeedingTest)\n"
            "     test/merdvakt/feeding_test.exs:55\n     Assertion with == failed\n\n"
            "Finished in 0.3 seconds (0.00s async, 0.3s sync)\n14 tests, 2 failures",
        )

    def test_quiet(w: _W) -> None:
        w.sh(
            "Kjører fôringstestene (til fil).",
            "mix test test/merdvakt/feeding_test.exs > /tmp/test.log 2>&1; echo exit=$?",
            "exit=2",
        )

    def poller_shown(w: _W) -> None:
        w.user("Den gamle Modbus-polleren brukes ikke lenger. Den kan ut.")
        w.sh(
            "git rm og status:",
            "git rm -q lib/merdvakt/sensors/legacy_poller.ex && git status",
            _git_status("deleted:    lib/merdvakt/sensors/legacy_poller.ex"),
        )

    def poller_quiet(w: _W) -> None:
        w.user("Den gamle Modbus-polleren brukes ikke lenger. Den kan ut.")
        w.sh(
            "Tar den ut.",
            "git rm -q lib/merdvakt/sensors/legacy_poller.ex && mix compile 2>&1 | tail -1",
            "Generated merdvakt app",
        )

    arts = [
        _Art(
            ("lice_live.ex",),
            ("modif", "chang", "updat", "edit", "endr", "oppdater", "justert"),
            "What happened to lib/merdvakt_web/live/lice_live.ex?",
            "It was modified (lice counts shown with two decimals).",
            lice_shown,
            lice_quiet,
            (
                "Jeg har endret {n}: tellingene vises nå med to desimaler.",
                "{n} er oppdatert, avrundingen er fjernet.",
                "Endringen i {n} er på plass; den formaterer med :erlang.float_to_binary.",
            ),
            _NO_OK,
        ),
        _Art(
            ("add_feed_events",),
            (
                "creat",
                "generat",
                "added",
                "new",
                "opprett",
                "laget",
                "lagd",
                "ny ",
                "la til",
                "lagt til",
            ),
            "What happened to the add_feed_events migration?",
            "It was created (new Ecto migration for the feed_events table).",
            mig_shown,
            mig_quiet,
            (
                "Migrasjonen {n} er opprettet og kjørt lokalt.",
                "Ny migrasjon: {n}, laget med mix ecto.gen.migration.",
                "Jeg la til {n}-migrasjonen; tabellen feed_events finnes nå.",
            ),
            _NO_OK,
        ),
        _Art(
            ("feeding_test.exs",),
            ("fail", "red", "broken", "feil", "rød", "knekk", "brekk"),
            "What is the state of test/merdvakt/feeding_test.exs?",
            "Its tests fail (2 of 14; daily_total returns 0).",
            test_shown,
            test_quiet,
            (
                "{n} feiler: to tester er røde, daily_total gir 0.",
                "Testene i {n} knekker (2 feil) etter endringen.",
                "{n}: 2 av 14 tester feiler fortsatt, jeg ser på det.",
            ),
            _NO_OK,
            ("words", "both"),
        ),
        _Art(
            ("legacy_poller.ex",),
            ("delet", "remov", "slett", "fjern"),
            "What happened to lib/merdvakt/sensors/legacy_poller.ex?",
            "It was deleted (git rm).",
            poller_shown,
            poller_quiet,
            (
                "{n} er slettet; ingen moduler refererte til den lenger.",
                "Jeg fjernet {n} helt, og alt kompilerer.",
                "Slettet: {n} (den gamle Modbus-polleren).",
            ),
            _NO_OK,
        ),
    ]

    def art_block(art: _Art) -> _Block:
        return lambda: probes.append(art.plant(w))

    lib, old_lib = rng.sample(("Finch", "HTTPoison", "Tesla"), 2)
    mode = rng.randrange(6)
    flows: list[Sequence[_Step]] = [
        [
            (
                "u",
                (
                    "For AquaSense-klienten bruker vi {v} som HTTP-klient. Punktum.",
                    "Bestemt: HTTP-klienten for sensor-API-et blir {v}.",
                    "Bruk {v} til sensorkallene, ikke noe annet bibliotek.",
                ),
            ),
            ("a", ("Greit, {v} som HTTP-klient.", "Notert: {v} for AquaSense.")),
        ],
        [
            (
                "u",
                (
                    "Endring: glem det jeg sa om {o}, HTTP-klienten skal være {v}.",
                    "Jeg ombestemmer meg: vi bruker {v} som HTTP-klient, ikke {o}.",
                ),
            ),
            ("a", ("Ok, jeg bytter til {v}.", "Skjønner, {v} i stedet for {o}.")),
        ],
        [
            (
                "a",
                (
                    "Jeg foreslår {v} som HTTP-klient for AquaSense: den har connection "
                    "pooling og er allerede en avhengighet. Ok?",
                    "Forslag: vi bruker {v} som HTTP-bibliotek for sensor-API-et. Greit?",
                ),
            ),
            ("u", ("Ja.", "Kjør på.", "Ok, gjør det.")),
        ],
        [
            ("a", ("Jeg tenkte å bruke {o} som HTTP-klient. Passer det?",)),
            (
                "u",
                (
                    "Nei, ta {v} som HTTP-klient i stedet, {o} vil vi bort fra.",
                    "Helst ikke {o}. Bruk {v} som klient.",
                ),
            ),
        ],
        [
            (
                "u",
                (
                    "Ole på plattformteamet sier at vi skal bruke {v} som HTTP-klient, "
                    "{o} er ikke godkjent hos oss.",
                    "Beskjed fra Ole: HTTP-klienten skal være {v}, ikke {o}.",
                ),
            ),
            ("a", ("Takk, da blir det {v}.",)),
        ],
        [
            ("a", ("Hvilken HTTP-klient vil du ha for AquaSense: {o} eller {v}?",)),
            ("u", ("{v}.", "{v}, helt klart.")),
        ],
    ]
    early: list[_Block] = []
    if mode == 1:
        early.append(lambda: w.user(f"Sensor-API-et kaller vi med {old_lib}, bare så du vet."))
    probes.append(
        _probe(
            "decision",
            (
                "Which HTTP client did the user set for the AquaSense sensor API?",
                f"Which HTTP client replaced {old_lib} after the user changed their mind?",
                "Which HTTP client proposal did the user approve?",
                "Which HTTP client did the user want instead of the agent's proposal?",
                "Which HTTP client did the platform colleague require?",
                "Which HTTP client did the user choose when asked?",
            )[mode],
            f"{lib} (not {old_lib})",
            (lib,),
            ("client", "klient", "http", "bibliotek", "library"),
        )
    )

    nxt = rng.randrange(3)
    at = _clock(rng)
    day = rng.choice(_NO_DAYS)
    case = f"AQS-{rng.randint(10000, 99999)}"
    branch = f"fix/lice-{rng.randint(100, 999)}"

    def next_step() -> None:
        if nxt == 0:
            w.user(
                _pick(
                    rng,
                    (
                        "Migrasjonen må kjøres i prod før fôringsrunden {d} kl. {t}.",
                        "Husk: prod-migreringen senest {d} kl. {t}, ellers krasjer fôringsrunden.",
                        "Frist for å migrere prod: {d} {t}.",
                    ),
                    d=day,
                    t=at,
                )
            )
            w.say(f"Notert: migrering i prod før {day} kl. {at}.")
        elif nxt == 1:
            w.user(
                _pick(
                    rng,
                    (
                        "Hvis AquaSense bekrefter API v2 i sak {c}, bytt polleren til det "
                        "nye endepunktet. Ikke før.",
                        "Vi venter på svar i {c}. Når AquaSense bekrefter, skal vi bytte "
                        "til v2-endepunktet.",
                    ),
                    c=case,
                )
            )
            w.say(f"Ok, byttet til v2-endepunktet venter på bekreftelse i {case}.")
        else:
            w.say(
                _pick(
                    rng,
                    (
                        "Jeg lager en PR fra grenen {k} og ber Ingrid om review når testene "
                        "er grønne.",
                        "Jeg tar ansvar for PR-en: grenen {k} pushes og Ingrid tagges for review.",
                        "Neste fra meg: push {k} og åpne pull request til Ingrid.",
                    ),
                    k=branch,
                )
            )
            w.user("Topp.")

    if nxt == 0:
        step: tuple[str, tuple[str, ...]] = (at, ("migr", "prod", "ecto"))
        q, a = "What must happen before the feeding round?", f"Migrate prod, by {day} {at}."
    elif nxt == 1:
        step = (case, ("confirm", "bekreft", "bytt", "switch", "endepunkt", "endpoint", "v2"))
        q = "What is waiting on the AquaSense case?"
        a = f"Switch the poller to the v2 endpoint once AquaSense confirms in {case}."
    else:
        step = (branch, ("pr", "pull request", "review", "push"))
        q = "What did the agent say it would do next?"
        a = f"Push the branch {branch} and open a PR for Ingrid to review."
    probes.append(_probe("next_step", q, a, (step[0],), step[1]))

    def decision() -> None:
        _talk(w, flows[mode], v=lib, o=old_lib)

    def read_noise() -> None:
        w.sh(
            "Leser runtime-konfigurasjonen først.",
            "sed -n '1,30p' config/runtime.exs",
            "import Config\n\nif config_env() == :prod do\n"
            '  database_url =\n    System.get_env("DATABASE_URL") ||\n'
            '      raise "environment variable DATABASE_URL is missing."\n\n'
            "  config :merdvakt, Merdvakt.Repo,\n    url: database_url,\n"
            f'    pool_size: String.to_integer(System.get_env("POOL_SIZE") || '
            f'"{rng.randint(5, 20)}"),\n    socket_options: [:inet6]\n\n'
            '  config :merdvakt, :aquasense, base_url: "https://api.aquasense.example/v1"\n'
            "end",
        )

    def credo_noise() -> None:
        w.sh(
            "mix credo for å se om det er noe åpenbart:",
            "mix credo --strict | tail -12",
            "┃ Refactoring opportunities\n┃\n"
            "┃ [F] → Function is too complex (cyclomatic complexity is 11, max is 9).\n"
            "┃       lib/merdvakt/feeding.ex:88:7 #(Merdvakt.Feeding.daily_summary)\n"
            "┃ [F] → Nested modules could be aliased at the top of the invoking module.\n"
            "┃       lib/merdvakt_web/live/dashboard_live.ex:31:11\n\n"
            f"Analysis took 0.9 seconds (0.05s to load, 0.8s running {rng.randint(40, 90)} "
            "checks on 57 files)\n"
            f"{rng.randint(300, 400)} mods/funs, found 2 refactoring opportunities.",
        )
        w.say("To refaktoreringshint, ikke noe kritisk.")

    def status_noise() -> None:
        w.sh(
            "Ser på maskinene på Fly.",
            "fly status -a merdvakt",
            "App\n  Name     = merdvakt\n  Owner    = sjoklar\n  Hostname = merdvakt.fly.dev\n"
            "  Platform = machines\n\nMachines\nPROCESS\tID            \tVERSION\tREGION\t"
            "STATE  \tCHECKS            \tLAST UPDATED\n"
            + noise_lines(
                rng,
                2,
                lambda r: (
                    f"app    \t{hexits(r, 14)}\t{r.randint(80, 140)}    \tarn   \t"
                    "started\t1 total, 1 passing\t2024-03-1{r.randint(0, 9)}T0{r.randint(0, 9)}:12Z"
                ),
            ),
        )

    def tail_noise() -> None:
        w.sh(
            "Følger loggene et øyeblikk.",
            "fly logs -a merdvakt --no-tail | tail -6",
            noise_lines(
                rng,
                6,
                lambda r: (
                    f"{_stamp(r)} app[{hexits(r, 14)}] arn [info] "
                    + r.choice(
                        (
                            f"GET /pens/{r.randint(1, 14)} - Sent 200 in {r.randint(3, 60)}ms",
                            f"Oban job completed worker=Merdvakt.Workers.LiceSync "
                            f"duration={r.randint(100, 900)}ms",
                            "CONNECTED TO Phoenix.LiveView.Socket in 41µs",
                        )
                    )
                ),
            ),
        )
        w.say("Ingenting uvanlig i loggene.")

    middle: list[_Block] = [
        sha_block,
        version_block,
        kg_block,
        decision,
        next_step,
        *(art_block(a) for a in rng.sample(arts, 2)),
        *rng.sample((read_noise, credo_noise, status_noise, tail_noise), rng.randint(3, 4)),
    ]
    _opening(rng, (intro, *early), middle)
    w.say(
        _pick(
            rng,
            (
                "Det var det jeg hadde for nå. Si fra hva du vil se på videre.",
                "Ferdig med denne runden.",
                "Da er vi der. Noe mer i Merdvakt?",
            ),
        )
    )
    opening = b.take()

    def fill(r: random.Random) -> None:
        v = r.randrange(4)
        if v == 0:
            w.user("Kjør mix format på hele prosjektet.")
            files = r.sample(
                (
                    "lib/merdvakt/accounts.ex",
                    "lib/merdvakt/weather.ex",
                    "lib/merdvakt_web/components/core_components.ex",
                    "lib/merdvakt_web/router.ex",
                    "test/support/fixtures.ex",
                ),
                r.randint(1, 3),
            )
            w.sh(
                "mix format:",
                "mix format --check-formatted || mix format",
                "** (Mix) mix format failed due to --check-formatted.\n"
                "The following files are not formatted:\n\n" + "\n".join(files),
            )
            w.say(f"Formatert; {len(files)} filer var ikke formatert.")
        elif v == 1:
            w.user("Hvor mange merder og lokaliteter har vi i databasen?")
            w.sh(
                "Spør databasen.",
                "mix run -e 'IO.inspect(Merdvakt.Stats.counts())'",
                f"%{{pens: {r.randint(20, 60)}, sites: {r.randint(3, 9)}, "
                f"users: {r.randint(10, 40)}}}",
            )
            w.say("Tallene står over; ingen overraskelser.")
        elif v == 2:
            w.user("Går værtjenesten fortsatt tregt?")
            w.sh(
                "Ser på telemetrien.",
                "fly logs -a merdvakt --no-tail | grep WeatherClient | tail -3",
                noise_lines(
                    r,
                    3,
                    lambda q: (
                        f"{_stamp(q)} [info] WeatherClient fetched "
                        f"forecast site={q.randint(1, 9)} in {q.randint(80, 900)}ms"
                    ),
                ),
            )
            w.say("Svartidene er innenfor det normale nå.")
        else:
            w.user("Kjør testene for kontoer.")
            w.sh(
                "mix test:",
                "mix test test/merdvakt/accounts_test.exs",
                "." * r.randint(8, 20) + f"\nFinished in 0.{r.randint(1, 9)} seconds\n"
                f"{r.randint(8, 20)} tests, 0 failures",
            )
            w.say("Alle kontotestene er grønne.")

    return opening, segments_of(rng, b, segments, fill), probes


# ---------------------------------------------------------------------------------------
# farsh_grpc: Persian, a Go gRPC microservice on Kubernetes
# ---------------------------------------------------------------------------------------

_FA_OK = (
    "خب، این انجام شد. می‌روم سراغ بعدی.",
    "این مرحله تمام شد.",
    "اوکی، ادامه می‌دهم.",
)


def _farsh(rng: random.Random, b: Builder, segments: int) -> Parts:
    w = _W(b)
    rid, other_rid = (f"req_{token(rng, 14, _LOW)}" for _ in range(2))
    proto_v = f"v0.{rng.randint(10, 40)}.{rng.randint(0, 9)}"
    proto_old = f"v0.{rng.randint(1, 9)}.{rng.randint(0, 9)}"
    sku, other_sku = (f"TBZ-{n}" for n in rng.sample(range(10000, 99999), 2))
    probes: list[Probe] = []

    def intro() -> None:
        w.user(
            _pick(
                rng,
                (
                    "سلام! امروز روی سرویس قیمت‌گذاری فرشینه کار می‌کنیم (pricing-svc، Go "
                    "با gRPC، روی کوبرنتیز). اول یک نگاه به ریپو بینداز.",
                    "سلام، سرویس pricing-svc چند تا مشکل دارد؛ قیمت بعضی فرش‌ها اشتباه "
                    "درمی‌آید. اول وضعیت ریپو را ببین.",
                    "صبح بخیر. می‌خواهم با هم pricing-svc را مرتب کنیم. از git status شروع کن.",
                ),
            )
        )
        w.sh(
            "وضعیت ریپو و نسخهٔ Go را می‌بینم.",
            "git status && go version",
            "On branch main\nYour branch is up to date with 'origin/main'.\n\n"
            "nothing to commit, working tree clean\ngo version go1.22.1 linux/amd64",
        )
        w.sh(
            "ساختار پوشه‌ها:",
            "tree -L 2 cmd internal proto | head -20",
            "cmd\n└── pricing-svc\n    ├── grpc.go\n    ├── legacy_rest.go\n    └── main.go\n"
            "internal\n├── inventory\n│   └── client.go\n├── pricing\n│   ├── discount.go\n"
            "│   ├── discount_test.go\n│   ├── rates.go\n│   └── quote.go\n└── storage\n"
            "    └── pg.go\nproto\n└── pricing\n    └── v1",
        )
        w.say(
            _pick(
                rng,
                (
                    "ریپو تمیز است، Go 1.22. هنوز یک legacy_rest.go کنار سرور gRPC هست. "
                    "از کجا شروع کنیم؟",
                    "همه چیز commit شده. بگو اول سراغ کدام مشکل برویم.",
                    "ساختار را دیدم؛ آماده‌ام.",
                ),
            )
        )

    def rid_block() -> None:
        v = rng.randrange(3)
        if v == 0:
            w.user(
                f"مشتری با request id {rid} خطای DEADLINE_EXCEEDED گرفته. {other_rid} "
                "مال دیروز است و حل شده، آن را نگاه نکن."
            )
            w.say(f"باشه، روی {rid} تمرکز می‌کنم.")
        elif v == 1:
            w.sh(
                "خطاهای اخیر را از لاگ‌ها درمی‌آورم.",
                'kubectl logs deploy/pricing-svc -n pricing --since=15m | grep \'"level":"error"\'',
                f'{{"level":"error","ts":"{_stamp(rng)}","msg":"quote failed",'
                f'"request_id":"{rid}","grpc_code":"DeadlineExceeded",'
                f'"method":"/pricing.v1.PricingService/Quote",'
                f'"elapsed_ms":{rng.randint(900, 3000)}}}\n'
                f'{{"level":"error","ts":"{_stamp(rng)}","msg":"inventory lookup retry",'
                f'"request_id":"{other_rid}","grpc_code":"Unavailable","attempt":2}}',
            )
            w.say(
                f"خطای اصلی DeadlineExceeded در درخواست {rid} است؛ {other_rid} فقط یک "
                "retry موفق بوده."
            )
        else:
            w.sh(
                "خودم یک Quote می‌فرستم تا خطا را بازتولید کنم.",
                'grpcurl -v -d \'{"sku":"TBZ-00000"}\' pricing.internal:443 '
                "pricing.v1.PricingService/Quote",
                "Resolved method descriptor:\nrpc Quote ( .pricing.v1.QuoteRequest ) returns "
                "( .pricing.v1.QuoteResponse );\n\nResponse headers received:\n"
                f"content-type: application/grpc\nx-request-id: {rid}\n\n"
                "Response trailers received:\n(empty)\nSent 1 request and received 0 responses\n"
                "ERROR:\n  Code: DeadlineExceeded\n  Message: context deadline exceeded",
            )
            w.say(f"بازتولید شد: request id {rid}، همان DeadlineExceeded.")
        probes.append(_ident("Which request id hit DeadlineExceeded on Quote?", rid))

    def proto_block() -> None:
        v = rng.randrange(3)
        if v == 0:
            w.sh(
                "ماژول protos را به نسخهٔ جدید می‌برم.",
                f"go get github.com/farshineh/protos@{proto_v} && go mod tidy",
                f"go: downloading github.com/farshineh/protos {proto_v}\n"
                f"go: upgraded github.com/farshineh/protos {proto_old} => {proto_v}",
            )
        elif v == 1:
            w.user(f"protos را به {proto_v} ببر؛ {proto_old} فیلد currency را ندارد.")
            w.sh(
                "باشه.",
                f"go get github.com/farshineh/protos@{proto_v}",
                f"go: upgraded github.com/farshineh/protos {proto_old} => {proto_v}",
            )
        else:
            w.sh(
                "نسخه‌های ماژول‌ها در go.mod:",
                "grep -E 'farshineh|grpc ' go.mod",
                f"\tgithub.com/farshineh/protos {proto_v}\n\tgoogle.golang.org/grpc v1.62.1",
            )
            w.say(f"protos روی {proto_v} است؛ نسخهٔ قدیمی {proto_old} دیگر جایی نیست.")
        probes.append(_ident("Which version of the protos module does pricing-svc use?", proto_v))

    def sku_block() -> None:
        v = rng.randrange(3)
        if v == 0:
            w.user(
                f"قیمت فرش {sku} (تبریز، ۱۲ متری) در اپ صفر نشان داده می‌شود. {other_sku} درست است."
            )
        elif v == 1:
            w.sh(
                "در دیتابیس قیمت‌ها را برای SKUهای مشکوک می‌بینم.",
                'psql "$PRICING_DSN" -c "select sku, base_price_rial, seasonal_pct from '
                f"prices where sku in ('{sku}','{other_sku}');\"",
                f"    sku    | base_price_rial | seasonal_pct\n-----------+-----------------+"
                f"-------------\n {sku} |               0 |         0.15\n"
                f" {other_sku} |       {rng.randint(10, 90)}500000 |         0.10\n(2 rows)",
            )
            w.say(f"قیمت پایهٔ {sku} صفر است؛ {other_sku} مشکلی ندارد.")
        else:
            w.sh(
                "Quote را برای SKU مشکل‌دار صدا می‌زنم.",
                f'grpcurl -d \'{{"sku":"{sku}"}}\' pricing.internal:443 '
                "pricing.v1.PricingService/Quote",
                f'{{\n  "sku": "{sku}",\n  "priceRial": "0",\n  "discountPct": 0.15,\n'
                '  "currency": "IRR"\n}',
            )
            w.say(f"بله، برای {sku} قیمت صفر برمی‌گردد.")
        probes.append(_ident("Which carpet SKU shows a price of zero?", sku))

    def disc_shown(w: _W) -> None:
        w.user("تخفیف فصلی نباید هاردکد باشد؛ از config بخوانش.")
        w.sh(
            "تغییر را دادم؛ وضعیت:",
            "git add -A && git status",
            _git_status("modified:   internal/pricing/discount.go"),
        )

    def disc_quiet(w: _W) -> None:
        w.user("تخفیف فصلی نباید هاردکد باشد؛ از config بخوانش.")
        w.sh(
            "diffstat:",
            "git diff --stat",
            " internal/pricing/discount.go | 14 ++++++++------\n"
            " 1 file changed, 8 insertions(+), 6 deletions(-)",
        )

    def test_shown(w: _W) -> None:
        w.sh(
            "تست‌های pricing را اجرا می‌کنم.",
            "go test ./internal/pricing/...",
            "--- FAIL: TestSeasonalDiscount (0.00s)\n"
            "    discount_test.go:57: got 0.15, want 0.12\n"
            "FAIL\nFAIL\tgithub.com/farshineh/pricing-svc/internal/pricing\t0.014s\nFAIL",
        )

    def test_quiet(w: _W) -> None:
        w.sh(
            "تست‌های pricing را اجرا می‌کنم (خروجی در فایل).",
            "go test ./internal/pricing/... > /tmp/pricing-test.log 2>&1; echo $?",
            "1",
        )

    def rest_shown(w: _W) -> None:
        w.user("سرور REST قدیمی را دیگر کسی صدا نمی‌زند؛ بردارش.")
        w.sh(
            "git rm و وضعیت:",
            "git rm -q cmd/pricing-svc/legacy_rest.go && git status",
            _git_status("deleted:    cmd/pricing-svc/legacy_rest.go"),
        )

    def rest_quiet(w: _W) -> None:
        w.user("سرور REST قدیمی را دیگر کسی صدا نمی‌زند؛ بردارش.")
        w.sh(
            "برداشتم و build می‌گیرم:",
            "git rm -q cmd/pricing-svc/legacy_rest.go && go build ./... && echo build-ok",
            "build-ok",
        )

    def canary_shown(w: _W) -> None:
        w.user("نرخ خطای کاناری بالا رفته. برگردانش.")
        w.sh(
            "rollout undo:",
            "kubectl rollout undo deployment/pricing-canary -n pricing",
            "deployment.apps/pricing-canary rolled back",
        )

    def canary_quiet(w: _W) -> None:
        w.user("نرخ خطای کاناری بالا رفته. برگردانش.")
        w.sh(
            "مانیفست نسخهٔ قبل را اعمال می‌کنم:",
            "kubectl apply -n pricing -f k8s/canary/",
            "service/pricing-canary unchanged\ndeployment.apps/pricing-canary configured",
        )

    arts = [
        _Art(
            ("discount.go",),
            ("modif", "chang", "edit", "updat", "تغییر", "ویرایش", "اصلاح", "به‌روز", "بروز"),
            "What happened to internal/pricing/discount.go?",
            "It was modified (the seasonal discount now comes from config).",
            disc_shown,
            disc_quiet,
            (
                "فایل {n} را تغییر دادم: تخفیف فصلی حالا از config خوانده می‌شود.",
                "{n} ویرایش شد و دیگر عدد هاردکد ندارد.",
                "در {n} اصلاحات لازم را اعمال کردم.",
            ),
            _FA_OK,
        ),
        _Art(
            ("TestSeasonalDiscount",),
            ("fail", "red", "broken", "شکست", "رد ", "قرمز", "خطا"),
            "What is the state of the TestSeasonalDiscount test?",
            "It fails (got 0.15, want 0.12).",
            test_shown,
            test_quiet,
            (
                "تست {n} شکست می‌خورد: ۰٫۱۵ به جای ۰٫۱۲.",
                "{n} هنوز fail است؛ باید درستش کنم.",
                "{n} قرمز است، مقدار تخفیف اشتباه محاسبه می‌شود.",
            ),
            _FA_OK,
        ),
        _Art(
            ("legacy_rest.go",),
            ("delet", "remov", "حذف", "پاک", "برداشت"),
            "What happened to cmd/pricing-svc/legacy_rest.go?",
            "It was deleted.",
            rest_shown,
            rest_quiet,
            (
                "فایل {n} حذف شد.",
                "{n} را پاک کردم؛ دیگر کسی از REST قدیمی استفاده نمی‌کند.",
                "حذف کردم: {n}، و build سالم است.",
            ),
            _FA_OK,
        ),
        _Art(
            ("pricing-canary",),
            ("roll", "revert", "undo", "برگرد", "رول‌بک", "رول بک", "عقب", "previous", "قبلی"),
            "What happened to the pricing-canary deployment?",
            "It was rolled back to the previous version.",
            canary_shown,
            canary_quiet,
            (
                "کاناری {n} را به نسخهٔ قبلی برگرداندم (rollback).",
                "{n} رول‌بک شد؛ نرخ خطا دوباره زیر ۱٪ است.",
                "استقرار {n} را به عقب برگرداندم.",
            ),
            _FA_OK,
        ),
    ]

    def art_block(art: _Art) -> _Block:
        return lambda: probes.append(art.plant(w))

    dl, old_dl = rng.sample(("800ms", "1500ms", "2500ms", "300ms"), 2)
    mode = rng.randrange(6)
    flows: list[Sequence[_Step]] = [
        [
            (
                "u",
                (
                    "deadline تماس inventory را {v} بگذار. بحثی نیست.",
                    "تصمیم گرفتیم: مهلت (deadline) فراخوانی inventory می‌شود {v}.",
                    "timeout تماس gRPC به inventory باید {v} باشد.",
                ),
            ),
            ("a", ("باشه، deadline را {v} می‌گذارم.",)),
        ],
        [
            (
                "u",
                (
                    "اصلاح می‌کنم: deadline inventory را {v} بگذار، نه {o}.",
                    "حرفم را پس می‌گیرم؛ {o} کم است. مهلت inventory بشود {v}.",
                ),
            ),
            ("a", ("فهمیدم، deadline را از {o} به {v} عوض می‌کنم.",)),
        ],
        [
            (
                "a",
                (
                    "پیشنهاد می‌کنم deadline تماس inventory را {v} بگذاریم؛ p99 آن حدود "
                    "نصف این است. موافقی؟",
                    "به نظرم مهلت inventory باید {v} باشد. بگذارم؟",
                ),
            ),
            ("u", ("آره.", "باشه، بگذار.", "موافقم.")),
        ],
        [
            ("a", ("deadline inventory را {o} بگذارم؟",)),
            (
                "u",
                (
                    "نه، deadline را {v} بگذار؛ {o} برای ساعت شلوغ کم است.",
                    "نه. مهلت inventory را {v} کن.",
                ),
            ),
        ],
        [
            (
                "u",
                (
                    "مریم از تیم SRE گفت deadline تماس inventory باید {v} باشد، نه {o}.",
                    "پیام مریم (SRE): timeout inventory را {v} بگذارید.",
                ),
            ),
            ("a", ("ممنون، پس {v}.",)),
        ],
        [
            ("a", ("deadline تماس inventory چقدر باشد: {o} یا {v}؟",)),
            ("u", ("{v}.", "{v} بهتر است.")),
        ],
    ]
    early: list[_Block] = []
    if mode == 1:
        early.append(lambda: w.user(f"deadline تماس inventory را فعلاً {old_dl} بگذار."))
    probes.append(
        _probe(
            "decision",
            (
                "What deadline did the user set for the inventory gRPC call?",
                f"What deadline replaced {old_dl} for the inventory call?",
                "Which inventory deadline proposal did the user approve?",
                "Which inventory deadline did the user want instead of the agent's?",
                "Which inventory deadline did the SRE colleague ask for?",
                "Which inventory deadline did the user pick when asked?",
            )[mode],
            f"{dl} (not {old_dl})",
            (dl,),
            ("deadline", "timeout", "مهلت", "تایم", "inventory", "موجودی"),
        )
    )

    nxt = rng.randrange(3)
    tag = f"v1.{rng.randint(2, 9)}.0"
    at = _clock(rng)
    pct = f"{rng.choice((25, 40, 50, 75))}%"
    field = rng.choice(("min_price_rial", "floor_price", "knot_density"))

    def next_step() -> None:
        if nxt == 0:
            w.user(
                _pick(
                    rng,
                    (
                        "تگ {k} را باید قبل از فریز پنجشنبه ساعت {t} بزنیم.",
                        "یادت باشد: ریلیز {k} تا پنجشنبه {t}، بعدش فریز است.",
                        "مهلت تگ زدن {k}: پنجشنبه ساعت {t}.",
                    ),
                    k=tag,
                    t=at,
                )
            )
            w.say(f"یادداشت کردم: تگ {tag} قبل از پنجشنبه {at}.")
        elif nxt == 1:
            w.user(
                _pick(
                    rng,
                    (
                        "اگر نرخ خطای کاناری یک ساعت زیر ۱٪ ماند، ترافیک را به {k} برسان.",
                        "شرط: یک ساعت خطای کاناری زیر ۱٪، بعد ترافیک کاناری {k}.",
                    ),
                    k=pct,
                )
            )
            w.say(f"باشه؛ بعد از یک ساعت پایدار، ترافیک کاناری را {pct} می‌کنم.")
        else:
            w.say(
                _pick(
                    rng,
                    (
                        "من یک PR در ریپوی protos باز می‌کنم تا فیلد {k} اضافه شود.",
                        "قول می‌دهم فیلد {k} را با یک PR به protos اضافه کنم.",
                        "کار بعدی من: PR برای فیلد {k} در proto.",
                    ),
                    k=field,
                )
            )
            w.user("عالی.")

    if nxt == 0:
        step: tuple[str, tuple[str, ...]] = (
            tag,
            ("tag", "تگ", "release", "ریلیز", "freeze", "فریز"),
        )
        q, a = "What has to happen before Thursday's freeze?", f"Tag {tag}, by Thursday {at}."
    elif nxt == 1:
        step = (pct, ("traffic", "ترافیک", "canary", "کاناری"))
        q = "What happens if the canary error rate stays under 1% for an hour?"
        a = f"Raise the canary traffic to {pct}."
    else:
        step = (field, ("pr", "proto", "فیلد", "field"))
        q = "What did the agent promise to open in the protos repo?"
        a = f"A PR adding the field {field}."
    probes.append(_probe("next_step", q, a, (step[0],), step[1]))

    def decision() -> None:
        _talk(w, flows[mode], v=dl, o=old_dl)

    def read_noise() -> None:
        w.sh(
            "rates.go را می‌خوانم تا ببینم نرخ‌ها از کجا می‌آیند.",
            "sed -n '1,24p' internal/pricing/rates.go",
            'package pricing\n\nimport (\n\t"context"\n\t"time"\n)\n\n'
            "// Rates caches the exchange and region multipliers.\ntype Rates struct {\n"
            "\tstore   Store\n\tttl     time.Duration\n\tfetched time.Time\n}\n\n"
            "func (r *Rates) Multiplier(ctx context.Context, region string) (float64, error) {\n"
            "\tif time.Since(r.fetched) > r.ttl {\n\t\tif err := r.refresh(ctx); err != nil {\n"
            "\t\t\treturn 0, err\n\t\t}\n\t}\n\treturn r.store.Multiplier(ctx, region)\n}",
        )

    def lint_noise() -> None:
        w.sh(
            "buf lint روی protoها:",
            "buf lint proto",
            'proto/pricing/v1/pricing.proto:14:3:Field name "sellerID" should be '
            'lower_snake_case, such as "seller_id".\n'
            'proto/pricing/v1/pricing.proto:31:1:Enum zero value name "RUG_SIZE_SMALL" '
            'should be suffixed with "_UNSPECIFIED".',
        )
        w.say("دو هشدار سبکی در proto؛ فعلاً کاری با آن‌ها ندارم.")

    def pods_noise() -> None:
        w.sh(
            "پادها را می‌بینم.",
            "kubectl get pods -n pricing -o wide | head -5",
            "NAME                              READY   STATUS    RESTARTS   AGE\n"
            + noise_lines(
                rng,
                4,
                lambda r: (
                    f"pricing-svc-{hexits(r, 10)}-{token(r, 5, _LOW)}   1/1     "
                    f"Running   {r.randint(0, 3)}          {r.randint(2, 40)}h"
                ),
            ),
        )

    def vet_noise() -> None:
        w.sh(
            "go vet:",
            "go vet ./...",
            "# github.com/farshineh/pricing-svc/internal/storage\n"
            "internal/storage/pg.go:88:14: fmt.Sprintf format %d has arg id of wrong type string",
        )
        w.say("یک هشدار vet در storage هست که به کار امروز ربطی ندارد.")

    middle: list[_Block] = [
        rid_block,
        proto_block,
        sku_block,
        decision,
        next_step,
        *(art_block(a) for a in rng.sample(arts, 2)),
        *rng.sample((read_noise, lint_noise, pods_noise, vet_noise), rng.randint(3, 4)),
    ]
    _opening(rng, (intro, *early), middle)
    w.say(rng.choice(("فعلاً همین‌ها بود. کار بعدی؟", "این دور تمام شد.", "بقیه را بگو.")))
    opening = b.take()

    def fill(r: random.Random) -> None:
        v = r.randrange(4)
        if v == 0:
            w.user("تست‌های catalog را اجرا کن.")
            w.sh(
                "go test:",
                "go test ./internal/catalog/...",
                f"ok  \tgithub.com/farshineh/pricing-svc/internal/catalog\t0.{r.randint(10, 99)}s",
            )
            w.say("همه سبز است.")
        elif v == 1:
            w.user("مصرف منابع پادها چطور است؟")
            w.sh(
                "kubectl top:",
                "kubectl top pods -n pricing",
                "NAME   CPU(cores)   MEMORY(bytes)\n"
                + noise_lines(
                    r,
                    3,
                    lambda q: (
                        f"pricing-svc-{hexits(q, 6)}   {q.randint(5, 90)}m   {q.randint(40, 200)}Mi"
                    ),
                ),
            )
            w.say("مصرف پایین است.")
        elif v == 2:
            w.user("تغییرات proto شکستن سازگاری ندارد؟")
            w.sh("buf breaking:", "buf breaking proto --against '.git#branch=main'", "(no output)")
            w.say("نه، buf breaking چیزی پیدا نکرد.")
        else:
            w.user("lint پکیج search را ببین.")
            w.sh(
                "golangci-lint:",
                "golangci-lint run ./internal/search/...",
                f"internal/search/index.go:{r.randint(10, 200)}:2: ineffectual assignment to "
                "err (ineffassign)\n1 issues:\n* ineffassign: 1",
            )
            w.say("یک مورد ineffassign؛ ساده است.")

    return opening, segments_of(rng, b, segments, fill), probes


# ---------------------------------------------------------------------------------------
# wakala_ansible: Swahili, servers run with Ansible
# ---------------------------------------------------------------------------------------

_SW_OK = ("Sawa, hilo limekamilika. Naendelea.", "Imepita. Tunaendelea.", "Sawa, tayari.")
_B64 = string.ascii_letters + string.digits + "+/"


def _recap(rng: random.Random, hosts: Sequence[str], failed: str = "") -> str:
    rows = []
    for h in hosts:
        bad = 1 if h == failed else 0
        rows.append(
            f"{h:<24}: ok={rng.randint(5, 14):<4} changed={rng.randint(0, 3):<4} "
            f"unreachable=0    failed={bad:<4} skipped={rng.randint(0, 4):<4} rescued=0    "
            "ignored=0"
        )
    return "PLAY RECAP *********************************************************\n" + "\n".join(
        rows
    )


def _wakala(rng: random.Random, b: Builder, segments: int) -> Parts:
    w = _W(b)
    ip = f"10.{rng.randint(20, 60)}.{rng.randint(0, 255)}.{rng.randint(10, 250)}"
    old_ip = f"10.{rng.randint(61, 99)}.{rng.randint(0, 255)}.{rng.randint(10, 250)}"
    fp = "SHA256:" + token(rng, 43, _B64)
    amount = f"KES {rng.randint(150, 2400)},{rng.randint(0, 9)}00"
    probes: list[Probe] = []

    def intro() -> None:
        w.user(
            _pick(
                rng,
                (
                    "Habari! Leo tunafanya kazi kwenye seva za mfumo wa mawakala (float ya "
                    "pesa za simu) kwa Ansible. Anza kwa kuangalia repo ya ops-wakala.",
                    "Habari za asubuhi. Kuna mambo kadhaa kwenye playbook za wakala "
                    "yanayohitaji marekebisho. Tazama hali ya repo kwanza.",
                    "Salamu. Tunahitaji kuweka sawa seva za wakala (Ansible). Angalia repo.",
                ),
            )
        )
        w.sh(
            "Naangalia hali ya git na toleo la Ansible.",
            "git status && ansible --version | head -2",
            "On branch main\nYour branch is up to date with 'origin/main'.\n\n"
            "nothing to commit, working tree clean\n"
            "ansible [core 2.16.4]\n  config file = /home/ops/ops-wakala/ansible.cfg",
        )
        w.sh(
            "Na muundo wa inventory:",
            "ansible-inventory -i inventories/prod --graph",
            "@all:\n  |--@ungrouped:\n  |--@app:\n  |  |--app-01\n  |  |--app-02\n"
            "  |--@db:\n  |  |--db-01\n  |  |--db-02\n  |--@kisumu_agents:\n  |  |--kis-01\n"
            "  |--@mombasa_agents:\n  |  |--mbs-01\n  |--@eldoret_agents:\n  |  |--eld-01",
        )
        w.say(
            _pick(
                rng,
                (
                    "Repo iko safi; kuna seva mbili za app, mbili za db na vikundi vitatu "
                    "vya mawakala. Tuanze wapi?",
                    "Kila kitu kimecommitiwa. Niambie tuanze na nini.",
                    "Nimeona muundo. Niko tayari.",
                ),
            )
        )

    def ip_block() -> None:
        v = rng.randrange(3)
        if v == 0:
            w.user(f"db-02 mpya iko kwenye {ip}. Ile ya zamani ({old_ip}) imezimwa, usiiguse.")
            w.say(f"Sawa, nitaweka ansible_host={ip} kwa db-02.")
        elif v == 1:
            w.sh(
                "Najaribu kufikia db-02.",
                "ansible db-02 -i inventories/prod -m ping",
                'db-02 | UNREACHABLE! => {\n    "changed": false,\n'
                '    "msg": "Failed to connect to the host via ssh: ssh: connect to host '
                f'{old_ip} port 22: Connection timed out",\n    "unreachable": true\n}}',
            )
            w.user(f"Hiyo ni anwani ya zamani. db-02 sasa ni {ip}.")
        else:
            w.sh(
                "Naangalia anwani kwenye host_vars.",
                "cat inventories/prod/host_vars/db-02.yml",
                f"---\nansible_host: {ip}\npostgres_role: replica\n# zamani: {old_ip}\n"
                "wakala_float_node: false",
            )
            w.say(f"db-02 sasa iko kwenye {ip}; anwani ya zamani imebaki kama maoni tu.")
        probes.append(_ident("What is the IP address of the new db-02 host?", ip))

    def fp_block() -> None:
        v = rng.randrange(3)
        if v == 0:
            w.sh(
                "Naunganisha kwa SSH mara ya kwanza ili kuthibitisha ufunguo wa host.",
                f"ssh -o StrictHostKeyChecking=ask ops@{ip} true",
                f"The authenticity of host '{ip} ({ip})' can't be established.\n"
                f"ED25519 key fingerprint is {fp}.\n"
                "This key is not known by any other names.\n"
                "Are you sure you want to continue connecting (yes/no/[fingerprint])?",
            )
            w.user("Fingerprint hiyo ni sahihi, nimeilinganisha na console ya cloud. Endelea.")
        elif v == 1:
            w.user(f"Fingerprint sahihi ya db-02 ni {fp}. Ikiwa utaona nyingine, simama.")
            w.sh(
                "Nailinganisha.",
                "ssh-keyscan -t ed25519 db-02 2>/dev/null | ssh-keygen -lf -",
                f"256 {fp} db-02 (ED25519)",
            )
            w.say("Inalingana.")
        else:
            w.sh(
                "Nachukua fingerprint ya db-02.",
                "ssh-keyscan -t ed25519 db-02 2>/dev/null | ssh-keygen -lf -",
                f"256 {fp} db-02 (ED25519)",
            )
            w.say(f"Fingerprint ya db-02: {fp}. Je, inalingana na console?")
            w.user("Ndiyo, ni hiyo.")
        probes.append(_ident("What is the verified SSH host key fingerprint of db-02?", fp))

    def amount_block() -> None:
        v = rng.randrange(3)
        if v == 0:
            w.user(
                f"Jumla ya float ya mawakala wa Kisumu jana ilikuwa {amount}, lakini "
                "ripoti ya reconcile inaonyesha sifuri."
            )
        elif v == 1:
            w.sh(
                "Naangalia jumla kwenye database.",
                "ansible db-01 -i inventories/prod -b -become-user postgres -m shell -a "
                "\"psql -Atc \\\"select 'KES ' || to_char(sum(float_cents)/100, 'FM999,999,999') "
                "from agent_float where region='kisumu' and day=current_date-1\\\" wakala\"",
                f"db-01 | CHANGED | rc=0 >>\n{amount}",
            )
            w.say(f"Database inasema {amount} kwa Kisumu jana; ripoti inaonyesha 0.")
        else:
            w.sh(
                "Natafuta kwenye log ya reconcile.",
                "ansible app-01 -i inventories/prod -b -m shell -a "
                "'journalctl -u wakala-reconcile --since yesterday | tail -3'",
                "app-01 | CHANGED | rc=0 >>\n"
                f"{_stamp(rng)} reconcile[{rng.randint(900, 9999)}]: region=kisumu "
                f"expected={amount} reported=KES 0\n"
                f"{_stamp(rng)} reconcile[{rng.randint(900, 9999)}]: mismatch, report "
                "flagged",
            )
            w.say(f"Kiasi kinachotarajiwa ni {amount}, ripoti inaripoti sifuri.")
        probes.append(
            _ident("What float total for Kisumu is the reconcile supposed to show?", amount)
        )

    play_head = "PLAY [app] *********************************************************\n\n"

    def conf_shown(w: _W) -> None:
        w.user("Ongeza timeout ya nginx kwa API ya wakala hadi sekunde 60.")
        w.sh(
            "Nimebadilisha template; naendesha playbook ya nginx.",
            "ansible-playbook -i inventories/prod site.yml --tags nginx",
            play_head + "TASK [nginx : render site configs] *********************************\n"
            "changed: [app-01] => (item=wakala.conf)\nchanged: [app-02] => (item=wakala.conf)\n"
            "ok: [app-01] => (item=status.conf)\nok: [app-02] => (item=status.conf)\n\n"
            "RUNNING HANDLER [nginx : reload nginx] *****************************\n"
            "changed: [app-01]\nchanged: [app-02]\n\n" + _recap(rng, ("app-01", "app-02")),
        )

    def conf_quiet(w: _W) -> None:
        w.user("Ongeza timeout ya nginx kwa API ya wakala hadi sekunde 60.")
        w.sh(
            "Naendesha playbook ya nginx.",
            "ansible-playbook -i inventories/prod site.yml --tags nginx | tail -3",
            _recap(rng, ("app-01", "app-02")),
        )

    def cron_shown(w: _W) -> None:
        w.user("Reconcile ya usiku inaharibu ripoti. Isimamishe kwa sasa, usiifute.")
        w.sh(
            "Nimeweka disabled: true; naendesha role ya cron.",
            "ansible-playbook -i inventories/prod site.yml --tags cron --limit db-01",
            "PLAY [db] **********************************************************\n\n"
            "TASK [cron : manage jobs] ******************************************\n"
            "changed: [db-01] => (item={'name': 'float_reconcile', 'disabled': True})\n"
            "ok: [db-01] => (item={'name': 'pg_dump_nightly', 'disabled': False})\n\n"
            + _recap(rng, ("db-01",)),
        )

    def cron_quiet(w: _W) -> None:
        w.user("Reconcile ya usiku inaharibu ripoti. Isimamishe kwa sasa, usiifute.")
        w.sh(
            "Naendesha role ya cron.",
            "ansible-playbook -i inventories/prod site.yml --tags cron --limit db-01 | tail -2",
            _recap(rng, ("db-01",)),
        )

    def hba_shown(w: _W) -> None:
        w.sh(
            "Naendesha role ya postgres kwenye db-02.",
            "ansible-playbook -i inventories/prod site.yml --tags postgres --limit db-02",
            "PLAY [db] **********************************************************\n\n"
            "TASK [postgres : render pg_hba.conf] *******************************\n"
            'fatal: [db-02]: FAILED! => {"changed": false, "msg": "AnsibleUndefinedVariable: '
            "'replica_cidr' is undefined. 'replica_cidr' is undefined. "
            'Template: roles/postgres/templates/pg_hba.conf.j2"}\n\n'
            + _recap(rng, ("db-02",), failed="db-02"),
        )

    def hba_quiet(w: _W) -> None:
        w.sh(
            "Naendesha role ya postgres kwenye db-02.",
            "ansible-playbook -i inventories/prod site.yml --tags postgres --limit db-02 "
            "> /tmp/pg.log; echo rc=$?",
            "rc=2",
        )

    def legacy_shown(w: _W) -> None:
        w.user("group_vars za mawakala wa zamani hazitumiki tena. Ziondoe.")
        w.sh(
            "git rm:",
            "git rm -q inventories/prod/group_vars/legacy_agents.yml && git status",
            _git_status("deleted:    inventories/prod/group_vars/legacy_agents.yml"),
        )

    def legacy_quiet(w: _W) -> None:
        w.user("group_vars za mawakala wa zamani hazitumiki tena. Ziondoe.")
        w.sh(
            "Nazitoa na kuhakiki inventory:",
            "git rm -q inventories/prod/group_vars/legacy_agents.yml && "
            "ansible-inventory -i inventories/prod --list > /dev/null && echo inventory-ok",
            "inventory-ok",
        )

    arts = [
        _Art(
            ("wakala.conf",),
            ("chang", "modif", "updat", "badilish", "sasish", "mabadiliko"),
            "What happened to the nginx site config wakala.conf?",
            "It was changed on app-01 and app-02 (timeout raised) and nginx reloaded.",
            conf_shown,
            conf_quiet,
            (
                "Faili {n} limebadilishwa kwenye app-01 na app-02 (timeout sekunde 60).",
                "Nimesasisha {n}; nginx imepakiwa upya.",
                "{n}: mabadiliko yamewekwa kwenye seva zote mbili.",
            ),
            _SW_OK,
        ),
        _Art(
            ("float_reconcile",),
            ("disabl", "paus", "stop", "zim", "simamish", "sitish"),
            "What happened to the float_reconcile cron job?",
            "It was disabled (paused), not deleted.",
            cron_shown,
            cron_quiet,
            (
                "Cron ya {n} imezimwa kwa muda.",
                "Nimesimamisha {n} (disabled: true) hadi tuambiwe vinginevyo.",
                "{n} haitaendeshwa tena hadi tuiwashe; nimeizima.",
            ),
            _SW_OK,
        ),
        _Art(
            ("pg_hba",),
            ("fail", "error", "shindw", "hitilafu", "kosa"),
            "What happened when the pg_hba.conf template was applied to db-02?",
            "It failed (replica_cidr undefined).",
            hba_shown,
            hba_quiet,
            (
                "Task ya {n} imeshindwa kwenye db-02: replica_cidr haijafafanuliwa.",
                "{n}: hitilafu kwenye db-02, template haikuweza kutolewa.",
                "Kwenye db-02 {n} ilishindwa; nitaongeza variable inayokosekana.",
            ),
            _SW_OK,
        ),
        _Art(
            ("legacy_agents.yml",),
            ("delet", "remov", "futa", "futw", "ondo"),
            "What happened to group_vars/legacy_agents.yml?",
            "It was deleted (git rm).",
            legacy_shown,
            legacy_quiet,
            (
                "{n} imefutwa.",
                "Nimeondoa {n} kwenye repo.",
                "Faili {n} nimelifuta; hakuna host anayelitumia.",
            ),
            _SW_OK,
        ),
    ]

    def art_block(art: _Art) -> _Block:
        return lambda: probes.append(art.plant(w))

    tz, old_tz = rng.sample(("Africa/Nairobi", "UTC", "Africa/Dar_es_Salaam", "Africa/Kampala"), 2)
    mode = rng.randrange(6)
    flows: list[Sequence[_Step]] = [
        [
            (
                "u",
                (
                    "Timezone ya seva zote iwe {v}. Hilo limeamuliwa.",
                    "Tumeamua: saa za seva (timezone) ni {v}.",
                    "Weka timezone {v} kwenye seva zote, basi.",
                ),
            ),
            ("a", ("Sawa, timezone {v}.",)),
        ],
        [
            (
                "u",
                (
                    "Nimebadilisha mawazo: timezone iwe {v}, si {o}.",
                    "Marekebisho: usitumie {o}; timezone ni {v}.",
                ),
            ),
            ("a", ("Nimeelewa, nabadilisha timezone kutoka {o} hadi {v}.",)),
        ],
        [
            (
                "a",
                (
                    "Napendekeza timezone ya seva iwe {v} ili log zilingane na ripoti za "
                    "benki. Sawa?",
                    "Pendekezo: timezone {v} kwenye seva zote. Niendelee?",
                ),
            ),
            ("u", ("Ndiyo.", "Sawa.", "Endelea.")),
        ],
        [
            ("a", ("Niweke timezone {o} kwenye seva?",)),
            (
                "u",
                (
                    "Hapana, weka {v} kama timezone; {o} inachanganya ripoti.",
                    "Hapana. Timezone iwe {v}.",
                ),
            ),
        ],
        [
            (
                "u",
                (
                    "Juma wa timu ya benki anasema timezone lazima iwe {v}, si {o}.",
                    "Ujumbe kutoka kwa Juma: seva zitumie timezone {v}.",
                ),
            ),
            ("a", ("Asante, basi {v}.",)),
        ],
        [
            ("a", ("Timezone ipi kwa seva: {o} au {v}?",)),
            ("u", ("{v}.", "{v}, tafadhali.")),
        ],
    ]
    early: list[_Block] = []
    if mode == 1:
        early.append(lambda: w.user(f"Kwa njia, timezone ya seva iwe {old_tz}."))
    probes.append(
        _probe(
            "decision",
            (
                "Which timezone did the user set for the servers?",
                f"Which timezone replaced {old_tz} after the user's correction?",
                "Which timezone proposal did the user approve?",
                "Which timezone did the user want instead of the agent's suggestion?",
                "Which timezone did the bank-team colleague require?",
                "Which timezone did the user choose when asked?",
            )[mode],
            f"{tz} (not {old_tz})",
            (tz,),
            ("timezone", "time zone", "saa", "tz", "zone", "eneo"),
        )
    )

    nxt = rng.randrange(3)
    at = _clock(rng)
    group = rng.choice(("kisumu_agents", "mombasa_agents", "eldoret_agents"))
    vault_id = f"wakala_prod_{rng.randint(2, 9)}"

    def next_step() -> None:
        if nxt == 0:
            w.user(
                _pick(
                    rng,
                    (
                        "Playbook ya production lazima iendeshwe kabla ya Ijumaa saa {t}.",
                        "Kumbuka: tuendeshe site.yml kwenye prod kabla ya Ijumaa {t}.",
                        "Mwisho wa kuendesha playbook kwenye prod ni Ijumaa saa {t}.",
                    ),
                    t=at,
                )
            )
            w.say(f"Nimeandika: prod kabla ya Ijumaa {at}.")
        elif nxt == 1:
            w.user(
                _pick(
                    rng,
                    (
                        "Amina akithibitisha dirisha la benki, anzisha upya huduma ya float "
                        "kwenye {g}. Si kabla.",
                        "Subiri Amina. Akithibitisha, restart huduma ya float kwa {g}.",
                    ),
                    g=group,
                )
            )
            w.say(f"Sawa: restart ya {group} inasubiri uthibitisho wa Amina.")
        else:
            w.say(
                _pick(
                    rng,
                    (
                        "Nitafanya rekey ya vault kwa vault-id {k} baada ya deploy.",
                        "Naahidi: ufunguo mpya wa vault (rekey) kwa {k} leo.",
                        "Kazi yangu inayofuata: rekey ya vault-id {k}.",
                    ),
                    k=vault_id,
                )
            )
            w.user("Sawa, asante.")

    if nxt == 0:
        step: tuple[str, tuple[str, ...]] = (at, ("prod", "playbook", "endesh", "run", "site.yml"))
        q, a = "What has to be done before Friday?", f"Run the playbook on production by {at}."
    elif nxt == 1:
        step = (group, ("restart", "anzisha", "huduma", "service", "float"))
        q = "What is pending once Amina confirms the bank window?"
        a = f"Restart the float service on {group}."
    else:
        step = (vault_id, ("rekey", "vault", "ufunguo", "key"))
        q = "What did the agent promise to do with the vault?"
        a = f"Rekey the vault for vault-id {vault_id}."
    probes.append(_probe("next_step", q, a, (step[0],), step[1]))

    def decision() -> None:
        _talk(w, flows[mode], v=tz, o=old_tz)

    def read_noise() -> None:
        w.sh(
            "Nasoma defaults za role ya common.",
            "cat roles/common/defaults/main.yml",
            "---\ncommon_packages:\n  - chrony\n  - unattended-upgrades\n  - htop\n"
            f"common_ssh_port: 22\ncommon_swap_mb: {rng.choice((1024, 2048, 4096))}\n"
            "common_admins:\n  - juma\n  - amina\n  - ops-ci",
        )

    def lint_noise() -> None:
        w.sh(
            "ansible-lint:",
            "ansible-lint roles/nginx roles/cron",
            "WARNING  Listing 2 violation(s) that are fatal\n"
            "name[casing]: All names should start with an uppercase letter.\n"
            "roles/nginx/tasks/main.yml:3 Task/Handler: render site configs\n\n"
            "yaml[truthy]: Truthy value should be one of [false, true]\n"
            "roles/cron/defaults/main.yml:7\n\n"
            "Failed: 2 failure(s), 0 warning(s) on 19 files.",
        )
        w.say("Ni makosa ya mtindo tu; nitayaacha kwa sasa.")

    def journal_noise() -> None:
        w.sh(
            "Naangalia log za nginx kwenye app-01.",
            "ansible app-01 -i inventories/prod -b -m shell -a 'tail -5 /var/log/nginx/error.log'",
            "app-01 | CHANGED | rc=0 >>\n"
            + noise_lines(
                rng,
                5,
                lambda r: (
                    f"2024/03/{r.randint(10, 28)} {r.randint(0, 23):02d}:"
                    f"{r.randint(0, 59):02d}:11 [warn] {r.randint(900, 9999)}#0: *"
                    f"{r.randint(1000, 99999)} upstream response is buffered to a temporary file"
                ),
            ),
        )

    def facts_noise() -> None:
        w.sh(
            "Nachukua facts za msingi za seva za app.",
            "ansible app -i inventories/prod -m setup -a 'filter=ansible_distribution*'",
            noise_lines(
                rng,
                2,
                lambda r: (
                    f'app-0{r.randint(1, 2)} | SUCCESS => {{\n    "ansible_facts": {{\n'
                    '        "ansible_distribution": "Ubuntu",\n'
                    '        "ansible_distribution_version": "22.04"\n    }}\n}}'
                ),
            ),
        )

    middle: list[_Block] = [
        ip_block,
        fp_block,
        amount_block,
        decision,
        next_step,
        *(art_block(a) for a in rng.sample(arts, 2)),
        *rng.sample((read_noise, lint_noise, journal_noise, facts_noise), rng.randint(3, 4)),
    ]
    _opening(rng, (intro, *early), middle)
    w.say(
        rng.choice(
            (
                "Hayo ndiyo kwa sasa. Nini kinafuata?",
                "Tumemaliza awamu hii.",
                "Niko tayari kwa kazi inayofuata.",
            )
        )
    )
    opening = b.take()

    def fill(r: random.Random) -> None:
        v = r.randrange(4)
        if v == 0:
            w.user("Hakikisha seva za monitoring zinafikika.")
            hosts = r.sample(("mon-01", "mon-02", "graf-01", "prom-01"), 2)
            w.sh(
                "ping:",
                "ansible monitoring -i inventories/prod -m ping",
                "\n".join(
                    f'{h} | SUCCESS => {{\n    "changed": false,\n    "ping": "pong"\n}}'
                    for h in hosts
                ),
            )
            w.say("Zote zinajibu.")
        elif v == 1:
            w.user("Nafasi ya diski ikoje kwenye seva za monitoring?")
            w.sh(
                "df:",
                "ansible monitoring -i inventories/prod -m shell -a 'df -h /'",
                noise_lines(
                    r,
                    2,
                    lambda q: (
                        f"mon-0{q.randint(1, 2)} | CHANGED | rc=0 >>\n"
                        "Filesystem  Size  Used Avail Use% Mounted on\n"
                        f"/dev/sda1    80G   {q.randint(10, 60)}G   "
                        f"{q.randint(10, 60)}G  {q.randint(20, 80)}% /"
                    ),
                ),
            )
            w.say("Nafasi inatosha.")
        elif v == 2:
            w.user("Lint role ya monitoring.")
            w.sh(
                "ansible-lint:",
                "ansible-lint roles/monitoring",
                f"Passed: 0 failure(s), 0 warning(s) on {r.randint(6, 14)} files.",
            )
            w.say("Safi, hakuna tatizo.")
        else:
            w.user("Collections gani zimesakinishwa?")
            w.sh(
                "galaxy:",
                "ansible-galaxy collection list | head -6",
                "# /home/ops/.ansible/collections/ansible_collections\n"
                "Collection        Version\n----------------- -------\n"
                "ansible.posix     1.5.4\ncommunity.general 8.4.0\n"
                "community.postgresql 3.4.0",
            )
            w.say("Collections za kawaida tu.")

    return opening, segments_of(rng, b, segments, fill), probes


# ---------------------------------------------------------------------------------------
# rozalia_cargo: Bulgarian, a Rust sensor gateway built with cargo
# ---------------------------------------------------------------------------------------

_BG_OK = ("Добре, това е готово. Продължавам.", "Минах го, следващото.", "Готово.")


def _rozalia(rng: random.Random, b: Builder, segments: int) -> Parts:
    w = _W(b)
    full = hexits(rng, 40)
    sha = full[:12]
    good = hexits(rng, 40)
    serial = f"KZL-{token(rng, 4, '0123456789ABCDEF')}-{rng.randint(10, 99)}"
    other_serial = f"KZL-{token(rng, 4, '0123456789ABCDEF')}-{rng.randint(10, 99)}"
    temp = f"{rng.randint(101, 118)}.{rng.randint(1, 9)} °C"
    probes: list[Probe] = []

    def intro() -> None:
        w.user(
            _pick(
                rng,
                (
                    "Здрасти! Днес работим по шлюза за дестилерията (distil-gw, Rust). "
                    "Първо виж какво е състоянието на репото.",
                    "Здравей. Шлюзът за казаните в Казанлък пак дава странни температури. "
                    "Погледни репото distil-gw.",
                    "Добро утро, трябва да оправим няколко неща в distil-gw преди беритбата. "
                    "Започни с git status.",
                ),
            )
        )
        w.sh(
            "Гледам git и версията на Rust.",
            "git status && cargo --version && rustc --version",
            "On branch main\nYour branch is up to date with 'origin/main'.\n\n"
            "nothing to commit, working tree clean\ncargo 1.77.1 (e52e36006 2024-03-26)\n"
            "rustc 1.77.1 (7cf61ebde 2024-03-27)",
        )
        w.sh(
            "И структурата на src/:",
            "find src -name '*.rs' | sort",
            "src/calib.rs\nsrc/config.rs\nsrc/main.rs\nsrc/modbus/legacy.rs\nsrc/modbus/mod.rs\n"
            "src/modbus/rtu.rs\nsrc/thermo.rs\nsrc/web/api.rs",
        )
        w.say(
            _pick(
                rng,
                (
                    "Репото е чисто, Rust 1.77. Има стар модул modbus/legacy.rs до новия "
                    "rtu.rs. От какво да започна?",
                    "Всичко е къмитнато. Кажи откъде да започнем.",
                    "Видях структурата, готов съм.",
                ),
            )
        )

    def sha_block() -> None:
        v = rng.randrange(3)
        if v == 0:
            w.sh(
                "Пускам git bisect между последния добър таг и HEAD.",
                "git bisect start HEAD gw-v1.2.0 && git bisect run cargo test -q thermo",
                f"running  'cargo' 'test' '-q' 'thermo'\n...\n{full} is the first bad commit\n"
                f"commit {full}\nAuthor: Stoyan Petrov <stoyan@rozalia.bg>\n"
                "Date:   Tue Mar 12 09:14:02 2024 +0200\n\n"
                "    thermo: read PT100 as signed\n\n src/thermo.rs | 9 +++++----\n"
                "bisect found first bad commit",
            )
            w.say(f"Регресията идва от {sha} (thermo: read PT100 as signed).")
        elif v == 1:
            w.user(
                f"Стоян мисли, че регресията е от комит {sha}. Предишният, {good[:12]}, "
                "е бил наред."
            )
            w.sh(
                "Поглеждам комита.",
                f"git show --stat {sha}",
                f"commit {full}\nAuthor: Stoyan Petrov <stoyan@rozalia.bg>\n\n"
                "    thermo: read PT100 as signed\n\n src/thermo.rs | 9 +++++----\n"
                " 1 file changed, 5 insertions(+), 4 deletions(-)",
            )
        else:
            w.sh(
                "Последните комити:",
                "git log --oneline --abbrev=12 -4",
                f"{hexits(rng, 12)} web: add /healthz\n{sha} thermo: read PT100 as signed\n"
                f"{good[:12]} modbus: retry on CRC error\n{hexits(rng, 12)} deps: bump tokio",
            )
            w.say(
                f"Подозирам {sha}: там отчитането на PT100 стана знаково. {good[:12]} "
                "изглежда безобиден."
            )
        probes.append(_ident("Which commit introduced the temperature regression?", sha))

    def serial_block() -> None:
        v = rng.randrange(3)
        if v == 0:
            w.user(f"Проблемният контролер е {serial} (казан 4). {other_serial} работи нормално.")
        elif v == 1:
            w.sh(
                "Списък на контролерите, които шлюзът вижда:",
                "cargo run -q --bin gwctl -- devices",
                "SERIAL          KAZAN  LAST SEEN  STATUS\n"
                f"{serial}  4      3s         stale-reading\n"
                f"{other_serial}  2      1s         ok\n"
                f"KZL-{token(rng, 4, '0123456789ABCDEF')}-{rng.randint(10, 99)}  7      2s"
                "         ok",
            )
            w.say(f"Само {serial} е в stale-reading.")
        else:
            w.sh(
                "Гледам журнала на услугата.",
                "journalctl -u distil-gw --since '1 hour ago' | grep WARN | tail -3",
                f"Mar 12 10:0{rng.randint(0, 9)}:11 gw-01 distil-gw[812]: WARN thermo: "
                f"device {serial} reading out of range\n"
                f"Mar 12 10:1{rng.randint(0, 9)}:40 gw-01 distil-gw[812]: WARN modbus: "
                f"CRC mismatch from {other_serial}, retrying",
            )
            w.say(f"Извън обхвата е {serial}; {other_serial} само е имал CRC грешка.")
        probes.append(_ident("What is the serial of the faulty distillation controller?", serial))

    def temp_block() -> None:
        v = rng.randrange(3)
        if v == 0:
            w.user(f"Контролерът показа {temp}, а казанът физически е студен.")
            w.say(f"{temp} при студен казан: значи грешно четене, не прегряване.")
        elif v == 1:
            w.sh(
                "Последните показания:",
                "cargo run -q --bin gwctl -- readings --last 3",
                f"10:41:02  kazan=4  {temp}  raw=0xFF3A\n"
                f"10:41:07  kazan=2  {rng.randint(60, 95)}.{rng.randint(0, 9)} °C  raw=0x0290\n"
                f"10:41:12  kazan=4  {temp}  raw=0xFF3A",
            )
            w.say(
                f"Казан 4 показва {temp} при raw 0xFF3A: това е отрицателна стойност, "
                "прочетена като голяма."
            )
        else:
            w.sh(
                "Алармите от днес:",
                "cargo run -q --bin gwctl -- alarms --today",
                f"ALARM  kazan=4  overheat  value={temp}  acknowledged=no\n"
                f"INFO   kazan=7  door-open  acknowledged=yes",
            )
        probes.append(_ident("What temperature did the faulty controller report?", temp))

    def legacy_shown(w: _W) -> None:
        w.user("Старият Modbus модул вече не се ползва. Махни го.")
        w.sh(
            "git rm и статус:",
            "git rm -q src/modbus/legacy.rs && git status",
            _git_status("deleted:    src/modbus/legacy.rs"),
        )

    def legacy_quiet(w: _W) -> None:
        w.user("Старият Modbus модул вече не се ползва. Махни го.")
        w.sh(
            "Вадя го и проверявам компилацията:",
            "git rm -q src/modbus/legacy.rs && cargo check -q && echo check-ok",
            "check-ok",
        )

    def test_shown(w: _W) -> None:
        w.sh(
            "Пускам тестовете на thermo.",
            "cargo test thermo",
            "   Compiling distil-gw v1.3.0 (/home/stoyan/distil-gw)\n"
            "    Finished test [unoptimized + debuginfo] target(s) in 4.12s\n"
            "     Running unittests src/main.rs (target/debug/deps/distil_gw-5c1f0e)\n\n"
            "running 4 tests\ntest thermo::tests::parses_pt100 ... ok\n"
            "test thermo::tests::clamps_negative_readings ... FAILED\n"
            "test thermo::tests::rejects_open_circuit ... ok\n"
            "test thermo::tests::averages_window ... ok\n\nfailures:\n\n"
            "---- thermo::tests::clamps_negative_readings stdout ----\n"
            "thread 'thermo::tests::clamps_negative_readings' panicked at src/thermo.rs:141:9:\n"
            "assertion `left == right` failed\n  left: 6553.4\n right: 0.0\n\n"
            "test result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out",
        )

    def test_quiet(w: _W) -> None:
        w.sh(
            "Пускам тестовете на thermo (само обобщението).",
            "cargo test -q thermo 2>&1 | tail -1",
            "error: test failed, to rerun pass `--bin distil-gw`",
        )

    def mqtt_shown(w: _W) -> None:
        w.user("Телеметрията трябва да отива и към MQTT брокера, не само в лога.")
        w.sh(
            "Добавих модула, статус:",
            "git add -A && git status",
            _git_status("new file:   src/telemetry/mqtt.rs"),
        )

    def mqtt_quiet(w: _W) -> None:
        w.user("Телеметрията трябва да отива и към MQTT брокера, не само в лога.")
        w.sh(
            "Компилирам:",
            "cargo build",
            "   Compiling rumqttc v0.24.0\n   Compiling distil-gw v1.3.0 "
            "(/home/stoyan/distil-gw)\n    Finished dev [unoptimized + debuginfo] target(s) "
            f"in {rng.randint(5, 30)}.{rng.randint(10, 99)}s",
        )

    def calib_shown(w: _W) -> None:
        w.user("calib.rs е неясно име; нека е calibration.rs.")
        w.sh(
            "git mv:",
            "git mv src/calib.rs src/calibration.rs && git status",
            _git_status("renamed:    src/calib.rs -> src/calibration.rs"),
        )

    def calib_quiet(w: _W) -> None:
        w.user("calib.rs е неясно име; нека е calibration.rs.")
        w.sh(
            "git mv и проверка:",
            "git mv src/calib.rs src/calibration.rs && cargo check -q && echo check-ok",
            "check-ok",
        )

    arts = [
        _Art(
            ("legacy.rs",),
            ("delet", "remov", "изтри", "изтрит", "премахн", "махна"),
            "What happened to src/modbus/legacy.rs?",
            "It was deleted.",
            legacy_shown,
            legacy_quiet,
            (
                "Изтрих {n}; никой не го ползваше.",
                "{n} е премахнат, компилацията минава.",
                "Файлът {n} вече го няма (изтрит с git rm).",
            ),
            _BG_OK,
        ),
        _Art(
            ("clamps_negative_readings",),
            ("fail", "червен", "пада", "не минава", "провал", "гърми"),
            "What is the state of the clamps_negative_readings test?",
            "It fails (6553.4 instead of 0.0).",
            test_shown,
            test_quiet,
            (
                "Тестът {n} пада: очаква 0.0, получава 6553.4.",
                "{n} е червен след промяната в thermo.",
                "{n} не минава, това е същият бъг със знака.",
            ),
            _BG_OK,
        ),
        _Art(
            ("mqtt.rs",),
            ("creat", "new", "added", "създа", "добав", "нов"),
            "What happened to src/telemetry/mqtt.rs?",
            "It was created (new MQTT telemetry module).",
            mqtt_shown,
            mqtt_quiet,
            (
                "Създадох {n} с клиента за брокера.",
                "Добавих нов модул {n}.",
                "{n} е нов файл: там е публикуването към MQTT.",
            ),
            _BG_OK,
        ),
        _Art(
            ("calib.rs",),
            ("renam", "moved", "преимен", "премест"),
            "What happened to src/calib.rs?",
            "It was renamed to src/calibration.rs.",
            calib_shown,
            calib_quiet,
            (
                "Преименувах {n} на calibration.rs.",
                "{n} вече се казва calibration.rs (преименуван).",
                "Преместих {n} в calibration.rs с git mv.",
            ),
            _BG_OK,
        ),
    ]

    def art_block(art: _Art) -> _Block:
        return lambda: probes.append(art.plant(w))

    baud, old_baud = rng.sample(("9600", "19200", "38400", "57600"), 2)
    mode = rng.randrange(6)
    flows: list[Sequence[_Step]] = [
        [
            (
                "u",
                (
                    "Скоростта на Modbus линията е {v} бода. Не я пипай.",
                    "Решено: baud rate {v} за всички контролери.",
                    "Modbus RTU на {v} бода, и толкова.",
                ),
            ),
            ("a", ("Добре, {v} бода.",)),
        ],
        [
            (
                "u",
                (
                    "Поправка: скоростта да е {v} бода, не {o}.",
                    "Размислих: {o} беше грешка, baud rate е {v}.",
                ),
            ),
            ("a", ("Разбрах, сменям скоростта от {o} на {v}.",)),
        ],
        [
            (
                "a",
                (
                    "Предлагам скорост {v} бода за Modbus: кабелите са къси и ще намалим "
                    "латентността. Става ли?",
                    "Предложение: baud rate {v} за RTU линията. Да го сложа ли?",
                ),
            ),
            ("u", ("Да.", "Става.", "Давай.")),
        ],
        [
            ("a", ("Да сложа ли скорост {o} бода?",)),
            (
                "u",
                (
                    "Не, сложи {v} бода; на {o} старите контролери губят пакети.",
                    "Не. Скоростта да е {v}.",
                ),
            ),
        ],
        [
            (
                "u",
                (
                    "Иван от поддръжката казва, че контролерите са настроени на {v} бода, "
                    "не на {o}.",
                    "Съобщение от Иван: baud rate трябва да е {v}.",
                ),
            ),
            ("a", ("Благодаря, значи {v}.",)),
        ],
        [
            ("a", ("Каква скорост за Modbus линията: {o} или {v} бода?",)),
            ("u", ("{v}.", "{v}, разбира се.")),
        ],
    ]
    early: list[_Block] = []
    if mode == 1:
        early.append(lambda: w.user(f"Между другото, Modbus линията е на {old_baud} бода."))
    probes.append(
        _probe(
            "decision",
            (
                "What Modbus baud rate did the user set?",
                f"Which baud rate replaced {old_baud} after the user's correction?",
                "Which baud rate proposal did the user approve?",
                "Which baud rate did the user want instead of the agent's?",
                "Which baud rate did the maintenance colleague report?",
                "Which baud rate did the user choose when asked?",
            )[mode],
            f"{baud} baud (not {old_baud})",
            (baud,),
            ("baud", "бод", "скорост", "modbus", "serial", "rtu"),
        )
    )

    nxt = rng.randrange(3)
    tag = f"gw-v1.{rng.randint(4, 9)}.0"
    at = _clock(rng)
    pr = str(rng.randint(140, 390))

    def next_step() -> None:
        if nxt == 0:
            w.user(
                _pick(
                    rng,
                    (
                        "Щом CI стане зелен, пусни таг {k}.",
                        "Когато CI мине, тагни {k} и го пусни към шлюзовете.",
                        "Таг {k} — само след зелен CI.",
                    ),
                    k=tag,
                )
            )
            w.say(f"Добре, {tag} след зелен CI.")
        elif nxt == 1:
            w.user(
                _pick(
                    rng,
                    (
                        "Контролерите трябва да са флашнати утре до {t}, преди беритбата.",
                        "Краен срок за прошивката на контролерите: утре {t}.",
                    ),
                    t=at,
                )
            )
            w.say(f"Записах си: флашване на фърмуера утре до {at}.")
        else:
            w.say(
                _pick(
                    rng,
                    (
                        "Ще ти напомня: Стоян трябва да одобри PR #{k} преди да мърджнем.",
                        "Оставам с PR #{k}: ще пиша на Стоян за ревю.",
                        "PR #{k} чака ревю от Стоян; аз ще го подсетя.",
                    ),
                    k=pr,
                )
            )
            w.user("Мерси.")

    if nxt == 0:
        step: tuple[str, tuple[str, ...]] = (tag, ("tag", "таг", "release", "пусн", "ci"))
        q, a = "What happens once CI is green?", f"Tag {tag} and release it."
    elif nxt == 1:
        step = (at, ("flash", "флаш", "прошив", "firmware", "фърмуер"))
        q, a = "What is the deadline before the harvest?", f"Flash the controllers by {at}."
    else:
        step = (pr, ("pr", "review", "ревю", "одобр", "approv"))
        q = "What is pending on the PR?"
        a = f"Stoyan has to approve PR #{pr}; the agent will remind him."
    probes.append(_probe("next_step", q, a, (step[0],), step[1]))

    def decision() -> None:
        _talk(w, flows[mode], v=baud, o=old_baud)

    def read_noise() -> None:
        w.sh(
            "Чета Cargo.toml.",
            "cat Cargo.toml",
            '[package]\nname = "distil-gw"\nversion = "1.3.0"\nedition = "2021"\n\n'
            '[dependencies]\ntokio = { version = "1.36", features = ["full"] }\n'
            'tokio-modbus = "0.11"\nserde = { version = "1", features = ["derive"] }\n'
            'tracing = "0.1"\naxum = "0.7"\nrumqttc = "0.24"',
        )

    def clippy_noise() -> None:
        w.sh(
            "clippy:",
            "cargo clippy -q -- -D warnings",
            "error: this `if` has identical blocks\n   --> src/web/api.rs:57:20\n"
            "    |\n57  |       if cfg.verbose {\n    |  ____________________^\n"
            "    = help: for further information visit "
            "https://rust-lang.github.io/rust-clippy/master/index.html#if_same_then_else\n"
            'error: could not compile `distil-gw` (bin "distil-gw") due to 1 previous error',
        )
        w.say("Clippy недоволства от web/api.rs, не е свързано с днешната задача.")

    def journal_noise() -> None:
        w.sh(
            "Журнал на услугата:",
            "journalctl -u distil-gw -n 6 --no-pager",
            noise_lines(
                rng,
                6,
                lambda r: (
                    f"Mar 12 0{r.randint(6, 9)}:{r.randint(10, 59)}:{r.randint(10, 59)} "
                    f"gw-01 distil-gw[812]: INFO modbus: polled {r.randint(3, 8)} devices in "
                    f"{r.randint(20, 140)}ms"
                ),
            ),
        )

    def tree_noise() -> None:
        w.sh(
            "Дублирани зависимости:",
            "cargo tree -d | head -8",
            "syn v1.0.109\n└── tokio-modbus v0.11.0\n    └── distil-gw v1.3.0\n\n"
            "syn v2.0.52\n├── serde_derive v1.0.197\n└── tokio-macros v2.2.0",
        )

    middle: list[_Block] = [
        sha_block,
        serial_block,
        temp_block,
        decision,
        next_step,
        *(art_block(a) for a in rng.sample(arts, 2)),
        *rng.sample((read_noise, clippy_noise, journal_noise, tree_noise), rng.randint(3, 4)),
    ]
    _opening(rng, (intro, *early), middle)
    w.say(
        rng.choice(
            ("Това е за сега. Какво следва?", "Приключих този кръг.", "Готов съм за следващото.")
        )
    )
    opening = b.take()

    def fill(r: random.Random) -> None:
        v = r.randrange(4)
        if v == 0:
            w.user("Провери форматирането на web модула.")
            w.sh(
                "cargo fmt:",
                "cargo fmt --check -- src/web/api.rs",
                f"Diff in /home/stoyan/distil-gw/src/web/api.rs at line {r.randint(10, 90)}:\n"
                '-    let app = Router::new().route("/healthz", get(health));\n'
                '+    let app = Router::new()\n+        .route("/healthz", get(health));',
            )
            w.say("Само един ред за пренареждане; оправих го.")
        elif v == 1:
            w.user("Колко голям е release бинарникът?")
            w.sh(
                "Билдвам и гледам:",
                "cargo build --release -q && ls -lh target/release/distil-gw",
                f"-rwxr-xr-x 2 stoyan stoyan {r.randint(4, 12)}M Mar 12 11:0{r.randint(0, 9)} "
                "target/release/distil-gw",
            )
            w.say("Размерът е приемлив за шлюза.")
        elif v == 2:
            w.user("Има ли уязвимости в зависимостите?")
            w.sh(
                "cargo audit:",
                "cargo audit -q",
                f"    Scanning Cargo.lock for vulnerabilities ({r.randint(150, 260)} crate "
                "dependencies)",
            )
            w.say("Няма намерени уязвимости.")
        else:
            w.user("Пусни тестовете на web.")
            w.sh(
                "cargo test:",
                "cargo test -q web::",
                f"running {r.randint(3, 9)} tests\n" + "." * r.randint(3, 9) + "\ntest result: ok.",
            )
            w.say("Web тестовете минават.")

    return opening, segments_of(rng, b, segments, fill), probes


# ---------------------------------------------------------------------------------------
# parapo_wrangler: Tagalog, Cloudflare Workers (wrangler) with GitHub Actions (gh)
# ---------------------------------------------------------------------------------------

_TL_OK = (
    "Sige, tapos na 'yan. Tuloy tayo.",
    "Okay, done. Next.",
    "Ayos, lumipat na ako sa susunod.",
)


def _parapo(rng: random.Random, b: Builder, segments: int) -> Parts:
    w = _W(b)
    version = _uuid(rng)
    old_version = _uuid(rng)
    run_id = str(rng.randint(8_100_000_000, 8_999_999_999))
    other_run = str(rng.randint(7_100_000_000, 7_999_999_999))
    ray = f"{hexits(rng, 16)}-MNL"
    probes: list[Probe] = []

    def intro() -> None:
        w.user(
            _pick(
                rng,
                (
                    "Uy! Today, aayusin natin yung Para Po API (Cloudflare Workers, "
                    "wrangler). Tingnan mo muna yung repo.",
                    "Hello! May ilang issue sa Para Po, yung app ng pamasahe sa jeep. "
                    "Silipin mo muna ang state ng repo.",
                    "Magandang umaga. Kailangan nating linisin ang parapo-api bago ang "
                    "release. Simulan mo sa git status.",
                ),
            )
        )
        w.sh(
            "Titingnan ko ang git at ang wrangler.",
            "git status && npx wrangler --version",
            "On branch main\nYour branch is up to date with 'origin/main'.\n\n"
            "nothing to commit, working tree clean\n ⛅️ wrangler 3.48.0",
        )
        w.sh(
            "Pati ang mga file:",
            "ls src src/routes src/lib .github/workflows",
            "src:\nindex.ts\nlib\nroutes\n\nsrc/routes:\nfares.ts\nlegacy-fares.ts\nroutes.ts\n"
            "stops.ts\n\nsrc/lib:\nfare-calc.ts\ngeo.ts\nkv.ts\n\n.github/workflows:\nci.yml\n"
            "deploy-preview.yml\ndeploy.yml",
        )
        w.say(
            _pick(
                rng,
                (
                    "Malinis ang repo, wrangler 3.48. May legacy-fares.ts pa sa routes. "
                    "Saan tayo magsisimula?",
                    "Naka-commit lahat. Sabihin mo kung alin ang uunahin.",
                    "Nakita ko na ang structure. Ready na ako.",
                ),
            )
        )

    def version_block() -> None:
        v = rng.randrange(3)
        if v == 0:
            w.sh(
                "Titingnan ko ang mga deployment ng parapo-api.",
                "npx wrangler deployments list --name parapo-api | tail -12",
                f"Created:     2024-03-1{rng.randint(0, 9)}T0{rng.randint(0, 9)}:12:44.512Z\n"
                "Author:      ci@parapo.ph\nSource:      Upload\nMessage:     -\n"
                f"Version(s):  (100%) {old_version}\n                 Created:  2024-03-0"
                f"{rng.randint(1, 9)}\n\n"
                f"Created:     2024-03-2{rng.randint(0, 8)}T1{rng.randint(0, 9)}:03:09.101Z\n"
                "Author:      ci@parapo.ph\nSource:      Upload\nMessage:     -\n"
                f"Version(s):  (100%) {version}\n                 Created:  2024-03-2"
                f"{rng.randint(0, 8)}",
            )
            w.say(f"Ang current na version ng parapo-api ay {version}.")
        elif v == 1:
            w.user(
                f"FYI, ang naka-live na version ng parapo-api ay {version}. Yung "
                f"{old_version} ay yung nirollback natin last week."
            )
        else:
            w.sh(
                "Deploy muna ng parapo-api para ma-refresh ang bindings.",
                "npx wrangler deploy --env production",
                f"Total Upload: {rng.randint(80, 200)}.{rng.randint(10, 99)} KiB / gzip: "
                f"{rng.randint(20, 60)}.{rng.randint(10, 99)} KiB\n"
                "Your worker has access to the following bindings:\n"
                "- KV Namespaces:\n  - CACHE: 3c9a…\n- D1 Databases:\n  - DB: parapo-db\n"
                f"Uploaded parapo-api (2.{rng.randint(10, 99)} sec)\n"
                f"Published parapo-api (0.{rng.randint(10, 99)} sec)\n"
                "  https://api.parapo.ph/*\n"
                f"Current Version ID: {version}",
            )
        probes.append(_ident("What is the current version ID of the parapo-api Worker?", version))

    def run_block() -> None:
        v = rng.randrange(3)
        if v == 0:
            w.sh(
                "Titingnan ko ang mga huling CI run.",
                "gh run list --workflow ci.yml -L 3",
                "STATUS  TITLE                      WORKFLOW  BRANCH  EVENT  ID          "
                "ELAPSED  AGE\n"
                f"X       fares: student discount  ci        main    push   {run_id}  1m12s"
                "    about 1 hour ago\n"
                f"✓       stops: cache headers     ci        main    push   {other_run}  58s"
                "      about 3 hours ago",
            )
            w.say(f"Ang pumalyang run ay {run_id}.")
        elif v == 1:
            w.user(f"Pakitingnan yung failed run {run_id}, yung {other_run} okay naman.")
            w.sh(
                "Kukunin ko ang failed log.",
                f"gh run view {run_id} --log-failed | tail -4",
                "test\tRun npm test\t FAIL  src/lib/geo.test.ts > haversine > Cubao to "
                "Divisoria\ntest\tRun npm test\tAssertionError: expected 7.91 to be close to "
                "7.4\ntest\tRun npm test\t Test Files  1 failed | 11 passed (12)",
            )
        else:
            w.sh(
                "Tinitingnan ko ang pinakabagong run.",
                "gh run view --json databaseId,conclusion,displayTitle -q '.' ",
                f'{{"conclusion":"failure","databaseId":{run_id},'
                '"displayTitle":"fares: student discount"}',
            )
            w.say(f"Failed ang run {run_id} (fares: student discount).")
        probes.append(_ident("Which GitHub Actions run id failed?", run_id))

    def ray_block() -> None:
        v = rng.randrange(3)
        if v == 0:
            w.user(f"May user na naka-500 sa /fares kaninang umaga, Ray ID {ray}. Pakihanap.")
        elif v == 1:
            w.sh(
                "Titingnan ko ang live logs.",
                "npx wrangler tail parapo-api --env production --status error --format json "
                "| head -3",
                f'{{"outcome":"exception","event":{{"request":{{"url":"https://api.parapo.ph/'
                f'fares?from=cubao&to=divisoria","method":"GET","headers":{{"cf-ray":"{ray}"}}}}}},'
                '"exceptions":[{"name":"TypeError","message":"Cannot read properties of '
                "undefined (reading 'minimum')\"}]}",
            )
            w.say(f"Exception sa /fares, Ray ID {ray}: undefined ang minimum na pamasahe.")
        else:
            w.sh(
                "Hahanapin ko sa Logpush export.",
                "zcat logs/2024-03-12/*.log.gz | jq -c 'select(.EdgeResponseStatus==500) | "
                "{RayID, ClientRequestPath}' | head -2",
                f'{{"RayID":"{ray}","ClientRequestPath":"/fares"}}\n'
                f'{{"RayID":"{hexits(rng, 16)}-SIN","ClientRequestPath":"/stops/near"}}',
            )
            w.say(f"Yung sa /fares ay Ray ID {ray}; yung isa ay sa Singapore at ibang route.")
        probes.append(_ident("What Cloudflare Ray ID did the failing /fares request have?", ray))

    def legacy_shown(w: _W) -> None:
        w.user("Wala nang gumagamit ng lumang fares endpoint. Tanggalin mo na.")
        w.sh(
            "git rm at status:",
            "git rm -q src/routes/legacy-fares.ts && git status",
            _git_status("deleted:    src/routes/legacy-fares.ts"),
        )

    def legacy_quiet(w: _W) -> None:
        w.user("Wala nang gumagamit ng lumang fares endpoint. Tanggalin mo na.")
        w.sh(
            "Tinanggal ko at type-check:",
            "git rm -q src/routes/legacy-fares.ts && npx tsc --noEmit && echo tsc-ok",
            "tsc-ok",
        )

    def preview_shown(w: _W) -> None:
        w.user("Ubos na ang build minutes dahil sa preview deploys. Patigilin muna.")
        w.sh(
            "gh workflow:",
            "gh workflow disable deploy-preview",
            "✓ Disabled deploy-preview",
        )

    def preview_quiet(w: _W) -> None:
        w.user("Ubos na ang build minutes dahil sa preview deploys. Patigilin muna.")
        w.sh(
            "Inalis ko ang trigger sa workflow file at ni-commit:",
            "git commit -qam 'ci: stop preview deploys for now' && git log --oneline -1",
            f"{hexits(rng, 7)} ci: stop preview deploys for now",
        )

    def edge_shown(w: _W) -> None:
        w.user("I-deploy na rin yung edge worker para sa fares sa production.")
        w.sh(
            "wrangler deploy:",
            "npx wrangler deploy -c workers/edge/wrangler.toml --env production",
            f"Total Upload: {rng.randint(10, 40)}.{rng.randint(10, 99)} KiB\n"
            f"Uploaded fares-edge (1.{rng.randint(10, 99)} sec)\n"
            f"Deployed fares-edge triggers (0.{rng.randint(10, 99)} sec)\n"
            "  https://edge.parapo.ph/fares/*\n"
            f"Current Version ID: {_uuid(rng)}",
        )

    def edge_quiet(w: _W) -> None:
        w.user("I-deploy na rin yung edge worker para sa fares sa production.")
        w.sh(
            "npm script:",
            "npm run deploy:edge > /tmp/edge.log 2>&1; echo exit=$?",
            "exit=0",
        )

    def calc_shown(w: _W) -> None:
        w.user("Dapat 20% ang discount ng estudyante at senior, hindi 15%.")
        w.sh(
            "Inayos ko; status:",
            "git add -A && git status",
            _git_status("modified:   src/lib/fare-calc.ts"),
        )

    def calc_quiet(w: _W) -> None:
        w.user("Dapat 20% ang discount ng estudyante at senior, hindi 15%.")
        w.sh(
            "diffstat:",
            "git diff --stat",
            " src/lib/fare-calc.ts | 6 +++---\n 1 file changed, 3 insertions(+), 3 deletions(-)",
        )

    arts = [
        _Art(
            ("legacy-fares.ts",),
            ("delet", "remov", "tinanggal", "binura", "inalis", "bura"),
            "What happened to src/routes/legacy-fares.ts?",
            "It was deleted.",
            legacy_shown,
            legacy_quiet,
            (
                "Tinanggal ko na ang {n}; walang ibang file na nag-i-import dito.",
                "Binura ko ang {n}, pasado ang type-check.",
                "{n}: deleted na.",
            ),
            _TL_OK,
        ),
        _Art(
            ("deploy-preview",),
            ("disabl", "paus", "stop", "patay", "pinatay", "hinto", "itinigil", "tigil"),
            "What happened to the deploy-preview workflow?",
            "It was disabled (paused) to save build minutes.",
            preview_shown,
            preview_quiet,
            (
                "Na-disable ko na ang {n} workflow.",
                "Pinatay ko muna ang {n} hanggang bumalik ang build minutes.",
                "{n}: itinigil muna, walang preview deploys.",
            ),
            _TL_OK,
        ),
        _Art(
            ("fares-edge",),
            ("deploy", "publish", "live", "release", "inilabas", "nilabas"),
            "What happened to the fares-edge Worker?",
            "It was deployed to production.",
            edge_shown,
            edge_quiet,
            (
                "Na-deploy ko na ang {n} sa production.",
                "Live na ang {n}, bagong version.",
                "Inilabas ko ang {n} sa production; gumagana ang /fares.",
            ),
            _TL_OK,
        ),
        _Art(
            ("fare-calc.ts",),
            ("modif", "chang", "updat", "edit", "binago", "pagbabago", "in-update", "inayos"),
            "What happened to src/lib/fare-calc.ts?",
            "It was modified (student and senior discount set to 20%).",
            calc_shown,
            calc_quiet,
            (
                "Binago ko ang {n}: 20% na ang discount.",
                "In-update ko ang {n} para sa bagong discount ng estudyante at senior.",
                "{n}: may pagbabago na, 20% imbes na 15%.",
            ),
            _TL_OK,
        ),
    ]

    def art_block(art: _Art) -> _Block:
        return lambda: probes.append(art.plant(w))

    hint, old_hint = rng.sample(("apac", "weur", "wnam"), 2)
    mode = rng.randrange(6)
    flows: list[Sequence[_Step]] = [
        [
            (
                "u",
                (
                    "Ang location hint ng bagong D1 database ay {v}. Final na 'yan.",
                    "Desisyon: {v} ang location hint ng D1.",
                    "Gawin mong {v} ang location hint ng database, yun lang.",
                ),
            ),
            ("a", ("Sige, {v} ang location hint.",)),
        ],
        [
            (
                "u",
                (
                    "Correction: hindi {o}, gawin mong {v} ang location hint ng D1.",
                    "Nagbago isip ko, {v} ang location hint ng database, hindi {o}.",
                ),
            ),
            ("a", ("Gets, papalitan ko ang location hint mula {o} papuntang {v}.",)),
        ],
        [
            (
                "a",
                (
                    "Mungkahi ko: {v} ang location hint ng D1 database, para malapit sa "
                    "karamihan ng users. Okay ba?",
                    "Suggest ko na {v} ang location hint ng database. Go?",
                ),
            ),
            ("u", ("Oo.", "Go.", "Sige.")),
        ],
        [
            ("a", ("{o} ba ang ilalagay kong location hint ng D1?",)),
            (
                "u",
                (
                    "Hindi, {v} ang location hint; mabagal sa {o}.",
                    "Hindi. Gawin mong {v} ang location hint.",
                ),
            ),
        ],
        [
            (
                "u",
                (
                    "Sabi ni Carlo (infra), {v} dapat ang location hint ng D1, hindi {o}.",
                    "Message ni Carlo: location hint ng database ay {v}.",
                ),
            ),
            ("a", ("Salamat, {v} na.",)),
        ],
        [
            ("a", ("Anong location hint para sa D1: {o} o {v}?",)),
            ("u", ("{v}.", "{v} na lang.")),
        ],
    ]
    early: list[_Block] = []
    if mode == 1:
        early.append(lambda: w.user(f"Siya nga pala, {old_hint} ang location hint ng D1."))
    probes.append(
        _probe(
            "decision",
            (
                "Which D1 location hint did the user set?",
                f"Which location hint replaced {old_hint} after the user's correction?",
                "Which D1 location hint proposal did the user approve?",
                "Which location hint did the user want instead of the agent's?",
                "Which D1 location hint did the infra colleague require?",
                "Which D1 location hint did the user choose when asked?",
            )[mode],
            f"{hint} (not {old_hint})",
            (hint,),
            ("location", "lokasyon", "region", "rehiyon", "hint", "d1", "database"),
        )
    )

    nxt = rng.randrange(3)
    at = _clock(rng)
    secret = rng.choice(("LTFRB_API_KEY", "MAPBOX_TOKEN", "SEMAPHORE_SMS_KEY"))
    pr = str(rng.randint(60, 399))
    route = f"R-{rng.randint(100, 999)}"

    def next_step() -> None:
        if nxt == 0:
            w.user(
                _pick(
                    rng,
                    (
                        "Kailangang i-rotate ang {k} bago mag-{t} mamaya.",
                        "Reminder: palitan ang secret na {k} bago {t}, mag-e-expire na.",
                        "Deadline ng rotation ng {k}: mamayang {t}.",
                    ),
                    k=secret,
                    t=at,
                )
            )
            w.say(f"Noted: rotate {secret} bago {at}.")
        elif nxt == 1:
            w.user(
                _pick(
                    rng,
                    (
                        "Kapag pumasa ang CI sa PR #{k}, i-merge mo at i-deploy sa production.",
                        "Hintayin mo ang CI ng PR #{k}; kung green, merge at deploy.",
                    ),
                    k=pr,
                )
            )
            w.say(f"Sige, merge at deploy ng PR #{pr} pagka-green ng CI.")
        else:
            w.say(
                _pick(
                    rng,
                    (
                        "Ako na ang magdadagdag ng route {k} sa seed data mamaya.",
                        "Pangako: idadagdag ko ang route {k} sa seed bago matapos ang araw.",
                        "Susunod kong gagawin: idagdag ang route {k} sa seed data.",
                    ),
                    k=route,
                )
            )
            w.user("Salamat!")

    if nxt == 0:
        step: tuple[str, tuple[str, ...]] = (
            secret,
            ("rotat", "palit", "secret", "put", "rotation"),
        )
        q, a = "Which secret must be rotated, and by when?", f"{secret}, before {at}."
    elif nxt == 1:
        step = (pr, ("merge", "deploy", "ci", "pr"))
        q = "What happens when CI passes on the pending PR?"
        a = f"Merge PR #{pr} and deploy to production."
    else:
        step = (route, ("route", "ruta", "seed", "dagdag", "add"))
        q = "What did the agent promise to add to the seed data?"
        a = f"The route {route}."
    probes.append(_probe("next_step", q, a, (step[0],), step[1]))

    def decision() -> None:
        _talk(w, flows[mode], v=hint, o=old_hint)

    def read_noise() -> None:
        w.sh(
            "Binabasa ko ang wrangler.toml.",
            "cat wrangler.toml",
            'name = "parapo-api"\nmain = "src/index.ts"\ncompatibility_date = "2024-03-04"\n\n'
            '[[kv_namespaces]]\nbinding = "CACHE"\n'
            f'id = "{hexits(rng, 32)}"\n\n[[d1_databases]]\nbinding = "DB"\n'
            'database_name = "parapo-db"\n'
            f'database_id = "{hexits(rng, 8)}-{hexits(rng, 4)}-{hexits(rng, 4)}-xxxx"\n\n'
            '[env.production]\nroutes = [{ pattern = "api.parapo.ph/*", zone_name = '
            '"parapo.ph" }]',
        )

    def test_noise() -> None:
        w.sh(
            "Tests muna:",
            "npx vitest run --reporter=dot",
            "\n" + "·" * rng.randint(30, 60) + "\n\n Test Files  11 passed (11)\n"
            f"      Tests  {rng.randint(60, 90)} passed\n   Start at  10:1{rng.randint(0, 9)}:07\n"
            f"   Duration  {rng.randint(2, 6)}.{rng.randint(10, 99)}s",
        )

    def whoami_noise() -> None:
        w.sh(
            "Sino ang naka-login sa wrangler?",
            "npx wrangler whoami",
            "Getting User settings...\n👋 You are logged in with an API Token, associated "
            "with the email ci@parapo.ph.\n┌──────────────┬──────────────────────────────────┐\n"
            "│ Account Name │ Account ID                       │\n"
            "├──────────────┼──────────────────────────────────┤\n"
            f"│ Para Po      │ {hexits(rng, 32)} │\n"
            "└──────────────┴──────────────────────────────────┘",
        )

    def kv_noise() -> None:
        w.sh(
            "Laman ng CACHE:",
            "npx wrangler kv key list --binding CACHE --env production | head -c 400",
            "["
            + ", ".join(
                f'{{"name": "fare:{r}", "expiration": {rng.randint(1710000000, 1719999999)}}}'
                for r in rng.sample(
                    ("cubao-quiapo", "quiapo-divisoria", "pasay-baclaran", "monumento-recto"), 3
                )
            )
            + "]",
        )
        w.say("Normal ang laman ng cache.")

    middle: list[_Block] = [
        version_block,
        run_block,
        ray_block,
        decision,
        next_step,
        *(art_block(a) for a in rng.sample(arts, 2)),
        *rng.sample((read_noise, test_noise, whoami_noise, kv_noise), rng.randint(3, 4)),
    ]
    _opening(rng, (intro, *early), middle)
    w.say(
        rng.choice(
            (
                "Yan muna sa ngayon. Ano ang susunod?",
                "Tapos na ang round na ito.",
                "Ready na ako sa susunod.",
            )
        )
    )
    opening = b.take()

    def fill(r: random.Random) -> None:
        v = r.randrange(4)
        if v == 0:
            w.user("Patakbuhin ang tests ng stops.")
            w.sh(
                "vitest:",
                "npx vitest run src/routes/stops.test.ts",
                f" ✓ src/routes/stops.test.ts ({r.randint(4, 12)} tests) {r.randint(20, 90)}ms\n\n"
                " Test Files  1 passed (1)",
            )
            w.say("Pasado lahat.")
        elif v == 1:
            w.user("Anong mga PR ang bukas?")
            w.sh(
                "gh pr list:",
                "gh pr list -L 3",
                noise_lines(
                    r,
                    3,
                    lambda q: (
                        f"#{q.randint(10, 59)}\tstops: "
                        f"{q.choice(('nearby radius', 'sort by distance', 'etag'))}\t"
                        f"feat/stops-{q.randint(1, 9)}\tOPEN"
                    ),
                ),
            )
            w.say("Tatlong maliit na PR tungkol sa stops.")
        elif v == 2:
            w.user("I-lint ang geo helper.")
            w.sh(
                "eslint:",
                "npx eslint src/lib/geo.ts",
                f"src/lib/geo.ts\n  {r.randint(5, 60)}:7  warning  'R' is assigned a value but "
                "never used  @typescript-eslint/no-unused-vars\n\n"
                "✖ 1 problem (0 errors, 1 warning)",
            )
            w.say("Isang warning lang, aayusin ko mamaya.")
        else:
            w.user("Ilan ang rows sa stops table?")
            w.sh(
                "d1:",
                "npx wrangler d1 execute parapo-db --remote --command "
                "'select count(*) as n from stops'",
                f"┌─────┐\n│ n   │\n├─────┤\n│ {r.randint(300, 900)} │\n└─────┘",
            )
            w.say("Ayan ang bilang ng stops.")

    return opening, segments_of(rng, b, segments, fill), probes


_TEMPLATES: dict[str, Template] = {
    "villamos_terraform": _villamos,
    "merdvakt_phoenix": _merdvakt,
    "farsh_grpc": _farsh,
    "wakala_ansible": _wakala,
    "rozalia_cargo": _rozalia,
    "parapo_wrangler": _parapo,
}
HELDOUT11_KINDS: tuple[str, ...] = tuple(_TEMPLATES)


def generate_heldout11(kind: str, seed: int, *, segments: int = 10) -> Session:
    """The eleventh held-out session of ``kind`` for ``seed`` (see the module docstring);
    the same seed always gives the same session."""
    return build_session(
        _TEMPLATES, kind, seed, segments, seed_prefix="heldout11:", label="heldout11"
    )
