"""One page in, labelled blocks and clean text out: the library's single entry point."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pipeline.cleaners.registry import DEFAULT_CLEANER, Cleaner, make_cleaner
from pipeline.config import Limits
from pipeline.errors import PageTooComplex
from pipeline.html import guard, page_type
from pipeline.html.decode import decode_html
from pipeline.html.guard import Deadline
from pipeline.html.metadata import NO_HEAD, HeadFacts, read_head
from pipeline.html.page_cues import page_cues
from pipeline.html.segment import parse, segment
from pipeline.lang import langid, stoplists
from pipeline.render.blocks import render
from pipeline.render.table_units import keep_whole
from pipeline.rules import fragments, recommendations, signatures
from pipeline.rules.comments import label_comments
from pipeline.types import (
    TRUNCATED_OUTPUT,
    Block,
    CleanResult,
    Decoded,
    LabeledBlock,
    LangGuess,
    Verdict,
)

# Limits is frozen, so one default instance serves every call (its validation costs per build).
_DEFAULT_LIMITS = Limits()

# A page's text and its Markdown are each at most this many characters per byte of its markup
# (and at most `Limits.max_body_bytes`, at least `OUTPUT_MIN`): a page's words come from its
# bytes, and even Markdown's escapes, quote markers and list indents stay well within four
# characters a byte on real pages; a pathological one (a ragged table, a deep nest of quotes
# around many lines) is cut there, noted ``truncated_output``, and flagged ``truncated``.
OUTPUT_PER_BYTE = 4
OUTPUT_MIN = 4096


def output_cap(markup_size: int, limits: Limits) -> int:
    """How many characters a page of ``markup_size`` bytes may give as text, and as Markdown."""
    cap = max(OUTPUT_PER_BYTE * markup_size, OUTPUT_MIN)
    if limits.max_body_bytes is not None:
        cap = min(cap, max(limits.max_body_bytes, OUTPUT_MIN))
    return cap


# Told the name of each stage a page enters (see `report_stages`); None costs one check each.
_stage_hook: Callable[[str], None] | None = None


def report_stages(hook: Callable[[str], None] | None) -> None:
    """Have ``hook`` called with each stage's name ("decode", "guards", "parse", "segmentation",
    "language", "labelling") as a page enters it, in this process; None stops it.

    The job's supervised child (`pipeline.supervise`) uses it to say in which stage a page
    that it had to kill was: the kill itself comes from outside, whatever the stage.
    """
    global _stage_hook
    _stage_hook = hook


def _content_type(http_headers: Mapping[str, str] | None) -> str | None:
    if not http_headers:
        return None
    for name, value in http_headers.items():
        if name.lower() == "content-type":
            return value
    return None


@functools.lru_cache(maxsize=32)
def _cached_cleaner(name: str, params_json: str) -> Cleaner:
    return make_cleaner(name, **json.loads(params_json))


def get_cleaner(name: str, params: Mapping[str, Any]) -> Cleaner:
    """The cleaner ``name`` with ``params``, built once per process.

    Learned cleaners load a model when built; a job calls this for every page, so instances are
    cached, keyed by the parameters' JSON (which also rejects parameters that are not plain data).
    """
    if not params:  # the usual call: skip serialising
        return _cached_cleaner(name, "{}")
    try:
        key = json.dumps(dict(params), sort_keys=True)
    except TypeError as exc:
        raise ValueError(f"cleaner parameters must be plain data (JSON): {exc}") from None
    return _cached_cleaner(name, key)


def clean_html(
    html: str | bytes,
    *,
    url: str | None = None,
    http_headers: Mapping[str, str] | None = None,
    cleaner: str = DEFAULT_CLEANER,
    language: str | None = None,
    limits: Limits | None = None,
    markdown: bool = True,
    include_comments: bool = False,
    classify_page: bool = False,
    **params: Any,
) -> CleanResult:
    """Clean one page.

    ``html`` is decoded as a browser would when it is bytes (BOM, HTTP charset, meta, detection).
    ``language`` is an ISO 639 code that skips detection; ``params`` go to the cleaner (see
    `pipeline.cleaners.registry.available`). Raises `PageTooComplex` when a size cap in ``limits``
    is exceeded and `PageTimeout` when ``limits.max_seconds`` is (see `pipeline.config.Limits`).
    ``url`` is the page's address, when known: the learned cleaner reads its shape
    (`pipeline.html.page_cues`). ``markdown=False`` skips rendering `CleanResult.markdown` (the
    text alone costs less). Blocks of reader comments are labelled ``comment``
    (`pipeline.rules.comments`) and left out of the text and Markdown unless
    ``include_comments``. ``classify_page`` names the page's type (`CleanResult.page_type`,
    `pipeline.html.page_type`), which adds about a tenth to a page's cleaning: off by
    default."""
    limits = limits or _DEFAULT_LIMITS
    deadline = Deadline(limits.max_seconds)
    if _stage_hook is not None:
        _stage_hook("decode")
    if isinstance(html, bytes):
        decoded = decode_html(html, _content_type(http_headers))
    else:
        decoded = Decoded(html, "utf-8", "str")
    return clean_decoded(
        decoded,
        cleaner=cleaner,
        language=language,
        limits=limits,
        params=params,
        deadline=deadline,
        url=url,
        markdown=markdown,
        include_comments=include_comments,
        classify_page=classify_page,
    )


def label_blocks(
    impl: Cleaner,
    blocks: Sequence[Block],
    stoplist: frozenset[str] | None,
    tree: Any,
    url: str | None,
    language: str,
    head: HeadFacts | None = None,
    cues: Any = None,
) -> tuple[list[LabeledBlock], tuple[str, ...]]:
    """``impl``'s labels for the page's blocks and its notes about the page, given what the
    cleaner declares it needs (`pipeline.cleaners.registry.Cleaner`): ``tree`` is the parsed page
    the cues are read from, ``head`` what its head says when the caller has read it
    (`pipeline.html.metadata.read_head`; None: read here if the cleaner needs it), ``cues`` its
    `page_cues` when already read (None: read here if the cleaner needs them)."""
    extra: dict[str, Any] = {}
    needs_head = getattr(impl, "needs_head", False)
    needs_cues = getattr(impl, "needs_page_cues", False)
    if head is None and (needs_head or (needs_cues and cues is None)):
        head = read_head(tree, url) if tree is not None else NO_HEAD
    if needs_cues:
        extra["cues"] = page_cues(tree, url, head) if cues is None else cues
    if needs_head:
        extra["head"] = head
    if getattr(impl, "needs_language", False):
        extra["language"] = language
    if getattr(impl, "needs_tree", False):
        # the paper variants cut the parsed page into their own units (source lines, paragraphs)
        extra["tree"] = tree
    label_noted = getattr(impl, "label_noted", None)
    if label_noted is not None:
        return label_noted(blocks, stoplist, **extra)
    return impl.label(blocks, stoplist, **extra), ()


def clean_decoded(
    decoded: Decoded,
    *,
    cleaner: str = DEFAULT_CLEANER,
    language: str | None = None,
    limits: Limits | None = None,
    params: Mapping[str, Any] | None = None,
    deadline: Deadline | None = None,
    url: str | None = None,
    markdown: bool = True,
    include_comments: bool = False,
    classify_page: bool = False,
) -> CleanResult:
    """`clean_html` from decoded text on: guards, parse, segment, detect, label.

    When ``decoded.utf8`` holds the page's own UTF-8 bytes, the guard and the parser read them
    directly: selectolax encodes text input to UTF-8 before parsing, which would rebuild those
    very bytes (a fifth of the parse time), and the text itself is then never built.

    A page whose markup nests deeper than ``limits.isolate_depth`` is parsed in a child process
    killed at the deadline (`pipeline.sandbox`); every other page runs here, with the deadline
    checked between stages.
    """
    limits = limits or _DEFAULT_LIMITS
    params = dict(params or {})
    deadline = deadline or Deadline(limits.max_seconds)
    utf8 = decoded.utf8
    if _stage_hook is not None:
        _stage_hook("guards")
    estimate = guard.estimate(
        decoded.html if utf8 is None else utf8, max_attributes=limits.max_attributes
    )
    guard.check_nodes(estimate, limits.max_nodes)
    guard.check_attributes(estimate, limits.max_attributes)
    impl = get_cleaner(cleaner, params)
    if limits.max_seconds is not None and guard.needs_isolation(estimate, limits.isolate_depth):
        from pipeline.sandbox import clean_isolated  # only risky pages pay for the import

        return clean_isolated(
            decoded,
            cleaner=cleaner,
            language=language,
            limits=limits,
            params=params,
            timeout=deadline.remaining(),
            url=url,
            markdown=markdown,
            include_comments=include_comments,
            classify_page=classify_page,
        )
    deadline.check("decode")
    if _stage_hook is not None:
        _stage_hook("parse")
    tree = parse(decoded.html if utf8 is None else utf8)
    # One pass over the head for the page's metadata, the cleaner's page cues and the comment
    # step's forum types.
    head = read_head(tree, url)
    deadline.check("parse")
    if _stage_hook is not None:
        _stage_hook("segmentation")
    blocks = segment(
        tree,
        max_nodes=limits.max_nodes,
        record_runs=getattr(impl, "needs_runs", False),
        deadline=deadline,
    )
    deadline.check("segmentation")
    if limits.max_blocks is not None and len(blocks) > limits.max_blocks:
        raise PageTooComplex(f"page has {len(blocks)} blocks, more than {limits.max_blocks}")
    if _stage_hook is not None:
        _stage_hook("language")
    if language is not None:
        guess = LangGuess(langid.normalize_code(language), 1.0)
    else:
        guess = langid.detect_blocks(blocks)
    stoplist = stoplists.stoplist(guess.code)
    if _stage_hook is not None:
        _stage_hook("labelling")
    # The page's kind is a fact about the page, reported whichever cleaner labels it
    # (`pipeline.html.page_type`), when asked for: it adds about a tenth to a page's
    # cleaning (bench/page_type_cost.py). Its cues are read once for it and the cleaner.
    cues = page_cues(tree, url, head) if classify_page else None
    kind = (
        page_type.classify(
            blocks, cues, decoded.html if utf8 is None else utf8, url, tree, guess.code
        )
        if classify_page
        else None
    )
    labeled, notes = label_blocks(impl, blocks, stoplist, tree, url, guess.code, head, cues)
    deadline.check("labelling")
    labeled, comment_notes = label_comments(keep_whole(labeled), tree, url, head.schema_types)
    notes += comment_notes
    if getattr(impl, "drops_signatures", False):
        # On a forum thread, the posts' signatures (`pipeline.rules.signatures`).
        labeled, dropped = signatures.drop(labeled, tree, url, head)
        notes += dropped
    if getattr(impl, "drops_recommendations", False):
        # On a product page, the carousels of other products (`pipeline.rules.recommendations`).
        labeled, dropped = recommendations.drop(labeled, url, head)
        notes += dropped
    if getattr(impl, "drops_fragments", False):
        # On what the page finally keeps, its tables decided whole (`pipeline.rules.fragments`).
        labeled, emptied = fragments.drop(labeled)
        notes += emptied
    kept = (Verdict.GOOD, Verdict.COMMENT) if include_comments else (Verdict.GOOD,)
    rendered = render(
        [lb.block for lb in labeled if lb.verdict in kept],
        markdown=markdown,
        max_chars=output_cap(len(decoded.html if utf8 is None else utf8), limits),
    )
    if rendered.truncated:
        notes = (*notes, TRUNCATED_OUTPUT)
    return CleanResult(
        text=rendered.text,
        blocks=tuple(labeled),
        language=guess,
        encoding=decoded.encoding,
        encoding_source=decoded.source,
        cleaner=impl.name,
        stoplist=guess.code if stoplist is not None else None,
        params=tuple(sorted(impl.params().items())),
        notes=notes,
        markdown=rendered.markdown,
        structure=rendered.structure,
        metadata=head.metadata,
        page_type=kind.name if kind is not None else None,
        page_type_prob=kind.prob if kind is not None else None,
    )
