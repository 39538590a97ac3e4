"""The world of ``contextfold demo``: a virtual repository, its tools, a simulated coder.

:class:`VirtualRepo` holds a small invoicing service as generated, deterministic
source files; :func:`repo_tools` gives an agent ``list_dir``, ``read_file``, ``grep``,
``edit_file`` and ``run_tests`` over it, with outputs of realistic and varying size
(a missing file or an edit that does not apply raises, so the agent sees a tool
error). :class:`SimulatedCoder` is the handler of a
:class:`~contextfold.testing.FunctionTransport`: for each user turn it follows a plan
of tool calls, then answers with a short report built from what the tools returned.
Everything is seeded, so two runs print the same numbers.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass, field
from typing import Any

from contextfold.agent import Tool
from contextfold.blocks import ToolResultBlock
from contextfold.testing import (
    StubRequest,
    StubResponse,
    make_text_response,
    make_tool_use_response,
)

__all__ = ["PROMPTS", "SYSTEM_PROMPT", "SimulatedCoder", "VirtualRepo", "repo_tools"]

SYSTEM_PROMPT = (
    "You are a careful coding agent working in the `invoicing` repository. Use the tools "
    "to inspect and change code; run the tests after every change; report briefly."
)

_MODULES = ("models", "tax", "currency", "totals", "api", "pdf", "storage", "discounts")

# (user prompt, plan: one list of tool calls per model step)
Call = tuple[str, dict[str, Any]]
PROMPTS: tuple[tuple[str, list[list[Call]]], ...] = (
    (
        "Invoice totals are off by one cent for some EU customers. Find out why and fix it. "
        "Do not change the public API of `invoicing.api`.",
        [
            [("list_dir", {"path": "src/invoicing"})],
            [("grep", {"pattern": "round("})],
            [("read_file", {"path": "src/invoicing/tax.py"})],
            [("read_file", {"path": "src/invoicing/totals.py"})],
        ],
    ),
    (
        "Run the full test suite and tell me what fails.",
        [[("run_tests", {"target": "tests"})]],
    ),
    (
        "Finance says we must use banker's rounding (ROUND_HALF_EVEN) for VAT. Fix tax.py.",
        [
            [("read_file", {"path": "src/invoicing/tax.py"})],
            [
                (
                    "edit_file",
                    {
                        "path": "src/invoicing/tax.py",
                        "old": "ROUND_HALF_UP",
                        "new": "ROUND_HALF_EVEN",
                    },
                )
            ],
            [("run_tests", {"target": "tests/test_tax.py"})],
        ],
    ),
    (
        "Add a regression test for the half-cent case.",
        [
            [("read_file", {"path": "tests/test_tax.py"})],
            [
                (
                    "edit_file",
                    {
                        "path": "tests/test_tax.py",
                        "old": "# end of tests",
                        "new": "def test_half_cent_rounds_to_even(): ...\n# end of tests",
                    },
                )
            ],
            [("run_tests", {"target": "tests/test_tax.py"})],
        ],
    ),
    (
        "The PDF still shows the old total. Check pdf.py and the currency module.",
        [
            [
                ("read_file", {"path": "src/invoicing/pdf.py"}),
                ("read_file", {"path": "src/invoicing/currency.py"}),
            ],
            [("read_file", {"path": "src/invoicing/render.py"})],
            [("grep", {"pattern": "float("})],
            [("edit_file", {"path": "src/invoicing/pdf.py", "old": "float(", "new": "Decimal("})],
        ],
    ),
    (
        "Make sure currency conversion uses Decimal everywhere, never float.",
        [
            [("grep", {"pattern": "float("})],
            [
                (
                    "edit_file",
                    {"path": "src/invoicing/currency.py", "old": "float(", "new": "Decimal("},
                )
            ],
            [("run_tests", {"target": "tests"})],
        ],
    ),
    (
        "CI reports a failure in tests/test_api.py::test_create_invoice_eu. Investigate.",
        [
            [("read_file", {"path": "tests/test_api.py"})],
            [("read_file", {"path": "src/invoicing/api.py"})],
            [
                (
                    "edit_file",
                    {
                        "path": "src/invoicing/api.py",
                        "old": "legacy_total(",
                        "new": "compute_total(",
                    },
                )
            ],
            [("run_tests", {"target": "tests/test_api.py"})],
        ],
    ),
    (
        "Refactor compute_total into smaller functions; keep the behaviour identical.",
        [
            [("read_file", {"path": "src/invoicing/totals.py"})],
            [
                (
                    "edit_file",
                    {
                        "path": "src/invoicing/totals.py",
                        "old": "def compute_total(",
                        "new": "def _line_totals(lines): ...\n\ndef compute_total(",
                    },
                )
            ],
            [("run_tests", {"target": "tests"})],
        ],
    ),
    (
        "Check the discounts module for the same rounding problem.",
        [
            [("read_file", {"path": "src/invoicing/discounts.py"})],
            [("grep", {"pattern": "ROUND_HALF_UP"})],
            [
                (
                    "edit_file",
                    {
                        "path": "src/invoicing/discounts.py",
                        "old": "ROUND_HALF_UP",
                        "new": "ROUND_HALF_EVEN",
                    },
                )
            ],
        ],
    ),
    (
        "Update CHANGELOG.md with the fixes.",
        [
            [("read_file", {"path": "CHANGELOG.md"})],
            [
                (
                    "edit_file",
                    {
                        "path": "CHANGELOG.md",
                        "old": "## Unreleased",
                        "new": "## Unreleased\n- VAT uses banker's rounding (#482)",
                    },
                )
            ],
        ],
    ),
    (
        "Run all the tests again and summarise the state of the branch.",
        [[("run_tests", {"target": "tests"})], [("grep", {"pattern": "TODO"})]],
    ),
    (
        "Write the pull-request description.",
        [[("read_file", {"path": "CHANGELOG.md"})]],
    ),
)


def _seed(*parts: str) -> int:
    return int.from_bytes(hashlib.sha256("|".join(parts).encode()).digest()[:8], "big")


def _python_module(name: str, rng: random.Random) -> str:
    lines = [
        f'"""The {name} part of the invoicing service."""',
        "",
        "from decimal import ROUND_HALF_UP, Decimal",
        "",
    ]
    for i in range(rng.randint(8, 24)):
        func = rng.choice(("compute", "apply", "load", "format", "validate", "convert"))
        fname = f"{func}_{name}_{i}" if i else ("compute_total" if name == "totals" else func)
        lines.append(f"def {fname}(invoice, rate=Decimal('0.{rng.randint(5, 25):02d}')):")
        lines.append(
            f'    """{func.capitalize()} {name} for one invoice (see #{rng.randint(100, 999)})."""'
        )
        for _ in range(rng.randint(3, 12)):
            var = rng.choice(("amount", "subtotal", "vat", "line", "total", "fx"))
            expr = rng.choice(
                (
                    f"(invoice.{var} * rate).quantize(Decimal('0.01'), ROUND_HALF_UP)",
                    f"float(invoice.{var}) * {rng.random():.4f}",
                    f"legacy_total(invoice) if invoice.region == 'EU' else invoice.{var}",
                    f"sum(l.{var} for l in invoice.lines)",
                )
            )
            lines.append(f"    {var} = {expr}")
        lines += [
            "    # TODO: log the rounding mode" if rng.random() < 0.2 else "",
            "    return total",
            "",
        ]
    return "\n".join(lines)


