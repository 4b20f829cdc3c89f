"""Streaming WARC/ARC reader: one `RawPage` or `Rejected` per record, never an exception.

This is the only module that imports warcio; its record objects never leave it (STYLE F8: a record
is valid only until the next iteration step, and asking for the offset drains the payload, so the
body is read first, then the offset and length).

Reader-level events that are not a record (a stretch of bytes that could not be parsed, the jump
to the next readable record, a file that ends early) are yielded as `ReaderIssue`, so a caller
can account for every record read: records = pages + rejects, with issues counted beside them.

Outcomes per record (``Rejected.reason``): ``record_type:<type>`` (request, revisit, metadata,
warcinfo — an ARC filedesc header counts as warcinfo —, conversion, continuation, missing, ...;
counted, not parsed), ``http_status`` (anything but 200, as Common Crawl keeps: redirects,
errors and 206 partial content hold no full page; detail = the status), ``not_html`` (by HTTP
Content-Type, or by sniffing the first bytes when the type is missing or generic; the body is
not kept; detail = the type), ``undecodable_body`` (declared Content-Encoding that does not
decode and leaves binary bytes), ``truncated_record`` (record cut inside its HTTP headers, or,
in a plain file, cut short where the next record starts inside its declared block),
``invalid_length`` (a Content-Length that is not a byte count, or one of 0 over a block that
goes on), ``header_too_large`` (its HTTP headers exceed `MAX_HEADER_LINE`/`MAX_HEADER_BLOCK`),
``read_error`` (the stream broke inside the record). Everything else is a `RawPage`. Digests
are not checked (real files carry wrong ones: see SOURCES.md), so they cannot reject a page.

Decoding the HTTP payload (codings, sniffing, the body cap) lives in `pipeline.warc.payload`; this
module only decides which records reach it and maps its verdicts to outcomes.

A file gzipped record by record is read first by `pipeline.warc.members`, which takes each member
that holds exactly one well-formed record without warcio's line reader, and hands the file over
to the segment reader below at the first member that is anything else: the same items, for a
fifth less CPU (`bench/reader.py`).

Recovery works on seekable streams (local files, fsspec s3/gcs files): after a failure the reader
scans forward for the next gzip member or `WARC/x.y` / ARC header line that really starts a
record, and opens a new warcio iterator there. The scan never starts before the last record read
(warcio's offsets can point backwards after a bad length), so every step moves forward and a file
is read in bounded time. On a non-seekable stream it reports the failure and stops.

Records that damage has run together are told apart where the next record's start shows: a plain
record whose header (or, when it ends cleanly, whose stored block) holds a whole record is cut
there (``truncated_record``); inside a record already known to be damaged an ARC header line
counts by its URL, IP and date alone (as a WARC record by its version line); and in a file
gzipped record by record, a record warcio starts where no gzip member starts (the stray end of a
damaged member read on into the next one) is reported unreadable and reading resumes at the next
member.
"""

from __future__ import annotations

import hashlib
import io
import re
import zlib
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO, ClassVar

from warcio.archiveiterator import ArchiveIterator
from warcio.bufferedreaders import DecompressingBufferedReader
from warcio.recordloader import ArcWarcRecordLoader
from warcio.timeutils import timestamp_to_iso_date

from pipeline.types import RawPage, Rejected

try:
    from zlib_ng import zlib_ng as _inflate_lib
except ImportError:  # pragma: no cover - zlib-ng is a dependency; stdlib zlib reads the same
    _inflate_lib = zlib
from pipeline.warc.members import glued_headers, holds_http, read_members
from pipeline.warc.payload import classify_type, decode_payload, media_type, read_capped, sniff_kind

# Record types whose payload can be a page; everything else is counted and skipped unparsed.
PAGE_TYPES = frozenset({"response", "resource"})

# Common Crawl keeps only 200s: redirects, errors and partial content (206) carry no full page.
ACCEPTED_STATUS = frozenset({200})

# warcio record types with HTTP headers that can never make a page (see `_Loader`).
_UNPARSED_HTTP = frozenset({"request", "revisit"})

# Said by the row of a record that the end of the file cut short (a page's note is
# ``truncated_by_file``).
CUT_BY_FILE = "the record is cut short by the end of the file"

_SCAN_CHUNK = 1 << 16
# The longest run of blank bytes after the last record that ends a file cleanly.
_BLANK_TAIL_MAX = 1 << 16
# How far back a gunzipped stream (a file gzipped whole) can still seek: past the body cap, so
# that a damaged record in it can be searched whole.
_GUNZIP_WINDOW = 1 << 24
# Compressed bytes per read: warcio's 16 KiB default means several Python round trips per record.
_READ_BLOCK = 1 << 17
_MAX_HEADERS = 200
_MAX_HEADER_VALUE = 4096
# Header lines and header blocks are read before any body cap applies, so they get caps of their
# own: a record with a 1 GiB header line must cost a bounded read, not a 1 GiB line in memory.
# Real header lines stay far below (cookies and URLs: tens of KB; servers refuse 8-64 KB).
MAX_HEADER_LINE = 1 << 18
MAX_HEADER_BLOCK = 1 << 20

_WARC_LINE = rb"WARC/\d+\.\d+\r?\n"
# ARC v1 header line: URL IP date(14 digits) content-type length.
# The length is matched loosely: a record whose length is damaged is still where one starts.
# The IP field is an IPv4 or IPv6 address or "-": a line whose second field is anything else
# is text, not a record start (docs/running.md, "not a WARC or ARC file").
_ARC_IP = rb"(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f]*:[0-9A-Fa-f:.]*|-)"
_ARC_LINE = rb"(?:filedesc://|[A-Za-z][A-Za-z0-9+.\-]*:)\S* " + _ARC_IP + rb" \d{14} \S* \S+\r?\n"
_RECORD_START = re.compile(rb"(?:" + _WARC_LINE + rb"|" + _ARC_LINE + rb")")
_ARC_HEADER_LINE = re.compile(_ARC_LINE)
_LINE_START = re.compile(rb"\n(?=" + _WARC_LINE + rb"|" + _ARC_LINE + rb")")
# A length that runs a few bytes past its record, in a file gzipped whole, ends the block inside
# the next record's version line: the block then ends in the blank lines between records and a
# strict prefix of "WARC/1.0\r\n" (with the whole line it is a `_GLUED_START`).
_CUT_START_AT_END = re.compile(rb"\r?\n\r?\nW(?:A(?:R(?:C(?:/(?:\d+(?:\.(?:\d+\r?)?)?)?)?)?)?)?\Z")
# Headers that make a header block a record's, not a fragment (with Content-Length).
_WHOLE_HEADER = (rb"WARC-Type", rb"WARC-Record-ID")
# A record cut short runs straight into the next one, whose first line then starts mid-line: a
# WARC version line, or an ARC header line of a scheme crawlers record.
_GLUED_START = re.compile(
    rb"(?:"
    + _WARC_LINE
    + rb"|(?:https?|ftp|dns|filedesc):\S* "
    + _ARC_IP
    + rb" \d{14} \S* -?\d+\r?\n)"
)
# An ARC header line known by its first three fields (URL, IP address, 14-digit date) alone: how
# a record start is recognised inside a record already known to be damaged, where the header line
# that follows may be damaged too (its length lost, a field added, its line end gone, the file
# cut in it), as a WARC record is recognised there by its version line alone.
_ARC_DAMAGED_LINE = (
    rb"(?:filedesc:|[A-Za-z][A-Za-z0-9+.\-]*:)\S* " + _ARC_IP + rb" \d{14}(?:[ \r\n]|\Z)"
)
_DAMAGED_START = re.compile(_ARC_DAMAGED_LINE)
_DAMAGED_LINE_START = re.compile(rb"\n(?=" + _ARC_DAMAGED_LINE + rb")")
_HEADER_END = re.compile(rb"\r?\n\r?\n")
# The date field of any ARC header line above (a literal start, so a quick test).
_ARC_DATE = re.compile(rb" \d{14}(?:[ \r\n]|\Z)")
_GZIP_MAGIC = b"\x1f\x8b\x08"
# A WARC Content-Length is a decimal byte count (WARC 1.1, section 5.3); warcio reads anything
# else ("-5", "1e3", "0x10", "", "abc") as 0 and loses its place in the file.
_DECIMAL = re.compile(r"[0-9]+")


