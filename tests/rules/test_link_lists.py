"""Link-list items: kept blocks that are all link text, in a run of such blocks, are dropped
outside English when something else stays kept, and the page says so."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.clean import clean_html
from pipeline.html.segment import parse, segment
from pipeline.learned.neighbours import NeighboursCleaner
from pipeline.rules import link_lists
from pipeline.types import Block, Verdict
from tests.model_builders import stump

ARTICLE = [
    "Der Stadtrat hat am Dienstag nach langer Debatte den Haushalt für das kommende Jahr "
    "beschlossen, der vor allem bei den Schulen mehr Mittel vorsieht.",
    "Die Opposition kritisierte den Entwurf als zu zaghaft und kündigte an, im Frühjahr eigene "
    "Vorschläge für den Straßenbau vorzulegen.",
]
RELATED = [
    "Neue Radwege für die gesamte Innenstadt geplant",
    "Feuerwehr rückt zu einem Einsatz am Hauptbahnhof aus",
    "Wochenmarkt zieht in den Sommermonaten auf den Domplatz",
]


def related_page(related: list[str] = RELATED, article: list[str] = ARTICLE) -> str:
    """An article followed, inside the same <article>, by a related-articles list whose items
    are each a link around a paragraph (the issue's ``ol > li > a > div > p``)."""
    items = "".join(
        f'<li><a href="/r/{i}"><div><p>{t}</p></div></a></li>' for i, t in enumerate(related)
    )
    body = "".join(f"<p>{t}</p>" for t in article)
    return (
        "<html><head><title>Haushalt</title></head><body><article><h1>Haushalt beschlossen</h1>"
        f"{body}<h2>Mehr zum Thema</h2><ol>{items}</ol></article></body></html>"
    )


def blocks_of(html: str) -> list[Block]:
    return segment(parse(html.encode()), record_runs=True)


def keep_all_model(tmp_path: Path) -> dict:
    """Cleaner parameters of a model that keeps every block longer than about 20 characters,
    sure of each (the case where the article is kept and the link guard does not fire)."""
    path = tmp_path / "keep-all.json"
    path.write_text(json.dumps({**stump(3.0, short=-4.0, long=4.0), "fallback_ratio": 0.0}))
    return {"model": str(path)}


def kept(result) -> list[str]:
    return [lb.block.text for lb in result.blocks if lb.verdict is Verdict.GOOD]


def test_items_are_runs_of_link_only_blocks():
    blocks = blocks_of(related_page())
    items = link_lists.link_list_items(blocks)
    assert [b.text for b, i in zip(blocks, items.tolist(), strict=True) if i] == RELATED
    # One link-only block alone is not a list.
    single = blocks_of(related_page(RELATED[:1]))
    assert not link_lists.link_list_items(single).any()


def test_two_link_only_blocks_in_a_row_are_a_list():
    # `MIN_RUN` is two: a pair of related links is already a list, one alone is not.
    blocks = blocks_of(related_page(RELATED[:2]))
    items = link_lists.link_list_items(blocks)
    assert [b.text for b, i in zip(blocks, items.tolist(), strict=True) if i] == RELATED[:2]


@given(st.lists(st.sampled_from([0.0, 0.5, 0.89, 0.9, 1.0]), max_size=40))
def test_items_are_exactly_the_long_enough_runs(densities: list[float]):
    # Reference: group consecutive blocks by "link-only or not", mark groups of MIN_RUN or more.
    blocks = [
        Block(i, "x" * 100, "a", "html.body.a", "a", False, 100, 1, round(100 * d), 1, 7)
        for i, d in enumerate(densities)
    ]
    expected: list[bool] = []
    for linked, group in itertools.groupby(d >= link_lists.MIN_LINK_DENSITY for d in densities):
        n = len(list(group))
        expected += [linked and n >= link_lists.MIN_RUN] * n
    assert link_lists.link_list_items(blocks).tolist() == expected


def test_a_kept_related_list_goes_when_the_article_is_kept(tmp_path: Path):
    params = keep_all_model(tmp_path)
    off = clean_html(related_page(), language="de", **params, link_lists=False)
    assert set(RELATED) <= set(kept(off))
    on = clean_html(related_page(), language="de", **params)
    assert link_lists.LIST_DROPPED in on.notes
    assert set(ARTICLE) <= set(kept(on))
    assert not set(RELATED) & set(kept(on))


def test_english_is_left_alone(tmp_path: Path):
    result = clean_html(related_page(), language="en", **keep_all_model(tmp_path))
    assert set(RELATED) <= set(kept(result))
    assert link_lists.LIST_DROPPED not in result.notes


def test_a_page_that_is_only_a_link_list_keeps_it():
    blocks = blocks_of(related_page(article=[]))
    keep = np.array([b.text in RELATED for b in blocks])
    out, notes = link_lists.guard(keep, blocks, "de")
    assert notes == ()
    assert out.tolist() == keep.tolist()


def test_link_lists_parameter_is_recorded_only_when_off():
    assert "link_lists" not in NeighboursCleaner().params()
    assert NeighboursCleaner(link_lists=False).params() == {"link_lists": False}
    with pytest.raises(ValueError, match="link_lists must be true or false"):
        NeighboursCleaner(link_lists="no")  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(
    keep=st.lists(st.booleans(), min_size=7, max_size=7),
    language=st.sampled_from(["en", "de", "ja", None]),
)
def test_the_guard_only_drops_kept_items(keep: list[bool], language: str | None):
    blocks = blocks_of(related_page())
    assert len(blocks) == 7
    before = np.array(keep)
    after, notes = link_lists.guard(before, blocks, language)
    items = link_lists.link_list_items(blocks)
    assert not (after & ~before).any()
    assert not ((before & ~after) & ~items).any()
    if notes:
        assert notes == (link_lists.LIST_DROPPED,) and after.any() and language != "en"
    else:
        assert after.tolist() == keep


def test_a_pager_of_one_character_links_is_a_link_list() -> None:
    # Page numbers: each block one linked character, a link density of 1.
    blocks = [
        Block(i, str(i), "a", "html.body.div.a", "a", False, 1, 1, 1, 1, 7) for i in range(1, 4)
    ]
    assert link_lists.link_densities(blocks).tolist() == [1.0, 1.0, 1.0]
    assert link_lists.link_list_items(blocks).all()


@settings(max_examples=100, deadline=None)
@given(counts=st.lists(st.tuples(st.integers(0, 10**7), st.integers(0, 10**7)), max_size=40))
def test_link_densities_are_the_blocks_own(counts: list[tuple[int, int]]) -> None:
    # The vectorised quotients the list guards read are the property's to the bit, and -1.0
    # for a block without text.
    blocks = [
        Block(i, "x", "p", "body.p", "", False, chars, 1, min(links, chars), 1, 7)
        for i, (chars, links) in enumerate(counts)
    ]
    expected = [b.link_density if b.n_chars > 0 else -1.0 for b in blocks]
    assert link_lists.link_densities(blocks).tolist() == expected
