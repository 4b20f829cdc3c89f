"""Run the reader and the job on mutants (`tests.fuzz_mutators`) and judge each run.

Each mutant runs in a worker process that the parent kills when it overruns its time bound, so a
hang is a reported failure (and the next mutant gets a fresh worker) instead of a stuck CI job.
The worker speaks length-prefixed pickle over its stdin/stdout: both ends are this module.

Invariants, per mutant:

- bounded time: the run ends within the bound; the reader yields at most a few items per byte;
- no crash: no exception escapes the reader or `pipeline.run.process_warc`, and no page is
  rejected as ``error:<Exception>`` (a page that broke the cleaner);
- accounting (job): records read = documents + rejections + skips, the counts match the rows
  written, and the job read as many records as the reader alone yields;
- no duplicate: no two items of the reader share a place in the file (in one offset space), and
  no (record id, offset) comes in the job's rows more often than the reader yields it;
- no header text: no page body (reader) or document text (job) holds WARC header lines or ARC
  header lines, the sign of a record swallowed by the one before it (unless the mutation spliced
  header bytes into a block, where they are the block's real content);
- intact records survive: every record the mutation did not touch is read, where its place in the
  file says (WARC: by record id, ARC: by offset, whose id the reader derives; in a file gzipped
  whole, by its offset in the gunzipped stream), and a page comes back with the same body as from
  the undamaged file.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import re
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fuzz_mutators import SEEDS, Intact, Mutant, lay_out

REPO = Path(__file__).resolve().parents[1]
WARC_PATH = "fuzz.warc"
READY = b"R"
# A worker's start (imports, the cleaner's model) is bounded apart from the mutants' runs.
START_SECONDS = 300.0
# A reader file to fuzz instead of the installed one (the worker reads it at start).
READER_ENV = "WARCCLEAN_FUZZ_READER"
ARC_START_SLACK = 16

_WARC_HEADER_TEXT = re.compile(
    r"WARC/1\.[01]\r?\n|(?m:^WARC-(?:Type|Record-ID|Date|Target-URI|Concurrent-To|"
    r"Warcinfo-ID|Payload-Digest|Block-Digest|IP-Address|Refers-To|Profile):)"
)
_ARC_HEADER_TEXT = re.compile(r"(?m:^(?:filedesc|https?)://\S+ \d+\.\d+\.\d+\.\d+ \d{14} )")


def holds_header_text(text: str) -> bool:
    return bool(_WARC_HEADER_TEXT.search(text) or _ARC_HEADER_TEXT.search(text))


# --- the checks (run in the worker) --------------------------------------------------------------


class Runaway(Exception):
    """An endless loop that yields: a hang that would fill memory before its time bound."""


def _read_all(data: bytes) -> list[Any]:
    from pipeline.warc.reader import iter_records

    items = []
    limit = 4 * len(data) + 100
    for item in iter_records(io.BytesIO(data), WARC_PATH):
        items.append(item)
        if len(items) > limit:
            raise Runaway(f"the reader yields without end: {limit} items from {len(data)} bytes")
    return items


_REFERENCE: dict[tuple[str, str], dict[str, Any]] = {}


def _reference(seed: str, layout: str) -> dict[str, Any]:
    """Each record's outcome in the undamaged file: page body, or rejection reason, by id."""
    key = (seed, layout)
    if key not in _REFERENCE:
        from pipeline.types import RawPage

        out: dict[str, Any] = {}
        seeds = [s for s in SEEDS if s.name == seed]
        data = lay_out(seeds[0].records, layout)[0] if seeds else b""
        for item in _read_all(data):
            if hasattr(item, "record_id"):
                out[item.record_id] = item.body if isinstance(item, RawPage) else item.reason
        _REFERENCE[key] = out
    return _REFERENCE[key]


def first_line(data: bytes) -> bytes:
    """A file's first line that is not blank (gunzipped, as far as it inflates)."""
    from tests.warc_builders import gunzip_members

    text = data
    if data[:2] == b"\x1f\x8b":
        try:
            text = gunzip_members(data)
        except Exception:
            text = b""
    return text.lstrip(b"\r\n\t ").split(b"\n", 1)[0]


def start_changed(m: Mutant) -> bool:
    """Whether the mutation changed the file's first line: then it may be no archive at all,
    and failing it as one (`NotAnArchive`) is the reader's answer (issue 50)."""
    seeds = [s for s in SEEDS if s.name == m.seed]
    if not seeds:  # a real file's mutant: its undamaged first line is not known here
        return True
    return first_line(lay_out(seeds[0].records, m.layout)[0]) != first_line(m.data)


