"""Closed dialogs: kept blocks inside a dialog the page holds closed are dropped, an open one and
text that is only collapsed are kept, and the page says so."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.clean import clean_html
from pipeline.html.segment import parse, segment
from pipeline.rules import closed_dialogs
from tests.rules.guard_checks import dropped_by

ARTICLE = [
    "The ceramic mug is thrown on the wheel, glazed with a folk-art glaze and fired in the "
    "studio's own kiln, so no two of them come out quite alike.",
    "It holds 350 millilitres, goes in the dishwasher and is safe for food; the handle is wide "
    "enough for three fingers.",
]
DIALOG = [
    "What is wrong with this listing?",
    "The first thing you should do is contact the seller directly about the order.",
    "If you would like to file an allegation of infringement, you will need to follow the "
    "process described in our intellectual property policy.",
]
# A class word that names a modal on an ancestor of the dialog's text: the rule's gate.
MODAL = "report-overlay"


def page(dialog_attrs: str, tag: str = "div", cls: str = MODAL) -> bytes:
    text = "".join(f"<p>{t}</p>" for t in ARTICLE)
    inner = "".join(f"<p>{t}</p>" for t in DIALOG)
    return (
        "<html><head><title>Stoneware mug</title></head><body>"
        f'<div class="product"><h1>Stoneware mug</h1>{text}</div>'
        f'<{tag} class="{cls}" {dialog_attrs}>{inner}</{tag}></body></html>'
    ).encode()


def dropped(html: bytes, keep: list[bool] | None = None) -> list[str]:
    """What the guard drops when the model keeps ``keep`` (every block when None)."""
    return dropped_by(closed_dialogs.guard, closed_dialogs.CLOSED_DIALOG_DROPPED, html, keep)


@pytest.mark.parametrize(
    ("attrs", "tag"),
    [
        ('role="dialog" aria-hidden="true"', "div"),
        ('role="dialog" hidden', "div"),
        ('role="alertdialog" hidden=""', "div"),
        ('aria-modal="true" style="display: none"', "div"),
        ('role="dialog" style="opacity:1;visibility:hidden"', "section"),
        ("", "dialog"),
    ],
)
def test_a_closed_dialog_is_dropped(attrs: str, tag: str) -> None:
    assert dropped(page(attrs, tag)) == DIALOG


@pytest.mark.parametrize(
    ("attrs", "tag"),
    [
        ('role="dialog"', "div"),  # open: the page shows it
        ('role="dialog" aria-hidden="false"', "div"),
        ("open", "dialog"),
        ('role="dialog" hidden="until-found"', "div"),  # collapsed, for find-in-page to open
        ('aria-hidden="true"', "div"),  # hidden, but not a dialog
        ('class="hidden" role="region" hidden', "div"),
    ],
)
def test_an_open_dialog_or_hidden_text_that_is_not_a_dialog_is_kept(attrs: str, tag: str) -> None:
    assert dropped(page(attrs, tag)) == []


def test_a_closed_dialog_holding_a_data_table_is_content():
    rows = "<tr><th>Size</th><th>Width</th></tr><tr><td>Queen</td><td>152 cm</td></tr>"
    table = f"<table>{rows}</table>"
    html = page('role="dialog" hidden').replace(b"<p>What", table.encode() + b"<p>What")
    assert dropped(html) == []
    one_row = "<table><tr><td>Reason</td><td>Details</td></tr></table>"
    html = page('role="dialog" hidden').replace(b"<p>What", one_row.encode() + b"<p>What")
    assert dropped(html) == ["Reason", "Details", *DIALOG]


def test_the_tree_is_searched_only_where_a_class_word_names_a_modal():
    assert dropped(page('role="dialog" hidden', cls="report-form")) == []
    for word in ("modal", "popup", "overlay"):
        assert dropped(page('role="dialog" hidden', cls=f"x-{word}")) == DIALOG


def test_a_dialog_around_the_main_content_is_not_one():
    html = page('role="dialog" hidden').replace(b"<p>What", b"<main><p>Inside</p></main><p>What")
    assert dropped(html) == []


def test_a_page_that_is_only_a_closed_dialog_keeps_it():
    inner = "".join(f"<p>{t}</p>" for t in DIALOG)
    html = f'<html><body><div class="modal" role="dialog" hidden>{inner}</div></body></html>'
    assert dropped(html.encode()) == []


def test_only_the_outermost_dialog_is_found():
    inner = '<div role="dialog" aria-hidden="true"><p>Nested</p></div>'
    html = page('role="dialog" hidden').replace(b"<p>What", inner.encode() + b"<p>What")
    assert len(closed_dialogs.closed_dialogs(parse(html))) == 1


@given(st.lists(st.booleans(), min_size=5, max_size=5))
def test_the_guard_only_drops_kept_dialog_blocks(keep: list[bool]) -> None:
    html = page('role="dialog" hidden')
    blocks = segment(parse(html))
    assert len(blocks) == 6  # the heading, two paragraphs of the article, three of the dialog
    keep = [True, *keep]  # the heading stays kept: something else stays
    out = dropped(html, keep)
    assert out == [t for t, k in zip(DIALOG, keep[3:], strict=True) if k]


def test_the_default_cleaner_drops_kept_closed_dialogs_and_notes_it():
    html = page('role="dialog" aria-hidden="true"')
    without_rule = clean_html(html, closed_dialogs=False)
    # the model keeps some of the dialog (else this page tests nothing)
    assert any(t in without_rule.text for t in DIALOG)
    assert closed_dialogs.CLOSED_DIALOG_DROPPED not in without_rule.notes
    result = clean_html(html)
    for paragraph in ARTICLE:
        assert paragraph in result.text
    for t in DIALOG:
        assert t not in result.text
    assert closed_dialogs.CLOSED_DIALOG_DROPPED in result.notes


def test_the_option_is_a_cleaner_parameter():
    from pipeline.cleaners.registry import make_cleaner

    assert make_cleaner("neighbours", closed_dialogs=False).params()["closed_dialogs"] is False
    assert "closed_dialogs" not in make_cleaner("neighbours").params()
    with pytest.raises(ValueError, match="closed_dialogs must be true or false"):
        make_cleaner("neighbours", closed_dialogs="no")
