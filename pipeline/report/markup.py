"""A small HTML builder that escapes by construction, and the style sheet both pages share.

Page text, URLs, class names and error messages are untrusted: a crawled page can hold
``<script>`` as text. Every ``str`` handed to `el` is escaped; only `Safe` values (built here, or
our own SVG) pass through as markup, so forgetting to escape cannot happen by omission.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Union

Child = Union["Safe", str, int, float, None, Iterable["Child"]]


class Safe(str):
    """Markup that is already safe to emit as it is."""

    __slots__ = ()


def esc(value: object) -> Safe:
    """``value`` as text: every ``<``, ``>``, ``&`` and quote escaped (a `Safe` stays as it is)."""
    if isinstance(value, Safe):
        return value
    return Safe(html.escape("" if value is None else str(value), quote=True))


def _render(child: Child, out: list[str]) -> None:
    if child is None:
        return
    if isinstance(child, Safe):
        out.append(child)
    elif isinstance(child, str | int | float):
        out.append(esc(child))
    else:
        for c in child:
            _render(c, out)


def el(tag: str, *children: Child, **attrs: object) -> Safe:
    """``<tag attrs>children</tag>``. Attribute names: ``class_`` -> ``class``, ``data_x`` ->
    ``data-x``; a value of None or False leaves the attribute out, True writes it bare."""
    parts = [f"<{tag}"]
    for name, value in attrs.items():
        if value is None or value is False:
            continue
        name = name.rstrip("_").replace("_", "-")
        parts.append(f" {name}" if value is True else f' {name}="{esc(value)}"')
    parts.append(">")
    _render(children, parts)
    parts.append(f"</{tag}>")
    return Safe("".join(parts))


def join(children: Iterable[Child]) -> Safe:
    out: list[str] = []
    _render(list(children), out)
    return Safe("".join(out))


def document(title: str, body: Child, *, extra_css: str = "") -> str:
    """A whole self-contained page: no script, no external style sheet, font or image."""
    # The policy says the same to a browser: nothing may load from anywhere, no script runs.
    policy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"{el('title', title)}<style>{CSS}{extra_css}</style></head>"
        f"<body>{join([body])}</body></html>\n"
    )


def fmt_int(n: int | float | None) -> str:
    return "–" if n is None else f"{int(n):,}"


def fmt_float(x: float | None, digits: int = 2) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


CSS = """
:root { --ink: #1d2433; --muted: #5b6475; --line: #d9dee7; --bg: #f6f7f9; --good: #1a7f37;
  --bad: #b42318; --accent: #2f5fb3; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px 48px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI",
  Roboto, "DejaVu Sans", sans-serif; color: var(--ink); background: #fff; max-width: 1280px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; padding-bottom: 4px;
  border-bottom: 1px solid var(--line); }
h3 { font-size: 14px; margin: 16px 0 6px; }
.sub { color: var(--muted); margin: 0 0 12px; overflow-wrap: anywhere; }
.note { background: #fff8e1; border: 1px solid #f1d58a; padding: 8px 12px; border-radius: 4px;
  margin: 10px 0; }
.warn { background: #fdecea; border: 1px solid #f3b8b2; padding: 8px 12px; border-radius: 4px;
  margin: 10px 0; }
table { border-collapse: collapse; margin: 6px 0 12px; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 3px 10px 3px 0; border-bottom: 1px solid #eef0f4;
  vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
td.n, th.n { text-align: right; padding-left: 12px; }
td.wrap { overflow-wrap: anywhere; max-width: 640px; }
code, .mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, monospace; font-size: 12px; }
.bar { display: inline-block; height: 10px; background: var(--accent); opacity: .55;
  vertical-align: middle; border-radius: 2px; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 12px 0; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 8px 14px; min-width: 130px;
  background: var(--bg); }
.card b { display: block; font-size: 20px; }
.card span { color: var(--muted); font-size: 12px; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(460px, 1fr)); gap: 16px; }
figure { margin: 0; border: 1px solid var(--line); border-radius: 6px; padding: 8px; }
figure svg { width: 100%; height: auto; display: block; }
figcaption { color: var(--muted); font-size: 12px; margin-top: 4px; }
details { margin: 8px 0; }
summary { cursor: pointer; color: var(--accent); }
"""
