"""Decoding one HTTP payload as a crawler stored it: transfer/content codings, HTML sniffing, caps.

Nothing here knows about WARC records (that is `pipeline.warc.reader`, the only warcio importer):
the functions take bytes and header values, so they can be tested and reused without an archive.

Stored bodies are often not what their headers say: many writers save de-chunked and decoded
bodies but keep the original ``Transfer-Encoding`` / ``Content-Encoding`` headers. A body that does
not decode as declared is therefore taken as already plain and noted (``te_chunked_not_chunked``,
``ce_<coding>_not_encoded``, ``ce_unsupported:<coding>``), unless the bytes still look compressed,
in which case `Payload.undecodable` names the coding so the caller can reject the record.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

import brotli

HTML_TYPES = frozenset(
    {"text/html", "application/xhtml+xml", "application/vnd.wap.xhtml+xml", "text/xhtml"}
)

# Labels crawlers write when the server sent no usable type: decide by sniffing the body.
UNKNOWN_TYPES = frozenset(
    {
        "",
        "unk",
        "unknown",
        "no-type",
        "none",
        "*/*",
        "application/octet-stream",
        "binary/octet-stream",
        "application/unknown",
        "application/x-unknown-content-type",
        "application/http",
        "text/unknown",
    }
)

# WHATWG MIME sniffing's HTML signatures (plus <meta>/<link>, common first tags in the wild).
_HTML_SIGNATURES = (
    b"<!doctype html",
    b"<html",
    b"<head",
    b"<script",
    b"<iframe",
    b"<h1",
    b"<div",
    b"<font",
    b"<table",
    b"<a",
    b"<style",
    b"<title",
    b"<b",
    b"<body",
    b"<br",
    b"<p",
    b"<meta",
    b"<link",
)
_SNIFF_BYTES = 1024
# a signature must be followed by one of these (or end the sniffed bytes) to count as a tag
_TAG_END = (b"", b" ", b">", b"\t", b"\n", b"\r", b"\f", b"/")
_UTF8_BOM = b"\xef\xbb\xbf"

_READ_CHUNK = 1 << 16

TypeClass = Literal["html", "unknown", "other"]
SniffKind = Literal["html", "empty", "other"]


class Readable(Protocol):
    def read(self, size: int = ..., /) -> bytes: ...


@dataclass(frozen=True, slots=True)
class Payload:
    """A decoded body.

    ``complete`` is False when decoding stopped early (chunking cut short, a compressed stream cut
    short, or the decoded size reached the cap). ``notes`` say how the body was obtained;
    ``undecodable`` names the declared coding that left binary bytes (the body is then unusable).
    """

    body: bytes
    complete: bool = True
    notes: tuple[str, ...] = ()
    undecodable: str | None = None


def media_type(content_type: str | None) -> str:
    """The lower-cased ``type/subtype`` of a Content-Type value ('' when absent)."""
    if not content_type:
        return ""
    return content_type.split(";", 1)[0].strip().lower()


def classify_type(mime: str) -> TypeClass:
    """'html' for HTML types, 'unknown' when the body must be sniffed, 'other' for any other type.

    A value without a slash is no media type at all, so it is sniffed like a missing one.
    """
    if mime in HTML_TYPES:
        return "html"
    if mime in UNKNOWN_TYPES or "/" not in mime:
        return "unknown"
    return "other"


def sniff_kind(body: bytes) -> SniffKind:
    """'html', 'empty' or 'other' from the first bytes (after a BOM and whitespace)."""
    head = body[:_SNIFF_BYTES]
    if head.startswith(_UTF8_BOM):
        head = head[len(_UTF8_BOM) :]
    head = head.lstrip(b" \t\r\n\f").lower()
    if not head:
        return "empty"
    if head.startswith(b"<!--"):
        return "html"
    if head.startswith(b"<?xml") and b"<html" in head:
        return "html"
    for sig in _HTML_SIGNATURES:
        if head.startswith(sig) and head[len(sig) : len(sig) + 1] in _TAG_END:
            return "html"
    return "other"


def read_capped(stream: Readable, cap: int | None) -> tuple[bytes, bool]:
    """Read ``stream`` to its end keeping at most ``cap`` bytes: (kept bytes, whether capped).

    The rest is drained unkept, so the stream is positioned after the payload either way. A
    stream with a ``take(cap)`` method answers at once (`pipeline.warc.members`: the bytes are
    already in memory, and one slice is one copy).
    """
    take = getattr(stream, "take", None)
    if take is not None:
        return take(cap)  # type: ignore[no-any-return]
    parts: list[bytes] = []
    kept = 0
    capped = False
    while True:
        chunk = stream.read(_READ_CHUNK)
        if not chunk:
            break
        if cap is not None and kept + len(chunk) > cap:
            if kept < cap:
                parts.append(chunk[: cap - kept])
                kept = cap
            capped = True
            continue
        parts.append(chunk)
        kept += len(chunk)
    return b"".join(parts), capped


def decode_payload(
    raw: bytes,
    transfer_encoding: str | None,
    content_encoding: str | None,
    cap: int | None = None,
) -> Payload:
    """Undo Transfer-Encoding chunked, then each Content-Encoding (last applied first).

    ``cap`` bounds the decompressed size (a small compressed body can inflate enormously).
    """
    notes: list[str] = []
    complete = True
    body = raw
    if "chunked" in (transfer_encoding or "").lower():
        dechunked = dechunk(body)
        if dechunked is None:
            notes.append("te_chunked_not_chunked")
        else:
            body, complete = dechunked
    codings = [
        c.strip().lower()
        for c in (content_encoding or "").split(",")
        if c.strip() and c.strip().lower() != "identity"
    ]
    for coding in reversed(codings):
        decoder = _DECODERS.get(coding)
        if decoder is None:
            notes.append(f"ce_unsupported:{coding[:20]}")
        else:
            try:
                decoded, decoded_complete = decoder(body, cap)
            except Exception:
                notes.append(f"ce_{coding}_not_encoded")
            else:
                body = decoded
                complete = complete and decoded_complete
                continue
        if _looks_binary(body):
            # still compressed (corrupt, or a coding we lack): text extraction would be garbage
            return Payload(body, complete, tuple(notes), undecodable=coding[:20])
        break
    return Payload(body, complete, tuple(notes))


def dechunk(data: bytes) -> tuple[bytes, bool] | None:
    """De-chunk an HTTP body: (body, complete), or None when it is not chunked at all."""
    out = bytearray()
    pos = 0
    first = True
    while True:
        eol = data.find(b"\n", pos, pos + 1024)
        if eol < 0:
            return None if first else (bytes(out), False)
        size_field = data[pos:eol].split(b";", 1)[0].strip()
        if not size_field or len(size_field) > 16 or not _is_hex(size_field):
            return None if first else (bytes(out), False)
        size = int(size_field, 16)
        if size == 0:
            return bytes(out), True
        start = eol + 1
        end = start + size
        if end >= len(data):
            # Cut inside the chunk's data or right after it, before its line end: what is there
            # is the body's (a record cut at a chunk's end kept nothing of that chunk before).
            out += data[start:]
            return bytes(out), False
        if data[end : end + 2] != b"\r\n" and data[end : end + 1] != b"\n":
            return None if first else (bytes(out), False)
        out += data[start:end]
        pos = end + (2 if data[end : end + 2] == b"\r\n" else 1)
        first = False


def _is_hex(field: bytes) -> bool:
    return all(c in b"0123456789abcdefABCDEF" for c in field)


def _looks_binary(body: bytes) -> bool:
    """Compressed data is full of C0 control bytes; text in any ASCII-compatible charset is not."""
    head = body[:512]
    if not head:
        return False
    controls = sum(1 for b in head if b < 9 or (13 < b < 32 and b != 27))
    return controls > len(head) // 20


def _inflate(data: bytes, cap: int | None, wbits: int) -> tuple[bytes, bool]:
    """zlib/gzip inflate with an output cap; tolerates a stream cut short (complete=False)."""
    out: list[bytes] = []
    produced = 0
    while data:
        d = zlib.decompressobj(wbits)
        limit = 0 if cap is None else cap - produced + 1
        try:
            chunk = d.decompress(data, limit)
        except zlib.error:
            if not out:
                raise
            # A later member is corrupt: the members before it are the body, cut short.
            return b"".join(out), False
        if not chunk and not d.eof and not out:
            # nothing decodable at all: either not compressed or a stream cut in its header
            d.flush()
            raise zlib.error("no decodable data")
        out.append(chunk)
        produced += len(chunk)
        if cap is not None and produced > cap:
            return b"".join(out)[:cap], False
        if not d.eof:
            return b"".join(out), False
        data = d.unused_data  # gzip bodies may hold several members
        if data and data[:2] != b"\x1f\x8b":
            break
    return b"".join(out), True


def _gunzip(data: bytes, cap: int | None) -> tuple[bytes, bool]:
    return _inflate(data, cap, 47)  # 32+15: gzip or zlib header, auto-detected


def _deflate(data: bytes, cap: int | None) -> tuple[bytes, bool]:
    # "deflate" is zlib-wrapped by the RFC but raw deflate from many servers.
    try:
        return _inflate(data, cap, 15)
    except zlib.error:
        return _inflate(data, cap, -15)


def _unbrotli(data: bytes, cap: int | None) -> tuple[bytes, bool]:
    # Decoded here: warcio's own br path fails with brotli 1.2 (no Decompressor.unused_data).
    d = brotli.Decompressor()
    if cap is None:
        out = d.process(data)
    else:
        try:
            out = d.process(data, output_buffer_limit=cap + 1)
        except TypeError:  # brotli < 1.2 has no output limit
            out = d.process(data)
    if not out and not d.is_finished():
        raise brotli.error("no decodable data")
    if cap is not None and len(out) > cap:
        return out[:cap], False
    return out, d.is_finished()


_DECODERS: dict[str, Callable[[bytes, int | None], tuple[bytes, bool]]] = {
    "gzip": _gunzip,
    "x-gzip": _gunzip,
    "deflate": _deflate,
    "br": _unbrotli,
}
