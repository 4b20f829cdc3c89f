"""Build small WARC and ARC files in memory for tests (warcio's WARCWriter for WARC/1.x).

`build_warc([html_response(...), request_record(...), ...], gzip=True) -> bytes` is the main entry;
`raw_warc_record` writes old-version records (WARC/0.17, 0.18) byte by byte, `build_arc` writes
ARC v1. Every spec gets a deterministic record id, so tests can look records up by it.
"""

from __future__ import annotations

import gzip as gzip_module
import io
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import brotli
from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

WARC_DATE = "2024-01-02T03:04:05Z"


@dataclass(frozen=True)
class RecordSpec:
    """One record to write. ``block`` is the payload as stored (already chunked/compressed)."""

    record_type: str
    url: str
    block: bytes = b""
    record_id: str = ""
    # HTTP status line and headers; None for records without an HTTP message (resource, ...)
    status_line: str | None = None
    http_headers: tuple[tuple[str, str], ...] = ()
    content_type: str | None = None  # WARC Content-Type, for records without HTTP headers
    warc_headers: tuple[tuple[str, str], ...] = field(default_factory=tuple)


_counter = iter(range(1, 1_000_000))


def _rid(record_id: str) -> str:
    return record_id or f"<urn:uuid:00000000-0000-0000-0000-{next(_counter):012d}>"


def encode_body(
    body: bytes, *, content_encoding: str | None = None, chunked: bool = False, chunk: int = 7
) -> bytes:
    """Apply Content-Encoding (gzip, deflate, deflate-raw, br), then chunked transfer coding."""
    if content_encoding == "gzip":
        body = gzip_module.compress(body, mtime=0)
    elif content_encoding == "deflate":
        body = zlib.compress(body)
    elif content_encoding == "deflate-raw":
        comp = zlib.compressobj(wbits=-15)
        body = comp.compress(body) + comp.flush()
    elif content_encoding == "br":
        body = brotli.compress(body)
    elif content_encoding is not None:
        raise ValueError(f"unknown content encoding {content_encoding!r}")
    if chunked:
        parts = [
            b"%x\r\n%s\r\n" % (len(body[i : i + chunk]), body[i : i + chunk])
            for i in range(0, len(body), chunk)
        ]
        body = b"".join(parts) + b"0\r\n\r\n"
    return body


def html_response(
    url: str,
    html: bytes | str,
    *,
    status: int = 200,
    content_type: str | None = "text/html; charset=utf-8",
    content_encoding: str | None = None,
    chunked: bool = False,
    declare_only: bool = False,
    record_id: str = "",
    record_type: str = "response",
    extra_headers: Iterable[tuple[str, str]] = (),
) -> RecordSpec:
    """A response record with an HTTP message. ``declare_only`` writes the encoding headers but
    stores the body plain (what many real writers do after decoding)."""
    body = html.encode() if isinstance(html, str) else html
    stored = (
        body
        if declare_only
        else encode_body(body, content_encoding=content_encoding, chunked=chunked)
    )
    headers: list[tuple[str, str]] = []
    if content_type is not None:
        headers.append(("Content-Type", content_type))
    if content_encoding is not None:
        headers.append(
            (
                "Content-Encoding",
                "deflate" if content_encoding == "deflate-raw" else content_encoding,
            )
        )
    if chunked:
        headers.append(("Transfer-Encoding", "chunked"))
    else:
        headers.append(("Content-Length", str(len(stored))))
    headers.extend(extra_headers)
    reason = {200: "OK", 404: "Not Found", 301: "Moved Permanently"}.get(status, "Status")
    return RecordSpec(
        record_type=record_type,
        url=url,
        block=stored,
        record_id=_rid(record_id),
        status_line=f"{status} {reason}",
        http_headers=tuple(headers),
    )


def resource_record(
    url: str, block: bytes, content_type: str | None, *, record_id: str = ""
) -> RecordSpec:
    return RecordSpec("resource", url, block, _rid(record_id), content_type=content_type)


def request_record(url: str, *, record_id: str = "") -> RecordSpec:
    return RecordSpec(
        "request",
        url,
        b"",
        _rid(record_id),
        status_line=f"GET {url} HTTP/1.1",
        http_headers=(("Host", "example.com"),),
    )


def plain_record(
    record_type: str,
    url: str,
    block: bytes = b"x",
    *,
    content_type: str = "text/plain",
    record_id: str = "",
) -> RecordSpec:
    """warcinfo, metadata, conversion, continuation ... (no HTTP message)."""
    return RecordSpec(record_type, url, block, _rid(record_id), content_type=content_type)


