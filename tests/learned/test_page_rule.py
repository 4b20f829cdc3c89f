"""The page rule: outside English the learned model's decision is taken on its probabilities raised
to a power (stricter), in English on the probabilities as they are."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.clean import clean_html
from pipeline.learned.model import DEFAULT_MODEL, load_model
from pipeline.learned.neighbours import OUTSIDE_ENGLISH_POWER, NeighboursCleaner, page_rule
from pipeline.types import Block, Verdict
from tests.model_builders import stump


def plain_blocks(n: int) -> list[Block]:
    texts = [f"Block number {i} of the page, with a few words in it." for i in range(n)]
    return [
        Block(i, t, "p", "html.body.p", "p", False, len(t), len(t.split()), 0, 1, 7)
        for i, t in enumerate(texts)
    ]


def fixed_threshold_model(tmp_path: Path):
    path = tmp_path / "stump.json"
    path.write_text(json.dumps({**stump(), "fallback_ratio": 0.0}))
    return load_model(path)


def test_power_one_and_english_are_the_models_own_rule():
    model = load_model(DEFAULT_MODEL)
    blocks = plain_blocks(12)
    probs = np.linspace(0.3, 0.95, len(blocks))
    own = model.decide(probs, blocks)
    assert page_rule(model, probs, blocks, "en").tolist() == own.tolist()
    assert page_rule(model, probs, blocks, "de", power=1.0).tolist() == own.tolist()


@pytest.mark.parametrize("language", ["de", "ja", None])
def test_outside_english_the_least_sure_blocks_go_first(language: str | None):
    model = load_model(DEFAULT_MODEL)
    blocks = plain_blocks(12)
    probs = np.linspace(0.3, 0.95, len(blocks))
    own = model.decide(probs, blocks)
    strict = page_rule(model, probs, blocks, language)
    assert strict.sum() < own.sum()
    assert not (strict & ~own).any()  # only narrows
    # what it keeps is the surest blocks: every kept one is surer than every dropped one
    assert probs[strict].min() > probs[own & ~strict].max()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(0.0, 1.0), min_size=1, max_size=40),
    st.floats(1.0, 10.0),
)
def test_with_a_fixed_threshold_the_power_moves_the_threshold(
    tmp_path_factory, probs: list[float], power: float
):
    model = fixed_threshold_model(tmp_path_factory.mktemp("m"))
    p = np.array(probs)
    blocks = plain_blocks(len(probs))
    got = page_rule(model, p, blocks, "fr", power=power)
    assert got.tolist() == (p**power >= model.threshold).tolist()
    assert not (got & ~page_rule(model, p, blocks, "fr", power=1.0)).any()


def test_the_cleaner_decides_stricter_outside_english_only(tmp_path: Path):
    path = tmp_path / "unsure.json"
    # every block longer than about 20 characters at 0.62, kept by the fixed threshold 0.5;
    # squared, 0.38: dropped
    path.write_text(json.dumps({**stump(3.0, short=-2.0, long=0.5), "fallback_ratio": 0.0}))
    html = "<html><body>" + "".join(
        f"<p>{t}</p>"
        for t in (
            "Die Stadtverwaltung hat am Montag die Sanierung der alten Brücke angekündigt.",
            "Während der Bauzeit wird der Verkehr über eine Behelfsbrücke geleitet.",
        )
    )
    html += "</body></html>"

    def kept(**params) -> int:
        result = clean_html(html, model=str(path), **params)
        return sum(lb.verdict is Verdict.GOOD for lb in result.blocks)

    assert kept(language="de", strictness=1) == 2
    assert kept(language="de") == 0
    assert kept(language="en") == 2
    # the blocks' scores are the model's probabilities either way
    scores = [lb.score for lb in clean_html(html, model=str(path), language="de").blocks]
    assert scores == pytest.approx([1 / (1 + np.exp(-0.5))] * 2)


def test_strictness_is_a_number_from_one_to_ten_recorded_when_not_the_default():
    assert "strictness" not in NeighboursCleaner().params()
    assert NeighboursCleaner(strictness=1).params() == {"strictness": 1.0}
    assert NeighboursCleaner(strictness=OUTSIDE_ENGLISH_POWER).params() == {}
    assert NeighboursCleaner(strictness=10).params() == {"strictness": 10.0}
    for bad in (0.5, 0.99, 10.01, 11):
        with pytest.raises(ValueError, match=r"^strictness must be in \[1, 10\], got "):
            NeighboursCleaner(strictness=bad)
    for bad in (True, "2"):
        with pytest.raises(ValueError, match=r"^strictness must be a number, got "):
            NeighboursCleaner(strictness=bad)  # type: ignore[arg-type]
