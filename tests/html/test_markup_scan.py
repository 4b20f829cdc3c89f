"""The scans compiled in markup_scan.pyx give exactly what the Python code they replace gives:
the guard's, the UTF-8 check, `bytes.find` and `bytes.count`."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.html import guard

markup_scan = pytest.importorskip(
    "pipeline.html.markup_scan",
    reason="markup_scan.pyx was not compiled in this install (no C compiler at build time)",
)

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data" / "wcxb-dev" / "html"

# Pieces that exercise every branch of the scans: tag starts and ends in both cases, void and
# foreign elements, integration points and breakout tags, attributes with every kind of value
# (quotes holding "/>" and ">", unclosed quotes, "=" first), separators, comments, stray "<".
PIECES = [
    "<", "</", ">", "/>", "/", " ", "\t", "\n", "\f", "\v", "=", '"', "'", "x", "é", "<!--", "-->",
    "<div", "<DIV", "</div>", "<p>", "</p>", "<br>", "</br>", "<BR/>", "<img", "<keygen",
    "<keygenx", "<svg", "<SVG", "</svg>", "<math>", "</math>", "<path", "<g", "</g>",
    "<foreignObject>", "</foreignobject>", "<title>", "</title>", "<mi>", "</mi>",
    "<annotation-xml>", "<font", "<b", "<table>", "<li>", "<x:y", "<a-b", "<h1>",
    "<script", "<SCRIPT>", "</script>", "</Script", "<scripts", "<style>", "</STYLE>", "<style",
    " a=1", " b='x/>'", ' c="y>z"', " d", " e = f", ' g="unclosed', " h='", "=i", " j=>",
    " data-k=" + "v" * 40, " " * 20, "x" * 50,
    "<textarea>", "</TEXTAREA>", "<title", "<xmp>", "</xmp ", "<iframe>", "<plaintext>",
    "<noembed>", "</noframes>", "<!-->", "<!--->", "--!>", "<!doctype html>", "<?php ", "</>",
    "</ x>", ' a="<"', " b='<p'", " c=<", " d=<b", " a1 a2 a3 a4 a5 a6 a7 a8 a9",
    # the ends of the letter ranges a tag name starts with, and the characters just outside them
    "<A", "<Z", "<a", "<z", "</A", "</z", "<@", "<[", "<`", "<{", "</@", "</[", "</`", "</{",
]  # fmt: skip

markup = st.lists(st.sampled_from(PIECES), max_size=80).map("".join)


def both(function: Callable[..., Any], *args: Any) -> tuple[Any, Any]:
    """``function(*args)`` with the compiled scans, then with guard's Python code."""
    compiled = function(*args)
    saved, guard._compiled = guard._compiled, None
    try:
        return compiled, function(*args)
    finally:
        guard._compiled = saved


@settings(max_examples=400, deadline=None)
@given(markup)
def test_depths_are_the_same(text: str) -> None:
    data = text.encode("utf-8", "surrogatepass")
    compiled, python = both(guard.nesting_depth, data)
    assert compiled == python
    compiled, python = both(guard.foreign_aware_depth, data)
    assert compiled == python


@settings(max_examples=600, deadline=None)
@given(markup, st.sampled_from([1, 2, 3, 16, 40, 64]))
def test_attribute_scans_are_the_same(text: str, limit: int) -> None:
    compiled, python = both(guard.attribute_scan, text.encode("utf-8", "surrogatepass"), limit)
    assert compiled == python


@settings(max_examples=400, deadline=None)
@given(markup, st.sampled_from([0, 1, 3, 64]))
def test_attribute_counts_are_the_same_at_every_tag(text: str, limit: int) -> None:
    data = text.encode("utf-8", "surrogatepass")
    for start in range(len(data)):
        compiled, python = both(guard.count_attributes, data, start, limit)
        assert compiled == python, (data, start)


FIVE = " a b c d e>"  # five attributes: over a sixteenth of 64, so counted


