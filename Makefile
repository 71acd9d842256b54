# The two commands of the README: `make run` and `make test`.
# Each creates .venv when it is missing and installs the project into it.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Reinstall when the project's metadata changes, not on every run.
STAMP_RUN := $(VENV)/.installed-run
STAMP_TEST := $(VENV)/.installed-test

.PHONY: run test lint golden clean install-pi uninstall-pi bench soak

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[emulator]'
	touch $@

$(STAMP_TEST): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,emulator]'
	touch $@ $(STAMP_RUN)

# The emulator window on a laptop (it says what to do where there is no display).
run: $(STAMP_RUN)
	$(BIN)/monopoly-city run

test: $(STAMP_TEST)
	$(BIN)/ruff check unit tests benchmarks docs hardware
	$(BIN)/ruff format --check unit tests benchmarks docs hardware
	$(BIN)/mypy
	$(BIN)/python -m pytest

# Measured, not assumed: every benchmark, then docs/performance.md rewritten with the figures.
bench: $(STAMP_TEST)
	$(BIN)/python benchmarks/run_all.py

# The long reliability runs (10,000 random sequences, 200 power cuts, 24 virtual hours),
# then docs/reliability.md rewritten with the figures.
soak: $(STAMP_TEST)
	$(BIN)/python benchmarks/soak.py

# Every picture of the screens: the golden test images and the documentation's images, in one go.
golden: $(STAMP_TEST)
	$(BIN)/python docs/make_images.py

lint: $(STAMP_TEST)
	$(BIN)/ruff check --fix unit tests benchmarks docs hardware
	$(BIN)/ruff format unit tests benchmarks docs hardware

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache

# On a Raspberry Pi, as root: the service that starts at boot (docs/raspberry-pi.md).
install-pi:
	sh systemd/install.sh

uninstall-pi:
	sh systemd/install.sh --uninstall
