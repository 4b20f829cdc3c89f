"""`process_warc_supervised`: the hard time bound on each page and each input.

Every test runs real child processes. Faults that a real page cannot be relied on to produce
(a SIGKILL from the OOM killer, a read that hangs) are injected by `tests.supervise_faults`,
which wraps the production child; the slow page is a real one.
"""

from __future__ import annotations

import gc
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
import weakref
from pathlib import Path

import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from pipeline import compiled, supervise
from pipeline.cleaners.registry import available
from pipeline.config import Limits
from pipeline.errors import UnreadableInput
from pipeline.jobconfig import JobConfig
from pipeline.output.sink import OutputPaths, _temp_name
from pipeline.run import WarcTaskError, process_warc
from pipeline.supervise import process_warc_supervised
from pipeline.warc.inputs import input_stem
from tests.warc_builders import build_warc, html_response

pytestmark = pytest.mark.skipif(os.name != "posix", reason="supervision needs POSIX pipes")

FAULT_CHILD = (sys.executable, "-m", "tests.supervise_faults")
TOWNS = ["Arles", "Bruges", "Cordoba", "Delft", "Evora"]


def article(town: str) -> str:
    sentence = (
        f"The river runs through the old town of {town}, and the people who live along its "
        "banks have always said that it is the reason the town exists at all. They tell the "
        "story to anyone who will listen, and most visitors have heard it by the time they leave."
    )
    body = f"<p>{sentence}</p>" * 3
    return f"<html><head><title>{town}</title></head><body>{body}</body></html>"


def url(town: str) -> str:
    return f"https://{town.lower()}.example/"


def write_warc(tmp_path: Path, bad: bytes | None = None) -> Path:
    """Five articles; with ``bad``, that page sits in the middle as https://bad.example/."""
    records = [html_response(url(t), article(t)) for t in TOWNS]
    if bad is not None:
        records.insert(2, html_response("https://bad.example/", bad))
    path = tmp_path / "in.warc.gz"
    path.write_bytes(build_warc(records))
    return path


def outcomes(out: Path) -> dict[str, list[str]]:
    """Each URL in the output, with every row it got: "doc" or "reject:<reason>"."""
    rows: dict[str, list[str]] = {}
    docs_dir = out / "docs"
    if docs_dir.exists():
        docs = ds.dataset(docs_dir, format="parquet", partitioning="hive").to_table()
        for u in docs.column("url").to_pylist():
            rows.setdefault(u, []).append("doc")
    for row in rejects(out):
        rows.setdefault(row["url"], []).append(f"reject:{row['reason']}")
    return rows


def rejects(out: Path) -> list[dict]:
    (path,) = (out / "rejects").glob("*.parquet")
    return pq.read_table(path).to_pylist()


# How late past its cap a page's kill may come: the parent wakes at the cap itself, and a
# loaded machine may wake it a little late (the grace, were it still paid, is a second).
KILL_BOUND = 0.4


def killed_after(detail: str) -> float:
    """The seconds into its page at which a rejection's detail says the child was killed."""
    found = re.search(r"killed after ([\d.]+) s on one page", detail)
    assert found, detail
    return float(found.group(1))


def pages_cleaned(log: Path) -> list[str]:
    """The URLs the fault child's ``log_pages`` wrote, in order, without the warm-up page's."""
    return [u for u in log.read_text().split() if u != "None"]


def hidden_files(out: Path) -> list[str]:
    return sorted(str(p.relative_to(out)) for p in out.rglob(".*"))


@pytest.fixture
def faults(monkeypatch: pytest.MonkeyPatch):
    def set_faults(**spec: object) -> None:
        monkeypatch.setenv("WARCCLEAN_TEST_FAULTS", json.dumps(spec))

    yield set_faults
    # Children read their faults at start: none of these may serve a later test.
    supervise.shutdown()


def test_same_rows_and_report_as_in_process(tmp_path: Path) -> None:
    warc = write_warc(tmp_path)
    started = time.perf_counter()
    mine = process_warc_supervised(str(warc), JobConfig(output=str(tmp_path / "sup")))
    assert (
        0 < mine.seconds <= time.perf_counter() - started
    )  # the input's time, as the parent saw it
    ref = process_warc(str(warc), JobConfig(output=str(tmp_path / "ref")))
    assert mine.stats == ref.stats
    assert outcomes(tmp_path / "sup") == outcomes(tmp_path / "ref")
    assert outcomes(tmp_path / "sup") == {url(t): ["doc"] for t in TOWNS}
    assert (tmp_path / "sup" / "_done" / f"{input_stem(str(warc))}.json").exists()