def check_reader(m: Mutant) -> tuple[list[str], int]:
    """Violations of the reader on ``m`` and the number of records it read."""
    from pipeline.types import RawPage, Rejected
    from pipeline.warc.reader import NotAnArchive, ReaderIssue

    try:
        items = _read_all(m.data)
    except Runaway as exc:
        return [f"hang: {exc}"], 0
    except NotAnArchive as exc:
        if start_changed(m):
            return [], 0
        return [f"crash: a file that starts as its seed read as no archive: {exc}"[:500]], 0
    except Exception as exc:
        return [f"crash: reader raised {type(exc).__name__}: {exc}"[:500]], 0
    bad: list[str] = []
    space = "stored"
    places: Counter[tuple[str, int]] = Counter()
    by_id: dict[str, list[Any]] = {}
    # Where records start, by offset space (ARC records are found by offset).
    starts: dict[str, set[int]] = {}
    records = 0
    for item in items:
        if isinstance(item, ReaderIssue):
            if item.kind == "single_gzip_member":
                space = f"gunzip@{item.offset}"
            elif item.kind == "resync" and "gunzipped stream" not in item.detail:
                space = "stored"  # (a resync inside a gunzipped member stays in its stream)
            continue
        if not isinstance(item, RawPage | Rejected):
            bad.append(f"not an item: {type(item).__name__}")
            continue
        records += 1
        if item.warc_offset is not None:
            places[(space, item.warc_offset)] += 1
            starts.setdefault(space, set()).add(item.warc_offset)
        by_id.setdefault(item.record_id, []).append(item)
        if (
            isinstance(item, RawPage)
            and not m.may_embed_headers
            and holds_header_text(item.body.decode("latin-1"))
        ):
            bad.append(f"header text: in the body of the page at {item.warc_offset}")
    bad += [f"duplicate: {n} records at {where}" for where, n in places.items() if n > 1]
    reference = _reference(m.seed, m.layout)
    for rec in m.intact:
        found_at = starts.get(rec.space, set())
        if rec.space == "gunzip@0":
            # A file gzipped whole: its first record may be read before the reader knows that,
            # at stored offset 0, which is where its gunzipped stream starts too.
            found_at = found_at | (starts.get("stored", set()) & {0})
        bad += _intact_in_reader(rec, by_id, found_at, reference)
    return bad, records


def _intact_in_reader(
    rec: Intact, by_id: dict[str, list[Any]], offsets: set[int], reference: dict[str, Any]
) -> list[str]:
    from pipeline.types import RawPage

    if rec.record_id is None:
        # ARC: found where it starts. A header line glued to the end of a cut record may be
        # read from a few bytes earlier: "...textehttp://..." has no visible start for the URL.
        near = range(rec.offset - ARC_START_SLACK, rec.offset + 1)
        found_arc = any(at in offsets for at in near)
        return [] if found_arc else [f"lost: intact record at {rec.offset}"]
    found = by_id.get(rec.record_id)
    if not found:
        return [f"lost: intact {rec.record_type} {rec.record_id} at {rec.offset}"]
    want = reference.get(rec.record_id)
    got = [i.body if isinstance(i, RawPage) else i.reason for i in found]
    if want is not None and want not in got:
        return [f"changed: intact record {rec.record_id} at {rec.offset} read differently"]
    return []


