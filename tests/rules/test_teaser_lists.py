"""Teaser lists: the linked headline and the summary or date under it, in each item of a list
of teasers, are dropped outside English when kept and something else stays kept, and the page
says so; comment threads (an author's linked name above the post) are not teasers."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from statistics import median

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.clean import clean_html
from pipeline.html.segment import parse, segment
from pipeline.learned.neighbours import NeighboursCleaner
from pipeline.rules import teaser_lists
from pipeline.rules.link_lists import MIN_LINK_DENSITY
from pipeline.types import Block, Verdict
from tests.model_builders import stump

ARTICLE = [
    "Der Stadtrat hat am Dienstag nach langer Debatte den Haushalt für das kommende Jahr "
    "beschlossen, der vor allem bei den Schulen mehr Mittel vorsieht.",
    "Die Opposition kritisierte den Entwurf als zu zaghaft und kündigte an, im Frühjahr eigene "
    "Vorschläge für den Straßenbau vorzulegen.",
]
TEASERS = [
    (
        "Neue Radwege für die gesamte Innenstadt geplant",
        "Die Stadt will bis zum Jahr 2026 zwanzig Kilometer neue Radwege bauen lassen ...",
    ),
    (
        "Feuerwehr rückt zu einem Einsatz am Hauptbahnhof aus",
        "Ein Brand in einem Kiosk hat am Morgen den Verkehr für zwei Stunden aufgehalten ...",
    ),
    (
        "Wochenmarkt zieht in den Sommermonaten auf den Domplatz",
        "Die Händler hoffen auf mehr Laufkundschaft, der Verein der Anwohner auf weniger Lärm ...",
    ),
]
TEASER_TEXTS = [t for pair in TEASERS for t in pair]
COMMENTS = [
    ("anna", "Endlich wird etwas für die Schulen getan, das hat viel zu lange gedauert."),
    ("bernd", "Und die Straßen bleiben so, wie sie sind: voller Löcher und ohne Radwege."),
    ("carla", "Ich war bei der Sitzung, die Debatte war deutlich hitziger als hier beschrieben."),
]


def teaser_page(teasers: list[tuple[str, str]] = TEASERS, article: list[str] = ARTICLE) -> str:
    """An article followed by a "more on this" list whose items are each a linked headline
    above a summary, in one element (the issue's ``ul > li > div > h3 > a`` and ``p``)."""
    items = "".join(
        f'<li><div><h3><a href="/t/{i}">{title}</a></h3><p>{summary}</p></div></li>'
        for i, (title, summary) in enumerate(teasers)
    )
    body = "".join(f"<p>{t}</p>" for t in article)
    return (
        "<html><head><title>Haushalt</title></head><body><article><h1>Haushalt beschlossen</h1>"
        f"{body}<h2>Mehr zum Thema</h2><ul>{items}</ul></article></body></html>"
    )


def comment_page() -> str:
    """The article with a comment thread: each item an author's linked name above the post, in
    one element, as forum and comment templates lay them out."""
    items = "".join(
        f'<li><div class="author"><a href="/u/{name}">{name}</a></div>'
        f'<div class="post">{post}</div></li>'
        for name, post in COMMENTS
    )
    body = "".join(f"<p>{t}</p>" for t in ARTICLE)
    return f"<html><body><article>{body}<ul class='comments'>{items}</ul></article></body></html>"


def blocks_of(html: str) -> list[Block]:
    return segment(parse(html.encode()), record_runs=True)


def keep_all_model(tmp_path: Path) -> dict:
    """Cleaner parameters of a model that keeps every block longer than about 20 characters,
    sure of each (the article is kept, so no page-wide guard fires)."""
    path = tmp_path / "keep-all.json"
    path.write_text(json.dumps({**stump(3.0, short=-4.0, long=4.0), "fallback_ratio": 0.0}))
    return {"model": str(path)}


def kept(result) -> list[str]:
    return [lb.block.text for lb in result.blocks if lb.verdict is Verdict.GOOD]


def marked(html: str) -> list[str]:
    blocks = blocks_of(html)
    parts = teaser_lists.teaser_parts(blocks)
    return [b.text for b, t in zip(blocks, parts.tolist(), strict=True) if t]


def test_parts_are_the_headlines_and_summaries_of_the_items():
    assert marked(teaser_page()) == TEASER_TEXTS


def test_one_item_is_not_a_list():
    assert marked(teaser_page(TEASERS[:1])) == []


def test_a_linked_line_above_a_paragraph_outside_a_list_item_is_not_a_teaser():
    # An article's linked bylines or sources above its paragraphs, twice, in no list item.
    sections = "".join(
        f'<div><p><a href="/s/{i}">{title}</a></p><p>{summary}</p></div>'
        for i, (title, summary) in enumerate(TEASERS)
    )
    assert marked(f"<html><body><article>{sections}</article></body></html>") == []


def test_a_comment_thread_is_not_a_teaser_list():
    # Same shape as a teaser item (linked line, then text, siblings in an item) but the linked
    # lines are names, not headlines.
    assert marked(comment_page()) == []


def test_two_items_alone_are_a_list():
    # `MIN_ITEMS` pairs and nothing else on the page: the fewest blocks the rule looks at.
    items = "".join(
        f'<li><div><h3><a href="/t/{i}">{title}</a></h3><p>{summary}</p></div></li>'
        for i, (title, summary) in enumerate(TEASERS[:2])
    )
    html = f"<html><body><ul>{items}</ul></body></html>"
    assert len(blocks_of(html)) == 2 * teaser_lists.MIN_ITEMS
    assert marked(html) == TEASER_TEXTS[:4]


def test_headlines_of_exactly_the_minimum_length_are_headlines():
    summaries = [summary for _, summary in TEASERS[:2]]
    at_bound = ["Radwege 26", "Feuerwehr!"]
    assert {len(t) for t in at_bound} == {teaser_lists.MIN_TITLE_CHARS}
    page = teaser_page(list(zip(at_bound, summaries, strict=True)))
    assert marked(page) == [at_bound[0], summaries[0], at_bound[1], summaries[1]]
    # A character shorter, they are names, as in a comment thread.
    below = [t[:-1] for t in at_bound]
    assert marked(teaser_page(list(zip(below, summaries, strict=True)))) == []


def _items_page(item: str, wrap: str = "ul") -> str:
    """A page of `TEASERS` in ``<wrap>``, each item ``item`` formatted with its index, title
    and summary."""
    items = "".join(
        item.format(i=i, title=title, summary=summary) for i, (title, summary) in enumerate(TEASERS)
    )
    return f"<html><body><article><{wrap}>{items}</{wrap}></article></body></html>"


def test_a_list_item_is_an_li_element_not_a_tag_that_spells_li():
    # A custom element whose name holds "li" ("news-list") is no list item: the rule needs the
    # element, and without it an article's linked sections would be taken.
    item = '<div><h3><a href="/t/{i}">{title}</a></h3><p>{summary}</p></div>'
    assert marked(_items_page(item, "news-list")) == []


def test_headline_and_summary_must_share_their_parent():
    # The summary one element deeper than the headline: the rule pairs siblings only.
    item = '<li><h3><a href="/t/{i}">{title}</a></h3><div><p>{summary}</p></div></li>'
    assert marked(_items_page(item)) == []


def test_kept_teasers_go_when_the_article_is_kept(tmp_path: Path):
    params = keep_all_model(tmp_path)
    off = clean_html(teaser_page(), language="de", **params, teaser_lists=False)
    assert set(TEASER_TEXTS) <= set(kept(off))
    assert teaser_lists.TEASERS_DROPPED not in off.notes
    on = clean_html(teaser_page(), language="de", **params)
    assert teaser_lists.TEASERS_DROPPED in on.notes
    assert set(ARTICLE) <= set(kept(on))
    assert not set(TEASER_TEXTS) & set(kept(on))


def test_comments_stay_kept():
    # At the guard itself: `clean_html` hands reader comments to `pipeline.rules.comments`.
    blocks = blocks_of(comment_page())
    keep = np.ones(len(blocks), dtype=bool)
    out, notes = teaser_lists.guard(keep, blocks, "de")
    assert notes == ()
    assert {post for _, post in COMMENTS} <= {b.text for b, k in zip(blocks, out, strict=True) if k}


def test_english_is_left_alone(tmp_path: Path):
    result = clean_html(teaser_page(), language="en", **keep_all_model(tmp_path))
    assert set(TEASER_TEXTS) <= set(kept(result))
    assert teaser_lists.TEASERS_DROPPED not in result.notes


def test_a_page_that_is_only_teasers_keeps_them():
    blocks = blocks_of(teaser_page(article=[]))
    keep = np.array([b.text in TEASER_TEXTS for b in blocks])
    out, notes = teaser_lists.guard(keep, blocks, "de")
    assert notes == ()
    assert out.tolist() == keep.tolist()


def test_teaser_lists_parameter_is_recorded_only_when_off():
    assert "teaser_lists" not in NeighboursCleaner().params()
    assert NeighboursCleaner(teaser_lists=False).params() == {"teaser_lists": False}
    with pytest.raises(ValueError, match="teaser_lists must be true or false"):
        NeighboursCleaner(teaser_lists="no")  # type: ignore[arg-type]


PATHS = ["html.body.ul.li.div.h3", "html.body.ul.li.div.p", "html.body.div.p", "html.body.ul.li"]


def reference_parts(blocks: list[Block]) -> list[bool]:
    """The module docstring's definition, spelled out block by block."""
    pairs = []
    for a, b in itertools.pairwise(blocks):
        if not (a.n_chars and b.n_chars):
            continue
        if a.link_density < MIN_LINK_DENSITY or b.link_density >= 0.5:
            continue
        same_parent = a.dom_path.rsplit(".", 1)[0] == b.dom_path.rsplit(".", 1)[0]
        if same_parent and "li" in b.dom_path.split("."):
            pairs.append((a.index, (a.dom_path, a.style, b.dom_path, b.style)))
    out = [False] * len(blocks)
    for i, shape in pairs:
        sizes = [blocks[j].n_chars for j, s in pairs if s == shape]
        if len(sizes) >= 2 and median(sizes) >= teaser_lists.MIN_TITLE_CHARS:
            out[i] = out[i + 1] = True
    return out


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(PATHS),
            st.sampled_from(["h3", "p", "p.meta"]),
            st.sampled_from([0, 4, 12, 40]),
            st.sampled_from([0.0, 0.3, 0.6, 0.9, 1.0]),
        ),
        max_size=30,
    )
)
def test_parts_match_the_definition(rows: list[tuple[str, str, int, float]]):
    blocks = [
        Block(i, "x" * n, path.rsplit(".", 1)[1], path, style, False, n, 1, round(n * d), 1, 7)
        for i, (path, style, n, d) in enumerate(rows)
    ]
    assert teaser_lists.teaser_parts(blocks).tolist() == reference_parts(blocks)