@dataclass(frozen=True, slots=True)
class ReaderIssue:
    """A reader-level event that is not a record.

    ``kind`` is one of: ``unreadable`` (bytes at ``offset`` could not be parsed as a record),
    ``resync`` (reading resumed at ``offset``, ``skipped`` bytes after the failure; a stored
    position, or inside a gzip member that holds several records a position in its gunzipped
    stream, when the detail says "in the gunzipped stream"),
    ``truncated_file`` (no further record after a failure: the rest of the file is lost),
    ``single_gzip_member`` (a gzip member holds many records, as in a file gzipped whole: from
    ``offset`` on, offsets refer to the gunzipped stream, until a ``resync`` where the member
    ends), ``no_resync`` (the stream cannot seek, reading stops).
    """

    warc_path: str
    kind: str
    offset: int | None
    detail: str
    skipped: int = 0


Item = RawPage | Rejected | ReaderIssue


def iter_records(
    stream: BinaryIO,
    warc_path: str,
    *,
    max_body_bytes: int | None = None,
    resume: Sequence[int | None] | None = None,
) -> Iterator[Item]:
    """Yield one `RawPage` or `Rejected` per record of a WARC/ARC stream, plus `ReaderIssue`s.

    ``stream`` must be the file as stored (open fsspec files with ``compression=None``) so offsets
    are byte positions in the stored file. ``max_body_bytes`` caps the payload kept per record
    (the rest is drained unkept and the page is marked ``truncated``). ``resume`` (a page's
    `resume_point`) starts reading at that page's record, which comes first, as it came the
    first time; the stream must then be seekable.
    """
    if max_body_bytes is not None and max_body_bytes < 0:
        raise ValueError(f"max_body_bytes must be >= 0 or None, got {max_body_bytes}")
    seekable = _is_seekable(stream)
    pos = stream.tell() if seekable else 0
    gunzip_from: int | None = None  # set once the file turns out to be one big gzip member
    inner = 0  # where in a gunzipped member reading starts
    reader = _SegmentReader(warc_path, max_body_bytes)
    if resume is not None:
        if not seekable:
            raise ValueError("resuming needs a seekable stream")
        at, gunzipped = resume
        assert at is not None
        if gunzipped is None:
            pos = at
        else:  # a record inside a gzip member that holds several (a file gzipped whole)
            pos, gunzip_from, inner = gunzipped, gunzipped, at
            reader.offset_note = f"offset_space:gunzip@{gunzipped}"
    elif seekable:
        not_archive = _not_an_archive(stream, pos)
        if not_archive is not None:
            raise NotAnArchive(not_archive)
    is_gzip = seekable and _peek(stream, pos, 2) == b"\x1f\x8b"
    reader.gzip_file = is_gzip
    if is_gzip and gunzip_from is None:
        # Plain members are read without warcio's line reader; the segment reader takes over
        # from the last of them at the first member that is not plain (see `members`).
        loader = _Loader(verify_http=False, arc2warc=False)
        taken = yield from read_members(stream, pos, loader, reader._convert, max_body_bytes)
        if taken is None:
            return
        pos = taken
    reported = -1  # where the last "unreadable" issue was
    while True:
        source: Any = stream
        if seekable:
            stream.seek(pos)
        if gunzip_from is not None:
            source = _Gunzipped(stream)
            source.seek(inner)
        # offsets inside a gunzipped stream count from its own start
        reader.floor = pos if gunzip_from is None else inner
        outcome = yield from reader.read_segment(
            source, detect_single_member=is_gzip and gunzip_from is None
        )
        if outcome.kind == "eof":
            if isinstance(source, _Gunzipped) and source.cut_short:
                yield ReaderIssue(
                    warc_path,
                    "truncated_file",
                    outcome.offset,
                    f"the gzip stream breaks off ({source.cut_short}); what came before was read",
                )
            elif isinstance(source, _Gunzipped) and source.member_end is not None:
                # That member is read: what follows it is read member by member again, at
                # stored offsets (a damaged member can hold two records in a per-record file).
                pos, gunzip_from, reader.offset_note = source.member_end, None, None
                if not _blank_from(stream, pos):
                    yield ReaderIssue(
                        warc_path,
                        "resync",
                        pos,
                        "the gzip member holding several records ends here: from here offsets "
                        "are stored positions again",
                    )
                    continue
            return
        if outcome.kind == "single_member":
            yield _single_member_issue(warc_path, outcome.offset)
            gunzip_from = pos = outcome.offset
            inner = 0
            reader.offset_note = f"offset_space:gunzip@{outcome.offset}"
            continue
        # "error": the bytes at outcome.offset are not a readable record; "skip": the record at
        # outcome.offset was accounted for, but where it ends cannot be trusted.
        # Never before the last record's start: after a bad length warcio's offsets can point
        # backwards (even below 0), and rereading from there would never end.
        at = max(outcome.offset, reader.floor)
        if outcome.kind == "error" and at != reported:
            # (a retry of the same bytes by a fresh iterator is not a second issue)
            reported = at
            yield ReaderIssue(warc_path, "unreadable", at, outcome.detail)
        if not seekable:
            yield ReaderIssue(warc_path, "no_resync", at, "stream is not seekable; reading stops")
            return
        lost = outcome.kind == "error"  # whether bytes were lost if no record follows
        # Bytes a fresh iterator has not tried are tried once at their own start: warcio keeps
        # to the format of the first record it read, so a WARC record after an ARC one (or the
        # reverse) fails there, whole (in a file gzipped whole too: the 30-minute campaign of
        # issue 48 lost such records after a splice made a phantom record). The retry starts
        # after the last record read: its bytes must not be read twice.
        retry = (
            outcome.fresh
            and outcome.offset > reader.floor
            and at > (pos if gunzip_from is None else inner)
        )
        if gunzip_from is not None and outcome.resume is not None:
            # A record starts inside a cut one in the same member: read on from there (its
            # rejection says where; offsets stay in the gunzipped stream).
            inner = max(outcome.resume, at + 1)
            continue
        inside = None
        if (
            gunzip_from is None
            and outcome.resume is None
            and reader.floor == 0
            and (inside := _record_in_first_member(stream)) is not None
        ):
            # The file's first record is unreadable, or its end cannot be trusted, or what
            # follows it is (its length ended inside a later record), and its gzip member holds
            # another record further on: a file gzipped whole whose first record is damaged
            # (the only case where the first member holds more than one record). Read on
            # inside it, gunzipped.
            yield _single_member_issue(warc_path, 0)
            gunzip_from = pos = 0
            reader.offset_note = "offset_space:gunzip@0"
        elif gunzip_from is not None:
            # Bytes that are no record inside a member gzipped whole, or a record whose end is
            # unknown (a length that is no byte count): its gunzipped bytes are a plain file,
            # searched as one for the next record start (a record cut in its version line runs
            # into the next one's: "WARC/WARC/1.0").
            try:
                inside = _find_next_record(source, at if retry else at + 1)
            except OSError:  # the gunzipped stream no longer holds that place
                inside = None
            else:
                if (
                    inside is None
                    and isinstance(source, _Gunzipped)
                    and source.done
                    and not source.cut_short
                ):
                    # Searched to the member's clean end: the record whose end was unknown was
                    # its last ("skip": nothing is lost), or bytes that are no record end it.
                    # What follows the member (if anything) is read member by member again.
                    pos, gunzip_from, reader.offset_note = source.member_end or 0, None, None
                    more = source.member_end is not None and not _blank_from(stream, pos)
                    if outcome.kind == "error" and not more:
                        yield ReaderIssue(
                            warc_path,
                            "truncated_file",
                            at,
                            f"no further record found in the gunzipped stream after "
                            f"{outcome.after(at)}",
                        )
                    if more:
                        yield ReaderIssue(
                            warc_path,
                            "resync",
                            pos,
                            "the gzip member holding several records ends here: from here "
                            "offsets are stored positions again",
                        )
                        continue
                    return
        if inside is not None:
            yield ReaderIssue(
                warc_path,
                "resync",
                inside,
                # (this offset, like the failure's, is a position in the gunzipped stream)
                f"resumed in the gunzipped stream at the next record start after "
                f"{outcome.after(at)}",
                skipped=inside - at,
            )
            inner = inside
            continue
        if gunzip_from is not None:
            # Positions inside a gzip member cannot be sought to: the rest of the member is
            # lost, and reading goes on at the next member after its start, if there is one.
            at, gunzip_from, reader.offset_note, lost = gunzip_from, None, None, True
            nxt = _find_next_record(stream, at + 1)
            why = f"the damaged gzip member at {at}"
        elif outcome.resume is not None:
            nxt = max(outcome.resume, at + 1)
            why = outcome.after(at)
        else:
            # A segment never starts twice at one place, so every pass moves forward.
            nxt = _find_next_record(stream, at if retry else at + 1)
            why = outcome.after(at)
        if nxt is None:
            if lost:
                yield ReaderIssue(
                    warc_path, "truncated_file", at, f"no further record found after {why}"
                )
            return
        yield ReaderIssue(
            warc_path,
            "resync",
            nxt,
            f"resumed at the next record start after {why}",
            skipped=nxt - at,
        )
        pos = nxt
        is_gzip = _peek(stream, pos, 2) == b"\x1f\x8b"