@pytest.mark.parametrize("formats", ["text", "markdown", "both"])
def test_the_child_writes_what_formats_asks_for(tmp_path: Path, formats: str) -> None:
    from tests.test_run import structured_warc

    assert supervise.cfg_from_json(supervise.cfg_to_json(JobConfig("o", formats=formats))) == (
        JobConfig("o", formats=formats)
    )
    warc = structured_warc(tmp_path)
    cfg = JobConfig(output=str(tmp_path / "sup"), formats=formats)
    mine = process_warc_supervised(str(warc), cfg)
    ref = process_warc(str(warc), JobConfig(output=str(tmp_path / "ref")))
    assert mine.stats == ref.stats
    table = ds.dataset(tmp_path / "sup" / "docs", format="parquet", partitioning="hive").to_table()
    rows = {r["url"]: r for r in table.to_pylist()}
    gauge = rows["https://s.example/gauge"]
    assert gauge["structure"] == ["code", "table"]
    assert (gauge["markdown"] is None) == (formats == "text")
    assert (gauge["text"] == "") == (formats == "markdown")
    if formats != "text":
        assert "| Monday | 1.2 |" in re.sub(r" +", " ", gauge["markdown"])


def test_a_child_serves_the_next_input(tmp_path: Path) -> None:
    warc = write_warc(tmp_path)
    supervise.shutdown()
    process_warc_supervised(str(warc), JobConfig(output=str(tmp_path / "a")))
    (child,) = supervise._IDLE
    started = time.perf_counter()
    process_warc_supervised(str(warc), JobConfig(output=str(tmp_path / "b")))
    # The same process, already warm: no start-up (about a second) on the second input, and
    # no second child beside it.
    assert [child] == supervise._IDLE and child.alive()
    assert time.perf_counter() - started < 1.0


def _child_of(argv: tuple[str, ...]) -> supervise._Child:
    (child,) = [c for c in supervise._IDLE if c.argv == argv]
    return child


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc/PID/environ")
def test_the_child_does_not_inherit_dasks_malloc_trim_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What a Dask nanny puts in its worker's environment; the child must run without it.
    supervise.shutdown()
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    monkeypatch.setenv("WARCCLEAN_TEST_PASSED_ON", "yes")
    warc = write_warc(tmp_path)
    report = process_warc_supervised(str(warc), JobConfig(output=str(tmp_path / "out")))
    assert report.stats.docs == len(TOWNS)
    child = _child_of(tuple(supervise._child_argv()))
    raw = Path(f"/proc/{child.proc.pid}/environ").read_bytes()
    env = dict(item.split(b"=", 1) for item in raw.split(b"\0") if b"=" in item)
    assert b"MALLOC_TRIM_THRESHOLD_" not in env
    assert env[b"WARCCLEAN_TEST_PASSED_ON"] == b"yes"
    assert compiled.child_env({"MALLOC_TRIM_THRESHOLD_": "1", "A": "b"})["A"] == "b"
    supervise.shutdown()


def test_a_warmed_child_freezes_its_heap_and_still_frees_a_pages_cycles(tmp_path: Path) -> None:
    # The warm request, handled here in-process as the child handles it.
    from pipeline.supervise.__main__ import GEN0_THRESHOLD, handle

    before = gc.get_threshold()
    status = supervise.Status.create()
    cfg = supervise.cfg_to_json(JobConfig(output=str(tmp_path / "out")))
    try:
        assert handle({"op": "warm", "cfg": cfg}, status) == {"ok": True}
        assert gc.get_threshold() == (GEN0_THRESHOLD, *before[1:])
        assert gc.get_freeze_count() > 0  # the model and the modules, out of the collector's way

        class Node:
            pass

        node = Node()
        node.itself = node  # a cycle: reference counting alone never frees it
        freed = weakref.ref(node)
        del node
        held = [[] for _ in range(2 * GEN0_THRESHOLD)]  # a page's worth of young containers
        assert freed() is None and len(held) == 2 * GEN0_THRESHOLD
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
        status.close()


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/PID/maps")
def test_the_child_writes_parquet_without_loading_pandas(tmp_path: Path) -> None:
    pytest.importorskip("pandas")  # without pandas installed there is nothing to avoid
    warc = write_warc(tmp_path)
    process_warc_supervised(str(warc), JobConfig(output=str(tmp_path / "out")))
    child = _child_of(tuple(supervise._child_argv()))
    # Documents and their Arrow arrays were written; pandas' compiled modules never mapped.
    docs = ds.dataset(tmp_path / "out" / "docs", format="parquet", partitioning="hive")
    assert docs.count_rows() == len(TOWNS)
    maps = Path(f"/proc/{child.proc.pid}/maps").read_text()
    assert "pyarrow" in maps and "/pandas/" not in maps


