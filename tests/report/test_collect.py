"""`pipeline.report.collect`: histogram bins and throughput over time, against plain counting."""

from __future__ import annotations

from bisect import bisect_right
from datetime import datetime, timedelta, timezone

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from pipeline.report.collect import (
    LENGTH_EDGES,
    SHARE_EDGES,
    Histogram,
    InputSummary,
    parse_time,
    rate_over_time,
    sessions,
)

T0 = datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


@given(st.lists(st.integers(min_value=0, max_value=10**9), max_size=200))
def test_length_bins_count_every_value_once(values: list[int]) -> None:
    hist = Histogram.empty(LENGTH_EDGES, open_ended=True)
    hist.add_array(np.array(values, dtype=np.float64))
    expected = [0] * len(LENGTH_EDGES)
    for v in values:
        expected[bisect_right(LENGTH_EDGES, v) - 1] += 1
    assert hist.counts == expected and hist.total == len(values)


@given(st.lists(st.integers(min_value=1, max_value=500), min_size=1, max_size=100), st.data())
def test_share_bins_hold_one_in_the_last_bin(blocks: list[int], data: st.DataObject) -> None:
    good = [data.draw(st.integers(min_value=0, max_value=b)) for b in blocks]
    hist = Histogram.empty(SHARE_EDGES, open_ended=False)
    hist.add_array(np.array(good, dtype=np.float64) / np.array(blocks, dtype=np.float64))
    assert len(hist.counts) == 20 and hist.total == len(blocks)
    assert hist.counts[-1] >= sum(1 for g, b in zip(good, blocks, strict=True) if g == b)
    for g, b in zip(good, blocks, strict=True):
        # every share lands in [edge, next edge), 1.0 in the last bin
        i = hist.bin_index(g / b)
        assert SHARE_EDGES[i] <= g / b and (g / b < SHARE_EDGES[i + 1] or i == 19)


def test_quantile_is_the_lower_edge_of_its_bin() -> None:
    hist = Histogram.empty(SHARE_EDGES, open_ended=False)
    assert hist.quantile(0.5) is None
    hist.add_array(np.array([0.1, 0.12, 0.9]))
    assert hist.quantile(0.5) == 0.1 and hist.quantile(1.0) == 0.9


def _input(start: float, seconds: float, records: int) -> InputSummary:
    return InputSummary(
        warc_path=f"in-{start}-{seconds}",
        stem="s",
        records=records,
        docs=0,
        rejects=0,
        skipped=records,
        seconds=seconds,
        input_bytes=0,
        finished_at=T0 + timedelta(seconds=start + seconds),
        balanced=True,
    )


@given(
    st.lists(
        st.tuples(
            st.floats(min_value=0, max_value=500),
            st.floats(min_value=0, max_value=100),
            st.integers(min_value=0, max_value=10_000),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_rate_over_time_conserves_records(spans: list[tuple[float, float, int]]) -> None:
    inputs = [_input(*s) for s in spans]
    groups = sessions(inputs)
    assert sorted(i.warc_path for g in groups for i in g) == sorted(i.warc_path for i in inputs)
    for group in groups:
        edges, rates = rate_over_time(group)
        width = edges[1] - edges[0]
        assert all(r >= 0 for r in rates)
        total = sum(r * width for r in rates)
        assert abs(total - sum(i.records for i in group)) <= 1e-6 * max(1, total)


def test_sessions_split_at_gaps_and_join_overlaps() -> None:
    a, b = _input(0, 30, 10), _input(20, 30, 10)  # overlapping
    c = _input(50 + 30, 10, 10)  # within a minute of b's end
    d = _input(3600, 10, 10)  # an hour later: a resumed run
    assert [len(g) for g in sessions([d, c, b, a])] == [3, 1]


def test_parse_time() -> None:
    assert parse_time("2024-01-02T03:04:05Z") == T0
    assert parse_time("2024-01-02T03:04:05.000Z") == T0
    assert parse_time("yesterday") is None and parse_time(None) is None


def test_an_instant_input_lands_in_the_bin_of_its_time() -> None:
    # 20 bins of 2 s over 40 s: an input that took no time at 20.5 s adds its records to the
    # bin from 20 to 22 s.
    session = [_input(0, 40, 400), _input(20.5, 0, 30)]
    edges, rates = rate_over_time(session, bins=20)
    assert edges[10] == 20.0 and edges[-1] == 40.0
    assert rates[10] == 10 + 30 / 2 and set(rates[:10] + rates[11:]) == {10}


def test_records_per_second_of_an_input() -> None:
    assert _input(0, 0.5, 10).records_per_second == 20
    assert _input(0, 0, 10).records_per_second is None
