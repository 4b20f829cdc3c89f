"""Kept blocks inside a dialog that the page holds closed are dropped, in every language.

Pages carry their dialogs in the markup, closed until a script opens one: a shop's "What's wrong
with this listing?" report form, eBay's "Oops! Looks like we're having trouble connecting to our
server" and its image lightbox ("Gallery", "Picture 1 of 4"), a news site's republishing terms, a
glossary's pop-ups. A reader never sees them unless they click, and much of it is link-free prose
that the model keeps; the references we score against mostly leave it out.

A block is dropped when the model kept it and it lies in a *closed dialog*: an element that is a
dialog (``role="dialog"`` or ``"alertdialog"``, ``aria-modal="true"``, or a ``<dialog>``), closed
on load (the ``hidden`` attribute, ``aria-hidden="true"``, an inline ``display: none`` or
``visibility: hidden``, or a ``<dialog>`` without ``open``), inside the body and holding no
``main`` or ``article`` element and no table of two rows or more (a size guide, a spec sheet:
data the page keeps behind a click, which is content; on WCXB's held-out product pages the one
such dialog, a size guide, is in the reference). ``hidden="until-found"`` is not closed: that is
collapsed text the browser's find-in-page opens, meant to be read. A block belongs to a dialog
when its place in the body's text falls within the dialog's text
(`pipeline.rules.comments.in_containers`), as with consent dialogs
(`pipeline.rules.consent_guard`, which takes those whether open or closed). Nothing is dropped
when nothing else would stay kept.

The selector pass runs only where a kept block sits in an element whose class or id names a
modal, popup or overlay (the segmentation walk's "cookie" cue, the consent guard's gate, which
costs nothing here). Measured in BENCHMARKS.md, "Closed dialogs".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from pipeline.rules.consent_guard import drop_inside, outermost
from pipeline.types import Block

# The page note that says kept blocks of closed dialogs were dropped.
CLOSED_DIALOG_DROPPED = "closed_dialog_dropped"

SELECTOR = '[role$="dialog"], [aria-modal="true"], dialog'
_DIALOG_ROLES = frozenset({"dialog", "alertdialog"})
_HIDING_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


def is_closed_dialog(node: Any) -> bool:
    """Whether ``node`` is a dialog the page holds closed (see the module's docstring), before
    the structural checks."""
    attrs = node.attributes
    if node.tag != "dialog" and not (
        attrs.get("role") in _DIALOG_ROLES or attrs.get("aria-modal") == "true"
    ):
        return False
    if "hidden" in attrs and (attrs["hidden"] or "").strip().lower() != "until-found":
        return True
    if attrs.get("aria-hidden") == "true":
        return True
    if _HIDING_STYLE.search(attrs.get("style") or "") is not None:
        return True
    return node.tag == "dialog" and "open" not in attrs


def closed_dialogs(tree: Any) -> list[Any]:
    """The page's outermost closed dialogs, in document order."""
    root = tree.body if tree is not None else None
    if root is None:
        return []
    return outermost(
        root.css(SELECTOR), lambda node: is_closed_dialog(node) and not holds_table(node)
    )


def holds_table(node: Any) -> bool:
    """Whether ``node`` holds a table of two rows or more: a size guide or a spec sheet, data
    the page keeps behind a click, which is content wherever it sits (issue 49)."""
    return any(len(table.css("tr")) >= 2 for table in node.css("table"))


def guard(
    keep: np.ndarray, blocks: Sequence[Block], tree: Any, fields: Sequence[Sequence] | None = None
) -> tuple[np.ndarray, tuple[str, ...]]:
    """``keep`` without the kept blocks of the page's closed dialogs, and the page note when it
    dropped any; unchanged when there is no ``tree`` or nothing else would stay kept.
    ``fields``: the blocks' `pipeline.types.block_fields`, when at hand."""
    return drop_inside(keep, blocks, tree, fields, closed_dialogs, CLOSED_DIALOG_DROPPED)
