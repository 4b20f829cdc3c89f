"""Damaged WARC and ARC files built from a small seed corpus, each with what must survive.

`make_mutant(rng)` returns a `Mutant`: the mutated file's bytes, a label that says how it was made
(enough to rebuild it by hand), and the records that the mutation left intact, with their offsets
in the mutated file. It knows nothing of ``pipeline``: the reader and the job are judged by
`tests.fuzz_harness`, which the CI test and ``bench/fuzz_warcs.py`` share.

Two kinds of damage, combined at random:

- record-level, on one record's uncompressed bytes before it is laid out: Content-Length rewritten
  (0 with a non-empty block, -0, -1, -5, 1e3, 0x10, 12.5, empty, abc, larger than the file, one
  more or less than the block), removed; the record cut; bytes flipped; a slice of another
  record spliced in; the header block damaged (version line, record type, a 70 KB line, the
  blank line that ends it, LF line ends, a NUL); the HTTP Content-Length rewritten; the record
  dropped;
- file-level, on the laid-out bytes: truncation, flipped bytes, a deleted range, inserted junk
  (random bytes, CRLFs, a gzip magic, a spliced slice of any seed file).

Layouts: one gzip member per record (as Common Crawl writes them), plain, and the whole file
gzipped as one member; WARC/1.0 and ARC v1. Records whose bytes the mutation did not touch are
"intact" when their position is still known: all of them in per-record gzip members and plain
files; in a whole-file gzip all of them too (at their positions in the gunzipped stream, which is
searched as a plain file is), but only for damage to records or a truncation (a changed
compressed byte can inflate to anything).
"""

from __future__ import annotations

import gzip
import random
import re
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tests.warc_builders import (
    build_arc,
    build_warc,
    html_response,
    http_block,
    plain_record,
    request_record,
    resource_record,
    revisit_record,
)

LAYOUTS = ("members", "plain", "whole")
# Record types the reader can turn into a page; the others are counted as skips.
PAGE_TYPES = frozenset({"response", "resource"})

# The Content-Length values issue 33 lists, then one byte more and one less than the block;
# "huge" becomes a length larger than the file.
LENGTH_VALUES = ("0", "-0", "-1", "-5", "1e3", "0x10", "12.5", "", "abc", "huge")
LENGTH_VALUES += ("block+1", "block-1")

_PROSE = (
    "The ferry leaves the harbour twice a day in winter, and the people of the island plan "
    "their week around it: the doctor comes on Tuesdays, the post on Thursdays, and on "
    "Saturdays half the village crosses to the market on the mainland and back again. ",
    "Die Fähre verlässt den Hafen im Winter zweimal am Tag, und die Leute auf der Insel "
    "richten ihre Woche danach: der Arzt kommt dienstags, die Post donnerstags, und samstags "
    "fährt das halbe Dorf zum Markt auf dem Festland und wieder zurück. ",
    "Le bac quitte le port deux fois par jour en hiver, et les habitants de l'île organisent "
    "leur semaine autour de lui : le médecin vient le mardi, le courrier le jeudi, et le "
    "samedi la moitié du village traverse pour aller au marché du continent. ",
)


def _page(title: str, prose: str) -> bytes:
    return (
        (
            "<html><head><title>{t}</title></head><body>"
            "<nav><a href='/'>Home</a> | <a href='/news'>News</a></nav>"
            "<h1>{t}</h1><p>{p}</p><p>{p}</p>"
            "<footer>Copyright 2024 | Privacy</footer></body></html>"
        )
        .format(t=title, p=prose * 2)
        .encode()
    )


@dataclass(frozen=True)
class Seed:
    """One small file as records: each record's uncompressed bytes, id and type."""

    name: str
    fmt: str  # "warc" | "arc"
    records: tuple[bytes, ...]
    ids: tuple[str | None, ...]  # WARC-Record-ID; None for ARC (the reader derives one)
    types: tuple[str, ...]  # the reader's record type ("warcinfo" for an ARC filedesc)
    prefix: bytes = b""  # bytes before the first record that belong to none (none so far)

    def layout(self, layout: str) -> tuple[bytes, list[tuple[int, int]]]:
        return lay_out(self.records, layout)


def _rid(seed: int, i: int) -> str:
    return f"<urn:uuid:f0220000-0000-4000-8000-{seed:04d}{i:08d}>"


