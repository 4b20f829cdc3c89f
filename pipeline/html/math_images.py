"""Formulas drawn as pictures: the TeX a page keeps beside the picture, as LaTeX.

Many sites never send a formula as text. A server or plugin renders the author's TeX to an image
and keeps the source in the ``<img>``'s alt text or address, where a reader's copy-paste and a
screen reader find it:

- WordPress.com and Jetpack's ``$latex ...$`` shortcode: ``<img class="latex" alt="TeX"
  src="https://s0.wp.com/latex.php?latex=TeX&...">``, the most common form on maths and
  science blogs (OpenWebMath, Paster et al. 2023, reads these alt texts for the same reason);
- QuickLaTeX (WordPress): ``class="ql-img-inline-formula"`` or ``"ql-img-displayed-equation"``,
  the TeX in the alt text;
- CSDN's editor: ``<img class="mathcode" alt="TeX">``; old MediaWiki (texvc):
  ``<img class="tex" alt="TeX">``; Wikipedia's fallback image ``mwe-math-fallback-image-*`` (its
  alt text wrapped in ``{\\displaystyle ...}``), taken only when no MathML stands beside it, as
  the MathML is taken (`pipeline.html.mathml`);
- Sphinx's imgmath: pictures under ``_images/math/``, the TeX in the alt text (``class="math"``
  inline, the display ones inside ``<div class="math">``);
- Zhihu's ``https://www.zhihu.com/equation?tex=TeX`` (its alt text is often a placeholder,
  "[公式]"), CodeCogs' ``https://latex.codecogs.com/png.latex?TeX``, ``mathtex.cgi?TeX`` and
  ``mimetex.cgi?TeX``: the TeX in the address;
- LaTeX2HTML and hand-made pages: an alt text that is TeX between its delimiters (``$...$``,
  ``$$...$$``, ``\\(...\\)``, ``\\[...\\]``).

Without this a page's formulas vanish, leaving "the sum equals for every n". The segmentation walk
(`pipeline.html.walk`) asks `image_latex` of every ``<img>`` and writes the answer as a math span
of the block, as it does for MathML; the compiled walk hands a page with an image that may be
one (`may_be_math_image`'s test, made on bytes) to the Python walk.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import parse_qs, unquote

from selectolax.lexbor import LexborNode

from pipeline.html.mathml import unwrap_style

# A formula longer than this is not taken (TeX in the text has the same cap,
# `pipeline.html.tex_text.MAX_TEX_CHARS`): an alt text or address can be anything.
MAX_IMAGE_TEX_CHARS = 2000
# Addresses are read only this far (a query of TeX is far shorter; a hostile one is not parsed).
_MAX_ADDRESS = 8192
# Where lazy-loading scripts keep the real address while ``src`` holds a placeholder.
_SOURCE_ATTRIBUTES = ("src", "data-src", "data-lazy-src", "data-original")
# Classes whose image's alt text is the formula's TeX.
_ALT_CLASSES = frozenset(("latex", "mathcode", "tex", "ee_img"))
# Alt texts that stand for a formula without being it.
_PLACEHOLDERS = frozenset(("[公式]", "[formula]", "formula", "equation", "latex", "tex", "math"))
# TeX between the delimiters MathJax, KaTeX and LaTeX2HTML write: display ones first.
_DELIMITED = (
    (re.compile(r"^\$\$(.+)\$\$$", re.S), True),
    (re.compile(r"^\\\[(.+)\\\]$", re.S), True),
    (re.compile(r"^\\\((.+)\\\)$", re.S), False),
    (re.compile(r"^\$([^$]+)\$$", re.S), False),
)
# Environments that stand on a line of their own.
_DISPLAY_ENVIRONMENT = re.compile(
    r"^\\begin\{(?:equation|align|alignat|gather|multline|eqnarray|displaymath)\*?\}"
)
# What CodeCogs, mathTeX and mimeTeX read at the start of a query as rendering options.
_RENDER_OPTIONS = re.compile(
    r"^(?:\s*\\(?:dpi\{\d+\}|bg(?:_\w+|\{\w+\})|fg(?:_\w+|\{\w+\})|fn_\w+|inline|png|gif|svg"
    r"|tiny|small|normal|large|Large|LARGE|huge|Huge)(?![A-Za-z]))+\s*"
)


def may_be_math_image(attrs: Mapping[str, str | None]) -> bool:
    """A cheap test that every image `image_latex` reads passes (the compiled walk's, on bytes,
    is the same test; a page whose image passes it goes to the Python walk)."""
    return any(value and _hint(name, value) for name, value in attrs.items())


def _hint(name: str, value: str) -> bool:
    if name == "alt":
        return (value[0] == "$" and value[-1] == "$" and len(value) > 1) or value[0] == "\\"
    value = value.lower()
    if name == "class":
        return (
            "mathcode" in value
            or "ql-img" in value
            or "ee_img" in value
            or _followed_by(value, "tex", _NOT_LETTER)
            or _followed_by(value, "math", _NOT_LETTER)
        )
    if name in _SOURCE_ATTRIBUTES and not value.startswith("data:"):
        return (
            _followed_by(value, "latex", ".?/=")
            or "tex=" in value
            or "tex.cgi" in value
            or "math/" in value
        )
    return False


# `_followed_by`'s set for "anything but an ASCII letter".
_NOT_LETTER = ""


def _followed_by(value: str, word: str, after: str) -> bool:
    """Whether ``word`` occurs in ``value`` at its end or followed by one of ``after`` (by any
    character but an ASCII letter when ``after`` is empty): "latex." and "tex " but not
    "text" or "vortex-logo"."""
    start = value.find(word)
    while start >= 0:
        end = start + len(word)
        if end == len(value):
            return True
        c = value[end]
        if (c in after) if after else not ("a" <= c <= "z"):
            return True
        start = value.find(word, end)
    return False


def image_latex(
    attrs: Mapping[str, str | None], image: LexborNode | None = None
) -> tuple[str, bool] | None:
    """The LaTeX of an ``<img>`` that draws a formula (see the module's docstring), and whether
    it is display math; None for any other image. ``attrs`` are the image's attributes and
    ``image`` the element, whose parent is looked at only for Wikipedia's fallback images."""
    classes = (attrs.get("class") or "").lower().split()
    alt = (attrs.get("alt") or "").strip()
    source = _source(attrs)
    display = False
    tex: str | None = None
    if any(c.startswith("mwe-math-fallback-image") for c in classes):
        if image is not None and _beside_mathml(image):
            return None
        tex = unwrap_style(alt)
        display = any("display" in c for c in classes)
    elif any(c.startswith("ql-img-") for c in classes):
        tex = alt
        display = "ql-img-displayed-equation" in classes
    elif "equation?tex=" in source:
        tex = _query_value(source, "tex") or _unless_placeholder(alt)
    elif "latex.php?" in source:
        tex = _unless_placeholder(alt) or _query_value(source, "latex")
    elif _ALT_CLASSES.intersection(classes):
        tex = _unless_placeholder(alt)
    elif "_images/math/" in source or "_images/imgmath/" in source:
        tex = _unless_placeholder(alt)
        display = "math" not in classes  # Sphinx marks its inline ones so
    elif (
        "codecogs.com/" in source and _followed_by(source.lower(), "latex", ".?/=")
    ) or "tex.cgi?" in source:
        tex = _whole_query(source) or _unless_placeholder(alt)
    if tex is None:
        # The alt text as written: the compiled walk's test looks at its first and last bytes.
        delimited = _delimited_only(attrs.get("alt") or "")
        if delimited is None:
            return None
        tex, display = delimited
    else:
        delimited = _delimited_only(tex)
        if delimited is not None:
            tex, display = delimited[0], display or delimited[1]
    tex = tex.strip()
    if not tex or len(tex) > MAX_IMAGE_TEX_CHARS:
        return None
    return tex, display or _DISPLAY_ENVIRONMENT.match(tex) is not None


def _beside_mathml(image: LexborNode) -> bool:
    """Whether the element holding a formula's image also holds its MathML (Wikipedia's)."""
    parent = image.parent
    return parent is not None and parent.css_first("math") is not None


def _source(attrs: Mapping[str, str | None]) -> str:
    for name in _SOURCE_ATTRIBUTES:
        value = attrs.get(name)
        if value and not value.startswith("data:"):
            return value[:_MAX_ADDRESS]
    return ""


def _unless_placeholder(alt: str) -> str | None:
    return alt if alt and alt.lower() not in _PLACEHOLDERS else None


def _query_value(source: str, key: str) -> str | None:
    _, _, query = source.partition("?")
    values = parse_qs(query.replace("&amp;", "&"), keep_blank_values=False).get(key)
    return values[0] if values else None


def _whole_query(source: str) -> str | None:
    """The TeX that makes up a renderer's whole query, without its rendering options. A "+" is
    TeX's plus here; CodeCogs' editor writes a space as "&space;"."""
    _, _, query = source.partition("?")
    tex = _RENDER_OPTIONS.sub("", unquote(query.replace("&space;", " ")))
    return tex or None


def _delimited_only(alt: str) -> tuple[str, bool] | None:
    """TeX written between delimiters as the whole alt text, and whether they are display ones."""
    if len(alt) < 3 or alt[0] not in "$\\":
        return None
    for pattern, display in _DELIMITED:
        m = pattern.match(alt)
        if m is not None:
            return m.group(1), display
    return None
