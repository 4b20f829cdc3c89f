"""Language identification with langdetect: deterministic, bounded in cost, ISO-coded.

langdetect draws random n-gram samples, so its answer changes between runs unless a seed is set.
The detector here is a private `DetectorFactory` seeded with 0, built lazily on first use in the
process that detects (a Dask worker, not the client that submitted the job), under a lock because
worker threads may race to build it. Other users of langdetect in the process are not affected.

Cost: langdetect walks every character in Python and then runs ``n_trial`` random-walk trials.
`detect_blocks` therefore detects on a bounded sample of the page (its longest, least linked
blocks, `SAMPLE_CHARS` characters) with `N_TRIALS` trials instead of 7: about a quarter of the
cost of cleaning the page, for 0.97 accuracy (measurements: stoplists/README.md, "Language ID").

Codes are those of ``stoplists/``: ISO 639-1 where one exists, region and script subtags dropped
(langdetect's ``zh-cn``/``zh-tw`` become ``zh``), deprecated or variant codes mapped
(`normalize_code`).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from operator import attrgetter
from typing import TYPE_CHECKING

from pipeline.types import UND, Block, LangGuess

if TYPE_CHECKING:
    from langdetect.detector_factory import DetectorFactory

# Characters of page text given to langdetect, and its number of random trials (library
# default 7). Chosen on multilingual-dev + wcxb-dev: see stoplists/README.md, "Language ID".
SAMPLE_CHARS = 300
N_TRIALS = 1
# Below this probability the guess is uncertain (mixed-language page, very little text). It is
# still reported, code and probability, so callers can decide; only a page with no detectable
# text at all is "und".
LOW_CONFIDENCE = 0.6
# The sample takes at most max_chars // _BLOCKS_SAMPLED characters from each block.
_BLOCKS_SAMPLED = 3
_MIN_BLOCK_SAMPLE = 100
# Blocks with more link text than this are navigation: sampled only when nothing else is left.
_MAX_LINK_DENSITY = 0.5

# Deprecated, variant and three-letter codes -> the code the stoplist files use.
_ALIASES = {
    "iw": "he",  # Hebrew, withdrawn 1989; Java's Locale still emits it
    "in": "id",  # Indonesian, withdrawn 1989
    "ji": "yi",  # Yiddish, withdrawn 1989
    "jw": "jv",  # Javanese, never valid but common (Google)
    "mo": "ro",  # Moldavian, deprecated 2008
    "nb": "no",  # Norwegian Bokmål: langdetect and the stoplist only know "no"
    "nn": "no",  # Norwegian Nynorsk
    "nob": "no",
    "nno": "no",
    "nor": "no",
    "fil": "tl",  # Filipino, the standard form of Tagalog
    "hbs": "sh",  # Serbo-Croatian
    "cmn": "zh",  # Mandarin
    "zho": "zh",
    "chi": "zh",
    "jpn": "ja",
    "kor": "ko",
    "tha": "th",
    "mya": "my",
    "bur": "my",
    "eng": "en",
    "deu": "de",
    "ger": "de",
    "fra": "fr",
    "fre": "fr",
    "spa": "es",
    "por": "pt",
    "ita": "it",
    "nld": "nl",
    "dut": "nl",
    "rus": "ru",
    "pol": "pl",
    "ara": "ar",
}
# Codes that name no language: undetermined, multiple, no linguistic content.
_NOT_A_LANGUAGE = frozenset({"und", "mul", "zxx", "mis"})
_PRIMARY = re.compile(r"[a-z]{2,3}")

# Scripts langdetect has no profile for, each written (almost) only by one language.
_SCRIPT_LANGUAGES = {
    code: re.compile(f"[{ranges}]")
    for code, ranges in {
        "my": "\u1000-\u109f\ua9e0-\ua9ff\uaa60-\uaa7f",
        "ka": "\u10a0-\u10ff\u1c90-\u1cbf",
        "hy": "\u0530-\u058f",
        "km": "\u1780-\u17ff\u19e0-\u19ff",
        "lo": "\u0e80-\u0eff",
        "si": "\u0d80-\u0dff",
        "am": "\u1200-\u139f",
        "bo": "\u0f00-\u0fff",
    }.items()
}
_OWN_SCRIPTS = re.compile("|".join(p.pattern for p in _SCRIPT_LANGUAGES.values()))
_LETTER = re.compile(r"[^\W\d_]")

_lock = threading.Lock()
_factory: DetectorFactory | None = None


def normalize_code(code: str) -> str:
    """Map a language tag to the code the stoplists use, or ``"und"`` when it names none.

    Lower-cases, keeps the primary subtag (``pt-BR`` -> ``pt``, ``zh_TW`` -> ``zh``,
    ``sr-Latn`` -> ``sr``) and maps aliases (``iw`` -> ``he``, ``nb``/``nn`` -> ``no``). A
    well-formed code without a stoplist is kept (``xh`` stays ``xh``: it is still the page's
    language, and `pipeline.stoplists.stoplist` returns None for it); only malformed input and
    ``und``/``mul``/``zxx``/``mis`` give ``"und"``.
    """
    primary = code.strip().lower().replace("_", "-").split("-", 1)[0]
    if not _PRIMARY.fullmatch(primary):
        return "und"
    primary = _ALIASES.get(primary, primary)
    return "und" if primary in _NOT_A_LANGUAGE else primary


def _get_factory() -> DetectorFactory:
    global _factory
    if _factory is None:
        with _lock:
            if _factory is None:
                from langdetect.detector_factory import PROFILES_DIRECTORY, DetectorFactory

                factory = DetectorFactory()
                factory.load_profile(PROFILES_DIRECTORY)
                # The seed each Detector copies at creation: the same text always gets the same
                # answer, in every process.
                factory.set_seed(0)
                _factory = factory
    return _factory


def _by_script(text: str) -> LangGuess | None:
    """A guess from the writing system alone, for scripts langdetect has no profile for."""
    if _OWN_SCRIPTS.search(text) is None:
        return None
    letters = len(_LETTER.findall(text))
    for code, script in _SCRIPT_LANGUAGES.items():
        share = len(script.findall(text)) / letters if letters else 0.0
        if share >= 0.5:
            return LangGuess(code, min(1.0, share))
    return None


def detect(
    text: str,
    *,
    max_chars: int = 10_000,
    n_trials: int = 7,
    conv_threshold: float | None = None,
) -> LangGuess:
    """The language of ``text``; ``LangGuess("und", 0.0)`` when it has no detectable features.

    Defaults are langdetect's own (10,000 characters, 7 trials, convergence at 0.99999);
    `detect_blocks` uses cheaper settings for whole pages. Text mostly in a script that
    langdetect has no profile for but that one language dominates (Burmese, Georgian, Armenian,
    Khmer, Lao, Sinhala, Amharic, Tibetan) gets that language, with its share of letters as the
    probability.
    """
    from langdetect.lang_detect_exception import LangDetectException

    scripted = _by_script(text[:max_chars])
    if scripted is not None:
        return scripted
    detector = _get_factory().create()
    detector.set_max_text_length(max_chars)
    detector.n_trial = n_trials
    if conv_threshold is not None:
        # Instance attribute shadowing the class constant: a trial stops once its best language
        # has this probability, so lower means fewer random-walk steps.
        detector.CONV_THRESHOLD = conv_threshold
    try:
        detector.append(text)
        ranked = detector.get_probabilities()
    except LangDetectException:
        return UND
    if not ranked:
        return UND
    best = ranked[0]
    return LangGuess(normalize_code(best.lang), float(best.prob))


def sample_text(blocks: Sequence[Block], max_chars: int = SAMPLE_CHARS) -> str:
    """Up to ``max_chars`` of the page's most telling text: its longest blocks first.

    Long blocks are the page's prose, and prose identifies a language best; link-heavy blocks
    (menus, tag clouds) are used only when the page has nothing else.
    """
    # Longest first, ties in page order (the sort is stable also when reversed), prose before
    # link-heavy blocks. Two C-level sorts on a field instead of one on a per-block tuple key:
    # this runs for every page and the key function used to cost a sixth of detection.
    prose: list[Block] = []
    linky: list[Block] = []
    for b in blocks:
        n = b.n_chars
        if n:
            (linky if b.n_link_chars / n > _MAX_LINK_DENSITY else prose).append(b)
    by_length = attrgetter("n_chars")
    ranked = sorted(prose, key=by_length, reverse=True)
    if linky:
        ranked += sorted(linky, key=by_length, reverse=True)
    # Several blocks rather than one: a single long block is sometimes in another language than
    # the page (a legal notice, an English abstract), and a few blocks outvote it.
    per_block = max(_MIN_BLOCK_SAMPLE, max_chars // _BLOCKS_SAMPLED)
    parts: list[str] = []
    total = 0
    for block in ranked:
        if total >= max_chars:
            break
        parts.append(block.text[: min(per_block, max_chars - total)])
        total += len(parts[-1]) + 1
    return "\n".join(parts)


def detect_blocks(blocks: Sequence[Block]) -> LangGuess:
    """The language of a page, from a bounded sample of its blocks (see module docstring)."""
    text = sample_text(blocks)
    if not text:
        return UND
    return detect(text, max_chars=SAMPLE_CHARS, n_trials=N_TRIALS)
