"""Labelled dev sets on disk: the WCXB layout and the multilingual dev set.

A dataset folder holds ``ground-truth/<id>.json`` and ``html/<id>.html.gz``. Two ground-truth
shapes are read:

* WCXB: ``ground_truth.main_content`` / ``with`` / ``without`` and ``_internal.page_type.primary``;
  every page is English.
* multilingual: top-level ``language``, and either ``main_content`` or ``with``/``without``
  snippets (``main_content`` is null on snippet-only pages); a top-level ``page_type`` where the
  set has one (magic-html: ``article`` or ``forum``).

Where the folder says so, each page also gets the source dataset and the site it came from (the
multilingual set's ``manifest.jsonl``: ``dataset`` and ``site``; WCXB's ``metadata-*.json``:
``domain``, the source being WCXB itself); otherwise the site is the URL's host. These are what
`warcclean eval --group-by` groups by.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pipeline.evaluate.metrics import tokens_for


class DatasetError(ValueError):
    """A dataset folder or one of its ground-truth files is not in an expected layout."""


@dataclass(frozen=True, slots=True)
class Page:
    """One labelled page. The HTML stays on disk until `read_html` is called."""

    id: str
    html_path: Path
    language: str
    main_content: str | None  # None: snippet-only page, no full-text reference
    with_snippets: tuple[str, ...] = ()
    without_snippets: tuple[str, ...] = ()
    page_type: str | None = None
    url: str | None = None
    source: str | None = None  # the dataset the page was collected from
    site: str | None = None

    def read_html(self) -> bytes:
        return gzip.decompress(self.html_path.read_bytes())

    @property
    def has_reference(self) -> bool:
        """True when the page has some content to find (full text or a ``with`` snippet)."""
        if self.main_content is not None and tokens_for(self.main_content, self.language):
            return True
        return bool(self.with_snippets)


def _as_snippets(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise DatasetError(
            f"{where}: snippets must be a list of strings, got {type(value).__name__}"
        )
    return tuple(s for s in value if s.strip())


def _optional_str(value: Any, where: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise DatasetError(f"{where}: expected a string or null, got {type(value).__name__}")


def load_page(truth_path: Path, html_dir: Path) -> Page:
    """Read one ground-truth file (either layout) into a `Page`."""
    where = str(truth_path)
    try:
        doc = json.loads(truth_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DatasetError(f"{where}: unreadable ground truth ({exc})") from exc
    if not isinstance(doc, dict):
        raise DatasetError(f"{where}: ground truth is not a JSON object")
    page_id = truth_path.name.removesuffix(".json")
    if isinstance(doc.get("ground_truth"), dict):  # WCXB
        truth = doc["ground_truth"]
        page_type = (doc.get("_internal") or {}).get("page_type") or {}
        language = "en"
        ptype = page_type.get("primary") if isinstance(page_type, dict) else None
    else:  # multilingual
        truth = doc
        language = doc.get("language")
        if not isinstance(language, str) or not language:
            raise DatasetError(f"{where}: no 'language' and no WCXB 'ground_truth' object")
        ptype = doc.get("page_type")  # magic-html's "article" or "forum"; absent elsewhere
    main = _optional_str(truth.get("main_content"), where)
    with_ = _as_snippets(truth.get("with"), where)
    without = _as_snippets(truth.get("without"), where)
    if main is None and not with_:
        raise DatasetError(f"{where}: neither main_content nor 'with' snippets")
    html_path = html_dir / f"{page_id}.html.gz"
    if not html_path.is_file():
        raise DatasetError(f"{where}: no HTML file {html_path}")
    return Page(
        id=page_id,
        html_path=html_path,
        language=language,
        main_content=main,
        with_snippets=with_,
        without_snippets=without,
        page_type=ptype if isinstance(ptype, str) else None,
        url=_optional_str(doc.get("url"), where),
    )


def load_dataset(directory: str | Path, ids: Iterable[str] | None = None) -> list[Page]:
    """Load a dataset folder's pages, sorted by id; only ``ids`` when given (all must exist)."""
    root = Path(directory)
    truth_dir, html_dir = root / "ground-truth", root / "html"
    if not truth_dir.is_dir() or not html_dir.is_dir():
        raise DatasetError(f"{root}: expected 'ground-truth/' and 'html/' folders")
    if ids is None:
        paths = sorted(truth_dir.glob("*.json"))
    else:
        wanted = list(dict.fromkeys(ids))
        missing = [i for i in wanted if not (truth_dir / f"{i}.json").is_file()]
        if missing:
            shown = ", ".join(missing[:5]) + (" …" if len(missing) > 5 else "")
            raise DatasetError(f"{root}: {len(missing)} page id(s) not in the dataset: {shown}")
        paths = sorted(truth_dir / f"{i}.json" for i in wanted)
    if not paths:
        raise DatasetError(f"{root}: no ground-truth files")
    origins = _origins(root)
    pages = []
    for path in paths:
        page = load_page(path, html_dir)
        source, site = origins.get(page.id, (None, None))
        pages.append(replace(page, source=source, site=site or _host(page.url)))
    return pages


def _host(url: str | None) -> str | None:
    if not url:
        return None
    try:
        host = urlsplit(url).hostname
    except ValueError:  # e.g. a malformed IPv6 literal: the page is still scored, without a site
        return None
    return host.removeprefix("www.") if host else None


def _origins(root: Path) -> dict[str, tuple[str | None, str | None]]:
    """Page id -> (source dataset, site) from the folder's manifest or metadata, if it has one."""
    out: dict[str, tuple[str | None, str | None]] = {}
    manifest = root / "manifest.jsonl"
    try:
        if manifest.is_file():
            for n, line in enumerate(manifest.read_text(encoding="utf-8").splitlines(), 1):
                if line.strip():
                    row = json.loads(line)
                    if not isinstance(row, dict) or not isinstance(row.get("id"), str):
                        raise DatasetError(f"{manifest}:{n}: not an object with a string 'id'")
                    out[row["id"]] = (_text(row.get("dataset")), _text(row.get("site")))
        for meta in sorted(root.glob("metadata-*.json")):
            doc = json.loads(meta.read_text(encoding="utf-8"))
            if not isinstance(doc, dict):
                raise DatasetError(f"{meta}: not a JSON object of page ids")
            for page_id, info in doc.items():
                domain = info.get("domain") if isinstance(info, dict) else None
                out.setdefault(page_id, ("wcxb", _text(domain)))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{root}: unreadable manifest or metadata ({exc})") from exc
    return out


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def read_ids(path: str | Path) -> list[str]:
    """Page ids from a file: one per line; blank lines and ``#`` comments ignored."""
    ids = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            ids.append(line.removesuffix(".json").removesuffix(".html.gz"))
    return ids
