"""The Dask job end to end against reference front ends, stage by stage, in one run.

    python bench/pipeline.py [--pages 1358] [--copies 8] [--shards 8] [--pairs 2]
                             [--frontends resiliparse,trafilatura[,plain]]
                             [--frontend-python PATH] [--base-python PATH] [--base-cleaner NAME]
                             [--workers 2] [--cleaner neighbours] [--out FILE]

Packs WCXB dev pages into Common-Crawl-shaped WARCs (request, response, metadata per page; one
gzip member per record; ``--copies`` repeats every page under a distinct URL: 1,358 x 8 = 10,864
pages by default) in ``--shards`` files, then measures, in one run:

1. **The job as the README runs it**: ``dask submit jobs/clean_warcs.py SHARDS --output OUT
   --workers 1`` in a fresh process (a LocalCluster: client and scheduler in that process, a
   nanny and a worker process under it; the HTML run report written at the end), with the default
   cleaner. Its CPU time is the whole process tree's (``RUSAGE_CHILDREN`` of this process, which
   counts every descendant once it has been waited for: client, scheduler, nanny, worker).
2. **The reference front ends** (``--frontends``), each in a fresh process under
   ``--frontend-python`` (bench/frontends.py; they need ``pip install resiliparse trafilatura
   lxml_html_clean pyarrow warcio``, which warcclean does not), measured the same way:
   ``resiliparse`` (FastWARC, ``extract_plain_text(tree, main_content=True)``, Parquet) and
   ``trafilatura`` (warcio, ``trafilatura.extract(html, favor_precision=True)``, Parquet), neither
   identifying languages; and, when listed, ``plain``: the loop as pipelines are usually written
   (warcio + jusText + langdetect + pyarrow) under this interpreter.
3. **Scaling**: the same job with ``--workers`` workers; its wall time against the same round's
   one-worker run (target >= 1.9x; wall time moves with the load of a shared machine, so each
   round's two runs are compared with each other, not across rounds).
4. With ``--base-python``, **the job of another install** (e.g. the commit before a change) the
   same way, run from that install's checkout (bench/against_install.py's helpers); with
   ``--base-cleaner NAME``, that job (of this install when no ``--base-python`` is given) runs
   cleaner NAME: two cleaners side by side in one run (its stages too).
5. **Stages**: the job's work on the same WARCs, one stage at a time, in a fresh process
   (`time.process_time` per stage): read (records out of the WARC), decode (charset and the size
   guard), parse+segment, langid (detection and stoplist), label (page cues and the cleaner),
   rows (columnar batches), write (Parquet, zstd); "startup and the rest" is the job's
   whole-tree CPU minus those stages: process start-ups and imports, model and profile loading,
   scheduling, the run reports. With ``--base-python`` the same stage code runs under the other
   install too (it imports that install's `pipeline`), and the two tables print side by side.

All of 1-5 alternate, ``--pairs`` rounds, the order reversed every other round so that a slow
spell of the machine falls on every contender; figures are medians over the rounds, and the
ratios are pages per CPU-second of the job over each front end's (targets: >= 1.0x resiliparse,
stretch 1.3x; >= 9x the plain loop). Then:

6. **Memory**: peak RSS of `process_warc` in a fresh process on one WARC holding the pages once
   and four times (flat means within 10%).

Prints the tables and writes bench/results/pipeline.json (``pipeline-<cleaner>.json`` for
another cleaner; ``--out`` to choose).
"""

from __future__ import annotations

import argparse
import functools
import gzip
import importlib.util
import io
import json
import os
import platform
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

# This file is called pipeline.py: drop its directory from the import path so that `pipeline`
# is the package, not this script (python puts a script's directory first on sys.path).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from warcio.statusandheaders import StatusAndHeaders  # noqa: E402
from warcio.warcwriter import WARCWriter  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

