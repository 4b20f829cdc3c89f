"""The reader on every real WARC/ARC file in ../shared/warcs/real (skipped when absent).

Expected record counts and per-type counts are taken from SOURCES.md ("Records (warcio)" lines,
or FastWARC's count where warcio fails), with ARC 'arc_header' counted as our 'warcinfo'. A
second, independent count comes from the bytes themselves: `WARC-Type:` header lines (or ARC
header lines) in the fully gunzipped file.
"""

from __future__ import annotations

import gzip
import re
from collections import Counter
from pathlib import Path

import pytest

from pipeline.types import RawPage, Rejected
from pipeline.warc.reader import ReaderIssue, iter_file
from tests.warc_builders import first_record_at, gunzip_members

pytestmark = pytest.mark.shared

# file -> (records, {record type: count}, reader issue kinds in order)
EXPECTED: dict[str, tuple[int, dict[str, int], list[str]]] = {
    "chatnoir-resiliparse__warcfile.warc.gz": (
        50,
        {"request": 17, "response": 16, "metadata": 16, "warcinfo": 1},
        [],
    ),
    "chatnoir-resiliparse__warcfile.warc": (
        50,
        {"request": 17, "response": 16, "metadata": 16, "warcinfo": 1},
        [],
    ),
    "chatnoir-resiliparse__clueweb-quirk.warc.gz": (30, {"response": 29, "warcinfo": 1}, []),
    # gzip member cut mid-record: warcio is silent; we flag the page truncated_by_file
    "chatnoir-resiliparse__clipped.warc.gz": (1, {"response": 1}, []),
    "whirlwind-python__whirlwind.warc.gz": (
        4,
        {"warcinfo": 1, "request": 1, "response": 1, "metadata": 1},
        [],
    ),
    "whirlwind-python__whirlwind.warc.wat.gz": (2, {"warcinfo": 1, "metadata": 1}, []),
    "whirlwind-python__whirlwind.warc.wet.gz": (2, {"warcinfo": 1, "conversion": 1}, []),
    "arc2warc-conversion__crawl-2012_1341690165636_1341785606830_6-0-4421.arc.gz": (
        2,
        {"warcinfo": 1, "response": 1},
        [],
    ),
    "arc2warc-conversion__crawl-002_2010_02_16_114_1266352769711_14-7060652.arc.gz": (
        2,
        {"warcinfo": 1, "response": 1},
        [],
    ),
    "jwat__IAH-20080430204825-00000-blackbook.warc.gz": (
        822,
        {"response": 299, "request": 261, "metadata": 261, "warcinfo": 1},
        [],
    ),
    "jwat__1-1-20110922131213-00000-svc-VirtualBox.arc": (
        102,
        {"response": 101, "warcinfo": 1},
        [],
    ),
    "jwat__invalid-warcfile-encoding-headers.warc.gz": (4, {"response": 3, "warcinfo": 1}, []),
    "jwat__invalid-warcfile-contenttype-recommended.warc": (
        7,
        {
            t: 1
            for t in (
                "warcinfo",
                "request",
                "response",
                "metadata",
                "resource",
                "conversion",
                "revisit",
            )
        },
        [],
    ),
    "jhove__invalid-warcrecorddigests-1.warc": (7, {"response": 7}, []),
    "webarchive-discovery__transfer_compression_brotli.warc.gz": (
        5,
        {"warcinfo": 1, "request": 1, "response": 1, "metadata": 1, "resource": 1},
        [],
    ),
    "pywb__iana.warc.gz": (
        343,
        {"request": 171, "revisit": 123, "response": 48, "warcinfo": 1},
        [],
    ),
    "warcio__post-test.warc.gz": (6, {"response": 3, "request": 3}, []),
    "aut__example.pdf.warc.gz": (
        76,
        {"request": 37, "response": 35, "warcinfo": 2, "revisit": 2},
        [],
    ),
    "py-wacz__example-warcinfo-metadata.warc": (
        4,
        {"warcinfo": 2, "response": 1, "request": 1},
        [],
    ),
    "warcio__example-iana.org-chunked.warc": (3, {"warcinfo": 1, "response": 1, "request": 1}, []),
    # warcio stops after 1 record; FastWARC reads 6 (the whole file is one gzip member)
    "warcio__example-bad-non-chunked.warc.gz": (
        6,
        {"warcinfo": 2, "response": 1, "request": 2, "revisit": 1},
        ["single_gzip_member"],
    ),
    # warcio stops after 1 record; FastWARC reads 2 (member 2 holds only record 1's body, which
    # is therefore lost: record 1 comes through truncated, and we resync at member 3)
    "warcio__example-wrong-chunks.warc.gz": (
        2,
        {"response": 1, "request": 1},
        ["unreadable", "resync"],
    ),
    "warcio__example-trunc.warc": (4, {"warcinfo": 2, "response": 1, "request": 1}, []),
    "warcio__example.arc.gz": (2, {"warcinfo": 1, "response": 1}, []),
    "CDX-Writer__empty-gzips.warc.gz": (
        9,
        {"warcinfo": 3, "request": 3, "revisit": 2, "response": 1},
        [],
    ),
    "CDX-Writer__negative_content_length.arc.gz": (4, {"response": 3, "warcinfo": 1}, []),
    "CDX-Writer__crlf_at_1k_boundary_2.warc.gz": (1, {"response": 1}, []),
    "stormcrawler__test.warc.gz": (
        42,
        {"request": 20, "response": 18, "warcinfo": 2, "revisit": 2},
        [],
    ),
    "dolma__sample-0000.warc.gz": (
        48,
        {"request": 22, "response": 22, "resource": 2, "warcinfo": 1, "metadata": 1},
        [],
    ),
    "gowarc__test.warc.gz": (3, {"warcinfo": 1, "request": 1, "response": 1}, []),
}

