"""The sequence net of the `neighbours` model (`pipeline.learned.convnet`): inference against a
plain per-block reference, clipping, the spec's validation, and its blend into a model."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.learned.columns import N_FEATURES
from pipeline.learned.convnet import NetError, net_from_spec
from pipeline.learned.model import ModelError, load_model, model_from_json, sigmoid
from pipeline.threads import BLAS_THREAD_VARIABLES


def by_hand_spec() -> dict:
    """One feature column, one channel: the block's value, plus (ReLU of) the value two blocks
    before it, plus the page's mean."""
    return {
        "kind": "dilated-conv",
        "columns": 1,
        "hidden": 1,
        "clip": 100.0,
        "mean": [0.0],
        "scale": [1.0],
        "w_in": [[1.0]],
        "b_in": [0.0],
        "convs": [{"weight": [[1.0], [0.0], [0.0]], "bias": [0.0], "dilation": 2}],
        "w_page": [[1.0], [0.0]],
        "b_page": [0.0],
        "w_out": [1.0, 1.0],
        "b_out": 0.0,
    }


def test_inference_by_hand():
    net = net_from_spec(by_hand_spec(), N_FEATURES)
    x = np.zeros((4, N_FEATURES))
    x[:, 0] = [1.0, 2.0, 3.0, 4.0]
    # After the input layer h = [1, 2, 3, 4]; the conv adds h[t - 2] where it exists:
    # [1, 2, 4, 6]; the page's mean 3.25 is added to every block.
    assert net.raw(x) == pytest.approx([4.25, 5.25, 7.25, 9.25])
    assert net.raw(np.zeros((0, N_FEATURES))).shape == (0,)


def test_features_are_standardised_and_clipped():
    spec = by_hand_spec()
    spec.update(mean=[10.0], scale=[2.0], clip=3.0)
    net = net_from_spec(spec, N_FEATURES)
    x = np.zeros((2, N_FEATURES))
    x[:, 0] = [12.0, 1e6]  # standardised 1.0 and 499995 -> clipped to 3.0
    # h = [1, 3]; no block two before either; mean 2.0
    assert net.raw(x) == pytest.approx([3.0, 5.0])
    x[1, 0] = 1e3
    assert net.raw(x) == pytest.approx([3.0, 5.0])


def reference_logits(spec: dict, x: np.ndarray) -> np.ndarray:
    """The net written block by block and channel by channel, with no vectorisation."""
    columns, hidden = spec["columns"], spec["hidden"]
    n = len(x)
    h = []
    for t in range(n):
        z = [
            min(max((x[t][c] - spec["mean"][c]) / spec["scale"][c], -spec["clip"]), spec["clip"])
            for c in range(columns)
        ]
        h.append(
            [
                max(0.0, spec["b_in"][o] + sum(z[c] * spec["w_in"][c][o] for c in range(columns)))
                for o in range(hidden)
            ]
        )
    for layer in spec["convs"]:
        d, w = layer["dilation"], layer["weight"]
        new = []
        for t in range(n):
            row = []
            for o in range(hidden):
                total = layer["bias"][o]
                for tap, source in enumerate((t - d, t, t + d)):
                    if 0 <= source < n:
                        total += sum(h[source][i] * w[tap * hidden + i][o] for i in range(hidden))
                row.append(h[t][o] + max(0.0, total))
            new.append(row)
        h = new
    pooled = [sum(h[t][i] for t in range(n)) / n for i in range(hidden)]
    pooled += [max(h[t][i] for t in range(n)) for i in range(hidden)]
    page = [
        max(
            0.0,
            spec["b_page"][o] + sum(pooled[i] * spec["w_page"][i][o] for i in range(2 * hidden)),
        )
        for o in range(hidden)
    ]
    out = spec["w_out"]
    return np.array(
        [
            spec["b_out"]
            + sum(h[t][i] * out[i] for i in range(hidden))
            + sum(page[i] * out[hidden + i] for i in range(hidden))
            for t in range(n)
        ]
    )


def random_spec(
    rng: np.random.Generator, columns: int, hidden: int, dilations: list[int], clip: float
) -> dict:
    """A net of the given shape with normal random weights, as a JSON-like spec."""

    def r(*shape: int) -> list:
        return rng.normal(size=shape).tolist()

    return {
        "kind": "dilated-conv",
        "columns": columns,
        "hidden": hidden,
        "clip": clip,
        "mean": r(columns),
        "scale": rng.uniform(0.5, 2.0, size=columns).tolist(),
        "w_in": r(columns, hidden),
        "b_in": r(hidden),
        "convs": [
            {"weight": r(3 * hidden, hidden), "bias": r(hidden), "dilation": d} for d in dilations
        ],
        "w_page": r(2 * hidden, hidden),
        "b_page": r(hidden),
        "w_out": r(2 * hidden),
        "b_out": float(rng.normal()),
    }


