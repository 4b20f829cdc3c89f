"""The default cleaner's label stage per page: this checkout against another, run alternately.

Usage: python bench/label_cost.py [--baseline CHECKOUT] [--data DIR ...] [--limit N]
       [--rounds 7] [--out FILE]

Every page of the dev sets (default: wcxb-dev) is decoded, parsed and segmented once, its language
detected and its page cues read, as `pipeline.clean_html` does before labelling. Then the label
stage, `NeighboursCleaner.label_noted` (block features, trees, nets, the page's rule and the
guards), is timed page by page with `time.process_time_ns`, and so are its parts: the features
(`page_features`) and the model's probabilities (`NeighboursModel.probabilities`: trees, nets and
their blend).

With ``--baseline``, the same measurement runs in two worker processes, one per checkout (this
one's interpreter, and ``CHECKOUT/.venv/bin/python`` for the other: each imports its own
`pipeline`), driven round by round so that only one of them runs at a time, the first of each
round alternating. Both must keep the same blocks on every page and give the same probabilities
within 1e-5, or the run stops with an error. A page's time is its median over the rounds; the
table gives their mean (the cost per page of a corpus) and median, and the ratio of the means.

Without ``--baseline`` only this checkout is timed. Either way, this checkout's worker also
times, in the same process, its nets run one by one (`ConvNet.raw` per net, as before they were
stacked) against the stack (`NetStack`), and its trees walked from the flat node arrays
(`treewalk.ensemble_raw`) against their complete layout (`treewalk.complete_raw`), where those
exist: each pair back to back on the page's rows, which of the two goes first alternating from page
to page (the second finds the caches warm). Results: ``bench/results/label_cost.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if sys.path and Path(sys.path[0] or ".").resolve() == REPO / "bench":
    del sys.path[0]  # bench/pipeline.py would shadow the package
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

DEFAULT_DATA = REPO.parent / "shared" / "data" / "wcxb-dev"
DEFAULT_OUT = REPO / "bench" / "results" / "label_cost.json"
PARTS = ("label", "features", "probabilities")
EXTRA_PARTS = ("nets_one_by_one", "nets_stacked", "trees_flat", "trees_complete")
TOLERANCE = 1e-5


def load_pages(data: list[Path], limit: int | None) -> list[tuple[str, Any, Any, Any, str]]:
    """(id, blocks, stoplist, cues, language) of every page, as `clean_html` has them when it
    labels the page; pages without blocks are left out (the model is not asked about them)."""
    from pipeline.evaluate.datasets import load_dataset
    from pipeline.html.decode import decode_html
    from pipeline.html.page_cues import page_cues
    from pipeline.html.segment import parse, segment
    from pipeline.lang import langid, stoplists

    pages = []
    for folder in data:
        for page in load_dataset(folder)[:limit]:
            tree = parse(decode_html(page.read_html()).html)
            blocks = segment(tree, record_runs=True)
            if not blocks:
                continue
            language = langid.detect_blocks(blocks).code
            cues = page_cues(tree, page.url)
            pages.append(
                (f"{folder.name}/{page.id}", blocks, stoplists.stoplist(language), cues, language)
            )
    return pages


def worker(data: list[Path], limit: int | None) -> None:
    """Serve rounds over stdin/stdout: each "round" line times every page once and answers with
    one JSON line (per part, every page's nanoseconds; every page's kept blocks and
    probabilities on the first round)."""
    from pipeline.threads import single_threaded_blas

    single_threaded_blas()  # as in a Dask worker; before numpy is imported
    import gc

    import numpy as np

    from pipeline.learned.features import page_features
    from pipeline.learned.model import sigmoid
    from pipeline.learned.neighbours import NeighboursCleaner
    from pipeline.types import Verdict

    cleaner = NeighboursCleaner()
    model = cleaner.model
    stack = getattr(model, "_stack", None)
    trees = model.scorer
    complete = getattr(trees, "_complete", None)

    def one_by_one(x: np.ndarray) -> np.ndarray:
        """The nets' mean probability as the model computed it before the stack."""
        probs = sigmoid(model.nets[0].raw(x))
        for net in model.nets[1:]:
            probs += sigmoid(net.raw(x))
        probs /= len(model.nets)
        return probs

    def flat_walk(rows: np.ndarray) -> np.ndarray:
        """The trees walked from their flat node arrays, as before the complete layout."""
        from pipeline.learned import treewalk

        feature, threshold, left, right, value, roots = trees._flat
        return treewalk.ensemble_raw(
            rows, feature, threshold, left, right, value, roots, trees.baseline, trees.depth
        )

    pages = load_pages(data, limit)
    # A job holds one page at a time: keep the loaded pages out of the collector's way.
    gc.collect()
    gc.freeze()
    clock = time.process_time_ns
    print(json.dumps({"ready": len(pages), "pipeline": sys.modules["pipeline"].__file__}))
    sys.stdout.flush()
    first = True
    for line in sys.stdin:
        if line.strip() != "round":
            break
        times: dict[str, list[int]] = {part: [] for part in (*PARTS, *EXTRA_PARTS)}
        answers = []
        for _, blocks, stoplist, cues, language in pages:
            t0 = clock()
            labeled, _ = cleaner.label_noted(blocks, stoplist, cues, language)
            t1 = clock()
            x = page_features(blocks, stoplist, cues)
            t2 = clock()
            model.probabilities(x, blocks)
            t3 = clock()
            times["label"].append(t1 - t0)
            times["features"].append(t2 - t1)
            times["probabilities"].append(t3 - t2)
            # The pairs below run back to back on the same rows, and the second of a pair finds
            # the caches warm: which goes first alternates from page to page.
            flip = len(times["label"]) % 2 == 1
            if stack is not None:
                got = timed_pair(
                    (("nets_one_by_one", one_by_one), ("nets_stacked", stack.mean_probability)),
                    x,
                    flip,
                    times,
                )
                if first and not np.allclose(*got, rtol=0, atol=TOLERANCE):
                    raise SystemExit("error: the stacked nets differ from the nets one by one")
            if complete is not None:
                got = timed_pair(
                    (("trees_flat", flat_walk), ("trees_complete", trees.raw)),
                    np.ascontiguousarray(x),
                    flip,
                    times,
                )
                if first and not np.array_equal(*got):
                    raise SystemExit("error: the complete trees differ from the flat walk")
            if first:
                answers.append(
                    (
                        [lb.verdict == Verdict.GOOD for lb in labeled],
                        [float(lb.score) for lb in labeled],
                    )
                )
        print(json.dumps({"times": times, "answers": answers if first else None}))
        sys.stdout.flush()
        first = False


