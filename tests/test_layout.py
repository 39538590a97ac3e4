"""The house (``../shared/STYLE.md``): which module may import which, read from the source.

Every module of ``contextfold`` belongs to one floor; a module may import only from its
own floor or those below it, with the extra rules that stores never import transports
and transports never import stores, that the faces do not import one another except
the CLI, which starts the others, and that the stores' private machinery (``_sql``,
``_redis``, ...) is used only inside ``stores/``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "contextfold"

# floor -> module name prefixes (dotted, relative to contextfold); the longest prefix wins
FLOORS: dict[int, tuple[str, ...]] = {
    0: ("blocks", "messages"),
    1: (
        "transports.base",
        "stores.base",
        "tokens",
        "_tiktoken",
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
    5: ("cli", "proxy", "manager", "fidelity", "compactbench"),
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


def imports_of(path: Path) -> set[str]:
    """The contextfold modules ``path`` imports (relative to the package)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
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
        tree = ast.parse(path.read_text(encoding="utf-8"))
        loaded = {n.module for n in tree.body if isinstance(n, ast.ImportFrom) and n.module}
        loaded |= {a.name for n in tree.body if isinstance(n, ast.Import) for a in n.names}
        assert not loaded & concrete, f"{name} imports {sorted(loaded & concrete)} when it loads"


def test_the_ground_imports_nothing_of_ours() -> None:
    for path in MODULES:
        name = module_name(path)
        if floor_of(name) == 0:
            assert imports_of(path) <= {"blocks"}, f"{name} imports {imports_of(path)}"


def test_only_formats_and_provider_transports_know_wire_formats() -> None:
    """No module outside ``formats`` and the provider transports imports the SDKs' types."""
    allowed = ("formats", "transports", "proxy", "cli")  # proxy/cli forward and read wire JSON
    for path in MODULES:
        name = module_name(path)
        if name.startswith(allowed):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith(("anthropic", "openai")), (
                    f"{name} imports {node.module}"
                )
