"""The phone companion, measured: unit event -> the page's event stream, the auction end under web load,
and the web process's memory and start time. Everything on loopback; the figures are printed, not asserted.

- stream latency: a unit with its link runs in this process; `monopoly-city serve` runs as its own process;
  an event-stream client (this process) notes when each `state` record arrives, against the moment the
  unit's runtime handed it to the trace (the same clock), over many presses of ON/OFF;
- auction-end lateness: a unit process runs back-to-back auctions and measures, on its own clock, how long
  after its exact end each auction ended (the `sold` output reaching the trace); once alone, once with the
  web service (at Nice=10, as its systemd unit), 50 clients streaming the live view and 10 more loading
  pages in a loop (another process, at normal priority: the phones' load shares this machine's cores),
  and once with bad clients on the unit's socket (one stuck, one flooding, many vanishing);
- the web process: resident memory after start and at its peak under that load, and the time from
  launch to the first page served; then again under a 10 % CPU limit (a cgroup, like the unit's
  CPUQuota=10%) where this machine lets one be made.

    python benchmarks/web_latency.py [--presses N] [--auctions N] [--seconds S] [--no-nice]

``measure()`` returns the figures as a dict (for ``make bench``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from harness import benchmark_config, percentile, wait_until  # noqa: E402

from unit import i18n  # noqa: E402
from unit.app.link import Link  # noqa: E402
from unit.app.runtime import Runtime  # noqa: E402
from unit.app.trace import record  # noqa: E402
from unit.backends.headless import Headless  # noqa: E402
from unit.core import Pressed, Released, Unit  # noqa: E402

NICE = {"service": 10}  # as the systemd unit; --no-nice: the unit's priority (the load is never niced)
STREAMS = 50
LOADERS = 10
PAGES = ("/", "/remote", "/settings", "/share", "/static/app.js", "/static/style.css")


class Stamps:
    """A trace object noting when each record reached the trace (monotonic clock) and its exact time."""

    def __init__(self):
        self.words = i18n.words("fr")
        self.written: list[tuple[float, float, dict]] = []  # (written at, exact t, record)

    def write(self, t, outputs):
        now = time.monotonic()
        for output in outputs:
            self.written.append((now, t, record(t, output, self.words).data()))

    def write_record(self, obj):
        self.written.append((time.monotonic(), obj.get("t", 0.0), obj))


class UnitThread:
    """A unit on the headless backend with its link, its loop in a thread."""

    def __init__(self, state_dir: Path, overrides: dict | None = None):
        self.config = benchmark_config(overrides)
        self.stamps = Stamps()
        self.link = Link(state_dir, self.config.language, trace=self.stamps)  # type: ignore[arg-type]
        self.runtime = Runtime(Unit(self.config), Headless(self.config.language), trace=self.link)
        self.link.attach(self.runtime)
        self.link.start()
        self.thread = threading.Thread(target=self.runtime.run, daemon=True)
        self.thread.start()

    def press(self, button: str) -> None:
        self.runtime.post(Pressed(button))
        self.runtime.post(Released(button))

    def wait_for(self, predicate, timeout: float = 10.0) -> None:
        wait_until(predicate, timeout)

    def close(self) -> None:
        self.runtime.stop()
        self.thread.join(5)
        self.link.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


CGROUP_V1 = Path("/sys/fs/cgroup/cpu")


def cpu_limit_group(percent: float) -> Path | None:
    """A cgroup (v1 cpu controller) holding its processes to ``percent`` of one core, as systemd's CPUQuota=
    does; None where there is no writable one (then the limited figures are not measured)."""
    group = CGROUP_V1 / f"monopoly-city-bench-{os.getpid()}"
    try:
        group.mkdir(exist_ok=True)
        period = int((group / "cpu.cfs_period_us").read_text())
        (group / "cpu.cfs_quota_us").write_text(str(int(period * percent / 100)))
    except OSError:
        return None
    return group


def start_service(state_dir: Path | None, group: Path | None = None) -> tuple[subprocess.Popen, int, float]:
    """`monopoly-city serve` as its own process: (process, port, seconds from launch to the first page)."""
    port = free_port()
    command = [sys.executable, "-m", "unit", "serve", "--host", "127.0.0.1", "--port", str(port)]
    if state_dir is not None:
        command += ["--state-dir", str(state_dir)]

    def setup():
        os.nice(NICE["service"])  # Nice=10 as in systemd/monopoly-city-web.service: the unit goes first
        if group is not None:
            (group / "cgroup.procs").write_text(str(os.getpid()))  # limited from its first instruction

    launched = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=setup)
    while True:
        with contextlib.suppress(OSError):
            with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
                conn.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
                if conn.recv(12).startswith(b"HTTP/1.1 200"):
                    return process, port, time.monotonic() - launched
        if process.poll() is not None or time.monotonic() - launched > 30:
            raise RuntimeError("monopoly-city serve did not start")
        time.sleep(0.005)


def rss_kib(pid: int, field: str = "VmRSS") -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


# --- 1. unit event -> the page's event stream -------------------------------------------------------------


def stream_latency(presses: int, group: Path | None = None) -> dict:
    import httpx2 as httpx

    with tempfile.TemporaryDirectory() as tmp:
        unit = UnitThread(Path(tmp))
        service, port, _ = start_service(Path(tmp), group)
        arrivals: dict[float, float] = {}
        ready = threading.Event()

        def listen():
            with (
                contextlib.suppress(httpx.HTTPError),
                httpx.Client(timeout=None) as client,
                client.stream("GET", f"http://127.0.0.1:{port}/events") as s,
            ):
                for line in s.iter_lines():
                    if not line.startswith("data: "):
                        continue
                    obj = json.loads(line[6:])
                    if obj["kind"] == "snapshot" and obj.get("unit"):
                        ready.set()
                    elif obj["kind"] == "state":
                        arrivals[obj["t"]] = time.monotonic()

        threading.Thread(target=listen, daemon=True).start()
        if not ready.wait(10):
            raise RuntimeError("the service did not reach the unit")
        for n in range(presses):
            state = "ready" if n % 2 == 0 else "off"
            unit.press("power")
            unit.wait_for(lambda state=state: unit.runtime.unit.state == state)
            time.sleep(0.004)  # let the record travel before the next press
        time.sleep(0.3)
        unit.close()
        stop(service)
    lags = [(arrivals[obj["t"]] - at) * 1000 for at, _, obj in unit.stamps.written if obj["kind"] == "state"]
    lags = [lag for lag in lags if lag >= 0]
    return {"events": len(lags), "p50_ms": percentile(lags, 50), "p99_ms": percentile(lags, 99), "max_ms": max(lags)}


# --- 2. the auction end, alone and under web load ----------------------------------------------------------


def unit_process(state_dir: str, auctions: int, seconds: float) -> None:
    """(Run in its own process.) Back-to-back auctions; print each one's end lateness in ms as JSON."""
    unit = UnitThread(Path(state_dir), {"auction": {"seconds": seconds, "warning_seconds": min(5.0, seconds / 2)}})
    unit.press("power")
    unit.wait_for(lambda: unit.runtime.unit.state == "ready")
    late = []
    for _ in range(auctions):
        unit.stamps.written.clear()
        unit.press("auction")
        unit.wait_for(lambda: unit.runtime.unit.state == "countdown")
        unit.wait_for(lambda: unit.runtime.unit.state == "ready", timeout=seconds + 5)
        written = list(unit.stamps.written)
        start = next(t for _, t, obj in written if obj == {**obj, "kind": "state", "state": "countdown"})
        sold_at = next(at for at, _, obj in written if obj.get("name") == "sold")
        # the countdown's exact end, on the runtime's clock: its start (exact, the press's own time) + seconds
        late.append(((sold_at - unit.runtime.start) - (start + seconds)) * 1000)
        time.sleep(0.2)
    unit.close()
    print(json.dumps(late))


