"""The phone companion's systemd unit (systemd/monopoly-city-web.service), hardened like the unit's own."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import exposure

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "systemd" / "monopoly-city-web.service"
UNIT = ROOT / "systemd" / "monopoly-city-unit.service"
needs_systemd_analyze = pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")


def settings(path: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            found.setdefault(key, []).append(value)
    return found


@pytest.fixture
def checkable(tmp_path):
    """The unit with ExecStart pointed at a program that exists here (systemd-analyze checks it)."""
    text = WEB.read_text(encoding="utf-8")
    path = tmp_path / WEB.name
    path.write_text(re.sub(r"(?m)^ExecStart=.*$", "ExecStart=/bin/true", text), encoding="utf-8")
    return path


@pytest.mark.install
@needs_systemd_analyze
def test_systemd_analyze_verify_prints_nothing(checkable):
    result = subprocess.run(["systemd-analyze", "verify", "--man=no", str(checkable)], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout + result.stderr == ""


@pytest.mark.install
@needs_systemd_analyze
def test_security_exposure_is_two_or_less(checkable):
    level, report = exposure(checkable)
    assert level <= 2.0, report[-600:]


def test_it_serves_the_unit_of_the_same_user_and_state_folder():
    web, unit = settings(WEB), settings(UNIT)
    assert web["User"] == unit["User"] and web["Group"] == unit["Group"]
    assert web["StateDirectory"] == unit["StateDirectory"] == ["monopoly-city"]
    assert "serve" in web["ExecStart"][0] and "--state-dir /var/lib/monopoly-city" in web["ExecStart"][0]
    assert "--state-dir /var/lib/monopoly-city" in unit["ExecStart"][0]
    assert "monopoly-city-unit.service" in web["After"][0]
    assert web["CPUQuota"] == ["10%"] and "MemoryMax" in web


def test_it_talks_only_to_loopback_and_the_local_network():
    web = settings(WEB)
    assert web["IPAddressDeny"] == ["any"]
    allowed = " ".join(web["IPAddressAllow"]).split()
    assert set(allowed) <= {"localhost", "link-local", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"}
    assert "localhost" in allowed and "192.168.0.0/16" in allowed
    assert web["RestrictAddressFamilies"] == ["AF_UNIX AF_INET AF_INET6"]
    assert web["CapabilityBoundingSet"] == [""] and web["NoNewPrivileges"] == ["yes"]
