"""`process_warc` removes an input's old completion marker before it writes anything new.

A re-run of an input that finished before must not leave the old ``_done/<stem>.json`` in place
while its files are being replaced: if that run dies half way, the marker would say "done" over
a half-written output, and every later run would skip the input. Here the second run fails at
three points (while reading, while cleaning, at the commit of the data files), and each time the
input must be left "not done". The last test shows the check has teeth: with the removal
disabled, the same crash leaves the stale marker behind.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import pipeline.run as run
from pipeline.jobconfig import JobConfig
from pipeline.output.sink import PartitionedParquetSink
from pipeline.run import WarcTaskError, process_warc
from pipeline.types import RawPage
from pipeline.warc.inputs import input_stem
from tests.warc_builders import build_warc, html_response, plain_record, request_record

PAGE = (
    "<html><body><h1>The harbour</h1><p>The ferry leaves the harbour twice a day in winter, "
    "and the people of the island plan their week around it, from the doctor's visits to the "
    "market on the mainland.</p></body></html>"
)


def _input(tmp_path: Path) -> str:
    records = [plain_record("warcinfo", "", b"software: test")]
    for i in range(4):
        url = f"https://isle.example/{i}"
        records += [request_record(url), html_response(url, PAGE.replace("winter", f"week {i}"))]
    path = tmp_path / "crawl.warc.gz"
    path.write_bytes(build_warc(records))
    return str(path)


def _marker(out: Path, warc: str) -> Path:
    return out / "_done" / f"{input_stem(warc)}.json"


def _failing_reader(after: int) -> Callable[..., Iterator[Any]]:
    real = run.iter_records

    def reader(*args: Any, **kwargs: Any) -> Iterator[Any]:
        for n, item in enumerate(real(*args, **kwargs)):
            if n == after:
                raise OSError("connection reset while reading the input")
            yield item

    return reader


def _failing_cleaner(*args: Any, **kwargs: Any) -> Any:
    raise MemoryError("the worker ran out of memory on a page")


def _failing_commit(self: PartitionedParquetSink) -> Any:
    raise OSError("No space left on device")


CRASHES = {
    "reading": ("iter_records", _failing_reader(after=5)),
    "cleaning": ("clean_page", _failing_cleaner),
}


def _complete_run(tmp_path: Path) -> tuple[str, Path, JobConfig]:
    warc = _input(tmp_path)
    out = tmp_path / "out"
    cfg = JobConfig(output=str(out))
    process_warc(warc, cfg)
    assert json.loads(_marker(out, warc).read_text())["docs"] == 4
    return warc, out, cfg


@pytest.mark.parametrize("where", sorted(CRASHES))
def test_a_rerun_that_crashes_leaves_the_input_not_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    warc, out, cfg = _complete_run(tmp_path)
    name, replacement = CRASHES[where]
    monkeypatch.setattr(run, name, replacement)
    with pytest.raises(WarcTaskError):
        process_warc(warc, cfg)
    assert not _marker(out, warc).exists(), f"a crash while {where} left the old marker"


def test_a_rerun_that_fails_to_commit_leaves_the_input_not_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warc, out, cfg = _complete_run(tmp_path)
    monkeypatch.setattr(PartitionedParquetSink, "commit", _failing_commit)
    with pytest.raises(WarcTaskError, match="No space left"):
        process_warc(warc, cfg)
    assert not _marker(out, warc).exists()


def test_the_marker_is_gone_before_the_first_record_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not only by the end of a failed run: from the moment the input is taken up, so a worker
    # killed at any point (SIGKILL runs no cleanup) leaves it "not done".
    warc, out, cfg = _complete_run(tmp_path)
    seen: list[bool] = []
    real = run.iter_records

    def watching(*args: Any, **kwargs: Any) -> Iterator[Any]:
        for item in real(*args, **kwargs):
            if isinstance(item, RawPage):
                seen.append(_marker(out, warc).exists())
            yield item

    monkeypatch.setattr(run, "iter_records", watching)
    process_warc(warc, cfg)
    assert seen == [False] * 4
    assert _marker(out, warc).exists()  # written again once the run completed


def test_without_the_removal_the_crash_would_look_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warc, out, cfg = _complete_run(tmp_path)
    monkeypatch.setattr(run, "remove_marker", lambda fs, paths: None)
    monkeypatch.setattr(run, "iter_records", _failing_reader(after=5))
    with pytest.raises(WarcTaskError):
        process_warc(warc, cfg)
    assert _marker(out, warc).exists()
