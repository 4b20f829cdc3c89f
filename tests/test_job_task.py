"""The job's task (`pipeline.job.task`): where it cleans an input, and a failure returned as a
value, on one line, retried only when another attempt could mend it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pipeline import run, supervise
from pipeline.errors import UnreadableInput
from pipeline.job import task
from pipeline.jobconfig import JobConfig


def test_one_line_collapses_white_space_and_cuts_at_the_limit() -> None:
    assert task.one_line(" a\n\tb  c ") == "a b c"
    assert task.MAX_ERROR_CHARS == 400  # one terminal line, even for a binary file's first line
    exact = "x" * task.MAX_ERROR_CHARS
    assert task.one_line(exact) == exact
    cut = task.one_line(exact + "y")
    assert len(cut) == task.MAX_ERROR_CHARS and cut == "x" * 399 + "…"
    assert task.one_line("abcdef", limit=4) == "abc…"


def test_a_failure_is_described_by_its_reason_or_its_type() -> None:
    assert task.describe(ValueError("bad\nvalue")) == "ValueError: bad value"
    unreadable = UnreadableInput("/in/x.warc.gz: cannot open it", reason="cannot open it")
    assert task.describe(unreadable) == "cannot open it"


def test_the_task_runs_supervised_unless_told_otherwise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[str, str]] = []
    monkeypatch.setattr(
        supervise, "process_warc_supervised", lambda path, cfg: seen.append(("child", path))
    )
    monkeypatch.setattr(run, "process_warc", lambda path, cfg: seen.append(("here", path)))
    cfg = JobConfig(output=str(tmp_path / "out"))
    task.clean_input("a.warc.gz", cfg)
    task.clean_input("b.warc.gz", cfg, supervised=False)
    assert seen == [("child", "a.warc.gz"), ("here", "b.warc.gz")]


def test_a_failure_comes_back_as_a_value_retried_only_when_it_may_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(path: str, cfg: JobConfig) -> None:
        if path.startswith("gone"):
            raise UnreadableInput(f"{path}: cannot open it", reason="cannot open it")
        raise ConnectionResetError("reset\nby peer")

    monkeypatch.setattr(run, "process_warc", fail)
    cfg = JobConfig(output=str(tmp_path / "out"))
    mendable = task.clean_input("cut.warc.gz", cfg, supervised=False)
    assert isinstance(mendable, task.InputFailure)
    assert (mendable.path, mendable.error, mendable.retry) == (
        "cut.warc.gz",
        "ConnectionResetError: reset by peer",
        True,
    )
    assert "Traceback" in mendable.traceback and "ConnectionResetError" in mendable.traceback
    permanent = task.clean_input("gone.warc.gz", cfg, supervised=False)
    assert (permanent.error, permanent.retry) == ("cannot open it", False)
    # A failure is a value the client keeps: it cannot be changed on the way.
    with pytest.raises(dataclasses.FrozenInstanceError):
        permanent.retry = True  # type: ignore[misc]
