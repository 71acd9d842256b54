# The two commands of the README: `make run` and `make test`; `make check` is the quick loop while coding.
# Each creates .venv when it is missing and installs the project into it.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# On a Raspberry Pi, `make run` drives the hardware: the `pi` extra (lgpio), and the system's
# python3-lgpio and gpiozero through --system-site-packages (PyPI has no lgpio wheel for every Python).
MODEL_FILE ?= /proc/device-tree/model
ON_PI := $(shell grep -qs 'Raspberry Pi' $(MODEL_FILE) && echo yes)
COMMA := ,
RUN_EXTRAS := $(if $(ON_PI),pi,emulator),web
TEST_EXTRAS := dev,emulator$(if $(ON_PI),$(COMMA)pi)
VENV_ARGS := $(if $(ON_PI),--system-site-packages)
# Reinstall when the project's metadata changes, not on every run.
STAMP_RUN := $(VENV)/.installed-run-$(RUN_EXTRAS)
STAMP_TEST := $(VENV)/.installed-test

.PHONY: run test check lint golden clean install-pi uninstall-pi bench soak system-test image

$(BIN)/python:
	$(PYTHON) -m venv $(VENV_ARGS) $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -c systemd/constraints.txt -e '.[$(RUN_EXTRAS)]'
	touch $@

$(STAMP_TEST): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -c systemd/constraints.txt -e '.[$(TEST_EXTRAS)]'
	touch $@ $(STAMP_RUN)

# The hardware on a Raspberry Pi, the emulator window on a laptop, the unit in the terminal where
# there is no display (over SSH, say).
# On a Pi the game in progress is kept in .venv/state (the service's /var/lib/monopoly-city is root's).
run: $(STAMP_RUN)
	$(BIN)/monopoly-city run$(if $(ON_PI), --state-dir $(VENV)/state)

SOURCES := unit tests benchmarks docs hardware systemtest sdcard
QUICK_TESTS := not slow and not browser and not install

# Everything: the linters, mypy, the whole suite, on every core (pytest-xdist: -n auto; -n 0 runs it in one).
PYTEST_WORKERS ?= auto
test: $(STAMP_TEST)
	$(BIN)/ruff check $(SOURCES)
	$(BIN)/ruff format --check $(SOURCES)
	$(BIN)/mypy
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS)

# The quick loop (about a minute): the same linters and mypy, the tests not marked slow, browser or install.
check: $(STAMP_TEST)
	$(BIN)/ruff check $(SOURCES)
	$(BIN)/ruff format --check $(SOURCES)
	$(BIN)/mypy
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) -m "$(QUICK_TESTS)"

# Measured, not assumed: every benchmark, then docs/performance.md rewritten with the figures.
bench: $(STAMP_TEST)
	$(BIN)/python benchmarks/run_all.py

# The long reliability runs (10,000 random sequences, 200 power cuts, 24 virtual hours),
# then docs/reliability.md rewritten with the figures.
soak: $(STAMP_TEST)
	$(BIN)/python benchmarks/soak.py

# The SD card people flash: build/monopoly-city-unit-VERSION-arm64.img.xz, from Debian's packages only, with
# the unit inside (sdcard/build.py, docs/dev/image.md). As root; about 15 minutes the first time.
image:
	$(PYTHON) -m sdcard.build

# The card of `make image` booted in arm64 virtual machines (QEMU), as a Raspberry Pi 3 B and as QEMU's virt
# machine: a real kernel, systemd, polkit and GPIO chip. As root; the card is cached in ~/.cache/monopoly-city.
# Python's standard library only (docs/dev/system-test.md).
system-test:
	$(PYTHON) -m systemtest.run

# Every picture of the screens: the golden test images and the documentation's images, in one go.
golden: $(STAMP_TEST)
	$(BIN)/python docs/make_images.py

lint: $(STAMP_TEST)
	$(BIN)/ruff check --fix $(SOURCES)
	$(BIN)/ruff format $(SOURCES)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache

# On a Raspberry Pi, as root: the service that starts at boot (docs/raspberry-pi.md).
# INSTALL_ARGS passes options to systemd/install.sh (--root DIR to build an image or test).
install-pi:
	sh systemd/install.sh $(INSTALL_ARGS)

uninstall-pi:
	sh systemd/install.sh --uninstall $(INSTALL_ARGS)
