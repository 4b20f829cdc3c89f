"""bench/rule_eval.py compares a page rule's two runs page by page: the score it ranks by, the
means, the pages moved, the groups and the held-out pages of the shipped model's split."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.scripts import load_script

REPO = Path(__file__).resolve().parents[1]


def _module():
    return load_script(REPO / "bench" / "rule_eval.py")


def row(f1: float | None, combined: float | None = None, **extra) -> dict:
    return {"f1": f1, "combined": combined, **extra}


def test_the_score_is_combined_where_given_else_f1() -> None:
    score = _module().score
    assert score(row(0.5, 0.7)) == 0.7
    assert score(row(0.5)) == 0.5
    assert score(row(None)) is None


def test_compare_counts_means_and_moves_over_the_pages_asked_for() -> None:
    compare = _module().compare
    off = {"a": row(0.5), "b": row(0.8), "c": row(None, 0.6), "d": row(None), "e": row(0.9)}
    on = {"a": row(0.7), "b": row(0.6), "c": row(None, 0.6), "d": row(0.3), "e": row(1.0)}
    got = compare(off, on, ["a", "b", "c", "d"])
    # "d" has no score without the rule and is left out; "e" is not asked for
    assert got == {"pages": 3, "off": 0.6333, "on": 0.6333, "up": 1, "down": 1}
    assert compare(off, on, ["d"]) == {"pages": 0}


def test_grouped_compares_each_group() -> None:
    grouped = _module().grouped
    off = {"a": row(0.5, language="de"), "b": row(0.8, language="en")}
    on = {"a": row(0.6, language="de"), "b": row(0.8, language="en")}
    got = grouped(off, on, "language")
    assert got["de"] == {"pages": 1, "off": 0.5, "on": 0.6, "up": 1, "down": 0}
    assert got["en"] == {"pages": 1, "off": 0.8, "on": 0.8, "up": 0, "down": 0}


def test_the_held_out_pages_are_the_shipped_models_test_ids() -> None:
    split = json.loads((REPO / "pipeline" / "models" / "neighbours.json").read_text())
    want: dict[str, set[str]] = {}
    for full_id in split["metadata"]["split"]["test_ids"]:
        dataset, page_id = full_id.split("/", 1)
        want.setdefault(dataset, set()).add(page_id)
    got = _module().test_ids()
    assert dict(got) == want
    assert got["wcxb"] and got["ml"]


@pytest.mark.skipif(
    not (REPO.parent / "shared" / "data" / "magic-html").is_dir(),
    reason="needs ../shared/data/magic-html (the development data beside the repository)",
)
def test_a_run_writes_each_sets_comparison(tmp_path: Path) -> None:
    out = tmp_path / "eval.json"
    assert _module().main(["description_lead", "--sets", "magic-html", "--out", str(out)]) == 0
    got = json.loads(out.read_text())
    assert got["rule_option"] == "description_lead"
    entry = got["sets"]["magic-html"]
    assert entry["pages"] == 225 and entry["up"] + entry["down"] > 0
    assert entry["by_language"]["en"]["pages"] > 100
    assert "held_out" not in entry  # magic-html's pages are in no held-out table
