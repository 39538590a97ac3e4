"""The house (``../shared/STYLE.md``): which module may import which, read from the source.

Every module of ``contextfold`` belongs to one floor; a module may import only from its
own floor or those below it, with the extra rules that stores never import transports
and transports never import stores, that the faces do not import one another except
the CLI, which starts the others, and that the stores' private machinery (``_sql``,
``_redis``, ...) is used only inside ``stores/``. No two modules import each other,
however far round, and only the dialects branch on which wire format they hold.

The harnesses and demo data (``harness/``: the ``contextfold_harness`` package) sit
above the house: they may import any of it, and ``contextfold`` never imports them
except where the CLI loads one, by name, when its command runs (:data:`HARNESS_LOADS`).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "contextfold"
HARNESS = ROOT / "harness" / "src" / "contextfold_harness"

# floor -> module name prefixes (dotted, relative to contextfold); the longest prefix wins
FLOORS: dict[int, tuple[str, ...]] = {
    0: ("blocks", "messages"),
    1: (
        "transports.base",
        "stores.base",
        "tokens",
        "_tiktoken",
        "dialects",
        "formats",
        "errors",
        "prompts",
        "validation",
        "_history",
        "_masking",
        "_secrets",
        "_otel",
        "_extras",
        "_cancel",
    ),
    # the concrete stores and their machinery; context, sqlite, postgres and redis are
    # the import paths of before stores/ (they re-export it)
    2: ("transports", "testing", "stores", "context", "sqlite", "postgres", "redis"),
    3: ("agent",),
    4: ("compaction", "strategies", "recall"),
    5: ("cli", "proxy", "manager"),
}
STORES = ("stores", "context", "sqlite", "postgres", "redis")
FACES = ("cli", "proxy", "manager")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def floor_of(name: str) -> int:
    best: tuple[int, int] | None = None  # (prefix length, floor)
    for floor, prefixes in FLOORS.items():
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and (
                best is None or len(prefix) > best[0]
            ):
                best = (len(prefix), floor)
    if best is None:
        raise AssertionError(f"contextfold.{name} is on no floor of the house; add it to FLOORS")
    return best[1]


def top(name: str) -> str:
    return name.split(".")[0]


@functools.cache
def parsed(path: Path) -> ast.Module:
    """The syntax tree of ``path``, parsed once in a run: the checks below read every
    module several times."""
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of :func:`parsed`'s tree, in ``ast.walk``'s order."""
    return tuple(ast.walk(parsed(path)))


def imports_of(path: Path) -> set[str]:
    """The contextfold modules ``path`` imports (relative to the package)."""
    found: set[str] = set()
    for node in nodes(path):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            if name.startswith("contextfold."):
                found.add(name.removeprefix("contextfold."))
    # keep only names that are modules or packages (``from x import Name`` adds x.Name)
    return {
        n
        for n in found
        if (SRC / n.replace(".", "/")).with_suffix(".py").exists()
        or (SRC / n.replace(".", "/") / "__init__.py").exists()
    }


MODULES = sorted(p for p in SRC.rglob("*.py") if module_name(p) not in ("", "__main__"))


def test_every_module_is_on_a_floor() -> None:
    for path in MODULES:
        floor_of(module_name(path))


@pytest.mark.parametrize("path", MODULES, ids=module_name)
def test_imports_flow_down_the_house(path: Path) -> None:
    name = module_name(path)
    floor = floor_of(name)
    for imported in sorted(imports_of(path)):
        if imported == name or top(imported) == top(name):
            continue  # a room may use its own machinery
        there = floor_of(imported)
        assert there <= floor, f"{name} (floor {floor}) imports {imported} (floor {there})"
        if top(name) in STORES:
            assert not imported.startswith(("transports", "compaction")), (
                f"store module {name} imports {imported}"
            )
        if top(name) == "transports":
            assert top(imported) not in STORES, (
                f"transport module {name} imports store module {imported}"
            )
            assert not imported.startswith("compaction"), f"{name} imports {imported}"
        if top(name) in FACES and top(imported) in FACES:
            assert top(name) == "cli", f"face {name} imports face {imported}"