def load_process(port: int, seconds: float) -> None:
    """(Run in its own process.) 50 clients streaming the live view, 10 loading pages in a loop."""
    import httpx2 as httpx

    async def stream(client, stats):
        with contextlib.suppress(Exception):
            async with client.stream("GET", f"http://127.0.0.1:{port}/events") as s:
                async for line in s.aiter_lines():
                    if line.startswith("data: "):
                        stats["records"] += 1

    async def loader(client, stats):
        n = 0
        while True:
            response = await client.get(f"http://127.0.0.1:{port}{PAGES[n % len(PAGES)]}")
            stats["pages"] += response.status_code == 200
            n += 1

    async def main():
        stats = {"records": 0, "pages": 0}
        limits = httpx.Limits(max_connections=STREAMS + LOADERS + 5)
        async with httpx.AsyncClient(timeout=None, limits=limits) as client:
            tasks = [asyncio.create_task(stream(client, stats)) for _ in range(STREAMS)]
            tasks += [asyncio.create_task(loader(client, stats)) for _ in range(LOADERS)]
            await asyncio.sleep(seconds)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        print(json.dumps(stats))

    asyncio.run(main())


def hostile_process(path: str, seconds: float) -> None:
    """(Run in its own process.) Bad clients of the unit's socket: one that never reads, one that floods it
    with junk (about 10,000 lines a second) without reading the answers, one that connects and vanishes."""
    stuck = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stuck.connect(path)
    junk = b'{"press": "nope"}\n' * 100
    sent = drops = crashes = 0
    flood = None
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            if flood is None:
                flood = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                flood.connect(path)
            flood.sendall(junk)
            sent += 100
        except OSError:
            drops += 1  # the unit hung up on it
            flood.close()
            flood = None
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as gone:
                gone.connect(path)
                gone.sendall(b'{"press": "aucti')  # half a message, then gone
                crashes += 1
        except OSError:
            break  # the unit is done
        time.sleep(0.01)
    stuck.close()
    print(json.dumps({"junk_lines": sent, "flooder_dropped": drops, "vanished": crashes}))


