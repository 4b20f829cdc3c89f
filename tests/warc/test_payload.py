"""HTTP payload decoding on bytes alone: codings, fallbacks for mislabelled bodies, caps, sniffs."""

from __future__ import annotations

import gzip
import io
import random
import tracemalloc
import zlib
from collections.abc import Callable

import brotli
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.warc.payload import (
    Payload,
    classify_type,
    dechunk,
    decode_payload,
    media_type,
    read_capped,
    sniff_kind,
)
from tests.warc_builders import encode_body

HTML = b"<!doctype html><html><head><title>T</title></head><body><p>Hello world.</p></body></html>"
NOISE = random.Random(1).randbytes(400)


def chunked(body: bytes, size: int = 7) -> bytes:
    return encode_body(body, chunked=True, chunk=size)


def _raw_deflate(data: bytes) -> bytes:
    comp = zlib.compressobj(wbits=-15)
    return comp.compress(data) + comp.flush()


# Each way a server encodes a body: its Content-Encoding and a compressor.
_CODERS = {
    "gzip": ("gzip", lambda b: gzip.compress(b, mtime=0)),
    "deflate-zlib": ("deflate", zlib.compress),
    "deflate-raw": ("deflate", _raw_deflate),
    "br": ("br", brotli.compress),
}


def coders(*names: str) -> pytest.MarkDecorator:
    """Parametrize ``coding, compress`` over the named `_CODERS`."""
    return pytest.mark.parametrize(
        ("coding", "compress"), [_CODERS[n] for n in names], ids=list(names)
    )


@pytest.mark.parametrize(
    ("encoding", "is_chunked"),
    [
        (None, True),
        ("gzip", False),
        ("gzip", True),
        ("deflate", False),
        ("deflate-raw", False),
        ("br", False),
        ("br", True),
    ],
)
def test_chunked_and_encoded_bodies_decode(encoding: str | None, is_chunked: bool) -> None:
    raw = encode_body(HTML, content_encoding=encoding, chunked=is_chunked)
    declared = "deflate" if encoding == "deflate-raw" else encoding
    got = decode_payload(raw, "chunked" if is_chunked else None, declared)
    assert got == Payload(HTML, complete=True, notes=(), undecodable=None)


def test_no_headers_returns_the_stored_bytes() -> None:
    assert decode_payload(NOISE, None, None) == Payload(NOISE)


def test_codings_are_undone_last_applied_first_and_identity_is_ignored() -> None:
    raw = brotli.compress(gzip.compress(HTML, mtime=0))
    assert decode_payload(raw, None, "identity, GZIP , br").body == HTML


def test_x_gzip_and_concatenated_members_decode() -> None:
    raw = gzip.compress(HTML[:40], mtime=0) + gzip.compress(HTML[40:], mtime=0)
    assert decode_payload(raw, None, "x-gzip") == Payload(HTML)


def test_chunk_extensions_and_bare_lf_line_ends_are_accepted() -> None:
    raw = b"5;name=v\nHello\n6\r\n world\r\n0\r\n\r\n"
    assert dechunk(raw) == (b"Hello world", True)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (chunked(HTML)[:30], (HTML[:17], False)),  # cut inside the third chunk's data
        (b"5\r\nHello\r\nzz\r\nmore", (b"Hello", False)),  # bad size line after a good chunk
        (b"5\r\nHello\r\n5\r\nworldXX", (b"Hello", False)),  # data not ended by a line end
        (b"5\r\nHello\r\n", (b"Hello", False)),  # no terminating zero chunk
        (b"5\r\nHello\r\n5\r\nworld", (b"Helloworld", False)),  # cut before a line end
        (b"5\r\nHello", (b"Hello", False)),
        (b"000000000000000a\r\n0123456789\r\n0\r\n\r\n", (b"0123456789", True)),  # 16 digits
        (HTML, None),  # not chunked at all
        (b"", None),
        (b"12345678901234567\r\nx", None),  # size field longer than any real one
    ],
)
def test_broken_chunking(raw: bytes, expected: tuple[bytes, bool] | None) -> None:
    assert dechunk(raw) == expected


def test_chunking_cut_short_marks_the_payload_incomplete() -> None:
    got = decode_payload(chunked(HTML)[:30], "chunked", None)
    assert (got.body, got.complete, got.notes) == (HTML[:17], False, ())


