"""The `density-mlp` cleaner's project variant: the mean-density filter, then an MLP over each
block's neighbours (the paper variant, the default: tests/cleaners/test_paper_variants.py)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.clean import clean_html
from pipeline.cleaners.density import MeanDensityCleaner
from pipeline.cleaners.registry import make_cleaner
from pipeline.html.segment import segment
from pipeline.learned.density_mlp import (
    DEFAULT_MODEL,
    FEATURE_NAMES,
    FORMAT,
    DensityMlpCleaner,
    line_features,
    load_model,
)
from pipeline.learned.model import ModelError
from pipeline.types import Block, Verdict
from tests.cleaners.test_bte import PAGE


def block(index: int, chars: int, markup: int) -> Block:
    return Block(index, "x" * chars, "p", "body.p", "p", False, chars, 1, 0, 1, markup)


def test_line_features_are_three_numbers_of_the_previous_this_and_the_next_block() -> None:
    blocks = [block(0, 30, 10), block(1, 0, 5), block(2, 100, 0)]
    x = line_features(blocks)
    assert x.shape == (3, 9)
    own = [
        [30 / 40, math.log1p(40), math.log1p(30)],
        [0.0, math.log1p(5), 0.0],
        [1.0, math.log1p(100), math.log1p(100)],
    ]
    zeros = [0.0, 0.0, 0.0]
    expected = [zeros + own[0] + own[1], own[0] + own[1] + own[2], own[1] + own[2] + zeros]
    np.testing.assert_allclose(x, expected)
    assert line_features([]).shape == (0, 9)


def model_file(tmp_path: Path, threshold: float = 0.5) -> str:
    """A one-unit network whose probability rises with the block's own density only."""
    width = len(FEATURE_NAMES)
    first = [[0.0] for _ in range(width)]
    first[FEATURE_NAMES.index("cur_density")] = [10.0]
    spec = {
        "kind": "mlp",
        "mean": [0.0] * width,
        "scale": [1.0] * width,
        "weights": [first, [[1.0]]],
        "biases": [[-8.0], [0.0]],  # density 0.8 is the even point
    }
    doc = {"format": FORMAT, "features": list(FEATURE_NAMES), "threshold": threshold, "mlp": spec}
    path = tmp_path / "density-mlp.json"
    path.write_text(json.dumps(doc))
    return str(path)


def test_the_filter_decides_first_and_the_network_judges_only_what_it_kept(tmp_path: Path) -> None:
    # densities 0.9, 0.85, 0.5, 0.95, 0.05: the page's mean is 0.65
    blocks = [
        block(0, 90, 10),
        block(1, 85, 15),
        block(2, 50, 50),
        block(3, 95, 5),
        block(4, 5, 95),
    ]
    labeled = DensityMlpCleaner(model=model_file(tmp_path), variant="project").label(blocks, None)
    good, bad = Verdict.GOOD, Verdict.BAD
    assert [lb.verdict for lb in labeled] == [good, good, bad, good, bad]
    assert labeled[2].score is None and labeled[4].score is None  # dropped by the filter
    assert labeled[1].score == pytest.approx(1 / (1 + math.exp(-(10 * 0.85 - 8))))
    strict = DensityMlpCleaner(model=model_file(tmp_path), threshold=0.7, variant="project")
    assert [lb.verdict is Verdict.GOOD for lb in strict.label(blocks, None)] == [
        True,
        False,
        False,
        True,
        False,
    ]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 300), st.integers(0, 300)), max_size=25),
    st.floats(0.0, 1.0),
)
def test_keeps_a_subset_of_the_filter_and_labels_every_block_once(
    sizes: list[tuple[int, int]], threshold: float
) -> None:
    blocks = [block(i, c, m) for i, (c, m) in enumerate(sizes)]
    labeled = DensityMlpCleaner(threshold=threshold, variant="project").label(blocks, None)
    assert [lb.block for lb in labeled] == blocks
    first = MeanDensityCleaner().label(blocks, None)
    for lb, f in zip(labeled, first, strict=True):
        if lb.verdict is Verdict.GOOD:
            assert f.verdict is Verdict.GOOD and lb.score >= threshold


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "other/1"}, "not a warcclean-density-mlp"),
        ({"features": ["a"]}, "other features"),
        ({"threshold": 2}, "threshold"),
        ({"mlp": {"kind": "mlp", "weights": [[[1.0]]], "biases": [[0.0]]}}, "'mean'"),
        ({"mlp": {"kind": "mlp", "mean": [0.0] * 9, "scale": [1.0] * 9}}, "MLP weights"),
    ],
)
def test_malformed_models_are_refused_with_the_reason(
    tmp_path: Path, change: dict, message: str
) -> None:
    doc = json.loads(Path(model_file(tmp_path)).read_text())
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({**doc, **change}))
    with pytest.raises(ModelError, match=message):
        load_model(str(path))


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "not found"), ("{not json", "is not JSON"), ("[1, 2]", "is not a JSON object")],
)
def test_a_model_file_that_is_missing_or_no_json_object_is_refused(
    tmp_path: Path, content: str | None, message: str
) -> None:
    path = tmp_path / "model.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ModelError, match=f"^model file {re.escape(str(path))} {message}"):
        load_model(str(path))


def test_the_shipped_model_loads_without_pickle_and_keeps_the_article_of_a_built_page() -> None:
    assert Path(DEFAULT_MODEL).stat().st_size < 100_000
    model = load_model()
    assert model.metadata["first_stage"] == "density-mean"
    labeled = DensityMlpCleaner(variant="project").label(segment(PAGE), None)
    good = [lb.block.text for lb in labeled if lb.verdict is Verdict.GOOD]
    assert sum("Paragraph" in t for t in good) >= 5
    assert not any("Section" in t or "Link" in t for t in good)
    assert make_cleaner("density-mlp").params() == {}
    assert make_cleaner("density-mlp", variant="project").params() == {"variant": "project"}
    result = clean_html(PAGE.encode(), cleaner="density-mlp", variant="project")
    assert result.cleaner == "density-mlp" and "Paragraph 4 of the story" in result.text
