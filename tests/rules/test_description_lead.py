"""The block the head's description quotes kept as the text's lead
(`pipeline.rules.description_lead`), as a rule on the model's answer and in the default cleaner."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pipeline
from pipeline.html.metadata import HeadFacts
from pipeline.learned.neighbours import NeighboursCleaner
from pipeline.rules.description_lead import (
    BELOW,
    DESCRIPTION_KEPT,
    MIN_WORDS,
    TOP,
    WINDOW,
    in_banner,
    keep_description,
    says,
)
from pipeline.rules.title_heading import words
from pipeline.types import PageMetadata
from tests.rules.council_page import BODY, blocks_of, kept_body, texts

LEAD = "The town's library opens a year late, and at twice the price the council first agreed."


def head(description: str | None = LEAD, og_type: str | None = None, types=()) -> HeadFacts:
    return HeadFacts(og_type, frozenset(types), PageMetadata(description=description))


PAGE = (
    "<header><p>Town News</p><nav><a href='/'>Home</a> <a href='/n'>News</a></nav></header>"
    f"<main><div class='hero'><h1>The library</h1><div class='dek'>{LEAD}</div></div>"
    f"<p>{BODY}</p><p>{BODY}</p></main>"
    f"<aside><h2>Related</h2><p>{LEAD}</p></aside>"
)


def test_the_block_the_description_quotes_is_kept_above_the_text() -> None:
    blocks = blocks_of(PAGE)
    keep, notes = keep_description(kept_body(blocks), blocks, head(), "en")
    assert texts(keep, blocks) == [LEAD, BODY.strip(), BODY.strip()]
    assert notes == (DESCRIPTION_KEPT,)


@pytest.mark.parametrize(
    "description",
    [
        LEAD.upper(),
        "The town’s library opens a year late,   and at twice the price the council first agreed",
        # a meta description cut off with an ellipsis: the block goes on where it stops
        "The town's library opens a year late, and at twice the…",
        # a description that goes on past the block: the block is its first sentence
        LEAD + " Residents are not pleased.",
    ],
)
def test_case_spacing_punctuation_and_a_cut_either_side_do_not_matter(description: str) -> None:
    blocks = blocks_of(PAGE)
    keep, notes = keep_description(kept_body(blocks), blocks, head(description), "en")
    assert texts(keep, blocks)[0] == LEAD and notes == (DESCRIPTION_KEPT,)


def test_a_block_written_in_full_width_letters_or_a_ligature_still_says_it() -> None:
    # The description in plain letters, the block's first word in full-width letters or with a
    # ligature: both read as NFKC makes them, as `words` reads them.
    for written in ("\uff34\uff48\uff45" + LEAD[3:], LEAD.replace("first", "\ufb01rst")):
        page = PAGE.replace(f"<div class='dek'>{LEAD}</div>", f"<div class='dek'>{written}</div>")
        blocks = blocks_of(page)
        keep, notes = keep_description(kept_body(blocks), blocks, head(), "en")
        assert texts(keep, blocks)[0] == written and notes == (DESCRIPTION_KEPT,)


def test_a_description_of_few_words_or_other_words_keeps_nothing() -> None:
    blocks = blocks_of(PAGE)
    keep = kept_body(blocks)
    short = " ".join(words(LEAD)[: MIN_WORDS - 1])
    for description in (None, "", short, "A library for the town, late and dear at last."):
        out, notes = keep_description(keep, blocks, head(description), "en")
        assert out is keep and notes == ()


def test_words_and_says() -> None:
    assert words("Ｆｏｏ  Bar’s, BAZ!") == ("foo", "bar", "s", "baz")
    six = tuple("abcdef")
    assert says(six, six) and says((*six, "g"), six) and says(six, (*six, "g"))
    assert not says(six[:-1], six[:-1])  # fewer than MIN_WORDS on both sides
    assert not says(("x", *six[1:]), six)
    assert not says((*six[1:], "g"), six)


def test_not_on_an_english_page_its_head_declares_an_article() -> None:
    blocks = blocks_of(PAGE)
    keep = kept_body(blocks)
    for declared in (head(og_type="article"), head(types=("NewsArticle", "Organization"))):
        out, notes = keep_description(keep, blocks, declared, "en")
        assert out is keep and notes == ()
        # outside English, and where the language is unknown, it is kept all the same
        for language in ("de", None):
            out, notes = keep_description(keep, blocks, declared, language)
            assert texts(out, blocks)[0] == LEAD and notes == (DESCRIPTION_KEPT,)
    # a product page in English
    out, notes = keep_description(keep, blocks, head(og_type="product", types=("Product",)), "en")
    assert notes == (DESCRIPTION_KEPT,)


def test_nothing_is_added_when_a_kept_block_says_it_already_or_nothing_is_kept() -> None:
    blocks = blocks_of(PAGE)
    keep = kept_body(blocks) | np.array([b.text == LEAD for b in blocks])
    out, notes = keep_description(keep, blocks, head(), "en")
    assert out is keep and notes == ()
    nothing = np.zeros(len(blocks), dtype=bool)
    out, notes = keep_description(nothing, blocks, head(), "en")
    assert out is nothing and notes == ()


def test_nothing_is_added_when_the_text_keeps_it_further_down() -> None:
    body = "".join(f"<p>{BODY} {i}</p>" for i in range(TOP + 2))
    blocks = blocks_of(f"<div><p>{LEAD}</p></div><main>{body}<p>{LEAD}</p></main>")
    keep = np.array([True] * len(blocks))
    keep[0] = False
    assert keep_description(keep, blocks, head(), "en") == (keep, ())


def test_below_the_text_it_is_not_the_lead() -> None:
    page = f"<main><p>{BODY}</p><p>{BODY}</p></main><footer><p>{LEAD}</p></footer>"
    blocks = blocks_of(page)
    keep = kept_body(blocks)
    out, notes = keep_description(keep, blocks, head(), "en")
    assert out is keep and notes == ()


def test_between_kept_blocks_the_first_that_says_it_is_kept() -> None:
    page = f"<main><p>{BODY}</p><p>{LEAD}</p><p>{BODY}</p><p>{LEAD}</p><p>{BODY}</p></main>"
    blocks = blocks_of(page)
    keep, notes = keep_description(kept_body(blocks), blocks, head(), "en")
    assert [b.text for b in blocks] == [BODY.strip(), LEAD, BODY.strip(), LEAD, BODY.strip()]
    assert keep.tolist() == [True, True, True, False, True] and notes == (DESCRIPTION_KEPT,)


def test_inside_the_text_only_up_to_its_top_kept_block() -> None:
    def kept(before: int) -> list[bool]:
        body = "".join(f"<p>{BODY} {i}</p>" for i in range(before))
        blocks = blocks_of(f"<main>{body}<p>{LEAD}</p><p>{BODY}</p></main>")
        return keep_description(kept_body(blocks), blocks, head(), "en")[0].tolist()

    assert kept(TOP) == [True] * (TOP + 2)
    assert kept(TOP + 1) == [True] * (TOP + 1) + [False, True]


def test_inside_the_text_no_further_than_below_blocks_below_the_first_kept() -> None:
    def kept(gap: int) -> list[bool]:
        fillers = "".join(f"<p>Filler {i}</p>" for i in range(gap))
        blocks = blocks_of(f"<main><p>{BODY}</p>{fillers}<p>{LEAD}</p><p>{BODY} 2</p></main>")
        keep = np.array([b.text.startswith("The council") for b in blocks])
        return keep_description(keep, blocks, head(), "en")[0].tolist()

    # the first kept block is block 0, the lead block gap + 1
    assert kept(BELOW - 1)[BELOW] is True
    assert kept(BELOW)[BELOW + 1] is False


def test_the_nearest_above_the_text_is_kept() -> None:
    page = f"<div><p>{LEAD}</p><p>Filler one</p><p>{LEAD}</p></div><p>{BODY}</p>"
    blocks = blocks_of(page)
    keep, _ = keep_description(kept_body(blocks), blocks, head(), "en")
    assert keep.tolist() == [False, False, True, True]


def test_the_window_above_the_text_is_window_blocks_deep() -> None:
    def kept(gap: int) -> list[str]:
        fillers = "".join(f"<p>Filler {i}</p>" for i in range(gap))
        blocks = blocks_of(f"<div><p>{LEAD}</p>{fillers}</div><p>{BODY}</p>")
        return texts(keep_description(kept_body(blocks), blocks, head(), "en")[0], blocks)

    assert kept(WINDOW - 1)[0] == LEAD
    assert kept(WINDOW) == [BODY.strip()]


def test_the_sites_banner_is_not_the_lead_but_an_articles_header_is() -> None:
    assert in_banner("html.body.header.div.p")
    assert in_banner("html.body.div.header.h2")
    assert not in_banner("html.body.main.header.div.p")
    assert not in_banner("html.body.div.article.header.p")
    assert not in_banner("html.body.div.section.header.h2")
    assert not in_banner("html.body.div.div.p")
    tagline = "The web framework for perfectionists with deadlines."
    banner = f"<header><div><p>{tagline}</p></div></header><main><p>{BODY}</p></main>"
    blocks = blocks_of(banner)
    keep = kept_body(blocks)
    assert keep_description(keep, blocks, head(tagline), "en") == (keep, ())
    article = f"<article><header><p>{tagline}</p></header><p>{BODY}</p></article>"
    blocks = blocks_of(article)
    out, notes = keep_description(kept_body(blocks), blocks, head(tagline), "en")
    assert texts(out, blocks) == [tagline, BODY.strip()] and notes == (DESCRIPTION_KEPT,)


def test_a_long_post_that_the_description_quotes_is_read_only_as_far_as_needed() -> None:
    post = "So could it be as simple as finding a product with medium gravity? " + "More. " * 4000
    blocks = blocks_of(f"<div><p>{post}</p></div><p>{BODY}</p>")
    keep, notes = keep_description(
        kept_body(blocks), blocks, head("So could it be as simple as finding a product…"), "en"
    )
    assert keep.tolist() == [True, True] and notes == (DESCRIPTION_KEPT,)


# A shop page as WCXB's Steam pages are written: the game's summary in the product header, above
# the reviews, tags, purchase boxes and features that stand between it and the description below;
# the model alone drops it (0.18), and it is too far above the text for the lead rescue.
SUMMARY = (
    "Explore the vibrant open world landscapes of Mexico with limitless, fun driving action in "
    "the world's greatest cars."
)


def _links(n: int, word: str) -> str:
    return "".join(f"<a href='/{word}{i}'>{word} {i}</a> " for i in range(n))


_FEATURES = ("Single-player", "Online PvP", "Online Co-op", "Achievements", "Cloud", "Sharing")
SHOP = (
    "<html><head><title>Horizon on Shop</title>"
    f'<meta name="description" content="{SUMMARY}">'
    '<meta property="og:type" content="product"></head><body>'
    f"<div class='header'><div class='menu'>{_links(6, 'Store')}</div>"
    f"<div class='menu'>{_links(5, 'Community')}</div></div>"
    "<div class='page_header'><div class='breadcrumbs'><a href='/all'>All Games</a> &gt; "
    "<a href='/racing'>Racing Games</a></div><div class='apphub_AppName'>Horizon</div></div>"
    "<div class='glance_ctn'><div class='header_image'><img src='x.jpg'></div>"
    f"<div class='game_description_snippet'>{SUMMARY}</div>"
    "<div class='user_reviews'><div class='subtitle'>Recent Reviews:</div>"
    "<a href='/r'>Very Positive</a></div>"
    "<div class='dev_row'><div class='subtitle'>Developer:</div><a href='/dev'>Playground</a></div>"
    "<div class='dev_row'><div class='subtitle'>Publisher:</div><a href='/pub'>Studios</a></div>"
    f"<div class='popular_tags'>{_links(8, 'Tag')}</div></div><div class='purchase'>"
    + "".join(
        f"<div class='game_area_purchase_game'><h2>Buy Horizon {e} Edition</h2>"
        f"<div class='price'>$59.99</div><a href='/cart{e}'>Add to Cart</a></div>"
        for e in ("Standard", "Deluxe", "Premium")
    )
    + "</div><div class='features'>"
    + "".join(
        f"<a class='feature' href='/f{i}'><div class='label'>{f}</div></a>"
        for i, f in enumerate(_FEATURES)
    )
    + "</div><div class='game_area_description'><h2>About This Game</h2>"
    + "".join(f"<p>{BODY} Part {i} of the story goes on. {BODY}</p>" for i in range(4))
    + "</div><div class='footer'><p>All trademarks are property of their owners.</p>"
    + _links(6, "Legal")
    + "</div></body></html>"
)


def test_the_default_cleaner_keeps_the_summary_the_model_drops() -> None:
    url = "https://shop.example/app/1551360/Horizon/"
    without = pipeline.clean_html(SHOP, url=url, description_lead=False)
    assert SUMMARY not in without.text  # the model alone drops it
    result = pipeline.clean_html(SHOP, url=url)
    assert SUMMARY in result.text and result.text.index(SUMMARY) < result.text.index(BODY[:40])
    assert DESCRIPTION_KEPT in result.notes and DESCRIPTION_KEPT not in without.notes
    assert dict(without.params) == {"description_lead": False}


def test_the_option_is_checked_and_named() -> None:
    assert NeighboursCleaner(description_lead=False).params() == {"description_lead": False}
    assert "description_lead" not in NeighboursCleaner().params()
    with pytest.raises(ValueError, match="description_lead must be true or false"):
        NeighboursCleaner(description_lead="no")  # type: ignore[arg-type]


_WORDS = st.sampled_from(["lead", "library", "late", "town", "price", "the", "a"])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(_WORDS, min_size=1, max_size=9).map(" ".join), min_size=1, max_size=12),
    st.lists(st.booleans(), min_size=12, max_size=12),
    st.lists(_WORDS, min_size=0, max_size=10).map(" ".join),
    st.sampled_from(["en", "de"]),
)
def test_at_most_one_block_is_added_and_it_says_the_description(
    paragraphs: list[str], kept: list[bool], description: str, language: str
) -> None:
    blocks = blocks_of("".join(f"<p>{p}</p>" for p in paragraphs))
    keep = np.array(kept[: len(blocks)])
    out, notes = keep_description(keep, blocks, head(description), language)
    added = np.flatnonzero(out & ~keep).tolist()
    assert not (keep & ~out).any()  # nothing is dropped
    assert len(added) == (1 if notes else 0)
    if added:
        (i,) = added
        assert says(words(blocks[i].text), words(description))
        assert not any(
            says(words(blocks[j].text), words(description)) for j in np.flatnonzero(keep)
        )
        kept = np.flatnonzero(keep).tolist()
        assert kept[0] - WINDOW <= i < kept[min(TOP, len(kept) - 1)]