def _warc_seed(name: str, number: int, specs: Sequence[Callable[[str], object]]) -> Seed:
    records, ids, types = [], [], []
    for i, make in enumerate(specs):
        rid = _rid(number, i)
        spec = make(rid)
        records.append(build_warc([spec], gzip=False))  # type: ignore[list-item]
        ids.append(rid)
        types.append(spec.record_type)  # type: ignore[attr-defined]
    return Seed(name, "warc", tuple(records), tuple(ids), tuple(types))


def _arc_seed(name: str, pages: Sequence[tuple[str, str, bytes]]) -> Seed:
    # build_arc writes the filedesc header first: each record is what one more page adds.
    desc = build_arc([], gzip=False)
    records = [desc]
    for page in pages:
        records.append(build_arc([page], gzip=False)[len(desc) :])
    types = ("warcinfo",) + ("response",) * len(pages)
    return Seed(name, "arc", tuple(records), (None,) * len(records), types)


def _seeds() -> tuple[Seed, ...]:
    en, de, fr = _PROSE
    cc = _warc_seed(
        "cc",
        1,
        [
            lambda r: plain_record("warcinfo", "", b"software: fuzz\r\n", record_id=r),
            lambda r: request_record("https://isle.example/ferry", record_id=r),
            lambda r: html_response("https://isle.example/ferry", _page("Ferry", en), record_id=r),
            lambda r: plain_record(
                "metadata", "https://isle.example/ferry", b"fetchTimeMs: 12\r\n", record_id=r
            ),
            lambda r: request_record("https://isle.example/faehre", record_id=r),
            lambda r: html_response(
                "https://isle.example/faehre",
                _page("Fähre", de),
                content_encoding="gzip",
                chunked=True,
                record_id=r,
            ),
            lambda r: html_response(
                "https://isle.example/bac", _page("Bac", fr), chunked=True, record_id=r
            ),
        ],
    )
    odd = _warc_seed(
        "odd",
        2,
        [
            lambda r: html_response(
                "https://isle.example/gone", b"<p>not here</p>", status=404, record_id=r
            ),
            lambda r: resource_record(
                "https://isle.example/notes", _page("Notes", en), "text/html", record_id=r
            ),
            lambda r: revisit_record("https://isle.example/ferry", record_id=r),
            lambda r: html_response(
                "https://isle.example/logo.png",
                b"\x89PNG\r\n\x1a\n" + bytes(range(256)),
                content_type="image/png",
                record_id=r,
            ),
            lambda r: html_response(
                "https://isle.example/empty", b"", content_encoding="deflate", record_id=r
            ),
            lambda r: html_response("https://isle.example/port", _page("Port", de), record_id=r),
        ],
    )
    arc_pages = [
        (
            f"http://isle.example/{slug}",
            "text/html",
            http_block(
                "HTTP/1.0 200 OK",
                [("Content-Type", "text/html; charset=utf-8")],
                _page(slug.title(), prose),
            ),
        )
        for slug, prose in (("ferry", en), ("faehre", de), ("bac", fr))
    ]
    return (cc, odd, _arc_seed("arc", arc_pages))


SEEDS: tuple[Seed, ...] = _seeds()


def lay_out(records: Sequence[bytes], layout: str) -> tuple[bytes, list[tuple[int, int]]]:
    """The file's bytes and each record's (start, end) in it; no spans for a whole-file gzip."""
    if layout == "whole":
        return gzip.compress(b"".join(records), mtime=0), []
    parts = [gzip.compress(r, mtime=0) for r in records] if layout == "members" else list(records)
    spans, at = [], 0
    for part in parts:
        spans.append((at, at + len(part)))
        at += len(part)
    return b"".join(parts), spans


@dataclass(frozen=True)
class Intact:
    """A record the mutation did not touch, where the reader must find it."""

    offset: int
    record_id: str | None
    record_type: str
    # Where ``offset`` counts: the stored file, or (a file gzipped whole) its gunzipped stream.
    space: str = "stored"


@dataclass(frozen=True)
class Mutant:
    data: bytes
    label: str
    seed: str
    fmt: str
    layout: str
    intact: tuple[Intact, ...]
    # Header bytes were spliced into a block, or file-level damage may have left header lines
    # inside one: a document may then legitimately hold header text, as the block really does.
    may_embed_headers: bool = False
    damaged: tuple[int, ...] = field(default_factory=tuple)


# --- record-level damage -------------------------------------------------------------------------

_HEADER_END = re.compile(rb"\r?\n\r?\n")
_WARC_LENGTH = re.compile(rb"(?mi)^Content-Length:[^\r\n]*")
_ARC_LENGTH = re.compile(rb"^([^\n]* )(-?\d+)(\r?\n)")


