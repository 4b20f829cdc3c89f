"""Batches of output rows held column by column, turned into Arrow record batches in one step.

A document's page-level values go in as one tuple (in `DOCS_SCHEMA`'s order); its blocks go in
by transposing the cleaner's `LabeledBlock` / `Block` named tuples (``zip(*blocks)``), which is
done in C, so no dict is built per document or per block and pyarrow converts flat lists, never
lists of dicts. A flush then builds each column once: the blocks as a struct array under a list
array whose offsets are the documents' block counts.
"""

from __future__ import annotations

from itertools import accumulate
from operator import attrgetter
from typing import Any

import numpy as np
import pyarrow as pa

from pipeline.output.schema import (
    BLOCK_TYPE,
    DOCS_SCHEMA,
    METADATA_COLUMNS,
    REJECTS_SCHEMA,
    partition_language,
)
from pipeline.types import (
    TRUNCATED_OUTPUT,
    Block,
    CleanResult,
    LabeledBlock,
    RawPage,
    Rejected,
    Verdict,
)

# Python memory a buffered value holds beyond its strings' characters, measured with tracemalloc
# on WCXB pages: a block's slots in the column lists and its small ints about 200 bytes, a
# document's tuple and values about 1.5 kB. They bound the sink's buffers (``batch_bytes``).
BLOCK_OVERHEAD = 200
ROW_OVERHEAD = 1500

# The Block fields written as they are, and where each sits in the Block named tuple.
_BLOCK_FIELDS = ("text", "tag", "dom_path", "is_heading", "n_chars", "n_words", "n_link_chars")
_BLOCK_FIELDS += ("n_tags", "n_markup_chars", "shape")
_AT = {name: Block._fields.index(name) for name in _BLOCK_FIELDS}

_DOC_FIELDS = tuple(name for name in DOCS_SCHEMA.names if name != "blocks")
# PageMetadata's values in `METADATA_COLUMNS`' order, as a tuple in C (its fields are the columns).
_metadata_values = attrgetter(*METADATA_COLUMNS)


