"""What the code rescue (`pipeline.rules.code_rescue`) keeps, and what it costs in boilerplate.

Usage: python bench/code_rescue.py [--limit N] [--out FILE]

Every page of ``../shared/data/wcxb-dev`` and ``multilingual-dev`` is cleaned twice by the default
cleaner, with the rescue (as shipped) and with ``code_rescue=False``, in one process. For each
block the rescue added: whether its ``\\w+`` tokens are in the page's reference (at least 80% of
them in the reference's token multiset, the rule of ``bench/structure.py``; multilingual pages
have no full reference for every page, so there only word F1 and snippets are compared), and how
many tokens it added in and outside the reference (the boilerplate it kept). Then the page
scores with and without, as ``warcclean eval`` computes them (`pipeline.evaluate.scoring`): WCXB
word F1 / precision / recall over all pages and over the test part of the models' site split
(held out), and on multilingual-dev full-text F1 and must-(not-)contain snippets.
Results: ``bench/results/code_rescue.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if sys.path and Path(sys.path[0] or ".").resolve() == REPO / "bench":
    del sys.path[0]  # bench/pipeline.py would shadow the package
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

SHARED = REPO.parent / "shared" / "data"
DEFAULT_OUT = REPO / "bench" / "results" / "code_rescue.json"
IN_REFERENCE = 0.8
_WORD = re.compile(r"\w+")


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _test_ids(dataset: str) -> set[str]:
    split = json.loads((REPO / "pipeline" / "models" / "neighbours.json").read_text("utf-8"))
    prefix = {"wcxb-dev": "wcxb/", "multilingual-dev": "ml/"}[dataset]
    ids = split["metadata"]["split"]["test_ids"]
    return {i[len(prefix) :] for i in ids if i.startswith(prefix)}


def _mean(values: list[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return round(statistics.fmean(kept), 4) if kept else None


def measure(dataset: str, limit: int | None) -> dict:
    from pipeline.clean import clean_html
    from pipeline.evaluate.datasets import load_dataset
    from pipeline.evaluate.scoring import score_text

    pages = sorted(load_dataset(SHARED / dataset), key=lambda p: p.id)[:limit]
    held_out = _test_ids(dataset)
    scores: dict[str, dict[str, list]] = {"on": {}, "off": {}}
    rescued = Counter()
    changed: list[str] = []
    examples: list[dict] = []
    for n, page in enumerate(pages):
        raw = page.read_html()
        results = {}
        for flag in ("on", "off") if n % 2 == 0 else ("off", "on"):
            results[flag] = clean_html(raw, url=page.url, code_rescue=flag == "on")
        for flag, result in results.items():
            row = score_text(page, result.text)
            scores[flag][page.id] = row
        on, off = results["on"], results["off"]
        added = [
            a.block
            for a, b in zip(on.blocks, off.blocks, strict=True)
            if a.verdict == "good" and b.verdict != "good"
        ]
        if not added:
            continue
        changed.append(page.id)
        reference = Counter(_tokens(page.main_content or ""))
        for block in added:
            tokens = _tokens(block.text)
            overlap = sum((Counter(tokens) & reference).values())
            inside = bool(tokens) and overlap >= IN_REFERENCE * len(tokens)
            rescued["blocks"] += 1
            rescued["blocks_in_reference" if inside else "blocks_outside"] += 1
            rescued["tokens_in_reference"] += overlap
            rescued["tokens_outside_reference"] += len(tokens) - overlap
            if page.main_content is not None and len(examples) < 60:
                examples.append({"page": page.id, "in_reference": inside, "text": block.text[:120]})
    out: dict = {
        "pages": len(pages),
        "pages_changed": len(changed),
        "changed": changed,
        "rescued": dict(rescued),
    }
    for part, ids in (("all", None), ("test", held_out)):
        part_scores = {}
        for flag in ("on", "off"):
            rows = [r for pid, r in scores[flag].items() if ids is None or pid in ids]
            part_scores[flag] = {
                "pages": len(rows),
                "f1": _mean([r.f1 for r in rows]),
                "precision": _mean([r.precision for r in rows]),
                "recall": _mean([r.recall for r in rows]),
                "with_found": sum(r.with_found for r in rows),
                "with_total": sum(r.with_total for r in rows),
                "without_present": sum(r.without_present for r in rows),
                "without_total": sum(r.without_total for r in rows),
            }
        out[part] = part_scores
    out["examples"] = examples
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="first N pages of each set")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    from pipeline.threads import single_threaded_blas

    single_threaded_blas()
    report = {
        "date": results_file.utc_now(),
        "command": results_file.command_line(__file__, argv),
        "commit": results_file.git_commit(),
        "machine": {
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "load_average_at_start": os.getloadavg(),
        },
        "in_reference_rule": f">= {IN_REFERENCE:.0%} of a block's tokens in the reference",
    }
    for dataset in ("wcxb-dev", "multilingual-dev"):
        report[dataset] = measure(dataset, args.limit)
        r = report[dataset]
        print(
            f"{dataset}: {r['rescued'].get('blocks', 0)} blocks kept on {r['pages_changed']} of "
            f"{r['pages']} pages, {r['rescued'].get('blocks_in_reference', 0)} in the reference; "
            f"tokens added in / outside the reference "
            f"{r['rescued'].get('tokens_in_reference', 0)} / "
            f"{r['rescued'].get('tokens_outside_reference', 0)}"
        )
        for part in ("all", "test"):
            on, off = r[part]["on"], r[part]["off"]
            print(
                f"  {part:4} ({on['pages']} pages): F1 {off['f1']} -> {on['f1']}, "
                f"P {off['precision']} -> {on['precision']}, R {off['recall']} -> {on['recall']}, "
                f"with found {off['with_found']} -> {on['with_found']} / {on['with_total']}, "
                f"without present {off['without_present']} -> {on['without_present']} / "
                f"{on['without_total']}"
            )
    results_file.write_results(args.out, report)
    print(f"written: {args.out.relative_to(REPO) if args.out.is_relative_to(REPO) else args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
