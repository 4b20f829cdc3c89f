"""The Dask job: in-process and LocalCluster give the same rows; resume; failures; the CLIs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import dask
import pyarrow.dataset as ds
import pytest
from click.testing import CliRunner, Result
from distributed import Client, LocalCluster

from pipeline.job import command, reports, schedule
from pipeline.jobconfig import JobConfig
from pipeline.warc.inputs import input_stem
from tests.jobhelpers import JOB_SCRIPT, REPO, make_inputs, rows, stale_lock

DASK = str(Path(sys.executable).with_name("dask"))


def run(client: Client, inputs: list[str], out: Path, **kw):
    return schedule.run_job(client, inputs, JobConfig(output=str(out), **kw))


def test_inproc_and_local_cluster_write_identical_rows(tmp_path: Path, client) -> None:
    inputs = make_inputs(tmp_path / "in")
    first = run(client, inputs, tmp_path / "a")
    assert not first.failed and len(first.reports) == 4
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        second = run(client, inputs, tmp_path / "b", batch_rows=2)
    assert not second.failed
    assert rows(tmp_path / "a") == rows(tmp_path / "b")
    assert first.totals.to_dict() == second.totals.to_dict()


def test_every_record_accounted_for(tmp_path: Path, client) -> None:
    inputs = make_inputs(tmp_path / "in")
    result = run(client, inputs, tmp_path / "out")
    totals = result.totals
    # per input i: warcinfo + (i + 2) request/response pairs + one 404
    assert totals.records == sum(1 + 2 * (i + 2) + 1 for i in range(4))
    assert totals.records == totals.docs + totals.n_rejects + totals.n_skipped
    assert totals.docs == len(rows(tmp_path / "out")) == sum(i + 2 for i in range(4))


def test_resume_reprocesses_only_unfinished_inputs(tmp_path: Path, client) -> None:
    inputs = make_inputs(tmp_path / "in")
    out = tmp_path / "out"
    run(client, inputs, out)
    before = rows(out)
    # Simulate a crash of crawl-02: no marker, its files gone, a half-written temp file left.
    stem = input_stem(inputs[2])
    (out / "_done" / f"{stem}.json").unlink()
    for f in out.rglob(f"{stem}.parquet"):
        f.unlink()
    en = out / "docs" / "language=en"
    (en / f".{stem}.parquet.0123456789ab.tmp").write_bytes(b"PAR1 partial")
    assert rows(out) != before  # readers see a consistent dataset without crawl-02
    again = run(client, inputs, out)
    assert [r.stem for r in again.reports] == [stem]
    assert len(again.skipped) == 3
    assert rows(out) == before  # same rows, each once
    assert not list(out.rglob(".*.tmp"))
    third = run(client, inputs, out)
    assert third.reports == [] and len(third.skipped) == 4


def test_a_failing_input_does_not_stop_the_others(tmp_path: Path, client) -> None:
    inputs = make_inputs(tmp_path / "in", n=3)
    out = tmp_path / "out"
    # an output I/O error for one input: its rejects file cannot replace a directory
    (out / "rejects" / f"{input_stem(inputs[1])}.parquet").mkdir(parents=True)
    missing = str(tmp_path / "in" / "gone.warc.gz")
    result = schedule.run_job(client, [*inputs, missing], JobConfig(output=str(out)), retries=0)
    assert sorted(result.failed) == sorted([inputs[1], missing])
    assert result.failed[missing].startswith("UnreadableInput: cannot open it: FileNotFoundError")
    assert "gone.warc.gz" in result.failed[missing]
    assert result.failed[inputs[1]].startswith("IsADirectoryError")
    done = sorted(input_stem(p) for p in (inputs[0], inputs[2]))
    assert sorted(r.stem for r in result.reports) == done
    assert sorted(p.stem for p in (out / "_done").iterdir()) == done
    report = reports.run_report(result, JobConfig(output=str(out)), "2024-01-01T00:00:00Z")
    assert report["inputs"] == {"processed": 2, "failed": 2, "skipped_done": 0}
    assert {f["input"] for f in report["failed"]} == {inputs[1], missing}


class _CancelsFirst:
    """The client, except that the first task submitted is cancelled at once, as the cluster
    can leave a task whose worker was killed at the wrong moment."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self.cancelled: list[str] = []

    def submit(self, *args, **kwargs):
        future = self._client.submit(*args, **kwargs)
        if not self.cancelled:
            future.cancel()
            self.cancelled.append(future.key)
        return future

    def __getattr__(self, name: str):
        return getattr(self._client, name)


def test_a_task_the_cluster_cancels_is_submitted_again(tmp_path: Path, client) -> None:
    inputs = make_inputs(tmp_path / "in", n=3)
    client = _CancelsFirst(client)
    result = schedule.run_job(client, inputs, JobConfig(output=str(tmp_path / "out")))
    assert len(client.cancelled) == 1
    assert not result.failed and len(result.reports) == 3
    reference = run(client, inputs, tmp_path / "ref")
    assert rows(tmp_path / "out") == rows(tmp_path / "ref")  # every record once
    assert result.totals.to_dict() == reference.totals.to_dict()