def check_job(m: Mutant, workdir: Path) -> tuple[list[str], int]:
    """Violations of `process_warc` on ``m`` (reader counts as the reference)."""
    import pyarrow.parquet as pq

    from pipeline.jobconfig import JobConfig
    from pipeline.run import WarcTaskError, process_warc
    from pipeline.types import RawPage, Rejected
    from pipeline.warc.reader import NotAnArchive

    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    path = workdir / WARC_PATH
    path.write_bytes(m.data)
    out = workdir / "out"
    not_archive = False
    try:
        records = [i for i in _read_all(m.data) if isinstance(i, RawPage | Rejected)]
        read: int | None = len(records)
    except NotAnArchive:
        records, read, not_archive = [], 0, True
    except Exception:
        records, read = [], None  # the reader check reports it
    # How often the reader yields each (record id, offset). Offsets read inside a gunzipped
    # window (a file gzipped whole, a damaged member) count in that window's stream, and an ARC
    # record's id is derived from its offset: two different records, one at gunzipped offset N
    # and one at stored offset N, then share (id, offset). Reject rows carry no offset space, so
    # a job row repeats a record only when it comes more often than the reader yields that key
    # (the reader's places are checked per offset space by `check_reader`).
    yielded = Counter((i.record_id, i.warc_offset) for i in records)
    try:
        report = process_warc(str(path), JobConfig(output=str(out)))
    except Exception as exc:
        if read == 0 and isinstance(exc, WarcTaskError):
            # nothing readable: failing the input loudly, with no marker, is the job's answer
            if list(out.glob("_done/*.json")):
                return ["lost: a failed input has a completion marker"], 0
            if not_archive and "WARC or ARC file" not in str(exc):
                return [f"crash: no archive, but the job says {exc}"[:500]], 0
            return [], 0
        return [f"crash: process_warc raised {type(exc).__name__}: {exc}"[:500]], 0
    if not_archive:
        return ["lost: a file the reader reads as no archive was done by the job"], 0
    stats = report.stats
    bad: list[str] = []
    if not stats.balanced:
        bad.append(
            f"unbalanced: records {stats.records} != docs {stats.docs} + rejects "
            f"{stats.n_rejects} + skipped {stats.n_skipped}"
        )
    if read is not None and read != stats.records:
        bad.append(f"lost: the job counted {stats.records} records, the reader yields {read}")
    docs = [pq.read_table(f).to_pylist() for f in sorted((out / "docs").rglob("*.parquet"))]
    doc_rows = [row for table in docs for row in table]
    reject_rows = [
        row
        for f in sorted((out / "rejects").glob("*.parquet"))
        for row in pq.read_table(f).to_pylist()
    ]
    if len(doc_rows) != stats.docs or len(reject_rows) != stats.n_rejects:
        bad.append(
            f"lost: {len(doc_rows)} doc rows / {len(reject_rows)} reject rows written, "
            f"report says {stats.docs} / {stats.n_rejects}"
        )
    keys = Counter((r["record_id"], r["warc_offset"]) for r in doc_rows + reject_rows)
    bad += [f"duplicate row {k} x{n}" for k, n in keys.items() if n > max(1, yielded[k])]
    bad += [
        f"crash: page at {r['warc_offset']} rejected {r['reason']}: {r['detail'][:200]}"
        for r in reject_rows
        if r["reason"].startswith("error:")
    ]
    if not m.may_embed_headers:
        bad += [
            f"header text: in the document at {r['warc_offset']}"
            for r in doc_rows
            if holds_header_text(r["text"])
        ]
    rows = doc_rows + reject_rows
    ids = {r["record_id"] for r in rows}
    offsets = {r["warc_offset"] for r in rows}
    skips_needed: Counter[str] = Counter()
    for rec in m.intact:
        if rec.record_type not in ("response", "resource"):
            skips_needed[rec.record_type] += 1
        elif rec.record_id is not None and rec.record_id not in ids:
            bad.append(f"lost: intact {rec.record_type} {rec.record_id} has no row")
        elif rec.record_id is None and not any(
            rec.offset - ARC_START_SLACK <= at <= rec.offset for at in offsets
        ):
            bad.append(f"lost: intact record at {rec.offset} has no row")
    for rtype, n in skips_needed.items():
        if stats.skipped[rtype] < n:
            bad.append(f"lost: {n} intact {rtype} records, {stats.skipped[rtype]} skips counted")
    return bad, stats.records


def use_reader(path: str) -> None:
    """Fuzz another version of the reader (e.g. ``git show HEAD:pipeline/warc/reader.py``)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("pipeline.warc.reader", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Before pipeline.run imports it, so the job reads with it too.
    sys.modules["pipeline.warc.reader"] = module
    spec.loader.exec_module(module)


def _serve(workdir: Path) -> None:
    """Worker loop: read a request, answer it, until stdin closes. ``workdir`` is the parent's
    to remove: a worker killed at its bound cannot."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    # Anything the code under test prints must not corrupt the answers on stdout.
    sys.stdout = sys.stderr
    try:
        other = os.environ.get(READER_ENV)
        if other:
            use_reader(other)
        # Loading the cleaner and parsing a first page take seconds that must not count
        # against the first mutant's bound: done before the worker says it is ready.
        from pipeline.jobconfig import JobConfig
        from pipeline.run import warm_up

        warm_up(JobConfig(output=str(workdir / "warm")))
        stdout.write(READY)
        stdout.flush()
        while True:
            head = stdin.read(4)
            if len(head) < 4:
                return
            mode, mutant = pickle.loads(stdin.read(struct.unpack(">I", head)[0]))
            started = time.perf_counter()
            if mode == "sleep":  # the harness's own test of its time bound
                time.sleep(mutant)
                bad, records = [], 0
            elif mode == "reader":
                bad, records = check_reader(mutant)
            else:
                bad, records = check_job(mutant, workdir / "job")
            answer = {
                "violations": bad,
                "records": records,
                "seconds": time.perf_counter() - started,
            }
            blob = pickle.dumps(answer)
            stdout.write(struct.pack(">I", len(blob)) + blob)
            stdout.flush()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


