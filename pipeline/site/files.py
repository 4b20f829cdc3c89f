"""The site stage's work on one documents file, in Arrow and numpy.

The stage runs in three steps; this module holds what touches a documents file, and
`pipeline.site.frames` the shuffled stage's pandas frames around it (the one-task stage,
`pipeline.site.gathered`, never imports pandas: its worker would pay that import per run):

1. `file_keys` reads a documents file (a few columns, row group by row group) and gives each
   row group's keys: per block, a key of its site and normalized text (`occurrences_of`), and
   per document its page identity and its columns for naming copies (`documents_of`);
   `read_file_keys` gathers them for a whole file;
2. the distinct pages holding each key are counted, keeping the keys on two or more (one page
   is what every block without a count has), and `first_copies` names each duplicate's first
   document;
3. `rewrite_file` writes the file again with every block's ``site_pages``, the ``repeat``
   labels, the rebuilt text of the documents whose labels changed and ``duplicate_of``, row for
   row in the same order, and says what it changed.

A document's "page" is its page hash (`pipeline.site.keys.page_keys`), so exact duplicates count
as one page: a page crawled under two URLs does not make its own text look repeated. A document
with no kept text is a page of its own.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from typing import Any, BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pipeline.output.schema import BLOCK_TYPE, DOCS_SCHEMA, file_rendering, writer_options
from pipeline.site.keys import block_keys, hash_strings, hash_texts, page_keys, site_of
from pipeline.site.rebuild import REBUILD_FIELDS, kept_labels, rebuild
from pipeline.site.rule import GOOD, REPEAT, SiteSettings, cleaner_labels

__all__ = [
    "STATS_COLUMNS",
    "Documents",
    "FileKeys",
    "file_keys",
    "first_copies",
    "occurrences_of",
    "read_file_keys",
    "rewrite_file",
]

_KEY_COLUMNS = [
    "url",
    "record_id",
    "warc_date",
    "blocks.list.element.text",
    "blocks.list.element.label",
]

# What `rewrite_file` counts per (language, site), in this order after those two.
STATS_COLUMNS = (
    "docs",
    "docs_changed",
    "duplicates",
    "kept_blocks",
    "kept_chars",
    "repeat_blocks",
    "repeat_chars",
    # Documents whose every kept block is now a repeat: rows with no text left.
    "docs_emptied",
)

# What `rewrite_file` returns: per (language, site), its counts in `STATS_COLUMNS` order.
Stats = dict[tuple[str, str], np.ndarray]


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


def _one_array(column: pa.ChunkedArray) -> pa.Array:
    """The column as one array: its only chunk as it is (``combine_chunks`` copies even that,
    which was a tenth of the stage's time on the blocks), else the chunks concatenated."""
    if column.num_chunks == 1:
        return column.chunk(0)
    return column.combine_chunks()


def _offsets(blocks: pa.ListArray) -> np.ndarray:
    offsets = blocks.offsets.to_numpy().astype(np.int64)
    return offsets - offsets[0]


def _labels(labels: pa.Array) -> np.ndarray:
    """The labels as a numpy object array whose equal values are one string object: taken
    from the few distinct ones, rather than one new string per block."""
    encoded = labels.dictionary_encode()
    vocabulary = np.array([*encoded.dictionary.to_pylist(), None], dtype=object)[:-1]
    return vocabulary[encoded.indices.to_numpy(zero_copy_only=False)]


def _label_array(stored: pa.Array | pa.DictionaryArray, repeat: np.ndarray) -> pa.Array:
    """The new labels: the cleaner's (a stored ``repeat`` was ``good``), ``repeat`` where
    ``repeat``. Taken from the few distinct names by code: made from an object array of
    strings, one per block, it took several times as long."""
    encoded = stored.dictionary_encode()
    names = [GOOD if name == REPEAT else name for name in encoded.dictionary.to_pylist()]
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32)
    codes[repeat] = len(names)
    return pa.array([*names, REPEAT], type=pa.string()).take(pa.array(codes))


