"""The `ngram-lm` cleaner: hashed character n-gram models and their scores on built text."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.cleaners.ngram import (
    DEFAULT_MODEL,
    LEGACY,
    SALTED,
    CharLm,
    ClassLmModel,
    NgramCleaner,
    NgramModel,
    NgramModelError,
    WittenBellLm,
    _hashes,
    _positions,
    _wb_buckets,
    class_prior,
    load_class_model,
    load_model,
    salt,
    save_class_model,
    save_model,
    train_lm,
    train_witten_bell,
)
from pipeline.html.segment import segment
from pipeline.types import Verdict

CONTENT = [
    "The river carved the valley over thousands of years, and farmers followed it.",
    "Historians say the first settlers built their houses on the upper terraces.",
    "Every autumn the villages hold a market where growers sell the harvest.",
] * 5
BOILER = ["Home", "Contact us", "Privacy policy", "Log in", "Share on Facebook", "Next page"] * 5


@pytest.fixture(scope="module")
def model() -> NgramModel:
    return NgramModel(train_lm(CONTENT, 4, 14, 2.0), train_lm(BOILER, 4, 14, 2.0), 0.0, {})


def test_scores_separate_the_two_kinds(model):
    scores = model.scores(
        ["The settlers followed the river into the valley.", "Privacy policy | Log in", ""]
    )
    assert scores[0] > 0 > scores[1]
    assert scores[2] == -np.inf


def test_every_character_gets_a_probability_below_one(model):
    lm = model.content

    codes, real, _ = _positions(["abc"], lm.order)
    grams, contexts = _hashes(codes, lm.order, lm.bits)
    logp = lm.log_probs([g[real] for g in grams], [c[real] for c in contexts])
    assert logp.shape == (3,)
    assert (logp < 0).all()


def test_counts_are_what_was_seen():
    lm = train_lm(["aaaa"], 1, 10, 1.0)
    assert lm.total == 4
    assert lm.counts.sum() == 4  # four unigrams, no contexts at order 1


def test_round_trip_without_pickle(tmp_path, model):
    path = tmp_path / "m.npz"
    save_model(NgramModel(model.content, model.boilerplate, 0.25, {"note": "x"}), path)
    loaded = load_model(path)
    assert loaded.threshold == 0.25
    assert loaded.metadata["note"] == "x"
    texts = ["The valley", "Log in"]
    assert loaded.scores(texts) == pytest.approx(model.scores(texts))


def test_bad_files(tmp_path):
    with pytest.raises(NgramModelError, match="not found"):
        load_model(tmp_path / "absent.npz")
    junk = tmp_path / "junk.npz"
    np.savez(junk, other=np.zeros(3))
    with pytest.raises(NgramModelError, match="not an n-gram model"):
        load_model(junk)


def test_shipped_model_labels_built_page():
    if not DEFAULT_MODEL.exists():
        pytest.fail(f"{DEFAULT_MODEL} is missing: run jobs/train_cleaner.py")
    html = (
        "<body><ul><li><a href='/'>Home</a></li><li><a href='/c'>Contact us</a></li></ul>"
        "<p>Researchers at the university said on Tuesday that the new treatment had reduced "
        "the number of hospital admissions by almost a third during the two-year study, and "
        "they expect to publish the full results later this year.</p></body>"
    )
    blocks = segment(html)
    labels = NgramCleaner().label(blocks, None)
    verdicts = {lb.block.text: lb.verdict for lb in labels}
    assert verdicts["Home"] is Verdict.BAD
    assert verdicts[blocks[-1].text] is Verdict.GOOD
    meta = load_model().metadata
    assert any("CC-BY-4.0" in lic for lic in meta["licences"])


# --- the hashed models against plain dictionary models (no hashing, no collisions) -------------
# With 20 bits for a few hundred n-grams the tables hold no collision, so every probability must
# equal the one counted the textbook way, character by character.

ALPHABET = 65536
START = "\x02"


def dirichlet_reference(train: list[str], order: int, beta: float):
    grams: dict[str, int] = {}
    contexts: dict[str, int] = {}
    total = 0
    for text in train:
        s = START * (order - 1) + text
        for i in range(order - 1, len(s)):
            total += 1
            for k in range(1, order + 1):
                grams[s[i - k + 1 : i + 1]] = grams.get(s[i - k + 1 : i + 1], 0) + 1
                if k > 1:
                    contexts[s[i - k + 1 : i]] = contexts.get(s[i - k + 1 : i], 0) + 1

    def log_probs(text: str) -> list[float]:
        s = START * (order - 1) + text
        out = []
        for i in range(order - 1, len(s)):
            c = s[i]
            p = (grams.get(c, 0) + 1) / (total + ALPHABET)
            for k in range(2, order + 1):
                h = s[i - k + 1 : i]
                p = (grams.get(h + c, 0) + beta * p) / (contexts.get(h, 0) + beta)
            out.append(float(np.log(p)))
        return out

    return log_probs


def witten_bell_reference(train: list[str], order: int, factor: float):
    grams: dict[str, int] = {}
    contexts: dict[str, int] = {}
    follow: dict[str, set[str]] = {}
    total = 0
    for text in train:
        for j, c in enumerate(text):
            total += 1
            grams[c] = grams.get(c, 0) + 1
            for k in range(1, order):
                if j < k:
                    break
                h = text[j - k : j]
                grams[h + c] = grams.get(h + c, 0) + 1
                contexts[h] = contexts.get(h, 0) + 1
                follow.setdefault(h, set()).add(c)
    types = len({c for text in train for c in text})

    def log_probs(text: str) -> list[float]:
        out = []
        for j, c in enumerate(text):
            weight = factor * types
            p = (grams.get(c, 0) + weight / ALPHABET) / (total + weight)
            for k in range(1, order):
                if j < k:
                    break
                h = text[j - k : j]
                extensions = len(follow.get(h, ()))
                if not extensions:
                    continue  # an unseen context passes the shorter one's estimate on
                weight = factor * extensions
                p = (grams.get(h + c, 0) + weight * p) / (contexts[h] + weight)
            out.append(float(np.log(p)))
        return out

    return log_probs


TRAIN = ["abracadabra", "the cat sat on the mat", "abba", "a"]
PROBES = ["cadabra", "the bat", "zz", "abracadabra", "mat on the cat"]


def hashed_log_probs(lm: CharLm, text: str) -> list[float]:
    codes, real, _ = _positions([text], lm.order)
    grams, contexts = _hashes(codes, lm.order, lm.bits, scheme=lm.scheme)
    return lm.log_probs([g[real] for g in grams], [c[real] for c in contexts]).tolist()


def wb_log_probs(lm: WittenBellLm, text: str) -> list[float]:
    grams, contexts, extensions, depth, _, _ = _wb_buckets([text], lm.order, lm.bits, lm.scheme)
    return lm.log_probs(grams, contexts, extensions, depth).tolist()


@pytest.mark.parametrize(("order", "beta"), [(1, 1.0), (2, 2.0), (3, 0.5), (4, 2.0)])
def test_dirichlet_model_is_the_textbook_one(order: int, beta: float) -> None:
    lm = train_lm(TRAIN, order, 20, beta)
    assert lm.total == sum(len(t) for t in TRAIN)
    reference = dirichlet_reference(TRAIN, order, beta)
    for text in PROBES:
        assert hashed_log_probs(lm, text) == pytest.approx(reference(text), rel=1e-9)


def test_ngram_model_scores_are_mean_log_likelihood_ratios() -> None:
    content, boiler = ["the cat sat on the mat"], ["log in", "home"]
    model = NgramModel(train_lm(content, 3, 20, 2.0), train_lm(boiler, 3, 20, 2.0), 0.0, {})
    good, bad = dirichlet_reference(content, 3, 2.0), dirichlet_reference(boiler, 3, 2.0)
    texts = ["the hat", "login", "x"]
    expected = [float(np.mean(np.subtract(good(t), bad(t)))) for t in texts]
    assert model.scores(texts).tolist() == pytest.approx(expected, rel=1e-9)
    assert model.scores([]).tolist() == []


@pytest.mark.parametrize(("order", "factor"), [(1, 1.0), (2, 2.0), (3, 3.0), (5, 1.5)])
def test_witten_bell_model_is_lingpipes(order: int, factor: float) -> None:
    lm = train_witten_bell(TRAIN, order, 20, factor)
    assert lm.total == sum(len(t) for t in TRAIN)
    assert lm.types == len(set("".join(TRAIN)))
    reference = witten_bell_reference(TRAIN, order, factor)
    for text in PROBES:
        assert wb_log_probs(lm, text) == pytest.approx(reference(text), rel=1e-9)
    # LingPipe's default interpolation factor is the order.
    assert train_witten_bell(TRAIN, order, 20).lambda_factor == order


def test_training_in_batches_counts_as_one() -> None:
    many = [f"text number {i} of the set" for i in range(2500)]  # more than one batch of 2000
    witten_bell = witten_bell_reference(many, 3, 3.0)
    assert wb_log_probs(train_witten_bell(many, 3, 20), "number 7 of") == pytest.approx(
        witten_bell("number 7 of"), rel=1e-9
    )
    dirichlet = dirichlet_reference(many, 3, 2.0)
    assert hashed_log_probs(train_lm(many, 3, 20, 2.0), "number 7 of") == pytest.approx(
        dirichlet("number 7 of"), rel=1e-9
    )


def test_class_model_scores_and_prior() -> None:
    # Add-one smoothed class shares of the training texts.
    assert class_prior(3, 1) == pytest.approx((np.log(4 / 6), np.log(2 / 6)))
    assert class_prior(0, 0) == pytest.approx((np.log(0.5), np.log(0.5)))
    content, boiler = ["the cat sat on the mat", "a cat"], ["log in", "home", "menu"]
    prior = class_prior(len(content), len(boiler))
    model = ClassLmModel(
        train_witten_bell(content, 3, 20), train_witten_bell(boiler, 3, 20), prior, 0.0, {}
    )
    good, bad = witten_bell_reference(content, 3, 3.0), witten_bell_reference(boiler, 3, 3.0)
    texts = ["the hat", "login", ""]
    scores = model.scores(texts)
    for text, score in zip(texts[:2], scores[:2].tolist(), strict=True):
        joint = sum(good(text)) - sum(bad(text)) + prior[0] - prior[1]
        assert score == pytest.approx(joint, rel=1e-9)
    assert scores[2] == -np.inf
    assert model.scores([""]).tolist() == [-np.inf]


def test_class_model_round_trip(tmp_path) -> None:
    model = ClassLmModel(
        train_witten_bell(["the cat"], 3, 12, 2.5),
        train_witten_bell(["home"], 3, 12, 2.5),
        class_prior(1, 1),
        0.75,
        {"note": "x"},
    )
    path = tmp_path / "class.npz"
    save_class_model(model, path)
    loaded = load_class_model(path)
    assert loaded.threshold == 0.75 and loaded.metadata["note"] == "x"
    assert loaded.content.lambda_factor == 2.5 and loaded.content.order == 3
    assert loaded.log_prior == model.log_prior
    texts = ["the hat", "home page"]
    assert loaded.scores(texts).tolist() == pytest.approx(model.scores(texts).tolist())


def test_salts_keep_short_ngrams_apart_and_legacy_models_score_as_trained(tmp_path) -> None:
    # Salted: no two salts differ only in low bits, so no one-character n-gram, context or
    # extension (a code point below 2**21) can share another's hash.
    salts = [int(salt(SALTED, kind, k)) for kind in range(3) for k in range(1, 17)]
    assert min(a ^ b for i, a in enumerate(salts) for b in salts[i + 1 :]) >= 1 << 32
    # Legacy: the unigram "c" (99 ^ 1) is the one-character context " " (32 ^ 66), on any table.
    codes, real, _ = _positions(["c c"], 2)
    for scheme, shared in ((LEGACY, True), (SALTED, False)):
        grams, contexts = _hashes(codes, 2, 20, scheme=scheme)
        c_unigram = grams[0][real][0]
        space_context = contexts[1][real][2]  # the "c" after the space has " " as its context
        assert bool(c_unigram == space_context) is shared
    # A file has one scheme: two class models hashed differently are refused, not saved.
    mixed = NgramModel(train_lm(CONTENT, 3, 14, 2.0, LEGACY), train_lm(BOILER, 3, 14, 2.0), 0.0, {})
    with pytest.raises(ValueError, match="hashed differently"):
        save_model(mixed, tmp_path / "mixed.npz")
    # A legacy model file keeps its hashing through a save and a load.
    legacy = NgramModel(
        train_lm(CONTENT, 3, 14, 2.0, LEGACY), train_lm(BOILER, 3, 14, 2.0, LEGACY), 0.0, {}
    )
    path = tmp_path / "legacy.npz"
    save_model(legacy, path)
    loaded = load_model(path)
    assert loaded.content.scheme == LEGACY and loaded.metadata["format"] == "warcclean-ngram-lm/1"
    texts = ["The valley", "Log in"]
    assert loaded.scores(texts).tolist() == pytest.approx(legacy.scores(texts).tolist())
    assert loaded.scores(texts).tolist() != pytest.approx(
        NgramModel(train_lm(CONTENT, 3, 14, 2.0), train_lm(BOILER, 3, 14, 2.0), 0.0, {})
        .scores(texts)
        .tolist()
    )
