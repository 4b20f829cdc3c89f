"""One page's blocks in order as an HTML file: what was kept, what was removed, and why.

A `PageView` is built either from a fresh `CleanResult` (`view_of_result`, for a page file) or
from a stored document row (`view_of_row`, for a record of a run: the labels, scores and
features the run wrote, enriched with what only the page itself tells, such as each block's
class). Both list page-level fields generically, every field of the result or column of the row
but the text and the blocks, so a field added later (a cleaner's fallback, say) shows without a
change here. `render_page` draws one view, or two side by side (``--compare``), with the page's
Markdown in a pane beside the blocks when it has any (shown as text, never rendered).

Every page-derived string (text, URL, class names, error messages) is escaped
(`pipeline.report.markup`); the file holds no script and loads nothing.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pipeline.report.markup import Child, Safe, document, el, fmt_float
from pipeline.report.plural import count
from pipeline.types import CleanResult, LabeledBlock, Verdict

# Shown first, in this order, when a block has them; any other feature follows in its own order.
_FEATURE_ORDER = (
    "site_pages",
    "tag",
    "is_heading",
    "class",
    "class_cues",
    "inside",
    "cf_class",
    "link_density",
    "stopword_density",
    "text_density",
    "n_chars",
    "n_words",
    "n_link_chars",
    "n_tags",
    "n_markup_chars",
    "dom_path",
)
_FEATURE_NAMES = {
    "site_pages": "pages of its site",
    "is_heading": "heading",
    "class": "class",
    "class_cues": "class cues",
    "inside": "inside",
    "cf_class": "jusText class",
    "link_density": "link density",
    "stopword_density": "stopword density",
    "text_density": "text density",
    "n_chars": "chars",
    "n_words": "words",
    "n_link_chars": "link chars",
    "n_tags": "tags",
    "n_markup_chars": "markup chars",
    "dom_path": "path",
}
# Shown in panes of their own, not in the list of page-level fields.
_PAGE_SKIP = frozenset({"text", "blocks", "markdown"})


@dataclass(frozen=True)
class BlockView:
    index: int
    text: str
    kept: bool
    label: str
    score: float | None
    features: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class PageView:
    """What the viewer shows of one page under one cleaner."""

    title: str
    cleaner: str
    fields: tuple[tuple[str, Any], ...]
    blocks: tuple[BlockView, ...]
    notices: tuple[str, ...] = ()
    text: str = field(default="")
    # The page's Markdown ("" when the result or the row has none: ``--formats text``, schema 1).
    markdown: str = ""
    # The document's length in characters: its clean text's (the row's n_chars), the one count
    # the viewer gives (None: counted from ``text``).
    n_chars: int | None = None
    # False for a rejected record that could not be cleaned again: its row, no blocks.
    cleaned: bool = True

    @property
    def kept_text(self) -> str:
        return "\n\n".join(b.text for b in self.blocks if b.kept)


def _ordered(features: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    first = [(k, features[k]) for k in _FEATURE_ORDER if k in features]
    rest = [(k, v) for k, v in features.items() if k not in _FEATURE_ORDER]
    return tuple(first + rest)


def _cue_features(style: str, ancestor_bits: int) -> dict[str, Any]:
    """What the block's own class and its enclosing elements' classes and ids name."""
    from pipeline.html.class_cues import STYLE_CUES, ancestor_cue_bits, ancestor_cue_names

    own_names = {name for name, _ in STYLE_CUES}
    classes = style.partition(".")[2]
    own = [n for n in ancestor_cue_names(ancestor_cue_bits(classes)) if n in own_names]
    return {
        "class": style,
        "class_cues": ", ".join(own) or None,
        "inside": ", ".join(ancestor_cue_names(ancestor_bits)) or None,
    }


def _stopword_densities(result: CleanResult) -> list[float | None]:
    """Each block's stopword density: the cleaner's own, else counted with the page's stoplist
    (as ``warcclean clean`` shows it), else None in language-independent mode."""
    from pipeline.lang.stoplists import stoplist
    from pipeline.lang.words import count_words

    words = stoplist(result.stoplist) if result.stoplist else None
    out: list[float | None] = []
    for lb in result.blocks:
        if lb.stopword_density is not None or words is None:
            out.append(lb.stopword_density)
        else:
            n, stop = count_words(lb.block.text, words)
            out.append(stop / n if n else 0.0)
    return out


def _block_features(lb: LabeledBlock, stop: float | None) -> dict[str, Any]:
    b = lb.block
    return {
        "tag": b.tag,
        "is_heading": b.is_heading,
        **_cue_features(b.style, b.ancestor_cues),
        "cf_class": None if lb.cf_class is None else str(lb.cf_class),
        "link_density": b.link_density,
        "stopword_density": stop,
        "text_density": b.text_density,
        "n_chars": b.n_chars,
        "n_words": b.n_words,
        "n_link_chars": b.n_link_chars,
        "n_tags": b.n_tags,
        "n_markup_chars": b.n_markup_chars,
        "dom_path": b.dom_path,
    }


def _page_value(name: str, value: Any) -> Any:
    if hasattr(value, "code") and hasattr(value, "prob"):  # a LangGuess
        return f"{value.code} (p={value.prob:.3f})"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return ", ".join(f"{k}={v}" for k, v in dataclasses.asdict(value).items())
    if isinstance(value, tuple) and all(isinstance(p, tuple) and len(p) == 2 for p in value):
        if not value and name != "params":
            return value  # an empty tuple of anything else (notes, structure): "–"
        return json.dumps(dict(value), sort_keys=True, default=str)  # params
    return value


def view_of_result(
    result: CleanResult,
    *,
    title: str,
    extra_fields: Iterable[tuple[str, Any]] = (),
    notices: Iterable[str] = (),
) -> PageView:
    """The view of a page cleaned now: every field of ``result`` but its text and blocks."""
    fields = [*extra_fields]
    for f in dataclasses.fields(result):
        if f.name == "metadata":
            # One field each, named as the documents' columns, as a stored row shows them.
            meta = result.metadata
            fields += [(m.name, getattr(meta, m.name)) for m in dataclasses.fields(meta)]
        elif f.name not in _PAGE_SKIP:
            fields.append((f.name, _page_value(f.name, getattr(result, f.name))))
    fields += [
        ("n_blocks", len(result.blocks)),
        ("n_good", result.n_good),
        ("n_chars", len(result.text)),
    ]
    blocks = tuple(
        BlockView(
            index=lb.block.index,
            text=lb.block.text,
            kept=lb.verdict is Verdict.GOOD,
            label=str(lb.verdict),
            score=lb.score,
            features=_ordered(_block_features(lb, stop)),
        )
        for lb, stop in zip(result.blocks, _stopword_densities(result), strict=True)
    )
    return PageView(
        title=title,
        cleaner=result.cleaner,
        fields=tuple(fields),
        blocks=blocks,
        notices=tuple(notices),
        text=result.text,
        markdown=result.markdown,
        n_chars=len(result.text),
    )


def view_of_row(
    row: dict[str, Any],
    *,
    title: str,
    recleaned: CleanResult | None = None,
    notices: Iterable[str] = (),
) -> PageView:
    """The view of a stored document row: the run's own labels, scores and features.

    ``recleaned`` is the same record cleaned again now with the row's cleaner; when it labels
    the same blocks the same way, the features the row does not store (the block's class, the
    cues of its enclosing elements, text density) are added to each block. When it does not,
    the row is shown as stored with a notice saying so.
    """
    notices = list(notices)
    stored = list(row.get("blocks") or ())
    extra: list[dict[str, Any]] | None = None
    if recleaned is not None:
        same = len(recleaned.blocks) == len(stored) and all(
            lb.block.text == b.get("text") and str(lb.verdict) == b.get("label")
            for lb, b in zip(recleaned.blocks, stored, strict=False)
        )
        if same:
            extra = [
                {
                    **_cue_features(lb.block.style, lb.block.ancestor_cues),
                    "text_density": lb.block.text_density,
                    # Only jusText-like cleaners store it; the viewer shows it for every one.
                    "stopword_density": stop
                    if b.get("stopword_density") is None
                    else b["stopword_density"],
                }
                for lb, b, stop in zip(
                    recleaned.blocks, stored, _stopword_densities(recleaned), strict=True
                )
            ]
        else:
            differ = sum(
                1
                for lb, b in zip(recleaned.blocks, stored, strict=False)
                if lb.block.text != b.get("text") or str(lb.verdict) != b.get("label")
            ) + abs(len(recleaned.blocks) - len(stored))
            notices.append(
                f"Cleaning the fetched record again with {recleaned.cleaner} now gives a "
                f"different result ({differ} of {len(stored)} blocks differ: the cleaner, its "
                "version or its parameters changed since the run). Below are the blocks and "
                "labels the run stored."
            )
    blocks = []
    for i, b in enumerate(stored):
        # The shape is what the renderer reads (shown in the Markdown pane), not a feature.
        features = {k: v for k, v in b.items() if k not in ("text", "label", "score", "shape")}
        if extra is not None:
            features.update(extra[i])
        blocks.append(
            BlockView(
                index=i,
                text=str(b.get("text", "")),
                kept=b.get("label") == str(Verdict.GOOD),
                label=str(b.get("label")),
                score=b.get("score"),
                features=_ordered(features),
            )
        )
    fields = tuple((k, v) for k, v in row.items() if k not in _PAGE_SKIP)
    return PageView(
        title=title,
        cleaner=str(row.get("cleaner", "?")),
        fields=fields,
        blocks=tuple(blocks),
        notices=tuple(notices),
        text=str(row.get("text", "")),
        markdown=str(row.get("markdown") or ""),
        n_chars=int(row["n_chars"]) if row.get("n_chars") is not None else None,
    )


# --- rendering ---------------------------------------------------------------------------------

_CSS = """
.legend span { margin-right: 14px; }
.fields { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px;
  margin: 8px 0 16px; }