@pytest.mark.parametrize(
    ("text", "counted"),
    [
        (f"<!-- a > b <div{FIVE} --><p{FIVE}", 1),  # a ">" inside a comment does not end it
        (f"<!---><div{FIVE}", 1),  # "<!--->" is a whole comment
        (f"<!--><div{FIVE}", 1),  # and so is "<!-->"
        (f"<!-- x --!><div{FIVE}", 1),  # "--!>" ends a comment too
        (f"<!-- x --!> --><div{FIVE}", 1),
        (f"<!x <div{FIVE} ><p{FIVE}", 1),  # a bogus comment runs to the first ">"
        (f"<!-- unclosed <div{FIVE}", 0),
        (f"<script>if (a </scriptx> b) {{}}</SCRIPT\t><div{FIVE}", 1),  # its own end tag only
        (f"<script>x </b> yyy <div{FIVE} </script>", 0),  # other end tags are its text
        (f"<style>p {{ }} </style<div{FIVE}", 0),
        # "<?" and "</" before no letter open a bogus comment that the first ">" ends, the
        # element's own here; the tag right after that ">" is read
        (f"<?php echo <div{FIVE} ?><p{FIVE}", 1),
        (f"</ <div{FIVE}<p{FIVE}", 1),
        (f"</ x><div{FIVE}", 1),
        (f"<?x><div{FIVE}", 1),
    ],
)
def test_comments_and_raw_text_end_where_the_tokenizer_ends_them(text: str, counted: int) -> None:
    # Each element of five attributes that the tokenizer reads as one adds 25 to the load.
    compiled, python = both(guard.attribute_scan, text.encode(), 64)
    assert compiled == python == ((5, 25 * counted) if counted else (0, 0))


@settings(max_examples=400, deadline=None)
@given(markup)
def test_tag_counts_are_the_same(text: str) -> None:
    data = text.encode("utf-8", "surrogatepass")
    assert markup_scan.lt_count_and_gaps(data, 0) == (data.count(b"<"), [])


# Well-formed sequences and each way of breaking one: overlong forms, surrogates, code points
# above U+10FFFF, stray continuation bytes, sequences cut short.
UTF8_PIECES = [
    "a", "é", "€", "東", "😀", "\U0010ffff", "\x7f",
    b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\x80", b"\xe0\x9f\xbf", b"\xed\xa0\x80",
    b"\xed\xbf\xbf", b"\xf0\x8f\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80",
    b"\xff", b"\x80", b"\xbf", b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98", " " * 33,
]  # fmt: skip
utf8_like = st.lists(
    st.sampled_from([p if isinstance(p, bytes) else p.encode() for p in UTF8_PIECES]),
    max_size=60,
).map(b"".join)


@settings(max_examples=1000, deadline=None)
@given(st.one_of(utf8_like, st.binary(max_size=80)))
def test_utf8_check_agrees_with_the_strict_decoder(data: bytes) -> None:
    try:
        data.decode("utf-8")
        valid = True
    except UnicodeDecodeError:
        valid = False
    assert markup_scan.utf8_valid(data) is valid


def test_utf8_check_on_every_code_point_boundary() -> None:
    assert markup_scan.utf8_valid(b"")
    assert markup_scan.utf8_valid("".join(map(chr, range(0xD800))).encode())
    assert markup_scan.utf8_valid("".join(map(chr, range(0xE000, 0x110000, 7))).encode())
    assert not markup_scan.utf8_valid(b"x" * 100 + b"\xed\xa0\x80" + b"y" * 100)


def test_gap_tags_follow_aligned_blocks() -> None:
    # The "<" at 0 is followed by whole blocks (bytes 16-31) without one; the "<" at 40 by
    # bytes 41-55 only, which hold no whole block; the last "<" (56) by a block that the end of
    # the data cuts (64-77), which does not count.
    data = b"<a" + b"x" * 38 + b"<b" + b"x" * 14 + b"<c" + b"x" * 20
    assert len(data) == 78
    assert markup_scan.lt_count_and_gaps(data, 16) == (3, [0])


@settings(max_examples=200, deadline=None)
@given(markup, st.sampled_from([1, 4, 100]))
def test_estimates_are_the_same(text: str, max_attributes: int) -> None:
    # Scaled so that the generated pages reach the attribute scan's size and gap thresholds.
    data = (text * 60).encode("utf-8", "surrogatepass")
    compiled, python = both(lambda d: guard.estimate(d, max_attributes=max_attributes), data)
    assert compiled == python


def test_many_attributes_and_icon_sets_are_the_same() -> None:
    one_tag = b"<p " + b" ".join(b"a%d=1" % i for i in range(20_000)) + b">text</p>"
    icons = (b"<svg><g>" + b"<path d='M0 0'/>" * 12 + b"</g></svg>") * 900
    deep = b"<div>" * 12_000 + b"</div>" * 12_000
    for page in (one_tag, icons, deep, icons + deep):
        compiled, python = both(lambda d: guard.estimate(d, max_attributes=10_000), page)
        assert compiled == python
    assert guard.estimate(one_tag, max_attributes=10_000).attributes > 10_000
    # every icon closes what it opened: the nest of divs alone is deep
    assert guard.estimate(icons + deep, max_attributes=10_000).max_depth == 12_000
    assert guard.estimate(icons, max_attributes=10_000).max_depth == 2  # svg, g


