"""Accounting under bad input: every real WARC plus built pathological pages through the job's task.

    python bench/faults.py [--real DIR] [--no-huge] [--out bench/results/faults.json]

Runs `pipeline.run.process_warc` (the body of one Dask task) on every file of
../shared/warcs/real and on WARCs this script builds: a 200 MB HTML body (streamed, never in
memory here), 100,000-deep nesting, a million tiny elements, megabyte attributes, binary bytes
labelled text/html and invalid UTF-8 throughout. Default `Limits` throughout. One process,
inputs in sequence, so per-page times are not disturbed by other tasks.

Prints ONE table: inputs, records read, documents, rejects by reason, crashes, duplicates, lost,
p99 and maximum seconds per page. Definitions:

- crashes: inputs whose task raised, plus pages rejected as ``error:<Exception>`` (a page that
  broke the cleaner instead of ending under a named cap or reason);
- duplicates: rows of docs/ and rejects/ sharing (warc_path, warc_offset, record_id);
- lost: records the reader yielded that ended as neither a row nor a counted skip, i.e. the sum
  over inputs of ``records - docs - rejects - skipped``, plus any difference between the counts in
  the reports and the rows actually in the dataset.

Per-page time is `pipeline.run.clean_page`'s wall time (wrapped here), i.e. decode, guards,
parse, segmentation, language detection and labelling of one page.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import platform
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pyarrow.dataset as ds

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

from pipeline import run  # noqa: E402
from pipeline.jobconfig import JobConfig  # noqa: E402
from tests.warc_builders import build_warc, html_response  # noqa: E402

PARAGRAPH = (
    "<p>The river runs through the old town, and the people who live along its banks have "
    "always said that it is the reason the town exists at all. They tell the story to anyone "
    "who will listen, and most visitors have heard it by the time they leave.</p>\n"
)


def pathological_pages() -> list[tuple[str, bytes, str]]:
    rng = random.Random(0)
    big = "a" * 2**20
    invalid = bytearray((PARAGRAPH * 5).encode())
    for i in range(len(invalid) - 1, 0, -5):
        invalid[i:i] = bytes([rng.choice([0x80, 0xBF, 0xC0, 0xFE, 0xFF])])
    html = "text/html; charset=utf-8"
    return [
        ("deep-100k", ("<div>" * 100_000 + PARAGRAPH + "</div>" * 100_000).encode(), html),
        ("deep-6k", ("<div>" * 6000 + PARAGRAPH * 3 + "</div>" * 6000).encode(), html),
        ("tiny-1m", ("<body>" + "<b>x</b>" * 1_000_000).encode(), html),
        ("attrs-1mb", f'<div title="{big}" class="{big}">{PARAGRAPH * 3}</div>'.encode(), html),
        ("binary", rng.randbytes(2**20), html),
        ("invalid-utf8", bytes(invalid), html),
        ("li-10k", ("<ul><li>" * 10_000 + PARAGRAPH).encode(), html),
    ]


def write_huge(path: Path, body_bytes: int) -> None:
    """One response record with a ``body_bytes`` body, gzip-streamed to disk."""
    http_head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
    chunk = PARAGRAPH.encode() * 2048
    n, rest = divmod(body_bytes, len(chunk))
    head = (
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: https://huge.example/\r\n"
        "WARC-Date: 2024-01-02T03:04:05Z\r\n"
        "WARC-Record-ID: <urn:uuid:11111111-2222-3333-4444-555555555555>\r\n"
        "Content-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {len(http_head) + body_bytes}\r\n\r\n"
    ).encode()
    with gzip.open(path, "wb", compresslevel=1) as f:
        f.write(head + http_head)
        for _ in range(n):
            f.write(chunk)
        f.write(b" " * rest + b"\r\n\r\n")


def build_inputs(directory: Path, huge: bool) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    pages = pathological_pages()
    path = directory / "pathological.warc.gz"
    path.write_bytes(
        build_warc(
            [
                html_response(f"https://p.example/{name}", body, content_type=ct)
                for name, body, ct in pages
            ]
        )
    )
    out = [path]
    if huge:
        out.append(directory / "huge-200mb.warc.gz")
        write_huge(out[-1], 200 * 2**20)
    return out


def timed_clean_page(times: list[float]) -> Any:
    original = run.clean_page

    def wrapper(page: Any, cfg: JobConfig) -> Any:
        started = time.perf_counter()
        try:
            return original(page, cfg)
        finally:
            times.append(time.perf_counter() - started)

    return wrapper


def dataset_rows(root: Path, table: str) -> list[dict[str, Any]]:
    where = root / table
    if not where.exists():
        return []
    kw: dict[str, Any] = {"partitioning": "hive"} if table == "docs" else {}
    cols = ["warc_path", "warc_offset", "record_id"]
    return ds.dataset(str(where), format="parquet", **kw).to_table(columns=cols).to_pylist()


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--real", default=str(REPO.parent / "shared" / "warcs" / "real"))
    parser.add_argument("--no-huge", action="store_true", help="skip the 200 MB body input")
    parser.add_argument("--out", default=str(REPO / "bench" / "results" / "faults.json"))
    args = parser.parse_args()

    if not Path(args.real).is_dir():
        parser.error(f"--real {args.real}: no such directory (the real WARCs are in ../shared)")
    real = sorted(p for p in Path(args.real).glob("*") if p.is_file() and p.name != "SOURCES.md")
    times: list[float] = []
    n_real_pages = 0
    run.clean_page = timed_clean_page(times)  # process_warc looks it up at call time
    totals: collections.Counter[str] = collections.Counter()
    rejects: collections.Counter[str] = collections.Counter()
    failed: dict[str, str] = {}
    unbalanced = 0
    per_input = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="warcclean-faults-") as tmp:
        built = build_inputs(Path(tmp) / "built", huge=not args.no_huge)
        out = Path(tmp) / "out"
        cfg = JobConfig(output=str(out))
        for path in [*real, *built]:
            if path == built[0]:
                n_real_pages = len(times)
            t0 = time.perf_counter()
            try:
                report = run.process_warc(str(path), cfg)
            except Exception as exc:  # counted as a crash of the input, reported below
                failed[path.name] = f"{type(exc).__name__}: {exc}"[:300]
                continue
            s = report.stats
            totals.update(records=s.records, docs=s.docs, skipped=s.n_skipped)
            rejects.update(s.rejects)
            unbalanced += s.records - s.docs - s.n_rejects - s.n_skipped
            per_input.append(
                {
                    "input": path.name,
                    "records": s.records,
                    "docs": s.docs,
                    "rejects": dict(s.rejects),
                    "skipped": s.n_skipped,
                    "issues": dict(s.issues),
                    "seconds": round(time.perf_counter() - t0, 3),
                }
            )
        docs = dataset_rows(out, "docs")
        rej = dataset_rows(out, "rejects")
    keys = collections.Counter(
        (r["warc_path"], r["warc_offset"], r["record_id"]) for r in [*docs, *rej]
    )
    duplicates = sum(n - 1 for n in keys.values() if n > 1)
    lost = unbalanced + abs(totals["docs"] - len(docs)) + abs(sum(rejects.values()) - len(rej))
    page_errors = sum(n for reason, n in rejects.items() if reason.startswith("error:"))
    result = {
        "date": results_file.utc_now(),
        "command": results_file.command_line(__file__),
        "python": platform.python_version(),
        "inputs": len(real) + len(built),
        "inputs_real": len(real),
        "inputs_built": [p.name for p in built],
        "records_read": totals["records"],
        "documents": totals["docs"],
        "skipped_non_page_records": totals["skipped"],
        "rejects": dict(sorted(rejects.items())),
        "crashes": len(failed) + page_errors,
        "failed_inputs": failed,
        "duplicates": duplicates,
        "lost": lost,
        "pages_timed": len(times),
        "page_seconds_p50": round(percentile(times, 0.50), 4),
        "page_seconds_p99": round(percentile(times, 0.99), 4),
        "page_seconds_max": round(max(times, default=0.0), 4),
        "real_pages_seconds_p99": round(percentile(times[:n_real_pages], 0.99), 4),
        "real_pages_seconds_max": round(max(times[:n_real_pages], default=0.0), 4),
        "wall_seconds": round(time.perf_counter() - started, 1),
        "per_input": per_input,
    }
    rows = [
        ("inputs", f"{result['inputs']} ({len(real)} real + {len(built)} built)"),
        ("records read", f"{result['records_read']:,}"),
        ("documents", f"{result['documents']:,}"),
        ("skipped (non-page records)", f"{result['skipped_non_page_records']:,}"),
        *((f"rejected: {r}", f"{n:,}") for r, n in sorted(rejects.items())),
        ("crashes", str(result["crashes"])),
        ("duplicates", str(duplicates)),
        ("lost", str(lost)),
        ("time per page p99 (s)", f"{result['page_seconds_p99']:.3f}"),
        ("time per page max (s)", f"{result['page_seconds_max']:.3f}"),
        (
            "  real inputs only: p99 / max (s)",
            f"{result['real_pages_seconds_p99']:.3f} / {result['real_pages_seconds_max']:.3f}",
        ),
    ]
    width = max(len(k) for k, _ in rows)
    print(f"{'what':<{width}}  value")
    for key, value in rows:
        print(f"{key:<{width}}  {value}")
    for name, error in failed.items():
        print(f"FAILED {name}: {error}")
    results_file.write_results(args.out, result, indent=2)
    print(f"written: {args.out}")


if __name__ == "__main__":
    main()
