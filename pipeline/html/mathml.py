"""Math on web pages, as LaTeX: the segmentation walk (`pipeline.html.walk`) hands every `<math>`
element, every MathJax 2 ``<script type="math/tex">`` and every MathJax 3 ``<mjx-container>``
here instead of descending into them (TeX written in the text between MathJax's delimiters is
`pipeline.html.tex_text`'s).

A corpus wants the formula a reader would type, not the glyph soup the text of a MathML tree
gives ("x=−b±b2−4ac2a"). Most pages that carry MathML also carry the author's TeX: KaTeX,
Wikipedia and MathJax with semantic enrichment put it in an ``<annotation
encoding="application/x-tex">`` inside ``<semantics>``; that source is returned as written, minus
the ``{\\displaystyle ...}`` wrapper Wikipedia adds around every formula. Without one (MathJax 3's
assistive MathML, hand-written or converter-made MathML) the presentation elements are converted.
No maintained Python library does that conversion, hence this module.

The conversion is a best effort that aims at readable, compilable LaTeX (amsmath): tokens map to
commands (``∑`` -> ``\\sum``, ``α`` -> ``\\alpha``, an ``<mi>`` "sin" -> ``\\sin``), layout
elements to their constructs, with braces only where TeX needs them and a space after a command
name only before a letter or digit. Presentation features TeX has no use for (spacing details,
``mphantom``, ``maction`` alternatives, alignment marks) are dropped.

The tree is walked with an explicit stack: pages nest elements thousands deep (broken markup,
hostile pages), and no input may raise.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import NamedTuple

from selectolax.lexbor import LexborNode

# Annotation encodings whose text is TeX source.
TEX_ENCODINGS = frozenset(("application/x-tex", "tex", "application/x-latex"))

_GREEK = dict(
    zip(
        "αβγδεζηθικλμνξπρςστυφχψωΓΔΘΛΞΠΣΥΦΨΩϵϑϕϖϱϰ",
        (
            "alpha beta gamma delta varepsilon zeta eta theta iota kappa lambda mu nu xi pi rho "
            "varsigma sigma tau upsilon varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma "
            "Upsilon Phi Psi Omega epsilon vartheta phi varpi varrho varkappa"
        ).split(),
        strict=True,
    )
)
_SYMBOLS = {
    # Large operators.
    "∑": "sum", "∏": "prod", "∐": "coprod", "∫": "int", "∬": "iint", "∭": "iiint", "∮": "oint",
    "⋃": "bigcup", "⋂": "bigcap", "⨁": "bigoplus", "⨂": "bigotimes", "⋁": "bigvee",
    "⋀": "bigwedge",
    # Relations and binary operators.
    "≤": "leq", "≥": "geq", "≠": "neq", "≈": "approx", "≡": "equiv", "∼": "sim", "≃": "simeq",
    "≅": "cong", "∝": "propto", "≪": "ll", "≫": "gg", "≺": "prec", "≻": "succ", "⊢": "vdash",
    "⊨": "models", "±": "pm", "∓": "mp", "×": "times", "÷": "div", "·": "cdot", "⋅": "cdot",
    "∘": "circ", "∙": "bullet", "⊕": "oplus", "⊗": "otimes", "⊥": "perp", "∥": "parallel",
    "∣": "mid", "∧": "wedge", "∨": "vee", "¬": "neg", "∖": "setminus",
    # Arrows.
    "→": "to", "←": "leftarrow", "↔": "leftrightarrow", "⇒": "Rightarrow", "⇐": "Leftarrow",
    "⇔": "Leftrightarrow", "↦": "mapsto", "⟶": "longrightarrow", "⟵": "longleftarrow",
    "⟹": "Longrightarrow", "⟸": "Longleftarrow", "⟺": "iff", "↑": "uparrow", "↓": "downarrow",
    # Sets and logic.
    "∈": "in", "∉": "notin", "∋": "ni", "⊂": "subset", "⊆": "subseteq", "⊃": "supset",
    "⊇": "supseteq", "∪": "cup", "∩": "cap", "∅": "emptyset", "∀": "forall", "∃": "exists",
    "∄": "nexists",
    # Ordinary symbols.
    "∞": "infty", "∂": "partial", "∇": "nabla", "∠": "angle", "ℓ": "ell", "ℏ": "hbar",
    "ℵ": "aleph", "℘": "wp", "ℜ": "Re", "ℑ": "Im", "†": "dagger", "‡": "ddagger",
    "…": "ldots", "⋯": "cdots", "⋮": "vdots", "⋱": "ddots",
    # Delimiters.
    "⟨": "langle", "⟩": "rangle", "⌊": "lfloor", "⌋": "rfloor", "⌈": "lceil", "⌉": "rceil",
}  # fmt: skip
# Characters that are not commands but still need rewriting in math mode: TeX's special
# characters, Unicode's minus and primes, and the invisible operators MathML puts between a
# function and its argument or between factors (nothing to write for them).
_CHARS = {
    **{ch: "\\" + name for ch, name in _GREEK.items()},
    **{ch: "\\" + name for ch, name in _SYMBOLS.items()},
    **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΧο", "ABEZHIKMNOPTXo", strict=True)),
    "{": "\\{", "}": "\\}", "\\": "\\backslash", "#": "\\#", "$": "\\$", "%": "\\%", "&": "\\&",
    "_": "\\_", "^": "\\hat{}", "~": "\\sim", "‖": "\\|", "−": "-", "∗": "*", "′": "'",
    "″": "''", "‴": "'''", "\u2061": "", "\u2062": "", "\u2063": "", "\u2064": "", "\u200b": "",
}  # fmt: skip
_TEXT_CHARS = {
    "\\": "\\textbackslash{}", "{": "\\{", "}": "\\}", "#": "\\#", "$": "\\$", "%": "\\%",
    "&": "\\&", "_": "\\_", "^": "\\textasciicircum{}", "~": "\\textasciitilde{}",
}  # fmt: skip
FUNCTIONS = frozenset(
    (
        "sin cos tan cot sec csc sinh cosh tanh coth arcsin arccos arctan log ln lg exp lim "
        "liminf limsup max min sup inf det gcd deg dim ker arg hom Pr"
    ).split()
)
# Commands that take their under/over scripts as limits (_ and ^), as TeX sets them.
_LIMIT_COMMANDS = frozenset(
    "\\" + name
    for name in (
        "sum prod coprod int iint iiint oint bigcup bigcap bigoplus bigotimes bigvee bigwedge "
        "lim liminf limsup max min sup inf det gcd Pr"
    ).split()
)
_OPEN_FENCES = frozenset("([{⟨⌊⌈|‖")
_CLOSE_FENCES = frozenset(")]}⟩⌋⌉|‖")
_MATRIX_FENCES = {
    ("(", ")"): "pmatrix", ("[", "]"): "bmatrix", ("{", "}"): "Bmatrix", ("|", "|"): "vmatrix",
    ("‖", "‖"): "Vmatrix",
}  # fmt: skip
_OVER_ACCENTS = {
    **dict.fromkeys("^ˆ\u0302", "\\hat"),
    **dict.fromkeys("~˜\u0303", "\\tilde"),
    **dict.fromkeys("¯‾\u0305―_", "\\overline"),
    **dict.fromkeys("→\u20d7", "\\vec"),
    **dict.fromkeys("˙\u0307", "\\dot"),
    **dict.fromkeys("¨\u0308", "\\ddot"),
    **dict.fromkeys("ˇ\u030c", "\\check"),
    **dict.fromkeys("˘\u0306", "\\breve"),
    "´": "\\acute",
    "`": "\\grave",
    "←": "\\overleftarrow",
    "↔": "\\overleftrightarrow",
    **dict.fromkeys("⏞︷", "\\overbrace"),
}
_UNDER_ACCENTS = {
    **dict.fromkeys("_\u0332‾¯―", "\\underline"),
    **dict.fromkeys("⏟︸", "\\underbrace"),
}
_MATHVARIANTS = {
    "bold": "\\mathbf", "double-struck": "\\mathbb", "fraktur": "\\mathfrak",
    "script": "\\mathcal", "sans-serif": "\\mathsf", "monospace": "\\mathtt",
    "bold-italic": "\\boldsymbol", "normal": "\\mathrm",
}  # fmt: skip
# Unicode's styled letters (ℝ, 𝐱, 𝔤): the style is in the character's name.
_NAMED_STYLES = (
    ("DOUBLE-STRUCK", "\\mathbb"),
    ("FRAKTUR", "\\mathfrak"),
    ("BLACK-LETTER", "\\mathfrak"),
    ("SCRIPT", "\\mathcal"),
    ("SANS-SERIF", "\\mathsf"),
    ("MONOSPACE", "\\mathtt"),
    ("BOLD ITALIC", "\\boldsymbol"),
    ("BOLD", "\\mathbf"),
)
_ENCLOSURES = {
    "box": "\\boxed", "roundedbox": "\\boxed", "circle": "\\boxed",
    "updiagonalstrike": "\\cancel", "downdiagonalstrike": "\\cancel",
    "horizontalstrike": "\\cancel", "radical": "\\sqrt", "top": "\\overline",
    "bottom": "\\underline",
}  # fmt: skip
_NAMED_SPACES = {
    "veryverythinmathspace": 0.05, "verythinmathspace": 0.1, "thinmathspace": 0.17,
    "mediummathspace": 0.22, "thickmathspace": 0.28, "verythickmathspace": 0.33,
    "veryverythickmathspace": 0.39,
}  # fmt: skip
# Leaves: their text (or nothing) is all that is read.
_TOKENS = frozenset(("mi", "mn", "mo", "mtext", "ms", "mspace"))
_SKIPPED = frozenset(
    (
        "mphantom annotation annotation-xml none mprescripts mglyph malignmark maligngroup "
        "script style -comment"
    ).split()
)

_COMMAND_END = re.compile(r"\\[A-Za-z]+$")
# What a following letter or digit would run into: a command name, or an unbraced script
# ("\\sum_{i=1}^n i^2", not "^ni^2").
_RUNS_ON = re.compile(r"\\[A-Za-z]+$|[_^][A-Za-z0-9]$")
_ZERO_THICKNESS = re.compile(r"0*\.?0*(px|pt|em|ex|mm|cm|in|%)?")
_STYLE_WRAPPER = re.compile(r"\{\\(?:displaystyle|textstyle)(?![A-Za-z])")
_CDATA_START = re.compile(r"^%?\s*<!\[CDATA\[")
_CDATA_END = re.compile(r"%?\s*\]\]>$")


class _Tex(NamedTuple):
    """A converted subtree. `kind` tells the parent how the LaTeX combines: "" one atom, "seq"
    several, "script" ends in a sub/superscript (a base that needs braces), "limits" takes its
    scripts as limits, "fence" an opening or closing delimiter (`args` holds its character),
    "binom" a rule-less fraction and "matrix" a table (`args` holds what a fence rewrites)."""

    latex: str
    kind: str = ""
    args: tuple[str, ...] = ()


_EMPTY = _Tex("")
# A stack frame: the element, the children to convert, and their results so far.
_Frame = tuple[LexborNode, list[LexborNode], list[_Tex]]


def math_latex(node: LexborNode) -> tuple[str, bool]:
    """LaTeX for a <math> element node, and whether it is display math."""
    attrs = node.attributes
    display = (attrs.get("display") or "").strip().lower() == "block" or (
        attrs.get("mode") or ""
    ).strip().lower() == "display"
    return _convert(node).strip(), display


def container_latex(node: LexborNode) -> tuple[str, bool] | None:
    """For MathJax 3's ``<mjx-container>``: the LaTeX of the assistive MathML it holds beside its
    drawing (``<mjx-assistive-mml><math>``, the only source of the formula MathJax 3 leaves in
    the page), and whether it is display math; None when it holds no MathML."""
    for sub in node.traverse():
        if sub.tag == "math":
            latex, display = math_latex(sub)
            value = (node.attributes.get("display") or "").strip().lower()
            return latex, display or value == "true" or value == "block"
    return None


def script_latex(type_attr: str | None, text: str) -> tuple[str, bool] | None:
    """For a <script> element: its LaTeX and display flag when its type is MathJax's
    ("math/tex", "math/tex; mode=display", case-insensitive, spaces tolerated), else None."""
    if not type_attr:
        return None
    main, *params = "".join(type_attr.split()).lower().split(";")
    if main != "math/tex":
        return None
    display = "mode=display" in params
    # kramdown and other XHTML-minded generators hide the source in a commented-out CDATA.
    tex = _CDATA_END.sub("", _CDATA_START.sub("", text.strip())).strip()
    return tex, display


def _convert(root: LexborNode) -> str:
    """Post-order over the tree with an explicit stack, so depth is bounded by memory only."""
    stack: list[_Frame] = []
    result = _start(root, stack)
    while stack:
        node, children, done = stack[-1]
        if len(done) < len(children):
            child = _start(children[len(done)], stack)
            if child is not None:
                done.append(child)
            continue
        stack.pop()
        tex = _combine(node, children, done)
        if not stack:
            return tex.latex
        stack[-1][2].append(tex)
    return result.latex if result is not None else ""


def _start(node: LexborNode, stack: list[_Frame]) -> _Tex | None:
    """The result of a leaf, or None after pushing a frame for an element with children."""
    tag = node.tag
    if tag == "-text":
        return _Tex(_math_text(node.text_content or ""))
    if tag in _SKIPPED:
        return _EMPTY
    if tag in _TOKENS:
        return _token(node, tag)
    if tag == "semantics":
        tex = _tex_annotation(node)
        if tex is not None:
            return _Tex(tex)
        first = next(
            (c for c in _children(node) if c.tag not in ("annotation", "annotation-xml")), None
        )
        stack.append((node, [first] if first is not None else [], []))
        return None
    children = _children(node)
    if tag == "maction":
        # Only the selected alternative shows; the first is the default.
        children = children[:1]
    stack.append((node, children, []))
    return None


def _children(node: LexborNode) -> list[LexborNode]:
    """Child elements and text with something in it; whitespace and comments are not content."""
    return [
        c
        for c in node.iter(include_text=True)
        if c.tag != "-comment" and (c.tag != "-text" or (c.text_content or "").strip())
    ]


def _tex_annotation(semantics: LexborNode) -> str | None:
    for child in semantics.iter():
        if child.tag == "annotation":
            encoding = (child.attributes.get("encoding") or "").strip().lower()
            if encoding in TEX_ENCODINGS:
                return unwrap_style(child.text(deep=True).strip())
    return None


def unwrap_style(tex: str) -> str:
    """Wikipedia wraps each formula in {\\displaystyle ...}; only a wrapper around the whole
    source is dropped, as "{\\displaystyle a} + b" has none."""
    start = _STYLE_WRAPPER.match(tex)
    if start is None or not tex.endswith("}"):
        return tex
    depth = 0
    i = 0
    last = len(tex) - 1
    while i <= last:
        ch = tex[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0 and i != last:
                return tex
        i += 1
    if depth != 0:
        return tex
    return tex[start.end() : -1].strip()


# Tokens.


def _token(node: LexborNode, tag: str) -> _Tex:
    attrs = node.attributes
    if tag == "mspace":
        return _Tex(_space(attrs.get("width") or ""))
    raw = " ".join(node.text(deep=True).split())
    if not raw:
        return _EMPTY
    if tag == "mtext":
        return _Tex(f"\\text{{{_text_mode(raw)}}}")
    if tag == "ms":
        return _Tex(f'\\text{{"{_text_mode(raw)}"}}')
    if raw in FUNCTIONS:
        command = "\\" + raw
        return _Tex(command, "limits" if command in _LIMIT_COMMANDS else "")
    if tag == "mo":
        if raw == "mod":
            return _Tex("\\bmod")
        if raw.isascii() and raw.isalpha() and len(raw) > 1:
            return _Tex(f"\\operatorname{{{raw}}}")
        latex = _math_text(raw)
        if len(raw) == 1 and (raw in _OPEN_FENCES or raw in _CLOSE_FENCES):
            return _Tex(latex, "fence", (raw,))
        return _Tex(latex, "limits" if latex in _LIMIT_COMMANDS else "")
    latex = _math_text(raw)
    if latex in _LIMIT_COMMANDS:
        return _Tex(latex, "limits")
    if tag == "mi" and len(raw) > 1 and raw.isascii() and raw.isalpha():
        return _Tex(f"\\mathrm{{{raw}}}")
    variant = _MATHVARIANTS.get((attrs.get("mathvariant") or "").strip().lower())
    if variant == "\\mathrm" and not (len(raw) == 1 and raw.isascii() and raw.isalpha()):
        variant = None  # upright is already how TeX sets digits and Greek capitals
    if variant and latex:
        latex = f"{variant}{{{latex}}}"
    return _Tex(latex)


def _space(width: str) -> str:
    width = width.strip().lower()
    if width in _NAMED_SPACES:
        em = _NAMED_SPACES[width]
    elif width.endswith("em"):
        try:
            em = float(width[:-2])
        except ValueError:
            return ""
    else:
        return ""
    if em >= 2:
        return "\\qquad"
    if em >= 1:
        return "\\quad"
    if em >= 0.25:
        return "\\;"
    return "\\," if em > 0.1 else ""


def _math_text(text: str) -> str:
    return _join([_char(ch) for ch in text if not ch.isspace()])


@lru_cache(maxsize=4096)
def _char(ch: str) -> str:
    mapped = _CHARS.get(ch)
    if mapped is not None:
        return mapped
    if ch.isascii():
        return ch
    name = unicodedata.name(ch, "")
    if name.startswith(("MATHEMATICAL ", "DOUBLE-STRUCK ", "SCRIPT ", "BLACK-LETTER ")):
        plain = unicodedata.normalize("NFKC", ch)
        if plain != ch and len(plain) == 1:
            inner = _char(plain)
            for word, command in _NAMED_STYLES:
                if word in name:
                    return f"{command}{{{inner}}}"
            return inner
    return ch


def _text_mode(text: str) -> str:
    return "".join(_TEXT_CHARS.get(ch, ch) for ch in text)


# Layout.


def _join(parts: list[str]) -> str:
    """Concatenate, with a space where a command name or a one-character script would otherwise
    run into the letter or digit that follows."""
    out: list[str] = []
    previous = ""
    for part in parts:
        if not part:
            continue
        if previous and part[0].isascii() and part[0].isalnum() and _RUNS_ON.search(previous):
            out.append(" ")
        out.append(part)
        previous = part
    return "".join(out)


def _combine(node: LexborNode, children: list[LexborNode], done: list[_Tex]) -> _Tex:
    tag = node.tag
    if tag == "mfrac":
        return _fraction(node, done)
    if tag in ("msup", "msub", "msubsup"):
        base = _at(done, 0)
        if tag == "msup":
            return _scripted(base, None, _at(done, 1))
        if tag == "msub":
            return _scripted(base, _at(done, 1), None)
        return _scripted(base, _at(done, 1), _at(done, 2))
    if tag in ("munder", "mover", "munderover"):
        return _under_over(tag, children, done)
    if tag == "msqrt":
        return _Tex(f"\\sqrt{{{_row(done).latex}}}")
    if tag == "mroot":
        index = _at(done, 1).latex
        base = _at(done, 0).latex
        if not index:
            return _Tex(f"\\sqrt{{{base}}}")
        if "]" in index:
            index = "{" + index + "}"
        return _Tex(f"\\sqrt[{index}]{{{base}}}")
    if tag == "mfenced":
        return _fenced(node, done)
    if tag == "menclose":
        inner = _row(done).latex
        for notation in (node.attributes.get("notation") or "").lower().split():
            command = _ENCLOSURES.get(notation)
            if command:
                return _Tex(f"{command}{{{inner}}}")
        return _Tex(inner, "seq")
    if tag == "mmultiscripts":
        return _multiscripts(children, done)
    if tag in ("mtr", "mlabeledtr"):
        cells = done[1:] if tag == "mlabeledtr" else done
        return _Tex(" & ".join(cell.latex for cell in cells), "row")
    if tag == "mtable":
        rows = tuple(row.latex for row in done if row.latex or row.kind == "row")
        if not rows:
            return _EMPTY
        return _Tex(_matrix("matrix", rows), "matrix", rows)
    # math, mrow, mstyle, mpadded, merror, mtd, maction, semantics and unknown elements.
    return _row(done)


def _at(done: list[_Tex], i: int) -> _Tex:
    return done[i] if i < len(done) else _EMPTY


def _matrix(environment: str, rows: tuple[str, ...]) -> str:
    return f"\\begin{{{environment}}} " + " \\\\ ".join(rows) + f" \\end{{{environment}}}"


def _row(done: list[_Tex]) -> _Tex:
    """A horizontal sequence; a delimiter pair around a table or rule-less fraction becomes the
    environment TeX writes for it (pmatrix, \\binom, cases)."""
    parts = [t for t in done if t.latex]
    if any(t.kind in ("matrix", "binom") for t in parts):
        parts = _merge_fences(parts)
    if not parts:
        return _EMPTY
    if len(parts) == 1:
        return parts[0]
    latex = _join([t.latex for t in parts])
    if parts[0].kind == "fence" and parts[-1].kind == "fence":
        return _Tex(latex)
    return _Tex(latex, "script" if parts[-1].kind == "script" else "seq")


def _merge_fences(parts: list[_Tex]) -> list[_Tex]:
    out: list[_Tex] = []
    i = 0
    while i < len(parts):
        tex = parts[i]
        inner = parts[i + 1] if i + 1 < len(parts) else None
        # A fence can lose its delimiter text to a wrapping element (a scripted "(" in an
        # <mmultiscripts>): only fences that still hold one pair up.
        if (
            tex.kind == "fence"
            and tex.args
            and inner is not None
            and inner.kind in ("matrix", "binom")
        ):
            close = parts[i + 2] if i + 2 < len(parts) else None
            paired = close is not None and close.kind == "fence" and close.args
            pair = (tex.args[0], close.args[0]) if paired else None
            merged = _fence_pair(pair, inner)
            if merged is not None:
                out.append(merged)
                i += 3
                continue
            if tex.args[0] == "{" and inner.kind == "matrix" and i + 2 == len(parts):
                out.append(_Tex(_matrix("cases", inner.args)))
                break
        out.append(tex)
        i += 1
    return out


def _fence_pair(pair: tuple[str, str] | None, inner: _Tex) -> _Tex | None:
    if pair is None:
        return None
    if inner.kind == "binom":
        if pair == ("(", ")"):
            return _Tex(f"\\binom{{{inner.args[0]}}}{{{inner.args[1]}}}")
        return None
    environment = _MATRIX_FENCES.get(pair)
    return _Tex(_matrix(environment, inner.args)) if environment else None


def _fraction(node: LexborNode, done: list[_Tex]) -> _Tex:
    numerator, denominator = _at(done, 0).latex, _at(done, 1).latex
    thickness = (node.attributes.get("linethickness") or "").strip().lower()
    if thickness and _ZERO_THICKNESS.fullmatch(thickness) and any(c == "0" for c in thickness):
        # Without its parentheses (which a surrounding row folds in) it is a bare stack.
        return _Tex(
            f"\\genfrac{{}}{{}}{{0pt}}{{}}{{{numerator}}}{{{denominator}}}",
            "binom",
            (numerator, denominator),
        )
    return _Tex(f"\\frac{{{numerator}}}{{{denominator}}}")


def _base(base: _Tex) -> str:
    if not base.latex or base.kind in ("script", "seq"):
        return "{" + base.latex + "}"
    return base.latex


def _script_arg(latex: str) -> str:
    if len(latex) == 1 and latex.isascii() and latex.isalnum():
        return latex
    return "{" + latex + "}"


def _scripted(base: _Tex, sub: _Tex | None, sup: _Tex | None) -> _Tex:
    sub_latex = sub.latex if sub is not None else ""
    sup_latex = sup.latex if sup is not None else ""
    if not sub_latex and not sup_latex:
        return base
    latex = _base(base)
    if sup_latex and set(sup_latex) == {"'"}:
        latex += sup_latex  # f' rather than f^{'}
        sup_latex = ""
    if sub_latex:
        latex += "_" + _script_arg(sub_latex)
    if sup_latex:
        latex += "^" + _script_arg(sup_latex)
    return _Tex(latex, "script")


def _accent(node: LexborNode | None, table: dict[str, str]) -> str | None:
    if node is None or node.tag not in ("mo", "mi", "mtext", "-text"):
        return None
    text = node.text_content if node.tag == "-text" else node.text(deep=True)
    return table.get((text or "").strip())


def _under_over(tag: str, children: list[LexborNode], done: list[_Tex]) -> _Tex:
    base = _at(done, 0)
    under_i, over_i = {"munder": (1, None), "mover": (None, 1), "munderover": (1, 2)}[tag]
    sub = sup = None
    if under_i is not None and _at(done, under_i).latex:
        under = _at(done, under_i)
        accent = _accent(children[under_i] if under_i < len(children) else None, _UNDER_ACCENTS)
        if accent:
            kind = "limits" if accent == "\\underbrace" else ""
            base = _Tex(f"{accent}{{{base.latex}}}", kind)
        elif base.kind == "limits":
            sub = under
        else:
            base = _Tex(f"\\underset{{{under.latex}}}{{{base.latex}}}")
    if over_i is not None and _at(done, over_i).latex:
        over = _at(done, over_i)
        accent = _accent(children[over_i] if over_i < len(children) else None, _OVER_ACCENTS)
        if accent == "\\vec" and len(base.latex) > 1 and not _COMMAND_END.fullmatch(base.latex):
            accent = "\\overrightarrow"
        if accent:
            kind = "limits" if accent == "\\overbrace" else ""
            base = _Tex(f"{accent}{{{base.latex}}}", kind)
        elif base.kind == "limits":
            sup = over
        else:
            base = _Tex(f"\\overset{{{over.latex}}}{{{base.latex}}}")
    if sub is None and sup is None:
        return base
    return _scripted(base, sub, sup)


def _fenced(node: LexborNode, done: list[_Tex]) -> _Tex:
    attrs = node.attributes
    opening = attrs.get("open", "(")
    closing = attrs.get("close", ")")
    opening, closing = (opening or "").strip(), (closing or "").strip()
    separators = "".join((attrs.get("separators", ",") or "").split())
    items = [t for t in done if t.latex]
    if len(items) == 1 and items[0].kind in ("matrix", "binom"):
        merged = _fence_pair((opening, closing), items[0])
        if merged is not None:
            return merged
    parts = [_math_text(opening)]
    for i, item in enumerate(items):
        if i and separators:
            parts.append(_math_text(separators[min(i - 1, len(separators) - 1)]))
        parts.append(item.latex)
    parts.append(_math_text(closing))
    return _Tex(_join(parts))


def _multiscripts(children: list[LexborNode], done: list[_Tex]) -> _Tex:
    """<mmultiscripts> base (sub sup)* <mprescripts/> (sub sup)*: each pair after the first
    goes on an empty group, as {}_a^b does in TeX."""
    split = next((i for i, c in enumerate(children) if c.tag == "mprescripts"), len(children))
    base = _at(done, 0)
    post = done[1:split]
    pre = done[split + 1 :]
    latex = ""
    for i in range(0, len(pre), 2):
        latex += _scripted(_EMPTY, _at(pre, i), _at(pre, i + 1)).latex
    head = _scripted(base, _at(post, 0), _at(post, 1))
    latex = _join([latex, head.latex])
    for i in range(2, len(post), 2):
        latex += _scripted(_EMPTY, _at(post, i), _at(post, i + 1)).latex
    return _Tex(latex, "script" if latex != base.latex else base.kind)