def item_blocks(summary_chars: int, summary_links: int, headline_links: int = 40) -> list[Block]:
    """Two list items of a linked headline (40 characters) above a summary of the given counts,
    by hand."""
    path = "html.body.ul.li.div."
    blocks = []
    for item in range(2):
        i = 2 * item
        blocks.append(
            Block(i, "x" * 40, "h3", path + "h3", "h3", True, 40, 5, headline_links, 2, 7)
        )
        text = "y" * summary_chars
        blocks.append(
            Block(i + 1, text, "p", path + "p", "p", False, summary_chars, 9, summary_links, 1, 7)
        )
    return blocks


def test_a_summary_must_be_under_half_link_text():
    assert teaser_lists.teaser_parts(item_blocks(100, 49)).all()
    # Half link text is not link-free: the bound is exclusive.
    assert not teaser_lists.teaser_parts(item_blocks(100, 50)).any()


def test_a_headline_of_exactly_the_link_lists_density_is_linked():
    assert MIN_LINK_DENSITY * 40 == 36
    assert teaser_lists.teaser_parts(item_blocks(100, 0, headline_links=36)).all()
    assert not teaser_lists.teaser_parts(item_blocks(100, 0, headline_links=35)).any()


def test_a_block_without_text_is_no_summary():
    # Its link density reads as 0, but an empty block says nothing of a teaser.
    assert not teaser_lists.teaser_parts(item_blocks(0, 0)).any()


@settings(max_examples=60, deadline=None)
@given(
    keep=st.lists(st.booleans(), min_size=10, max_size=10),
    language=st.sampled_from(["en", "de", "zh", None]),
)
def test_the_guard_only_drops_kept_parts(keep: list[bool], language: str | None):
    blocks = blocks_of(teaser_page())
    assert len(blocks) == 10
    before = np.array(keep)
    after, notes = teaser_lists.guard(before, blocks, language)
    parts = teaser_lists.teaser_parts(blocks)
    assert not (after & ~before).any()
    assert not ((before & ~after) & ~parts).any()
    if notes:
        assert notes == (teaser_lists.TEASERS_DROPPED,) and after.any() and language != "en"
    else:
        assert after.tolist() == keep
