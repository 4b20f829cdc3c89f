"""What kind of page this is: WCXB's seven page types, predicted from what the page says about
itself and from the shape of its blocks.

Most of a crawl is not news articles, and what counts as a page's content follows its kind: a
product page's content is its name, price and facts, not the carousel of other products around
them, while a collection's repeated items are its content. The type is a page-level fact reported
for every page, whichever cleaner labels it (`pipeline.types.CleanResult.page_type`, the output's
``page_type`` column, the run report), so users can filter a corpus by it. The block model does not
read it yet: its probabilities as page columns need a retrain of `neighbours` and
`neighbours-fast` (issue 49).

The evidence (`TYPE_FEATURE_NAMES`), all of it cheap beside the cleaning:

- the head's cues (`pipeline.html.page_cues.page_cues`: Open Graph and JSON-LD types, the URL's
  shape), the schema.org types named anywhere in the markup, counted
  (`pipeline.html.page_cues.schema_type_counts`), the words of the URL and the title that name a
  kind of page (`url_kind_words`, `title_kind_words`);
- what the blocks hold: prices, the phrases of shops, forums, catalogues, manuals, service pages
  and articles among the short blocks (in English: WCXB's pages are English; elsewhere they are
  simply absent and the other evidence decides);
- the page's shape: repeated sibling structures (blocks sharing a tag path and class string four
  times or more: a catalogue's cards, a forum's posts), headings, code, table cells, list items,
  its size and link density;
- whether the page is in English, as the cleaner detected its language.

The classifier is a multinomial logistic regression over those columns, standardised, trained
on the WCXB dev pages' types and magic-html's articles and forum threads in 19 languages by
`jobs/train_page_type.py` and shipped as data
(`pipeline/models/page-type.json`): a matrix product and a softmax per page. Measured with
folds grouped by site and on the held-out test sites (BENCHMARKS.md, "Page types").
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from pipeline.html.page_cues import (
    PAGE_CUE_NAMES,
    SCHEMA_COUNTED,
    TITLE_KIND_NAMES,
    URL_KIND_NAMES,
    page_cues,
    schema_type_counts,
    title_kind_words,
    url_kind_words,
)
from pipeline.types import Block, block_column, block_fields

# The phrase counts as one C loop (markup_scan.pyx), where the build compiled it; tests set this
# to None to compare the two.
try:
    from pipeline.html.markup_scan import count_each as _count_each
except ModuleNotFoundError as exc:  # an install without a C compiler
    if exc.name != "pipeline.html.markup_scan":
        raise
    _count_each = None

# WCXB's seven page types, in the order of the classifier's classes.
PAGE_TYPES: tuple[str, ...] = (
    "article",
    "forum",
    "product",
    "collection",
    "listing",
    "documentation",
    "service",
)

MODEL_PATH = Path(__file__).resolve().parents[1] / "models" / "page-type.json"
FORMAT = "warcclean-page-type/1"

# Phrases that mark a kind of page, looked for in the page's short blocks (buttons, labels,
# counters), lower-cased: each family's column is log(1 + occurrences).
PHRASES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "shop",
        (
            *("add to cart", "add to bag", "add to basket", "buy now", "in stock"),
            *("out of stock", "add to wishlist", "free shipping", "quantity", "sku"),
        ),
    ),
    ("forum", ("reply", "replies", "posted", "joined", "quote", "views", "thread", "members")),
    (
        "catalogue",
        ("sort by", "filter", "results", "showing", "items", "products", "load more", "view all"),
    ),
    (
        "manual",
        ("parameters", "returns", "example", "syntax", "documentation", "install", "usage"),
    ),
    (
        "service",
        (
            *("contact us", "get started", "request a demo", "free trial", "pricing"),
            *("our team", "clients", "services", "book a", "get a quote"),
        ),
    ),
    ("article", ("read more", "min read", "published", "updated", "comments")),
)
_PHRASE_KEYS = tuple(p.encode("ascii") for _, words in PHRASES for p in words)
# Blocks shorter than this are the page's labels and buttons, where the phrases are looked for.
SHORT_BLOCK = 60
# A block this short holding a currency amount is a price.
PRICE_BLOCK = 40
# A tag path and class string shared by this many blocks is a repeated structure.
REPEAT = 4
_CURRENCY = frozenset("$€£¥₹")

SHAPE_NAMES: tuple[str, ...] = (
    "prices",
    "price_share",
    *(f"phrase_{name}" for name, _ in PHRASES),
    "repeated_groups",
    "largest_group_share",
    "repeated_share",
    "subheadings",
    "code_blocks",
    "table_cells",
    "list_items",
    "log_blocks",
    "log_chars",
    "link_density",
    "longest_share",
)
# Whether the page is in English: the phrases are English, so on other pages their absence says
# nothing, and the model has to know which pages those are (the language the cleaner detected).
LANGUAGE_NAMES: tuple[str, ...] = ("language_english",)
TYPE_FEATURE_NAMES: tuple[str, ...] = (
    *PAGE_CUE_NAMES,
    *(f"schema_{name}" for name in SCHEMA_COUNTED),
    *URL_KIND_NAMES,
    *TITLE_KIND_NAMES,
    *SHAPE_NAMES,
    *LANGUAGE_NAMES,
)


class PageType(NamedTuple):
    """The predicted type of a page: its name (one of `PAGE_TYPES`), that name's probability, and
    every type's probability in `PAGE_TYPES` order."""

    name: str
    prob: float
    probs: tuple[float, ...]


