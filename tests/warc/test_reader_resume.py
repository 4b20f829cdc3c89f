"""`iter_records(resume=...)`: reading goes on at a page's record as it went the first time.

The supervised job resumes an input at its last checkpoint (`pipeline.output.spool`) after a
page killed its cleaning process: from the page the checkpoint names, the reader must yield the
same records as a read from the file's start yields from that page on, in every layout and
after damage (offsets in a gunzipped stream included).
"""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest

from pipeline.types import RawPage, Rejected
from pipeline.warc.reader import NotAnArchive, iter_records, resume_point
from tests.fuzz_mutators import LAYOUTS, SEEDS, length_mutants, make_mutant


def _records(data: bytes, resume: list[int | None] | None = None) -> list[RawPage | Rejected]:
    items = iter_records(io.BytesIO(data), "x.warc.gz", resume=resume)
    return [i for i in items if isinstance(i, RawPage | Rejected)]


def _check_every_resume(data: bytes) -> int:
    try:
        full = _records(data)
    except NotAnArchive:
        return 0
    n = 0
    for k, item in enumerate(full):
        if isinstance(item, RawPage):
            assert _records(data, resume_point(item)) == full[k:], (k, item.warc_offset)
            n += 1
    return n


def test_resuming_at_any_page_of_the_seeds_reads_the_rest_as_before() -> None:
    pages = sum(_check_every_resume(seed.layout(layout)[0]) for seed in SEEDS for layout in LAYOUTS)
    assert pages >= 27  # every page of every seed, in every layout


def test_resuming_at_any_page_of_damaged_files_reads_the_rest_as_before() -> None:
    rng = random.Random(48)
    mutants = length_mutants()[::3] + [make_mutant(rng) for _ in range(300)]
    pages = sum(_check_every_resume(m.data) for m in mutants)
    gunzipped = [
        p
        for m in mutants[:200]
        for p in _safe_records(m.data)
        if isinstance(p, RawPage) and any(n.startswith("offset_space:") for n in p.notes)
    ]
    assert pages > 500 and gunzipped  # (pages in a gunzipped stream were resumed too)


def _safe_records(data: bytes) -> list[RawPage | Rejected]:
    try:
        return _records(data)
    except NotAnArchive:
        return []


@pytest.mark.shared
def test_resuming_at_any_page_of_the_real_files_reads_the_rest_as_before(
    real_warcs_dir: Path,
) -> None:
    files = sorted(p for p in real_warcs_dir.iterdir() if p.name != "SOURCES.md")
    assert sum(_check_every_resume(p.read_bytes()) for p in files) > 200


def test_resuming_needs_a_seekable_stream() -> None:
    class Unseekable(io.BytesIO):
        def seekable(self) -> bool:
            return False

    with pytest.raises(ValueError, match="seekable"):
        list(iter_records(Unseekable(b"WARC/1.0\r\n"), "x", resume=[0, None]))
