"""A block whose text is only the address of an image, a video or a sound file is never content.

Shop systems print their products' custom fields into the page, where a theme hides them with a
stylesheet: BigCommerce's ``<dl class="productView-info">`` on WCXB dev 0604 (AS Colour) holds
45 pairs of ``cat_thumb_Bone:`` and a thumbnail's address, 91 kept lines beside a 600-character
product text. A page builder writes a video's address where a player takes its place (WCXB 4908,
a pet insurer's testimonials, 17 ``.mp4`` lines), a forum post the addresses of its attached
images (magic-html en-magic-for-067). A reader never sees such a line as text, and no reference
of the dev sets keeps one; an address a page shows on purpose names a page ("Website:
https://www.nccih.nih.gov"), a document or a script, which this guard leaves alone.

A kept block is dropped when its text is one absolute address (``http://``, ``https://`` or
``//``) whose path ends in a media file's suffix (`MEDIA_SUFFIXES`), alone or after a label of
at most `MAX_LABEL_CHARS` characters ending in ":", and it is not code (``<pre>``); so is the kept
label just before such a block, when it ends in ":" and is that short (a ``<dt>`` beside its
``<dd>``). Measured in BENCHMARKS.md ("Media addresses").
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

import numpy as np

from pipeline.types import Block, block_column

# The page note that says the guard dropped blocks the model kept.
ASSET_URLS_DROPPED = "asset_urls_dropped"

# Files a browser draws or plays, whose address is never what a page means to say. Documents,
# scripts, stylesheets and data files are left out: documentation shows those addresses on
# purpose ("add https://cdn.example.com/lib.min.js to your page").
MEDIA_SUFFIXES = frozenset(
    "jpg jpeg jfif png gif webp avif svg bmp ico tif tiff heic "
    "mp4 m4v webm mov ogv m3u8 mp3 m4a wav ogg oga flac aac".split()
)
MAX_LABEL_CHARS = 60
# An address with a label is a line; a longer block says something else.
MAX_CHARS = 2000


def is_media_address(text: str) -> bool:
    """Whether ``text`` is only a media file's address, alone or after a short label ending in
    ":" (see the module's docstring)."""
    text = text.strip()
    if len(text) > MAX_CHARS:
        return False
    at = _address_start(text)
    if at < 0:
        return False
    label, address = text[:at].rstrip(), text[at:]
    if label and (len(label) > MAX_LABEL_CHARS or not label.endswith(":")):
        return False
    if any(c.isspace() for c in address):
        return False
    try:
        path = urlsplit(address).path
    except ValueError:  # a malformed address ("http://[") is not one a page printed on purpose
        return False
    name = path.rpartition("/")[2]
    return "." in name and name.rpartition(".")[2].lower() in MEDIA_SUFFIXES


def _address_start(text: str) -> int:
    """Where the first address in ``text`` starts: its scheme, or a "//" without one (-1:
    none)."""
    starts = [at for scheme in ("https://", "http://") if (at := text.find(scheme)) >= 0]
    return min(starts) if starts else text.find("//")


def guard(
    keep: np.ndarray,
    blocks: Sequence[Block],
    fields: Sequence[Sequence] | None = None,
) -> tuple[np.ndarray, tuple[str, ...]]:
    """``keep`` without the kept blocks that are a media file's address and their labels just
    before them, and the page note when it dropped any. ``fields``: the blocks' `block_fields`,
    when at hand."""
    texts = block_column(blocks, "text", fields)
    drop: list[int] = []
    for i in np.flatnonzero(keep).tolist():
        text = texts[i]
        # Most kept blocks are prose: no "//", or too long to be one address.
        if "//" not in text or len(text) > MAX_CHARS or not is_media_address(text):
            continue
        shape = blocks[i].shape
        if shape is not None and shape.pre:
            continue
        drop.append(i)
        if i > 0 and keep[i - 1] and _is_label(texts[i - 1]):
            drop.append(i - 1)
    if not drop:
        return keep, ()
    out = keep.copy()
    out[drop] = False
    return out, (ASSET_URLS_DROPPED,)


def _is_label(text: str) -> bool:
    text = text.strip()
    return 0 < len(text) <= MAX_LABEL_CHARS and text.endswith(":")