@dataclass
class VirtualRepo:
    """A deterministic, in-memory source tree; edits change it."""

    files: dict[str, str] = field(default_factory=dict)
    fixed: set[str] = field(default_factory=set)

    @classmethod
    def invoicing(cls) -> VirtualRepo:
        repo = cls()
        for name in _MODULES:
            rng = random.Random(_seed(name))
            repo.files[f"src/invoicing/{name}.py"] = _python_module(name, rng)
            test = _python_module(f"test_{name}", random.Random(_seed("test", name)))
            repo.files[f"tests/test_{name}.py"] = test + "\n# end of tests\n"
        repo.files["CHANGELOG.md"] = "# Changelog\n\n## Unreleased\n\n## 2.3.0\n- PDF export\n"
        return repo

    def read(self, path: str) -> str:
        if path not in self.files:
            raise FileNotFoundError(f"No such file: {path!r}")
        return self.files[path]

    def grep(self, pattern: str) -> str:
        hits = [
            f"{path}:{n}: {line.strip()}"
            for path, text in sorted(self.files.items())
            for n, line in enumerate(text.splitlines(), 1)
            if pattern in line
        ]
        shown = hits[:60]
        more = f"\n... {len(hits) - len(shown)} more matches" if len(hits) > len(shown) else ""
        return "\n".join(shown) + more if hits else f"no matches for {pattern!r}"

    def edit(self, path: str, old: str, new: str) -> str:
        text = self.read(path)
        count = text.count(old)
        if not count:
            raise ValueError(f"edit not applied: {old!r} not found in {path}")
        self.files[path] = text.replace(old, new)
        self.fixed.add(path)
        return f"Applied edit to {path}: {count} occurrence(s) of {old!r} replaced."

    def run_tests(self, target: str) -> str:
        tests = sorted(p for p in self.files if p.startswith(target) and p.endswith(".py"))
        if not tests:
            raise FileNotFoundError(f"no tests found under {target!r}")
        out = [f"============ test session starts ============\ncollected in {target}"]
        failed = 0
        for path in tests:
            rng = random.Random(_seed(path, *sorted(self.fixed)))
            module = path.removeprefix("tests/test_")
            broken = f"src/invoicing/{module}" not in self.fixed and module in ("tax.py", "api.py")
            out.append(f"{path} " + "." * rng.randint(6, 30) + ("F" if broken else ""))
            if broken:
                failed += 1
                out += [
                    f"____________ test_{module[:-3]}_eu_rounding ____________",
                    "    expected = Decimal('119.01')",
                    ">   assert compute_total(invoice) == expected",
                    "E   AssertionError: assert Decimal('119.02') == Decimal('119.01')",
                    f"{path}:{rng.randint(20, 120)}: AssertionError",
                ]
        passed = sum(text.count("def ") for p, text in self.files.items() if p in tests)
        status = f"{failed} failed, {passed - failed} passed" if failed else f"{passed} passed"
        out.append(f"============ {status} in {rng.uniform(0.8, 4.0):.2f}s ============")
        return "\n".join(out)