@st.composite
def nets_and_pages(draw):
    columns = draw(st.integers(1, 4))
    hidden = draw(st.integers(1, 3))
    dilations = draw(st.lists(st.sampled_from([1, 2, 3, 4, 8]), min_size=0, max_size=3))
    n = draw(st.integers(1, 12))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    clip = float(draw(st.sampled_from([0.5, 2.0, 5.0])))
    spec = random_spec(rng, columns, hidden, dilations, clip)
    x = rng.normal(scale=3.0, size=(n, columns + draw(st.integers(0, 3))))
    return spec, x


@settings(max_examples=150, deadline=None)
@given(nets_and_pages())
def test_matches_the_block_by_block_reference(case):
    # Pages shorter than a dilation, several layers of the same dilation, channels mixing:
    # the vectorised taps must read exactly the blocks the plain loop reads (to float32's
    # precision: the net runs in float32, the reference in Python floats).
    spec, x = case
    net = net_from_spec(json.loads(json.dumps(spec)), x.shape[1])
    assert net.raw(x) == pytest.approx(reference_logits(spec, x.tolist()), rel=1e-4, abs=1e-3)


def test_a_block_sees_only_its_receptive_field_and_the_page_pooling():
    # Without the page pooling (zero output weights on it), dilations 1 and 2 reach 3 blocks
    # either side: changing block 0 must leave blocks 4 and on untouched.
    rng = np.random.default_rng(3)
    hidden = 2
    spec = by_hand_spec()
    spec.update(
        hidden=hidden,
        w_in=rng.normal(size=(1, hidden)).tolist(),
        b_in=[0.5, 0.5],
        convs=[
            {
                "weight": rng.normal(size=(3 * hidden, hidden)).tolist(),
                "bias": [0.1, 0.1],
                "dilation": d,
            }
            for d in (1, 2)
        ],
        w_page=np.zeros((2 * hidden, hidden)).tolist(),
        b_page=[0.0, 0.0],
        w_out=[1.0, -1.0, 0.0, 0.0],
    )
    net = net_from_spec(spec, 1)
    x = rng.normal(size=(10, 1))
    changed = x.copy()
    changed[0, 0] += 5.0
    a, b = net.raw(x), net.raw(changed)
    assert (a[4:] == b[4:]).all()
    assert not np.allclose(a[:4], b[:4])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s.update(kind="lstm"), "unknown sequence model kind"),
        (lambda s: s.update(columns=N_FEATURES + 1), "feature columns"),
        (lambda s: s.update(hidden=0), "'hidden' must be a positive"),
        (lambda s: s.update(clip=True), "'clip' must be a positive"),
        (lambda s: s.update(w_in=[[1.0, 2.0]]), "'w_in' has shape"),
        (lambda s: s.update(mean=["a"]), "'mean' is missing or not numeric"),
        (lambda s: s.update(scale=[0.0]), "'scale' must be positive"),
        (lambda s: s.update(b_out=float("nan")), "non-finite"),
        (lambda s: s.update(convs={"weight": 1}), "list of objects"),
        (lambda s: s["convs"][0].update(dilation=1.5), "'dilation' must be an integer"),
        (lambda s: s["convs"][0].update(weight=[[1.0]]), "'weight' has shape"),
        (lambda s: s.pop("w_page"), "'w_page' is missing"),
    ],
)
def test_bad_specs_are_refused(change, message):
    spec = copy.deepcopy(by_hand_spec())
    change(spec)
    with pytest.raises(NetError, match=message):
        net_from_spec(spec, N_FEATURES)


def stump_with_net(blend: float) -> dict:
    """The trees: one leaf of value 1.0 for every block; the net: `by_hand_spec`."""
    from pipeline.learned.columns import FEATURE_NAMES
    from pipeline.learned.model import FORMAT

    return {
        "format": FORMAT,
        "features": list(FEATURE_NAMES),
        "threshold": 0.5,
        "fallback_ratio": 0.0,
        "model": {
            "kind": "trees",
            "baseline": 0.0,
            "depth": 0,
            "feature": [[0]],
            "threshold": [[0.0]],
            "left": [[0]],
            "right": [[0]],
            "value": [[1.0]],
        },
        "sequence": {"blend": blend, "model": by_hand_spec()},
        "metadata": {},
    }


