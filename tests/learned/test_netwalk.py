"""The compiled sequence-net kernel (`pipeline.learned.netwalk`) against the numpy code it replaces
(`ConvNet.raw_numpy`), on random nets and on the shipped model's nets over real pages."""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pipeline.compiled import compiled_modules, load_source
from pipeline.html.segment import parse, segment
from pipeline.lang import stoplists
from pipeline.learned.convnet import ConvNet, net_from_spec
from pipeline.learned.features import page_features
from pipeline.learned.model import load_model
from tests.learned.test_convnet import nets_and_pages, random_spec, reference_logits

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "neighbours_expected.json"


@pytest.fixture(scope="module")
def compiled_kernel() -> None:
    if not compiled_modules()["pipeline.learned.netwalk"]:
        if os.environ.get("WARCCLEAN_REQUIRE_COMPILED") == "1":
            pytest.fail("pipeline.learned.netwalk is not compiled but WARCCLEAN_REQUIRE_COMPILED=1")
        pytest.skip("pipeline.learned.netwalk is not compiled here (no C compiler at install time)")


def assert_same_logits(got: np.ndarray, want: np.ndarray) -> None:
    # The matrix products are the same numpy calls on both paths; only the page vector and the
    # last dot products are summed in another order: a few float32 steps (measured at most
    # 1.2e-6 of the largest logit over 400 random nets).
    assert got.dtype == np.float64 and got.shape == want.shape
    scale = max(1.0, float(np.abs(want).max())) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * scale)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(0, 300),
    columns=st.integers(1, 12),
    hidden=st.sampled_from([1, 2, 3, 8, 17, 32]),
    # Repeats, and dilations beyond any page here (a tap that reaches no block).
    dilations=st.lists(st.sampled_from([1, 2, 3, 4, 8, 16, 299, 300, 10**6]), max_size=4),
    extra=st.integers(0, 3),
)
@example(seed=0, n=1, columns=3, hidden=4, dilations=[1, 2], extra=0)
@example(seed=1, n=2, columns=3, hidden=4, dilations=[1, 1, 2, 8], extra=2)
@example(seed=2, n=0, columns=1, hidden=1, dilations=[1], extra=0)
def test_kernel_matches_numpy_on_random_nets(
    compiled_kernel: None,
    seed: int,
    n: int,
    columns: int,
    hidden: int,
    dilations: list[int],
    extra: int,
) -> None:
    rng = np.random.default_rng(seed)
    net = net_from_spec(
        random_spec(rng, columns, hidden, dilations, float(rng.choice([0.5, 2.0, 5.0]))),
        columns + extra,
    )
    assert net.compiled
    x = rng.normal(scale=3.0, size=(n, columns + extra))
    # Some values far outside the clip, some exactly at the mean (a zero input).
    x[::7, 0] = 1e6
    if n:
        x[-1, 0] = net.mean[0]
    assert_same_logits(net.raw(x), net.raw_numpy(x))


@settings(max_examples=60, deadline=None)
@given(nets_and_pages())
def test_numpy_path_matches_the_block_by_block_reference(case: tuple[dict, np.ndarray]) -> None:
    # tests/learned/test_convnet.py checks `raw` against the plain loops, which is the kernel
    # wherever it is compiled; the numpy path is held to the same reference here.
    spec, x = case
    net = net_from_spec(json.loads(json.dumps(spec)), x.shape[1])
    assert net.raw_numpy(x) == pytest.approx(reference_logits(spec, x.tolist()), rel=1e-4, abs=1e-3)


def _built_page_rows() -> np.ndarray:
    built = json.loads(FIXTURE.read_text())["built_page"]
    blocks = segment(built["html"], record_runs=True)
    return page_features(blocks, stoplists.stoplist(built["stoplist"]))


def _shipped_nets() -> tuple[ConvNet, ...]:
    nets = load_model().nets
    assert nets
    return nets


def test_kernel_matches_numpy_on_the_shipped_nets_and_a_built_page(compiled_kernel: None) -> None:
    x = _built_page_rows()
    assert x.shape[0] > 1
    rng = np.random.default_rng(5)
    # The page itself, a page of one block, and a long page made of its rows.
    pages = [x, x[:1], x[rng.integers(0, x.shape[0], 700)]]
    for net in _shipped_nets():
        assert net.compiled
        for page in pages:
            assert_same_logits(net.raw(page), net.raw_numpy(page))


def test_kernel_matches_numpy_on_the_shipped_nets_and_real_pages(
    compiled_kernel: None, wcxb_dir: Path
) -> None:
    stoplist = stoplists.stoplist("en")
    nets = _shipped_nets()
    for path in sorted((wcxb_dir / "html").glob("*.html.gz"))[:40]:
        blocks = segment(parse(gzip.decompress(path.read_bytes())), record_runs=True)
        x = page_features(blocks, stoplist)
        for net in nets:
            assert_same_logits(net.raw(x), net.raw_numpy(x))