WCXB = REPO.parent / "shared" / "data" / "wcxb-dev"
RESULTS = REPO / "bench" / "results" / "pipeline.json"
FRONTENDS_SCRIPT = REPO / "bench" / "frontends.py"
NS = uuid.UUID("3b0f7a3e-2f57-4d0e-9a55-41d1b1b4d0c1")
DEFAULT_CLEANER = "neighbours"
STAGES = ("read", "decode", "parse+segment", "langid", "label", "rows", "write")
FRONT_ENDS = ("resiliparse", "trafilatura", "plain")
# Distributions whose versions the results record, per front end's interpreter.
FRONT_END_DISTS = ("resiliparse", "fastwarc", "trafilatura", "lxml", "pyarrow", "warcio")
TARGETS = {
    "job_vs_resiliparse_cpu": 1.0,
    "job_vs_resiliparse_cpu_stretch": 1.3,
    "job_vs_plain_cpu": 9.0,
    "rss_growth_4x_max": 0.10,
    "scaling_min": 1.9,
}


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


class RunFailed(RuntimeError):
    """A measured command exited with an error."""


def _tree_cpu(cmd: list[str], cwd: Path = REPO) -> dict:
    """Run ``cmd`` to completion; its wall time and its whole process tree's CPU seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RunFailed(
            f"{' '.join(cmd[:4])} ... failed ({proc.returncode}):\n{proc.stderr[-3000:]}"
        )
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": wall, "cpu_s": cpu, "stdout": proc.stdout}


def _against_install() -> ModuleType:
    """bench/against_install.py, whose helpers find another install's checkout and extras."""
    path = REPO / "bench" / "against_install.py"
    spec = importlib.util.spec_from_file_location("bench_against_install", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def _checkout(python: str) -> Path:
    """Where ``python``'s install runs the job from: this checkout for this interpreter, else
    the source tree its warcclean was installed from."""
    return REPO if python == sys.executable else _against_install()._checkout(python)


def run_job(
    inputs: list[str],
    out: Path,
    workers: int,
    cleaner: str,
    python: str | None = None,
    extra: Sequence[str] = (),
) -> dict:
    """The job as the README runs it, by ``python``'s install (this one by default), whose
    checkout's ``jobs/clean_warcs.py`` runs, with ``extra`` options."""
    python = python or sys.executable
    dask_cli = Path(python).with_name("dask")
    cmd = [str(dask_cli), "submit", "jobs/clean_warcs.py", *inputs, "--output", str(out)]
    cmd += ["--workers", str(workers), "--cleaner", cleaner, "--no-progress", *extra]
    run = _tree_cpu(cmd, _checkout(python))
    (report_path,) = sorted((out / "_runs").glob("*.json"))
    report = json.loads(report_path.read_text())
    totals = report["totals"]
    if report["failed"] or any(k.startswith("error:") for k in totals["rejects"]):
        raise RunFailed(f"the job failed inputs or pages: {report['failed']} {totals['rejects']}")
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


def check_front_end(name: str, python: str) -> None:
    """Exit, naming what to pip install, if ``python`` cannot run front end ``name``."""
    if name == "plain":
        cmd = [python, "-c", "import justext, langdetect, pyarrow, warcio"]
    else:
        cmd = [python, str(FRONTENDS_SCRIPT), name, "--check"]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tempfile.gettempdir())
    if proc.returncode:
        hint = "" if name != "plain" else " (pip install -e '.[test]')"
        sys.exit(f"front end {name} cannot run under {python}{hint}:\n{proc.stderr[-2000:]}")


def front_end(name: str, python: str, inputs: list[str], out: Path) -> dict:
    """bench/frontends.py ``name`` in a fresh process under ``python``."""
    cmd = [python, str(FRONTENDS_SCRIPT), name, *inputs, "--output", str(out)]
    run = _tree_cpu(cmd, Path(tempfile.gettempdir()))
    counts = json.loads(run["stdout"].strip().splitlines()[-1])
    return {
        "wall_s": round(run["wall_s"], 2),
        "cpu_s": round(run["cpu_s"], 2),
        "pages": counts["pages"],
        "docs": counts["docs"],
        "pages_per_cpu_s": counts["pages"] / run["cpu_s"],
    }