def _keys_of(
    group: pa.Table,
    settings: SiteSettings,
    *,
    pages: bool = True,
    text_hashes: np.ndarray | None = None,
) -> _Keys:
    """The row group's keys; ``text_hashes``, the blocks' text hashes when they were kept from
    an earlier reading (only for a rewrite: ``pages`` False), are not computed again."""
    blocks = _one_array(group.column("blocks"))
    flat = blocks.flatten()
    offsets = _offsets(blocks)
    children = dict(zip([f.name for f in flat.type], flat.flatten(), strict=True))
    labels = cleaner_labels(_labels(children["label"]))
    urls = group.column("url").to_pylist()
    ids = group.column("record_id").to_pylist()
    sites = [site_of(u, r, settings.site_key) for u, r in zip(urls, ids, strict=True)]
    # Only the kept blocks enter a page's identity, hashed with their digits.
    good = labels == "good"
    if text_hashes is None:
        text_hashes, exact = hash_strings(children["text"], good if pages else None)
    elif pages:
        raise ValueError("a page's identity needs its blocks hashed with their digits")
    elif len(text_hashes) != len(labels):
        raise ValueError(
            f"{len(text_hashes)} stored text hashes for a row group of {len(labels)} blocks"
        )
    per_block = np.repeat(hash_texts(sites), np.diff(offsets))
    if pages:
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


def file_keys(handle: BinaryIO, settings: SiteSettings) -> Iterator[tuple[_Keys, pa.Table]]:
    """Each row group's keys (`_keys_of`) and the few columns they were read from."""
    for group in _groups(handle, _KEY_COLUMNS):
        yield _keys_of(group, settings), group


def occurrences_of(k: _Keys) -> tuple[np.ndarray, np.ndarray]:
    """A row group's block occurrences: each block's key and its document's page identity
    (one pair per block, repeats included)."""
    doc_of = np.repeat(np.arange(len(k.pages)), np.diff(k.offsets))
    return k.keys, k.pages[doc_of]


@dataclass(frozen=True, slots=True)
class Documents:
    """Documents with kept text, column by column: what `first_copies` orders them by."""

    page: np.ndarray  # uint64: the page hash
    warc_date: np.ndarray  # object (str or None)
    url: np.ndarray  # object
    record_id: np.ndarray  # object
    file: np.ndarray  # int32: the file's number in the stage
    row: np.ndarray  # int64: the row in that file

    @staticmethod
    def concat(parts: Sequence[Documents]) -> Documents:
        empty = (np.uint64, object, object, object, np.int32, np.int64)  # in field order
        return Documents(
            *(
                np.concatenate([getattr(p, f.name) for p in parts]) if parts else np.empty(0, t)
                for f, t in zip(fields(Documents), empty, strict=True)
            )
        )

    def take(self, which: np.ndarray) -> Documents:
        return Documents(*(getattr(self, f.name)[which] for f in fields(self)))


def documents_of(k: _Keys, group: pa.Table, file_id: int, first_row: int) -> Documents:
    """A row group's documents with kept text, and their rows in file ``file_id``."""
    has_copy = k.copies != 0

    def column(name: str) -> np.ndarray:
        return np.asarray(group.column(name).to_pylist(), dtype=object)[has_copy]

    n = int(has_copy.sum())
    return Documents(
        page=k.copies[has_copy],
        warc_date=column("warc_date"),
        url=column("url"),
        record_id=column("record_id"),
        file=np.full(n, file_id, dtype=np.int32),
        row=np.arange(first_row, first_row + group.num_rows, dtype=np.int64)[has_copy],
    )


@dataclass(frozen=True, slots=True)
class FileKeys:
    """One documents file's keys: every block occurrence (its key and its document's page
    identity, one pair per block), the documents with kept text, and each row group's keys,
    which its rewrite can take instead of hashing the blocks again."""

    keys: np.ndarray  # uint64, per block
    pages: np.ndarray  # uint64, per block
    documents: Documents
    groups: list[_Keys]