def test_a_task_cancelled_past_its_retries_fails_saying_so(tmp_path: Path, client) -> None:
    inputs = make_inputs(tmp_path / "in", n=2)
    client = _CancelsFirst(client)
    result = schedule.run_job(client, inputs, JobConfig(output=str(tmp_path / "out")), retries=0)
    assert len(result.failed) == 1 and len(result.reports) == 1
    (error,) = result.failed.values()
    assert error == "cancelled by the cluster 1 time(s)"


def _cli(args: list[str], timeout: float = 180) -> subprocess.CompletedProcess:
    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}
    return subprocess.run(
        args, capture_output=True, text=True, timeout=timeout, cwd=REPO, env=env, check=False
    )


def test_python_script_runs_and_writes_a_run_report(tmp_path: Path) -> None:
    inputs = make_inputs(tmp_path / "in", n=2)
    out = tmp_path / "out"
    proc = _cli(
        [
            sys.executable,
            str(JOB_SCRIPT),
            *inputs,
            "--output",
            str(out),
            "--scheduler",
            "inproc",
            "--no-progress",
            "--cleaner",
            "justext",
            "--param",
            "length_low=70",
        ]
    )
    assert proc.returncode == 0, proc.stderr
    (report_file,) = (out / "_runs").glob("*.json")
    # The HTML report beside it (its contents: tests/report/test_run_report.py).
    assert report_file.with_suffix(".html").read_text().startswith("<!DOCTYPE html>")
    report = json.loads(report_file.read_text())
    assert report["inputs"]["processed"] == 2
    assert report["cleaner_params"] == {"length_low": 70}
    assert report["totals"]["docs"] == len(rows(out))
    assert "documents" in proc.stdout
    # Each path on one line however long, so that it can be copied.
    assert f"HTML report: {report_file.with_suffix('.html')}\n" in proc.stdout
    assert f"run report: {report_file}\n" in proc.stdout
    # The hint to install the charts only where they are missing.
    from pipeline.report.charts import available

    assert ("(tables only:" in proc.stdout) is not available()
    # Rates: every record, and the records that could hold a page (documents and rejects).
    totals = report["totals"]
    pages = totals["docs"] + sum(totals["rejects"].values())
    assert pages < totals["records"]  # the inputs hold requests and metadata too
    assert report["pages_per_second"] == pytest.approx(pages / report["seconds"], rel=0.01)
    assert report["records_per_second"] == pytest.approx(
        totals["records"] / report["seconds"], rel=0.01
    )