def is_store_machinery(name: str) -> bool:
    """Whether ``name`` is a private module of ``stores/`` (``stores._sql.store``, say)."""
    parts = name.split(".")
    return parts[0] == "stores" and any(part.startswith("_") for part in parts[1:])


def test_only_the_stores_use_their_private_machinery() -> None:
    """Outside ``stores/``, code reaches a store through its public modules only."""
    for path in MODULES:
        name = module_name(path)
        if top(name) == "stores":
            continue
        private = sorted(i for i in imports_of(path) if is_store_machinery(i))
        assert private == [], f"{name} imports the stores' private machinery: {private}"


def test_the_store_contract_and_machinery_load_no_concrete_store() -> None:
    """Inside ``stores/``, the contract and the private machinery sit below the stores.

    A concrete store (memory, sqlite, postgres, redis) builds on them, never the other
    way round; the one exception is ``ContextStore.fork``'s default, which makes a
    memory store and imports it inside the method, not when ``stores.base`` loads.
    """
    concrete = {f"contextfold.stores.{name}" for name in ("memory", "sqlite", "postgres", "redis")}
    for path in MODULES:
        name = module_name(path)
        if not (name == "stores.base" or is_store_machinery(name)):
            continue
        tree = parsed(path)
        loaded = {n.module for n in tree.body if isinstance(n, ast.ImportFrom) and n.module}
        loaded |= {a.name for n in tree.body if isinstance(n, ast.Import) for a in n.names}
        assert not loaded & concrete, f"{name} imports {sorted(loaded & concrete)} when it loads"


def test_the_ground_imports_nothing_of_ours() -> None:
    for path in MODULES:
        name = module_name(path)
        if floor_of(name) == 0:
            assert imports_of(path) <= {"blocks"}, f"{name} imports {imports_of(path)}"


def test_only_formats_and_provider_transports_know_wire_formats() -> None:
    """No module outside the dialects and the provider transports imports the SDKs' types."""
    allowed = ("dialects", "formats", "transports", "proxy", "cli")  # proxy/cli forward wire JSON
    for path in MODULES:
        name = module_name(path)
        if name.startswith(allowed):
            continue
        tree = parsed(path)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith(("anthropic", "openai")), (
                    f"{name} imports {node.module}"
                )


# -- import cycles ---------------------------------------------------------------------

# Imports inside functions (``def`` bodies) that may close a cycle: they run after both
# modules are loaded. Each says why it is lazy.
LAZY_CYCLES: frozenset[tuple[str, str]] = frozenset(
    {
        # the server loads only to serve, and takes its defaults from the package
        ("proxy", "proxy._server"),
        # ContextStore.fork's default builds a memory store, which is a ContextStore
        ("stores.base", "stores.memory"),
    }
)


NAMES = {module_name(p) for p in SRC.rglob("*.py")}


def _ours(dotted: str) -> str | None:
    """The module of ours (relative to contextfold; ``""`` is the package itself) that
    ``dotted`` lives in."""
    if dotted != "contextfold" and not dotted.startswith("contextfold."):
        return None
    name = dotted.removeprefix("contextfold").removeprefix(".")
    while name not in NAMES:
        name = name.rpartition(".")[0]
    return name


def import_edges(path: Path) -> tuple[set[str], set[str]]:
    """``(module level, inside functions)``: the modules of ours ``path`` imports.

    ``from package import name`` depends on the submodule ``package.name`` when there
    is one, else on the package itself (its ``__init__``). Imports under
    ``if TYPE_CHECKING:`` count as module level: they couple the modules all the same.
    """
    name = module_name(path)
    top: set[str] = set()
    lazy: set[str] = set()

    def visit(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            nested = inside or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            found: list[str] = []
            if isinstance(child, ast.Import):
                found = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom):
                assert child.level == 0, f"{name} imports relatively; the house imports absolutely"
                base = child.module or ""
                for alias in child.names:
                    sub = f"{base}.{alias.name}"
                    found.append(sub if _ours(sub) == sub.removeprefix("contextfold.") else base)
            for dotted in found:
                target = _ours(dotted)
                if target is not None and target != name:
                    (lazy if nested else top).add(target)
            visit(child, nested)

    visit(parsed(path), False)
    return top, lazy


