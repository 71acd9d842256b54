"""How the system test talks to its guest: one SSH connection per boot, each command a session on it. A new
connection costs the guest about 3 s under TCG, a session on it 0.3 s; a run sends some two hundred commands.
Here ``ssh`` is a stand-in on the PATH that writes down how it was called (no guest, no network)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from systemtest.guest import Guest
from systemtest.image import Image

FAKE_SSH = """#!{python}
import json, os, signal, sys, time
argv = sys.argv[1:]
with open({calls!r}, "a") as calls:
    calls.write(json.dumps(argv) + "\\n")
options = dict(argv[i + 1].split("=", 1) for i, word in enumerate(argv) if word == "-o")
if "-M" in argv:  # the master: its socket, then it stays until it is told to go
    open(options["ControlPath"], "w").close()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    while True:
        time.sleep(1)
print("done")
"""


@pytest.fixture
def guest(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    ssh = bin_dir / "ssh"
    ssh.write_text(FAKE_SSH.format(python=sys.executable, calls=str(tmp_path / "calls")))
    ssh.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    with open(tmp_path / "system-test.log", "w") as log:  # the master's own messages go there: a real file
        made = Guest(Image(tmp_path / "card.img", tmp_path / "key"), tmp_path, log)
        made.ssh_port = 2222
        yield made
        made._close_master()


def calls(tmp_path: Path) -> list[list[str]]:
    return [json.loads(line) for line in (tmp_path / "calls").read_text().splitlines()]


def test_once_the_guest_answered_its_commands_go_on_one_connection(guest, tmp_path):
    assert guest.out("echo before") == "done\n"
    guest._open_master()  # what boot() does once SSH answered
    assert guest.out("echo after") == "done\n"
    before, master, after = calls(tmp_path)
    assert "ControlPath" not in " ".join(before)
    assert "-M" in master and "-N" in master and f"ControlPath={guest._control}" in master
    assert f"ControlPath={guest._control}" in after and "ControlMaster=no" in after and "-M" not in after


def test_the_end_of_a_boot_ends_its_connection_and_commands_connect_by_themselves_again(guest, tmp_path):
    guest._open_master()
    master = guest._master
    guest.cut()  # a pulled plug (no QEMU here): the connection goes with it
    assert master is not None and master.poll() is not None and not guest._control.exists()
    guest.out("echo next")
    assert "ControlPath" not in " ".join(calls(tmp_path)[-1])


def test_a_master_that_died_is_not_used(guest, tmp_path):
    guest._open_master()
    assert guest._master is not None
    guest._master.kill()
    guest._master.wait()
    guest.out("echo next")
    assert "ControlPath" not in " ".join(calls(tmp_path)[-1])


def test_a_long_run_folder_puts_the_socket_where_its_path_fits(tmp_path):
    deep = tmp_path / ("x" * 100)
    deep.mkdir()
    made = Guest(Image(tmp_path / "card.img", tmp_path / "key"), deep, io.StringIO())
    assert len(str(made._control)) + 17 < 108
