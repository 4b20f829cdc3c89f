"""One page in, labelled blocks and clean text out: the library's single entry point."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pipeline import langid, stoplists
from pipeline.cleaners import make_cleaner
from pipeline.config import Limits
from pipeline.decode import decode_html
from pipeline.segment import PageTooComplex, parse, segment
from pipeline.types import CleanResult, Decoded, LangGuess, Verdict

DEFAULT_CLEANER = "justext"


def _content_type(http_headers: Mapping[str, str] | None) -> str | None:
    if not http_headers:
        return None
    for name, value in http_headers.items():
        if name.lower() == "content-type":
            return value
    return None


def clean_html(
    html: str | bytes,
    *,
    url: str | None = None,
    http_headers: Mapping[str, str] | None = None,
    cleaner: str = DEFAULT_CLEANER,
    language: str | None = None,
    limits: Limits | None = None,
    **params: Any,
) -> CleanResult:
    """Clean one page.

    ``html`` is decoded as a browser would when it is bytes (BOM, HTTP charset, meta, detection).
    ``language`` is an ISO 639 code that skips detection; ``params`` go to the cleaner (see
    `pipeline.cleaners.available`). Raises `PageTooComplex` when a cap in ``limits`` is exceeded.
    ``url`` is accepted for callers that have it; no cleaner uses it yet.
    """
    del url
    limits = limits or Limits()
    if isinstance(html, bytes):
        decoded = decode_html(html, _content_type(http_headers))
    else:
        decoded = Decoded(html, "utf-8", "str")
    impl = make_cleaner(cleaner, **params)
    blocks = segment(
        parse(decoded.html),
        max_nodes=limits.max_nodes,
        record_runs=getattr(impl, "needs_runs", False),
    )
    if limits.max_blocks is not None and len(blocks) > limits.max_blocks:
        raise PageTooComplex(f"page has {len(blocks)} blocks, more than {limits.max_blocks}")
    if language is not None:
        guess = LangGuess(langid.normalize_code(language), 1.0)
    else:
        guess = langid.detect_blocks(blocks)
    stoplist = stoplists.stoplist(guess.code)
    labeled = impl.label(blocks, stoplist)
    text = "\n\n".join(lb.block.text for lb in labeled if lb.verdict is Verdict.GOOD)
    return CleanResult(
        text=text,
        blocks=tuple(labeled),
        language=guess,
        encoding=decoded.encoding,
        encoding_source=decoded.source,
        cleaner=impl.name,
        stoplist=guess.code if stoplist is not None else None,
        params=tuple(sorted(impl.params().items())),
    )