class PageTypeError(ValueError):
    """A page-type model file is missing, malformed, or was built for other columns."""


def _has_price(text: str) -> bool:
    """Whether a short text holds a currency sign next to a digit ("$19.99", "€ 5", "19 €")."""
    for i, ch in enumerate(text):
        if ch in _CURRENCY:
            before = text[i - 1] if i else ""
            after = text[i + 1 : i + 3].lstrip()[:1]
            if after.isdigit() or before.isdigit() or text[i - 2 : i - 1].isdigit():
                return True
    return False


def _phrase_counts(text: str) -> list[int]:
    """For each family of `PHRASES`, how often its phrases occur in ``text``: each phrase's
    non-overlapping occurrences (`str.count`), summed. The phrases are ASCII, so their counts in
    the text's UTF-8 bytes are the same, and the compiled count makes one pass for all of them."""
    if _count_each is None:
        return [sum(text.count(p) for p in words) for _, words in PHRASES]
    counts = _count_each(text.encode("utf-8", "surrogatepass"), _PHRASE_KEYS)
    out, at = [], 0
    for _, words in PHRASES:
        out.append(sum(counts[at : at + len(words)]))
        at += len(words)
    return out


def shape_features(blocks: Sequence[Block]) -> np.ndarray:
    """The `SHAPE_NAMES` columns of a page: prices and marker phrases among its short blocks, its
    repeated structures, and its size."""
    n = len(blocks)
    if not n:
        return np.zeros(len(SHAPE_NAMES))
    # Read by columns (`pipeline.types.block_fields`), each counted by a C-level call: a loop
    # over the blocks in Python was 0.15 ms of a page's 0.25.
    fields = block_fields(blocks)
    texts, sizes = block_column(blocks, "text", fields), block_column(blocks, "n_chars", fields)
    tags = block_column(blocks, "tag", fields)
    chars = sum(sizes)
    links = sum(block_column(blocks, "n_link_chars", fields))
    short = [text for text, size in zip(texts, sizes, strict=True) if size < SHORT_BLOCK]
    pricy = [text for text, size in zip(texts, sizes, strict=True) if size < PRICE_BLOCK]
    prices = 0
    joined_pricy = "".join(pricy)
    if any(sign in joined_pricy for sign in _CURRENCY):
        prices = sum(1 for text in pricy if _has_price(text))
    paths, styles = block_column(blocks, "dom_path", fields), block_column(blocks, "style", fields)
    groups = Counter(zip(paths, styles, strict=True))
    shapes = [shape for shape in block_column(blocks, "shape", fields) if shape is not None]
    cells = sum(1 for shape in shapes if shape.table)
    items = sum(1 for shape in shapes if shape.item)
    phrases = [math.log1p(count) for count in _phrase_counts("\n".join(short).lower())]
    sizes_of_groups = groups.values()
    repeated = [k for k in sizes_of_groups if k >= REPEAT]
    return np.array(
        [
            math.log1p(prices),
            prices / n,
            *phrases,
            math.log1p(len(repeated)),
            max(sizes_of_groups) / n,
            sum(repeated) / n,
            math.log1p(tags.count("h2") + tags.count("h3")),
            math.log1p(tags.count("pre")),
            math.log1p(cells),
            math.log1p(items),
            math.log1p(n),
            math.log1p(chars),
            links / chars if chars else 0.0,
            max(sizes) / chars if chars else 0.0,
        ]
    )