def resume_point(page: RawPage) -> list[int | None]:
    """Where `iter_records` resumes so that ``page`` comes first: its offset, and the stored
    start of the gzip member it sits in when that offset is a position in the member's
    gunzipped stream (then None)."""
    for note in page.notes:
        if note.startswith("offset_space:gunzip@"):
            return [page.warc_offset, int(note.rpartition("@")[2])]
    return [page.warc_offset, None]


def iter_file(
    path: str, *, max_body_bytes: int | None = None, storage_options: dict[str, Any] | None = None
) -> Iterator[Item]:
    """Open ``path`` (local or any fsspec URL) as stored and yield `iter_records` of it."""
    import fsspec

    with fsspec.open(path, "rb", compression=None, **(storage_options or {})) as stream:
        yield from iter_records(stream, path, max_body_bytes=max_body_bytes)


@dataclass(frozen=True, slots=True)
class _Outcome:
    kind: str  # "eof" | "error" | "single_member" | "skip"
    offset: int
    detail: str = ""
    # "skip" only: where the next record is already known to start
    resume: int | None = None
    # "error" only: nothing was read from the bytes at ``offset``, so a new iterator may try them
    # (warcio keeps to the format of a file's first record: an ARC record after a WARC one fails)
    fresh: bool = False

    def after(self, at: int) -> str:
        if self.kind == "error":
            return f"the failure at {at}"
        return f"the record at {at} ({self.detail or 'its end is unknown'})"


