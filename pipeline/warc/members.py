"""The reader's fast path: records one gzip member each, as Common Crawl writes them, read whole.

warcio reads a record line by line through three layers of buffered readers, and that Python
costs as much as inflating the record. Nearly every member of a crawl file is plain: one WARC
record, a decimal Content-Length that ends its block, the two CRLFs after the block, and the
member's end right there. `read_members` inflates such a member in one go, parses its headers as
warcio's loader does (ASCII headers with a few string operations; any others with warcio's loader
itself, over the inflated bytes), converts the record with the segment reader's own code, and
gives the file back to the hardened segment reader at the first member that is anything else.

It gives it back at the start of the *last plain record* before that member, whose item it has
not yielded: the segment reader then reads that record and the one after it with the state it
would have had had it read the file from the start, so every item, rejection and issue after the
hand-over is what the segment reader alone yields (`tests/warc/test_reader_members.py` compares
the two on every real file and every fuzzed mutant).
"""

from __future__ import annotations

import io
import re
import zlib
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, BinaryIO

from warcio.limitreader import LimitReader
from warcio.recordloader import ArcWarcRecord
from warcio.statusandheaders import StatusAndHeaders

from pipeline.types import RawPage, Rejected

try:
    from zlib_ng import zlib_ng as _inflate_lib
except ImportError:  # pragma: no cover - zlib-ng is a dependency; stdlib zlib reads the same
    _inflate_lib = zlib

# Compressed bytes per inflate call: a Common Crawl member (a page, about 20-60 KB compressed)
# inflates in one call, and what follows the member, which zlib copies out as `unused_data`,
# stays small.
_FEED = 1 << 16
# Bytes per read from the stream.
_READ = 1 << 20
# Inflated bytes per inflate call at most, so that a member is never inflated whole in one go.
_OUT_STEP = 1 << 20
# With no body cap, a member that inflates to more is left to the segment reader: this path
# holds a whole member in memory (twice, while its parts are joined). With a cap it keeps only
# the headers and the capped body, as the segment reader does.
MAX_MEMBER = 1 << 24
# Header blocks that end within this many bytes stay far below the segment reader's header caps
# (`MAX_HEADER_LINE`, `MAX_HEADER_BLOCK`), which therefore cannot apply to them.
_MAX_HEADER = 1 << 16
_GZIP_MAGIC = b"\x1f\x8b\x08"
_RECORD_END = b"\r\n\r\n"

_WARC_VERSIONS = frozenset({"WARC/1.0", "WARC/1.1"})
_HTTP_SCHEMES = frozenset({"http:", "https:"})
# warcio's schemes of records that hold no HTTP message, whatever their Content-Type says.
_NON_HTTP_SCHEMES = frozenset({"dns:", "whois:", "ntp:"})


def holds_http(uri: str, content_type: str | None) -> bool:
    """Whether a response record's block is an HTTP message to parse, by its ``uri`` and its WARC
    ``content_type``. warcio parses only under a lower-case "http:"/"https:" scheme; but schemes
    are case-insensitive (RFC 3986, 3.1), and a block the WARC header declares
    ``application/http`` is one whatever its target says (writers that leave the scheme out,
    "www.example.com/page", or give another one), except under warcio's non-HTTP schemes."""
    scheme, colon, _ = uri.partition(":")
    scheme = scheme.lower() + colon if colon and "/" not in scheme else ""
    if scheme in _HTTP_SCHEMES:
        return True
    declared = (content_type or "").partition(";")[0].strip().lower()
    return declared == "application/http" and scheme not in _NON_HTTP_SCHEMES


Item = RawPage | Rejected
Convert = Callable[[Any, Any, int], Item]


@dataclass(slots=True)
class _Placed:
    """What the segment reader's record conversion asks of warcio's iterator."""

    loader: Any
    offset: int
    length: int

    def get_record_offset(self) -> int:
        return self.offset

    def get_record_length(self) -> int:
        return self.length


