"""Hostile inputs: malformed files made from the valid ones, fed to every command that reads them.

Each valid file (the defaults, the example scenario, the editions, the example game files) is mutated
as an adversary would (truncated, lines duplicated, numbers made huge or written the YAML 1.1 way,
escape codes and invisible characters inserted, values swapped for the wrong type, nested deeply,
lists blown up) and special files are made (a FIFO, a link to /dev/zero, a directory, a 2 MB file, a
dangling link). Every input is fed to each command that reads its kind, in a subprocess with a
timeout and a memory limit, and the outcome is classified:

- ``clear``: exit 2 and one line on stderr naming the file, no control character, nothing on stdout;
- ``accepted``: exit 0 (the mutation left a valid file: a truncated comment, a harmless duplicate), or
  ``check``'s exit 1 for an illegal position;
- ``unescaped``: accepted, but a control character or escape code reached the terminal raw;
- ``unclear``: exit 2 but not one clean line naming the file;
- ``traceback``: any other exit status, or a traceback on stderr;
- ``hang``: no answer within the timeout.

Beside the files, the command line is attacked (:func:`argument_attacks`): 5,000-digit amounts and counts,
names with a newline (« Bob\\nMALLORY »: no output line may start with ``MALLORY``), ``serve`` on a port out of
range, in use or on an address not this machine's; every command's output on /dev/full; every verb that
writes a game file, and the unit's own saves, settings and trace, on a full disk (``RLIMIT_FSIZE`` 0) and on a
read-only one (a read-only bind mount in a mount namespace of its own, where ``unshare -m`` is allowed). A
refused write must leave the file as it was (else ``unclear``); the unit goes on (exit 0) with one line a
failure.

The goal is only ``clear`` and ``accepted``. ``python benchmarks/hostile.py [--count N] [--keep DIR]``
prints the counts and the inputs that failed (kept in DIR to look at); ``make soak`` runs it and
writes the counts into docs/reliability.md.

``--web`` attacks ``monopoly-city serve`` (its own process, at Nice=10 as its systemd unit) instead, from
this machine's other loopback addresses (127.0.0.2 and up) while a phone (127.0.0.1) loads the live page
every 50 ms, and prints the phone's figures in each phase (:func:`web_attacks`):

- quiet: the phone alone;
- one address: 300 connections that never finish their request line and 200 live streams, all from one
  address, each opened again as soon as the server closes it (a stream one second later, as a page does);
- many addresses: the same from 500 addresses (300 + 200), the harder case for per-address shares;
- the card check: an unpaired visitor checks a card with 14 wrong fields on the largest edition the loader
  allows (40 districts, 40-letter names, 7-digit amounts), timed from sending to the last byte of the answer,
  with the server's CPU for each; again with the service under 10 % of one core (benchmarks/cpulimit.py);
- the unit's timing (:func:`unit_timing`): a real unit (``monopoly-city run --backend headless`` on the real
  clock, its web service beside it) plays back-to-back auctions, quiet, then while the same attacker holds its
  web service's connections, from one address and from 500; how late each auction ended, from its trace.

``--routes`` attacks every route of ``monopoly-city serve`` instead (:func:`route_attacks`; issue 28, item 6): its
own process, a laptop's (no unit: every form reaches its work) then the box's (``--state-dir``, its unit away:
every write refused), each field every route reads given in turn 5,000 digits, digits ``int()`` refuses (``²``,
``١٢``), an escape code, a newline, 3,000 characters... (:func:`route_sweep`), then ``--count`` x 15 random
requests with odd paths, forged cookies, ``Range`` and ``Content-Length`` headers. The goal: no answer of 500, no
traceback in an answer or in the service's log (the slowest answer is a figure beside them).

``--attack NAME`` runs one timing measure alone, in the same way: ``web-one-address``, ``web-many-addresses``,
``pairing`` (strangers against the banker's pairing), ``socket-clients`` (a thousand clients of the unit's
socket).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import http.client
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"
DEMO = EXAMPLES / "demo-game.yaml"
CLASSIC_GAME = EXAMPLES / "classic-game.yaml"
TIMEOUT = 20.0
MEMORY_LIMIT = 2 << 30  # a runaway read fails with MemoryError (a traceback) instead of swapping

SEEDS = {
    "config": [ROOT / "unit/app/defaults.yaml"],
    "scenario": [DEMO],
    "edition": [*(ROOT / "unit/calculator/editions").glob("*.yaml"), EXAMPLES / "city-example.yaml"],
    "game": [EXAMPLES / "city-game.yaml", CLASSIC_GAME],
}


def commands(kind: str, path: str, script: str) -> list[list[str]]:
    """Every command that reads a file of this kind."""
    return {
        "config": [
            ["simulate", str(DEMO), "--config", path],
            ["fortune", str(CLASSIC_GAME), "--config", path],
            ["run", "--backend", "headless", "--config", path, "--script", script],
        ],
        "scenario": [["simulate", path]],
        "edition": [["board", path]],
        "game": [["check", path], ["fortune", path]],
    }[kind]


# --- mutations: each takes the text of a valid file and returns a malformed one -------------------------

NUMBER = re.compile(rb"(?<![\w.])-?[0-9]+(?:\.[0-9]+)?(?![\w.])")
HUGE = [b"9" * 400, b"-" + b"9" * 40, b"1" + b"0" * 5000, b"017", b"0o17", b"1:30", b"1_000", b"0x" + b"f" * 60]
HUGE += ["١٢".encode(), "１２".encode(), b"1e400", b".nan", b"-.inf", b"1e-400", b"12M" + b"0" * 300]
HUGE += [b"0.000000001", b"1" + b"0" * 5000 + b"M"]  # a tiny period (a core spun), an amount past int()'s limit
SPECIAL = [b"\x1b[2J", b"\x00", "\u200b".encode(), b"\r", b"\t", "\ufeff".encode(), "\u202e".encode(), b"\x7f"]
SPECIAL += [b"\xff\xfe", b"\n", b'"', b"'", b"&a ", b"*a ", b"!!python/object/apply:os.system ['true'] ", b"<<: "]
SPECIAL += [b"{", b"[", b": ", b"- ", b"%YAML 1.1\n", b"---\n", b"...\n", b"? "]
WRONG_TYPES = [b"[]", b"{}", b"~", b"yes", b"[1, 2]", b"{a: 1}", b'"\\e[2J\\e[H"', b'"x\\ny"', b'"\\u200bx"', b"''"]


def truncate(text: bytes, rng: random.Random) -> bytes:
    return text[: rng.randrange(len(text))]


def duplicate_line(text: bytes, rng: random.Random) -> bytes:
    lines = text.splitlines(keepends=True)
    candidates = [i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith(b"#")]
    i = rng.choice(candidates)
    return b"".join(lines[: i + 1] + [lines[i]] + lines[i + 1 :])


def duplicate_whole(text: bytes, rng: random.Random) -> bytes:
    return text + b"\n" + text


def huge_number(text: bytes, rng: random.Random) -> bytes:
    found = list(NUMBER.finditer(text))
    if not found:
        return text + b"\n" + rng.choice(HUGE)
    match = rng.choice(found)
    return text[: match.start()] + rng.choice(HUGE) + text[match.end() :]


def special_characters(text: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(text) + 1)
    return text[:at] + rng.choice(SPECIAL) + text[at:]


def wrong_type(text: bytes, rng: random.Random) -> bytes:
    values = list(re.finditer(rb"(?<=: )[^\s#{}\[\],][^#\n{}\[\],]*", text))
    if not values:
        return text
    match = rng.choice(values)
    return text[: match.start()] + rng.choice(WRONG_TYPES) + text[match.end() :]


def escape_in_name(text: bytes, rng: random.Random) -> bytes:
    """A name (player, district, street) with escape codes: it must not clear the terminal when printed."""
    names = list(re.finditer(rb"(?<=name: )[^,}\n#]+", text))
    if not names:
        return special_characters(text, rng)
    match = rng.choice(names)
    evil = rng.choice([b'"\\e[2J\\e[H', b'"\\e]0;pwned\\a', b'"\\u202e', b'"\\x9b2J', b'"\\u200b', b'"\\nMALLORY '])
    return text[: match.start()] + evil + match.group().strip().strip(b"\"'") + b'"' + text[match.end() :]


def wrong_block(text: bytes, rng: random.Random) -> bytes:
    """A key whose value is an indented block (``groups:``, ``players:``) given a scalar or a wrong type instead:
    ``groups: 5``."""
    lines = text.splitlines(keepends=True)
    keys = [i for i, line in enumerate(lines) if re.fullmatch(rb"\s*(- )?[\w.]+:\s*", line)]
    if not keys:
        return wrong_type(text, rng)
    i = rng.choice(keys)
    indent = len(lines[i]) - len(lines[i].lstrip())
    end = i + 1
    while end < len(lines) and (
        len(lines[end]) - len(lines[end].lstrip()) > indent or lines[end][indent:][:2] == b"- "
    ):
        end += 1  # the block: deeper lines, and a list at the key's own indentation
    value = rng.choice([b"5", b"-1", b"[]", b"{}", b"~", b"yes", b'"x"', b"[1, 2]", b"{a: 1}", b"0.000000001"])
    return b"".join(lines[:i] + [lines[i].rstrip() + b" " + value + b"\n"] + lines[end:])


def edition_elsewhere(text: bytes, rng: random.Random) -> bytes:
    """A game file whose ``edition:`` names a device, a folder, a FIFO, itself, a missing file: the line names the
    game file that points there (or, for a file that is not a game, just this file)."""
    target = rng.choice([b"/dev/zero", b"/dev/null", b".", b"/", b"special-fifo.yaml", b"nowhere.yaml", b"/proc/1/mem"])
    if not re.search(rb"(?m)^edition:", text):
        return special_characters(text, rng)
    return re.sub(rb"(?m)^edition:.*$", b"edition: " + target, text, count=1)


def deep_nesting(text: bytes, rng: random.Random) -> bytes:
    depth = rng.choice([200, 2_000, 50_000])
    value = rng.choice([b"[" * depth + b"]" * depth, b"{a: " * depth + b"1" + b"}" * depth])
    return wrong_type(text, rng).replace(b"[]", value, 1) if b": " in text else value


def blow_up_a_list(text: bytes, rng: random.Random) -> bytes:
    """One list item repeated thousands of times (a 10,000-street edition, a crowded game)."""
    lines = text.splitlines(keepends=True)
    items = [i for i, line in enumerate(lines) if line.lstrip().startswith(b"- ")]
    if not items:
        return duplicate_whole(text, rng)
    i = rng.choice(items)
    return b"".join(lines[:i] + [lines[i]] * rng.choice([1_000, 10_000]) + lines[i + 1 :])


MUTATIONS = [
    truncate,
    duplicate_line,
    duplicate_whole,
    huge_number,
    special_characters,
    wrong_type,
    escape_in_name,
    deep_nesting,
    blow_up_a_list,
    wrong_block,
    edition_elsewhere,
]


def without_comments(text: bytes) -> bytes:
    """The seed without its comments, so that mutations land on data (a mutated comment is still valid)."""
    lines = [re.sub(rb"(^|\s+)#.*$", b"", line) for line in text.splitlines()]
    return b"\n".join(line for line in lines if line.strip()) + b"\n"


def special_file(folder: Path, kind: str) -> Path:
    path = folder / f"special-{kind}.yaml"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "directory":
        path.mkdir()
    elif kind == "too-large":
        path.write_bytes(b"# padding\n" * 200_000)
    elif kind == "dangling-link":
        path.symlink_to(folder / "nowhere")
    elif kind == "empty":
        path.write_bytes(b"")
    return path


SPECIAL_FILES = ["fifo", "dev-zero", "directory", "too-large", "dangling-link", "empty"]


# --- running and classifying ----------------------------------------------------------------------------


#: What must never reach a terminal raw: C0 controls but newline and tab, DEL, C1 controls, bidi overrides.
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@dataclass
class Outcome:
    kind: str
    how: str  # the mutation
    path: str
    command: list[str]
    verdict: str
    stderr: str


VERDICTS = ("clear", "accepted", "unescaped", "unclear", "traceback", "hang")


def limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def no_room() -> None:
    """A full disk for the command: no file may grow (``RLIMIT_FSIZE`` 0, and EFBIG rather than SIGXFSZ)."""
    limit_memory()
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


#: An output line that a name with a newline faked (« Bob\nMALLORY »): it must stay inside its line, escaped.
FAKED = re.compile(r"(?m)^MALLORY")
#: A line longer than this is not a line a person reads (a 5,000-digit value echoed whole).
LONGEST_LINE = 1000


@dataclass
class Attack:
    """How a command is run beyond its arguments: what its line must name, where stdout goes, on which disk, and
    the file a refused write must leave as it was."""

    named: str | None = None  # None: the input file's path
    stdout: str | None = None  # a path (/dev/full) instead of a pipe
    disk: str = "ok"  # "full" (RLIMIT_FSIZE 0) or "read-only" (``folder`` bind-mounted read-only)
    folder: Path | None = None
    kept: Path | None = None
    unit: bool = False  # the unit itself: it goes on (exit 0), one line a failure, no traceback


def run_one(kind: str, how: str, path: Path, command: list[str], cwd: Path, attack: Attack | None = None) -> Outcome:
    attack = attack or Attack()
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", GPIOZERO_PIN_FACTORY="mock")
    argv = [sys.executable, "-m", "unit", *command]
    if attack.disk == "read-only":
        where = str(attack.folder)
        argv = ["unshare", "-m", "sh", "-c", f'mount --bind -o ro "{where}" "{where}" && exec "$@"', "sh", *argv]
    before = attack.kept.read_bytes() if attack.kept else None
    stdout = open(attack.stdout, "wb") if attack.stdout else subprocess.PIPE  # noqa: SIM115
    try:
        result = subprocess.run(
            argv,
            cwd=cwd,
            env=env,
            stdout=stdout,
            stderr=subprocess.PIPE,
            timeout=TIMEOUT,
            preexec_fn=no_room if attack.disk == "full" else limit_memory,
        )
    except subprocess.TimeoutExpired:
        return Outcome(kind, how, str(path), command, "hang", "")
    finally:
        if attack.stdout:
            stdout.close()
    stderr = result.stderr.decode("utf-8", "replace")
    out = (result.stdout or b"").decode("utf-8", "replace")
    named = str(path) if attack.named is None else attack.named
    lines = stderr.splitlines()
    said = all(not CONTROL.search(line) and len(line) <= LONGEST_LINE for line in lines)  # no raw control, short
    one_line = len(lines) == 1 and stderr.endswith("\n") and said
    verdict_line = command[0] == "check" and result.returncode == 1 and not stderr  # "illegal position"
    if "Traceback" in stderr or result.returncode not in (0, 1, 2):
        verdict = "traceback"
    elif attack.kept is not None and attack.kept.read_bytes() != before:
        verdict = "unclear"  # a refused write that changed the file (half of it, or all)
    elif attack.unit and result.returncode == 0:
        verdict = "accepted" if said else "unclear"  # the unit went on, each failure said in a line
    elif result.returncode == 0 or verdict_line:
        raw = CONTROL.search(out) or CONTROL.search(stderr) or FAKED.search(out) or FAKED.search(stderr)
        verdict = "unescaped" if raw else "accepted"
    elif result.returncode != 2:
        verdict = "traceback"
    elif one_line and named_in(named, stderr) and not out and not FAKED.search(stderr):
        verdict = "clear"
    else:
        verdict = "unclear"
    return Outcome(kind, how, str(path), command, verdict, stderr[-2000:])


def named_in(named: str, stderr: str) -> bool:
    """Whether the line names the value at fault, as the usage names it in the table's language (``SQUARE`` is
    « CASE » in French)."""
    from unit.calculator.commands import place

    return any(place(named, language) in stderr for language in ("fr", "en"))


BIG = "1" + "0" * 5000  # past int()'s 4,300 digits
EVIL_NAME = "Bob\nMALLORY"


def can_mount_read_only() -> bool:
    """Whether this machine lets a process bind-mount a folder read-only in a mount namespace of its own."""
    with tempfile.TemporaryDirectory(prefix="hostile-ro-") as folder:
        probe = f'mount --bind -o ro "{folder}" "{folder}" && ! touch "{folder}/x" 2>/dev/null'
        try:
            return subprocess.run(["unshare", "-m", "sh", "-c", probe], capture_output=True, timeout=10).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            return False


def argument_attacks(folder: Path, busy_port: int) -> list[tuple[str, str, Path, list[str], Attack]]:
    """The command line's attacks (the module's docstring): (kind, how, the file or flag, command, attack); each
    attack on a game file has a copy of its own in ``folder``."""
    jobs: list[tuple[str, str, Path, list[str], Attack]] = []
    n = 0

    def game(example: Path) -> Path:
        nonlocal n
        n += 1
        own = folder / f"attack-{n:03d}"
        own.mkdir()
        for edition in EXAMPLES.glob("city-example.yaml"):
            shutil.copy(edition, own / edition.name)
        shutil.copy(example, own / example.name)
        return own / example.name

    def add(how: str, command: list[str], named: str, **attack) -> None:
        jobs.append(("argument", how, Path(named), command, Attack(named=named, **attack)))

    classic, city = str(CLASSIC_GAME), str(EXAMPLES / "city-game.yaml")
    add("huge amount", ["rent", "--card", f"{BIG} 1 1 1 1 1 1 1 1"], "--card")
    add("huge amount", ["pay", str(game(CLASSIC_GAME)), "Bob", "Léa", BIG], "AMOUNT")
    add("huge amount", ["buy", str(game(EXAMPLES / "city-game.yaml")), "Alice", "Opéra", "--price", f"{BIG}M"], "price")
    add("huge amount", ["trade", str(game(CLASSIC_GAME)), "Bob", "Léa", "--price", f"1,{BIG}k"], "price")
    add("huge count", ["undo", str(game(CLASSIC_GAME)), BIG], "N")
    add("huge count", ["rent", classic, "Gare du Nord", "--dice", BIG], "--dice")
    add("huge count", ["rent", "--card", "1 2 3 4 5 6 7 8 9", "--residential", BIG], "--residential")
    add("newline in a name", ["pay", str(game(CLASSIC_GAME)), EVIL_NAME, "Léa", "10"], "PAYER")
    add("newline in a name", ["rent", classic, EVIL_NAME], "SQUARE")
    add("newline in a name", ["game", "new", "classic-fr", "--players", f"{EVIL_NAME},Léa"], "-")
    add("port out of range", ["serve", "--port", "99999"], "--port")
    add("port out of range", ["serve", "--port", "-1"], "--port")
    add("port out of range", ["serve", "--port", BIG], "--port")
    add("port in use", ["serve", "--host", "127.0.0.1", "--port", str(busy_port)], "--port")
    add("not this machine", ["serve", "--host", "192.0.2.1", "--port", str(busy_port)], "--host")
    add("not this machine", ["serve", "--host", "nowhere.invalid", "--port", str(busy_port)], "--host")
    add("not this machine", ["serve", "--host", "a\nMALLORY", "--port", str(busy_port)], "--host")
    readers = [
        ["fortune", classic],
        ["check", classic],
        ["history", classic],
        ["rent", classic, "Rue de la Paix"],
        ["salary", city, "Alice"],
        ["board", "classic-fr"],
        ["edition", "template", "city"],
        ["game", "new", "classic-fr", "--players", "A,B"],
        ["simulate", str(DEMO)],
    ]
    for command in readers:
        add("stdout on /dev/full", command, "stdout", stdout="/dev/full")
    disks = ["full", "read-only"] if can_mount_read_only() else ["full"]
    for disk in disks:
        for verb, example, rest in [
            ("pay", CLASSIC_GAME, ["Bob", "Léa", "10"]),
            ("lift", CLASSIC_GAME, ["Rue Lecourbe"]),
            ("trade", CLASSIC_GAME, ["Bob", "Léa", "Gare du Nord", "--price", "10"]),
            ("out", CLASSIC_GAME, ["Malik", "--to", "Léa"]),
            ("build", EXAMPLES / "city-game.yaml", ["Docks", "--residential", "1"]),
            ("tax", EXAMPLES / "city-game.yaml", ["Alice", "--pay"]),
            ("salary", EXAMPLES / "city-game.yaml", ["Alice", "--pay"]),
        ]:
            path = game(example)
            add(f"{disk} disk", [verb, str(path), *rest], str(path), disk=disk, folder=path.parent, kept=path)
        state = folder / f"state-{disk}"
        state.mkdir()
        script = folder / f"settings-{disk}.yaml"  # the settings menu changed, a game started: every save tried
        script.write_text(
            "until: 4\nevents:\n  - {at: 0.1, hold: auction, seconds: 2.2}\n  - {at: 2.5, press: build}\n"
            "  - {at: 2.8, press: power}\n  - {at: 3.1, press: power}\n  - {at: 3.4, press: auction}\n"
        )
        run = ["run", "--backend", "headless", "--script", str(script), "--state-dir", str(state)]
        add(f"{disk} disk", run, str(state), disk=disk, folder=state, unit=True)  # the saves, settings.json
        trace = str(state / "trace.jsonl")  # on a full disk: dropped with one line; read-only: refused at start
        add(f"{disk} disk", [*run, "--trace", trace], trace, disk=disk, folder=state, unit=True)
    return jobs


def inputs(folder: Path, count: int, seed: int, special: bool = True) -> list[tuple[str, str, Path]]:
    """``count`` mutated files per kind, plus the special files: (kind, mutation, path)."""
    rng = random.Random(seed)
    made = []
    for kind, seeds in SEEDS.items():
        texts = [(p.name, without_comments(p.read_bytes())) for p in seeds]
        for n in range(count):
            name, text = rng.choice(texts)
            mutation = MUTATIONS[n % len(MUTATIONS)]
            path = folder / f"{kind}-{n:04d}-{mutation.__name__}-{name}"
            path.write_bytes(mutation(text, rng))
            made.append((kind, mutation.__name__, path))
    for kind in SPECIAL_FILES if special else ():
        made.append(("any", kind, special_file(folder, kind)))
    return made


def hostile_run(
    count: int = 40,
    seed: int = 15,
    workers: int | None = None,
    keep: Path | None = None,
    special: bool = True,
    arguments: bool = True,
) -> dict:
    """Make the inputs, run every command on each (and, with ``arguments``, the command line's attacks), return
    the counts and the failures."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="hostile-") as name:
        folder = Path(name)
        for example in EXAMPLES.glob("*.yaml"):  # game files name their edition next to them
            shutil.copy(example, folder / example.name)
        script = folder / "tiny-script.yaml"
        script.write_text("until: 0.2\n")
        jobs: list[tuple[str, str, Path, list[str], Attack | None]] = []
        for kind, how, path in inputs(folder, count, seed, special):
            kinds = list(SEEDS) if kind == "any" else [kind]
            for k in kinds:
                jobs += [(k, how, path, command, None) for command in commands(k, str(path), str(script))]
        busy = socket.create_server(("127.0.0.1", 0))  # a port in use, for serve
        if arguments:
            jobs += argument_attacks(folder, busy.getsockname()[1])
        workers = workers or min(8, os.cpu_count() or 2)
        with busy, concurrent.futures.ThreadPoolExecutor(workers) as pool:
            outcomes = list(pool.map(lambda job: run_one(*job[:4], cwd=folder, attack=job[4]), jobs))
        failures = [o for o in outcomes if o.verdict not in ("clear", "accepted")]
        if keep is not None and failures:
            keep.mkdir(parents=True, exist_ok=True)
            for o in failures:
                source = Path(o.path)
                if source.is_file() and not source.is_symlink():
                    shutil.copy(source, keep / source.name)
            (keep / "failures.json").write_text(json.dumps([o.__dict__ for o in failures], indent=1))
    counts = {v: sum(1 for o in outcomes if o.verdict == v) for v in VERDICTS}
    files = len({o.path for o in outcomes if o.kind != "argument"})
    return {
        "files": files,
        "attacks": sum(1 for o in outcomes if o.kind == "argument"),  # the command line's, the outputs', the disks'
        "runs": len(outcomes),
        **counts,
        "seconds": round(time.monotonic() - started, 1),
        "failures": [o.__dict__ for o in failures],
    }


# --- the web service under attack -----------------------------------------------------------------------

SLOW = 300
STREAMS = 200
PHONE_PAUSE = 0.05


def stranger(n: int) -> str:
    """The n-th of the attacker's loopback addresses (127.0.0.2 and up: all this machine on Linux)."""
    return f"127.0.{(n + 2) // 250}.{(n + 2) % 250 or 250}"


def attacker_addresses(many: bool) -> tuple[list[str], list[str]]:
    """Where the attacker's slow connections and its live streams come from: all from one address, or each
    from its own (500 addresses)."""
    if not many:
        return [stranger(0)] * SLOW, [stranger(0)] * STREAMS
    return [stranger(n) for n in range(SLOW)], [stranger(SLOW + n) for n in range(STREAMS)]


class Attacker:
    """Slow connections and live streams held open from the given addresses, reopened when the server closes
    them, on an event loop of their own (a thread), until :meth:`stop`."""

    def __init__(self, port: int, slow: list[str], streams: list[str]):
        import asyncio
        import threading

        self.port, self.slow, self.streams = port, slow, streams
        self.closed_by_server = 0  # slow connections the server closed (its head deadline, or a place taken back)
        self.refused = 0  # streams answered 429/503
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def __enter__(self) -> Attacker:
        import asyncio

        self.thread.start()
        self.tasks = [asyncio.run_coroutine_threadsafe(self.hold_slow(a), self.loop) for a in self.slow]
        self.tasks += [asyncio.run_coroutine_threadsafe(self.hold_stream(a), self.loop) for a in self.streams]
        time.sleep(1.0)  # every connection made before the phone comes
        return self

    def __exit__(self, *exc) -> None:
        import asyncio

        async def cancel_all() -> None:  # on the loop: each connection closed while the loop still runs
            tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await asyncio.sleep(0.1)  # the transports' connection_lost callbacks

        asyncio.run_coroutine_threadsafe(cancel_all(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()

    async def hold_slow(self, source: str) -> None:
        import asyncio

        while True:
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port, local_addr=(source, 0))
            except OSError:
                await asyncio.sleep(0.1)
                continue
            writer.write(b"GET / HT")  # and never more
            try:
                await reader.read()
                self.closed_by_server += 1
            except OSError:
                self.closed_by_server += 1
            finally:
                writer.close()

    async def hold_stream(self, source: str) -> None:
        import asyncio

        while True:
            writer = None
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port, local_addr=(source, 0))
                writer.write(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n\r\n".encode())
                first = await reader.read(4096)
                if not first.startswith(b"HTTP/1.1 200"):
                    self.refused += 1
                while await reader.read(65536):
                    pass
            except OSError:
                pass
            finally:
                if writer is not None:
                    writer.close()  # also when cancelled: no stream left held after the attack
            await asyncio.sleep(1.0)  # EventSource's retry


def phone(port: int, seconds: float) -> dict:
    """The live page loaded every 50 ms for ``seconds``, a new connection each time: its figures in ms."""
    import http.client

    from harness import percentile

    times, failed = [], 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        began = time.perf_counter()
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", "/", headers={"Connection": "close"})
            response = conn.getresponse()
            response.read()
            conn.close()
            ok = response.status == 200
        except OSError:
            ok = False
        if ok:
            times.append((time.perf_counter() - began) * 1000)
        else:
            failed += 1
        time.sleep(PHONE_PAUSE)
    return {
        "loads": len(times) + failed,
        "failed": failed,
        "p50_ms": round(percentile(times, 50), 1) if times else None,
        "p99_ms": round(percentile(times, 99), 1) if times else None,
        "max_ms": round(max(times), 1) if times else None,
    }


def largest_edition(folder: Path) -> None:
    """``big.edition.yaml``: the largest City edition the loader allows (40 districts, long names and amounts)."""
    from unit.calculator.edition import MAX_DISTRICTS

    lines = ["game: city", f"name: {'N' * 40}", "go_salary: 2M", "industry_tax: 1M", "hazards: {prison: 4}"]
    lines.append("groups:")
    for g in range(MAX_DISTRICTS // 4):
        lines += [f"  - name: {'g' * 38}{g:02d}", "    skyscraper_cost: 1234567", "    districts:"]
        for d in range(4):
            rents = ", ".join(["1234567"] * 9)
            lines.append(
                f"      - {{name: {'d' * 36}{g:02d}-{d}, price: 1234567, residential_cost: 1234567, "
                f"industrial_cost: 1234567, rents: [{rents}]}}"
            )
    (folder / "big.edition.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def card_checks(folder: Path, requests: int, limit, pause: float = 0.0) -> dict:
    """The server time of a card check with 14 wrong fields on ``big.edition.yaml`` (web_editions' way)."""
    import web_editions
    from web_calc import cpu_ms, figures, start

    process, port = start(folder, limit)
    try:
        headers, right = web_editions.session(port)
        amounts = (*web_editions.AMOUNTS, *(f"rent{j}" for j in range(9)))
        wrong = right | dict.fromkeys(amounts, "-1") | {"name": ""}
        web_editions.timed_checks(port, headers, wrong, 3, pause)  # warm-up
        before = cpu_ms(process.pid)
        times = web_editions.timed_checks(port, headers, wrong, requests, pause)
        out = figures(times, cpu_ms(process.pid) - before)
        return {k: round(v, 2) if isinstance(v, float) else v for k, v in out.items()}
    finally:
        process.terminate()
        process.wait(10)


def web_attacks(seconds: float = 15.0, checks: int = 100, limited_checks: int = 30, timing: bool = True) -> dict:
    """The phone's page in each phase, the card check's server time, and (``timing``) the auction end's lateness
    in a real unit beside its web service, quiet then under the attack (see the module's docstring)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from cpulimit import CpuLimit
    from web_calc import start

    out: dict = {}
    with tempfile.TemporaryDirectory(prefix="web-attacks-") as name:
        folder = Path(name)
        process, port = start(folder, None)
        try:
            out["quiet"] = phone(port, seconds)
            for phase, many in (("one address", False), ("many addresses", True)):
                with Attacker(port, *attacker_addresses(many)) as attacker:
                    out[phase] = phone(port, seconds)
                out[phase] |= {"closed_by_server": attacker.closed_by_server, "streams_refused": attacker.refused}
                time.sleep(1.0)
        finally:
            process.terminate()
            process.wait(10)
        largest_edition(folder)
        out["card_check"] = card_checks(folder, checks, None)
        try:
            with CpuLimit(10) as limit:
                out["card_check_limited"] = card_checks(folder, limited_checks, limit, 0.25) | {
                    "limit": limit.describe()
                }
        except OSError as error:
            out["card_check_limited"] = {"limit": f"no CPU limit possible here ({error})"}
    if timing:
        out["timing"] = {"one address": web_timing_one_address(), "many addresses": web_timing_many_addresses()}
    return out


# --- every route of the phone companion with hostile values (issue 28, item 6) -------------------------------

#: What an adversary types or forges in a query, a form, a path: numbers past int()'s 4,300 digits, digits that
#: ``str.isdigit`` takes and ``int`` does not, control characters and escape codes, paths, markup, the empty and
#: the enormous.
ODD = [
    "",
    " ",
    "0",
    "-1",
    "1" * 5000,
    "9" * 19,
    "1" + "0" * 4300,
    "²",
    "١٢",
    "１２",
    "1e400",
    "nan",
    "-inf",
    "-0",
    "0x1f",
    "1_000",
    "1\n",
    "\x00",
    "\x1b[2J",
    "\u202e",
    "\r\nSet-Cookie: x=1",
    "a" * 3000,
    "../../etc/passwd",
    "/dev/zero",
    "%00",
    "<csrf>",
    "<script>x</script>",
    "'",
    '"',
    "{{ 7*7 }}",
    "Bob\nMALLORY",
    "\U0001f3b2",
    "null",
    "[]",
    "{}",
    "true",
    "1,5M",
    "600k",
    "1" + "0" * 5000 + "M",
    "-5M",
    "to:0",
    "from:bank",
    "to:" + "9" * 5000,
    "tax:" + "x" * 200,
    "residential=" + "9" * 5000,
    "kv=",
    "bank",
    "=",
    "&",
    "#",
    "?",
]
#: The values a page really sends for some fields: a request made of these reaches past the first check.
REAL = {
    "action": ["square", "rent", "auction", "buy", "player", "transfer", "out", "undo", "drop", "dismiss", "cash"]
    + ["tower", "exemption", "set", "give"],
    "op": ["residential", "industrial", "skyscraper", "stadium", "tower", "house", "hotel", "sell_one", "sell_all"]
    + ["hazard", "mortgage", "lift", "salary", "tax", "tax:Impôts sur le revenu", "fine", "auction"],
    "player": ["0", "1", "2", "3"],
    "payer": ["0", "1"],
    "exempt": ["0", "1"],
    "creditor": ["bank", "0", "1"],
    "square": ["Docks", "Opéra", "Port Sud", "Gare", "Rue de la Paix", "Gare du Nord"],
    "to": ["to:0", "to:1", "from:bank", "to:bank"],
    "amount": ["600k", "1M", "1,5M", "200"],
    "price": ["2,4M", "100"],
    "note": ["x"],
    "count": ["1", "2", "3"],
    "confirm": ["1"],
    "sale": ["1", "2"],
    "value": ["1M", "Eve", "1", "0", "Docks"],
    "key": ["residential", "industrial", "hazard", "bonus", "mortgaged", "stadium", "hotel", "houses"],
    "kv": ["residential=1", "industrial=2", "skyscraper=1", "hotel=1"],
    "variant": ["timed", "quick"],
    "anchor": ["p0", "h-Docks"],
    "back": ["rent"],
    "dice": ["7", "12"],
    "edition": ["city-example.yaml", "ville.edition.yaml", "classic-fr", "europe-1991"],
    "players": ["Alice, Bruno", "A"],
    "title": ["Soirée", "Ma Ville"],
    "name": ["ville", "soiree", "Rue Neuve"],
    "n": ["0", "1"],
    "saved": ["0"],
    "check": ["1"],
    "auto": ["1"],
    "group": ["rouge", "bleu"],
    "done": ["1", "2"],
    "undone": ["1"],
    "history": ["all"],
    "q": ["doc"],
    "big": ["1"],
    "m": ["saved", "deleted", "paired", "shown"],
    "lang": ["fr", "en"],
    "file": ["x.yaml"],
    "code": ["123456"],
    "button": ["power", "auction"],
    "carried_from": ["rouge"],
    "for": ["rent", "buy", "build", "salary", "tax", "hazard"],
    "district": ["Docks", "Opéra", "Rue Neuve"],
    "new_group": ["violet"],
}
AMOUNT_FIELDS = ["price", "residential_cost", "industrial_cost", "skyscraper_cost", "starting_cash", "go_salary"]
AMOUNT_FIELDS += ["industry_tax", "prison", "dump", "sewage_plant", "power_station"] + [f"rent{j}" for j in range(9)]
for _field in AMOUNT_FIELDS:
    REAL.setdefault(_field, ["1M", "200k", "4"])
#: Path parameters: the files the run starts with (a route attack's folder, :func:`route_folder`), and what else a
#: path can name.
PATH_VALUES = {
    "/games/{name}": ["ville", "classique"],
    "/editions/{name}": ["ville", "classic-fr", "europe-1991"],
    "{kind}": ["city", "europe-1991"],
    "{path}": ["style.css", "app.js", "icon.svg", "../app.py", "..%2f..%2fapp.py", "%00"],
}
CARD = ["name", "group", "price", "residential_cost", "industrial_cost", "skyscraper_cost"] + [
    f"rent{j}" for j in range(9)
]
#: What each route reads (unit/web/*.py): its query's fields for a GET, its form's for a POST. A request is made of
#: these, now and then with one more field of another route's.
READS = {
    ("GET", "/remote"): ["m"],
    ("GET", "/settings"): ["m"],
    ("GET", "/games/{name}"): ["done", "undone", "history", "variant"],
    ("GET", "/games/{name}/rent"): ["square", "dice", "q"],
    ("GET", "/games/{name}/fortunes"): ["variant", "big"],
    ("GET", "/games/{name}/check"): ["variant"],
    ("GET", "/editions/{name}"): ["m"],
    ("GET", "/editions/{name}/card"): ["n", "saved"],
    ("POST", "/editions/upload"): ["name", "file"],
    ("POST", "/press"): ["button", "action"],
    ("POST", "/pair"): ["code"],
    ("POST", "/settings"): ["game.minutes", "auction.seconds", "language", "buzzer.volume", "display.brightness"],
    ("POST", "/games"): ["title", "name", "edition", "players"],
    ("POST", "/games/{name}"): ["action", "player", "value", "square", "key", "kv", "variant", "anchor"],
    ("POST", "/games/{name}/bank"): ["action", "op", "player", "square", "to", "amount", "note", "price", "sale"]
    + ["count", "confirm", "dice", "exempt", "payer", "creditor", "variant", "anchor", "back"],
    ("POST", "/editions/new"): ["title", "name"],
    ("POST", "/editions/{name}/card"): [*CARD, "n", "check", "auto", "carried_from"],
    ("POST", "/editions/{name}/values"): ["name", "starting_cash", "go_salary", "industry_tax", "prison", "dump"]
    + ["sewage_plant", "power_station", "check"],
    ("POST", "/editions/{name}/card/delete"): ["n"],
    ("GET", "/games/{name}/card"): ["for", "district", "player", "payer", "price", "sale", "back", "saved"],
    ("POST", "/games/{name}/card"): [*CARD, "new_group", "go_salary", "industry_tax", "check", "auto"],
}
#: What a POST reads from its address too (the card the bank asks for: which, and for what).
POST_QUERY = {"/games/{name}/card": "for=rent&district=Docks&payer=1"}
#: Edition files a phone may upload: one the loader reads, and what it must refuse in one line.
UPLOADS = [
    (EXAMPLES / "city-example.yaml").read_bytes(),
    b"game: city\nname: [oops\n",
    b"\x89PNG\r\n\x1a\n\0",
    b"game: city\nname: " + b"9" * 5000 + b"\n",
    b"&a [*a, *a, *a]\n",
    b"",
]
VERSIONED = (
    "/games/{name}/card",
    "/games/{name}",
    "/games/{name}/bank",
    "/editions/{name}/card",
    "/editions/{name}/values",
)


@dataclass
class WebRequest:
    """One request of the route attack: the ``path`` with its query, a form (None: no body), headers."""

    method: str
    path: str
    form: dict[str, str] | None
    headers: dict[str, str]
    body: bytes | None = None  # a body that is not a form: the edition file uploaded

    def label(self) -> str:
        shown = lambda text: text if len(text) < 60 else f"{text[:40]}...({len(text)} chars)"  # noqa: E731
        form = {k: shown(v) for k, v in (self.form or {}).items() if k != "csrf"}
        return f"{self.method} {shown(self.path)} {form if self.form is not None else ''}".strip()


def route_table() -> list[tuple[str, str]]:
    """(method, path template) of every route the service answers, read from its own route table (but the live
    stream, which never ends: ``--web`` attacks it)."""
    from starlette.routing import Mount, Route

    from unit.web.app import routes

    found = []
    for route in routes():
        if isinstance(route, Route) and route.path == "/events":
            continue  # the live stream never ends: the web attack's (--web), not a request that is answered
        if isinstance(route, Route):
            found += [(method, route.path) for method in sorted(route.methods or ()) if method != "HEAD"]
        elif isinstance(route, Mount):
            found.append(("GET", route.path + "/{path}"))
    return found


#: What a number can be made of, for the fields that carry one: past int()'s limit, digits int() refuses.
NUMBERS = ["1" * 5000, "1" + "0" * 4300, "9" * 19, "0" * 30 + "1", "²", "١٢", "１２", "-1", "1e400", "nan", " 1", "1\n"]
NUMBER_FIELDS = {"done", "undone", "n", "saved", "player", "payer", "exempt", "count", "sale", "dice", "code", "big"}


def a_value(rng: random.Random, field: str) -> str:
    """A value for ``field``: mostly a real one when the pages send one, else something odd (for a number, most
    often an odd number)."""
    real = REAL.get(field)
    if real and rng.random() < 0.6:
        return rng.choice(real)
    return rng.choice(NUMBERS) if field in NUMBER_FIELDS and rng.random() < 0.7 else rng.choice(ODD)


def route_requests(rng: random.Random, count: int) -> list[WebRequest]:
    """``count`` requests, each to a route of the service's table: its path, its query (a GET) or form (a POST) made
    of the fields it reads, real values and odd ones, now and then a field it does not read, an odd header or a
    forged cookie. The session's token and the page's version are ``<csrf>`` and ``<version>`` (the runner fills
    them in, so most forms reach their work), now and then odd instead."""
    from urllib.parse import quote, urlencode

    table = route_table()
    every_field = sorted({field for fields in READS.values() for field in fields} | set(REAL))
    out = []
    for _ in range(count):
        method, template = rng.choice(table)
        path = template
        for param in ("{name}", "{kind}", "{path}"):
            if param in path:
                real = PATH_VALUES.get(template.split(param)[0] + param, PATH_VALUES.get(param, ["x"]))
                value = rng.choice(real) if rng.random() < 0.8 else rng.choice(ODD) or "x"
                path = path.replace(param, quote(value, safe="%/" if param == "{path}" else "%"))
        reads = READS.get((method, template), [])
        picked = [f for f in reads if rng.random() < 0.6]
        if rng.random() < 0.3:
            picked.append(rng.choice(every_field))
        values = {f: a_value(rng, f) for f in picked} | ({"lang": a_value(rng, "lang")} if rng.random() < 0.1 else {})
        form, body = None, None
        if template == "/editions/upload":  # the file is the body; its name and the token elsewhere
            path += "?" + urlencode(values)
            body = rng.choice(UPLOADS)
            values = {}
        elif method == "POST":
            form = values
            if template in POST_QUERY:
                path += "?" + POST_QUERY[template]
            if template in VERSIONED:
                form["version"] = "<version>" if rng.random() < 0.9 else rng.choice(ODD)
            form["csrf"] = "<csrf>" if rng.random() < 0.95 else rng.choice(ODD)
        elif values:
            path += "?" + urlencode(values)
        headers = {}
        if rng.random() < 0.2:
            headers["accept"] = "application/json"
        if rng.random() < 0.1:
            headers["range"] = rng.choice(["bytes=0-" + "9" * 5000, "bytes=" + "1" * 30 + "-", "bytes=-²", "bytes=5-1"])
        if rng.random() < 0.03:
            headers["cookie"] = rng.choice(
                ["mc_session=" + "a" * 3000, "mc_session=x.y.z", "mc_lang=\x1b", "mc_game=.."]
            )
        if body is not None:
            headers["x-csrf-token"] = "<csrf>" if rng.random() < 0.95 else rng.choice(ODD)
        out.append(WebRequest(method, path, form, headers, body))
    return out


#: What the sweep gives every field of every route, one at a time: the odd numbers, and text no page sends.
SWEEP = [*NUMBERS, "", "\x00", "\x1b[2J", "Bob\nMALLORY", "\u202e", "a" * 3000, "<script>x</script>"]


def route_sweep(rng: random.Random) -> list[WebRequest]:
    """Every field every route reads given each :data:`SWEEP` value in turn, the route's other fields real (its
    path's names the run's files): so that no field is left to chance. A route that reads nothing gets each value
    in a field it does not read."""
    from urllib.parse import quote, urlencode

    out = []
    for method, template in route_table():
        path = template
        for param in ("{name}", "{kind}", "{path}"):
            if param in path:
                real = PATH_VALUES.get(template.split(param)[0] + param, PATH_VALUES.get(param, ["x"]))
                path = path.replace(param, quote(real[0], safe="%/"))
        reads = READS.get((method, template)) or ["x"]
        for field in reads:
            for odd in SWEEP:
                values = {f: rng.choice(REAL.get(f, ["1"])) for f in reads} | {field: odd}
                if template == "/editions/upload":
                    out.append(
                        WebRequest(method, f"{path}?{urlencode(values)}", None, {"x-csrf-token": "<csrf>"}, UPLOADS[0])
                    )
                elif method == "POST":
                    versioned = {"version": "<version>"} if template in VERSIONED else {}
                    asked = f"{path}?{POST_QUERY[template]}" if template in POST_QUERY else path
                    out.append(WebRequest(method, asked, values | versioned | {"csrf": "<csrf>"}, {}))
                else:
                    out.append(WebRequest(method, f"{path}?{urlencode(values)}", None, {}))
    return out


def route_folder(folder: Path) -> None:
    """The calculator's files a route attack starts with: a City edition and two games (the documentation's)."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(EXAMPLES / "city-example.yaml", folder / "city-example.yaml")  # as the example game names it
    shutil.copy(EXAMPLES / "city-example.yaml", folder / "ville.edition.yaml")
    game = (EXAMPLES / "city-game.yaml").read_text(encoding="utf-8")  # its edition: the folder's own, as a phone's
    (folder / "ville.game.yaml").write_text(game.replace("edition: city-example.yaml", "edition: ville.edition.yaml"))
    shutil.copy(CLASSIC_GAME, folder / "classique.game.yaml")


def referrer(path: str) -> str:
    """The page a form posted to ``path`` comes from, whose version it carries."""
    if path.startswith("/games/") and path.split("?")[0].endswith("/card"):
        return path  # the card the bank asks for: the same address, its question included
    path = path.split("?")[0]
    if path.startswith("/editions/") and path.count("/") >= 3:
        return "/".join(path.split("/")[:3]) + "/card"
    return path.removesuffix("/bank")


def filled(request: WebRequest, csrf: str, get: Callable[[str], tuple[int, str]]) -> WebRequest:
    """The request with the session's token and the version the page at its path shows now (``get``: a GET)."""
    if request.headers.get("x-csrf-token") == "<csrf>":
        request = WebRequest(request.method, request.path, None, request.headers | {"x-csrf-token": csrf}, request.body)
    if request.form is None:
        return request
    form = dict(request.form)
    if form.get("csrf") == "<csrf>":
        form["csrf"] = csrf
    if form.get("version") == "<version>":
        _status, page = get(referrer(request.path))
        found = re.search(r'name="version" value="([^"]*)"', page)
        form["version"] = found.group(1) if found else ""
    return WebRequest(request.method, request.path, form, request.headers)


class Tally:
    """What a route attack saw: each status's count, the failures (an answer of 500, a traceback in an answer),
    and how long the slowest answer took and how many took over a second: figures for the benchmark, never a
    test's failure (a test does not assert on speed: docs/dev/principles.md)."""

    def __init__(self) -> None:
        self.statuses: dict[int, int] = {}
        self.failures: list[dict] = []
        self.slowest = 0.0
        self.over_a_second = 0

    def count(self, request: WebRequest, status: int, body: str, seconds: float) -> None:
        self.statuses[status] = self.statuses.get(status, 0) + 1
        self.slowest = max(self.slowest, seconds)
        self.over_a_second += seconds > 1.0
        if status >= 500 or "Traceback" in body:
            self.failures.append(
                {"request": request.label(), "status": status, "seconds": round(seconds, 3), "body": body[:300]}
            )

    def summary(self) -> dict:
        return {
            "requests": sum(self.statuses.values()),
            "statuses": dict(sorted(self.statuses.items())),
            "failures": self.failures,
            "slowest_ms": round(self.slowest * 1000, 1),
            "over_1s": self.over_a_second,
        }


def route_attacks_in_process(count: int = 300, seed: int = 28, box: bool = False, sweep: bool = True) -> dict:
    """The route attack on the application in this process (Starlette's test client): every answer's status, and
    the failures. ``box``: the box's service with no unit (every write refused, the pages that say so); else a
    laptop's (every form reaches its work)."""
    from starlette.testclient import TestClient

    from unit.web.app import create_app

    rng = random.Random(seed)
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="routes-") as name:
        data = Path(name) / "data"
        route_folder(data)
        before = {path.name: path.read_bytes() for path in data.iterdir()}
        app = create_app(Path(name) / "state" if box else None, "fr", data, box=box)
        with TestClient(app, base_url="http://box.local", raise_server_exceptions=False) as client:
            page = client.get("/remote")
            cookie = f"mc_session={page.cookies['mc_session']}"
            csrf = re.search(r'data-csrf="([^"]+)"', page.text).group(1)

            def send(request: WebRequest) -> tuple[int, str]:
                """The request with the session's cookie, or the one it forges, alone: no cookie is kept."""
                client.cookies.clear()
                headers = {"cookie": cookie} | request.headers
                raw = {k: v.encode("latin-1") for k, v in headers.items()}  # as a phone's bytes
                answer = client.request(
                    request.method,
                    request.path,
                    data=request.form,
                    content=request.body,
                    headers=raw,
                    follow_redirects=False,
                )
                return answer.status_code, answer.text

            for request in (route_sweep(rng) if sweep else []) + route_requests(rng, count):
                request = filled(request, csrf, lambda path: send(WebRequest("GET", path, None, {})))
                began = time.perf_counter()
                status, body = send(request)
                tally.count(request, status, body, time.perf_counter() - began)
        written = {path.name: path.read_bytes() for path in data.iterdir()} != before
    return tally.summary() | {"written": written}


def raw_request(port: int, request: WebRequest, cookie: str, extra: bytes = b"") -> tuple[int, str, float]:
    """One request on a connection of its own, written byte by byte as given (a forged Content-Length too): the
    status, the body, the seconds."""
    from urllib.parse import urlencode

    body = urlencode(request.form).encode() if request.form is not None else request.body or b""
    head = [f"{request.method} {request.path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close"]
    head += [f"{k}: {v}" for k, v in request.headers.items()]
    if "cookie" not in request.headers and cookie:
        head.append(f"Cookie: {cookie}")
    if request.method == "POST":
        kind = "application/x-www-form-urlencoded" if request.form is not None else "application/yaml"
        head += [f"Content-Type: {kind}", f"Origin: http://127.0.0.1:{port}"]
        if b"content-length" not in extra.lower():
            head.append(f"Content-Length: {len(body)}")
    data = "\r\n".join(head).encode("latin-1", "replace") + b"\r\n" + extra + b"\r\n" + body
    began = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    seconds = time.perf_counter() - began
    answer = b"".join(chunks)
    status_line = answer.split(b"\r\n", 1)[0].split()
    status = int(status_line[1]) if len(status_line) > 1 and status_line[1].isdigit() else 0
    return status, answer.partition(b"\r\n\r\n")[2].decode("utf-8", "replace"), seconds


#: Headers only a raw request can forge: a Content-Length past int()'s limit, or made of a digit int() refuses.
FORGED = [b"Content-Length: " + b"1" * 5000 + b"\r\n", b"Content-Length: \xb2\r\n", b"Content-Length: -1\r\n"]


def route_attacks(count: int = 600, seed: int = 28) -> dict:
    """The route attack on ``monopoly-city serve`` as its own process (Nice=10), a laptop's (no unit: every form
    reaches its work) then the box's (``--state-dir`` with no unit: every write refused); each answer's status,
    the failures (a 500, a traceback in an answer), the slowest answer, and the tracebacks in its log."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from web_calc import free_port, until_serving

    started = time.monotonic()
    tally, tracebacks = Tally(), 0
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="routes-") as name:
        for mode in ("laptop", "box"):
            data, state = Path(name) / mode / "data", Path(name) / mode / "state"
            route_folder(data)
            port = free_port()
            command = [sys.executable, "-m", "unit", "serve", "--host", "127.0.0.1", "--port", str(port)]
            command += ["--data", str(data)] + (["--state-dir", str(state)] if mode == "box" else [])
            env = dict(os.environ, XDG_CONFIG_HOME=str(Path(name) / mode / "config"))  # no unit of this machine's
            log = Path(name) / f"{mode}.log"
            with open(log, "wb") as err:
                process = subprocess.Popen(
                    command, stdout=subprocess.DEVNULL, stderr=err, env=env, preexec_fn=lambda: os.nice(10)
                )
            try:
                until_serving(process, port, "/games")
                cookie, csrf = session(port)

                def get(path: str, cookie: str = cookie, port: int = port) -> tuple[int, str]:
                    status, body, _ = raw_request(port, WebRequest("GET", path, None, {}), cookie)
                    return status, body

                requests = route_sweep(rng) + route_requests(rng, count // 2)
                forged = [(r, rng.choice(FORGED)) for r in route_requests(rng, 12) if r.method == "POST"]
                for request, extra in [(r, b"") for r in requests] + forged:
                    request = filled(request, csrf, get)
                    status, body, seconds = raw_request(port, request, cookie, extra)
                    tally.count(request, status, body, seconds)
            finally:
                process.terminate()
                process.wait(10)
            said = log.read_text(encoding="utf-8", errors="replace")
            tracebacks += said.count("Traceback")
            if "Traceback" in said:
                tally.failures.append({"request": f"{mode}: the service's log", "log": said[-1500:]})
    return tally.summary() | {"log_tracebacks": tracebacks, "seconds": round(time.monotonic() - started, 1)}


def session(port: int) -> tuple[str, str]:
    """A visitor's session cookie and its CSRF token, from the Remote page."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    conn.request("GET", "/remote", headers={"Host": f"127.0.0.1:{port}"})
    answer = conn.getresponse()
    page = answer.read().decode()
    cookie = next(v.split(";")[0] for k, v in answer.getheaders() if k.lower() == "set-cookie" and "mc_session" in v)
    conn.close()
    return cookie, re.search(r'data-csrf="([^"]+)"', page).group(1)


# --- the unit's timing under each attack (issue 21): one run of a real unit, quiet, then attacked -------------

AUCTION_SECONDS = 2.0
AUCTION_GAP = 0.4  # from one auction's end to the next press
QUIET_AUCTIONS = 12
ATTACKED_AUCTIONS = 12
SETTLING_AUCTIONS = 5  # scheduled while the attack sets itself up: counted in neither phase
CROWD = """
import socket, sys, time
path, seconds = sys.argv[1], float(sys.argv[2])
held, attempts, failed = [], 0, 0
end = time.monotonic() + seconds
while time.monotonic() < end:
    if len(held) >= 1000:  # a thousand at once; then the oldest leaves as each newcomer comes
        held.pop(0).close()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(0.5)
    try:
        sock.connect(path)
        attempts += 1
        held.append(sock)
    except OSError:
        failed += 1
        sock.close()
print(attempts, failed, flush=True)
"""


@dataclass
class Box:
    """The unit under measure: its state folder, its web service's port, the pairing codes its journal showed
    (as they come), and when (``time.monotonic()``) its scripted auctions end."""

    state: Path
    port: int
    codes: list[str]
    ends_at: float

    def remaining(self) -> float:
        return max(1.0, self.ends_at - time.monotonic())


def auction_script(path: Path, auctions: int, seconds: float) -> float:
    """A scenario for ``run --script``: switched on, then ``auctions`` auctions of ``seconds`` back to back (each
    press ``AUCTION_GAP`` after the previous end); its length in seconds."""
    period = seconds + AUCTION_GAP
    events = ["  - {at: 0.5, press: power}"]
    events += [f"  - {{at: {1.0 + n * period:.3f}, press: auction}}" for n in range(auctions)]
    until = 1.0 + auctions * period + 1.0
    path.write_text(
        f"until: {until:.3f}\nconfig:\n  auction: {{seconds: {seconds}, warning_seconds: {seconds / 2}}}\n"
        "events:\n" + "\n".join(events) + "\n",
        encoding="utf-8",
    )
    return until


def read_trace(path: Path) -> list[dict]:
    """The complete lines of a JSON Lines trace, while it is being written."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return [json.loads(line) for line in text.split("\n")[:-1] if line.strip()]


def auction_ends(records: list[dict], seconds: float) -> list[float]:
    """How late each auction of a trace ended, in ms, in order: the ``sold`` sound's ``t`` against the countdown's
    start (the press's own time, ``t`` of the ``countdown`` state) plus ``seconds``. The trace's ``t`` is
    rounded to the millisecond, so each figure is within a millisecond."""
    late, start = [], None
    for record in records:
        if record.get("kind") == "state" and record.get("state") == "countdown":
            start = record["t"]
        elif record.get("kind") == "sound" and record.get("name") == "sold" and start is not None:
            late.append(round((record["t"] - start - seconds) * 1000, 3) + 0.0)  # never -0.0
            start = None
    return late


def lateness_figures(late: list[float]) -> dict:
    """p50, p99 and max of the auction ends' lateness (ms)."""
    from harness import percentile

    if not late:
        return {"auctions": 0}
    return {
        "auctions": len(late),
        "p50_ms": percentile(late, 50),
        "p99_ms": percentile(late, 99),
        "max_ms": max(late),
    }


def unit_timing(
    attack, quiet: int = QUIET_AUCTIONS, attacked: int = ATTACKED_AUCTIONS, seconds: float = AUCTION_SECONDS
) -> dict:
    """The auction end's lateness in one run of a real unit, quiet, then under ``attack``.

    The unit is ``monopoly-city run --backend headless`` on the real clock with a state folder (so its phone link,
    the socket, and its saves), playing back-to-back auctions from a script, its ``--trace`` on disk; its web
    service (``serve --state-dir``, Nice=10 as its systemd unit) runs beside it for the whole run: started and
    answering first, so that neither its start-up's load falls on the quiet auctions nor a slow start-up (a busy
    host) lets the script's auctions all end before the attack begins. Once ``quiet``
    auctions have ended, ``attack(box)`` (a context manager on a :class:`Box`, yielding a dict that it fills
    with its figures) starts; the auctions that start after it is under way are the attacked ones, until the
    script ends. Each end's lateness is read from the trace (:func:`auction_ends`).
    """
    import threading

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from harness import wait_until

    total = quiet + SETTLING_AUCTIONS + attacked
    with tempfile.TemporaryDirectory(prefix="unit-attack-") as name:
        folder = Path(name)
        state, script, trace = folder / "state", folder / "auctions.yaml", folder / "trace.jsonl"
        state.mkdir()
        until = auction_script(script, total, seconds)
        env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", GPIOZERO_PIN_FACTORY="mock")
        command = [sys.executable, "-m", "unit", "run", "--backend", "headless", "--lang", "en"]
        service, port = serve_unit(state)  # (it finds the unit's socket once there, as on the box)
        try:
            launched = time.monotonic()
            unit = subprocess.Popen(
                [*command, "--state-dir", str(state), "--script", str(script), "--trace", str(trace)],
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            codes: list[str] = []
            journal: list[str] = []

            def read_journal() -> None:
                for line in unit.stderr:
                    if m := re.search(r"pairing code for the phone: (\d+)", line):
                        codes.append(m.group(1))
                    else:
                        journal.append(line.rstrip("\n"))

            reader = threading.Thread(target=read_journal, daemon=True)
            reader.start()
            figures: dict = {}
            under_way = total
            try:
                wait_until(lambda: (state / "unit.sock").exists() or unit.poll() is not None, 30)
                box = Box(state, port, codes, launched + until + 1.0)
                wait_until(
                    lambda: len(auction_ends(read_trace(trace), seconds)) >= quiet or unit.poll() is not None, until
                )
                with attack(box) as figures:
                    under_way = sum(1 for r in read_trace(trace) if r.get("state") == "countdown")
                    unit.wait(box.remaining() + 30)
            finally:
                if unit.poll() is None:
                    unit.kill()
                    unit.wait()
        finally:
            service.terminate()
            service.wait(10)
        reader.join(5)
        unit.stderr.close()
        late = auction_ends(read_trace(trace), seconds)
    return {
        "quiet": lateness_figures(late[:quiet]),
        "attacked": lateness_figures(late[under_way:]),
        "unit_exit": unit.returncode,
        "unit_tracebacks": sum(1 for line in journal if line.startswith("Traceback")),
    } | figures


@contextlib.contextmanager
def held_connections(box: Box, many: bool):
    """The web attack on the unit's own web service: 300 slow connections and 200 live streams held (the --web
    attacker), from one address or from 500, until the unit's script ends. The attacker runs in a process of
    its own at nice 19: on a table it is another machine, and only the box's side of the attack is measured."""
    figures: dict = {}
    command = [sys.executable, __file__, "--hold", str(box.port), "many" if many else "one", f"{box.remaining():.1f}"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, preexec_fn=lambda: os.nice(19)) as attacker:
        assert attacker.stdout is not None
        attacker.stdout.readline()  # "holding": every connection made
        yield figures
        figures |= json.loads(attacker.communicate(timeout=box.remaining() + 60)[0])


def hold(port: int, many: bool, seconds: float) -> None:
    """(``--hold PORT one|many SECONDS``, run by :func:`held_connections`.) The attacker for ``seconds``; then
    its figures as JSON."""
    with Attacker(port, *attacker_addresses(many)) as attacker:
        print("holding", flush=True)
        time.sleep(seconds)
    print(json.dumps({"closed_by_server": attacker.closed_by_server, "streams_refused": attacker.refused}))


def web_timing_one_address() -> dict:
    """The auction end's lateness, quiet then under the web attack from one address."""
    return unit_timing(lambda box: held_connections(box, many=False))


def web_timing_many_addresses() -> dict:
    """The auction end's lateness, quiet then under the web attack from 500 addresses."""
    return unit_timing(lambda box: held_connections(box, many=True))


@contextlib.contextmanager
def socket_crowd(box: Box):
    """A thousand clients of the unit's socket at once from another process, the oldest replaced by a newcomer
    as fast as they connect, until the unit's script ends."""
    figures: dict = {}
    with subprocess.Popen(
        [sys.executable, "-c", CROWD, str(box.state / "unit.sock"), str(box.remaining())],
        stdout=subprocess.PIPE,
        text=True,
    ) as crowd:
        time.sleep(1.0)  # the crowd at the door: a thousand clients come within the first second
        yield figures
        attempts, failed = map(int, crowd.communicate(timeout=60)[0].split())
    figures |= {"connects": attempts, "connects_failed": failed}


def socket_attack() -> dict:
    """The auction end's lateness, quiet then with a thousand clients connecting to the unit's socket."""
    return unit_timing(socket_crowd)


class Visitor:
    """A phone or a stranger at one loopback address: its own session (cookie and CSRF token)."""

    def __init__(self, port: int, address: str):
        import http.client

        self.port, self.address = port, address
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(address, 0))
        conn.request("GET", "/remote", headers={"Host": f"127.0.0.1:{port}"})
        response = conn.getresponse()
        page = response.read().decode()
        conn.close()
        self.cookie = (response.getheader("set-cookie") or "").split(";")[0]
        self.csrf = re.search(r'data-csrf="([^"]+)"', page).group(1)

    def post(self, path: str, **fields: str) -> tuple[int, str]:
        """(status, where a 303 leads)."""
        import http.client
        from urllib.parse import urlencode

        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30, source_address=(self.address, 0))
        headers = {
            "Host": f"127.0.0.1:{self.port}",
            "Origin": f"http://127.0.0.1:{self.port}",
            "Cookie": self.cookie,
            "Content-Type": "application/x-www-form-urlencoded",
        }
        conn.request("POST", path, urlencode({"csrf": self.csrf, **fields}), headers)
        response = conn.getresponse()
        response.read()
        conn.close()
        return response.status, response.getheader("location") or ""


@contextlib.contextmanager
def pairing_strangers(box: Box, addresses: int = 20, bankers: int = 3):
    """Strangers from ``addresses`` loopback addresses asking the unit's web service for codes and typing wrong
    ones as fast as it answers (a new session every five tries), and meanwhile the banker (127.0.0.1) and then
    other players (127.0.2.x) who each ask for a code, read the codes the unit showed since and type them."""
    import threading
    from collections import Counter

    stop = threading.Event()
    statuses: Counter[str] = Counter()

    def stranger(address: str) -> None:
        rng = random.Random(address)
        while not stop.is_set():
            try:
                visitor = Visitor(box.port, address)
                statuses["request " + str(visitor.post("/pair/request")[0])] += 1
                for _ in range(5):
                    status, where = visitor.post("/pair", code=f"{rng.randrange(10**6):06d}")
                    statuses["try " + ("paired" if where.endswith("m=paired") else str(status))] += 1
            except (OSError, AttributeError):
                statuses["error"] += 1
                time.sleep(0.1)

    banker: list[dict] = []

    def phones() -> None:
        time.sleep(2.0)  # the strangers at it first
        for n in range(bankers):  # the banker's phone, then two players' (each its own address)
            address = "127.0.0.1" if n == 0 else f"127.0.2.{n}"
            try:
                banker.append(banker_pairs(box.port, box.codes, address))
            except (OSError, AttributeError) as error:
                banker.append({"paired": False, "tries": 0, "statuses": [], "error": str(error)})
            time.sleep(1.0)

    threads = [threading.Thread(target=stranger, args=(stranger_address(n),), daemon=True) for n in range(addresses)]
    threads.append(threading.Thread(target=phones, daemon=True))
    for thread in threads:
        thread.start()
    figures: dict = {}
    try:
        time.sleep(1.0)  # every stranger at it
        yield figures
    finally:
        stop.set()
        for thread in threads:
            thread.join(35)
    figures |= {"strangers": addresses, "statuses": dict(statuses), "banker": banker}


def serve_unit(state: Path) -> tuple[subprocess.Popen, int]:
    """``monopoly-city serve`` on the unit's state folder, at Nice=10 as its systemd unit: (process, port)."""

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from web_calc import free_port, until_serving

    port = free_port()
    command = [sys.executable, "-m", "unit", "serve", "--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen(
        [*command, "--state-dir", str(state)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=lambda: os.nice(10),
    )
    return until_serving(process, port, "/remote"), port


def stranger_address(n: int) -> str:
    return f"127.0.1.{n + 1}"


def banker_pairs(port: int, codes: list[str], address: str) -> dict:
    """The banker asks for a code and types the ones the unit showed since (the newest first, as the screen
    shows it): whether it paired, with how many tries, and every status it met."""
    shown = len(codes)
    banker = Visitor(port, address)
    asked, _ = banker.post("/pair/request")
    deadline = time.monotonic() + 5
    while len(codes) == shown and time.monotonic() < deadline:
        time.sleep(0.01)
    met = [asked]
    for code in reversed(codes[shown:]):
        status, where = banker.post("/pair", code=code)
        met.append(status)
        if where.endswith("m=paired"):
            return {"paired": True, "tries": len(met) - 1, "statuses": met}
    return {"paired": False, "tries": len(met) - 1, "statuses": met}


def pairing_attack() -> dict:
    """The auction end's lateness, quiet then while strangers attack the pairing, and how the banker fared."""
    return unit_timing(pairing_strangers)


EXTRA = {  # one attack each, beside --web: python benchmarks/hostile.py --attack NAME
    "pairing": pairing_attack,
    "socket-clients": socket_attack,
    "web-one-address": web_timing_one_address,
    "web-many-addresses": web_timing_many_addresses,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=40, help="mutated files per kind (default 40)")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--keep", type=Path, help="copy the inputs that failed here, with failures.json")
    parser.add_argument("--no-arguments", action="store_true", help="the files only: not the command line's attacks")
    parser.add_argument("--web", action="store_true", help="attack the web service instead (see above)")
    parser.add_argument("--seconds", type=float, default=15.0, help="--web: seconds of each phase (default 15)")
    parser.add_argument("--attack", choices=sorted(EXTRA), help="one more attack instead (see EXTRA)")
    parser.add_argument("--routes", action="store_true", help="every route of serve with hostile values instead")
    if sys.argv[1:2] == ["--hold"]:  # the web attacker of the timing measure, in its own process
        hold(int(sys.argv[2]), sys.argv[3] == "many", float(sys.argv[4]))
        return 0
    args = parser.parse_args()
    if args.attack:
        sys.path.insert(0, str(ROOT))
        print(json.dumps(EXTRA[args.attack](), indent=1))
        return 0
    if args.routes:
        sys.path.insert(0, str(ROOT))
        routes = route_attacks(args.count * 15, args.seed)
        print(json.dumps(routes, indent=1))
        return 0 if not routes["failures"] else 1
    if args.web:
        sys.path.insert(0, str(ROOT))
        print(json.dumps(web_attacks(args.seconds), indent=1))
        return 0
    result = hostile_run(args.count, args.seed, keep=args.keep, arguments=not args.no_arguments)
    for failure in result["failures"]:
        last = failure["stderr"].strip().splitlines()[-1:] or [""]
        print(f"{failure['verdict']:9} {failure['how']:18} {' '.join(failure['command'])[:120]!r}")
        print(f"          {last[0][:160]!r}")
    summary = {k: v for k, v in result.items() if k != "failures"}
    print(json.dumps(summary))
    return 0 if not result["failures"] else 1


if __name__ == "__main__":
    sys.exit(main())