class DocColumns:
    """One partition's buffered documents: page-level tuples and flat block columns."""

    def __init__(self, *, text: bool = True, markdown: bool = True) -> None:
        # What the run writes (`pipeline.jobconfig.JobConfig.formats`): without text the `text`
        # column holds "" (it is not nullable; `n_chars` still counts the clean text), without
        # Markdown the `markdown` column holds null.
        self.text = text
        self.markdown = markdown
        self.rows: list[tuple[Any, ...]] = []
        self.block_counts: list[int] = []
        self.block_columns: list[list[Any]] = [[] for _ in _BLOCK_FIELDS]
        self.labels: list[str] = []
        self.cf_classes: list[str | None] = []
        self.scores: list[float | None] = []
        self.stopword_densities: list[float | None] = []
        self.nbytes = 0

    def __len__(self) -> int:
        return len(self.rows)

    def add(
        self, page: RawPage, result: CleanResult, *, cleaner_version: str, cleaner_params: str
    ) -> int:
        """Buffer one document; return the Python memory it holds (approximately)."""
        labeled: tuple[LabeledBlock, ...] = result.blocks
        n_words = 0
        n_good = 0
        text = result.text if self.text else ""
        markdown = result.markdown if self.markdown else None
        size = ROW_OVERHEAD + len(text) + len(markdown or "")
        metadata = _metadata_values(result.metadata)
        size += sum(len(v) for v in metadata if v)
        if labeled:
            blocks, verdicts, cf_classes, scores, stopword_densities = zip(*labeled, strict=True)
            fields = tuple(zip(*blocks, strict=True))
            for column, name in zip(self.block_columns, _BLOCK_FIELDS, strict=True):
                column.extend(fields[_AT[name]])
            good = Verdict.GOOD
            for verdict, words in zip(verdicts, fields[_AT["n_words"]], strict=True):
                if verdict is good:
                    n_good += 1
                    n_words += words
            # Verdict and CfClass are str enums: pyarrow writes their values as they are.
            self.labels.extend(verdicts)
            self.cf_classes.extend(cf_classes)
            self.scores.extend(scores)
            self.stopword_densities.extend(stopword_densities)
            size += len(labeled) * BLOCK_OVERHEAD
            size += sum(map(len, fields[_AT["text"]])) + sum(map(len, fields[_AT["dom_path"]]))
        self.block_counts.append(len(labeled))
        self.rows.append(
            (
                page.record_id,
                page.url,
                page.warc_path,
                page.warc_offset,
                page.warc_length,
                page.warc_date,
                page.http_status,
                page.content_type,
                result.encoding,
                result.encoding_source,
                partition_language(result.language.code),
                result.language.prob,
                result.stoplist,
                result.cleaner,
                cleaner_version,
                cleaner_params,
                text,
                len(labeled),
                n_good,
                len(result.text),
                n_words,
                # the page was cut short, or its text or Markdown was (`clean.output_cap`)
                page.truncated or TRUNCATED_OUTPUT in result.notes,
                [*page.notes, *result.notes],
                markdown,
                list(result.structure),
                *metadata,
                None,  # duplicate_of: the site stage's
                result.page_type,
                result.page_type_prob,
            )
        )
        self.nbytes += size
        return size

    def to_batch(self) -> pa.RecordBatch:
        columns = list(zip(*self.rows, strict=True)) if self.rows else [()] * len(_DOC_FIELDS)
        arrays = {
            name: pa.array(values, type=DOCS_SCHEMA.field(name).type)
            for name, values in zip(_DOC_FIELDS, columns, strict=True)
        }
        arrays["blocks"] = self._blocks_array()
        return pa.RecordBatch.from_arrays(
            [arrays[name] for name in DOCS_SCHEMA.names], schema=DOCS_SCHEMA
        )

    def _blocks_array(self) -> pa.Array:
        values = dict(zip(_BLOCK_FIELDS, self.block_columns, strict=True))
        n_chars = np.asarray(values["n_chars"], dtype=np.float64)
        n_link = np.asarray(values["n_link_chars"], dtype=np.float64)
        # Block.link_density for the whole batch: the same IEEE double division per block, then
        # rounded to float32 as pyarrow rounds a Python float.
        link_density = np.zeros_like(n_chars)
        np.divide(n_link, n_chars, out=link_density, where=n_chars > 0)
        values.update(
            label=self.labels,
            cf_class=self.cf_classes,
            link_density=link_density.astype(np.float32),
            stopword_density=self.stopword_densities,
            score=self.scores,
        )
        fields = list(BLOCK_TYPE)
        # Counted by the site stage, over the whole output, after every input is cleaned.
        site_pages = pa.nulls(len(self.labels), pa.int32())
        arrays = {"site_pages": site_pages}
        struct = pa.StructArray.from_arrays(
            [
                arrays[f.name] if f.name in arrays else pa.array(values[f.name], type=f.type)
                for f in fields
            ],
            fields=fields,
        )
        offsets = pa.array([0, *accumulate(self.block_counts)], type=pa.int32())
        return pa.ListArray.from_arrays(offsets, struct, type=DOCS_SCHEMA.field("blocks").type)


class RejectColumns:
    """One input's buffered rejections."""

    def __init__(self) -> None:
        self.rows: list[tuple[Any, ...]] = []
        self.nbytes = 0

    def __len__(self) -> int:
        return len(self.rows)

    def add(self, rejected: Rejected) -> int:
        self.rows.append(
            (
                rejected.warc_path,
                rejected.record_id,
                rejected.record_type,
                rejected.warc_offset,
                rejected.warc_length,
                rejected.url,
                rejected.reason,
                rejected.detail,
            )
        )
        size = ROW_OVERHEAD + len(rejected.detail or "")
        self.nbytes += size
        return size

    def to_batch(self) -> pa.RecordBatch:
        columns = list(zip(*self.rows, strict=True)) if self.rows else [()] * len(REJECTS_SCHEMA)
        arrays = [
            pa.array(values, type=field.type)
            for field, values in zip(REJECTS_SCHEMA, columns, strict=True)
        ]
        return pa.RecordBatch.from_arrays(arrays, schema=REJECTS_SCHEMA)