_ARC_LINE = re.compile(rb"(?m)^(?:filedesc|https?|dns|ftp):\S* \S+ \d{14} \S* -?\d+\r?$")


def _independent_count(data: bytes) -> int:
    plain = gunzip_members(data) if data[:2] == b"\x1f\x8b" else data
    return len(re.findall(rb"(?m)^WARC-Type:", plain)) + len(_ARC_LINE.findall(plain))


def _files(real_warcs_dir: Path) -> list[Path]:
    return sorted(p for p in real_warcs_dir.iterdir() if p.name != "SOURCES.md")


def test_every_real_file_is_listed(real_warcs_dir: Path) -> None:
    assert {p.name for p in _files(real_warcs_dir)} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_file_reads_and_accounts_for_every_record(real_warcs_dir: Path, name: str) -> None:
    path = real_warcs_dir / name
    data = path.read_bytes()
    items = list(iter_file(str(path), max_body_bytes=5_000_000))
    recs = [i for i in items if isinstance(i, RawPage | Rejected)]
    n_records, per_type, issue_kinds = EXPECTED[name]
    assert len(recs) == n_records == _independent_count(data)
    assert dict(Counter(r.record_type for r in recs)) == per_type
    assert [i.kind for i in items if isinstance(i, ReaderIssue)] == issue_kinds
    if "single_gzip_member" in issue_kinds:  # switched at byte 0: offsets are gunzipped ones
        data = gzip.decompress(data)
    for rec in recs:
        assert rec.reason if isinstance(rec, Rejected) else rec.record_id
        assert rec.warc_offset is not None and rec.warc_length is not None
        assert 0 <= rec.warc_offset < rec.warc_offset + rec.warc_length <= len(data)
        rid, uri, _ = first_record_at(data, rec.warc_offset, rec.warc_length)
        if rid is not None:
            assert rid == rec.record_id
        assert (uri or "").strip() == (rec.url or "")


def test_brotli_body_is_decoded(real_warcs_dir: Path) -> None:
    path = real_warcs_dir / "webarchive-discovery__transfer_compression_brotli.warc.gz"
    (page,) = [i for i in iter_file(str(path)) if isinstance(i, RawPage)]
    assert page.body.lstrip().startswith(b"<html>") and b"</html>" in page.body
    assert ("Content-Encoding", "br") in page.http_headers


def test_clipped_record_is_flagged_truncated(real_warcs_dir: Path) -> None:
    (page,) = list(iter_file(str(real_warcs_dir / "chatnoir-resiliparse__clipped.warc.gz")))
    assert isinstance(page, RawPage) and page.truncated and "truncated_by_file" in page.notes


def test_declared_but_plain_encodings_fall_back(real_warcs_dir: Path) -> None:
    quirk = [
        i
        for i in iter_file(str(real_warcs_dir / "chatnoir-resiliparse__clueweb-quirk.warc.gz"))
        if isinstance(i, RawPage)
    ]
    assert len(quirk) == 29
    assert all("ce_gzip_not_encoded" in p.notes and b"<" in p.body[:200] for p in quirk)
    arc = (
        real_warcs_dir
        / "arc2warc-conversion__crawl-2012_1341690165636_1341785606830_6-0-4421.arc.gz"
    )
    (page,) = [i for i in iter_file(str(arc)) if isinstance(i, RawPage)]
    assert {"te_chunked_not_chunked", "ce_gzip_not_encoded"} <= set(page.notes)


def test_plain_and_gzipped_copies_give_the_same_pages(real_warcs_dir: Path) -> None:
    def bodies(name: str) -> list[tuple[str, bytes]]:
        return [
            (i.record_id, i.body)
            for i in iter_file(str(real_warcs_dir / name))
            if isinstance(i, RawPage)
        ]

    gz = bodies("chatnoir-resiliparse__warcfile.warc.gz")
    assert len(gz) == 16 and gz == bodies("chatnoir-resiliparse__warcfile.warc")


def test_body_cap_on_a_real_file(real_warcs_dir: Path) -> None:
    path = real_warcs_dir / "jwat__IAH-20080430204825-00000-blackbook.warc.gz"
    full = [i for i in iter_file(str(path)) if isinstance(i, RawPage | Rejected)]
    capped = [
        i for i in iter_file(str(path), max_body_bytes=2000) if isinstance(i, RawPage | Rejected)
    ]
    assert [(r.record_id, r.warc_offset) for r in full] == [
        (r.record_id, r.warc_offset) for r in capped
    ]
    for a, b in zip(full, capped, strict=True):
        if isinstance(a, RawPage):
            assert b.body == a.body[:2000] and b.truncated == (len(a.body) > 2000 or a.truncated)
