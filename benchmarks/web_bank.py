"""The table's bank on the phone, measured: a payment, from the tap to the page showing the new cash.

The big City game of benchmarks/web_calc.py (22 districts, 6 players) is written to a temporary data folder,
once with an empty history and once with a history of 2,000 entries (a long evening); `monopoly-city serve
--data DIR` runs as its own process (Nice=10, as its systemd unit). This process plays one phone over one
keep-alive loopback connection: each payment is the form the payer's view posts (a transfer between two players,
with the session's token and the version the view showed), the 303 it answers, and the GET of the view's fragment
it leads to (``X-Fragment: 1``, what the page's script asks for: unit/web/table.py), which must show the payer's
new cash; timed from sending the POST to the last byte of the view: the server's part of a tap.
Then the same under 10 % of one core (benchmarks/cpulimit.py, root), the taps 0.25 s apart. The game file's
size is stated, and the command line's `monopoly-city pay` on the same files: one start, wall time.

    python benchmarks/web_bank.py [--payments N] [--limited-payments N]

``measure()`` returns the figures as a dict (for ``make bench``). The goal (issue 22): p99 <= 30 ms at full
speed, <= 100 ms under 10 % of one core, with the 2,000 entries too.
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from cpulimit import CpuLimit  # noqa: E402
from harness import percentile  # noqa: E402
from web_calc import LIMITED_PAUSE, big_game, cpu_ms, start  # noqa: E402

from unit.calculator import bank, money  # noqa: E402
from unit.calculator import position as positions  # noqa: E402

LONG = 2_000  # entries: a long evening


def with_history(folder: Path, entries: int) -> int:
    """Give ``big.game.yaml`` a history of ``entries`` payments (as the bank writes them); its size in bytes."""
    path = folder / "big.game.yaml"
    game = positions.load(path)
    payers = [p.name for p in game.players]
    for i in range(entries):
        action = bank.Pay(payers[i % 6], payers[(i + 1) % 6], 1_000 * (1 + i % 50))
        game, _entry = bank.apply(game, action)
    path.write_text(positions.dumps(game, "big.edition.yaml"), encoding="utf-8")
    return path.stat().st_size


class Phone:
    """One phone's connection: its session cookie, the token and version of the page it shows."""

    def __init__(self, port: int):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.cookie = ""
        self.page = ""

    def get(self, path: str, fragment: bool = False) -> str:
        headers = {"Cookie": self.cookie} if self.cookie else {}
        self.conn.request("GET", path, headers=headers | ({"X-Fragment": "1"} if fragment else {}))
        response = self.conn.getresponse()
        body = response.read().decode("utf-8")
        for value in response.headers.get_all("Set-Cookie") or []:
            if value.startswith("mc_session="):
                self.cookie = value.split(";", 1)[0]
        if response.status != 200:
            raise RuntimeError(f"{path}: {response.status}")
        self.page = body
        return body

    def pay(self, payer: int, payee: int, amount: str) -> float:
        """One transfer as the page posts it, then the page it leads to; milliseconds for both."""
        csrf = re.search(r'name="csrf" value="([^"]+)"', self.page).group(1)
        version = re.search(r'name="version" value="([^"]+)"', self.page).group(1)
        form = {"csrf": csrf, "version": version, "action": "transfer", "player": str(payer), "to": f"to:{payee}"}
        body = urlencode(form | {"amount": amount, "view": f"/games/big/player/{payer}"})
        headers = {"Cookie": self.cookie, "Content-Type": "application/x-www-form-urlencoded", "X-Fragment": "1"}
        began = time.perf_counter()
        self.conn.request("POST", "/games/big/bank", body=body, headers=headers)
        response = self.conn.getresponse()
        response.read()
        if response.status != 303:
            raise RuntimeError(f"payment refused: {response.status}")
        self.get(response.headers["Location"], fragment=True)
        elapsed = (time.perf_counter() - began) * 1000
        return elapsed


def shown_cash(page: str, player: int) -> int:
    """The cash a view shows for ``player`` on their chip (« M 12,5M »)."""
    shown = re.search(rf'id="chip-{player}"[^>]*><span>[^<]*</span> <b>([^<]*)</b>', page).group(1)
    return money.parse(shown.removeprefix("M ").replace("\u202f", ""), "cash", "fr")


def run(folder: Path, payments: int, limit: CpuLimit | None, pause: float = 0.0) -> dict:
    load = os.getloadavg()[0]  # the machine's load beside each figure: a shared machine's figures vary with it
    process, port = start(folder, limit)
    try:
        phone = Phone(port)
        phone.get("/games/big/player/0")
        for i in range(10):  # warm-up: templates compiled, imports done, the game read once
            phone.pay(i % 6, (i + 1) % 6, "1k")
        times = []
        before = cpu_ms(process.pid)
        for i in range(payments):
            time.sleep(pause)
            payer = i % 6
            expected = shown_cash(phone.page, payer) - 1_000
            times.append(phone.pay(payer, (payer + 1) % 6, "1k"))
            if shown_cash(phone.page, payer) != expected:
                raise RuntimeError(f"the page shows {shown_cash(phone.page, payer)}, expected {expected}")
        cpu = cpu_ms(process.pid) - before
        return {
            "n": len(times),
            "cpu_ms": cpu / len(times),
            "p50_ms": percentile(times, 50),
            "p99_ms": percentile(times, 99),
            "max_ms": max(times),
            "file_bytes": (folder / "big.game.yaml").stat().st_size,
            "load": (load, os.getloadavg()[0]),
        }
    finally:
        process.terminate()
        process.wait(10)


def cli_pay(folder: Path, runs: int = 5) -> float:
    """`monopoly-city pay big.game.yaml Alice Bruno 1k`: the median wall time of one start, in milliseconds."""
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "unit", "pay", "big.game.yaml", "Alice", "Bruno", "1k"],
            cwd=folder,
            check=True,
            capture_output=True,
        )
        times.append((time.perf_counter() - began) * 1000)
    return sorted(times)[len(times) // 2]


def measure(payments: int = 200, limited_payments: int = 40) -> dict:
    out: dict = {}
    for label, entries in (("short", 0), ("long", LONG)):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            big_game(folder)
            size = with_history(folder, entries)
            part = {"entries": entries, "start_bytes": size, "full": run(folder, payments, None)}
            try:
                with CpuLimit(10) as limit:
                    part["limited"] = run(folder, limited_payments, limit, LIMITED_PAUSE) | {"limit": limit.describe()}
            except OSError as error:
                part["limit"] = f"no CPU limit possible here ({error})"
            part["cli_ms"] = cli_pay(folder)
            out[label] = part
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--payments", type=int, default=200)
    parser.add_argument("--limited-payments", type=int, default=40)
    args = parser.parse_args()
    result = measure(args.payments, args.limited_payments)
    for label in ("short", "long"):
        part = result[label]
        for where in ("full", "limited"):
            f = part.get(where)
            if f is None:
                print(f"{label}: {part['limit']}")
                continue
            print(
                f"{part['entries']} entries, {'full core' if where == 'full' else '10 % of one core'}: "
                f"{f['n']} payments, p50 {f['p50_ms']:.1f} ms, p99 {f['p99_ms']:.1f} ms, max {f['max_ms']:.1f} ms; "
                f"server CPU {f['cpu_ms']:.1f} ms a payment; game file {f['file_bytes']} bytes; "
                f"load average {f['load'][0]:.1f} to {f['load'][1]:.1f}"
            )
        print(f"{part['entries']} entries: monopoly-city pay, one start: {part['cli_ms']:.0f} ms")


if __name__ == "__main__":
    main()
