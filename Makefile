# The two commands of the README: `make run` and `make test`.
# Each creates .venv when it is missing and installs the project into it.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Reinstall when the project's metadata changes, not on every run.
STAMP_RUN := $(VENV)/.installed-run
STAMP_TEST := $(VENV)/.installed-test

.PHONY: run test lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.'
	touch $@

$(STAMP_TEST): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(STAMP_RUN)

run: $(STAMP_RUN)
	$(BIN)/monopoly-city simulate docs/examples/demo-game.yaml

test: $(STAMP_TEST)
	$(BIN)/ruff check unit tests benchmarks
	$(BIN)/ruff format --check unit tests benchmarks
	$(BIN)/python -m pytest

lint: $(STAMP_TEST)
	$(BIN)/ruff check --fix unit tests benchmarks
	$(BIN)/ruff format unit tests benchmarks

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