def _versions(python: str, dists: tuple[str, ...]) -> dict[str, str | None]:
    probe = (
        "import json, sys\nfrom importlib import metadata\nout = {}\n"
        "for d in sys.argv[1:]:\n"
        "    try:\n        out[d] = metadata.version(d)\n"
        "    except metadata.PackageNotFoundError:\n        out[d] = None\n"
        "print(json.dumps(out))"
    )
    proc = subprocess.run(
        [python, "-c", probe, *dists], capture_output=True, text=True, check=True, cwd="/"
    )
    return json.loads(proc.stdout)


def stages(inputs: list[str], cleaner_name: str, batch_rows: int) -> dict:
    """CPU seconds of each stage of the job's work on ``inputs``, one stage at a time."""
    import pyarrow.parquet as pq

    import pipeline
    from pipeline.clean import get_cleaner, label_blocks
    from pipeline.html import guard
    from pipeline.html.decode import decode_html
    from pipeline.html.segment import parse, segment
    from pipeline.lang import langid, stoplists
    from pipeline.output.columns import DocColumns
    from pipeline.output.schema import DOCS_SCHEMA
    from pipeline.types import CleanResult, RawPage, Verdict
    from pipeline.warc.reader import iter_records

    try:  # the sink's writer options; an install from before them wrote with zstd alone
        from pipeline.output.schema import writer_options

        options = writer_options(DOCS_SCHEMA)
    except ImportError:
        options = {"compression": "zstd"}
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
            if hasattr(decoded, "utf8"):
                source = decoded.utf8 if decoded.utf8 is not None else decoded.html
            else:  # an install from before `Decoded.utf8` (run with --base-python)
                from pipeline.clean import _is_plain_utf8

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
        with pq.ParquetWriter(sink, DOCS_SCHEMA, **options) as writer:
            for batch in batches:
                writer.write_batch(batch)
        spent["write"] += clock() - t
    return {"pages": pages, "cpu_s": spent, "pipeline": pipeline.__file__}


def stage_probe(python: str, inputs: list[str], cleaner: str, batch_rows: int) -> dict:
    """`stages` in a fresh process under ``python``, importing that install's `pipeline` (run
    from its checkout, where its models and stoplists are found as the job finds them)."""
    cmd = [python, str(Path(__file__).resolve()), "--stages-only", *inputs]
    cmd += ["--cleaner", cleaner, "--batch-rows", str(batch_rows)]
    run = _tree_cpu(cmd, _checkout(python))
    staged = json.loads(run["stdout"].strip().splitlines()[-1])
    if not Path(staged["pipeline"]).resolve().is_relative_to(_checkout(python)):
        raise RunFailed(f"{python} measured {staged['pipeline']}, not {_checkout(python)}")
    staged["process_cpu_s"] = round(run["cpu_s"], 2)
    return staged


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


def _ratio(value: float | None) -> str:
    return "" if value is None else f"{value:>7.2f}x"


