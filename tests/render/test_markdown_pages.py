"""Whole pages through the cleaner: their Markdown is text, and bounded by the page (issue 48).

`tests/render/test_markdown_text.py` checks the renderer on blocks; here generated hostile pages
go through `clean_html`, as the job's do, and the dev sets' pages too (``shared``).
"""

from __future__ import annotations

import html as html_module
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.clean import OUTPUT_MIN, OUTPUT_PER_BYTE, clean_html
from pipeline.config import Limits
from pipeline.evaluate.datasets import load_dataset
from pipeline.types import TRUNCATED_OUTPUT
from tests.render.test_markdown_text import RENDERER_ELEMENTS, elements

# What a page may show as text (entity-escaped in its markup, so inert there).
_SHOWN = st.sampled_from(
    [
        "<script>alert(document.cookie)</script>",
        "<img src=x onerror=alert(1)>",
        "<iframe src=https://e.example/></iframe>",
        "<svg onload=alert(1)>",
        "[click](javascript:alert(1))",
        "![x](https://e.example/x.png)",
        "*bold* _it_ `code` &amp; &lt;b&gt;",
        "a < b > c & d",
        "\\<script>",
    ]
)
_WORDS = st.sampled_from(
    [
        "The river runs through the old town and the people along its banks tell the story.",
        "Visitors hear it by the time they leave, and most of them come back the next year.",
        "Die Fähre verlässt den Hafen im Winter zweimal am Tag.",
    ]
)


@st.composite
def hostile_pages(draw: st.DrawFn) -> str:
    parts = ["<html><head><title>t</title></head><body><h1>A page</h1>"]
    for _ in range(draw(st.integers(1, 8))):
        shown = html_module.escape(draw(_SHOWN), quote=False)
        words = draw(_WORDS)
        where = draw(st.sampled_from(["p", "h2", "li", "quote", "td", "pre", "code"]))
        if where == "p":
            parts.append(f"<p>{words} {shown} {words}</p>")
        elif where == "h2":
            parts.append(f"<h2>{shown} {words}</h2>")
        elif where == "li":
            parts.append(f"<ul><li>{words} {shown}</li><li>{words}</li></ul>")
        elif where == "quote":
            parts.append(f"<blockquote><p>{words} {shown}</p></blockquote>")
        elif where == "td":
            parts.append(
                f"<table><tr><th>Name</th><th>Value</th></tr><tr><td>{shown}</td><td>{words}"
                f"</td></tr><tr><td>b</td><td>{shown}</td></tr></table>"
            )
        elif where == "pre":
            parts.append(f"<pre>{shown}\n  {words}</pre>")
        else:
            parts.append(f"<p>{words} <code>{shown}</code> {words}</p>")
    parts.append("</body></html>")
    return "".join(parts)


def _assert_text_only(markdown: str) -> None:
    found = elements(markdown)
    assert found.tags <= RENDERER_ELEMENTS, (found.tags - RENDERER_ELEMENTS, markdown)
    assert not [a for a in found.attributes if a.lower().startswith("on")], markdown
    assert found.attributes <= {"start", "class"}, (found.attributes, markdown)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_pages())
def test_a_page_shows_markup_as_text_and_only_as_text(page: str) -> None:
    """No <script>, <img>, <iframe> or on* handler that the page showed as characters comes
    back as an element from its Markdown; and the Markdown stays within its bound."""
    result = clean_html(page)
    _assert_text_only(result.markdown)
    size = len(page.encode())
    assert len(result.markdown) <= OUTPUT_PER_BYTE * size + OUTPUT_MIN
    assert TRUNCATED_OUTPUT not in result.notes  # (ordinary pages never reach the bound)


@st.composite
def explosive_pages(draw: st.DrawFn) -> bytes:
    """Markup whose Markdown could outgrow it: deep quotes and lists around many short lines,
    ragged tables, long runs of characters that escaping doubles."""
    kind = draw(st.sampled_from(["quotes", "lists", "ragged", "escapes"]))
    n = draw(st.integers(10, 3_000))
    if kind == "quotes":
        body = "<blockquote>" * n + "<p>" + "x<br>" * n + "</p>"
    elif kind == "lists":
        body = "<ul><li>" * n + "y<br>" * n
    elif kind == "ragged":
        body = (
            "<table><tr>"
            + "<td>c" * n
            + "</tr>"
            + "".join(f"<tr><td>{r}<td>v" for r in range(n))
            + "</table>"
        )
    else:
        body = "<p>" + "*<" * n + "</p>"
    words = "<p>The river runs through the old town and the people tell its story.</p>" * 3
    return f"<html><body>{words}{body}{words}</body></html>".encode()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(explosive_pages())
def test_markdown_stays_within_a_fixed_multiple_of_the_page(page: bytes) -> None:
    limits = Limits(max_seconds=None, max_nodes=None, max_blocks=None)
    result = clean_html(page, limits=limits)
    assert len(result.markdown) <= OUTPUT_PER_BYTE * len(page) + OUTPUT_MIN
    assert len(result.text) <= OUTPUT_PER_BYTE * len(page) + OUTPUT_MIN
    assert len(result.markdown.encode()) <= 4 * (OUTPUT_PER_BYTE * len(page) + OUTPUT_MIN)


def test_a_cap_tied_to_the_body_cap_cuts_and_flags_the_document() -> None:
    paragraphs = (
        f"<p>Paragraph {i}: the river runs through the old town, and people tell its story.</p>"
        for i in range(2_000)
    )
    page = ("<html><body>" + "".join(paragraphs)).encode()
    limits = Limits(max_body_bytes=10_000)
    result = clean_html(page, limits=limits)
    assert len(result.text) <= 10_000 and len(result.markdown) <= 10_000
    assert TRUNCATED_OUTPUT in result.notes
    assert TRUNCATED_OUTPUT not in clean_html(page).notes


def _dev_pages(root: Path, every: int) -> list[bytes]:
    return [p.read_html() for p in load_dataset(root)[::every]]


@pytest.mark.shared
@pytest.mark.parametrize("dataset", ["wcxb_dir", "multilingual_dir"])
def test_the_dev_sets_markdown_is_text(request: pytest.FixtureRequest, dataset: str) -> None:
    # Every 7th page here (all of them: bench/markdown_safety.py); none may render to an element
    # the renderer does not make, with raw HTML enabled.
    pages = _dev_pages(request.getfixturevalue(dataset), 7)
    assert len(pages) > 30
    for page in pages:
        _assert_text_only(clean_html(page).markdown)