def test_model_blends_the_trees_and_the_net():
    x = np.zeros((4, N_FEATURES))
    x[:, 0] = [-8.0, -2.0, 0.0, 1.0]
    # The net alone: h = relu(x) = [0, 0, 0, 1], nothing two before a positive block, mean
    # 0.25: logits [0.25, 0.25, 0.25, 1.25]. The trees: logit 1.0 everywhere.
    net_p = sigmoid(np.array([0.25, 0.25, 0.25, 1.25]))
    tree_p = sigmoid(np.ones(4))
    for blend in (0.3, 1.0):
        model = model_from_json(stump_with_net(blend))
        assert model.probabilities(x) == pytest.approx((1 - blend) * tree_p + blend * net_p)


@pytest.mark.parametrize("blend", [0, -0.1, 1.5, "half", True, None])
def test_bad_blends_are_refused(blend):
    with pytest.raises(ModelError, match=r"sequence\.blend"):
        model_from_json(stump_with_net(blend))


def test_several_nets_are_averaged_as_probabilities():
    x = np.zeros((4, N_FEATURES))
    x[:, 0] = [-8.0, -2.0, 0.0, 1.0]
    doubled = by_hand_spec()
    doubled["w_out"] = [2.0, 2.0]  # twice the logits of `by_hand_spec`
    doc = stump_with_net(0.5)
    doc["sequence"] = {"blend": 0.5, "models": [by_hand_spec(), doubled]}
    model = model_from_json(doc)
    assert len(model.nets) == 2
    logits = np.array([0.25, 0.25, 0.25, 1.25])
    # The mean of the two nets' probabilities, not the probability of their mean logit.
    nets_p = (sigmoid(logits) + sigmoid(2 * logits)) / 2
    assert model.net_probabilities(x) == pytest.approx(nets_p)
    assert not np.allclose(nets_p, sigmoid(1.5 * logits))
    assert model.probabilities(x) == pytest.approx(0.5 * sigmoid(np.ones(4)) + 0.5 * nets_p)


def test_one_net_under_model_reads_as_a_list_of_one():
    one = model_from_json(stump_with_net(0.5))
    doc = stump_with_net(0.5)
    doc["sequence"] = {"blend": 0.5, "models": [by_hand_spec()]}
    listed = model_from_json(doc)
    x = np.zeros((3, N_FEATURES))
    x[:, 0] = [0.5, -1.0, 2.0]
    assert len(one.nets) == len(listed.nets) == 1
    assert one.probabilities(x) == pytest.approx(listed.probabilities(x))


@pytest.mark.parametrize(
    "section, message",
    [
        ({"blend": 0.5}, "exactly one of 'model' and 'models'"),
        ({"blend": 0.5, "model": {}, "models": []}, "exactly one of 'model' and 'models'"),
        ({"blend": 0.5, "models": []}, "non-empty list"),
        ({"blend": 0.5, "models": {"kind": "dilated-conv"}}, "non-empty list"),
    ],
)
def test_bad_net_lists_are_refused(section, message):
    doc = stump_with_net(0.5)
    doc["sequence"] = section
    with pytest.raises(ModelError, match=message):
        model_from_json(doc)


def test_net_errors_reach_the_model_loader_as_model_errors():
    doc = stump_with_net(0.5)
    doc["sequence"]["model"]["w_out"] = [1.0]
    with pytest.raises(ModelError, match=r"sequence net #0: .*'w_out' has shape"):
        model_from_json(doc)
    broken = by_hand_spec()
    broken["convs"][0]["dilation"] = 0
    doc["sequence"] = {"blend": 0.5, "models": [by_hand_spec(), broken]}
    with pytest.raises(ModelError, match=r"sequence net #1: .*'dilation'"):
        model_from_json(doc)
    doc["sequence"] = [1, 2]
    with pytest.raises(ModelError, match="'sequence' must be an object"):
        model_from_json(doc)


def test_shipped_model_uses_sequence_nets():
    model = load_model()
    assert model.nets
    assert 0.0 < model.blend <= 1.0
    shape = model.metadata["sequence_net"]
    assert shape["nets"] == len(model.nets)
    assert all(net.b_in.shape[0] == shape["hidden"] for net in model.nets)


def _blas_threads_after_cli_import(env: dict[str, str]) -> str:
    code = (
        "import pipeline.cli, numpy, threadpoolctl\n"
        "print([p['num_threads'] for p in threadpoolctl.threadpool_info()"
        " if p['user_api'] == 'blas'])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    return out.stdout.strip()


def test_the_command_line_runs_one_blas_thread_unless_told_otherwise():
    # The net's small products gain nothing from a BLAS pool whose spinning threads burn a
    # core (pipeline.threads); the CLI asks for one thread, as Dask's nanny does for workers.
    env = {k: v for k, v in os.environ.items() if k not in BLAS_THREAD_VARIABLES}
    assert _blas_threads_after_cli_import(env) == "[1]"
    assert _blas_threads_after_cli_import({**env, "OPENBLAS_NUM_THREADS": "2"}) == "[2]"