def repo_tools(repo: VirtualRepo) -> list[Tool]:
    """The agent's tools over ``repo`` (names and schemas a real model understands)."""

    def schema(**props: str) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {k: {"type": "string", "description": v} for k, v in props.items()},
            "required": list(props),
            "additionalProperties": False,
        }

    def listing(args: dict[str, Any]) -> str:
        prefix = args["path"].rstrip("/") + "/"
        return "\n".join(p for p in sorted(repo.files) if p.startswith(prefix)) or "(empty)"

    return [
        Tool("list_dir", "List files under a directory.", schema(path="directory"), listing),
        Tool("read_file", "Read a file.", schema(path="file path"), lambda a: repo.read(a["path"])),
        Tool(
            "grep",
            "Search every file for a literal string.",
            schema(pattern="text"),
            lambda a: repo.grep(a["pattern"]),
        ),
        Tool(
            "edit_file",
            "Replace text in a file.",
            schema(path="file path", old="text to replace", new="replacement"),
            lambda a: repo.edit(a["path"], a["old"], a["new"]),
        ),
        Tool(
            "run_tests",
            "Run pytest on a path.",
            schema(target="test path"),
            lambda a: repo.run_tests(a["target"]),
        ),
    ]


_SUMMARY_LINE = re.compile(r"=+ (.+ in [\d.]+s) =+")


def prompt_for(turn: int) -> str:
    """The user's message for turn ``turn`` (0-based); the task list repeats with a note."""
    text, _ = PROMPTS[turn % len(PROMPTS)]
    rounds = turn // len(PROMPTS)
    return text if not rounds else f"{text} (review pass {rounds + 1})"


class SimulatedCoder:
    """A :class:`FunctionTransport` handler that behaves like a coding agent.

    Call :meth:`begin_turn` before each user turn; each model call then returns the
    next planned tool call(s), and the last one a text report that quotes what the
    tools returned (the test summary, the errors seen).
    """

    def __init__(self) -> None:
        self.turn = 0
        self.step = 0

    def begin_turn(self, turn: int) -> None:
        self.turn, self.step = turn, 0

    def __call__(self, request: StubRequest) -> StubResponse:
        _, plan = PROMPTS[self.turn % len(PROMPTS)]
        step, self.step = self.step, self.step + 1
        if step < len(plan):
            (name, args), *more = plan[step]
            target = args.get("path") or args.get("pattern") or args.get("target")
            return make_tool_use_response(
                name,
                dict(args),
                text=f"Next I will {name.replace('_', ' ')} `{target}`.",
                calls=[(n, dict(a)) for n, a in more],
            )
        return make_text_response(self._report(request))

    def _report(self, request: StubRequest) -> str:
        results = [
            b
            for m in request.messages[-2 * 4 :]
            for b in m.content
            if isinstance(b, ToolResultBlock)
        ]
        notes: list[str] = []
        for result in results:
            text = result.content if isinstance(result.content, str) else ""
            if result.is_error:
                notes.append(f"one step failed ({text.splitlines()[0][:100]}), so I went around it")
            elif match := _SUMMARY_LINE.search(text):
                notes.append(f"the tests report {match.group(1)}")
        done = "; ".join(notes[-3:]) or "I inspected the relevant code and found nothing to change"
        return (
            f"Finished this step: {done}. The public API of `invoicing.api` is unchanged. "
            "Next I will continue with the remaining items when you ask."
        )
