"""The streaming WARC/ARC reader on files built in memory: types, decoding, offsets, damage."""

from __future__ import annotations

import gzip
import io
import random
import zlib
from collections import Counter

import pytest

from pipeline.types import RawPage, Rejected
from pipeline.warc.reader import ReaderIssue, iter_records
from tests.warc_builders import (
    RecordSpec,
    build_arc,
    build_warc,
    first_record_at,
    gzip_whole,
    html_response,
    http_block,
    plain_record,
    raw_warc_record,
    request_record,
    resource_record,
    revisit_record,
    warcio_index,
)

HTML = b"<!doctype html><html><head><title>T</title></head><body><p>Hello world.</p></body></html>"


def read(data: bytes, *, cap: int | None = None, path: str = "mem.warc") -> list:
    return list(iter_records(io.BytesIO(data), path, max_body_bytes=cap))


def records(items: list) -> list:
    return [i for i in items if not isinstance(i, ReaderIssue)]


def pages(items: list) -> list[RawPage]:
    return [i for i in items if isinstance(i, RawPage)]


def issues(items: list) -> list[ReaderIssue]:
    return [i for i in items if isinstance(i, ReaderIssue)]


def reasons(items: list) -> list[str]:
    return ["page" if isinstance(i, RawPage) else i.reason for i in records(items)]


ALL_TYPES = [
    plain_record("warcinfo", "", b"software: test\r\n", content_type="application/warc-fields"),
    request_record("http://example.com/"),
    html_response("http://example.com/", HTML, record_id="<urn:uuid:page-1>"),
    resource_record("http://example.com/r.html", HTML, "text/html", record_id="<urn:uuid:res-1>"),
    revisit_record("http://example.com/"),
    plain_record("metadata", "http://example.com/", b"via: x\r\n"),
    plain_record("conversion", "http://example.com/", b"Hello world."),
    plain_record("continuation", "http://example.com/", b"more"),
]


@pytest.mark.parametrize("gz", [True, False])
def test_every_record_type_is_accounted_for_once(gz: bool) -> None:
    items = read(build_warc(ALL_TYPES, gzip=gz))
    assert reasons(items) == [
        "record_type:warcinfo",
        "record_type:request",
        "page",
        "page",
        "record_type:revisit",
        "record_type:metadata",
        "record_type:conversion",
        "record_type:continuation",
    ]
    assert issues(items) == []
    page, resource = pages(items)
    assert (page.record_id, page.record_type, page.http_status) == (
        "<urn:uuid:page-1>",
        "response",
        200,
    )
    assert page.body == HTML and page.truncated is False and page.notes == ()
    assert page.url == "http://example.com/" and page.warc_date == "2024-01-02T03:04:05Z"
    assert ("Content-Type", "text/html; charset=utf-8") in page.http_headers
    assert (resource.record_id, resource.http_status, resource.content_type) == (
        "<urn:uuid:res-1>",
        None,
        "text/html",
    )
    assert resource.body == HTML


@pytest.mark.parametrize("gz", [True, False])
def test_offsets_address_each_record_as_stored(gz: bool) -> None:
    data = build_warc(ALL_TYPES, gzip=gz)
    items = records(read(data))
    expected = [(rid, off, length) for rid, _, off, length in warcio_index(data)]
    got = []
    for item in items:
        length = item.warc_length
        got.append((item.record_id, item.warc_offset, length))
        rid, _, _ = first_record_at(data, item.warc_offset, length)
        assert rid == item.record_id
    assert got == expected