def read_file_keys(handle: BinaryIO, file_id: int, settings: SiteSettings) -> FileKeys:
    """`file_keys` of the documents file ``handle`` (file ``file_id`` of the stage), gathered:
    what both ways of running the stage read from each file."""
    keys, pages, documents, groups = [], [], [], []
    row = 0
    for k, group in file_keys(handle, settings):
        block_keys, block_pages = occurrences_of(k)
        keys.append(block_keys)
        pages.append(block_pages)
        documents.append(documents_of(k, group, file_id, row))
        groups.append(k)
        row += group.num_rows
    empty = np.empty(0, dtype=np.uint64)
    return FileKeys(
        keys=np.concatenate([empty, *keys]),
        pages=np.concatenate([empty, *pages]),
        documents=Documents.concat(documents),
        groups=groups,
    )


def _sort_key(value: str | float | None) -> tuple[bool, str]:
    # As pandas sorts a column of strings: missing values (None, or NaN once a shuffle has
    # made the column Arrow strings) last.
    if isinstance(value, str):
        return (False, value)
    return (True, "")


def first_copies(docs: Documents) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """For documents holding every document of their page hashes: ``(file, row,
    duplicate_of)`` of each document whose kept text an earlier one has: earliest
    ``warc_date``, then ``url``, then ``record_id`` (then file and row, for equal ones)."""
    # Only documents whose page hash another shares are ordered (most have none).
    _, inverse, counts = np.unique(docs.page, return_inverse=True, return_counts=True)
    docs = docs.take(counts[inverse.reshape(-1)] > 1)
    order = sorted(
        range(len(docs.page)),
        key=lambda i: (
            int(docs.page[i]),
            _sort_key(docs.warc_date[i]),
            _sort_key(docs.url[i]),
            _sort_key(docs.record_id[i]),
            int(docs.file[i]),
            int(docs.row[i]),
        ),
    )
    later_files, later_rows, firsts = [], [], []
    previous, first = None, ""
    for i in order:
        page = int(docs.page[i])
        if page == previous:
            later_files.append(int(docs.file[i]))
            later_rows.append(int(docs.row[i]))
            firsts.append(first)
        else:
            previous, first = page, docs.record_id[i]
    return (
        np.array(later_files, dtype=np.int32),
        np.array(later_rows, dtype=np.int64),
        firsts,
    )


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
        column = _one_array(column)
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
    stats: Stats,
    language: str,
    k: _Keys | None,
    text_hashes: np.ndarray | None,
) -> pa.Table:
    if k is None:
        k = _keys_of(group, settings, pages=False, text_hashes=text_hashes)
    blocks = _one_array(group.column("blocks"))
    flat = blocks.flatten()
    children = dict(zip([f.name for f in flat.type], flat.flatten(), strict=True))
    # Encoded once for both readings of the stored labels (encoding an encoded array is free).
    encoded_labels = children["label"].dictionary_encode()
    stored = _labels(encoded_labels)
    site_pages = _lookup(k.keys, *hits)
    n_chars = children["n_chars"].to_numpy(zero_copy_only=False)
    repeat = settings.marks(k.labels, site_pages, k.text_hashes, n_chars, k.offsets)
    labels = np.where(repeat, REPEAT, k.labels)
    n_docs = group.num_rows
    doc_of = np.repeat(np.arange(n_docs), np.diff(k.offsets))
    changed = np.zeros(n_docs, dtype=bool)
    changed[doc_of[labels != stored]] = True

    # What the report counts: per site, the documents, those changed and the duplicates, the
    # blocks and characters the text held and those now marked, and the documents left with no
    # text (every kept block marked).
    kept = np.isin(k.labels, list(kept_labels(include_comments)))
    kept_per_doc = _per_doc(kept, doc_of, n_docs)
    repeat_per_doc = _per_doc(repeat, doc_of, n_docs)
    per_doc = np.stack(
        [
            np.ones(n_docs, dtype=np.int64),
            changed.astype(np.int64),
            np.array([first_row + d in copies for d in range(n_docs)], dtype=np.int64),
            kept_per_doc,
            _per_doc(np.where(kept, n_chars, 0), doc_of, n_docs),
            repeat_per_doc,
            _per_doc(np.where(repeat, n_chars, 0), doc_of, n_docs),
            ((repeat_per_doc > 0) & (repeat_per_doc == kept_per_doc)).astype(np.int64),
        ],
        axis=1,
    )
    names, site_of_doc = np.unique(np.array(k.sites, dtype=object), return_inverse=True)
    per_site = np.zeros((len(names), per_doc.shape[1]), dtype=np.int64)
    np.add.at(per_site, site_of_doc.reshape(-1), per_doc)
    for site, values in zip(names.tolist(), per_site, strict=True):
        row = stats.setdefault((language, str(site)), np.zeros(len(STATS_COLUMNS), dtype=np.int64))
        row += values

    columns = {name: group.column(name) for name in group.column_names}
    fields = list(BLOCK_TYPE)
    arrays = dict(children)
    arrays["label"] = _label_array(encoded_labels, repeat)
    arrays["site_pages"] = pa.array(site_pages, type=pa.int32())
    struct = pa.StructArray.from_arrays([arrays[f.name] for f in fields], fields=fields)
    columns["blocks"] = pa.ListArray.from_arrays(
        pa.array(k.offsets, type=pa.int32()), struct, type=DOCS_SCHEMA.field("blocks").type
    )
    if changed.any():
        # Only the kept blocks of the changed documents become Python values, and only the
        # fields the renderer reads: most documents keep their text, and a changed one's
        # boilerplate is not rendered (converting every block was most of the stage's time).
        renderable = [name for name in REBUILD_FIELDS if name in children]
        fields_only = pa.StructArray.from_arrays(
            [children[name] for name in renderable], names=renderable
        )
        kept_now = kept & ~repeat
        places = []
        for d in np.flatnonzero(changed):
            a, b = int(k.offsets[d]), int(k.offsets[d + 1])
            places.append((int(d), a, np.flatnonzero(kept_now[a:b])))
        taken = np.concatenate([a + at for _, a, at in places]).astype(np.int64)
        stored_blocks = fields_only.take(pa.array(taken)).to_pylist()
        rebuilt = {}
        start = 0
        for d, a, at in places:
            end = start + len(at)
            rebuilt[d] = rebuild(
                stored_blocks[start:end],
                labels[a + at],
                formats=formats,
                include_comments=include_comments,
                indices=at.tolist(),
            )
            start = end
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
    hits: tuple[np.ndarray, np.ndarray],
    copies: dict[int, str],
    settings: SiteSettings,
    language: str,
    keys: Sequence[_Keys] | None = None,
    text_hashes: np.ndarray | None = None,
) -> Stats:
    """Write ``source`` (a documents file) to ``target`` with the stage's columns (module step
    3): ``hits`` are the repeated keys, sorted, and their counts, ``copies`` the duplicate
    documents' ``record_id`` of their first copy by row (`first_copies`). So that the file's
    blocks are not hashed again, ``keys`` can give `file_keys`'s for each row group, or
    ``text_hashes`` every block's text hash in file order (ValueError if they do not fit the
    file). Returns what changed, per site (`Stats`)."""
    parquet = pq.ParquetFile(source)
    schema = parquet.schema_arrow
    formats, include_comments = file_rendering(schema.metadata)
    stats: Stats = {}
    row = 0
    block = 0
    with pq.ParquetWriter(target, schema, **writer_options(schema)) as writer:
        for i in range(parquet.num_row_groups):
            group = parquet.read_row_group(i)
            stored = None
            if text_hashes is not None:
                n_blocks = sum(len(chunk.flatten()) for chunk in group.column("blocks").chunks)
                stored = text_hashes[block : block + n_blocks]
                block += n_blocks
            new = _rewrite_group(
                group,
                row,
                hits,
                copies,
                settings,
                formats,
                include_comments,
                stats,
                language,
                None if keys is None else keys[i],
                stored,
            )
            writer.write_table(new, row_group_size=max(1, new.num_rows))
            row += group.num_rows
    if text_hashes is not None and block != len(text_hashes):
        raise ValueError(f"{len(text_hashes)} stored text hashes for a file of {block} blocks")
    return stats
