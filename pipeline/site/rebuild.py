"""A document's text and Markdown rendered again from its stored blocks, without the page.

The cleaning pass renders the kept blocks with `pipeline.render.blocks.render`, which reads each
block's text and `Shape`. The output stores both (the blocks' ``text`` and ``shape``, schema 3),
and the documents file's footer says how the run rendered (``--formats``, ``--include-comments``:
`pipeline.output.schema.file_rendering`). So a document whose labels the site stage changed is
rendered again by that same function, from its remaining blocks: no second copy of the renderer,
and a renderer change reaches the rebuilt documents as it reaches the cleaned ones.

Blocks are rebuilt generically: every `Block` field the stored struct has is taken from it, the
rest keep their defaults (the renderer does not read them), and the shape is the `Shape` whose
fields the stored struct lists (`pipeline.output.schema.shape_type`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from pipeline.render.blocks import render
from pipeline.types import Block, Shape, Verdict

__all__ = ["REBUILD_FIELDS", "Rebuilt", "block_of", "kept_labels", "rebuild", "shape_of"]

# Block fields with no stored value: what the renderer never reads, at neutral values.
_BLOCK_DEFAULTS: dict[str, Any] = {
    "index": 0,
    "text": "",
    "tag": "",
    "dom_path": "",
    "style": "",
    "is_heading": False,
    "n_chars": 0,
    "n_words": 0,
    "n_link_chars": 0,
    "n_tags": 0,
    "n_markup_chars": 0,
}


# The stored block fields `rebuild` reads: only these need to become Python values.
REBUILD_FIELDS = (*_BLOCK_DEFAULTS, "shape")


class Rebuilt(NamedTuple):
    """The columns of a document that follow from its kept blocks."""

    text: str  # "" when the run wrote no text (``--formats markdown``)
    markdown: str | None  # None when the run wrote no Markdown (``--formats text``)
    structure: tuple[str, ...]
    n_good: int
    n_chars: int  # of the clean text, whether or not it was written
    n_words: int


def kept_labels(include_comments: bool) -> frozenset[str]:
    """The labels whose blocks the text holds (as `pipeline.clean.clean_decoded` keeps them)."""
    if include_comments:
        return frozenset((Verdict.GOOD.value, Verdict.COMMENT.value))
    return frozenset((Verdict.GOOD.value,))


def shape_of(stored: Mapping[str, Any] | None) -> Shape | None:
    """The `Shape` a stored shape struct (as pyarrow reads it: a dict, spans as dicts) holds."""
    if stored is None:
        return None
    values = {}
    for name in Shape._fields:
        value = stored[name]
        if isinstance(value, list):  # a list of structs: tuples of their values, in order
            value = tuple(tuple(item.values()) for item in value)
        values[name] = value
    return Shape(**values)


def block_of(index: int, stored: Mapping[str, Any]) -> Block:
    """A `Block` from a stored block struct: its stored fields, its shape, defaults elsewhere."""
    values = {name: stored.get(name, default) for name, default in _BLOCK_DEFAULTS.items()}
    values["index"] = index
    return Block(**values, shape=shape_of(stored.get("shape")))


def rebuild(
    blocks: Sequence[Mapping[str, Any]],
    labels: Iterable[str],
    *,
    formats: str,
    include_comments: bool,
    indices: Iterable[int] | None = None,
) -> Rebuilt:
    """The text-derived columns of a document whose stored blocks are ``blocks`` and whose
    labels are now ``labels`` (one per block), rendered as the run that wrote it rendered.
    ``blocks`` may be only the kept ones (what the text holds; nothing else is read), with
    ``indices`` their places among all the document's blocks."""
    keep = kept_labels(include_comments)
    good = Verdict.GOOD.value
    kept: list[Block] = []
    n_good = n_words = 0
    places = range(len(blocks)) if indices is None else indices
    for i, stored, label in zip(places, blocks, labels, strict=True):
        if label == good:
            n_good += 1
            n_words += int(stored.get("n_words") or 0)
        if label in keep:
            kept.append(block_of(i, stored))
    rendered = render(kept, markdown=formats != "text")
    return Rebuilt(
        text="" if formats == "markdown" else rendered.text,
        markdown=None if formats == "text" else rendered.markdown,
        structure=rendered.structure,
        n_good=n_good,
        n_chars=len(rendered.text),
        n_words=n_words,
    )