def print_tables(result: dict, labels: dict[str, str], pages: int) -> None:
    rounds, med, ratios = result["rounds"], result["medians"], result["ratios_median"]
    print(f"\n{pages} pages, {len(rounds)} rounds; whole process tree's CPU")
    print(f"{'run':<40} {'pages/CPU-s':>12} {'CPU s':>8} {'wall s':>8} {'ours/it':>8}")
    for k, r in enumerate(rounds, 1):
        for name, label in labels.items():
            ratio = r.get(f"job/{name}")
            print(
                f"{f'round {k}: {label}':<40} {r[name]['pages_per_cpu_s']:>12.1f} "
                f"{r[name]['cpu_s']:>8.1f} {r[name]['wall_s']:>8.1f} {_ratio(ratio)}"
            )
    for name, label in labels.items():
        ratio = ratios.get(f"job/{name}")
        print(
            f"{f'median: {label}':<40} {med[name]['pages_per_cpu_s']:>12.1f} "
            f"{med[name]['cpu_s']:>8.1f} {med[name]['wall_s']:>8.1f} {_ratio(ratio)}"
        )

    tables = result["stages_ms_per_page"]
    columns = [c for c in ("before", "after") if c in tables]
    if columns:
        both = len(columns) == 2
        head = "".join(f"{c + ' ms':>10}" for c in columns)
        print(f"\n{'stage (CPU ms per page)':<28}{head}{'after/before' if both else '':>14}")
        names = list(dict.fromkeys(name for c in columns for name in tables[c]))
        for name in [*names, "total"]:
            row = [
                sum(tables[c].values()) if name == "total" else tables[c].get(name) for c in columns
            ]
            cells = "".join(_fmt(v, ">10.2f") for v in row)
            ratio = row[1] / row[0] if both and row[0] and row[1] is not None else None
            print(f"{name:<28}{cells}{_ratio(ratio) if both else '':>14}".rstrip())
    if result["stage_failures"]:
        print("stage runs that failed:", *result["stage_failures"], sep="\n  ")

    scaling, growth = result["scaling"], result["rss_growth_4x"]
    rows = []
    for name, target in (("resiliparse", ">= 1.0x (stretch 1.3x)"), ("plain", ">= 9x")):
        if f"job/{name}" in ratios:
            rows.append(
                (f"ours / {name}, pages per CPU-s", f"{ratios[f'job/{name}']:.2f}x", target)
            )
    if "job/trafilatura" in ratios:
        rows.append(
            ("ours / trafilatura, pages per CPU-s", f"{ratios['job/trafilatura']:.2f}x", "")
        )
    if "job/job_base" in ratios:
        rows.append(
            (
                "ours / base job (after / before), pages per CPU-s",
                f"{ratios['job/job_base']:.2f}x",
                "",
            )
        )
    if scaling["wall_ratio"] is not None:
        rows.append(
            (
                f"scaling 1 -> {scaling['workers']} workers (wall)",
                f"{scaling['wall_ratio']:.2f}x (median)",
                f">= {TARGETS['scaling_min']}x",
            )
        )
    rows += [
        (
            "peak RSS 1x / 4x (MB)",
            f"{result['peak_rss_mb_1x']:.0f} / {result['peak_rss_mb_4x']:.0f} "
            f"({100 * growth:+.1f}%)",
            "within 10%",
        ),
    ]
    print()
    for name, value, target in rows:
        print(f"{name:<40} {value:>22}  {target}")


def _median(rounds: list[dict], key: str, field: str) -> float | None:
    values = [r[key][field] for r in rounds if key in r]
    return statistics.median(values) if values else None