def type_features(
    blocks: Sequence[Block],
    cues: np.ndarray | None = None,
    markup: str | bytes | None = None,
    url: str | None = None,
    tree: Any = None,
    language: str | None = None,
) -> np.ndarray:
    """The `TYPE_FEATURE_NAMES` row of one page: ``cues`` its `page_cues` (None: computed from
    ``tree`` and ``url``), ``markup`` its HTML as text or UTF-8 bytes (None: no schema.org type
    counted), ``url`` its address, ``tree`` its parsed HTML (None: no title) and ``language``
    the ISO 639 code of its language as detected (None: not English)."""
    if cues is None:
        cues = page_cues(tree, url)
    counts = schema_type_counts(markup) if markup else np.zeros(len(SCHEMA_COUNTED))
    english = np.array([1.0 if language == "en" else 0.0])
    return np.concatenate(
        (cues, counts, url_kind_words(url), title_kind_words(tree), shape_features(blocks), english)
    )


class PageTypeModel:
    """The shipped classifier: softmax(coef @ (x - mean) / scale + intercept) over `PAGE_TYPES`."""

    def __init__(self, doc: dict[str, Any]) -> None:
        if doc.get("format") != FORMAT:
            raise PageTypeError(f"not a page-type model ({FORMAT!r}): {doc.get('format')!r}")
        if tuple(doc.get("classes", ())) != PAGE_TYPES:
            raise PageTypeError(f"the model's classes are {doc.get('classes')}, not {PAGE_TYPES}")
        if tuple(doc.get("features", ())) != TYPE_FEATURE_NAMES:
            raise PageTypeError(
                "the page-type model was trained on other columns; retrain it with "
                "jobs/train_page_type.py"
            )
        width = len(TYPE_FEATURE_NAMES)
        try:
            mean = np.asarray(doc["mean"], dtype=np.float64)
            scale = np.asarray(doc["scale"], dtype=np.float64)
            coef = np.asarray(doc["coef"], dtype=np.float64)
            intercept = np.asarray(doc["intercept"], dtype=np.float64)
        except (KeyError, TypeError, ValueError) as exc:
            raise PageTypeError(f"malformed page-type model: {exc}") from None
        k = len(PAGE_TYPES)
        if mean.shape != (width,) or scale.shape != (width,) or coef.shape != (k, width):
            raise PageTypeError("the page-type model's arrays do not match its columns")
        if intercept.shape != (k,) or not np.all(np.isfinite(coef)) or np.any(scale <= 0):
            raise PageTypeError("the page-type model's weights are malformed")
        # Standardising folded into the weights: one product per page.
        self.coef = coef / scale
        self.intercept = intercept - self.coef @ mean
        self.metadata: dict[str, Any] = doc.get("metadata", {})

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """Every type's probability for each row of ``x`` (a row, or rows of pages)."""
        z = np.asarray(x, dtype=np.float64) @ self.coef.T + self.intercept
        z = z - z.max(axis=-1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=-1, keepdims=True)

    def classify(self, x: np.ndarray) -> PageType:
        probs = self.probabilities(x)
        i = int(np.argmax(probs))
        return PageType(PAGE_TYPES[i], float(probs[i]), tuple(probs.tolist()))


@lru_cache(maxsize=4)
def load_model(path: str | Path = MODEL_PATH) -> PageTypeModel:
    """The page-type model at ``path`` (the shipped one by default), read once per process."""
    try:
        doc = json.loads(Path(path).read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise PageTypeError(f"cannot read the page-type model {path}: {exc}") from None
    if not isinstance(doc, dict):
        raise PageTypeError(f"{path} is not a page-type model")
    return PageTypeModel(doc)


def classify(
    blocks: Sequence[Block],
    cues: np.ndarray | None = None,
    markup: str | bytes | None = None,
    url: str | None = None,
    tree: Any = None,
    language: str | None = None,
) -> PageType:
    """The page's type by the shipped model, from what `type_features` reads."""
    return load_model().classify(type_features(blocks, cues, markup, url, tree, language))
