"""Immutable values passed between the pipeline's stages.

Every stage boundary has one frozen type, so a value can be shipped to a Dask worker, cached or
compared without anyone mutating it behind another stage's back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, NamedTuple


class StrEnum(str, Enum):
    """`enum.StrEnum` for Python 3.10 as well (values compare and serialise as plain strings)."""

    def __str__(self) -> str:
        return str(self.value)


class CfClass(StrEnum):
    """jusText's context-free class of a block."""

    GOOD = "good"
    NEARGOOD = "neargood"
    SHORT = "short"
    BAD = "bad"


class Verdict(StrEnum):
    """Final label of a block: part of the main content, boilerplate, or a reader comment
    (`pipeline.rules.comments`: kept out of the text unless ``include_comments``)."""

    GOOD = "good"
    BAD = "bad"
    COMMENT = "comment"


class Shape(NamedTuple):
    """Where a block sits in the page's structure, recorded by the segmentation walk
    (`pipeline.html.structure`) and rendered in one place (`pipeline.render`).

    A block outside every structure has no Shape (``Block.shape is None``): most blocks of most
    pages, and the cheapest case. Serials count elements of a kind in document order from 1, per
    page, so blocks of one list item, table or ``<pre>`` can be grouped back without a second walk.
    """

    heading: int = 0  # 1-6 inside <h1>-<h6> (the innermost), 0 otherwise
    # The enclosing lists, outermost first: "u" for <ul>/<menu>, "o" for <ol>.
    lists: str = ""
    item: int = 0  # serial of the innermost enclosing <li>; its first kept block carries the marker
    table: int = 0  # serial of the innermost enclosing <table>, 0 outside tables
    row: int = -1  # 0-based index of the enclosing <tr> in that table, -1 outside rows
    col: int = -1  # 0-based index of the enclosing <td>/<th> in that row (colspan not counted)
    header: bool = False  # the cell is a <th>, or sits in a <thead>
    quote: int = 0  # <blockquote> depth
    pre: int = 0  # serial of the enclosing <pre>, 0 outside
    code_lang: str = ""  # the language the page names for that <pre>'s code ("python"), or ""
    # The <pre> block's text exactly as the page shows it: leading spaces, tabs, blank lines.
    raw: str | None = None
    # Inline code and math inside ``Block.text``: (start, end, kind) character offsets, with kind
    # "code", "math" (inline) or "display_math"; math's text is its LaTeX source.
    spans: tuple[tuple[int, int, str], ...] = ()


class Block(NamedTuple):
    """One text block of a page, as jusText's segmentation defines it.

    A NamedTuple rather than a frozen dataclass: pages have hundreds of blocks and a frozen
    dataclass costs five times as much to build, which showed in the segmentation profile. Densities
    are derived on demand (properties), never stored, so they cannot disagree with the counts they
    come from. ``runs`` is BTE's view of the block (see `pipeline.cleaners.bte`): runs of tokens
    (positive) and tags (negative) in document order, recorded only when asked for.
    ``ancestor_cues`` is what the classes and ids of the elements enclosing the block's element say
    they hold: bit i for `pipeline.html.class_cues.ANCESTOR_CUES`'s cue i. ``shape`` is the block's
    place in the page's structure (headings, lists, tables, code, quotes, math; see `Shape`)."""

    index: int
    text: str
    tag: str
    dom_path: str
    style: str
    is_heading: bool
    n_chars: int
    n_words: int
    n_link_chars: int
    n_tags: int
    n_markup_chars: int
    runs: tuple[int, ...] | None = None
    ancestor_cues: int = 0
    shape: Shape | None = None

    @property
    def link_density(self) -> float:
        return self.n_link_chars / self.n_chars if self.n_chars else 0.0

    @property
    def text_density(self) -> float:
        """Text characters over text plus markup characters (Finn et al.; Kohlschütter)."""
        total = self.n_chars + self.n_markup_chars
        return self.n_chars / total if total else 0.0