class _SegmentReader:
    """Reads records with one warcio iterator until the end of the stream or the first failure."""

    def __init__(self, warc_path: str, max_body_bytes: int | None) -> None:
        self.warc_path = warc_path
        self.max_body_bytes = max_body_bytes
        self.offset_note: str | None = None
        # Where the last record of the segment started (the segment's start before its first, set
        # by the caller): no later record, and no resynchronisation, may start before it.
        self.floor = 0
        # Set by `_release`: where a record found inside a plain record's block starts.
        self.resume: int | None = None
        # Whether the file started as gzip members (set by the caller).
        self.gzip_file = False

    def read_segment(
        self, source: Any, *, detect_single_member: bool
    ) -> Generator[RawPage | Rejected, None, _Outcome]:
        """Yield items; return an `_Outcome` saying why the segment ended.

        Offsets come from warcio, which counts from ``source.tell()``: the stored file's position
        for the stored stream, the gunzipped position for a gunzipper over a single-member file.
        """
        try:
            it = ArchiveIterator(
                source, arc2warc=False, check_digests=False, block_size=_READ_BLOCK
            )
            # Swapped before the first read: warcio builds its reader inline in __init__.
            it.reader = _InflatingReader(it.fh, block_size=_READ_BLOCK)
            it.reader.gzip_file = detect_single_member
            inflating = it.reader  # warcio drops its own reference when the stream ends
            it.loader = _Loader(verify_http=False, arc2warc=False)
            # warcio writes its "Record not followed by newline" warning straight to stderr,
            # once per bad record, from every worker; the record's page carries the note
            # content_length_mismatch instead (from `err_count`), so its text is emptied here.
            it.INC_RECORD = ""
            pos = it.offset
            _skip_leading_blank_lines(it)
            records = iter(it)
        except Exception as exc:
            return _Outcome("error", self.floor, _describe(exc))
        # In a plain file a record's item waits until the next record parses: a declared length
        # that runs into the next record can end cleanly on its header's blank line, and only
        # the failure that follows shows that the record swallowed the start of another.
        held: tuple[RawPage | Rejected, int] | None = None
        while True:
            try:
                record = next(records)
            except StopIteration:
                if inflating.open_member:
                    if held is None and pos > self.floor and _peek_keep(source, pos, 1):
                        if _blank_from(source, pos):  # empty members and blank lines
                            return _Outcome("eof", pos)
                        # A member after the last record's, cut by the file's end before it
                        # inflated to a record: no row, so an issue says so.
                        return _Outcome("error", pos, "the file ends inside this gzip member")
                    # The last member never ended: cut short, or it swallowed what follows it
                    # (a member that starts mid-member decodes on through its neighbours).
                    return _Outcome("skip", self.floor, "its gzip member does not end")
                tail = _unread_tail(source, pos)
                if tail and held is not None:
                    yield from self._release(source, held, pos)
                    if self.resume is not None:
                        return _Outcome("skip", held[1], "cut short", resume=self.resume)
                elif held is not None:
                    yield held[0]
                return _Outcome("error", pos, tail) if tail else _Outcome("eof", pos)
            except Exception as exc:
                if (
                    held is None
                    and pos > self.floor
                    and not isinstance(source, _Gunzipped)
                    and _blank_from(source, pos)
                ):
                    # warcio tries blank bytes after a file's last gzip member as one more
                    # member: the file ends cleanly there, as a plain file with that tail does.
                    return _Outcome("eof", pos)
                if held is not None:
                    yield from self._release(source, held, pos)
                    if self.resume is not None:
                        return _Outcome("skip", held[1], "cut short", resume=self.resume)
                if isinstance(exc, HeaderTooLarge | HeaderCut):
                    # warcio parses headers inside its iterator, before a record exists: the
                    # record is counted here, then the next one is looked for after it.
                    reason = (
                        "header_too_large"
                        if isinstance(exc, HeaderTooLarge)
                        else ("truncated_record")
                    )
                    yield self._headerless(pos, reason, _describe(exc), it.loader.last_headers)
                    return _Outcome("skip", pos, reason)
                return _Outcome("error", pos, _describe(exc), fresh=True)
            if held is not None:
                yield held[0]
                held = None
            record_start = self.floor = max(it.offset, self.floor)
            block_start = record_start + 1
            if it.reader.decompressor is None:
                # A record cut inside its header runs into the next record's header, whose start
                # then sits inside this header (mid-line where the cut left no line end): the
                # header is that record's, and this record ends where it starts.
                inside, block_start = _record_in_header(source, record_start)
                if inside is not None:
                    rejected = self._unread(record, record_start, "truncated_record", "")
                    yield _cut_short(rejected, inside, record_start, "its header")
                    return _Outcome("skip", record_start, "cut short", resume=inside)
            elif (
                self.gzip_file
                and not isinstance(source, _Gunzipped)
                and _peek_keep(source, record_start, 2) != b"\x1f\x8b"
            ):
                # In a file gzipped record by record every record starts a member. warcio
                # starts one elsewhere when a damaged member ends in bytes that are not the
                # blank lines after a record: it then reads those bytes and the next member's
                # record as one header. Not a record: go on at the next record start after it.
                return _Outcome(
                    "error", record_start, "a record starts inside a damaged gzip member"
                )
            elif detect_single_member and _glued_header(record):
                # A record cut in its header, in a file gzipped whole, runs on into the next
                # record's header, and warcio reads the two as one record: read the member
                # through a gunzipper, where the header is searched as in a plain file.
                return _Outcome("single_member", record_start)
            bad_length = None if it.loader.header_cut else _invalid_length(record)
            if bad_length is not None:
                # Its end is unknown: count the record, then look for the next one after it.
                yield self._unread(record, record_start, "invalid_length", bad_length)
                return _Outcome("skip", record_start, bad_length)
            errors_before = it.err_count
            try:
                item = self._convert(record, it, record_start)
            except Exception as exc:
                # the stream broke inside this record: count it, then resynchronise after it
                reason = "header_too_large" if isinstance(exc, HeaderTooLarge) else "read_error"
                yield self._unread(record, record_start, reason, _describe(exc))
                return _Outcome("error", record_start, _describe(exc))
            plain = it.reader.decompressor is None
            if (
                detect_single_member
                and not plain
                and it.next_line
                and _RECORD_START.match(it.next_line)
            ):
                # The next record starts inside this record's gzip member: warcio would fail on
                # the next step, so drop this item and re-read from here through a gunzipper.
                return _Outcome("single_member", record_start)
            mismatch = it.err_count != errors_before
            if mismatch:
                item = _with_note(item, "content_length_mismatch")
            declared = _declared_length(record)
            if mismatch and (declared is None or declared <= 0):
                # warcio read such a length as 0: the record's block is lost with its end
                item = _reject_as(
                    item, "invalid_length", f"length {declared}, but the block goes on"
                )
            pos = max(it.offset, record_start)
            if not plain:
                if (
                    detect_single_member
                    # warcio's line after the block: its member goes on past the record (in
                    # a file gzipped whole whose first record was cut, the length can end
                    # the block on a blank line of the next record's header, and then
                    # nothing else shows it)
                    and (mismatch or declared is None or _cut_by_file(record) or it.next_line)
                    and isinstance(item, RawPage)
                    and (_GLUED_START.search(item.body) or _CUT_START_AT_END.search(item.body))
                ):
                    # It ran over the records after it in its member (a file gzipped whole,
                    # whose first record was cut): read the member again through a gunzipper,
                    # where the record inside it can be found, as in a plain file.
                    return _Outcome("single_member", record_start)
                yield item
                if (
                    detect_single_member
                    and record_start == 0
                    and (declared is None or _cut_by_file(record))
                    and (declared is None or not isinstance(item, RawPage))
                ):
                    # The file's first record, read to the end of its member (no length, or
                    # one past the file) with no page body to search, or with no length and a
                    # page body that does not show the rest (its own HTTP length ends it
                    # first: the 30-minute campaign of issue 48 lost every later record so,
                    # with no issue): in a file gzipped whole that member holds every record
                    # after it, searched from the main loop.
                    return _Outcome("skip", record_start, "its length does not end it")
                if mismatch:
                    # The rest of its gzip member is not a record, and warcio's offsets are off
                    # from here on: go on at the next member.
                    return _Outcome("skip", record_start)
            elif mismatch or declared is None or _cut_by_file(record):
                # Its declared length does not end it (or it has none, and warcio read to the
                # end of the file): it may hold the start of the next record.
                yield from self._release(source, (item, record_start), pos)
                if self.resume is not None:
                    return _Outcome("skip", record_start, "cut short", resume=self.resume)
            else:
                # Nothing else is off, but its block may hold a record: the record was cut short
                # just where the length it declares ends a whole record further on. Its stored
                # block is searched, not the page body (decoded, or not kept for a rejection). A
                # block may quote a record, so only a well-formed one there counts.
                # (Its header holds none: it was searched above.)
                self.resume = _record_inside(source, block_start - 1, pos, whole=True)
                if self.resume is not None:
                    yield _cut_short(item, self.resume, record_start)
                    return _Outcome("skip", record_start, "cut short", resume=self.resume)
                held = (item, record_start)

    def _headerless(self, start: int, reason: str, detail: str, parsed: Any) -> Rejected:
        """The rejection of a record at ``start`` whose headers could not be parsed; named by
        its WARC header when that was (``parsed``: the loader's format and headers)."""
        record_id = record_type = url = None
        if parsed is not None:
            fmt, headers = parsed
            if fmt == "warc":
                record_id = (headers.get_header("WARC-Record-ID") or "").strip()[:200] or None
                record_type = (headers.get_header("WARC-Type") or "").strip().lower()[:40]
                url = (headers.get_header("WARC-Target-URI") or "").strip() or None
            else:
                record_type, url = "response", (headers.get_header("uri") or "").strip() or None
        if record_id is None:
            digest = hashlib.sha1(f"{self.warc_path}\0{start}".encode()).hexdigest()
            record_id = f"<urn:warcclean:{digest}>"
        return Rejected(
            self.warc_path, record_id, record_type or "unknown", start, url, reason, detail
        )

    def _unread(self, record: Any, start: int, reason: str, detail: str) -> Rejected:
        """The rejection of a record whose block was not read (its length is unknown)."""
        return Rejected(
            self.warc_path,
            _record_id(record, self.warc_path, start),
            _record_type(record),
            start,
            _target_uri(record) or None,
            reason,
            detail,
        )

    def _release(
        self,
        source: Any,
        held: tuple[RawPage | Rejected, int],
        end: int,
        *,
        whole: bool = False,
    ) -> Iterator[RawPage | Rejected]:
        """Yield a plain record's item, cut short at the first record that starts inside its
        declared block, if one does (then ``self.resume`` is that record's start, else None).
        ``whole``: only a record that ends where its own length says counts."""
        item, start = held
        self.resume = _record_inside(source, start, end, whole=whole)
        yield item if self.resume is None else _cut_short(item, self.resume, start)

    def _convert(self, record: Any, it: ArchiveIterator, record_start: int) -> RawPage | Rejected:
        rec_type = _record_type(record)
        url = _target_uri(record)
        record_id = _record_id(record, self.warc_path, record_start)

        def reject(reason: str, detail: str) -> Rejected:
            offset, length = self._placement(it, record_start)  # (drains the record)
            if (
                isinstance(it, ArchiveIterator)  # (`members` reads only whole members)
                and _cut_by_file(record)
                and not reason.startswith("record_type:")
            ):
                # (what the rejection saw may be an artefact of the cut: a status line or type
                # cut mid-way; a record that is no page is a skip, not a row)
                detail = f"{detail}; {CUT_BY_FILE}" if detail else CUT_BY_FILE
            return Rejected(
                self.warc_path, record_id, rec_type, offset, url or None, reason, detail, length
            )

        if it.loader.header_cut:
            # Cut before its block: whatever its type, the row says so (not a silent skip).
            return reject("truncated_record", "the file ends inside its WARC header")
        if rec_type not in PAGE_TYPES:
            return reject(f"record_type:{rec_type}", "")
        if it.loader.http_cut_short:
            return reject("truncated_record", "the record ends inside its HTTP headers")
        http = record.http_headers
        status = _status(http)
        if http is not None and status not in ACCEPTED_STATUS:
            return reject("http_status", str(status) if status is not None else "unparsable")
        content_type = _content_type(record, http)
        mime = media_type(content_type)
        type_class = classify_type(mime)
        if type_class == "other":
            return reject("not_html", mime[:100])

        raw, capped = read_capped(record.raw_stream, self.max_body_bytes)
        cut_by_file = _cut_by_file(record)
        payload = decode_payload(
            raw,
            _http_header(http, "transfer-encoding"),
            _http_header(http, "content-encoding"),
            self.max_body_bytes,
        )
        if payload.undecodable is not None:
            return reject("undecodable_body", payload.undecodable)
        body = payload.body
        decode_truncated = not payload.complete
        notes = list(payload.notes)
        if type_class != "html":
            kind = sniff_kind(body)
            if kind != "html":
                return reject("not_html", f"{mime or 'no type'}; sniffed {kind}")
            notes.append("html_by_sniffing")
        if cut_by_file:
            notes.append("truncated_by_file")
        if capped or decode_truncated:
            notes.append("truncated_by_cap" if capped else "truncated_body_encoding")
        offset, length = self._placement(it, record_start)
        if self.offset_note:
            notes.append(self.offset_note)
        return RawPage(
            warc_path=self.warc_path,
            record_id=record_id,
            record_type=rec_type,
            warc_offset=offset,
            warc_length=length,
            url=url,
            warc_date=_record_date(record),
            http_status=status,
            content_type=content_type,
            http_headers=_header_pairs(http),
            body=body,
            truncated=capped or cut_by_file or decode_truncated,
            notes=tuple(notes),
        )

    def _placement(self, it: ArchiveIterator, record_start: int) -> tuple[int, int]:
        # Asking warcio drains the rest of the record, so only after the body has been read (F8).
        return it.get_record_offset(), it.get_record_length()


