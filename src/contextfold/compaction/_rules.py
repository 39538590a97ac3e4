"""What the extractive summarizer pulls out of a transcript, rule by rule.

:func:`read_entries` turns a summarizer request's ``<transcript>`` into entries;
:func:`extract` files what each entry says under the summary's sections:

* the user's requests, and the sentences of the user's that instruct or correct
  (an opening "Actually", "Correction", "No," or "Instead" marks a correction);
* decisions and constraints (sentences with a word such as *must*, *never*, *instead*);
* the state of every artifact a tool acted on: a tool whose name says it writes,
  edits, deletes or reads, on the path in its arguments; a test run (``pytest``,
  ``npm test``, ``go test`` ...) marks the files changed since the previous run as
  tested, passed or failed, from its output; a ``status``/``state`` argument (a ticket,
  a refund) is the record's state;
* errors (tool errors, and error lines of tool outputs);
* commitments: the agent's "I will ..." and the user's "once/after/next ..." sentences;
* exact identifiers: from the user's words first, then the agent's (its text and tool
  arguments), then tool outputs (their first line and error lines only: the rest of a
  tool's output is bulk that a summary cannot keep).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Final

from contextfold.blocks import TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.messages import Message

__all__ = [
    "Entry",
    "Facts",
    "entries_from_messages",
    "extract",
    "read_entries",
    "shorten",
    "tool_action",
]

_ENTRY = re.compile(r"\n\n(?=\[(?:user|assistant|system)\] )")
_PART = re.compile(r"^\[(tool call (?P<name>[^\]]+)|tool result|tool error)\] ?", re.MULTILINE)
PATH = re.compile(
    r"(?<![\w@/.-])(?:https?://[^\s'\"`<>)\]]+|(?:\.{0,2}/)?(?:[\w@-]+(?:\.[\w-]+)*/)*"
    r"[\w@-]+(?:\.[\w-]+)*\.(?:py|pyi|js|jsx|ts|tsx|json|jsonl|ya?ml|toml|ini|cfg|md|rst|txt|"
    r"csv|sql|sh|go|rs|java|kt|c|h|cc|cpp|hpp|rb|php|html|css|lock|env|log|db|xml|tf|tfvars|hcl|"
    r"vue|svelte|scss|less|ipynb|proto|gradle|swift|scala|ex|exs|lua|dart|cs|ps1|mjs|cjs|"
    r"conf|properties|tsv|parquet|graphql|mdx|docx?|pdf|xlsx?|pptx?|odt|ods|rtf|png|jpe?g|"
    r"gif|svg|webp|zip|tgz|gz|safetensors|ckpt|onnx|pt|asset|prefab|unity|plist|m|mm|"
    r"out|err|patch|diff))(?![\w/])"
)
ERROR_LINE = re.compile(
    r"(\b\w*(Error|Exception)\b|Traceback|\bFAIL(ED)?\b|\bfailed\b|\berror:|\bpanic\b"
    r"|exit code [1-9])"
)
_DECISION = re.compile(
    r"\b(must|must not|should|shouldn't|don't|do not|never|always|prefer|decided|decide|"
    r"instead|avoid|keep|only|require[sd]?|constraint|without|rather than|going with|use)\b",
    re.IGNORECASE,
)
_INSTRUCTION = re.compile(
    r"^(actually|correction|no[,.:]|instead|please|don't|do not|never|always|use|only|keep|"
    r"make sure|stop)\b|\b(must|instead|rather than|from now on)\b",
    re.IGNORECASE,
)
_CORRECTION = re.compile(r"^(actually|correction|no[,.:]|instead)\b", re.IGNORECASE)
_COMMITMENT = re.compile(
    r"\b(I will|I'll|I am going to|as soon as|once|after (?:that|the)|next step|next,)",
    re.IGNORECASE,
)
_NEXT = re.compile(r"\b(next|then|todo|remaining|still need|will|going to|plan)\b", re.IGNORECASE)
IDENTIFIER = re.compile(
    r"`([^`\n]{2,80})`"
    r"|\b([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)\b"
    r"|\b((?=[a-z0-9_]*[a-z])[a-z0-9]+(?:_[a-z0-9]+)+)\b"
    r"|\b(v?\d+\.\d+(?:\.\d+)+)\b"
    r"|\b([0-9a-f]{7,40})\b"
    r"|\b((?:[A-Z]{2,}|[a-z]+)[-_]\d{2,})\b"
    r"|\b([A-Z0-9]{2,}(?:-[A-Z0-9]{2,})+)\b"
    r"|\b(\d{1,3}(?:,\d{3})+|\d+\.\d+%?)"
    r"|(?<![\w/])(\d+\.\d+/[\w.-]+\w)"
    r"|\b([a-z]{2,}-[0-9a-f]{6,})\b"
    r"|\b([A-Z0-9]{10,})\b"
)
SENTENCE = re.compile(r"(?<=[.!?\u061f\u0964\u0965])\s+|\n+|(?<=[\u3002\uff01\uff1f])")
"""Where a sentence ends: ``.``, ``!``, ``?``, the Arabic script's ``؟`` or the danda of
Hindi and the other Indic scripts (``।``, ``॥``) and a space, a line break, or the
full-width stops Chinese and Japanese write without a space after them."""
_TEST_RUN = re.compile(
    r"\b(pytest|unittest|tox|nox|jest|vitest|mocha|go test|cargo test|"
    r"(?:npm|pnpm|yarn|bun|deno) (?:run )?test|make test|rspec|phpunit|xcodebuild\b.*\btest|"
    r"swift test|dotnet test|gradlew? (?:\S+ )*test|mvn (?:\S+ )*test|ctest|bazel test|"
    r"mix test|rake test|playwright test|runTests)\b"
)
_TEST_TOOL = re.compile(r"(^|_|-|\b)tests?($|_|-|\b)", re.IGNORECASE)
_FAILED = re.compile(
    r"\b([1-9]\d* (?:failed|failures?|errors?)|FAILED|Failed(?!:\s*0\b)|FAIL|"
    r"failures?:(?!\s*0\b)|errors? during|TEST FAILED)(?!\w)"
)
_PASSED = re.compile(
    r"\b(\d+ passed|[Pp]assed|PASS|OK|\d+ passing|TEST SUCCEEDED|succeeded|0 failures|"
    r"\d+/\d+ (?:passed|tests passed))\b"
)
# Patch text in a tool's arguments (Codex's apply_patch, unified diffs): the files it
# adds, updates, deletes.
_PATCH_FILE = re.compile(
    r"^\*\*\* (Add|Update|Delete) File: (\S[^\n]*?)\s*$|^\*\*\* Move to: (\S[^\n]*?)\s*$"
    r"|^--- (?:a/)?(\S+)[^\n]*\n\+\+\+ (?:b/)?(\S+)"
    r"|^rename from (\S+)\s*\nrename to (\S+)",
    re.MULTILINE,
)
_PATCH_VERBS: Final = {"Add": "created", "Update": "modified", "Delete": "deleted"}
# Arguments naming what a tool writes (a report, a converted document).
_OUTPUT_KEYS = ("output", "out", "output_path", "output_file", "outfile", "save_as", "destination")
# Jobs a command cancels: a batch scheduler's job, a CI run.
_SHELL_CANCEL = re.compile(
    r"\b(?:scancel|qdel|bkill|condor_rm)\s+(?:-\S+\s+)*([\w.-]+)"
    r"|\bgh\s+run\s+cancel\s+(\d+)"
)
_ACTIONS = (
    (re.compile(r"delete|remove|\brm\b|unlink"), "deleted"),
    (re.compile(r"write|create|new|touch|save"), "created"),
    (re.compile(r"edit|patch|replace|update|modify|apply|append|insert|rename|move"), "modified"),
    (re.compile(r"read|view|open|cat|fetch|get|load|show|list|search|grep|find|lookup"), "read"),
)
# The ``command`` of an editor tool (str_replace_editor and its kin) says what it did.
_EDITOR_VERBS = {
    "create": "created",
    "str_replace": "modified",
    "insert": "modified",
    "delete": "deleted",
    "view": "read",
}
_SHELL_DELETE = re.compile(
    r"(?:^|[;&|]\s*|\s-l?c\s+)(?:git\s+)?rm\s+((?:-\S+\s+)*)([^;&|\n]+)"
    r"|\b(?:kubectl|oc)\s+delete\s+(?:-\S+\s+)*([\w.-]+)\s+([\w./-]+)"
    r"|\bhelm\s+(?:uninstall|delete)\s+([\w./-]+)",
    re.MULTILINE,
)
# Text a command only carries (a commit message, what echo prints): no command in it runs.
_QUOTED_TEXT = re.compile(
    r"(?:\s-a?m\s+|\s--message[= ]|\b(?:echo|printf)\s+(?:-\w+\s+)*)(?:\"[^\"]*\"|'[^']*')"
)
# A file moved or renamed: mv (or git mv) SOURCE DESTINATION.
_SHELL_MOVE = re.compile(
    r"(?:^|[;&|]\s*|\s-l?c\s+)(?:git\s+)?mv\s+(?:-\S+\s+)*([^\s;&|]+)\s+([^\s;&|]+)",
    re.MULTILINE,
)
# A tool that moves or renames a file, and its arguments' names for the two paths.
_MOVE_TOOL = re.compile(r"(^|_|-|\b)(mv|move|rename)", re.IGNORECASE)
_MOVE_FROM = ("source", "src", "from", "old_path", "old", "path", "file")
_MOVE_TO = ("destination", "dest", "to", "new_path", "new", "target", "new_name")
_PATH_KEYS = ("path", "file", "file_path", "filename", "target", "dest", "url")
_RECORD_KEYS = ("id", "ticket_id", "record_id", "issue", "key")
_STATE_KEYS = ("status", "state")


@dataclass(slots=True)
class Entry:
    role: str
    kind: str  # "text", "call", "result" or "error"
    text: str
    tool: str = ""
    ref: str = ""  # a call's id, or the id of the call a result answers ("": unknown)


class _Items(list[str]):
    """A list of distinct items that remembers them, so adding one is O(1) (a transcript of
    thousands of tool calls made a plain list's membership test quadratic)."""

    __slots__ = ("seen",)

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[str] = set()


@dataclass(slots=True)
class Facts:
    """What a transcript says, filed for the summary's sections."""

    requests: list[str] = field(default_factory=_Items)
    instructions: list[str] = field(default_factory=_Items)
    decisions: list[str] = field(default_factory=_Items)
    artifacts: dict[str, list[str]] = field(default_factory=dict)
    tests: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=_Items)
    commitments: list[str] = field(default_factory=_Items)
    state: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=_Items)
    identifiers: dict[str, list[str]] = field(
        default_factory=lambda: {"user": _Items(), "agent": _Items(), "tool": _Items()}
    )

    def act(self, path: str, action: str) -> None:
        actions = self.artifacts.setdefault(path, [])
        if action in actions:  # the latest comes last: created, deleted, created again
            actions.remove(action)
        actions.append(action)
        if action in ("created", "modified", "deleted"):
            before = self.tests.get(path, "")
            outcome = before.split(" after")[0] if before.startswith("tests ") else ""
            if not outcome:  # changed again: what the last run said still counts
                outcome = next(
                    (o for o in ("tests passed", "tests failed") if f"({o} before it)" in before),
                    "",
                )
            note = f" ({outcome} before it)" if outcome else ""
            self.tests[path] = "not tested since the change" + note