@pytest.mark.timeout(120)
def test_a_page_whose_parse_hangs_is_a_timeout_and_its_neighbours_are_written_once(
    tmp_path: Path,
) -> None:
    # 100,000 nested <div> take the parser about 40 s, in one call that nothing in-process can
    # interrupt: the supervisor kills the child at the cap and re-runs the input without it.
    deep = ("<html><body>" + "<div>" * 100_000 + "text" + "</div>" * 100_000).encode()
    warc = write_warc(tmp_path, bad=deep)
    cfg = JobConfig(output=str(tmp_path / "out"), limits=Limits(max_seconds=1.0))
    started = time.perf_counter()
    report = process_warc_supervised(str(warc), cfg)
    assert time.perf_counter() - started < 30
    rows = outcomes(tmp_path / "out")
    assert rows == {**{url(t): ["doc"] for t in TOWNS}, "https://bad.example/": ["reject:timeout"]}
    (row,) = rejects(tmp_path / "out")
    # Where it was when killed: in the parse, the one stage with no deadline checks.
    assert "1 s budget during parse" in row["detail"] and "killed" in row["detail"]
    # ... and when: at the cap, no grace and no tick late (the parse cannot end itself early).
    assert 1.0 <= killed_after(row["detail"]) < 1.0 + KILL_BOUND
    assert report.stats.rejects == {"timeout": 1} and report.stats.docs == 5
    assert report.stats.balanced
    assert hidden_files(tmp_path / "out") == []


@pytest.mark.timeout(120)
def test_a_hang_on_the_files_first_record_is_a_timeout_not_a_failed_input(
    tmp_path: Path, faults
) -> None:
    # The first record starts at offset 0: the status map must not read that as "no offset",
    # which fails the whole input as a death outside any page.
    faults(hang=["https://bad.example/"])
    records = [html_response("https://bad.example/", article("Bad"))]
    records += [html_response(url(t), article(t)) for t in TOWNS]
    warc = tmp_path / "in.warc.gz"
    warc.write_bytes(build_warc(records))
    cfg = JobConfig(output=str(tmp_path / "out"), limits=Limits(max_seconds=0.5))
    report = process_warc_supervised(str(warc), cfg, child_argv=FAULT_CHILD)
    assert outcomes(tmp_path / "out") == {
        **{url(t): ["doc"] for t in TOWNS},
        "https://bad.example/": ["reject:timeout"],
    }
    assert report.stats.balanced and rejects(tmp_path / "out")[0]["warc_offset"] == 0


@pytest.mark.timeout(120)
def test_a_hang_in_any_stage_is_a_timeout(tmp_path: Path, faults) -> None:
    faults(hang=["https://bad.example/"])
    warc = write_warc(tmp_path, bad=article("Bad").encode())
    cfg = JobConfig(output=str(tmp_path / "out"), limits=Limits(max_seconds=0.5))
    report = process_warc_supervised(str(warc), cfg, child_argv=FAULT_CHILD)
    assert outcomes(tmp_path / "out") == {
        **{url(t): ["doc"] for t in TOWNS},
        "https://bad.example/": ["reject:timeout"],
    }
    assert report.stats.balanced
    (row,) = rejects(tmp_path / "out")
    assert 0.5 <= killed_after(row["detail"]) < 0.5 + KILL_BOUND


