"""MathML, MathJax and KaTeX to LaTeX: the markup real sites serve, presentation MathML by element,
odd input, and properties over random trees."""

from __future__ import annotations

import html

import pytest
from hypothesis import given
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from pipeline.html.mathml import container_latex, math_latex, script_latex


def first_math(page: str) -> tuple[str, bool]:
    node = LexborHTMLParser(page).css_first("math")
    assert node is not None
    return math_latex(node)


def mml(body: str, attrs: str = "") -> tuple[str, bool]:
    """Presentation MathML in a paragraph, as pages inline it."""
    return first_math(
        f'<html><body><p>Text <math xmlns="http://www.w3.org/1998/Math/MathML"{attrs}>{body}'
        "</math> more text.</p></body></html>"
    )


def balanced(latex: str) -> bool:
    depth = 0
    i = 0
    while i < len(latex):
        ch = latex[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                return False
        i += 1
    return depth == 0


# Pages as the sites serve them.

KATEX_INLINE = (
    '<p>Euler\'s identity <span class="katex"><span class="katex-mathml"><math '
    'xmlns="http://www.w3.org/1998/Math/MathML"><semantics><mrow><msup><mi>e</mi><mrow><mi>i</mi>'
    "<mi>π</mi></mrow></msup><mo>+</mo><mn>1</mn><mo>=</mo><mn>0</mn></mrow><annotation "
    'encoding="application/x-tex">e^{i\\pi} + 1 = 0</annotation></semantics></math></span>'
    '<span class="katex-html" aria-hidden="true"><span class="base"><span class="strut" '
    'style="height:0.8747em;"></span><span class="mord"><span class="mord mathnormal">e</span>'
    '<span class="msupsub"><span class="vlist-t"><span class="vlist-r"><span class="vlist" '
    'style="height:0.8747em;"><span style="top:-3.113em;margin-right:0.05em;"><span '
    'class="pstrut" style="height:2.7em;"></span><span class="sizing reset-size6 size3 mtight">'
    '<span class="mord mtight"><span class="mord mathnormal mtight">i</span><span class="mord '
    'mathnormal mtight" style="margin-right:0.03588em;">π</span></span></span></span></span>'
    '</span></span></span></span><span class="mspace" style="margin-right:0.2222em;"></span>'
    '<span class="mbin">+</span></span><span class="base"><span class="mord">1</span><span '
    'class="mrel">=</span><span class="mord">0</span></span></span></span> holds.</p>'
)

KATEX_DISPLAY = (
    '<p><span class="katex-display"><span class="katex"><span class="katex-mathml"><math '
    'xmlns="http://www.w3.org/1998/Math/MathML" display="block"><semantics><mrow><mfrac><mn>1'
    '</mn><mn>2</mn></mfrac></mrow><annotation encoding="application/x-tex">\\frac{1}{2}\n'
    '</annotation></semantics></math></span><span class="katex-html" aria-hidden="true">'
    '<span class="base"><span class="mord"><span class="mopen nulldelimiter"></span><span '
    'class="mfrac">1 2</span></span></span></span></span></span></p>'
)

WIKIPEDIA_INLINE = (
    '<p>The equation <span class="mwe-math-element"><span class="mwe-math-mathml-inline '
    'mwe-math-mathml-a11y" style="display: none;"><math xmlns="http://www.w3.org/1998/Math/MathML" '
    'alttext="{\\displaystyle E=mc^{2}}"><semantics><mrow class="MJX-TeXAtom-ORD"><mstyle '
    'displaystyle="true" scriptlevel="0"><mi>E</mi><mo>=</mo><mi>m</mi><msup><mi>c</mi><mrow '
    'class="MJX-TeXAtom-ORD"><mn>2</mn></mrow></msup></mstyle></mrow><annotation '
    'encoding="application/x-tex">{\\displaystyle E=mc^{2}}</annotation></semantics></math></span>'
    '<img src="https://wikimedia.org/api/rest_v1/media/math/render/svg/a1b2" '
    'class="mwe-math-fallback-image-inline" aria-hidden="true" style="vertical-align: -0.338ex; '
    'width:9.168ex; height:2.676ex;" alt="{\\displaystyle E=mc^{2}}"></span> is famous.</p>'
)

WIKIPEDIA_DISPLAY = (
    '<dl><dd><span class="mwe-math-element"><span class="mwe-math-mathml-display '
    'mwe-math-mathml-a11y" style="display: none;"><math xmlns="http://www.w3.org/1998/Math/MathML" '
    'display="block" alttext="{\\displaystyle \\int _{a}^{b}f(x)\\,dx=F(b)-F(a)}"><semantics>'
    '<mrow class="MJX-TeXAtom-ORD"><mstyle displaystyle="true" scriptlevel="0"><msubsup><mo>∫'
    '</mo><mrow class="MJX-TeXAtom-ORD"><mi>a</mi></mrow><mrow class="MJX-TeXAtom-ORD"><mi>b'
    '</mi></mrow></msubsup><mi>f</mi><mo stretchy="false">(</mo><mi>x</mi><mo '
    'stretchy="false">)</mo><mspace width="thinmathspace"></mspace><mi>d</mi><mi>x</mi><mo>='
    '</mo><mi>F</mi><mo stretchy="false">(</mo><mi>b</mi><mo stretchy="false">)</mo><mo>−'
    '</mo><mi>F</mi><mo stretchy="false">(</mo><mi>a</mi><mo stretchy="false">)</mo></mstyle>'
    '</mrow><annotation encoding="application/x-tex">{\\displaystyle \\int _{a}^{b}f(x)\\,dx=F(b)'
    '-F(a)}</annotation></semantics></math></span><img src="https://wikimedia.org/x.svg" '
    'class="mwe-math-fallback-image-display" aria-hidden="true" alt="{\\displaystyle \\int '
    '_{a}^{b}f(x)\\,dx=F(b)-F(a)}"></span></dd></dl>'
)

MATHJAX3 = (
    '<p>Solve it: <mjx-container class="MathJax CtxtMenu_Attached_0" jax="CHTML" display="true" '
    'style="font-size: 119.5%; position: relative;"><mjx-math display="true" class="MJX-TEX" '
    'aria-hidden="true"><mjx-mi class="mjx-i"><mjx-c class="mjx-c1D465 TEX-I"></mjx-c></mjx-mi>'
    '<mjx-mo class="mjx-n" space="4"><mjx-c class="mjx-c3D"></mjx-c></mjx-mo><mjx-mfrac '
    'space="4"><mjx-frac type="d"><mjx-num><mjx-nstrut type="d"></mjx-nstrut><mjx-mrow>'
    '</mjx-mrow></mjx-num></mjx-frac></mjx-mfrac></mjx-math><mjx-assistive-mml unselectable="on" '
    'display="block"><math xmlns="http://www.w3.org/1998/Math/MathML" display="block"><mi>x</mi>'
    "<mo>=</mo><mfrac><mrow><mo>−</mo><mi>b</mi><mo>±</mo><msqrt><msup><mi>b</mi><mn>2</mn>"
    "</msup><mo>−</mo><mn>4</mn><mi>a</mi><mi>c</mi></msqrt></mrow><mrow><mn>2</mn><mi>a</mi>"
    "</mrow></mfrac></math></mjx-assistive-mml></mjx-container></p>"
)

MATHJAX3_INLINE = (
    '<p>where <mjx-container class="MathJax" jax="CHTML"><mjx-math class="MJX-TEX" '
    'aria-hidden="true"><mjx-mi class="mjx-n"><mjx-c class="mjx-c73"></mjx-c></mjx-mi>'
    '</mjx-math><mjx-assistive-mml unselectable="on" display="inline"><math '
    'xmlns="http://www.w3.org/1998/Math/MathML"><mi>sin</mi><mo data-mjx-texclass="NONE">\u2061'
    "</mo><mi>θ</mi><mo>≤</mo><mn>1</mn></math></mjx-assistive-mml></mjx-container> always.</p>"
)

MATHJAX2 = (
    '<p>Inline <span class="MathJax_Preview" style="color: inherit;"></span><span class="MathJax" '
    'id="MathJax-Element-1-Frame" tabindex="0" style="position: relative;" role="presentation">'
    '<nobr aria-hidden="true"><span class="math" id="MathJax-Span-1">a</span></nobr></span>'
    '<script type="math/tex" id="MathJax-Element-1">a^2+b^2=c^2</script> and display:</p>'
    '<div class="MathJax_Display"><span class="MathJax" id="MathJax-Element-2-Frame"></span></div>'
    '<script type="math/tex; mode=display" id="MathJax-Element-2">\\sum_{k=1}^{n} k = '
    "\\frac{n(n+1)}{2}</script>"
    '<script type="text/javascript">var x = "a";</script>'
)


def test_katex_inline_gives_its_tex_source() -> None:
    assert first_math(KATEX_INLINE) == ("e^{i\\pi} + 1 = 0", False)


def test_katex_display_is_display_and_stripped() -> None:
    assert first_math(KATEX_DISPLAY) == ("\\frac{1}{2}", True)


def test_katex_mathml_converts_without_its_annotation() -> None:
    without = KATEX_INLINE.replace(
        '<annotation encoding="application/x-tex">e^{i\\pi} + 1 = 0</annotation>', ""
    )
    assert "annotation" not in without
    assert first_math(without) == ("e^{i\\pi}+1=0", False)


def test_wikipedia_drops_the_displaystyle_wrapper() -> None:
    assert first_math(WIKIPEDIA_INLINE) == ("E=mc^{2}", False)
    assert first_math(WIKIPEDIA_DISPLAY) == ("\\int _{a}^{b}f(x)\\,dx=F(b)-F(a)", True)


def test_wikipedia_mathml_converts_without_its_annotation() -> None:
    start = WIKIPEDIA_DISPLAY.index("<annotation")
    end = WIKIPEDIA_DISPLAY.index("</annotation>") + len("</annotation>")
    assert first_math(WIKIPEDIA_DISPLAY[:start] + WIKIPEDIA_DISPLAY[end:]) == (
        "\\int_a^b f(x)\\,dx=F(b)-F(a)",
        True,
    )


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        ("{\\displaystyle E=mc^{2}}", "E=mc^{2}"),
        ("{\\textstyle \\frac{a}{b}}", "\\frac{a}{b}"),
        (
            "  {\\displaystyle {\\begin{aligned}a&=b\\end{aligned}}}  ",
            "{\\begin{aligned}a&=b\\end{aligned}}",
        ),
        # Not wrapping the whole source: kept as written.
        ("{\\displaystyle a}+{\\displaystyle b}", "{\\displaystyle a}+{\\displaystyle b}"),
        ("{\\displaystyle a", "{\\displaystyle a"),
        ("{\\displaystyle \\{a\\}", "{\\displaystyle \\{a\\}"),
        # An escaped brace counts for nothing, also just before the wrapper's closing brace.
        ("{\\displaystyle \\{}", "\\{"),
        ("{\\displaystyle \\{a}", "\\{a"),
        ("{\\displaystylex}", "{\\displaystylex}"),
    ],
)
def test_style_wrapper_only_when_it_wraps_everything(annotation: str, expected: str) -> None:
    body = (
        f'<semantics><mi>q</mi><annotation encoding="application/x-tex">{html.escape(annotation)}'
        "</annotation></semantics>"
    )
    assert mml(body) == (expected, False)