def read_entries(body: str) -> list[Entry]:
    """The entries of a ``<transcript>`` body (as compaction writes it)."""
    entries: list[Entry] = []
    for raw in _ENTRY.split(body.strip()):
        role, _, rest = raw.partition("] ")
        role = role.lstrip("[")
        matches = list(_PART.finditer(rest))
        head = rest[: matches[0].start()] if matches else rest
        if head.strip():
            entries.append(Entry(role, "text", head.strip()))
        for i, match in enumerate(matches):
            end = matches[i + 1].start() if i + 1 < len(matches) else len(rest)
            text = rest[match.end() : end].strip()
            if match.group("name"):
                entries.append(Entry(role, "call", text, match.group("name")))
            else:
                kind = "error" if match.group(1) == "tool error" else "result"
                entries.append(Entry(role, kind, text))
    return entries


def entries_from_messages(messages: Sequence[Message]) -> list[Entry]:
    """Entries straight from message blocks (a request that is not a transcript)."""
    entries: list[Entry] = []
    for message in messages:
        for block in message.content:
            if isinstance(block, TextBlock) and block.text.strip():
                entries.append(Entry(message.role, "text", block.text))
            elif isinstance(block, ToolUseBlock):
                text = json.dumps(block.input)
                entries.append(Entry(message.role, "call", text, block.name, block.id))
            elif isinstance(block, ToolResultBlock):
                text = block.content if isinstance(block.content, str) else ""
                if not isinstance(block.content, str):
                    text = "\n".join(p.text for p in block.content if isinstance(p, TextBlock))
                kind = "error" if block.is_error else "result"
                entries.append(Entry(message.role, kind, text, ref=block.tool_use_id))
    return entries


