"""Damaged input never escapes the reader as an exception, and what it reads stays accounted for.

Two attacks on small files: truncation at every byte offset (exhaustive) and random byte
mutations (hypothesis, bounded). Properties: no exception; every item is a RawPage, Rejected or
ReaderIssue; no more records than were written (plus one per mutation, which can at most split
a record); offsets inside the file; bodies within the cap; and on truncation, every record that
lies wholly before the cut comes back exactly as from the intact file.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pipeline.types import RawPage, Rejected
from pipeline.warc.reader import NotAnArchive, ReaderIssue, iter_records
from tests.fuzz_harness import first_line
from tests.warc_builders import (
    build_arc,
    build_warc,
    gzip_whole,
    html_response,
    http_block,
    request_record,
)

HTML = b"<html><head><title>t</title></head><body><p>A small page, some words.</p></body></html>"
CAP = 64


def _budget(ci_examples: int) -> int:
    """CI's bounded budget, or the profile's (HYPOTHESIS_PROFILE=release, see FUZZING.md)."""
    if os.environ.get("HYPOTHESIS_PROFILE", "default") in ("default", "ci"):
        return ci_examples
    return settings.default.max_examples


def _small_files() -> dict[str, bytes]:
    specs = [
        html_response("http://e.com/a", HTML, content_encoding="gzip", chunked=True),
        request_record("http://e.com/b"),
        html_response("http://e.com/c", HTML),
    ]
    arc_http = http_block("HTTP/1.0 200 OK", [("Content-Type", "text/html")], HTML)
    return {
        "warc.gz": build_warc(specs, gzip=True),
        "warc": build_warc(specs, gzip=False),
        "arc.gz": build_arc([("http://e.com/a", "text/html", arc_http)], gzip=True),
        "arc": build_arc([("http://e.com/a", "text/html", arc_http)], gzip=False),
    }


FILES = _small_files()


def _read(data: bytes, original: bytes | None = None) -> list:
    try:
        items = list(iter_records(io.BytesIO(data), "fuzz", max_body_bytes=CAP))
    except NotAnArchive:
        # Only a file whose first line is no longer the original's may be no archive at all
        # (cut inside it, or bytes of it changed): it then holds no record to read.
        assert original is not None and first_line(data) != first_line(original)
        return []
    for item in items:
        assert isinstance(item, RawPage | Rejected | ReaderIssue)
        if isinstance(item, RawPage):
            assert len(item.body) <= CAP
    return items


def _records(items: list) -> list:
    return [i for i in items if not isinstance(i, ReaderIssue)]


def _in_stored_space(item: RawPage | Rejected) -> bool:
    return not (
        isinstance(item, RawPage) and any(n.startswith("offset_space:") for n in item.notes)
    )


def _check_truncations(data: bytes) -> None:
    full = _records(_read(data))
    for cut in range(len(data) + 1):
        part = _records(_read(data[:cut], data))
        assert len(part) <= len(full)
        for item in part:
            if _in_stored_space(item) and item.warc_offset is not None:
                assert 0 <= item.warc_offset < max(cut, 1)
        whole = [r for r in full if r.warc_offset + r.warc_length <= cut]
        assert part[: len(whole)] == whole, f"cut at {cut}"


@pytest.mark.parametrize("kind", sorted(FILES))
def test_truncation_at_every_offset(kind: str) -> None:
    _check_truncations(FILES[kind])


@pytest.mark.shared
def test_truncation_of_a_real_record_at_every_offset(real_warcs_dir: Path) -> None:
    # the smallest real files: a gzipped ARC (623 bytes) and a one-page WARC excerpt
    _check_truncations((real_warcs_dir / "CDX-Writer__negative_content_length.arc.gz").read_bytes())
    _check_truncations((real_warcs_dir / "warcio__example.arc.gz").read_bytes())


@settings(max_examples=_budget(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(sorted(FILES)),
    mutations=st.lists(
        st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 255)), min_size=1, max_size=6
    ),
)
def test_random_byte_mutations_never_raise(kind: str, mutations: list[tuple[float, int]]) -> None:
    data = bytearray(FILES[kind])
    for where, value in mutations:
        data[int(where * len(data))] = value
    n_written = len(_records(_read(FILES[kind])))
    items = _read(bytes(data), FILES[kind])
    recs = _records(items)
    assert len(recs) <= n_written + len(mutations)
    for item in recs:
        if _in_stored_space(item) and item.warc_offset is not None:
            assert 0 <= item.warc_offset < len(data)


@settings(max_examples=_budget(60), deadline=None)
@given(st.binary(max_size=600))
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    # (bytes that are no archive fail as one, by name: `NotAnArchive`, allowed by the empty
    # original; after a version line they never do)
    _read(data, b"")
    _read(b"WARC/1.0\r\n" + data)


# --- what is an archive at all (issue 50) -------------------------------------------------------

# One record each, so that no second record start vouches for a damaged first line: a WARC
# response, and an ARC file of its filedesc header alone.
_ONE_RECORD = {
    "warc": build_warc([html_response("http://e.com/a", HTML)], gzip=False),
    "arc": build_arc([], gzip=False),
}
_IP = re.compile(rb"\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f]*:[0-9A-Fa-f:.]*|-")


def _starts_an_archive(line: bytes) -> bool:
    """The rule, field by field: a WARC version line, or an ARC header line (a URL with a
    scheme, an IP address, a 14-digit date, then a type and a length, perhaps more)."""
    line = line.rstrip(b"\r")
    if re.fullmatch(rb"WARC/[0-9]+\.[0-9]+", line):
        return True
    fields = line.split(b" ")
    return (
        len(fields) >= 5
        and re.fullmatch(rb"[A-Za-z][A-Za-z0-9+.\-]*:.+", fields[0]) is not None
        and _IP.fullmatch(fields[1]) is not None
        and re.fullmatch(rb"[0-9]{14}", fields[2]) is not None
    )


@settings(max_examples=_budget(300), deadline=None)
@given(
    kind=st.sampled_from(sorted(_ONE_RECORD)),
    gz=st.booleans(),
    edits=st.lists(
        st.tuples(st.floats(0, 1, exclude_max=True), st.sampled_from(b"W/1. 0:\rx9-A\n\t")),
        min_size=1,
        max_size=4,
    ),
)
# CI found this one: the line end cuts "fil" off, and the ARC line after it has "0W0.0.0" for
# its IP address, so no record starts anywhere and the file is no archive.
@example(kind="arc", gz=False, edits=[(0.375, 87), (0.0625, 10)])
def test_a_file_whose_first_line_is_damaged_is_an_archive_by_the_rule(
    kind: str, gz: bool, edits: list[tuple[float, int]]
) -> None:
    data = bytearray(_ONE_RECORD[kind])
    end = data.index(b"\n")
    for where, value in edits:
        data[int(where * end)] = value  # inside the first line (before its line end)
    line = first_line(bytes(data))
    stored = gzip_whole(bytes(data)) if gz else bytes(data)
    try:
        list(iter_records(io.BytesIO(stored), "x"))
    except NotAnArchive as exc:
        assert not _starts_an_archive(line), (line, exc)
        assert "not a WARC or ARC file" in str(exc)
    else:
        # (a line end edited in can end the first line early: a record start may then follow)
        later = bytes(data).lstrip(b"\r\n\t ").split(b"\n")[1:]
        assert _starts_an_archive(line) or any(_starts_an_archive(x) for x in later), line
