"""TeX between MathJax's delimiters in a block's text becomes math spans (`pipeline.html.tex_text`);
through the walks, see tests/html/test_structure.py."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.html.tex_text import MAX_TEX_CHARS, block_tex, may_hold_tex, tex_spans


def spans_text(result: tuple[str, tuple[tuple[int, int, str], ...]] | None) -> list:
    assert result is not None
    text, spans = result
    return [text, [(text[a:b], k) for a, b, k in spans]]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("where \\( x^2 \\) grows", ["where x^2 grows", [("x^2", "math")]]),
        ("\\[\\sum_i i\\]", ["\\sum_i i", [("\\sum_i i", "display_math")]]),
        ("so $$ a+b $$ holds", ["so a+b holds", [("a+b", "display_math")]]),
        ("$$x$$", ["x", [("x", "display_math")]]),
        # A run of dollars is skipped, a "$$" after it may still open a formula.
        ("$$$ then $$\\alpha$$", ["$$$ then \\alpha", [("\\alpha", "display_math")]]),
        # Two formulas, the second right after the first.
        ("\\(a\\)\\(b\\) and \\(c\\)", ["ab and c", [("a", "math"), ("b", "math"), ("c", "math")]]),
        # A display formula over line breaks (the block's text keeps them as "\n").
        ("\\[\na = b\n\\]", ["a = b", [("a = b", "display_math")]]),
        # An opener that never closes is text; the formula after it is still found.
        ("a \\( stray and \\[x\\]", ["a \\( stray and x", [("x", "display_math")]]),
        # A formula's closing "$$" opens nothing: the next pair is the next formula.
        ("$$x^2$$ $$y^2$$", ["x^2 y^2", [("x^2", "display_math"), ("y^2", "display_math")]]),
    ],
)
def test_delimited_formulas(text: str, expected: list) -> None:
    assert spans_text(tex_spans(text, ())) == expected


@pytest.mark.parametrize(
    "text",
    [
        "no formula here",
        "prices: $$5 and $3",  # one $$ only
        "an escaped \\$$ and \\$$ pair",
        "\\(   \\) is empty",
        "C:\\Program Files\\(x86",  # a Windows path
        "$$$$",
        # Price tiers (WCXB dev pages 0178 and 0332): "$$" in a run of dollars delimits nothing,
        # and words alone between two "$$" are not TeX.
        "calendars color-coded to indicate which days were $, $$, or $$$ for a given route",
        "Price range: $$-$$$",
        "$$–$$$ Italian",
        "from $$ to $$ a night",
    ],
)
def test_no_formula(text: str) -> None:
    assert tex_spans(text, ()) is None


def test_commands_only_takes_formulas_that_hold_a_tex_command() -> None:
    text = "find . \\( -name x \\) where \\(\\alpha_1\\) and \\[ x^2 \\]"
    assert spans_text(tex_spans(text, (), commands_only=True)) == [
        "find . \\( -name x \\) where \\alpha_1 and \\[ x^2 \\]",
        [("\\alpha_1", "math")],
    ]
    assert tex_spans("a \\( b \\) c", (), commands_only=True) is None
    assert block_tex("a \\( b \\) c", (), commands_only=False) == ("a b c", 3, ((2, 3, "math"),))


def test_code_spans_hide_delimiters_and_move_with_the_text() -> None:
    text = "run `\\(x\\)` then \\(y\\) and `z`"
    code1 = (text.index("`\\("), text.index("` then") + 1, "code")
    code2 = (text.index("`z`"), len(text), "code")
    result = tex_spans(text, (code1, code2))
    new_text, spans = result
    assert [(new_text[a:b], k) for a, b, k in spans] == [
        ("`\\(x\\)`", "code"),
        ("y", "math"),
        ("`z`", "code"),
    ]


def test_a_delimiter_at_the_start_of_a_code_span_is_code() -> None:
    # The span holds the whole formula, delimiters and all: it stays code, unchanged.
    text = "see \\(x\\) here"
    code = (text.index("\\("), text.index(" here"), "code")
    assert text[code[0] : code[1]] == "\\(x\\)"
    assert tex_spans(text, (code,)) is None


def test_a_span_right_after_a_formula_is_beside_it() -> None:
    # Inline code that starts where the formula's closing delimiter ends touches it, and moves
    # back by all four delimiter characters.
    text = "\\(x+1\\)`y`"
    assert spans_text(tex_spans(text, ((7, 10, "code"),))) == [
        "x+1`y`",
        [("x+1", "math"), ("`y`", "code")],
    ]


def test_a_span_right_before_a_formula_is_beside_it() -> None:
    text = "`y`\\(x+1\\)"
    assert spans_text(tex_spans(text, ((0, 3, "code"),))) == [
        "`y`x+1",
        [("`y`", "code"), ("x+1", "math")],
    ]


def test_a_formula_may_not_cross_a_span() -> None:
    text = "\\(a `b\\)` c"
    code = (text.index("`"), len(text) - 2, "code")
    assert tex_spans(text, (code,)) is None


def test_a_formula_closes_within_its_length_bound() -> None:
    long = "x" * (MAX_TEX_CHARS + 1)
    assert tex_spans(f"\\({long}\\)", ()) is None
    assert tex_spans(f"\\({long[:MAX_TEX_CHARS]}\\)", ()) is not None


def test_block_tex_counts_the_words_left() -> None:
    assert block_tex("a \\( x + y \\) b", ()) == ("a x + y b", 5, ((2, 7, "math"),))
    assert block_tex("plain", ()) is None
    assert may_hold_tex("a \\b") and may_hold_tex("$$") and not may_hold_tex("$5 a")


_PIECES = st.sampled_from(
    ["a", "bc", " ", "\n", "\\(", "\\)", "\\[", "\\]", "$$", "\\", "$", "x^2", "`"]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(_PIECES, max_size=25).map("".join), st.data())
def test_spans_stay_valid_and_code_keeps_its_characters(text: str, data: st.DataObject) -> None:
    # Random code spans, in order and apart.
    cuts = sorted(data.draw(st.sets(st.integers(0, len(text)), max_size=4)))
    code = tuple((a, b, "code") for a, b in zip(cuts[0::2], cuts[1::2], strict=False) if a < b)
    result = tex_spans(text, code)
    if result is None:
        return
    new_text, spans = result
    assert len(new_text) < len(text)
    end = 0
    for a, b, _ in spans:
        assert end <= a < b <= len(new_text)
        end = b
    moved = [(a, b) for a, b, k in spans if k == "code"]
    assert [new_text[a:b] for a, b in moved] == [text[a:b] for a, b, _ in code]
    for a, b, kind in spans:
        if kind != "code":
            tex = new_text[a:b]
            assert tex.strip() == tex and tex
