"""The output dataset's Parquet schema: documents with their blocks, and rejections.

The contract with every reader (pyarrow, DuckDB, Polars, `datasets`) and with the README's
schema table: a column is added here, in `pipeline.output.columns` (how it is filled) and in the
README, and nowhere else.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

# "2" added `markdown` and `structure` at the end of the documents table, "3" `page_type` and
# `page_type_prob` after them; every older column kept its name, type and place. A job refuses to
# resume into an output of another version (`pipeline.output.layout.check_output`), so one output
# never mixes two schemas.
SCHEMA_VERSION = "3"
_META = {b"warcclean.schema_version": SCHEMA_VERSION.encode()}

BLOCK_TYPE = pa.struct(
    [
        pa.field("text", pa.string(), nullable=False),
        pa.field("tag", pa.string(), nullable=False),
        pa.field("dom_path", pa.string(), nullable=False),
        pa.field("label", pa.string(), nullable=False),  # "good" | "bad" | "comment"
        pa.field("cf_class", pa.string()),  # jusText's context-free class; null for other cleaners
        pa.field("is_heading", pa.bool_(), nullable=False),
        pa.field("n_chars", pa.int32(), nullable=False),
        pa.field("n_words", pa.int32(), nullable=False),
        pa.field("n_link_chars", pa.int32(), nullable=False),
        pa.field("n_tags", pa.int32(), nullable=False),
        pa.field("n_markup_chars", pa.int32(), nullable=False),
        pa.field("link_density", pa.float32(), nullable=False),
        pa.field("stopword_density", pa.float32()),
        pa.field("score", pa.float32()),
    ]
)

DOCS_SCHEMA = pa.schema(
    [
        pa.field("record_id", pa.string(), nullable=False),
        pa.field("url", pa.string(), nullable=False),
        pa.field("warc_path", pa.string(), nullable=False),
        pa.field("warc_offset", pa.int64(), nullable=False),
        pa.field("warc_length", pa.int64(), nullable=False),
        pa.field("warc_date", pa.string(), nullable=False),
        pa.field("http_status", pa.int16()),
        pa.field("content_type", pa.string()),
        pa.field("encoding", pa.string(), nullable=False),
        pa.field("encoding_source", pa.string(), nullable=False),
        pa.field("language", pa.string(), nullable=False),
        pa.field("language_prob", pa.float32(), nullable=False),
        pa.field("stoplist", pa.string()),
        pa.field("cleaner", pa.string(), nullable=False),
        pa.field("cleaner_version", pa.string(), nullable=False),
        pa.field("cleaner_params", pa.string(), nullable=False),
        pa.field("text", pa.string(), nullable=False),
        pa.field("n_blocks", pa.int32(), nullable=False),
        pa.field("n_good", pa.int32(), nullable=False),
        pa.field("n_chars", pa.int64(), nullable=False),
        pa.field("n_words", pa.int64(), nullable=False),
        pa.field("truncated", pa.bool_(), nullable=False),
        pa.field("notes", pa.list_(pa.string()), nullable=False),
        pa.field("blocks", pa.list_(pa.field("item", BLOCK_TYPE, nullable=False)), nullable=False),
        # Schema 2. The kept blocks as Markdown; null when the run wrote no Markdown
        # (``--formats text``).
        pa.field("markdown", pa.string()),
        # Which of "code", "math", "table" the kept content holds, sorted; [] for none.
        pa.field("structure", pa.list_(pa.string()), nullable=False),
        # Schema 3. What kind of page this is (`pipeline.learned.page_type`: article, forum,
        # product, collection, listing, documentation, service) and the classifier's probability
        # for it.
        pa.field("page_type", pa.string()),
        pa.field("page_type_prob", pa.float32()),
    ],
    metadata={**_META, b"warcclean.table": b"docs"},
)

REJECTS_SCHEMA = pa.schema(
    [
        pa.field("warc_path", pa.string(), nullable=False),
        pa.field("record_id", pa.string()),
        pa.field("record_type", pa.string(), nullable=False),
        pa.field("warc_offset", pa.int64()),
        pa.field("warc_length", pa.int64()),
        pa.field("url", pa.string()),
        pa.field("reason", pa.string(), nullable=False),
        pa.field("detail", pa.string(), nullable=False),
    ],
    metadata={**_META, b"warcclean.table": b"rejects"},
)

# Parquet column paths of free or unique text. Dictionary encoding hashes every value looking for
# repeats these columns do not have; the other string columns (paths, tags, labels, languages)
# repeat, and numbers compress as well plainly. Statistics stay on every column: the run report
# counts the documents with Markdown from `markdown`'s null counts, and min/max on free text costs
# little (about 2% of writing). On 2,700 WCXB documents: writing 0.273 -> 0.245 ms a document,
# files 3% smaller, the same table read back (bench/parquet_write.py).
FREE_TEXT_COLUMNS = frozenset(
    {"record_id", "url", "text", "markdown", "blocks.list.element.text", "detail"}
)


def _leaves(fields: Any, prefix: str = "") -> Iterator[tuple[str, pa.DataType]]:
    """Each leaf column's Parquet path (lists as ``name.list.element``) and Arrow type."""
    for field in fields:
        path, kind = prefix + field.name, field.type
        while pa.types.is_list(kind):
            path, kind = path + ".list.element", kind.value_type
        if pa.types.is_struct(kind):
            yield from _leaves(kind, path + ".")
        else:
            yield path, kind


def writer_options(schema: pa.Schema) -> dict[str, Any]:
    """`pyarrow.parquet.ParquetWriter` keywords for ``schema``: zstd, and dictionary encoding
    only for the string columns that repeat values."""
    return {
        "compression": "zstd",
        "use_dictionary": [
            path
            for path, kind in _leaves(schema)
            if pa.types.is_string(kind) and path not in FREE_TEXT_COLUMNS
        ],
    }


SAFE_LANGUAGE = re.compile(r"[a-z]{2,3}|und")


def partition_language(code: str) -> str:
    """A detected language code as a safe hive partition value: ``[a-z]{2,3}`` or ``und``.

    The value becomes a directory name, so anything else (``zh-cn``, ``../x``) is reduced to its
    primary subtag when that is safe, else ``und``.
    """
    code = code.strip().lower()
    if SAFE_LANGUAGE.fullmatch(code):
        return code
    primary = re.split(r"[-_]", code, maxsplit=1)[0]
    return primary if SAFE_LANGUAGE.fullmatch(primary) else "und"