# The decoding matrix (every coding, broken chunking, fallbacks, caps) is in test_payload.py;
# these check that the reader hands the record's HTTP headers to it and keeps its notes.
@pytest.mark.parametrize(
    ("spec", "note"),
    [
        (html_response("http://e.com/", HTML, content_encoding="gzip", chunked=True), None),
        (html_response("http://e.com/", HTML, content_encoding="br"), None),
        (
            html_response("http://e.com/", HTML, content_encoding="gzip", declare_only=True),
            "ce_gzip_not_encoded",
        ),
        (
            html_response("http://e.com/", HTML, chunked=True, declare_only=True),
            "te_chunked_not_chunked",
        ),
        (
            html_response("http://e.com/", HTML, extra_headers=[("Content-Encoding", "zstd")]),
            "ce_unsupported:zstd",
        ),
    ],
    ids=["gzip-chunked", "br", "declared-gzip", "declared-chunked", "unsupported"],
)
def test_reader_decodes_bodies_by_their_http_headers(spec: RecordSpec, note: str | None) -> None:
    (page,) = pages(read(build_warc([spec])))
    assert page.body == HTML and page.truncated is False
    assert page.notes == ((note,) if note else ())


@pytest.mark.parametrize("coding", ["gzip", "br", "zstd"])
def test_still_compressed_bodies_are_rejected_not_passed_on(coding: str) -> None:
    noise = random.Random(1).randbytes(400)
    spec = html_response("http://e.com/", noise, extra_headers=[("Content-Encoding", coding)])
    (item,) = records(read(build_warc([spec])))
    assert isinstance(item, Rejected)
    assert (item.reason, item.detail) == ("undecodable_body", coding)


@pytest.mark.parametrize(
    ("content_type", "body", "outcome"),
    [
        ("image/png", b"\x89PNG\r\n\x1a\n....", "not_html"),
        ("text/plain", b"<html>looks like html but declared text</html>", "not_html"),
        ("application/json", b'{"a": 1}', "not_html"),
        (None, HTML, "page"),
        ("application/octet-stream", b"  \r\n<HTML><BODY>x</BODY></HTML>", "page"),
        ("unk", b"\xef\xbb\xbf<!-- c --><p>x", "page"),
        (None, b"GIF89a......", "not_html"),
        (None, b"", "not_html"),
        ("application/xhtml+xml; charset=utf-8", b"<?xml version='1.0'?><html/>", "page"),
        ("TEXT/HTML", b"x", "page"),
    ],
)
def test_html_is_detected_from_type_then_sniffing(
    content_type: str | None, body: bytes, outcome: str
) -> None:
    spec = html_response("http://e.com/", body, content_type=content_type)
    (item,) = records(read(build_warc([spec])))
    assert reasons([item]) == [outcome]
    if outcome == "page" and content_type in (None, "application/octet-stream", "unk"):
        assert "html_by_sniffing" in item.notes
    if outcome == "not_html":
        assert isinstance(item, Rejected) and item.detail  # the type (or sniff result) is named


@pytest.mark.parametrize("status", [404, 301, 206, 500])
def test_non_200_responses_are_rejected_with_their_status(status: int) -> None:
    (item,) = records(read(build_warc([html_response("http://e.com/", HTML, status=status)])))
    assert isinstance(item, Rejected)
    assert (item.reason, item.detail) == ("http_status", str(status))


@pytest.mark.parametrize("gz", [True, False])
def test_body_cap_truncates_and_drains_the_rest(gz: bool) -> None:
    big = b"<html><body>" + b"<p>word</p>" * 2000 + b"</body></html>"
    data = build_warc(
        [html_response("http://e.com/big", big), html_response("http://e.com/next", HTML)], gzip=gz
    )
    first, second = pages(read(data, cap=100))
    assert first.body == big[:100] and first.truncated and "truncated_by_cap" in first.notes
    assert second.body == HTML and not second.truncated
    assert [p.warc_offset for p in (first, second)] == [o for _, _, o, _ in warcio_index(data)]


def test_body_cap_bounds_decompressed_size() -> None:
    bomb = b"<html>" + b" " * 1_000_000
    (page,) = pages(
        read(build_warc([html_response("http://e.com/", bomb, content_encoding="gzip")]), cap=1000)
    )
    assert len(page.body) == 1000 and page.truncated


