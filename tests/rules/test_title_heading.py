"""The page's own title heading kept (`pipeline.rules.title_heading`), as a rule on the model's
answer and in the default cleaner."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pipeline
from pipeline.learned.neighbours import NeighboursCleaner
from pipeline.rules import title_heading
from pipeline.rules.title_heading import TITLE_KEPT, _parts, keep_title, title_forms, words
from pipeline.types import Block
from tests.rules.council_page import BODY, blocks_of, kept_body, texts

TITLE = "Why the new library is late again"


ARTICLE = (
    "<header><h1>Town News</h1><nav><a href='/'>Home</a> <a href='/n'>News</a></nav></header>"
    f"<article><h1>{TITLE}</h1><p>May 3, 2024</p><p>{BODY}</p><p>{BODY}</p></article>"
    f"<aside><h2>Related</h2><h3>{TITLE}</h3></aside>"
)


@pytest.mark.parametrize(
    "titles",
    [
        [TITLE],
        [f"{TITLE} | Town News"],
        [f"Town News - {TITLE}"],
        [f"{TITLE.upper()}  –  Town News"],
        ["Why the NEW library   is late again!"],
        [f"{TITLE}: what the council said | Town News"],
    ],
)
def test_the_heading_that_names_the_title_is_kept(titles: list[str]) -> None:
    blocks = blocks_of(ARTICLE)
    keep, notes = keep_title(kept_body(blocks), blocks, titles, ("Town News",))
    assert texts(keep, blocks) == [TITLE, BODY.strip(), BODY.strip()]
    assert notes == (TITLE_KEPT,)


def test_entities_and_compatibility_forms_match() -> None:
    blocks = blocks_of(f"<h1>Fish &amp; Chips ＆ more</h1><p>{BODY}</p>")
    keep, _ = keep_title(kept_body(blocks), blocks, ["Fish & Chips & More | Eat"])
    assert texts(keep, blocks)[0] == "Fish & Chips ＆ more"


def test_a_bare_title_keeps_the_other_parts_from_matching() -> None:
    """With og:title bare, the <title>'s other part is the site's tagline, not the title."""
    blocks = blocks_of(f"<h1>Daily news from the valley</h1><h2>Other</h2><p>{BODY}</p>")
    keep, notes = keep_title(
        kept_body(blocks), blocks, ["Bridge closed", "Bridge closed - Daily news from the valley"]
    )
    assert notes == () and texts(keep, blocks) == [BODY.strip()]
    # with only the <title>, its parts are all there is to go by
    keep, notes = keep_title(
        kept_body(blocks), blocks, ["Bridge closed - Daily news from the valley"]
    )
    assert notes == (TITLE_KEPT,)


def test_the_site_name_and_the_host_are_not_the_title() -> None:
    blocks = blocks_of(f"<h1>Town News</h1><p>{BODY}</p>")
    title = ["Home | Town News"]
    assert keep_title(kept_body(blocks), blocks, title, ("Town News",))[1] == ()
    assert keep_title(kept_body(blocks), blocks, title, (), "https://www.townnews.com/")[1] == ()
    assert keep_title(kept_body(blocks), blocks, title, (None,), None)[1] == (TITLE_KEPT,)


def test_nothing_changes_without_kept_text_a_title_or_a_heading() -> None:
    blocks = blocks_of(ARTICLE)
    nothing = np.zeros(len(blocks), dtype=bool)
    assert keep_title(nothing, blocks, [TITLE]) == (nothing, ())
    body = kept_body(blocks)
    assert keep_title(body, blocks, [])[1] == ()
    assert keep_title(body, blocks, ["Something else entirely"])[1] == ()
    plain = blocks_of(f"<p>{TITLE}</p><p>{BODY}</p>")
    assert keep_title(kept_body(plain), plain, [TITLE])[1] == ()


def test_inside_the_text_only_the_first_heading_that_names_the_title_is_kept() -> None:
    blocks = blocks_of(
        f"<p>{BODY}</p><h2>Contents</h2><h2>{TITLE}</h2><p>{BODY}</p><h3>{TITLE}</h3><p>{BODY}</p>"
    )
    keep, notes = keep_title(kept_body(blocks), blocks, [TITLE])
    assert notes == (TITLE_KEPT,)
    assert [(b.tag, b.text) for b, k in zip(blocks, keep, strict=True) if k and b.is_heading] == [
        ("h2", TITLE)
    ]


@pytest.mark.parametrize("fillers", [title_heading.WINDOW - 1, title_heading.WINDOW])
def test_a_heading_is_looked_for_at_most_window_blocks_above_the_text(fillers: int) -> None:
    filler = "".join(f"<p>Menu entry {i}</p>" for i in range(fillers))
    blocks = blocks_of(f"<h1>{TITLE}</h1>{filler}<p>{BODY}</p>")
    keep, notes = keep_title(kept_body(blocks), blocks, [TITLE])
    # The heading is fillers + 1 blocks above the first kept one.
    assert bool(notes) is (fillers + 1 <= title_heading.WINDOW)
    assert bool(keep[0]) is bool(notes)


def test_a_title_already_kept_is_left_alone() -> None:
    blocks = blocks_of(ARTICLE)
    keep = kept_body(blocks) | np.array([b.text == TITLE and b.tag == "h1" for b in blocks])
    out, notes = keep_title(keep, blocks, [TITLE])
    assert notes == () and (out == keep).all()


def test_the_nearest_heading_above_the_text_is_kept_and_none_below_it() -> None:
    blocks = blocks_of(
        f"<h2>{TITLE}</h2><p>menu</p><h1>{TITLE}</h1><p>{BODY}</p><p>{BODY}</p><h3>{TITLE}</h3>"
    )
    keep, _ = keep_title(kept_body(blocks), blocks, [TITLE])
    assert [b.tag for b, k in zip(blocks, keep, strict=True) if k] == ["h1", "p", "p"]
    # a heading inside the kept text, when none is above it
    inside = blocks_of(f"<p>{BODY}</p><h2>{TITLE}</h2><p>{BODY}</p><h3>{TITLE}</h3>")
    keep, _ = keep_title(kept_body(inside), inside, [TITLE])
    assert [b.tag for b, k in zip(inside, keep, strict=True) if k] == ["p", "h2", "p"]
    # only after the text: a list of related posts
    after = blocks_of(f"<p>{BODY}</p><h3>{TITLE}</h3>")
    assert keep_title(kept_body(after), after, [TITLE])[1] == ()


def test_title_forms() -> None:
    forms = title_forms(["A b | C - D"])
    assert words("A b") in forms and words("A b C") in forms and words("D") in forms
    assert ("c",) not in forms  # a middle part alone touches neither end
    assert title_forms(["A b", "A b | C"]) == {("a", "b"), ("a", "b", "c")}
    many = title_forms([" | ".join(f"p{i}" for i in range(20))])
    assert ("p0",) in many and ("p19",) in many and ("p5",) not in many


def test_a_heading_written_with_ligatures_names_the_title() -> None:
    # NFKC spells each ligature out: the heading's words are longer than its text.
    blocks = blocks_of(f"<h1>O\ufb03ce \ufb01les</h1><p>{BODY}</p>")
    keep, notes = keep_title(kept_body(blocks), blocks, ["Office files"])
    assert notes == (TITLE_KEPT,) and texts(keep, blocks)[0] == "O\ufb03ce \ufb01les"


@pytest.mark.parametrize(
    ("title", "heading"),
    [("Fish&Chips", "Fish &amp; Chips"), ("O\ufb03ce hours", "Office hours")],
)
def test_a_heading_longer_than_the_title_with_the_same_words_names_it(
    title: str, heading: str
) -> None:
    # White space and punctuation aside, the words are the same; only the text is longer.
    blocks = blocks_of(f"<h1>{heading}</h1><p>{BODY}</p>")
    assert len(blocks[0].text) > len(title)
    keep, notes = keep_title(kept_body(blocks), blocks, [title])
    assert notes == (TITLE_KEPT,) and keep[0]


def test_the_window_above_the_text_is_window_blocks_deep() -> None:
    def page(gap: int) -> list[Block]:
        fillers = "".join(f"<p>Share {i}</p>" for i in range(gap))
        return blocks_of(f"<h1>{TITLE}</h1>{fillers}<p>{BODY}</p>")

    # The heading `WINDOW` blocks above the first kept block is looked at; one further is not.
    at = page(title_heading.WINDOW - 1)
    assert keep_title(kept_body(at), at, [TITLE])[1] == (TITLE_KEPT,)
    beyond = page(title_heading.WINDOW)
    assert keep_title(kept_body(beyond), beyond, [TITLE])[1] == ()


def test_a_title_heading_the_model_kept_deep_in_the_text_adds_nothing() -> None:
    # Kept already (past the start of the text): no heading is put back, so no note says one was.
    blocks = blocks_of(f"{f'<p>{BODY}</p>' * 12}<h2>{TITLE}</h2><p>{BODY}</p>")
    keep = np.ones(len(blocks), dtype=bool)
    out, notes = keep_title(keep, blocks, [TITLE])
    assert notes == () and out.tolist() == keep.tolist()


def test_a_title_heading_counts_among_the_first_ten_kept_blocks() -> None:
    def page(before: int) -> list[Block]:
        return blocks_of(
            f"<h1>{TITLE}</h1>{f'<p>{BODY}</p>' * before}<h2>{TITLE}</h2><p>{BODY}</p>"
        )

    # The kept <h2> as the tenth kept block names the title already: the <h1> stays out.
    tenth = page(9)
    keep = np.array([b.tag != "h1" for b in tenth])
    assert keep_title(keep, tenth, [TITLE])[1] == ()
    # As the eleventh, it is past the start of the text: the <h1> above is put back.
    eleventh = page(10)
    keep = np.array([b.tag != "h1" for b in eleventh])
    out, notes = keep_title(keep, eleventh, [TITLE])
    assert notes == (TITLE_KEPT,) and out.all()


def test_a_paragraph_that_repeats_the_title_is_no_title_heading() -> None:
    # Only a heading kept at the start counts as the title kept already.
    blocks = blocks_of(f"<h1>{TITLE}</h1><p>{TITLE}</p><p>{BODY}</p>")
    keep = np.array([b.tag == "p" for b in blocks])
    out, notes = keep_title(keep, blocks, [TITLE])
    assert notes == (TITLE_KEPT,) and out.all()


def test_a_title_of_eight_parts_is_not_a_keyword_list() -> None:
    # More than eight parts are cut to the first and last; eight keep their runs from either end.
    forms = title_forms([" | ".join(f"p{i}" for i in range(8))])
    assert ("p0", "p1") in forms and ("p6", "p7") in forms
    nine = title_forms([" | ".join(f"p{i}" for i in range(9))])
    assert ("p0",) in nine and ("p8",) in nine
    assert ("p0", "p1") not in nine and ("p7", "p8") not in nine


def test_the_host_labels_joined_are_the_site() -> None:
    # "town.news.example": the site's name spans two of its labels.
    blocks = blocks_of(f"<h1>Town News</h1><p>{BODY}</p>")
    url = "https://town.news.example/2024/05/library"
    assert keep_title(kept_body(blocks), blocks, ["Home | Town News"], (), url)[1] == ()


PAGE = (
    f"<html><head><title>{TITLE} | Town News</title>"
    "<meta property='og:site_name' content='Town News'></head><body>"
    "<header><div class='logo'><h1>Town News</h1></div><nav><a href='/'>Home</a> "
    "<a href='/news'>News</a> <a href='/sport'>Sport</a></nav></header>"
    f"<main><article><div class='post-header'><h1 class='entry-title'>{TITLE}</h1>"
    "<span class='date'>May 3, 2024</span></div>"
    + "".join(f"<p>{BODY * 2}</p>" for _ in range(4))
    + "</article></main><footer><p>Copyright 2024 Town News</p></footer></body></html>"
)


def test_the_default_cleaner_keeps_the_post_title_the_model_drops() -> None:
    url = "https://townnews.example/2024/05/library"
    without = pipeline.clean_html(PAGE, url=url, title_heading=False)
    assert not without.text.startswith(TITLE)  # the model alone drops it (0.29 when written)
    result = pipeline.clean_html(PAGE, url=url)
    assert result.text.startswith(TITLE + "\n\n") and "Town News" not in result.text
    assert result.markdown.startswith(f"# {TITLE}\n")
    assert TITLE_KEPT in result.notes
    assert result.metadata.title == f"{TITLE} | Town News"
    assert dict(without.params) == {"title_heading": False}


def test_the_option_is_checked_and_named() -> None:
    assert NeighboursCleaner(title_heading=False).params() == {"title_heading": False}
    assert "title_heading" not in NeighboursCleaner().params()
    with pytest.raises(ValueError, match="title_heading must be true or false"):
        NeighboursCleaner(title_heading="no")  # type: ignore[arg-type]


# Separators, the characters around them that normalization could join to them (combining marks,
# compatibility forms, Hangul jamo), letters, digits and other punctuation.
_TITLE_CHARS = st.sampled_from(
    [
        *" \t\u00a0\u3000|-–—•·»«~/\\:_.,!?'\"ａＺ１｜：",
        *("\u0301", "\u0338", "\u20d2", "\u3099", "\u1161", "\u11a8", "\ufb01"),
        *("ß", "Σ", "İ", "e", "A", "7"),
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_TITLE_CHARS, max_size=30).map("".join))
def test_a_titles_words_are_its_parts_words_in_order(title: str) -> None:
    # title_forms builds each whole title's form from its parts' words instead of reading the
    # title twice; this is what makes that the same form.
    assert words(title) == tuple(w for part in _parts(title) for w in part)
