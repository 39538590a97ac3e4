"""What ``pyproject.toml`` declares matches what the code imports; licence, URLs, ``-m``.

The install itself (a fresh venv with the oldest allowed SDKs) is tested in
``tests/test_install.py``.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

from packaging.requirements import Requirement

from contextfold._extras import EXTRAS

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "contextfold"
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _names(requirements: list[str]) -> set[str]:
    return {Requirement(r).name.lower() for r in requirements}


CORE = _names(PROJECT["dependencies"])
EXTRA_DISTS = {
    extra: _names(reqs)
    for extra, reqs in PROJECT["optional-dependencies"].items()
    if extra not in ("all", "dev")
}


def _third_party_imports() -> dict[str, set[Path]]:
    """Top-level modules imported anywhere in ``src/`` that are neither ours nor stdlib."""
    found: dict[str, set[Path]] = {}
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                tops = [alias.name.partition(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                tops = [node.module.partition(".")[0]]
            else:
                continue
            for top in tops:
                if top != "contextfold" and top not in sys.stdlib_module_names:
                    found.setdefault(top, set()).add(path)
    return found


def _distribution(module: str) -> str:
    [dist] = packages_distributions()[module][:1]
    return dist.lower().replace("_", "-")


def test_every_imported_package_is_declared_where_it_is_needed() -> None:
    imports = _third_party_imports()
    assert {"anthropic", "openai", "httpx2", "aiosqlite"} <= set(imports)
    for module in imports:
        dist = _distribution(module)
        extras = [extra for extra, modules in EXTRAS.items() if module in modules]
        if extras:  # an optional package: declared in that extra, not in the core
            [extra] = extras
            # a namespace package (opentelemetry) spans several distributions
            dists = {d.lower().replace("_", "-") for d in packages_distributions()[module]}
            dist = next(iter(sorted(dists & EXTRA_DISTS[extra])), dist)
            assert dist in EXTRA_DISTS[extra], f"{module} ({dist}) is not in the {extra} extra"
            assert dist not in CORE, f"{dist} is optional ({extra}) but a core dependency"
        else:
            assert dist in CORE, f"src imports {module} but {dist} is not a dependency"


def test_no_core_dependency_goes_unused() -> None:
    used = {_distribution(module) for module in _third_party_imports()}
    assert used >= CORE, f"declared but never imported: {sorted(CORE - used)}"
    assert "httpx" not in CORE  # the SDKs moved to httpx2; only respx (tests) needs httpx
    assert "httpx" in _names(PROJECT["optional-dependencies"]["dev"])


def test_every_extra_is_known_to_the_install_hints() -> None:
    assert set(EXTRA_DISTS) == set(EXTRAS)


def test_the_sdk_floors_are_the_first_releases_on_httpx2() -> None:
    floors = {Requirement(r).name: str(Requirement(r).specifier) for r in PROJECT["dependencies"]}
    assert floors["anthropic"] == ">=1.0"
    assert floors["openai"] == ">=3.0"
    assert floors["httpx2"] == ">=2.7"


def test_license_and_project_urls() -> None:
    license_text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert license_text.startswith("MIT License")
    assert "contextfold developers" in license_text
    assert PROJECT["license"] == "MIT"
    assert PROJECT["license-files"] == ["LICENSE"]
    urls = PROJECT["urls"]
    assert set(urls) == {"Homepage", "Repository", "Issues", "Documentation"}
    assert all(u.startswith("https://github.com/contextfold/contextfold") for u in urls.values())


def _run_module(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "contextfold", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")},
        timeout=120,
    )


def test_python_dash_m_contextfold_is_the_cli(tmp_path: Path) -> None:
    from contextfold import __version__

    version = _run_module("--version")
    assert (version.returncode, version.stdout.strip()) == (0, f"contextfold {__version__}")
    usage = _run_module("--help")
    assert usage.returncode == 0
    assert usage.stdout.startswith("usage: contextfold ")
    db = tmp_path / "sessions.db"
    demo = _run_module("demo", "--turns", "2", "--json", "--db", str(db))
    assert demo.returncode == 0, demo.stderr
    listed = _run_module("sessions", str(db))
    assert listed.returncode == 0
    assert "1 session(s)" in listed.stdout
    bad = _run_module("compact", str(tmp_path / "missing.json"))
    assert bad.returncode == 1
    assert bad.stderr.count("\n") == 1
    assert bad.stderr.startswith("contextfold: error: ")
