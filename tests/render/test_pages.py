"""From HTML to Markdown: a fixture page for each structure, through the segmentation walk and
the renderer (every block kept, so the cleaner's decisions do not enter), and one article through
the whole library call with the default cleaner.

The expected Markdown is written from what each page shows in a browser.
"""

from __future__ import annotations

from pipeline.clean import clean_html
from pipeline.html.segment import segment
from pipeline.render.blocks import render


def _markdown(html: str) -> str:
    return render(segment(html)).markdown


def _text(html: str) -> str:
    return render(segment(html), markdown=False).text


def test_headings_page() -> None:
    assert _markdown("<h1>Guide</h1><p>Intro.</p><h2>Install</h2><h3>On Linux</h3>") == (
        "# Guide\n\nIntro.\n\n## Install\n\n### On Linux"
    )


def test_nested_lists_page() -> None:
    html = "<ul><li>Fruit<ul><li>Apple</li><li>Pear</li></ul></li><li>Bread</li></ul>"
    html += "<ol><li>First</li><li>Second</li></ol>"
    # A new list of another kind follows on the next line: CommonMark starts a new list there.
    assert _markdown(html) == "- Fruit\n  - Apple\n  - Pear\n- Bread\n1. First\n1. Second"


def test_table_page() -> None:
    html = (
        "<table><thead><tr><th>Plan</th><th>Price | month</th></tr></thead><tbody>"
        "<tr><td>Free</td><td>0</td></tr><tr><td>Pro</td><td>10</td></tr></tbody></table>"
    )
    assert _markdown(html) == (
        "| Plan | Price \\| month |\n| --- | --- |\n| Free | 0 |\n| Pro | 10 |"
    )
    assert _text(html) == "Plan\tPrice | month\nFree\t0\nPro\t10"


def test_code_page() -> None:
    code = 'def greet(name):\n    """Say hello."""\n\n\tprint(f"hi {name}")\n'
    html = f'<p>Example:</p><div class="highlight-python"><pre>{code}</pre></div>'
    # Every line as the browser shows it: the final line feed shows no blank line of its own.
    shown = code.removesuffix("\n")
    assert _markdown(html) == f"Example:\n\n```python\n{shown}\n```"
    assert _text(html) == f"Example:\n\n{shown}"


def test_quote_page() -> None:
    html = "<blockquote><p>To be, or not to be.</p><ul><li>Hamlet</li></ul></blockquote>"
    assert _markdown(html) == "> To be, or not to be.\n>\n> - Hamlet"


def test_inline_code_and_math_page() -> None:
    html = (
        "<p>Run <code>pip install x</code> where <math><msup><mi>x</mi><mn>2</mn></msup>"
        "</math> grows.</p><p><script type='math/tex; mode=display'>\\int_0^1 f</script></p>"
    )
    assert _markdown(html) == ("Run `pip install x` where $x^2$ grows.\n\n$$\n\\int_0^1 f\n$$")


def test_an_article_through_the_default_cleaner_keeps_its_code_and_table() -> None:
    prose = (
        "The parser reads the whole file once and keeps every record it finds, which matters "
        "when a crawl holds millions of pages and a single lost record is hard to notice later. "
    )
    code = "for record in reader:\n    if record.ok:\n        write(record)\n"
    html = (
        "<html><head><title>Reading WARC files</title></head><body>"
        "<nav><ul><li><a href=/>Home</a></li><li><a href=/blog>Blog</a></li></ul></nav>"
        f"<article><h1>Reading WARC files</h1><p>{prose * 2}</p><pre><code>{code}</code></pre>"
        f"<p>{prose}</p><table><tr><th>Format</th><th>Records per second</th></tr>"
        "<tr><td>WARC</td><td>12,000</td></tr><tr><td>ARC</td><td>9,500</td></tr></table>"
        f"<p>{prose}</p></article><footer><p>Copyright 2026</p></footer></body></html>"
    )
    result = clean_html(html)
    shown = code.removesuffix("\n")  # a final line feed shows no line of its own
    assert f"```\n{shown}\n```" in result.markdown
    assert "| Format | Records per second |\n| --- | --- |\n| WARC | 12,000 |" in result.markdown
    assert "Format\tRecords per second\nWARC\t12,000\nARC\t9,500" in result.text
    assert result.structure == ("code", "table")
