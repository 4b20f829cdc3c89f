"""Language ID side by side: langdetect's own detector (the old path) against pipeline.lang.langid.

    python bench/langid.py [--shared ../shared] [--wcxb-step 1] [--reps 3] [--calibrate]
                           [--in-pipeline [--pipeline-reps 2]] [--sample-chars 200 450 600]
                           [--smoothing 1e-5 1e-4 2e-4] [--extra magic-html daniel]
                           [--out bench/results/langid.json]

The old path is pipeline.lang.langid's `detect_blocks` before it scored the profiles itself: the
same page sample (300 characters; built as it was then, `old_sample_text`), the same rule for
scripts langdetect has no profile for, then langdetect 1.0.9's Detector with 1 seeded trial. Prints,
per data set: accuracy over all pages and over pages with any text block, accuracy per language, the
pages each detector gets wrong, CPU time per page of `detect_blocks` (time.process_time, best of
``--reps`` per page, old and new interleaved so that load from other processes hits both alike), and
how the new probability behaves (range, mean on right and wrong guesses).

``--in-pipeline`` also times whole pages through `pipeline.clean.clean_html` (default cleaner,
from raw bytes) three ways, interleaved with the order rotating per page: with the language given
(no detection), detecting with the old path, detecting with the new one; each page's time is
the best of ``--pipeline-reps`` rounds. The cost of detection
is then measured where it runs, between parsing and labelling that evict its tables from the CPU
caches, which ``detect_blocks`` timed alone in a loop does not show.

``--sample-chars N ...`` also prints the new detector's accuracy with samples of N characters
(the evidence for `langid.SAMPLE_CHARS`), and ``--smoothing E ...`` its accuracy with the
profile matrix built with other smoothing constants (`langprofiles.SMOOTHING`).

``--extra NAME ...`` also compares the two detectors on other labelled sets under
``<shared>/data`` (daniel: a third of its Chinese pages are Traditional Chinese, which langdetect's
profiles score as Korean).

``--calibrate`` also cuts every prose block of the pages to 30-300 characters and prints, for
several temperatures, how well the new probability matches the share of right guesses (Brier
score and a reliability table): the evidence for `langid.TEMPERATURE`.

The numbers go to ``--out`` as JSON too, with the date, the command and the machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from importlib.metadata import version
from operator import attrgetter
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
if sys.path and Path(sys.path[0] or ".").resolve() == REPO / "bench":
    del sys.path[0]  # bench/pipeline.py would shadow the package
sys.path.insert(0, str(REPO / "bench"))
import results_file  # noqa: E402

del sys.path[0]  # bench/ only for that import: bench/pipeline.py would shadow the package

from pipeline.clean import clean_html  # noqa: E402
from pipeline.evaluate.datasets import Page, load_dataset  # noqa: E402
from pipeline.html.decode import decode_html  # noqa: E402
from pipeline.html.segment import parse, segment  # noqa: E402
from pipeline.lang import langid  # noqa: E402
from pipeline.lang import profiles as langprofiles  # noqa: E402
from pipeline.types import UND, Block, LangGuess  # noqa: E402

Detector = Callable[[Sequence[Block]], LangGuess]
# Everything printed, as numbers, for the --out JSON file.
RESULTS: dict[str, Any] = {}


def old_sample_text(blocks: Sequence[Block], max_chars: int = langid.SAMPLE_CHARS) -> str:
    """`langid.sample_text` as it was: the same sample, built with two sorts of all blocks."""
    prose: list[Block] = []
    linky: list[Block] = []
    for b in blocks:
        if b.n_chars:
            (linky if b.n_link_chars / b.n_chars > 0.5 else prose).append(b)
    by_length = attrgetter("n_chars")
    ranked = sorted(prose, key=by_length, reverse=True)
    if linky:
        ranked += sorted(linky, key=by_length, reverse=True)
    per_block = max(100, max_chars // 3)
    parts: list[str] = []
    total = 0
    for block in ranked:
        if total >= max_chars:
            break
        parts.append(block.text[: min(per_block, max_chars - total)])
        total += len(parts[-1]) + 1
    return "\n".join(parts)


def langdetect_blocks() -> Detector:
    """The old `detect_blocks`: langdetect's Detector, seeded, 1 trial, on the same sample."""
    from langdetect.detector_factory import PROFILES_DIRECTORY, DetectorFactory
    from langdetect.lang_detect_exception import LangDetectException

    factory = DetectorFactory()
    factory.load_profile(PROFILES_DIRECTORY)
    factory.set_seed(0)

    def detect_blocks(blocks: Sequence[Block]) -> LangGuess:
        text = old_sample_text(blocks)
        if not text:
            return UND
        scripted = langid._by_script(text[: langid.SAMPLE_CHARS])
        if scripted is not None:
            return scripted
        detector = factory.create()
        detector.set_max_text_length(langid.SAMPLE_CHARS)
        detector.n_trial = 1
        try:
            detector.append(text)
            ranked = detector.get_probabilities()
        except LangDetectException:
            return UND
        if not ranked:
            return UND
        return LangGuess(langid.normalize_code(ranked[0].lang), float(ranked[0].prob))

    return detect_blocks


