"""The shuffled site stage's pandas frames: what `pipeline.job.site_shuffle` maps over files and
partitions, around `pipeline.site.files`'s work on one documents file.

1. `read_keys` gives one file's rows for the shuffle (`UNION_META`): its block occurrences
   ``(key, page, file)``, one per distinct block key per page, and its documents (``key`` and
   ``page`` its page hash, ``warc_date``, ``url``, ``record_id``, ``file``, ``row``), told apart
   by ``row`` (-1 for an occurrence), so that the file is read once and the keys move once;
2. after a shuffle by key, `count_pages` counts the distinct pages holding each key and keeps
   the keys on two or more, and `first_copies` names each duplicate's first document
   (`count_and_copy` does both for one partition);
3. after both are routed back by file (`sorted_hits`, `copies_by_row`), the file is rewritten
   by `pipeline.site.files.rewrite_file`, whose counts `stats_frame` turns into rows.

The frames are built from numpy and Arrow arrays in the dtypes Dask moves them in (numbers, and
Arrow-backed strings), and counted with numpy: an occurrence row is a few numbers, and at about
150 of them a document, pandas' per-row work (object columns converted to strings, ``astype``,
``drop_duplicates``) was most of the shuffled stage's cost beyond the one-task stage's.
"""

from __future__ import annotations

from typing import BinaryIO

import numpy as np
import pandas as pd
import pyarrow as pa

from pipeline.site import files
from pipeline.site.gathered import count_hits, distinct_pairs
from pipeline.site.rule import SiteSettings

__all__ = [
    "ROUTED_META",
    "STATS_META",
    "STRING",
    "UNION_META",
    "copies_by_row",
    "count_and_copy",
    "count_pages",
    "first_copies",
    "read_keys",
    "sorted_hits",
    "stats_frame",
]

# Dask's own string dtype: a column of it is moved as is (an object column would be converted
# value by value on every partition).
STRING = pd.StringDtype("pyarrow")
_ARROW_STRING = pa.large_string()

UNION_META = pd.DataFrame(
    {
        "key": pd.Series([], dtype="uint64"),
        "page": pd.Series([], dtype="uint64"),
        "file": pd.Series([], dtype="int32"),
        "row": pd.Series([], dtype="int64"),
        "warc_date": pd.Series([], dtype=STRING),
        "url": pd.Series([], dtype=STRING),
        "record_id": pd.Series([], dtype=STRING),
    }
)
_DOCUMENT_STRINGS = ("warc_date", "url", "record_id")
# What `count_and_copy` routes back to the files: a hit has ``row`` -1, a copy ``key`` 0.
ROUTED_META = pd.DataFrame(
    {
        "file": pd.Series([], dtype="int32"),
        "key": pd.Series([], dtype="uint64"),
        "n": pd.Series([], dtype="int32"),
        "row": pd.Series([], dtype="int64"),
        "duplicate_of": pd.Series([], dtype=STRING),
    }
)
# What `pipeline.site.files.rewrite_file` reports, one row per (language, site) it saw.
STATS_META = pd.DataFrame(
    {
        "language": pd.Series([], dtype=STRING),
        "site": pd.Series([], dtype=STRING),
        **{name: pd.Series([], dtype="int64") for name in files.STATS_COLUMNS},
    }
)


def _strings(nulls: int, values: list | np.ndarray) -> pd.arrays.ArrowStringArray:
    """``nulls`` missing values, then ``values``, as a `STRING` array: the missing ones made in
    Arrow, not one Python object each."""
    tail = pa.array(list(values), type=_ARROW_STRING)
    return pd.array(pa.concat_arrays([pa.nulls(nulls, _ARROW_STRING), tail]), dtype=STRING)


def read_keys(
    handle: BinaryIO, file_id: int, settings: SiteSettings
) -> tuple[pd.DataFrame, np.ndarray]:
    """One documents file's rows for the shuffle (`UNION_META`, see the module's step 1), and
    every block's text hash in file order (what the file's rewrite needs again)."""
    read = files.read_file_keys(handle, file_id, settings)
    # Documents of one file that are copies of each other add their page once.
    occ_keys, occ_pages = distinct_pairs(read.keys, read.pages)
    docs = read.documents
    n_occ = len(occ_keys)
    frame = pd.DataFrame(
        {
            "key": np.concatenate([occ_keys, docs.page]),
            "page": np.concatenate([occ_pages, docs.page]),
            "file": np.full(n_occ + len(docs.page), file_id, dtype=np.int32),
            "row": np.concatenate([np.full(n_occ, -1, dtype=np.int64), docs.row]),
            **{name: _strings(n_occ, getattr(docs, name)) for name in _DOCUMENT_STRINGS},
        }
    )
    hashes = [k.text_hashes for k in read.groups]
    return frame, np.concatenate([np.empty(0, dtype=np.uint64), *hashes])


