"""Mojibake inside a page (pipeline.html.mojibake): the test, the repair, both walks and the
metadata."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import clean_html
from pipeline.compiled import load_source
from pipeline.html import mojibake
from pipeline.html.metadata import clean_value
from pipeline.html.segment import parse, segment
from pipeline.html.walk import _text_flags, node_text

# The walk's module as Python runs it (its flags are C constants when compiled).
_SOURCE = load_source("pipeline.html.walk")
_MOJIBAKE = _SOURCE._MOJIBAKE


def page(body: str, title: str = "T") -> str:
    return f"<!doctype html><html><head><title>{title}</title></head><body>{body}</body></html>"


def texts(html: str) -> list[str]:
    return [b.text for b in segment(parse(html))]


def misread(text: str) -> str:
    """``text`` as UTF-8 read as Windows-1252 (bytes it leaves undefined read as Latin-1)."""
    return "".join(bytes([b]).decode("cp1252", "ignore") or chr(b) for b in text.encode("utf-8"))


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("isnâ€™t", "isn’t"),  # WCXB dev 2362, as entities in its source
        ("82.0Â° F", "82.0° F"),  # magic-html en-magic-art-041
        ("SayunÂ´s Request", "Sayun´s Request"),  # multilingual-dev de-traf-052
        ("fatalâ€¦but", "fatal…but"),  # WCXB dev 3020
        ("ktÃ³rymi", "którymi"),
        ("zapoznaÄ‡", "zapoznać"),
        ("Ð¡Ð»Ð¾Ð¹", "Слой"),
        ("â\x80\x9cquoted\u00e2\x80\x9d", "“quoted”"),  # C1 read as Latin-1
        ("GenÃƒÆ’Ã¢â‚¬Å¡Ãƒâ€šÃ‚Â®", "Gen®"),  # read wrongly three times over
        ("à²\xa0_à²\xa0", "ಠ_ಠ"),
    ],
)
def test_mojibake_is_found_and_repaired(written: str, meant: str) -> None:
    assert mojibake.holds_mojibake(written)
    assert mojibake.repair(written) == meant
    assert node_text(written) == meant


@pytest.mark.parametrize(
    "written",
    [
        "NESCAFÉ® Classic",  # WCXB dev 4040
        "un été\xa0» et",  # French spacing: multilingual-dev fr-traf-027
        "tôt\xa0– puis",
        "2 ×\xa03",  # WCXB dev 0400
        "„Gruß“",
        "voilà…",
        "Pokémon’s café",
        "São Paulo, Âme, Ñu",
        "CAFÉ» ©2024 ÖBB°",
        "plain ASCII",
    ],
)
def test_text_written_on_purpose_is_no_suspect(written: str) -> None:
    assert not mojibake.holds_mojibake(written)
    assert mojibake.repair(written) == written
    assert not _text_flags(written) & _MOJIBAKE
    # (white space, the no-break space too, is one space in a block)
    assert texts(page(f"<p>{written}</p>")) == [" ".join(written.split())]


@pytest.mark.parametrize(
    "written",
    [
        "AÌ€ b",  # U+00CC U+20AC would be the bytes of a lone combining accent (U+0300)
        "JOSÉ’S",  # an all-capital heading: É and ’ would be U+0259's bytes
        "siÄ™",  # alone, it could be "si" and a trade mark ("zapoznaÄ‡ siÄ™ z" is not)
    ],
)
def test_a_suspect_ftfy_declines_is_left_as_it_is(written: str) -> None:
    assert mojibake.holds_mojibake(written)
    assert mojibake.repair(written) == written
    assert texts(page(f"<p>{written}</p>")) == [written]


def test_only_the_stretch_around_the_mojibake_is_judged() -> None:
    # ftfy judges a window of the words around each suspect stretch: a genuine "Ã" in another
    # word of the node, or characters Windows-1252 cannot encode, do not stop the repair, and
    # the rest of a long node comes back character for character.
    text = "SÃO PAULO 中文 " + "x " * 5000 + "the cafÃ© isnâ€™t open" + " y" * 5000
    repaired = mojibake.repair(text)
    assert repaired == text.replace("cafÃ©", "café").replace("isnâ€™t", "isn’t")


def test_both_walks_repair_a_page_and_the_c_walk_hands_it_over() -> None:
    html = page(
        "<h1>If Iâ€™d Only Known</h1><p>Artificial intelligence isn&acirc;&euro;&trade;t just"
        " changing how we optimize websites&acirc;&euro;&rdquo;it&acirc;&euro;&trade;s"
        " changing everything.</p><pre>x = &quot;Ã©&quot;</pre>",
        title="AI &acirc;&euro;&ldquo; SEO",
    )
    assert texts(html) == [
        "If I’d Only Known",
        "Artificial intelligence isn’t just changing how we optimize websites—it’s changing"
        " everything.",
        'x = "é"',
    ]
    result = clean_html(html.encode())
    assert "isn’t just" in result.text
    assert 'x = "é"' in result.markdown
    assert result.metadata.title == "AI – SEO"


def test_metadata_values_are_repaired_like_the_text() -> None:
    assert clean_value("Caf\u00c3\u00a9 \x92n\x85", 100) == "Café ’n…"
    assert clean_value("NESCAFÉ®", 100) == "NESCAFÉ®"


_WORDS = st.lists(
    st.sampled_from(
        [
            "café",
            "über",
            "Straße",
            "którymi",
            "Слой",
            "ελληνικά",
            "naïve",
            "€5",
            "“q”",
            "it’s",
            "—",
            "50°",
            "©",
            "日本",
            "a",
            "the",
        ]
    ),
    min_size=1,
    max_size=8,
).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(_WORDS)
def test_text_read_wrongly_once_comes_back(text: str) -> None:
    """Whole words of common scripts, read as Windows-1252 once, come back as they were, in a
    page's blocks as in a bare string."""
    wrong = misread(text)
    assert mojibake.repair(wrong) == text
    assert texts(page(f"<p>{wrong}</p>")) == texts(page(f"<p>{text}</p>"))


