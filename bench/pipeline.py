"""The Dask job end to end against the plain loop, stage by stage, in one run.

    python bench/pipeline.py [--pages 1358] [--copies 3] [--shards 8] [--pairs 2]
                             [--workers 2] [--cleaner neighbours]

Packs WCXB dev pages into Common-Crawl-shaped WARCs (request, response, metadata per page; one
gzip member per record; ``--copies`` repeats every page under a distinct URL: 1,358 x 3 = 4,074
pages by default) in ``--shards`` files, then measures, in one run:

1. **The job as the README runs it**: ``dask submit jobs/clean_warcs.py SHARDS --output OUT
   --workers 1`` in a fresh process (a LocalCluster: client and scheduler in that process, a
   nanny and a worker process under it; the HTML run report written at the end), with the default
   cleaner. Its CPU time is the whole process tree's (``RUSAGE_CHILDREN`` of this process, which
   counts every descendant once it has been waited for: client, scheduler, nanny, worker).
2. **The plain loop** as pipelines are usually written: warcio + jusText (lxml, English stoplist)
   + langdetect + pyarrow, in a fresh process, measured the same way.
   The two alternate ``--pairs`` times; the ratio is pages per CPU-second of the job over the
   plain loop's, per pair, and its median (target >= 9x).
3. **Stages**: the job's work on the same WARCs, one stage at a time in this process (CPU time,
   `time.process_time`): read (records out of the WARC), decode (charset and the size guard),
   parse+segment, langid (detection and stoplist), label (page cues and the cleaner), rows
   (columnar batches), write (Parquet, zstd); "startup and the rest" is the job's whole-tree CPU
   minus those stages: process start-ups and imports, model and profile loading, scheduling,
   the run reports.
4. **Scaling**: the same job with ``--workers`` workers, wall time against one worker's.
5. **Memory**: peak RSS of `process_warc` in a fresh process on one WARC holding the pages once
   and four times (flat means within 10%).

Prints the tables and writes bench/results/pipeline.json (``pipeline-<cleaner>.json`` for
another cleaner).
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

# This file is called pipeline.py: drop its directory from the import path so that `pipeline`
# is the package, not this script (python puts a script's directory first on sys.path).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from warcio.statusandheaders import StatusAndHeaders  # noqa: E402
from warcio.warcwriter import WARCWriter  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
WCXB = REPO.parent / "shared" / "data" / "wcxb-dev"
RESULTS = REPO / "bench" / "results" / "pipeline.json"
NS = uuid.UUID("3b0f7a3e-2f57-4d0e-9a55-41d1b1b4d0c1")
DEFAULT_CLEANER = "neighbours"
STAGES = ("read", "decode", "parse+segment", "langid", "label", "rows", "write")
TARGETS = {"job_vs_plain_cpu": 9.0, "rss_growth_4x_max": 0.10, "scaling_min": 1.8}


def load_pages(n: int) -> list[tuple[str, bytes]]:
    files = sorted((WCXB / "html").glob("*.html.gz"))[:n]
    pages = []
    for f in files:
        page_id = f.name.split(".")[0]
        truth = json.loads((WCXB / "ground-truth" / f"{page_id}.json").read_text())
        url = truth.get("url") or f"https://wcxb.example/{page_id}"
        pages.append((url, gzip.decompress(f.read_bytes())))
    return pages


def write_warc(path: Path, pages: list[tuple[str, bytes]], copies: int = 1) -> None:
    """request + response + metadata per page, as Common Crawl writes them."""
    with path.open("wb") as out:
        writer = WARCWriter(out, gzip=True, warc_version="1.0")
        for copy in range(copies):
            for url, body in pages:
                url_c = url if copy == 0 else f"{url}?copy={copy}"
                host = url_c.split("/")[2] if "://" in url_c else "example.com"
                ids = {k: f"<urn:uuid:{uuid.uuid5(NS, k + path.name + url_c)}>" for k in "qrm"}
                req = StatusAndHeaders("GET / HTTP/1.1", [("Host", host)], is_http_request=True)
                writer.write_record(
                    writer.create_warc_record(
                        url_c,
                        "request",
                        http_headers=req,
                        warc_headers_dict={"WARC-Record-ID": ids["q"]},
                    )
                )
                http = StatusAndHeaders(
                    "200 OK",
                    [("Content-Type", "text/html"), ("Content-Length", str(len(body)))],
                    protocol="HTTP/1.1",
                )
                writer.write_record(
                    writer.create_warc_record(
                        url_c,
                        "response",
                        payload=io.BytesIO(body),
                        http_headers=http,
                        warc_headers_dict={"WARC-Record-ID": ids["r"]},
                    )
                )
                meta = b"fetchTimeMs: 120\r\ncharset-detected: UTF-8\r\n"
                writer.write_record(
                    writer.create_warc_record(
                        url_c,
                        "metadata",
                        payload=io.BytesIO(meta),
                        warc_content_type="application/warc-fields",
                        warc_headers_dict={
                            "WARC-Record-ID": ids["m"],
                            "WARC-Concurrent-To": ids["r"],
                        },
                    )
                )


def _tree_cpu(cmd: list[str], **kw: object) -> dict:
    """Run ``cmd`` to completion; its wall time and its whole process tree's CPU seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, **kw)  # type: ignore[call-overload]
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd[:4])} ... failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": wall, "cpu_s": cpu, "stdout": proc.stdout}