def shorten(text: str, limit: int) -> str:
    """``text`` on one line (its whitespace collapsed), cut to ``limit`` characters with
    an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def _arguments(text: str) -> dict[str, object]:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


# A tool's line longer than twice this (a minified blob, a hash list, a base64 dump) is
# read for ids at its two ends only: at most a dozen of its ids are kept anyway,
# and scanning a 1 MB line whole took 0.5-0.8 s per line.
_LINE_END_READ: Final = 4_000
_NOT_NAME_CHAR = re.compile(r"[^\w.:/@+-]")


def line_ends(line: str) -> str:
    """``line``'s first and last :data:`_LINE_END_READ` characters, each cut where a
    name cannot go on (no half id), on two lines; ``line`` itself when it is short."""
    if len(line) <= 2 * _LINE_END_READ:
        return line
    head = line[:_LINE_END_READ]
    cuts = list(_NOT_NAME_CHAR.finditer(head[-200:]))
    head = head[: len(head) - 200 + cuts[-1].start()] if cuts else ""
    tail = line[-_LINE_END_READ:]
    cut = _NOT_NAME_CHAR.search(tail, 0, 200)
    tail = tail[cut.end() :] if cut is not None else ""
    return head + "\n" + tail


def _identifiers(text: str) -> Iterator[str]:
    for match in IDENTIFIER.finditer(text):
        yield next(g for g in match.groups() if g)


def _add(items: list[str], item: str) -> None:
    item = " ".join(item.split())
    if not item:
        return
    if isinstance(items, _Items):
        if item not in items.seen:
            items.seen.add(item)
            items.append(item)
    elif item not in items:
        items.append(item)


def tool_action(tool: str) -> str:
    name = tool.lower()
    return next((action for rule, action in _ACTIONS if rule.search(name)), f"used by {tool}")


def _call(facts: Facts, entry: Entry, changed: list[str]) -> str | None:
    """File what a tool call does; returns the test command when it runs tests."""
    args = _arguments(entry.text)
    verb = args.get("command")
    editor = _EDITOR_VERBS.get(verb) if isinstance(verb, str) else None
    command = " ".join(
        " ".join(map(str, v)) if isinstance(v, list) else str(v)
        for k, v in args.items()
        if k in ("command", "cmd", "script", "args", "argv")
    )
    if command and editor is None:
        if _TEST_RUN.search(command):
            return command
        command = _QUOTED_TEXT.sub(" ", command)
        for deleted in shell_deletions(f"{entry.tool.lower()} {command}", command):
            facts.act(deleted, "deleted")
            if deleted not in changed:
                changed.append(deleted)
        for match in _SHELL_CANCEL.finditer(command):
            facts.act(match.group(1) or match.group(2), "status cancelled")
        for match in _SHELL_MOVE.finditer(command):
            source, target = (m.strip("'\"") for m in match.groups())
            if source and target and len(source) < 300 and len(target) < 300:
                facts.act(source, f"moved to {target}")
                if source not in changed:
                    changed.append(source)
    elif not command and _TEST_TOOL.search(entry.tool):  # unity_test, run_tests ...
        return f"{entry.tool} {entry.text}"
    for value in args.values():  # patch text: the files it adds, updates, deletes
        if isinstance(value, str) and any(m in value for m in ("*** ", "\n+++ ", "rename from ")):
            for path, action in patched_files(value):
                facts.act(path, action)
                if path not in changed:
                    changed.append(path)
    for key in _OUTPUT_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value and len(value) < 300 and PATH.fullmatch(value):
            facts.act(value, "created")
            if value not in changed:
                changed.append(value)
    if _MOVE_TOOL.search(entry.tool):
        source = next((args[k] for k in _MOVE_FROM if isinstance(args.get(k), str)), None)
        target = next((args[k] for k in _MOVE_TO if isinstance(args.get(k), str)), None)
        if isinstance(source, str) and isinstance(target, str) and source != target:
            facts.act(source, f"moved to {target}")
            if source not in changed:
                changed.append(source)
            return None
    action = editor or tool_action(entry.tool)
    # The files a tool acts on: under a known key, or any argument that is a path (a
    # tool's own language: "arquivo", "fichier", "Datei").
    named = [k for k in _PATH_KEYS if k in args] + [
        k
        for k, v in args.items()
        if k not in _PATH_KEYS
        and k not in _OUTPUT_KEYS
        and isinstance(v, str)
        and PATH.fullmatch(v)
        and not v.startswith("http")
    ]
    for key in named:
        value = args.get(key)
        if isinstance(value, str) and value and len(value) < 300:
            facts.act(value, action)
            if action in ("created", "modified", "deleted") and value not in changed:
                changed.append(value)
    record = next((args[k] for k in _RECORD_KEYS if isinstance(args.get(k), str)), None)
    state = next((args[k] for k in _STATE_KEYS if isinstance(args.get(k), str)), None)
    if record is None and isinstance(state, str):  # {"aktenzeichen": "BV-2025-9", "status": ...}
        record = next(
            (
                v
                for k, v in args.items()
                if k not in _STATE_KEYS
                and isinstance(v, str)
                and 4 <= len(v) <= 80
                and any(c.isdigit() for c in v)
                and " " not in v
                and not PATH.fullmatch(v)
            ),
            None,
        )
    if isinstance(record, str) and isinstance(state, str):
        facts.act(record, f"{state} (set by {entry.tool})")
    for token in _identifiers(entry.text):
        _add(facts.identifiers["agent"], token)
    return None


def patched_files(patch: str) -> list[tuple[str, str]]:
    """``(path, created|modified|deleted)`` for each file a patch touches, in either
    Codex's ``*** Update File:`` form or a unified diff (``/dev/null`` on one side
    marks a file added or deleted)."""
    found: list[tuple[str, str]] = []
    for match in _PATCH_FILE.finditer(patch):
        if match.group(1):
            found.append((match.group(2), _PATCH_VERBS[match.group(1)]))
        elif match.group(3):
            # *** Move to: the file updated just before moves here
            if found and found[-1][1] == "modified":
                found[-1] = (found[-1][0], f"moved to {match.group(3)}")
            found.append((match.group(3), "created"))
        elif match.group(6):
            found.append((match.group(6), f"moved to {match.group(7)}"))
        else:
            old, new = match.group(4), match.group(5)
            if new == "/dev/null":
                found.append((old, "deleted"))
            else:
                found.append((new, "created" if old == "/dev/null" else "modified"))
    return [(p, a) for p, a in dict.fromkeys(found) if p and len(p) < 300]


def shell_deletions(*commands: str) -> list[str]:
    """What shell ``commands`` delete: the operands of ``rm``/``git rm``, the resource of
    ``kubectl delete KIND NAME``, the release of ``helm uninstall``."""
    found: list[str] = []
    for command in commands:
        for match in _SHELL_DELETE.finditer(command):
            if match.group(2):
                found += [p.strip("'\"") for p in match.group(2).split() if not p.startswith("-")]
            elif match.group(4):
                found.append(match.group(4))
            elif match.group(5):
                found.append(match.group(5))
    return list(dict.fromkeys(f for f in found if f and len(f) < 300))


def _covers(command: str, path: str) -> bool:
    """Whether a test ``command`` tests ``path``: it names no file (the whole suite), or
    it names one whose name holds the file's stem (``test_rounding.py`` for
    ``rounding.py``)."""
    named = PATH.findall(command)
    stem = path.rsplit("/", 1)[-1].split(".")[0]
    return not named or any(stem in name.rsplit("/", 1)[-1] for name in named)


def _result(facts: Facts, entry: Entry, test: str | None, changed: list[str]) -> None:
    lines = [ln for ln in entry.text.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ERROR_LINE.search(ln)]
    if entry.kind == "error":
        first = errors[0] if errors else (lines[0] if lines else "")
        _add(facts.errors, f"tool error: {first}")
    else:
        for line in errors[:3]:
            _add(facts.errors, line)
    if test is not None:
        outcome = "failed" if entry.kind == "error" or _FAILED.search(entry.text) else "passed"
        if outcome == "passed" and not _PASSED.search(entry.text):
            outcome = "ran"
        summary = (errors or lines or [""])[-1].strip()
        for path in [p for p in changed if _covers(test, p)]:
            facts.tests[path] = f"tests {outcome} after the change (`{test}`: {summary})"
            # it stays: a later run of its tests (failing after passing) is its state
    for line in (lines[:1] + errors)[:4]:
        for token in _identifiers(line_ends(line)):
            _add(facts.identifiers["tool"], token)
        for path in PATH.findall(line) if line in errors else ():
            facts.act(path.rstrip(".,:;"), "in an error")
    # "created X", "status: pending approval": a tool's own report of the state it left.
    head = lines[0] if lines else ""
    for record in re.findall(r"\b(?:refund|ticket|order|record|issue)\s+(\S+)", head):
        found = re.search(r"\bstatus:?\s+([\w ]+?)(?:\s*\(|$|,|;)", head)
        if found:
            facts.act(record.rstrip(".,:;"), f"status {found.group(1).strip()}")


def _text(facts: Facts, entry: Entry) -> None:
    source = "user" if entry.role == "user" else "agent"
    if entry.role == "user":
        _add(facts.requests, entry.text)
    for sentence in SENTENCE.split(entry.text):
        sentence = sentence.strip()
        if len(sentence.split()) < 3:
            continue
        if entry.role == "user" and _INSTRUCTION.search(sentence):
            mark = "(correction) " if _CORRECTION.search(sentence) else ""
            _add(facts.instructions, mark + sentence)
        elif _DECISION.search(sentence):
            _add(facts.decisions, sentence)
        if _COMMITMENT.search(sentence) and not sentence.endswith("?"):
            who = "user" if entry.role == "user" else "agent"
            _add(facts.commitments, f"{who}: {sentence}")
    for path in PATH.findall(entry.text):
        facts.act(path.rstrip(".,:;"), "mentioned")
    for token in _identifiers(entry.text):
        _add(facts.identifiers[source], token)


def extract(entries: Sequence[Entry]) -> Facts:
    """The facts of ``entries``, in order (see the module docstring)."""
    facts = Facts()
    changed: list[str] = []  # files changed since the last test run
    test: str | None = None
    last_call: Entry | None = None
    last_text: Entry | None = None
    for entry in entries:
        if entry.kind == "text":
            last_text = entry
            _text(facts, entry)
        elif entry.kind == "call":
            last_call = entry
            test = _call(facts, entry, changed)
        else:
            _result(facts, entry, test, changed)
            test = None
    if last_text is not None:
        facts.state.append(f"last {last_text.role} message: {last_text.text}")
    if last_call is not None:
        facts.state.append(f"last tool call: {last_call.tool} {last_call.text}")
    for entry in reversed(entries):
        if entry.kind == "text" and entry.role == "assistant":
            for sentence in SENTENCE.split(entry.text):
                if _NEXT.search(sentence):
                    _add(facts.pending, sentence)
            break
    for entry in reversed(entries):
        if entry.kind == "text" and entry.role == "user":
            _add(facts.pending, f"latest user request: {entry.text}")
            break
    return facts
