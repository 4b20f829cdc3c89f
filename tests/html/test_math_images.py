"""Formulas drawn as pictures (pipeline.html.math_images): the TeX beside the picture comes out as
LaTeX, in the block's text and as $...$ / $$...$$ in the Markdown; ordinary pictures stay out.

The two real pages are excerpts as their repositories hold them; every expected formula is read
off the alt text (or address) by hand.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

import pipeline
from pipeline.html.math_images import MAX_IMAGE_TEX_CHARS, image_latex, may_be_math_image
from pipeline.html.segment import parse, segment

# blancosilva/blancosilva.github.io, _posts/2010-12-01-fixed-point-theorems.md: a WordPress.com
# post ("Borsuk-Ulam and Fixed Point Theorems") as exported, its formulas Jetpack's LaTeX images.
WORDPRESS = (
    "<p>This implies, as we announced before, the existence of a sequence of points "
    '<img src="https://s0.wp.com/latex.php?latex=x_n+%5Cin+%5Coverline%7BB_d%7D&#038;bg=ffffff'
    '&#038;fg=555555&#038;s=0" alt="x_n &#92;in &#92;overline{B_d}" '
    'title="x_n &#92;in &#92;overline{B_d}" class="latex" /> satisfying '
    '<img src="https://s0.wp.com/latex.php?latex=h_n%28x_n%29+%3D+x_n.&#038;bg=ffffff&#038;'
    'fg=555555&#038;s=0" alt="h_n(x_n) = x_n." title="h_n(x_n) = x_n." class="latex" /> '
    "The compactness of the ball guarantees a convergent subsequence. Let "
    '<img src="https://s0.wp.com/latex.php?latex=q+%3C+1&#038;bg=F4F5F7&#038;fg=555555&#038;s=0" '
    'alt="q &lt; 1" title="q &lt; 1" class="latex" /> be the contraction constant.</p>'
    '<p style="text-align:center;"><img src="https://s0.wp.com/latex.php?latex=%5Cdisplaystyle'
    '%7Bf%28x_0%29+%3D+x_0%7D%2C&#038;bg=ffffff&#038;fg=555555&#038;s=0" '
    'alt="&#92;displaystyle{f(x_0) = x_0}," title="&#92;displaystyle{f(x_0) = x_0}," '
    'class="latex" /></p>'
)

# marctorsoc/marctorsoc.github.io, _posts/2017-12-17-pdf-of-the-sum-of-independent-random-
# variables.md: QuickLaTeX's output, the TeX entity-encoded in the alt text, a displayed equation
# with its number.
QUICKLATEX = (
    '<p class="ql-center-displayed-equation" style="line-height: 44px;">'
    '<span class="ql-right-eqno"> (1) </span><span class="ql-left-eqno"> &nbsp; </span>'
    '<img src="/wp-content/ql-cache/quicklatex.com-9acd5563b0a1379d4fa24b168d1b3b7a_l3.png" '
    'height="44" width="79" class="ql-img-displayed-equation quicklatex-auto-format" '
    'alt="&#92;&#98;&#101;&#103;&#105;&#110;&#123;&#97;&#108;&#105;&#103;&#110;&#42;&#125;&#88;'
    "&#32;&#92;&#115;&#105;&#109;&#38;&#32;&#102;&#95;&#88;&#40;&#120;&#41;&#32;&#92;&#92;&#32;"
    "&#89;&#32;&#92;&#115;&#105;&#109;&#38;&#32;&#102;&#95;&#89;&#40;&#121;&#41;&#32;&#92;&#101;"
    '&#110;&#100;&#123;&#97;&#108;&#105;&#103;&#110;&#42;&#125;" title="Rendered by '
    'QuickLaTeX.com" /></p><p style="text-align: justify;">This notation denotes that each '
    "random variable follows a different probability distribution. Our purpose is to compute "
    'the pdf of its sum <img src="/wp-content/ql-cache/quicklatex.com-7e3a6e078392ca7a17a7a92efd'
    '1303a2_l3.png" class="ql-img-inline-formula quicklatex-auto-format" alt="&#90;&#32;&#61;'
    '&#32;&#88;&#43;&#89;" title="Rendered by QuickLaTeX.com" height="14" width="88" '
    'style="vertical-align: -2px;" />. To do so, I will start from the cdf.</p>'
)


def page(body: str) -> str:
    return f"<html><body><article><h1>Notes</h1>{body}</article></body></html>"


def formulas(html: str) -> list[tuple[str, str]]:
    """Every math span of the page's blocks: (kind, LaTeX)."""
    out = []
    for block in segment(parse(html)):
        for start, end, kind in block.shape.spans if block.shape else ():
            if "math" in kind:
                out.append((kind, block.text[start:end]))
    return out