@pytest.mark.parametrize("encoding", ["application/x-tex", "TeX", "application/x-latex", "TEX"])
def test_tex_annotation_encodings(encoding: str) -> None:
    body = f'<semantics><mi>x</mi><annotation encoding="{encoding}">\\xi</annotation></semantics>'
    assert mml(body) == ("\\xi", False)


def test_other_annotations_are_ignored() -> None:
    body = (
        "<semantics><mrow><mi>x</mi><mo>+</mo><mn>1</mn></mrow>"
        '<annotation-xml encoding="MathML-Content"><apply><plus/><ci>x</ci><cn>1</cn></apply>'
        '</annotation-xml><annotation encoding="text/plain">x plus one</annotation></semantics>'
    )
    assert mml(body) == ("x+1", False)


def test_annotation_on_part_of_a_formula() -> None:
    body = (
        '<mi>y</mi><mo>=</mo><semantics><mi>x</mi><annotation encoding="TeX">\\xi_0'
        "</annotation></semantics>"
    )
    assert mml(body) == ("y=\\xi_0", False)


def test_mathjax3_assistive_mathml() -> None:
    assert first_math(MATHJAX3) == ("x=\\frac{-b\\pm\\sqrt{b^2-4ac}}{2a}", True)
    assert first_math(MATHJAX3_INLINE) == ("\\sin\\theta\\leq 1", False)


