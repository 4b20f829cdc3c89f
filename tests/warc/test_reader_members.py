"""The reader's fast path over plain gzip members (`pipeline.warc.members`) changes nothing.

Every check compares the reader as shipped with the segment reader alone (the fast path
disabled): the same items, rejections, issues and offsets, in the same order. On the real files,
on damaged files from the fuzz mutators, and with the fast path's buffers shrunk to a few bytes
and its member cap to a few hundred, so that members straddle reads and hand-overs happen
mid-file.
"""

from __future__ import annotations

import dataclasses
import gzip
import io
import random
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import pipeline.warc.members as members
import pipeline.warc.reader as reader
from pipeline.types import RawPage, Rejected
from pipeline.warc.reader import NotAnArchive, ReaderIssue, iter_records
from tests.fuzz_mutators import length_mutants, make_mutant
from tests.warc_builders import (
    build_warc,
    html_response,
    plain_record,
    request_record,
    resource_record,
    revisit_record,
)


def _segment_reader_only(stream: Any, start: int, *args: Any) -> Iterator[Any]:
    return start
    yield  # a generator that hands over at once


def _read(data: bytes, *, fast: bool = True, cap: int | None = None) -> list[Any]:
    with pytest.MonkeyPatch.context() as mp:
        if not fast:
            mp.setattr(reader, "read_members", _segment_reader_only)
        try:
            return list(iter_records(io.BytesIO(data), "t.warc.gz", max_body_bytes=cap))
        except NotAnArchive as exc:  # (the same answer both ways is what counts)
            return [f"not an archive: {exc}"]