class _Members:
    """A stored stream cut into gzip members, each inflated whole."""

    def __init__(self, stream: BinaryIO, start: int) -> None:
        self.stream = stream
        self.buf = b""
        self.buf_at = start  # stored position of buf[0]
        self.pos = 0  # index in buf of the next byte not fed to an inflater
        self.ended = False  # the stream has no more bytes

    def position(self) -> int:
        """The stored position of the next member."""
        return self.buf_at + self.pos

    def at_end(self) -> bool:
        self._fill()
        return self.pos == len(self.buf)

    def _fill(self) -> None:
        # Bytes already fed are dropped: a member that turns out not to be plain is read again
        # by the segment reader, from the stream.
        if self.ended or len(self.buf) - self.pos >= _FEED:
            return
        data = self.stream.read(_READ)
        if not data:
            self.ended = True
            return
        self.buf_at += self.pos
        self.buf = self.buf[self.pos :] + data
        self.pos = 0

    def next_member(self, keep: int | None) -> _Member | None:
        """The member at `position`, inflated, keeping its first ``keep`` bytes (all when None);
        None when the bytes there are no whole gzip member, or its headers cannot be plain, or,
        with nothing kept back, it inflates to more than `MAX_MEMBER`."""
        self._fill()
        start = self.position()
        if self.buf[self.pos : self.pos + 3] != _GZIP_MAGIC:
            return None
        inflater = _inflate_lib.decompressobj(16 + _inflate_lib.MAX_WBITS)
        kept: list[bytes] = []
        size = 0  # inflated bytes, kept or not
        room = MAX_MEMBER if keep is None else keep
        headed = False  # whether the headers were seen to fit (checked once enough is kept)
        last = b""  # the member's last bytes so far
        pending = b""  # input fed but not consumed, when the output limit stopped inflating
        while True:
            data: Any = pending
            if not pending:
                self._fill()
                data = memoryview(self.buf)[self.pos : self.pos + _FEED]
                if not data:
                    return None  # the stream ends inside the member
                self.pos += len(data)
            try:
                out = inflater.decompress(data, _OUT_STEP)
            except _inflate_lib.error:
                return None
            size += len(out)
            if keep is None and size > MAX_MEMBER:
                return None
            if size - len(out) < room:
                kept.append(out)
            last = (last + out[-4:])[-4:]
            if not headed and size >= 2 * _MAX_HEADER and not inflater.eof:
                # A header line of megabytes is not inflated whole to find that out.
                kept = [b"".join(kept)]
                if not _headers_fit(kept[0]):
                    return None
                headed = True
            if inflater.eof:
                # (what was fed after the member's end is a suffix of the last bytes taken)
                self.pos -= len(inflater.unused_data)
                data = kept[0] if len(kept) == 1 else b"".join(kept)
                return _Member(self.position() - start, data, size, last)
            pending = inflater.unconsumed_tail


def _headers_fit(head: bytes) -> bool:
    """Whether a member starting with ``head`` can hold a plain record: its WARC header ends
    within `_MAX_HEADER` bytes and, if it may be a response, an HTTP header after it too."""
    end = head.find(_RECORD_END, 0, _MAX_HEADER)
    if end < 0:
        return False
    if b"response" not in head[:end].lower():
        return True
    block = end + len(_RECORD_END)
    return (
        len(head) < block + _MAX_HEADER or head.find(_RECORD_END, block, block + _MAX_HEADER) >= 0
    )


@dataclass(frozen=True, slots=True)
class _Member:
    stored: int  # its length as stored
    data: bytes  # its first inflated bytes (all of them, unless it was cut to a kept length)
    size: int  # its inflated length
    last: bytes  # its last four inflated bytes


def read_members(
    stream: BinaryIO, start: int, loader: Any, convert: Convert, max_body_bytes: int | None
) -> Generator[Item, None, int | None]:
    """Yield the items of the plain members from stored position ``start`` on; return where the
    segment reader must take over, or None when the stream was read to its end.

    ``loader`` is the segment reader's warcio record loader and ``convert`` its conversion of a
    parsed record to an item (given the record, the iterator's place for it, and its offset);
    ``max_body_bytes`` its body cap.
    """
    # Both header blocks and the capped body: all that the segment reader keeps of a record.
    keep = None if max_body_bytes is None else max_body_bytes + 2 * (_MAX_HEADER + 4)
    members = _Members(stream, start)
    held: tuple[Item, int] | None = None  # the last plain record's item and offset
    while True:
        offset = members.position()
        if members.at_end():
            if held is None:
                return start  # nothing here at all: the segment reader says so
            yield held[0]
            return None
        member = members.next_member(keep)
        item = None if member is None else _plain_record(member, offset, loader, convert)
        if item is None:
            return start if held is None else held[1]
        if held is not None:
            yield held[0]
        held = (item, offset)