def revisit_record(url: str, *, record_id: str = "") -> RecordSpec:
    return RecordSpec(
        "revisit",
        url,
        b"",
        _rid(record_id),
        status_line="200 OK",
        http_headers=(("Content-Type", "text/html"),),
        warc_headers=(
            ("WARC-Profile", "http://netpreserve.org/warc/1.0/revisit/identical-payload-digest"),
            ("WARC-Refers-To", "<urn:uuid:missing-original>"),
        ),
    )


def build_warc(records: Sequence[RecordSpec], gzip: bool = True, *, version: str = "1.0") -> bytes:
    """A WARC file; ``gzip=True`` writes one gzip member per record (the standard layout)."""
    out = io.BytesIO()
    writer = WARCWriter(out, gzip=gzip, warc_version=version)
    for spec in records:
        warc_headers = {"WARC-Record-ID": spec.record_id or _rid(""), "WARC-Date": WARC_DATE}
        warc_headers.update(dict(spec.warc_headers))
        http = None
        if spec.status_line is not None:
            protocol = "HTTP/1.1" if spec.record_type != "request" else ""
            http = StatusAndHeaders(
                spec.status_line,
                list(spec.http_headers),
                protocol=protocol,
                is_http_request=spec.record_type == "request",
            )
        record = writer.create_warc_record(
            spec.url,
            spec.record_type,
            payload=io.BytesIO(spec.block),
            length=len(spec.block),
            http_headers=http,
            warc_content_type=spec.content_type or "",
            warc_headers_dict=warc_headers,
        )
        if http is None and spec.content_type is None:
            record.content_type = None  # warcio writes no Content-Type header then
        writer.write_record(record)
    return out.getvalue()


def raw_warc_record(
    headers: Sequence[tuple[str, str]], block: bytes, *, version: str = "WARC/0.18"
) -> bytes:
    """One WARC record written by hand (any version line, any headers), CRLF-terminated."""
    lines = [version] + [f"{k}: {v}" for k, v in headers] + [f"Content-Length: {len(block)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + block + b"\r\n\r\n"


def http_block(status_line: str, headers: Sequence[tuple[str, str]], body: bytes) -> bytes:
    head = "\r\n".join([status_line, *(f"{k}: {v}" for k, v in headers)]) + "\r\n\r\n"
    return head.encode("latin-1") + body


def build_arc(
    records: Sequence[tuple[str, str, bytes]], gzip: bool = True, *, date: str = "20240102030405"
) -> bytes:
    """ARC v1: a filedesc header, then (url, mime, block) records; gzip=True: one member each."""
    desc_body = b"1 0 warcclean-test\nURL IP-address Archive-date Content-type Archive-length\n"
    members = [
        b"filedesc://test.arc 0.0.0.0 %s text/plain %d\n%s\n"
        % (date.encode(), len(desc_body), desc_body)
    ]
    for url, mime, block in records:
        members.append(
            b"%s 93.184.216.34 %s %s %d\n%s\n"
            % (url.encode(), date.encode(), mime.encode(), len(block), block)
        )
    if not gzip:
        return b"".join(members)
    return b"".join(gzip_module.compress(m, mtime=0) for m in members)


def gzip_whole(data: bytes) -> bytes:
    """The common mistake: a whole uncompressed WARC gzipped as one member."""
    return gzip_module.compress(data, mtime=0)


def warcio_index(data: bytes) -> list[tuple[str | None, str, int, int]]:
    """(record id, type, offset, length) of each record as warcio sees it (test oracle)."""
    out = []
    it = ArchiveIterator(io.BytesIO(data))
    for record in it:
        out.append(
            (
                record.rec_headers.get_header("WARC-Record-ID"),
                record.rec_type,
                it.get_record_offset(),
                it.get_record_length(),
            )
        )
    return out


def first_record_at(data: bytes, offset: int, length: int) -> tuple[str | None, str, bytes]:
    """Parse the bytes [offset, offset+length) alone: (record id, target URI, raw payload).

    The slice is gunzipped first when it is gzip, and leading blank lines are dropped (a gzip
    member may start with the CRLFs that ended the previous record).
    """
    chunk = data[offset : offset + length]
    if chunk[:2] == b"\x1f\x8b":
        chunk = gunzip_members(chunk)
    it = ArchiveIterator(io.BytesIO(chunk.lstrip(b"\r\n")), arc2warc=False)
    record = next(iter(it))
    is_arc = record.format == "arc"
    rid = None if is_arc else record.rec_headers.get_header("WARC-Record-ID")
    uri = record.rec_headers.get_header("uri" if is_arc else "WARC-Target-URI") or ""
    return rid, uri, record.raw_stream.read()


def gunzip_members(data: bytes) -> bytes:
    """Gunzip consecutive gzip members, keeping what decodes of a member cut short."""
    out = []
    while data[:2] == b"\x1f\x8b":
        d = zlib.decompressobj(31)
        out.append(d.decompress(data))
        if not d.eof:
            break
        data = d.unused_data
    return b"".join(out)
