"""The list rescue: a mostly kept list gets back the items the model dropped between its kept
ones, and the colon line that introduces it; nothing else changes (menus, lists the model left
out, items past the last kept one, long or linked lines)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.html.segment import parse, segment
from pipeline.learned.neighbours import NeighboursCleaner
from pipeline.rules import list_rescue
from pipeline.rules.sequence import guarded
from pipeline.types import Block

INTRO = "This bread takes an afternoon and rewards the patience it asks for, every time."
LABEL = "For the dough:"
ITEMS = ["500 g strong white flour, sifted twice", "2 eggs", "Salt", "300 ml warm water, not hot"]


def blocks_of(body: str) -> list[Block]:
    return segment(parse(f"<html><body>{body}</body></html>".encode()), record_runs=True)


def recipe(label: str = LABEL, items: list[str] = ITEMS) -> str:
    lis = "".join(f"<li>{t}</li>" for t in items)
    return f"<p>{INTRO}</p><p>{label}</p><ul>{lis}</ul>"


def added(blocks: list[Block], kept_texts: set[str]) -> tuple[list[str], tuple[str, ...]]:
    keep = np.array([b.text in kept_texts for b in blocks])
    out, notes = list_rescue.rescue(keep, blocks, "en")
    assert out[keep].all(), "the rescue never drops a block"
    return [b.text for b, k, was in zip(blocks, out, keep, strict=True) if k and not was], notes


def test_short_items_between_kept_items_and_the_label_line_are_kept() -> None:
    # The model kept the prose and the two long items; "2 eggs", "Salt" and the label it dropped.
    new, notes = added(blocks_of(recipe()), {INTRO, ITEMS[0], ITEMS[3]})
    assert new == [LABEL, ITEMS[1], ITEMS[2]]
    assert notes == (list_rescue.LIST_ITEMS_KEPT, list_rescue.LIST_LABEL_KEPT)
    new, notes = added(blocks_of(recipe()), {INTRO, *ITEMS})
    assert new == [LABEL] and notes == (list_rescue.LIST_LABEL_KEPT,)
    # The label comes back only above a kept item: here the first item stays dropped.
    new, notes = added(blocks_of(recipe()), {INTRO, ITEMS[1], ITEMS[3]})
    assert new == [ITEMS[2]] and notes == (list_rescue.LIST_ITEMS_KEPT,)


def test_list_items_are_the_item_blocks_in_order_keyed_by_their_list() -> None:
    blocks = blocks_of(recipe() + "<ol><li>Knead it for ten minutes</li><li>Bake</li></ol>")
    items = list_rescue.list_items(blocks)
    assert [blocks[i].text for i, _ in items] == [*ITEMS, "Knead it for ten minutes", "Bake"]
    keys = [key for _, key in items]
    # One key per list, so the two lists' runs stay apart.
    assert len(set(keys[:4])) == 1 and len(set(keys[4:])) == 1 and keys[0] != keys[4]
    assert list_rescue.list_items(blocks_of(f"<p>{INTRO}</p>")) == []


def test_only_english_pages_are_rescued() -> None:
    blocks = blocks_of(recipe())
    keep = np.array([b.text in {INTRO, ITEMS[0], ITEMS[3]} for b in blocks])
    for language in ("de", "zh", None):
        out, notes = list_rescue.rescue(keep, blocks, language)
        assert out is keep and notes == ()


def test_the_kept_share_counts_a_list_from_its_first_item_at_the_start_of_the_page() -> None:
    # Seven items, the page's first blocks: two kept of seven (0.29) is under the share, though
    # two of the six from the second item on would not be.
    seven = [f"Entry number {i}" for i in range(7)]
    blocks = blocks_of("<ol>" + "".join(f"<li>{t}</li>" for t in seven) + "</ol>")
    assert blocks[0].text == seven[0]
    assert added(blocks, {seven[4], seven[6]}) == ([], ())
    # With the first item left out of the list, the same two kept fill the one between them.
    six = blocks_of("<p>Intro</p><ol>" + "".join(f"<li>{t}</li>" for t in seven[1:]) + "</ol>")
    assert added(six, {seven[4], seven[6]}) == ([seven[5]], (list_rescue.LIST_ITEMS_KEPT,))


def test_items_past_the_last_kept_item_stay_dropped() -> None:
    new, notes = added(blocks_of(recipe()), {INTRO, ITEMS[1], ITEMS[2]})
    assert new == [] and notes == ()


def test_a_list_with_one_kept_item_or_few_kept_items_is_left_alone() -> None:
    assert added(blocks_of(recipe()), {INTRO, ITEMS[1]}) == ([], ())
    # Two kept at the ends of a list of ten are under the kept share: the list is not "kept".
    ten = [f"Menu entry {i}" for i in range(10)]
    assert added(blocks_of(recipe(label="Browse", items=ten)), {ten[0], ten[9]}) == ([], ())
    # Two of seven (0.29) are under it too: the share counts every item from the first to the last.
    seven = ten[:7]
    assert added(blocks_of(recipe(label="Browse", items=seven)), {seven[0], seven[6]}) == ([], ())


def test_linked_items_and_labels_are_not_kept() -> None:
    items = [ITEMS[0], "<a href='/x'>Our other recipes</a>", ITEMS[3]]
    html = f"<p>{INTRO}</p><p><a href='/all'>All recipes:</a></p><ul>"
    html += "".join(f"<li>{t}</li>" for t in items) + "</ul>"
    assert added(blocks_of(html), {INTRO, ITEMS[0], ITEMS[3]}) == ([], ())


def test_the_bounds_themselves() -> None:
    # A list kept at exactly MIN_KEPT_SHARE of its items (3 of 10) is a kept list.
    ten = [f"Step {i}: stir the pot again" for i in range(10)]
    kept = {ten[0], ten[4], ten[9]}
    assert list_rescue.MIN_KEPT_SHARE * 10 == 3
    new, _ = added(blocks_of(recipe(label="Method", items=ten)), kept)
    assert new == [t for t in ten[1:9] if t not in kept]
    # An item or a label half of whose characters are a link's (MAX_LINK_DENSITY) is a link's.
    half = "abcd<a href='/x'>abcd</a>"
    (block,) = blocks_of(f"<ul><li>{half}</li></ul>")
    assert block.link_density == list_rescue.MAX_LINK_DENSITY
    html = recipe(label="Read <a href='/x'>this:</a>", items=[ITEMS[0], half, ITEMS[3]])
    assert added(blocks_of(html), {INTRO, ITEMS[0], ITEMS[3]}) == ([], ())
    # A label of exactly MAX_LABEL_CHARS characters is still a label.
    label = "x" * (list_rescue.MAX_LABEL_CHARS - 1) + ":"
    assert added(blocks_of(recipe(label=label)), {INTRO, *ITEMS}) == (
        [label],
        (list_rescue.LIST_LABEL_KEPT,),
    )


def test_a_long_line_with_a_colon_is_no_label() -> None:
    long_label = "A long sentence that merely happens to end in a colon, " * 3 + "like this:"
    assert len(long_label) > list_rescue.MAX_LABEL_CHARS
    assert added(blocks_of(recipe(label=long_label)), {INTRO, *ITEMS}) == ([], ())


def test_items_of_two_lists_are_two_runs() -> None:
    # Kept items of one list do not pull in the items of the next one.
    a = "".join(f"<li>{t}</li>" for t in ITEMS)
    b = "".join(f"<li>Other {i}</li>" for i in range(3))
    blocks = blocks_of(f"<ul>{a}</ul><p>Between.</p><ul>{b}</ul>")
    assert added(blocks, {ITEMS[0], ITEMS[3], "Other 2"}) == (
        [ITEMS[1], ITEMS[2]],
        (list_rescue.LIST_ITEMS_KEPT,),
    )


def test_a_list_right_after_another_is_its_own_run() -> None:
    # No block between the two lists: the second's first item starts its run, and the first
    # list's kept items do not make the second a kept list.
    a = "".join(f"<li>{t}</li>" for t in ITEMS[:2])
    b = "".join(f"<li>Other {i}</li>" for i in range(3))
    blocks = blocks_of(f"<ul>{a}</ul><ol>{b}</ol>")
    assert [b.text for b in blocks] == [*ITEMS[:2], "Other 0", "Other 1", "Other 2"]
    assert added(blocks, {*ITEMS[:2], "Other 2"}) == ([], ())
    assert added(blocks, {"Other 0", "Other 2"}) == (["Other 1"], (list_rescue.LIST_ITEMS_KEPT,))


def test_a_label_on_the_page_s_first_block_is_kept() -> None:
    blocks = blocks_of(f"<p>{LABEL}</p><ul>" + "".join(f"<li>{t}</li>" for t in ITEMS) + "</ul>")
    assert blocks[0].text == LABEL
    assert added(blocks, set(ITEMS)) == ([LABEL], (list_rescue.LIST_LABEL_KEPT,))


def test_guarded_runs_it_and_the_cleaner_can_leave_it_out() -> None:
    blocks = blocks_of(recipe())
    keep = np.array([b.text in {INTRO, ITEMS[0], ITEMS[3]} for b in blocks])
    probs = np.where(keep, 0.9, 0.2)
    on, notes = guarded(keep, probs, blocks, None, "en")
    off, off_notes = guarded(keep, probs, blocks, None, "en", list_items=False)
    assert list_rescue.LIST_ITEMS_KEPT in notes and list_rescue.LIST_ITEMS_KEPT not in off_notes
    assert on.sum() == off.sum() + 3  # two items and the label
    cleaner = NeighboursCleaner(list_rescue=False)
    assert cleaner.params()["list_rescue"] is False
    assert "list_rescue" not in NeighboursCleaner().params()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["p", "li", "label", "link"]), max_size=14),
    st.lists(st.booleans(), min_size=14, max_size=14),
)
def test_it_only_adds_list_items_and_the_lines_right_above_kept_items(
    kinds: list[str], kept: list[bool]
) -> None:
    parts = {
        "p": "<p>Prose sentence {i}.</p>",
        "li": "<ul><li>Item {i}</li></ul>",
        "label": "<p>Label {i}:</p>",
        "link": "<ul><li><a href='/{i}'>Link {i}</a></li></ul>",
    }
    blocks = blocks_of("".join(parts[k].format(i=i) for i, k in enumerate(kinds)))
    keep = np.array(kept[: len(blocks)], dtype=bool)
    out, notes = list_rescue.rescue(keep, blocks, "en")
    assert out[keep].all()
    assert bool(notes) == bool((out & ~keep).any())
    for i in np.flatnonzero(out & ~keep).tolist():
        block = blocks[i]
        is_item = block.shape is not None and block.shape.item
        above_kept_item = (
            i + 1 < len(blocks)
            and out[i + 1]
            and blocks[i + 1].shape is not None
            and blocks[i + 1].shape.item
        )
        assert block.link_density < list_rescue.MAX_LINK_DENSITY
        assert is_item or (block.text.endswith(":") and above_kept_item)


def _reference(keep: np.ndarray, blocks: list[Block]) -> np.ndarray:
    items = list_rescue.list_items(blocks)
    return list_rescue.keep_labels(list_rescue.fill_lists(keep, blocks, items), blocks, items)


_PARTS = {
    "p": "<p>Prose sentence {i}.</p>",
    "label": "<p>Label {i}:</p>",
    "ul": "<ul><li>Item {i}a</li><li>Item {i}b</li><li><a href='/{i}'>Link {i}</a></li></ul>",
    "ol": "<ol><li>Step {i}a</li><li>Step {i}b</li><li>Step {i}c</li><li>Step {i}d</li></ol>",
    "nested": "<ul><li>Outer {i}<ul><li>Inner {i}a</li><li>Inner {i}b</li></ul></li></ul>",
    "li": "<ul><li>Item {i}</li></ul>",
    "long": "<ol>" + "".join(f"<li>Entry {{i}}.{k}</li>" for k in range(8)) + "</ol>",
    # Blocks with a shape that are not list items: a heading, a table cell.
    "h": "<h3>Heading {i}</h3>",
    "td": "<table><tr><td>Cell {i}</td><td>Value {i}</td></tr></table>",
}


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(sorted(_PARTS)), max_size=10),
    st.lists(st.booleans(), min_size=80, max_size=80),
)
def test_it_is_fill_lists_then_keep_labels_over_every_list_item(
    kinds: list[str], kept: list[bool]
) -> None:
    # rescue reads only the stretches of items around kept ones; the answer is the two steps'
    # over all the page's items.
    blocks = blocks_of("".join(_PARTS[k].format(i=i) for i, k in enumerate(kinds)))
    keep = np.array(kept[: len(blocks)], dtype=bool)
    out, notes = list_rescue.rescue(keep, blocks, "en")
    assert out.tolist() == _reference(keep, blocks).tolist()
    filled = list_rescue.fill_lists(keep, blocks, list_rescue.list_items(blocks))
    expected = ((list_rescue.LIST_ITEMS_KEPT,) if (filled != keep).any() else ()) + (
        (list_rescue.LIST_LABEL_KEPT,) if (out != filled).any() else ()
    )
    assert notes == expected
