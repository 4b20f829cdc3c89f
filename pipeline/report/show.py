"""What ``warcclean show`` does: a page file, or a record of a run, to the viewer's HTML."""

from __future__ import annotations

import json
from typing import Any

from pipeline.config import Limits
from pipeline.report.fetch import RecordError, fetch_record, find_record, run_cleaner
from pipeline.report.page_view import PageView, render_page, view_of_result, view_of_row
from pipeline.types import CleanResult, RawPage


def _clean(
    html: bytes,
    *,
    cleaner: str,
    params: dict[str, Any],
    url: str | None = None,
    http_headers: dict[str, str] | None = None,
    language: str | None = None,
) -> CleanResult:
    from pipeline.clean import clean_html
    from pipeline.errors import PageTimeout, PageTooComplex

    try:
        return clean_html(
            html,
            url=url,
            http_headers=http_headers,
            cleaner=cleaner,
            language=language,
            **params,
        )
    except (PageTooComplex, PageTimeout) as exc:
        raise RecordError(f"{cleaner} cannot clean this page: {exc}") from None


def show_html(
    html: bytes,
    *,
    title: str,
    cleaner: str,
    params: dict[str, Any] | None = None,
    url: str | None = None,
    language: str | None = None,
    compare: str | None = None,
) -> str:
    """The viewer for one page's bytes, cleaned with ``cleaner`` (and ``compare`` beside it)."""
    params = params or {}
    extra = [("url", url)] if url else []
    result = _clean(html, cleaner=cleaner, params=params, url=url, language=language)
    view = view_of_result(result, title=title, extra_fields=extra)
    other = None
    if compare is not None:
        # The same language as the first cleaner saw, so the two differ only in the cleaner.
        second = _clean(html, cleaner=compare, params={}, url=url, language=result.language.code)
        other = view_of_result(second, title=title, extra_fields=extra)
    return render_page(view, other)


def show_record(
    output: str,
    record_id: str,
    *,
    compare: str | None = None,
    storage_options: dict[str, Any] | None = None,
) -> str:
    """The viewer for one record of the run that wrote ``output``.

    A document shows as the run stored it (labels, scores, features), with the features only
    the page tells added when cleaning the fetched record again agrees. A rejected record that
    is a page is cleaned again with the run's cleaner, to show why it gave no document.
    """
    found = find_record(output, record_id, storage_options=storage_options)
    row = found.row
    if row.get("warc_offset") is None or row.get("warc_length") is None:
        raise RecordError(
            f"record {record_id} was rejected ({row.get('reason')}: {row.get('detail')}) "
            "before its place in the file was known; there is no page to show"
        )
    item = fetch_record(
        str(row["warc_path"]),
        int(row["warc_offset"]),
        int(row["warc_length"]),
        record_id=record_id,
        notes=tuple(row.get("notes") or ()),
        storage_options=storage_options,
        # The job's default cap: a body the run cut is cut the same way here.
        max_body_bytes=Limits().max_body_bytes,
    )
    if not isinstance(item, RawPage):
        raise RecordError(
            f"record {record_id} holds no HTML page: the reader rejects it as {item.reason} "
            f"({item.detail}); the run recorded {row.get('reason', item.reason)}"
        )
    title = f"{item.url} · record {record_id} · {item.warc_path} @ {item.warc_offset}"
    headers = dict(item.http_headers)
    notices = []
    if found.duplicates:
        notices.append(
            f"{found.duplicates} more rows carry this record id (the crawl holds the record "
            f"more than once); this is the one in {found.path}."
        )
    if found.table == "docs":
        cleaner = str(row["cleaner"])
        params = json.loads(row.get("cleaner_params") or "{}")
        recleaned = _recleaned(item, cleaner, params, headers, notices)
        view: PageView = view_of_row(row, title=title, recleaned=recleaned, notices=notices)
        language = str(row.get("language") or "") or None
    else:
        cleaner, params, how = run_cleaner(output, found, storage_options)
        notices.insert(
            0,
            f"The run rejected this record: {row.get('reason')} ({row.get('detail')}). Below "
            f"it is cleaned again now with {cleaner} {json.dumps(params)} ({how}).",
        )
        result = _clean(
            item.body, cleaner=cleaner, params=params, url=item.url, http_headers=headers
        )
        view = view_of_result(
            result,
            title=title,
            extra_fields=[(k, v) for k, v in row.items()],
            notices=notices,
        )
        language = result.language.code
    other = None
    if compare is not None:
        second = _clean(
            item.body,
            cleaner=compare,
            params={},
            url=item.url,
            http_headers=headers,
            language=language if language and language != "und" else None,
        )
        other = view_of_result(second, title=title, extra_fields=[("url", item.url)])
    return render_page(view, other)


def _recleaned(
    page: RawPage,
    cleaner: str,
    params: dict[str, Any],
    headers: dict[str, str],
    notices: list[str],
) -> CleanResult | None:
    try:
        return _clean(page.body, cleaner=cleaner, params=params, url=page.url, http_headers=headers)
    except (RecordError, ValueError, TypeError) as exc:
        # The stored row is still worth showing; only the extra features are lost.
        notices.append(f"Cleaning the fetched record again failed ({exc}); shown as stored.")
        return None
