"""The job's task window: at most ``window`` inputs in flight, refilled as each one ends.

Built inputs only (more inputs than the window, so the refill runs), on an in-process cluster:
every input is submitted exactly once, the window is full while inputs are left and never
exceeded, failures refill it like successes, and inputs already done are never submitted.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from distributed import Client, LocalCluster

from pipeline.job import schedule
from pipeline.jobconfig import JobConfig
from pipeline.warc.inputs import input_stem
from tests.jobhelpers import rows
from tests.warc_builders import build_warc, html_response, request_record

PAGE = (
    "<html><body><h1>Harbour notes {n}</h1><p>The ferry number {n} leaves the harbour twice a "
    "day in winter, and the people of the island plan their whole week around it, from the "
    "doctor's visits on Tuesdays to the market on the mainland on Saturdays.</p></body></html>"
)


def make_inputs(directory: Path, n: int) -> list[str]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        url = f"https://isle{i}.example/"
        records = [request_record(url), html_response(url, PAGE.format(n=i))]
        path = directory / f"part-{i:02d}.warc.gz"
        path.write_bytes(build_warc(records))
        paths.append(str(path))
    return paths


class Flight:
    """Counts what the job has submitted and what it has been told has ended."""

    def __init__(self, client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
        self.submitted: list[str] = []
        self.ended: list[str] = []
        self.in_flight_at_submit: list[int] = []
        real = client.submit

        def submit(fn, path, *args, **kwargs):
            self.submitted.append(path)
            self.in_flight_at_submit.append(len(self.submitted) - len(self.ended))
            return real(fn, path, *args, **kwargs)

        monkeypatch.setattr(client, "submit", submit)

    def on_report(self, report, path: str) -> None:
        self.ended.append(path)

    @property
    def most(self) -> int:
        return max(self.in_flight_at_submit, default=0)


def run(client: Client, inputs: list[str], out: Path, flight: Flight, **kw):
    return schedule.run_job(
        client, inputs, JobConfig(output=str(out)), on_report=flight.on_report, **kw
    )


@pytest.mark.parametrize("window", [1, 2, 3])
def test_window_is_filled_refilled_and_never_exceeded(
    tmp_path: Path, client: Client, monkeypatch: pytest.MonkeyPatch, window: int
) -> None:
    inputs = make_inputs(tmp_path / "in", 7)
    flight = Flight(client, monkeypatch)
    result = run(client, inputs, tmp_path / "out", flight, window=window)
    assert not result.failed
    assert sorted(flight.submitted) == sorted(inputs)  # each input once
    assert sorted(r.warc_path for r in result.reports) == sorted(inputs)
    assert flight.most == window
    # The first `window` go out together; every later one only after one has ended.
    assert flight.in_flight_at_submit[:window] == list(range(1, window + 1))
    assert all(n == window for n in flight.in_flight_at_submit[window:])
    assert len(flight.ended) == len(inputs)
    assert len(rows(tmp_path / "out")) == len(inputs)


def test_window_one_runs_the_inputs_in_order(
    tmp_path: Path, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs = make_inputs(tmp_path / "in", 5)
    flight = Flight(client, monkeypatch)
    run(client, inputs, tmp_path / "out", flight, window=1)
    assert flight.submitted == inputs
    assert flight.ended == inputs


def test_default_window_is_twice_the_threads_but_at_least_four(
    tmp_path: Path, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert sum(client.nthreads().values()) == 1
    inputs = make_inputs(tmp_path / "in", 9)
    flight = Flight(client, monkeypatch)
    result = run(client, inputs, tmp_path / "out", flight)
    assert len(result.reports) == 9
    assert flight.most == 4
    assert sorted(flight.submitted) == sorted(inputs)


def test_default_window_of_three_threads_is_six(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs = make_inputs(tmp_path / "in", 9)
    with (
        LocalCluster(
            processes=False, n_workers=1, threads_per_worker=3, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        flight = Flight(client, monkeypatch)
        result = run(client, inputs, tmp_path / "out", flight)
    assert len(result.reports) == 9
    assert flight.most == 6


def test_a_failed_input_frees_its_place_for_the_next(
    tmp_path: Path, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs = make_inputs(tmp_path / "in", 6)
    missing = [str(tmp_path / "in" / f"gone-{i}.warc.gz") for i in range(2)]
    ordered = [missing[0], *inputs[:3], missing[1], *inputs[3:]]
    flight = Flight(client, monkeypatch)
    result = run(client, ordered, tmp_path / "out", flight, window=2, retries=0)
    assert sorted(result.failed) == sorted(missing)
    assert sorted(r.warc_path for r in result.reports) == sorted(inputs)
    assert sorted(flight.submitted) == sorted(ordered)
    assert flight.most == 2


def test_inputs_already_done_are_not_submitted(
    tmp_path: Path, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs = make_inputs(tmp_path / "in", 6)
    out = tmp_path / "out"
    first = Flight(client, monkeypatch)
    run(client, inputs[:4], out, first, window=2)
    before = rows(out)
    again = Flight(client, monkeypatch)
    result = run(client, inputs, out, again, window=2)
    assert sorted(again.submitted) == sorted(inputs[4:])
    assert sorted(result.skipped) == sorted(inputs[:4])
    assert {input_stem(p) for p in again.submitted}.isdisjoint(input_stem(p) for p in inputs[:4])
    assert set(before) < set(rows(out))
