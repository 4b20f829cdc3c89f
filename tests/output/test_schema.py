"""The output's schema (`pipeline.output.schema`): docs/output.md's tables are the schema, and a
documents file's footer says how its text was rendered.

A reader plans on those tables (which columns to filter for nulls, which types to cast), so a
column added, moved, retyped or made nullable in the code without the docs fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa
import pytest

from pipeline.output.schema import (
    BLOCK_TYPE,
    COMMENTS_KEY,
    DOCS_SCHEMA,
    FORMATS_KEY,
    REJECTS_SCHEMA,
    SHAPE_TYPE,
    docs_file_schema,
    file_rendering,
)
from pipeline.types import Shape

DOC = Path(__file__).resolve().parents[2] / "docs" / "output.md"


def _doc_type(kind: pa.DataType) -> str:
    """How the docs write an Arrow type."""
    if pa.types.is_list(kind):
        inner = kind.value_type
        return "list<struct>" if pa.types.is_struct(inner) else f"list<{_doc_type(inner)}>"
    if pa.types.is_struct(kind):
        return "struct"
    return {pa.float32(): "float32", pa.bool_(): "bool"}.get(kind, str(kind))


def _table(header: str) -> list[tuple[str, str, bool]]:
    """The (name, type, nullable) rows of the docs' table whose header row is ``header``."""
    lines = DOC.read_text(encoding="utf-8").splitlines()
    at = lines.index(header)
    rows = []
    for line in lines[at + 2 :]:
        if not line.startswith("|"):
            break
        names_cell, type_cell = [c.strip() for c in line.strip("|").split("|")[:2]]
        names = re.findall(r"`([^`]+)`", names_cell)
        tokens = [t.strip() for t in type_cell.split(",")]
        nullable = "nullable" in tokens
        types = [t for t in tokens if t != "nullable"]
        if len(types) == 1:
            types *= len(names)
        assert len(types) == len(names), f"{line!r}: one type, or one per name"
        rows += [(name, kind, nullable) for name, kind in zip(names, types, strict=True)]
    return rows


def _declared(fields: pa.Schema | pa.StructType) -> list[tuple[str, str, bool]]:
    return [(f.name, _doc_type(f.type), f.nullable) for f in fields]


@pytest.mark.parametrize(
    ("header", "fields"),
    [
        ("| column | type | meaning |", DOCS_SCHEMA),
        ("| field | type | meaning |", BLOCK_TYPE),
        ("| rejects column | type | meaning |", REJECTS_SCHEMA),
    ],
    ids=["documents", "blocks", "rejects"],
)
def test_the_docs_table_is_the_schema(header: str, fields: pa.Schema | pa.StructType) -> None:
    assert _table(header) == _declared(fields)


def test_the_docs_name_the_shape_fields_in_order() -> None:
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    shape = re.search(r"field for field `pipeline\.types\.Shape`: ((?:`\w+`(?:, )?)+)", text)
    assert shape is not None
    assert re.findall(r"`(\w+)`", shape.group(1)) == list(Shape._fields)
    assert [f.name for f in SHAPE_TYPE] == list(Shape._fields)


def test_a_type_the_docs_do_not_write_is_caught() -> None:
    # The comparison is not vacuous: a field made nullable, or retyped, no longer matches.
    changed = BLOCK_TYPE.field("n_chars").with_nullable(True)
    fields = [changed if f.name == "n_chars" else f for f in BLOCK_TYPE]
    assert _table("| field | type | meaning |") != _declared(pa.struct(fields))
    retyped = [f.with_type(pa.int64()) if f.name == "n_words" else f for f in BLOCK_TYPE]
    assert _table("| field | type | meaning |") != _declared(pa.struct(retyped))


@pytest.mark.parametrize(
    "metadata",
    [
        None,
        {},
        {FORMATS_KEY: b"both"},
        {COMMENTS_KEY: b"false"},
        {FORMATS_KEY: b"html", COMMENTS_KEY: b"false"},
        {FORMATS_KEY: b"text", COMMENTS_KEY: b"yes"},
    ],
)
def test_a_file_that_does_not_say_how_it_was_rendered_is_refused(
    metadata: dict[bytes, bytes] | None,
) -> None:
    # The site stage would otherwise rebuild a document's text unlike the rest of its file.
    with pytest.raises(ValueError, match="does not say how its text was rendered"):
        file_rendering(metadata)


def test_the_footer_keys_read_back_as_written() -> None:
    for formats in ("text", "markdown", "both"):
        for comments in (True, False):
            metadata = docs_file_schema(formats, comments).metadata
            assert file_rendering(metadata) == (formats, comments)
            assert metadata[b"warcclean.schema_version"] == b"3"