def _reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = {start}, [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of ``graph`` with more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


@functools.cache
def edges() -> dict[str, tuple[set[str], set[str]]]:
    """Each module's :func:`import_edges` (read once, when a test first asks: every
    worker collects this file)."""
    return {module_name(p): import_edges(p) for p in SRC.rglob("*.py")}


def test_no_module_level_import_cycles() -> None:
    graph = {name: top for name, (top, _) in edges().items()}
    assert _cycles(graph) == []


def test_only_the_listed_lazy_imports_close_a_cycle() -> None:
    graph = {name: top | lazy for name, (top, lazy) in edges().items()}
    closing = {
        (name, target)
        for name, (_, lazy) in edges().items()
        for target in lazy
        if _reaches(graph, target, name)
    }
    assert closing <= LAZY_CYCLES


def test_the_cycle_finder_finds_cycles() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
    assert _reaches({"a": {"b"}, "b": {"c"}}, "a", "c")
    assert not _reaches({"a": {"b"}, "b": {"c"}}, "c", "a")


# -- dialect branches --------------------------------------------------------------------

WIRE_NAMES = frozenset({"openai", "anthropic", "responses"})
SINGLETONS = frozenset({"CHAT", "RESPONSES", "MESSAGES"})
DIALECT_CLASSES = frozenset({"ChatCompletions", "Responses", "Messages"})


def _ident(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _dialectish(node: ast.AST) -> bool:
    """``dialect``, ``conv.dialect``, ``route_dialect``-named values, or a singleton."""
    ident = _ident(node)
    return ident is not None and (
        ident == "dialect" or ident.endswith("_dialect") or ident in SINGLETONS
    )


def _wire_name(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in WIRE_NAMES
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_wire_name(e) for e in node.elts)
    return False


def dialect_branches(source: str) -> list[str]:
    """Where ``source`` asks which wire format it holds: a comparison of a dialect (or
    with a format's name), a ``match`` on one, an ``isinstance`` of a dialect class.
    Comparing a ``provider`` with a name (which transport to build) is not one."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            provider = any(_ident(o) == "provider" for o in operands)
            bad = any(_dialectish(o) for o in operands) or (
                not provider and any(_wire_name(o) for o in operands)
            )
        elif isinstance(node, ast.Match):
            bad = _dialectish(node.subject)
        elif isinstance(node, ast.Call) and _ident(node.func) == "isinstance":
            kinds = node.args[1] if len(node.args) == 2 else None
            elts = kinds.elts if isinstance(kinds, ast.Tuple) else [kinds]
            bad = any(e is not None and _ident(e) in DIALECT_CLASSES for e in elts)
        else:
            continue
        if bad:
            found.append(f"line {getattr(node, 'lineno', '?')}: {ast.unparse(node)[:80]}")
    return found


@pytest.mark.parametrize(
    "source",
    [
        'if dialect == "responses": pass',
        'x = conv.dialect != "anthropic"',
        'x = kind in ("openai", "anthropic")',
        "x = dialect is MESSAGES",
        "match dialect:\n    case _: pass",
        "x = isinstance(d, ChatCompletions)",
    ],
)
def test_the_scan_finds_dialect_branches(source: str) -> None:
    assert dialect_branches(source) != []


def test_the_scan_lets_providers_and_other_strings_be() -> None:
    assert dialect_branches('if provider == "anthropic": pass') == []
    assert dialect_branches('x = kind == "message"') == []


OUTSIDE_THE_DIALECTS = sorted(
    p for p in SRC.rglob("*.py") if not module_name(p).startswith("dialects")
)


@pytest.mark.parametrize(
    "path", OUTSIDE_THE_DIALECTS, ids=lambda p: module_name(p) or "contextfold"
)
def test_only_the_dialects_branch_on_the_wire_format(path: Path) -> None:
    assert dialect_branches(path.read_text(encoding="utf-8")) == []


# -- the harness ------------------------------------------------------------------------

# (module of contextfold, harness module it loads): the CLI's commands that run harness
# code, each through ``cli._commands.load_harness`` inside the command's function, so
# that the runtime package loads (and ``--help`` lists every command) without it.
HARNESS_LOADS: frozenset[tuple[str, str]] = frozenset(
    {
        ("cli", "fake_upstream"),  # contextfold fake-upstream
        ("cli._commands", "demo"),  # contextfold demo
        ("cli._fidelity", "fidelity"),  # contextfold fidelity
    }
)


def _names_the_harness(node: ast.AST) -> bool:
    """Whether ``node`` is a string (or an f-string's start) naming the harness package."""
    if isinstance(node, ast.JoinedStr) and node.values:
        node = node.values[0]
    return isinstance(node, ast.Constant) and str(node.value).startswith("contextfold_harness")


def _harness_loads(source: str) -> set[tuple[str, bool]]:
    """``(harness module, inside a function)`` for each ``load_harness("...")`` call."""
    found: set[tuple[str, bool]] = set()

    def visit(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            nested = inside or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if (
                isinstance(child, ast.Call)
                and _ident(child.func) == "load_harness"
                and child.args
                and isinstance(child.args[0], ast.Constant)
            ):
                found.add((str(child.args[0].value), nested))
            visit(child, nested)

    visit(ast.parse(source), False)
    return found


def test_contextfold_imports_the_harness_only_through_the_clis_lazy_loads() -> None:
    loads: set[tuple[str, str]] = set()
    for path in MODULES:
        name = module_name(path)
        text = path.read_text(encoding="utf-8")
        for node in nodes(path):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            assert not any(n.partition(".")[0] == "contextfold_harness" for n in names), (
                f"{name} imports the harness ({names}); load it with load_harness instead"
            )
        for node in nodes(path):
            if isinstance(node, ast.Call) and any(_names_the_harness(a) for a in node.args):
                assert name == "cli._commands", f"{name} imports the harness by its name"
        for module, nested in _harness_loads(text):
            assert nested, f"{name} loads the harness's {module} when it is imported"
            assert (HARNESS / module).with_suffix(".py").exists() or (
                HARNESS / module / "__init__.py"
            ).exists(), f"{name} loads contextfold_harness.{module}, which does not exist"
            loads.add((name, module))
    assert loads == HARNESS_LOADS


def test_the_scan_finds_harness_loads() -> None:
    source = "def f():\n    load_harness('demo', 'demo')\nx = load_harness('fidelity', 'x')\n"
    assert _harness_loads(source) == {("demo", True), ("fidelity", False)}
    assert _names_the_harness(ast.parse('f"contextfold_harness.{m}"', mode="eval").body)
    assert not _names_the_harness(ast.parse('"contextfold.proxy"', mode="eval").body)


HARNESS_MODULES = sorted(HARNESS.rglob("*.py"))


def _harness_name(path: Path) -> str:
    parts = list(path.relative_to(HARNESS).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def test_the_harness_exists_and_has_no_import_cycles() -> None:
    names = {_harness_name(p) for p in HARNESS_MODULES}
    assert {"fidelity", "compactbench", "demo", "scenario", "fake_upstream"} <= names
    graph: dict[str, set[str]] = {}
    for path in HARNESS_MODULES:
        edges = graph.setdefault(_harness_name(path), set())
        for node in nodes(path):
            if isinstance(node, ast.ImportFrom):
                assert node.level == 0, f"{path} imports relatively; the house imports absolutely"
                base = (node.module or "").removeprefix("contextfold_harness").lstrip(".")
                if (node.module or "").partition(".")[0] == "contextfold_harness":
                    for alias in node.names:
                        sub = f"{base}.{alias.name}".lstrip(".")
                        edges.add(sub if sub in names else base)
    for name in graph:
        graph[name].discard(name)
    assert _cycles(graph) == []


# The one policy (``compaction._scheduler``): the faces hold a ``Scheduler`` and take the
# trigger, single flight, back-off, preparation and the summary timeout from it, never
# from the rules underneath it, nor from tables of their own (issue 25, item 1: each face
# kept its own copy of each and they drifted; the store kept its preparation slots in a
# ``compaction._prepare.Preparation``, the manager and the proxy in attributes).
POLICY_FACES = ("proxy", "manager", "compaction._compactor", "compaction._store")
POLICY_PARTS = {
    "compaction._backoff": {"BackOff"},
    "compaction._trigger": {"due", "decide"},
    "compaction._engine": {"within_summary_timeout"},
    "compaction._prepare": {"Preparation"},
}
POLICY_TABLES = {"Flights", "BackOffs", "Preparations"}
"""The scheduler's tables: a face uses its scheduler's, it never builds one."""


def _policy_parts_used(path: Path) -> list[str]:
    used = []
    for node in nodes(path):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            module = node.module.removeprefix("contextfold.")
            for alias in node.names:
                if alias.name in POLICY_PARTS.get(module, set()):
                    used.append(f"{module}.{alias.name}")
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name in POLICY_TABLES:
                used.append(f"{name}(...)")
    return used


@pytest.mark.parametrize(
    "path",
    [p for p in MODULES if module_name(p).startswith(POLICY_FACES)],
    ids=module_name,
)
def test_the_faces_take_the_policy_from_the_scheduler(path: Path) -> None:
    assert _policy_parts_used(path) == [], module_name(path)


def test_the_policy_scan_finds_a_face_keeping_its_own(tmp_path: Path) -> None:
    face = tmp_path / "face.py"
    face.write_text(
        "from contextfold.compaction._backoff import BackOff\n"
        "from contextfold.compaction._trigger import TriggerCheck, due\n"
        "from contextfold.compaction._engine import Options, within_summary_timeout\n"
        "from contextfold.compaction._prepare import Preparation, prepare_point\n"
        "from contextfold.compaction import _scheduler\n"
        "ready = _scheduler.Preparations(max_bytes=1)\n",
        encoding="utf-8",
    )
    assert sorted(_policy_parts_used(face)) == [
        "Preparations(...)",
        "compaction._backoff.BackOff",
        "compaction._engine.within_summary_timeout",
        "compaction._prepare.Preparation",
        "compaction._trigger.due",
    ]


# One policy, written once (issue 25, item 1): the policy and the faces never define
# the same class twice (``CachedSummary`` was both the proxy's and the manager's, with
# different fields). A pair not merged yet is listed here; the list only shrinks.
TWICE_ROOMS = ("compaction", "proxy", "manager", "cli")
STILL_TWICE = {
    "SummaryCache": ["manager._history", "proxy._cache"],
}


def _classes_defined(paths: list[Path], name_of: Callable[[Path], str]) -> dict[str, list[str]]:
    """Every top-level class name of ``paths``, with the modules that define it (sorted)."""
    defined: dict[str, list[str]] = {}
    for path in paths:
        for node in parsed(path).body:
            if isinstance(node, ast.ClassDef):
                defined.setdefault(node.name, []).append(name_of(path))
    return {name: sorted(modules) for name, modules in defined.items()}


def test_the_policy_and_the_faces_define_no_class_twice() -> None:
    rooms = [p for p in MODULES if top(module_name(p)) in TWICE_ROOMS]
    twice = {n: m for n, m in _classes_defined(rooms, module_name).items() if len(m) > 1}
    assert twice == STILL_TWICE


def test_the_class_scan_finds_a_class_defined_twice(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("class CachedSummary:\n    pass\n", encoding="utf-8")
    (tmp_path / "b.py").write_text(
        "def f() -> None:\n    class Local: ...\nclass CachedSummary(Base): ...\n",
        encoding="utf-8",
    )
    found = _classes_defined(sorted(tmp_path.glob("*.py")), lambda p: p.stem)
    assert found == {"CachedSummary": ["a", "b"]}