def header_end(record: bytes) -> int:
    """Where a record's headers end (its block starts); the first line's end for ARC."""
    if not record.startswith(b"WARC/"):
        return record.index(b"\n") + 1
    match = _HEADER_END.search(record)
    return match.end() if match else len(record)


def set_length(record: bytes, value: str, file_size: int) -> bytes:
    """Rewrite the record's length: WARC's Content-Length header or ARC's last header field."""
    block = len(record) - header_end(record)
    text = {
        "huge": str(file_size * 2 + 1000),
        "block+1": str(block + 1),
        "block-1": str(block - 1),
    }.get(value, value)
    if record.startswith(b"WARC/"):
        return _WARC_LENGTH.sub(b"Content-Length: " + text.encode(), record, count=1)
    return _ARC_LENGTH.sub(lambda m: m[1] + text.encode() + m[3], record, count=1)


def _header_damage(rng: random.Random, record: bytes) -> tuple[bytes, str]:
    end = header_end(record)
    head, block = record[:end], record[end:]
    if record.startswith(b"WARC/"):
        choices: list[tuple[str, Callable[[], bytes]]] = [
            ("version WARC/9.9", lambda: b"WARC/9.9" + head[8:]),
            ("version WARZ", lambda: b"WARZ" + head[4:]),
            ("no version line", lambda: head[head.index(b"\n") + 1 :]),
            ("type garbage", lambda: re.sub(rb"WARC-Type: \w+", b"WARC-Type: z\x01q", head)),
            ("type removed", lambda: re.sub(rb"WARC-Type: \w+\r\n", b"", head)),
            ("length removed", lambda: _WARC_LENGTH.sub(b"X-Gone: 1", head)),
            ("70KB header line", lambda: head[:-2] + b"X-Big: " + b"a" * 70_000 + b"\r\n\r\n"),
            ("no blank line after headers", lambda: head[:-2]),
            ("LF line ends", lambda: head.replace(b"\r\n", b"\n")),
            ("NUL in headers", lambda: head[:12] + b"\x00" + head[13:]),
            ("id removed", lambda: re.sub(rb"WARC-Record-ID: [^\r\n]*\r\n", b"", head)),
        ]
    else:
        fields = head.rstrip(b"\n").split(b" ")
        choices = [
            ("arc short date", lambda: b" ".join([*fields[:2], b"2024", *fields[3:]]) + b"\n"),
            ("arc no length", lambda: b" ".join(fields[:-1]) + b"\n"),
            ("arc extra field", lambda: b" ".join([*fields, b"extra"]) + b"\n"),
            ("arc no newline", lambda: head[:-1] + b" "),
            ("arc empty line", lambda: b"\n"),
        ]
    name, make = rng.choice(choices)
    return make() + block, name


def _http_length(rng: random.Random, record: bytes) -> tuple[bytes, str]:
    value = rng.choice([b"0", b"-1", b"abc", b"99999999", b"1e3", b""])
    end = header_end(record)
    block = re.sub(
        rb"(?mi)^Content-Length:[^\r\n]*", b"Content-Length: " + value, record[end:], count=1
    )
    return record[:end] + block, f"http length {value.decode() or 'empty'}"


def damage_record(
    rng: random.Random, record: bytes, file_size: int, donors: Sequence[bytes], plain: bool
) -> tuple[bytes | None, str, bool]:
    """One damage to ``record``: (new bytes or None to drop it, label, may embed headers).

    ``plain``: the record is not in a gzip member of its own.
    """
    kind = rng.choice(
        ["length", "length", "length", "cut", "flip", "splice", "header", "http", "drop"]
    )
    if kind == "length":
        value = rng.choice(LENGTH_VALUES)
        return set_length(record, value, file_size), f"length {value or 'empty'}", False
    if kind == "cut":
        # Without a gzip member around each record (plain, or one member for the whole file), a
        # cut inside the headers would merge them with the next record's, which no reader can
        # tell apart from one record: such records are cut in the block.
        low = header_end(record) if plain else 1
        at = rng.randrange(low, max(low + 1, len(record)))
        return record[:at], f"cut at {at}/{len(record)}", False
    if kind == "flip":
        data = bytearray(record)
        spots = sorted(rng.randrange(len(data)) for _ in range(rng.randint(1, 4)))
        for at in spots:
            data[at] = rng.randrange(256)
        # A flip in the header block can end it early (a new blank line), and the header lines
        # after that are then the record's block.
        return bytes(data), f"flip at {spots}", spots[0] < header_end(record)
    if kind == "splice":
        donor = rng.choice(donors)
        a = rng.randrange(len(donor))
        piece = donor[a : a + rng.randint(1, 400)]
        at = rng.randrange(len(record))
        embeds = holds_header_bytes(piece) or at < header_end(record)
        return record[:at] + piece + record[at:], f"splice {len(piece)}B at {at}", embeds
    if kind == "header":
        data, name = _header_damage(rng, record)
        # Without its version line a WARC record's header lines start no record: when another
        # damage (a cut, a length) makes the record before run over them, they are that
        # record's block, as for file-level damage below. (A damaged ARC header line that keeps
        # its URL, IP and date is found by the reader inside a damaged record; one without them
        # is not header text to the check.)
        return data, f"header: {name}", name in ("version WARZ", "no version line")
    if kind == "http":
        data, name = _http_length(rng, record)
        return data, name, False
    return None, "dropped", False