def timed_pair(
    pair: tuple[tuple[str, Callable[[Any], Any]], ...],
    x: Any,
    flip: bool,
    times: dict[str, list[int]],
) -> list[Any]:
    """Run the two ``(part, function)`` of ``pair`` on ``x``, the second first when ``flip``,
    adding each one's CPU time to ``times``; their results in the pair's order."""
    got = {}
    for part, function in pair[::-1] if flip else pair:
        t0 = time.process_time_ns()
        got[part] = function(x)
        times[part].append(time.process_time_ns() - t0)
    return [got[part] for part, _ in pair]


class Worker:
    """A worker process of one checkout, driven a round at a time."""

    def __init__(self, python: str, cwd: Path, args: list[str]) -> None:
        self.proc = subprocess.Popen(
            [python, str(Path(__file__).resolve()), "--worker", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=cwd,
        )
        self.ready = self._read()

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"error: worker {self.proc.args} ended early")
        return json.loads(line)

    def round(self) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write("round\n")
        self.proc.stdin.flush()
        return self._read()

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def per_page_medians(rounds: list[dict[str, list[int]]], part: str) -> list[float]:
    """Each page's median over the rounds, in ms."""
    columns = zip(*(r[part] for r in rounds), strict=True)
    return [statistics.median(column) / 1e6 for column in columns]


def summarize(values: list[float]) -> dict[str, float]:
    return {"mean_ms": statistics.fmean(values), "median_ms": statistics.median(values)}