def test_kernel_reads_only_the_nets_columns_and_leaves_x_alone(compiled_kernel: None) -> None:
    net = _shipped_nets()[0]
    x = _built_page_rows()
    clean = x.copy()
    clean[:, net.columns :] = 0.0
    want = net.raw(clean)
    noisy = x.copy()
    noisy[:, net.columns :] = np.nan
    noisy[::2, net.columns :] = np.inf
    before = noisy.copy()
    np.testing.assert_array_equal(net.raw(noisy), want)
    np.testing.assert_array_equal(noisy, before)
    # Any layout and float dtype of the same values: a column slice of a wider array, Fortran
    # order, float32 rows (the net casts to float32 first either way).
    wide = np.hstack((noisy, np.full((x.shape[0], 5), np.nan)))
    np.testing.assert_array_equal(net.raw(wide[:, : x.shape[1]]), want)
    np.testing.assert_array_equal(net.raw(np.asfortranarray(noisy)), want)
    assert_same_logits(net.raw(clean.astype(np.float32)), net.raw_numpy(clean.astype(np.float32)))


def _misfits(net: ConvNet) -> tuple[ConvNet, ...]:
    """``net`` with one array of the wrong shape or rank, or a dilation of 0."""
    taps, bias, d = net.convs[0]
    return (
        dataclasses.replace(net, w_page=net.w_page[:-1]),
        dataclasses.replace(net, b_in=net.b_in[:-1]),
        dataclasses.replace(net, b_in=net.b_in[None, :]),
        dataclasses.replace(net, convs=((taps[:, :-1], bias, d), *net.convs[1:])),
        dataclasses.replace(net, convs=((taps[None], bias, d), *net.convs[1:])),
        dataclasses.replace(net, convs=((taps, bias, 0),)),
    )


def test_kernel_refuses_rows_and_arrays_that_do_not_fit(compiled_kernel: None) -> None:
    net = _shipped_nets()[0]
    x = _built_page_rows()
    with pytest.raises(ValueError, match="do not have the net's"):
        net.raw(x[:, : net.columns - 1])
    with pytest.raises(ValueError, match="do not have the net's"):
        net.raw(x[0])
    for bad in _misfits(net):
        with pytest.raises(ValueError, match="do not fit together"):
            bad.raw(x)


def _source_raw(source, net: ConvNet, x: np.ndarray) -> np.ndarray:
    fields = (net.columns, net.mean, net.inverse_scale, net.clip, net.w_in, net.b_in, net.convs)
    return source.net_raw(x, *fields, net.w_page, net.b_page, net.w_block, net.w_pooled, net.b_out)


def test_the_kernels_python_source_refuses_what_does_not_fit() -> None:
    # The checks that keep the compiled kernel (no bounds checks) from reading past an array
    # are in its source: without a C compiler they must still raise, and say why.
    source = load_source("pipeline.learned.netwalk")
    net = _shipped_nets()[0]
    x = _built_page_rows()
    for rows in (x[:, : net.columns - 1], x[0]):
        with pytest.raises(ValueError, match="do not have the net's"):
            _source_raw(source, net, rows)
    for bad in _misfits(net):
        with pytest.raises(ValueError, match="do not fit together"):
            _source_raw(source, bad, x)


def test_the_kernels_python_source_computes_the_same_logits() -> None:
    # The .py is the one source of the kernel's logic; uncompiled (in float64 where Python
    # floats stand in for the C floats) it must still compute the net.
    source = load_source("pipeline.learned.netwalk")
    rng = np.random.default_rng(11)
    # Several nets of three widths: with one small net, every unit of its page vector can sit on
    # one side of the ReLU, and a wrong cut-off there went unseen.
    for hidden in (1, 3, 8, 3, 8):
        net = net_from_spec(random_spec(rng, 4, hidden, [1, 2, 2, 9], 5.0), 6)
        for n in (0, 1, 2, 13):
            x = rng.normal(scale=3.0, size=(n, 6))
            got = _source_raw(source, net, x)
            assert got == pytest.approx(net.raw_numpy(x), rel=1e-4, abs=1e-4)


def test_the_numpy_path_is_the_default_only_without_the_kernel() -> None:
    net = _shipped_nets()[0]
    assert net.compiled == compiled_modules()["pipeline.learned.netwalk"]
    x = _built_page_rows()
    np.testing.assert_array_equal(dataclasses.replace(net, compiled=False).raw(x), net.raw_numpy(x))
