"""How the system test talks to its guest: one SSH connection per boot, each command a session on it. A new
connection costs the guest about 3 s under TCG, a session on it 0.3 s; a run sends some two hundred commands.
Here ``ssh`` is a stand-in on the PATH that writes down how it was called (no guest, no network)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from systemtest.guest import Guest, GuestError, free_port, listening
from systemtest.image import Image

FAKE_SSH = """#!{python}
import json, os, signal, socket, sys, time
argv = sys.argv[1:]
with open({calls!r}, "a") as calls:
    calls.write(json.dumps(argv) + "\\n")
options = dict(argv[i + 1].split("=", 1) for i, word in enumerate(argv) if word == "-o")
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
if "-M" in argv:  # the master: its socket, then it stays until it is told to go
    open(options["ControlPath"], "w").close()
    while True:
        time.sleep(1)
if "-N" in argv and "-L" in argv:  # a forward on a connection of its own: it listens once connected (slowly)
    time.sleep(1.5)
    listener = socket.socket()
    listener.bind(("127.0.0.1", int(argv[argv.index("-L") + 1].split(":")[1])))
    listener.listen()
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


#: A Pi 3 B's console where QEMU's USB controller lost its network adapter (a CI run's, cut short): sshd starts,
#: nothing can reach it.
LOST_USB = """[  115.176588] usb 1-1: new full-speed USB device number 2 using dwc2
[  115.178952] dwc2 3f980000.usb: Not connected
[  117.266732] usb usb1-port1: attempt power cycle
[  118.798335] dwc2 3f980000.usb: Not connected
\x1b[K[\x1b[0;32m  OK  \x1b[0m] Started \x1b[0;1;39mssh.service\x1b[0m - OpenBSD Secure Shell server.
"""
ENUMERATED = """[   79.389092] usb 1-1.1: Product: RNDIS/QEMU USB Network Device
[\x1b[0;32m  OK  \x1b[0m] Started \x1b[0;1;39mssh.service\x1b[0m - OpenBSD Secure Shell server.
"""


@pytest.mark.parametrize(
    ("machine", "console", "lost"),
    [("raspi3b", LOST_USB, True), ("raspi3b", "\n".join(LOST_USB.splitlines()[:2]), True),
     ("raspi3b", ENUMERATED, False), ("raspi3b", LOST_USB.splitlines()[0], False), ("virt", LOST_USB, False)],
)  # fmt: skip
def test_a_pi_whose_usb_network_adapter_never_came_is_a_fault_a_minute_after_it_was_lost(tmp_path, monkeypatch, machine,
                                                                                   console, lost):  # fmt: skip
    now = [1000.0]
    monkeypatch.setattr("systemtest.guest.time.monotonic", lambda: now[0])
    made = Guest(Image(tmp_path / "card.img", tmp_path / "key"), tmp_path, io.StringIO())
    made.boots, made.machine = 1, machine
    made.console.write_text(console)
    assert made.emulator_fault() is None  # just seen: the kernel may still try the port again
    now[0] += 59
    assert made.emulator_fault() is None
    now[0] += 2
    fault = made.emulator_fault()
    assert (fault is not None) == lost
    if lost:
        assert (
            fault == "QEMU's USB network adapter was never enumerated (no « RNDIS/QEMU USB Network Device » 60 s later)"
        )


def test_a_kernel_crash_is_a_fault_on_any_machine(tmp_path):
    made = Guest(Image(tmp_path / "card.img", tmp_path / "key"), tmp_path, io.StringIO())
    made.boots = 1
    made.console.write_text(
        "[ 68.2] Internal error: Oops: 0000000096000004 [#1] SMP\n[ 68.3] pc : pick_next_task+0x1c/0x60\n"
    )
    assert (
        made.emulator_fault()
        == "the guest kernel crashed (Internal error: Oops: 0000000096000004 [#1] SMP at pick_next_task+0x1c/0x60)"
    )


