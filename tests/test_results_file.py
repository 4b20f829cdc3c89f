"""bench/results_file.py: a results file is written whole, in the layout the bench scripts have
always written (bench/doc_figures.py and the tests read them), and stamped with its command and
commit."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.scripts import load_script

REPO = Path(__file__).resolve().parents[1]


def _module():
    return load_script(REPO / "bench" / "results_file.py")


def test_the_file_is_the_json_of_before_and_replaces_the_old_one(tmp_path: Path) -> None:
    results = _module()
    payload = {"date": "2025-06-01T12:00:00+00:00", "summary": {"b": [1, 2], "a": "é"}}
    out = tmp_path / "new" / "x.json"
    out.parent.mkdir()
    out.write_text("old", encoding="utf-8")
    results.write_results(out, payload)
    assert out.read_text(encoding="utf-8") == json.dumps(payload, indent=1) + "\n"
    results.write_results(out, payload, indent=2, ensure_ascii=False)
    assert (
        out.read_text(encoding="utf-8") == json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
    )
    assert [p.name for p in out.parent.iterdir()] == ["x.json"], "no temporary file left"
    results.write_results(tmp_path / "made" / "y.json", payload)
    assert json.loads((tmp_path / "made" / "y.json").read_text(encoding="utf-8")) == payload


def test_the_command_runs_the_script_from_the_repository_root() -> None:
    results = _module()
    script = REPO / "bench" / "choice_speed.py"
    assert (
        results.command_line(script, ["--limit", "5"]) == "python bench/choice_speed.py --limit 5"
    )
    assert results.command_line(str(script), []) == "python bench/choice_speed.py"


def test_the_commit_is_heads_or_none_outside_a_checkout(tmp_path: Path) -> None:
    results = _module()
    assert results.git_commit(repo=tmp_path) is None
    done = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    if done.returncode == 0:  # a checkout, not an unpacked archive
        assert results.git_commit(short=False) == done.stdout.strip()
        assert done.stdout.startswith(results.git_commit())