def test_mathjax2_scripts() -> None:
    tree = LexborHTMLParser(MATHJAX2)
    found = [script_latex(node.attributes.get("type"), node.text()) for node in tree.css("script")]
    assert found == [
        ("a^2+b^2=c^2", False),
        ("\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}", True),
        None,
    ]


@pytest.mark.parametrize(
    ("type_attr", "expected"),
    [
        ("math/tex", ("x", False)),
        ("Math/TeX", ("x", False)),
        ("math/tex; mode=display", ("x", True)),
        ("MATH/TEX ; MODE = DISPLAY", ("x", True)),
        ("math/tex;mode=display", ("x", True)),
        ("math/tex; mode=inline", ("x", False)),
        (" math/tex ", ("x", False)),
        ("text/javascript", None),
        ("math/mml", None),
        ("math/texx", None),
        ("", None),
        (None, None),
    ],
)
def test_script_types(type_attr: str | None, expected: tuple[str, bool] | None) -> None:
    assert script_latex(type_attr, " x\n") == expected


def test_script_cdata_wrapper_and_empty() -> None:
    # kramdown writes display math into a commented-out CDATA section.
    text = "% <![CDATA[\n\\begin{align} a &= b \\end{align}\n%]]>"
    assert script_latex("math/tex; mode=display", text) == (
        "\\begin{align} a &= b \\end{align}",
        True,
    )
    assert script_latex("math/tex", "   ") == ("", False)


# Presentation MathML, element by element.


@pytest.mark.parametrize(
    ("attrs", "display"),
    [
        ("", False),
        (' display="block"', True),
        (' display="BLOCK"', True),
        (' display="inline"', False),
        (' mode="display"', True),
        (' mode="inline"', False),
    ],
)
def test_display_flag(attrs: str, display: bool) -> None:
    assert mml("<mi>x</mi>", attrs) == ("x", display)