def image(attrs: str) -> tuple[str, bool] | None:
    node = LexborHTMLParser(f"<p><img {attrs}></p>").css_first("img")
    assert node is not None
    return image_latex(node.attributes, node)


def test_wordpress_latex_images_give_their_tex() -> None:
    assert formulas(page(WORDPRESS)) == [
        ("math", "x_n \\in \\overline{B_d}"),
        ("math", "h_n(x_n) = x_n."),
        ("math", "q < 1"),
        ("math", "\\displaystyle{f(x_0) = x_0},"),
    ]
    result = pipeline.clean_html(page(WORDPRESS), language="en")
    assert "sequence of points $x_n \\in \\overline{B_d}$ satisfying $h_n(x_n) = x_n.$" in (
        result.markdown
    )
    assert "x_n \\in \\overline{B_d}" in result.text
    assert result.structure == ("math",)


def test_quicklatex_displayed_and_inline() -> None:
    assert formulas(page(QUICKLATEX)) == [
        ("display_math", "\\begin{align*}X \\sim& f_X(x) \\\\ Y \\sim& f_Y(y) \\end{align*}"),
        ("math", "Z = X+Y"),
    ]
    markdown = pipeline.clean_html(page(QUICKLATEX), language="en").markdown
    # (a formula is followed by a space in the text, wherever it stands)
    assert "the pdf of its sum $Z = X+Y$ . To do so" in markdown


@pytest.mark.parametrize(
    ("attrs", "expected"),
    [
        # Zhihu: the TeX in the address, the alt text a placeholder.
        (
            'src="https://www.zhihu.com/equation?tex=%5Cfrac%7BTP%7D%7BTP%2BFN%7D" alt="[公式]" '
            'eeimg="1"',
            ("\\frac{TP}{TP+FN}", False),
        ),
        (
            'src="https://www.zhihu.com/equation?tex=+%5Calpha+%3D+%5Cfrac%7Bn%7D%7Bb%7D+" '
            'alt=" \\alpha = \\frac{n}{b} " class="ee_img tr_noresize" eeimg="1"',
            ("\\alpha = \\frac{n}{b}", False),
        ),
        # CodeCogs: the query is the TeX, after its rendering options; "+" is a plus.
        (
            'src="https://latex.codecogs.com/png.latex?\\dpi{110}&space;\\bg_white&space;a+b^2"',
            ("a+b^2", False),
        ),
        (
            'src="https://latex.codecogs.com/svg.image?%5Cfrac%7B1%7D%7B2%7D"',
            ("\\frac{1}{2}", False),
        ),
        ('src="/cgi-bin/mimetex.cgi?x^2+y^2"', ("x^2+y^2", False)),
        # CSDN's editor, old MediaWiki, Sphinx's imgmath inline and displayed.
        (
            'class="mathcode" src="https://latex.csdn.net/x.png" alt="\\sum_i x_i"',
            ("\\sum_i x_i", False),
        ),
        ('class="tex" src="/images/math/8/a/f/8af.png" alt="E=mc^2"', ("E=mc^2", False)),
        ('class="math" src="_images/math/0a1b.png" alt="\\alpha"', ("\\alpha", False)),
        ('src="../_images/math/0a1b.png" alt="\\int_0^1 f"', ("\\int_0^1 f", True)),
        # LaTeX2HTML: the alt text is TeX between its delimiters.
        ('src="img12.png" alt="$\\alpha_1$"', ("\\alpha_1", False)),
        ('src="img13.png" alt="$$\\sum_{k=1}^n k$$"', ("\\sum_{k=1}^n k", True)),
        ('src="img14.png" alt="\\[ a = b \\]"', ("a = b", True)),
        # the shortest: one character between the dollars
        ('src="img15.png" alt="$x$"', ("x", False)),
        # A lazy-loaded one: the placeholder in src, the address in data-src.
        (
            'src="data:image/gif;base64,R0lGOD" data-src="https://s0.wp.com/latex.php?latex=y" '
            'class="latex lazyload" alt="y"',
            ("y", False),
        ),
        # WordPress without alt text: the address's latex= parameter.
        (
            'src="https://s0.wp.com/latex.php?latex=%5Cpi+r%5E2&bg=fff" class="latex"',
            ("\\pi r^2", False),
        ),
        # Wikipedia's fallback image standing alone.
        (
            'class="mwe-math-fallback-image-display" src="https://wikimedia.org/api/rest_v1/media'
            '/math/render/svg/ab" alt="{\\displaystyle x^{2}}"',
            ("x^{2}", True),
        ),
    ],
)
def test_other_sources(attrs: str, expected: tuple[str, bool]) -> None:
    assert image(attrs) == expected
    node = LexborHTMLParser(f"<p><img {attrs}></p>").css_first("img")
    assert node is not None and may_be_math_image(node.attributes)


