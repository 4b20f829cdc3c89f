"""Structure kept in the output: code blocks, table rows (issue 34), and what Markdown costs.

Usage:
    python bench/structure.py [--data DIR] [--part all|test] [--limit N] [--benchenv DIR]
                              [--no-outside] [--out FILE]
    python bench/structure.py --cost [--rounds 5] [--limit N] [--out FILE]

Data: WCXB v1.0 (Murrough Foley, 2026, CC-BY-4.0), its development split as laid out in
``../shared/data/wcxb-dev`` (see that folder's README.md); nothing of it is copied here.

**Selection.** Every page is decoded as warcclean decodes it (`pipeline.html.decode`) and parsed
with selectolax (lexbor). Its ground-truth ``main_content`` is tokenised as the WCXB metric does
(lower-case ``\\w+`` tokens, a multiset). A token list is "in the ground truth" when at least 80%
of its tokens are matched by the ground truth's multiset (multiset overlap / tokens >= 0.8).

* a ``<pre>`` (outermost only, not inside another ``<pre>``) is selected when its text, as a
  browser shows it (below), has at least one ``\\w+`` token and its tokens are in the ground
  truth, unless every line of it is a number (the line-number gutter highlighters put in a
  ``<pre>`` of its own beside the code);
* a ``<table>`` holding no other ``<table>`` (nested tables are layout) is selected when it has
  at least 2 *data rows* (a ``<tr>`` with at least 2 non-empty cells and at least one token) and
  at least 80% of its data rows have their tokens in the ground truth. Its scored rows are all of
  its data rows.

A page is selected when it has at least one selected ``<pre>`` or ``<table>``. ``--part test``
takes only the pages of the test part of the learned models' site split (the held-out pages,
ids from ``pipeline/models/neighbours.json``, as ``bench/benchmark_tables.py`` reads them);
``--part all`` (the default) every dev page.

**Metrics.**

* *code kept exactly*: share of selected ``<pre>`` whose text appears line for line as
  consecutive lines of the output. The ``<pre>``'s text is what a browser shows (`code_text`):
  entities decoded, ``<br>`` and line feeds as line breaks, every block-level element (a
  highlighter's ``<div class="line">``) on lines of its own by the CSS rule a browser applies,
  a ``<span>`` whose class names a line ending its line where no line feed does, the words of
  a language label or a "Try" button beside a ``<pre>``'s one ``<code>`` and a gutter of line
  numbers left out, U+00A0 as a space, trailing whitespace of each line and blank lines at both
  edges dropped, every other line (blank lines inside, leading whitespace) kept.
  Output lines get the same U+00A0 and trailing-whitespace treatment. For text outputs the lines
  must be equal. For Markdown outputs the prefix Markdown syntax itself adds (the four spaces
  of an indented code block, a list item's indent before a fence, a blockquote's ``>``) is
  allowed: every line may carry the same extra prefix of spaces, tabs and ``>`` (a blank line
  of the code then is that prefix alone, trailing whitespace dropped). The column "in fence"
  (Markdown only) asks the same but inside one fenced code block (```` ``` ```` or ``~~~``);
  "strict" asks for no prefix; "no blank" (a diagnostic) ignores blank lines, in the code and
  in the output.
* *table rows kept as rows*: share of scored rows for which some single line of the output holds
  all the row's non-empty cell texts, in order, as substrings (cell texts and output lines
  whitespace-normalised: U+00A0 as a space, runs of whitespace as one space), e.g.
  ``| a | b |`` or ``a<TAB>b``. Markdown output lines are compared as rendered text
  (`md_inline_text`: code-span backticks, emphasis markers and link targets dropped, ``<br>`` a
  space, backslash escapes such as ``\\|`` undone). The column "present" (a diagnostic) counts
  the rows whose cell texts are all somewhere in the output, on one line or not: rows kept
  divided by it separates a lost table from a table that lost its rows.
* *word F1*: WCXB's metric as `pipeline.evaluate.scoring.score_text` computes it (lower-case
  ``\\w+`` multisets, per page, averaged over pages with a ``main_content``), on the raw output
  (for Markdown: with its syntax and link targets), on the selected pages and, for warcclean, on
  all pages.

**Systems**, all on the same pages and the same decoded HTML string (warcclean gets the raw
bytes and the URL, as a job gives them): warcclean's default cleaner ``CleanResult.text`` and
``CleanResult.markdown``; trafilatura ``extract(html, output_format="markdown",
include_tables=True, include_formatting=True, favor_precision=True)`` and the same with
``output_format="txt"``; resiliparse ``extract_plain_text(HTMLTree.parse(html),
main_content=True, preserve_formatting=True)``; html2text on the whole page (``body_width=0``, no
wrapping). The three outside systems run in a subprocess of a separate virtualenv
(``--benchenv``, default ``/work/benchenv``: ``pip install trafilatura lxml_html_clean resiliparse
html2text``), never in the project's.

**Cost** (``--cost``): CPU time (``time.process_time_ns``) of ``clean_html(page_bytes, url=...,
markdown=True)`` and ``markdown=False``, both on every page in every round, the order alternating
page by page and round by round; per variant the median per page over all (page, round) samples
and the median of the per-round totals, and their ratio on / off. It also counts pages whose
``text`` differs between the two (should be 0).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if sys.path and Path(sys.path[0] or ".").resolve() == REPO / "bench":
    del sys.path[0]  # bench/pipeline.py would shadow the package
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

DEFAULT_DATA = REPO.parent / "shared" / "data" / "wcxb-dev"
DEFAULT_OUT = REPO / "bench" / "results" / "structure.json"
DEFAULT_COST_OUT = REPO / "bench" / "results" / "structure_cost.json"
DEFAULT_BENCHENV = Path("/work/benchenv")
IN_TRUTH = 0.8  # share of a <pre>'s / row's tokens the ground truth must hold
TARGET_CODE = 0.90
TARGET_ROWS = 0.90

_WORD = re.compile(r"\w+")
_SPACE_RUN = re.compile(r"\s+")
_MD_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_CODE_SPAN = re.compile(r"(?<![\\`])(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_STARS = re.compile(r"(?<!\\)\*+")
_UNDERSCORES = re.compile(r"(?<![\\\w])_+|(?<!\\)_+(?!\w)")
_HTML_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_FENCE = re.compile(r"^([ \t>]*)(`{3,}|~{3,})(.*)$")

# name -> (is Markdown, runs in the benchenv subprocess)
SYSTEMS: dict[str, tuple[bool, bool]] = {
    "warcclean markdown": (True, False),
    "warcclean text": (False, False),
    "trafilatura markdown": (True, True),
    "trafilatura txt": (False, True),
    "resiliparse preserve_formatting": (False, True),
    "html2text whole page": (True, True),
}


# --- the outside systems, run by the benchenv's interpreter (stdlib imports only here) ---------


def worker(in_path: str, out_path: str) -> int:
    """Read ``{"id", "html", "url"}`` lines, write ``{"id", system: output, "ms": {...}}`` lines."""
    import html2text
    import trafilatura
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.html import HTMLTree

    def traf(html: str, url: str | None, fmt: str) -> str:
        return (
            trafilatura.extract(
                html,
                url=url,
                output_format=fmt,
                include_tables=True,
                include_formatting=True,
                favor_precision=True,
            )
            or ""
        )

    def h2t(html: str, url: str | None) -> str:
        converter = html2text.HTML2Text(baseurl=url or "")
        converter.body_width = 0  # no re-wrapping of lines
        return converter.handle(html)

    funcs = {
        "trafilatura markdown": lambda html, url: traf(html, url, "markdown"),
        "trafilatura txt": lambda html, url: traf(html, url, "txt"),
        "resiliparse preserve_formatting": lambda html, url: extract_plain_text(
            HTMLTree.parse(html), main_content=True, preserve_formatting=True
        ),
        "html2text whole page": h2t,
    }
    with open(in_path, encoding="utf-8") as src, open(out_path, "w", encoding="utf-8") as dst:
        for n, line in enumerate(src):
            page = json.loads(line)
            row: dict = {"id": page["id"], "ms": {}, "errors": {}}
            names = list(funcs)
            names = names[n % len(names) :] + names[: n % len(names)]  # rotate the order
            for name in names:
                start = time.process_time_ns()
                try:
                    row[name] = funcs[name](page["html"], page["url"])
                except Exception as exc:  # one page failing must not end the run
                    row[name] = ""
                    row["errors"][name] = f"{type(exc).__name__}: {exc}"[:300]
                row["ms"][name] = (time.process_time_ns() - start) / 1e6
            dst.write(json.dumps(row) + "\n")
    versions = {}
    from importlib.metadata import version

    for name in ("trafilatura", "resiliparse", "html2text", "lxml"):
        versions[name] = version(name)
    Path(out_path + ".versions").write_text(json.dumps(versions))
    return 0


# --- reading the pages and the ground truth ---------------------------------------------------


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _in_truth(tokens: list[str], truth: Counter) -> bool:
    if not tokens:
        return False
    overlap = sum((Counter(tokens) & truth).values())
    return overlap / len(tokens) >= IN_TRUTH


# Elements the HTML standard's rendering section (the browser's default style sheet) lays out as
# blocks: inside a ``<pre>`` each starts and ends a line. Table cells stay on their row's line.
BROWSER_BLOCKS = frozenset(
    (
        "address article aside blockquote caption center dd details dialog dir div dl dt "
        "fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr legend li "
        "listing main menu nav ol p plaintext pre search section summary table tbody tfoot thead "
        "tr ul xmp"
    ).split()
)
# Never shown: what a browser does not render (and `hidden`, its display: none).
NOT_SHOWN = frozenset("script style template head noscript".split())
# A block's edge; a forced break (a line feed or <br>); the end of a span that names a line.
_SOFT, _HARD, _LINE_END = 1, 2, 3


def _names_line(sub) -> bool:
    """A ``<span>`` that highlighters' style sheets make a block: a class word ``line`` or one
    ending in ``-line`` (Shiki, twoslash, Gatsby's ``gatsby-highlight-code-line``, GitBook's
    ``highlight-line``, prism-react-renderer's ``token-line``)."""
    classes = (sub.attributes.get("class") or "").split() if sub.tag == "span" else ()
    return any(word == "line" or word.endswith("-line") for word in classes)


def shown_text(node, code_only: bool = False) -> str:
    """A node's text as a browser shows it in ``<pre>``: entities decoded, ``<br>`` and line feeds
    forced breaks, each block-level element (`BROWSER_BLOCKS`) on lines of its own.

    The CSS model: the content between two block edges is one run of inline content, cut into
    lines by its forced breaks; a line that ends in a break is shown even when empty, a last line
    only when it holds something (so ``<div>a<br></div><div>b</div>`` is two lines, and
    ``<div>a</div>`` + line feed + ``<div>b</div>`` three, the middle one blank), which is what
    headless Chromium lays out (lines measured from its character boxes on such ``<pre>``). The
    page's style sheets are not at hand: a ``<span>`` whose class names a line (`_names_line`) is
    taken to end its line, as highlighters' style sheets make it, where no line feed already
    does.

    ``code_only``: text outside the one ``<code>`` that lies in some element of the ``<pre>``
    is left out (see `code_text`).
    """
    items: list[str | int] = []
    stack = [(node, False, node.tag == "code")]
    while stack:
        sub, leaving, in_code = stack.pop()
        if leaving:
            items.append(leaving)
            continue
        tag = sub.tag
        if tag == "-text":
            text = (sub.text_content or "").replace("\r\n", "\n").replace("\r", "\n")
            # selectolax builds a new node object per access: nodes compare by their lexbor node.
            if code_only and not in_code and text.strip() and sub.parent.mem_id != node.mem_id:
                continue
            for k, part in enumerate(text.split("\n")):
                if k:
                    items.append(_HARD)
                if part:
                    items.append(part)
            continue
        if tag == "br":
            items.append(_HARD)
            continue
        if sub is not node and (
            not tag or tag[0] == "-" or tag in NOT_SHOWN or "hidden" in sub.attributes
        ):
            continue
        if sub is not node and tag in BROWSER_BLOCKS:
            items.append(_SOFT)
            stack.append((sub, _SOFT, in_code))
        elif _names_line(sub):
            stack.append((sub, _LINE_END, in_code))
        children = []
        child = sub.child
        while child is not None:
            children.append(child)
            child = child.next
        in_code = in_code or tag == "code"
        stack.extend((c, False, in_code) for c in reversed(children))
    lines: list[str] = []
    line: list[str] = []
    broke = True  # the last forced break ends the text so far
    for k, item in enumerate((*items, _SOFT)):
        if item == _LINE_END:
            after = next((x for x in items[k + 1 :] if isinstance(x, str) or x == _HARD), None)
            if broke or after == _HARD:
                continue
            item = _HARD
        if item == _HARD:
            lines.append("".join(line))
            line = []
            broke = True
        elif item == _SOFT:
            if line:
                lines.append("".join(line))
                line = []
        else:
            line.append(item)
            broke = False
    return "\n".join(lines)


def code_text(pre) -> str:
    """A ``<pre>``'s code as a browser shows it (`shown_text`). When the ``<pre>`` holds one
    ``<code>`` (not counting those inside it), words in its other elements (a language label, a
    copy or "Try" button beside the code) are not code and are left out, as long as some text
    is left. A gutter of line numbers beside the lines, every other line counting up by one, is
    left out too."""
    codes = [c for c in pre.css("code") if not _has_ancestor(c, "code")]
    text = shown_text(pre, code_only=len(codes) == 1)
    if not text.strip():
        text = shown_text(pre)
    lines = text.split("\n")
    numbers = lines[0::2]
    first = int(numbers[0]) if numbers[0].isdecimal() else -1
    if (
        len(lines) >= 4
        and all(n.isdecimal() for n in numbers)
        and [int(n) for n in numbers] == list(range(first, first + len(numbers)))
        and any(line.strip() for line in lines[1::2])
    ):
        return "\n".join(lines[1::2])
    return text


def _out_line(line: str) -> str:
    return line.replace("\xa0", " ").rstrip()


def code_lines(text: str) -> list[str]:
    lines = [_out_line(line) for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _norm_cell(text: str) -> str:
    return _SPACE_RUN.sub(" ", text.replace("\xa0", " ")).strip()


def _has_ancestor(node, tag: str) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.tag == tag:
            return True
        parent = parent.parent
    return False


def select(html: str, truth_text: str) -> tuple[list[list[str]], list[list[list[str]]]]:
    """The page's selected ``<pre>`` (as lines) and tables (as data rows of cell texts)."""
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(html)
    truth = Counter(_tokens(truth_text))
    pres = []
    for pre in tree.css("pre"):
        if _has_ancestor(pre, "pre"):
            continue
        lines = code_lines(code_text(pre))
        if all(line.strip().isdigit() for line in lines if line):
            continue  # a line-number gutter beside the code, not code
        if lines and _in_truth(_tokens("\n".join(lines)), truth):
            pres.append(lines)
    tables = []
    for table in tree.css("table"):
        if len(table.css("table")) > 1:  # lexbor's css() on a node matches the node too
            continue
        rows = []
        for tr in table.css("tr"):
            cells = [_norm_cell(shown_text(cell)) for cell in tr.css("td, th")]
            cells = [cell for cell in cells if cell]
            if len(cells) >= 2 and _tokens(" ".join(cells)):
                rows.append(cells)
        if len(rows) < 2:
            continue
        in_truth = sum(_in_truth(_tokens(" ".join(row)), truth) for row in rows)
        if in_truth >= IN_TRUTH * len(rows):
            tables.append(rows)
    return pres, tables


# --- the metrics ----------------------------------------------------------------------------------


def _match_at(out: list[str], i: int, code: list[str], prefix_ok: bool) -> bool:
    first = out[i]
    if not first.endswith(code[0]):
        return False
    prefix = first[: len(first) - len(code[0])]
    if prefix and (not prefix_ok or prefix.strip(" \t>")):
        return False
    blank = prefix.rstrip()
    for j in range(1, len(code)):
        want = prefix + code[j] if code[j] else blank
        if out[i + j] != want:
            return False
    return True


def lines_contain(out: list[str], code: list[str], prefix_ok: bool) -> bool:
    n = len(code)
    return any(_match_at(out, i, code, prefix_ok) for i in range(len(out) - n + 1))


def fenced_blocks(lines: list[str]) -> list[list[str]]:
    blocks, i = [], 0
    while i < len(lines):
        opener = _FENCE.match(lines[i])
        if opener is None or (opener.group(2)[0] == "`" and "`" in opener.group(3)):
            i += 1
            continue
        mark = opener.group(2)
        closer = re.compile(rf"^[ \t>]*{re.escape(mark[0])}{{{len(mark)},}}[ \t]*$")
        j = i + 1
        while j < len(lines) and not closer.match(lines[j]):
            j += 1
        blocks.append(lines[i + 1 : j])
        i = j + 1
    return blocks


def _md_plain(text: str) -> str:
    text = _LINK.sub(r"\1", _HTML_BREAK.sub(" ", text))
    return _MD_ESCAPE.sub(r"\1", _UNDERSCORES.sub("", _STARS.sub("", text)))


def md_inline_text(line: str) -> str:
    """A Markdown line's text as rendered: code spans' content kept literally (``\\|`` undone,
    as GFM tables require), elsewhere links reduced to their text, ``<br>`` to a space,
    emphasis markers dropped and backslash escapes undone."""
    parts, pos = [], 0
    for span in _CODE_SPAN.finditer(line):
        parts.append(_md_plain(line[pos : span.start()]))
        content = span.group(2)
        if content.startswith(" ") and content.endswith(" ") and content.strip():
            content = content[1:-1]
        parts.append(content.replace("\\|", "|"))
        pos = span.end()
    parts.append(_md_plain(line[pos:]))
    return "".join(parts)


def row_kept(lines: list[str], cells: list[str]) -> bool:
    for line in lines:
        pos = 0
        for cell in cells:
            found = line.find(cell, pos)
            if found < 0:
                break
            pos = found + len(cell)
        else:
            return True
    return False


def score_structure(
    output: str, markdown: bool, pres: list[list[str]], tables: list[list[list[str]]]
) -> dict[str, int]:
    out = [_out_line(line) for line in output.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    counts = {
        "code": 0,
        "code_strict": 0,
        "code_fenced": 0,
        "code_no_blank": 0,
        "rows": 0,
        "rows_present": 0,
    }
    fences = fenced_blocks(out) if markdown else []
    out_filled = [line for line in out if line]
    for code in pres:
        filled = [line for line in code if line]
        counts["code_no_blank"] += lines_contain(out_filled, filled, prefix_ok=markdown)
        counts["code"] += lines_contain(out, code, prefix_ok=markdown)
        counts["code_strict"] += lines_contain(out, code, prefix_ok=False)
        counts["code_fenced"] += any(lines_contain(b, code, prefix_ok=True) for b in fences)
    norm = [_norm_cell(md_inline_text(line) if markdown else line) for line in out]
    joined = " ".join(norm)
    for rows in tables:
        counts["rows"] += sum(row_kept(norm, row) for row in rows)
        counts["rows_present"] += sum(all(cell in joined for cell in row) for row in rows)
    return counts


# --- running ------------------------------------------------------------------------------------


class _SourceFinder:
    """Imports warcclean's compilable modules from their ``.py`` (``--source``): for a checkout
    whose sources were edited after the last build, where the stale extensions refuse to load."""

    def find_spec(self, name: str, path=None, target=None):
        import importlib.util

        from pipeline.compiled import COMPILABLE

        if name not in COMPILABLE:
            return None
        source = REPO.joinpath(*name.split(".")).with_suffix(".py")
        if not source.exists():
            raise ModuleNotFoundError(f"no module named {name!r} (--source)", name=name)
        return importlib.util.spec_from_file_location(name, source)


def _bootstrap(source: bool) -> None:
    if source:
        import pipeline.compiled  # noqa: F401  (before the finder, which imports it)

        sys.meta_path.insert(0, _SourceFinder())
    from pipeline.threads import single_threaded_blas

    single_threaded_blas()


def _compiled() -> dict[str, bool]:
    import sys as _sys

    from pipeline.compiled import COMPILABLE, is_compiled_file

    return {
        name: is_compiled_file(getattr(_sys.modules.get(name), "__file__", None))
        for name in COMPILABLE
    }


def test_part_ids() -> set[str]:
    """The wcxb page ids of the test part of the learned models' site split."""
    model = REPO / "pipeline" / "models" / "neighbours.json"
    split = json.loads(model.read_text("utf-8"))["metadata"]["split"]
    return {i.split("/", 1)[1] for i in split["test_ids"] if i.startswith("wcxb/")}


def load_pages(data: Path, limit: int | None, part: str = "all", ids: Path | None = None):
    """The dataset's pages by id: the test part of the site split with ``part="test"``, only
    those listed in the file ``ids`` (one a line) when given, the first ``limit`` when given."""
    from pipeline.evaluate.datasets import load_dataset

    if not (data / "html").is_dir():
        raise SystemExit(f"error: {data / 'html'} not found (give --data the wcxb-dev folder)")
    pages = sorted(load_dataset(data), key=lambda page: page.id)
    if part == "test":
        held_out = test_part_ids()
        pages = [page for page in pages if page.id in held_out]
    if ids is not None:
        wanted = set(ids.read_text().split())
        pages = [page for page in pages if page.id in wanted]
    return pages[:limit] if limit else pages


def markdown_keyword() -> bool:
    """Whether ``clean_html`` takes ``markdown=`` yet (issue 34's Markdown is being written)."""
    from pipeline.clean import clean_html

    try:
        clean_html("<pre>  a\n  b</pre><p>x</p>", markdown=True)
    except (TypeError, ValueError):
        return False
    return True


def run_outside(
    benchenv: Path, rows: list[dict], script: Path | None = None, extra: Sequence[str] = ()
) -> tuple[dict[str, dict], dict[str, str]]:
    """Run ``script`` (this one by default) as ``--worker IN OUT *extra`` under the benchenv's
    interpreter over ``rows``; its output rows by id, and the versions it wrote beside them."""
    python = benchenv / "bin" / "python"
    if not python.exists():
        raise SystemExit(
            f"error: {python} not found (create the comparison virtualenv, see --help)"
        )
    with tempfile.TemporaryDirectory() as tmp:
        in_path, out_path = Path(tmp) / "in.jsonl", Path(tmp) / "out.jsonl"
        with in_path.open("w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row) + "\n")
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
        subprocess.run(
            [
                str(python),
                str(script or Path(__file__).resolve()),
                "--worker",
                str(in_path),
                str(out_path),
                *extra,
            ],
            check=True,
            env=env,
            cwd=tmp,
        )
        results = {}
        with out_path.open(encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                results[row["id"]] = row
        versions = json.loads(Path(str(out_path) + ".versions").read_text())
    return results, versions


def _version(name: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return None


def machine() -> dict[str, object]:
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "load_average_at_start": os.getloadavg(),
    }


def measure(args: argparse.Namespace) -> dict:
    from pipeline.evaluate.scoring import score_text
    from pipeline.html.decode import decode_html

    clean_html = None
    if not args.no_warcclean:
        from pipeline.clean import clean_html
    run = {
        n: v
        for n, v in SYSTEMS.items()
        if (v[1] and not args.no_outside) or (not v[1] and clean_html is not None)
    }
    info = machine()
    pages = load_pages(args.data, args.limit, args.part, args.pages)
    has_md_kw = clean_html is not None and markdown_keyword()
    md_kw = {"markdown": True} if has_md_kw else {}
    selected, selection = [], {}
    f1_all = {"warcclean text": [], "warcclean markdown": []}
    ours: dict[str, dict[str, str]] = {}
    ours_ms: dict[str, list[float]] = {"warcclean (text+markdown)": []}
    errors: dict[str, dict[str, str]] = {}
    t0 = time.monotonic()
    for page in pages:
        raw = page.read_html()
        start = time.process_time_ns()
        try:
            text = markdown = ""
            if clean_html is not None:
                result = clean_html(raw, url=page.url, **md_kw)
                text, markdown = result.text, result.markdown
        except Exception as exc:  # a page failing is a zero for it, not the end of the run
            text = markdown = ""
            errors.setdefault(page.id, {})["warcclean"] = f"{type(exc).__name__}: {exc}"[:300]
        ours_ms["warcclean (text+markdown)"].append((time.process_time_ns() - start) / 1e6)
        if page.main_content is not None:
            f1_all["warcclean text"].append(score_text(page, text).f1)
            f1_all["warcclean markdown"].append(score_text(page, markdown).f1)
        html = decode_html(raw).html
        pres, tables = select(html, page.main_content or "")
        if pres or tables:
            selected.append((page, html))
            selection[page.id] = (pres, tables)
            ours[page.id] = {"warcclean text": text, "warcclean markdown": markdown}
    print(
        f"warcclean on {len(pages)} pages, selection: {len(selected)} pages "
        f"({time.monotonic() - t0:.0f} s); outside systems ...",
        file=sys.stderr,
    )
    outside: dict[str, dict] = {p.id: {"errors": {}} for p, _ in selected}
    versions: dict[str, str] = {}
    if args.no_outside:
        run = {n: v for n, v in run.items() if not v[1]}
    else:
        outside, versions = run_outside(
            args.benchenv, [{"id": p.id, "html": html, "url": p.url} for p, html in selected]
        )
    totals = {name: Counter() for name in run}
    f1_sel: dict[str, list[float]] = {name: [] for name in run}
    emptied = Counter()
    per_page = {}
    for page, _html in selected:
        pres, tables = selection[page.id]
        outputs = {**ours[page.id], **{n: outside[page.id][n] for n in run if SYSTEMS[n][1]}}
        if outside[page.id]["errors"]:
            errors.setdefault(page.id, {}).update(outside[page.id]["errors"])
        per_page[page.id] = {
            "pre": len(pres),
            "tables": len(tables),
            "rows": sum(map(len, tables)),
            "kept": {},
        }
        for name, (is_md, _) in run.items():
            counts = score_structure(outputs[name], is_md, pres, tables)
            totals[name].update(counts)
            per_page[page.id]["kept"][name] = [
                counts["code"],
                counts["rows"],
                counts["rows_present"],
            ]
            if page.main_content is not None:
                f1_sel[name].append(score_text(page, outputs[name]).f1)
            emptied[name] += not _tokens(outputs[name])
    n_pre = sum(len(selection[p.id][0]) for p, _ in selected)
    n_tables = sum(len(selection[p.id][1]) for p, _ in selected)
    n_rows = sum(sum(map(len, selection[p.id][1])) for p, _ in selected)
    n_code_pages = sum(bool(selection[p.id][0]) for p, _ in selected)
    n_table_pages = sum(bool(selection[p.id][1]) for p, _ in selected)

    def share(k: int, n: int) -> float | None:
        return round(k / n, 4) if n else None

    systems = {}
    for name, (is_md, is_outside) in run.items():
        tot = totals[name]
        ms = (
            [outside[p.id]["ms"][name] for p, _ in selected]
            if is_outside
            else ours_ms["warcclean (text+markdown)"]
        )
        systems[name] = {
            "markdown": is_md,
            "code_kept": share(tot["code"], n_pre),
            "code_kept_strict": share(tot["code_strict"], n_pre),
            "code_kept_in_fence": share(tot["code_fenced"], n_pre) if is_md else None,
            "code_kept_ignoring_blank_lines": share(tot["code_no_blank"], n_pre),
            "rows_kept": share(tot["rows"], n_rows),
            "rows_cells_present": share(tot["rows_present"], n_rows),
            "f1_selected": round(statistics.fmean(f1_sel[name]), 4) if f1_sel[name] else None,
            "f1_all": (round(statistics.fmean(f1_all[name]), 4) if f1_all.get(name) else None),
            "emptied_selected": emptied[name],
            "median_cpu_ms": round(statistics.median(ms), 2) if ms else None,
        }
    info["load_average_at_end"] = os.getloadavg()
    info["compiled_modules"] = _compiled()
    return {
        "date": results_file.utc_now(),
        "command": results_file.command_line(__file__),
        "data": str(args.data),
        "part": args.part,
        "data_citation": "WCXB v1.0, Murrough Foley (2026), dev split, CC-BY-4.0",
        "selection_rule": f"<pre>/<table> rows with >= {IN_TRUTH:.0%} of tokens in main_content",
        "pages_all": len(pages),
        "pages_all_with_main_content": len(f1_all["warcclean text"]),
        "pages_selected": len(selected),
        "pages_with_code": n_code_pages,
        "pages_with_tables": n_table_pages,
        "pre_blocks": n_pre,
        "tables": n_tables,
        "table_rows": n_rows,
        "warcclean_markdown_keyword": has_md_kw,
        "warcclean_markdown_nonempty_pages": sum(
            bool(ours[p.id]["warcclean markdown"].strip()) for p, _ in selected
        ),
        "systems": systems,
        "targets": {"code_kept": TARGET_CODE, "rows_kept": TARGET_ROWS},
        "versions": {
            "warcclean": _version("warcclean"),
            "selectolax": _version("selectolax"),
            **versions,
            "html2text_options": "body_width=0",
        },
        "machine": info,
        "errors": errors,
        "per_page_kept": "[code blocks kept, rows kept, rows present] per system",
        "per_page": per_page,
    }


def print_table(report: dict) -> None:
    print(
        f"\n{report['pages_selected']} of {report['pages_all']} pages selected "
        f"({report['pages_with_code']} with code, {report['pages_with_tables']} with tables): "
        f"{report['pre_blocks']} <pre>, {report['tables']} tables, {report['table_rows']} rows\n"
    )
    head = (
        f"{'system':32} {'code kept':>9} {'in fence':>8} {'strict':>6} {'no blank':>8} "
        f"{'rows kept':>9} {'present':>7} "
        f"{'F1 sel':>6} {'F1 all':>6} {'empty':>5} {'ms':>6}"
    )
    print(head)
    print("-" * len(head))

    def fmt(value: float | None, width: int) -> str:
        return f"{value:>{width}.3f}" if value is not None else f"{'-':>{width}}"

    for name, row in report["systems"].items():
        print(
            f"{name:32} {fmt(row['code_kept'], 9)} {fmt(row['code_kept_in_fence'], 8)} "
            f"{fmt(row['code_kept_strict'], 6)} "
            f"{fmt(row['code_kept_ignoring_blank_lines'], 8)} {fmt(row['rows_kept'], 9)} "
            f"{fmt(row['rows_cells_present'], 7)} "
            f"{fmt(row['f1_selected'], 6)} {fmt(row['f1_all'], 6)} "
            f"{row['emptied_selected']:>5} {fmt(row['median_cpu_ms'], 6)}"
        )
    md = report["systems"].get("warcclean markdown")
    if md is None:
        print("\nwarcclean not run (--no-warcclean)")
    elif (
        not report["warcclean_markdown_keyword"] or not report["warcclean_markdown_nonempty_pages"]
    ):
        print("\nwarcclean's Markdown is not there yet (clean_html gave no markdown)")
    else:
        for key, target in report["targets"].items():
            met = md[key] is not None and md[key] >= target
            print(
                f"warcclean markdown {key} {md[key]} (target >= {target}): "
                f"{'met' if met else 'NOT met'}"
            )
    if report["errors"]:
        print(f"\n{len(report['errors'])} pages with an error in some system (see the JSON)")


def cost(args: argparse.Namespace) -> dict:
    from pipeline.clean import clean_html

    if not markdown_keyword():
        raise SystemExit("error: clean_html takes no markdown= keyword yet")
    info = machine()
    pages = [(p.id, p.read_html(), p.url) for p in load_pages(args.data, args.limit)]
    samples = {True: [], False: []}
    totals = {True: [], False: []}
    text_differs = set()
    for _page_id, raw, url in pages[:20]:  # warm-up: caches, models, first imports
        clean_html(raw, url=url, markdown=True)
        clean_html(raw, url=url, markdown=False)
    for r in range(args.rounds):
        round_total = {True: 0, False: 0}
        for n, (page_id, raw, url) in enumerate(pages):
            order = (True, False) if (n + r) % 2 == 0 else (False, True)
            texts = {}
            for flag in order:
                start = time.process_time_ns()
                result = clean_html(raw, url=url, markdown=flag)
                spent = time.process_time_ns() - start
                samples[flag].append(spent)
                round_total[flag] += spent
                texts[flag] = result.text
            if texts[True] != texts[False]:
                text_differs.add(page_id)
        for flag in (True, False):
            totals[flag].append(round_total[flag])
        print(
            f"round {r + 1}/{args.rounds}: on {round_total[True] / 1e9:.2f} s, "
            f"off {round_total[False] / 1e9:.2f} s",
            file=sys.stderr,
        )
    med = {f: statistics.median(samples[f]) / 1e6 for f in (True, False)}
    med_total = {f: statistics.median(totals[f]) / 1e9 for f in (True, False)}
    info["load_average_at_end"] = os.getloadavg()
    info["compiled_modules"] = _compiled()
    return {
        "date": results_file.utc_now(),
        "command": results_file.command_line(__file__),
        "data": str(args.data),
        "pages": len(pages),
        "rounds": args.rounds,
        "median_ms_per_page": {
            "markdown on": round(med[True], 3),
            "markdown off": round(med[False], 3),
        },
        "ratio_median_per_page": round(med[True] / med[False], 3),
        "median_round_total_s": {
            "markdown on": round(med_total[True], 3),
            "markdown off": round(med_total[False], 3),
        },
        "ratio_round_total": round(med_total[True] / med_total[False], 3),
        "pages_text_differs": sorted(text_differs),
        "warcclean": _version("warcclean"),
        "machine": info,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the wcxb-dev folder")
    parser.add_argument("--limit", type=int, default=None, help="only the first N pages")
    parser.add_argument(
        "--part",
        choices=("all", "test"),
        default="all",
        help="every dev page, or the test part of the models' site split (held out)",
    )
    parser.add_argument(
        "--pages",
        type=Path,
        default=None,
        help="only the pages whose ids this file lists, one a line (e.g. the held-out test part)",
    )
    parser.add_argument(
        "--no-outside",
        action="store_true",
        help="warcclean only: no comparison systems, no --benchenv needed",
    )
    parser.add_argument("--benchenv", type=Path, default=DEFAULT_BENCHENV)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--cost", action="store_true", help="Markdown's CPU cost, on vs off")
    parser.add_argument("--rounds", type=int, default=5, help="--cost: rounds over the pages")
    parser.add_argument(
        "--source",
        action="store_true",
        help="run warcclean's compilable modules from their .py (sources edited since the build)",
    )
    parser.add_argument(
        "--no-warcclean", action="store_true", help="only the outside systems (and the selection)"
    )
    parser.add_argument("--worker", nargs=2, metavar=("IN", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(*args.worker)
    _bootstrap(args.source)
    if args.cost:
        report = cost(args)
        out = args.out or DEFAULT_COST_OUT
        on, off = report["median_ms_per_page"].values()
        print(
            f"\n{report['pages']} pages x {report['rounds']} rounds, median CPU ms per page: "
            f"markdown on {on:.3f}, off {off:.3f}, ratio {report['ratio_median_per_page']:.3f}; "
            f"median round total on {report['median_round_total_s']['markdown on']:.2f} s, "
            f"off {report['median_round_total_s']['markdown off']:.2f} s, "
            f"ratio {report['ratio_round_total']:.3f}; "
            f"text differs on {len(report['pages_text_differs'])} pages"
        )
    else:
        report = measure(args)
        out = args.out or (
            DEFAULT_OUT if args.part == "all" else DEFAULT_OUT.with_name("structure_test.json")
        )
        print_table(report)
    results_file.write_results(out, report)
    print(f"\nwritten: {out.relative_to(REPO) if out.is_relative_to(REPO) else out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
