"""The model's nets run as one stack (`pipeline.learned.convnet.NetStack`, the compiled
`pipeline.learned.netwalk.nets_raw`) against the same nets run one by one, on random nets and
generated feature rows, on the shipped nets over a built page and real pages, and through the
model's probabilities."""

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
from pipeline.learned.convnet import ConvNet, logistic, net_from_spec, stack_nets
from pipeline.learned.features import page_features
from pipeline.learned.model import NeighboursModel, load_model, sigmoid
from tests.learned.test_convnet import random_spec
from tests.learned.test_netwalk import assert_same_logits

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "neighbours_expected.json"


@pytest.fixture(scope="module")
def compiled_kernel() -> None:
    if not compiled_modules()["pipeline.learned.netwalk"]:
        if os.environ.get("WARCCLEAN_REQUIRE_COMPILED") == "1":
            pytest.fail("pipeline.learned.netwalk is not compiled but WARCCLEAN_REQUIRE_COMPILED=1")
        pytest.skip("pipeline.learned.netwalk is not compiled here (no C compiler at install time)")


def random_nets(
    rng: np.random.Generator, count: int, columns: int, hidden: int, dilations: list[int]
) -> tuple[ConvNet, ...]:
    """``count`` random nets of one shape that standardise their inputs alike, as nets trained
    from different seeds on the same pages do."""
    specs = [random_spec(rng, columns, hidden, dilations, 3.0) for _ in range(count)]
    for spec in specs[1:]:
        spec.update(mean=specs[0]["mean"], scale=specs[0]["scale"])
    return tuple(net_from_spec(spec, columns + 2) for spec in specs)


def one_by_one_logits(raw: np.ndarray) -> np.ndarray:
    """The mean probability of nets whose logits are the rows of ``raw``, as `one_by_one` sums
    them."""
    probs = sigmoid(raw[0])
    for row in raw[1:]:
        probs += sigmoid(row)
    return probs / len(raw) if len(raw) > 1 else probs


def one_by_one(nets: tuple[ConvNet, ...], x: np.ndarray) -> np.ndarray:
    """The nets' mean probability as the model computed it before the stack."""
    return one_by_one_logits(np.stack([net.raw(x) for net in nets]))


@settings(max_examples=50, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    count=st.integers(1, 4),
    n=st.integers(0, 200),
    columns=st.integers(1, 10),
    hidden=st.sampled_from([1, 3, 8, 32]),
    dilations=st.lists(st.sampled_from([1, 2, 4, 8, 150, 10**6]), max_size=4),
)
@example(seed=0, count=3, n=1, columns=4, hidden=8, dilations=[1, 2, 4, 8])
@example(seed=1, count=2, n=0, columns=1, hidden=1, dilations=[])
@example(seed=1389, count=2, n=157, columns=10, hidden=8, dilations=[])
def test_stack_matches_the_nets_one_by_one_on_random_nets(
    compiled_kernel: None,
    seed: int,
    count: int,
    n: int,
    columns: int,
    hidden: int,
    dilations: list[int],
) -> None:
    rng = np.random.default_rng(seed)
    nets = random_nets(rng, count, columns, hidden, dilations)
    stack = stack_nets(nets)
    assert stack is not None and stack.compiled
    x = rng.normal(scale=3.0, size=(n, columns + 2))
    x[::5, 0] = 1e6  # clipped
    raw = stack.raw(x)
    assert raw.shape == (count, n)
    for k, net in enumerate(nets):
        assert_same_logits(raw[k], net.raw(x))
        assert_same_logits(raw[k], net.raw_numpy(x))
    mean = stack.mean_probability(x)
    # Its own logits averaged as the model averages the nets' probabilities, to the last bits.
    np.testing.assert_allclose(mean, one_by_one_logits(raw), rtol=0, atol=1e-12)
    # Against the nets run alone, the logits' float32 bound carried through the logistic, whose
    # slope is at most 1/4 (CI's derandomized draw, seed=1389 with two nets of 157 rows, found
    # probabilities 1.6e-6 apart from logits inside their bound).
    scale = max(1.0, float(np.abs(raw).max())) if raw.size else 1.0
    np.testing.assert_allclose(mean, one_by_one(nets, x), rtol=0, atol=1e-5 * scale / 4)


def test_the_numpy_path_runs_each_net_alone() -> None:
    rng = np.random.default_rng(3)
    nets = tuple(dataclasses.replace(n, compiled=False) for n in random_nets(rng, 3, 5, 4, [1, 2]))
    stack = stack_nets(nets)
    assert stack is not None and not stack.compiled
    for n in (0, 1, 9):
        x = rng.normal(size=(n, 7))
        raw = stack.raw(x)
        assert raw.shape == (3, n)
        for k, net in enumerate(nets):
            np.testing.assert_array_equal(raw[k], net.raw_numpy(x))
        np.testing.assert_array_equal(stack.mean_probability(x), one_by_one(nets, x))


def _built_page_rows() -> np.ndarray:
    built = json.loads(FIXTURE.read_text())["built_page"]
    blocks = segment(built["html"], record_runs=True)
    return page_features(blocks, stoplists.stoplist(built["stoplist"]))