class InflateError(ValueError):
    """A gzip member whose compressed data breaks off or is corrupt part-way."""


class HeaderTooLarge(ValueError):
    """A header line or header block over its cap (`MAX_HEADER_LINE`, `MAX_HEADER_BLOCK`)."""


class NotAnArchive(ValueError):
    """A stream that does not start with a WARC record or an ARC file's header: not an archive
    (a text file, an HTML page, a gzip of something else), read no further."""


# What an archive starts with, after blank lines: a WARC version line, or an ARC header line:
# a URL, an IP address, a 14-digit date, then the content type and the length (and ARC v2's
# further fields) on one line. A looser match would take a text file's first words ("not a warc
# at all") for a record, as warcio does. The length's value is not checked here: a WARC record's
# is not either, and a length that is no byte count is that record's rejection
# (``invalid_length``), after which the file is read on.
_ARCHIVE_START = re.compile(
    rb"WARC/\d+\.\d+\r?\n"
    rb"|[A-Za-z][A-Za-z0-9+.\-]*:[^ \n]+ "
    rb"(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f]*:[0-9A-Fa-f:.]*|-) \d{14}(?: [^ \n]*){2,}\n"
)
# How much of a file's start is looked at (inflated, when it is gzip) for its first line.
_HEAD_BYTES = 1 << 16


def _not_an_archive(stream: Any, pos: int) -> str | None:
    """Why the stream at ``pos`` is no WARC/ARC file, or None when it starts as one (or holds
    nothing but blank lines and empty gzip members, which the reader reports as empty).
    Leaves the stream at ``pos``."""
    try:
        head = _peek(stream, pos, _HEAD_BYTES)
    except OSError:
        return None  # a read error is the reader's to report, where it happens
    gzipped = head[:2] == b"\x1f\x8b"
    text, failure = _inflate_head(head) if gzipped else (head, None)
    start = text.lstrip(b"\r\n\t ")
    if not start and failure is None:
        return None
    if _ARCHIVE_START.match(start) or (
        b"\n" not in start and _ARCHIVE_START.match(start + b"\n")  # cut after its first line
    ):
        return None
    # An archive whose first record is damaged (cut in its version line, a first gzip member
    # that does not inflate) still has a real record start after its first byte, near its
    # start: the reader reports the damage and reads on from there. A text file or a page has
    # none.
    try:
        if _find_next_record(io.BytesIO(start), 1, stop=len(start)) is not None:
            return None
        if gzipped and _find_next_record(stream, pos + 1, stop=pos + _HEAD_BYTES) is not None:
            return None
    except OSError:
        return None
    finally:
        stream.seek(pos)
    if failure is not None:
        return failure
    first = start.split(b"\n", 1)[0][:60]
    return (
        "not a WARC or ARC file: it starts with "
        f"{first.decode('latin-1')!r}, not a WARC version line or an ARC header line"
    )


def _inflate_head(data: bytes) -> tuple[bytes, str | None]:
    """The first inflated bytes (up to `_HEAD_BYTES`) of the gzip members at the start of
    ``data``, and why nothing inflated, if nothing did. Fed in small steps: damage further on
    (which the reader reports where it is) must not hide a good start."""
    out = b""
    while data[:2] == b"\x1f\x8b" and len(out) < _HEAD_BYTES:
        inflater = zlib.decompressobj(31)
        at = 0
        while not inflater.eof and at < len(data) and len(out) < _HEAD_BYTES:
            piece = data[at : at + 512]
            at += len(piece)
            try:
                out += inflater.decompress(piece)
            except zlib.error as exc:
                if out.strip():
                    return out, None
                return out, (
                    "not a readable WARC or ARC file: a gzip stream that does not inflate at "
                    f"its start ({_describe(exc)})"
                )
        if not inflater.eof:
            break
        data = inflater.unused_data + data[at:]
    return out, None


