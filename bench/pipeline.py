"""Throughput, memory and scaling of the Dask job on WCXB pages packed into WARCs.

    python bench/pipeline.py [--pages 500] [--shards 8] [--copies 1] [--workers 2]
                             [--cleaner justext]

Builds, in a temp dir, Common-Crawl-shaped WARCs (request, response, metadata per page; one gzip
member per record) from /work/shared/data/wcxb-dev, then measures in one run:

1. the job (LocalCluster, 1 thread per worker) with 1 and with ``--workers`` workers:
   pages/s and MB/s (uncompressed HTML) per core, and the scaling between them;
2. a plain single-process loop as pipelines are written today: warcio + jusText (lxml, English
   stoplist) + langdetect + pyarrow, on the same WARCs;
3. peak RSS of one worker process (`process_warc` in a fresh subprocess, ru_maxrss) on one WARC
   holding the pages once (1x) and four times (4x).

The job runs jusText by default, as the plain loop does, so that the ratio measures the pipeline
rather than a difference between cleaners; ``--cleaner neighbours`` measures the default cleaner
(results then go to bench/results/pipeline-neighbours.json).

Targets (not asserted; printed with the results): job >= 3x the plain loop's pages/s per core,
4x peak RSS within 10% of 1x, ``--workers 2`` >= 1.8x one worker. Results go to
bench/results/pipeline.json.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

# This file is called pipeline.py: drop its directory from the import path so that `pipeline`
# is the package, not this script (python puts a script's directory first on sys.path).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from warcio.statusandheaders import StatusAndHeaders  # noqa: E402
from warcio.warcwriter import WARCWriter  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
# The cleaner the job runs by default (the plain loop runs the justext package).
CLEANER = "justext"
WCXB = REPO.parent / "shared" / "data" / "wcxb-dev"
RESULTS = REPO / "bench" / "results" / "pipeline.json"
NS = uuid.UUID("3b0f7a3e-2f57-4d0e-9a55-41d1b1b4d0c1")


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


def run_job(inputs: list[str], out: Path, workers: int, cleaner: str) -> dict:
    sys.path.insert(0, str(REPO / "jobs"))
    from clean_warcs import run_job as job
    from distributed import Client, LocalCluster

    from pipeline.jobconfig import JobConfig

    with (
        LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        # warm the workers' imports (parser, langdetect profiles, stoplists) outside the timing
        client.run(lambda: __import__("pipeline.clean") and None)
        client.run(_warm)
        # By default the job runs jusText as the plain loop does (see the module docstring).
        result = job(client, inputs, JobConfig(output=str(out), cleaner=cleaner))
    assert not result.failed, result.failed
    totals = result.totals
    errors = {k: n for k, n in totals.rejects.items() if k.startswith("error:")}
    if errors:  # a broken cleaner would make the job look fast: refuse to report it
        sys.exit(f"pages failed in the cleaner ({workers} workers): {errors}")
    return {
        "workers": workers,
        "seconds": round(result.seconds, 2),
        "pages": totals.records - totals.n_skipped,
        "docs": totals.docs,
        "rejects": dict(totals.rejects),
        "pages_per_s": (totals.records - totals.n_skipped) / result.seconds,
        # sum of task times over (wall time x workers): near 1 means the workers were kept
        # busy, so a poor scaling comes from CPU contention, not from scheduling
        "busy_fraction": sum(r.seconds for r in result.reports) / result.seconds / workers,
        "mb_per_s": totals.body_bytes / result.seconds / 1e6,
    }


def _warm() -> None:
    import pyarrow as pa

    from pipeline.clean import clean_html

    pa.array([1])  # pyarrow imports pandas on first conversion from Python objects: 1.5 s

    clean_html(b"<html><body><p>Warm up the detector and the stoplists, please.</p></body></html>")


def plain_loop(inputs: list[str], out: Path) -> dict:
    """How it is usually done: warcio + jusText + langdetect + pyarrow in one process."""
    import justext
    import pyarrow as pa
    import pyarrow.parquet as pq
    from langdetect import DetectorFactory, detect
    from langdetect.lang_detect_exception import LangDetectException
    from warcio.archiveiterator import ArchiveIterator

    DetectorFactory.seed = 0
    stoplist = justext.get_stoplist("English")
    out.mkdir(parents=True, exist_ok=True)
    pages = nbytes = 0
    started = time.perf_counter()
    for i, path in enumerate(inputs):
        rows = []
        with open(path, "rb") as f:
            for record in ArchiveIterator(f):
                if record.rec_type != "response":
                    continue
                body = record.content_stream().read()
                pages += 1
                nbytes += len(body)
                try:
                    paragraphs = justext.justext(body, stoplist)
                except Exception:
                    continue
                text = "\n\n".join(p.text for p in paragraphs if not p.is_boilerplate)
                try:
                    lang = detect(text) if text else "und"
                except LangDetectException:
                    lang = "und"
                rows.append(
                    {
                        "url": record.rec_headers.get_header("WARC-Target-URI"),
                        "language": lang,
                        "text": text,
                        "labels": [p.class_type for p in paragraphs],
                    }
                )
        pq.write_table(pa.Table.from_pylist(rows), out / f"{i}.parquet", compression="zstd")
    seconds = time.perf_counter() - started
    return {
        "seconds": round(seconds, 2),
        "pages": pages,
        "pages_per_s": pages / seconds,
        "mb_per_s": nbytes / seconds / 1e6,
    }


RSS_PROBE = """
import json, resource, sys, time
from pipeline.jobconfig import JobConfig
from pipeline.run import process_warc
t = time.perf_counter()
report = process_warc(sys.argv[1], JobConfig(output=sys.argv[2], cleaner=sys.argv[3]))
print(json.dumps({"peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=500, help="WCXB pages to use (max 1358)")
    ap.add_argument("--shards", type=int, default=8, help="WARC files the pages are split into")
    ap.add_argument(
        "--copies",
        type=int,
        default=1,
        help="times each shard holds its pages (URLs made distinct): longer runs, so the job's "
        "fixed start-up and the last straggling shard weigh less in the scaling",
    )
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cleaner", default=CLEANER, help="cleaner the job runs")
    args = ap.parse_args()
    for name in ("pages", "shards", "copies", "workers"):
        if getattr(args, name) < 1:
            ap.error(f"--{name} must be at least 1, got {getattr(args, name)}")
    if not WCXB.exists():
        sys.exit(f"{WCXB} is absent: the benchmark needs ../shared/data/wcxb-dev")
    pages = load_pages(args.pages)
    if args.shards > len(pages):
        ap.error(f"--shards ({args.shards}) exceeds the {len(pages)} pages: a shard would be empty")
    with tempfile.TemporaryDirectory(prefix="warcclean-bench-") as tmp:
        tmp_path = Path(tmp)
        shards = []
        for s in range(args.shards):
            path = tmp_path / f"shard-{s:02d}.warc.gz"
            write_warc(path, pages[s :: args.shards], copies=args.copies)
            shards.append(str(path))
        one = tmp_path / "all-1x.warc.gz"
        four = tmp_path / "all-4x.warc.gz"
        write_warc(one, pages)
        write_warc(four, pages, copies=4)
        warc_mb = sum(os.path.getsize(p) for p in shards) / 1e6
        print(
            f"{len(pages)} pages x {args.copies} copies, {args.shards} shards, "
            f"{warc_mb:.1f} MB of WARC",
            flush=True,
        )

        job1 = run_job(shards, tmp_path / "out-1", 1, args.cleaner)
        print("job, 1 worker:", job1, flush=True)
        jobn = run_job(shards, tmp_path / f"out-{args.workers}", args.workers, args.cleaner)
        print(f"job, {args.workers} workers:", jobn, flush=True)
        plain = plain_loop(shards, tmp_path / "out-plain")
        print("plain loop:", plain, flush=True)
        rss1 = peak_rss(one, tmp_path / "rss-1", args.cleaner)
        rss4 = peak_rss(four, tmp_path / "rss-4", args.cleaner)
        print("peak RSS 1x:", rss1, "4x:", rss4, flush=True)

    per_core = jobn["pages_per_s"] / args.workers
    per_core_1 = job1["pages_per_s"]
    result = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_at_end": os.getloadavg(),
        },
        "pages": len(pages),
        "shards": args.shards,
        "copies": args.copies,
        "cleaner": args.cleaner,
        "job_1_worker": job1,
        f"job_{args.workers}_workers": jobn,
        "job_pages_per_s_per_core": per_core,
        "job_pages_per_s_1_worker": per_core_1,
        "speedup_vs_plain_1_worker": per_core_1 / plain["pages_per_s"],
        "job_mb_per_s_per_core": jobn["mb_per_s"] / args.workers,
        "plain_loop": plain,
        "speedup_vs_plain_per_core": per_core / plain["pages_per_s"],
        "scaling": jobn["pages_per_s"] / job1["pages_per_s"],
        "peak_rss_mb_1x": rss1["peak_rss_mb"],
        "peak_rss_mb_4x": rss4["peak_rss_mb"],
        "rss_growth_4x": rss4["peak_rss_mb"] / rss1["peak_rss_mb"] - 1,
        "targets": {
            "speedup_vs_plain_per_core": 3.0,
            "rss_growth_4x_max": 0.10,
            "scaling_min": 1.8,
        },
    }
    results = (
        RESULTS if args.cleaner == CLEANER else RESULTS.with_name(f"pipeline-{args.cleaner}.json")
    )
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps(result, indent=2))
    rows = [
        ("job pages/s, 1 worker", f"{per_core_1:.1f}", ""),
        (f"job pages/s per core, {args.workers} workers", f"{per_core:.1f}", ""),
        ("job MB/s per core (HTML)", f"{result['job_mb_per_s_per_core']:.2f}", ""),
        ("plain loop pages/s (1 core)", f"{plain['pages_per_s']:.1f}", ""),
        ("speedup vs plain, 1 worker", f"{result['speedup_vs_plain_1_worker']:.2f}x", ">= 3x"),
        (
            f"speedup vs plain per core, {args.workers}w",
            f"{result['speedup_vs_plain_per_core']:.2f}x",
            ">= 3x",
        ),
        (
            "worker busy fraction 1w / Nw",
            f"{job1['busy_fraction']:.2f} / {jobn['busy_fraction']:.2f}",
            "",
        ),
        (f"scaling 1 -> {args.workers} workers", f"{result['scaling']:.2f}x", ">= 1.8x"),
        (
            "peak RSS 1x / 4x (MB)",
            f"{rss1['peak_rss_mb']:.0f} / {rss4['peak_rss_mb']:.0f}",
            "<= +10%",
        ),
        ("RSS growth at 4x", f"{100 * result['rss_growth_4x']:+.1f}%", ""),
    ]
    print()
    for name, value, target in rows:
        print(f"{name:36} {value:>14}  {target}")
    print(f"load average: {os.getloadavg()}")
    print(f"\nwrote {results}")


if __name__ == "__main__":
    main()