def test_shipped_nets_stack_and_match_one_by_one_on_a_built_page(compiled_kernel: None) -> None:
    model = load_model()
    assert len(model.nets) > 1 and model._stack is not None
    x = _built_page_rows()
    rng = np.random.default_rng(5)
    for page in (x, x[:1], x[rng.integers(0, x.shape[0], 700)]):
        raw = model._stack.raw(page)
        for k, net in enumerate(model.nets):
            # The same float32 products as the net alone: equal to the bit on this machine's
            # BLAS, and within the kernel's tolerance on any.
            assert_same_logits(raw[k], net.raw(page))
        np.testing.assert_allclose(
            model.net_probabilities(page), one_by_one(model.nets, page), rtol=0, atol=1e-6
        )


def test_shipped_model_probabilities_match_the_nets_one_by_one_on_real_pages(
    compiled_kernel: None, wcxb_dir: Path
) -> None:
    model = load_model()
    alone = dataclasses.replace(model)
    object.__setattr__(alone, "_stack", None)  # the model as it ran before the stack
    stoplist = stoplists.stoplist("en")
    for path in sorted((wcxb_dir / "html").glob("*.html.gz"))[:40]:
        blocks = segment(parse(gzip.decompress(path.read_bytes())), record_runs=True)
        x = page_features(blocks, stoplist)
        got, want = model.probabilities(x, blocks), alone.probabilities(x, blocks)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)
        if blocks:
            np.testing.assert_array_equal(model.decide(got, blocks), alone.decide(want, blocks))


def test_nets_that_differ_are_not_stacked_and_still_averaged() -> None:
    rng = np.random.default_rng(8)
    nets = random_nets(rng, 2, 4, 3, [1, 2])
    other_mean = dataclasses.replace(nets[1], mean=nets[1].mean + 1.0)
    other_clip = dataclasses.replace(nets[1], clip=nets[1].clip + 1.0)
    other_dilation = dataclasses.replace(
        nets[1], convs=(nets[1].convs[0], (*nets[1].convs[1][:2], 4))
    )
    fewer_columns = net_from_spec(random_spec(rng, 3, 3, [1, 2], 3.0), 6)
    assert stack_nets(()) is None
    for odd in (other_mean, other_clip, other_dilation, fewer_columns):
        pair = (nets[0], odd)
        assert stack_nets(pair) is None
        model = NeighboursModel(
            scorer=load_model().scorer,
            threshold=0.5,
            fallback_ratio=0.0,
            metadata={},
            nets=pair,
            blend=0.5,
        )
        assert model._stack is None
        x = rng.normal(size=(6, 6))
        np.testing.assert_array_equal(model.net_probabilities(x), one_by_one(pair, x))


def test_kernel_refuses_stacked_arrays_that_do_not_fit(compiled_kernel: None) -> None:
    stack = load_model()._stack
    assert stack is not None
    x = _built_page_rows()
    taps, bias, d = stack.convs[0]
    broken = (
        dataclasses.replace(stack, w_in=stack.w_in[:, :-1]),
        dataclasses.replace(stack, b_out=stack.b_out[:-1]),
        dataclasses.replace(stack, w_page=stack.w_page[:-1]),
        dataclasses.replace(stack, convs=((taps[:-1], bias, d), *stack.convs[1:])),
        dataclasses.replace(stack, convs=((taps, bias, 0), *stack.convs[1:])),
    )
    for bad in broken:
        with pytest.raises(ValueError, match="do not fit together"):
            bad.raw(x)
    with pytest.raises(ValueError, match="do not have the net's"):
        stack.raw(x[:, :10])


def test_the_kernels_python_source_computes_the_stack() -> None:
    # Uncompiled (Python floats for the C floats), the kernel's source must compute the same
    # nets: the .py is the one source of its logic.
    source = load_source("pipeline.learned.netwalk")
    rng = np.random.default_rng(13)
    nets = random_nets(rng, 3, 4, 3, [1, 2, 9])
    stack = stack_nets(nets)
    assert stack is not None
    for n in (0, 1, 2, 11):
        x = rng.normal(scale=3.0, size=(n, 6))
        got = source.nets_raw(
            x,
            nets[0].columns,
            nets[0].mean,
            nets[0].inverse_scale,
            nets[0].clip,
            stack.w_in,
            stack.b_in,
            stack.convs,
            stack.w_page,
            stack.b_page,
            stack.w_block,
            stack.w_pooled,
            stack.b_out,
        )
        assert got.shape == (3, n)
        for k, net in enumerate(nets):
            assert got[k] == pytest.approx(net.raw_numpy(x), rel=1e-4, abs=1e-4)


def test_logistic_is_the_clipped_sigmoid_and_leaves_its_input() -> None:
    raw = np.array([-1e4, -600.0, -500.0, -3.5, 0.0, 1e-9, 2.25, 499.0, 800.0])
    before = raw.copy()
    want = 1.0 / (1.0 + np.exp(-np.clip(raw, -500.0, 500.0)))
    np.testing.assert_array_equal(logistic(raw), want)
    np.testing.assert_array_equal(raw, before)
    small = raw[3:8].astype(np.float32)  # where float32's exp does not overflow
    assert logistic(small).dtype == np.float32
