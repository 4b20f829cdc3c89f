"""The site stage's work on one documents file, and on one partition of the shuffled keys.

The stage runs in three steps, each a pure function here that `pipeline.job.site_stage` maps
over files or partitions:

1. `read_keys` reads a documents file (a few columns, row group by row group) and gives its
   block occurrences ``(key, page, file)``, one per distinct block text per document, and its
   documents ``(page, warc_date, url, record_id, file, row)``;
2. after a shuffle by key, `count_pages` counts the distinct pages holding each key and keeps
   the keys on two or more (one page is what every block without a row here has); after a
   shuffle by page hash, `first_copies` names each duplicate's first document;
3. after both are routed back by file, `rewrite_file` writes the file again with every block's
   ``site_pages``, the ``repeat`` labels, the rebuilt text of the documents whose labels changed
   and ``duplicate_of``, row for row in the same order, and says what it changed.

A document's "page" is its page hash (`pipeline.site.keys.page_keys`), so exact duplicates count
as one page: a page crawled under two URLs does not make its own text look repeated. A document
with no kept text is a page of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pipeline.output.schema import BLOCK_TYPE, DOCS_SCHEMA, file_rendering, writer_options
from pipeline.site.keys import block_keys, hash_texts, page_keys, site_of
from pipeline.site.rebuild import kept_labels, rebuild
from pipeline.site.rule import REPEAT, SiteSettings, cleaner_labels

__all__ = [
    "DOCUMENTS_META",
    "HITS_META",
    "OCCURRENCES_META",
    "STATS_META",
    "count_pages",
    "first_copies",
    "read_keys",
    "rewrite_file",
]

_KEY_COLUMNS = [
    "url",
    "record_id",
    "warc_date",
    "blocks.list.element.text",
    "blocks.list.element.label",
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
# What `rewrite_file` reports, one row per (language, site) it saw.
STATS_META = pd.DataFrame(
    {
        "language": pd.Series([], dtype=object),
        "site": pd.Series([], dtype=object),
        "docs": pd.Series([], dtype="int64"),
        "docs_changed": pd.Series([], dtype="int64"),
        "duplicates": pd.Series([], dtype="int64"),
        "kept_blocks": pd.Series([], dtype="int64"),
        "kept_chars": pd.Series([], dtype="int64"),
        "repeat_blocks": pd.Series([], dtype="int64"),
        "repeat_chars": pd.Series([], dtype="int64"),
    }
)


@dataclass(frozen=True, slots=True)
class _Keys:
    """One row group's keys: per block, per document, and the documents' block offsets."""

    text_hashes: np.ndarray  # uint64, per block
    keys: np.ndarray  # uint64, per block
    labels: np.ndarray  # object (str), per block: as the cleaner left them
    pages: np.ndarray  # uint64, per document: its page identity for counting
    copies: np.ndarray  # uint64, per document: its page hash, 0 with no kept text
    sites: list[str]
    offsets: np.ndarray  # int64, len(documents) + 1


def _offsets(blocks: pa.ListArray) -> np.ndarray:
    lengths = pc.list_value_length(blocks).to_numpy(zero_copy_only=False)
    return np.concatenate(([0], np.cumsum(lengths, dtype=np.int64)))


def _keys_of(group: pa.Table, settings: SiteSettings, *, pages: bool = True) -> _Keys:
    blocks = group.column("blocks").combine_chunks()
    flat = blocks.flatten()
    offsets = _offsets(blocks)
    children = dict(zip([f.name for f in flat.type], flat.flatten(), strict=True))
    texts = children["text"].to_pylist()
    labels = cleaner_labels(children["label"].to_numpy(zero_copy_only=False))
    urls = group.column("url").to_pylist()
    ids = group.column("record_id").to_pylist()
    sites = [site_of(u, r, settings.site_key) for u, r in zip(urls, ids, strict=True)]
    text_hashes = hash_texts(texts)
    per_block = np.repeat(hash_texts(sites), np.diff(offsets))
    if pages:
        # Only the kept blocks enter a page's identity: hashed again with their digits.
        good = labels == "good"
        exact = np.zeros(len(texts), dtype=np.uint64)
        exact[good] = hash_texts([texts[i] for i in np.flatnonzero(good)], fold_digits=False)
        copies = page_keys(exact, good, offsets)
        # Without kept text a document is a page of its own: its record id stands for it.
        identities = np.where(copies != 0, copies, hash_texts(ids))
    else:  # the rewrite: its copies come from the shuffle
        copies = identities = np.zeros(len(ids), dtype=np.uint64)
    return _Keys(
        text_hashes=text_hashes,
        keys=block_keys(per_block, text_hashes),
        labels=labels,
        pages=identities,
        copies=copies,
        sites=sites,
        offsets=offsets,
    )


def _groups(handle: BinaryIO, columns: list[str] | None) -> Iterator[pa.Table]:
    parquet = pq.ParquetFile(handle)
    for i in range(parquet.num_row_groups):
        yield parquet.read_row_group(i, columns=columns)


def read_keys(
    handle: BinaryIO, file_id: int, settings: SiteSettings
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(block occurrences, documents) of one documents file: see the module's step 1."""
    occurrences = []
    documents = []
    row = 0
    for group in _groups(handle, _KEY_COLUMNS):
        k = _keys_of(group, settings)
        n_docs = group.num_rows
        doc_of = np.repeat(np.arange(n_docs), np.diff(k.offsets))
        occ = pd.DataFrame({"key": k.keys, "page": k.pages[doc_of]})
        occurrences.append(occ.drop_duplicates())
        has_copy = k.copies != 0
        documents.append(
            pd.DataFrame(
                {
                    "page": k.copies[has_copy],
                    "warc_date": np.asarray(group.column("warc_date").to_pylist(), dtype=object)[
                        has_copy
                    ],
                    "url": np.asarray(group.column("url").to_pylist(), dtype=object)[has_copy],
                    "record_id": np.asarray(group.column("record_id").to_pylist(), dtype=object)[
                        has_copy
                    ],
                    "row": np.arange(row, row + n_docs, dtype=np.int64)[has_copy],
                }
            )
        )
        row += n_docs
    occ = pd.concat([OCCURRENCES_META[["key", "page"]], *occurrences], ignore_index=True)
    # Documents of one file that are copies of each other add their page once.
    occ = occ.drop_duplicates(ignore_index=True)
    occ["file"] = np.int32(file_id)
    docs = pd.concat([DOCUMENTS_META.drop(columns="file"), *documents], ignore_index=True)
    docs.insert(4, "file", np.int32(file_id))
    return occ.astype(OCCURRENCES_META.dtypes), docs.astype(DOCUMENTS_META.dtypes)


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
    """For one partition holding every document of its page hashes: ``(file, row,
    duplicate_of)`` for each document whose kept text an earlier one has: earliest
    ``warc_date``, then ``url``, then ``record_id`` (then file and row, for equal ones)."""
    if documents.empty:
        return COPIES_META.copy()
    order = documents.sort_values(["page", "warc_date", "url", "record_id", "file", "row"])
    first = order.groupby("page", sort=False)["record_id"].transform("first")
    later = order.groupby("page", sort=False).cumcount() > 0
    out = pd.DataFrame(
        {
            "file": order["file"][later].to_numpy(),
            "row": order["row"][later].to_numpy(),
            "duplicate_of": first[later].to_numpy(),
        }
    )
    return out.astype(COPIES_META.dtypes)


