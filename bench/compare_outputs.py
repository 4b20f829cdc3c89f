"""Fingerprint everything the cleaners and the job produce, to prove a change kept behaviour.

    python bench/compare_outputs.py snapshot --out /tmp/before.json      # at the old commit
    python bench/compare_outputs.py snapshot --out /tmp/after.json       # at the new one
    python bench/compare_outputs.py diff /tmp/before.json /tmp/after.json

A snapshot holds, for every dev page (../shared/data/wcxb-dev and multilingual-dev) and every
registered cleaner, a SHA-256 of the page's whole result: text, language, encoding and its
source, stoplist, and every block's fields with its label, class, score and stopword density
(floats by ``repr``, so a one-ulp change shows). It also runs the per-WARC task
(`pipeline.process_warc`) over every file in ../shared/warcs/real into a temporary directory and
fingerprints each input's documents and rejections row by row (every column, sorted by offset)
and its marker's counts (timings left out). ``diff`` names every page, cleaner and input that
differs and exits 1 if any does.

Only the public API is used (`pipeline.clean_html`, `pipeline.process_warc`,
`pipeline.JobConfig`), so the same script runs against the code before and after a refactoring.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parent.parent
# `python bench/compare_outputs.py` puts bench/ first on sys.path, where bench/pipeline.py (the
# pipeline benchmark) would shadow the package.
if sys.path and Path(sys.path[0] or ".").resolve() == REPO / "bench":
    del sys.path[0]

import pipeline  # noqa: E402

SHARED = REPO.parent / "shared"
DATASETS = ("wcxb-dev", "multilingual-dev")
# Timings and host facts vary run to run; everything else in a marker must not.
_VOLATILE = {
    "seconds",
    "timings",
    "started",
    "finished",
    "finished_at",
    "host",
    "pid",
    "worker",
    "elapsed",
}


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=repr).encode()).hexdigest()


def _cleaner_names() -> list[str]:
    for module in ("pipeline.cleaners", "pipeline.cleaners.registry"):
        try:
            return list(importlib.import_module(module).available())
        except (ImportError, AttributeError):
            continue
    raise SystemExit("cannot list the registered cleaners")


def _pages(limit: int | None) -> list[tuple[str, bytes, str | None]]:
    """(dataset/page id, raw bytes, url) for every dev page."""
    out = []
    for name in DATASETS:
        root = SHARED / "data" / name
        urls: dict[str, str | None] = {}
        for truth in sorted((root / "ground-truth").glob("*.json")):
            urls[truth.name.removesuffix(".json")] = json.loads(truth.read_text("utf-8")).get("url")
        for path in sorted((root / "html").glob("*.html.gz"))[:limit]:
            page_id = path.name.removesuffix(".html.gz")
            out.append((f"{name}/{page_id}", gzip.decompress(path.read_bytes()), urls.get(page_id)))
    return out


def _result_value(result: Any) -> Any:
    return {
        "text": result.text,
        "language": [result.language.code, repr(result.language.prob)],
        "encoding": [result.encoding, result.encoding_source],
        "stoplist": result.stoplist,
        "cleaner": result.cleaner,
        "params": [list(p) for p in result.params],
        "blocks": [
            [
                [repr(v) for v in lb.block],
                str(lb.verdict),
                None if lb.cf_class is None else str(lb.cf_class),
                repr(lb.score),
                repr(lb.stopword_density),
            ]
            for lb in result.blocks
        ],
    }


def _snapshot_pages(cleaners: list[str], limit: int | None) -> dict[str, dict[str, str]]:
    pages = _pages(limit)
    out: dict[str, dict[str, str]] = {}
    for cleaner in cleaners:
        started = time.monotonic()
        digests = {}
        for page_id, raw, url in pages:
            try:
                value = _result_value(pipeline.clean_html(raw, cleaner=cleaner, url=url))
            except Exception as exc:  # an error is part of the behaviour to compare
                value = {"error": type(exc).__name__, "message": str(exc)}
            digests[page_id] = _digest(value)
        out[cleaner] = digests
        print(f"  {cleaner}: {len(pages)} pages, {time.monotonic() - started:.0f} s", flush=True)
    return out


def _table_rows(path: Path, partition: str | None) -> list[dict[str, Any]]:
    rows = pq.read_table(path).to_pylist()
    for row in rows:
        if partition is not None:
            row["_partition"] = partition
    return rows


def _strip_volatile(value: Any, out_dir: str) -> Any:
    """The marker without timings, its output paths relative to the (temporary) output root."""
    if isinstance(value, dict):
        return {k: _strip_volatile(v, out_dir) for k, v in value.items() if k not in _VOLATILE}
    if isinstance(value, list):
        return [_strip_volatile(v, out_dir) for v in value]
    if isinstance(value, str) and value.startswith(out_dir):
        return "<out>" + value[len(out_dir) :]
    return value


def _snapshot_job(cleaner: str | None) -> dict[str, Any]:
    inputs = sorted(
        p for p in (SHARED / "warcs" / "real").iterdir() if p.is_file() and p.suffix != ".md"
    )
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="compare-outputs-") as tmp:
        kwargs = {"output": tmp} if cleaner is None else {"output": tmp, "cleaner": cleaner}
        cfg = pipeline.JobConfig(**kwargs)
        for path in inputs:
            pipeline.process_warc(str(path), cfg)
        root = Path(tmp)
        per_input: dict[str, dict[str, Any]] = {}
        for marker in sorted((root / "_done").glob("*.json")):
            stem = marker.name.removesuffix(".json")
            docs = []
            for part in sorted((root / "docs").glob(f"*/{stem}.parquet")):
                docs += _table_rows(part, part.parent.name)
            rejects_path = root / "rejects" / f"{stem}.parquet"
            rejects = _table_rows(rejects_path, None) if rejects_path.exists() else []
            key = lambda r: (r.get("warc_offset") or -1, str(r.get("record_id")))  # noqa: E731
            per_input[stem] = {
                "docs": [_digest(r) for r in sorted(docs, key=key)],
                "rejects": [_digest(r) for r in sorted(rejects, key=key)],
                "marker": _digest(_strip_volatile(json.loads(marker.read_text("utf-8")), tmp)),
                "n_docs": len(docs),
                "n_rejects": len(rejects),
            }
        out["inputs"] = per_input
        out["n_inputs"] = len(inputs)
    return out


def snapshot(args: argparse.Namespace) -> int:
    if not SHARED.is_dir():
        raise SystemExit(f"{SHARED} is absent: the dev pages and real WARCs live there")
    cleaners = _cleaner_names() if args.cleaners == "all" else args.cleaners.split(",")
    print(f"pages x cleaners ({', '.join(cleaners)})", flush=True)
    snap = {
        "pipeline_file": pipeline.__file__,
        "pages": _snapshot_pages(cleaners, args.limit),
    }
    if not args.no_job:
        print("job over ../shared/warcs/real", flush=True)
        snap["job"] = _snapshot_job(None)
    Path(args.out).write_text(json.dumps(snap, indent=1, sort_keys=True) + "\n", "utf-8")
    print(f"wrote {args.out}")
    return 0


def diff(args: argparse.Namespace) -> int:
    a = json.loads(Path(args.a).read_text("utf-8"))
    b = json.loads(Path(args.b).read_text("utf-8"))
    problems: list[str] = []
    compared = 0
    for cleaner in sorted(set(a["pages"]) | set(b["pages"])):
        pa, pb = a["pages"].get(cleaner), b["pages"].get(cleaner)
        if pa is None or pb is None:
            problems.append(f"cleaner {cleaner}: only in {'b' if pa is None else 'a'}")
            continue
        for page in sorted(set(pa) | set(pb)):
            compared += 1
            if pa.get(page) != pb.get(page):
                problems.append(f"cleaner {cleaner}: page {page} differs")
    ja, jb = a.get("job"), b.get("job")
    if (ja is None) != (jb is None):
        problems.append("job: fingerprinted in one snapshot only")
    elif ja is not None:
        for stem in sorted(set(ja["inputs"]) | set(jb["inputs"])):
            compared += 1
            if ja["inputs"].get(stem) != jb["inputs"].get(stem):
                problems.append(f"job: input {stem} differs")
    for line in problems[:200]:
        print(line)
    print(f"{compared} page results and job inputs compared, {len(problems)} differ")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    snap = sub.add_parser("snapshot", help="fingerprint this install's outputs")
    snap.add_argument("--out", required=True)
    snap.add_argument("--cleaners", default="all", help="comma-separated names, or all")
    snap.add_argument("--limit", type=int, default=None, help="first N pages of each dataset")
    snap.add_argument("--no-job", action="store_true", help="skip the job over the real WARCs")
    snap.set_defaults(run=snapshot)
    cmp = sub.add_parser("diff", help="compare two snapshots")
    cmp.add_argument("a")
    cmp.add_argument("b")
    cmp.set_defaults(run=diff)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
