# Two commands: `make run` starts the app, `make test` runs every test. Both set up .venv first.
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
STAMP := $(VENV)/.simtviz-installed

.PHONY: run test lint gpu-test screenshot clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	@touch $(STAMP)

run: $(STAMP)
	@bash scripts/system-deps.sh $(VENV)
	$(VENV)/bin/simtviz $(ARGS)

# Guardrails first (seconds), then the suite: lint, format, import layers (pyproject.toml's
# [tool.importlinter]), types of core/ and backends/ ([tool.mypy]).
test: $(STAMP)
	$(PY) -m ruff check src tests benchmarks scripts
	$(PY) -m ruff format --check src tests benchmarks scripts
	$(VENV)/bin/lint-imports
	$(PY) -m mypy
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q

lint: $(STAMP)
	$(PY) -m ruff check src tests benchmarks scripts
	$(PY) -m ruff format --check src tests benchmarks scripts
	$(VENV)/bin/lint-imports
	$(PY) -m mypy

# On a machine with an NVIDIA GPU: the GPU tests, in their own process (numba decides at import).
gpu-test: $(STAMP)
	SIMTVIZ_BACKEND=gpu $(PY) -m pytest -m gpu -q tests/gpu

screenshot: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) scripts/screenshot.py

clean:
	rm -rf $(VENV) build dist .pytest_cache .ruff_cache .mypy_cache .import_linter_cache