def cpu_ms(fn: Callable[[], LangGuess], reps: int) -> tuple[float, LangGuess]:
    best, guess = float("inf"), UND
    for _ in range(reps):
        start = time.process_time()
        guess = fn()
        best = min(best, time.process_time() - start)
    return best * 1000, guess


def compare(label: str, pages: list[tuple[str, list[Block]]], old: Detector, reps: int) -> None:
    detectors = {"old (langdetect)": old, "new (langid)": langid.detect_blocks}
    ms: dict[str, list[float]] = defaultdict(list)
    guesses: dict[str, list[LangGuess]] = defaultdict(list)
    for _, blocks in pages:
        for name, detect in detectors.items():
            t, guess = cpu_ms(lambda detect=detect, blocks=blocks: detect(blocks), reps)
            ms[name].append(t)
            guesses[name].append(guess)
    truth = [lang for lang, _ in pages]
    has_text = [any(b.n_chars for b in blocks) for _, blocks in pages]
    n_text = sum(has_text)
    record: dict[str, Any] = {"pages": len(pages), "pages_with_text": n_text}
    RESULTS[label] = record
    print(f"\n== {label}: {len(pages)} pages, {n_text} with text")
    header = f"{'all pages':>16s} {'pages with text':>18s} {'median ms':>9s} {'mean ms':>8s}"
    print(f"  {'detector':18s} {header}")
    for name in detectors:
        right = [g.code == t for g, t in zip(guesses[name], truth, strict=True)]
        right_text = sum(r for r, h in zip(right, has_text, strict=True) if h)
        record[name] = {
            "right": sum(right),
            "right_of_pages_with_text": right_text,
            "median_ms": statistics.median(ms[name]),
            "mean_ms": statistics.mean(ms[name]),
            "wrong": dict(
                Counter(f"{t}->{g.code}" for g, t in zip(guesses[name], truth, strict=True))
                - Counter(f"{t}->{t}" for t in truth)
            ),
        }
        print(
            f"  {name:18s} {sum(right):5d} = {sum(right) / len(pages):.3f}   "
            f"{right_text:5d} = {right_text / n_text:.3f}   "
            f"{statistics.median(ms[name]):9.3f} {statistics.mean(ms[name]):8.3f}"
        )
    old_ms, new_ms = ms["old (langdetect)"], ms["new (langid)"]
    print(
        f"  old / new: median {statistics.median(old_ms) / statistics.median(new_ms):.1f}x, "
        f"mean {statistics.mean(old_ms) / statistics.mean(new_ms):.1f}x, per-page ratio median "
        f"{statistics.median(o / n for o, n in zip(old_ms, new_ms, strict=True) if n):.1f}x"
    )
    by_lang: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for i, lang in enumerate(truth):
        by_lang[lang][0] += 1
        by_lang[lang][1] += guesses["old (langdetect)"][i].code == lang
        by_lang[lang][2] += guesses["new (langid)"][i].code == lang
    if len(by_lang) > 1:
        print("  per language (pages, old right, new right):")
        cells = [f"{lang} {n}/{o}/{w}" for lang, (n, o, w) in sorted(by_lang.items())]
        for i in range(0, len(cells), 8):
            print("    " + "  ".join(f"{c:14s}" for c in cells[i : i + 8]))
    worse = [lang for lang, (_, o, w) in sorted(by_lang.items()) if w < o]
    record["per_language_pages_old_new"] = dict(sorted(by_lang.items()))
    record["languages_new_worse"] = worse
    print(f"  languages where new is worse than old: {', '.join(worse) or 'none'}")
    for name in detectors:
        wrong = Counter(
            f"{t}->{g.code}" for g, t in zip(guesses[name], truth, strict=True) if g.code != t
        )
        print(f"  {name} wrong: {dict(wrong.most_common())}")
    new = guesses["new (langid)"]
    probs = np.array([g.prob for g in new])
    right = np.array([g.code == t for g, t in zip(new, truth, strict=True)])
    known = np.array([g.known for g in new])
    print(
        f"  new probability: {int((~known).sum())} pages und (0.0), the others in "
        f"[{probs[known].min():.3f}, {probs[known].max():.3f}], "
        f"mean when right {probs[right & known].mean():.3f}, "
        f"when wrong {probs[~right & known].mean() if (~right & known).any() else float('nan'):.3f}"
        f", below LOW_CONFIDENCE {int((known & (probs < langid.LOW_CONFIDENCE)).sum())} pages"
    )