class HeaderCut(ValueError):
    """A record's WARC/ARC header that the end of the file cut before warcio could parse it."""


def _invalid_length(record: Any) -> str | None:
    """Why a WARC record's Content-Length is not a byte count, or None when it is one (or none).

    ARC records are left to warcio: their length field is matched by the record-start pattern,
    and real ARC files with negative lengths read correctly record by record.
    """
    if record.format == "arc":
        return None
    value = record.rec_headers.get_header("Content-Length")
    # A missing one is left to warcio too: it reads to the end, where a cut record is reported.
    if value is not None and _DECIMAL.fullmatch(value.strip()) is None:
        return f"Content-Length {value.strip()[:40]!r} is not a byte count"
    return None


def _declared_length(record: Any) -> int | None:
    key = "length" if record.format == "arc" else "Content-Length"
    try:
        return int(record.rec_headers.get_header(key) or "")
    except ValueError:
        return None


def _single_member_issue(warc_path: str, at: int) -> ReaderIssue:
    return ReaderIssue(
        warc_path,
        "single_gzip_member",
        at,
        "gzip member holds several records (file gzipped whole); from here offsets are "
        f"positions in the gunzipped stream that starts at stored byte {at}",
    )


def _glued_header(record: Any) -> bool:
    """Whether a WARC record's parsed header holds a second record's start (`glued_headers`)."""
    return record.format == "warc" and glued_headers(record.rec_headers.headers)


# How far into the file's first gzip member a record start is looked for when its first record
# is damaged: a bounded inflate (a first record, a warcinfo or a page, is far shorter).
_FIRST_MEMBER_SEARCH = 1 << 22


def _record_in_first_member(stream: Any) -> int | None:
    """Where a record starts in the gunzipped bytes of the gzip member at the file's start, after
    its first byte and within `_FIRST_MEMBER_SEARCH`, or None. Leaves ``stream`` where it was."""
    if _peek(stream, 0, 3) != b"\x1f\x8b\x08":
        return None
    here = stream.tell()
    try:
        stream.seek(0)
        return _find_next_record(_Gunzipped(stream), 1, stop=_FIRST_MEMBER_SEARCH)
    except Exception:  # a member too damaged to inflate holds no record to read here
        return None
    finally:
        stream.seek(here)


def _cut_by_file(record: Any) -> bool:
    # warcio's length-limited stream still expects bytes once drained: the file ended first.
    return getattr(record.raw_stream, "limit", 0) > 0


def _record_inside(source: Any, start: int, end: int, *, whole: bool = False) -> int | None:
    """The first real record start in the plain record's bytes (start, end), or None.

    Gzip members count too: a plain record found by a resync in a gzipped file, or garbage
    before one, can run over the members that follow it.

    Leaves ``source`` where it was: warcio reads on from there when there is none.
    """
    here = source.tell()
    try:
        # A record already known to be damaged may run into a record whose header line is
        # damaged too: there an ARC record counts by its first three fields.
        inside = _find_next_record(source, start + 1, stop=end, whole=whole, damaged=not whole)
    except OSError:
        inside = None  # a gunzipped stream no longer holds the record's start
    finally:
        source.seek(here)
    return inside


def _record_in_header(source: Any, start: int) -> tuple[int | None, int]:
    """Where a whole record starts inside the header of the plain record at ``start`` (its WARC
    header block, or its ARC header line when that line is not a well-formed one), or None; and
    where the header ends (as far as its first 8 KiB show).

    Leaves ``source`` where it was.
    """
    here = source.tell()
    try:
        source.seek(start)
        head = source.read(8192)
    except OSError:
        return None, start + 1
    finally:
        source.seek(here)
    text = head.lstrip(b"\r\n")
    lead = len(head) - len(text)
    if text.startswith(b"WARC/"):
        blank = _HEADER_END.search(text)
        end = blank.start() if blank else len(text)
    else:
        end = text.find(b"\n")
        end = len(text) if end < 0 else end
        if _ARC_HEADER_LINE.fullmatch(text[: end + 1]):
            return None, start + lead + end
    header = text[: end + 2]  # with its line end, which the start patterns need
    if _GLUED_START.search(header, 1) is None and _LINE_START.search(header) is None:
        return None, start + lead + end
    return _record_inside(source, start + lead, start + lead + end, whole=True), start + lead + end


def _cut_short(item: RawPage | Rejected, inside: int, start: int, where: str = "") -> Rejected:
    where = where or "the block its Content-Length declares"
    detail = f"cut short: a record starts at {inside}, inside {where}"
    return Rejected(
        item.warc_path,
        item.record_id,
        item.record_type,
        start,
        item.url,
        "truncated_record",
        detail,
        inside - start,
    )


def _reject_as(item: RawPage | Rejected, reason: str, detail: str) -> Rejected:
    return Rejected(
        item.warc_path,
        item.record_id,
        item.record_type,
        item.warc_offset,
        item.url,
        reason,
        detail,
        item.warc_length,
    )


class _Gunzipped:
    """One gzip member that holds several records (a file gzipped whole), read as the records
    it holds, up to wherever it breaks off.

    `gzip.GzipFile` raises on a stream cut short or corrupt before handing over the bytes that
    did inflate, so every record of a truncated file would be lost; this keeps them, ends the
    stream there, and says why in ``cut_short``. Where the member ends, the stream ends, and
    ``member_end`` is the stored position after it. The last `_GUNZIP_WINDOW` bytes behind the
    read position stay available to ``seek``, so that a damaged record can be searched for the
    start of the next one as in a plain file.
    """

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.start = stream.tell()
        self.consumed = 0  # stored bytes read so far
        self.member_end: int | None = None
        self.inflater = zlib.decompressobj(31)
        self.in_member = False
        self.buf = bytearray()
        self.buf_start = 0  # gunzipped position of buf[0]
        self.pos = 0
        self.done = False
        self.cut_short = ""

    def tell(self) -> int:
        return self.pos

    def seekable(self) -> bool:
        return True

    def seek(self, pos: int, whence: int = 0) -> int:
        if whence != 0 or pos < self.buf_start:
            raise OSError("a gunzipped stream seeks only within the bytes it still holds")
        while self.buf_start + len(self.buf) < pos and not self.done:
            self._inflate_more()
        self.pos = min(pos, self.buf_start + len(self.buf))
        self._trim()
        return self.pos

    def read(self, size: int = -1) -> bytes:
        want = _READ_BLOCK if size is None or size < 0 else size
        while self.buf_start + len(self.buf) < self.pos + want and not self.done:
            self._inflate_more()
        at = self.pos - self.buf_start
        out = bytes(self.buf[at : at + want])
        self.pos += len(out)
        self._trim()
        return out

    def _trim(self) -> None:
        behind = self.pos - self.buf_start - _GUNZIP_WINDOW
        if behind > _GUNZIP_WINDOW:  # trimmed in large steps: each trim moves the buffer
            del self.buf[:behind]
            self.buf_start += behind

    def _inflate_more(self) -> None:
        data = self.inflater.unconsumed_tail
        if not data:
            data = self.stream.read(_READ_BLOCK)
            self.consumed += len(data)
        if not data:
            self.done = True
            if self.in_member:
                self.cut_short = "the file ends inside a gzip member"
            return
        self.in_member = True
        try:
            self.buf += self.inflater.decompress(data, _READ_BLOCK)
        except zlib.error as exc:
            self.done, self.cut_short = True, _describe(exc)
            return
        if self.inflater.eof:
            self.done, self.in_member = True, False
            self.member_end = self.start + self.consumed - len(self.inflater.unused_data)