@coders("gzip", "br")
def test_a_stream_cut_short_keeps_what_decoded(
    coding: str, compress: Callable[[bytes], bytes]
) -> None:
    page = HTML + random.Random(2).randbytes(3000).hex().encode() + HTML
    raw = compress(page)
    got = decode_payload(raw[: len(raw) // 2], None, coding)
    assert got.complete is False and got.undecodable is None
    assert got.body and page.startswith(got.body)


def test_a_gzip_member_with_trailing_bytes_is_complete() -> None:
    # Servers append a line end after the stream; it is no second member.
    assert decode_payload(gzip.compress(HTML, mtime=0) + b"\r\n", None, "gzip") == Payload(HTML)


def test_a_corrupt_later_gzip_member_keeps_the_members_before_it() -> None:
    first = gzip.compress(HTML, mtime=0)
    got = decode_payload(first + b"\x1f\x8b" + b"X" * 12, None, "gzip")
    assert got == Payload(HTML, complete=False)
    got = decode_payload(first + first + b"\x1f\x8bX", None, "gzip")
    assert got == Payload(HTML + HTML, complete=False)


@coders("gzip", "deflate-zlib", "br")
def test_an_empty_stream_decodes_to_an_empty_body(
    coding: str, compress: Callable[[bytes], bytes]
) -> None:
    assert decode_payload(compress(b""), None, coding) == Payload(b"")


@coders("gzip", "deflate-zlib", "deflate-raw")
def test_back_references_reach_across_the_whole_32k_window(
    coding: str, compress: Callable[[bytes], bytes]
) -> None:
    page = random.Random(3).randbytes(20_000) * 2  # the repeat refers 20,000 bytes back
    assert decode_payload(compress(page), None, coding) == Payload(page)


def test_a_coding_name_is_cut_to_20_characters_in_notes() -> None:
    name = "x-" + "a" * 30
    got = decode_payload(HTML, None, name)
    assert got.notes == (f"ce_unsupported:{name[:20]}",)
    assert decode_payload(NOISE, None, name).undecodable == name[:20]


def test_an_empty_body_under_an_unknown_coding_is_no_binary() -> None:
    assert decode_payload(b"", None, "zstd") == Payload(b"", notes=("ce_unsupported:zstd",))


@pytest.mark.parametrize(
    ("transfer", "coding", "note"),
    [
        ("chunked", None, "te_chunked_not_chunked"),
        (None, "gzip", "ce_gzip_not_encoded"),
        (None, "br", "ce_br_not_encoded"),
        (None, "deflate", "ce_deflate_not_encoded"),
    ],
)
def test_declared_but_plain_bodies_come_through_plain(
    transfer: str | None, coding: str | None, note: str
) -> None:
    assert decode_payload(HTML, transfer, coding) == Payload(HTML, notes=(note,))


def test_unknown_coding_keeps_a_plain_body() -> None:
    assert decode_payload(HTML, None, "zstd") == Payload(HTML, notes=("ce_unsupported:zstd",))


def test_an_undecodable_coding_ends_the_decoding() -> None:
    # Codings are undone last applied first: once one cannot be, the ones before it are not tried.
    assert decode_payload(HTML, None, "gzip, zstd") == Payload(HTML, notes=("ce_unsupported:zstd",))


@pytest.mark.parametrize(
    ("size", "controls", "binary"),
    [(40, 2, False), (40, 3, True), (38, 2, True)],  # 5% of control bytes is text, more is not
)
def test_a_body_is_still_compressed_above_one_control_byte_in_20(
    size: int, controls: int, binary: bool
) -> None:
    body = b"\x01" * controls + b"a" * (size - controls)
    got = decode_payload(body, None, "gzip")
    assert got.body == body and got.notes == ("ce_gzip_not_encoded",)
    assert got.undecodable == ("gzip" if binary else None)


@pytest.mark.parametrize(
    ("byte", "control"),
    [
        *[(b, True) for b in (0, 1, 8, 14, 26, 28, 31)],
        # tab, line feed, vertical tab, form feed, carriage return, escape: in text
        *[(b, False) for b in (9, 10, 11, 12, 13, 27, 32, 127)],
    ],
)
def test_which_bytes_count_as_control_bytes(byte: int, control: bool) -> None:
    body = bytes([byte]) * 3 + b"a" * 37
    assert decode_payload(body, None, "zstd").undecodable == ("zstd" if control else None)


@pytest.mark.parametrize("coding", ["gzip", "deflate", "br", "zstd"])
def test_still_compressed_bodies_name_the_coding(coding: str) -> None:
    got = decode_payload(NOISE, None, coding)
    assert got.undecodable == coding and got.body == NOISE


@coders("gzip", "deflate-zlib", "deflate-raw", "br")
def test_cap_bounds_the_decompressed_size(coding: str, compress: Callable[[bytes], bytes]) -> None:
    bomb = b"<html>" + b" " * 1_000_000
    got = decode_payload(compress(bomb), None, coding, cap=1000)
    assert got.body == bomb[:1000] and got.complete is False
    exact = decode_payload(compress(HTML), None, coding, cap=len(HTML))
    assert exact == Payload(HTML)  # a body exactly at the cap is complete


@pytest.mark.parametrize(
    ("coding", "compress"),
    [
        ("gzip", lambda b: gzip.compress(b, compresslevel=1, mtime=0)),
        ("deflate", lambda b: zlib.compress(b, 1)),
        ("br", lambda b: brotli.compress(b, quality=1)),
    ],
    ids=["gzip", "deflate", "br"],
)
def test_a_bomb_never_takes_much_more_memory_than_the_cap(
    coding: str, compress: Callable[[bytes], bytes]
) -> None:
    # 50 MB of spaces behind a few kB: decoded whole and then cut, it would hold the 50 MB.
    bomb = compress(b"<html>" + b" " * 50_000_000)
    tracemalloc.start()
    try:
        got = decode_payload(bomb, None, coding, cap=1_000_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(got.body) == 1_000_000 and got.complete is False
    assert peak < 5_000_000, peak


@pytest.mark.parametrize(
    ("data", "cap", "kept", "capped"),
    [
        (b"x" * 200_000, None, 200_000, False),
        (b"x" * 200_000, 100, 100, True),
        (b"x" * 200_000, 100_000, 100_000, True),  # the cap falls in a later read
        (b"x" * 200_000, 199_999, 199_999, True),  # ... in the last one
        (b"x" * 200_000, 200_000, 200_000, False),
        (b"x" * 200_000, 0, 0, True),
        (b"abc", 3, 3, False),
        (b"", 10, 0, False),
    ],
)
def test_read_capped_keeps_the_cap_and_drains_the_rest(
    data: bytes, cap: int | None, kept: int, capped: bool
) -> None:
    stream = io.BytesIO(data)
    assert read_capped(stream, cap) == (data[:kept], capped)
    assert stream.read() == b""


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        (HTML, "html"),
        (b"  \r\n<HTML><BODY>x</BODY></HTML>", "html"),
        (b"\xef\xbb\xbf<!-- c --><p>x", "html"),
        (b"<?xml version='1.0'?><html/>", "html"),
        (b"<p>", "html"),
        (b"<b", "html"),  # a signature that ends the sniffed bytes
        (b"<pre>x</pre>", "other"),  # '<p' must end the tag name
        (b"<?xml version='1.0'?><rss/>", "other"),
        (b'{"a": 1}', "other"),
        (b"GIF89a......", "other"),
        (b"", "empty"),
        (b" \r\n\t", "empty"),
        (b" " * 2000 + b"<html>", "empty"),  # only the first bytes are sniffed
        (b" " * 1019 + b"<html>", "html"),  # "<html" ends the first 1,024 bytes
        (b" " * 1020 + b"<html>", "other"),  # "<htm" does: no signature
    ],
)
def test_sniff_kind(body: bytes, kind: str) -> None:
    assert sniff_kind(body) == kind


@pytest.mark.parametrize(
    ("content_type", "mime", "klass"),
    [
        ("TEXT/HTML; charset=utf-8", "text/html", "html"),
        ("application/xhtml+xml", "application/xhtml+xml", "html"),
        (None, "", "unknown"),
        ("application/octet-stream", "application/octet-stream", "unknown"),
        ("unk", "unk", "unknown"),
        ("html", "html", "unknown"),  # no slash: not a media type, so sniffed
        ("image/png", "image/png", "other"),
        ("text/plain", "text/plain", "other"),
    ],
)
def test_media_type_and_its_class(content_type: str | None, mime: str, klass: str) -> None:
    assert media_type(content_type) == mime
    assert classify_type(mime) == klass


@settings(max_examples=150, deadline=None)
@given(body=st.binary(max_size=300), size=st.integers(min_value=1, max_value=40))
def test_dechunk_inverts_chunking(body: bytes, size: int) -> None:
    assert dechunk(chunked(body, size)) == (body, True)


@settings(max_examples=150, deadline=None)
@given(
    raw=st.binary(max_size=300),
    transfer=st.sampled_from([None, "chunked"]),
    coding=st.sampled_from([None, "gzip", "deflate", "br", "zstd", "gzip, br"]),
    cap=st.one_of(st.none(), st.integers(min_value=0, max_value=200)),
)
def test_any_bytes_decode_without_raising(
    raw: bytes, transfer: str | None, coding: str | None, cap: int | None
) -> None:
    got = decode_payload(raw, transfer, coding, cap)
    assert isinstance(got.body, bytes)
    assert got.undecodable is None or got.undecodable in (coding or "")
