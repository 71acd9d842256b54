"""The bank against its writers, measured (issue 28, « Measured »): nothing reported as done is lost, nothing done is
unreadable, no file keeps a command busy.

- **Concurrent writers**: rounds of 8 ``monopoly-city pay`` started at once on one game file, each beside a phone
  tapping payments on ``monopoly-city serve`` (its own process, Nice=10 as its systemd unit) on the same file. A
  payment is *accepted* when its command exits 0 or its tap answers 303; it is *lost* when it is not in the file
  afterwards. Goal: 0 lost.
- **Kills during payments**: ``monopoly-city pay`` killed with SIGKILL at a random moment of its run, and
  ``monopoly-city serve`` killed with SIGKILL while a phone taps payments (then started again). After each kill the
  file must read (the loader, and start + history = position) and hold every payment reported before the kill.
  Goal: 0 lost, 0 unreadable.
- **Hostile game files**: each file of :data:`HOSTILE` (aliases, a key after the history, a forged entry, a history
  written otherwise...) given to five verbs (``pay``, ``undo``, ``buy``, ``history --json``, ``record``) and to the
  page's tap; each outcome is *clear* (exit 2 and one line; 400/409 and the page), *written* (exit 0 or 303: the file
  must then read back, else *unreadable*), a *traceback* (or a 500) or a *hang* (over 1 s of CPU). Goal: 0
  tracebacks, 0 hangs, 0 unreadable writes.

    python benchmarks/bank_writers.py [--rounds N] [--cli-kills N] [--serve-kills N]

``measure()`` returns the figures as a dict; nothing is asserted (tests/test_bank_ledger.py holds the behaviour).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import io
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from web_calc import free_port, until_serving  # noqa: E402

from unit.calculator import ledger  # noqa: E402
from unit.calculator import position as positions  # noqa: E402
from unit.errors import UserError  # noqa: E402

EXAMPLES = ROOT / "docs" / "examples"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
CLI = [sys.executable, "-m", "unit.cli"]
HANG = 1.0  # seconds of CPU: a command that works longer than this on a hostile file is a hang


def setup(folder: Path) -> Path:
    """The example City game and its edition in ``folder``, as the data folder of a phone (``soiree``)."""
    shutil.copy(EXAMPLES / "city-example.yaml", folder / "city-example.yaml")
    game = folder / "soiree.game.yaml"
    shutil.copy(EXAMPLES / "city-game.yaml", game)
    return game


def serve(folder: Path) -> tuple[subprocess.Popen, int]:
    port = free_port()
    command = [*CLI, "serve", "--host", "127.0.0.1", "--port", str(port), "--data", str(folder)]
    process = subprocess.Popen(
        command, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=lambda: os.nice(10)
    )
    return until_serving(process, port, "/games"), port


class Phone:
    """One phone's connection to the service: its cookie, the token and the version of the page it last saw."""

    def __init__(self, port: int):
        self.port = port
        self.cookie = ""
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def _request(self, method: str, path: str, body: str = "") -> http.client.HTTPResponse:
        headers = {"Cookie": self.cookie} if self.cookie else {}
        if body:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        self.conn.request(method, path, body=body or None, headers=headers)
        response = self.conn.getresponse()
        for value in response.headers.get_all("Set-Cookie") or []:
            if value.startswith("mc_session="):
                self.cookie = value.split(";", 1)[0]
        return response

    def tap(self, form: dict[str, str]) -> int:
        """The game page, then the form posted from it: the tap's status."""
        page = self._request("GET", "/games/soiree").read().decode("utf-8")
        csrf = re.search(r'data-csrf="([^"]+)"', page)
        version = re.search(r'name="version" value="([^"]+)"', page)
        if csrf is None or version is None:
            return 0
        response = self._request(
            "POST", "/games/soiree/bank", urlencode({"csrf": csrf[1], "version": version[1]} | form)
        )
        response.read()
        return response.status


def notes(game: Path) -> list[str]:
    """The notes of the file's payments (each payment is named by its note)."""
    return [e.note or "" for e in positions.load(str(game)).history]


# --- concurrent writers ---------------------------------------------------------------------------------------