# --- the parent side -----------------------------------------------------------------------------


class Worker:
    """One worker process; `run` returns None when the bound passed (the worker is then killed)."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.workdir: str | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        if self.proc is None or self.proc.poll() is not None:
            self._remove_workdir()
            self.workdir = tempfile.mkdtemp(prefix="warcclean-fuzz-")
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tests.fuzz_harness", "--worker", self.workdir],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                cwd=REPO,
            )
            if self._read(1, time.monotonic() + START_SECONDS) != READY:
                self.close()
                raise RuntimeError("the fuzz worker did not start (run it by hand to see why)")
        return self.proc

    def run(self, mode: str, mutant: Mutant | float, timeout: float) -> dict[str, Any] | None:
        proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        blob = pickle.dumps((mode, mutant))
        try:
            proc.stdin.write(struct.pack(">I", len(blob)) + blob)
            proc.stdin.flush()
        except BrokenPipeError:
            return self._died()
        deadline = time.monotonic() + timeout
        head = self._read(4, deadline)
        if head is None:
            return self._hung()
        if len(head) < 4:
            return self._died()
        body = self._read(struct.unpack(">I", head)[0], deadline)
        if body is None:
            return self._hung()
        return pickle.loads(body)

    def _read(self, n: int, deadline: float) -> bytes | None:
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        chunks, got = [], 0
        while got < n:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, n - got)
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def _hung(self) -> None:
        self.close()
        return None

    def _died(self) -> dict[str, Any]:
        assert self.proc is not None
        rc = self.proc.wait()
        self.proc = None
        self._remove_workdir()
        return {"violations": [f"crash: worker process died (exit {rc})"], "records": 0}

    def close(self) -> None:
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
            self.proc.wait()
            self.proc = None
        self._remove_workdir()

    def _remove_workdir(self) -> None:
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None


@dataclass
class Failure:
    mode: str
    label: str
    violations: list[str]
    data: bytes

    def __str__(self) -> str:
        return f"[{self.mode}] {self.label}: {'; '.join(self.violations[:4])}"


@dataclass
class Campaign:
    reader_runs: int = 0
    job_runs: int = 0
    records: int = 0
    failing_runs: int = 0  # all of them; `failures` keeps the first `keep` with their inputs
    hangs: int = 0
    seconds: float = 0.0
    failures: list[Failure] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)

    @property
    def executions(self) -> int:
        return self.reader_runs + self.job_runs


def run_campaign(
    mutants: Iterable[Mutant],
    *,
    job_every: int = 0,
    reader_timeout: float = 10.0,
    job_timeout: float = 60.0,
    stop_at: float | None = None,
    worker: Worker | None = None,
    keep: int = 2000,
) -> Campaign:
    """Each mutant through the reader; every ``job_every``-th (0: none) through the job too.

    ``stop_at`` is a `time.monotonic` deadline: the campaign ends after the mutant running then.
    """
    own = worker is None
    worker = worker or Worker()
    result = Campaign()
    started = time.monotonic()
    try:
        for n, mutant in enumerate(mutants):
            modes = ["reader"]
            if job_every and n % job_every == 0:
                modes.append("job")
            for mode in modes:
                timeout = reader_timeout if mode == "reader" else job_timeout
                answer = worker.run(mode, mutant, timeout)
                if mode == "reader":
                    result.reader_runs += 1
                else:
                    result.job_runs += 1
                if answer is None:
                    result.hangs += 1
                    answer = {"violations": [f"hang: no answer within {timeout:g} s"]}
                result.records += answer.get("records", 0)
                if answer["violations"]:
                    # runs with at least one violation of each kind
                    result.kinds.update({v.split(":", 1)[0] for v in answer["violations"]})
                    result.failing_runs += 1
                    if len(result.failures) < keep:
                        result.failures.append(
                            Failure(mode, mutant.label, answer["violations"], mutant.data)
                        )
            if stop_at is not None and time.monotonic() >= stop_at:
                break
    finally:
        result.seconds = time.monotonic() - started
        if own:
            worker.close()
    return result


if __name__ == "__main__" and sys.argv[1:2] == ["--worker"] and len(sys.argv) == 3:
    _serve(Path(sys.argv[2]))