.fields dt { color: var(--muted); }
.fields dd { margin: 0; overflow-wrap: anywhere; }
.blocks { display: grid; gap: 6px; }
.blocks.two { grid-template-columns: 1fr 1fr; column-gap: 14px; }
.colhead { font-weight: 600; padding: 4px 0; border-bottom: 2px solid var(--line); }
.blk { border: 1px solid var(--line); border-left: 5px solid var(--good); border-radius: 4px;
  padding: 6px 10px; background: #fff; }
.blk.removed { border-left-color: #c5cad3; background: #f3f4f6; }
.blk.removed .txt { color: #7a8190; }
.blk.differs { box-shadow: 0 0 0 2px #f1d58a; }
.blk .head { font-size: 12px; color: var(--muted); margin-bottom: 3px; }
.badge { display: inline-block; font-weight: 700; font-size: 11px; padding: 0 6px;
  border-radius: 3px; margin-right: 6px; color: #fff; background: var(--good); }
.removed .badge { background: #8a93a3; }
.blk[data-label="comment"] .badge { background: #a8741a; }
.blk[data-label="repeat"] .badge { background: #6b5ca5; }
.txt { white-space: pre-wrap; overflow-wrap: anywhere; }
.feat { font-size: 11.5px; color: var(--muted); margin-top: 4px; overflow-wrap: anywhere; }
.feat b { font-weight: 600; color: #3b4252; }
.feat.where { font-size: 11px; margin-top: 1px; opacity: .85; }
.empty { color: var(--muted); font-style: italic; }
.with-md { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 14px;
  align-items: start; }
.with-md.two { grid-template-columns: 1fr 1fr; }
.md-pane { position: sticky; top: 8px; max-height: calc(100vh - 16px); overflow: auto; }
.md-pane pre { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; background: var(--bg);
  padding: 10px; border: 1px solid var(--line); border-radius: 4px; font-size: 12.5px; }
.md-pane .colhead { margin-bottom: 6px; }
pre.kept { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--bg); padding: 10px;
  border: 1px solid var(--line); border-radius: 4px; }
"""


def _fmt_value(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return fmt_float(value, 3)
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value) or "–"
    return str(value)


def _fields(view: PageView) -> Safe:
    items: list[Child] = []
    for name, value in view.fields:
        items += [el("dt", name), el("dd", _fmt_value(value))]
    return el("dl", items, class_="fields")


def _fields_side_by_side(view: PageView, other: PageView) -> Safe:
    left, right = dict(view.fields), dict(other.fields)
    names = [*left, *(n for n in right if n not in left)]
    rows = [
        el(
            "tr",
            el("th", name),
            el("td", _fmt_value(left.get(name)), class_="wrap"),
            el("td", _fmt_value(right.get(name)), class_="wrap"),
        )
        for name in names
    ]
    head = el("tr", el("th", ""), el("th", view.cleaner), el("th", other.cleaner))
    return el("table", el("thead", head), el("tbody", rows), class_="fields2")


# Shown on a block's second, smaller line: where it sits rather than what decided it. The class
# and path are cut to their ends there (whole in the tooltip): generated class strings run long.
_WHERE = ("class", "dom_path", "n_link_chars", "n_tags", "n_markup_chars")


def _abbreviated(name: str, value: str, width: int = 90) -> Safe:
    if len(value) <= width:
        return el("span", value)
    short = "…" + value[-width:] if name == "dom_path" else value[:width] + "…"
    return el("span", short, title=value)


def _feature_line(features: Iterable[tuple[str, Any]], class_: str) -> Safe:
    parts: list[Child] = []
    for name, value in features:
        if value is None or value == "" or (name == "is_heading" and not value):
            continue
        if parts:
            parts.append(" · ")
        text = _fmt_value(value)
        shown = _abbreviated(name, text) if name in ("class", "dom_path") else text
        parts += [el("b", _FEATURE_NAMES.get(name, name)), " ", shown]
    return el("div", parts, class_=class_)


def _block(b: BlockView, *, differs: bool = False) -> Safe:
    state = "kept" if b.kept else "removed"
    badge = state if b.kept else f"removed ({b.label})"
    if b.label == "repeat":
        pages = dict(b.features).get("site_pages")
        badge = f"removed (repeat: on {pages} pages of its site)"
    head = [
        el("span", badge, class_="badge"),
        f"#{b.index}",
        f" · score {fmt_float(b.score, 3)}" if b.score is not None else "",
    ]
    classes = f"blk {state}" + (" differs" if differs else "")
    return el(
        "div",
        el("div", head, class_="head"),
        el("div", b.text, class_="txt"),
        _feature_line(((k, v) for k, v in b.features if k not in _WHERE), "feat"),
        _feature_line(((k, v) for k, v in b.features if k in _WHERE), "feat where"),
        class_=classes,
        id=f"b{b.index}",
        data_label=b.label,
    )


def _kept_summary(view: PageView) -> str:
    kept = sum(1 for b in view.blocks if b.kept)
    chars = view.n_chars if view.n_chars is not None else len(view.text)
    return f"{kept} of {len(view.blocks)} blocks kept, {count(chars, 'character')}"


def _other_counts(view: PageView) -> str:
    """What the other lengths are, where they differ from the document's (`_kept_summary`)."""
    chars = view.n_chars if view.n_chars is not None else len(view.text)
    others = []
    joined = len(view.kept_text)
    if view.blocks and joined != chars:
        others.append(
            f"the kept blocks' own text, joined by blank lines, is {count(joined, 'character')} "
            "(the document writes tables a row per line and <pre> as it is)"
        )
    if view.markdown and len(view.markdown) != chars:
        others.append(f"its Markdown is {count(len(view.markdown), 'character')}, with its markup")
    if not others:
        return ""
    return f"{count(chars, 'character')}: the document's text (n_chars); " + "; ".join(others) + "."


def render_page(view: PageView, compare: PageView | None = None) -> str:
    """The viewer's HTML: ``view``'s blocks, or ``view`` and ``compare`` side by side."""
    legend = el(
        "p",
        el("span", el("span", "kept", class_="badge"), "part of the document's text"),
        el(
            "span",
            el("span", "removed", class_="badge", style="background:#8a93a3"),
            "boilerplate: dimmed, with the label, score and features behind the decision",
        ),
        el(
            "span",
            el("span", "removed (comment)", class_="badge", style="background:#a8741a"),
            "a reader comment: out of the text unless comments are included",
        ),
        el(
            "span",
            el("span", "removed (repeat)", class_="badge", style="background:#6b5ca5"),
            "kept by the cleaner, but on many pages of its site: taken out by the site stage",
        ),
        class_="legend sub",
    )
    notices = [
        el("p", n, class_="warn") for n in (*view.notices, *(compare.notices if compare else ()))
    ]
    parts: list[Child] = [
        el("h1", "warcclean page view"),
        el("p", view.title, class_="sub"),
        *notices,
    ]
    if not view.cleaned:
        parts += [
            el("h2", "Record"),
            _fields(view),
            el("p", "No blocks to show: the note above says why.", class_="empty"),
        ]
        return document(f"warcclean page view: {view.title}", parts, extra_css=_CSS)
    if compare is None:
        blocks = (
            el("div", [_block(b) for b in view.blocks], class_="blocks")
            if view.blocks
            else el("p", "The page has no text blocks.", class_="empty")
        )
        parts += [
            el("h2", f"Page · {view.cleaner}"),
            _fields(view),
            el("h2", f"Blocks · {_kept_summary(view)}"),
            el("p", _other_counts(view), class_="sub") if _other_counts(view) else "",
            legend,
            # The Markdown beside the blocks it was made of, when there is any.
            el("div", blocks, _markdown_pane(view), class_="with-md") if view.markdown else blocks,
        ]
    else:
        parts += [el("h2", "Page"), _fields_side_by_side(view, compare)]
        parts += _side_by_side(view, compare, legend)
        if view.markdown or compare.markdown:
            parts += [
                el("h2", "Markdown side by side"),
                el(
                    "div",
                    _markdown_pane(view, "markdown"),
                    _markdown_pane(compare, "markdown-2"),
                    class_="with-md two",
                ),
            ]
    parts += [
        el("h2", "Kept text"),
        el(
            "details",
            el("summary", f"The document's text ({view.cleaner})"),
            el("pre", view.text, class_="kept", id="kept-text"),
        ),
    ]
    return document(f"warcclean page view: {view.title}", parts, extra_css=_CSS)


def _markdown_pane(view: PageView, id_: str = "markdown") -> Safe:
    """The page's Markdown as text (escaped, never rendered: it holds the page's own words)."""
    if not view.markdown:
        return el(
            "div",
            el("div", f"Markdown · {view.cleaner}", class_="colhead"),
            el("p", "No Markdown for this page.", class_="empty"),
            class_="md-pane",
        )
    return el(
        "div",
        el("div", f"Markdown · {view.cleaner}", class_="colhead"),
        el("pre", view.markdown, id=id_),
        class_="md-pane",
    )


def _side_by_side(view: PageView, other: PageView, legend: Safe) -> list[Child]:
    left, right = view.blocks, other.blocks
    aligned = len(left) == len(right) and all(
        a.text == b.text for a, b in zip(left, right, strict=True)
    )
    differ = sum(1 for a, b in zip(left, right, strict=False) if a.kept != b.kept)
    cells: list[Child] = [
        el("div", f"{view.cleaner}: {_kept_summary(view)}", class_="colhead"),
        el("div", f"{other.cleaner}: {_kept_summary(other)}", class_="colhead"),
    ]
    if aligned:
        for a, b in zip(left, right, strict=True):
            cells += [_block(a, differs=a.kept != b.kept), _block(b, differs=a.kept != b.kept)]
        note = f"The cleaners disagree on {differ} of {len(left)} blocks (outlined)."
    else:
        # Both cleaners label the same segmentation, so this happens only when one view is a
        # stored row from an older segmentation: each column in its own order.
        cells += [
            el("div", [_block(b) for b in left], class_="blocks"),
            el("div", [_block(b) for b in right], class_="blocks"),
        ]
        note = "The two views do not have the same blocks; each is shown in its own order."
    return [
        el("h2", "Blocks side by side"),
        legend,
        el("p", note, class_="sub"),
        el("div", cells, class_="blocks two"),
    ]