def _gzip_inflater() -> Any:
    return _inflate_lib.decompressobj(16 + _inflate_lib.MAX_WBITS)


class _InflatingReader(DecompressingBufferedReader):  # type: ignore[misc]
    """warcio's record stream with zlib-ng's inflate instead of zlib's.

    Inflating is most of a record's read time and zlib-ng does it in about half; it is zlib's API
    (same output, same ``unused_data``/``eof``, an error where zlib has one), so warcio's member
    and offset bookkeeping is untouched.
    """

    DECOMPRESSORS: ClassVar[dict[str, Any]] = {
        **DecompressingBufferedReader.DECOMPRESSORS,
        "gzip": _gzip_inflater,
    }

    # Set by the segment reader when the file is gzipped record by record.
    gzip_file = False
    # Whether the last member read has not ended yet (warcio drops its inflater when it closes).
    open_member = False

    def _decompress(self, data: bytes) -> bytes:
        # warcio answers a member that stops inflating part-way with b"" (and a line on stderr),
        # which reads as the end of the file: every record after it would be silently lost.
        # Only a plain file's first block may fail to inflate: warcio then reads it uncompressed.
        if self.decompressor and data and (self.num_block_read or self.gzip_file):
            try:
                out: bytes = self.decompressor.decompress(data)
            except Exception as exc:
                raise InflateError(f"gzip member stops inflating: {_describe(exc)}") from None
            self.open_member = not self.decompressor.eof
            return out
        return super()._decompress(data)  # type: ignore[no-any-return]

    def readline(self, length: int | None = None) -> bytes:
        # warcio reads header lines, and the lines between records, with no length at all.
        cap = MAX_HEADER_LINE + 1
        limit = cap if length is None else min(length, cap)
        line: bytes = super().readline(limit)
        # warcio's own loop can stop short of both a newline and the limit at a buffer boundary
        while line and not line.endswith(b"\n") and len(line) < limit:
            more = super().readline(limit - len(line))
            if not more:
                break
            line += more
        if len(line) > MAX_HEADER_LINE:
            raise HeaderTooLarge(f"a header line is longer than {MAX_HEADER_LINE} bytes")
        return line