def _stage_ms(staged: list[dict], job_cpu: float | None, job_pages: int) -> dict[str, float]:
    """Median ms per page of each stage over the rounds, and the job's CPU the stages leave."""
    ms = {
        name: statistics.median(1000 * s["cpu_s"][name] / s["pages"] for s in staged)
        for name in STAGES
    }
    if job_cpu is not None:
        ms["startup and the rest"] = max(0.0, 1000 * job_cpu / job_pages - sum(ms.values()))
    return ms


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=1358, help="WCXB pages to use (max 1358)")
    ap.add_argument("--copies", type=int, default=8, help="times each page is repeated")
    ap.add_argument("--shards", type=int, default=8, help="WARC files the pages are split into")
    ap.add_argument("--pairs", type=int, default=2, help="rounds of job, front ends and stages")
    ap.add_argument("--workers", type=int, default=2, help="workers of the scaling runs")
    ap.add_argument("--cleaner", default=DEFAULT_CLEANER, help="cleaner the job runs")
    ap.add_argument("--batch-rows", type=int, default=1000, help="rows per batch in 'rows'")
    ap.add_argument("--out", type=Path, help="results file (default: bench/results/pipeline.json)")
    ap.add_argument(
        "--frontends",
        default="resiliparse,trafilatura",
        help=f"comma-separated, of {', '.join(FRONT_ENDS)} (or 'none')",
    )
    ap.add_argument(
        "--frontend-python",
        default=sys.executable,
        help="interpreter with resiliparse/trafilatura installed (default: this one)",
    )
    ap.add_argument(
        "--base-python",
        help="interpreter of another install whose job and stages run beside this one's",
    )
    ap.add_argument(
        "--base-cleaner",
        help="cleaner of the base job and stages (default: --cleaner; without --base-python, "
        "this install's)",
    )
    ap.add_argument(
        "--job-args",
        default="",
        help="more options for this install's job, as one string (e.g. '--site-repeats 0' to "
        "leave out a stage that the base install does not have)",
    )
    # Internal: the stage measurement, run by this script in a fresh process per round.
    ap.add_argument("--stages-only", nargs="+", metavar="WARC", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.stages_only:
        print(json.dumps(stages(args.stages_only, args.cleaner, args.batch_rows)))
        return
    job_args = shlex.split(args.job_args)
    for name in ("pages", "copies", "shards", "pairs", "workers"):
        if getattr(args, name) < 1:
            ap.error(f"--{name} must be at least 1, got {getattr(args, name)}")
    chosen = [] if args.frontends == "none" else args.frontends.split(",")
    unknown = sorted(set(chosen) - set(FRONT_ENDS))
    if unknown or len(set(chosen)) < len(chosen):
        ap.error(f"--frontends: {args.frontends!r}; choose among {', '.join(FRONT_ENDS)}")
    if not WCXB.exists():
        sys.exit(f"{WCXB} is absent: the benchmark needs ../shared/data/wcxb-dev")
    for name in chosen:
        check_front_end(name, sys.executable if name == "plain" else args.frontend_python)
    base = args.base_python or (sys.executable if args.base_cleaner else None)
    base_cleaner = args.base_cleaner or args.cleaner
    if base:
        helpers = _against_install()
        # The run report draws charts when matplotlib is installed, about a second of CPU a
        # run: an install without it would look cheaper by that much.
        extras = {p: helpers._has_matplotlib(p) for p in (sys.executable, base)}
        if len(set(extras.values())) > 1:
            sys.exit(f"the installs differ in matplotlib (the report's charts): {extras}")
        print(f"base: {base}, checkout {_checkout(base)}", flush=True)
    pages = load_pages(args.pages)
    if args.shards > len(pages):
        ap.error(f"--shards ({args.shards}) exceeds the {len(pages)} pages: a shard would be empty")
    load_start = os.getloadavg()
    scaling = ["job_scaled"] if args.workers > 1 else []
    contenders = ["job", *scaling, *(["job_base"] if base else []), *chosen, "stages"]
    contenders += ["stages_base"] if base else []
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
            f"({warc_mb:.1f} MB), cleaner {args.cleaner}; contenders: {', '.join(contenders)}",
            flush=True,
        )
        rounds: list[dict] = []
        failures: list[str] = []

        def measure(what: str, out: Path) -> dict | None:
            if what == "job":
                return run_job(shards, out, 1, args.cleaner, extra=job_args)
            if what == "job_scaled":
                return run_job(shards, out, args.workers, args.cleaner, extra=job_args)
            if what == "job_base":
                return run_job(shards, out, 1, base_cleaner, python=base)
            if what == "plain":
                return plain_loop(shards, out)
            if what in FRONT_ENDS:
                return front_end(what, args.frontend_python, shards, out)
            python, cleaner = (
                (base, base_cleaner) if what == "stages_base" else (sys.executable, args.cleaner)
            )
            try:
                return stage_probe(python, shards, cleaner, args.batch_rows)
            except RunFailed as exc:
                if "StaleBuildError" in str(exc):
                    raise
                # The stage code reaches into the job's internals, which another install may
                # lack: the end-to-end figures stand without it.
                failures.append(f"{what}: {exc}")
                print(f"{what} FAILED: {exc}", flush=True)
                return None

        for k in range(args.pairs):
            runs: dict = {}
            order = contenders if k % 2 == 0 else contenders[::-1]
            for what in order:
                out = tmp_path / f"out-{what}-{k}"
                try:
                    runs[what] = measure(what, out)
                except RunFailed as exc:
                    if "StaleBuildError" not in str(exc):
                        raise
                    # Someone is rebuilding this checkout's compiled modules: wait, once.
                    print(f"round {k + 1} {what}: stale build, retrying in 3 min", flush=True)
                    time.sleep(180)
                    shutil.rmtree(out, ignore_errors=True)
                    runs[what] = measure(what, out)
                if runs[what] is None:
                    del runs[what]
                    continue
                shown = {key: v for key, v in runs[what].items() if key != "pipeline"}
                print(f"round {k + 1} {what}: {shown}", flush=True)
            for name in chosen:
                runs[f"job/{name}"] = runs["job"]["pages_per_cpu_s"] / runs[name]["pages_per_cpu_s"]
            if scaling:
                runs["scaling"] = runs["job"]["wall_s"] / runs["job_scaled"]["wall_s"]
            if base:
                runs["job/job_base"] = (
                    runs["job"]["pages_per_cpu_s"] / runs["job_base"]["pages_per_cpu_s"]
                )
            rounds.append(runs)
        rss1 = peak_rss(one, tmp_path / "rss-1", args.cleaner)
        rss4 = peak_rss(four, tmp_path / "rss-4", args.cleaner)
        print(f"peak RSS 1x: {rss1} 4x: {rss4}", flush=True)

    n = rounds[0]["job"]["pages"]
    odd = {
        name: r[name]["pages"]
        for r in rounds
        for name in (*chosen, "job_base")
        if name in r and r[name]["pages"] != n
    }
    if odd:
        print(f"WARNING: page counts differ from the job's {n}: {odd}", flush=True)
    labels = {"job": "ours (job, 1 worker)"}
    labels |= {"job_scaled": f"ours ({args.workers} workers)"} if scaling else {}
    if base:
        differ = base_cleaner != args.cleaner
        labels["job_base"] = f"ours, {base_cleaner}" if differ else "ours before (base install)"

    labels |= {name: name if name != "plain" else "plain loop" for name in chosen}
    throughput = {
        name: {
            "pages_per_cpu_s": _median(rounds, name, "pages_per_cpu_s"),
            "cpu_s": _median(rounds, name, "cpu_s"),
            "wall_s": _median(rounds, name, "wall_s"),
        }
        for name in labels
    }
    ratios = {
        key: statistics.median(r[key] for r in rounds)
        for key in rounds[0]
        if key.startswith("job/")
    }
    stage_tables: dict[str, dict[str, float]] = {}
    for which, stage_key, job_key in (
        ("before", "stages_base", "job_base"),
        ("after", "stages", "job"),
    ):
        staged = [r[stage_key] for r in rounds if stage_key in r]
        if staged:
            job_cpu = throughput[job_key]["cpu_s"] if job_key in throughput else None
            stage_tables[which] = _stage_ms(staged, job_cpu, n)
    # Wall time moves with the machine's load: each round's runs are compared with each other.
    wall_ratio = statistics.median(r["scaling"] for r in rounds) if scaling else None
    growth = rss4["peak_rss_mb"] / rss1["peak_rss_mb"] - 1
    result = {
        "date": results_file.utc_now(),
        "command": results_file.command_line(__file__),
        "git_commit": results_file.git_commit(short=False),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_at_start": load_start,
            "load_average_at_end": os.getloadavg(),
        },
        "pages": n,
        "copies": args.copies,
        "shards": args.shards,
        "cleaner": args.cleaner,
        "frontends": chosen,
        "frontend_python": args.frontend_python,
        "frontend_versions": _versions(args.frontend_python, FRONT_END_DISTS),
        "base": (
            {"python": base, "checkout": str(_checkout(base)), "cleaner": base_cleaner}
            if base
            else None
        ),
        "rounds": rounds,
        "medians": throughput,
        "ratios_median": ratios,
        "stages_ms_per_page": stage_tables,
        "stage_failures": failures,
        "scaling": {"workers": args.workers, "wall_ratio": wall_ratio},
        "peak_rss_mb_1x": rss1["peak_rss_mb"],
        "peak_rss_mb_4x": rss4["peak_rss_mb"],
        "rss_growth_4x": growth,
        "targets": TARGETS,
    }
    results = args.out or (
        RESULTS
        if args.cleaner == DEFAULT_CLEANER
        else RESULTS.with_name(f"pipeline-{args.cleaner}.json")
    )
    results_file.write_results(results, result, indent=2)
    print_tables(result, labels, n)
    print(f"load average: {os.getloadavg()}\nwrote {results}")


if __name__ == "__main__":
    try:
        main()
    except RunFailed as exc:
        sys.exit(str(exc))
