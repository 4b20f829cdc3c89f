"""daniel per language beside trafilatura and jusText (issue 35).

Usage:
    python bench/field_daniel.py [--data DIR] [--limit N] [--benchenv DIR] [--out FILE]
                                 [--no-precision] [--source]

Data: ``../shared/data/daniel`` (DAnIEL v2.1, GPL-3.0, evaluation only; see that folder's
README.md), or any folder in its layout (``--data ../shared/data/multilingual-dev``,
``magic-html``). Nothing of it is copied here. A page's language is its ground truth's
``language`` (`pipeline.evaluate.datasets.Page.language`; daniel's ids repeat it as a prefix).

**Systems**, every page, from its raw bytes:

* warcclean's default cleaner and its ``justext`` cleaner, in this process, each through
  `pipeline.evaluate.scoring.evaluate` as ``warcclean eval`` runs it: ``clean_html(bytes)``
  decoding as a crawl would, no language given (detected), no URL (daniel has none);
* trafilatura ``extract(bytes, include_comments=False)`` (it detects the encoding), and the same
  with ``favor_precision=True`` unless ``--no-precision``;
* the jusText package, ``justext.justext(bytes, justext.get_stoplist(<name>))`` with the stoplist
  of the page's TRUE language (given, not detected: this favours it), its paragraphs that are
  not boilerplate joined by blank lines. A language jusText has no stoplist for (zh, ja, th, ...)
  runs in jusText's language-independent mode: an empty stoplist and both stopword thresholds 0.

The outside systems run in a subprocess of a separate virtualenv (``--benchenv``, default
``/work/benchenv``: ``pip install trafilatura==2.3.1 lxml_html_clean justext==3.0.2``), never in
the project's.

**Metrics**, per language and over all pages: `pipeline.evaluate.scoring.score_text` (word F1
over lower-case ``\\w+`` tokens, characters for zh/ja/th/my) and `aggregate` (means of per-page
F1, precision, recall; pages emptied; failures, a page whose call raised, scored as empty) as
``warcclean eval`` reports them; median CPU ms per call (``time.process_time``), measured in the
process that ran the call. warcclean's two cleaners alternate page by page, as do the outside
systems in their process.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
if sys.path and Path(sys.path[0] or ".").resolve() == REPO / "bench":
    del sys.path[0]  # bench/pipeline.py would shadow the package
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

DEFAULT_DATA = REPO.parent / "shared" / "data" / "daniel"
DEFAULT_OUT = REPO / "bench" / "results" / "field_daniel.json"
DEFAULT_BENCHENV = Path("/work/benchenv")

OURS = ("warcclean default", "warcclean justext")
TRAFILATURA = "trafilatura"
TRAFILATURA_PRECISION = "trafilatura favor_precision"
JUSTEXT = "jusText (true language)"

# ISO 639-1 -> jusText's stoplist name, for the languages of the shared dev sets. A code missing
# here, or a name jusText lacks, runs jusText language-independent.
JUSTEXT_NAMES = {
    "ar": "Arabic", "bn": "Bengali", "ca": "Catalan", "cs": "Czech", "da": "Danish",
    "de": "German", "el": "Greek", "en": "English", "es": "Spanish", "fa": "Persian",
    "fi": "Finnish", "fr": "French", "hi": "Hindi", "hr": "Croatian", "hu": "Hungarian",
    "id": "Indonesian", "is": "Icelandic", "it": "Italian", "ko": "Korean", "lt": "Lithuanian",
    "lv": "Latvian", "nl": "Dutch", "no": "Norwegian_Bokmal", "pl": "Polish",
    "pt": "Portuguese", "ro": "Romanian", "ru": "Russian", "sv": "Swedish", "sw": "Swahili",
    "tr": "Turkish", "uk": "Ukrainian", "ur": "Urdu", "vi": "Vietnamese",
}  # fmt: skip


# --- the outside systems, run by the benchenv's interpreter (stdlib imports only here) ---------


def worker(in_path: str, out_path: str, precision: bool) -> int:
    """Read ``{"id", "path", "stoplist"}`` lines, write ``{"id", "out", "ms", "errors"}`` lines."""
    import justext
    import trafilatura

    stoplists = set(justext.get_stoplists())

    def jt(raw: bytes, name: str | None) -> str:
        if name in stoplists:
            paragraphs = justext.justext(raw, justext.get_stoplist(name))
        else:  # jusText's language-independent mode
            paragraphs = justext.justext(raw, frozenset(), stopwords_low=0, stopwords_high=0)
        return "\n\n".join(p.text for p in paragraphs if not p.is_boilerplate)

    funcs = {
        TRAFILATURA: lambda raw, _: trafilatura.extract(raw, include_comments=False) or "",
        JUSTEXT: jt,
    }
    if precision:
        funcs[TRAFILATURA_PRECISION] = lambda raw, _: (
            trafilatura.extract(raw, include_comments=False, favor_precision=True) or ""
        )
    names = list(funcs)
    with open(in_path, encoding="utf-8") as src, open(out_path, "w", encoding="utf-8") as dst:
        for n, line in enumerate(src):
            page = json.loads(line)
            raw = gzip.decompress(Path(page["path"]).read_bytes())
            row: dict = {"id": page["id"], "out": {}, "ms": {}, "errors": {}}
            for name in names[n % len(names) :] + names[: n % len(names)]:  # rotate the order
                start = time.process_time()
                try:
                    row["out"][name] = funcs[name](raw, page["stoplist"])
                except Exception as exc:  # one page failing must not end the run
                    row["out"][name] = ""
                    row["errors"][name] = f"{type(exc).__name__}: {exc}"[:300]
                row["ms"][name] = (time.process_time() - start) * 1000
            dst.write(json.dumps(row, ensure_ascii=False) + "\n")
    from importlib.metadata import version

    versions = {name: version(name) for name in ("trafilatura", "justext", "lxml")}
    Path(out_path + ".versions").write_text(json.dumps(versions))
    return 0


# --- warcclean, scoring and the report -------------------------------------------------------


def _structure() -> ModuleType:
    """bench/structure.py, for its shared helpers (bench/ is no package)."""
    spec = importlib.util.spec_from_file_location("_bench_structure", REPO / "bench/structure.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_ours(pages: list) -> dict[str, list]:
    """`PageScore` rows of warcclean's cleaners, the two alternating page by page."""
    from pipeline.cleaners.registry import DEFAULT_CLEANER
    from pipeline.evaluate.scoring import evaluate

    cleaners = dict(zip(OURS, (DEFAULT_CLEANER, "justext"), strict=True))
    rows: dict[str, list] = {name: [] for name in OURS}
    names = list(OURS)
    for n, page in enumerate(pages):
        for name in names[n % 2 :] + names[: n % 2]:
            rows[name].extend(evaluate([page], cleaners[name]).rows)
        if (n + 1) % 200 == 0:
            print(f"warcclean: {n + 1}/{len(pages)} pages", file=sys.stderr)
    return rows


