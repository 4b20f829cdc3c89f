"""Block feature vectors (`pipeline.features`)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.bte import BteCleaner
from pipeline.features import (
    FEATURE_NAMES,
    N_FEATURES,
    OWN_FEATURES,
    own_features,
    page_features,
)
from pipeline.justext import classify_context_free
from pipeline.segment import segment

PAGE = """<html><body>
<div class="main-nav"><ul><li class="menu-item"><a href="/">Home</a></li>
<li class="menu-item"><a href="/n">News</a></li></ul></div>
<article><h1>The valley</h1>
<p>For thousands of years the river has carved its way through the soft limestone of the valley,
and the farmers who came later turned its terraces into fields and orchards.</p>
<p>Today the valley is known for its apples! Every autumn there is a market, with 25 growers.</p>
</article>
<footer class="site-footer"><p>&copy; 2024 VALLEY NEWS | <a href="/p">Privacy</a></p></footer>
</body></html>"""
STOP = frozenset("the of and its has to is for with a there who into".split())


def col(name: str) -> int:
    return FEATURE_NAMES.index(name)


@pytest.fixture(scope="module")
def blocks():
    return segment(PAGE, record_runs=True)


def test_shape_and_finite(blocks):
    x = page_features(blocks, STOP)
    assert x.shape == (len(blocks), N_FEATURES)
    assert np.isfinite(x).all()
    assert len(set(FEATURE_NAMES)) == N_FEATURES


def test_empty_page():
    assert page_features([], None).shape == (0, N_FEATURES)


def test_cues_land_on_the_right_blocks(blocks):
    x = page_features(blocks, STOP)
    texts = [b.text for b in blocks]
    nav = texts.index("Home")
    body = next(i for i, t in enumerate(texts) if t.startswith("For thousands"))
    foot = next(i for i, t in enumerate(texts) if "VALLEY NEWS" in t)
    assert x[nav, col("style_nav")] == 1.0
    assert x[nav, col("link_density")] == 1.0
    assert x[body, col("style_nav")] == 0.0
    assert x[body, col("path_article")] == 1.0
    assert x[body, col("tag_p")] == 1.0
    assert x[body, col("stopword_density")] > 0.2
    assert x[body, col("ends_sentence")] == 1.0
    assert x[foot, col("path_footer")] == 1.0
    assert x[foot, col("cf_bad")] == 1.0  # the copyright sign makes jusText call it bad
    assert x[foot, col("upper_ratio")] > 0.5
    # Neighbour columns hold the neighbours' own values.
    assert x[body + 1, col("prev_log_chars")] == x[body, col("log_chars")]
    assert x[body - 1, col("next_log_chars")] == x[body, col("log_chars")]
    assert x[0, col("prev_log_chars")] == 0.0


def test_digits_counted(blocks):
    x = own_features(blocks, STOP)
    texts = [b.text for b in blocks]
    i = next(k for k, t in enumerate(texts) if "25 growers" in t)
    assert x[i, OWN_FEATURES.index("digit_ratio")] == pytest.approx(2 / len(texts[i]))


def test_language_independent_mode_zeroes_stopwords(blocks):
    x = page_features(blocks, None)
    assert (x[:, col("stopword_density")] == 0).all()
    assert (x[:, col("has_stoplist")] == 0).all()


def test_cf_and_bte_columns_agree_with_their_cleaners(blocks):
    for stop in (STOP, None):
        x = own_features(blocks, stop)
        onehot = x[:, OWN_FEATURES.index("cf_good") : OWN_FEATURES.index("cf_good") + 4]
        names = [("good", "neargood", "short", "bad")[k] for k in onehot.argmax(axis=1)]
        assert names == [c.value for c in classify_context_free(blocks, stop)]
    # The feature is the paper's BTE (a tag costs as much as a token).
    bte = [lb.score for lb in BteCleaner(tag_weight=1.0).label(blocks, None)]
    assert x[:, OWN_FEATURES.index("bte_fraction")] == pytest.approx(bte)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(max_size=40), max_size=6))
def test_any_text_gives_finite_features(paragraphs):
    html = "<body>" + "".join(f"<p class='x{i}'>{p}</p>" for i, p in enumerate(paragraphs))
    blocks = segment(html, record_runs=True)
    x = page_features(blocks, STOP)
    assert x.shape == (len(blocks), N_FEATURES)
    assert np.isfinite(x).all()
