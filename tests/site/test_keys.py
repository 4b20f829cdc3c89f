"""Normalized-text hashes, page hashes and sites (`pipeline.site.keys`)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import compiled
from pipeline.site import keys
from pipeline.site.keys import EMPTY, block_keys, hash_strings, hash_texts, page_keys, site_of


def test_case_white_space_and_digits_do_not_change_the_hash() -> None:
    a, b, c, d = hash_texts(
        [
            "© 2011  Example\u00a0Media. All rights reserved.",
            "\n© 2012 example media. ALL rights reserved. ",
            "© ٢٠١٢ Example Media. All rights reserved.",  # Arabic-Indic digits fold too
            "© 2012 Example Media. All rights reserved!",
        ]
    )
    assert a == b == c
    assert d != a


def test_digits_count_when_asked() -> None:
    a, b = hash_texts(["Temperature 12", "Temperature 15"], fold_digits=False)
    assert a != b
    assert len(set(hash_texts(["Temperature 12", "Temperature 15"]))) == 1


def test_blank_texts_hash_to_empty() -> None:
    assert list(hash_texts(["", "  \n\t", "\u00a0"])) == [EMPTY] * 3
    assert hash_texts(["a"])[0] != EMPTY


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(), max_size=20), st.booleans())
def test_compiled_and_python_hashes_agree(texts: list[str], fold: bool) -> None:
    source = compiled.load_source("pipeline.site.keys")
    assert list(hash_texts(texts, fold_digits=fold)) == list(
        source.hash_texts(texts, fold_digits=fold)
    )


@settings(max_examples=100, deadline=None)
@given(st.text(), st.sampled_from([" ", "  ", "\n", "\t "]))
def test_the_hash_is_that_of_the_normalized_text(text: str, sep: str) -> None:
    # The normalized form, built the slow way, hashes like the original.
    normalized = " ".join("".join("0" if c.isdecimal() else c for c in text.lower()).split())
    assert hash_texts([sep + text + sep])[0] == hash_texts([normalized])[0]


def test_block_keys_separate_sites() -> None:
    texts = hash_texts(["Subscribe to our newsletter", "Subscribe to our newsletter"])
    sites = hash_texts(["a.example", "b.example"])
    keys = block_keys(sites, texts)
    assert keys[0] != keys[1]
    assert block_keys(sites[:1], texts[:1])[0] == keys[0]


def test_page_keys_follow_the_kept_blocks_in_order() -> None:
    h = hash_texts(["one", "two", "menu", "one", "two", "two", "one", "x"], fold_digits=False)
    kept = np.array([True, True, False, True, True, True, True, False])
    offsets = np.array([0, 3, 5, 7, 8])
    keys = page_keys(h, kept, offsets)
    # doc 0 (one, two; menu not kept) == doc 1 (one, two); doc 2 is (two, one); doc 3 keeps none
    assert keys[0] == keys[1]
    assert keys[2] != keys[0]
    assert keys[3] == 0


def test_sites_by_host_and_by_registered_domain() -> None:
    assert site_of("https://News.BBC.co.uk:443/a", "r") == "news.bbc.co.uk"
    # The fully qualified form, with its trailing dot, is the same host.
    assert site_of("https://news.bbc.co.uk./b", "r") == "news.bbc.co.uk"
    assert site_of("https://news.bbc.co.uk/a", "r", "domain") == "bbc.co.uk"
    assert site_of("http://www2.rizospastis.gr/x", "r", "domain") == "rizospastis.gr"
    # A private suffix (blogspot.com) keeps each blog a site of its own.
    assert site_of("https://alice.blogspot.com/p", "r", "domain") == "alice.blogspot.com"
    assert site_of("http://127.0.0.1:8080/", "r", "domain") == "127.0.0.1"
    assert site_of("http://localhost/", "r", "domain") == "localhost"
    # No host: a site of its own, never shared with another document.
    assert site_of("", "<urn:1>") != site_of("", "<urn:2>")
    assert site_of("http://[::1/", "<urn:1>") == "\x00<urn:1>"
    with pytest.raises(ValueError, match="site key must be one of host, domain"):
        site_of("http://a.example/", "r", "path")


def _reference(text: str, fold: bool) -> int:
    """The hash from its definition: FNV-1a over the code points of the normalized text."""
    folded = "".join("0" if fold and c.isdecimal() else c for c in text.lower())
    h = 0xCBF29CE484222325
    for c in " ".join(folded.split()):
        h = ((h ^ ord(c)) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.characters(max_codepoint=127)) | st.text(),
    st.booleans(),
)
def test_the_hash_is_fnv_of_the_normalized_code_points(text: str, fold: bool) -> None:
    # ASCII text takes the byte path, the rest the code point path: both are this hash.
    assert hash_texts([text], fold_digits=fold)[0] == _reference(text, fold)


def _strings(texts: list[str], kind: pa.DataType) -> pa.Array:
    # Sliced, so that the array's offset into its buffers is not 0.
    return pa.array(["pad", *texts, "pad"], type=kind).slice(1, len(texts))


@pytest.mark.parametrize("kind", [pa.string(), pa.large_string()])
def test_arrow_hashes_are_the_text_hashes_for_every_code_point(kind: pa.DataType) -> None:
    # Each code point alone and among ASCII, digits and white space, both variants: U+0130 and
    # U+03A3 (which `str.lower` maps by more than the code point) included.
    # Every code point for the compiled loop; without it both sides are the same Python code,
    # so a sample shows the fallback is wired (all of them would take minutes).
    step = 1 if keys._fill_utf8 is not None else 97
    points = [chr(c) for c in range(0, 0x110000, step) if not 0xD800 <= c <= 0xDFFF]
    points += ["\u0130", "\u03a3"]
    texts = points + [f"Ab {p}\u00a07x {p}{p}" for p in points]
    exact = np.arange(len(texts)) % 3 != 0
    folded, kept = hash_strings(_strings(texts, kind), exact)
    assert np.array_equal(folded, hash_texts(texts))
    assert np.array_equal(kept[exact], hash_texts(texts, fold_digits=False)[exact])
    assert not kept[~exact].any()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text() | st.sampled_from(["ΣΟΦΙΑ ΟΔΟΣ", "İstanbul", "ΌΣ.", "x"]), max_size=20),
    st.booleans(),
)
def test_arrow_hashes_compiled_or_not(texts: list[str], exact_all: bool) -> None:
    arr = _strings(texts, pa.string())
    exact = np.full(len(texts), exact_all)
    want = (hash_texts(texts), hash_texts(texts, fold_digits=False) * exact)
    source = compiled.load_source("pipeline.site.keys")
    source._fill_utf8 = None  # the install without a C compiler
    for got in (hash_strings(arr, exact), source.hash_strings(arr, exact)):
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_arrow_hashes_need_strings_without_nulls() -> None:
    assert [len(a) for a in hash_strings(pa.array([], pa.string()))] == [0, 0]
    with pytest.raises(ValueError, match="without nulls"):
        hash_strings(pa.array(["a", None]))
    with pytest.raises(TypeError, match="string array"):
        hash_strings(pa.array([1, 2]))
    with pytest.raises((ValueError, IndexError)):  # a flag per value, compiled or not
        hash_strings(pa.array(["a", "b"]), np.array([True]))


@pytest.mark.skipif(keys._fill_utf8 is None, reason="the compiled loop is not built here")
def test_the_compiled_loop_refuses_spans_outside_its_bytes() -> None:
    slots = np.zeros(1, np.uint64), np.zeros(1, np.uint64)
    flags = np.zeros(1, np.uint8)
    data = np.frombuffer(b"abc", np.uint8)
    with pytest.raises(ValueError, match="not within the 3 bytes"):
        keys._fill_utf8(data, np.array([0, 4], np.int64), flags, *slots)
    with pytest.raises(ValueError, match="not within"):
        keys._fill_utf8(data, np.array([2, 1], np.int64), flags, *slots)
    with pytest.raises(ValueError, match="need 2 offsets"):
        keys._fill_utf8(data, np.array([0], np.int64), flags, *slots)
