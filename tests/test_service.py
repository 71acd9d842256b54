"""The systemd unit and the install script."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "monopoly-city-unit.service"
needs_systemd_analyze = pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")


@pytest.fixture
def checkable_unit(tmp_path):
    """The unit with ExecStart pointed at a program that exists here (systemd-analyze checks it)."""
    text = UNIT.read_text(encoding="utf-8")
    lines = [("ExecStart=/bin/true" if line.startswith("ExecStart=") else line) for line in text.splitlines()]
    path = tmp_path / "monopoly-city-unit.service"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@needs_systemd_analyze
def test_systemd_analyze_verify_prints_nothing(checkable_unit):
    result = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(checkable_unit)], capture_output=True, text=True
    )
    assert result.returncode == 0
    assert result.stdout + result.stderr == ""


@needs_systemd_analyze
def test_security_exposure_is_one_or_less(checkable_unit):
    result = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", "--threshold=10", str(checkable_unit)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-400:]
    assert "Overall exposure level" in result.stdout


def test_unit_keeps_gpio_and_i2c_reachable():
    text = UNIT.read_text(encoding="utf-8")
    assert "Type=notify" in text and "WatchdogSec=" in text and "Restart=on-failure" in text
    assert "DeviceAllow=char-gpiochip rw" in text and "DeviceAllow=char-i2c rw" in text
    assert "SupplementaryGroups=gpio i2c" in text and "PrivateNetwork=yes" in text
    assert "PrivateDevices" not in text and "ProcSubset" not in text  # they hide the GPIO and the Pi's model
    assert "--state-dir /var/lib/monopoly-city" in text and "StateDirectory=monopoly-city" in text
    start = text.index("[Unit]")
    assert "StartLimitIntervalSec" in text[start : text.index("[Service]")]


def run_install(root: Path, *options: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1")
    return subprocess.run(
        ["sh", str(ROOT / "systemd/install.sh"), "--root", str(root), "--pip-args", "--no-deps", *options],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def test_install_into_a_temporary_root_and_uninstall_keeping_the_configuration(tmp_path):
    root = tmp_path / "root"
    (root / "boot/firmware").mkdir(parents=True)
    (root / "boot/firmware/config.txt").write_text("dtparam=i2c_arm=on\n")
    (root / "etc/monopoly-city").mkdir(parents=True)
    (root / "etc/monopoly-city/config.yaml").write_text("language: en\n")

    result = run_install(root)
    assert result.returncode == 0, result.stderr
    assert (root / "opt/monopoly-city/venv/bin/monopoly-city").exists()
    assert (root / "opt/monopoly-city/venv/bin/python").exists()
    site = root / "opt/monopoly-city/venv/lib"
    assert list(site.glob("python3*/site-packages/unit/core/__pycache__/machine.*.pyc"))
    assert (root / "etc/monopoly-city/config.yaml").read_text() == "language: en\n"  # only written if absent
    link = root / "etc/systemd/system/multi-user.target.wants/monopoly-city-unit.service"
    assert os.readlink(link) == "/etc/systemd/system/monopoly-city-unit.service"  # enabled
    assert (root / "etc/systemd/system/monopoly-city-unit.service").read_text() == UNIT.read_text()
    assert (root / "etc/polkit-1/rules.d/50-monopoly-city.rules").exists()
    assert "I2C is not enabled" not in result.stdout

    result = run_install(root, "--uninstall")
    assert result.returncode == 0, result.stderr
    assert not (root / "opt/monopoly-city").exists()
    assert not link.exists() and not (root / "etc/systemd/system/monopoly-city-unit.service").exists()
    assert (root / "etc/monopoly-city/config.yaml").read_text() == "language: en\n"


def test_install_writes_the_configuration_when_absent_and_says_how_to_enable_i2c(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    result = run_install(root)
    assert result.returncode == 0, result.stderr
    config = (root / "etc/monopoly-city/config.yaml").read_text()
    assert config == (ROOT / "systemd/config.yaml").read_text()
    assert "raspi-config nonint do_i2c 0" in result.stdout


def test_the_shipped_configuration_template_is_valid():
    from unit.app import config as configuration

    layer = configuration.load_file(str(ROOT / "systemd/config.yaml"))
    assert configuration.load(layer).language == "fr"


def make_dry_run(*args: str) -> str:
    return subprocess.run(
        ["make", "-n", "-B", *args], cwd=ROOT, capture_output=True, text=True, check=True, timeout=30
    ).stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_make_run_installs_the_pi_extra_on_a_pi_and_the_emulator_elsewhere(tmp_path):
    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi Zero 2 W Rev 1.0\x00")
    on_pi = make_dry_run("run", f"MODEL_FILE={model}")
    assert "-m venv --system-site-packages .venv" in on_pi
    assert "pip install --quiet -e '.[pi]'" in on_pi and "emulator" not in on_pi
    assert "pip install --quiet -e '.[dev,emulator,pi]'" in make_dry_run("test", f"MODEL_FILE={model}")
    model.write_bytes(b"Some laptop\x00")
    elsewhere = make_dry_run("run", f"MODEL_FILE={model}")
    assert "pip install --quiet -e '.[emulator]'" in elsewhere and "--system-site-packages" not in elsewhere
