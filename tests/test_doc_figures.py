"""The docs' generated figures are current, none is typed, their links lead somewhere, and the
README stays short.

Figures in README.md and docs/*.md come from cog blocks that call ``bench/doc_figures.py``
(BENCHMARKS.md's generated tables, ``bench/results/*.json``, the model files): ``cog --check``
fails here when a table or result changed and the docs were not regenerated
(``cog -r -I bench README.md docs/*.md``), and a scanner fails on a figure that reads as measured
(a decimal, a ratio, a timing in ms) typed outside a cog block and outside code.
"""

from __future__ import annotations

import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from tests.scripts import load_script

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
    return load_script(path, name)


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


# Docs whose figures must all be generated (cog) or be settings of the code.
HAND_CHECKED = [REPO / "README.md"] + [
    REPO / "docs" / name
    for name in (
        "cleaners.md",
        "seeds.md",
        "library.md",
        "output.md",
        "models.md",
        "report.md",
        "running.md",
        "development.md",
    )
]

# What reads like a measured figure: a decimal (0.123, 1,234.5), a ratio (1.07x, 2×) or a timing
# in milliseconds (12 ms).
FIGURE = re.compile(
    r"(?<![\w.])(?:\d[\d,]*\.\d+(?:\s*[x×](?!\w))?|\d[\d,]*\s*[x×](?!\w)|\d[\d,.]*\s*ms\b)"
)

# Figures that stay typed, each with why it is not a measurement: (doc or "*" for every doc, a
# regular expression for the phrase around the figure, reason). The phrase is matched in a
# paragraph's or cell's text with its code spans in backticks and its line breaks as spaces.
NOT_MEASURED = [
    ("*", r"Apache-2\.0|Apache License 2\.0|CC-BY-4\.0", "a licence's name"),
    ("*", r"Web Content eXtraction Benchmark v1\.0", "the data set's name and version"),
    ("README.md", r"Python ≥ 3\.10", "the Python version the package requires"),
    ("docs/library.md", r"`LOW_CONFIDENCE` \(0\.6\)", "a constant of pipeline/lang/langid.py"),
    ("docs/development.md", r"lexbor 3\.1 \(the version selectolax 1\.0\.2 bundles\)",
     "the library versions the C walk is written against"),
    ("docs/running.md", r"^1\.0$", "`--site-max-share`'s default, in the options table"),
    (
        "docs/running.md",
        r"On Python 3\.11, start them",
        "the Python version whose profiler deadlock the paragraph warns of",
    ),
    ("seeds", r"jusText 3\.0\.2", "the version of the jusText package compared with"),
    # The constants the seed texts state as part of their algorithms, quoted as written in
    # docs/cleaners.md and docs/seeds.md ("seeds": either doc).
    ("seeds", r"0\.5 − σ", 'Pal (2009): the density threshold is 0.5 minus the deviation'),
    ("seeds", r"0\.5 − the standard deviation",
     'Pal (2009), the same threshold in his words'),
    ("seeds", r"above 0\.5",
     "the 'easy way' article's simple filter keeps lines of density above 0.5"),
    ("seeds", r"0\.5·length \+ 0\.5·avg",
     "Kimatu's content-relevance ratio (Saralegi & Leturia 2007)"),
    ("seeds", r"0\.5·length \+ 0\.5·average", 'the same ratio, as the seeds table writes it'),
    ("seeds", r"> 0\.32", "Kimatu's sure-candidate threshold"),
    ("seeds", r"\(> 0\.1\)", "Kimatu's dispersed-block recovery threshold"),
    ("seeds", r"> 0\.1 with", "the same recovery threshold, in the paper's words"),
    ("seeds", r"above 0\.1 ×",
     'the same threshold relative to the reference, as the paper variant applies it'),
    ("seeds", r"relevance > 0\.1", "the project variant's use of the same threshold"),
    ("seeds", r"ratio > 0\.5",
     "Kimatu's exemption of relevant blocks from the dispersion step"),
    ("seeds", r"ratio ≤ 0\.5", 'the same exemption, as the paper variant applies it'),
    ("seeds", r"no 0\.5 exemption", "the project variant's lack of it"),
    ("seeds", r"\(0\.2\)", "jusText's MAX_LINK_DENSITY"),
    ("seeds", r"\(0\.32\)", "jusText's STOPWORDS_HIGH"),
    ("seeds", r"\(0\.30\)", "jusText's STOPWORDS_LOW"),
    ("seeds", r"0\.2, 70, 200, 0\.30, 0\.32",
     "jusText's defaults as its description lists them"),
]  # fmt: skip