@pytest.mark.parametrize(
    "attrs",
    [
        # Pictures of the dev pages the compiled walk's first test took for formulas.
        'src="https://www.gstatic.com/cloud/images/navigation/vertex-ai.png"',
        'src="//www.brooklinen.com/cdn/shop/files/OEKO-TEX_17.HUS.08214_BLACK.png"',
        'src="https://i.iplsc.com/-/00028TEX225JC13F-C410.jpg"',
        'alt="$9K Sound Check Giveaway, now thru Mar. 31"',
        'alt="$alttext"',
        'class="text-center img-fluid" src="/a.png" alt="A photo"',
        'src="/shop/latex-gloves-100.jpg" alt="Latex gloves"',
        'src="data:image/png;base64,AAAtex=latex.php?" alt="x"',
        'class="photo" alt="$"',
        'alt="Price: $5 to $10"',
    ],
)
def test_ordinary_pictures_are_not_formulas(attrs: str) -> None:
    assert image(attrs) is None
    node = LexborHTMLParser(f"<p><img {attrs}></p>").css_first("img")
    assert node is not None and not may_be_math_image(node.attributes)


def test_wikipedia_fallback_image_beside_its_mathml_is_not_taken_twice() -> None:
    html = page(
        '<p>Let <span class="mwe-math-element"><span class="mwe-math-mathml-inline" '
        'style="display: none;"><math><semantics><mrow><msup><mi>x</mi><mn>2</mn></msup></mrow>'
        '<annotation encoding="application/x-tex">{\\displaystyle x^{2}}</annotation>'
        '</semantics></math></span><img src="https://wikimedia.org/api/rest_v1/media/math/render'
        '/svg/ab" class="mwe-math-fallback-image-inline" alt="{\\displaystyle x^{2}}"></span> '
        "be the square of the number that the reader chose at the start of the proof.</p>"
    )
    assert formulas(html) == [("math", "x^{2}")]


def test_a_formula_over_the_cap_is_not_taken() -> None:
    long_tex = "x+" * (MAX_IMAGE_TEX_CHARS // 2) + "y"
    assert image(f'class="latex" alt="{long_tex}"') is None
    assert image(f'class="latex" alt="{long_tex[: MAX_IMAGE_TEX_CHARS - 1]}"') is not None


def test_inside_pre_an_image_is_not_read() -> None:
    html = page('<pre>code <img class="latex" alt="x^2"> more</pre>')
    assert formulas(html) == []


_ATTRIBUTE_PIECES = st.lists(
    st.tuples(
        st.sampled_from(["class", "src", "alt", "data-src", "title", "data-lazy-src", "eeimg"]),
        st.lists(
            st.sampled_from(
                [
                    "latex",
                    "tex",
                    "math",
                    "mathcode",
                    "ql-img-inline-formula",
                    "ee_img",
                    "mwe-math-fallback-image-inline",
                    "text",
                    "vortex",
                    "/",
                    ".",
                    "?",
                    "=",
                    "$",
                    "\\",
                    "\\(",
                    "\\)",
                    "\\[",
                    "\\]",
                    "$$",
                    " ",
                    "x^2",
                    "latex.php?latex=",
                    "equation?tex=",
                    "codecogs.com/",
                    "mimetex.cgi?",
                    "_images/math/",
                    "data:",
                    "[公式]",
                    "é",
                    "TEX",
                    "LaTeX",
                    "&space;",
                    "%5C",
                    "{",
                    "}",
                ]
            ),
            max_size=6,
        ).map("".join),
    ),
    max_size=4,
)


@settings(max_examples=400, deadline=None)
@given(_ATTRIBUTE_PIECES)
# images whose class alone says they are formulas: the class word ends the attribute
@example([("class", "latex"), ("alt", "x^2")])
@example([("class", "tex"), ("alt", "a+b")])
@example([("alt", "x"), ("class", "img latex")])
def test_the_cheap_test_passes_every_formula_image(pieces: list[tuple[str, str]]) -> None:
    """The compiled walk hands a page to the Python walk only when an image passes the cheap
    test: an image that gives LaTeX must always pass it, or the two walks would differ."""
    attrs = dict(pieces)
    if image_latex(attrs) is not None:
        assert may_be_math_image(attrs), attrs
