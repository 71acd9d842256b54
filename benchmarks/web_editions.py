"""The Editions pages, measured: checking a card as it is typed, on a 22-district City edition.

The edition of benchmarks/web_calc.py (22 invented districts in 8 groups) is written to a temporary
data folder; `monopoly-city serve --data DIR` runs as its own process (Nice=10, as its systemd unit);
this process loads a card's page once (the session cookie and its CSRF token), then posts the card's
check, as the page does after a pause in typing, over one keep-alive loopback connection, and times
each request from sending it to the last byte of the answer. Two cards: a right one (the loader reads
the file once) and one with 14 wrong fields (the loader reads it once per mistake, 15 times). Then
again with the service under 10 % of one core (benchmarks/cpulimit.py), the requests 0.25 s apart as
typing pauses are.

    python benchmarks/web_editions.py [--requests N] [--limited-requests N]
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from cpulimit import CpuLimit  # noqa: E402
from web_calc import LIMITED_PAUSE, big_game, cpu_ms, figures, start  # noqa: E402

CARD = 10  # a card in the middle of the file
AMOUNTS = ("price", "residential_cost", "industrial_cost", "skyscraper_cost")


def session(port: int) -> tuple[dict[str, str], dict[str, str]]:
    """The headers of a phone that loaded the card's page, and the card's form as the page holds it."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", f"/editions/big/card?n={CARD}")
    response = conn.getresponse()
    page = response.read().decode()
    cookie = response.getheader("set-cookie", "").split(";")[0]
    conn.close()
    form = dict(re.findall(r'<input[^>]*?name="([^"]+)" value="([^"]*)"', page))
    form |= dict(re.findall(r'<input id="f-[^"]+" name="([^"]+)" value="([^"]*)"', page))
    headers = {
        "Cookie": cookie,
        "Content-Type": "application/x-www-form-urlencoded",
        "Accept": "application/json",
        "Origin": f"http://127.0.0.1:{port}",
    }
    return headers, form


def timed_checks(port: int, headers: dict, form: dict, count: int, pause: float = 0.0) -> list[float]:
    """Milliseconds for each check of ``form`` (every answer a 200 with the messages)."""
    body = urlencode(form | {"check": "1"})
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    out = []
    for _ in range(count):
        time.sleep(pause)
        began = time.perf_counter()
        conn.request("POST", "/editions/big/card?lang=fr", body=body, headers=headers)
        response = conn.getresponse()
        answer = response.read()
        out.append((time.perf_counter() - began) * 1000)
        if response.status != 200 or b'"errors"' not in answer:
            raise RuntimeError(f"check: {response.status} {answer[:200]!r}")
    conn.close()
    return out


def run(folder: Path, requests: int, limit: CpuLimit | None, pause: float = 0.0) -> dict:
    process, port = start(folder, limit)
    try:
        headers, right = session(port)
        wrong = right | {key: "-1" for key in (*AMOUNTS, *(f"rent{j}" for j in range(9)))} | {"name": ""}
        for form, expected in ((right, 0), (wrong, 14)):  # warm-up, and the answers are what is measured
            timed_checks(port, headers, form, 5, pause)
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("POST", "/editions/big/card", body=urlencode(form | {"check": "1"}), headers=headers)
            errors = json.loads(conn.getresponse().read())["errors"]
            conn.close()
            if len(errors) != expected:
                raise RuntimeError(f"expected {expected} messages, got {errors}")
        out = {}
        for case, form in (("right card", right), ("14 wrong fields", wrong)):
            cpu = cpu_ms(process.pid)
            times = timed_checks(port, headers, form, requests, pause)
            out[case] = figures(times, cpu_ms(process.pid) - cpu)  # with the server's CPU a check
        return out
    finally:
        process.terminate()
        process.wait(10)


def measure(requests: int = 300, limited_requests: int = 60) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        big_game(folder)
        out = run(folder, requests, None)
        try:
            with CpuLimit(10) as limit:
                out["limited"] = run(folder, limited_requests, limit, LIMITED_PAUSE) | {"limit": limit.describe()}
        except OSError as error:
            out["limit"] = f"no CPU limit possible here ({error})"
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--limited-requests", type=int, default=60)
    args = parser.parse_args()
    out = measure(args.requests, args.limited_requests)
    limited = out.pop("limited", {})
    for title, rows in (("unlimited", out), (limited.pop("limit", out.pop("limit", "")), limited)):
        print(title)
        for name, f in rows.items():
            if isinstance(f, dict):
                times = f"p50 {f['p50_ms']:.2f} ms  p99 {f['p99_ms']:.2f} ms  max {f['max_ms']:.2f} ms"
                print(f"  {name:16} n={f['n']:4}  {times}")


if __name__ == "__main__":
    main()