def _plain_record(member: _Member, offset: int, loader: Any, convert: Convert) -> Item | None:
    """The item of the one WARC record the member holds, or None when it holds anything else
    (another layout, a block that is not exactly as long as its Content-Length says, anything
    after the block but its two CRLFs, a header block over `_MAX_HEADER`)."""
    data = member.data
    if not data.startswith(b"WARC/") or member.last != _RECORD_END:
        return None
    head_end = data.find(_RECORD_END, 0, _MAX_HEADER)
    if head_end < 0:
        return None
    record = _parse_simple(member, head_end + len(_RECORD_END), loader)
    if record is None:
        # (warcio would read a block cut to the kept length as cut short by the file)
        record = _parse_with_warcio(data, loader) if len(data) == member.size else None
        if record is None:
            return None
    if glued_headers(record.rec_headers.headers):
        return None  # two records' headers: the segment reader finds where the second starts
    return convert(record, _Placed(loader, offset, member.stored), offset)


# Headers a WARC record has once at most: two of one mean two records' headers read as one.
_ONCE = frozenset(("warc-record-id", "warc-type", "content-length"))
# A WARC version line glued to the end of a header line that was cut short.
_GLUED_VERSION = re.compile(r"WARC/\d+\.\d+$")


def glued_headers(headers: list[tuple[str, str]]) -> bool:
    """Whether a WARC header's (name, value) pairs hold a second record's start: a version line
    glued to the end of a value, or a header that a record has once, twice (warcio drops a
    version line of its own, having no colon). A record cut in its header, in a file gzipped
    whole, runs on into the next record's header, and warcio reads the two as one record."""
    seen: set[str] = set()
    for name, value in headers:
        key = name.lower()
        if key in _ONCE:
            if key in seen:
                return True
            seen.add(key)
        if "WARC/" in value and _GLUED_VERSION.search(value):
            return True
    return False


def _parse_simple(member: _Member, block_start: int, loader: Any) -> ArcWarcRecord | None:
    """The record as warcio's loader parses it, for headers in the plain form nearly every
    record has (ASCII, each block ended by its first blank line); None for any other form."""
    data = member.data
    warc = _header_block(data, 0, block_start)
    if warc is None or warc[0] not in _WARC_VERSIONS:
        return None
    rec_headers = _Headers(warc[0], "", warc[1])
    declared = rec_headers.get_header("Content-Length")
    if declared is None:
        return None
    declared = declared.strip()
    if not (declared.isascii() and declared.isdigit()):
        return None
    size = int(declared)
    if block_start + size + len(_RECORD_END) != member.size:
        return None
    rec_type = rec_headers.get_header("WARC-Type")
    uri = loader._ensure_target_uri_format(rec_headers)
    loader.http_cut_short = False  # as `_Loader.load_http_headers` leaves it for a whole block
    http = None
    body_start = block_start
    if size and rec_type == "response":
        # (requests and revisits are never parsed: see `_Loader`)
        if uri is None:
            return None  # warcio fails on it: the segment reader says how
        if holds_http(uri, rec_headers.get_header("Content-Type")):
            end = data.find(
                _RECORD_END, block_start, min(block_start + _MAX_HEADER, block_start + size)
            )
            if end < 0:
                return None
            body_start = end + len(_RECORD_END)
            parsed = _header_block(data, block_start, body_start)
            if parsed is None:
                return None
            protocol, _, status = parsed[0].partition(" ")
            http = _Headers(protocol, status.strip(), parsed[1])
    block = _Block(data, body_start, block_start + size)
    return ArcWarcRecord(
        "warc", rec_type, rec_headers, block, http, rec_headers.get_header("Content-Type"), size
    )


