"""What reading YAML costs at start-up: the project's strict loader against PyYAML's own.

``python benchmarks/yaml_load.py`` parses unit/app/defaults.yaml (read at every start) and the largest
edition with ``yaml.safe_load`` (pure Python, what the project used before), ``yaml.CSafeLoader``
(libyaml) and :class:`unit.yamlfile.Loader` (libyaml, plus duplicate keys, strict numbers), and prints
the best time of each in microseconds.
"""

from __future__ import annotations

import json
import sys
import timeit
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from unit import yamlfile  # noqa: E402


def best_us(function, number: int) -> float:
    return round(min(timeit.repeat(function, number=number, repeat=5)) / number * 1e6, 1)


def main() -> int:
    editions = (ROOT / "unit/calculator/editions").glob("*.yaml")
    files = [ROOT / "unit/app/defaults.yaml", max(editions, key=lambda p: p.stat().st_size)]
    result = {}
    for path in files:
        text = path.read_text(encoding="utf-8")
        number = 200 if len(text) < 5000 else 20
        assert yamlfile.parse(text, path.name) == yaml.safe_load(text)
        result[path.name] = {
            "bytes": len(text.encode()),
            "safe_load_us": best_us(lambda text=text: yaml.safe_load(text), number),
            "CSafeLoader_us": best_us(lambda text=text: yaml.load(text, Loader=yaml.CSafeLoader), number),  # noqa: S506
            "yamlfile_us": best_us(lambda text=text: yamlfile.parse(text, "file"), number),
        }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
