"""The `density-lm` cleaner: Pal's density filter, then class language models on what it kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.clean import clean_html
from pipeline.cleaners.density import StddevDensityCleaner
from pipeline.cleaners.density_lm import DEFAULT_MODEL, DensityLmCleaner
from pipeline.cleaners.ngram import NgramModel, NgramModelError, save_model, train_lm
from pipeline.cleaners.registry import make_cleaner
from pipeline.html.segment import segment
from pipeline.types import Block, Verdict
from tests.cleaners.test_bte import PAGE

CONTENT = [
    "The river carved the valley over thousands of years, and farmers followed it downstream.",
    "Historians say the first settlers built their houses on the upper terraces of the hill.",
    "Every autumn the villages hold a market where growers sell the harvest of the year.",
] * 5
BOILER = ["Home", "Contact us", "Privacy policy", "Log in", "Share on Facebook", "Next page"] * 5


@pytest.fixture(scope="module")
def model_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    lm = NgramModel(train_lm(CONTENT, 4, 14, 2.0), train_lm(BOILER, 4, 14, 2.0), 0.0, {})
    path = tmp_path_factory.mktemp("m") / "density-lm.npz"
    save_model(lm, path)
    return str(path)


def block(index: int, text: str, markup: int) -> Block:
    return Block(index, text, "p", "body.p", "p", False, len(text), len(text.split()), 0, 1, markup)


def test_the_filter_decides_first_and_the_models_judge_only_what_it_kept(model_path: str) -> None:
    article = "The settlers followed the river into the valley and built their houses there."
    links = "Home | Contact us | Privacy policy | Log in | Share on Facebook | Next page | Home"
    blocks = [
        block(0, "The settlers followed the river.", 2),  # content, but under 60 characters
        block(1, article, 10),
        block(2, links, 12),  # long and dense enough for the filter; boilerplate to the models
        block(3, article + " Again.", 900),  # content, but buried in markup
    ]
    labeled = DensityLmCleaner(model=model_path).label(blocks, None)
    assert [lb.verdict for lb in labeled] == [Verdict.BAD, Verdict.GOOD, Verdict.BAD, Verdict.BAD]
    # Blocks the filter dropped have no score; the judged ones carry their likelihood ratio.
    assert labeled[0].score is None and labeled[3].score is None
    assert labeled[1].score > 0 > labeled[2].score


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(CONTENT[:3] + BOILER[:6] + ["", "x" * 80, " ".join(BOILER[:6]) * 3]),
            st.integers(0, 400),
        ),
        max_size=20,
    ),
    st.floats(-1.0, 1.0),
)
def test_keeps_a_subset_of_the_filter_and_labels_every_block_once(
    model_path: str, spec: list[tuple[str, int]], threshold: float
) -> None:
    blocks = [block(i, text, markup) for i, (text, markup) in enumerate(spec)]
    labeled = DensityLmCleaner(model=model_path, threshold=threshold).label(blocks, None)
    assert [lb.block for lb in labeled] == blocks
    first = StddevDensityCleaner().label(blocks, None)
    for lb, f in zip(labeled, first, strict=True):
        if lb.verdict is Verdict.GOOD:
            assert f.verdict is Verdict.GOOD and lb.score >= threshold
        elif f.verdict is Verdict.GOOD:
            assert lb.score < threshold


def test_params_record_only_what_differs_from_the_defaults(model_path: str) -> None:
    assert DensityLmCleaner().params() == {}
    cleaner = make_cleaner("density-lm", threshold=0.25, model=model_path, min_chars=40)
    assert cleaner.params() == {
        "threshold": 0.25,
        "model": model_path,
        "base": 0.5,
        "min_chars": 40,
    }
    with pytest.raises(ValueError):
        make_cleaner("density-lm", base=2)
    with pytest.raises(NgramModelError, match="not found"):
        DensityLmCleaner(model="/no/such/model.npz")


def test_the_shipped_model_keeps_the_article_of_a_built_page() -> None:
    assert Path(DEFAULT_MODEL).stat().st_size < 1_000_000  # small enough to ship
    labeled = DensityLmCleaner().label(segment(PAGE), None)
    good = [lb.block.text for lb in labeled if lb.verdict is Verdict.GOOD]
    assert sum("Paragraph" in t for t in good) >= 5
    assert not any("Section" in t or "Link" in t for t in good)
    result = clean_html(PAGE.encode(), cleaner="density-lm")
    assert result.cleaner == "density-lm" and "Paragraph 2 of the story" in result.text
