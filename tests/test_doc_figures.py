"""The docs' generated figures are current, their links lead somewhere, and the README stays short.

Figures in README.md and docs/*.md come from cog blocks that call ``bench/doc_figures.py``
(BENCHMARKS.md's generated tables, ``bench/results/*.json``, the model files): ``cog --check``
fails here when a table or result changed and the docs were not regenerated
(``cog -r -I bench README.md docs/*.md``).
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

REPO = Path(__file__).resolve().parent.parent
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
LINKED = [*DOCS, REPO / "BENCHMARKS.md", REPO / "FUZZING.md", REPO / "bench" / "README.md"]


def test_generated_figures_are_current() -> None:
    with_cog = [p for p in DOCS if "[[[cog" in p.read_text(encoding="utf-8")]
    assert REPO / "README.md" in with_cog
    done = subprocess.run(
        [sys.executable, "-m", "cogapp", "--check", "-I", str(REPO / "bench"), *map(str, with_cog)],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert done.returncode == 0, (
        "a doc's generated figures are stale: run `cog -r -I bench README.md docs/*.md`\n"
        + done.stdout
        + done.stderr
    )


def test_a_changed_table_makes_the_check_fail(tmp_path: Path) -> None:
    # The check above can fail: a README whose generated table differs from the figures.
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    row = re.search(r"^\| `neighbours` \|.*$", readme, re.M)
    assert row, "the README's cleaner table has no neighbours row"
    stale = tmp_path / "README.md"
    stale.write_text(readme.replace(row.group(0), row.group(0).replace("|", "| 0.5 |", 1)))
    done = subprocess.run(
        [sys.executable, "-m", "cogapp", "--check", "-I", str(REPO / "bench"), str(stale)],
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_cleaner_table_reads_benchmarks_tables() -> None:
    figures = _load("doc_figures", REPO / "bench" / "doc_figures.py")
    wcxb = figures.benchmark_table("wcxb-dev test pages (")
    # The row as BENCHMARKS.md prints it, parsed here independently of doc_figures.
    text = (REPO / "BENCHMARKS.md").read_text(encoding="utf-8")
    section = text[text.index("### wcxb-dev test pages (") :]
    line = next(x for x in section.splitlines() if x.startswith("| neighbours †"))
    cells = [c.strip().replace("**", "") for c in line.strip("|").split("|")]
    assert wcxb["neighbours"]["word F1"] == cells[1]
    assert wcxb["neighbours"]["median ms"] == cells[-2]
    table = figures.cleaner_table()
    assert f"| {cells[1]} |" in table.split("`neighbours` |", 1)[1].splitlines()[0]


def test_the_timed_setup_commands_are_the_readmes() -> None:
    setup = _load("setup_commands", REPO / "bench" / "setup_commands.py")
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for command in setup.COMMANDS.values():
        assert f"```sh\n{command}\n```" in readme


def test_the_readme_is_short() -> None:
    lines = (REPO / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 300, f"README.md has {lines} lines: move reference material into docs/"


def _slug(heading: str) -> str:
    # GitHub's anchors: lower case, punctuation but - and _ dropped, spaces made hyphens.
    text = heading.strip().lower()
    return "".join(
        "-" if ch == " " else ch
        for ch in text
        if ch in " -_" or unicodedata.category(ch)[0] in "LN"
    )


def _anchors(path: Path) -> set[str]:
    tokens = MarkdownIt("commonmark").enable("table").parse(path.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    found = set()
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            children = tokens[i + 1].children or []
            words = "".join(c.content for c in children if c.type in {"text", "code_inline"})
            slug = _slug(words)
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def _links(path: Path) -> list[str]:
    tokens = MarkdownIt("commonmark").enable("table").parse(path.read_text(encoding="utf-8"))
    hrefs = []
    for token in tokens:
        for child in token.children or []:
            if child.type == "link_open":
                hrefs.append(child.attrs["href"])
    return hrefs


@pytest.mark.parametrize("doc", LINKED, ids=lambda p: str(p.relative_to(REPO)))
def test_every_link_leads_somewhere(doc: Path) -> None:
    broken = []
    for href in _links(doc):
        if re.match(r"^[a-z][a-z0-9+.-]*:", href):
            continue
        target, _, anchor = href.partition("#")
        path = (doc.parent / target).resolve() if target else doc
        if not path.exists():
            broken.append(f"{href}: no file {path}")
        elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
            broken.append(f"{href}: no heading #{anchor} in {path.relative_to(REPO)}")
    assert not broken, "\n".join(broken)


# docs/cleaners.md and docs/seeds.md: every measured figure comes from a cog block. A decimal
# outside one, outside code, is a figure typed by hand, except the constants the seed texts state
# as part of their algorithms, which the docs quote as written (each phrase below is taken out
# before scanning).
FIGURE_DOCS = [REPO / "docs" / "cleaners.md", REPO / "docs" / "seeds.md"]
PAPER_CONSTANTS = {
    "0.5 − σ": "Pal (2009): the density threshold is 0.5 minus the deviation",
    "0.5 − the standard deviation": "Pal (2009), the same threshold in his words",
    "above 0.5": "the 'easy way' article's simple filter keeps lines of density above 0.5",
    "0.5·length + 0.5·avg": "Kimatu's content-relevance ratio (Saralegi & Leturia 2007)",
    "0.5·length + 0.5·average": "the same ratio, as the seeds table writes it",
    "> 0.32": "Kimatu's sure-candidate threshold",
    "(> 0.1)": "Kimatu's dispersed-block recovery threshold",
    "> 0.1 with": "the same recovery threshold, in the paper's words",
    "above 0.1 ×": "the same threshold relative to the reference, as the paper variant applies it",
    "relevance > 0.1": "the project variant's use of the same threshold",
    "ratio > 0.5": "Kimatu's exemption of relevant blocks from the dispersion step",
    "ratio ≤ 0.5": "the same exemption, as the paper variant applies it",
    "no 0.5 exemption": "the project variant's lack of it",
    "(0.2)": "jusText's MAX_LINK_DENSITY",
    "(0.32)": "jusText's STOPWORDS_HIGH",
    "(0.30)": "jusText's STOPWORDS_LOW",
    "0.2, 70, 200, 0.30, 0.32": "jusText's defaults as its description lists them",
}
_DECIMAL = re.compile(r"(?<![\w.])\d+\.\d+(?![\w.]*\d)")


def typed_figures(text: str) -> list[str]:
    """Each decimal outside cog regions, code and the paper constants, as ``line: figure``."""
    found = []
    in_cog = in_fence = False
    for number, line in enumerate(text.splitlines(), 1):
        if "[[[cog" in line:
            in_cog = True
        if in_cog:
            in_cog = "[[[end]]]" not in line
            continue
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        prose = re.sub(r"`[^`]*`", "", line)
        for phrase in PAPER_CONSTANTS:
            prose = prose.replace(phrase, " ")
        found += [f"{number}: {m.group(0)}" for m in _DECIMAL.finditer(prose)]
    return found


@pytest.mark.parametrize("doc", FIGURE_DOCS, ids=lambda p: p.name)
def test_no_figure_is_typed_by_hand(doc: Path) -> None:
    typed = typed_figures(doc.read_text(encoding="utf-8"))
    assert not typed, (
        f"{doc.name} has figures typed by hand (generate them in bench/doc_figures.py, or name "
        "the BENCHMARKS.md section that measured them):\n" + "\n".join(typed)
    )


def test_the_scanner_finds_typed_figures() -> None:
    text = "\n".join(
        [
            "word F1 0.858 against 0.773, 1.53x jusText, 92.9% of pages",
            "jusText 3.0.2, WCXB v1.0, `length_low=70`, `tag_weight=0.75`, threshold 0.5 − σ",
            "<!-- [[[cog import doc_figures ]]] -->",
            "0.940 generated",
            "<!-- [[[end]]] -->",
            "```text",
            "python bench/x.py --threshold 0.4",
            "```",
        ]
    )
    assert typed_figures(text) == ["1: 0.858", "1: 0.773", "1: 1.53", "1: 92.9"]