MATRIX_ROWS = (
    "<mtr><mtd><mi>a</mi></mtd><mtd><mi>b</mi></mtd></mtr>"
    "<mtr><mtd><mi>c</mi></mtd><mtd><mi>d</mi></mtd></mtr>"
)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # Sums, integrals and limits take their scripts as limits.
        (
            "<munderover><mo>∑</mo><mrow><mi>i</mi><mo>=</mo><mn>1</mn></mrow><mi>n</mi>"
            "</munderover><msup><mi>i</mi><mn>2</mn></msup><mo>=</mo><mfrac><mrow><mi>n</mi>"
            "<mo>(</mo><mi>n</mi><mo>+</mo><mn>1</mn><mo>)</mo><mo>(</mo><mn>2</mn><mi>n</mi>"
            "<mo>+</mo><mn>1</mn><mo>)</mo></mrow><mn>6</mn></mfrac>",
            "\\sum_{i=1}^n i^2=\\frac{n(n+1)(2n+1)}{6}",
        ),
        (
            "<munder><mo>∏</mo><mrow><mi>p</mi><mo>∈</mo><mi>P</mi></mrow></munder><mi>p</mi>",
            "\\prod_{p\\in P}p",
        ),
        (
            "<msubsup><mo>∫</mo><mn>0</mn><mi>∞</mi></msubsup><msup><mi>e</mi><mrow><mo>−</mo>"
            '<mi>x</mi></mrow></msup><mspace width="0.167em"/><mi>d</mi><mi>x</mi>',
            "\\int_0^{\\infty}e^{-x}\\,dx",
        ),
        (
            '<munder><mo movablelimits="true">lim</mo><mrow><mi>x</mi><mo>→</mo><mn>0</mn>'
            "</mrow></munder><mfrac><mrow><mi>sin</mi><mo>\u2061</mo><mi>x</mi></mrow><mi>x</mi>"
            "</mfrac>",
            "\\lim_{x\\to 0}\\frac{\\sin x}{x}",
        ),
        ("<munder><mi>max</mi><mi>k</mi></munder><msub><mi>a</mi><mi>k</mi></msub>", "\\max_k a_k"),
        # Scripts: braces only around more than one character.
        ("<msubsup><mi>x</mi><mi>i</mi><mn>2</mn></msubsup>", "x_i^2"),
        ("<msub><mi>a</mi><mrow><mi>i</mi><mi>j</mi></mrow></msub>", "a_{ij}"),
        ("<msup><mi>x</mi><mrow><mi>n</mi><mo>+</mo><mn>1</mn></mrow></msup>", "x^{n+1}"),
        ("<msup><mi>x</mi><mn>10</mn></msup>", "x^{10}"),
        ("<msup><mi>e</mi><mi>α</mi></msup>", "e^{\\alpha}"),
        ("<msup><mi>f</mi><mo>′</mo></msup><mo>(</mo><mi>x</mi><mo>)</mo>", "f'(x)"),
        ("<msup><mi>f</mi><mo>″</mo></msup>", "f''"),
        # A base that is itself scripted, or several atoms, is grouped.
        ("<msup><msup><mi>x</mi><mn>2</mn></msup><mn>3</mn></msup>", "{x^2}^3"),
        ("<msup><mrow><mi>a</mi><mo>+</mo><mi>b</mi></mrow><mn>2</mn></msup>", "{a+b}^2"),
        (
            "<msup><mrow><mo>(</mo><mi>a</mi><mo>+</mo><mi>b</mi><mo>)</mo></mrow><mn>2</mn></msup>",
            "(a+b)^2",
        ),
        ("<msup><mrow></mrow><mn>2</mn></msup>", "{}^2"),
        # Roots.
        ("<msqrt><mn>2</mn></msqrt>", "\\sqrt{2}"),
        ("<msqrt><mi>x</mi><mo>+</mo><mn>1</mn></msqrt>", "\\sqrt{x+1}"),
        ("<mroot><mrow><mi>x</mi><mo>+</mo><mn>1</mn></mrow><mn>3</mn></mroot>", "\\sqrt[3]{x+1}"),
        ("<mroot><mi>x</mi><mi>n</mi></mroot>", "\\sqrt[n]{x}"),
        # Fractions and binomials.
        ("<mfrac><mn>1</mn><mrow><mn>1</mn><mo>+</mo><mi>x</mi></mrow></mfrac>", "\\frac{1}{1+x}"),
        (
            '<mrow><mo>(</mo><mfrac linethickness="0"><mi>n</mi><mi>k</mi></mfrac><mo>)</mo>'
            "</mrow>",
            "\\binom{n}{k}",
        ),
        (
            '<mrow><mo fence="true">(</mo><mfrac linethickness="0px"><mi>n</mi><mn>2</mn>'
            '</mfrac><mo fence="true">)</mo></mrow>',
            "\\binom{n}{2}",
        ),
        (
            '<mfenced><mfrac linethickness="0"><mi>n</mi><mi>k</mi></mfrac></mfenced>',
            "\\binom{n}{k}",
        ),
        ('<mfrac linethickness="0"><mi>a</mi><mi>b</mi></mfrac>', "\\genfrac{}{}{0pt}{}{a}{b}"),
        ('<mfrac linethickness="2px"><mi>a</mi><mi>b</mi></mfrac>', "\\frac{a}{b}"),
        # Tables.
        (f"<mtable>{MATRIX_ROWS}</mtable>", "\\begin{matrix} a & b \\\\ c & d \\end{matrix}"),
        (
            f"<mrow><mo>(</mo><mtable>{MATRIX_ROWS}</mtable><mo>)</mo></mrow>",
            "\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}",
        ),
        (
            f'<mfenced open="[" close="]"><mtable>{MATRIX_ROWS}</mtable></mfenced>',
            "\\begin{bmatrix} a & b \\\\ c & d \\end{bmatrix}",
        ),
        (
            f"<mrow><mo>|</mo><mtable>{MATRIX_ROWS}</mtable><mo>|</mo></mrow><mo>=</mo><mi>a</mi>"
            "<mi>d</mi><mo>−</mo><mi>b</mi><mi>c</mi>",
            "\\begin{vmatrix} a & b \\\\ c & d \\end{vmatrix}=ad-bc",
        ),
        (
            "<mi>f</mi><mo>(</mo><mi>x</mi><mo>)</mo><mo>=</mo><mrow><mo>{</mo><mtable><mtr><mtd>"
            "<mi>x</mi></mtd><mtd><mtext>if</mtext><mi>x</mi><mo>≥</mo><mn>0</mn></mtd></mtr><mtr>"
            "<mtd><mo>−</mo><mi>x</mi></mtd><mtd><mtext>otherwise</mtext></mtd></mtr></mtable>"
            "<mo></mo></mrow>",
            "f(x)=\\begin{cases} x & \\text{if}x\\geq 0 \\\\ -x & \\text{otherwise} \\end{cases}",
        ),
        (
            "<mtable><mlabeledtr><mtd><mtext>(1)</mtext></mtd><mtd><mi>x</mi></mtd></mlabeledtr>"
            "</mtable>",
            "\\begin{matrix} x \\end{matrix}",
        ),
        # Fences.
        ("<mfenced><mi>a</mi><mi>b</mi></mfenced>", "(a,b)"),
        ("<mfenced><mi>x</mi></mfenced>", "(x)"),
        (
            '<mfenced open="{" close="}" separators=";"><mi>a</mi><mi>b</mi><mi>c</mi></mfenced>',
            "\\{a;b;c\\}",
        ),
        (
            '<mfenced separators="; ,"><mi>a</mi><mi>b</mi><mi>c</mi><mi>d</mi></mfenced>',
            "(a;b,c,d)",
        ),
        (
            '<mfenced open="⟨" close="⟩" separators=""><mi>u</mi><mi>v</mi></mfenced>',
            "\\langle uv\\rangle",
        ),
        ('<mfenced open="" close="]"><mi>x</mi></mfenced>', "x]"),
        # Accents and braces over and under.
        ("<mover><mi>x</mi><mo>^</mo></mover>", "\\hat{x}"),
        ('<mover accent="true"><mi>v</mi><mo>→</mo></mover>', "\\vec{v}"),
        ("<mover><mrow><mi>A</mi><mi>B</mi></mrow><mo>→</mo></mover>", "\\overrightarrow{AB}"),
        ("<mover><mi>z</mi><mo>¯</mo></mover>", "\\overline{z}"),
        ("<mover><mi>x</mi><mo>~</mo></mover>", "\\tilde{x}"),
        ("<mover><mi>x</mi><mo>˙</mo></mover>", "\\dot{x}"),
        ("<munder><mi>x</mi><mo>_</mo></munder>", "\\underline{x}"),
        (
            "<munder><munder><mrow><mi>a</mi><mo>+</mo><mi>b</mi></mrow><mo>⏟</mo></munder>"
            "<mtext>sum</mtext></munder>",
            "\\underbrace{a+b}_{\\text{sum}}",
        ),
        (
            "<mover><mover><mrow><mi>x</mi><mo>+</mo><mi>y</mi></mrow><mo>⏞</mo></mover><mi>n</mi>"
            "</mover>",
            "\\overbrace{x+y}^n",
        ),
        ("<mover><mo>→</mo><mi>f</mi></mover>", "\\overset{f}{\\to}"),
        ("<munder><mi>x</mi><mi>y</mi></munder>", "\\underset{y}{x}"),
        (
            "<munderover><mi>A</mi><mi>b</mi><mi>c</mi></munderover>",
            "\\overset{c}{\\underset{b}{A}}",
        ),
        # Tokens: letters, operators, function names, text.
        (
            "<mi>α</mi><mi>x</mi><mo>+</mo><mi>β</mi><mo>≠</mo><mi>Γ</mi><mo>·</mo><mi>Ω</mi>",
            "\\alpha x+\\beta\\neq\\Gamma\\cdot\\Omega",
        ),
        ("<mi>cos</mi><mo>\u2061</mo><mn>2</mn><mi>φ</mi>", "\\cos 2\\varphi"),
        ("<mi>log</mi><mi>n</mi><mo>×</mo><mi>exp</mi><mi>t</mi>", "\\log n\\times\\exp t"),
        (
            '<mi>x</mi><mo>∈</mo><mi>A</mi><mo>⊂</mo><mi mathvariant="double-struck">R</mi>',
            "x\\in A\\subset\\mathbb{R}",
        ),
        ("<mi>ℕ</mi><mo>⊆</mo><mi>ℤ</mi>", "\\mathbb{N}\\subseteq\\mathbb{Z}"),
        ('<mi>𝐯</mi><mo>=</mo><mi mathvariant="bold">u</mi>', "\\mathbf{v}=\\mathbf{u}"),
        ('<mi mathvariant="normal">d</mi><mi>x</mi>', "\\mathrm{d}x"),
        ('<mi mathvariant="normal">Δ</mi><mi>t</mi>', "\\Delta t"),
        ("<mi>∂</mi><mi>f</mi><mo>/</mo><mi>∂</mi><mi>x</mi>", "\\partial f/\\partial x"),
        ("<mo>∇</mo><mo>·</mo><mi>E</mi>", "\\nabla\\cdot E"),
        (
            "<mi>a</mi><mo>≤</mo><mi>b</mi><mo>≥</mo><mi>c</mi><mo>≈</mo><mi>d</mi>",
            "a\\leq b\\geq c\\approx d",
        ),
        ("<mi>a</mi><mo>±</mo><mi>b</mi><mo>→</mo><mi>∞</mi>", "a\\pm b\\to\\infty"),
        ("<mi>speed</mi><mo>=</mo><mn>3.0</mn>", "\\mathrm{speed}=3.0"),
        ("<mi> x </mi><mo> + </mo><mn> 1 </mn>", "x+1"),
        ("<mtext>if </mtext><mi>x</mi>", "\\text{if}x"),
        ("<mtext>50% of {a} &amp; b_c</mtext>", "\\text{50\\% of \\{a\\} \\& b\\_c}"),
        ("<mtext>   </mtext><mi>x</mi>", "x"),
        ("<mo>{</mo><mi>x</mi><mo>}</mo>", "\\{x\\}"),
        (
            '<mi>a</mi><mspace width="1em"/><mi>b</mi><mspace width="2em"/><mi>c</mi>',
            "a\\quad b\\qquad c",
        ),
        ("<mi>p</mi><mo>mod</mo><mi>q</mi>", "p\\bmod q"),
        ("<ms>hi</ms>", '\\text{"hi"}'),
        # Layout wrappers are transparent; mphantom writes nothing.
        (
            '<mstyle displaystyle="true"><mpadded width="+1em"><mi>x</mi></mpadded></mstyle>'
            "<mphantom><mi>y</mi></mphantom><merror><mi>z</mi></merror>",
            "xz",
        ),
        ('<maction actiontype="toggle"><mi>a</mi><mi>b</mi></maction>', "a"),
        # Enclosures.
        ('<menclose notation="box"><mi>x</mi></menclose>', "\\boxed{x}"),
        ('<menclose notation="updiagonalstrike"><mi>x</mi></menclose>', "\\cancel{x}"),
        ('<menclose notation="top"><mi>x</mi></menclose>', "\\overline{x}"),
        ("<menclose><mi>x</mi></menclose>", "x"),
        # Multiscripts.
        (
            '<mmultiscripts><mi mathvariant="normal">U</mi><mprescripts/><mn>92</mn><mn>238</mn>'
            "</mmultiscripts>",
            "{}_{92}^{238}\\mathrm{U}",
        ),
        (
            "<mmultiscripts><mi>R</mi><mi>i</mi><none/><none/><mi>j</mi></mmultiscripts>",
            "R_i{}^j",
        ),
        # Each rule at its edge (where a mutation run over the module found it untested).
        # Named spaces and em widths at the bounds of \, (above 0.1em), \; (from 0.25em), \quad
        # (from 1em) and \qquad (from 2em).
        ('<mi>a</mi><mspace width="verythinmathspace"/><mi>b</mi>', "ab"),
        ('<mi>a</mi><mspace width="thinmathspace"/><mi>b</mi>', "a\\,b"),
        ('<mi>a</mi><mspace width="mediummathspace"/><mi>b</mi>', "a\\,b"),
        ('<mi>a</mi><mspace width="thickmathspace"/><mi>b</mi>', "a\\;b"),
        ('<mi>a</mi><mspace width="0.1em"/><mi>b</mi>', "ab"),
        ('<mi>a</mi><mspace width="0.25em"/><mi>b</mi>', "a\\;b"),
        ('<mi>a</mi><mspace width="0.3em"/><mi>b</mi>', "a\\;b"),
        ('<mi>a</mi><mspace width="0.9em"/><mi>b</mi>', "a\\;b"),
        ('<mi>a</mi><mspace width="1em"/><mi>b</mi>', "a\\quad b"),
        ('<mi>a</mi><mspace width="2em"/><mi>b</mi>', "a\\qquad b"),
        # A word in an operator is an operator name from two letters on; one letter is itself.
        ("<mo>Tr</mo><mi>A</mi>", "\\operatorname{Tr}A"),
        ("<mo>d</mo><mi>x</mi>", "dx"),
        # A name in an identifier is upright from two letters on.
        ("<mi>xy</mi>", "\\mathrm{xy}"),
        # A token's text is read through any markup inside it.
        ("<mi><span>x</span></mi><mo>=</mo><mn><span>1</span></mn>", "x=1"),
        # Characters named MATHEMATICAL that are their own compatibility form pass through.
        ("<mo>⟦</mo><mi>x</mi><mo>⟧</mo>", "⟦x⟧"),
        # A root's index that holds "]" is braced, so that it does not close the optional argument.
        (
            "<mroot><mi>x</mi><mrow><mo>[</mo><mi>n</mi><mo>]</mo></mrow></mroot>",
            "\\sqrt[{[n]}]{x}",
        ),
        # An empty row keeps its place in a table.
        (
            "<mtable><mtr><mtd><mi>a</mi></mtd></mtr><mtr><mtd></mtd></mtr>"
            "<mtr><mtd><mi>b</mi></mtd></mtr></mtable>",
            "\\begin{matrix} a \\\\  \\\\ b \\end{matrix}",
        ),
        # Parentheses around a table are a pmatrix also when a row wraps the table, and what
        # follows or precedes the pair stays.
        (
            "<mo>(</mo><mrow><mtable><mtr><mtd><mi>a</mi></mtd></mtr></mtable></mrow><mo>)</mo>",
            "\\begin{pmatrix} a \\end{pmatrix}",
        ),
        (
            "<mi>x</mi><mi>y</mi><mo>(</mo><mtable><mtr><mtd><mi>a</mi></mtd></mtr></mtable>"
            "<mo>)</mo><mi>u</mi><mi>v</mi>",
            "xy\\begin{pmatrix} a \\end{pmatrix}uv",
        ),
        # Only an open brace before a final table makes cases: a bracket does not.
        (
            "<mo>[</mo><mtable><mtr><mtd><mi>a</mi></mtd></mtr></mtable>",
            "[\\begin{matrix} a \\end{matrix}",
        ),
        # A fenced row is one group under a script; a row that only starts with a fence is
        # braced as any sequence.
        ("<msup><mrow><mo>(</mo><mi>a</mi><mo>)</mo></mrow><mn>2</mn></msup>", "(a)^2"),
        (
            "<msup><mrow><mo>(</mo><mi>a</mi><mo>)</mo><mi>b</mi></mrow><mn>2</mn></msup>",
            "{(a)b}^2",
        ),
        # Every pair of pre- and post-scripts, in order.
        (
            "<mmultiscripts><mi>R</mi><mi>i</mi><mi>j</mi><mi>k</mi><mi>l</mi><mi>m</mi><mi>n</mi>"
            "<mprescripts/><mi>a</mi><mi>b</mi><mi>c</mi><mi>d</mi></mmultiscripts>",
            "{}_a^b{}_c^d R_i^j{}_k^l{}_m^n",
        ),
        # Multiscripts without scripts are their base, and scripts on them brace them only
        # when they carry scripts of their own.
        ("<msup><mmultiscripts><mi>X</mi></mmultiscripts><mn>2</mn></msup>", "X^2"),
        (
            "<msup><mmultiscripts><mi>X</mi><mi>a</mi><none/></mmultiscripts><mn>2</mn></msup>",
            "{X_a}^2",
        ),
    ],
)
def test_presentation_mathml(body: str, expected: str) -> None:
    assert mml(body) == (expected, False)


