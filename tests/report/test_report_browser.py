"""The report and the viewer in a real headless browser: rendered, not blank, and inert.

Skipped with a reason where no Chromium is installed (Debian: ``apt-get install chromium``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from pipeline.jobconfig import JobConfig
from pipeline.report import charts
from pipeline.report.run_report import write_report
from pipeline.run import process_warc
from tests.jobhelpers import make_inputs

PIL = pytest.importorskip("PIL.Image", reason="Pillow (a matplotlib dependency) reads the PNG")
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
# Text of a page that would run if the viewer let it through as markup.
XSS_PAGE = (
    "<html><body><p>&lt;script&gt;document.documentElement.setAttribute('data-xss','1')"
    "&lt;/script&gt; The council met on Tuesday and agreed, after a long debate about the cost,"
    " that the bridge over the river will be built next spring by the town's own workers.</p>"
    "<p>&lt;img src=x onerror=\"document.documentElement.setAttribute('data-xss','2')\"&gt; "
    "A second paragraph of ordinary prose follows, long enough for a cleaner to keep.</p>"
    "</body></html>"
)


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    return subprocess.run(
        [
            str(BROWSER),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def screenshot(tmp_path: Path, page: Path, size: str = "1280,1600") -> tuple[int, float]:
    """(distinct colours, share of non-white pixels) of the rendered page."""
    png = tmp_path / f"{page.stem}.png"
    proc = chromium(tmp_path, f"--screenshot={png}", f"--window-size={size}", page.as_uri())
    assert png.exists(), proc.stderr[-2000:]
    rgb = np.asarray(PIL.open(png).convert("RGB")).reshape(-1, 3)
    white = int(np.count_nonzero((rgb == 255).all(axis=1)))
    return len(np.unique(rgb, axis=0)), 1 - white / len(rgb)


def dom(tmp_path: Path, page: Path) -> str:
    """The document after the browser loaded it (and ran whatever it would run)."""
    proc = chromium(tmp_path, "--dump-dom", page.as_uri())
    assert "<html" in proc.stdout, proc.stderr[-2000:]
    return proc.stdout


@pytest.fixture(scope="module")
def output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("browser")
    out = root / "out"
    for inp in make_inputs(root / "in", n=2):
        process_warc(inp, JobConfig(output=str(out), cleaner="justext"))
    return out


def test_report_renders_with_its_charts(output: Path, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    write_report(str(output), str(page))
    colours, ink = screenshot(tmp_path, page)
    # A blank or unstyled page has a handful of colours; the report's charts and cards, many.
    assert colours > (50 if charts.available() else 8) and ink > 0.02
    assert "<svg" in dom(tmp_path, page) or not charts.available()


def test_viewer_renders_and_runs_no_page_script(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from pipeline.cli import main as warcclean

    source = tmp_path / "xss.html"
    source.write_text(XSS_PAGE)
    page = tmp_path / "view.html"
    result = CliRunner().invoke(
        warcclean, ["show", str(source), "-o", str(page), "--compare", "justext"]
    )
    assert result.exit_code == 0, result.output
    colours, ink = screenshot(tmp_path, page)
    assert colours > 8 and ink > 0.02
    # The page's security policy forbids scripts anyway; without it, escaping alone must hold.
    html = page.read_text()
    assert 'http-equiv="Content-Security-Policy"' in html
    bare = tmp_path / "view-without-policy.html"
    bare.write_text(re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html))
    for loaded in (dom(tmp_path, page), dom(tmp_path, bare)):
        assert "data-xss" not in loaded.split("<body", 1)[0]  # no attribute set on <html>
        assert "&lt;script&gt;document.documentElement" in loaded  # shown as text


def test_viewer_shows_the_markdown_of_a_page_with_a_table_and_code(tmp_path: Path) -> None:
    import dataclasses

    from selectolax.lexbor import LexborHTMLParser

    from pipeline.clean import clean_html
    from pipeline.report.page_view import render_page, view_of_result
    from tests.test_run import CODE_FENCE, STRUCTURED

    result = clean_html(STRUCTURED, url="https://s.example/gauge")
    assert result.structure == ("code", "table")
    with_pane = tmp_path / "with-pane.html"
    with_pane.write_text(render_page(view_of_result(result, title="gauge")))
    without = tmp_path / "without-pane.html"
    without.write_text(
        render_page(view_of_result(dataclasses.replace(result, markdown=""), title="gauge"))
    )
    # What the browser made of the page: the pane holds the Markdown, as text.
    tree = LexborHTMLParser(dom(tmp_path, with_pane))
    shown = tree.css_first(".with-md > .md-pane pre#markdown").text()
    assert shown == result.markdown
    assert CODE_FENCE.search(shown)
    assert re.search(r"^\|\s*Tuesday\s*\|\s*2\.2\s*\|\s*On Tuesday the rain", shown, re.M)
    assert LexborHTMLParser(dom(tmp_path, without)).css_first("#markdown") is None

    # And it is drawn beside the blocks: the right-hand side of the page has the pane's ink.
    def right_ink(page: Path) -> float:
        png = tmp_path / f"{page.stem}.png"
        chromium(tmp_path, f"--screenshot={png}", "--window-size=1280,1200", page.as_uri())
        rgb = np.asarray(PIL.open(png).convert("RGB"))[:, int(1280 * 0.65) :]
        return float(np.mean(~(rgb == 255).all(axis=2)))

    assert right_ink(with_pane) > 2 * right_ink(without) + 0.02