class _CappedLines:
    """A record stream seen by a header parser: its header block may not exceed
    `MAX_HEADER_BLOCK` bytes (each line is capped by `_InflatingReader`)."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.left = MAX_HEADER_BLOCK
        # Whether a line was asked for at the end of the stream: a header that the file's end
        # cut before its blank line.
        self.at_eof = False

    def readline(self, length: int | None = None) -> bytes:
        line: bytes = self.stream.readline(length)
        if not line:
            self.at_eof = True
        self.left -= len(line)
        if self.left < 0:
            raise HeaderTooLarge(f"a header block is longer than {MAX_HEADER_BLOCK} bytes")
        return line

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


class _Loader(ArcWarcRecordLoader):  # type: ignore[misc]
    """warcio's loader, except that a record cut inside its HTTP headers is reported.

    warcio lets that EOFError escape as "end of input", silently dropping the record (and, in a
    plain file, everything after it); here the record is kept, flagged, and counted.

    The HTTP headers of records that cannot be pages (requests, revisits) are not parsed: they are
    counted by type and drained unread, and parsing them was a third of the reader's Python time.
    """

    http_cut_short = False

    def load_http_headers(self, rec_type: str, uri: str, stream: Any, length: Any) -> Any:
        self.http_cut_short = False
        if rec_type in _UNPARSED_HTTP:
            return None
        if rec_type == "response" and uri:
            warc = self.last_headers[1] if self.last_headers is not None else None
            content_type = warc.get_header("Content-Type") if warc is not None else None
            # (warcio parses the block under a lower-case "http:" or "https:" target only)
            uri = "http:" if holds_http(uri, content_type) else uri
        try:
            return super().load_http_headers(rec_type, uri, _CappedLines(stream), length)
        except EOFError:
            self.http_cut_short = True
            return None

    # Whether the last record's WARC/ARC header was cut by the end of the file.
    header_cut = False
    # (format, headers) of the last record whose WARC/ARC header was parsed, for a rejection
    # when its HTTP header then fails.
    last_headers: Any = None

    def _detect_type_load_headers(self, stream: Any, *args: Any, **kwargs: Any) -> Any:
        lines = _CappedLines(stream)
        try:
            result = super()._detect_type_load_headers(lines, *args, **kwargs)
        except (HeaderTooLarge, EOFError):
            raise
        except Exception as exc:
            if lines.at_eof:  # (a header line cut mid-way can fail warcio's parse)
                raise HeaderCut(f"the file ends inside its header ({_describe(exc)})") from None
            raise
        self.header_cut = lines.at_eof
        self.last_headers = result
        return result

    def parse_record_stream(self, *args: Any, **kwargs: Any) -> Any:
        self.header_cut = False
        self.last_headers = None
        try:
            return super().parse_record_stream(*args, **kwargs)
        except (HeaderTooLarge, HeaderCut, EOFError):
            raise
        except Exception as exc:
            # A header cut where it lacks what the loader needs (a target URI): as above.
            if self.header_cut:
                raise HeaderCut(f"the file ends inside its header ({_describe(exc)})") from None
            raise


def _unread_tail(source: Any, pos: int) -> str:
    """Describe non-blank bytes after the last record warcio read ('' when there are none)."""
    try:
        if not _is_seekable(source):
            return ""
        here = source.tell()
        size = source.seek(0, 2)
        if size <= pos:
            return ""
        source.seek(pos)
        head = source.read(8192)
        source.seek(here)
    except Exception:
        return ""
    if _blank(head):
        return ""
    return f"{size - pos} bytes after the last record are not a readable record (file cut short?)"


def _blank_from(stream: Any, pos: int) -> bool:
    """Whether nothing but blank bytes or empty gzip members lies from ``pos`` to the end.

    Only a short tail is read: a longer one is left to the reader, which reports it.
    """
    if not _is_seekable(stream):
        return False
    data = _peek(stream, pos, _BLANK_TAIL_MAX + 1)
    return len(data) <= _BLANK_TAIL_MAX and _blank(data)


def _blank(data: bytes) -> bool:
    """Whether ``data`` holds only blank bytes, or only gzip members of blank bytes."""
    if data[:2] == b"\x1f\x8b":
        text = _gunzip_prefix(data)
        return text is not None and not text.strip()
    return not data.strip()


def _gunzip_prefix(data: bytes) -> bytes | None:
    """Decompress the gzip members at the start of ``data``; None when they do not decode."""
    out = []
    while data[:2] == b"\x1f\x8b":
        d = zlib.decompressobj(31)
        try:
            out.append(d.decompress(data))
        except zlib.error:
            return None
        if not d.eof:
            return None if not out[-1] else b"".join(out)
        data = d.unused_data
    return b"".join(out) if not data.strip() else None


def _skip_leading_blank_lines(it: ArchiveIterator) -> None:
    """Consume blank lines before the first record so warcio does not parse an empty record.

    A resynchronised gzip member may begin with the CRLFs that ended the previous record, and
    warcio turns a blank first line into a header-less record that swallows the member.
    """
    skipped = 0
    while True:
        line = it.reader.readline()
        if not line:
            return
        if line.strip():
            it.next_line = line
            if it.reader.decompressor is None:
                it.offset += skipped  # plain file: the record starts after the blank lines
            return
        skipped += len(line)


def _record_type(record: Any) -> str:
    if record.format == "arc":
        return "warcinfo" if record.rec_type == "arc_header" else "response"
    rec_type = (record.rec_type or "").strip().lower()
    return rec_type[:40] if rec_type else "missing"


def _target_uri(record: Any) -> str:
    key = "uri" if record.format == "arc" else "WARC-Target-URI"
    return (record.rec_headers.get_header(key) or "").strip()


def _record_id(record: Any, warc_path: str, offset: int) -> str:
    if record.format != "arc":
        rid = (record.rec_headers.get_header("WARC-Record-ID") or "").strip()
        if rid:
            return rid[:200]
    # ARC records have no id (and warcio's arc2warc invents a random one): derive a stable one.
    digest = hashlib.sha1(f"{warc_path}\0{offset}".encode()).hexdigest()
    return f"<urn:warcclean:{digest}>"


def _record_date(record: Any) -> str:
    if record.format == "arc":
        stamp = record.rec_headers.get_header("archive-date") or ""
        try:
            return timestamp_to_iso_date(stamp)
        except Exception:
            return stamp
    return (record.rec_headers.get_header("WARC-Date") or "").strip()


def _status(http: Any) -> int | None:
    if http is None:
        return None
    try:
        return int(http.get_statuscode())
    except (TypeError, ValueError):
        return None


def _content_type(record: Any, http: Any) -> str | None:
    if http is not None:
        value = http.get_header("content-type")
        if value is not None:
            return value.strip()[:300]
        return None
    key = "content-type" if record.format == "arc" else "Content-Type"
    value = record.rec_headers.get_header(key)
    return value.strip()[:300] if value is not None else None


def _http_header(http: Any, name: str) -> str | None:
    return None if http is None else http.get_header(name)


def _header_pairs(http: Any) -> tuple[tuple[str, str], ...]:
    if http is None:
        return ()
    return tuple(
        (str(name)[:200], str(value)[:_MAX_HEADER_VALUE])
        for name, value in http.headers[:_MAX_HEADERS]
    )


def _with_note(item: RawPage | Rejected, note: str) -> RawPage | Rejected:
    if isinstance(item, RawPage):
        return _replace(item, notes=(*item.notes, note))
    return _replace(item, detail=f"{item.detail}; {note}" if item.detail else note)


def _replace(obj: Any, **changes: Any) -> Any:
    import dataclasses

    return dataclasses.replace(obj, **changes)


def _describe(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}"[:300]


def _is_seekable(stream: Any) -> bool:
    try:
        if not stream.seekable():
            return False
        stream.tell()
        return True
    except Exception:
        return False


def _peek_keep(stream: Any, pos: int, n: int) -> bytes:
    """``n`` bytes at ``pos``, leaving the stream where it was."""
    here = stream.tell()
    try:
        return _peek(stream, pos, n)
    finally:
        stream.seek(here)


def _peek(stream: Any, pos: int, n: int) -> bytes:
    stream.seek(pos)
    data = stream.read(n)
    stream.seek(pos)
    return data


def _find_next_record(
    stream: Any,
    start: int,
    *,
    stop: int | None = None,
    whole: bool = False,
    damaged: bool = False,
) -> int | None:
    """Smallest position >= start (and < ``stop``) where a real record starts, or None.

    Both layouts are looked for, whatever the file started with: damage can put anything first,
    and a record cut short runs straight into the next one, so a WARC version line counts even
    where no line break precedes it. ``damaged``: the bytes are a damaged record's, where an ARC
    header line at a line start counts by its first three fields (`_ARC_DAMAGED_LINE`).
    """
    # Inside a file gzipped whole every record is plain: a gzip member there is a record's
    # content (a body that is a .gz download, or bytes spliced into one), never a record.
    gunzipped = isinstance(stream, _Gunzipped)
    scan_from = max(start - 1, 0)  # one byte back so a record right at ``start`` is seen
    carry = b""
    carry_at = scan_from
    read_at = scan_from
    while stop is None or read_at < stop:
        stream.seek(read_at)
        # Up to ``stop``, and a header line's worth past it for a start just before it.
        size = _SCAN_CHUNK if stop is None else min(_SCAN_CHUNK, stop - read_at + 1024)
        data = stream.read(size)
        if not data:
            return None
        block = carry + data
        block_at = carry_at
        # Every start holds a gzip magic, a version line or an ARC date: a record's block that
        # holds none before ``stop`` is passed over without the slower patterns.
        region = block if stop is None else block[max(start - block_at, 0) : stop - block_at]
        if not (_GZIP_MAGIC in region or b"WARC/" in region or _ARC_DATE.search(region)):
            region = b""
        for cand in _candidates(block, damaged, gzip=not gunzipped) if region else ():
            where = block_at + cand
            if stop is not None and where >= stop:
                return None
            if where >= start and _validate(stream, where, whole, damaged):
                return where
        read_at += len(data)
        carry = block[-256:]
        carry_at = read_at - len(carry)
    return None


def _candidates(block: bytes, damaged: bool = False, *, gzip: bool = True) -> list[int]:
    starts = {m.start() + 1 for m in _LINE_START.finditer(block)}
    if damaged:
        starts.update(m.start() + 1 for m in _DAMAGED_LINE_START.finditer(block))
    starts.update(m.start() for m in _GLUED_START.finditer(block))
    at = block.find(_GZIP_MAGIC) if gzip else -1
    while at >= 0:
        starts.add(at)
        at = block.find(_GZIP_MAGIC, at + 1)
    return sorted(starts)


def _validate(stream: Any, where: int, whole: bool = False, damaged: bool = False) -> bool:
    stream.seek(where)
    head = stream.read(8192)
    if head.startswith(_GZIP_MAGIC):
        try:
            head = zlib.decompressobj(31).decompress(head, 4096)
        except zlib.error:
            return False
        return _RECORD_START.match(head.lstrip(b"\r\n")) is not None
    if _RECORD_START.match(head) is None:
        return damaged and _DAMAGED_START.match(head) is not None
    return not whole or _looks_whole(stream, where, head)


def _looks_whole(stream: Any, where: int, head: bytes) -> bool:
    """Whether the plain record at ``where`` is more than a header line: a whole WARC header
    block (type, id and length, CRLF-ended), or a record that ends where its length says. A page
    that quotes a record in its text rarely has either."""
    arc = re.match(rb"\S+ \S+ \d{14} \S* ([0-9]+)\r?\n", head)
    if arc is not None and not head.startswith(b"WARC/"):
        # an ARC record ends with one line feed after its block
        stream.seek(where + arc.end() + int(arc.group(1)))
        return stream.read(1) == b"\n"
    blank = head.find(b"\r\n\r\n")
    if blank < 0:
        return False
    block = head[: blank + 2]
    found = re.search(rb"\r\nContent-Length:([^\r\n]*)\r\n", block, re.I)
    if found is None:
        return False
    # A whole header block is a record start whatever its length says: a record with a length
    # that is no byte count ("-0") is still the start that ends the cut record before it.
    if all(re.search(rb"\r\n" + name + rb":", block, re.I) for name in _WHOLE_HEADER):
        return True
    length = found.group(1).strip(b" \t")
    if not length.isdigit():
        return False
    stream.seek(where + blank + 4 + int(length))
    return stream.read(4) == b"\r\n\r\n"