def count_and_copy(part: pd.DataFrame) -> pd.DataFrame:
    """One shuffled partition of `read_keys`'s rows: `count_pages` of its occurrences and
    `first_copies` of its documents, as one frame to route back to the files
    (`ROUTED_META`)."""
    is_doc = part["row"].to_numpy() >= 0
    hits = count_pages(part.loc[~is_doc, ["key", "page", "file"]])
    copies = first_copies(part.loc[is_doc, ["page", *_DOCUMENT_STRINGS, "file", "row"]])
    n_hits, n_copies = len(hits), len(copies)
    return pd.DataFrame(
        {
            "file": np.concatenate([hits["file"].to_numpy(), copies["file"].to_numpy()]),
            "key": np.concatenate([hits["key"].to_numpy(), np.zeros(n_copies, np.uint64)]),
            "n": np.concatenate([hits["n"].to_numpy(), np.zeros(n_copies, np.int32)]),
            "row": np.concatenate([np.full(n_hits, -1, np.int64), copies["row"].to_numpy()]),
            "duplicate_of": _strings(n_hits, copies["duplicate_of"].tolist()),
        }
    )


def count_pages(occurrences: pd.DataFrame) -> pd.DataFrame:
    """For one partition holding every occurrence of its keys (``key``, ``page``, ``file``):
    ``(file, key, n)`` for each key on two or more distinct pages and each file holding it."""
    keys = occurrences["key"].to_numpy(dtype=np.uint64)
    hit_keys, counts = count_hits(keys, occurrences["page"].to_numpy(dtype=np.uint64))
    at = np.searchsorted(hit_keys, keys)
    found = at < len(hit_keys)
    found[found] = hit_keys[at[found]] == keys[found]
    file_ids = occurrences["file"].to_numpy(dtype=np.int32)[found]
    hit_files, keys = distinct_pairs(file_ids, keys[found])
    return pd.DataFrame(
        {
            "file": hit_files.astype(np.int32),
            "key": keys,
            "n": counts[np.searchsorted(hit_keys, keys)].astype(np.int32),
        }
    )


def first_copies(documents: pd.DataFrame) -> pd.DataFrame:
    """`pipeline.site.files.first_copies` of one partition's documents, as a frame."""
    docs = files.Documents(
        page=documents["page"].to_numpy(dtype=np.uint64),
        **{name: documents[name].to_numpy(dtype=object) for name in _DOCUMENT_STRINGS},
        file=documents["file"].to_numpy(dtype=np.int32),
        row=documents["row"].to_numpy(dtype=np.int64),
    )
    file, row, duplicate_of = files.first_copies(docs)
    return pd.DataFrame({"file": file, "row": row, "duplicate_of": _strings(0, duplicate_of)})


def stats_frame(stats: files.Stats) -> pd.DataFrame:
    """`pipeline.site.files.rewrite_file`'s counts as `STATS_META` rows."""
    if not stats:
        return STATS_META.copy()
    sites = list(stats)
    values = np.stack([stats[site] for site in sites]).astype(np.int64)
    return pd.DataFrame(
        {
            "language": _strings(0, [language for language, _ in sites]),
            "site": _strings(0, [site for _, site in sites]),
            **{name: values[:, i] for i, name in enumerate(files.STATS_COLUMNS)},
        }
    )


def sorted_hits(hits: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """`count_pages`'s rows for one file as `rewrite_file` takes them: keys sorted, counts."""
    keys = hits["key"].to_numpy(dtype=np.uint64)
    order = np.argsort(keys, kind="stable")
    return keys[order], hits["n"].to_numpy(dtype=np.int32)[order]


def copies_by_row(copies: pd.DataFrame) -> dict[int, str]:
    """`first_copies`'s rows for one file as `rewrite_file` takes them: row -> first copy."""
    return dict(zip(copies["row"].tolist(), copies["duplicate_of"].tolist(), strict=True))