@pytest.mark.parametrize(
    ("container", "expected"),
    [
        ("<mjx-container>", ("x^2", False)),
        ('<mjx-container display="true">', ("x^2", True)),
        ('<mjx-container display="block">', ("x^2", True)),
        ('<mjx-container display="false">', ("x^2", False)),
        ('<mjx-container display="inline">', ("x^2", False)),
    ],
)
def test_mathjax3_container_gives_its_assistive_mathml(
    container: str, expected: tuple[str, bool]
) -> None:
    page = (
        f"<html><body><p>{container}<mjx-math><mjx-mi>x</mjx-mi></mjx-math><mjx-assistive-mml>"
        '<math xmlns="http://www.w3.org/1998/Math/MathML"><msup><mi>x</mi><mn>2</mn></msup>'
        "</math></mjx-assistive-mml></mjx-container></p></body></html>"
    )
    node = LexborHTMLParser(page).css_first("mjx-container")
    assert node is not None
    assert container_latex(node) == expected
    empty = LexborHTMLParser("<mjx-container><mjx-math></mjx-math></mjx-container>")
    assert container_latex(empty.css_first("mjx-container")) is None


def test_quadratic_formula() -> None:
    body = (
        "<mi>x</mi><mo>=</mo><mfrac><mrow><mo>−</mo><mi>b</mi><mo>±</mo><msqrt><msup><mi>b</mi>"
        "<mn>2</mn></msup><mo>−</mo><mn>4</mn><mi>a</mi><mi>c</mi></msqrt></mrow><mrow><mn>2</mn>"
        "<mi>a</mi></mrow></mfrac>"
    )
    assert mml(body, ' display="block"') == ("x=\\frac{-b\\pm\\sqrt{b^2-4ac}}{2a}", True)