@pytest.mark.timeout(120)
def test_no_child_leaves_a_file_in_the_temporary_directory(
    tmp_path: Path, faults, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each child maps a small status file; a worker kills children for days, and a worker can
    # itself be killed outright (an out-of-memory kill), which no clean-up code outlives: the
    # files have no name at all, and the spool goes with the input. 86 status files and 12
    # spool directories (one of 41 MB) had piled up in this machine's /tmp from killed test
    # workers before.
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    supervise.shutdown()  # the idle children of earlier tests have their files elsewhere
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    faults(hang=["https://bad.example/"])
    warc = write_warc(tmp_path, bad=article("Bad").encode())
    cfg = JobConfig(output=str(tmp_path / "out"), limits=Limits(max_seconds=0.5))
    report = process_warc_supervised(str(warc), cfg, child_argv=FAULT_CHILD)
    # The parent read the child's progress through the map: the hung page was named.
    assert report.stats.rejects == {"timeout": 1}
    assert supervise._IDLE  # a child is alive, idle, its status mapped
    assert list(tmp.iterdir()) == []
    supervise.shutdown()
    assert list(tmp.iterdir()) == []


def test_spools_of_this_hosts_dead_processes_are_removed(tmp_path: Path) -> None:
    # A worker killed outright leaves its input's spool (rows not yet written); the next input
    # any worker of the host runs removes it once its process is gone, and nothing else.
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    host = supervise._host_tag()
    left = {
        "dead": f"warcclean-spool-{host}-{dead.pid}-abc_123",
        "alive": f"warcclean-spool-{host}-{os.getpid()}-def456",
        "other host": f"warcclean-spool-otherhost-{dead.pid}-ghi789",
        "old name": "warcclean-spool-jkl012",
        "not a spool": f"warcclean-status-{host}-{dead.pid}-x",
    }
    for name in left.values():
        (tmp_path / name).mkdir()
        (tmp_path / name / "docs-en.0.arrows").write_bytes(b"x" * 100)
    supervise._remove_orphaned_spools(str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        name for what, name in left.items() if what != "dead"
    )


def test_a_killed_workers_spool_is_removed_by_the_next_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    # A process that makes its spool, as a worker does for an input, then is killed.
    code = (
        "import os, signal, sys, tempfile; tempfile.tempdir = sys.argv[1]; "
        "from pipeline import supervise; d = supervise._make_spool_dir(); "
        "open(os.path.join(d, 'docs-en.0.arrows'), 'wb').write(b'rows'); "
        "print(d, flush=True); os.kill(os.getpid(), signal.SIGKILL)"
    )
    killed = subprocess.run(
        [sys.executable, "-c", code, str(tmp)], capture_output=True, text=True, check=False
    )
    assert killed.returncode == -9
    (orphan,) = tmp.iterdir()
    assert orphan.name.startswith("warcclean-spool-") and str(orphan) == killed.stdout.strip()
    warc = write_warc(tmp_path)
    report = process_warc_supervised(str(warc), JobConfig(output=str(tmp_path / "out")))
    assert report.stats.balanced
    assert list(tmp.iterdir()) == []


def test_the_temporary_files_a_killed_child_left_for_its_input_are_removed(
    tmp_path: Path,
) -> None:
    # A child killed while it writes leaves hidden files that readers skip but that would pile
    # up with every kill: the input's own go, another input's (in flight elsewhere) stay.
    out = tmp_path / "out"
    mine, other = OutputPaths(str(out), input_stem("a.warc.gz")), OutputPaths(str(out), "b")
    left = [_temp_name(p) for p in (mine.docs("en"), mine.docs("und"), mine.rejects)]
    left += [_temp_name(mine.marker), _temp_name(mine.limited_marker)]
    kept = [
        _temp_name(other.docs("en")),
        _temp_name(other.marker),
        other.docs("en"),
        mine.docs("en"),
    ]
    kept += [mine.marker]
    for path in left + kept:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_bytes(b"x")
    supervise._remove_temps(JobConfig(output=str(out)), "a.warc.gz")
    assert sorted(str(p) for p in out.rglob("*") if p.is_file()) == sorted(kept)


def test_only_the_walk_gets_a_grace_past_the_cap() -> None:
    # The walk checks the page's own deadline every few thousand nodes and rejects the page
    # without a kill; every other step is killed at the cap itself.
    assert supervise.kill_after(5.0, "segmentation") == 5.0 + supervise.KILL_GRACE
    for step in ("", "decode", "guards", "parse", "language", "labelling"):
        assert supervise.kill_after(5.0, step) == 5.0


@pytest.mark.timeout(120)
def test_a_child_killed_from_outside_twice_rejects_the_page_not_the_task(
    tmp_path: Path, faults
) -> None:
    # SIGKILL from outside (the kernel's OOM killer choosing the child for a neighbour's memory,
    # an operator): the page gets a second, fresh child, and only then is it rejected. The
    # detail says what was seen, not a guessed cause (it blamed the address-space cap).
    log = tmp_path / "pages.log"
    faults(die=["https://bad.example/"], log_pages=str(log))
    warc = write_warc(tmp_path, bad=article("Bad").encode())
    report = process_warc_supervised(
        str(warc), JobConfig(output=str(tmp_path / "out")), child_argv=FAULT_CHILD
    )
    rows = outcomes(tmp_path / "out")
    assert rows == {**{url(t): ["doc"] for t in TOWNS}, "https://bad.example/": ["reject:crashed"]}
    detail = rejects(tmp_path / "out")[0]["detail"]
    assert re.fullmatch(
        r"the cleaning process died of SIGKILL while cleaning this page(?: during \w+)?, in two "
        r"fresh processes; the first time it died of SIGKILL; warcclean's time and memory watch "
        r"did not kill it; its resident memory was last seen at [1-9]\d{0,2}(?:,\d{3})? MiB",
        detail,
    ), detail
    assert log.read_text().split().count("https://bad.example/") == 2
    assert report.stats.docs == 5 and report.stats.balanced


@pytest.mark.timeout(120)
def test_a_page_whose_child_was_killed_once_from_outside_is_cleaned_in_a_fresh_one(
    tmp_path: Path, faults
) -> None:
    (tmp_path / "markers").mkdir()
    faults(die_once=["https://bad.example/"], marker_dir=str(tmp_path / "markers"))
    warc = write_warc(tmp_path, bad=article("Bad").encode())
    report = process_warc_supervised(
        str(warc), JobConfig(output=str(tmp_path / "out")), child_argv=FAULT_CHILD
    )
    assert outcomes(tmp_path / "out") == {
        **{url(t): ["doc"] for t in [*TOWNS, "Bad"]},
    } | {"https://bad.example/": ["doc"]}
    assert report.stats.docs == 6 and report.stats.balanced


@pytest.mark.timeout(120)
def test_a_page_over_the_memory_budget_is_rejected_and_the_input_goes_on(
    tmp_path: Path, faults
) -> None:
    # Dask's memory limit sees only the worker's process: the child is held to the worker's
    # limit per thread by its supervisor, which watches its resident memory.
    faults(grow=["https://bad.example/"])
    warc = write_warc(tmp_path, bad=article("Bad").encode())
    budget = supervise.set_memory_budget(600 * 2**20, 1)
    try:
        report = process_warc_supervised(
            str(warc), JobConfig(output=str(tmp_path / "out")), child_argv=FAULT_CHILD
        )
    finally:
        supervise.set_memory_budget(None, 1)
    assert budget == 600 * 2**20
    rows = outcomes(tmp_path / "out")
    assert rows == {
        **{url(t): ["doc"] for t in TOWNS},
        "https://bad.example/": ["reject:too_complex"],
    }
    detail = rejects(tmp_path / "out")[0]["detail"]
    assert "memory budget" in detail and "MiB resident, over its budget of 600 MiB" in detail
    resident = re.search(r"killed at ([\d,]+) MiB resident", detail)
    assert resident and 600 < int(resident.group(1).replace(",", "")) < 16384, detail
    assert report.stats.balanced
    assert supervise.set_memory_budget(2**30, 8) == supervise.MIN_MEMORY_BUDGET
    supervise.set_memory_budget(None, 1)


@pytest.mark.timeout(120)
def test_memory_over_the_child_cap_is_a_rejection(tmp_path: Path, faults) -> None:
    # The child's address space is capped (Limits.isolate_memory_bytes): a page that asks for
    # 64 GiB gets a MemoryError there, one rejection, instead of the host's memory.
    faults(allocate=["https://bad.example/"])
    warc = write_warc(tmp_path, bad=article("Bad").encode())
    cfg = JobConfig(output=str(tmp_path / "out"), limits=Limits(isolate_memory_bytes=2 * 2**30))
    process_warc_supervised(str(warc), cfg, child_argv=FAULT_CHILD)
    rows = outcomes(tmp_path / "out")
    assert rows == {
        **{url(t): ["doc"] for t in TOWNS},
        "https://bad.example/": ["reject:error:MemoryError"],
    }


@pytest.mark.timeout(120)
def test_a_reader_stall_fails_the_input_clearly_and_commits_nothing(tmp_path: Path, faults) -> None:
    faults(stall_after=3)
    warc = write_warc(tmp_path)
    out = tmp_path / "out"
    cfg = JobConfig(output=str(out), limits=Limits(max_stall_seconds=1.0))
    with pytest.raises(WarcTaskError) as info:
        process_warc_supervised(str(warc), cfg, child_argv=FAULT_CHILD)
    message = str(info.value)
    assert str(warc) in message and "without progress" in message and "reading" in message
    assert "nothing of this input was committed" in message
    # The offset of the last record read: the third, where a re-run would pick up the stall.
    assert "after the record at offset" in message
    # Not done, no visible rows, no temporary files left: a re-run starts clean.
    assert not (out / "_done").exists() or not list((out / "_done").iterdir())
    assert not list(out.rglob("*.parquet"))
    assert hidden_files(out) == []


def _many_pages_warc(tmp_path: Path, n: int, slow: set[int]) -> tuple[Path, list[str]]:
    urls = [
        f"https://p{i}.example/" if i not in slow else f"https://slow{i}.example/" for i in range(n)
    ]
    records = [html_response(u, article(f"Town{i}")) for i, u in enumerate(urls)]
    path = tmp_path / "many.warc.gz"
    path.write_bytes(build_warc(records))
    return path, urls


@pytest.mark.timeout(180)
def test_kills_cost_their_pages_never_the_input(tmp_path: Path, faults) -> None:
    # Issue 48: 6 pages that each hit the time cap failed a whole input (MAX_KILLS = 5), and
    # each kill re-ran the input from its first record. Now each costs its page, and with a
    # checkpoint before every page no other page is cleaned twice.
    slow = {2, 5, 9, 10, 14, 17}
    log = tmp_path / "pages.log"
    warc, urls = _many_pages_warc(tmp_path, 20, slow)
    faults(hang=[urls[i] for i in sorted(slow)], log_pages=str(log), checkpoint_seconds=0.0)
    cfg = JobConfig(output=str(tmp_path / "out"), limits=Limits(max_seconds=0.5))
    report = process_warc_supervised(str(warc), cfg, child_argv=FAULT_CHILD)
    rows = outcomes(tmp_path / "out")
    assert rows == {u: ["reject:timeout"] if i in slow else ["doc"] for i, u in enumerate(urls)}
    assert report.stats.docs == 14 and report.stats.rejects == {"timeout": 6}
    assert report.stats.records == 20 and report.stats.balanced
    cleaned = pages_cleaned(log)
    assert sorted(cleaned) == sorted(urls)  # every page cleaned exactly once
    assert hidden_files(tmp_path / "out") == []


@pytest.mark.timeout(180)
def test_a_kill_cleans_again_only_the_pages_since_the_last_checkpoint(
    tmp_path: Path, faults
) -> None:
    # With the default checkpoint (twice a second) the pages cleaned since the last one are
    # cleaned again, and nothing before it: here the whole input is under a second, so the
    # pages before the killed one are its only cost.
    log = tmp_path / "pages.log"
    warc, urls = _many_pages_warc(tmp_path, 8, {6})
    faults(die=[urls[6]], log_pages=str(log), checkpoint_seconds=3600.0)
    report = process_warc_supervised(
        str(warc), JobConfig(output=str(tmp_path / "out")), child_argv=FAULT_CHILD
    )
    assert report.stats.docs == 7 and report.stats.rejects == {"crashed": 1}
    cleaned = pages_cleaned(log)
    # (no checkpoint at all: the pages before the dying one, three attempts of them)
    assert cleaned.count(urls[0]) == 3 and cleaned.count(urls[7]) == 1


@pytest.mark.timeout(180)
def test_a_page_past_half_its_cap_is_checkpointed_at_so_its_kill_cleans_nothing_twice(
    tmp_path: Path, faults
) -> None:
    # No periodic checkpoint at all: the only one is the child's, asked for by the parent when
    # the hanging page passes half its cap. Without it the pages before it are cleaned again.
    log = tmp_path / "pages.log"
    warc, urls = _many_pages_warc(tmp_path, 8, {6})
    faults(hang=[urls[6]], log_pages=str(log), checkpoint_seconds=3600.0)
    cfg = JobConfig(output=str(tmp_path / "out"), limits=Limits(max_seconds=2.0))
    report = process_warc_supervised(str(warc), cfg, child_argv=FAULT_CHILD)
    assert report.stats.docs == 7 and report.stats.rejects == {"timeout": 1}
    assert report.stats.records == 8 and report.stats.balanced
    cleaned = pages_cleaned(log)
    assert sorted(cleaned) == sorted(urls)  # every page cleaned exactly once
    assert outcomes(tmp_path / "out") == {
        u: ["reject:timeout"] if i == 6 else ["doc"] for i, u in enumerate(urls)
    }


@pytest.mark.timeout(120)
def test_a_child_idle_past_the_stall_bound_is_not_taken_for_stalled(tmp_path: Path, faults) -> None:
    # The status map still holds the end of the child's last request; its clock reading is
    # older than the stall bound after an idle spell, and must not count against the next
    # request before the child has reported anything for it.
    supervise.shutdown()
    faults(slow_start=0.6)
    limits = Limits(max_stall_seconds=1.0)
    first = write_warc(tmp_path)
    process_warc_supervised(str(first), JobConfig(output=str(tmp_path / "a"), limits=limits),
                            child_argv=FAULT_CHILD)  # fmt: skip
    time.sleep(1.5)
    (tmp_path / "second").mkdir()
    second = write_warc(tmp_path / "second")
    report = process_warc_supervised(
        str(second), JobConfig(output=str(tmp_path / "b"), limits=limits), child_argv=FAULT_CHILD
    )
    assert report.stats.docs == len(TOWNS)


def test_a_warm_up_that_fails_is_logged_and_the_run_reports_the_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    warc = str(write_warc(tmp_path))
    supervise.shutdown()  # a fresh child warms up (an idle one may be warm already)
    with caplog.at_level("WARNING", logger="pipeline.supervise"):
        process_warc_supervised(warc, JobConfig(output=str(tmp_path / "ok")))
        assert not caplog.records  # a warm-up that works says nothing
        with pytest.raises(WarcTaskError, match="unknown cleaner 'no-such-cleaner'") as info:
            process_warc_supervised(
                warc, JobConfig(output=str(tmp_path / "bad"), cleaner="no-such-cleaner")
            )
    (record,) = caplog.records
    assert "warm-up failed: unknown cleaner 'no-such-cleaner'" in record.getMessage()
    # The child's own traceback is the cause (the job shows it with --verbose).
    cause = str(info.value.__cause__)
    assert cause.startswith("in the cleaning process:\nTraceback (most recent call last):")
    assert cause.endswith(
        "ValueError: unknown cleaner 'no-such-cleaner'; available: "
        + ", ".join(sorted(available()))
    )


def test_a_failing_input_reports_its_cause(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.warc.gz")
    with pytest.raises(WarcTaskError, match=r"nope\.warc\.gz") as info:
        process_warc_supervised(missing, JobConfig(output=str(tmp_path)))
    # Its type crosses the process boundary, so the job does not retry what every attempt
    # repeats, and its reason is the in-process one: the cause alone, not wrapped again.
    with pytest.raises(UnreadableInput) as in_process:
        process_warc(missing, JobConfig(output=str(tmp_path)))
    assert type(info.value) is UnreadableInput
    assert (str(info.value), info.value.reason) == (str(in_process.value), in_process.value.reason)
    # The child survives an input that fails in an ordinary way, and serves the next one.
    assert any(c.alive() for c in supervise._IDLE)


def test_a_worker_holds_its_children_to_its_memory_limit(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from pipeline.job.workers import WarmUp

    supervise.shutdown()
    worker = SimpleNamespace(
        address="tcp://127.0.0.1:1", nthreads=2, memory_manager=SimpleNamespace(memory_limit=2**31)
    )
    try:
        WarmUp(JobConfig(output=str(tmp_path))).setup(worker)
        assert supervise.memory_budget() == 2**30  # the worker's limit, per thread
        worker.memory_manager.memory_limit = None  # --memory-limit none
        WarmUp(JobConfig(output=str(tmp_path))).setup(worker)
        assert supervise.memory_budget() is None
    finally:
        supervise.set_memory_budget(None, 1)
        supervise.shutdown()


def test_a_worker_starts_its_children_warm(tmp_path: Path) -> None:
    from pipeline.job.workers import WarmUp

    supervise.shutdown()
    worker = type("FakeWorker", (), {"address": "tcp://127.0.0.1:1", "nthreads": 2})()
    WarmUp(JobConfig(output=str(tmp_path))).setup(worker)
    children = list(supervise._IDLE)
    assert len(children) == 2 and all(c.alive() and c.warmed for c in children)
    # Set up again (a second job on the cluster): the pool is topped up, not doubled.
    WarmUp(JobConfig(output=str(tmp_path))).setup(worker)
    assert children == list(supervise._IDLE)
    # One of them gone (a task holds it, or it died): set up again, the pool is full again.
    supervise._IDLE.remove(children[0])
    children[0].kill()
    WarmUp(JobConfig(output=str(tmp_path))).setup(worker)
    assert len(supervise._IDLE) == 2 and supervise._IDLE[0] is children[1]
    children = list(supervise._IDLE)
    supervise.shutdown()
    assert not any(c.alive() for c in children)


@pytest.mark.timeout(240)
def test_in_the_job_a_hanging_page_leaves_its_worker_and_the_next_input_alone(
    tmp_path: Path,
) -> None:
    from distributed import Client, LocalCluster

    from pipeline.job import schedule

    deep = ("<html><body>" + "<div>" * 100_000 + "text" + "</div>" * 100_000).encode()
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    bad, good = write_warc(tmp_path / "a", bad=deep), write_warc(tmp_path / "b")
    # No per-page sandbox: only the supervisor can stop the parse (about 40 s) at the cap.
    limits = Limits(max_seconds=1.0, isolate_depth=None)
    cfg = JobConfig(output=str(tmp_path / "out"), limits=limits)
    # One worker process, one thread: both inputs go through the same worker, one after the
    # other, as the clean WARC queued behind the bad one did in issue 33.
    with (
        LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        pids = client.run(os.getpid)
        started = time.perf_counter()
        result = schedule.run_job(client, [str(bad), str(good)], cfg, retries=0)
        assert time.perf_counter() - started < 30
        assert client.run(os.getpid) == pids  # the same worker process, never restarted
    assert not result.failed, result.failed
    by_input = {r.warc_path: r.stats for r in result.reports}
    assert by_input[str(bad)].rejects == {"timeout": 1} and by_input[str(bad)].docs == 5
    assert by_input[str(good)].rejects == {} and by_input[str(good)].docs == 5


@pytest.mark.timeout(120)
def test_a_spare_child_starts_while_a_page_runs_long_and_takes_over(
    tmp_path: Path, faults, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A kill would otherwise wait for a fresh child's start (a second or two) on top of the
    # page's cap: the spare is started when the page passes half its cap, so that the child
    # that goes on is the spare, and no child is started after the kill.
    started: list[supervise._Child] = []
    real = supervise._Child

    class Counted(real):  # type: ignore[misc,valid-type]
        def __init__(self, argv: tuple[str, ...]) -> None:
            super().__init__(argv)
            self.started_at, self.killed_at = time.monotonic(), math.inf
            started.append(self)

        def kill(self, *, wait: bool = True) -> None:
            self.killed_at = min(self.killed_at, time.monotonic())
            super().kill(wait=wait)

    supervise.shutdown()
    monkeypatch.setattr(supervise, "_Child", Counted)
    faults(hang=["https://bad.example/"])
    warc = write_warc(tmp_path, bad=article("Bad").encode())
    cap = 4.0
    cfg = JobConfig(output=str(tmp_path / "out"), limits=Limits(max_seconds=cap))
    report = process_warc_supervised(str(warc), cfg, child_argv=FAULT_CHILD)
    assert report.stats.docs == 5 and report.stats.rejects == {"timeout": 1}
    assert len(started) == 2  # the first child, and the spare that took over
    assert started[1].started_at < started[0].killed_at < math.inf  # started before the kill
    # ... and not before half the cap: most slow pages end by themselves, with no spare.
    page_began = started[0].killed_at - killed_after(rejects(tmp_path / "out")[0]["detail"])
    assert started[1].started_at - page_began >= supervise.SPARE_AFTER * cap - 0.05
    assert started[1].alive() and started[1].warmed
    assert list(supervise._IDLE) == [started[1]]