def _lookup(keys: np.ndarray, hit_keys: np.ndarray, hit_n: np.ndarray) -> np.ndarray:
    """``site_pages`` of each block: the count of its key among the hits, else 1."""
    out = np.ones(len(keys), dtype=np.int32)
    if len(hit_keys):
        at = np.searchsorted(hit_keys, keys)
        at[at == len(hit_keys)] = 0
        found = hit_keys[at] == keys
        out[found] = hit_n[at[found]]
    return out


def _per_doc(values: np.ndarray, doc_of: np.ndarray, n_docs: int) -> np.ndarray:
    return np.bincount(doc_of, weights=values, minlength=n_docs).astype(np.int64)


def _replaced(column: pa.ChunkedArray | pa.Array, changes: dict[int, Any]) -> pa.Array:
    """``column`` with the values at ``changes``' rows replaced, the others left in Arrow."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    mask = np.zeros(len(column), dtype=bool)
    rows = sorted(changes)
    mask[rows] = True
    values = pa.array([changes[i] for i in rows], type=column.type)
    if pa.types.is_list(column.type):  # no kernel for lists; `structure` is short
        merged = column.to_pylist()
        for i in rows:
            merged[i] = changes[i]
        return pa.array(merged, type=column.type)
    return pc.replace_with_mask(column, pa.array(mask), values)


def _rewrite_group(
    group: pa.Table,
    first_row: int,
    hits: tuple[np.ndarray, np.ndarray],
    copies: dict[int, str],
    settings: SiteSettings,
    formats: str,
    include_comments: bool,
    stats: dict[tuple[str, str], np.ndarray],
    language: str,
) -> pa.Table:
    k = _keys_of(group, settings, pages=False)
    blocks = group.column("blocks").combine_chunks()
    flat = blocks.flatten()
    children = dict(zip([f.name for f in flat.type], flat.flatten(), strict=True))
    stored = children["label"].to_numpy(zero_copy_only=False)
    site_pages = _lookup(k.keys, *hits)
    n_chars = children["n_chars"].to_numpy(zero_copy_only=False)
    repeat = settings.marks(k.labels, site_pages, k.text_hashes, n_chars, k.offsets)
    labels = np.where(repeat, REPEAT, k.labels)
    n_docs = group.num_rows
    doc_of = np.repeat(np.arange(n_docs), np.diff(k.offsets))
    changed = np.zeros(n_docs, dtype=bool)
    changed[doc_of[labels != stored]] = True

    # What the report counts: per site, the documents, those changed and the duplicates, and
    # the blocks and characters the text held and those now marked.
    kept = np.isin(k.labels, list(kept_labels(include_comments)))
    per_doc = pd.DataFrame(
        {
            "site": k.sites,
            "docs": 1,
            "docs_changed": changed.astype(np.int64),
            "duplicates": [int(first_row + d in copies) for d in range(n_docs)],
            "kept_blocks": _per_doc(kept, doc_of, n_docs),
            "kept_chars": _per_doc(np.where(kept, n_chars, 0), doc_of, n_docs),
            "repeat_blocks": _per_doc(repeat, doc_of, n_docs),
            "repeat_chars": _per_doc(np.where(repeat, n_chars, 0), doc_of, n_docs),
        }
    )
    for site, values in per_doc.groupby("site", sort=False).sum().iterrows():
        row = stats.setdefault((language, str(site)), np.zeros(7, dtype=np.int64))
        row += values.to_numpy(dtype=np.int64)

    columns = {name: group.column(name) for name in group.column_names}
    fields = list(BLOCK_TYPE)
    arrays = dict(children)
    arrays["label"] = pa.array(labels, type=pa.string())
    arrays["site_pages"] = pa.array(site_pages, type=pa.int32())
    struct = pa.StructArray.from_arrays([arrays[f.name] for f in fields], fields=fields)
    columns["blocks"] = pa.ListArray.from_arrays(
        pa.array(k.offsets, type=pa.int32()), struct, type=DOCS_SCHEMA.field("blocks").type
    )
    if changed.any():
        rebuilt = {}
        for d in np.flatnonzero(changed):
            # Only the changed documents' blocks become Python values (most keep theirs).
            a, b = int(k.offsets[d]), int(k.offsets[d + 1])
            rebuilt[int(d)] = rebuild(
                flat.slice(a, b - a).to_pylist(),
                labels[a:b],
                formats=formats,
                include_comments=include_comments,
            )
        for name in ("text", "markdown", "n_good", "n_chars", "n_words"):
            columns[name] = _replaced(
                columns[name], {d: getattr(r, name) for d, r in rebuilt.items()}
            )
        columns["structure"] = _replaced(
            columns["structure"], {d: list(r.structure) for d, r in rebuilt.items()}
        )
    duplicate_of = [copies.get(first_row + d) for d in range(n_docs)]
    columns["duplicate_of"] = pa.array(duplicate_of, type=pa.string())
    return pa.Table.from_arrays([columns[name] for name in DOCS_SCHEMA.names], schema=group.schema)


def rewrite_file(
    source: BinaryIO,
    target: BinaryIO,
    hits: pd.DataFrame,
    copies: pd.DataFrame,
    settings: SiteSettings,
    language: str,
) -> pd.DataFrame:
    """Write ``source`` (a documents file) to ``target`` with the stage's columns (module step
    3): ``hits`` are its ``(key, n)`` rows from `count_pages`, ``copies`` its ``(row,
    duplicate_of)`` rows from `first_copies`. Returns what changed, per site (`STATS_META`)."""
    parquet = pq.ParquetFile(source)
    schema = parquet.schema_arrow
    formats, include_comments = file_rendering(schema.metadata)
    order = np.argsort(hits["key"].to_numpy(), kind="stable")
    hit_keys = hits["key"].to_numpy()[order]
    hit_n = hits["n"].to_numpy()[order]
    copy_of = dict(zip(copies["row"].tolist(), copies["duplicate_of"].tolist(), strict=True))
    stats: dict[tuple[str, str], np.ndarray] = {}
    row = 0
    with pq.ParquetWriter(target, schema, **writer_options(schema)) as writer:
        for i in range(parquet.num_row_groups):
            group = parquet.read_row_group(i)
            new = _rewrite_group(
                group,
                row,
                (hit_keys, hit_n),
                copy_of,
                settings,
                formats,
                include_comments,
                stats,
                language,
            )
            writer.write_table(new, row_group_size=max(1, new.num_rows))
            row += group.num_rows
    rows = [(lang, site, *values.tolist()) for (lang, site), values in stats.items()]
    out = pd.DataFrame(rows, columns=list(STATS_META.columns))
    return out.astype(STATS_META.dtypes) if rows else STATS_META.copy()
