"""The house (``../shared/STYLE.md``): which module may import which, read from the source.

Every module of ``contextfold`` belongs to one floor; a module may import only from its
own floor or those below it, with the extra rules that stores never import transports
and transports never import stores, and that the faces do not import one another
except the CLI, which starts the others.
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
        "context",
        "tokens",
        "_tiktoken",
        "dialects",
        "formats",
        "errors",
        "prompts",
        "validation",
        "_history",
        "_masking",
        "_storage",
        "_secrets",
        "_otel",
        "_extras",
        "_cancel",
    ),
    2: ("transports", "testing", "sqlite", "postgres", "redis", "_redis", "_sql"),
    3: ("agent",),
    4: ("compaction", "strategies", "recall"),
    5: ("cli", "proxy", "manager", "fidelity", "compactbench"),
}
STORES = ("sqlite", "postgres", "redis", "_redis", "_sql", "_storage", "context")
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
            assert top(imported) not in STORES or imported == "context", (
                f"transport module {name} imports store module {imported}"
            )
            assert not imported.startswith("compaction"), f"{name} imports {imported}"
        if top(name) in FACES and top(imported) in FACES:
            assert top(name) == "cli", f"face {name} imports face {imported}"


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
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith(("anthropic", "openai")), (
                    f"{name} imports {node.module}"
                )