def in_pipeline(label: str, pages: list[Page], old: Detector, reps: int) -> None:
    """CPU ms per page of clean_html (best of ``reps`` rounds, each in rotating order)."""
    new = langid.detect_blocks
    raws = [(p.read_html(), p.language) for p in pages]

    def clean(raw: bytes, language: str | None, detector: Detector) -> None:
        langid.detect_blocks = detector  # clean.py looks it up on the module at each call
        try:
            clean_html(raw, language=language)
        finally:
            langid.detect_blocks = new

    variants: dict[str, Callable[[bytes, str], None]] = {
        "language given": lambda raw, lang: clean(raw, lang, new),
        "old detection": lambda raw, _: clean(raw, None, old),
        "new detection": lambda raw, _: clean(raw, None, new),
    }
    names = list(variants)
    ms: dict[str, list[float]] = defaultdict(list)
    for i, (raw, lang) in enumerate(raws):
        best = dict.fromkeys(names, float("inf"))
        for rep in range(reps):
            shift = (i + rep) % 3
            for name in names[shift:] + names[:shift]:
                start = time.process_time()
                variants[name](raw, lang)
                best[name] = min(best[name], (time.process_time() - start) * 1000)
        for name in names:
            ms[name].append(best[name])
    base = ms["language given"]
    RESULTS[f"in clean_html, {label}"] = {
        name: {"median_ms": statistics.median(t), "mean_ms": statistics.mean(t)}
        for name, t in ms.items()
    }
    print(f"\n== in clean_html, {label}: {len(raws)} pages, best of {reps}, CPU ms per page")
    print(f"  {'variant':16s} {'median':>7s} {'mean':>7s}  detection = variant - language given")
    for name in names:
        line = f"  {name:16s} {statistics.median(ms[name]):7.2f} {statistics.mean(ms[name]):7.2f}"
        if name != "language given":
            extra = [t - b for t, b in zip(ms[name], base, strict=True)]
            share = statistics.mean(extra) / statistics.mean(base)
            line += (
                f"  detection: median {statistics.median(extra):.3f}, "
                f"mean {statistics.mean(extra):.3f} ms = {share:.1%} of the page"
            )
        print(line)


def sample_sizes(label: str, pages: list[tuple[str, list[Block]]], sizes: list[int]) -> None:
    """Accuracy of the new detector on samples of other sizes than `langid.SAMPLE_CHARS`."""
    print(f"\n== {label}: new detector's accuracy by sample size (pages with text)")
    with_text = [(lang, blocks) for lang, blocks in pages if any(b.n_chars for b in blocks)]
    for size in sorted({langid.SAMPLE_CHARS, *sizes}):
        right = sum(
            langid.detect(langid.sample_text(blocks, size), max_chars=size).code == lang
            for lang, blocks in with_text
        )
        print(f"  {size:5d} chars: {right}/{len(with_text)} = {right / len(with_text):.3f}")
        RESULTS.setdefault(f"sample size, {label}", {})[size] = right


def smoothings(label: str, pages: list[tuple[str, list[Block]]], values: list[float]) -> None:
    """Accuracy of the new detector with other smoothing constants than the shipped one."""
    print(f"\n== {label}: new detector's accuracy by smoothing (pages with text)")
    with_text = [(lang, blocks) for lang, blocks in pages if any(b.n_chars for b in blocks)]
    shipped = langprofiles.model()
    try:
        for value in sorted({langprofiles.SMOOTHING, *values}):
            langprofiles._model = langprofiles._build(value)
            right = sum(langid.detect_blocks(blocks).code == lang for lang, blocks in with_text)
            print(f"  {value:8.0e}: {right}/{len(with_text)} = {right / len(with_text):.3f}")
            RESULTS.setdefault(f"smoothing, {label}", {})[value] = right
    finally:
        langprofiles._model = shipped