def run_job(inputs: list[str], out: Path, workers: int, cleaner: str) -> dict:
    dask_cli = Path(sys.executable).with_name("dask")
    cmd = [str(dask_cli), "submit", "jobs/clean_warcs.py", *inputs, "--output", str(out)]
    cmd += ["--workers", str(workers), "--cleaner", cleaner, "--no-progress"]
    run = _tree_cpu(cmd)
    (report_path,) = sorted((out / "_runs").glob("*.json"))
    report = json.loads(report_path.read_text())
    totals = report["totals"]
    if report["failed"] or any(k.startswith("error:") for k in totals["rejects"]):
        sys.exit(f"the job failed inputs or pages: {report['failed']} {totals['rejects']}")
    pages = totals["records"] - sum(totals["skipped"].values())
    return {
        "workers": workers,
        "wall_s": round(run["wall_s"], 2),
        "cpu_s": round(run["cpu_s"], 2),
        "pages": pages,
        "docs": totals["docs"],
        "rejects": totals["rejects"],
        "pages_per_cpu_s": pages / run["cpu_s"],
        "pages_per_s": pages / run["wall_s"],
    }


PLAIN_LOOP = """
import sys
from pathlib import Path
import justext, pyarrow as pa, pyarrow.parquet as pq
from langdetect import DetectorFactory, detect
from langdetect.lang_detect_exception import LangDetectException
from warcio.archiveiterator import ArchiveIterator

DetectorFactory.seed = 0
stoplist = justext.get_stoplist("English")
out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
pages = 0
for i, path in enumerate(sys.argv[2:]):
    rows = []
    with open(path, "rb") as f:
        for record in ArchiveIterator(f):
            if record.rec_type != "response":
                continue
            body = record.content_stream().read()
            pages += 1
            try:
                paragraphs = justext.justext(body, stoplist)
            except Exception:
                continue
            text = "\\n\\n".join(p.text for p in paragraphs if not p.is_boilerplate)
            try:
                lang = detect(text) if text else "und"
            except LangDetectException:
                lang = "und"
            rows.append({
                "url": record.rec_headers.get_header("WARC-Target-URI"),
                "language": lang,
                "text": text,
                "labels": [p.class_type for p in paragraphs],
            })
    pq.write_table(pa.Table.from_pylist(rows), out / f"{i}.parquet", compression="zstd")
print(pages)
"""


def plain_loop(inputs: list[str], out: Path) -> dict:
    """How it is usually done: warcio + jusText + langdetect + pyarrow in one process."""
    run = _tree_cpu([sys.executable, "-c", PLAIN_LOOP, str(out), *inputs])
    pages = int(run["stdout"].split()[-1])
    return {
        "wall_s": round(run["wall_s"], 2),
        "cpu_s": round(run["cpu_s"], 2),
        "pages": pages,
        "pages_per_cpu_s": pages / run["cpu_s"],
    }