def block_fields(blocks: Sequence[Block]) -> list[tuple]:
    """The blocks' fields transposed, one tuple per `Block` field in field order: one C-level
    pass over the NamedTuples instead of a Python loop per field. The learned cleaner builds them
    once for its features, and its page rules read the columns they need from the same list.
    No blocks: a column of none for each field."""
    if not blocks:
        return [()] * len(Block._fields)
    return list(zip(*blocks, strict=True))


def block_column(
    blocks: Sequence[Block], name: str, fields: Sequence[Sequence] | None = None
) -> Sequence[Any]:
    """The field ``name`` of every block, in order: read from ``fields`` (the blocks'
    `block_fields`) when at hand, where a rule that looks at one field of every block finds it
    without an attribute look-up per block."""
    return (block_fields(blocks) if fields is None else fields)[_FIELD_AT[name]]


_FIELD_AT = {name: i for i, name in enumerate(Block._fields)}


class LabeledBlock(NamedTuple):
    """A block with the cleaner's decision and the evidence behind it.

    A NamedTuple for the same reason as `Block`: one is built per block of every page, and a
    frozen dataclass made that a third of the cheaper cleaners' labelling time.
    """

    block: Block
    verdict: Verdict
    cf_class: CfClass | None = None
    score: float | None = None
    stopword_density: float | None = None


@dataclass(frozen=True, slots=True)
class LangGuess:
    """Detected language: an ISO 639 code (``"und"`` when unknown) and its probability."""

    code: str
    prob: float

    @property
    def known(self) -> bool:
        return self.code != "und"


UND = LangGuess("und", 0.0)


class Decoded:
    """HTML text decoded from bytes, with the encoding used and the evidence that chose it
    (``source``: see the pipeline.html.decode docstring).

    ``utf8`` is the page's own bytes when ``html`` is exactly their strict UTF-8 decoding (no
    BOM taken off, no repair), else None. The guard and the parser read those bytes, so most
    pages never need their text: a decoder that has checked the bytes (`Decoded.from_utf8`)
    leaves ``html`` to be decoded on first use, which saves building and dropping 0.2 ms of text
    a page. Immutable, compared and hashed by (html, encoding, source) like the dataclass it was.
    """

    __slots__ = ("_html", "encoding", "source", "utf8")

    _html: str | None
    encoding: str
    source: str
    utf8: bytes | None

    def __init__(self, html: str, encoding: str, source: str) -> None:
        _set = object.__setattr__
        _set(self, "_html", html)
        _set(self, "encoding", encoding)
        _set(self, "source", source)
        _set(self, "utf8", None)

    @classmethod
    def from_utf8(cls, data: bytes, source: str, html: str | None = None) -> Decoded:
        """The decoding of ``data``, which the caller has checked is valid UTF-8 (``html``: its
        text, when already decoded)."""
        decoded = cls.__new__(cls)
        _set = object.__setattr__
        _set(decoded, "_html", html)
        _set(decoded, "encoding", "utf-8")
        _set(decoded, "source", source)
        _set(decoded, "utf8", data)
        return decoded

    @property
    def html(self) -> str:
        if self._html is None:
            object.__setattr__(self, "_html", self.utf8.decode("utf-8"))  # type: ignore[union-attr]
        return self._html  # type: ignore[return-value]

    def with_source(self, source: str) -> Decoded:
        """The same decoding with another ``source``, still undecoded if it was."""
        if self.utf8 is not None:
            return Decoded.from_utf8(self.utf8, source, self._html)
        return Decoded(self.html, self.encoding, source)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Decoded is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Decoded is immutable: cannot delete {name!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        if self.utf8 is not None:
            return (Decoded.from_utf8, (self.utf8, self.source))
        return (Decoded, (self.html, self.encoding, self.source))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Decoded):
            return NotImplemented
        return (self.encoding, self.source, self.html) == (other.encoding, other.source, other.html)

    def __hash__(self) -> int:
        return hash((self.html, self.encoding, self.source))

    def __repr__(self) -> str:
        return f"Decoded(html={self.html!r}, encoding={self.encoding!r}, source={self.source!r})"


