"""The shuffled site stage's pandas frames: what `pipeline.job.site_stage` maps over files and
partitions, around `pipeline.site.files`'s work on one documents file.

1. `read_keys` gives one file's block occurrences ``(key, page, file)``, one per distinct
   block key per page, and its documents ``(page, warc_date, url, record_id, file, row)``;
2. after a shuffle by key, `count_pages` counts the distinct pages holding each key and keeps
   the keys on two or more; after a shuffle by page hash, `first_copies` names each
   duplicate's first document (`count_and_copy` does both for one partition);
3. after both are routed back by file (`sorted_hits`, `copies_by_row`), the file is rewritten
   by `pipeline.site.files.rewrite_file`, whose counts `stats_frame` turns into rows.
"""

from __future__ import annotations

from typing import BinaryIO

import numpy as np
import pandas as pd

from pipeline.site import files
from pipeline.site.rule import SiteSettings

__all__ = [
    "DOCUMENTS_META",
    "HITS_META",
    "OCCURRENCES_META",
    "ROUTED_META",
    "STATS_META",
    "copies_by_row",
    "count_and_copy",
    "count_pages",
    "first_copies",
    "read_keys",
    "sorted_hits",
    "stats_frame",
]

OCCURRENCES_META = pd.DataFrame(
    {
        "key": pd.Series([], dtype="uint64"),
        "page": pd.Series([], dtype="uint64"),
        "file": pd.Series([], dtype="int32"),
    }
)
DOCUMENTS_META = pd.DataFrame(
    {
        "page": pd.Series([], dtype="uint64"),
        "warc_date": pd.Series([], dtype=object),
        "url": pd.Series([], dtype=object),
        "record_id": pd.Series([], dtype=object),
        "file": pd.Series([], dtype="int32"),
        "row": pd.Series([], dtype="int64"),
    }
)
HITS_META = pd.DataFrame(
    {
        "file": pd.Series([], dtype="int32"),
        "key": pd.Series([], dtype="uint64"),
        "n": pd.Series([], dtype="int32"),
    }
)
COPIES_META = pd.DataFrame(
    {
        "file": pd.Series([], dtype="int32"),
        "row": pd.Series([], dtype="int64"),
        "duplicate_of": pd.Series([], dtype=object),
    }
)
# What `pipeline.site.files.rewrite_file` reports, one row per (language, site) it saw.
STATS_META = pd.DataFrame(
    {
        "language": pd.Series([], dtype=object),
        "site": pd.Series([], dtype=object),
        **{name: pd.Series([], dtype="int64") for name in files.STATS_COLUMNS},
    }
)


def read_keys(
    handle: BinaryIO, file_id: int, settings: SiteSettings
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(block occurrences, documents) of one documents file: see the module's step 1."""
    occurrences = []
    documents = []
    row = 0
    for k, group in files.file_keys(handle, settings):
        keys, pages = files.occurrences_of(k)
        occurrences.append(pd.DataFrame({"key": keys, "page": pages}).drop_duplicates())
        documents.append(files.documents_of(k, group, file_id, row))
        row += group.num_rows
    occ = pd.concat([OCCURRENCES_META[["key", "page"]], *occurrences], ignore_index=True)
    # Documents of one file that are copies of each other add their page once.
    occ = occ.drop_duplicates(ignore_index=True)
    occ["file"] = np.int32(file_id)
    docs = files.Documents.concat(documents)
    frame = pd.DataFrame({name: getattr(docs, name) for name in DOCUMENTS_META.columns})
    return occ.astype(OCCURRENCES_META.dtypes), frame.astype(DOCUMENTS_META.dtypes)


ROUTED_META = pd.DataFrame(
    {
        "file": pd.Series([], dtype="int32"),
        "key": pd.Series([], dtype="uint64"),
        "n": pd.Series([], dtype="int32"),
        "row": pd.Series([], dtype="int64"),
        "duplicate_of": pd.Series([], dtype=object),
    }
)


def count_and_copy(part: pd.DataFrame) -> pd.DataFrame:
    """One shuffled partition of `read_keys`'s rows, occurrences (``kind`` 0, shuffled by key)
    and documents (``kind`` 1, by page hash) together: `count_pages` and `first_copies` of
    each, as one frame to route back to the files (`ROUTED_META`: a hit has ``row`` -1, a
    copy ``key`` 0)."""
    occurrences = part.loc[part["kind"] == 0, list(OCCURRENCES_META.columns)]
    documents = part.loc[part["kind"] == 1, list(DOCUMENTS_META.columns)]
    hits = count_pages(occurrences).assign(row=np.int64(-1), duplicate_of=None)
    copies = first_copies(documents).assign(key=np.uint64(0), n=np.int32(0))
    routed = pd.concat([hits, copies], ignore_index=True)[list(ROUTED_META.columns)]
    return routed.astype(ROUTED_META.dtypes)


def count_pages(occurrences: pd.DataFrame) -> pd.DataFrame:
    """For one partition holding every occurrence of its keys: ``(file, key, n)`` for each key
    on two or more distinct pages and each file holding it."""
    if occurrences.empty:
        return HITS_META.copy()
    pages = occurrences.drop_duplicates(["key", "page"]).groupby("key").size()
    repeated = pages[pages >= 2]
    hits = occurrences.loc[occurrences["key"].isin(repeated.index), ["file", "key"]]
    hits = hits.drop_duplicates(ignore_index=True)
    hits["n"] = repeated.reindex(hits["key"].to_numpy()).to_numpy().astype(np.int32)
    return hits.astype(HITS_META.dtypes)


def first_copies(documents: pd.DataFrame) -> pd.DataFrame:
    """`pipeline.site.files.first_copies` of one partition's documents, as a frame."""
    if documents.empty:
        return COPIES_META.copy()
    docs = files.Documents(**{name: documents[name].to_numpy() for name in DOCUMENTS_META})
    file, row, duplicate_of = files.first_copies(docs)
    out = pd.DataFrame({"file": file, "row": row, "duplicate_of": duplicate_of})
    return out.astype(COPIES_META.dtypes)


def stats_frame(stats: files.Stats) -> pd.DataFrame:
    """`pipeline.site.files.rewrite_file`'s counts as `STATS_META` rows."""
    rows = [(lang, site, *values.tolist()) for (lang, site), values in stats.items()]
    if not rows:
        return STATS_META.copy()
    return pd.DataFrame(rows, columns=list(STATS_META.columns)).astype(STATS_META.dtypes)


def sorted_hits(hits: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """`count_pages`'s rows for one file as `rewrite_file` takes them: keys sorted, counts."""
    order = np.argsort(hits["key"].to_numpy(), kind="stable")
    return hits["key"].to_numpy()[order], hits["n"].to_numpy()[order]


def copies_by_row(copies: pd.DataFrame) -> dict[int, str]:
    """`first_copies`'s rows for one file as `rewrite_file` takes them: row -> first copy."""
    return dict(zip(copies["row"].tolist(), copies["duplicate_of"].tolist(), strict=True))