def stages(inputs: list[str], cleaner_name: str, batch_rows: int) -> dict:
    """CPU seconds of each stage of the job's work on ``inputs``, one stage at a time."""
    import pyarrow.parquet as pq

    from pipeline.clean import _is_plain_utf8, get_cleaner, label_blocks
    from pipeline.html import guard
    from pipeline.html.decode import decode_html
    from pipeline.html.segment import parse, segment
    from pipeline.lang import langid, stoplists
    from pipeline.output.columns import DocColumns
    from pipeline.output.schema import DOCS_SCHEMA
    from pipeline.types import CleanResult, RawPage, Verdict
    from pipeline.warc.reader import iter_records

    cleaner = get_cleaner(cleaner_name, {})
    spent = dict.fromkeys(STAGES, 0.0)
    clock = time.process_time
    pages = 0
    for path in inputs:
        t = clock()
        with open(path, "rb") as stream:
            records = [r for r in iter_records(stream, path) if isinstance(r, RawPage)]
        spent["read"] += clock() - t
        results = []
        for page in records:
            pages += 1
            t0 = clock()
            decoded = decode_html(page.body, page.content_type)
            source = page.body if _is_plain_utf8(decoded) else decoded.html
            estimate = guard.estimate(source)
            guard.check_nodes(estimate, None)
            t1 = clock()
            tree = parse(source)
            blocks = segment(tree, record_runs=getattr(cleaner, "needs_runs", False))
            t2 = clock()
            guess = langid.detect_blocks(blocks)
            stoplist = stoplists.stoplist(guess.code)
            t3 = clock()
            labeled, notes = label_blocks(cleaner, blocks, stoplist, tree, page.url, guess.code)
            text = "\n\n".join(lb.block.text for lb in labeled if lb.verdict is Verdict.GOOD)
            result = CleanResult(
                text,
                tuple(labeled),
                guess,
                decoded.encoding,
                decoded.source,
                cleaner.name,
                guess.code if stoplist is not None else None,
                notes=notes,
            )
            t4 = clock()
            spent["decode"] += t1 - t0
            spent["parse+segment"] += t2 - t1
            spent["langid"] += t3 - t2
            spent["label"] += t4 - t3
            if blocks and text:
                results.append((page, result))
        batches = []
        t = clock()
        for start in range(0, len(results), batch_rows):
            columns = DocColumns()
            for page, result in results[start : start + batch_rows]:
                columns.add(page, result, cleaner_version="bench", cleaner_params="{}")
            batches.append(columns.to_batch())
        spent["rows"] += clock() - t
        t = clock()
        sink = io.BytesIO()
        with pq.ParquetWriter(sink, DOCS_SCHEMA, compression="zstd") as writer:
            for batch in batches:
                writer.write_batch(batch)
        spent["write"] += clock() - t
    return {"pages": pages, "cpu_s": spent}


# The peak is read from /proc/self/status (VmHWM, this process's own memory since exec): on Linux
# ru_maxrss keeps the high-water mark of the forked parent's memory across exec, which here is
# this benchmark holding every page.
RSS_PROBE = """
import json, resource, sys, time
from pathlib import Path
from pipeline.jobconfig import JobConfig
from pipeline.run import process_warc
t = time.perf_counter()
report = process_warc(sys.argv[1], JobConfig(output=sys.argv[2], cleaner=sys.argv[3]))
status = Path("/proc/self/status")
hwm = [line.split()[1] for line in status.read_text().splitlines() if line.startswith("VmHWM:")]
peak = int(hwm[0]) / 1024 if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"peak_rss_mb": peak,
                  "pages": report.stats.records - report.stats.n_skipped,
                  "seconds": time.perf_counter() - t}))
"""


