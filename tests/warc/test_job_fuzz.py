"""A bounded fuzzing campaign over damaged WARCs and ARCs: the reader and the job's task.

Mutants come from `tests.fuzz_mutators` (a seed corpus built in code, damaged at random), the
invariants and the per-mutant time bound from `tests.fuzz_harness` (see its docstring and
FUZZING.md). Every mutant runs in a worker process, killed when it overruns its bound, so a hang
fails the test instead of stalling CI. Fixed seeds: a failure reproduces with the same label.
``bench/fuzz_warcs.py`` runs the same campaign for as long as asked.
"""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from tests.fuzz_harness import Campaign, Worker, check_reader, run_campaign
from tests.fuzz_mutators import (
    LAYOUTS,
    SEEDS,
    Intact,
    Mutant,
    build_mutant,
    lay_out,
    length_mutants,
    make_mutant,
)

pytestmark = pytest.mark.timeout(300)

# Generous for files of a few KB that read in milliseconds, even on a loaded CI machine.
READER_SECONDS = 10.0
JOB_SECONDS = 60.0
CAMPAIGN_SEED = 20261126
N_RANDOM = 1500
JOB_EVERY = 50


@pytest.fixture(scope="module")
def worker():
    w = Worker()
    yield w
    w.close()


def _assert_clean(result: Campaign, tmp_path: Path) -> None:
    if not result.failures:
        return
    for i, failure in enumerate(result.failures):
        (tmp_path / f"failure-{i:03d}.bin").write_bytes(failure.data)
    lines = [str(f) for f in result.failures[:15]]
    more = len(result.failures) - len(lines)
    raise AssertionError(
        f"{len(result.failures)} of {result.executions} runs broke an invariant "
        f"(kinds {dict(result.kinds)}; inputs saved in {tmp_path}):\n"
        + "\n".join(lines)
        + (f"\n... and {more} more" if more > 0 else "")
    )


def _undamaged(seed_index: int, layout: str) -> Mutant:
    seed = SEEDS[seed_index]
    data, spans = lay_out(seed.records, layout)
    intact = tuple(Intact(start, seed.ids[i], seed.types[i]) for i, (start, _) in enumerate(spans))
    return Mutant(data, f"{seed.name}/{layout} undamaged", seed.name, seed.fmt, layout, intact)


def test_undamaged_seeds_pass_every_check(worker: Worker, tmp_path: Path) -> None:
    # The harness's own baseline: with nothing damaged, every record is found where it is.
    mutants = [_undamaged(i, layout) for i in range(len(SEEDS)) for layout in LAYOUTS]
    result = run_campaign(
        mutants,
        job_every=1,
        reader_timeout=READER_SECONDS,
        job_timeout=JOB_SECONDS,
        worker=worker,
    )
    _assert_clean(result, tmp_path)
    assert result.job_runs == len(mutants)
    assert result.records == 2 * sum(len(s.records) for s in SEEDS) * len(LAYOUTS)


def test_every_listed_content_length_on_every_record(worker: Worker, tmp_path: Path) -> None:
    """0 with a non-empty block, -0, -1, -5, 1e3, 0x10, 12.5, empty, abc, larger than the file,
    one byte more or less than the block: on each record of each seed, in every layout; the job
    on the response records of the Common-Crawl-shaped seed."""
    mutants = length_mutants()
    result = run_campaign(mutants, reader_timeout=READER_SECONDS, worker=worker)
    jobs = [m for m in mutants if m.seed == "cc" and "record 2:" in m.label]
    result_jobs = run_campaign(jobs, job_every=1, job_timeout=JOB_SECONDS, worker=worker)
    assert result.reader_runs == len(mutants) > 500
    assert result_jobs.job_runs == len(jobs) >= 30
    result.failures += result_jobs.failures
    result.kinds += result_jobs.kinds
    _assert_clean(result, tmp_path)


def test_random_mutants_bounded_campaign(worker: Worker, tmp_path: Path) -> None:
    rng = random.Random(CAMPAIGN_SEED)
    mutants = [make_mutant(rng) for _ in range(N_RANDOM)]
    result = run_campaign(
        mutants,
        job_every=JOB_EVERY,
        reader_timeout=READER_SECONDS,
        job_timeout=JOB_SECONDS,
        worker=worker,
    )
    assert result.reader_runs == N_RANDOM and result.job_runs == N_RANDOM // JOB_EVERY
    _assert_clean(result, tmp_path)


def test_one_damaged_record_among_intact_ones_in_each_layout(
    worker: Worker, tmp_path: Path
) -> None:
    # One record-level damage each, so the records after it are known intact (in per-record
    # gzip members and plain files, and in a file gzipped whole as one stream).
    rng = random.Random(CAMPAIGN_SEED + 1)
    mutants = [
        build_mutant(rng, seed, layout, n_record=1, n_file=0)
        for _ in range(40)
        for seed in SEEDS
        for layout in LAYOUTS
    ]
    assert all(m.intact for m in mutants)
    result = run_campaign(mutants, job_every=10, worker=worker)
    _assert_clean(result, tmp_path)


def test_a_hang_fails_within_the_bound() -> None:
    # The bound is enforced from outside: a run that never answers is killed and reported,
    # and the next mutant gets a fresh worker.
    worker = Worker()
    try:
        assert worker.run("sleep", 3600.0, timeout=2.0) is None
        assert worker.run("sleep", 0.0, timeout=30.0) == {
            "violations": [],
            "records": 0,
            "seconds": pytest.approx(0.0, abs=1.0),
        }
    finally:
        worker.close()


def test_checks_catch_a_reader_that_swallows_or_duplicates(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The invariants are not vacuous: a reader that drops a record, repeats one, hands back
    the next record's header as body text or yields without end is caught."""
    import pipeline.warc.reader as reader
    from pipeline.types import RawPage

    real = reader.iter_records
    mutant = _undamaged(0, "plain")

    def dropping(stream, path, **kw):
        items = list(real(stream, path, **kw))
        yield from items[:3] + items[4:]

    def repeating(stream, path, **kw):
        items = list(real(stream, path, **kw))
        yield from [*items, items[-1]]

    def swallowing(stream, path, **kw):
        for item in real(stream, path, **kw):
            if isinstance(item, RawPage):
                item = dataclasses.replace(item, body=item.body + SEEDS[0].records[0])
            yield item

    def endless(stream, path, **kw):
        while True:
            yield reader.ReaderIssue(path, "resync", 0, "the same place again")

    fakes = (
        (dropping, "lost"),
        (repeating, "duplicate"),
        (swallowing, "header text"),
        (endless, "hang"),
    )
    for fake, kind in fakes:
        monkeypatch.setattr(reader, "iter_records", fake)
        bad, _ = check_reader(mutant)
        assert any(v.startswith(kind) for v in bad), (kind, bad)
    monkeypatch.setattr(reader, "iter_records", real)
    assert check_reader(mutant) == ([], len(SEEDS[0].records))
