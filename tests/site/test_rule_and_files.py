"""The repeat rule, and the per-partition steps: counting pages and naming first copies."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.site.frames import count_pages, first_copies
from pipeline.site.gathered import count_hits
from pipeline.site.keys import hash_texts
from pipeline.site.rule import SiteSettings, cleaner_labels


def test_only_kept_nonblank_blocks_on_enough_pages_are_marked() -> None:
    labels = cleaner_labels(np.array(["good", "good", "bad", "comment", "repeat", "good"], object))
    pages = np.array([3, 2, 9, 9, 5, 4])
    texts = hash_texts(["notice", "rare", "menu", "thanks!", "newsletter", "   "])
    chars = np.array([6, 4, 4, 7, 10, 3])
    one_doc = np.array([0, 6])
    marks = SiteSettings(min_pages=3).marks(labels, pages, texts, chars, one_doc)
    # an earlier "repeat" is the cleaner's "good" again; the blank block never counts
    assert marks.tolist() == [True, False, False, False, True, False]
    capped = SiteSettings(min_pages=3, max_chars=10, long_pages=0)
    assert capped.marks(labels, pages, texts, chars, one_doc).tolist() == [
        True, False, False, False, False, False
    ]  # fmt: skip


def test_a_long_block_needs_more_pages_than_a_short_one() -> None:
    # Blocks of 200 characters or more: on 2 pages (a story two pages share) they stay, on 3
    # (a template's) they go; short blocks go from 2 pages.
    labels = np.array(["good"] * 5, dtype=object)
    pages = np.array([2, 2, 3, 5, 1])
    texts = hash_texts(["short", "long two", "long three", "long five", "long one"])
    chars = np.array([50, 200, 450, 900, 300])
    one_doc = np.array([0, 5])
    default = SiteSettings()
    assert (default.min_pages, default.max_chars, default.long_pages) == (2, 200, 3)
    assert default.marks(labels, pages, texts, chars, one_doc).tolist() == [
        True, False, True, True, False
    ]  # fmt: skip
    four = SiteSettings(long_pages=4).marks(labels, pages, texts, chars, one_doc)
    assert four.tolist() == [True, False, False, True, False]
    never = SiteSettings(long_pages=0).marks(labels, pages, texts, chars, one_doc)
    assert never.tolist() == [True, False, False, False, False]
    # Without a length rule every block needs min_pages, whatever long_pages says.
    uncapped = SiteSettings(max_chars=0).marks(labels, pages, texts, chars, one_doc)
    assert uncapped.tolist() == [True, True, True, True, False]


def test_settings_are_checked() -> None:
    assert not SiteSettings(min_pages=0).enabled
    with pytest.raises(ValueError, match="would mark every kept block"):
        SiteSettings(min_pages=1)
    with pytest.raises(ValueError, match="site key must be one of host, domain"):
        SiteSettings(site_key="url")
    with pytest.raises(ValueError, match=">= 0"):
        SiteSettings(min_pages=-2)
    with pytest.raises(ValueError, match="long repeats must be 0"):
        SiteSettings(long_pages=1)


def _occurrences(rows: list[tuple[int, int, int]]) -> pd.DataFrame:
    key, page, file = zip(*rows, strict=True) if rows else ((), (), ())
    return pd.DataFrame(
        {
            "key": np.array(key, dtype="uint64"),
            "page": np.array(page, dtype="uint64"),
            "file": np.array(file, dtype="int32"),
        }
    )


def test_count_pages_counts_distinct_pages_and_keeps_keys_on_two_or_more() -> None:
    occ = _occurrences(
        [(1, 10, 0), (1, 11, 0), (1, 12, 1), (2, 10, 0), (3, 10, 0), (3, 10, 1), (4, 20, 2)]
    )
    hits = count_pages(occ).sort_values(["key", "file"]).to_dict("records")
    # key 1: pages 10, 11, 12 in files 0 and 1; key 3: one page (a copy in another file)
    assert hits == [{"file": 0, "key": 1, "n": 3}, {"file": 1, "key": 1, "n": 3}]
    assert count_pages(_occurrences([])).empty


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 6), st.integers(0, 3)), max_size=40),
    st.randoms(),
)
def test_counts_do_not_depend_on_row_order(rows: list, rng) -> None:
    shuffled = list(rows)
    rng.shuffle(shuffled)
    a = count_pages(_occurrences(rows)).sort_values(["key", "file"]).reset_index(drop=True)
    b = count_pages(_occurrences(shuffled)).sort_values(["key", "file"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 6), st.integers(0, 3)), max_size=40))
def test_the_gathered_count_agrees_with_the_partition_count(rows: list) -> None:
    # count_pages sees one partition's occurrences (each file's own repeats already removed);
    # count_hits sees every occurrence of every file, repeats and all: the same keys and counts.
    occ = _occurrences(rows)
    keys, n = count_hits(occ["key"].to_numpy(), occ["page"].to_numpy())
    assert keys.tolist() == sorted(keys.tolist())
    expected = count_pages(occ.drop_duplicates()).drop_duplicates("key").sort_values("key")
    assert keys.tolist() == expected["key"].tolist()
    assert n.tolist() == expected["n"].tolist()
    distinct = {(k, p) for k, p, _ in rows}
    for key, count in zip(keys.tolist(), n.tolist(), strict=True):
        assert count == sum(1 for k, _ in distinct if k == key) >= 2


def _documents(rows: list[tuple]) -> pd.DataFrame:
    page, date, url, rid, file, row = zip(*rows, strict=True)
    return pd.DataFrame(
        {
            "page": np.array(page, dtype="uint64"),
            "warc_date": np.array(date, dtype=object),
            "url": np.array(url, dtype=object),
            "record_id": np.array(rid, dtype=object),
            "file": np.array(file, dtype="int32"),
            "row": np.array(row, dtype="int64"),
        }
    )


def _later_copies(rows: list[tuple]) -> list[tuple[int, int, str]]:
    """`first_copies` of ``rows`` as (file, row, duplicate_of), the same in either row order."""
    docs = _documents(rows)
    out = []
    for frame in (docs, docs.iloc[::-1]):
        got = first_copies(frame).sort_values(["file", "row"])
        out.append(list(zip(got["file"], got["row"], got["duplicate_of"], strict=True)))
    assert out[0] == out[1]
    return out[0]


def test_first_copies_point_every_later_copy_at_the_earliest() -> None:
    rows = [
        (7, "2024-02-01", "https://b/", "<b>", 0, 0),
        (7, "2024-01-01", "https://z/", "<z>", 1, 4),
        (7, "2024-01-01", "https://a/", "<a>", 2, 1),
        (8, "2024-01-01", "https://c/", "<c>", 0, 1),
    ]
    assert _later_copies(rows) == [(0, 0, "<a>"), (1, 4, "<a>")]
    # A copy without a date comes after every dated one (as pandas sorts missing values last);
    # among equal dates the URL decides before the record id.
    rows = [
        (5, None, "https://a/", "<a>", 0, 0),
        (5, "2024-03-01", "https://z/", "<1>", 0, 1),
        (5, "2024-03-01", "https://y/", "<2>", 0, 2),
    ]
    assert _later_copies(rows) == [(0, 0, "<2>"), (0, 1, "<2>")]


def test_a_page_that_would_lose_most_of_its_text_keeps_it() -> None:
    # Two documents: the first's candidates hold 90 of its 100 kept characters (a near copy of
    # another page), the second's 10 of 100 (a notice under an article).
    labels = np.array(["good", "good", "good", "good"], dtype=object)
    pages = np.array([2, 1, 2, 1])
    texts = hash_texts(["a", "b", "c", "d"])
    chars = np.array([90, 10, 10, 90])
    offsets = np.array([0, 2, 4])
    guarded = SiteSettings(min_pages=2, max_share=0.5)
    assert guarded.marks(labels, pages, texts, chars, offsets).tolist() == [
        False, False, True, False,
    ]  # fmt: skip
    counting = SiteSettings(min_pages=2)
    assert counting.marks(labels, pages, texts, chars, offsets).tolist() == [
        True, False, True, False,
    ]  # fmt: skip
    # "More than" the share: candidates holding exactly half of a page's kept text are marked.
    half = np.array([50, 50, 10, 90])
    assert guarded.marks(labels, pages, texts, half, offsets).tolist() == [
        True, False, True, False,
    ]  # fmt: skip
    with pytest.raises(ValueError, match="max share must be in"):
        SiteSettings(max_share=0.0)
    with pytest.raises(ValueError, match="max share must be in"):
        SiteSettings(max_share=1.01)
    assert SiteSettings(max_share=1.0).max_share == 1.0