def score_outside(pages: list, outside: dict[str, dict], name: str) -> list:
    """`PageScore` rows of one outside system's outputs, with its errors and CPU times."""
    from pipeline.evaluate.scoring import score_text

    rows = []
    for page in pages:
        got = outside[page.id]
        error = got["errors"].get(name)
        rows.append(replace(score_text(page, got["out"][name]), error=error, ms=got["ms"][name]))
    return rows


def by_language(rows: list) -> dict[str, dict]:
    """`aggregate` per language, languages by page count (most first), then ``all``."""
    from pipeline.evaluate.scoring import aggregate

    groups: dict[str, list] = {}
    for row in rows:
        groups.setdefault(row.language, []).append(row)
    ordered = sorted(groups, key=lambda lang: (-len(groups[lang]), lang))
    return {**{lang: aggregate(groups[lang]) for lang in ordered}, "all": aggregate(rows)}


# (table title, aggregate key, cell format)
TABLES = (
    ("mean word F1 (characters for zh/ja/th/my)", "f1", "{:.3f}"),
    ("mean precision", "precision", "{:.3f}"),
    ("mean recall", "recall", "{:.3f}"),
    ("pages emptied", "empty", "{}"),
    ("failures (raised; scored as empty)", "failures", "{}"),
    ("median CPU ms per page", "median_ms", "{:.1f}"),
)


def print_tables(report: dict) -> None:
    systems = report["systems"]
    columns = list(next(iter(systems.values()))["by_language"])
    pages = next(iter(systems.values()))["by_language"]
    head_cells = [f"{col} ({pages[col]['pages']})" for col in columns]
    width = max(len(name) for name in systems) + 2
    for title, key, fmt in TABLES:
        print(f"\n{title}")
        head = f"{'system':{width}}" + "".join(f"{cell:>11}" for cell in head_cells)
        print(head)
        print("-" * len(head))
        for name, system in systems.items():
            cells = []
            for col in columns:
                value = system["by_language"][col][key]
                cells.append("-" if value is None else fmt.format(value))
            print(f"{name:{width}}" + "".join(f"{cell:>11}" for cell in cells))
    print(f"\n{JUSTEXT}: {report['notes']['justext']}")