@pytest.mark.parametrize("gz", [True, False])
def test_record_cut_short_by_end_of_file_is_flagged(gz: bool) -> None:
    words = random.Random(0).choices([b"alpha", b"beta", b"gamma", b"delta", b"<p>"], k=4000)
    long_html = b"<html><body>" + b" ".join(words) + b"</body></html>"  # compresses poorly
    data = build_warc(
        [html_response("http://e.com/a", HTML), html_response("http://e.com/b", long_html)], gzip=gz
    )
    second_at = warcio_index(data)[1][2]
    cut = data[: second_at + (len(data) - second_at) // 2]
    items = read(cut)
    first, second = pages(items)
    assert first.body == HTML and not first.truncated
    assert second.truncated and "truncated_by_file" in second.notes
    assert long_html.startswith(second.body) and 0 < len(second.body) < len(long_html)


@pytest.mark.parametrize("gz", [True, False])
def test_record_cut_inside_its_headers_is_counted(gz: bool) -> None:
    data = build_warc(
        [html_response("http://e.com/a", HTML), html_response("http://e.com/b", HTML)], gzip=gz
    )
    second_at = warcio_index(data)[1][2]
    items = read(data[: second_at + 200])  # inside the WARC or HTTP headers of record 2
    first, *rest = records(items)
    assert isinstance(first, RawPage) and first.body == HTML
    assert [r.reason for r in rest] == ["truncated_record"]
    assert rest[0].warc_offset == second_at


def test_whole_file_gzipped_as_one_member_is_read_completely() -> None:
    plain = build_warc(ALL_TYPES, gzip=False)
    items = read(gzip_whole(plain))
    assert reasons(items) == reasons(read(plain))
    (issue,) = issues(items)
    assert (issue.kind, issue.offset) == ("single_gzip_member", 0)
    for item in records(items):  # offsets are positions in the gunzipped stream
        rid, _, _ = first_record_at(plain, item.warc_offset, item.warc_length)
        assert rid == item.record_id
    assert all("offset_space:gunzip@0" in p.notes for p in pages(items))


def test_a_file_gzipped_whole_and_cut_inside_a_later_record_says_the_stream_breaks_off() -> None:
    # Random bodies (hex), which deflate evenly, so that a cut of the stored bytes lands about as
    # far into the gunzipped stream: the first stored length whose stream ends inside the second
    # record's body.
    rng = random.Random(7)
    bodies = [HTML + rng.randbytes(3000).hex().encode() for _ in range(3)]
    recs = [
        html_response(f"http://e.com/{i}", body, record_id=f"<urn:uuid:{i}>")
        for i, body in enumerate(bodies)
    ]
    plain = build_warc(recs, gzip=False)
    second_at = warcio_index(plain)[1][2]
    whole = gzip_whole(plain)
    cut = next(
        n
        for n in range(len(whole))
        if len(zlib.decompressobj(31).decompress(whole[:n])) > second_at + 500
    )
    items = read(whole[:cut])
    first, second = records(items)
    assert (first.record_id, first.body, first.truncated) == ("<urn:uuid:0>", bodies[0], False)
    # the second is cut in its body: what came through is kept, and flagged
    assert second.record_id == "<urn:uuid:1>" and second.truncated
    assert bodies[1].startswith(second.body) and len(second.body) < len(bodies[1])
    assert [i.kind for i in issues(items)] == ["single_gzip_member", "truncated_file"]
    assert "the file ends inside a gzip member" in issues(items)[1].detail


@pytest.mark.parametrize("gz", [True, False])
def test_garbage_between_records_is_skipped_by_resync(gz: bool) -> None:
    specs = [
        html_response(f"http://e.com/{i}", HTML, record_id=f"<urn:uuid:r{i}>") for i in range(3)
    ]
    data = build_warc(specs, gzip=gz)
    second_at = warcio_index(data)[1][2]
    garbage = b"\x00garbage line\r\nmore junk \x1f\x8b not gzip\r\n"
    damaged = data[:second_at] + garbage + data[second_at:]
    items = read(damaged)
    assert [p.record_id for p in pages(items)] == [
        "<urn:uuid:r0>",
        "<urn:uuid:r1>",
        "<urn:uuid:r2>",
    ]
    kinds = [i.kind for i in issues(items)]
    assert kinds == ["unreadable", "resync"]
    resync = issues(items)[1]
    assert resync.offset == second_at + len(garbage) and resync.skipped == len(garbage)
    for page in pages(items):
        assert first_record_at(damaged, page.warc_offset, page.warc_length)[0] == page.record_id


def test_gzip_member_split_mid_record_resyncs_at_next_record() -> None:
    plain = build_warc(
        [html_response("http://e.com/a", HTML, record_id="<urn:uuid:a>")], gzip=False
    )
    body_at = plain.index(b"<!doctype")
    second = build_warc(
        [html_response("http://e.com/b", HTML, record_id="<urn:uuid:b>")], gzip=True
    )
    data = gzip_whole(plain[:body_at]) + gzip_whole(plain[body_at:]) + second
    items = read(data)
    first, last = pages(items)
    assert first.record_id == "<urn:uuid:a>" and first.truncated and first.body == b""
    assert last.record_id == "<urn:uuid:b>" and last.body == HTML
    assert [i.kind for i in issues(items)] == ["unreadable", "resync"]


_BLANK_TAILS = [b"\n\n", b"\r\n\r\n" * 50, b" \t\n"]


def test_trailing_garbage_after_last_record_reports_truncated_file() -> None:
    data = build_warc([html_response("http://e.com/a", HTML)], gzip=False) + b"NOT A RECORD\r\n" * 3
    items = read(data)
    assert reasons(items) == ["page"]
    assert [i.kind for i in issues(items)] == ["unreadable", "truncated_file"]


@pytest.mark.parametrize(
    ("layout", "tail"),
    [
        *((layout, tail) for layout in ("plain", "members", "whole") for tail in _BLANK_TAILS),
        ("members", gzip.compress(b"") + b"\n"),
        ("whole", gzip.compress(b"") + b"\n"),
    ],
)
def test_blank_bytes_after_the_last_record_end_the_file_cleanly(layout: str, tail: bytes) -> None:
    # A tool that appends a newline to a file gzipped record by record (or whole) left warcio
    # trying the newline as one more gzip member: two false issues, where a plain file has none.
    recs = [html_response(f"http://e.com/{i}", HTML, record_id=f"<urn:uuid:{i}>") for i in range(3)]
    archive = gzip_whole(build_warc(recs, gzip=False)) if layout == "whole" else b""
    archive = archive or build_warc(recs, gzip=layout == "members")
    items = read(archive + tail)
    assert [p.record_id for p in pages(items)] == [f"<urn:uuid:{i}>" for i in range(3)]
    assert [i.kind for i in issues(items)] == (["single_gzip_member"] if layout == "whole" else [])


@pytest.mark.parametrize("layout", ["members", "whole"])
@pytest.mark.parametrize("tail", [b"\n\nX", b"\n" * 70_000])
def test_a_tail_not_blank_or_too_long_to_look_at_is_still_reported(
    layout: str, tail: bytes
) -> None:
    recs = [html_response(f"http://e.com/{i}", HTML) for i in range(2)]
    archive = gzip_whole(build_warc(recs, gzip=False)) if layout == "whole" else build_warc(recs)
    items = read(archive + tail)
    assert len(pages(items)) == 2
    kinds = [i.kind for i in issues(items)]
    assert kinds[-2:] == ["unreadable", "truncated_file"]
    assert issues(items)[-1].offset == len(archive)


def test_empty_gzip_members_between_records_are_ignored() -> None:
    empty = gzip.compress(b"", mtime=0)
    a, b = (build_warc([html_response(f"http://e.com/{x}", HTML)]) for x in "ab")
    items = read(empty + a + empty + empty + b + empty)
    assert reasons(items) == ["page", "page"] and issues(items) == []


@pytest.mark.parametrize("version", ["WARC/0.17", "WARC/0.18", "WARC/1.1"])
def test_old_and_new_warc_versions(version: str) -> None:
    block = http_block("HTTP/1.1 200 OK", [("Content-Type", "text/html")], HTML)
    headers = [
        ("WARC-Type", "response"),
        ("WARC-Target-URI", "http://example.com/"),
        ("WARC-Date", "2008-10-294T05:21:46-0700"),  # invalid date, as ClueWeb09 wrote it
        ("WARC-Record-ID", "<urn:uuid:old>"),
        ("Content-Type", "application/http; msgtype=response"),
    ]
    data = raw_warc_record(headers, block, version=version) * 2
    items = read(data)
    assert reasons(items) == ["page", "page"]
    page = pages(items)[0]
    assert page.body == HTML and page.warc_date == "2008-10-294T05:21:46-0700"
    assert pages(items)[1].warc_offset == len(data) // 2


def test_records_with_missing_or_odd_headers_do_not_crash() -> None:
    block = http_block("HTTP/1.1 200 OK", [], HTML)  # no HTTP Content-Type: sniffed
    weird = raw_warc_record(
        [("WARC-Type", "response"), ("WARC-Target-URI", "http://ex ample.com/]x[%zz")],
        block,
        version="WARC/1.0",
    )
    no_type = raw_warc_record([("WARC-Record-ID", "<urn:uuid:nt>")], b"x", version="WARC/1.0")
    items = read(weird + no_type)
    page, rejected = records(items)
    assert page.body == HTML and page.record_id.startswith("<urn:warcclean:")
    assert "html_by_sniffing" in page.notes
    assert rejected.reason == "record_type:missing"


@pytest.mark.parametrize("gz", [True, False])
def test_arc_files(gz: bool) -> None:
    http = http_block("HTTP/1.0 200 OK", [("Content-Type", "text/html")], HTML)
    not_found = http_block("HTTP/1.0 404 Not Found", [("Content-Type", "text/html")], b"gone")
    data = build_arc(
        [
            ("http://example.com/", "text/html", http),
            ("http://example.com/x", "text/html", not_found),
            ("dns:example.com", "text/dns", b"20240102030405\nexample.com. 1 IN A 1.2.3.4\n"),
        ],
        gzip=gz,
    )
    items = read(data, path="x.arc")
    assert reasons(items) == ["record_type:warcinfo", "page", "http_status", "not_html"]
    page = pages(items)[0]
    assert (page.url, page.body, page.http_status) == ("http://example.com/", HTML, 200)
    assert page.warc_date == "2024-01-02T03:04:05Z"
    # ARC has no record ids: the derived one is stable across reads and distinct per record
    again = pages(read(data, path="x.arc"))[0]
    assert again.record_id == page.record_id
    assert len({r.record_id for r in records(items)}) == 4
    _, uri, _ = first_record_at(data, page.warc_offset, page.warc_length)
    assert uri == "http://example.com/"


def test_arc_negative_length_does_not_crash() -> None:
    good = http_block("HTTP/1.0 200 OK", [("Content-Type", "text/html")], HTML)
    data = build_arc([("http://example.com/", "text/html", good)], gzip=True)
    bad = gzip.compress(
        b"http://example.com/f.swf 1.2.3.4 20240102030405 application/x-shockwave-flash "
        b"-2046788874\nHTTP/1.0 200 OK\r\n\r\nFWS....\n",
        mtime=0,
    )
    items = read(
        data + bad + data[-len(gzip_whole(b"")) :] if False else data + bad, path="x.arc.gz"
    )
    assert reasons(items)[:2] == ["record_type:warcinfo", "page"]
    assert len(records(items)) == 3  # the damaged record is counted, not lost


class _Unseekable(io.RawIOBase):
    def __init__(self, data: bytes) -> None:
        self._inner = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
        chunk = self._inner.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)