def test_formatted_source_whitespace_is_not_content() -> None:
    body = """
      <mrow>
        <mfrac>
          <mi> a </mi>
          <mi> b </mi>
        </mfrac>
        <!-- a comment -->
        <msup>
          <mi>x</mi>
          <mn>2</mn>
        </msup>
      </mrow>
    """
    assert mml(body) == ("\\frac{a}{b}x^2", False)


# Odd input.


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("", ""),
        ("   ", ""),
        ("<mrow></mrow>", ""),
        ("<mfrac></mfrac>", "\\frac{}{}"),
        ("<msup></msup>", ""),
        ("<msub><mi>x</mi></msub>", "x"),
        ("<mroot><mi>x</mi></mroot>", "\\sqrt{x}"),
        ("<mtable></mtable>", ""),
        ("<mfenced></mfenced>", "()"),
        ("<semantics></semantics>", ""),
        ('<semantics><annotation encoding="TeX"></annotation></semantics>', ""),
        ("<mmultiscripts></mmultiscripts>", ""),
        ("x+1", "x+1"),
        ("<foo><bar><mi>y</mi></bar></foo>", "y"),
        ("<mi></mi><mo></mo><mn></mn>", ""),
        ("<mi>x</mi><annotation>stray</annotation>", "x"),
    ],
)
def test_odd_input(body: str, expected: str) -> None:
    assert mml(body) == (expected, False)