def lateness(auctions: int, seconds: float, loaded: bool = False, hostile: bool = False) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        me = [sys.executable, __file__]
        unit = subprocess.Popen(
            [*me, "--unit-process", tmp, str(auctions), str(seconds)], stdout=subprocess.PIPE, text=True
        )
        service = load = None
        peak = started_rss = 0
        load_stats = {}
        duration = auctions * (seconds + 0.3) + 2
        while not (Path(tmp) / "unit.sock").exists():
            time.sleep(0.01)
        if hostile:
            load = subprocess.Popen(
                [*me, "--hostile-process", str(Path(tmp) / "unit.sock"), str(auctions * seconds)],
                stdout=subprocess.PIPE,
                text=True,
            )
        if loaded:
            service, port, _ = start_service(Path(tmp))
            started_rss = rss_kib(service.pid)
            load = subprocess.Popen(
                [*me, "--load-process", str(port), str(duration)], stdout=subprocess.PIPE, text=True
            )
        out, _ = unit.communicate()
        if load is not None:
            load_out, _ = load.communicate()
            load_stats = json.loads(load_out) if load_out.strip() else {}
        if service is not None:
            peak = rss_kib(service.pid, "VmHWM")
            stop(service)
    late = json.loads(out)
    figures = {
        "auctions": len(late),
        "median_ms": statistics.median(late),
        "max_ms": max(late),
    }
    if loaded:
        figures |= {"service_rss_kib": started_rss, "service_peak_kib": peak}
    return figures | load_stats


# --- 3. the web process alone ------------------------------------------------------------------------------