def _outside_cog(text: str) -> str:
    """The doc with every cog block and its generated output blanked (lines kept, so that line
    numbers still hold)."""
    out, inside = [], False
    for line in text.splitlines():
        if "[[[cog" in line:
            inside = True
        out.append("" if inside else line)
        if "[[[end]]]" in line:
            inside = False
    return "\n".join(out)


def _prose(children: list) -> tuple[str, list[tuple[int, int]]]:
    """An inline token's text with its code spans in backticks, and where those spans are."""
    text, code = "", []
    for child in children:
        if child.type == "code_inline":
            code.append((len(text), len(text) + len(child.content) + 2))
            text += f"`{child.content}`"
        elif child.type in {"softbreak", "hardbreak"}:
            text += " "
        else:
            text += child.content
    return text, code


SEED_DOCS = ("docs/cleaners.md", "docs/seeds.md")


def _applies(entry_doc: str, name: str) -> bool:
    return entry_doc in {"*", name} or (entry_doc == "seeds" and name in SEED_DOCS)


def _allowed(doc: Path) -> list[re.Pattern[str]]:
    name = str(doc.relative_to(REPO))
    return [re.compile(phrase) for d, phrase, _ in NOT_MEASURED if _applies(d, name)]


def typed_figures(doc: Path, allowed: list[re.Pattern[str]] | None = None) -> list[str]:
    """Every figure of ``doc`` that reads as measured and stands outside cog output, code spans
    and code blocks (fences are block tokens, never inline text), as ``line: figure in context``,
    less those inside an ``allowed`` phrase (default: the doc's NOT_MEASURED phrases)."""
    if allowed is None:
        allowed = _allowed(doc)
    md = MarkdownIt("commonmark").enable("table")
    found = []
    for token in md.parse(_outside_cog(doc.read_text(encoding="utf-8"))):
        if token.type != "inline":
            continue
        prose, skip = _prose(token.children or [])
        skip += [m.span() for pattern in allowed for m in pattern.finditer(prose)]
        for hit in FIGURE.finditer(prose):
            if any(start <= hit.start() and hit.end() <= end for start, end in skip):
                continue
            context = prose[max(0, hit.start() - 40) : hit.end() + 20]
            found.append(f"{token.map[0] + 1}: {hit.group(0)!r} in …{context}…")
    return found


@pytest.mark.parametrize("doc", HAND_CHECKED, ids=lambda p: str(p.relative_to(REPO)))
def test_no_measured_figure_is_typed(doc: Path) -> None:
    found = typed_figures(doc)
    assert not found, (
        f"{doc.relative_to(REPO)} types figures that read as measured: print them from a results "
        "file in bench/doc_figures.py (a cog block), or name the BENCHMARKS.md section that "
        "measures them; a figure that is not a measurement goes into NOT_MEASURED with why:\n"
        + "\n".join(found)
    )


def test_the_scanner_finds_typed_figures(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(
        "A: 0.123 F1, 1.07x the other, 12 ms a page, `0.5` in code.\n\n"
        "```text\n9.99 in a fence\n```\n\n"
        "<!-- [[[cog x ]]] -->\n3.14 generated\n<!-- [[[end]]] -->\n",
        encoding="utf-8",
    )
    hits = [line.split(" in ", 1)[0] for line in typed_figures(doc, allowed=[])]
    assert hits == ["1: '0.123'", "1: '1.07x'", "1: '12 ms'"]
    # An allowed phrase hides the figure inside it, and only that one.
    allowed = [re.compile(r"1\.07x the other")]
    assert [h.split(" in ", 1)[0] for h in typed_figures(doc, allowed)] == [
        "1: '0.123'",
        "1: '12 ms'",
    ]


@pytest.mark.parametrize("entry", NOT_MEASURED, ids=lambda e: f"{e[0]}: {e[1]}")
def test_every_allowed_figure_is_still_there(entry: tuple[str, str, str]) -> None:
    # A stale entry would let a measured figure back in under an old excuse.
    doc, phrase, _ = entry
    docs = [p for p in HAND_CHECKED if _applies(doc, str(p.relative_to(REPO)))]
    texts = []
    for path in docs:
        for token in MarkdownIt("commonmark").enable("table").parse(path.read_text("utf-8")):
            if token.type == "inline":
                texts.append(_prose(token.children or [])[0])
    assert any(re.search(phrase, text) for text in texts), f"{phrase!r} is in no doc of {doc}"