def peak_rss(warc: Path, out: Path, cleaner: str) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", RSS_PROBE, str(warc), str(out), cleaner],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _commit() -> str | None:
    proc = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    )
    return proc.stdout.strip() or None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=1358, help="WCXB pages to use (max 1358)")
    ap.add_argument("--copies", type=int, default=3, help="times each page is repeated")
    ap.add_argument("--shards", type=int, default=8, help="WARC files the pages are split into")
    ap.add_argument("--pairs", type=int, default=2, help="job / plain loop pairs")
    ap.add_argument("--workers", type=int, default=2, help="workers of the scaling run")
    ap.add_argument("--cleaner", default=DEFAULT_CLEANER, help="cleaner the job runs")
    ap.add_argument("--batch-rows", type=int, default=1000, help="rows per batch in 'rows'")
    args = ap.parse_args()
    for name in ("pages", "copies", "shards", "pairs", "workers"):
        if getattr(args, name) < 1:
            ap.error(f"--{name} must be at least 1, got {getattr(args, name)}")
    if not WCXB.exists():
        sys.exit(f"{WCXB} is absent: the benchmark needs ../shared/data/wcxb-dev")
    pages = load_pages(args.pages)
    if args.shards > len(pages):
        ap.error(f"--shards ({args.shards}) exceeds the {len(pages)} pages: a shard would be empty")
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="warcclean-bench-") as tmp:
        tmp_path = Path(tmp)
        shards = []
        for s in range(args.shards):
            path = tmp_path / f"shard-{s:02d}.warc.gz"
            write_warc(path, pages[s :: args.shards], copies=args.copies)
            shards.append(str(path))
        one, four = tmp_path / "all-1x.warc.gz", tmp_path / "all-4x.warc.gz"
        write_warc(one, pages)
        write_warc(four, pages, copies=4)
        warc_mb = sum(os.path.getsize(p) for p in shards) / 1e6
        print(
            f"{len(pages)} pages x {args.copies} copies in {args.shards} WARCs "
            f"({warc_mb:.1f} MB), cleaner {args.cleaner}",
            flush=True,
        )
        pairs = []
        for k in range(args.pairs):
            runs = {}
            order = ("job", "plain") if k % 2 == 0 else ("plain", "job")
            for what in order:
                out = tmp_path / f"out-{what}-{k}"
                if what == "job":
                    runs[what] = run_job(shards, out, 1, args.cleaner)
                else:
                    runs[what] = plain_loop(shards, out)
                print(f"pair {k + 1} {what}: {runs[what]}", flush=True)
            runs["ratio"] = runs["job"]["pages_per_cpu_s"] / runs["plain"]["pages_per_cpu_s"]
            pairs.append(runs)
        staged = stages(shards, args.cleaner, args.batch_rows)
        print(f"stages: {staged}", flush=True)
        scaled = run_job(shards, tmp_path / "out-scaling", args.workers, args.cleaner)
        print(f"job, {args.workers} workers: {scaled}", flush=True)
        rss1 = peak_rss(one, tmp_path / "rss-1", args.cleaner)
        rss4 = peak_rss(four, tmp_path / "rss-4", args.cleaner)
        print(f"peak RSS 1x: {rss1} 4x: {rss4}", flush=True)

    ratio = statistics.median(p["ratio"] for p in pairs)
    job_cpu = statistics.median(p["job"]["cpu_s"] for p in pairs)
    job_wall = statistics.median(p["job"]["wall_s"] for p in pairs)
    n = pairs[0]["job"]["pages"]
    stage_ms = {name: 1000 * s / staged["pages"] for name, s in staged["cpu_s"].items()}
    stage_ms["startup and the rest"] = max(0.0, 1000 * job_cpu / n - sum(stage_ms.values()))
    scaling = job_wall / scaled["wall_s"]
    growth = rss4["peak_rss_mb"] / rss1["peak_rss_mb"] - 1
    result = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "git_commit": _commit(),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_at_start": load_start,
            "load_average_at_end": os.getloadavg(),
        },
        "pages": n,
        "shards": args.shards,
        "cleaner": args.cleaner,
        "pairs": pairs,
        "job_vs_plain_cpu_median": ratio,
        "stages_ms_per_page": stage_ms,
        "scaling": {"workers": args.workers, "job": scaled, "wall_ratio": scaling},
        "peak_rss_mb_1x": rss1["peak_rss_mb"],
        "peak_rss_mb_4x": rss4["peak_rss_mb"],
        "rss_growth_4x": growth,
        "targets": TARGETS,
    }
    results = (
        RESULTS
        if args.cleaner == DEFAULT_CLEANER
        else RESULTS.with_name(f"pipeline-{args.cleaner}.json")
    )
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps(result, indent=2) + "\n")

    print(f"\n{'run':<28} {'pages/CPU-s':>12} {'CPU s':>8} {'wall s':>8}")
    for k, p in enumerate(pairs, 1):
        for what in ("job", "plain"):
            r = p[what]
            label = f"pair {k}: {'job, 1 worker' if what == 'job' else 'plain loop'}"
            print(
                f"{label:<28} {r['pages_per_cpu_s']:>12.1f} {r['cpu_s']:>8.1f} {r['wall_s']:>8.1f}"
            )
        print(f"{f'pair {k}: ratio':<28} {p['ratio']:>11.2f}x")
    print(f"\n{'stage (ms CPU per page)':<28} {'ms':>8} {'share':>7}")
    total = sum(stage_ms.values())
    for name, ms in stage_ms.items():
        print(f"{name:<28} {ms:>8.2f} {100 * ms / total:>6.1f}%")
    print(f"{'total (job, whole tree)':<28} {total:>8.2f}")
    print()
    rows = [
        ("job / plain loop, pages per CPU-s", f"{ratio:.2f}x (median)", ">= 9x"),
        (f"scaling 1 -> {args.workers} workers (wall)", f"{scaling:.2f}x", ">= 1.8x"),
        (
            "peak RSS 1x / 4x (MB)",
            f"{rss1['peak_rss_mb']:.0f} / {rss4['peak_rss_mb']:.0f} ({100 * growth:+.1f}%)",
            "within 10%",
        ),
    ]
    for name, value, target in rows:
        print(f"{name:<38} {value:>22}  {target}")
    print(f"load average: {os.getloadavg()}\nwrote {results}")


if __name__ == "__main__":
    main()
