"""jobs/grouped_cv.py: the folds hold whole groups out, and the tables count what they say."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.evaluate.scoring import PageScore
from pipeline.types import Block
from tests.scripts import load_script

REPO = Path(__file__).resolve().parents[2]
pytest.importorskip("sklearn", reason="the grouped folds use scikit-learn (test extra)")


def _module():
    return load_script(REPO / "jobs" / "grouped_cv.py")


gcv = _module()


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from("abcdefgh"), min_size=2, max_size=60),
    st.sampled_from(gcv.GROUPINGS),
    st.integers(2, 4),
)
def test_every_page_is_scored_once_by_a_model_that_never_saw_its_group(groups, by, n_folds):
    distinct = len(set(groups))
    if distinct < 2 or (by != "dataset" and distinct < n_folds):
        with pytest.raises(ValueError):
            gcv.folds(groups, by, n_folds)
        return
    splits = gcv.folds(groups, by, n_folds)
    scored = sorted(i for _, score in splits for i in score)
    assert scored == list(range(len(groups)))
    for fit, score in splits:
        assert set(fit) | set(score) == set(range(len(groups)))
        assert not {groups[i] for i in fit} & {groups[i] for i in score}
    if by == "dataset":
        assert len(splits) == distinct


def _page(key: str, language: str, site: str, source: str | None = None) -> SimpleNamespace:
    return SimpleNamespace(
        key=key, site=site, page=SimpleNamespace(language=language, source=source)
    )


def _score(f1: float | None, with_found: int = 0, with_total: int = 0) -> PageScore:
    return PageScore(
        id="x",
        language="x",
        page_type=None,
        metric="word" if f1 is not None else None,
        precision=f1,
        recall=f1,
        f1=f1,
        with_found=with_found,
        with_total=with_total,
        without_present=0,
        without_total=0,
        output_chars=10,
        empty=False,
    )


def test_groups_and_tables():
    pages = (
        [_page(f"wcxb/{i}", "en", f"wcxb:s{i}", "wcxb" if i else None) for i in range(5)]
        + [_page(f"ml/zh-cwce-{i}", "zh", f"ml:z{i}", "cwced") for i in range(5)]
        + [_page("ml/de-fund-1", "de", "ml:d", "fundus")]
    )
    # A WCXB page outside the set's metadata has no source of its own: it is still WCXB's.
    assert [gcv.group_of(p, "dataset") for p in pages[:1] + pages[4:7]] == [
        "wcxb",
        "wcxb",
        "cwced",
        "cwced",
    ]
    assert gcv.group_of(pages[0], "language") == "en"
    assert gcv.group_of(pages[-1], "language") == "de"
    assert gcv.group_of(pages[-1], "site") == "ml:d"
    assert gcv.language_group(pages[5]) == "unspaced (zh ja th my ko)"
    assert gcv.language_group(pages[-1]) == "other languages"

    en = [0.2, 0.4, 0.6, 0.8, 1.0]
    zh = [1.0, 1.0, 0.5, 0.5, 0.0]
    rows = [_score(f) for f in en + zh] + [_score(None, with_found=1, with_total=2)]
    groups = [gcv.group_of(p, "dataset") for p in pages]
    out = gcv.tables({"m": rows}, pages, groups, "dataset")["m"]
    # fundus has one page: below the five a held-out row needs
    assert set(out["held-out group"]) == {"wcxb", "cwced"}
    assert out["held-out group"]["wcxb"]["f1"] == pytest.approx(sum(en) / 5)
    assert out["held-out group"]["cwced"]["f1"] == pytest.approx(sum(zh) / 5)
    langs = out["language group"]
    assert langs["multilingual (all)"]["pages"] == 6
    assert langs["multilingual (all)"]["f1"] == pytest.approx(sum(zh) / 5)
    assert langs["multilingual (all)"]["with_share"] == pytest.approx(0.5)
    assert langs["other languages"]["f1"] is None
    assert gcv.tables({"m": rows}, pages, groups, "site")["m"]["held-out group"] == {}
    text = gcv.markdown(gcv.tables({"m": rows}, pages, groups, "dataset"), "dataset")
    assert "| cwced | 5 | 0.600 |" in text
    assert "w 0.50" in text


def test_refuses_a_data_dir_without_the_sets(tmp_path: Path, capsys):
    with pytest.raises(SystemExit):
        gcv.main(["--data-dir", str(tmp_path)])
    assert "does not hold wcxb-dev and multilingual-dev" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args, message",
    [
        (["--net-shares", "0.5,0.7"], "--net-shares needs --nets"),
        (["--nets", "--net-shares", "0.5,1.5"], "--net-shares must lie in [0, 1]"),
        (["--nets", "--net-shares", "half"], "--net-shares takes numbers"),
    ],
)
def test_net_shares_are_checked_before_any_work(tmp_path: Path, capsys, args, message):
    with pytest.raises(SystemExit):
        gcv.main(["--data-dir", str(tmp_path), *args])
    assert message in capsys.readouterr().err


def test_whole_page_keeps_counts_pages_that_keep_nearly_everything():
    import numpy as np

    def page(n: int) -> SimpleNamespace:
        return SimpleNamespace(blocks=[SimpleNamespace(n_chars=10)] * n)

    pages = [page(12), page(12), page(5), page(12)]
    keeps = {
        "m": [np.ones(12, bool), np.array([True] * 6 + [False] * 6), np.ones(5, bool)],
        "rule": [np.zeros(12, bool)] * 3,
    }
    keeps["m"].append(np.array([True] * 11 + [False]))  # 92% kept
    keeps["rule"].append(np.zeros(12, bool))
    low = dataclasses.replace(_score(0.4), precision=0.2)
    results = {"m": [low, _score(0.9), _score(1.0), _score(0.8)], "rule": [_score(0.6)] * 4}
    out = gcv.whole_page_keeps(pages, keeps, results, "m")
    # page 2 keeps half, page 3 has too few blocks: pages 0 and 3 count
    assert out["pages"] == 2
    assert out["of_full_text_pages"] == 4
    assert out["precision_below_0.3"] == 1
    assert out["mean_f1"] == {"m": pytest.approx(0.6), "rule": pytest.approx(0.6)}


def test_zeroed_columns_are_named_by_parts_and_zeroed_in_a_copy():
    import numpy as np

    names = gcv.tc.FEATURE_NAMES
    cols = gcv.zeroed_columns("stopword, ends_sentence,")
    assert cols and all("stopword" in names[i] or "ends_sentence" in names[i] for i in cols)
    assert len(cols) == sum(1 for n in names if "stopword" in n or "ends_sentence" in n)
    assert gcv.zeroed_columns("") == []
    page = gcv.tc.PreparedPage("k", None, "train", [], None, np.ones((3, len(names))), np.ones(3))
    zeroed = gcv.with_zeroed(page, cols)
    assert (zeroed.x[:, cols] == 0).all() and zeroed.x.sum() == 3 * (len(names) - len(cols))
    assert (page.x == 1).all()


def test_refuses_a_column_part_that_names_nothing_before_reading_pages(tmp_path: Path, capsys):
    folder = tmp_path / "multilingual-dev"
    folder.mkdir()
    (folder / "manifest.jsonl").write_text("")
    with pytest.raises(SystemExit):
        gcv.main(["--data-dir", str(tmp_path), "--zero-columns", "no_such_column"])
    assert "no feature column name contains any of 'no_such_column'" in capsys.readouterr().err


def test_low_precision_pages_are_counted_on_multilingual_full_text_pages():
    pages = [
        _page("ml/zh-1", "zh", "a"),
        _page("ml/ja-1", "ja", "b"),
        _page("ml/de-1", "de", "c"),
        _page("wcxb/1", "en", "d"),
        _page("ml/pl-1", "pl", "e"),
    ]

    def scored(precision: float) -> PageScore:
        return dataclasses.replace(_score(0.5), precision=precision)

    rows = [scored(0.1), scored(0.9), scored(0.2), scored(0.1), _score(None)]
    out = gcv.low_precision_pages(pages, {"m": rows})
    # the English page does not count, nor the snippet-only page (no F1)
    assert out == {"m": {"multilingual": 2, "unspaced": 1}}


def test_the_guard_rows_narrow_link_lists_outside_english_only():
    import numpy as np

    from pipeline.html.segment import parse, segment
    from pipeline.lang.stoplists import stoplist

    links = "".join(
        f'<li><a href="/{i}">Schlagzeile Nummer {i} aus der Stadt und dem Land</a></li>'
        for i in range(10)
    )
    text = (
        "<p>Die Stadt hat am Montag bekannt gegeben, dass die Sanierung der alten Brücke im "
        "Frühjahr beginnen wird und dass die Arbeiten etwa zwei Jahre dauern werden, weil die "
        "Pfeiler und das Geländer erneuert werden müssen und der Verkehr umgeleitet wird.</p>"
    )
    blocks = segment(parse(f"<ul>{links}</ul>{text}".encode()), record_runs=True)
    stop = stoplist("de")

    def page(key: str, language: str) -> SimpleNamespace:
        return SimpleNamespace(
            key=key, blocks=blocks, stoplist=stop, page=SimpleNamespace(language=language)
        )

    pages = [page("ml/de-1", "de"), page("wcxb/1", "en"), page("ml/de-2", "de")]
    everything = np.ones(len(blocks), dtype=bool)
    unsure, sure = np.full(len(blocks), 0.6), np.full(len(blocks), 0.95)
    out, changed = gcv.guarded_keeps(pages, [everything] * 3, [unsure, unsure, sure])
    # The unsure German page is narrowed by the link guard; the sure one keeps its headlines
    # from the model but loses them as link-list items (`pipeline.rules.link_lists`), which
    # do not depend on the model's certainty; English is left alone by both.
    assert changed == 2
    article = [b.text.startswith("Die Stadt") for b in blocks]
    assert out[0].tolist() == article and out[2].tolist() == article
    assert out[1].all()


def test_the_stricter_rows_leave_english_alone_and_power_one_changes_nothing():
    import numpy as np

    from pipeline.learned.model import DEFAULT_MODEL, load_model

    shipped = load_model(DEFAULT_MODEL)
    texts = [f"Block number {i} of the page, with some words in it." for i in range(12)]
    blocks = [
        Block(i, t, "p", "html.body.p", "p", False, len(t), len(t.split()), 0, 1, 7)
        for i, t in enumerate(texts)
    ]

    def page(key: str, language: str) -> SimpleNamespace:
        return SimpleNamespace(
            key=key, blocks=blocks, stoplist=None, page=SimpleNamespace(language=language)
        )

    pages = [page("ml/de-1", "de"), page("wcxb/1", "en")]
    # a page the model is half sure of: a stricter rule must drop its least sure blocks
    probs = [np.linspace(0.35, 0.95, len(blocks))] * 2
    plain, _ = gcv.guarded_keeps(pages, [shipped.decide(pr, blocks) for pr in probs], probs)
    assert [k.tolist() for k in gcv.stricter_keeps(pages, probs, shipped, 1.0)] == [
        k.tolist() for k in plain
    ]
    strict = gcv.stricter_keeps(pages, probs, shipped, 3.0)
    assert strict[1].tolist() == plain[1].tolist()  # English: as it was
    assert strict[0].sum() < plain[0].sum()
    assert not (strict[0] & ~plain[0]).any()


@pytest.mark.parametrize("powers", ["1.5,x", "0", "-1", "11"])
def test_refuses_powers_that_are_not_positive_numbers(tmp_path: Path, capsys, powers: str):
    with pytest.raises(SystemExit):
        gcv.main(["--data-dir", str(tmp_path), "--powers", powers])
    assert "--powers" in capsys.readouterr().err  # refused before the data dir is looked at


def test_han_kana_weight_lengthens_han_and_kana_text_only():
    import numpy as np

    from pipeline.html.page_cues import page_cues
    from pipeline.html.segment import parse, segment
    from pipeline.learned.columns import OWN_INDEX
    from pipeline.learned.features import page_features

    ja = "トレンドマイクロは公衆無線LANを安全に使うためのアプリを発表した。"
    en = "The river carved the valley over thousands of years, and the town grew beside it."
    html = f'<p>{ja}</p><p>{en}</p><ul><li><a href="/x">関連記事の一覧</a></li></ul>'
    tree = parse(html.encode())
    blocks = segment(tree, record_runs=True)
    x = page_features(blocks, None, page_cues(tree, "https://example.jp/news/1"))
    page = gcv.tc.PreparedPage("ml/ja-1", None, "train", blocks, None, x, np.zeros(len(blocks)))

    assert gcv.with_han_kana_weight(page, 1.0) is page
    out = gcv.with_han_kana_weight(page, 2.0).x
    o = OWN_INDEX
    han_kana = [
        sum(1 for c in b.text if "\u3040" <= c <= "\u30ff" or "\u4e00" <= c <= "\u9fff")
        for b in blocks
    ]
    for i, b in enumerate(blocks):
        assert out[i, o["log_chars"]] == pytest.approx(np.log1p(b.n_chars + han_kana[i]))
        # link characters are scaled with the text: the densities stay
        assert out[i, o["link_density"]] == pytest.approx(x[i, o["link_density"]], abs=0.01)
    assert han_kana[0] > 20 and han_kana[1] == 0
    assert out[0, o["text_density"]] > x[0, o["text_density"]]
    # the page cues are carried over, not recomputed without the page
    assert np.array_equal(out[:, -5:], x[:, -5:])
    english = gcv.tc.PreparedPage("wcxb/1", None, "train", blocks[1:2], None, x[1:2], np.zeros(1))
    assert gcv.with_han_kana_weight(english, 2.0) is english


def test_the_nested_power_choice_never_sees_the_group_it_is_scored_on():
    pages = [_page("ml/de-1", "de", "d"), _page("ml/de-2", "de", "d")]
    pages += [_page("ml/pl-1", "pl", "p"), _page("wcxb/1", "en", "e")]
    groups = ["de", "de", "pl", "en"]
    # Power 2 is better on the German pages, power 1 on the Polish page; English does not count.
    candidates = {
        1.0: [_score(0.5), _score(0.5), _score(0.9), _score(0.0)],
        2.0: [_score(0.8), _score(0.8), _score(0.6), _score(1.0)],
    }
    chosen = gcv.nested_power_choice(pages, groups, candidates)
    # German is scored with what Polish prefers, Polish with what German prefers; English with
    # the multilingual pages' mean (2: 0.733 against 1: 0.633).
    assert chosen == {"de": 1.0, "pl": 2.0, "en": 2.0}
    # A tie goes to the smaller power, the shipped rule's side.
    tied = {1.0: [_score(0.5)] * 4, 1.6: [_score(0.5)] * 4}
    assert set(gcv.nested_power_choice(pages, groups, tied).values()) == {1.0}
