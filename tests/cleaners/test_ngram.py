"""The `ngram-lm` cleaner: hashed character n-gram models and their scores on built text."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.cleaners.ngram import (
    DEFAULT_MODEL,
    NgramCleaner,
    NgramModel,
    NgramModelError,
    load_model,
    save_model,
    train_lm,
)
from pipeline.html.segment import segment
from pipeline.types import Verdict

CONTENT = [
    "The river carved the valley over thousands of years, and farmers followed it.",
    "Historians say the first settlers built their houses on the upper terraces.",
    "Every autumn the villages hold a market where growers sell the harvest.",
] * 5
BOILER = ["Home", "Contact us", "Privacy policy", "Log in", "Share on Facebook", "Next page"] * 5


@pytest.fixture(scope="module")
def model() -> NgramModel:
    return NgramModel(train_lm(CONTENT, 4, 14, 2.0), train_lm(BOILER, 4, 14, 2.0), 0.0, {})


def test_scores_separate_the_two_kinds(model):
    scores = model.scores(
        ["The settlers followed the river into the valley.", "Privacy policy | Log in", ""]
    )
    assert scores[0] > 0 > scores[1]
    assert scores[2] == -np.inf


def test_every_character_gets_a_probability_below_one(model):
    from pipeline.cleaners.ngram import _hashes, _positions

    lm = model.content

    codes, real, _ = _positions(["abc"], lm.order)
    grams, contexts = _hashes(codes, lm.order, lm.bits)
    logp = lm.log_probs([g[real] for g in grams], [c[real] for c in contexts])
    assert logp.shape == (3,)
    assert (logp < 0).all()


def test_counts_are_what_was_seen():
    lm = train_lm(["aaaa"], 1, 10, 1.0)
    assert lm.total == 4
    assert lm.counts.sum() == 4  # four unigrams, no contexts at order 1


def test_round_trip_without_pickle(tmp_path, model):
    path = tmp_path / "m.npz"
    save_model(NgramModel(model.content, model.boilerplate, 0.25, {"note": "x"}), path)
    loaded = load_model(path)
    assert loaded.threshold == 0.25
    assert loaded.metadata["note"] == "x"
    texts = ["The valley", "Log in"]
    assert loaded.scores(texts) == pytest.approx(model.scores(texts))


def test_bad_files(tmp_path):
    with pytest.raises(NgramModelError, match="not found"):
        load_model(tmp_path / "absent.npz")
    junk = tmp_path / "junk.npz"
    np.savez(junk, other=np.zeros(3))
    with pytest.raises(NgramModelError, match="not an n-gram model"):
        load_model(junk)


def test_shipped_model_labels_built_page():
    if not DEFAULT_MODEL.exists():
        pytest.fail(f"{DEFAULT_MODEL} is missing: run jobs/train_cleaner.py")
    html = (
        "<body><ul><li><a href='/'>Home</a></li><li><a href='/c'>Contact us</a></li></ul>"
        "<p>Researchers at the university said on Tuesday that the new treatment had reduced "
        "the number of hospital admissions by almost a third during the two-year study, and "
        "they expect to publish the full results later this year.</p></body>"
    )
    blocks = segment(html)
    labels = NgramCleaner().label(blocks, None)
    verdicts = {lb.block.text: lb.verdict for lb in labels}
    assert verdicts["Home"] is Verdict.BAD
    assert verdicts[blocks[-1].text] is Verdict.GOOD
    meta = load_model().metadata
    assert any("CC-BY-4.0" in lic for lic in meta["licences"])
