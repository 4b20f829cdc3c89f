"""What ``warcclean show`` does: a page file, or a record of a run, to the viewer's HTML."""

from __future__ import annotations

import json
from typing import Any

from pipeline.config import Limits
from pipeline.report.fetch import RecordError, fetch_record, find_record, run_cleaner
from pipeline.report.page_view import PageView, render_page, view_of_result, view_of_row
from pipeline.types import CleanResult, RawPage, Rejected


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
    the page tells added when cleaning the fetched record again agrees. A rejected record is
    always shown with its reason: cleaned again with the run's cleaner when it is a page that
    can be (to show why it gave no document), else with its row and why it cannot be cleaned
    (no HTML page, a page over a cap, a record that cannot be read back).
    """
    found = find_record(output, record_id, storage_options=storage_options)
    row = found.row
    notices = []
    if found.duplicates:
        notices.append(
            f"{found.duplicates} more rows carry this record id (the crawl holds the record "
            f"more than once); this is the one in {found.path}."
        )
    if found.table != "docs":
        return _show_reject(output, found, notices, compare, storage_options)
    if row.get("warc_offset") is None or row.get("warc_length") is None:
        raise RecordError(
            f"document {record_id} has no place in its file (warc_offset, warc_length); "
            "there is no page to fetch"
        )
    item = _fetch(row, record_id, storage_options)
    if not isinstance(item, RawPage):
        raise RecordError(
            f"record {record_id} holds no HTML page: the reader rejects it as {item.reason} "
            f"({item.detail}); the run recorded a document"
        )
    title = f"{item.url} · record {record_id} · {item.warc_path} @ {item.warc_offset}"
    headers = dict(item.http_headers)
    cleaner = str(row["cleaner"])
    params = json.loads(row.get("cleaner_params") or "{}")
    recleaned = _recleaned(item, cleaner, params, headers, notices)
    view: PageView = view_of_row(row, title=title, recleaned=recleaned, notices=notices)
    language = str(row.get("language") or "") or None
    other = None
    if compare is not None:
        other = _compare(item, compare, headers, language)
    return render_page(view, other)


def _fetch(
    row: dict[str, Any], record_id: str, storage_options: dict[str, Any] | None
) -> RawPage | Rejected:
    return fetch_record(
        str(row["warc_path"]),
        int(row["warc_offset"]),
        int(row["warc_length"]),
        record_id=record_id,
        notes=tuple(row.get("notes") or ()),
        storage_options=storage_options,
        # The job's default cap: a body the run cut is cut the same way here.
        max_body_bytes=Limits().max_body_bytes,
    )


def _compare(item: RawPage, compare: str, headers: dict[str, str], language: str | None) -> Any:
    title = f"{item.url} · record {item.record_id} · {item.warc_path} @ {item.warc_offset}"
    second = _clean(
        item.body,
        cleaner=compare,
        params={},
        url=item.url,
        http_headers=headers,
        language=language if language and language != "und" else None,
    )
    return view_of_result(second, title=title, extra_fields=[("url", item.url)])


def _show_reject(
    output: str,
    found: Any,
    notices: list[str],
    compare: str | None,
    storage_options: dict[str, Any] | None,
) -> str:
    """A rejected record: cleaned again to show why when it can be, else its row and why not."""
    row = found.row
    record_id = str(row.get("record_id"))
    rejected = f"The run rejected this record: {row.get('reason')} ({row.get('detail')})."
    fields = [(k, v) for k, v in row.items()]
    title = f"{row.get('url') or '(no url)'} · record {record_id} · {row.get('warc_path')}"

    def alone(why: str) -> str:
        # The row is all there is to show: its reason, and why nothing more can be.
        view = PageView(
            title=title,
            cleaner="not cleaned",
            fields=tuple(fields),
            blocks=(),
            notices=(f"{rejected} {why}", *notices),
            cleaned=False,
        )
        return render_page(view)

    if row.get("warc_offset") is None or row.get("warc_length") is None:
        return alone("It was rejected before its place in the file was known: no page to show.")
    try:
        item = _fetch(row, record_id, storage_options)
    except RecordError as exc:
        return alone(f"The record cannot be read back: {exc}.")
    if not isinstance(item, RawPage):
        return alone(
            f"It holds no HTML page: the reader rejects it as {item.reason} ({item.detail})."
        )
    cleaner, params, how = run_cleaner(output, found, storage_options)
    headers = dict(item.http_headers)
    try:
        result = _clean(
            item.body, cleaner=cleaner, params=params, url=item.url, http_headers=headers
        )
    except RecordError as exc:
        return alone(f"Cleaning it again now with {cleaner} {json.dumps(params)} ({how}): {exc}.")
    notices.insert(
        0, f"{rejected} Below it is cleaned again now with {cleaner} {json.dumps(params)} ({how})."
    )
    title = f"{item.url} · record {record_id} · {item.warc_path} @ {item.warc_offset}"
    view = view_of_result(result, title=title, extra_fields=fields, notices=notices)
    other = None
    if compare is not None:
        language = result.language.code
        other = _compare(item, compare, headers, language)
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