@pytest.mark.skipif(not SHARED.is_dir(), reason=f"needs the WCXB dev pages at {SHARED}")
def test_real_pages_are_the_same() -> None:
    files = sorted(SHARED.glob("*.html.gz"))
    assert len(files) > 1000
    # Every 7th page, and the ones with inline icon sets and many attributes.
    chosen = files[::7] + [f for f in files if f.name in ("2875.html.gz", "2846.html.gz")]
    for path in chosen:
        page = gzip.decompress(path.read_bytes())
        compiled, python = both(lambda d: guard.estimate(d, max_attributes=10_000), page)
        assert compiled == python, path.name
        compiled, python = both(guard.nesting_depth, page)
        assert compiled == python, path.name


# Keys and text for the searches the page-type classifier makes: its two markers, bytes that
# share their anchors ("@", "y"), and keys of every shape (one byte, repeated bytes, non-ASCII).
FIND_PIECES = [
    b'"@type"', b"itemtype", b"ITEMTYPE", b"@", b'"@', b"@type", b"y", b"type", b"item", b'"',
    b" ", b"a", b"aa", b"\xc3\xa9", b"\x00", b"<div>", b"itemtyp", b'"@typ',
]  # fmt: skip
haystack = st.lists(st.sampled_from(FIND_PIECES), max_size=40).map(b"".join)
find_keys = st.one_of(st.sampled_from(FIND_PIECES), st.binary(min_size=1, max_size=4))


@settings(max_examples=1500, deadline=None)
@given(haystack, find_keys, st.integers(min_value=0, max_value=400))
def test_find_is_bytes_find(data: bytes, key: bytes, start: int) -> None:
    assert markup_scan.find(data, key, start) == data.find(key, start)


def test_find_walks_every_occurrence_as_bytes_find_does() -> None:
    data = b'{"@type": "Product", "x": {"@type":"Offer"}} itemtype=x @@type" "@type"'
    for key in (b'"@type"', b"itemtype", b"@"):
        found, pos = [], markup_scan.find(data, key, 0)
        while pos >= 0:
            found.append(pos)
            pos = markup_scan.find(data, key, pos + len(key))
        expected, pos = [], data.find(key)
        while pos >= 0:
            expected.append(pos)
            pos = data.find(key, pos + len(key))
        assert found == expected and len(found) >= 1
    assert markup_scan.find(b"abc", b"", 2) == 2
    with pytest.raises(ValueError, match="0 or more"):
        markup_scan.find(b"abc", b"a", -1)


# Keys that overlap each other ("quote" in "get a quote") and arbitrary short ones.
named_keys = st.sampled_from([b"add to cart", b"reply", b"replies", b"quote", b"get a quote"])
phrase_keys = st.lists(
    st.one_of(named_keys, st.binary(min_size=1, max_size=3)), min_size=1, max_size=64
).map(tuple)
phrase_text = st.lists(
    st.sampled_from([b"add to ", b"cart", b"reply", b"replies ", b"get a quote", b"\n", b"aaa"]),
    max_size=40,
).map(b"".join)


@settings(max_examples=1000, deadline=None)
@given(st.one_of(phrase_text, st.binary(max_size=60)), phrase_keys)
def test_count_each_is_bytes_count_per_key(data: bytes, keys: tuple[bytes, ...]) -> None:
    assert markup_scan.count_each(data, keys) == [data.count(key) for key in keys]


def test_count_each_counts_overlapping_keys_apart() -> None:
    # "quote" inside "get a quote" counts for both keys; "aa" in "aaaa" twice (non-overlapping).
    data = b"get a quote, quote me: aaaa"
    assert markup_scan.count_each(data, (b"quote", b"get a quote", b"aa")) == [2, 1, 2]


def test_count_each_refuses_what_it_cannot_count() -> None:
    with pytest.raises(ValueError, match="at most 64 keys"):
        markup_scan.count_each(b"x", tuple(bytes([65 + i % 26]) for i in range(65)))
    with pytest.raises(ValueError, match="non-empty bytes"):
        markup_scan.count_each(b"x", (b"x", b""))
    with pytest.raises(ValueError, match="non-empty bytes"):
        markup_scan.count_each(b"x", ("x",))