def concurrent_writers(rounds: int) -> dict:
    accepted = lost = refused = 0
    with tempfile.TemporaryDirectory(prefix="bank-writers-") as tmp:
        folder = Path(tmp)
        game = setup(folder)
        process, port = serve(folder)
        try:
            for r in range(rounds):
                taps: list[tuple[str, int]] = []

                def tapping(r: int = r, taps: list[tuple[str, int]] = taps) -> None:
                    phone = Phone(port)
                    for t in range(8):
                        note = f"page {r}.{t}"
                        form = {"action": "transfer", "player": "1", "to": "to:0", "amount": "10k", "note": note}
                        taps.append((note, phone.tap(form)))

                thread = threading.Thread(target=tapping)
                thread.start()
                commands = []
                for c in range(8):
                    note = f"cli {r}.{c}"
                    argv = [*CLI, "pay", str(game), "Bruno", "Alice", "10k", "--for", note]
                    commands.append(
                        (note, subprocess.Popen(argv, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
                    )
                done = []
                for note, command in commands:
                    command.communicate(timeout=120)
                    done.append((note, command.returncode))
                thread.join(120)
                present = set(notes(game))
                for note, status in [*done, *taps]:
                    if status in (0, 303):
                        accepted += 1
                        lost += note not in present
                    else:
                        refused += 1
        finally:
            process.terminate()
            process.wait(10)
        invariant = ledger.differences(positions.load(str(game))) == ()
    return {"rounds": rounds, "accepted": accepted, "lost": lost, "refused": refused, "invariant": invariant}


# --- kills during payments ----------------------------------------------------------------------------------


def readable(game: Path) -> bool:
    try:
        return ledger.differences(positions.load(str(game))) == ()
    except UserError:
        return False


def cli_kills(kills: int, seed: int = 28) -> dict:
    """``pay`` killed at a moment drawn over its own run (measured first: a start takes 0.3 to 2 s by the load)."""
    rng = random.Random(seed)
    unreadable = lost = reported = 0
    with tempfile.TemporaryDirectory(prefix="bank-kills-") as tmp:
        game = setup(Path(tmp))
        began = time.perf_counter()
        subprocess.run([*CLI, "pay", str(game), "Bruno", "Alice", "1k"], env=ENV, capture_output=True, check=True)
        run = time.perf_counter() - began
        for k in range(kills):
            note = f"kill {k}"
            argv = [*CLI, "pay", str(game), "Bruno", "Alice", "1k", "--for", note]
            process = subprocess.Popen(argv, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            time.sleep(rng.uniform(0.5, 1.2) * run)  # mostly the last half: the read, the write, the rename
            process.send_signal(signal.SIGKILL)
            process.communicate(timeout=30)
            if process.returncode == 0:  # it finished before the kill: its payment must be there
                reported += 1
                lost += note not in notes(game)
            unreadable += not readable(game)
    return {"kills": kills, "finished_first": reported, "lost": lost, "unreadable": unreadable, "run_s": run}


def serve_kills(kills: int, seed: int = 28) -> dict:
    rng = random.Random(seed)
    unreadable = lost = answered = 0
    with tempfile.TemporaryDirectory(prefix="bank-serve-kills-") as tmp:
        folder = Path(tmp)
        game = setup(folder)
        for k in range(kills):
            process, port = serve(folder)
            stop = time.monotonic() + rng.uniform(0.2, 3.0)
            paid: list[str] = []

            def tapping(k: int = k, port: int = port, paid: list[str] = paid, stop: float = stop) -> None:
                phone = Phone(port)
                t = 0
                while time.monotonic() < stop + 1:
                    note = f"serve {k}.{t}"
                    try:
                        status = phone.tap(
                            {"action": "transfer", "player": "1", "to": "to:0", "amount": "1k", "note": note}
                        )
                    except OSError:
                        return
                    if status == 303:
                        paid.append(note)
                    t += 1

            thread = threading.Thread(target=tapping)
            thread.start()
            time.sleep(max(0.0, stop - time.monotonic()))
            process.send_signal(signal.SIGKILL)
            process.wait(10)
            thread.join(30)
            answered += len(paid)
            present = set(notes(game))
            lost += sum(note not in present for note in paid)
            unreadable += not readable(game)
    return {"kills": kills, "answered_303": answered, "lost": lost, "unreadable": unreadable}


# --- hostile game files ---------------------------------------------------------------------------------------


def aliases(text: str) -> str:
    change = "{player: Alice, field: exemption_card, before: false, after: false}"
    lines = [text.rstrip("\n"), "history:", "- what: pay\n  from: Alice\n  to: Bruno\n  amount: 1k\n  changes: &many"]
    lines += [f"  - {change}"] * 2000 + ["- {what: pay, from: Alice, to: Bruno, amount: 1k, changes: *many}"] * 2000
    return "\n".join(lines) + "\n"


ENTRY = "- {what: pay, from: Bruno, to: Alice, amount: 10k}\n"
HOSTILE = {
    "aliases: 2,000 entries share 2,000 changes": aliases,
    "a key after the history": lambda t: t + "history:\n" + ENTRY + "title: Soirée\n",
    "a comment after the history": lambda t: t + "history:\n" + ENTRY + "# fin\n",
    "the history before the players": lambda t: "history:\n" + ENTRY + t,
    "a flow-style history": lambda t: t + "history: [" + ENTRY[2:-1] + "]\n",
    "blank lines between entries": lambda t: t + "history:\n" + ENTRY + "\n" + ENTRY,
    "a forged entry (a square the edition lacks)": lambda t: (
        t + "history:\n- {what: pay, from: Alice, amount: 1k, changes: [{player: Alice, square: Atlantide, before: {},"
        " after: null, at: 0}]}\n"
    ),
    "a forged entry (a player who is not there)": lambda t: t + "history:\n- {what: pay, from: Zorro, amount: 1k}\n",
    "a forged entry (money from nowhere)": lambda t: t + "history:\n- {what: pay, to: Alice, amount: 999999999999}\n",
    "cash at the most a file holds": lambda t: t.replace("cash: 21,3M", "cash: 1000000M"),
    "a name with an escape code": lambda t: t.replace("name: Chloé", 'name: "Chl\\e[31moé"'),
    "2,000 entries": lambda t: t + "history:\n" + ENTRY * 2000,
    "Windows line ends": lambda t: (t + "history:\n" + ENTRY).replace("\n", "\r\n"),
}
VERBS = (["pay", "Bruno", "Alice", "10k"], ["undo"], ["buy", "Chloé", "halles"], ["history", "--json"], ["record"])


def hostile_files() -> dict:
    """Each hostile file given to the five verbs, in this process (the work's CPU timed, not Python's start nor the
    machine's load: a hang is over :data:`HANG` of it), and to a page's tap on ``serve``."""
    from unit.cli import main

    outcomes: dict[str, int] = {"clear": 0, "written": 0, "unreadable": 0, "traceback": 0, "hang": 0}
    slowest = 0.0
    rows = []
    with tempfile.TemporaryDirectory(prefix="bank-hostile-") as tmp:
        folder = Path(tmp)
        base = (EXAMPLES / "city-game.yaml").read_text(encoding="utf-8")
        shutil.copy(EXAMPLES / "city-example.yaml", folder / "city-example.yaml")
        game = folder / "soiree.game.yaml"
        process, port = serve(folder)
        try:
            for name, make in HOSTILE.items():
                data = make(base).encode("utf-8")
                seen = []
                for verb in VERBS:
                    game.write_bytes(data)
                    out, err = io.StringIO(), io.StringIO()
                    began = time.process_time()
                    try:
                        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                            status = main([verb[0], str(game), *verb[1:]])
                    except Exception as error:  # noqa: BLE001 -- what is measured: anything but a clear line
                        status, err = 1, io.StringIO(f"Traceback: {error!r}")
                    elapsed = time.process_time() - began  # CPU: a shared machine's load aside
                    slowest = max(slowest, elapsed)
                    seen.append(classify(game, data, status, err.getvalue(), elapsed, outcomes))
                game.write_bytes(data)
                status = Phone(port).tap({"action": "transfer", "player": "1", "to": "to:0", "amount": "10k"})
                page = "clear" if status in (0, 400, 409, 422) else "traceback" if status >= 500 else "written"
                if page == "written" and not readable(game):
                    page = "unreadable"
                outcomes[page] += 1
                seen.append(page)
                rows.append((name, seen))
        finally:
            process.terminate()
            process.wait(10)
    runs = sum(outcomes.values())
    return {"files": len(HOSTILE), "runs": runs, "outcomes": outcomes, "slowest_s": slowest, "rows": rows}


def classify(game: Path, data: bytes, status: int, err: str, elapsed: float, outcomes: dict[str, int]) -> str:
    if "Traceback" in err or status not in (0, 2):
        kind = "traceback"
    elif elapsed > HANG:
        kind = "hang"
    elif status == 2:
        kind = "clear" if err.count("\n") == 1 and game.read_bytes() == data else "unreadable"
    else:
        try:
            positions.load(str(game))
            kind = "written"
        except UserError:
            kind = "unreadable"
    outcomes[kind] += 1
    return kind


def measure(rounds: int = 5, kills: int = 100, serve_kill_count: int = 20) -> dict:
    load = os.getloadavg()[0]
    out = {
        "writers": concurrent_writers(rounds),
        "cli_kills": cli_kills(kills),
        "serve_kills": serve_kills(serve_kill_count),
        "hostile": hostile_files(),
    }
    out["load"] = (load, os.getloadavg()[0])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cli-kills", type=int, default=100)
    parser.add_argument("--serve-kills", type=int, default=20)
    args = parser.parse_args()
    f = measure(args.rounds, args.cli_kills, args.serve_kills)
    w = f["writers"]
    print(
        f"concurrent writers: {w['rounds']} rounds of 8 `pay` at once beside 8 page taps: {w['accepted']} accepted, "
        f"{w['lost']} lost, {w['refused']} refused; start + history = position: {w['invariant']}"
    )
    c = f["cli_kills"]
    print(
        f"`pay` killed (SIGKILL) at random ({c['run_s']:.2f} s a run): {c['kills']} kills, "
        f"{c['finished_first']} had reported their payment, "
        f"{c['lost']} lost, {c['unreadable']} unreadable"
    )
    s = f["serve_kills"]
    print(
        f"`serve` killed (SIGKILL) during taps: {s['kills']} kills, {s['answered_303']} taps answered 303 before, "
        f"{s['lost']} lost, {s['unreadable']} unreadable"
    )
    h = f["hostile"]
    print(
        f"hostile game files: {h['files']} files x ({len(VERBS)} verbs + a page tap) = {h['runs']} runs: "
        + ", ".join(f"{n} {k}" for k, n in h["outcomes"].items())
        + f"; the most CPU a command took: {h['slowest_s'] * 1000:.0f} ms (in process, Python's start aside)"
    )
    for name, seen in h["rows"]:
        print(f"  {name}: {' '.join(seen)}")
    print(f"load average {f['load'][0]:.1f} to {f['load'][1]:.1f}")


if __name__ == "__main__":
    main()