# A note of a `CleanResult` whose text or Markdown was cut at its cap (`pipeline.clean`).
TRUNCATED_OUTPUT = "truncated_output"


@dataclass(frozen=True, slots=True)
class PageMetadata:
    """What a page says about itself in its ``<head>`` (`pipeline.html.metadata` reads it, and
    documents which source wins where several say it): None where the page does not say.

    Every value is one line of text: white space collapsed, control characters dropped, cut at
    `pipeline.html.metadata.CAPS` characters. ``published`` is ISO 8601 as precise as the page
    gives it (``2025-09-04``, ``2025-09-04T10:00:00``, ``2025-09-04T10:00:00+02:00``);
    ``canonical_url`` an absolute http(s) address.
    """

    title: str | None = None
    description: str | None = None
    author: str | None = None
    published: str | None = None
    site_name: str | None = None
    canonical_url: str | None = None


NO_METADATA = PageMetadata()


@dataclass(frozen=True, slots=True)
class CleanResult:
    """What a cleaner made of one page."""

    text: str
    blocks: tuple[LabeledBlock, ...]
    language: LangGuess
    encoding: str
    encoding_source: str
    cleaner: str
    stoplist: str | None  # stoplist language used, None for language-independent mode
    params: tuple[tuple[str, Any], ...] = ()
    # What the cleaner says about the page as a whole (e.g. `pipeline.rules.link_guard`'s
    # notes); the docs' `notes` column carries them after the reader's.
    notes: tuple[str, ...] = ()
    # The kept blocks as Markdown (`pipeline.render`): headings, nested lists, GFM tables, fenced
    # code with its exact whitespace, quotes and LaTeX math. "" when Markdown was not asked for.
    markdown: str = ""
    # Which of "code", "math", "table" the kept content holds, sorted (for counts and filters).
    structure: tuple[str, ...] = ()
    # Title, description, author, publication date, site name and canonical address, as the
    # page's head states them (`pipeline.html.metadata`).
    metadata: PageMetadata = NO_METADATA
    # What kind of page this is (`pipeline.html.page_type`): one of WCXB's seven types,
    # "article", "forum", "product", "collection", "listing", "documentation", "service", and the
    # classifier's probability for it; None when no classifier ran.
    page_type: str | None = None
    page_type_prob: float | None = None

    @property
    def n_good(self) -> int:
        return sum(1 for b in self.blocks if b.verdict is Verdict.GOOD)


@dataclass(frozen=True, slots=True)
class RawPage:
    """One WARC/ARC record's payload and the metadata needed to fetch the original back.

    ``warc_offset`` and ``warc_length`` are byte positions in the file as stored (compressed when
    the file is), so ``Range: bytes=offset-(offset+length-1)`` returns exactly this record.
    """

    warc_path: str
    record_id: str
    record_type: str
    warc_offset: int
    warc_length: int
    url: str
    warc_date: str
    http_status: int | None
    content_type: str | None
    http_headers: tuple[tuple[str, str], ...]
    body: bytes
    truncated: bool
    # How the reader got this body (pipeline.warc.reader), e.g. "te_chunked_not_chunked",
    # "ce_gzip_not_encoded", "ce_unsupported:zstd", "truncated_by_file", "truncated_by_cap",
    # "truncated_body_encoding", "html_by_sniffing", "content_length_mismatch",
    # "offset_space:gunzip@N" (offsets count in the gunzipped stream starting at stored byte N).
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Rejected:
    """A record that produced no document, and why (every record read ends as a row or this)."""

    warc_path: str
    record_id: str | None
    record_type: str
    warc_offset: int | None
    url: str | None
    reason: str
    detail: str
    warc_length: int | None = None  # with warc_offset, the byte range of the record as stored