def test_a_forward_on_the_boots_connection_is_asked_of_it_and_cancelled_by_what_it_returns(guest, tmp_path):
    guest._open_master()
    stop = guest.forward(8123, "/run/phone/web.sock")
    stop()
    _, forward, cancel = calls(tmp_path)
    assert forward[-7:-1] == ["-O", "forward", "-L", "127.0.0.1:8123:/run/phone/web.sock", "-p", "2222"]
    assert f"ControlPath={guest._control}" in forward and cancel[cancel.index("-O") + 1] == "cancel"


def test_without_a_connection_a_forward_returns_once_its_port_listens(guest, tmp_path):
    """A CI run asked its first page 3 s after ``ssh -L`` started, on a slow host: refused (nothing listened)."""
    port = free_port()
    stop = guest.forward(port, "/run/phone/web.sock")  # its ssh listens 1.5 s after it started
    assert listening(port)
    stop()


def test_a_forward_whose_ssh_gave_up_is_an_error_not_a_refused_page(guest, tmp_path):
    guest.ssh_port = 2222
    (tmp_path / "bin" / "ssh").write_text(f"#!{sys.executable}\nimport sys; sys.exit(255)\n")
    with pytest.raises(GuestError, match="not listening"):
        guest.forward(free_port(), "/run/phone/web.sock")


def test_a_slow_hosts_commands_get_their_timeout_times_the_pace(guest, tmp_path):
    (tmp_path / "bin" / "ssh").write_text(f"#!{sys.executable}\nimport time; time.sleep(1.2); print('late')\n")
    with pytest.raises(GuestError, match="did not end within 1 s"):
        guest.out("true", timeout=1)
    guest.pace = 2.0
    assert guest.out("true", timeout=1) == "late\n"


def test_a_forward_the_boots_connection_refused_is_an_error(guest, tmp_path):
    guest._open_master()
    (tmp_path / "bin" / "ssh").write_text(
        f"#!{sys.executable}\nimport sys; print('mux_client_forward: forwarding request failed', file=sys.stderr)"
        "\nsys.exit(255)\n"
    )
    with pytest.raises(GuestError, match="ssh -O forward -L 127.0.0.1:8123:/run/x.sock: mux_client_forward"):
        guest.forward(8123, "/run/x.sock")


@pytest.mark.parametrize(("machine", "took", "pace"), [("virt", 60, 1.0), ("virt", 270, 3.0), ("raspi3b", 390, 1.5)])
def test_a_boot_slower_than_the_usual_slowest_sets_the_pace_and_the_next_boots_wait(
    guest, tmp_path, monkeypatch, machine, took, pace
):
    """The pace is the boot's time to SSH over its machine's usual slowest (SSH_SECONDS), at least 1; the next
    boot waits for SSH that many times longer."""
    import systemtest.guest as module

    clock = [1000.0]
    monkeypatch.setattr(module.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(module.time, "sleep", lambda seconds: clock.__setitem__(0, clock[0] + seconds))
    qemu = [sys.executable, "-c", "import time; time.sleep(30)"]  # QEMU's arguments follow, unread
    monkeypatch.setattr(Guest, "machine_args", lambda self, machine: qemu)
    monkeypatch.setattr(Guest, "_open_master", lambda self: None)
    answers = iter([1] * (took // 2 - 1) + [0])

    def ssh(self, command, **options):  # each look for SSH takes the 2 s the loop sleeps; the last one answers
        return module.subprocess.CompletedProcess([], next(answers), b"", b"")

    monkeypatch.setattr(Guest, "ssh", ssh)
    guest.boot(machine=machine)
    guest.cut()
    assert guest.pace == pytest.approx(pace, abs=0.05)
    answers = iter([1] * 10_000)  # the next boot never answers: how long it waited says its limit
    clock[0] = started = 5000.0
    with pytest.raises(GuestError, match="no SSH"):
        guest.boot(machine="virt")
    guest.cut()
    assert clock[0] - started == pytest.approx(module.BOOT_SECONDS["virt"] * guest.pace, abs=3)
