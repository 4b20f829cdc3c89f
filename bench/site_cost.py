"""What the site stage costs beside the cleaning pass, and its memory as the output grows.

    python bench/site_cost.py [--data DIR] [--pairs 2] [--workers 2] [--shards 8]
                              [--marginal-pairs 2] [--out FILE]

On daniel's pages as bench/site_stage.py packs them (synthetic URLs on each site's real host):

1. **CPU, side by side in one run.** ``warcclean run SHARDS --site-repeats 0`` (the cleaning
   pass alone) and ``warcclean run SHARDS`` (the default: the cleaning pass, then the site stage
   on the same cluster) alternate, ``--pairs`` rounds, the order swapped every other round, each
   into a fresh output; CPU is the whole process tree's (``RUSAGE_CHILDREN``: client, scheduler,
   nannies, workers, their supervised children). The stage's cost is the median over rounds of
   (with stage) / (without) - 1 (target: at most +10%). The tree's CPU is also split, polling
   each process with psutil, into the supervised children's (the pages' cleaning, the same
   work in both arms: the stage never runs there) and the job's other processes'; the
   difference of the latter over the cleaning pass's CPU is the stage's own share, free of the
   children's run-to-run spread, which is recorded beside it. Beside it, the stage alone:
   ``warcclean site OUT`` against ``warcclean site OUT --site-repeats 0`` on a cleaned output
   (the same command, cluster start-up and all, doing no stage), alternating too; and the same
   pair through the shuffles (``gather_bytes=0``, on the job's cluster settings), which an
   output above the one-task bound takes. Then the **cost of each more document**, both ways:
   that pair over the output and over one 4 times larger (part 2's, in 4 times the files; and
   the same rows in the same 5 files, each holding 4 times the documents), the difference of
   their stage CPU per document added, over the cleaning pass's CPU per page: what a large
   crawl pays once the fixed costs are spread (per file too, in the second layout).
2. **Memory.** Peak RSS of each worker (VmHWM, 2 fresh worker processes) while the
   stage runs over the cleaned output, and over one 4 times larger: every documents file copied
   3 more times under new names, each copy's URLs on other hosts (``c1.<host>`` ...), so the
   larger output has 4 times the sites, pages and files of the same kind (flat: within 10%).
   Both outputs are below the job's bound for the one-task stage (`GATHER_BYTES`), so each is
   measured twice: shuffled (``gather_bytes=0``, what an output above the bound gets, whose
   memory must stay flat; each file its own batch, as a crawl's output is many batches of
   `BATCH_BYTES`) and gathered (the default here, whose memory grows with the output
   up to that bound). Shuffled, also over one 16 times larger: where the peak levels off once
   the shuffle's buffers are full, the growth from 4 to 16 times says it is bounded.
3. **Shuffle volume.** Rows and bytes each shuffle moves per document (the occurrence rows
   after each file's own de-duplication, the documents rows, the repeated keys routed back),
   counted from the same output with the stage's functions; with the measured CPU they give the
   estimate for a Common Crawl snapshot (BENCHMARKS.md).

Writes bench/results/site_cost.json.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if sys.path and Path(sys.path[0] or ".").resolve() == REPO / "bench":
    del sys.path[0]
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

DEFAULT_OUT = REPO / "bench" / "results" / "site_cost.json"
WARCCLEAN = str(Path(sys.executable).with_name("warcclean"))


def _site_bench() -> Any:
    spec = importlib.util.spec_from_file_location("site_bench", REPO / "bench" / "site_stage.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The processes that clean pages: the supervised children (`pipeline.supervise`), which the stage
# never runs in. Their CPU is the same work in both arms, but it moved by a few seconds from run
# to run on this machine, more than the stage costs, so the stage's own cost is also read off the
# other processes (client, scheduler, workers) alone.
_CLEANING = ("pipeline.sandbox", "pipeline.supervise")


def tree_cpu(cmd: list[str]) -> dict[str, float]:
    """The CPU seconds of ``cmd``'s whole process tree (``RUSAGE_CHILDREN``), its wall time, and
    the tree's CPU split into the cleaning children's and the job's other processes', polled
    with psutil every 0.1 s (a process's last tenth of a second before it exits is missed)."""
    import psutil

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO
    )
    root = psutil.Process(proc.pid)
    last: dict[int, float] = {}
    cleaning: set[int] = set()
    while proc.poll() is None:
        try:
            tree = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            break
        for p in tree:
            try:
                times = p.cpu_times()
                if p.pid not in last and any(m in " ".join(p.cmdline()) for m in _CLEANING):
                    cleaning.add(p.pid)
                last[p.pid] = times.user + times.system
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                pass
        time.sleep(0.1)
    _, stderr = proc.communicate()
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:3])} failed:\n{stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    children = sum(v for pid, v in last.items() if pid in cleaning)
    others = sum(v for pid, v in last.items() if pid not in cleaning)
    return {
        "cpu_s": round(cpu, 2),
        "wall_s": round(wall, 2),
        "cleaning_children_cpu_s": round(children, 2),
        "job_processes_cpu_s": round(others, 2),
    }


# The stage alone as `warcclean site` runs it (the job's cluster settings), but shuffled whatever
# the output's size (``gather_bytes=0``), or off: what an output above `GATHER_BYTES` pays.
_SHUFFLED_ALONE = """
import sys
from pipeline.job.schedule import make_client
from pipeline.job.site_stage import run_site_stage
from pipeline.site.rule import SiteSettings
out, workers, arm = sys.argv[1], int(sys.argv[2]), sys.argv[3]
settings = SiteSettings() if arm == "stage" else SiteSettings(min_pages=0)
with make_client(None, workers, 1, None) as client:
    run_site_stage(client, out, settings, gather_bytes=0)
"""


def alternating(pairs: int, arms: tuple[str, str], measure: Callable[[str, int], Any]) -> list:
    """``pairs`` rounds of the two ``arms``, each measured by ``measure(arm, round)``, the order
    swapped every other round so that neither arm always runs on a warmer machine."""
    rounds = []
    for r in range(pairs):
        order = arms if r % 2 == 0 else arms[::-1]
        rounds.append({arm: measure(arm, r) for arm in order})
    return rounds


def enlarge(src: Path, dst: Path, times: int, *, same_files: bool = False) -> None:
    """``src`` and ``times - 1`` copies of each documents file's rows, on other hosts: in new
    files beside it, or (``same_files``) as more row groups of the same file, so that the
    output has ``times`` the documents in as many files (as a crawl's large files have)."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from pipeline.output.schema import writer_options

    shutil.copytree(src, dst)
    for path in sorted((src / "docs").glob("language=*/*.parquet")):
        table = pq.read_table(path)
        copies = []
        for k in range(1, times):
            urls = pc.replace_substring_regex(table["url"], r"^(\w+://)", rf"\1c{k}.")
            ids = pc.binary_join_element_wise(table["record_id"], f"-c{k}", "")
            copy = table.set_column(table.schema.get_field_index("url"), "url", urls)
            copy = copy.set_column(copy.schema.get_field_index("record_id"), "record_id", ids)
            copies.append(copy.cast(table.schema))
        if not same_files:
            for k, copy in enumerate(copies, 1):
                target = dst / path.relative_to(src).with_name(f"{path.stem}-c{k}.parquet")
                pq.write_table(copy, target, compression="zstd")
            continue
        with pq.ParquetWriter(
            dst / path.relative_to(src), table.schema, **writer_options(table.schema)
        ) as writer:
            for part in (table, *copies):
                writer.write_table(part, row_group_size=max(1, part.num_rows))


def own_peak_rss_kib() -> int:
    """This process's peak resident memory since it was started, in KiB: VmHWM from
    /proc/self/status. Not ``ru_maxrss``: on Linux that keeps the high-water mark of the parent
    a worker was spawned from (its memory before the exec), which put the bench process's own
    peak in place of small workers' (the same value for every cluster of a run)."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def peak_rss(out: Path, workers: int, gather_bytes: int) -> dict[str, Any]:
    """The stage over ``out`` on fresh worker processes; each worker's peak RSS (MiB).
    ``gather_bytes`` 0 makes it shuffle whatever the output's size, each file a batch of its
    own (``batch_bytes=1``): the scaled-down model of a crawl's output of many batches, whose
    partitions each hold one batch's keys however many batches there are."""
    from pipeline.job.schedule import make_client
    from pipeline.job.site_stage import run_site_stage
    from pipeline.site.rule import SiteSettings

    with make_client(None, workers, 1, None) as client:  # the job's cluster settings
        started = time.perf_counter()
        result = run_site_stage(
            client, str(out), SiteSettings(), gather_bytes=gather_bytes, batch_bytes=1
        )
        seconds = time.perf_counter() - started
        peaks = client.run(own_peak_rss_kib)
    return {
        "files": result.files,
        "docs": result.report["totals"]["docs"],
        "seconds": round(seconds, 1),
        "worker_peak_rss_mib": sorted(round(v / 1024, 1) for v in peaks.values()),
    }


def shuffle_volume(out: Path) -> dict[str, Any]:
    import pandas as pd

    from pipeline.site import frames
    from pipeline.site.rule import SiteSettings

    parts = []
    blocks = 0
    paths = sorted((out / "docs").glob("language=*/*.parquet"))
    for i, path in enumerate(paths):
        with path.open("rb") as handle:
            part, hashes = frames.read_keys(handle, i, SiteSettings())
        parts.append(part)
        blocks += len(hashes)
    rows = pd.concat(parts, ignore_index=True)
    is_doc = rows["row"].to_numpy() >= 0
    occ, docs = rows[~is_doc], rows[is_doc]
    hits = frames.count_pages(occ)
    n_docs = len(docs) or 1
    # As Arrow moves them (`frames.UNION_META`): an occurrence row is key, page, file, row and
    # three null strings (an offset each); a document row the same with its strings; a routed
    # row is file, key, n, row and a string (null for a hit). Plus the text hashes kept for
    # each file's rewrite: 8 bytes a block.
    occ_bytes = len(occ) * (8 + 8 + 4 + 8 + 3 * 8)
    doc_bytes = int(
        len(docs) * (8 + 8 + 4 + 8)
        + sum(
            docs[c].map(lambda s: len(s.encode()) + 8).sum()
            for c in ("warc_date", "url", "record_id")
        )
    )
    hit_bytes = len(hits) * (4 + 8 + 4 + 8 + 8)
    return {
        "docs": len(docs),
        "occurrence_rows_per_doc": round(len(occ) / n_docs, 1),
        "hit_rows_per_doc": round(len(hits) / n_docs, 1),
        "bytes_per_doc": {
            "occurrences": round(occ_bytes / n_docs),
            "documents": round(doc_bytes / n_docs),
            "hits": round(hit_bytes / n_docs),
            "stored_hashes": round(8 * blocks / n_docs),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=_site_bench().DEFAULT_DATA)
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--shards", type=int, default=8)
    parser.add_argument("--marginal-pairs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    bench = _site_bench()
    work = Path(tempfile.mkdtemp(prefix="site-cost-"))
    try:
        urls = bench.page_urls(args.data)
        shards = bench.write_shards(args.data, urls, work / "in", args.shards)
        common = ["--workers", str(args.workers), "--no-progress", "--no-html-report"]

        def job(arm: str, r: int) -> dict[str, float]:
            out = work / f"job-{arm}-{r}"
            extra = ["--site-repeats", "0"] if arm == "off" else []
            return tree_cpu([WARCCLEAN, "run", *shards, "-o", str(out), *common, *extra])

        rounds = alternating(args.pairs, ("off", "on"), job)
        cleaned = work / "job-off-0"

        def site(arm: str, r: int) -> dict[str, float]:
            out = work / f"alone-{arm}-{r}"
            shutil.copytree(cleaned, out)
            extra = ["--site-repeats", "0"] if arm == "zero" else []
            return tree_cpu([WARCCLEAN, "site", str(out), "--workers", str(args.workers), *extra])

        alone = alternating(args.pairs, ("zero", "stage"), site)

        def shuffled(arm: str, r: int) -> dict[str, float]:
            out = work / f"shuffled-{arm}-{r}"
            shutil.copytree(cleaned, out)
            return tree_cpu(
                [sys.executable, "-c", _SHUFFLED_ALONE, str(out), str(args.workers), arm]
            )

        alone_shuffled = alternating(args.pairs, ("zero", "stage"), shuffled)
        from pipeline.job.site_stage import GATHER_BYTES

        enlarge(cleaned, work / "x4", 4)
        enlarge(cleaned, work / "x4-same-files", 4, same_files=True)
        enlarge(cleaned, work / "x16", 16)
        # What each more document costs, with the fixed costs (cluster, imports, Dask's per-task
        # and per-shuffle work) taken out: the stage's CPU over the output 4 times larger less
        # that over the output, both ways, per document added; the larger output in 4 times
        # the files (each file's own costs added too) or in the same files (a crawl's files
        # hold tens of thousands of documents, over which those costs are spread).
        marginal: dict[str, list[float]] = {}
        for mode, bound in (("shuffled", "0"), ("gathered", "2**40")):
            larger = (("x4", work / "x4"), ("x4_same_files", work / "x4-same-files"))
            for size, src in (("x1", cleaned), *larger):
                script = _SHUFFLED_ALONE.replace("gather_bytes=0", f"gather_bytes={bound}")

                def stage(arm: str, r: int, src: Path = src, script: str = script) -> float:
                    out = work / f"marginal-{arm}-{r}"
                    shutil.copytree(src, out)
                    run = [sys.executable, "-c", script, str(out), str(args.workers), arm]
                    cpu = tree_cpu(run)["cpu_s"]
                    shutil.rmtree(out)
                    return cpu

                marginal[f"{mode}_{size}"] = [
                    round(got["stage"] - got["zero"], 2)
                    for got in alternating(args.marginal_pairs, ("zero", "stage"), stage)
                ]
        memory = {}
        for name, gather_bytes in (("shuffled", 0), ("gathered", GATHER_BYTES)):
            # 16 times only shuffled: the gathered stage's memory grows with the output by design.
            for size in ("x1", "x4", "x16") if name == "shuffled" else ("x1", "x4"):
                src = work / ("alone-zero-0" if size == "x1" else size)
                out = work / f"rss-{name}-{size}"
                shutil.copytree(src, out)
                memory[f"{name}_{size}"] = peak_rss(out, args.workers, gather_bytes)
        volume = shuffle_volume(cleaned)
        stage_state = json.loads((work / "job-on-0" / "_site" / "state.json").read_text())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    in_job = [g["on"]["cpu_s"] / g["off"]["cpu_s"] - 1 for g in rounds]
    # What the stage's own processes added, over the whole cleaning pass's CPU.
    own = [
        (g["on"]["job_processes_cpu_s"] - g["off"]["job_processes_cpu_s"]) / g["off"]["cpu_s"]
        for g in rounds
    ]
    children_moved = [
        g["on"]["cleaning_children_cpu_s"] - g["off"]["cleaning_children_cpu_s"] for g in rounds
    ]
    stage_alone = [g["stage"]["cpu_s"] - g["zero"]["cpu_s"] for g in alone]
    shuffled_alone = [g["stage"]["cpu_s"] - g["zero"]["cpu_s"] for g in alone_shuffled]
    cleaning = statistics.median(g["off"]["cpu_s"] for g in rounds)
    added = 3 * len(urls)  # the documents the larger output adds
    per_document = {
        f"{mode}{layout}": round(
            1000
            * (
                statistics.median(marginal[f"{mode}_x4{layout}"])
                - statistics.median(marginal[f"{mode}_x1"])
            )
            / added,
            3,
        )
        for mode in ("shuffled", "gathered")
        for layout in ("", "_same_files")
    }
    x1 = max(memory["shuffled_x1"]["worker_peak_rss_mib"])
    x4 = max(memory["shuffled_x4"]["worker_peak_rss_mib"])
    g1 = max(memory["gathered_x1"]["worker_peak_rss_mib"])
    g4 = max(memory["gathered_x4"]["worker_peak_rss_mib"])
    payload = {
        "date": results_file.utc_now(),
        "command": results_file.command_line(__file__),
        "load_average": list(os.getloadavg()),
        "pages": len(urls),
        "rounds": rounds,
        "alone": alone,
        "stage_cpu_share_in_job": round(statistics.median(in_job), 4),
        "stage_cpu_share_in_job_rounds": [round(x, 4) for x in in_job],
        "stage_own_processes_share": round(statistics.median(own), 4),
        "stage_own_processes_share_rounds": [round(x, 4) for x in own],
        "cleaning_children_cpu_moved_s": [round(x, 2) for x in children_moved],
        "stage_alone_cpu_s": round(statistics.median(stage_alone), 2),
        "stage_alone_share_of_cleaning": round(statistics.median(stage_alone) / cleaning, 4),
        "stage_ms_per_page": round(1000 * statistics.median(stage_alone) / len(urls), 3),
        "alone_shuffled": alone_shuffled,
        "stage_alone_shuffled_cpu_s": round(statistics.median(shuffled_alone), 2),
        "stage_alone_shuffled_share_of_cleaning": round(
            statistics.median(shuffled_alone) / cleaning, 4
        ),
        "cleaning_ms_per_page": round(1000 * cleaning / len(urls), 3),
        "marginal_stage_cpu_s": marginal,
        "marginal_ms_per_document": per_document,
        "marginal_share_of_cleaning": {
            mode: round(ms / (1000 * cleaning / len(urls)), 4) for mode, ms in per_document.items()
        },
        "memory": memory,
        "rss_growth_x4": round(x4 / x1 - 1, 4),
        "rss_growth_x16": round(max(memory["shuffled_x16"]["worker_peak_rss_mib"]) / x1 - 1, 4),
        "gathered_rss_growth_x4": round(g4 / g1 - 1, 4),
        "shuffle": volume,
        "stage_report_totals": stage_state["report"]["totals"],
    }
    results_file.write_results(args.out, payload)
    per_round = ("rounds", "alone", "alone_shuffled")
    print(json.dumps({k: v for k, v in payload.items() if k not in per_round}, indent=1))


if __name__ == "__main__":
    main()
