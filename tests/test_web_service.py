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
def test_security_exposure_is_one_or_less(checkable):
    level, report = exposure(checkable)
    assert level <= 1.0, report[-600:]


def test_it_runs_as_its_own_user_reaching_the_unit_through_its_socket_only():
    """Its own user and folder; the unit's group for the socket (the unit's folder is 0710, its files 0600)."""
    web, unit = settings(WEB), settings(UNIT)
    assert web["User"] == web["Group"] == ["monopoly-city-web"] and unit["User"] == ["monopoly"]
    assert web["SupplementaryGroups"] == unit["Group"] == ["monopoly"]
    assert web["StateDirectory"] == ["monopoly-city-web"] and web["StateDirectoryMode"] == ["0700"]
    assert unit["StateDirectory"] == ["monopoly-city"] and unit["StateDirectoryMode"] == ["0710"]
    command = web["ExecStart"][0]
    assert "serve" in command and "--state-dir /var/lib/monopoly-city " in command  # the socket's folder
    assert "--data /var/lib/monopoly-city-web/calculator" in command  # a full calculator cannot fill the unit's
    assert "--state-dir /var/lib/monopoly-city" in unit["ExecStart"][0]
    assert "ReadWritePaths" not in web and web["ProtectSystem"] == ["strict"] and web["PrivateUsers"] == ["yes"]
    assert "monopoly-city-unit.service" in web["After"][0]
    assert "MemoryMax" in web


def test_a_tenth_of_one_core_once_it_answers_its_start_up_uncapped_at_a_low_priority():
    """Ready when it answers (READY=1, unit.web.server.Server); the cap set then, at run time, by systemd
    (``+``: as root; ``-``: a failure is logged and the page goes on), and lifted before each start, a restart's
    too (a runtime property outlives the process). Its priority stays below the unit's throughout."""
    web, unit = settings(WEB), settings(UNIT)
    assert web["Type"] == ["notify"] and web["NotifyAccess"] == ["main"]
    assert "CPUQuota" not in web  # from the first instruction, it would be capped
    assert web["ExecStartPre"] == ["-+/usr/bin/systemctl set-property --runtime %n CPUQuota="]
    assert web["ExecStartPost"] == ["-+/usr/bin/systemctl set-property --runtime %n CPUQuota=10%"]
    assert web["Nice"] == ["10"] and int(web["CPUWeight"][0]) < 100 and "Nice" not in unit and "CPUWeight" not in unit


def test_it_keeps_its_bounds():
    web = settings(WEB)
    assert web["LimitNOFILE"] == ["1024"] and web["TasksMax"] == ["64"]  # 512 connections and the files it reads
    assert web["RestartPreventExitStatus"] == ["2"]  # a usage error (a port in use) is not restarted for ever


def test_it_talks_only_to_loopback_and_the_local_network():
    web = settings(WEB)
    assert web["IPAddressDeny"] == ["any"]
    allowed = " ".join(web["IPAddressAllow"]).split()
    assert set(allowed) <= {"localhost", "link-local", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"}
    assert "localhost" in allowed and "192.168.0.0/16" in allowed
    assert web["RestrictAddressFamilies"] == ["AF_UNIX AF_INET AF_INET6"]
    assert web["CapabilityBoundingSet"] == [""] and web["NoNewPrivileges"] == ["yes"]


def test_the_secret_is_kept_in_the_services_own_folder(tmp_path, monkeypatch):
    """Under systemd, $STATE_DIRECTORY (StateDirectory=monopoly-city-web): never the unit's folder, which the web
    service's user may not write; without it (make run, one user), the state folder; kept across restarts."""
    from unit.web.security import SECRET_FILE, load_secret

    unit_state, own = tmp_path / "unit", tmp_path / "web"
    unit_state.mkdir()
    monkeypatch.setenv("STATE_DIRECTORY", str(own))
    secret = load_secret(unit_state)
    assert (own / SECRET_FILE).read_bytes() == secret and len(secret) == 32
    assert (own / SECRET_FILE).stat().st_mode & 0o777 == 0o600 and not (unit_state / SECRET_FILE).exists()
    assert load_secret(unit_state) == secret
    monkeypatch.delenv("STATE_DIRECTORY")
    assert load_secret(unit_state) != secret and (unit_state / SECRET_FILE).exists()
    assert load_secret(None) != load_secret(None)  # no folder: in memory, per start
