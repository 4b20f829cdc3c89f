"""The `neighbours` cleaner: model files as data, numpy inference, and a regression fixture."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pipeline.cleaners import make_cleaner
from pipeline.features import FEATURE_NAMES, N_FEATURES, page_features
from pipeline.learned import (
    DEFAULT_MODEL,
    FORMAT,
    ModelError,
    NeighboursCleaner,
    load_model,
    model_from_json,
)
from pipeline.segment import segment
from pipeline.types import Verdict

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "data" / "neighbours_expected.json"
LOG_CHARS = FEATURE_NAMES.index("log_chars")


def stump(threshold: float = 3.0) -> dict:
    """One tree: log_chars <= threshold -> -2.0 (boilerplate), else +2.0 (content)."""
    return {
        "format": FORMAT,
        "features": list(FEATURE_NAMES),
        "threshold": 0.5,
        "fallback_ratio": 0.5,
        "model": {
            "kind": "trees",
            "baseline": 0.0,
            "depth": 1,
            "feature": [[LOG_CHARS, 0, 0]],
            "threshold": [[threshold, 0.0, 0.0]],
            "left": [[1, 1, 2]],
            "right": [[2, 1, 2]],
            "value": [[0.0, -2.0, 2.0]],
        },
        "metadata": {},
    }


def test_tree_inference_by_hand():
    model = model_from_json(stump())
    x = np.zeros((3, N_FEATURES))
    x[:, LOG_CHARS] = [1.0, 3.0, 5.0]
    expected = 1 / (1 + np.exp([2.0, 2.0, -2.0]))
    assert model.probabilities(x) == pytest.approx(expected)
    assert model.decide(model.probabilities(x)).tolist() == [False, False, True]


def test_fallback_keeps_the_most_likely_block():
    model = model_from_json(stump())
    probs = np.array([0.1, 0.3, 0.2])
    assert model.decide(probs).tolist() == [False, True, True]  # >= 0.5 * 0.3
    assert model.decide(np.zeros(0)).tolist() == []


def test_mlp_inference_by_hand():
    w1 = np.zeros((N_FEATURES, 2))
    w1[LOG_CHARS, 0] = 1.0
    doc = {
        "format": FORMAT,
        "features": list(FEATURE_NAMES),
        "threshold": 0.5,
        "model": {
            "kind": "mlp",
            "mean": [0.0] * N_FEATURES,
            "scale": [1.0] * N_FEATURES,
            "weights": [w1.tolist(), [[1.0], [5.0]]],
            "biases": [[-2.0, 0.0], [0.0]],
        },
    }
    model = model_from_json(doc)
    x = np.zeros((2, N_FEATURES))
    x[:, LOG_CHARS] = [1.0, 4.0]
    # hidden = relu(log_chars - 2) -> [0, 2]; output = hidden -> logits [0, 2]
    assert model.probabilities(x) == pytest.approx([0.5, 1 / (1 + np.exp(-2.0))])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "other/1"}, "not a"),
        ({"features": ["a", "b"]}, "different features"),
        ({"model": {"kind": "forest"}}, "unknown model kind"),
    ],
)
def test_bad_model_documents_are_refused(change, message):
    doc = stump() | change
    with pytest.raises(ModelError, match=message):
        model_from_json(doc)


def test_out_of_range_tree_indices_are_refused():
    doc = stump()
    doc["model"]["left"] = [[7, 1, 2]]
    with pytest.raises(ModelError, match="child index"):
        model_from_json(doc)


def test_missing_and_broken_files(tmp_path):
    with pytest.raises(ModelError, match="not found"):
        load_model(tmp_path / "absent.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(ModelError, match="not valid JSON"):
        load_model(broken)


def test_shipped_model_loads_without_sklearn_or_pickle():
    # A fresh interpreter where importing scikit-learn fails and pickle loading is refused:
    # the model file is plain JSON, read by numpy code.
    code = (
        "import sys, pickle\n"
        "sys.modules['sklearn'] = None\n"
        "def refuse(*a, **k):\n    raise AssertionError('pickle used')\n"
        "pickle.load = pickle.loads = refuse\n"
        "from pipeline.learned import load_model\n"
        "m = load_model()\n"
        "print(m.metadata['model'])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    )
    assert out.stdout.strip()
    json.loads(DEFAULT_MODEL.read_text())  # data, not code


def test_shipped_model_metadata_records_split_and_licence():
    meta = load_model().metadata
    assert meta["split"]["seed"] is not None
    assert meta["split"]["test_ids"]
    assert any("CC-BY-4.0" in lic for lic in meta["licences"])


def test_regression_built_page_labels_match_training_time():
    """Regression test: labels the shipped model gave this page when it was trained."""
    from pipeline import stoplists

    fixture = json.loads(FIXTURE.read_text())
    built = fixture["built_page"]
    blocks = segment(built["html"], record_runs=True)
    labels = NeighboursCleaner().label(blocks, stoplists.stoplist(built["stoplist"]))
    assert [int(lb.verdict is Verdict.GOOD) for lb in labels] == built["labels"]


def test_regression_wcxb_pages_match_training_time(wcxb_dir):
    """Regression test on real held-out pages (skips without ../shared)."""
    import gzip

    from pipeline import stoplists

    train = _train_module()
    fixture = json.loads(FIXTURE.read_text())["wcxb_pages"]
    assert fixture
    stop = stoplists.stoplist("en")
    cleaner = NeighboursCleaner()
    for page_id, expected in fixture.items():
        raw = gzip.decompress((wcxb_dir / "html" / f"{page_id}.html.gz").read_bytes())
        blocks = segment(train._decode(raw), record_runs=True)
        got = [int(lb.verdict is Verdict.GOOD) for lb in cleaner.label(blocks, stop)]
        assert got == expected, page_id


def test_cleaner_is_registered_and_labels_a_page():
    cleaner = make_cleaner("neighbours", threshold=0.99)
    assert cleaner.params() == {"threshold": 0.99}
    blocks = segment(json.loads(FIXTURE.read_text())["built_page"]["html"], record_runs=True)
    labels = cleaner.label(blocks, None)
    assert len(labels) == len(blocks)
    assert all(0.0 <= lb.score <= 1.0 for lb in labels)
    with pytest.raises(ValueError, match="threshold"):
        NeighboursCleaner(threshold=2.0)


def _train_module():
    spec = importlib.util.spec_from_file_location(
        "train_cleaner", REPO / "jobs" / "train_cleaner.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("train_cleaner", module)  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_exported_trees_match_sklearn():
    sklearn = pytest.importorskip("sklearn.ensemble")
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, N_FEATURES))
    y = (x[:, 0] + 0.5 * x[:, 3] - x[:, 7] > 0).astype(int)
    clf = sklearn.HistGradientBoostingClassifier(max_iter=20, max_depth=4, random_state=0)
    clf.fit(x, y)
    train = _train_module()
    doc = train.model_document(train.export_trees(clf), 0.5, 0.0, {})
    model = model_from_json(json.loads(json.dumps(doc)))
    assert model.probabilities(x) == pytest.approx(clf.predict_proba(x)[:, 1], abs=1e-9)


def test_features_of_empty_page_give_no_labels():
    assert NeighboursCleaner().label([], None) == []
    assert page_features([], None).shape == (0, N_FEATURES)