@pytest.mark.parametrize("tag", ["mrow", "msqrt", "mfrac", "msup", "mstyle", "unknown"])
def test_deep_nesting(tag: str) -> None:
    depth = 10_000
    body = f"<{tag}>" * depth + "<mi>x</mi>" + f"</{tag}>" * depth
    latex, display = mml(body)
    assert not display
    assert latex == {
        "msqrt": "\\sqrt{" * depth + "x" + "}" * depth,
        "mfrac": "\\frac{" * depth + "x" + "}{}" * depth,
    }.get(tag, "x")


def test_not_a_math_element() -> None:
    node = LexborHTMLParser("<div><mi>x</mi><p>text &amp; {more}</p></div>").css_first("div")
    latex, display = math_latex(node)
    assert balanced(latex)
    assert not display


# Properties.

TOKENS = {
    "mi": ["x", "y", "α", "Ω", "sin", "lim", "ab", "{", "}", "\\", "_", "^", "%", "#", "ℝ", ""],
    "mn": ["0", "1", "42", "3.5", "−1"],
    "mo": ["+", "=", "(", ")", "[", "]", "{", "}", "|", "‖", "∑", "∫", "lim", "→", "^", "¯",
           "⏟", "⏞", "′", "&", "\u2061", "mod", "~", "\\"],
    "mtext": ["if", "a {b} c", "\\", "50%", " ", "x_1^2"],
}  # fmt: skip
LAYOUT = [
    "mrow", "mfrac", "msqrt", "mroot", "msup", "msub", "msubsup", "munder", "mover",
    "munderover", "mtable", "mtr", "mtd", "mfenced", "mstyle", "mpadded", "mphantom",
    "menclose", "semantics", "mmultiscripts", "maction", "merror", "unknown",
]  # fmt: skip
ATTRIBUTES = st.sampled_from(
    [
        "",
        ' linethickness="0"',
        ' open="{" close="}"',
        ' open="" close="|" separators=";,"',
        ' open="\\" close="[" separators="}{"',
        ' notation="box"',
        ' notation="radical top"',
        ' mathvariant="bold"',
    ]
)

