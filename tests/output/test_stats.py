"""Per-input counts (`pipeline.output.stats`): the sum the client makes of them, the balance
the job checks, and their round trip through a done marker's JSON."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import fields

from pipeline.output.stats import Stats, WarcReport


def _stats(k: int) -> Stats:
    # A different value in every field, so that a field summed or copied into another shows.
    return Stats(
        records=100 * k + 1,
        docs=100 * k + 2,
        rejects=Counter({"no_text": k, f"r{k}": 3}),
        skipped=Counter({"request": k + 1}),
        issues=Counter({f"i{k}": 4}),
        languages=Counter({"en": k + 5}),
        body_bytes=100 * k + 6,
        text_chars=100 * k + 7,
        structure=Counter({"code": k + 8}),
        page_types=Counter({"article": k + 9}),
    )


def test_sums_add_every_field_on_its_own() -> None:
    total = _stats(1) + _stats(2)
    assert (total.records, total.docs, total.body_bytes, total.text_chars) == (
        302,
        304,
        312,
        314,
    )
    assert total.rejects == Counter({"no_text": 3, "r1": 3, "r2": 3})
    assert total.skipped == Counter({"request": 5})
    assert total.issues == Counter({"i1": 4, "i2": 4})
    assert total.languages == Counter({"en": 13})
    assert total.structure == Counter({"code": 19})
    assert total.page_types == Counter({"article": 21})
    assert (total.n_rejects, total.n_skipped) == (9, 5)


def test_balanced_means_every_record_ended_once() -> None:
    stats = Stats(records=10, docs=4, rejects=Counter(a=2, b=1), skipped=Counter(request=3))
    assert stats.balanced
    for records in (9, 11):
        stats.records = records
        assert not stats.balanced
    assert Stats().balanced


def test_stats_survive_their_json_and_old_markers_read_with_defaults() -> None:
    stats = _stats(3)
    data = json.loads(json.dumps(stats.to_dict()))
    assert Stats.from_dict(data) == stats
    assert list(data) == [f.name for f in fields(Stats)]  # every field written
    assert list(data["rejects"]) == sorted(data["rejects"])  # sorted keys: stable files
    old = Stats.from_dict({"records": "5", "docs": 5})  # a marker from before the later fields
    assert old == Stats(records=5, docs=5)


def test_a_warc_report_survives_its_json() -> None:
    report = WarcReport(
        warc_path="s3://b/a.warc.gz",
        stem="a-0123",
        stats=_stats(4),
        files=("docs/language=en/a-0123.parquet", "rejects/a-0123.parquet"),
        seconds=1.23456,
        input_bytes=789,
        issues=({"record": 2, "issue": "truncated_record"},),
        limit=50,
    )
    data = json.loads(json.dumps(report.to_dict()))
    assert data["seconds"] == 1.235 and data["limit"] == 50
    back = WarcReport.from_dict(data)
    assert (back.warc_path, back.stem, back.files, back.input_bytes) == (
        report.warc_path,
        report.stem,
        report.files,
        789,
    )
    assert back.stats == report.stats and back.issues == report.issues
    assert back.seconds == 1.235 and back.limit == 50
    unlimited = WarcReport("a", "a", Stats(), (), 0.0)
    assert "limit" not in unlimited.to_dict() and unlimited.to_dict()["input_bytes"] == 0
    assert WarcReport.from_dict(unlimited.to_dict()).limit is None
    minimal = WarcReport.from_dict({"warc_path": "a", "stem": "b", "records": 0, "docs": 0})
    assert (minimal.files, minimal.seconds, minimal.input_bytes, minimal.issues) == ((), 0.0, 0, ())
