"""The lead rescue: an article's standfirst just above the body the model kept is kept too, and
nothing else is (teasers, link lists, leads of other containers, leads the model is sure about)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.clean import clean_html
from pipeline.evaluate.datasets import load_dataset
from pipeline.evaluate.scoring import normalize_snippet_text
from pipeline.html.class_cues import has_lead_class
from pipeline.html.segment import parse, segment
from pipeline.learned.neighbours import NeighboursCleaner
from pipeline.rules import lead_rescue
from pipeline.types import Block, Verdict
from tests.model_builders import stump

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data" / "multilingual-dev"

LEAD = "Die Stadt beschließt einen neuen Haushalt, der Schulen und Straßen mehr Geld gibt."
BODY = (
    "Der Stadtrat hat am Dienstag nach langer Debatte den Haushalt für das kommende Jahr "
    "beschlossen. Die Mehrheit stimmte für den Entwurf der Verwaltung, der vor allem bei den "
    "Schulen und beim Straßenbau mehr Mittel vorsieht als im vergangenen Jahr."
)


def page(body: str) -> str:
    return f"<html><head><title>t</title></head><body>{body}</body></html>"


def blocks_of(html: str) -> list[Block]:
    return segment(parse(html.encode()), record_runs=True)


def article(lead: str = f"<p class='lead'>{LEAD}</p>", between: str = "") -> str:
    return page(
        "<nav><a href='/'>Start</a> <a href='/p'>Politik</a></nav>"
        f"<article><h1>Neuer Haushalt</h1>{lead}{between}<div class='body'><p>{BODY}</p>"
        f"<p>{BODY}</p></div></article>"
    )


def answer(blocks: list[Block], lead_prob: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    """The model's answer as the rescue sees it: the body kept at 0.95, the lead at
    ``lead_prob``, everything else dropped at 0.05."""
    keep = np.array([b.text == BODY for b in blocks])
    probs = np.where(keep, 0.95, 0.05)
    probs[[i for i, b in enumerate(blocks) if b.text == LEAD]] = lead_prob
    return keep, probs


def kept_texts(blocks: list[Block], keep: np.ndarray) -> list[str]:
    return [b.text for b, k in zip(blocks, keep.tolist(), strict=True) if k]


@pytest.mark.parametrize(
    ("style", "expected"),
    [
        ("p.lead", True),
        ("div.content__intro", True),
        ("div.my-3.text-break.text-lead", True),
        ("h2.article-deck.article__deck", True),
        ("p.excerpt", True),
        ("div.chapo", True),
        ("p", False),
        ("p.leader", False),  # a whole class word, not a prefix
        ("lead", False),  # an element named lead: the tag, not a class
        ("div.teaser", False),  # teasers are other articles' leads
    ],
)
def test_lead_classes(style: str, expected: bool):
    assert has_lead_class(style) is expected


@pytest.mark.parametrize(
    ("style", "expected"),
    [
        ("p.bajada", True),
        ("h2.epigraph", True),
        ("p.preface", True),
        ("p.article__desc", True),
        ("h2.entry-sub-title", True),
        ("div.article--lead", True),
        ("p.lead", True),
        ("div.sub", False),
        ("h2.title", False),  # a headline, not the standfirst under it
        ("div.teaser", False),
        ("description", False),  # the tag, not a class
    ],
)
def test_standfirst_classes_of_more_sources(style: str, expected: bool):
    assert has_lead_class(style) is expected


def bare_page(lead_at_top: bool = False) -> str:
    """A page of bare <div>s (no <article> or <main>): the standfirst sits in a div beside the
    body's, or, with ``lead_at_top``, in the page's <header> (tag paths name no positions, so
    "another part of the page" is another tag on the way down)."""
    lead = f"<div class='article--lead'>{LEAD}</div>"
    story = f"<div><div><div class='text'><p>{BODY}</p><p>{BODY}</p></div></div></div>"
    if lead_at_top:
        return page(f"<header><div>{lead}</div></header><div><div><div>{story}</div></div></div>")
    return page(f"<div><div><div><h1>Neuer Haushalt</h1>{lead}{story}</div></div></div>")


def test_a_standfirst_outside_article_and_main_is_kept_beside_the_body():
    blocks = blocks_of(bare_page())
    keep, probs = answer(blocks)
    out, notes = lead_rescue.rescue(keep, probs, blocks)
    assert kept_texts(blocks, out) == [LEAD, BODY, BODY]
    assert notes == (lead_rescue.LEAD_KEPT,)
    # Far from the body's ancestors: another part of the page.
    far = blocks_of(bare_page(lead_at_top=True))
    keep, probs = answer(far)
    out, notes = lead_rescue.rescue(keep, probs, far)
    assert out is keep and notes == ()


def test_the_standfirst_above_the_kept_body_is_kept_and_noted():
    blocks = blocks_of(article(between="<figure><figcaption>Foto: Archiv</figcaption></figure>"))
    keep, probs = answer(blocks)
    out, notes = lead_rescue.rescue(keep, probs, blocks)
    assert kept_texts(blocks, out) == [LEAD, BODY, BODY]
    assert notes == (lead_rescue.LEAD_KEPT,)
    assert kept_texts(blocks, keep) == [BODY, BODY]  # the model's answer is not modified


@pytest.mark.parametrize(
    ("html", "lead_prob"),
    [
        # the model is sure it is not content
        (article(), 0.05),
        # no class says it is a standfirst
        (article(lead=f"<p>{LEAD}</p>"), 0.3),
        # a teaser linking to another article
        (article(lead=f"<p class='lead'><a href='/x'>{LEAD}</a></p>"), 0.3),
        # too short to be a standfirst
        (article(lead="<p class='lead'>Kurz gesagt: mehr Geld.</p>"), 0.3),
        # too far above the body
        (article(between="".join(f"<div>Bild {i}</div>" for i in range(20))), 0.3),
        # a lead of another container: the same class in a sidebar teaser above the article
        (
            page(
                f"<aside><p class='lead'>{LEAD}</p></aside>"
                f"<article><div class='body'><p>{BODY}</p></div></article>"
            ),
            0.3,
        ),
    ],
    ids=["sure-not", "no-class", "link", "short", "far", "other-container"],
)
def test_what_is_not_rescued(html: str, lead_prob: float):
    blocks = blocks_of(html)
    keep, probs = answer(blocks, lead_prob)
    out, notes = lead_rescue.rescue(keep, probs, blocks)
    assert out is keep and notes == ()


def _rescued(html: str, lead: str = LEAD, lead_prob: float = 0.3) -> bool:
    """Whether the rescue keeps the block ``lead`` of ``html``, the body kept, the lead doubted
    at ``lead_prob``, all else dropped."""
    blocks = blocks_of(html)
    keep, probs = answer(blocks, lead_prob)
    probs[[i for i, b in enumerate(blocks) if b.text == lead]] = lead_prob
    out, _ = lead_rescue.rescue(keep, probs, blocks)
    return lead in kept_texts(blocks, out)


def test_the_bounds_themselves():
    # The page's very first block can be its standfirst.
    first = page(
        f"<article><p class='lead'>{LEAD}</p><div class='body'><p>{BODY}</p></div></article>"
    )
    assert blocks_of(first)[0].text == LEAD and _rescued(first)
    # WINDOW blocks above the body is within reach, one more is not.
    near = article(between="".join(f"<div>Bild {i}</div>" for i in range(lead_rescue.WINDOW - 1)))
    far = article(between="".join(f"<div>Bild {i}</div>" for i in range(lead_rescue.WINDOW)))
    assert _rescued(near) and not _rescued(far)
    # At the model's bound, the length bound and the link-density bound: still a standfirst.
    assert _rescued(article(), lead_prob=lead_rescue.MIN_PROB)
    short = "Die Stadt gibt den Schulen mehr Geld. Ja"
    assert len(short) == lead_rescue.MIN_CHARS
    assert _rescued(article(lead=f"<p class='lead'>{short}</p>"), short)
    linked = "x" * 80 + " <a href='/x'>Haushalts</a>"  # 90 characters, 9 of them linked
    html = article(lead=f"<p class='lead'>{linked}</p>")
    (block,) = [b for b in blocks_of(html) if b.text.startswith("x" * 80)]
    assert block.link_density == lead_rescue.MAX_LINK_DENSITY
    assert _rescued(html, block.text)


def test_without_article_or_main_the_ancestor_depth_up_is_the_bound():
    # The body paragraph's ancestor ANCESTOR_DEPTH (4) up is html.body.div.
    body = "html.body.div.div.div.div.p"
    assert lead_rescue._same_container("html.body.div.section.p", body)
    assert not lead_rescue._same_container("html.body.aside.p", body)


def test_only_the_nearest_of_stacked_leads_is_kept():
    other = "Ein zweiter Vorspann mit einem anderen Satz, der auch lang genug für eine Zeile ist."
    blocks = blocks_of(article(lead=f"<p class='lead'>{other}</p><p class='lead'>{LEAD}</p>"))
    keep, probs = answer(blocks)
    probs[[i for i, b in enumerate(blocks) if b.text == other]] = 0.3
    out, _ = lead_rescue.rescue(keep, probs, blocks)
    assert kept_texts(blocks, out) == [LEAD, BODY, BODY]


def test_nothing_kept_nothing_rescued():
    blocks = blocks_of(article())
    keep = np.zeros(len(blocks), bool)
    out, notes = lead_rescue.rescue(keep, np.full(len(blocks), 0.3), blocks)
    assert out is keep and notes == ()


PARTS = [
    f"<p class='lead'>{LEAD}</p>",
    f"<p>{BODY}</p>",
    "<div class='intro'><a href='/a'>Mehr über den Haushalt der Stadt und die Schulen</a></div>",
    "<h2 class='subtitle'>Was der Haushalt für die Schulen im nächsten Jahr bedeutet</h2>",
    "<figure><figcaption>Foto</figcaption></figure>",
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(PARTS), max_size=10), st.booleans(), st.data())
def test_the_rescue_adds_at_most_one_qualifying_block_above_the_first_kept(
    parts: list[str], wrap: bool, data: st.DataObject
):
    inner = "".join(parts)
    blocks = blocks_of(page(f"<article>{inner}</article>" if wrap else inner))
    n = len(blocks)
    keep = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), bool)
    probs = np.array(data.draw(st.lists(st.floats(0, 1), min_size=n, max_size=n)))
    out, notes = lead_rescue.rescue(keep, probs, blocks)
    assert not (keep & ~out).any()
    added = np.flatnonzero(out & ~keep).tolist()
    assert len(added) <= 1 and bool(notes) == bool(added)
    for i in added:
        block = blocks[i]
        assert i < np.flatnonzero(keep)[0]
        assert has_lead_class(block.style) and probs[i] >= lead_rescue.MIN_PROB
        assert block.n_chars >= lead_rescue.MIN_CHARS
        assert block.link_density <= lead_rescue.MAX_LINK_DENSITY
        if not wrap:  # outside an <article> or <main>: only under the body's near ancestor
            ours = block.dom_path.split(".")
            body = blocks[np.flatnonzero(keep)[0]].dom_path.split(".")
            shared = 0
            while shared < min(len(ours), len(body)) and ours[shared] == body[shared]:
                shared += 1
            assert shared >= len(body) - lead_rescue.ANCESTOR_DEPTH


def test_the_default_cleaner_keeps_the_standfirst_and_records_it(tmp_path: Path):
    # A model that gives the standfirst (about 80 characters) 0.27 and the body (about 240)
    # 0.88: below and above the rule's threshold, as the shipped model does on unseen sites.
    model = tmp_path / "stump.json"
    model.write_text(json.dumps({**stump(5.0, short=-1.0, long=2.0), "fallback_ratio": 0.0}))
    result = clean_html(article(), language="de", model=str(model))
    kept = [lb.block.text for lb in result.blocks if lb.verdict is Verdict.GOOD]
    assert kept == [LEAD, BODY, BODY]
    assert result.notes == (lead_rescue.LEAD_KEPT,)
    # Turned off, the model's answer stands, and the parameter is recorded.
    off = clean_html(article(), language="de", model=str(model), lead_rescue=False)
    assert [lb.block.text for lb in off.blocks if lb.verdict is Verdict.GOOD] == [BODY, BODY]
    assert off.notes == ()
    # An explicit threshold is taken as it is: no page rules.
    result = clean_html(article(), language="de", model=str(model), threshold=0.5)
    assert [lb.block.text for lb in result.blocks if lb.verdict is Verdict.GOOD] == [BODY, BODY]
    assert result.notes == ()


def test_lead_rescue_parameter_is_recorded_only_when_off():
    assert "lead_rescue" not in NeighboursCleaner().params()
    assert NeighboursCleaner(lead_rescue=False).params() == {"lead_rescue": False}
    with pytest.raises(ValueError, match="lead_rescue must be true or false"):
        NeighboursCleaner(lead_rescue="no")


@pytest.mark.skipif(not SHARED.is_dir(), reason="needs ../shared/data/multilingual-dev")
def test_a_real_standfirst_is_kept_by_the_shipped_model():
    # Super Express (se.pl): the must-contain snippet is the article's p.lead, which the model
    # alone drops.
    (page_,) = load_dataset(SHARED, ids=["pl-merc-012"])
    result = clean_html(page_.read_html(), url=page_.url, language="pl")
    assert lead_rescue.LEAD_KEPT in result.notes
    text = normalize_snippet_text(result.text, "pl")
    assert all(normalize_snippet_text(s, "pl") in text for s in page_.with_snippets)