def holds_header_bytes(piece: bytes) -> bool:
    """Whether spliced bytes may carry header text (a WARC header or an ARC header line)."""
    return any(mark in piece for mark in (b"WARC/", b"WARC-", b"93.184.216.34", b"filedesc:"))


# --- file-level damage ---------------------------------------------------------------------------

_JUNK: tuple[Callable[[random.Random], bytes], ...] = (
    lambda rng: rng.randbytes(rng.randint(1, 64)),
    lambda rng: b"\r\n" * rng.randint(1, 4),
    lambda rng: b"\x1f\x8b\x08" + rng.randbytes(rng.randint(0, 40)),
    lambda rng: b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03",
)


def damage_file(
    rng: random.Random, data: bytes, spans: list[tuple[int, int]], donors: Sequence[bytes]
) -> tuple[bytes, list[int | None], set[int], str, bytes]:
    """One damage to the laid-out file.

    Returns the bytes, each record's new start (None when damaged), the damaged records, a label
    and the bytes inserted (if any).

    A record keeps its start (shifted by what was inserted or deleted before it) when none of its
    bytes changed; a record that a change touches, or one that a truncation cut, is damaged.
    """
    kind = rng.choice(["truncate", "flip", "flip", "delete", "insert", "splice"])
    n = len(data)
    starts: list[int | None] = [s for s, _ in spans]
    damaged: set[int] = set()
    if kind == "truncate" or n < 2:
        cut = rng.randrange(n) if n else 0
        for i, (_, e) in enumerate(spans):
            if e > cut:
                starts[i] = None
                damaged.add(i)
        return data[:cut], starts, damaged, f"truncate at {cut}/{n}", b""
    if kind == "flip":
        spots = sorted({rng.randrange(n) for _ in range(rng.randint(1, 8))})
        out = bytearray(data)
        for at in spots:
            out[at] = rng.randrange(256)
        for i, (s, e) in enumerate(spans):
            if any(s <= at < e for at in spots):
                starts[i] = None
                damaged.add(i)
        return bytes(out), starts, damaged, f"flip file at {spots}", b""
    if kind == "delete":
        a = rng.randrange(n)
        b = min(n, a + rng.randint(1, 64))
        for i, (s, e) in enumerate(spans):
            if s < b and e > a:
                starts[i] = None
                damaged.add(i)
            elif s >= b:
                starts[i] = s - (b - a)
        return data[:a] + data[b:], starts, damaged, f"delete [{a}, {b})", b""
    if kind == "insert":
        piece = rng.choice(_JUNK)(rng)
        label = f"insert {piece[:12]!r}..({len(piece)}B)"
    else:
        donor = rng.choice(donors)
        a = rng.randrange(len(donor))
        piece = donor[a : a + rng.randint(1, 2000)]
        label = f"splice file {len(piece)}B"
    at = rng.randrange(n + 1)
    for i, (s, e) in enumerate(spans):
        if s < at < e:
            starts[i] = None
            damaged.add(i)
        elif s >= at:
            starts[i] = s + len(piece)
    return data[:at] + piece + data[at:], starts, damaged, f"{label} at {at}", piece


# --- mutants -------------------------------------------------------------------------------------


def _donors() -> list[bytes]:
    out = []
    for seed in SEEDS:
        out.extend(seed.records)
        for layout in LAYOUTS:
            out.append(seed.layout(layout)[0])
    return out


DONORS: tuple[bytes, ...] = tuple(_donors())


def make_mutant(rng: random.Random, seeds: Sequence[Seed] = SEEDS) -> Mutant:
    """A random mutant: 0-2 record-level damages, then 0-1 file-level damage (at least one)."""
    seed = rng.choice(seeds)
    layout = rng.choice(LAYOUTS)
    n_record = rng.choice([0, 1, 1, 1, 2])
    n_file = 1 if n_record == 0 else rng.choice([0, 0, 1])
    return build_mutant(rng, seed, layout, n_record, n_file)


