# One command does all set-up: each target creates/updates .venv and installs what it needs.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install clients demo test lint docs format bench clean

# The runtime package and, next to it, the harnesses and demo data (harness/: the
# contextfold-harness distribution that `contextfold demo`, `fidelity` and `fake-upstream`
# and the tests use).
$(STAMP): pyproject.toml harness/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]' -e ./harness
	touch $(STAMP)

install: $(STAMP)

# The agent clients tests/clients/ runs through the proxy (npm and PyPI, pinned).
clients:
	PYTHON=$(PYTHON) bash tests/clients/install.sh

demo: $(STAMP)
	$(BIN)/contextfold demo

# The suite runs on parallel workers (pytest-xdist); `make test TEST_WORKERS=0` runs it in
# one process. Workers spend about a third of their time waiting (sleeps, subprocesses,
# the databases): on 2 cores, 3 workers took 238 s, 2 took 300 s and 4 took 243 s (with
# 17% more CPU).
# loadgroup keeps each xdist_group (a module's shared set-up, the replica tests) on one worker.
# Python writes bytecode for the tests even where the environment turns it off
# (PYTHONDONTWRITEBYTECODE=1): otherwise every worker recompiles and rewrites every test
# module and every `contextfold` subprocess compiles the package anew (0.5-0.7 s a start
# instead of 0.35 s); on an idle 2-core machine the suite took 405 s with it off, 366 s on.
TEST_WORKERS ?= 3
test: $(STAMP) clients
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadgroup

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy --strict src harness/src

# The manual in docs/, built into site/; any warning (a broken link or anchor) fails it.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build dist site
