"""Failed inputs, once and clearly: no retry of what every attempt repeats, one line per failed
input on stderr, tracebacks only with ``--verbose``, and ``--log-level``.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from distributed import Client

from pipeline import run
from pipeline.job import schedule
from pipeline.jobconfig import JobConfig
from tests.jobhelpers import make_inputs, rows

WARCCLEAN = str(Path(sys.executable).with_name("warcclean"))


def unreadable_inputs(directory: Path) -> list[str]:
    """Four inputs no attempt can read: empty, an HTML page, random bytes, a text file."""
    directory.mkdir(parents=True, exist_ok=True)
    files = {
        "empty.warc.gz": b"",
        "page.warc": b"<!DOCTYPE html>\n<html><body><p>Not a WARC.</p></body></html>\n",
        "noise.warc": bytes((i * 7919 + 13) % 256 for i in range(3000)),
        "notes.arc": b"<html><head><title>x</title></head><body>\n" * 3,
    }
    for name, data in files.items():
        (directory / name).write_bytes(data)
    return [str(directory / name) for name in files]


class Calls:
    """`pipeline.run.process_warc`, counting its calls per input; ``fail_first`` inputs raise
    an error another attempt mends (a read cut by the network) on their first call,
    ``fail_always`` inputs on every call."""

    def __init__(
        self,
        monkeypatch: pytest.MonkeyPatch,
        fail_first: set[str] = frozenset(),
        fail_always: set[str] = frozenset(),
    ):
        self.calls: dict[str, int] = {}
        real = run.process_warc

        def counted(path: str, cfg: JobConfig, **kwargs: object):
            self.calls[path] = self.calls.get(path, 0) + 1
            if path in fail_always or (path in fail_first and self.calls[path] == 1):
                raise ConnectionResetError("reset by peer")
            return real(path, cfg, **kwargs)

        monkeypatch.setattr(run, "process_warc", counted)


def test_an_unreadable_input_is_tried_once_whatever_the_retries(
    tmp_path: Path, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = unreadable_inputs(tmp_path / "in")
    missing = str(tmp_path / "in" / "gone.warc.gz")
    calls = Calls(monkeypatch)
    result = schedule.run_job(client, [*bad, missing], JobConfig(output=str(tmp_path / "out")))
    assert calls.calls == {path: 1 for path in [*bad, missing]}
    assert sorted(result.failed) == sorted([*bad, missing])
    # The empty file has no record; the others fail on their first line (issue 50).
    assert result.failed[bad[0]].startswith("UnreadableInput: no WARC/ARC record")
    for path in bad[1:]:
        assert result.failed[path].startswith("UnreadableInput: not a WARC or ARC file: ")
        assert "\n" not in result.failed[path] and len(result.failed[path]) <= 400
    assert result.failed[missing].startswith("UnreadableInput: cannot open it: FileNotFound")
    assert "Traceback" in result.tracebacks[missing]
    assert not (tmp_path / "out" / "_done").exists() or not any(
        (tmp_path / "out" / "_done").iterdir()
    )


def test_a_failure_another_attempt_mends_is_retried(
    tmp_path: Path, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs = make_inputs(tmp_path / "in", n=2)
    calls = Calls(monkeypatch, fail_first={inputs[0]})
    result = schedule.run_job(client, inputs, JobConfig(output=str(tmp_path / "out")), retries=1)
    assert calls.calls == {inputs[0]: 2, inputs[1]: 1}
    assert not result.failed and len(result.reports) == 2
    reference = schedule.run_job(client, inputs, JobConfig(output=str(tmp_path / "ref")))
    assert rows(tmp_path / "out") == rows(tmp_path / "ref")
    assert reference.totals.to_dict() == result.totals.to_dict()
    # With no retries left, the same failure is the input's, with its cause on one line.
    calls = Calls(monkeypatch, fail_first={inputs[0]})
    again = schedule.run_job(client, inputs, JobConfig(output=str(tmp_path / "o2")), retries=0)
    assert calls.calls == {inputs[0]: 1, inputs[1]: 1}
    assert again.failed == {inputs[0]: "ConnectionResetError: reset by peer"}


def test_by_default_a_mendable_failure_is_tried_three_times(
    tmp_path: Path, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs = make_inputs(tmp_path / "in", n=2)
    calls = Calls(monkeypatch, fail_always={inputs[0]})
    result = schedule.run_job(client, inputs, JobConfig(output=str(tmp_path / "out")))
    assert calls.calls == {inputs[0]: 3, inputs[1]: 1}
    assert result.failed == {inputs[0]: "ConnectionResetError: reset by peer"}
    assert [r.warc_path for r in result.reports] == [inputs[1]]


def _job(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}
    return subprocess.run(
        [WARCCLEAN, "run", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env=env,
        check=False,
    )


@pytest.mark.slow
def test_four_unreadable_inputs_print_one_line_each_on_a_local_cluster(tmp_path: Path) -> None:
    # The case, on worker processes (whose failures Dask used to log with their
    # tracebacks, once per attempt): at most 8 lines on stderr, and exit 1.
    bad = unreadable_inputs(tmp_path / "in")
    proc = _job([*bad, "-o", str(tmp_path / "out"), "--workers", "1"], tmp_path)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) <= 8, proc.stderr
    for path in bad:
        (line,) = [x for x in lines if path in x]
        assert line.startswith(f"FAILED {path}: UnreadableInput: ")
    assert "Traceback" not in proc.stderr and "Compute Failed" not in proc.stderr
    assert "inputs failed" in proc.stdout and "run report:" in proc.stdout


def test_verbose_adds_each_failed_inputs_traceback(tmp_path: Path) -> None:
    bad = unreadable_inputs(tmp_path / "in")[:2]
    common = [*bad, "--scheduler", "inproc", "--no-progress", "--no-html-report"]
    quiet = _job([*common, "-o", str(tmp_path / "a")], tmp_path)
    loud = _job([*common, "-o", str(tmp_path / "b"), "--verbose"], tmp_path)
    assert quiet.returncode == loud.returncode == 1
    assert "Traceback" not in quiet.stderr
    # Where each failure was raised, and the chain up to the task.
    assert loud.stderr.count("raise UnreadableInput(") == 2
    assert loud.stderr.count("in clean_input") == 2
    for path in bad:
        assert sum(line.startswith(f"FAILED {path}: ") for line in loud.stderr.splitlines()) == 1


def test_log_level_shows_or_hides_dasks_messages(tmp_path: Path) -> None:
    (good,) = make_inputs(tmp_path / "in", n=1)
    common = [good, "--scheduler", "inproc", "--no-progress", "--no-html-report"]
    default = _job([*common, "-o", str(tmp_path / "a")], tmp_path)
    info = _job([*common, "-o", str(tmp_path / "b"), "--log-level", "info"], tmp_path)
    assert default.returncode == info.returncode == 0, info.stderr
    assert " - INFO - " not in default.stderr
    assert "distributed.scheduler - INFO - " in info.stderr
    bad = _job([*common, "-o", str(tmp_path / "c"), "--log-level", "loud"], tmp_path)
    assert bad.returncode == 2 and "--log-level" in bad.stderr


def test_the_job_puts_the_log_levels_back(tmp_path: Path) -> None:
    # A program (or this test run) that calls the command keeps its own logging afterwards.
    from click.testing import CliRunner

    from pipeline.job import command

    names = ("distributed", "pipeline")
    before = [logging.getLogger(n).level for n in names]
    (good,) = make_inputs(tmp_path / "in", n=1)
    args = [good, "-o", str(tmp_path / "out"), "--scheduler", "inproc", "--no-progress"]
    result = CliRunner().invoke(command.main, [*args, "--no-html-report", "--log-level", "error"])
    assert result.exit_code == 0, result.output
    assert [logging.getLogger(n).level for n in names] == before
