"""The virtual Raspberry Pi: one QEMU process on the run's copy of the card, driven over SSH, QMP and qtest.

Each :meth:`Guest.boot` starts QEMU on the same copy of the card (:func:`systemtest.image.write_card`), so what
the test did survives a power cut (:meth:`Guest.cut`: QEMU killed, nothing flushed) and a poweroff, as on a
real SD card. It boots the card's own kernel and initramfs, as ``-M raspi3b`` (a Pi 3 B: the Pi's device tree,
the SD card, a USB network adapter) or ``-M virt`` (QEMU's device tree, a virtio disk; its PL061 GPIO chip's
lines are the buttons, pressed through QEMU's qtest socket: :meth:`Guest.press`). The serial console of each
boot goes to ``console-N.log`` in the run folder.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from systemtest.image import MACHINE, USER, Image, write_card
from systemtest.qemu10 import Qemu10

#: What QEMU adds to the card's own cmdline.txt: its serial port (the PL011, ttyAMA0, on both machines), and a
#: kernel panic ends QEMU rather than hanging the test.
EXTRA_ARGS = "console=ttyAMA0,115200 panic=-1"


#: What a guest kernel prints when it crashed, and where (arm64's « pc : function+offset/size »).
CRASH = re.compile(r"Internal error: Oops[^\r\n]*|Kernel panic - not syncing[^\r\n]*")
PC = re.compile(r"pc : (\S+)")
#: The Pi 3 B's USB network adapter, as the guest kernel names it once enumerated; what says it may never come:
#: QEMU's DWC2 controller lost it (the kernel's « Not connected », seen only in the boots where it never came), or
#: sshd started without it (systemd's line on the console, its colours aside).
USB_NETWORK = "RNDIS/QEMU USB Network Device"
USB_DOUBT = re.compile(r"dwc2 \S+: Not connected|Started \S*ssh\.service")
#: How long after that the adapter is still waited for: the kernel tries a port again within seconds (a power
#: cycle, new addresses); once it gave up, nothing reaches the guest.
USB_GRACE = 60.0
#: The slowest each machine's boot took to answer SSH on hosts that ran the whole test green in its usual time
#: (virt 74 to 91 s; the Pi 3 B's first boot, which also grows the card, 109 to 253 s). A boot slower than this
#: says the host is slow today (a CI run: virt boots of 248 and 319 s): :attr:`Guest.pace` stretches every wait
#: of the checks, and the next boot's own wait, by the same factor, so that a slow host makes a slow run, not
#: failed checks. The figures the checks report stay the times measured.
SSH_SECONDS = {"virt": 90.0, "raspi3b": 260.0}
#: How long a boot is waited for before it is a failure (times the pace the boot before it measured): a host
#: that slows down between two boots shows only in the second (a virt boot on a host held to 0.3 of one core,
#: after one at 0.75: no SSH in 444 s). The card's first boot has no pace yet. A dead boot is said sooner anyway
#: (:meth:`Guest.emulator_fault`); only a boot that hangs otherwise waits this long.
BOOT_SECONDS = {"virt": 600.0, "raspi3b": 800.0}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def listening(port: int) -> bool:
    """Whether a socket listens on ``127.0.0.1:port``: read in the kernel's table, without binding the port (ssh
    binding it in the same instant would fail) or connecting to it (a connection the guest would carry on)."""
    wanted = f"0100007F:{port:04X}"
    try:
        table = Path("/proc/net/tcp").read_text(encoding="ascii").splitlines()[1:]
    except OSError:
        return False
    return any(fields[1] == wanted and fields[3] == "0A" for fields in (line.split() for line in table))


class GuestError(Exception):
    """The guest did not do what a step needed (it did not boot, a command failed)."""


class Guest:
    """One virtual Pi; ``ssh`` runs commands as the maker's user (who has passwordless sudo)."""

    def __init__(self, image: Image, folder: Path, log: TextIO, qemu10: Qemu10 | None = None):
        self.image = image
        self.qemu10 = qemu10  # the raspi3b machine with its I²C controllers (QEMU 7.2 has none)
        self.folder = folder
        self.log = log
        self.disk = folder / "card.img"
        self.firmware = folder / "firmware"  # the kernel, initramfs and device tree read from the card
        self.boots = 0
        self.machine = "virt"  # this boot's
        self.pace = 1.0  # how much slower than usual the last boot was (SSH_SECONDS), at least 1
        self._usb_doubt = 0.0  # host time a Pi 3 B's console first said its network adapter may never come
        self.process: subprocess.Popen[bytes] | None = None
        self.ssh_port = 0
        self.web_port = 0
        self._qmp: socket.socket | None = None
        self._qmp_file: Any = None
        self._qtest: socket.socket | None = None
        self._qtest_file: Any = None
        self._pl061 = ""  # the GPIO chip's QOM path, found once per boot
        # One SSH connection per boot, its commands sessions on it (OpenSSH's ControlMaster): a new connection
        # costs the guest about 3 s under TCG (key exchange, PAM, a logind session), a session on it 0.3 s.
        self._master: subprocess.Popen[bytes] | None = None
        self._control = folder / "ssh.sock"
        if len(str(self._control)) > 90:  # ssh adds 17 characters to a socket's path, which must stay under 108
            self._control = Path(tempfile.mkdtemp(prefix="mcu-ssh-")) / "ssh.sock"

    @property
    def i2c_trace(self) -> Path:
        """QEMU's trace of the raspi3b boot's I²C bus: every byte sent to the OLED (systemtest/ssd1306.py)."""
        return self.folder / "i2c.trace"

    @property
    def console(self) -> Path:
        return self.folder / f"console-{self.boots}.log"

    def create_disk(self, name: str) -> None:
        """A fresh copy of the card, named ``name`` in its settings file, with the test's SSH key."""
        write_card(self.image, self.disk, self.firmware, name, self.log)

    def _card_file(self, prefix: str) -> Path:
        found = sorted(self.firmware.glob(f"{prefix}*"))
        if not found:
            raise GuestError(f"the card's firmware partition has no {prefix}*")
        return found[-1]

    def kernel_args(self) -> str:
        """The card's own ``cmdline.txt`` (root=LABEL=RASPIROOT...), its consoles replaced by QEMU's serial port."""
        words = (self.firmware / "cmdline.txt").read_text(encoding="utf-8").split()
        return " ".join([word for word in words if not word.startswith("console=")] + EXTRA_ARGS.split())

    def machine_args(self, machine: str) -> list[str]:
        kernel = ["-kernel", str(self._card_file("vmlinuz-")), "-initrd", str(self._card_file("initrd.img-"))]
        kernel += ["-append", self.kernel_args()]
        forward = f"hostfwd=tcp:127.0.0.1:{self.ssh_port}-:22,hostfwd=tcp:127.0.0.1:{self.web_port}-:8080"
        if machine == "raspi3b":
            pi = [
                "-M", "raspi3b", *kernel, "-dtb", str(self.firmware / "bcm2837-rpi-3-b.dtb"),
                "-drive", f"file={self.disk},if=sd,format=raw,cache=writeback",
                "-netdev", f"user,id=net,{forward}", "-device", "usb-net,netdev=net",
            ]  # fmt: skip
            if self.qemu10 is None:
                return ["qemu-system-aarch64", *pi]
            # QEMU has no SSD1306: its SSD0303 only answers at the OLED's address; the trace holds every byte.
            return [
                str(self.qemu10.binary), "-L", str(self.qemu10.data), *pi,
                "-device", "ssd0303,bus=i2c-bus.1,address=0x3c",
                "-trace", "i2c_send", "-trace", "i2c_event", "-D", str(self.i2c_trace),
            ]  # fmt: skip
        return [
            "qemu-system-aarch64", *MACHINE, *kernel, "-dtb", str(self.image.virt_dtb),
            "-drive", f"file={self.disk},if=none,id=disk,format=raw,cache=writeback",
            "-device", "virtio-blk-pci,drive=disk",
            "-netdev", f"user,id=net,{forward}", "-device", "virtio-net-pci,netdev=net,romfile=",
            "-device", "virtio-rng-pci",
        ]  # fmt: skip

    def boot(self, timeout: float | None = None, machine: str = "virt") -> float:
        """Start QEMU as ``machine`` (``virt`` or ``raspi3b``) and wait for SSH (``timeout`` times the last boot's
        pace; by default BOOT_SECONDS); the seconds it took."""
        timeout = (timeout or BOOT_SECONDS[machine]) * self.pace
        self._close_master()
        self.boots += 1
        self.machine, self._usb_doubt = machine, 0.0
        self.ssh_port, self.web_port = free_port(), free_port()
        qmp, qtest = self.folder / "qmp.sock", self.folder / "qtest.sock"
        qmp.unlink(missing_ok=True)
        qtest.unlink(missing_ok=True)
        command = [
            *self.machine_args(machine),
            "-qmp", f"unix:{qmp},server=on,wait=off",
            # qtest beside TCG (the guest runs as ever): the buttons' PL061 lines, driven like fingers would.
            "-accel", "tcg", "-qtest", f"unix:{qtest},server=on,wait=off", "-qtest-log", "/dev/null",
            "-serial", f"file:{self.console}", "-display", "none", "-monitor", "none", "-no-reboot",
        ]  # fmt: skip
        self.log.write(f"\n$ {shlex.join(command)}\n")
        self.log.flush()
        started = time.monotonic()
        environment = {**os.environ, **(self.qemu10.env if self.qemu10 and machine == "raspi3b" else {})}
        self.process = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT, env=environment)
        refused = False  # sshd answered but not to our key: monopoly-city.txt's ssh_key never reached maker
        while True:
            if self.process.poll() is not None:
                raise GuestError(f"QEMU exited ({self.process.returncode}) during boot: see {self.console}")
            if time.monotonic() - started > timeout:
                if refused:
                    raise GuestError(
                        f"SSH refused the test's key {timeout:.0f} s after boot: was monopoly-city.txt applied "
                        f"(monopoly-city-setup.service)? see {self.console}"
                    )
                raise GuestError(f"no SSH {timeout:.0f} s after boot: see {self.console}")
            fault = None if refused else self.emulator_fault()  # refused: the network works
            if fault is not None:  # SSH will not come in this boot: no need to wait out the timeout
                raise GuestError(f"{fault}: see {self.console}")
            attempt = self.ssh("true", timeout=20, check=False, connect_timeout=5)
            if attempt.returncode == 0:
                took = time.monotonic() - started
                self.pace = max(1.0, took / SSH_SECONDS[machine])
                self._open_master()
                return took
            refused = refused or b"Permission denied" in attempt.stderr
            time.sleep(2)

    # --- commands -------------------------------------------------------------------------------

    def ssh(
        self, command: str, *, timeout: float = 120, check: bool = True, input: bytes | None = None,
        connect_timeout: int = 15,
    ) -> subprocess.CompletedProcess[bytes]:  # fmt: skip
        """Run a shell command in the guest as the maker's user; ``check``: a failure raises GuestError. The
        ``timeout`` is stretched by :attr:`pace` (a slow host's command is slow, not stuck)."""
        timeout *= self.pace
        argv = [
            "ssh", "-i", str(self.image.key), "-p", str(self.ssh_port),
            "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
            "-o", "BatchMode=yes", "-o", f"ConnectTimeout={connect_timeout}", "-o", "ServerAliveInterval=10",
            *self._multiplexed(), f"{USER}@127.0.0.1", command,
        ]  # fmt: skip
        try:
            result = subprocess.run(argv, input=input, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired as expired:
            if check:
                raise GuestError(f"`{command[:120]}` did not end within {timeout:.0f} s") from None
            return subprocess.CompletedProcess(argv, 124, expired.stdout or b"", expired.stderr or b"")
        if command != "true":
            self.log.write(f"\n[guest]$ {command}\n{result.stdout.decode(errors='replace')[-4000:]}")
            self.log.write(result.stderr.decode(errors="replace")[-4000:])
            self.log.flush()
        if check and result.returncode != 0:
            detail = (result.stderr or result.stdout).decode(errors="replace").strip().splitlines()[-3:]
            raise GuestError(f"`{command[:120]}` exited {result.returncode}: {' / '.join(detail)}")
        return result

    def _open_master(self) -> None:
        """This boot's SSH connection, which :meth:`ssh` runs its commands on (``ssh -M -N``, its own process, its
        messages in the run's log). Not up within 30 s: each command connects by itself, as before."""
        self._control.unlink(missing_ok=True)
        argv = [
            "ssh", "-i", str(self.image.key), "-p", str(self.ssh_port), "-M", "-N",
            "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
            "-o", "BatchMode=yes", "-o", "ConnectTimeout=15", "-o", "ServerAliveInterval=10",
            "-o", f"ControlPath={self._control}", "-o", "ControlPersist=no", f"{USER}@127.0.0.1",
        ]  # fmt: skip
        self._master = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT)
        end = time.monotonic() + 30
        while time.monotonic() < end and self._master.poll() is None:
            if self._control.exists():
                return
            time.sleep(0.2)
        self.log.write("\n(no SSH master connection: each command connects by itself)\n")
        self._close_master()

    def _multiplexed(self) -> list[str]:
        """The options that put a command on this boot's connection; none when it is gone (ssh connects)."""
        if self._master is None or self._master.poll() is not None or not self._control.exists():
            return []
        return ["-o", f"ControlPath={self._control}", "-o", "ControlMaster=no"]

    def _close_master(self) -> None:
        if self._master is not None:
            if self._master.poll() is None:
                self._master.terminate()
                try:
                    self._master.wait(10)
                except subprocess.TimeoutExpired:
                    self._master.kill()
                    self._master.wait()
            self._master = None
        self._control.unlink(missing_ok=True)

    def forward(self, port: int, socket_path: str) -> Callable[[], None]:
        """``127.0.0.1:port`` on the host carried to the Unix socket ``socket_path`` in the guest (``ssh -L``),
        listening when this returns; what it returns stops it. On this boot's connection (``ssh -O forward``: at
        once); without one, on a connection of its own, waited for until its port listens: a new connection costs
        the guest seconds of TCG (a slow host's CI run asked 3 s later and was refused)."""
        spec = f"127.0.0.1:{port}:{socket_path}"
        control = self._multiplexed()
        if control:
            self._control_command(control, "forward", spec)
            return lambda: self._control_command(control, "cancel", spec, check=False)
        argv = [
            "ssh", "-i", str(self.image.key), "-p", str(self.ssh_port), "-N",
            "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
            "-o", "BatchMode=yes", "-o", "ExitOnForwardFailure=yes", "-L", spec, f"{USER}@127.0.0.1",
        ]  # fmt: skip
        process = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT)

        def stop() -> None:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

        end = time.monotonic() + 60 * self.pace
        while process.poll() is not None or not listening(port):
            if process.poll() is not None or time.monotonic() > end:
                said = f"exited {process.returncode}" if process.poll() is not None else "still connecting"
                stop()
                raise GuestError(f"ssh -L {spec}: not listening ({said}): see the log")
            time.sleep(0.2)
        return stop

    def _control_command(self, control: list[str], command: str, spec: str, check: bool = True) -> None:
        """``ssh -O forward|cancel -L spec`` sent to this boot's connection."""
        argv = ["ssh", *control, "-O", command, "-L", spec, "-p", str(self.ssh_port), f"{USER}@127.0.0.1"]
        try:
            result = subprocess.run(argv, capture_output=True, timeout=30 * self.pace)
        except subprocess.TimeoutExpired:
            if check:
                raise GuestError(f"ssh -O {command} -L {spec}: no answer from this boot's connection") from None
            return
        if check and result.returncode != 0:
            raise GuestError(f"ssh -O {command} -L {spec}: {result.stderr.decode(errors='replace').strip()}")

    def out(self, command: str, **options: Any) -> str:
        """A command's standard output, as text."""
        return self.ssh(command, **options).stdout.decode(errors="replace")

    def put(self, folder: Path, target: str) -> None:
        """Copy a host folder's content into ``target`` in the guest (as root)."""
        archive = subprocess.run(["tar", "-C", str(folder), "-c", "."], capture_output=True, check=True).stdout
        self.ssh(f"sudo mkdir -p {target} && sudo tar -x -C {target}", input=archive, timeout=300)

    # --- QEMU's monitor (QMP) -------------------------------------------------------------------

    def qmp(self, command: str, **arguments: Any) -> Any:
        if self._qmp is None:
            self._qmp = socket.socket(socket.AF_UNIX)
            self._qmp.connect(str(self.folder / "qmp.sock"))
            self._qmp_file = self._qmp.makefile("rw")
            self._qmp_file.readline()  # the greeting
            self._send({"execute": "qmp_capabilities"})
        return self._send({"execute": command, **({"arguments": arguments} if arguments else {})})

    def _send(self, message: dict[str, Any]) -> Any:
        self._qmp_file.write(json.dumps(message) + "\n")
        self._qmp_file.flush()
        while True:
            reply = json.loads(self._qmp_file.readline())
            if "return" in reply:
                return reply["return"]
            if "error" in reply:
                raise GuestError(f"QMP {message['execute']}: {reply['error']}")
            # an event (POWERDOWN, SHUTDOWN...): not the answer

    # --- the buttons: QEMU's qtest protocol on the PL061's lines ------------------------------------

    def gpio_chip(self) -> str:
        """The QOM path of the virt machine's PL061 GPIO chip, asked of QMP once per boot."""
        if not self._pl061:
            for item in self.qmp("qom-list", path="/machine/unattached"):
                path = f"/machine/unattached/{item['name']}"
                if item["name"].startswith("device[") and self.qmp("qom-get", path=path, property="type") == "pl061":
                    self._pl061 = path
                    break
            else:
                raise GuestError("QEMU's machine has no PL061 GPIO chip")
        return self._pl061

    def set_line(self, line: int, high: bool) -> None:
        """One PL061 input line driven high or low (qtest's ``set_irq_in``): the guest's kernel sees the edge
        as an interrupt, as it would a button wired to that line."""
        chip = self.gpio_chip()
        if self._qtest is None:
            self._qtest = socket.socket(socket.AF_UNIX)
            self._qtest.connect(str(self.folder / "qtest.sock"))
            self._qtest_file = self._qtest.makefile("rw")
        self._qtest_file.write(f"set_irq_in {chip} unnamed-gpio-in {line} {int(high)}\n")
        self._qtest_file.flush()
        reply = self._qtest_file.readline().strip()
        if reply != "OK":
            raise GuestError(f"qtest set_irq_in {chip} line {line}: {reply or 'no answer'}")

    def press(self, line: int, seconds: float = 0.1) -> None:
        """A finger on the button of GPIO ``line``: high for ``seconds``, then low (``buttons.pressed: high``)."""
        self.set_line(line, True)
        time.sleep(seconds)
        self.set_line(line, False)

    # --- the end of a boot -------------------------------------------------------------------------

    def _forget_qmp(self) -> None:
        self._close_master()  # the boot is over: its connection with it
        for link in (self._qmp, self._qtest):
            if link is not None:
                link.close()
        self._qmp, self._qmp_file = None, None
        self._qtest, self._qtest_file, self._pl061 = None, None, ""

    def cut(self) -> None:
        """A pulled plug: QEMU killed, the guest's unwritten data lost."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self._forget_qmp()

    def wait_exit(self, timeout: float) -> bool:
        """True when QEMU exits (the guest powered off or reset) within ``timeout`` seconds (times :attr:`pace`)."""
        assert self.process is not None
        try:
            self.process.wait(timeout * self.pace)
        except subprocess.TimeoutExpired:
            return False
        self._forget_qmp()
        return True

    def console_text(self) -> str:
        return self.console.read_text(encoding="utf-8", errors="replace") if self.console.exists() else ""

    def emulator_fault(self) -> str | None:
        """What keeps SSH away for good in this boot, as QEMU does it now and then under TCG, in one line (None:
        nothing seen): a guest kernel crash, or on the Pi 3 B the USB network adapter the kernel never enumerated
        (QEMU's DWC2 controller: « dwc2 …: Not connected », then silence; seen on a loaded host), a minute after
        the console first said so."""
        crash = self.kernel_crash()
        if crash is not None:
            return f"the guest kernel crashed ({crash.rsplit(' (', 1)[0]})"  # its console named by the caller
        if self.machine != "raspi3b":
            return None
        text = self.console_text()
        if USB_NETWORK in text or USB_DOUBT.search(text) is None:
            self._usb_doubt = 0.0
            return None
        now = time.monotonic()
        self._usb_doubt = self._usb_doubt or now
        if now - self._usb_doubt < USB_GRACE:
            return None
        return f"QEMU's USB network adapter was never enumerated (no « {USB_NETWORK} » {USB_GRACE:.0f} s later)"

    def kernel_crash(self) -> str | None:
        """The guest kernel's Oops or panic in this boot's console, in one line (None: none). After one the guest
        hangs (a stalled CPU, SSH silent): seen once under TCG, in the scheduler, as the web service started."""
        text = self.console_text()
        found = CRASH.search(text)
        if found is None:
            return None
        where = PC.search(text, found.end())
        return f"{found.group(0).strip()}" + (f" at {where.group(1)}" if where else "") + f" ({self.console.name})"


def main(argv: list[str]) -> int:
    """``python3 -m systemtest.guest RUN_FOLDER``: boot the disk a kept run left, to look around in it."""
    import sys

    if len(argv) != 1 or not (Path(argv[0]) / "image").exists():
        print("usage: python3 -m systemtest.guest RUN_FOLDER (a run kept by a failure or --keep)", file=sys.stderr)
        return 2
    folder = Path(argv[0]).resolve()
    card, keys = (folder / "image").read_text(encoding="utf-8").split()
    image = Image(Path(card), Path(keys))
    guest = Guest(image, folder, sys.stdout)
    guest.boots = len(list(folder.glob("console-*.log")))  # the run's own consoles are kept
    print(f"booted in {guest.boot():.0f} s; its console: {guest.console}")
    print(f"ssh -p {guest.ssh_port} -i {image.key} -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null "
          f"{USER}@127.0.0.1")  # fmt: skip
    print(f"the phone page: http://127.0.0.1:{guest.web_port}/ (Ctrl-C pulls the plug)")
    assert guest.process is not None
    import signal

    signal.signal(signal.SIGTERM, signal.default_int_handler)  # kill: the plug is pulled too
    try:
        guest.process.wait()
    except KeyboardInterrupt:
        guest.cut()
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
