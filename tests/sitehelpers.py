"""Inputs for the site stage's tests: sites whose pages share a kept paragraph, and copies."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.dataset as ds

from pipeline.job import schedule
from pipeline.jobconfig import JobConfig
from tests.warc_builders import build_warc, html_response

# Long and full of stopwords: jusText keeps it as content on every page it is on.
NEWSLETTER = (
    "Sign up for our newsletter and we will send you the best of the stories of the week, every "
    "Friday morning, with all of the news that matters to the people who live in the valley."
)
_NOUNS = (
    "bridge market school harbour library station garden museum theatre castle bakery stadium "
    "hospital chapel factory orchard"
).split()
_ADJECTIVES = ["old", "new", "small", "busy", "quiet", "famous", "empty", "green"]


def article(n: int) -> str:
    """Two paragraphs that no other ``n`` below 16 has, even with digits folded (which the site
    stage does), and which jusText keeps."""
    noun, other = _NOUNS[n % len(_NOUNS)], _NOUNS[(n * 7 + 3) % len(_NOUNS)]
    adjective = _ADJECTIVES[n % len(_ADJECTIVES)]
    return (
        f"<p>The {adjective} {noun} in the middle of town number {n} was closed for repairs "
        f"last spring, and since then the people who live near the {other} have had to walk a "
        f"long way round to reach it on the other side of the water.</p>"
        f"<p>The engineers say that the work on the {noun} is going well and that it should "
        f"open again before the end of the summer, when the {other} is quiet and the last of the "
        f"new stones can be set without any risk to the workers.</p>"
    )


def page(n: int, *, newsletter: bool) -> str:
    box = f"<p>{NEWSLETTER}</p>" if newsletter else ""
    return (
        "<html><body><nav><a href='/'>Home</a> | <a href='/news'>News</a></nav>"
        f"<h1>News of the {_ADJECTIVES[n % 8]} {_NOUNS[n % 16]}</h1>{article(n)}{box}"
        "<footer>Copyright 2024 | Privacy | Terms</footer></body></html>"
    )


# host -> (first page number, pages, with the newsletter box)
SITES: dict[str, tuple[int, int, bool]] = {
    "news.a.example": (0, 4, True),  # on 4 pages: a repeat at K 3
    "b.example": (10, 1, True),  # a site of one page: never touched
    "c.example": (20, 2, True),  # on 2 pages: below K 3
    "d.example": (30, 3, False),  # nothing repeats
}


def site_pages(sites: dict[str, tuple[int, int, bool]] = SITES) -> list[tuple[str, str]]:
    """(url, html) of every page of ``sites``."""
    out = []
    for host, (first, count, box) in sites.items():
        for n in range(first, first + count):
            out.append((f"https://{host}/story/{n}", page(n, newsletter=box)))
    return out


def write_warcs(directory: Path, pages: list[tuple[str, str]], files: int) -> list[str]:
    """``pages`` dealt round-robin into ``files`` WARCs (a site spread over files)."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(files):
        records = [
            html_response(url, html, record_id=f"<urn:test:{url}>") for url, html in pages[i::files]
        ]
        path = directory / f"part-{i:02d}.warc.gz"
        path.write_bytes(build_warc(records))
        paths.append(str(path))
    return paths


def clean(client: Any, inputs: list[str], out: Path) -> None:
    result = schedule.run_job(client, inputs, JobConfig(output=str(out), cleaner="justext"))
    assert not result.failed, result.failed


def documents(out: Path) -> dict[str, dict[str, Any]]:
    """url -> document row."""
    table = ds.dataset(str(out / "docs"), format="parquet", partitioning="hive").to_table()
    return {row["url"]: row for row in table.to_pylist()}


def content(row: dict[str, Any]) -> tuple:
    """What a document holds, whichever input file carried it: all but where it was read."""
    return tuple(
        (k, v)
        for k, v in sorted(row.items())
        if k not in ("warc_path", "warc_offset", "warc_length", "record_id", "duplicate_of")
    )
