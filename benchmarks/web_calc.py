"""The calculator on the phone, measured: a rent page and the fortunes page of a big City game.

A City edition of 22 districts (invented values, in 8 groups as the board has them) and a game of
6 players holding all of them, with blocks, hazards, bonuses, skyscrapers, stadiums and the tower,
are written to a temporary data folder; `monopoly-city serve --data DIR` runs as its own process
(at Nice=10, as its systemd unit); this process asks for a rent page (a different district each
time) and the fortunes page over one keep-alive loopback connection and times each request, from
sending it to the last byte of the answer. The server reads the game file, its edition, checks and
computes on every request (nothing is cached), so this is the server's time plus a loopback round
trip. Then again with the service under 10 % of one core (benchmarks/cpulimit.py), as a slow Pi, the
requests 0.25 s apart as a table's taps are (back to back, each would also wait for the quota the
previous ones used: that measures a flood, not a page).

    python benchmarks/web_calc.py [--requests N] [--limited-requests N]

``measure()`` returns the figures as a dict (for ``make bench``). The goal (issue 14): p99 <= 30 ms.
"""

from __future__ import annotations

import argparse
import http.client
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from cpulimit import CpuLimit  # noqa: E402
from harness import percentile  # noqa: E402

GROUPS = (2, 3, 3, 3, 3, 3, 3, 2)  # 22 districts
PLAYERS = ("Alice", "Bruno", "Chloé", "David", "Emma", "Farid")
#: Under the CPU limit, requests come as a table's taps do, this far apart: back to back, every request would
#: also wait for the quota the previous ones used up (a 100 ms period), which measures the load, not a page.
LIMITED_PAUSE = 0.25
HAZARDS = ("prison", "dump", "sewage_plant", "power_station")
BONUSES = ("park", "school", "water_tower", "wind_farm")


def big_game(folder: Path) -> list[str]:
    """Write ``big.edition.yaml`` and ``big.game.yaml`` in ``folder``: the district names."""
    lines = ["game: city", "name: Benchmark (invented)", "go_salary: 2M", "industry_tax: 1M"]
    lines += ["hazards: {prison: 4, dump: 2, sewage_plant: 2, power_station: 3}", "groups:"]
    names, n = [], 0
    for g, size in enumerate(GROUPS):
        lines += [f"  - name: group{g}", f"    skyscraper_cost: {3 + g}M", "    districts:"]
        for _ in range(size):
            n += 1
            name = f"District {n:02d}"
            names.append(name)
            rents = ", ".join(f"{(n + 1) * 10 * (b + 1)}k" for b in range(9))
            lines.append(
                f"      - {{name: {name}, price: {n * 100}k, residential_cost: 200k, industrial_cost: 400k, "
                f"rents: [{rents}]}}"
            )
    (folder / "big.edition.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    game = ["edition: big.edition.yaml", "players:"]
    owner_of = {}
    start = 0
    for g, size in enumerate(GROUPS):  # each group to one player: skyscrapers and the tower are legal
        for i in range(size):
            owner_of[names[start + i]] = g % len(PLAYERS)
        start += size
    for p, player in enumerate(PLAYERS):
        game += [f"  - name: {player}", f"    cash: {10 + p}M"]
        if p == 0:
            game.append(f"    tower: {names[0]}")
        game.append("    districts:")
        first_in_group = True
        for n, name in enumerate(names):
            if owner_of[name] != p:
                continue
            extra = f", hazard: {HAZARDS[n % 4]}" if n % 5 == 0 else f", bonus: {BONUSES[n % 4]}" if n % 5 == 1 else ""
            extra += ", skyscraper: true" if first_in_group else ""
            first_in_group = False
            game.append(f"      - {{name: {name}, residential: {n % 5}, industrial: {n % 4}{extra}}}")
    (folder / "big.game.yaml").write_text("\n".join(game) + "\n", encoding="utf-8")
    return names


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(folder: Path, limit: CpuLimit | None) -> tuple[subprocess.Popen, int]:
    port = free_port()
    command = [sys.executable, "-m", "unit", "serve", "--host", "127.0.0.1", "--port", str(port), "--data", str(folder)]

    def setup():
        os.nice(10)  # Nice=10, as systemd/monopoly-city-web.service
        if limit is not None:
            limit.join()

    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=setup)
    return until_serving(process, port, "/games"), port


def until_serving(process: subprocess.Popen, port: int, path: str, seconds: float = 60.0) -> subprocess.Popen:
    """``process`` once `monopoly-city serve` answers ``path`` with 200 on ``port``; killed, and an error, if it
    does not within ``seconds``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", path)
            if conn.getresponse().status == 200:
                conn.close()
                return process
        except OSError:
            time.sleep(0.02)
    process.kill()
    raise RuntimeError("monopoly-city serve did not start")


def timed(port: int, paths: list[str], pause: float = 0.0) -> list[float]:
    """Milliseconds for each GET, over one keep-alive connection, ``pause`` seconds apart; every answer must be
    a 200 page."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    out = []
    for path in paths:
        time.sleep(pause)
        began = time.perf_counter()
        conn.request("GET", path)
        response = conn.getresponse()
        body = response.read()
        out.append((time.perf_counter() - began) * 1000)
        if response.status != 200 or b"<html" not in body:
            raise RuntimeError(f"{path}: {response.status}")
    conn.close()
    return out


def cpu_ms(pid: int) -> float:
    """The process's CPU time so far (user + system, every thread), in milliseconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def figures(values: list[float], cpu: float) -> dict:
    return {
        "n": len(values),
        "cpu_ms": cpu / len(values),
        "p50_ms": percentile(values, 50),
        "p99_ms": percentile(values, 99),
        "max_ms": max(values),
    }


def run(folder: Path, names: list[str], requests: int, limit: CpuLimit | None, pause: float = 0.0) -> dict:
    process, port = start(folder, limit)
    try:
        rents = [f"/games/big/rent?square={quote(names[i % len(names)])}" for i in range(requests)]
        timed(port, rents[:20] + ["/games/big/fortunes"] * 5, pause)  # warm-up: templates compiled, imports done
        out = {}
        for page, paths in (("rent", rents), ("fortunes", ["/games/big/fortunes"] * requests)):
            before = cpu_ms(process.pid)
            times = timed(port, paths, pause)
            out[page] = figures(times, cpu_ms(process.pid) - before)
        return out
    finally:
        process.terminate()
        process.wait(10)


def measure(requests: int = 300, limited_requests: int = 60) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        names = big_game(folder)
        out = run(folder, names, requests, None)
        try:
            with CpuLimit(10) as limit:
                limited = run(folder, names, limited_requests, limit, LIMITED_PAUSE)
                out["limited"] = limited | {"limit": limit.describe()}
        except OSError as error:
            out["limit"] = f"no CPU limit possible here ({error})"
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--limited-requests", type=int, default=60)
    args = parser.parse_args()
    result = measure(args.requests, args.limited_requests)
    for label, part in (("full core", result), ("10 % of one core", result.get("limited"))):
        if part is None:
            print(f"{label}: {result['limit']}")
            continue
        for page in ("rent", "fortunes"):
            f = part[page]
            print(
                f"{label}: {page} page, 22 districts, 6 players, {f['n']} requests: "
                f"p50 {f['p50_ms']:.1f} ms, p99 {f['p99_ms']:.1f} ms, max {f['max_ms']:.1f} ms; "
                f"server CPU {f['cpu_ms']:.1f} ms a request"
            )


if __name__ == "__main__":
    main()
