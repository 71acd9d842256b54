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

The goal is only ``clear`` and ``accepted``. ``python benchmarks/hostile.py [--count N] [--keep DIR]``
prints the counts and the inputs that failed (kept in DIR to look at); ``make soak`` runs it and
writes the counts into docs/reliability.md.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
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
    evil = rng.choice([b'"\\e[2J\\e[H', b'"\\e]0;pwned\\a', b'"\\u202e', b'"\\x9b2J', b'"\\u200b'])
    return text[: match.start()] + evil + match.group().strip().strip(b"\"'") + b'"' + text[match.end() :]


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


def run_one(kind: str, how: str, path: Path, command: list[str], cwd: Path) -> Outcome:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", GPIOZERO_PIN_FACTORY="mock")
    try:
        result = subprocess.run(
            [sys.executable, "-m", "unit", *command],
            cwd=cwd,
            env=env,
            capture_output=True,
            timeout=TIMEOUT,
            preexec_fn=limit_memory,
        )
    except subprocess.TimeoutExpired:
        return Outcome(kind, how, str(path), command, "hang", "")
    stderr = result.stderr.decode("utf-8", "replace")
    stdout = result.stdout.decode("utf-8", "replace")
    verdict_line = command[0] == "check" and result.returncode == 1 and not stderr  # "illegal position"
    if (result.returncode == 0 or verdict_line) and "Traceback" not in stderr:
        raw = CONTROL.search(stdout) or CONTROL.search(stderr)
        verdict = "unescaped" if raw else "accepted"
    elif result.returncode != 2 or "Traceback" in stderr:
        verdict = "traceback"
    elif stderr.count("\n") == 1 and stderr[:-1].isprintable() and str(path) in stderr and not result.stdout:
        verdict = "clear"
    else:
        verdict = "unclear"
    return Outcome(kind, how, str(path), command, verdict, stderr[-2000:])


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
    count: int = 40, seed: int = 15, workers: int | None = None, keep: Path | None = None, special: bool = True
) -> dict:
    """Make the inputs, run every command on each, return the counts and the failures."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="hostile-") as name:
        folder = Path(name)
        for example in EXAMPLES.glob("*.yaml"):  # game files name their edition next to them
            shutil.copy(example, folder / example.name)
        script = folder / "tiny-script.yaml"
        script.write_text("until: 0.2\n")
        jobs = []
        for kind, how, path in inputs(folder, count, seed, special):
            kinds = list(SEEDS) if kind == "any" else [kind]
            for k in kinds:
                jobs += [(k, how, path, command) for command in commands(k, str(path), str(script))]
        workers = workers or min(8, os.cpu_count() or 2)
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            outcomes = list(pool.map(lambda job: run_one(*job, cwd=folder), jobs))
        failures = [o for o in outcomes if o.verdict not in ("clear", "accepted")]
        if keep is not None and failures:
            keep.mkdir(parents=True, exist_ok=True)
            for o in failures:
                source = Path(o.path)
                if source.is_file() and not source.is_symlink():
                    shutil.copy(source, keep / source.name)
            (keep / "failures.json").write_text(json.dumps([o.__dict__ for o in failures], indent=1))
    counts = {v: sum(1 for o in outcomes if o.verdict == v) for v in VERDICTS}
    files = len({o.path for o in outcomes})
    return {
        "files": files,
        "runs": len(outcomes),
        **counts,
        "seconds": round(time.monotonic() - started, 1),
        "failures": [o.__dict__ for o in failures],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=40, help="mutated files per kind (default 40)")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--keep", type=Path, help="copy the inputs that failed here, with failures.json")
    args = parser.parse_args()
    result = hostile_run(args.count, args.seed, keep=args.keep)
    for failure in result["failures"]:
        last = failure["stderr"].strip().splitlines()[-1:] or [""]
        print(f"{failure['verdict']:9} {failure['how']:18} {' '.join(failure['command'][:1])} {failure['path']}")
        print(f"          {last[0][:160]!r}")
    summary = {k: v for k, v in result.items() if k != "failures"}
    print(json.dumps(summary))
    return 0 if not result["failures"] else 1


if __name__ == "__main__":
    sys.exit(main())
