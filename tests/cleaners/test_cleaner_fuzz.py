"""The cleaner on hypothesis-generated tag soup: no exception, and every block exactly one label.

Documents come from a small grammar: random nested tags (block, inline, killed, void, table,
custom and foreign elements), attributes with quotes and entities, text in several scripts,
entities (valid, numeric, surrogate, bogus), comments, stray ``<`` and unclosed tags. The CI
budget is small; FUZZING.md describes the longer pre-release run (``HYPOTHESIS_PROFILE``).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.clean import clean_html
from pipeline.config import Limits
from pipeline.errors import PageTooComplex
from pipeline.html.segment import segment
from pipeline.render.blocks import _is_line_numbers
from pipeline.types import CfClass, Verdict

# The CI budget, unless a named profile (registered in conftest, see FUZZING.md) raises it.
_PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "default")
EXAMPLES = 40 if _PROFILE in ("default", "ci") else settings.default.max_examples
# The bound is on the whole test, every example and the shrinking together: a fixed 120 s cut the
# pre-release campaign's 5,000 examples (about 40 ms each here) short as if a page had hung.
TIMEOUT = max(120, EXAMPLES // 4)

TAGS = (
    "div p span a b i em strong ul ol li table tr td th h1 h2 h3 pre blockquote form body html "
    "head title script style noscript template textarea select option iframe object svg math "
    "my-widget font center br img hr input meta"
).split()
ENTITIES = ["&amp;", "&lt;", "&gt;", "&nbsp;", "&#65;", "&#x1F600;", "&#0;", "&#xD800;", "&bogus;"]
SCRIPTS = st.sampled_from(
    [
        "The quick brown fox jumps over the lazy dog and the river",
        "Příliš žluťoučký kůň úpěl ďábelské ódy",
        "Съешь же ещё этих мягких французских булок",
        "日本語のテキストと漢字の文章です",
        "العربية نص تجريبي من اليمين",
        "עברית טקסט לבדיקה",
        "ภาษาไทยไม่มีช่องว่าง",
        "한국어 텍스트 예제",
        "🙂 emoji \u200b zero width \u202e rtl override",
    ]
)
TEXT = st.one_of(
    SCRIPTS,
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=40),
    st.sampled_from(ENTITIES),
    st.sampled_from(["<", "< b", "a<b", "<!-- c -->", "<![CDATA[x]]>", "</", "<!doctype html>"]),
)
ATTR_VALUE = st.one_of(
    st.text(max_size=20),
    st.sampled_from(['"', "'", "nav menu", "content article", "x&amp;y", "a\u0000b"]),
)
ATTRS = st.lists(
    st.tuples(st.sampled_from(["class", "id", "href", "style", "data-x", "on"]), ATTR_VALUE),
    max_size=3,
)


def _attr(name: str, value: str) -> str:
    return f' {name}="{value.replace(chr(34), "&quot;")}"'


@st.composite
def elements(draw: st.DrawFn, children: st.SearchStrategy[str]) -> str:
    tag = draw(st.sampled_from(TAGS))
    attrs = "".join(_attr(n, v) for n, v in draw(ATTRS))
    body = "".join(draw(st.lists(children, max_size=4)))
    closing = draw(st.sampled_from(["close", "close", "open", "self"]))
    if closing == "self":
        return f"<{tag}{attrs}/>{body}"
    end = f"</{tag}>" if closing == "close" else ""
    return f"<{tag}{attrs}>{body}{end}"


SOUP = st.recursive(TEXT, lambda children: elements(children), max_leaves=40)


@pytest.mark.timeout(TIMEOUT)
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    html=st.lists(SOUP, min_size=1, max_size=6).map("".join),
    cleaner=st.sampled_from(
        ["justext", "bte", "density-mean", "kimatu", "density-lm", "density-mlp", "neighbours-fast"]
    ),
    as_bytes=st.booleans(),
)
def test_cleaner_labels_every_block_once_on_tag_soup(
    html: str, cleaner: str, as_bytes: bool
) -> None:
    page: str | bytes = html.encode("utf-8", "surrogatepass") if as_bytes else html
    try:
        result = clean_html(page, cleaner=cleaner, limits=Limits(max_blocks=10_000))
    except PageTooComplex:
        return  # a recorded rejection with a reason is an allowed outcome
    expected = segment(html) if not as_bytes else None
    blocks = [lb.block for lb in result.blocks]
    # One labelled block per segmented block, in order, each with exactly one verdict.
    assert [b.index for b in blocks] == list(range(len(blocks)))
    if expected is not None:
        assert [b.text for b in blocks] == [b.text for b in expected]
    for lb in result.blocks:
        assert lb.verdict in (Verdict.GOOD, Verdict.BAD, Verdict.COMMENT)
        assert lb.cf_class is None or isinstance(lb.cf_class, CfClass)
        assert lb.block.text and lb.block.text == lb.block.text.strip()
    # The text is the kept blocks' words in order (a <pre> by its exact text, which has the same
    # words as its block), laid out by `pipeline.render.blocks`; a <pre> of bare line numbers is
    # a highlighter's gutter and left out.
    words = []
    for lb in result.blocks:
        shape = lb.block.shape
        text = shape.raw if shape is not None and shape.raw is not None else lb.block.text
        if lb.verdict is Verdict.GOOD and not (shape and shape.pre and _is_line_numbers(text)):
            words += text.split()
    assert result.text.split() == words
