"""Word counting and language ID on real pages: speed, stopword densities, detection accuracy.

    python bench/words_langid.py [--shared ../shared] [--wcxb-step 10]

Prints (1) count_words against a plain split + set lookup, per page, on wcxb (English) and on
the zh/ja/th/my pages of multilingual-dev; (2) the stopword density of blocks aligned with the
ground truth ("content") and of the rest, per language; (3) detect_blocks accuracy and its cost
relative to cleaning the same page (parse + segment + jusText). CPU time (time.process_time),
best of 3 per page, so other processes on a shared machine distort it less.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if sys.path and Path(sys.path[0] or ".").resolve() == REPO / "bench":
    del sys.path[0]  # bench/pipeline.py would shadow the package

from pipeline.cleaners.registry import make_cleaner  # noqa: E402
from pipeline.evaluate.align import align_labels, snippet_labels  # noqa: E402
from pipeline.evaluate.datasets import Page, load_dataset  # noqa: E402
from pipeline.html.decode import decode_html  # noqa: E402
from pipeline.html.segment import parse, segment  # noqa: E402
from pipeline.lang import langid  # noqa: E402
from pipeline.lang.stoplists import stoplist  # noqa: E402
from pipeline.lang.words import count_words  # noqa: E402
from pipeline.types import Block  # noqa: E402

UNSPACED = {"zh", "ja", "th", "my"}
DENSITY_LANGS = ("de", "es", "fr", "pl", "ko", "zh", "ja", "th", "my")


def best_ms(fn: Callable[[], Any], reps: int = 3) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(reps):
        start = time.process_time()
        result = fn()
        best = min(best, time.process_time() - start)
    return best * 1000, result


def blocks_of(page: Page) -> list[Block]:
    return segment(parse(decode_html(page.read_html()).html))


def plain_count(text: str, stops: frozenset[str]) -> tuple[int, int]:
    tokens = text.lower().split()
    return len(tokens), sum(1 for t in tokens if t in stops)


def median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def word_speed(label: str, pages: list[tuple[str, list[Block]]]) -> None:
    times: dict[str, list[float]] = defaultdict(list)
    for lang, blocks in pages:
        stops = stoplist(lang) or frozenset()
        texts = [b.text for b in blocks]
        for name, fn in (("plain split+set", plain_count), ("count_words", count_words)):
            ms, _ = best_ms(lambda fn=fn, s=stops, ts=texts: [fn(t, s) for t in ts])
            times[name].append(ms)
    for name, ms in times.items():
        print(f"  {label:22s} {name:16s} median {median(ms):6.3f} ms/page, total {sum(ms):7.1f} ms")


def densities(pages: list[tuple[Page, list[Block]]]) -> None:
    content: dict[str, list[float]] = defaultdict(list)
    other: dict[str, list[float]] = defaultdict(list)
    for page, blocks in pages:
        if page.language not in DENSITY_LANGS:
            continue
        texts = [b.text for b in blocks]
        if page.main_content:
            labels: list[bool | None] = list(align_labels(texts, page.main_content, page.language))
        else:
            labels = snippet_labels(texts, page.with_snippets, page.without_snippets)
        stops = stoplist(page.language)
        for text, label in zip(texts, labels, strict=True):
            if label is None or len(text) < 20:
                continue
            words, stopwords = count_words(text, stops)
            if words:
                (content if label else other)[page.language].append(stopwords / words)
    print("  lang  content n  median  >=0.30 |  other n  median  >=0.30")
    for lang in DENSITY_LANGS:
        c, o = content[lang], other[lang]
        if not c:
            continue

        def share(xs: list[float]) -> float:
            return sum(x >= 0.30 for x in xs) / len(xs) if xs else float("nan")

        print(
            f"  {lang:4s} {len(c):9d} {median(c):7.3f} {share(c):7.2f} | {len(o):8d} "
            f"{median(o):7.3f} {share(o):7.2f}"
        )


def language_id(label: str, pages: list[tuple[Page, list[Block]]]) -> None:
    cleaner = make_cleaner("justext")
    correct = 0
    detect_ms: list[float] = []
    ratios: list[float] = []
    for page, _ in pages:
        html = decode_html(page.read_html()).html
        seg_ms, blocks = best_ms(lambda html=html: segment(parse(html)))
        stops = stoplist(page.language)
        label_ms, _ = best_ms(lambda blocks=blocks, stops=stops: cleaner.label(blocks, stops))
        ms, guess = best_ms(lambda blocks=blocks: langid.detect_blocks(blocks))
        correct += guess.code == page.language
        detect_ms.append(ms)
        ratios.append(ms / (seg_ms + label_ms))
    print(
        f"  {label}: accuracy {correct}/{len(pages)} = {correct / len(pages):.3f}; detect_blocks "
        f"median {median(detect_ms):.2f} ms, p90 {sorted(detect_ms)[int(0.9 * len(detect_ms))]:.2f}"
        f" ms; detect / cleaning per page, median {median(ratios):.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared"
    )
    parser.add_argument("--wcxb-step", type=int, default=10, help="use every Nth wcxb page")
    args = parser.parse_args()
    data = args.shared / "data"
    wcxb = [(p, blocks_of(p)) for p in load_dataset(data / "wcxb-dev")[:: args.wcxb_step]]
    multi = [(p, blocks_of(p)) for p in load_dataset(data / "multilingual-dev")]
    langid.detect("warm up the detector")

    print(f"count_words speed (SAMPLE: wcxb every {args.wcxb_step}th page)")
    word_speed("wcxb (en)", [("en", b) for _, b in wcxb])
    word_speed(
        "multilingual zh/ja/th/my", [(p.language, b) for p, b in multi if p.language in UNSPACED]
    )
    print("stopword density, multilingual-dev blocks of >= 20 chars")
    densities(multi)
    print(
        f"language ID (SAMPLE_CHARS={langid.SAMPLE_CHARS}; old-vs-new comparison: bench/langid.py)"
    )
    language_id("multilingual-dev", multi)
    language_id(f"wcxb-dev every {args.wcxb_step}th", wcxb)


if __name__ == "__main__":
    main()