def compare_answers(old: list[Any], new: list[Any], names: list[str]) -> dict[str, Any]:
    """Pages whose kept blocks differ, and the largest probability difference."""
    differ = [
        name
        for name, (keep_old, _), (keep_new, _) in zip(names, old, new, strict=True)
        if keep_old != keep_new
    ]
    largest = max(
        (
            abs(a - b)
            for (_, p_old), (_, p_new) in zip(old, new, strict=True)
            for a, b in zip(p_old, p_new, strict=True)
        ),
        default=0.0,
    )
    return {"pages_with_other_decisions": differ, "max_probability_difference": largest}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=Path, default=None, help="another checkout to compare")
    parser.add_argument(
        "--data", type=Path, action="append", default=None, help="dev set folder (repeatable)"
    )
    parser.add_argument("--limit", type=int, default=None, help="only the first N pages a set")
    parser.add_argument("--rounds", type=int, default=7, help="timed rounds per checkout")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results JSON path")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    data = args.data or [DEFAULT_DATA]
    if args.worker:
        worker(data, args.limit)
        return 0
    passed = [a for d in data for a in ("--data", str(d))]
    passed += ["--limit", str(args.limit)] if args.limit else []
    started = results_file.utc_now()
    load_start = os.getloadavg()
    workers = {"new": Worker(sys.executable, REPO, passed)}
    if args.baseline is not None:
        python = args.baseline.resolve() / ".venv" / "bin" / "python"
        workers["old"] = Worker(str(python), args.baseline.resolve(), passed)
        if workers["old"].ready["ready"] != workers["new"].ready["ready"]:
            raise SystemExit("error: the two checkouts segmented the pages differently")
    tags = list(workers)
    rounds: dict[str, list[dict[str, list[int]]]] = {tag: [] for tag in tags}
    answers: dict[str, Any] = {}
    for r in range(args.rounds):
        for tag in tags if r % 2 == 0 else tags[::-1]:
            got = workers[tag].round()
            rounds[tag].append(got["times"])
            if got["answers"] is not None:
                answers[tag] = got["answers"]
    for w in workers.values():
        w.close()
    names = [f"page {i}" for i in range(workers["new"].ready["ready"])]
    summary = {
        tag: {
            part: summarize(per_page_medians(rounds[tag], part))
            for part in (*PARTS, *EXTRA_PARTS)
            if rounds[tag][0][part]
        }
        for tag in tags
    }
    result: dict[str, Any] = {
        "date": started,
        "command": results_file.command_line(__file__, argv),
        "data": [str(d) for d in data],
        "pages": len(names),
        "rounds": args.rounds,
        "checkouts": {tag: w.ready["pipeline"] for tag, w in workers.items()},
        "load_average": {"start": load_start, "end": os.getloadavg()},
        "summary_ms": summary,
    }
    print(
        f"{len(names)} pages, {args.rounds} rounds; ms per page (mean over pages of each "
        "page's median over rounds; median over pages in brackets)"
    )
    header = f"{'part':18}" + "".join(f"{tag:>20}" for tag in tags)
    print(header + (f"{'new / old':>12}" if "old" in tags else ""))
    for part in (*PARTS, *EXTRA_PARTS):
        cells = [summary[tag].get(part) for tag in tags]
        if all(c is None for c in cells):
            continue
        line = f"{part:18}" + "".join(
            f"{'-':>20}" if c is None else f"{c['mean_ms']:11.3f} ({c['median_ms']:.3f})"
            for c in cells
        )
        if "old" in tags and all(c is not None for c in cells):
            line += f"{cells[0]['mean_ms'] / cells[1]['mean_ms']:12.2f}"
        print(line)
    if "old" in tags:
        check = compare_answers(answers["old"], answers["new"], names)
        result["check"] = {
            "pages_with_other_decisions": len(check["pages_with_other_decisions"]),
            "max_probability_difference": check["max_probability_difference"],
        }
        result["ratio_new_over_old"] = {
            part: summary["new"][part]["mean_ms"] / summary["old"][part]["mean_ms"]
            for part in PARTS
        }
        print(
            f"decisions differ on {len(check['pages_with_other_decisions'])} pages; largest "
            f"probability difference {check['max_probability_difference']:.2e}"
        )
        if check["pages_with_other_decisions"] or check["max_probability_difference"] > TOLERANCE:
            results_file.write_results(args.out, result)
            raise SystemExit("error: the checkouts label the pages differently")
    results_file.write_results(args.out, result)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