def test_local_cluster_workers_run_without_the_profiler_and_with_quiet_housekeeping(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for key in schedule.LOCAL_CLUSTER_CONFIG:
        monkeypatch.delenv(schedule._env_name(key), raising=False)
    keys = list(schedule.LOCAL_CLUSTER_CONFIG)
    with schedule.make_client(None, 1, 1, "2GiB") as client:
        seen = client.run(lambda: [__import__("dask").config.get(k) for k in keys])
    assert list(seen.values()) == [list(schedule.LOCAL_CLUSTER_CONFIG.values())]
    assert schedule.LOCAL_CLUSTER_CONFIG["distributed.worker.profile.enabled"] is False


def test_the_environment_overrides_the_local_cluster_housekeeping(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL", "20ms")
    monkeypatch.setenv("DASK_DISTRIBUTED__ADMIN__SYSTEM_MONITOR__INTERVAL", "500ms")
    config = schedule.local_cluster_config()
    assert "distributed.admin.tick.interval" not in config
    assert "distributed.admin.system-monitor.interval" not in config
    assert config["distributed.worker.memory.monitor-interval"] == "1s"


def test_worker_processes_load_no_cleaner_and_no_client_modules() -> None:
    # A spawned worker runs the job script's imports again (as __mp_main__), then unpickles the
    # task and the plugin: none of that may load the cleaners, the report or the console.
    probe = (
        "import runpy, sys\n"
        f"runpy.run_path({str(JOB_SCRIPT)!r}, run_name='__mp_main__')\n"
        "import pipeline.supervise, pipeline.job.workers\n"
        "heavy = ('pipeline.run', 'pipeline.clean', 'pipeline.report.run_report', 'rich.console',"
        " 'matplotlib', 'pyarrow.parquet')\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, check=True
    )
    assert proc.stdout.strip() == "[]", proc.stdout + proc.stderr


def test_dask_submit_runs_the_job_and_fails_loudly(tmp_path: Path) -> None:
    inputs = make_inputs(tmp_path / "in", n=3)
    out = tmp_path / "out"
    (out / "rejects" / f"{input_stem(inputs[1])}.parquet").mkdir(parents=True)
    report = tmp_path / "run.json"
    args = [*inputs, "--output", str(out), "--no-progress", "--retries", "0"]
    proc = _cli(
        [DASK, "submit", str(JOB_SCRIPT), *args, "--report", str(report), "--scheduler", "inproc"]
    )
    assert proc.returncode == 1, proc.stderr
    # One line on stderr, with the cause; no traceback.
    (line,) = [x for x in proc.stderr.splitlines() if x.startswith("FAILED")]
    assert "crawl-01.warc.gz: IsADirectoryError" in line
    assert "Traceback" not in proc.stderr
    data = json.loads(report.read_text())
    assert data["inputs"] == {"processed": 2, "failed": 1, "skipped_done": 0}
    assert "IsADirectoryError" in data["failed"][0]["error"]


def test_missing_input_is_a_usage_error(tmp_path: Path) -> None:
    proc = _cli(
        [
            sys.executable,
            str(JOB_SCRIPT),
            str(tmp_path / "gone.warc.gz"),
            "--output",
            str(tmp_path / "o"),
        ]
    )
    assert proc.returncode == 2 and "gone.warc.gz" in proc.stderr


def test_bad_param_is_a_usage_error(tmp_path: Path) -> None:
    proc = _cli(
        [
            sys.executable,
            str(JOB_SCRIPT),
            str(tmp_path),
            "--output",
            str(tmp_path / "o"),
            "--param",
            "no-equals-sign",
        ]
    )
    assert proc.returncode == 2 and "KEY=VALUE" in proc.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--param", "length_low=70"], "length_low"),  # a jusText parameter, default cleaner
        (["--cleaner", "justext", "--param", "nope=1"], "nope"),
        (["--cleaner", "no-such-cleaner"], "no-such-cleaner"),
        (["--isolate-memory", "lots"], "--isolate-memory expects a size"),
    ],
)
def test_unknown_cleaner_or_parameter_stops_the_job_before_it_starts(
    tmp_path: Path, args: list[str], message: str
) -> None:
    inputs = make_inputs(tmp_path / "in", n=1)
    out = tmp_path / "out"
    proc = _cli([sys.executable, str(JOB_SCRIPT), *inputs, "--output", str(out), *args])
    assert proc.returncode == 2, proc.stderr
    assert "Usage" in proc.stderr and message in proc.stderr
    assert not out.exists()  # nothing was submitted or written


def test_dask_cli_lists_submit() -> None:
    proc = _cli([DASK, "--help"], timeout=60)
    assert proc.returncode == 0 and "submit" in proc.stdout
    proc = _cli([DASK, "submit", "--help"], timeout=60)
    assert proc.returncode == 0 and "SCRIPT [ARGS]" in proc.stdout