_SUSPECT_ALPHABET = st.sampled_from(
    list("ab \t\n.")
    + list("\xc2\xc3\xc4\xc5\xcc\xd0\xd7\xdf\xe0\xe2\xe9\xef\xf0\xf4\xf5")  # leads, near leads
    + list("\x80\x81\x9d\x9f\xa0\xa9\xab\xae\xb0\xbb\xbf\xc0")  # continuations, near ones
    + list("€‚ƒ„…‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ\u2019\u4e2d")
)


@settings(max_examples=1000, deadline=None)
@given(st.text(_SUSPECT_ALPHABET, max_size=24))
def test_the_walks_compiled_test_is_the_definition(text: str) -> None:
    assert bool(_text_flags(text) & _MOJIBAKE) == mojibake.holds_mojibake(text)
    assert bool(_SOURCE._text_flags(text) & _MOJIBAKE) == mojibake.holds_mojibake(text)
    if not mojibake.holds_mojibake(text):
        assert mojibake.repair(text) == text


_SHARED_PAGES = [
    ("wcxb-dev", "2362", "isn’t just changing", "isnâ€™t"),
    ("wcxb-dev", "3020", "fatal…but", "fatalâ€¦but"),
    ("multilingual-dev", "de-traf-052", "Sayun´s Request", "SayunÂ´s"),
]


@pytest.mark.parametrize(("dataset", "page_id", "meant", "written"), _SHARED_PAGES)
def test_dev_pages_with_mojibake_come_out_right(
    dataset: str, page_id: str, meant: str, written: str, request: pytest.FixtureRequest
) -> None:
    directory: Path = request.getfixturevalue(
        {"wcxb-dev": "wcxb_dir", "multilingual-dev": "multilingual_dir"}[dataset]
    )
    html = gzip.decompress((directory / "html" / f"{page_id}.html.gz").read_bytes())
    text = clean_html(html).text
    assert meant in text
    assert written not in text


def test_the_leads_are_utf8s_lead_bytes_read_as_windows_1252() -> None:
    # RFC 3629: C2-DF start a sequence of two bytes, E0-EF of three, F0-F4 of four (C0, C1 and
    # F5-FF start none); a lead needs one continuation fewer than its sequence's length. DF is
    # left out: "ß" before a quote is German.
    expected = {
        chr(byte): 0 if byte == 0xDF else 1 if byte < 0xE0 else 2 if byte < 0xF0 else 3
        for byte in range(0xC2, 0xF5)
    }
    got = {chr(mojibake.FIRST_LEAD + i): need for i, (need, _) in enumerate(mojibake.LEADS)}
    assert got == expected
    assert mojibake.LAST_LEAD == 0xF4


_LETTERS = st.sampled_from("ab\u00e9 \n")
# hypothesis draws short texts mostly: longer ones are drawn apart, so that the window's bound
# falls inside the text
_SPACED = st.one_of(st.text(_LETTERS, max_size=60), st.text(_LETTERS, min_size=100, max_size=200))


@settings(max_examples=300, deadline=None)
@given(_SPACED, st.data())
def test_a_stretch_is_judged_with_the_whole_words_within_reach(
    text: str, data: st.DataObject
) -> None:
    """The window ftfy sees around a stretch starts at the first word that starts within
    `_WINDOW` characters before it and ends at the last that ends within as many after it (the
    text's own ends when they are that near; the bound itself inside one long word)."""
    reach = mojibake._WINDOW
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    left = mojibake._widen_left(text, start)
    right = mojibake._widen_right(text, end)
    if start <= reach:
        assert left == 0
    else:
        before = text[start - reach : start]
        spaces = [start - reach + i for i, ch in enumerate(before) if ch.isspace()]
        assert left == (spaces[0] + 1 if spaces else start - reach)
    if len(text) - end <= reach:
        assert right == len(text)
    else:
        after = text[end : end + reach]
        spaces = [end + i for i, ch in enumerate(after) if ch.isspace()]
        assert right == (spaces[-1] if spaces else end + reach)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from([chr(c) for c in range(mojibake.FIRST_LEAD, mojibake.LAST_LEAD + 1)]),
            st.sampled_from(sorted(map(chr, mojibake.CONTINUATION))),
            st.characters(),  # surrogates too
            st.just(" "),
        ),
        max_size=60,
    ).map("".join)
)
def test_repair_takes_any_text(text: str) -> None:
    """Any characters, surrogates too: the repair never raises, and text with no suspect
    stretch comes back as the very same str (20,000 examples once here)."""
    repaired = mojibake.repair(text)
    if not mojibake.holds_mojibake(text):
        assert repaired is text