def build_mutant(rng: random.Random, seed: Seed, layout: str, n_record: int, n_file: int) -> Mutant:
    records: list[bytes | None] = list(seed.records)
    file_size = len(seed.layout(layout)[0])
    labels = [f"{seed.name}/{layout}"]
    embeds = False
    damaged: set[int] = set()
    for k in rng.sample(range(len(records)), min(n_record, len(records))):
        new, label, embed = damage_record(
            rng, seed.records[k], file_size, DONORS, plain=layout != "members"
        )
        records[k] = new
        damaged.add(k)
        embeds = embeds or embed
        labels.append(f"record {k}: {label}")
    kept = [i for i, r in enumerate(records) if r is not None]
    data, spans = lay_out([records[i] for i in kept], layout)  # type: ignore[misc]
    starts: list[int | None] = [s for s, _ in spans]
    only_truncated = True
    for _ in range(n_file):
        data, starts, hit, label, piece = damage_file(rng, data, spans_of(starts, spans), DONORS)
        damaged.update(kept[i] for i in hit)
        labels.append(label)
        only_truncated = only_truncated and label.startswith("truncate")
        # Spliced into compressed bytes, a piece breaks the deflate stream it lands in: only in
        # a plain file can its text end up inside a block.
        embeds = embeds or (layout == "plain" and holds_header_bytes(piece))
        # Changed bytes can leave a record's header lines without the version line that starts
        # them (plain), or inflate to text copied from a record's own header (a flipped deflate
        # back-reference): header text in a block is then the damaged file's content.
        embeds = embeds or (not label.startswith("truncate") and (bool(hit) or layout == "whole"))
    intact = []
    if layout != "whole":
        for pos, i in enumerate(kept):
            if i not in damaged and starts[pos] is not None:
                intact.append(Intact(starts[pos], seed.ids[i], seed.types[i]))  # type: ignore[arg-type]
    elif only_truncated:
        intact = _intact_in_whole(seed, records, kept, damaged, data)
    return Mutant(
        data=data,
        label="; ".join(labels),
        seed=seed.name,
        fmt=seed.fmt,
        layout=layout,
        intact=tuple(intact),
        may_embed_headers=embeds,
        damaged=tuple(sorted(damaged)),
    )


def _intact_in_whole(
    seed: Seed, records: list[bytes | None], kept: list[int], damaged: set[int], data: bytes
) -> list[Intact]:
    """In a whole-file gzip: the undamaged records that inflate whole, before and after the
    damaged ones (the gunzipped stream is searched as a plain file is), at their positions in
    the gunzipped stream.

    Only for damage to records and truncation: a changed compressed byte can inflate to wrong
    bytes well before the stream fails.
    """
    inflater = zlib.decompressobj(31)
    try:
        text = inflater.decompress(data)
    except zlib.error:
        return []
    out, at = [], 0
    for i in kept:
        end = at + len(records[i])  # type: ignore[arg-type]
        if end > len(text):
            break
        if i not in damaged:
            out.append(Intact(at, seed.ids[i], seed.types[i], space="gunzip@0"))
        at = end
    return out


def spans_of(starts: list[int | None], spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans after earlier file-level damage; a damaged record keeps a span that hits nothing."""
    out = []
    for start, (s, e) in zip(starts, spans, strict=True):
        out.append((start, start + (e - s)) if start is not None else (-1, -1))
    return out


def length_mutants() -> list[Mutant]:
    """Every listed Content-Length value on every record of every seed in every layout."""
    out = []
    for seed in SEEDS:
        for layout in LAYOUTS:
            file_size = len(seed.layout(layout)[0])
            for k in range(len(seed.records)):
                for value in LENGTH_VALUES:
                    records = list(seed.records)
                    records[k] = set_length(records[k], value, file_size)
                    data, spans = lay_out(records, layout)
                    if spans:
                        intact = tuple(
                            Intact(spans[i][0], seed.ids[i], seed.types[i])
                            for i in range(len(records))
                            if i != k
                        )
                    else:
                        kept = list(range(len(records)))
                        intact = tuple(_intact_in_whole(seed, records, kept, {k}, data))  # type: ignore[arg-type]
                    out.append(
                        Mutant(
                            data,
                            f"{seed.name}/{layout}; record {k}: length {value or 'empty'}",
                            seed.name,
                            seed.fmt,
                            layout,
                            intact,
                            damaged=(k,),
                        )
                    )
    return out