class _Headers(StatusAndHeaders):  # type: ignore[misc]
    """warcio's parsed headers, built from str pairs as they are, looked up through an index.

    The reader asks each record for about ten headers, and warcio's lookup lower-cases every
    name on every call. The index keeps the first value of each name, as that lookup returns;
    warcio changes headers only through `replace_header`, which drops it.
    """

    def __init__(self, protocol: str, statusline: str, headers: list[tuple[str, str]]) -> None:
        self.statusline = statusline
        self.headers = headers
        self.protocol = protocol
        self.total_len = 0
        self.headers_buff = None
        self._index: dict[str, str] | None = None

    def get_header(self, name: str, default_value: str | None = None) -> str | None:
        if self._index is None:
            index: dict[str, str] = {}
            for key, value in self.headers:
                index.setdefault(key.lower(), value)
            self._index = index
        return self._index.get(name.lower(), default_value)

    def replace_header(self, name: str, value: str) -> str | None:
        self._index = None
        return super().replace_header(name, value)  # type: ignore[no-any-return]

    def add_header(self, name: str, value: str) -> None:
        self._index = None
        super().add_header(name, value)

    def remove_header(self, name: str) -> bool:
        self._index = None
        return super().remove_header(name)  # type: ignore[no-any-return]


def _parse_with_warcio(data: bytes, loader: Any) -> ArcWarcRecord | None:
    """The record parsed by warcio's loader over the inflated bytes, when they hold exactly one
    record whose block ends where its decimal Content-Length says; else None."""
    stream = io.BytesIO(data)
    try:
        record = loader.parse_record_stream(stream)
    except Exception:
        return None
    declared = record.rec_headers.get_header("Content-Length")
    block = record.raw_stream
    if record.format != "warc" or declared is None or not isinstance(block, LimitReader):
        return None
    declared = declared.strip()
    if not (declared.isascii() and declared.isdigit()):
        return None
    # The loader read the WARC header and, of a response, the HTTP header in the block.
    if block.tell() > _MAX_HEADER:
        return None
    if stream.tell() - block.tell() + int(declared) + len(_RECORD_END) != len(data):
        return None
    return record


class _Block:
    """The rest of a record's block (after its HTTP header), taken at once by `take`."""

    __slots__ = ("data", "end", "limit", "start")

    def __init__(self, data: bytes, start: int, end: int) -> None:
        self.data = data
        self.start = start
        self.end = end
        self.limit = 0  # bytes the file failed to deliver (`reader._cut_by_file`): none

    def take(self, cap: int | None) -> tuple[bytes, bool]:
        """`payload.read_capped` of the block in one slice."""
        size = self.end - self.start
        keep = size if cap is None else min(size, cap)
        out = self.data[self.start : self.start + keep]
        self.start = self.end
        return out, keep < size

    def read(self, size: int = -1) -> bytes:
        want = self.end - self.start if size is None or size < 0 else size
        out = self.data[self.start : min(self.start + want, self.end)]
        self.start += len(out)
        return out


def _header_block(data: bytes, start: int, end: int) -> tuple[str, list[tuple[str, str]]] | None:
    """warcio's header parse of ``data[start:end]``, which ends with a blank line: (first line,
    headers), or None when the bytes are not ASCII or a line before the last is blank too."""
    raw = data[start:end]
    if not raw.isascii():
        return None
    lines = raw.decode("ascii").split("\n")
    lines.pop()  # what follows the last line end: nothing
    first = lines[0].rstrip()
    if not first:
        return None
    # Nearly always: no continuation line and no blank line before the last, and then every
    # line with a colon is one header.
    stripped = [line.rstrip() for line in lines[1:-1]]
    if all(stripped) and not any(line[0] in " \t" for line in stripped):
        return first, [
            (name.rstrip(" \t"), value.lstrip())
            for name, colon, value in (line.partition(":") for line in stripped)
            if colon
        ]
    headers: list[tuple[str, str]] = []
    at = 1
    line = lines[at].rstrip()
    while line:
        name, colon, value = line.partition(":")
        value = value.lstrip()
        at += 1
        following = lines[at].rstrip()
        while following[:1] in (" ", "\t"):  # continuation lines ('' ends the block)
            value += following
            at += 1
            following = lines[at].rstrip()
        if colon:
            headers.append((name.rstrip(" \t"), value))
        line = following
    if at != len(lines) - 1:
        return None
    return first, headers
