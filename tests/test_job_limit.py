"""``--limit N``: a trial run reads at most N records of each input, accounts for each of them,
and leaves the input not done, so that the full run after it reads the input whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pipeline import run
from pipeline.job import command
from pipeline.jobconfig import JobConfig
from pipeline.warc.inputs import input_stem
from tests.jobhelpers import make_inputs, rows

COMMON = ["--scheduler", "inproc", "--no-progress", "--no-html-report"]


def _invoke(args: list[str]) -> Result:
    return CliRunner().invoke(command.main, [*args, *COMMON])


def _report(out: Path, result: Result) -> dict:
    line = next(x for x in result.output.splitlines() if x.startswith("run report: "))
    return json.loads(Path(line.removeprefix("run report: ")).read_text())


def test_records_past_the_limit_are_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (warc,) = make_inputs(tmp_path / "in", n=1)[:1]
    read: list[object] = []
    real = run.iter_records

    def counting(*args: object, **kwargs: object):
        for item in real(*args, **kwargs):
            read.append(item)
            yield item

    monkeypatch.setattr(run, "iter_records", counting)
    report = run.process_warc(warc, JobConfig(output=str(tmp_path / "out"), record_limit=3))
    assert len(read) == 3  # the reader was asked for no fourth record
    stats = report.stats
    assert stats.records == 3 == stats.docs + stats.n_rejects + stats.n_skipped
    assert report.limit == 3
    done = tmp_path / "out" / "_done"
    assert [p.name for p in done.iterdir()] == [f"{input_stem(warc)}.limited.json"]
    assert json.loads((done / f"{input_stem(warc)}.limited.json").read_text())["limit"] == 3


def test_a_trial_run_then_the_full_run(tmp_path: Path) -> None:
    inputs = make_inputs(tmp_path / "in", n=3)  # 6, 8 and 10 records
    out = tmp_path / "out"
    trial = _invoke([*inputs, "-o", str(out), "--limit", "7"])
    assert trial.exit_code == 0, trial.output
    report = _report(out, trial)
    assert report["record_limit"] == 7
    per_input = {p["input"]: p for p in report["per_input"]}
    # The first input ends before the limit: read whole, it is done; the others are cut.
    assert per_input[inputs[0]]["records"] == 6 and "limit" not in per_input[inputs[0]]
    assert [per_input[p]["records"] for p in inputs[1:]] == [7, 7]
    assert all(per_input[p]["limit"] == 7 for p in inputs[1:])
    assert "inputs cut at --limit 7" in trial.output
    names = sorted(p.name for p in (out / "_done").iterdir())
    assert names == sorted(
        [f"{input_stem(inputs[0])}.json"] + [f"{input_stem(p)}.limited.json" for p in inputs[1:]]
    )
    # Another trial leaves the input read whole alone and reads the cut ones again.
    again = _invoke([*inputs, "-o", str(out), "--limit", "7"])
    assert _report(out, again)["inputs"] == {"processed": 2, "failed": 0, "skipped_done": 1}
    # The full run reads the cut inputs whole, replaces their files and their markers.
    full = _invoke([*inputs, "-o", str(out)])
    assert full.exit_code == 0, full.output
    assert _report(out, full)["inputs"] == {"processed": 2, "failed": 0, "skipped_done": 1}
    assert sorted(p.name for p in (out / "_done").iterdir()) == sorted(
        f"{input_stem(p)}.json" for p in inputs
    )
    reference = _invoke([*inputs, "-o", str(tmp_path / "ref")])
    assert reference.exit_code == 0, reference.output
    assert rows(out) == rows(tmp_path / "ref")  # every record once, nothing of the trials left
    # A trial over a finished output has nothing to do.
    late = _invoke([*inputs, "-o", str(out), "--limit", "2"])
    assert _report(out, late)["inputs"] == {"processed": 0, "failed": 0, "skipped_done": 3}


def test_the_limit_is_checked(tmp_path: Path) -> None:
    inputs = make_inputs(tmp_path / "in", n=1)
    result = _invoke([*inputs, "-o", str(tmp_path / "out"), "--limit", "0"])
    assert result.exit_code == 2 and "--limit" in result.output
    assert not (tmp_path / "out").exists()
    with pytest.raises(ValueError, match="record_limit"):
        JobConfig(output="o", record_limit=0)
