"""A second held-out set of fidelity sessions, written apart from the compaction code.

Six kinds of long agent sessions, each planting seven probes in its opening (three
``identifier``, two ``artifact``, one ``decision`` the user later changes, one
``next_step`` behind a condition) and then running ``segments`` filler segments of
unrelated, realistic work full of distractor ids, paths, figures and record updates:

``mobile``
    an iOS crash fixed on a branch (crash reporter JSON, xcodebuild, git status);
``ml``
    a training run that diverged (Slurm, a run tracker's JSON, a training log, YAML);
``legal``
    a contract review in Italian (R.G. numbers, a PEC message, a redline, a matter record);
``logistics``
    a container arrival in Dutch (container and SSCC numbers, a customs declaration);
``gamedev``
    a boss fight softlock, told in terse lowercase chat with typos (Perforce, Unity, Steam);
``payroll``
    a termination in Brazilian Portuguese (CNPJ, eSocial events and receipts, a spreadsheet).

Facts sit where agents really find them: in the user's words, the assistant's text,
tool arguments, the first line of a tool output, or deep inside JSON, YAML, XML and
logs. Planted ids are drawn from namespaces the filler never uses, so a filler segment
never repeats one. Every session comes from ``random.Random(f"heldout2:{kind}:{seed}")``.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable, Sequence

from contextfold_harness.fidelity._build import (
    Builder,
    Parts,
    Probe,
    Session,
    build_session,
    hexits,
    noise_lines,
    segments_of,
    token,
)

__all__ = ["HELDOUT2_KINDS", "generate_heldout2"]

_LOWER = string.ascii_lowercase + string.digits


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


def _digits(rng: random.Random, n: int) -> str:
    return token(rng, n, string.digits)


def _babble(rng: random.Random, words: Sequence[str], sentences: int) -> str:
    out = []
    for _ in range(sentences):
        picked = [rng.choice(words) for _ in range(rng.randint(7, 12))]
        out.append(" ".join(picked).capitalize() + ".")
    return " ".join(out)


def _lines(rng: random.Random, low: int, high: int, make: Callable[[random.Random], str]) -> str:
    return noise_lines(rng, rng.randint(low, high), make)


# --- mobile ------------------------------------------------------------------------------

_APPS = ("Fernweh", "Tally", "Brisk", "Pantry", "Kestrel", "Lumen")
_AREAS = ("Checkout", "Cart", "Wallet")
_OTHER_AREAS = ("Profile", "Search", "Settings", "Onboarding", "Inbox", "Rewards")
_SWIFT_SUFFIXES = ("SummaryView", "ViewModel", "Coordinator", "Store")
_KT_SUFFIXES = ("Fragment", "ViewModel", "Repository", "Adapter")
_LEGACY = ("RNCartBridge", "LegacyPaymentShim", "OBJCCurrencyFormatter", "MTLegacyTotals")
_MOBILE_WORDS = _words(
    "view state binding layout sheet inset locale cache snapshot gesture scroll badge "
    "feed image prefetch render thread actor async launch frame keyboard insets "
    "placeholder"
)
_COMPLAINTS = (
    "logs a purple runtime warning on cold launch",
    "flickers when the keyboard comes up",
    "leaks the image cache after a few scrolls",
    "shows the wrong badge count after a push",
    "jumps to the top when the feed refreshes",
)


def _mobile(rng: random.Random, b: Builder, segments: int) -> Parts:
    app = rng.choice(_APPS)
    area = rng.choice(_AREAS)
    swift = f"ios/{app}/Features/{area}/{area}{rng.choice(_SWIFT_SUFFIXES)}.swift"
    legacy = f"ios/{app}/Legacy/{rng.choice(_LEGACY)}.m"
    branch = f"fix/MOB-{rng.randint(1000, 9999)}-{area.lower()}-nil-currency"
    crash_id = hexits(rng, 32)
    project = f"{app.lower()}-ios-{hexits(rng, 6)}"
    final = rng.choice((14, 15, 16))
    proposed = final + rng.choice((1, 2))
    tests = rng.randint(30, 90)

    def build_number(r: random.Random) -> str:
        return f"{r.randint(5, 8)}.{r.randint(0, 14)}.{r.randint(0, 3)} ({r.randint(30000, 59999)})"

    build = build_number(rng)

    b.user(
        f"{app} on iOS is crashing in {area.lower()} since the last TestFlight push; crash-free "
        f"sessions fell to {rng.randint(95, 98)}.{rng.randint(0, 9)}%. I'm on branch `{branch}`. "
        "Pull the top crash from the reporter and fix it. And while you're in there, bump the "
        f"deployment target to iOS {proposed} so we can drop a pile of #available checks."
    )
    issues = {
        "data": [
            {
                "id": crash_id,
                "title": f"EXC_BAD_ACCESS (SIGSEGV) {area}Totals.total.getter",
                "events": rng.randint(2000, 9000),
                "users": rng.randint(400, 1900),
                "first_seen_build": build,
                "state": "open",
                "platform": "ios",
            },
            *(
                {
                    "id": hexits(rng, 32),
                    "title": rng.choice(
                        (
                            "NSInternalInconsistencyException UITableView batch update",
                            "SIGABRT in AVAudioSession.setActive",
                            "Watchdog termination 0x8badf00d on resume",
                        )
                    ),
                    "events": rng.randint(40, 900),
                    "users": rng.randint(10, 300),
                    "first_seen_build": build_number(rng),
                    "state": "open",
                    "platform": "ios",
                }
                for _ in range(2)
            ),
        ],
        "meta": {"page": 1, "per_page": 3, "total": rng.randint(40, 120)},
    }
    reporter = f"https://crashes.{app.lower()}.dev/api/v2/projects/{project}"
    b.tool(
        "Pulling the top issues from the crash reporter.",
        "http_request",
        {"method": "GET", "url": f"{reporter}/issues?sort=-events&limit=3"},
        json.dumps(issues, indent=2),
    )
    b.tool(
        "Reading the view that owns the total.",
        "fs_read",
        {"filename": swift, "lines": "100-160"},
        "    var total: Decimal {\n        cart.currency!.round(subtotal)\n    }\n"
        + _lines(
            rng,
            14,
            18,
            lambda r: (
                f"    private var {r.choice(_MOBILE_WORDS)}{hexits(r, 3)}: "
                f"{r.choice(('CGFloat', 'Int', 'String', 'Bool'))} = {r.randint(0, 64)}"
            ),
        ),
    )
    b.tool(
        "And when that line last changed.",
        "shell",
        {"cmd": f"git log --oneline -5 -- {swift}"},
        _lines(
            rng,
            5,
            5,
            lambda r: f"{hexits(r, 9)} {_babble(r, _MOBILE_WORDS, 1)}",
        ),
    )
    b.assistant(
        "The top issue is the total getter force-unwrapping `cart.currency`: it is nil when the "
        "cart is restored on a background launch, which the last build started doing. I'll guard "
        "it and return zero until the currency loads."
    )
    b.user("go ahead, then run the checkout test scheme")
    b.tool(
        "Patching the getter.",
        "apply_patch",
        {
            "patch": (
                f"*** Begin Patch\n*** Update File: {swift}\n@@ var total: Decimal {{\n"
                "-        cart.currency!.round(subtotal)\n"
                "+        guard let currency = cart.currency else { return .zero }\n"
                "+        return currency.round(subtotal)\n*** End Patch"
            )
        },
        f"Success. Updated the following files:\nM {swift}",
    )
    b.tool(
        "Running the tests on the simulator.",
        "shell",
        {
            "cmd": (
                f"xcodebuild test -workspace {app}.xcworkspace -scheme {app}{area}Tests "
                "-destination 'platform=iOS Simulator,name=iPhone 15' -quiet"
            )
        },
        _lines(
            rng,
            8,
            10,
            lambda r: (
                f"Test Case '-[{app}{area}Tests test_{r.choice(_MOBILE_WORDS)}_{hexits(r, 3)}]' "
                f"passed ({r.randint(0, 2)}.{_digits(r, 3)} seconds)."
            ),
        )
        + f"\nExecuted {tests} tests, with 0 failures (0 unexpected) in "
        f"{rng.randint(2, 9)}.{_digits(rng, 3)} seconds\n** TEST SUCCEEDED **",
    )
    b.tool(
        "Leaving a note on the crash issue.",
        "http_request",
        {
            "method": "POST",
            "url": f"{reporter}/issues/{crash_id}/notes",
            "json": {"body": f"Guarded nil currency on {branch}, in review"},
        },
        json.dumps({"ok": True, "note_id": rng.randint(10_000, 99_999)}),
    )
    b.assistant(
        f"Patched {swift}: the {app}{area}Tests scheme passes on the iPhone 15 simulator "
        f"({tests} tests, 0 failures). I noted the fix on the crash issue."
    )
    b.user(
        f"Hmm no, leave the deployment target at iOS {final}: about {rng.randint(6, 14)}% of "
        f"paying users are still on it. Separately, {legacy} is dead code since the Swift "
        "rewrite, delete it."
    )
    b.tool(
        "Removing the old bridge.",
        "shell",
        {"cmd": f"git rm -q {legacy} && git status"},
        f"On branch {branch}\nChanges to be committed:\n"
        '  (use "git restore --staged <file>..." to unstage)\n'
        f"\tdeleted:    {legacy}\n\nChanges not staged for commit:\n"
        f"\tmodified:   {swift}\n\tmodified:   ios/{app}.xcodeproj/project.pbxproj\n",
    )
    b.tool(
        "Checking the Android side still builds against the shared totals module.",
        "shell",
        {"cmd": "./gradlew :shared:totals:testDebugUnitTest --console=plain"},
        _lines(
            rng,
            6,
            8,
            lambda r: f"> Task :shared:totals:{r.choice(_MOBILE_WORDS)}{hexits(r, 2)} UP-TO-DATE",
        )
        + f"\nBUILD SUCCESSFUL in {rng.randint(20, 70)}s",
    )
    b.assistant(
        f"Left the deployment target where it is and deleted {legacy}. Android's shared totals "
        "module builds and its tests pass."
    )
    b.user(
        "Once the crash-free rate on the next TestFlight build is back above 99.5%, ship the "
        "Android build to the Play Console internal testing track. Not before."
    )
    b.assistant("Will do, after the crash-free rate recovers.")
    opening = b.take()
    probes = [
        Probe("identifier", "Which branch holds the fix?", branch, ((branch,),)),
        Probe(
            "identifier", "What is the crash reporter's id of the crash?", crash_id, ((crash_id,),)
        ),
        Probe("identifier", "In which build did the crash first appear?", build, ((build,),)),
        Probe(
            "artifact",
            f"What is the state of {swift}?",
            f"{swift} was patched and the checkout tests passed",
            (
                (swift,),
                ("patched", "modified", "edited", "changed", "updated", "fixed"),
                ("pass", "succeeded", "0 failures", "green"),
            ),
        ),
        Probe(
            "artifact",
            f"What happened to {legacy}?",
            f"{legacy} was deleted",
            ((legacy,), ("deleted", "removed", "deletion", "git rm")),
        ),
        Probe(
            "decision",
            "What is the iOS deployment target?",
            f"It stays at iOS {final} (the user withdrew the bump to iOS {proposed})",
            ((f"ios {final}", f"ios{final}", f"{final}.0"), ("deployment", "minimum")),
        ),
        Probe(
            "next_step",
            "What is the next step, and when?",
            "Once crash-free sessions are back above 99.5% on the next TestFlight build, ship "
            "the Android build to the Play Console internal testing track",
            (("internal",), ("play",), ("track", "testing")),
        ),
    ]

    def filler(r: random.Random) -> None:
        other_area = r.choice(_OTHER_AREAS)
        ios = r.random() < 0.5
        if ios:
            other = f"ios/{app}/Features/{other_area}/{other_area}{r.choice(_SWIFT_SUFFIXES)}.swift"
        else:
            other = (
                f"android/app/src/main/java/com/{app.lower()}/{other_area.lower()}/"
                f"{other_area}{r.choice(_KT_SUFFIXES)}.kt"
            )
        symbol = f"{r.choice(_MOBILE_WORDS)}{hexits(r, 3)}"
        b.user(
            f"Side thing from MOB-{r.randint(100, 999)}: {other} {r.choice(_COMPLAINTS)}. "
            "Can you take a look?"
        )
        b.tool(
            "Reading it.",
            "fs_read",
            {"filename": other},
            _lines(
                r,
                12,
                16,
                lambda q: (
                    f"    {'let' if ios else 'val'} {q.choice(_MOBILE_WORDS)}{hexits(q, 3)} = "
                    f'{q.choice(_MOBILE_WORDS)}Provider.make(id: "{token(q, 8)}", '
                    f"size: {q.randint(1, 512)})"
                ),
            ),
        )
        b.tool(
            "Finding the other uses.",
            "shell",
            {"cmd": f"rg -n '{symbol}' ios android"},
            _lines(
                r,
                9,
                12,
                lambda q: (
                    f"{'ios' if q.random() < 0.5 else 'android'}/{q.choice(_OTHER_AREAS)}/"
                    f"{hexits(q, 5)}.{q.choice(('swift', 'kt'))}:{q.randint(1, 700)}: "
                    f"{_babble(q, _MOBILE_WORDS, 1)}"
                ),
            ),
        )
        if r.random() < 0.5:
            listing = {
                "data": [
                    {
                        "id": hexits(r, 32),
                        "title": f"{r.choice(_OTHER_AREAS)}{r.choice(_SWIFT_SUFFIXES)} "
                        f"{r.choice(('SIGTRAP', 'SIGABRT', 'OOM'))}",
                        "events": r.randint(1, 400),
                        "first_seen_build": (
                            f"{r.randint(5, 8)}.{r.randint(0, 14)}.{r.randint(0, 3)} "
                            f"({r.randint(60000, 99999)})"
                        ),
                    }
                    for _ in range(r.randint(1, 2))
                ]
            }
            b.tool(
                "Checking whether it shows up in the crash reporter.",
                "http_request",
                {"method": "GET", "url": f"https://crashes.{app.lower()}.dev/api/v2/search"},
                json.dumps(listing, indent=2),
            )
        b.assistant(
            f"It comes from the {r.choice(_MOBILE_WORDS)} path. {_babble(r, _MOBILE_WORDS, 3)}"
        )
        b.user("ok fix it and run that module's tests")
        b.tool(
            "Patching.",
            "apply_patch",
            {
                "patch": (
                    f"*** Begin Patch\n*** Update File: {other}\n@@\n-    {symbol}.reload()\n"
                    f"+    {symbol}.reloadIfNeeded()\n*** End Patch"
                )
            },
            f"Success. Updated the following files:\nM {other}",
        )
        count = r.randint(6, 40)
        if ios:
            out = (
                f"Executed {count} tests, with 0 failures (0 unexpected) in "
                f"{r.randint(1, 9)}.{_digits(r, 3)} seconds\n** TEST SUCCEEDED **"
            )
            cmd = f"xcodebuild test -scheme {app}{other_area}Tests -quiet"
        else:
            out = (
                _lines(
                    r,
                    4,
                    6,
                    lambda q: f"> Task :app:{q.choice(_MOBILE_WORDS)}{hexits(q, 2)}",
                )
                + f"\nversionCode {r.randint(700, 999)}{_digits(r, 3)}\n"
                f"{count} tests completed\nBUILD SUCCESSFUL in {r.randint(10, 90)}s"
            )
            cmd = f"./gradlew :app:test{other_area}DebugUnitTest"
        b.tool("Running them.", "shell", {"cmd": cmd}, out)
        b.assistant(f"Fixed {other}; {count} tests pass (log {hexits(r, 10)}).")

    return opening, segments_of(rng, b, segments, filler), probes


# --- ml ----------------------------------------------------------------------------------

_FAMILIES = ("lm-350m", "vit-b16", "wav2vec-small", "t5-base", "convnext-t")
_PLANTED_TAGS = ("ablate", "dedup", "warmup")
_FILLER_TAGS = ("sweep", "lrfind", "bsz", "mixup")
_ML_WORDS = _words(
    "loss step batch shard warmup schedule gradient token dataset sampler node "
    "throughput checkpoint optimizer cosine decay dropout seed epoch loader "
    "augmentation accumulation"
)


def _ml(rng: random.Random, b: Builder, segments: int) -> Parts:
    family = rng.choice(_FAMILIES)
    exp = f"{family}-{rng.choice(_PLANTED_TAGS)}-{hexits(rng, 4)}"
    run_id = token(rng, 8, _LOWER)
    job = str(rng.randint(4_000_000, 4_999_999))
    bucket = f"ml-ckpts-{rng.choice(('vision', 'speech', 'text', 'core'))}"
    best_step = rng.randint(12, 19) * 1000
    ckpt = f"s3://{bucket}/{exp}/step_{best_step:07d}.safetensors"
    cfg = f"configs/{family}/{exp.split('-')[-2]}.yaml"
    gate = rng.randint(20, 30)
    warm_old, warm_new = rng.choice(((1000, 4000), (2000, 6000), (500, 3000)))
    val = f"0.{rng.randint(3000, 4999)}"
    gpu_h = rng.randint(300, 900)

    b.user(
        f"{exp} blew up overnight, loss went to NaN a bit after step {best_step // 1000 + 2}k. "
        f"Find out why and set up a rerun. Keep the rerun in bf16 like the baseline so the "
        f"curves are comparable. We have {gpu_h} GPU hours left this month."
    )
    b.tool(
        "Is the job still holding the nodes?",
        "shell",
        {"cmd": "squeue --me --format='%.9i %.30j %.2t %.10M %R'"},
        "    JOBID                           NAME ST       TIME NODELIST\n"
        f"  {job} {exp:>30} R   11:42:07 gpu-a100-[{rng.randint(10, 40)}-{rng.randint(41, 60)}]\n"
        + _lines(
            rng,
            2,
            3,
            lambda r: (
                f"  {r.randint(5_000_000, 5_999_999)} "
                f"{r.choice(_FAMILIES) + '-' + r.choice(_FILLER_TAGS):>30} PD    0:00 (Priority)"
            ),
        ),
    )
    runs = {
        "experiment": exp,
        "runs": [
            {
                "run_id": token(rng, 8, _LOWER),
                "state": "finished",
                "tags": ["baseline", "bf16"],
                "summary": {"val_loss": float(f"0.{rng.randint(3000, 4999)}"), "step": 40000},
            },
            {
                "run_id": run_id,
                "state": "running",
                "tags": ["bf16", exp.split("-")[-2]],
                "summary": {
                    "val_loss": float(val),
                    "train_loss": "NaN",
                    "grad_norm": "inf",
                    "step": best_step + rng.randint(2000, 2900),
                },
            },
        ],
    }
    b.tool(
        "Pulling the runs from the tracker.",
        "http_request",
        {"method": "GET", "url": f"https://track.mlplatform.io/api/experiments/{exp}/runs"},
        json.dumps(runs, indent=2),
    )

    def log_lines(r: random.Random, start: int, stop: int) -> str:
        return "\n".join(
            f"step {step} | loss {r.uniform(1.8, 2.4):.4f} | lr {r.uniform(2.4, 3):.2f}e-04"
            f" | grad_norm {r.uniform(0.3, 1.4):.2f}"
            for step in range(start, stop, 100 * r.randint(1, 2))
        )

    b.tool(
        "Reading the end of the training log.",
        "fs_read",
        {"filename": f"runs/{exp}/train.log", "tail": 40},
        log_lines(rng, best_step - 1200, best_step)
        + f"\n[eval] step {best_step} val_loss {val} (best so far)\n"
        f"saving checkpoint to {ckpt}\n"
        + log_lines(rng, best_step + 100, best_step + 1500)
        + f"\nstep {best_step + 2210} | loss 9.8812 | lr 2.97e-04 | grad_norm 412.70\n"
        f"step {best_step + 2220} | loss nan | lr 2.97e-04 | grad_norm inf",
    )
    b.tool(
        "And the config it ran with.",
        "shell",
        {"cmd": f"cat {cfg}"},
        f"model: {family}\nprecision: bf16\noptimizer:\n  name: adamw\n  lr: 3.0e-4\n"
        f"  betas: [0.9, 0.95]\nschedule:\n  warmup_steps: {warm_old}\n  decay: cosine\n"
        f"max_grad_norm: 0.0\nbatch_size: {rng.choice((256, 512, 1024))}\n"
        f"data:\n  shards: {rng.randint(64, 512)}\n",
    )
    b.assistant(
        f"Gradient clipping is off (max_grad_norm 0.0) and the warmup is only {warm_old} steps; "
        "the gradient norm spikes to 412 right before the NaN. The job is still on the nodes "
        "burning GPU hours."
    )
    b.user("kill it, then fix the config")
    b.tool(
        "Cancelling the job.",
        "shell",
        {"cmd": f"scancel {job} && sacct -j {job} --format=JobID,JobName%30,State,Elapsed"},
        "JobID                                  JobName      State    Elapsed\n"
        f"{job} {exp:>30} CANCELLED+   11:49:31\n"
        f"{job}.batch                          batch CANCELLED   11:49:31",
    )
    b.tool(
        "Patching the config.",
        "apply_patch",
        {
            "patch": (
                f"--- a/{cfg}\n+++ b/{cfg}\n@@ schedule:\n-  warmup_steps: {warm_old}\n"
                f"+  warmup_steps: {warm_new}\n@@\n-max_grad_norm: 0.0\n+max_grad_norm: 1.0\n"
            )
        },
        f"patching file {cfg}",
    )
    b.assistant(
        f"Changed {cfg}: warmup {warm_old} -> {warm_new} steps and gradient clipping at 1.0. "
        f"The best checkpoint before the blow-up is the step {best_step} one."
    )
    b.user(
        "ok forget what I said about bf16. do the rerun in fp32, I want precision ruled out "
        "before anyone blames the data."
    )
    b.tool(
        "Submitting the rerun.",
        "shell",
        {"cmd": f"sbatch --job-name={exp}-rerun scripts/train.sh {cfg} --precision fp32"},
        f"Submitted batch job {rng.randint(6_000_000, 6_999_999)}",
    )
    b.assistant("The rerun is queued.")
    b.user(
        f"if it gets past step {gate}k without a grad-norm spike, launch the eval suite on the "
        "best checkpoint. don't burn eval hours before that."
    )
    b.assistant(f"Understood, evals only after step {gate}k passes cleanly.")
    opening = b.take()
    probes = [
        Probe("identifier", "Which experiment diverged?", exp, ((exp,),)),
        Probe(
            "identifier", "What is the tracker's run id of the diverged run?", run_id, ((run_id,),)
        ),
        Probe("identifier", "Where is the best checkpoint?", ckpt, ((ckpt,),)),
        Probe(
            "artifact",
            f"What is the state of {cfg}?",
            f"{cfg} was modified (longer warmup, clipping at 1.0)",
            ((cfg,), ("changed", "modified", "edited", "updated", "patched")),
        ),
        Probe(
            "artifact",
            f"What is the state of Slurm job {job}?",
            f"Job {job} was cancelled after it diverged",
            ((job,), ("cancelled", "canceled", "diverged", "killed", "scancel")),
        ),
        Probe(
            "decision",
            "Which precision does the rerun use?",
            "fp32 (the user withdrew the earlier bf16 instruction)",
            (("fp32", "float32", "full precision", "full-precision"),),
        ),
        Probe(
            "next_step",
            "What is the next step, and when?",
            f"Launch the eval suite on the best checkpoint once the rerun passes step {gate}k "
            "without a grad-norm spike",
            (("eval",), (f"{gate}k", f"{gate},000", f"{gate}000", f"{gate} 000")),
        ),
    ]

    def filler(r: random.Random) -> None:
        other = f"{r.choice(_FAMILIES)}-{r.choice(_FILLER_TAGS)}-{hexits(r, 4)}"
        other_cfg = f"configs/sweeps/{other}.yaml"
        b.user(f"unrelated: how is {other} doing? {_babble(r, _ML_WORDS, 1)}")
        listing = {
            "experiment": other,
            "runs": [
                {
                    "run_id": token(r, 8, _LOWER),
                    "state": r.choice(("finished", "running", "queued")),
                    "summary": {
                        "val_loss": round(r.uniform(0.2, 0.9), 3),
                        "step": r.randint(1, 60) * 1000,
                        "gpu_hours": round(r.uniform(5, 300), 1),
                    },
                }
                for _ in range(r.randint(4, 6))
            ],
        }
        b.tool(
            "Checking the tracker.",
            "http_request",
            {"method": "GET", "url": f"https://track.mlplatform.io/api/experiments/{other}/runs"},
            json.dumps(listing, indent=2),
        )
        b.tool(
            "And the queue.",
            "shell",
            {"cmd": "squeue --me"},
            _lines(
                r,
                14,
                18,
                lambda q: (
                    f"  {q.randint(5_000_000, 5_999_999)} "
                    f"{q.choice(_FAMILIES)}-{q.choice(_FILLER_TAGS)}-{hexits(q, 4)} "
                    f"{q.choice(('R', 'PD'))} {q.randint(0, 23)}:{q.randint(10, 59)}:"
                    f"{q.randint(10, 59)} gpu-a100-{q.randint(1, 80)}"
                ),
            ),
        )
        b.assistant(f"{other} looks healthy. {_babble(r, _ML_WORDS, 3)}")
        b.user(f"bump its batch size to {r.choice((128, 256, 384))} and note it")
        b.tool(
            "Editing its config.",
            "fs_write",
            {
                "filename": other_cfg,
                "contents": f"model: {other.split('-')[0]}\nbatch_size: {r.randint(64, 512)}\n"
                + noise_lines(
                    r, 10, lambda q: f"{q.choice(_ML_WORDS)}_{hexits(q, 2)}: {q.randint(1, 999)}"
                ),
            },
            f"wrote {other_cfg} ({r.randint(300, 900)} bytes)",
        )
        b.tool(
            "Logging the change.",
            "http_request",
            {
                "method": "POST",
                "url": f"https://track.mlplatform.io/api/experiments/{other}/notes",
                "body": {"text": _babble(r, _ML_WORDS, 1)},
            },
            json.dumps({"id": hexits(r, 12), "created": True}),
        )
        b.assistant(f"Updated {other_cfg}; {_babble(r, _ML_WORDS, 1)} (note {hexits(r, 8)}).")

    return opening, segments_of(rng, b, segments, filler), probes


# --- legal (Italian) ---------------------------------------------------------------------

_CITIES = (
    ("Milano", "Milan"),
    ("Torino", "Turin"),
    ("Bologna", "Bologna"),
    ("Roma", "Rome"),
    ("Firenze", "Florence"),
    ("Napoli", "Naples"),
    ("Genova", "Genoa"),
)
_CLIENTS = ("Ferraresi", "Lucchini", "Bertoldi", "Marangoni", "Zanetti", "Colombo")
_COUNTERPARTS = ("Alpitrans", "Nordfarma", "Vetrerie Riunite", "Tessiland", "Edilcasa")
_IT_WORDS = _words(
    "contratto parte clausola fornitore cliente obbligo termine recesso garanzia "
    "corrispettivo fattura consegna riservatezza responsabilità comunicazione scritta "
    "giorni efficacia rinnovo durata servizio allegato modifica pagamento"
)


def _legal(rng: random.Random, b: Builder, segments: int) -> Parts:
    client = rng.choice(_CLIENTS)
    counterpart = rng.choice(_COUNTERPARTS)
    year = rng.choice((2023, 2024))
    rg = f"{rng.randint(1000, 9999)}/{year}"
    contract = f"CQ-{year + 1}-{token(rng, 5)}"
    pec = (
        f"opec{rng.randint(200, 299)}.{year + 1}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}"
        f"{rng.randint(8, 19):02d}{rng.randint(0, 59):02d}{rng.randint(0, 59):02d}"
        f".{_digits(rng, 5)}.{rng.randint(100, 999)}.1.{rng.randint(10, 99)}"
        "@pec.aruba.it"
    )
    matter = f"PR-{year + 1}-{rng.randint(1000, 9999)}"
    redline = (
        f"pratiche/{client.lower()}/Contratto_quadro_{client}_redline_v{rng.randint(2, 5)}.docx"
    )
    first, final = rng.sample(_CITIES, 2)
    clause = f"{rng.randint(8, 19)}.{rng.randint(2, 6)}"
    days = rng.randint(15, 60)

    b.user(
        f"Buongiorno. Dobbiamo rivedere il contratto quadro tra {client} S.p.A. e {counterpart} "
        f"prima della firma; c'è già un contenzioso collegato (R.G. n. {rg}, Tribunale di "
        f"{first[0]}). Il foro competente resta {first[0]}, come nella bozza. Cerca la PEC "
        "della controparte con l'ultima versione."
    )
    b.tool(
        "Cerco la PEC con l'ultima bozza.",
        "pec_read",
        {"mailbox": "studio", "query": f"from:{counterpart.lower().replace(' ', '')} bozza"},
        f"Message-ID: <{pec}>\nDa: legale@pec.{counterpart.lower().replace(' ', '')}.it\n"
        f"Oggetto: Contratto quadro - bozza rivista\nAllegati: bozza_v{rng.randint(3, 6)}.docx\n\n"
        + _babble(rng, _IT_WORDS, 4),
    )
    meta = {
        "documento": "bozza contratto quadro",
        "parti": [f"{client} S.p.A.", counterpart],
        "metadati": {
            "numero_contratto": contract,
            "versione": rng.randint(3, 6),
            "pagine": rng.randint(18, 40),
            "lingua": "it",
        },
        "clausole_modificate": [f"{rng.randint(2, 7)}.{rng.randint(1, 4)}", clause, "21.1"],
    }
    b.tool(
        "Leggo i metadati dell'allegato.",
        "docs_fetch",
        {"attachment": 1, "format": "json"},
        json.dumps(meta, indent=2, ensure_ascii=False),
    )
    b.tool(
        "Leggo la clausola sulle penali.",
        "docx_read",
        {"path": "allegati/bozza_controparte.docx", "section": clause},
        f"Art. {clause} - Penali. In caso di ritardo nella consegna il Fornitore corrisponderà "
        f"una penale pari all'1% del corrispettivo per ogni giorno, fino a {days} giorni. "
        + _babble(rng, _IT_WORDS, 3),
    )
    b.assistant(
        f"La controparte ha toccato tre clausole; la più delicata è la {clause} sulle penali, "
        "che ora non ha un tetto massimo."
    )
    b.user("Prepara la redline rispetto alla nostra versione e aggiorna la pratica nel gestionale.")
    b.tool(
        "Genero il confronto.",
        "docx_compare",
        {
            "original": f"pratiche/{client.lower()}/Contratto_quadro_{client}_nostra.docx",
            "revised": "allegati/bozza_controparte.docx",
            "output": redline,
        },
        f"Creato il documento di confronto {redline}: {rng.randint(9, 30)} revisioni, "
        f"{rng.randint(2, 6)} commenti",
    )
    b.tool(
        "Aggiorno lo stato della pratica.",
        "http_request",
        {
            "method": "PATCH",
            "url": f"https://gestionale.studiolegale.it/api/pratiche/{matter}",
            "body": {"stato": "in_attesa_firma"},
        },
        json.dumps(
            {
                "id": matter,
                "cliente": client,
                "stato": "in_attesa_firma",
                "stato_precedente": "in_lavorazione",
                "aggiornato": f"{year + 1}-0{rng.randint(1, 9)}-{rng.randint(10, 28)}",
            }
        ),
    )
    b.assistant(
        "Redline pronta e pratica aggiornata. Nella redline ho lasciato invariato il foro "
        "competente."
    )
    b.user(
        f"Pensandoci meglio, il foro competente deve essere {final[0]}: il cliente ha la sede "
        f"legale lì e preferisce non andare a {first[0]}. Correggi anche la redline."
    )
    b.assistant(f"Va bene, indico {final[0]} come foro competente nella redline.")
    b.user(
        f"Appena arriva il parere del fiscalista, riscrivi la clausola {clause} sulle penali con "
        "un tetto del 10%. Prima non toccarla."
    )
    b.assistant(f"D'accordo: la clausola {clause} la riscrivo solo dopo il parere del fiscalista.")
    opening = b.take()
    probes = [
        Probe("identifier", "What is the case number of the related litigation?", rg, ((rg,),)),
        Probe("identifier", "What is the contract number?", contract, ((contract,),)),
        Probe("identifier", "What is the Message-ID of the counterpart's PEC?", pec, ((pec,),)),
        Probe(
            "artifact",
            f"What is the state of {redline}?",
            f"{redline} was created",
            ((redline,), ("creato", "creata", "generato", "generata", "created", "nuovo", "new")),
        ),
        Probe(
            "artifact",
            f"What is the status of matter {matter}?",
            f"{matter} is awaiting signature (in_attesa_firma)",
            (
                (matter,),
                (
                    "in_attesa_firma",
                    "in attesa di firma",
                    "attesa firma",
                    "awaiting signature",
                    "pending signature",
                    "waiting for signature",
                ),
            ),
        ),
        Probe(
            "decision",
            "Which court has jurisdiction under the contract?",
            f"{final[0]} (the user changed it from {first[0]})",
            (
                tuple(dict.fromkeys((final[0].lower(), final[1].lower()))),
                ("foro", "venue", "jurisdiction", "court", "tribunale"),
            ),
        ),
        Probe(
            "next_step",
            "What is the next step, and when?",
            f"Once the tax adviser's opinion arrives, rewrite clause {clause} on penalties with "
            "a 10% cap",
            ((clause,), ("penal",)),
        ),
    ]
    other_courts = ("Padova", "Bari", "Trento", "Brescia", "Perugia", "Cagliari")

    def filler(r: random.Random) -> None:
        other = f"PR-{r.randint(2019, 2022)}-{r.randint(1000, 9999)}"
        other_rg = f"{r.randint(100, 99999)}/{r.randint(2018, 2021)}"
        b.user(
            f"Nel frattempo: a che punto è la pratica {other} (R.G. n. {other_rg}, Tribunale di "
            f"{r.choice(other_courts)})?"
        )
        b.tool(
            "Controllo nel gestionale.",
            "http_request",
            {"method": "GET", "url": f"https://gestionale.studiolegale.it/api/pratiche/{other}"},
            json.dumps(
                {
                    "id": other,
                    "cliente": r.choice(_CLIENTS),
                    "stato": r.choice(("in_lavorazione", "sospesa", "in_revisione")),
                    "scadenze": [
                        {
                            "data": f"{r.randint(2019, 2022)}-{r.randint(1, 12):02d}-"
                            f"{r.randint(1, 28):02d}",
                            "atto": r.choice(("memoria", "udienza", "deposito", "notifica")),
                        }
                        for _ in range(r.randint(3, 6))
                    ],
                    "contratto": f"CF-{r.randint(2019, 2022)}-{token(r, 5)}",
                },
                indent=2,
            ),
        )
        b.tool(
            "Cerco i documenti collegati.",
            "docs_search",
            {"q": f"{other} {r.choice(_IT_WORDS)}"},
            _lines(
                r,
                8,
                12,
                lambda q: (
                    f"Archivio/{q.choice(_CLIENTS)}/{hexits(q, 6)}.docx - art. "
                    f"{q.randint(2, 30)}.{q.randint(1, 9)}: {_babble(q, _IT_WORDS, 1)}"
                ),
            ),
        )
        b.assistant(f"La pratica {other} è in corso. {_babble(r, _IT_WORDS, 3)}")
        b.user("Segnala che è chiusa e archivia i documenti.")
        b.tool(
            "Aggiorno la pratica.",
            "http_request",
            {
                "method": "PATCH",
                "url": f"https://gestionale.studiolegale.it/api/pratiche/{other}",
                "body": {"stato": "archiviata"},
            },
            json.dumps({"id": other, "stato": "archiviata", "protocollo": _digits(r, 7)}),
        )
        note = f"Archivio/{r.choice(_CLIENTS)}/nota_{hexits(r, 4)}.docx"
        b.tool(
            "Salvo una nota di chiusura.",
            "fs_write",
            {"filename": note, "contents": _babble(r, _IT_WORDS, 4)},
            f"scritto {note} ({r.randint(2, 40)} KB)",
        )
        b.assistant(f"Pratica {other} archiviata; nota in {note}.")

    return opening, segments_of(rng, b, segments, filler), probes


# --- logistics (Dutch) -------------------------------------------------------------------

_CARRIERS: tuple[tuple[str, str, str], ...] = (
    ("MSC", "MSCU", "MEDU"),
    ("Maersk", "MRKU", "MAEU"),
    ("CMA CGM", "CMAU", "CMDU"),
    ("Hapag-Lloyd", "HLXU", "HLCU"),
)
_FILLER_PREFIXES = ("TGHU", "OOLU", "SEGU", "TCLU", "FCIU", "GESU")
_ONWARD = ("Venlo", "Tilburg", "Zwolle", "Nijmegen", "Eindhoven", "Duisburg")
_NL_WORDS = _words(
    "pallet locatie vracht chauffeur lading ophalen terminal vertraging voorraad "
    "order zending levering retour etiket scanner magazijn stelling heftruck document "
    "tijdslot kade schip telling klant"
)


def _logistics(rng: random.Random, b: Builder, segments: int) -> Parts:
    carrier, prefix, bl_prefix = rng.choice(_CARRIERS)
    container = f"{prefix}{_digits(rng, 7)}"
    bl = f"{bl_prefix}{_digits(rng, 9)}"
    sscc = f"387{_digits(rng, 15)}"
    yy = rng.randint(23, 25)
    mrn = f"{yy}NL{token(rng, 14)}"
    week = rng.randint(40, 52)
    sheet = f"planning/wk{week}_losplanning.xlsx"
    first_dock, final_dock = rng.sample(range(2, 10), 2)
    onward = rng.choice(_ONWARD)
    limit = rng.randint(6, 8)
    vessel = rng.choice(("MSC Gülsün", "Maersk Elba", "CMA CGM Tage", "Berlin Express"))

    b.user(
        f"Goedemorgen. Container {container} ({carrier}, B/L {bl}) ligt sinds gisteren op de "
        f"Maasvlakte. Kun je checken of de douane hem vrijgeeft? We lossen hem op dock "
        f"{first_dock}, zet dat in de planning."
    )
    b.tool(
        "Ik kijk bij de terminal.",
        "http_request",
        {"method": "GET", "url": f"https://api.terminal-portal.nl/v1/containers/{container}"},
        json.dumps(
            {
                "container": container,
                "vessel": vessel,
                "discharged": f"20{yy}-{rng.randint(10, 12)}-{rng.randint(10, 28)}T06:41:00Z",
                "customs": {"mrn": mrn, "status": "CONTROLE"},
                "reefer": True,
                "setpoint_c": 4,
                "pickup_slot": None,
            },
            indent=2,
            ensure_ascii=False,
        ),
    )
    b.tool(
        "De aangifte zelf.",
        "http_request",
        {"method": "GET", "url": f"https://douane-portaal.nl/api/aangiften/{mrn}"},
        json.dumps({"mrn": mrn, "status": "IN_CONTROLE", "reden": "documentcontrole"}),
    )
    b.assistant(
        "De douane wil documenten zien (documentcontrole). Ik upload de factuur en de "
        "paklijst bij de aangifte."
    )
    b.user("Doe maar. De paklijst staat in de gedeelde map.")
    b.tool(
        "Documenten uploaden.",
        "http_request",
        {
            "method": "POST",
            "url": f"https://douane-portaal.nl/api/aangiften/{mrn}/documenten",
            "body": {"bestanden": ["factuur.pdf", "paklijst.pdf"], "type": "N935"},
        },
        json.dumps({"ontvangen": 2, "referentie": hexits(rng, 10)}),
    )
    b.tool(
        "Opnieuw de status.",
        "http_request",
        {"method": "GET", "url": f"https://douane-portaal.nl/api/aangiften/{mrn}"},
        json.dumps({"mrn": mrn, "status": "VRIJGEGEVEN", "tijd": f"{rng.randint(10, 16)}:12"}),
    )
    pallets = [f"387{_digits(rng, 15)}" for _ in range(rng.randint(8, 12))]
    pallets.insert(rng.randint(1, len(pallets)), sscc)
    b.tool(
        "De pallets op de vooraanmelding.",
        "wms_query",
        {"asn": container},
        "SSCC               artikel     colli  gewicht  temp\n"
        + "\n".join(
            f"{p}  ART-{rng.randint(10000, 99999)}  {rng.randint(10, 80):>5}  "
            f"{rng.randint(200, 900):>5} kg  "
            + (f"{limit + 3},4 C  <-- logger alarm" if p == sscc else f"{rng.randint(2, 5)},1 C")
            for p in pallets
        ),
    )
    b.assistant(
        f"Vrijgegeven. Eén pallet heeft een temperatuuralarm: {sscc}, de logger staat boven "
        f"{limit} graden. Die zet ik apart voor inspectie."
    )
    b.user(
        f"Laat maar, dock {first_dock} staat vol met de koelcontainers van vanochtend: lossen op "
        f"dock {final_dock}. En zet het in de losplanning."
    )
    b.tool(
        "Losplanning bijwerken.",
        "sheet_update",
        {"filename": sheet, "range": "B14:F14", "values": [container, f"dock {final_dock}"]},
        f"bijgewerkt: {sheet} (B14:F14)",
    )
    b.assistant(f"Gelost wordt op dock {final_dock}; de losplanning staat erin.")
    b.user(
        f"Als de temperatuurlogger van die pallet geen uitschieters boven {limit} graden meer laat "
        f"zien, plan dan de doorlevering naar {onward}."
    )
    b.assistant(f"Afgesproken: de doorlevering naar {onward} pas na een schone loggercheck.")
    opening = b.take()
    probes = [
        Probe("identifier", "Which container is it?", container, ((container,),)),
        Probe("identifier", "What is the bill of lading number?", bl, ((bl,),)),
        Probe("identifier", "Which pallet (SSCC) has the temperature alarm?", sscc, ((sscc,),)),
        Probe(
            "artifact",
            f"What is the status of customs declaration {mrn}?",
            f"{mrn} is released (vrijgegeven)",
            ((mrn,), ("vrijgegeven", "vrijgave", "released", "cleared")),
        ),
        Probe(
            "artifact",
            f"What is the state of {sheet}?",
            f"{sheet} was updated with the container's unloading",
            (
                (sheet,),
                (
                    "bijgewerkt",
                    "gewijzigd",
                    "aangepast",
                    "modified",
                    "updated",
                    "edited",
                    "changed",
                ),
            ),
        ),
        Probe(
            "decision",
            "At which dock is the container unloaded?",
            f"Dock {final_dock} (the user moved it from dock {first_dock})",
            ((f"dock {final_dock}", f"dock{final_dock}", f"dock nr. {final_dock}"),),
        ),
        Probe(
            "next_step",
            "What is the next step, and when?",
            f"Plan the onward delivery to {onward} once the pallet's temperature logger shows no "
            f"peaks above {limit} degrees",
            ((onward.lower(),), ("doorlever", "deliver", "transport", "onward", "door te leveren")),
        ),
    ]

    def filler(r: random.Random) -> None:
        other = f"{r.choice(_FILLER_PREFIXES)}{_digits(r, 7)}"
        b.user(f"Tussendoor: hoe staat {other} ervoor? {_babble(r, _NL_WORDS, 1)}")
        b.tool(
            "Ik kijk bij de terminal.",
            "http_request",
            {"method": "GET", "url": f"https://api.terminal-portal.nl/v1/containers/{other}"},
            json.dumps(
                {
                    "container": other,
                    "vessel": r.choice(("Ever Given", "ONE Apus", "Cosco Taurus", "HMM Oslo")),
                    "eta": f"20{r.randint(23, 25)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}",
                    "customs": {
                        "mrn": f"{r.randint(23, 25)}BE{token(r, 14)}",
                        "status": r.choice(("INGEDIEND", "AANVAARD", "IN_BEHANDELING")),
                    },
                    "events": [
                        {"code": r.choice(("DISC", "GATE-IN", "LOAD", "HOLD")), "t": hexits(r, 6)}
                        for _ in range(r.randint(6, 9))
                    ],
                },
                indent=2,
            ),
        )
        b.tool(
            "Voorraad op de doellocaties.",
            "wms_query",
            {"zone": r.choice(("A", "B", "C", "K"))},
            _lines(
                r,
                22,
                28,
                lambda q: (
                    f"387{_digits(q, 15)}  {q.choice('ABCK')}-{q.randint(1, 40):02d}-"
                    f"{q.randint(1, 6):02d}  ART-{q.randint(10000, 99999)}  "
                    f"{q.randint(1, 90)} colli  {q.choice(_NL_WORDS)}"
                ),
            ),
        )
        b.assistant(f"{other} is onderweg. {_babble(r, _NL_WORDS, 3)}")
        pallet = f"387{_digits(r, 15)}"
        target = f"{r.choice('ABCK')}-{r.randint(1, 40):02d}-{r.randint(1, 6):02d}"
        b.user(f"Zet pallet {pallet} op {target} en werk de telling bij.")
        b.tool(
            "Verplaatsen.",
            "wms_move",
            {"pallet": pallet, "naar": target},
            f"verplaatst {pallet} -> {target} (taak {hexits(r, 8)})",
        )
        count = f"voorraad/telling_{r.choice(('ma', 'di', 'wo', 'do', 'vr'))}_{hexits(r, 3)}.csv"
        b.tool(
            "Telling bijwerken.",
            "fs_write",
            {"filename": count, "contents": f"{pallet};{target};{r.randint(1, 90)}"},
            f"opgeslagen: {count}",
        )
        b.assistant(f"Pallet staat op {target}; {count} is bijgewerkt.")

    return opening, segments_of(rng, b, segments, filler), probes


# --- gamedev (terse chat) ----------------------------------------------------------------

_BOSSES = ("Warden", "Matriarch", "Colossus", "Revenant", "Tidecaller")
_SYSTEMS = ("Inventory", "DialogueRunner", "FishingMinigame", "PhotoMode", "Lockpick", "Stealth")
_PROJECTS = ("GAME", "RPG", "HOLLOW")
_GAME_WORDS = _words(
    "anim hitbox navmesh spawn collider shader lod prefab input camera ragdoll "
    "trigger timeline particle audio pool state coroutine physics ui"
)
_GRIPES = (
    "flickers on ps5 devkit",
    "softlocks if u spam interact",
    "drops inputs after alt tab",
    "spawns twice on reload",
    "hitch when the ui opens",
)


def _gamedev(rng: random.Random, b: Builder, segments: int) -> Parts:
    boss = rng.choice(_BOSSES)
    proj = rng.choice(_PROJECTS)
    script = f"Assets/Scripts/Bosses/{boss}/{boss}PhaseController.cs"
    cl = str(rng.randint(2_000_000, 2_999_999))
    steam_build = str(rng.randint(14_000_000, 14_999_999))
    guid = hexits(rng, 32)
    bug = f"{proj}-{rng.randint(2000, 4999)}"
    pct = rng.choice((25, 30, 35))
    tests = rng.randint(20, 60)
    app_id = rng.randint(1_200_000, 1_900_000)

    b.user(
        f"ok so {boss.lower()} fight softlocks agian on nightly. phase 2 -> 3 transiton, 100% "
        f"repro if u dodge during the roar. pretty sure it regressed in cl {cl}. bug is {bug}"
    )
    b.tool(
        "Looking at that changelist.",
        "shell",
        {"cmd": f"p4 describe -s {cl}"},
        f"Change {cl} by dmitri@dmitri-ws on 2024/11/{rng.randint(10, 28)} "
        f"{rng.randint(10, 23)}:{rng.randint(10, 59)}:{rng.randint(10, 59)}\n\n"
        f"\t{boss} phase transition: skip roar if stunned\n\nAffected files ...\n\n"
        f"... //depot/Game/{script}#{rng.randint(20, 60)} edit\n"
        + _lines(
            rng,
            3,
            5,
            lambda r: (
                f"... //depot/Game/Assets/Art/Bosses/{boss}/{r.choice(_GAME_WORDS)}_"
                f"{hexits(r, 4)}.anim#{r.randint(2, 9)} edit"
            ),
        ),
    )
    b.tool(
        "Checking which script the boss prefab binds.",
        "fs_read",
        {"filename": f"Assets/Prefabs/Bosses/{boss}.prefab", "grep": "m_Script"},
        "--- !u!114 &"
        + _digits(rng, 18)
        + "\nMonoBehaviour:\n  m_ObjectHideFlags: 0\n  m_Enabled: 1\n"
        f"  m_Script: {{fileID: 11500000, guid: {guid}, type: 3}}\n"
        f"  phaseThresholds: [0.66, 0.{pct}]\n"
        f"  roarDuration: {rng.randint(2, 4)}.{rng.randint(1, 9)}\n"
        + _lines(
            rng,
            4,
            6,
            lambda r: (
                f"  {r.choice(_GAME_WORDS)}Ref: {{fileID: {_digits(r, 10)}, guid: {hexits(r, 32)}"
                ", type: 3}"
            ),
        ),
    )
    b.assistant(
        f"The changelist skips the roar when the {boss} is stunned, but the phase controller "
        "still waits for the roar's end event, so the transition never fires. Easiest fix: "
        "advance the phase on stun too."
    )
    b.user(f"k do it. just hardcode the phase 3 hp threshold at {pct}% while ur in there")
    b.tool(
        "Patching the controller.",
        "apply_patch",
        {
            "patch": (
                f"--- a/{script}\n+++ b/{script}\n@@ void OnRoarEnd()\n"
                "-    if (!stunned) AdvancePhase();\n+    AdvancePhase();\n"
                f"@@ float Phase3Threshold\n-    => tuning.phase3;\n+    => {pct / 100:.2f}f;\n"
            )
        },
        f"patched {script} (2 hunks)",
    )
    b.tool(
        "Running the play mode tests for the boss.",
        "unity_test",
        {"platform": "PlayMode", "filter": f"{boss}*"},
        f"Test run: {boss}PhaseTests\n"
        + _lines(
            rng,
            6,
            8,
            lambda r: f"  Passed  {boss}PhaseTests.{r.choice(_GAME_WORDS)}_{hexits(r, 3)}",
        )
        + f"\nTotal: {tests}  Passed: {tests}  Failed: 0  Skipped: 0",
    )
    b.assistant(
        f"Edited {script}: the phase advances on stun now. PlayMode: {tests}/{tests} passed."
    )
    b.user(
        f"ok scratch that re the threshold, dont hardcode it. read it from {boss}Tuning.asset "
        "so design can tweak it w/o a build. thx"
    )
    b.tool(
        "Reading the threshold from the tuning asset instead.",
        "apply_patch",
        {
            "patch": (
                f"--- a/{script}\n+++ b/{script}\n@@ float Phase3Threshold\n"
                f"-    => {pct / 100:.2f}f;\n+    => tuning.phase3;\n"
            )
        },
        f"patched {script} (1 hunk)",
    )
    b.tool(
        "Uploading a nightly to the beta branch.",
        "shell",
        {"cmd": f"steamcmd +login buildbot +run_app_build ../scripts/app_build_{app_id}.vdf +quit"},
        f"Logging in user 'buildbot' to Steam Public...OK\nBuilding depot {app_id + 1}...\n"
        + _lines(
            rng,
            3,
            4,
            lambda r: f"  {r.randint(100, 999)} files, {r.randint(1, 9)}.{r.randint(1, 9)} GB",
        )
        + f"\nSuccessfully finished AppID {app_id} build (BuildID {steam_build}).",
    )
    b.tool(
        "Moving the bug along.",
        "http_request",
        {
            "method": "POST",
            "url": f"https://jira.studio.net/rest/api/2/issue/{bug}/transitions",
            "json": {"transition": {"id": "41"}},
        },
        "204 No Content",
    )
    b.assistant(f"{bug} moved to Ready for QA; the fix is in the nightly on the beta branch.")
    b.user(
        "when nightly is green do a perf capture on the steam deck, want frametimes for p3 arena"
    )
    b.assistant("Got it, the Deck capture waits for a green nightly.")
    opening = b.take()
    probes = [
        Probe("identifier", "Which changelist caused the regression?", cl, ((cl,),)),
        Probe(
            "identifier",
            "What is the Steam BuildID of the uploaded nightly?",
            steam_build,
            ((steam_build,),),
        ),
        Probe("identifier", "What is the GUID of the boss prefab's script?", guid, ((guid,),)),
        Probe(
            "artifact",
            f"What is the state of {script}?",
            f"{script} was edited and its PlayMode tests passed",
            (
                (script,),
                ("edited", "modified", "changed", "patched", "updated", "fixed"),
                ("pass", "green"),
            ),
        ),
        Probe(
            "artifact",
            f"What is the status of {bug}?",
            f"{bug} is Ready for QA",
            ((bug,), ("ready for qa", "in qa", "to qa", "qa ready")),
        ),
        Probe(
            "decision",
            "Where does the phase 3 threshold come from?",
            f"From {boss}Tuning.asset, not hardcoded (the user withdrew the hardcoded {pct}%)",
            ((f"{boss.lower()}tuning",), ("threshold", "hp", "phase")),
        ),
        Probe(
            "next_step",
            "What is the next step, and when?",
            "Once the nightly is green, do a perf capture on the Steam Deck (frametimes for the "
            "phase 3 arena)",
            (("perf", "frametime", "profil"), ("deck",)),
        ),
    ]

    def filler(r: random.Random) -> None:
        system = r.choice(_SYSTEMS)
        other = f"Assets/Scripts/{system}/{system}{r.choice(('Controller', 'View', 'Service'))}.cs"
        key = f"{proj}-{r.randint(100, 1999)}"
        b.user(f"also {key} - {system.lower()} {r.choice(_GRIPES)}, can u check {other}")
        b.tool(
            "Reading it.",
            "fs_read",
            {"filename": other},
            _lines(
                r,
                18,
                22,
                lambda q: (
                    f"    private {q.choice(('float', 'int', 'bool'))} _{q.choice(_GAME_WORDS)}"
                    f"{hexits(q, 3)} = {q.randint(0, 99)}; // {q.choice(_GAME_WORDS)}"
                ),
            ),
        )
        b.tool(
            "Recent changes there.",
            "shell",
            {"cmd": f"p4 changes -m 8 //depot/Game/Assets/Scripts/{system}/..."},
            _lines(
                r,
                11,
                14,
                lambda q: (
                    f"Change {q.randint(1_000_000, 1_999_999)} on 2024/{q.randint(1, 12):02d}/"
                    f"{q.randint(1, 28):02d} by {q.choice(('ana', 'kofi', 'li', 'sam'))}@ws "
                    f"'{q.choice(_GAME_WORDS)} {q.choice(_GAME_WORDS)} tweak'"
                ),
            ),
        )
        b.tool(
            "Looking at the ticket.",
            "http_request",
            {"method": "GET", "url": f"https://jira.studio.net/rest/api/2/issue/{key}"},
            json.dumps(
                {
                    "key": key,
                    "fields": {
                        "status": {"name": r.choice(("In Progress", "Open", "Blocked"))},
                        "summary": f"{system} {r.choice(_GRIPES)}",
                        "labels": [r.choice(_GAME_WORDS) for _ in range(3)],
                        "customfield_10020": {"buildId": r.randint(15_000_000, 16_999_999)},
                    },
                },
                indent=2,
            ),
        )
        b.assistant(f"Found it in the {r.choice(_GAME_WORDS)} path. {_babble(r, _GAME_WORDS, 3)}")
        b.user("fix pls")
        b.tool(
            "Patching.",
            "apply_patch",
            {"patch": f"--- a/{other}\n+++ b/{other}\n@@\n-    Refresh();\n+    RefreshOnce();\n"},
            f"patched {other} (1 hunk)",
        )
        total = r.randint(5, 40)
        b.tool(
            "Running its tests.",
            "unity_test",
            {"platform": "EditMode", "filter": f"{system}*"},
            f"Total: {total}  Passed: {total}  Failed: 0  Skipped: 0",
        )
        b.assistant(f"Fixed {other}, {total}/{total} tests ok (job {hexits(r, 8)}).")

    return opening, segments_of(rng, b, segments, filler), probes


# --- payroll (Brazilian Portuguese) ------------------------------------------------------

_NAMES = ("Juliana Prado", "Marcos Teixeira", "Fernanda Lopes", "Rafael Nunes", "Camila Rocha")
_PT_WORDS = _words(
    "folha salário desconto férias benefício vale transporte refeição adicional "
    "noturno hora extra banco competência admissão cargo jornada convenção reajuste "
    "provento base INSS FGTS IRRF"
)


def _cnpj(rng: random.Random, branch: str) -> str:
    d = _digits(rng, 8)
    return f"{d[:2]}.{d[2:5]}.{d[5:]}/{branch}-{_digits(rng, 2)}"


def _payroll(rng: random.Random, b: Builder, segments: int) -> Parts:
    year = rng.randint(2023, 2025)
    cnpj = _cnpj(rng, "0001")
    receipt = f"1.2.{_digits(rng, 19)}"
    lot = f"FOL-{year}11-{token(rng, 5)}"
    employee = rng.choice(_NAMES)
    reg = f"{rng.randint(1000, 9999)}"
    sheet = f"folha/{year}-11/rescisoes_{reg}.xlsx"
    event = f"ID1{cnpj[:10].replace('.', '')}{year}11{rng.randint(10, 28)}{_digits(rng, 11)}"
    days = rng.randint(3, 11)

    b.user(
        f"Oi! Preciso fechar a rescisão da {employee} (matrícula {reg}), empresa CNPJ {cnpj}. "
        f"Lança o 13º proporcional já na folha de novembro, por favor. E confere se o lote de "
        "novembro do eSocial foi processado."
    )
    b.tool(
        "Consultando o lote de novembro.",
        "esocial_status",
        {"cnpj": cnpj, "competencia": f"{year}-11"},
        f"Lote {lot} processado em {rng.randint(1, 9)}/12/{year}\n"
        + "evento               tipo    situação     recibo\n"
        + _lines(
            rng,
            3,
            4,
            lambda r: f"{hexits(r, 8)}  S-1200  PROCESSADO   1.1.{_digits(r, 19)}",
        )
        + f"\n{event}  S-2299  REJEITADO    erro 1{rng.randint(100, 999)}: data de desligamento "
        "anterior ao último período de apuração",
    )
    b.tool(
        "Buscando o recibo do S-1200 da matrícula.",
        "esocial_fetch",
        {"tipo": "S-1200", "matricula": reg},
        '<?xml version="1.0" encoding="UTF-8"?>\n<retornoEvento>\n  <processamento>\n'
        "    <cdResposta>201</cdResposta>\n    <descResposta>Sucesso.</descResposta>\n"
        "  </processamento>\n  <recibo>\n"
        f"    <nrRecibo>{receipt}</nrRecibo>\n    <hash>{hexits(rng, 40)}</hash>\n"
        "  </recibo>\n</retornoEvento>",
    )
    b.assistant(
        "O S-1200 dela foi processado, mas o S-2299 (desligamento) voltou rejeitado: a data de "
        "desligamento está antes do último período de apuração. Vou corrigir a data na planilha."
    )
    b.user("Isso, corrige na planilha e reenvia depois.")
    b.tool(
        "Corrigindo a data na planilha de rescisões.",
        "planilha_editar",
        {"arquivo": sheet, "aba": "Rescisões", "celula": "H12", "valor": f"{days:02d}/11/{year}"},
        f"arquivo {sheet} atualizado (aba Rescisões, H12)",
    )
    b.tool(
        "Conferindo os valores.",
        "db_query",
        {"sql": f"SELECT rubrica, valor FROM folha WHERE matricula = {reg} AND competencia = 11"},
        "rubrica            valor\n"
        + _lines(
            rng,
            14,
            18,
            lambda r: f"{r.choice(_PT_WORDS):<18} {r.randint(100, 9000)},{_digits(r, 2)}",
        ),
    )
    b.assistant("Planilha corrigida; os valores da folha batem com a rescisão.")
    b.user(
        "Pensando bem, deixa o 13º proporcional para a folha de dezembro, junto com a segunda "
        "parcela dos outros. Fica mais simples de conferir."
    )
    b.assistant("Combinado, o 13º proporcional vai na folha de dezembro.")
    b.user("Quando o sindicato homologar a rescisão, gera o TRCT e manda para o jurídico.")
    b.assistant("Ok: depois da homologação eu gero o TRCT e envio ao jurídico.")
    opening = b.take()
    probes = [
        Probe("identifier", "What is the company's CNPJ?", cnpj, ((cnpj,),)),
        Probe("identifier", "What is the S-1200 receipt number?", receipt, ((receipt,),)),
        Probe("identifier", "Which eSocial batch (lote) is November's?", lot, ((lot,),)),
        Probe(
            "artifact",
            f"What is the state of {sheet}?",
            f"{sheet} was updated (termination date corrected)",
            (
                (sheet,),
                ("atualizad", "alterad", "modificad", "corrigid", "updated", "modified", "edited"),
            ),
        ),
        Probe(
            "artifact",
            f"What is the status of eSocial event {event}?",
            f"{event} (S-2299) was rejected",
            ((event,), ("rejeitad", "rejected", "erro", "error")),
        ),
        Probe(
            "decision",
            "In which payroll does the proportional 13th salary go?",
            "December's (the user moved it from November's)",
            (("dezembro", "december"), ("13",)),
        ),
        Probe(
            "next_step",
            "What is the next step, and when?",
            "Once the union approves the termination, generate the TRCT and send it to legal",
            (("trct",), ("jurídico", "juridico", "legal")),
        ),
    ]

    def filler(r: random.Random) -> None:
        other = f"{r.randint(10000, 99999)}"
        b.user(
            f"Aproveitando: a matrícula {other} reclamou do {r.choice(_PT_WORDS)}. "
            f"{_babble(r, _PT_WORDS, 1)}"
        )
        b.tool(
            "Consultando a folha dela.",
            "db_query",
            {"sql": f"SELECT rubrica, valor FROM folha WHERE matricula = {other}"},
            "rubrica            valor\n"
            + _lines(
                r,
                20,
                26,
                lambda q: f"{q.choice(_PT_WORDS):<18} {q.randint(50, 9000)},{_digits(q, 2)}",
            ),
        )
        b.tool(
            "E os eventos da empresa.",
            "esocial_status",
            {
                "cnpj": _cnpj(r, "0002"),
                "competencia": f"{r.randint(2023, 2025)}-0{r.randint(1, 9)}",
            },
            f"Lote FOL-{r.randint(2023, 2025)}0{r.randint(1, 9)}-{token(r, 5)} processado\n"
            + _lines(
                r,
                12,
                16,
                lambda q: (
                    f"{hexits(q, 8)}  S-{q.choice(('1200', '1210', '2200', '2230'))}  "
                    f"PROCESSADO   1.1.{_digits(q, 19)}"
                ),
            ),
        )
        month = f"{r.randint(2023, 2025)}-0{r.randint(1, 9)}"
        payslip = {
            "matricula": other,
            "competencia": month,
            "itens": [
                {
                    "rubrica": f"{r.randint(100, 999)} {r.choice(_PT_WORDS)}",
                    "referencia": f"{r.randint(1, 220)},{_digits(r, 2)}",
                    "valor": f"{r.randint(10, 6000)},{_digits(r, 2)}",
                }
                for _ in range(r.randint(6, 9))
            ],
            "liquido": f"{r.randint(1500, 12000)},{_digits(r, 2)}",
        }
        b.tool(
            "Puxando o holerite.",
            "http_request",
            {"method": "GET", "url": f"https://rh.portal-dp.com.br/api/holerites/{other}/{month}"},
            json.dumps(payslip, indent=2, ensure_ascii=False),
        )
        b.assistant(f"Está certo na folha. {_babble(r, _PT_WORDS, 3)}")
        b.user("Ajusta o vale-transporte dela na planilha de benefícios.")
        ben = f"beneficios/{r.randint(2023, 2025)}-0{r.randint(1, 9)}/vt_{other}.xlsx"
        b.tool(
            "Ajustando.",
            "planilha_editar",
            {
                "arquivo": ben,
                "aba": "VT",
                "celula": f"C{r.randint(2, 90)}",
                "valor": r.randint(5, 30),
            },
            f"arquivo {ben} salvo",
        )
        b.assistant(f"Salvei {ben} (versão {hexits(r, 6)}).")

    return opening, segments_of(rng, b, segments, filler), probes


_KINDS: dict[str, Callable[[random.Random, Builder, int], Parts]] = {
    "mobile": _mobile,
    "ml": _ml,
    "legal": _legal,
    "logistics": _logistics,
    "gamedev": _gamedev,
    "payroll": _payroll,
}
HELDOUT2_KINDS: tuple[str, ...] = tuple(_KINDS)


def generate_heldout2(kind: str, seed: int, *, segments: int = 10) -> Session:
    """The second held-out session of ``kind`` for ``seed``; the same seed always gives the
    same session."""
    return build_session(
        _KINDS, kind, seed, segments, seed_prefix="heldout2:", label="held-out session"
    )
