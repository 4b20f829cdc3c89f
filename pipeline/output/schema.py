"""The output dataset's Parquet schema: documents with their blocks, and rejections.

The contract with every reader (pyarrow, DuckDB, Polars, `datasets`) and with the README's
schema table: a column is added here, in `pipeline.output.columns` (how it is filled) and in the
README, and nowhere else.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from pipeline.types import PageMetadata, Shape

# "2" added `markdown` and `structure` at the end of the documents table; every older column kept
# its name, type and place. "3" added, again at the end, the page metadata columns (`title` ...
# `canonical_url`), the blocks' `shape` and `site_pages` and the documents' `duplicate_of` (the
# site stage, `pipeline.site`), and the documents files' footer keys (`FORMATS_KEY`,
# `COMMENTS_KEY`), and after those the documents' `page_type` and `page_type_prob` (the page's
# kind, `pipeline.html.page_type`). A job refuses to resume into an output of another version
# (`pipeline.output.layout.check_output`), so one output never mixes two schemas.
SCHEMA_VERSION = "3"
_META = {b"warcclean.schema_version": SCHEMA_VERSION.encode()}
# What each version added, for the message that refuses an output of an older one.
SCHEMA_CHANGES = {
    "2": "the documents' markdown and structure",
    "3": "the page metadata (title, description, author, published, site_name, canonical_url), "
    "the blocks' shape and site_pages, the documents' duplicate_of, page_type and page_type_prob",
}
# The page metadata columns, `pipeline.types.PageMetadata`'s fields in their order.
METADATA_COLUMNS = tuple(f.name for f in dataclasses.fields(PageMetadata))
# Footer keys of a documents file: how the run that wrote it rendered the text and Markdown
# (``--formats``, ``--include-comments``), so that the site stage renders them again alike.
FORMATS_KEY = b"warcclean.formats"
COMMENTS_KEY = b"warcclean.include_comments"

# `pipeline.types.Shape` as Arrow, field for field and in its order, so that a stored block's
# shape reads back as the `Shape` the renderer was given (`pipeline.site.rebuild`). Derived from
# Shape's own annotations: a field added there fails `shape_type` until its type is listed here,
# never silently missing from the output.
SPAN_TYPE = pa.struct(
    [
        pa.field("start", pa.int32(), nullable=False),
        pa.field("end", pa.int32(), nullable=False),
        pa.field("kind", pa.string(), nullable=False),
    ]
)
SHAPE_FIELD_TYPES: dict[str, pa.DataType] = {
    "int": pa.int32(),
    "str": pa.string(),
    "bool": pa.bool_(),
    "str | None": pa.string(),
    "tuple[tuple[int, int, str], ...]": pa.list_(pa.field("item", SPAN_TYPE, nullable=False)),
}


def shape_type() -> pa.StructType:
    """The Arrow struct of `Shape`: one field per Shape field, typed from its annotation."""
    fields = []
    for name in Shape._fields:
        annotation = Shape.__annotations__[name]
        annotation = getattr(annotation, "__forward_arg__", annotation)
        kind = SHAPE_FIELD_TYPES.get(annotation if isinstance(annotation, str) else "")
        if kind is None:
            raise TypeError(
                f"Shape.{name}: {annotation!r} has no Arrow type in SHAPE_FIELD_TYPES: add one"
            )
        fields.append(pa.field(name, kind, nullable="None" in str(annotation)))
    return pa.struct(fields)


SHAPE_TYPE = shape_type()

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
        # Schema 3. Where the block sits in the page's structure (`Shape`; null for a plain
        # paragraph): what the renderer reads besides the text, so that the site stage rebuilds
        # a document's text and Markdown from its blocks alone.
        pa.field("shape", SHAPE_TYPE),
        # How many distinct documents of the block's site hold its normalized text (duplicates
        # counted once); null until a site stage has counted it (`pipeline.site`).
        pa.field("site_pages", pa.int32()),
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
        # Schema 3. What the page's head says about it (`pipeline.types.PageMetadata`); null
        # where it does not say.
        *(pa.field(name, pa.string()) for name in METADATA_COLUMNS),
        # Schema 3. The record id of the first document (earliest `warc_date`, then `url`, then
        # `record_id`) whose kept text is the same, normalized; null for the first and for a
        # document without a copy, and until a site stage has looked (`pipeline.site`).
        pa.field("duplicate_of", pa.string()),
        # Schema 3. What kind of page this is (`pipeline.html.page_type`: article, forum,
        # product, collection, listing, documentation, service) and the classifier's probability
        # for it.
        pa.field("page_type", pa.string()),
        pa.field("page_type_prob", pa.float32()),
    ],
    metadata={**_META, b"warcclean.table": b"docs"},
)


def docs_file_schema(formats: str, include_comments: bool) -> pa.Schema:
    """`DOCS_SCHEMA` with the footer keys of a file written with ``formats`` and comments."""
    return DOCS_SCHEMA.with_metadata(
        {
            **DOCS_SCHEMA.metadata,
            FORMATS_KEY: formats.encode(),
            COMMENTS_KEY: b"true" if include_comments else b"false",
        }
    )


def file_rendering(metadata: dict[bytes, bytes] | None) -> tuple[str, bool]:
    """(formats, include_comments) from a documents file's footer metadata; ValueError when it
    has not both (a file of schema 3 always has)."""
    metadata = metadata or {}
    formats = metadata.get(FORMATS_KEY, b"").decode()
    comments = metadata.get(COMMENTS_KEY, b"").decode()
    if formats not in ("text", "markdown", "both") or comments not in ("true", "false"):
        raise ValueError(
            "the documents file does not say how its text was rendered "
            f"({FORMATS_KEY.decode()}={formats!r}, {COMMENTS_KEY.decode()}={comments!r})"
        )
    return formats, comments == "true"


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
    {
        "record_id",
        "url",
        "text",
        "markdown",
        "blocks.list.element.text",
        "blocks.list.element.shape.raw",
        "detail",
        "duplicate_of",
        "title",
        "description",
        "canonical_url",
    }
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
