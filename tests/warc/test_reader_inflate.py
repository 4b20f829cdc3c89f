"""The reader's speed-ups change nothing it reads.

zlib-ng inflates the records instead of the standard library's zlib: every item (pages, rejects,
offsets, lengths, notes, reader issues) must be the same either way, on intact, cut and damaged
files and on the real WARCs. Requests' HTTP headers are no longer parsed: a request whose HTTP
block is garbage is still one ``record_type:request`` reject, and the records after it are read.
"""

from __future__ import annotations

import gzip
import io
import itertools
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pipeline.warc.reader as reader
from pipeline.types import RawPage, Rejected
from pipeline.warc.reader import NotAnArchive, ReaderIssue, iter_records
from tests.warc.test_reader_fuzz import FILES, _budget
from tests.warc_builders import build_warc, html_response, raw_warc_record, request_record

HTML = b"<html><body><p>" + b"Words that repeat, and compress well. " * 400 + b"</p></body></html>"


def _items(data: bytes, **kw: object) -> list:
    try:
        return list(iter_records(io.BytesIO(data), "x", **kw))
    except NotAnArchive as exc:  # (the same answer both ways is what counts)
        return [f"not an archive: {exc}"]


def _both(data: bytes, **kw: object) -> tuple[list, list]:
    fast = _items(data, **kw)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(reader, "_inflate_lib", zlib)
        plain = _items(data, **kw)
    return fast, plain


def test_the_reader_inflates_with_zlib_ng() -> None:
    # guards the speed-up itself: with the dependency installed, it must be the one in use
    assert reader._inflate_lib.__name__ == "zlib_ng.zlib_ng"


def test_a_large_page_reads_the_same_with_zlib() -> None:
    data = build_warc(
        [
            request_record("http://e.com/a"),
            html_response("http://e.com/a", HTML),
            html_response("http://e.com/b", HTML, content_encoding="gzip"),
        ]
    )
    fast, plain = _both(data)
    assert fast == plain
    pages = [i for i in fast if isinstance(i, RawPage)]
    assert [p.body for p in pages] == [HTML, HTML]
    # each record is its own gzip member, so offsets and lengths tile the file
    ends = [(i.warc_offset, i.warc_offset + i.warc_length) for i in fast]
    assert ends[0][0] == 0 and ends[-1][1] == len(data)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(ends))


def test_every_cut_reads_the_same_with_zlib() -> None:
    data = FILES["warc.gz"]
    for cut in range(0, len(data) + 1, 3):
        fast, plain = _both(data[:cut], max_body_bytes=64)
        assert fast == plain, f"cut at {cut}"


@settings(max_examples=_budget(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(["warc.gz", "arc.gz"]),
    mutations=st.lists(
        st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 255)), min_size=1, max_size=6
    ),
)
def test_damaged_files_read_the_same_with_zlib(
    kind: str, mutations: list[tuple[float, int]]
) -> None:
    data = bytearray(FILES[kind])
    for where, value in mutations:
        data[int(where * len(data))] = value
    fast, plain = _both(bytes(data), max_body_bytes=64)
    assert fast == plain


@pytest.mark.shared
def test_real_warcs_read_the_same_with_zlib(real_warcs_dir: Path) -> None:
    files = sorted(p for p in real_warcs_dir.iterdir() if p.name != "SOURCES.md")
    assert len(files) >= 20
    for path in files:
        fast, plain = _both(path.read_bytes())
        assert fast == plain, path.name
        assert any(not isinstance(i, ReaderIssue) for i in fast), path.name


def test_a_request_with_a_garbage_http_block_is_one_request() -> None:
    garbage = b"\x00\xffnot an HTTP request at all\r\nno colon here\r\n"
    request = raw_warc_record(
        [
            ("WARC-Type", "request"),
            ("WARC-Target-URI", "http://e.com/a"),
            ("WARC-Record-ID", "<urn:uuid:req>"),
            ("Content-Type", "application/http; msgtype=request"),
        ],
        garbage,
        version="WARC/1.0",
    )
    page = build_warc([html_response("http://e.com/a", HTML)], gzip=False)
    member = gzip.compress(request)
    files = ((request + page, len(request)), (member + gzip.compress(page), len(member)))
    for data, page_at in files:
        items = _items(data)
        assert [type(i) for i in items] == [Rejected, RawPage]
        assert (items[0].reason, items[0].warc_offset) == ("record_type:request", 0)
        assert (items[1].body, items[1].warc_offset) == (HTML, page_at)
