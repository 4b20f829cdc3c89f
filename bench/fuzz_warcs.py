"""The fuzzing campaign of tests/warc/test_job_fuzz.py, for as long as asked.

    python bench/fuzz_warcs.py --minutes 30 [--seed 1] [--job-every 20] [--real DIR | --no-real]
                               [--failures DIR] [--out bench/results/fuzz.json]
    python bench/fuzz_warcs.py --replay bench/results/fuzz.json [--failures DIR]

Mutants of the built seed corpus (`tests.fuzz_mutators`) and, when ``--real`` names a folder (by
default ../shared/warcs/real when it exists), file-level mutants of its real WARCs and ARCs up to
256 KB. Every mutant goes through the reader, every ``--job-every``-th through
`pipeline.run.process_warc` as well, each in a worker process killed at its time bound
(`tests.fuzz_harness`). Prints executions per second and what broke, writes the JSON, and saves
each failing input with its label under ``--failures`` (a new temporary folder by default).
``WARCCLEAN_FUZZ_READER=FILE`` fuzzes that version of the reader instead (see FUZZING.md).
Exit 1 when any invariant broke.

``--replay REPORT`` rebuilds the mutants of a campaign's report (same seed, same real seeds, same
order) and runs again only the ones listed among its failures (matched by mode and label), so a
failure can be re-checked after a fix; it saves each rebuilt mutant (pickled, with its intact
records) under ``--failures``. It does not write a report.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

from tests.fuzz_harness import READER_ENV, Worker, run_campaign, use_reader  # noqa: E402
from tests.fuzz_mutators import DONORS, Intact, Mutant, damage_file, make_mutant  # noqa: E402

DEFAULT_REAL = REPO.parent / "shared" / "warcs" / "real"
DEFAULT_OUT = REPO / "bench" / "results" / "fuzz.json"
REAL_MAX_BYTES = 256 * 1024


def real_seeds(folder: Path) -> list[tuple[str, bytes, list[tuple[int, int]], list[Intact]]]:
    """(name, bytes, spans, records) of each small real file, keeping only the records the reader
    finds in the undamaged file (some of these files are damaged on purpose)."""
    import io

    from pipeline.types import RawPage, Rejected
    from pipeline.warc.reader import iter_records
    from tests.warc_builders import warcio_index

    out = []
    for path in sorted(folder.iterdir()):
        if not path.name.endswith((".warc", ".gz", ".arc")) or path.stat().st_size > REAL_MAX_BYTES:
            continue
        data = path.read_bytes()
        try:
            index = warcio_index(data)
        except Exception:
            index = []
        try:
            found = {
                (i.warc_offset, i.record_id)
                for i in iter_records(io.BytesIO(data), "real")
                if isinstance(i, RawPage | Rejected)
                and not any(n.startswith("offset_space:") for n in getattr(i, "notes", ()))
            }
        except Exception as exc:
            print(
                f"{path.name}: not a seed, the reader fails on it undamaged: {exc}", file=sys.stderr
            )
            continue
        found_offsets = {offset for offset, _ in found}
        spans, records = [], []
        for rid, rtype, offset, length in index:
            spans.append((offset, offset + length))
            ok = (offset, rid) in found if rid else offset in found_offsets
            # warcio's name for an ARC file header; the reader counts it as a warcinfo.
            rtype = "warcinfo" if rtype == "arc_header" else rtype
            records.append(Intact(offset, rid, rtype if ok else "?"))
        out.append((path.name, data, spans, records))
    return out


def real_mutant(rng: random.Random, seed: tuple) -> Mutant:
    name, data, spans, records = seed
    new, starts, damaged, label, _ = damage_file(rng, data, spans, DONORS)
    intact = tuple(
        Intact(start, rec.record_id, rec.record_type)
        for i, (start, rec) in enumerate(zip(starts, records, strict=True))
        if i not in damaged
        and start is not None
        and rec.record_type != "?"
        # ARC records are matched by offset, WARC records by id: a record with neither is
        # not checked.
        and (rec.record_id is not None or name.endswith((".arc", ".arc.gz")))
    )
    # Real files are only judged on what the mutation left intact, not read against the seed.
    return Mutant(new, f"real:{name}; {label}", f"real:{name}", "?", "real", intact, True)


def mutants(rng: random.Random, reals: list) -> Iterator[Mutant]:
    while True:
        if reals and rng.random() < 0.25:
            yield real_mutant(rng, rng.choice(reals))
        else:
            yield make_mutant(rng)


def machine() -> dict[str, object]:
    try:
        dirty = bool(
            subprocess.run(
                ["git", "-C", str(REPO), "status", "--porcelain", "pipeline/warc"],
                capture_output=True,
                text=True,
            ).stdout.strip()
        )
    except OSError:
        dirty = None
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "load_average_at_start": os.getloadavg(),
        "git_commit": results_file.git_commit(short=False),
        "pipeline_warc_uncommitted_changes": dirty,
    }


def replay(args: argparse.Namespace) -> int:
    """Re-run the failing mutants a report lists (see the module's docstring)."""
    import pickle

    report = json.loads(args.replay.read_text())
    wanted = report["first_failures"]
    reals = real_seeds(args.real) if args.real else []
    rng = random.Random(report["seed"])
    found: list[tuple[str, Mutant]] = []
    left = set(range(len(wanted)))
    for n, mutant in enumerate(mutants(rng, reals)):
        if n >= report["mutated_files"] or not left:
            break
        for i in sorted(left):
            for mode in ("reader", "job"):
                if wanted[i].startswith(f"[{mode}] {mutant.label}: "):
                    found.append((mode, mutant))
                    left.discard(i)
    print(f"rebuilt {len(found)} of {len(wanted)} failing mutants", file=sys.stderr)
    if args.failures is None:
        args.failures = Path(tempfile.mkdtemp(prefix="warcclean-fuzz-replay-"))
    args.failures.mkdir(parents=True, exist_ok=True)
    for i, (_, mutant) in enumerate(found):
        (args.failures / f"{i:05d}.pickle").write_bytes(pickle.dumps(mutant))
    failing = 0
    worker = Worker()
    try:
        for i, (mode, mutant) in enumerate(found):
            job_every = 1 if mode == "job" else 0
            result = run_campaign(iter([mutant]), job_every=job_every, worker=worker)
            verdict = "; ".join(map(str, result.failures)) or f"[{mode}] {mutant.label}: ok"
            print(f"{i:05d} {verdict}", flush=True)
            failing += result.failing_runs
    finally:
        worker.close()
    print(f"failing runs       {failing} of {len(found)} (mutants in {args.failures})")
    return 1 if failing else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--job-every", type=int, default=20, help="0: the reader only")
    parser.add_argument(
        "--real", type=Path, default=DEFAULT_REAL if DEFAULT_REAL.is_dir() else None
    )
    parser.add_argument("--failures", type=Path, default=None, help="default: a new temp dir")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--no-real", action="store_true", help="the built seeds only")
    parser.add_argument("--replay", type=Path, default=None, help="a report to re-run")
    args = parser.parse_args(argv)
    if args.minutes <= 0:
        parser.error("--minutes must be positive")
    if args.no_real:
        args.real = None
    elif args.real is not None and not args.real.is_dir():
        parser.error(f"--real {args.real} is not a folder")

    if os.environ.get(READER_ENV):
        use_reader(os.environ[READER_ENV])  # the seeds are read with the reader under test
    if args.replay is not None:
        return replay(args)
    info = machine()
    info["reader"] = os.environ.get(READER_ENV) or "pipeline/warc/reader.py"
    started = results_file.utc_now()
    reals = real_seeds(args.real) if args.real else []
    print(f"seeds: built corpus + {len(reals)} real files", file=sys.stderr)
    rng = random.Random(args.seed)
    result = run_campaign(
        mutants(rng, reals),
        job_every=args.job_every,
        stop_at=time.monotonic() + args.minutes * 60,
    )
    per_second = result.executions / result.seconds if result.seconds else 0.0
    by_kind = result.kinds
    if result.failures:
        if args.failures is None:
            args.failures = Path(tempfile.mkdtemp(prefix="warcclean-fuzz-failures-"))
        args.failures.mkdir(parents=True, exist_ok=True)
        for i, failure in enumerate(result.failures):
            (args.failures / f"{i:05d}.bin").write_bytes(failure.data)
            (args.failures / f"{i:05d}.txt").write_text(str(failure) + "\n")

    print(f"mutated files      {result.reader_runs:,} (reader), {result.job_runs:,} (job too)")
    print(f"executions         {result.executions:,} in {result.seconds:.0f} s")
    print(f"executions/second  {per_second:.1f}")
    print(f"records read       {result.records:,}")
    print(f"hangs              {result.hangs}")
    for kind in ("crash", "lost", "duplicate", "header text", "changed", "unbalanced"):
        print(f"{kind:<18} {by_kind[kind]} runs")
    saved = f" (the first {len(result.failures)} in {args.failures})" if result.failures else ""
    print(f"failing runs       {result.failing_runs}{saved}")

    info["load_average_at_end"] = os.getloadavg()
    report = {
        "date": started,
        "command": results_file.command_line(__file__, argv),
        "minutes": args.minutes,
        "seed": args.seed,
        "job_every": args.job_every,
        "real_seed_files": len(reals),
        "mutated_files": result.reader_runs,
        "job_runs": result.job_runs,
        "executions": result.executions,
        "seconds": round(result.seconds, 1),
        "executions_per_second": round(per_second, 1),
        "records_read": result.records,
        "hangs": result.hangs,
        "failing_runs": result.failing_runs,
        "failing_runs_by_kind": dict(sorted(by_kind.items())),
        "first_failures": [str(f) for f in result.failures[:50]],
        "machine": info,
    }
    results_file.write_results(args.out, report, indent=2)
    return 1 if result.failing_runs else 0


if __name__ == "__main__":
    sys.exit(main())