def web_process(runs: int = 5, group: Path | None = None) -> dict:
    starts, rss = [], []
    for _ in range(runs):
        service, _, took = start_service(None, group)
        starts.append(took * 1000)
        time.sleep(0.2)
        rss.append(rss_kib(service.pid))
        stop(service)
    return {"start_ms_median": statistics.median(starts), "start_ms_max": max(starts), "rss_kib": max(rss)}


def measure(presses: int = 500, auctions: int = 10, seconds: float = 3.0) -> dict:
    figures = {
        "stream": stream_latency(presses),
        "alone": lateness(auctions, seconds, loaded=False),
        "loaded": lateness(auctions, seconds, loaded=True),
        "hostile": lateness(auctions, seconds, hostile=True),
        "web": web_process(),
    }
    group = cpu_limit_group(10)
    if group is not None:
        try:
            figures["limited"] = {"stream": stream_latency(presses, group), "web": web_process(3, group)}
        finally:
            with contextlib.suppress(OSError):
                group.rmdir()
    return figures


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--unit-process":
        unit_process(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--hostile-process":
        hostile_process(sys.argv[2], float(sys.argv[3]))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--load-process":
        load_process(int(sys.argv[2]), float(sys.argv[3]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presses", type=int, default=500, help="ON/OFF presses for the stream latency")
    parser.add_argument("--auctions", type=int, default=10, help="auctions in each lateness run")
    parser.add_argument("--seconds", type=float, default=3.0, help="length of each auction")
    parser.add_argument("--no-nice", action="store_true", help="run the service at normal priority, not Nice=10")
    args = parser.parse_args()
    if args.no_nice:
        NICE.update(service=0)
    f = measure(args.presses, args.auctions, args.seconds)
    s, a, lo, w = f["stream"], f["alone"], f["loaded"], f["web"]
    print(
        f"unit event -> page stream ({s['events']} events): p50 {s['p50_ms']:.2f} ms, p99 {s['p99_ms']:.2f} ms,"
        f" max {s['max_ms']:.2f} ms"
    )
    print(
        f"auction end lateness, no web clients ({a['auctions']} auctions): median {a['median_ms']:.2f} ms,"
        f" max {a['max_ms']:.2f} ms"
    )
    print(
        f"auction end lateness, {STREAMS} streams + {LOADERS} page loaders ({lo['auctions']} auctions):"
        f" median {lo['median_ms']:.2f} ms, max {lo['max_ms']:.2f} ms"
        f" ({lo['records']} records streamed, {lo['pages']} pages served)"
    )
    h = f["hostile"]
    print(
        f"auction end lateness, stuck, flooding and vanishing clients on the unit's socket"
        f" ({h['auctions']} auctions): median {h['median_ms']:.2f} ms, max {h['max_ms']:.2f} ms"
        f" ({h.get('junk_lines', 0)} junk lines, flooder dropped {h.get('flooder_dropped', 0)} times,"
        f" {h.get('vanished', 0)} clients vanished)"
    )
    print(
        f"web process: first page {w['start_ms_median']:.0f} ms after launch (max {w['start_ms_max']:.0f} ms),"
        f" {w['rss_kib'] / 1024:.1f} MiB resident idle, {lo['service_peak_kib'] / 1024:.1f} MiB at peak under load"
    )
    if "limited" in f:
        ls, lw = f["limited"]["stream"], f["limited"]["web"]
        print(
            f"under a 10 % CPU limit: first page {lw['start_ms_median']:.0f} ms after launch"
            f" (max {lw['start_ms_max']:.0f} ms), {lw['rss_kib'] / 1024:.1f} MiB resident;"
            f" event -> page stream p50 {ls['p50_ms']:.2f} ms, p99 {ls['p99_ms']:.2f} ms"
        )
    else:
        print("under a 10 % CPU limit: not measured (no writable cpu cgroup here)")


if __name__ == "__main__":
    main()
