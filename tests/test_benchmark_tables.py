"""bench/benchmark_tables.py reads the shipped model's split to find the held-out pages of its
tables: it must take every set the model was trained on, not only the two it tabulates."""

from __future__ import annotations

import json
from pathlib import Path

from tests.scripts import load_script

REPO = Path(__file__).resolve().parents[1]


def _module():
    return load_script(REPO / "bench" / "benchmark_tables.py")


def test_split_ids_take_every_set_of_the_shipped_model():
    split = json.loads((REPO / "pipeline" / "models" / "neighbours.json").read_text())["metadata"][
        "split"
    ]
    ids = _module().split_ids()
    for part in ("test", "select"):
        want: dict[str, set[str]] = {}
        for full_id in split[f"{part}_ids"]:
            dataset, page_id = full_id.split("/", 1)
            want.setdefault(dataset, set()).add(page_id)
        assert {d: parts.get(part, set()) for d, parts in ids.items() if d in want} == want
    # the tables' two sets have held-out pages, and no page is in two parts
    assert ids["wcxb"]["test"] and ids["ml"]["test"]
    for parts in ids.values():
        assert not parts.get("test", set()) & parts.get("select", set())
