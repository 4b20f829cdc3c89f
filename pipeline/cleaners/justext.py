"""jusText's block classification (Pomikálek 2011), on our blocks, in linear time.

Two stages, as in the paper and in the reference package (miso-belica/jusText 3.0.2):

1. `classify_context_free`: each block on its own, from its length, link density and stopword
   density, becomes good, near-good, short or bad.
2. `revise`: short and near-good blocks take the class of the good/bad blocks around them, and
   headings shortly before good content are kept.

The reference searches for neighbours by walking outwards from every short block, which is
quadratic in the number of blocks and never finishes on pages with tens of thousands of them
(jusText #43). Here every pass is one or two sweeps over the page: the nearest good/bad neighbour
on each side is precomputed for all blocks at once, and the heading searches use "next good block"
indices and prefix sums of block lengths.

jusText bug #45: the reference's first heading pass ("short headings before good content become
near-good") compares against classes it has not copied yet, so it never fires. By default we
reproduce the package's real output (the pass is a no-op), so that our labels can be checked
against it block for block; ``fix_heading_bug=True`` runs the pass as the algorithm describes it.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from itertools import repeat
from typing import Any, ClassVar

from pipeline.lang.words import count_words, han_kana_chars
from pipeline.types import Block, CfClass, LabeledBlock, Verdict

GOOD = CfClass.GOOD
NEARGOOD = CfClass.NEARGOOD
_new_tuple = tuple.__new__
SHORT = CfClass.SHORT
BAD = CfClass.BAD


@dataclass(frozen=True, slots=True)
class JusTextParams:
    """jusText's thresholds; the defaults are the reference package's.

    Lengths and distances are in characters of normalised block text.
    ``language_independent`` drops the stopword criterion (both stopword thresholds become 0), so
    blocks are judged on length and link density alone; it is implied when there is no stoplist.
    ``fix_heading_bug`` enables the heading pre-pass that jusText 3.0.2 never runs (bug #45).
    ``han_kana_weight``: how many characters one Han or kana character counts as when comparing a
    block's length with the thresholds. jusText was tuned on European text, where 70 characters
    are a sentence; in Chinese or Japanese that takes about 35. With weight 1 (the package's
    behaviour) most zh/ja content blocks never reach "good": on multilingual-dev zh F1 was 0.65
    with weight 1 and 0.86 with the thresholds halved. Text without such characters is unaffected.
    """

    length_low: int = 70
    length_high: int = 200
    stopwords_low: float = 0.30
    stopwords_high: float = 0.32
    max_link_density: float = 0.2
    max_heading_distance: int = 200
    no_headings: bool = False
    language_independent: bool = False
    fix_heading_bug: bool = False
    han_kana_weight: int = 2

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            wanted = bool if f.type == "bool" else (int, float) if f.type == "float" else int
            if not isinstance(value, wanted) or (wanted is not bool and isinstance(value, bool)):
                raise TypeError(f"jusText parameter {f.name} must be {f.type}, got {value!r}")
        if self.han_kana_weight < 1:
            raise ValueError("han_kana_weight must be >= 1")
        if self.length_low < 0 or self.length_high < 0 or self.max_heading_distance < 0:
            raise ValueError("jusText lengths and distances must be >= 0")
        if not 0.0 <= self.stopwords_low <= 1.0 or not 0.0 <= self.stopwords_high <= 1.0:
            raise ValueError("jusText stopword thresholds must lie in [0, 1]")
        if self.max_link_density < 0:
            raise ValueError("max_link_density must be >= 0")


DEFAULT_PARAMS = JusTextParams()


def stopword_densities(blocks: Sequence[Block], stoplist: frozenset[str] | None) -> list[float]:
    """Share of a block's words that are stopwords (0.0 for a block without words)."""
    if not stoplist:
        # No stopword can match: every density is 0.0 (`count_words` gives 0 stopwords).
        return [0.0] * len(blocks)
    is_stopword = stoplist.__contains__
    densities: list[float] = []
    append = densities.append
    for block in blocks:
        text = block.text
        # `count_words`'s ASCII path, inlined: it runs once per block of every page.
        if text.isascii():
            tokens = text.lower().split()
            n = len(tokens)
            append(sum(map(is_stopword, tokens)) / n if n else 0.0)
        else:
            words, stopwords = count_words(text, stoplist)
            append(stopwords / words if words else 0.0)
    return densities


def classify_context_free(
    blocks: Sequence[Block],
    stoplist: frozenset[str] | None,
    params: JusTextParams = DEFAULT_PARAMS,
    densities: Sequence[float] | None = None,
) -> list[CfClass]:
    """jusText's context-free class of every block, rule for rule as the reference codes it.

    Without a stoplist (or with ``language_independent``) the stopword thresholds are 0, so every
    long enough, link-poor block is good or near-good by length. An *empty* stoplist is not "no
    stoplist": every density is 0 and such blocks come out bad, exactly as in jusText.
    ``densities`` may be passed when the caller has already computed them.
    """
    if densities is None:
        densities = stopword_densities(blocks, stoplist)
    if stoplist is None or params.language_independent:
        low = high = 0.0
    else:
        low, high = params.stopwords_low, params.stopwords_high
    length_low, length_high = params.length_low, params.length_high
    max_link_density = params.max_link_density
    extra_weight = params.han_kana_weight - 1
    classes: list[CfClass] = []
    for block, density in zip(blocks, densities, strict=True):
        text = block.text
        n_chars = len(text)
        link_density = block.n_link_chars / n_chars if n_chars else 0.0
        if extra_weight and not text.isascii():
            length = n_chars + extra_weight * han_kana_chars(text)
        else:
            length = n_chars
        if (
            link_density > max_link_density
            or "©" in text
            or "&copy" in text
            or "select" in block.dom_path
        ):
            cls = BAD
        elif length < length_low:
            cls = BAD if block.n_link_chars > 0 else SHORT
        elif density >= high:
            cls = GOOD if length > length_high else NEARGOOD
        elif density >= low:
            cls = NEARGOOD
        else:
            cls = BAD
        classes.append(cls)
    return classes


def _good_within_distance(
    blocks: Sequence[Block], classes: Sequence[CfClass], max_distance: int
) -> list[bool]:
    """For each i: is there a good block after i with at most ``max_distance`` characters of
    block text strictly between them?

    The reference scans forward from i, stopping at the first good block or once the text it has
    passed exceeds the distance; the first good block after i decides, so one backward sweep that
    remembers how much text lies between i and the next good block answers it for all i.
    """
    n = len(blocks)
    result = [False] * n
    gap = -1  # characters between the current position and the next good block; -1: none
    for i in range(n - 1, -1, -1):
        if gap >= 0:
            result[i] = gap <= max_distance
        if classes[i] is GOOD:
            gap = 0
        elif gap >= 0:
            gap += len(blocks[i].text)
    return result


def _revise_short(classes: list[CfClass]) -> list[CfClass]:
    """Resolve short blocks from their nearest non-short neighbours (pass (b) of `revise`)."""
    n = len(classes)
    # Left sweep: for each short block, the nearest good/bad and the nearest non-short class.
    left_gb: list[CfClass] = [BAD] * n
    left_any: list[CfClass] = [BAD] * n
    last_gb = last_any = BAD
    for i, cls in enumerate(classes):
        if cls is SHORT:
            left_gb[i] = last_gb
            left_any[i] = last_any
        else:
            last_any = cls
            if cls is not NEARGOOD:
                last_gb = cls
    # Right sweep: the same from the right, and decide. Reads only the classes before the pass,
    # as the reference does (it collects the new classes first and applies them afterwards).
    revised = list(classes)
    next_gb = next_any = BAD
    for i in range(n - 1, -1, -1):
        cls = classes[i]
        if cls is not SHORT:
            next_any = cls
            if cls is not NEARGOOD:
                next_gb = cls
            continue
        prev = left_gb[i]
        if prev is GOOD and next_gb is GOOD:
            revised[i] = GOOD
        elif prev is BAD and next_gb is BAD:
            revised[i] = BAD
        elif (prev is BAD and left_any[i] is NEARGOOD) or (next_gb is BAD and next_any is NEARGOOD):
            revised[i] = GOOD
        else:
            revised[i] = BAD
    return revised


def _revise_neargood(classes: list[CfClass]) -> None:
    """Resolve near-good blocks in place (pass (c) of `revise`), with no short blocks left.

    The reference updates near-good blocks one by one from left to right, so a block's left
    neighbour may be one it has just resolved; but a run of near-good blocks always resolves as a
    whole, to bad only when the good/bad blocks bounding it are both bad, which is what this does.
    """
    run_start = -1
    last_gb = BAD
    for i, cls in enumerate(classes):
        if cls is NEARGOOD:
            if run_start < 0:
                run_start = i
            continue
        if run_start >= 0:
            resolved = BAD if last_gb is BAD and cls is BAD else GOOD
            for j in range(run_start, i):
                classes[j] = resolved
            run_start = -1
        last_gb = cls
    if run_start >= 0:
        resolved = BAD if last_gb is BAD else GOOD
        for j in range(run_start, len(classes)):
            classes[j] = resolved


def revise(
    blocks: Sequence[Block],
    cf_classes: Sequence[CfClass],
    params: JusTextParams = DEFAULT_PARAMS,
) -> list[Verdict]:
    """jusText's context-sensitive pass: the final good/bad verdict of every block.

    Page edges count as bad neighbours. Passes, each linear in the number of blocks:
    (a) with ``fix_heading_bug``: short headings with a good block within
        ``max_heading_distance`` characters after them become near-good;
    (b) short blocks: good if both nearest good/bad neighbours are good, bad if both are bad;
        between a good and a bad one, good when the bad side is separated from it by a near-good
        block (the nearest non-short neighbour on that side is near-good), else bad;
    (c) near-good blocks: bad only if both nearest good/bad neighbours are bad;
    (d) headings that ended bad but were not bad context-free become good when a good block
        follows within ``max_heading_distance`` characters.
    Heading passes (a) and (d) are skipped with ``no_headings``.
    """
    if len(blocks) != len(cf_classes):
        raise ValueError(f"{len(blocks)} blocks but {len(cf_classes)} classes")
    headings = not params.no_headings and any(block.is_heading for block in blocks)
    classes = list(cf_classes)

    if headings and params.fix_heading_bug:
        good_after = _good_within_distance(blocks, classes, params.max_heading_distance)
        for i, block in enumerate(blocks):
            if block.is_heading and classes[i] is SHORT and good_after[i]:
                classes[i] = NEARGOOD

    if SHORT in classes:
        classes = _revise_short(classes)
    if NEARGOOD in classes:
        _revise_neargood(classes)

    if headings:
        # Promoting heading i never changes the search of any other heading: searches only look
        # at blocks after the heading, and only for good ones, so one snapshot serves them all.
        good_after = _good_within_distance(blocks, classes, params.max_heading_distance)
        promote = [
            i
            for i, block in enumerate(blocks)
            if block.is_heading and classes[i] is BAD and cf_classes[i] is not BAD and good_after[i]
        ]
        for i in promote:
            classes[i] = GOOD

    good, bad = Verdict.GOOD, Verdict.BAD
    return [good if cls is GOOD else bad for cls in classes]


_PARAM_NAMES = frozenset(f.name for f in fields(JusTextParams))


class JusTextCleaner:
    """The jusText cleaner: context-free classes, then the context-sensitive revision."""

    name: ClassVar[str] = "justext"
    needs_runs: ClassVar[bool] = False

    def __init__(self, **params: Any) -> None:
        unknown = sorted(set(params) - _PARAM_NAMES)
        if unknown:
            raise ValueError(
                f"unknown jusText parameter(s) {', '.join(unknown)}; "
                f"known: {', '.join(sorted(_PARAM_NAMES))}"
            )
        self._params = JusTextParams(**params)
        self._param_dict = asdict(self._params)

    @property
    def settings(self) -> JusTextParams:
        return self._params

    def params(self) -> dict[str, Any]:
        # Computed once: asdict deep-copies, and this is read for every page.
        return dict(self._param_dict)

    def label(self, blocks: Sequence[Block], stoplist: frozenset[str] | None) -> list[LabeledBlock]:
        densities = stopword_densities(blocks, stoplist)
        cf = classify_context_free(blocks, stoplist, self._params, densities)
        verdicts = revise(blocks, cf, self._params)
        # LabeledBlock's generated __new__ is a Python function; tuple.__new__ builds the same
        # object without a Python frame per block.
        return list(
            map(
                _new_tuple,
                repeat(LabeledBlock),
                zip(blocks, verdicts, cf, repeat(None), densities),
            )
        )


# Its parameters are JusTextParams' fields: declared so that `inspect.signature`, and with it the
# registry's parameter checks and help(), names them rather than ``**params``.
JusTextCleaner.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [
        inspect.Parameter(
            f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=f.type
        )
        for f in fields(JusTextParams)
    ]
)