def _git() -> dict[str, object]:
    def git(*args: str) -> str | None:
        done = subprocess.run(
            ["git", "-C", str(REPO), *args], capture_output=True, text=True, check=False
        )
        return done.stdout.strip() if done.returncode == 0 else None

    status = git("status", "--porcelain", "--untracked-files=no")
    return {
        "commit": git("rev-parse", "HEAD"),
        "uncommitted_tracked_files": status.splitlines() if status else [],
    }


def measure(args: argparse.Namespace, helpers: ModuleType) -> dict:
    """Run every system on every page; ``helpers`` is bench/structure.py (`_structure`)."""
    from pipeline.cleaners.registry import DEFAULT_CLEANER
    from pipeline.evaluate.datasets import load_dataset

    info = helpers.machine()
    if not (args.data / "html").is_dir():
        raise SystemExit(f"error: {args.data / 'html'} not found (give --data a dataset folder)")
    pages = load_dataset(args.data)
    pages = pages[: args.limit] if args.limit else pages
    t0 = time.monotonic()
    rows = run_ours(pages)
    print(f"warcclean: {time.monotonic() - t0:.0f} s; outside systems ...", file=sys.stderr)
    t1 = time.monotonic()
    rows_out = [
        {"id": p.id, "path": str(p.html_path.resolve()), "stoplist": JUSTEXT_NAMES.get(p.language)}
        for p in pages
    ]
    outside, versions = helpers.run_outside(
        args.benchenv, rows_out, Path(__file__).resolve(), ["--no-precision"] * args.no_precision
    )
    print(f"outside systems: {time.monotonic() - t1:.0f} s", file=sys.stderr)
    names = [TRAFILATURA, *([] if args.no_precision else [TRAFILATURA_PRECISION]), JUSTEXT]
    for name in names:
        rows[name] = score_outside(pages, outside, name)
    no_stoplist = sorted({p.language for p in pages} - set(JUSTEXT_NAMES))
    info["load_average_at_end"] = os.getloadavg()
    info["compiled_modules"] = helpers._compiled()
    return {
        "date": results_file.utc_now(),
        "command": results_file.command_line(__file__),
        "data": str(args.data),
        "pages": len(pages),
        "systems": {
            name: {
                "call": _CALLS[name].replace("DEFAULT", DEFAULT_CLEANER),
                "by_language": by_language(system_rows),
                "errors": {r.id: r.error for r in system_rows if r.error},
            }
            for name, system_rows in rows.items()
        },
        "notes": {
            "justext": "given each page's true language's stoplist (favours it); "
            f"language-independent mode (no stoplist) for: {', '.join(no_stoplist) or 'none'}",
            "warcclean": "no language given (detected), no URL; decoded from the page's bytes",
            "ms": "median CPU ms per call, in the process that ran it (warcclean here, the "
            "outside systems in the benchenv subprocess)",
        },
        "versions": {"warcclean": helpers._version("warcclean"), **versions},
        "git": _git(),
        "machine": info,
    }


_CALLS = {
    "warcclean default": "pipeline.clean_html(raw_bytes)  # cleaner=DEFAULT",
    "warcclean justext": 'pipeline.clean_html(raw_bytes, cleaner="justext")',
    TRAFILATURA: "trafilatura.extract(raw_bytes, include_comments=False)",
    TRAFILATURA_PRECISION: (
        "trafilatura.extract(raw_bytes, include_comments=False, favor_precision=True)"
    ),
    JUSTEXT: "justext.justext(raw_bytes, justext.get_stoplist(NAME_OF_TRUE_LANGUAGE)); "
    "non-boilerplate paragraphs joined by blank lines",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="a dataset folder")
    parser.add_argument("--limit", type=int, default=None, help="only the first N pages (by id)")
    parser.add_argument("--benchenv", type=Path, default=DEFAULT_BENCHENV)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument(
        "--no-precision", action="store_true", help="skip trafilatura favor_precision=True"
    )
    parser.add_argument(
        "--source",
        action="store_true",
        help="run warcclean's compilable modules from their .py (sources edited since the build)",
    )
    parser.add_argument("--worker", nargs=2, metavar=("IN", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(*args.worker, precision=not args.no_precision)
    helpers = _structure()
    helpers._bootstrap(args.source)  # single-threaded BLAS, as in a Dask worker
    report = measure(args, helpers)
    print_tables(report)
    results_file.write_results(args.out, report, ensure_ascii=False)
    out = args.out.resolve()
    print(f"\nwritten: {out.relative_to(REPO) if out.is_relative_to(REPO) else out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