def _fast_path_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any use of the segment reader fail the test: what follows is read by the
    gzip-member fast path alone."""

    def no_segment_reader(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the segment reader was used")

    monkeypatch.setattr(reader._SegmentReader, "read_segment", no_segment_reader)


def _assert_same(data: bytes, cap: int | None = None) -> list[Any]:
    fast = _read(data, cap=cap)
    assert fast == _read(data, fast=False, cap=cap)
    return fast


def _pages(n: int) -> list[Any]:
    rng = random.Random(n)
    specs: list[Any] = [plain_record("warcinfo", "", b"software: t\r\n")]
    for i in range(n):
        url = f"https://e.example/{i}"
        words = " ".join(rng.choice(["alpha", "beta", "gamma", "délta"]) for _ in range(400))
        specs += [
            request_record(url, record_id=f"q{i}"),
            html_response(url, f"<html><body><p>{words}</p></body></html>", record_id=f"r{i}"),
            plain_record("metadata", url, b"fetchTimeMs: 12\r\n", record_id=f"m{i}"),
        ]
    return specs


def test_common_crawl_layout_is_read_by_the_fast_path_alone(monkeypatch) -> None:
    data = build_warc(_pages(20))
    expected = _read(data, fast=False)

    _fast_path_only(monkeypatch)

    def no_warcio_parse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("warcio's loader parsed a plain record's headers")

    # ... and their plain ASCII headers by its own parse, which is what makes it fast: a parse
    # that declined them would still give the same items, through warcio's slower one.
    monkeypatch.setattr(members, "_parse_with_warcio", no_warcio_parse)
    assert _read(data) == expected
    assert sum(isinstance(i, RawPage) for i in expected) == 20
    assert not any(isinstance(i, ReaderIssue) for i in expected)


def test_headers_the_simple_parse_leaves_to_warcio_come_out_the_same() -> None:
    specs = [
        html_response("https://e.example/a", "<p>a</p>", record_id="a"),
        # non-ASCII header values, a header without a value, an empty status reason
        html_response(
            "https://e.example/b",
            "<p>b</p>",
            record_id="b",
            extra_headers=[
                ("Content-Disposition", "inline; filename=\u00e9t\u00e9.html"),
                ("X", ""),
            ],
        ),
        html_response("HTTPS://e.example/c", "<p>c</p>", record_id="c"),
        resource_record("https://e.example/d", b"<p>d</p>", "text/html", record_id="d"),
        revisit_record("https://e.example/e", record_id="e"),
        html_response("https://e.example/f", "<p>f</p>", status=404, record_id="f"),
        html_response("ftp://e.example/g", "<p>g</p>", record_id="g"),
        html_response("https://e.example/h", "gzipped", content_encoding="gzip", record_id="h"),
    ]
    items = _assert_same(build_warc(specs))
    # (the ftp record's block is declared application/http: it is read as one)
    kinds = [type(i) for i in items]
    assert kinds == [RawPage] * 4 + [Rejected] * 2 + [RawPage] * 2


def _by_hand(warc: list[str], http: list[str], body: bytes = b"<p>hand</p>") -> bytes:
    block = ("\r\n".join(["HTTP/1.1 200 OK", *http]) + "\r\n\r\n").encode("latin-1") + body
    head = "\r\n".join(["WARC/1.0", *warc, f"Content-Length: {len(block)}"]) + "\r\n\r\n"
    return gzip.compress(head.encode("latin-1") + block + b"\r\n\r\n")


@pytest.mark.parametrize(
    ("warc", "http"),
    [
        # continuation lines, after a value and after none
        (["WARC-Type: response", "WARC-Target-URI: https://e.example/x"], ["X-A:", "  folded"]),
        (["WARC-Type: response", "WARC-Target-URI: https://e.example/x"], ["X-A: a", "\tb  "]),
        # a line without a colon, a value with trailing blanks, names with blanks before the colon
        (["WARC-Type: response", "WARC-Target-URI: https://e.example/x"], ["junk", "X-B \t: v  "]),
        # duplicate names (the first one counts), upper-case names, no space after the colon
        (
            ["WARC-Type:response", "WARC-TYPE: metadata", "WARC-Target-URI:https://e.example/x"],
            ["CONTENT-TYPE:text/html", "Content-Type: text/plain"],
        ),
        # a target URI in angle brackets (wget) and one with a space
        (["WARC-Type: response", "WARC-Target-URI: <https://e.example/x>"], []),
        (["WARC-Type: response", "WARC-Target-URI: https://e.example/a b"], []),
        # no target URI, no type, a type in capitals
        (["WARC-Type: response"], []),
        ([], []),
        (["WARC-Type: RESPONSE", "WARC-Target-URI: https://e.example/x"], []),
    ],
)
def test_hand_written_headers_read_as_warcio_reads_them(warc: list[str], http: list[str]) -> None:
    first = build_warc(_pages(1))
    _assert_same(first + _by_hand(warc, http) + first)


def _members(data: bytes) -> list[bytes]:
    """The stored gzip members of a file written one record per member."""
    out, rest = [], data
    while rest:
        inflater = zlib.decompressobj(31)
        inflater.decompress(rest)
        size = len(rest) - len(inflater.unused_data)
        out.append(rest[:size])
        rest = rest[size:]
    return out


@pytest.mark.parametrize(
    "damage",
    [
        "empty member",
        "junk between members",
        "two records in one member",
        "length one short",
        "lf after block",
        "member cut",
        "blank line first",
        "arc member",
    ],
)
@pytest.mark.parametrize("where", [0, 3, 6])
def test_hand_over_at_any_odd_member(damage: str, where: int) -> None:
    parts = _members(build_warc(_pages(3)))
    raw = gzip.decompress(parts[where])
    if damage == "empty member":
        parts.insert(where, gzip.compress(b""))
    elif damage == "junk between members":
        parts.insert(where, b"junk\r\n")
    elif damage == "two records in one member":
        parts[where : where + 2] = [gzip.compress(raw + gzip.decompress(parts[where + 1]))]
    elif damage == "length one short":
        parts[where] = gzip.compress(raw[:-5] + b"\r\n\r\n")
    elif damage == "lf after block":
        parts[where] = gzip.compress(raw[:-4] + b"\n\n")
    elif damage == "member cut":
        parts[where] = parts[where][: len(parts[where]) // 2]
    elif damage == "blank line first":
        parts[where] = gzip.compress(b"\r\n" + raw)
    else:
        parts[where] = gzip.compress(b"filedesc://x.arc 0.0.0.0 20240102030405 text/plain 3\nabc\n")
    _assert_same(b"".join(parts))


def test_tiny_buffers_and_member_cap_change_nothing(monkeypatch) -> None:
    data = build_warc(_pages(8))
    expected = _read(data, fast=False)
    for feed, read, cap in [
        (1, 1, 1 << 21),
        (5, 13, 1 << 21),
        (64, 97, 700),
        (1 << 16, 1 << 20, 0),
    ]:
        monkeypatch.setattr(members, "_FEED", feed)
        monkeypatch.setattr(members, "_READ", read)
        monkeypatch.setattr(members, "MAX_MEMBER", cap)
        assert _read(data) == expected, (feed, read, cap)


@pytest.mark.parametrize("cap", [None, 0, 1000, 70_000, 3_000_000, 4_000_000])
def test_a_large_page_under_any_body_cap(cap: int | None) -> None:
    # Past the cap only the headers and the capped body are kept, as the segment reader keeps.
    rng = random.Random(3)
    big = "<p>" + rng.randbytes(1_750_000).hex()
    specs = [*_pages(1), html_response("https://e.example/big", big, record_id="big"), *_pages(1)]
    items = _assert_same(build_warc(specs), cap)
    (page,) = [i for i in items if isinstance(i, RawPage) and i.record_id == "big"]
    assert len(page.body) == min(len(big), cap if cap is not None else len(big))
    assert page.truncated == (cap is not None and cap < len(big))


@pytest.mark.parametrize("cap", [0, 1000, 70_000])
def test_a_capped_page_is_read_by_the_fast_path_alone(monkeypatch, cap: int) -> None:
    # A member is inflated only as far as the headers and the capped body (`read_members`'
    # allowance for the two header blocks): enough for the record, without the segment reader.
    rng = random.Random(4)
    big = "<p>" + rng.randbytes(300_000).hex()
    specs = [*_pages(2), html_response("https://e.example/big", big, record_id="big"), *_pages(2)]
    data = build_warc(specs)
    expected = _read(data, fast=False, cap=cap)

    _fast_path_only(monkeypatch)
    assert _read(data, cap=cap) == expected


def test_a_folded_warc_header_line_is_read_by_the_fast_path_alone(monkeypatch) -> None:
    # An obsolete line folding (a continuation line) in the WARC header takes the header
    # parser's longer way, which still gives warcio's headers without the segment reader.
    page = html_response("https://e.example/f", "<p>folded</p>", record_id="f")
    folded = dataclasses.replace(page, warc_headers=(("X-Folded", "one\r\n two"),))
    data = build_warc([*_pages(1), folded, *_pages(1)])
    assert b"X-Folded: one\r\n two\r\n" in gzip.decompress(data)
    expected = _read(data, fast=False)
    assert [i.record_id for i in expected if isinstance(i, RawPage)].count("f") == 1

    _fast_path_only(monkeypatch)
    assert _read(data) == expected


def test_a_stream_that_does_not_start_at_zero() -> None:
    data = build_warc(_pages(3))
    stream = io.BytesIO(b"\x00" * 10 + data)
    stream.seek(10)
    fast = list(iter_records(stream, "t"))
    assert [i.warc_offset for i in fast if isinstance(i, RawPage)] == [
        i.warc_offset + 10 for i in _read(data) if isinstance(i, RawPage)
    ]


def test_fuzzed_files_read_the_same() -> None:
    mutants = length_mutants()
    rng = random.Random(36)
    mutants += [make_mutant(rng) for _ in range(600)]
    for m in mutants:
        assert _read(m.data) == _read(m.data, fast=False), m.label


@pytest.mark.shared
def test_real_files_read_the_same(real_warcs_dir: Path, monkeypatch) -> None:
    files = sorted(p for p in real_warcs_dir.iterdir() if p.name != "SOURCES.md")
    for path in files:
        data = path.read_bytes()
        expected = _read(data, fast=False)
        assert _read(data) == expected, path.name
        with monkeypatch.context() as mp:
            mp.setattr(members, "_FEED", 7)
            mp.setattr(members, "_READ", 101)
            mp.setattr(members, "MAX_MEMBER", 5000)
            assert _read(data) == expected, path.name


@pytest.mark.parametrize(
    ("headers", "glued"),
    [
        ([("WARC-Type", "response"), ("Content-Length", "12")], False),
        # a value that names a version, not at its end, is a value like any other
        ([("WARC-Target-URI", "https://e.example/WARC/1.0/spec")], False),
        # a header line cut short, the next record's version line glued to its end
        ([("WARC-Target-URI", "https://e.example/pWARC/1.0")], True),
        ([("WARC-Record-ID", "<urn:a>"), ("warc-record-id", "<urn:b>")], True),
        ([("Content-Length", "1"), ("WARC-Type", "request"), ("Content-Length", "2")], True),
    ],
)
def test_two_records_headers_read_as_one_are_told_apart(
    headers: list[tuple[str, str]], glued: bool
) -> None:
    assert members.glued_headers(headers) is glued
