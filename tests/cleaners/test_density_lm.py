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


# --- Pal's system as published (variant="paper") ---------------------------------------------


@pytest.fixture(scope="module")
def class_model_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    from pipeline.cleaners.ngram import ClassLmModel, class_prior, save_class_model
    from pipeline.cleaners.ngram import train_witten_bell as wb

    model = ClassLmModel(
        wb(CONTENT, 4, 14), wb(BOILER, 4, 14), class_prior(len(CONTENT), len(BOILER)), 0.0, {}
    )
    path = tmp_path_factory.mktemp("m") / "density-lm-paper.npz"
    save_class_model(model, path)
    return str(path)


def test_the_paper_variant_scores_what_pals_first_stage_kept(class_model_path: str) -> None:
    from pipeline.cleaners.density import pal_stage_one
    from pipeline.cleaners.density_lm import block_units
    from pipeline.cleaners.ngram import load_class_model

    article = "The settlers followed the river into the valley and built their houses there."
    links = "Home | Contact us | Privacy policy | Log in | Share on Facebook | Next page | Home"
    blocks = [
        block(0, "The settlers followed the river.", 2),  # under 60 characters
        block(1, article, 10),
        block(2, links, 12),
        block(3, article + " " + article, 30),
    ]
    # A block's chunk: its text, and its text plus markup as its HTML.
    units = block_units(blocks)
    assert [(u.n_text, u.n_html) for u in units] == [
        (b.n_chars, b.n_chars + b.n_markup_chars) for b in blocks
    ]
    cleaner = DensityLmCleaner(variant="paper", unit="blocks", model=class_model_path)
    assert cleaner.needs_tree is False
    assert cleaner.params() == {"model": class_model_path, "variant": "paper", "unit": "blocks"}
    keep = pal_stage_one(units)
    assert keep == [False, True, True, True]
    scores = load_class_model(class_model_path).scores([b.text for b in blocks]).tolist()
    assert cleaner.unit_scores(units) == [None, *scores[1:]]
    labeled = cleaner.label(blocks, None)
    # The classifier's own rule: content when its joint log-probability is at least the
    # boilerplate's (threshold 0).
    assert [lb.verdict for lb in labeled] == [Verdict.BAD, Verdict.GOOD, Verdict.BAD, Verdict.GOOD]
    assert [lb.score for lb in labeled] == [None, *scores[1:]]
    strict = DensityLmCleaner(variant="paper", unit="blocks", model=class_model_path, threshold=1e9)
    assert all(lb.verdict is Verdict.BAD for lb in strict.label(blocks, None))
    # unit="blocks" judges the blocks even when the page is given; without the page the lines'
    # variant judges them too.
    from pipeline.html.segment import parse

    tree = parse("<html><body>\n<p>Other text on its own line of the source.</p>\n</body></html>")
    assert cleaner.label(blocks, None, tree) == labeled
    lines = DensityLmCleaner(variant="paper", model=class_model_path)
    assert lines.label(blocks, None) == labeled


def test_the_paper_variant_reads_source_lines_and_ships_its_model() -> None:
    from pipeline.cleaners.density_lm import PAPER_MODEL
    from pipeline.html.segment import parse

    cleaner = DensityLmCleaner(variant="paper")
    assert cleaner.needs_tree is True and Path(PAPER_MODEL).exists()
    assert cleaner.params() == {"variant": "paper", "unit": "lines"}
    # Pal's chunks are the source's lines: the menu's one line is mostly markup, the footer's
    # too short; each paragraph's line goes to the classifier.
    menu = "".join(
        f'<li><a href="/section-{i}" class="nav">Section {i}</a></li>' for i in range(12)
    )
    story = "\n".join(
        f"<p>Paragraph {i} of the story tells, in plain sentences, how the river shaped the "
        "valley and why the farmers followed it.</p>"
        for i in range(6)
    )
    page = (
        f"<html><head><title>T</title></head><body>\n<ul>{menu}</ul>\n{story}\n"
        "<footer>Copyright 2024</footer>\n</body></html>"
    )
    tree = parse(page)
    labeled = cleaner.label(segment(tree), None, tree)
    assert [lb.block.text.split()[0] for lb in labeled if lb.verdict is Verdict.GOOD] == [
        "Paragraph"
    ] * 6
    assert all(lb.score is None for lb in labeled if lb.block.text.startswith("Section"))
    # The project's variant loads the other model and never the paper's.
    assert not hasattr(DensityLmCleaner(), "class_model")
