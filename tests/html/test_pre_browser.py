"""A ``<pre>``'s text as the walk gives it (`Shape.raw`) against the lines headless Chromium lays
out for it: each character's box read off the page, grouped into lines by height, blank lines
counted from the gaps. What the browser draws, not ``innerText``, which puts a blank line after a
block ending in ``<br>`` that no reader sees.

Skipped with a reason where no Chromium is installed (Debian: ``apt-get install chromium``).
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pipeline.html.segment import segment

BROWSER = next(
    (
        shutil.which(name)
        for name in ("chromium", "chromium-browser", "google-chrome", "chrome")
        if shutil.which(name)
    ),
    None,
)
pytestmark = [
    pytest.mark.skipif(BROWSER is None, reason="no headless Chromium installed"),
    pytest.mark.timeout(180),
]

# Inside a <pre>: block elements, line feeds, <br>, and the line spans highlighters' style sheets
# make blocks (given here the rule Gatsby's and prism-react-renderer's style sheets carry).
PRES = [
    "<div>a {<br></div><div><br></div><div>  b<br></div><div>}</div>",
    "<div>a</div>\n<div>b</div>",
    "<div>a\n</div><div>b</div>",
    "top<div>mid</div>tail",
    "<p>one</p><p>two</p><ul><li>three</li><li>  four</li></ul>",
    "x<br>  y<br><br>z",
    "a\n\n\tb\n",
    "<code><span class=line>a</span>\n<span class=line>  b</span>\n</code>",
    "<code>x\n<span class='gatsby-highlight-code-line'>a;</span><span "
    "class='gatsby-highlight-code-line'></span><span class='gatsby-highlight-code-line'>  b"
    "</span>c</code>",
    "<span class=token-line>a<br></span><span class=token-line>b</span>",
    "<div class=line><span>const</span> <span>x</span> = 1;</div><div class=line></div>"
    "<div class=line>  <span>return</span> x;</div>",
    "<section><div>deep</div><div><div><div>deeper</div></div></div></section>after",
    "<div>a</div>  <div>b</div>",
]
STYLE = (
    "pre, pre * { margin: 0; padding: 0; border: 0; font: 16px/20px monospace; }"
    " .gatsby-highlight-code-line, .token-line { display: block; }"
)
# Per <pre>: every character's line (its box's top over the line height) and left edge; lines
# with no character between two that have one are blank.
SCRIPT = """
var out = [];
document.querySelectorAll('pre').forEach(function (pre) {
  var top0 = pre.getBoundingClientRect().top, rows = {};
  var walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT), node;
  while ((node = walker.nextNode())) {
    for (var i = 0; i < node.data.length; i++) {
      if (node.data[i] === '\\n') continue;
      var range = document.createRange();
      range.setStart(node, i); range.setEnd(node, i + 1);
      var box = range.getClientRects()[0];
      if (!box || box.width === 0) continue;
      var row = Math.round((box.top - top0) / 20);
      (rows[row] = rows[row] || []).push([box.left, node.data[i]]);
    }
  }
  var keys = Object.keys(rows).map(Number).sort(function (a, b) { return a - b; });
  var lines = [], last = null;
  keys.forEach(function (k) {
    if (last !== null) for (var j = last + 1; j < k; j++) lines.push('');
    lines.push(rows[k].sort(function (a, b) { return a[0] - b[0]; })
      .map(function (c) { return c[1]; }).join(''));
    last = k;
  });
  out.push(lines.join('\\n'));
});
var result = document.createElement('textarea');
result.id = 'lines';
result.textContent = JSON.stringify(out);
document.body.appendChild(result);
"""


def drawn_lines(tmp_path: Path, pres: list[str]) -> list[str]:
    page = tmp_path / "pres.html"
    body = "".join(f"<pre>{pre}</pre>" for pre in pres)
    page.write_text(
        f"<!DOCTYPE html><html><head><meta charset=utf-8><style>{STYLE}</style></head>"
        f"<body>{body}<script>{SCRIPT}</script></body></html>",
        "utf-8",
    )
    profile = tmp_path / "profile"
    profile.mkdir()
    proc = subprocess.run(
        [
            str(BROWSER),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            f"--user-data-dir={profile}",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    found = re.search(r'<textarea id="lines">(.*?)</textarea>', proc.stdout, re.S)
    assert found, proc.stderr[-2000:]
    return json.loads(html.unescape(found.group(1)))


def _lines(text: str) -> list[str]:
    """Lines with trailing blanks dropped (no box to see), and blank lines at the edges."""
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def test_the_walk_gives_the_lines_chromium_draws(tmp_path: Path) -> None:
    drawn = drawn_lines(tmp_path, PRES)
    assert len(drawn) == len(PRES)
    for pre, lines in zip(PRES, drawn, strict=True):
        (block,) = segment(f"<pre>{pre}</pre>")
        assert _lines(block.shape.raw) == _lines(lines), pre
