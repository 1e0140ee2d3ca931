# Two commands: `make run` starts the app, `make test` runs every test. Both set up .venv first.
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
STAMP := $(VENV)/.simtviz-installed

.PHONY: run test lint gpu-test platforms screenshot mutation mutation-planted clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	@touch $(STAMP)

run: $(STAMP)
	@bash scripts/system-deps.sh $(VENV)
	$(VENV)/bin/simtviz $(ARGS)

# Guardrails first (seconds), then the suite: lint, format, import layers (pyproject.toml's
# [tool.importlinter]), types of all of src/ ([tool.mypy], strict; beside the suite). The suite runs on one worker
# more than the cores (pytest-xdist): many tests wait (time limits, timers, child processes), and
# the extra worker uses a core meanwhile. Each test file stays whole on one worker so that a
# module's compile or simulator run is made once, the longest files first (tests/conftest.py's
# LONGEST_FIRST; xdist's own reordering would put them last); docs/TESTING.md.
# PYTEST_WORKERS= runs it in one process.
WORKERS := $(shell $(PYTHON) -c "import os; print((os.cpu_count() or 1) + 1)")
PYTEST_WORKERS ?= -n $(WORKERS) --dist loadscope --no-loadscope-reorder
test: $(STAMP)
	$(PY) -m ruff check src tests benchmarks scripts
	$(PY) -m ruff format --check src tests benchmarks scripts
	$(VENV)/bin/lint-imports
	@# mypy (~25 s on a fresh clone, one core) runs beside the suite's start; its report follows.
	@mkdir -p .mypy_cache; $(PY) -m mypy > .mypy_cache/report.txt 2>&1 & types=$$!; \
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q $(PYTEST_WORKERS); tests=$$?; \
	wait $$types; typed=$$?; echo "mypy:"; cat .mypy_cache/report.txt; \
	test $$tests -eq 0 -a $$typed -eq 0

lint: $(STAMP)
	$(PY) -m ruff check src tests benchmarks scripts
	$(PY) -m ruff format --check src tests benchmarks scripts
	$(VENV)/bin/lint-imports
	$(PY) -m mypy

# On a machine with an NVIDIA GPU: the GPU tests, in their own process (numba decides at import).
gpu-test: $(STAMP)
	SIMTVIZ_BACKEND=gpu $(PY) -m pytest -m gpu -q tests/gpu

# Can simtviz install where there is no CUDA? Resolve its dependencies for macOS arm64 and
# Windows x86-64 from PyPI (pip's dry run, wheels only; needs the network). Not part of `make test`.
platforms: $(STAMP)
	$(PY) scripts/check_platforms.py $(ARGS)

# Mutation testing (docs/TESTING.md): plant small bugs one at a time in a private copy of the
# tree and run the tests mapped to each file; fails above 10 % surviving. Not part of `make test`
# (tens of minutes on 2 cores). MODULES=core/window.py limits it to some files. Outcomes are kept
# in mutation-results.tsv (committed, one row per mutant and module version), so a run resumes
# where the last one stopped and reports the whole package; a changed module is run again.
mutation: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) scripts/mutation.py --results mutation-results.tsv $(MODULES)

# The 24 bugs of issue 9, planted one at a time: each must make its test fail (~2 min).
mutation-planted: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) scripts/mutation.py --planted

screenshot: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) scripts/screenshot.py

clean:
	rm -rf $(VENV) build dist .pytest_cache .ruff_cache .mypy_cache .import_linter_cache