def test_unseekable_stream_reads_and_reports_instead_of_resyncing() -> None:
    data = build_warc(ALL_TYPES, gzip=True)
    good = list(iter_records(_Unseekable(data), "pipe", max_body_bytes=None))
    assert reasons(good) == reasons(read(data))
    damaged = data + b"junk\r\n"
    items = list(iter_records(_Unseekable(damaged), "pipe", max_body_bytes=None))
    assert len(records(items)) == len(ALL_TYPES)
    assert [i.kind for i in issues(items)] == ["unreadable", "no_resync"]


def test_negative_cap_is_an_error() -> None:
    with pytest.raises(ValueError, match="max_body_bytes"):
        read(b"", cap=-1)


def test_empty_input_yields_nothing() -> None:
    assert read(b"") == []


def test_accounting_counter_matches_records_written() -> None:
    specs = [
        *ALL_TYPES,
        html_response("http://e.com/404", HTML, status=404),
        html_response("http://e.com/img", b"\x89PNG", content_type="image/png"),
    ]
    items = read(build_warc(specs))
    counts = Counter(reasons(items))
    assert sum(counts.values()) == len(specs)
    assert counts["page"] == 2 and counts["http_status"] == 1 and counts["not_html"] == 1


def test_understated_content_length_is_noted_on_the_page_and_not_printed(
    capfd: pytest.CaptureFixture[str],
) -> None:
    body = b"<html><body><p>Hello there, this is a page.</p></body></html>"
    block = http_block("HTTP/1.1 200 OK", [("Content-Type", "text/html")], body)
    records = [
        raw_warc_record(
            [
                ("WARC-Type", "response"),
                ("WARC-Record-ID", f"<urn:uuid:r{i}>"),
                ("WARC-Target-URI", f"http://e.com/{i}"),
                ("Content-Type", "application/http; msgtype=response"),
            ],
            block,
            version="WARC/1.0",
        )
        for i in range(3)
    ]
    # The first record claims 3 bytes fewer than it holds: warcio finds its tail where the
    # blank lines that end a record should be.
    records[0] = records[0].replace(
        f"Content-Length: {len(block)}".encode(), f"Content-Length: {len(block) - 3}".encode()
    )
    items = read(b"".join(records))
    assert [(p.record_id, p.notes) for p in pages(items)] == [
        ("<urn:uuid:r0>", ("content_length_mismatch",)),
        ("<urn:uuid:r1>", ()),
        ("<urn:uuid:r2>", ()),
    ]
    assert "not followed by newline" not in capfd.readouterr().err


def test_a_file_gzipped_whole_past_its_window_is_read_completely() -> None:
    # The gunzipped stream keeps a window of bytes behind the reading position and drops older
    # ones in large steps (`_GUNZIP_WINDOW`): every record past several such steps must still
    # be read whole, at its own offset in the gunzipped stream.
    from pipeline.warc import reader

    per_record = reader._GUNZIP_WINDOW // 6
    filler = b"<p>" + b"river bank flood " * (per_record // 17) + b"</p>"
    specs = [
        html_response(
            f"http://e.com/{i}", HTML[:-14] + filler + HTML[-14:], record_id=f"<urn:r{i}>"
        )
        for i in range(20)
    ]
    plain = build_warc(specs, gzip=False)
    assert len(plain) > 3 * reader._GUNZIP_WINDOW
    items = read(gzip_whole(plain))
    got = pages(items)
    assert [p.record_id for p in got] == [f"<urn:r{i}>" for i in range(20)]
    assert all(p.body.endswith(b"</p></body></html>") and not p.truncated for p in got)
    for page in got:
        rid, _, _ = first_record_at(plain, page.warc_offset, page.warc_length)
        assert rid == page.record_id