leaves = st.one_of(
    st.sampled_from([(tag, text) for tag, texts in TOKENS.items() for text in texts]).map(
        lambda pair: f"<{pair[0]}>{html.escape(pair[1])}</{pair[0]}>"
    ),
    st.sampled_from(["<none/>", "<mprescripts/>", '<mspace width="1em"/>', "z", "{", "\\"]),
)
trees = st.recursive(
    leaves,
    lambda children: st.builds(
        lambda tag, attrs, kids: f"<{tag}{attrs}>{''.join(kids)}</{tag}>",
        st.sampled_from(LAYOUT),
        ATTRIBUTES,
        st.lists(children, max_size=4),
    ),
    max_leaves=30,
)


@given(trees, st.booleans())
def test_random_trees_convert_with_balanced_braces(body: str, block: bool) -> None:
    latex, display = mml(body, ' display="block"' if block else "")
    assert display == block
    assert balanced(latex), latex
    assert latex == latex.strip()
    # Every environment opened is closed.
    assert latex.count("\\begin{") == latex.count("\\end{")


annotation_text = st.text(
    st.characters(exclude_categories=("Cs", "Cc"), include_characters="\t\n"), max_size=40
).filter(lambda text: not text.lstrip().startswith(("{\\displaystyle", "{\\textstyle")))


@given(trees, annotation_text, st.sampled_from(["application/x-tex", "TeX", "application/x-latex"]))
def test_annotation_wins_over_any_tree(body: str, tex: str, encoding: str) -> None:
    semantics = (
        f'<semantics><mrow>{body}</mrow><annotation encoding="{encoding}">{html.escape(tex)}'
        "</annotation></semantics>"
    )
    assert mml(semantics) == (tex.strip(), False)


balanced_tex = st.recursive(
    st.text(st.sampled_from("abx+-=^_12 ,"), max_size=6),
    lambda inner: st.one_of(
        inner.map(lambda text: "{" + text + "}"),
        st.lists(inner, min_size=2, max_size=3).map("".join),
    ),
    max_leaves=8,
)


@given(balanced_tex, st.sampled_from(["displaystyle", "textstyle"]))
def test_style_wrapper_unwraps_any_balanced_source(inner: str, style: str) -> None:
    wrapped = f"{{\\{style} {inner}}}"
    annotated = (
        f'<semantics><mi>q</mi><annotation encoding="TeX">{wrapped}</annotation></semantics>'
    )
    assert mml(annotated) == (inner.strip(), False)
    # Something after the wrapper: it no longer wraps the whole source.
    annotated = annotated.replace("</annotation>", "+c</annotation>")
    assert mml(annotated) == (wrapped + "+c", False)