def test_dask_submit_sets_the_scheduler_address(tmp_path: Path) -> None:
    script = tmp_path / "probe.py"
    script.write_text(
        "import sys, dask\nprint(dask.config.get('scheduler-address'), sys.argv[1:], __name__)\n"
    )
    proc = _cli([DASK, "submit", str(script), "a", "--flag", "--scheduler", "tcp://h:1"], 60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["tcp://h:1", "['a',", "'--flag']", "__main__"]


def test_submit_in_process_gives_the_script_its_arguments_and_restores_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What `dask submit` calls, run in this process: the script sees its own argv, the caller's
    argv is back afterwards, and the address reaches both Dask's config and the environment
    (for the processes the script starts)."""
    import dask

    from pipeline.cli import submit

    script = tmp_path / "probe.py"
    seen = tmp_path / "seen.json"
    script.write_text(
        "import json, os, sys\n"
        "address = os.environ['DASK_SCHEDULER_ADDRESS']\n"
        f"open({str(seen)!r}, 'w').write(json.dumps([sys.argv, address]))\n"
    )
    # Set, then unset: the variable the command sets is removed again after the test.
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", "unset")
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS")
    before = list(sys.argv)
    with dask.config.set({"scheduler-address": None}):
        result = CliRunner().invoke(submit, [str(script), "x", "--scheduler", "tcp://h:2"])
        assert result.exit_code == 0, result.output
        assert dask.config.get("scheduler-address") == "tcp://h:2"
    assert json.loads(seen.read_text()) == [[str(script), "x"], "tcp://h:2"]
    assert sys.argv == before


@pytest.mark.shared
def test_real_warcs_every_record_accounted_for(
    real_warcs_dir: Path, tmp_path: Path, client
) -> None:
    from pipeline.types import RawPage, Rejected
    from pipeline.warc.reader import iter_file

    inputs = sorted(
        str(p) for p in real_warcs_dir.iterdir() if p.name.endswith((".warc", ".gz", ".arc"))
    )
    result = run(client, inputs, tmp_path / "out")
    assert not result.failed, result.failed
    by_path = {r.warc_path: r.stats for r in result.reports}
    assert sorted(by_path) == inputs
    for path in inputs:
        read = sum(isinstance(i, RawPage | Rejected) for i in iter_file(path))
        stats = by_path[path]
        assert stats.records == read, path
        assert stats.balanced, path
    # Every rejection names what is wrong with the input. "error:<Exception>" is what the job
    # records when warcclean itself fails on a page: on these real files that is a bug of ours
    # (a record whose address urlsplit cannot read once failed the product-page rule).
    rejects = ds.dataset(str(tmp_path / "out" / "rejects"), format="parquet").to_table()
    errors = [
        (r["warc_path"], r["url"], r["reason"], r["detail"])
        for r in rejects.select(["warc_path", "url", "reason", "detail"]).to_pylist()
        if r["reason"].startswith("error:")
    ]
    assert errors == []


# --- inputs and output checked before the cluster starts (issue 33) ----------------------------


@pytest.fixture()
def no_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the cluster was started")

    monkeypatch.setattr(command, "make_client", refuse)


def _invoke(args: list[str]) -> Result:
    return CliRunner().invoke(command.main, args)


def _assert_usage_error(result: Result, *needles: str) -> None:
    assert result.exit_code == 2, (result.output, result.exception)
    assert isinstance(result.exception, SystemExit)  # not the cluster, not a traceback
    assert "Traceback" not in result.output
    for needle in needles:
        assert needle in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--memory-limit", "foo"], "--memory-limit expects 'auto', 'none' or a size"),
        (["--memory-limit", "0.5"], "--memory-limit"),
        (["--memory-limit", "1MB"], "at least 256.00 MiB"),
        (["--workers", "0"], "--workers"),
        (["--threads-per-worker", "0"], "--threads-per-worker"),
        (["--retries", "-1"], "--retries"),
        (["--retries", "1000"], "--retries"),
        (["--retries", "11"], "--retries"),  # more only repeats a failure that is not passing
        (["--max-seconds", "0"], "--max-seconds"),
        (["--max-seconds", "3600.5"], "--max-seconds"),  # an hour a page at most
        (["--max-seconds", "nan"], "--max-seconds"),
        (["--max-seconds", "inf"], "--max-seconds"),
        (["--max-body-bytes", "0"], "--max-body-bytes"),
        (["--max-nodes", "-5"], "--max-nodes"),
        (["--max-blocks", "0"], "--max-blocks"),
        (["--isolate-depth", "-1"], "--isolate-depth"),
        (["--isolate-memory", "0"], "--isolate-memory expects a size"),
        # issue 48: accepted, then every input failed with MemoryError three times
        (["--isolate-memory", "1"], "--isolate-memory must be at least 2.00 GiB"),
        (["--isolate-memory", "1GB"], "maps about 1.5 GB of address space"),
        (["--batch-rows", "0"], "--batch-rows"),
        (["--formats", "html"], "--formats"),
    ],
)
def test_bad_option_values_are_usage_errors(
    tmp_path: Path, no_cluster: None, args: list[str], message: str
) -> None:
    inputs = make_inputs(tmp_path / "in", n=1)
    out = tmp_path / "out"
    _assert_usage_error(_invoke([*inputs, "--output", str(out), *args]), message)
    assert not out.exists()


def test_the_limits_given_reach_the_job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = {}

    def capture(cfg: JobConfig) -> bool:
        seen["cfg"] = cfg
        raise RuntimeError("stop here")

    monkeypatch.setattr(command, "_finish_site_stage", capture)
    inputs = make_inputs(tmp_path / "in", n=1)
    limits = ["--max-seconds", "7.5", "--max-nodes", "1234", "--max-blocks", "99"]
    more = ["--max-body-bytes", "4096", "--isolate-depth", "12", "--isolate-memory", "3GiB"]
    more += ["--limit", "1", "--log-level", "INFO"]  # a level in any case
    flags = ["--include-comments", "--page-type"]
    result = _invoke([*inputs, "-o", str(tmp_path / "out"), *limits, *more, *flags])
    assert isinstance(result.exception, RuntimeError), result.output
    cfg = seen["cfg"]
    assert (cfg.limits.max_seconds, cfg.limits.max_nodes, cfg.limits.max_blocks) == (7.5, 1234, 99)
    assert (cfg.limits.max_body_bytes, cfg.limits.isolate_depth) == (4096, 12)
    assert cfg.limits.isolate_memory_bytes == 3 * 2**30 and cfg.record_limit == 1
    assert cfg.include_comments is True and cfg.classify_page is True
    # Without the flags, neither; without --output, no run at all.
    _invoke([*inputs, "-o", str(tmp_path / "out")])
    assert seen["cfg"].include_comments is False and seen["cfg"].classify_page is False
    _assert_usage_error(_invoke(inputs), "Missing option '--output'")


def test_no_html_report_writes_the_json_report_alone(tmp_path: Path) -> None:
    inputs = make_inputs(tmp_path / "in", n=1)
    out = tmp_path / "out"
    args = [*inputs, "-o", str(out), "--scheduler", "inproc", "--no-progress", "--no-html-report"]
    result = _invoke([*args, "--cleaner", "justext"])
    assert result.exit_code == 0, result.output
    assert [p.suffix for p in (out / "_runs").iterdir()] == [".json"]
    assert "HTML report" not in result.output


def test_the_run_options_show_their_defaults_and_ranges() -> None:
    from pipeline.cleaners.registry import DEFAULT_CLEANER
    from pipeline.config import Limits
    from pipeline.jobconfig import DEFAULT_BATCH_ROWS

    limits = Limits()
    # One entry per option: from a line that starts with a dash to the next such line.
    entries = re.split(r"\n\s+(?=-)", CliRunner().invoke(command.main, ["--help"]).output)
    helps = {}
    for entry in entries:
        words = entry.split()
        long_name = next((w.rstrip(",") for w in words if w.startswith("--")), None)
        if long_name:
            helps[long_name] = " ".join(words)
    expected = {
        "--cleaner": DEFAULT_CLEANER,
        "--workers": "CPUs",
        "--memory-limit": "auto",
        "--threads-per-worker": "1; x>=1",
        "--max-body-bytes": f"{limits.max_body_bytes}; x>=1",
        "--max-nodes": f"{limits.max_nodes}; x>=1",
        "--max-blocks": f"{limits.max_blocks}; x>=1",
        "--max-seconds": f"{limits.max_seconds}; 0<x<=3600.0",
        "--isolate-depth": f"{limits.isolate_depth}; x>=0",
        "--isolate-memory": str(limits.isolate_memory_bytes),
        "--batch-rows": f"{DEFAULT_BATCH_ROWS}; x>=1",
        "--retries": "2; 0<=x<=10",
        "--formats": "both",
        "--log-level": "warning",
        "--site-repeats": "2; x>=0",
        "--site-key": "host",
        "--site-max-share": "1.0; 0<x<=1",
        "--site-long-repeats": "3; x>=0",
        "--site-max-chars": "200; x>=0",
    }
    for option, default in expected.items():
        assert f"[default: {default}]" in helps[option], helps[option]
    # Flags and options without a default say none.
    for option in ("--output", "--report", "--force", "--limit", "--no-progress"):
        assert "[default:" not in helps[option], helps[option]


def test_good_option_values_reach_the_cluster(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = {}

    def capture(
        scheduler: object, workers: object, threads: object, memory: object, *more: object
    ) -> None:
        seen.update(workers=workers, threads=threads, memory=memory)
        raise RuntimeError("stop here")

    monkeypatch.setattr(command, "make_client", capture)
    inputs = make_inputs(tmp_path / "in", n=1)
    args = [*inputs, "-o", str(tmp_path / "out"), "--workers", "3", "--memory-limit", "2GiB"]
    result = _invoke(args)
    assert isinstance(result.exception, RuntimeError)
    assert seen == {"workers": 3, "threads": 1, "memory": 2 * 2**30}
    _invoke([*args[:-1], "none"])
    assert seen["memory"] is None
    _invoke([*args[:-1], "auto"])
    assert seen["memory"] == "auto"


def test_an_output_that_is_a_file_is_a_usage_error(tmp_path: Path, no_cluster: None) -> None:
    inputs = make_inputs(tmp_path / "in", n=1)
    out = tmp_path / "out.parquet"
    out.write_bytes(b"mine")
    _assert_usage_error(_invoke([*inputs, "-o", str(out)]), "is a file")
    _assert_usage_error(_invoke([*inputs, "-o", str(out / "sub")]), "is a file")
    assert out.read_bytes() == b"mine"


def _refuses_new_files(directory: str) -> bool:
    import tempfile

    try:
        handle, name = tempfile.mkstemp(dir=directory)
    except OSError:
        return True
    os.close(handle)
    os.unlink(name)
    return False


@pytest.mark.skipif(
    not Path("/sys").is_dir() or not _refuses_new_files("/sys"),
    reason="needs a /sys that refuses new files",
)
def test_an_output_on_a_read_only_file_system_is_a_usage_error(
    tmp_path: Path, no_cluster: None
) -> None:
    # /sys refuses new files even to root: the real failure, whoever runs the tests
    inputs = make_inputs(tmp_path / "in", n=1)
    _assert_usage_error(
        _invoke([*inputs, "-o", "/sys/warcclean-test-output"]), "is not writable", "/sys"
    )


def test_a_read_only_directory_of_an_earlier_output_is_a_usage_error(
    tmp_path: Path, no_cluster: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    inputs = make_inputs(tmp_path / "in", n=1)
    out = tmp_path / "out"
    (out / "_done").mkdir(parents=True)
    real = tempfile.mkstemp

    def refuse_in_done(*args: object, dir: str | None = None, **kwargs: object):
        # what a read-only _done/ does to anyone but root
        if dir is not None and Path(dir) == out / "_done":
            raise PermissionError(13, "Permission denied")
        return real(*args, dir=dir, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", refuse_in_done)
    _assert_usage_error(
        _invoke([*inputs, "-o", str(out)]), "is not writable", "_done", "Permission denied"
    )


def test_an_output_holding_foreign_files_is_refused(tmp_path: Path, no_cluster: None) -> None:
    inputs = make_inputs(tmp_path / "in", n=1)
    out = tmp_path / "out"
    (out / "docs" / "part-0").mkdir(parents=True)
    (out / "notes.txt").write_text("mine")
    _assert_usage_error(
        _invoke([*inputs, "-o", str(out)]), "not a warcclean output", "notes.txt", "docs/part-0"
    )
    assert (out / "notes.txt").read_text() == "mine"


def test_an_earlier_output_with_hidden_files_is_resumed(tmp_path: Path) -> None:
    inputs = make_inputs(tmp_path / "in", n=2)
    out = tmp_path / "out"
    common = ["-o", str(out), "--scheduler", "inproc", "--no-progress", "--no-html-report"]
    assert _invoke([inputs[0], *common]).exit_code == 0
    (out / ".DS_Store").write_bytes(b"")
    second = _invoke([*inputs, *common])
    assert second.exit_code == 0, second.output
    assert len(list((out / "_done").iterdir())) == 2


def test_a_symlink_beside_its_input_is_written_once(tmp_path: Path) -> None:
    (inp,) = make_inputs(tmp_path / "in", n=1)
    Path(inp).with_name("same-crawl.warc.gz").symlink_to(Path(inp).name)
    common = ["--scheduler", "inproc", "--no-progress", "--no-html-report"]
    result = _invoke([str(tmp_path / "in"), "-o", str(tmp_path / "out"), *common])
    assert result.exit_code == 0, result.output
    single = _invoke([inp, "-o", str(tmp_path / "single"), *common])
    assert single.exit_code == 0, single.output
    assert len(rows(tmp_path / "out")) == 2  # make_inputs' first WARC holds two documents
    assert rows(tmp_path / "out") == rows(tmp_path / "single")
    assert len(list((tmp_path / "out" / "_done").iterdir())) == 1


def _bad_inputs(directory: Path) -> list[str]:
    empty = directory / "empty.warc.gz"
    empty.write_bytes(b"")
    page = directory / "page.warc"
    page.write_text("<!DOCTYPE html>\n<html><body><p>Not a WARC.</p></body></html>\n")
    return [str(empty), str(page)]


def test_empty_and_non_warc_inputs_fail_and_are_retried(tmp_path: Path, client) -> None:
    good = make_inputs(tmp_path / "in", n=1)
    bad = _bad_inputs(tmp_path / "in")
    out = tmp_path / "out"
    cfg = JobConfig(output=str(out))
    first = schedule.run_job(client, [*good, *bad], cfg, retries=0)
    assert sorted(first.failed) == sorted(bad)
    assert "input is empty" in first.failed[bad[0]]
    assert "not a WARC or ARC file: it starts with '<!DOCTYPE html>" in first.failed[bad[1]]
    assert [p.stem for p in (out / "_done").iterdir()] == [input_stem(good[0])]
    again = schedule.run_job(client, [*good, *bad], cfg, retries=0)
    assert again.skipped == good and sorted(again.failed) == sorted(bad)


def test_empty_and_non_warc_inputs_fail_the_run(tmp_path: Path) -> None:
    bad = _bad_inputs(tmp_path)
    out = tmp_path / "out"
    common = ["-o", str(out), "--scheduler", "inproc", "--no-progress", "--retries", "0"]
    result = _invoke([*bad, *common])
    assert result.exit_code == 1, result.output
    for path in bad:
        assert f"FAILED {path}" in result.output
    (report,) = (out / "_runs").glob("*.json")
    assert json.loads(report.read_text())["inputs"]["failed"] == 2


def test_a_run_report_that_cannot_be_written_is_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def disk_full(*args: object, **kwargs: object) -> str:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(command, "write_run_report", disk_full)
    inputs = make_inputs(tmp_path / "in", n=1)
    common = ["-o", str(tmp_path / "out"), "--scheduler", "inproc", "--no-progress"]
    result = _invoke([*inputs, *common])
    # Issue 48: every input succeeded, so the run did: the report is a warning (it made this
    # exit 1), and the exit status follows the inputs.
    assert result.exit_code == 0, result.output
    assert "warning: run report not written" in result.output
    assert "No space left" in result.output and "Traceback" not in result.output
    bad = tmp_path / "in" / "bad.warc.gz"
    bad.write_bytes(b"")
    failing = _invoke([*inputs, str(bad), *common])
    assert failing.exit_code == 1 and "warning: run report not written" in failing.output


def test_a_report_written_into_the_output_is_not_foreign_to_the_next_run(tmp_path: Path) -> None:
    inputs = make_inputs(tmp_path / "in", n=1)
    out = tmp_path / "out"
    args = [*inputs, "-o", str(out), "--scheduler", "inproc", "--no-progress"]
    for _ in range(2):
        result = _invoke([*args, "--report", str(out / "run.json")])
        assert result.exit_code == 0, result.output
    assert (out / "run.json").exists() and (out / "run.html").exists()
    _assert_usage_error(_invoke([*args, "--report", str(out / "other.json")]), "run.json")


def test_a_report_path_that_cannot_be_written_is_a_usage_error(
    tmp_path: Path, no_cluster: None
) -> None:
    inputs = make_inputs(tmp_path / "in", n=1)
    args = [*inputs, "-o", str(tmp_path / "out")]
    _assert_usage_error(_invoke([*args, "--report", str(tmp_path)]), "is a directory")
    (tmp_path / "f").write_text("x")
    _assert_usage_error(_invoke([*args, "--report", str(tmp_path / "f" / "r.json")]), "is a file")


# --- --formats and the schema version (issue 34) -------------------------------------------------


@pytest.mark.parametrize("formats", ["text", "markdown", "both"])
def test_formats_reach_the_rows_the_report_and_the_summary(tmp_path: Path, formats: str) -> None:
    from tests.test_run import structured_warc

    warc = structured_warc(tmp_path)
    out = tmp_path / "out"
    args = [str(warc), "-o", str(out), "--scheduler", "inproc", "--no-progress"]
    result = _invoke([*args, "--formats", formats])
    assert result.exit_code == 0, result.output
    table = ds.dataset(out / "docs", format="parquet", partitioning="hive").to_table()
    markdown, text = table.column("markdown").to_pylist(), table.column("text").to_pylist()
    assert len(markdown) == 2
    assert all(m is None for m in markdown) == (formats == "text")
    assert all(m for m in markdown) == (formats != "text")
    assert all(t == "" for t in text) == (formats == "markdown")
    (report_file,) = (out / "_runs").glob("*.json")
    report = json.loads(report_file.read_text())
    assert report["formats"] == formats
    assert report["totals"]["structure"] == {"code": 1, "table": 1}
    summary = {
        line.split("│")[1].strip(): line.split("│")[2].strip()
        for line in result.output.splitlines()
        if line.count("│") >= 3
    }
    assert summary["documents with code"] == "1" and summary["documents with table"] == "1"
    assert summary["documents with math"] == "0"


@pytest.mark.parametrize("version", ["1", "2"])
def test_an_output_of_an_older_schema_is_not_resumed(
    tmp_path: Path, no_cluster: None, version: str
) -> None:
    import pyarrow.parquet as pq

    from pipeline.output.schema import METADATA_COLUMNS
    from pipeline.run import process_warc

    (first, second) = make_inputs(tmp_path / "in", n=2)
    out = tmp_path / "out"
    common = ["-o", str(out), "--scheduler", "inproc", "--no-progress", "--no-html-report"]
    # As a warcclean of that schema wrote it: the first input's files, without the new columns.
    process_warc(first, JobConfig(output=str(out)))
    newer = {"1": ["markdown", "structure", *METADATA_COLUMNS], "2": list(METADATA_COLUMNS)}
    for path in (out / "docs").rglob("*.parquet"):
        table = pq.read_table(path).drop_columns(newer[version])
        meta = {**table.schema.metadata, b"warcclean.schema_version": version.encode()}
        pq.write_table(table.replace_schema_metadata(meta), path)
    before = sorted(p.name for p in out.rglob("*"))
    _assert_usage_error(
        _invoke([first, second, *common]), f"schema version {version}", "new output directory"
    )
    assert sorted(p.name for p in out.rglob("*")) == before


# --- one job per output (issue 48) ---------------------------------------------------------------


def _lock_file(out: Path) -> Path:
    from pipeline.output.lock import LOCK_NAME

    return out / LOCK_NAME


def test_a_second_job_on_a_locked_output_exits_2_naming_the_first(
    tmp_path: Path, no_cluster: None
) -> None:
    from pipeline.output import lock

    inputs = make_inputs(tmp_path / "in", n=1)
    out = tmp_path / "out"
    held = lock.acquire(str(out), cleaner="bte")  # this process: a job that still runs
    try:
        result = _invoke([*inputs, "-o", str(out), "--no-progress"])
        _assert_usage_error(result, "being written by another warcclean job")
        flat = " ".join(result.output.split())
        assert f"process {os.getpid()} on host" in flat and "cleaner bte" in flat
        assert "still running" in flat
        # --force never takes a lock whose job still runs here
        _assert_usage_error(_invoke([*inputs, "-o", str(out), "--force"]), "still running")
    finally:
        lock.release(held)
    assert not _lock_file(out).exists()


def test_a_lock_whose_job_is_gone_here_is_taken_over(tmp_path: Path) -> None:
    # A job killed on this host (its process no longer runs): the same command resumes.
    inputs = make_inputs(tmp_path / "in", n=1)
    out = tmp_path / "out"
    stale_lock(out)
    common = ["-o", str(out), "--scheduler", "inproc", "--no-progress", "--no-html-report"]
    taken = _invoke([*inputs, *common])
    assert taken.exit_code == 0, taken.output
    assert len(rows(out)) == 2 and not _lock_file(out).exists()  # released when the job ended


def test_force_takes_over_a_lock_held_on_another_host(tmp_path: Path) -> None:
    inputs = make_inputs(tmp_path / "in", n=1)
    out = tmp_path / "out"
    stale_lock(out, host="elsewhere.example")
    common = ["-o", str(out), "--scheduler", "inproc", "--no-progress", "--no-html-report"]
    refused = _invoke([*inputs, *common])
    _assert_usage_error(refused, "warcclean run old", "cannot be told from here", "--force")
    taken = _invoke([*inputs, *common, "--force"])
    assert taken.exit_code == 0, taken.output
    assert len(rows(out)) == 2 and not _lock_file(out).exists()  # released when the job ended


def test_run_reports_of_runs_started_in_the_same_second_differ(tmp_path: Path) -> None:
    from pipeline.job import reports

    cfg = JobConfig(output=str(tmp_path / "out"))
    report = {"started_at": "2026-01-01T00:00:00Z"}
    names = {reports.run_report_path(report, cfg) for _ in range(20)}
    assert len(names) == 20
    assert all(re.search(r"/_runs/20260101T000000Z-[0-9a-f]{6}\.json$", n) for n in names)


def test_workers_far_past_the_cpus_get_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def stop(*args: object, **kwargs: object) -> None:
        raise RuntimeError("stop here")

    monkeypatch.setattr(command, "make_client", stop)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    inputs = make_inputs(tmp_path / "in", n=1)
    many = _invoke([*inputs, "-o", str(tmp_path / "a"), "--workers", "1000"])
    assert "--workers 1000 on 2 CPUs" in " ".join(many.output.split())
    few = _invoke([*inputs, "-o", str(tmp_path / "b"), "--workers", "8"])
    assert "warning" not in few.output
    # More than four a CPU.
    past = _invoke([*inputs, "-o", str(tmp_path / "c"), "--workers", "9"])
    assert "--workers 9 on 2 CPUs" in " ".join(past.output.split())


def test_an_input_whose_name_is_not_utf8_is_read_and_shown_escaped(tmp_path: Path) -> None:
    # Issue 48: a file name with bytes that are not UTF-8 failed its input on every attempt
    # (UnicodeEncodeError), and made `warcclean report OUT` exit 1 from then on.
    (good,) = make_inputs(tmp_path / "in", n=1)
    raw = os.fsencode(str(tmp_path / "in")) + b"/bad\xff\xfe.warc.gz"
    os.rename(good, raw)
    out = tmp_path / "out"
    result = _invoke(
        [str(tmp_path / "in"), "-o", str(out), "--scheduler", "inproc", "--no-progress"]
    )
    assert result.exit_code == 0, result.output
    shown = str(tmp_path / "in") + "/bad\\xff\\xfe.warc.gz"
    table = ds.dataset(out / "docs", format="parquet", partitioning="hive").to_table()
    assert set(table.column("warc_path").to_pylist()) == {shown}
    runner = CliRunner()
    from pipeline.cli import main as cli_main

    assert runner.invoke(cli_main, ["report", str(out)]).exit_code == 0
    record_id = table.column("record_id")[0].as_py()
    view = runner.invoke(
        cli_main, ["show", str(out), "--record-id", record_id, "-o", str(tmp_path / "v.html")]
    )
    assert view.exit_code == 0, view.output  # the row's escaped name finds the file again


@pytest.mark.parametrize(
    ("address", "message"),
    [
        # the dashboard's address, which Dask prints beside the scheduler's
        ("http://127.0.0.1:8787", "'http://127.0.0.1:8787' is not a Dask scheduler's address"),
        ("nonsense", "missing port number"),
        # nothing listens on port 1 (a refused connection: Dask retries until its timeout)
        ("tcp://127.0.0.1:1", "no Dask scheduler answers at tcp://127.0.0.1:1"),
    ],
)
def test_a_scheduler_address_that_answers_nothing_is_one_clear_error(
    tmp_path: Path, address: str, message: str
) -> None:
    """A wrong --scheduler ends the job before it starts with one line saying so (it was
    distributed's traceback of 60 lines), and leaves the output unlocked for the next run."""
    inputs = make_inputs(tmp_path / "in", n=1)
    out = tmp_path / "out"
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        result = _invoke([*inputs, "--output", str(out), "--scheduler", address])
    assert result.exit_code == 1, (result.output, result.exception)
    assert isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    assert message in result.output
    assert "--scheduler, or DASK_SCHEDULER_ADDRESS" in result.output
    assert not list(out.glob("*lock*"))