def calibrate(pages: list[tuple[str, list[Block]]]) -> None:
    """Reliability of the new probability on single blocks cut to 30-300 characters."""
    rng = random.Random(1)
    codes, profile_code = langid._codes()
    model = langprofiles.model()
    scores, labels = [], []
    for lang, blocks in pages:
        if lang not in codes:
            continue
        for b in blocks:
            if b.n_chars < 15 or b.n_link_chars / b.n_chars >= 0.5:
                continue
            text = b.text[: rng.choice((30, 60, 100, 200, 300))]
            if langid._by_script(text) is not None:
                continue
            s, n_grams = model.score(text)
            if n_grams:
                scores.append(s)
                labels.append(codes.index(lang))
    matrix, truth = np.array(scores), np.array(labels)
    print(f"\n== calibration on {len(truth)} blocks (label: the page's language)")
    print("  T      Brier  bins [pages, mean probability, share right]")
    for temperature in (1.0, 2.0, 3.0, 4.0, 5.0, 8.0):
        weights = np.exp((matrix - matrix.max(axis=1, keepdims=True)) / temperature)
        per_code = np.zeros((len(truth), len(codes)))
        for column, code in enumerate(profile_code):
            per_code[:, code] += weights[:, column]
        per_code /= per_code.sum(axis=1, keepdims=True)
        best = per_code.argmax(axis=1)
        prob = per_code[np.arange(len(truth)), best]
        right = best == truth
        bins = np.digitize(prob, (0.5, 0.7, 0.9, 0.99))
        table = " ".join(
            f"[{int(np.sum(in_bin))}, {prob[in_bin].mean():.2f}, {right[in_bin].mean():.2f}]"
            for in_bin in (bins == b for b in range(5))
            if in_bin.any()
        )
        print(f"  {temperature:<4} {np.mean((prob - right) ** 2):8.4f}  {table}")
        RESULTS.setdefault("calibration Brier by temperature", {})[temperature] = float(
            np.mean((prob - right) ** 2)
        )


def load(path: Path, step: int) -> list[tuple[str, list[Block]]]:
    pages = load_dataset(path)[::step]
    return [(p.language, segment(parse(decode_html(p.read_html()).html))) for p in pages]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--wcxb-step", type=int, default=1, help="use every Nth wcxb page")
    parser.add_argument("--reps", type=int, default=3, help="timing repetitions per page")
    parser.add_argument("--calibrate", action="store_true", help="probability reliability table")
    parser.add_argument("--in-pipeline", action="store_true", help="time whole clean_html calls")
    parser.add_argument("--pipeline-reps", type=int, default=2, help="rounds per page there")
    parser.add_argument("--sample-chars", type=int, nargs="*", default=[], help="sample sizes")
    parser.add_argument("--smoothing", type=float, nargs="*", default=[], help="smoothings")
    parser.add_argument("--extra", nargs="*", default=[], help="more data sets to compare on")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "langid.json")
    args = parser.parse_args()
    load_at_start = os.getloadavg()
    data = args.shared / "data"
    multi = load(data / "multilingual-dev", 1)
    wcxb = load(data / "wcxb-dev", args.wcxb_step)
    old = langdetect_blocks()
    start = time.process_time()
    langprofiles.model()
    print(f"profile matrix built in {time.process_time() - start:.2f} s CPU")
    langid.detect_blocks(multi[0][1])
    compare("multilingual-dev", multi, old, args.reps)
    compare(f"wcxb-dev (every {args.wcxb_step}th page)", wcxb, old, args.reps)
    for name in args.extra:
        compare(name, load(data / name, 1), old, args.reps)
    if args.in_pipeline:
        reps, step = args.pipeline_reps, args.wcxb_step
        in_pipeline("multilingual-dev", load_dataset(data / "multilingual-dev"), old, reps)
        wcxb_pages = load_dataset(data / "wcxb-dev")[::step]
        in_pipeline(f"wcxb-dev every {step}th", wcxb_pages, old, reps)
    if args.sample_chars:
        sample_sizes("multilingual-dev", multi, args.sample_chars)
        sample_sizes(f"wcxb-dev every {args.wcxb_step}th", wcxb, args.sample_chars)
    if args.smoothing:
        smoothings("multilingual-dev", multi, args.smoothing)
        smoothings(f"wcxb-dev every {args.wcxb_step}th", wcxb, args.smoothing)
    if args.calibrate:
        calibrate(multi + wcxb[::5])
    machine = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "load_average_at_start": load_at_start,
        "load_average_at_end": os.getloadavg(),
        "packages": {name: version(name) for name in ("warcclean", "langdetect", "numpy")},
    }
    report = {
        "date": results_file.utc_now(),
        "command": results_file.command_line(__file__),
        "machine": machine,
        "results": RESULTS,
    }
    results_file.write_results(args.out, report, indent=2, default=str)
    print(f"\nwritten: {args.out}")


if __name__ == "__main__":
    main()
