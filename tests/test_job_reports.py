"""What a run says it did (`pipeline.job.reports`): the JSON run report's fields and rates, and
the summary table's rows, from a run result built by hand."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from rich.console import Console

from pipeline.job import reports
from pipeline.job.schedule import RunResult
from pipeline.jobconfig import JobConfig
from pipeline.output.stats import Stats, WarcReport
from pipeline.warc.inputs import input_stem

LANGUAGES = Counter({f"l{i:02d}": 20 - i for i in range(11)})


def _result(seconds: float = 1.3004) -> RunResult:
    whole = Stats(
        records=10,
        docs=6,
        rejects=Counter(no_text=2),
        skipped=Counter(request=2),
        issues=Counter(resync=1),
        languages=LANGUAGES,
        structure=Counter(table=2, code=1),
        page_types=Counter(article=5, forum=1),
    )
    # Cut at --limit, and one record short of its counts: unbalanced.
    cut = Stats(records=5, docs=2, rejects=Counter(no_text=1, timeout=1))
    return RunResult(
        reports=[
            WarcReport("/in/a.warc.gz", input_stem("/in/a.warc.gz"), whole, (), 1.23456),
            WarcReport("/in/b.warc.gz", input_stem("/in/b.warc.gz"), cut, (), 0.5, limit=3),
        ],
        failed={"/in/c.warc.gz": "UnreadableInput: not a WARC or ARC file"},
        skipped=["/in/d.warc.gz"],
        seconds=seconds,
    )


def test_the_run_report_counts_inputs_rates_failures_and_unbalanced_inputs() -> None:
    cfg = JobConfig(output="/out", formats="text", record_limit=3)
    report = reports.run_report(_result(), cfg, "2026-11-30T10:00:00Z")
    assert report["started_at"] == "2026-11-30T10:00:00Z"
    assert report["seconds"] == 1.3 and report["output"] == "/out"
    assert report["formats"] == "text" and report["record_limit"] == 3
    assert report["inputs"] == {"processed": 2, "failed": 1, "skipped_done": 1}
    assert report["totals"]["records"] == 15 and report["totals"]["docs"] == 8
    # Records count every record; pages leave out the skipped ones (requests, metadata).
    assert report["records_per_second"] == 11.53  # 15 / 1.3004
    assert report["pages_per_second"] == 10.0  # 13 / 1.3004
    assert report["failed"] == [
        {
            "input": "/in/c.warc.gz",
            "stem": input_stem("/in/c.warc.gz"),
            "error": "UnreadableInput: not a WARC or ARC file",
        }
    ]
    assert report["unbalanced"] == ["/in/b.warc.gz"]
    assert report["per_input"] == [
        {"input": "/in/a.warc.gz", "records": 10, "docs": 6, "rejects": 2, "seconds": 1.235},
        {
            "input": "/in/b.warc.gz",
            "records": 5,
            "docs": 2,
            "rejects": 2,
            "seconds": 0.5,
            "limit": 3,
        },
    ]


def test_a_run_that_took_no_time_has_no_rates() -> None:
    report = reports.run_report(_result(seconds=0.0), JobConfig(output="/out"), "t")
    assert report["records_per_second"] is None and report["pages_per_second"] is None


def _rows(table: object) -> dict[str, str]:
    console = Console(record=True, width=200, color_system=None)
    console.print(table)
    rows = {}
    for line in console.export_text().splitlines():
        cells = [c.strip() for c in line.strip("│┃ ").split("│")]
        if len(cells) == 2 and cells[0]:
            rows[cells[0]] = cells[1]
    return rows


def test_the_summary_table_shows_every_count_and_the_rates() -> None:
    table = reports.summary_table(_result())
    assert table.title == "warcclean run" and table.show_header
    assert [column.header for column in table.columns] == ["what", "count"]
    rows = _rows(table)
    assert rows["inputs processed"] == "2"
    assert rows["inputs skipped (done)"] == "1"
    assert rows["inputs failed"] == "1"
    assert rows["inputs cut at --limit 3"] == "1"
    assert rows["records read"] == "15" and rows["documents"] == "8"
    assert rows["rejected: no_text"] == "3" and rows["rejected: timeout"] == "1"
    assert rows["skipped: request records"] == "2"
    assert rows["reader issue: resync"] == "1"
    assert [rows[f"documents with {kind}"] for kind in ("code", "table", "math")] == ["1", "2", "0"]
    # The ten most frequent languages only.
    shown = [name for name in rows if name.startswith("language=")]
    assert shown == [f"language=l{i:02d}" for i in range(10)]
    assert rows["language=l00"] == "20"
    assert rows["page_type=article"] == "5" and rows["page_type=forum"] == "1"
    assert rows["wall seconds"] == "1.3"
    assert rows["records / s"] == "11.5" and rows["pages / s"] == "10.0"


def test_a_summary_of_a_run_that_took_no_time_shows_zero_rates_and_no_limit_row() -> None:
    result = _result(seconds=0.0)
    result.reports = result.reports[:1]
    rows = _rows(reports.summary_table(result))
    assert rows["records / s"] == "0.0" and rows["pages / s"] == "0.0"
    assert not [name for name in rows if name.startswith("inputs cut")]


def test_the_run_report_is_written_under_runs_named_by_its_start(tmp_path) -> None:
    cfg = JobConfig(output=str(tmp_path / "out") + "/")
    report = reports.run_report(_result(), cfg, "2026-11-30T10:00:00Z")
    path = reports.write_run_report(report, cfg, None)
    name = path.rpartition("/")[2]
    assert path.startswith(str(tmp_path / "out" / "_runs") + "/")
    assert name.startswith("20261130T100000Z-") and name.endswith(".json")
    assert len(name) == len("20261130T100000Z-") + 6 + len(".json")
    assert json.loads(Path(path).read_text()) == report
    assert Path(path).read_text().startswith('{\n  "started_at": ')  # indented for people
    # A path given is where it goes, and nothing is written under _runs.
    chosen = tmp_path / "elsewhere.json"
    assert reports.write_run_report(report, cfg, str(chosen)) == str(chosen)
    assert json.loads(chosen.read_text()) == report
    assert len(list((tmp_path / "out" / "_runs").iterdir())) == 1


def test_the_html_report_sits_beside_the_json_one() -> None:
    assert reports.html_report_path("/out/_runs/20261130T100000Z-ab12cd.json") == (
        "/out/_runs/20261130T100000Z-ab12cd.html"
    )
    assert reports.html_report_path("/tmp/report") == "/tmp/report.html"
