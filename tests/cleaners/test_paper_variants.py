"""The seed systems as their authors published them (``variant="paper"``): each paper element
that the project's variant changes has a test here that fails if the paper variant drifts."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from pipeline.clean import clean_html
from pipeline.cleaners.density import StddevDensityCleaner, pal_stage_one, smoothed_density
from pipeline.cleaners.density_lm import PAPER_MODEL as LM_PAPER_MODEL
from pipeline.cleaners.density_lm import DensityLmCleaner
from pipeline.cleaners.ngram import (
    ClassLmModel,
    WittenBellLm,
    _wb_buckets,
    class_prior,
    load_class_model,
    save_class_model,
    train_witten_bell,
)
from pipeline.cleaners.units import (
    Unit,
    article_paragraphs,
    page_html,
    source_lines,
    verdicts_for_blocks,
)
from pipeline.cli import main
from pipeline.html.segment import parse, segment
from pipeline.learned.density_mlp import FEATURE_NAMES, FORMAT, DensityMlpCleaner
from pipeline.learned.density_mlp import PAPER_MODEL as MLP_PAPER_MODEL
from pipeline.types import Block, Verdict


def block(index: int, chars: int, markup: int, text: str | None = None) -> Block:
    text = text if text is not None else "x" * chars
    return Block(index, text, "p", "body.p", "p", False, chars, 1, 0, 1, markup)


def good(labeled: list) -> list[bool]:
    return [lb.verdict is Verdict.GOOD for lb in labeled]


# --- Pal's stage 1: σ over the >= 60-character chunks, with n − 1 -------------------------------


def test_paper_sigma_is_the_sample_stddev_of_the_long_chunks_only() -> None:
    # Two long chunks (densities ~0.91 and ~0.56) and a short, markup-heavy one (~0.05).
    blocks = [block(0, 200, 20), block(1, 100, 80), block(2, 10, 200)]
    densities = [smoothed_density(b) for b in blocks]
    paper = StddevDensityCleaner(variant="paper")
    project = StddevDensityCleaner()
    n_chars = [b.n_chars for b in blocks]
    assert paper.threshold(densities, n_chars) == pytest.approx(
        0.5 - statistics.stdev(densities[:2])
    )
    assert project.threshold(densities, n_chars) == pytest.approx(
        0.5 - statistics.pstdev(densities)
    )
    # The estimators differ even on the same values: n − 1 against n.
    assert statistics.stdev(densities[:2]) != pytest.approx(statistics.pstdev(densities[:2]))
    # The short chunk widens the project's σ, so its bar is lower.
    assert project.threshold(densities, n_chars) < paper.threshold(densities, n_chars)
    assert paper.params()["variant"] == "paper" and "variant" not in project.params()


def test_pal_stage_one_on_units_drops_short_chunks_before_sigma() -> None:
    units = [Unit("a" * 200, 200, 220), Unit("b" * 100, 100, 180), Unit("c" * 10, 10, 210)]
    densities = [(u.n_text + 1) / (u.n_html + 1) for u in units]
    bar = 0.5 - statistics.stdev(densities[:2])
    assert pal_stage_one(units) == [densities[0] > bar, densities[1] > bar, False]
    # One long chunk: no sample σ (n − 1 = 0), the bar is the base.
    assert pal_stage_one([Unit("a" * 80, 80, 170)]) == [(81 / 171) > 0.5]


def test_variant_names_are_checked() -> None:
    with pytest.raises(ValueError, match="variant"):
        StddevDensityCleaner(variant="pal")
    with pytest.raises(ValueError, match="unit"):
        DensityLmCleaner(unit="lines")  # a unit is a paper-variant option


# --- the units ----------------------------------------------------------------------------------

SOURCE = """<html><head><title>Title</title><script>var s = "not\ntext";</script></head>
<body><div class="nav"><a href="/">Home</a> | <a href="/n">News</a></div>
<div><p>First paragraph, its first line
and its second line &amp; more.</p><p>Second<br>after the break</p></div>
<table><tr><td>cell one</td><td>cell two</td></tr></table>
<ul><li>item one</li><li>item two</li></ul>
</body></html>"""


def test_source_lines_count_as_pals_density_filter() -> None:
    lines = source_lines(SOURCE)
    texts = [u.text for u in lines]
    # Pal's code: what lies outside "<" ... ">" on a line is text, scripts and titles included,
    # with the flag reset on every line and entities left as they are.
    assert texts == [
        'Titlevar s = "not',
        'text";',
        "Home | News",
        "First paragraph, its first line",
        "and its second line &amp; more.Secondafter the break",
        "cell onecell two",
        "item oneitem two",
        "",
    ]
    third = lines[2]
    assert third.n_text == len("Home | News")
    # Markup is what lies between the brackets, the brackets not counted.
    tags = ("body", 'div class="nav"', 'a href="/"', "/a", 'a href="/n"', "/a", "/div")
    assert third.n_html == len("Home | News") + sum(map(len, tags))
    assert (lines[0].n_text, lines[0].n_html) == (17, 17 + len("htmlheadtitle/titlescript"))


def test_source_lines_trim_as_java_and_reset_the_markup_flag_on_every_line() -> None:
    # A tag broken over two lines: its second half, before ">", is text to Pal's code.
    lines = source_lines('  <a href="x"\r\n   class="y">Link</a>  \n\n\t\n')
    assert [u.text for u in lines] == ["", 'class="y"Link']
    assert [(u.n_text, u.n_html) for u in lines] == [(0, len('a href="x"')), (13, 13 + 2)]


def test_article_paragraphs_break_at_p_br_li_but_not_at_div_or_table_cells() -> None:
    texts = [u.text for u in article_paragraphs(SOURCE)]
    assert texts == [
        "Home | News",
        "First paragraph, its first line and its second line & more.",
        "Second",
        "after the break",
        "cell onecell two",  # one paragraph to the formatter: no break at table or td
        "item one",
        "item two",
    ]


def test_block_verdicts_follow_most_of_their_characters() -> None:
    units = [Unit("alpha beta", 10, 20), Unit("gamma", 5, 9), Unit("delta epsilon", 13, 20)]
    mapped = verdicts_for_blocks(
        ["alpha", "beta gamma", "delta epsilon", "missing"], units, [True, False, False]
    )
    # "betagamma": 4 characters kept, 5 not: the majority decides.
    assert mapped == [(True, 0), (False, 1), (False, 2), (False, None)]


# --- Pal's stage 2: character 6-grams, Witten-Bell, a class prior -------------------------------


def test_witten_bell_on_a_hand_computed_example() -> None:
    # Trained on "aab" with order 2, lambda factor 1 and an alphabet of 4 characters:
    #   N = 3 characters, T = 2 distinct:  p1(a) = (2 + 1·2·¼) / (3 + 2) = 0.5, p1(b) = 0.3
    #   context "a": n = 2, E = 2 distinct followers:
    #     p(b | a) = (1 + 1·2·0.3) / (2 + 2) = 0.4,   p(a | a) = (1 + 1·2·0.5) / 4 = 0.5
    #   context "b" was never seen: p(a | b) = p1(a).
    lm = train_witten_bell(["aab"], 2, 16, 1.0)
    assert (lm.total, lm.types, lm.order) == (3.0, 2.0, 2)
    lm = WittenBellLm(lm.counts, lm.total, lm.types, 2, 1.0, 4.0)
    grams, contexts, extensions, depth, owner, _ = _wb_buckets(["ab", "ba", "aa"], 2, 16)
    probs = np.exp(lm.log_probs(grams, contexts, extensions, depth))
    np.testing.assert_allclose(probs, [0.5, 0.4, 0.3, 0.5, 0.5, 0.5])
    assert owner.tolist() == [0, 0, 1, 1, 2, 2]


def test_lambda_factor_defaults_to_the_order_as_in_lingpipe() -> None:
    assert train_witten_bell(["abc"], 6, 12).lambda_factor == 6.0


def test_class_prior_decides_what_the_models_cannot() -> None:
    same = train_witten_bell(["some shared text"], 3, 12)
    # Identical class models: only the prior speaks, and it favours the larger class.
    model = ClassLmModel(same, same, class_prior(30, 10), 0.0, {})
    assert model.scores(["anything"])[0] == pytest.approx(math.log(31 / 11))
    assert class_prior(0, 0) == pytest.approx((math.log(0.5), math.log(0.5)))


def _class_model(content: list[str], boiler: list[str]) -> ClassLmModel:
    """Pal's classifier (character 6-grams, a class prior, decided at 0) on these texts."""
    return ClassLmModel(
        train_witten_bell(content, 6, 14),
        train_witten_bell(boiler, 6, 14),
        class_prior(len(content), len(boiler)),
        0.0,
        {"note": "test"},
    )


def test_class_model_round_trips_and_scores_the_joint_probability(tmp_path: Path) -> None:
    content = ["The river carved the valley over thousands of years."] * 3
    boiler = ["Home", "Contact us", "Privacy policy"] * 3
    model = _class_model(content, boiler)
    path = tmp_path / "m.npz"
    save_class_model(model, path)
    loaded = load_class_model(path)
    texts = ["The river carved the valley", "Privacy policy", ""]
    np.testing.assert_allclose(loaded.scores(texts), model.scores(texts))
    scores = loaded.scores(texts)
    assert scores[0] > 0 > scores[1] and scores[2] == -np.inf
    # Joint, not per character: a text twice as long scores about twice as far from 0.
    doubled = loaded.scores(["The river carved the valley " * 2])[0]
    assert doubled > 1.5 * scores[0]


def test_shipped_paper_model_is_pals_classifier() -> None:
    model = load_class_model(LM_PAPER_MODEL)
    assert model.order == 6 and model.content.lambda_factor == 6.0
    assert model.threshold == 0.0
    assert model.log_prior[0] != model.log_prior[1]


# --- the paper variants end to end ----------------------------------------------------------------

ARTICLE = "".join(
    f"<p>Paragraph {i} of the story tells, in plain sentences, how the river shaped the valley "
    f"and why the farmers who came later followed its course downstream to the sea.</p>\n"
    for i in range(6)
)
MENU = "".join(f'<li><a href="/s{i}">Section {i}</a></li>\n' for i in range(12))
PAGE = (
    f"<html><head><title>T</title></head><body>\n<ul>\n{MENU}</ul>\n<article>\n<h1>The "
    f"headline</h1>\n{ARTICLE}</article>\n<footer><a href='/c'>Contact</a> | "
    f"<a href='/p'>Privacy</a></footer>\n</body></html>"
)


def _line_model(tmp_path: Path) -> str:
    """Class models trained on source lines like the page's, other words: what the paper's
    second stage learns, small enough to know what it decides (the shipped model's decisions on
    a made-up page are not the paper's, and the test is about lines)."""
    content = [
        f"<p>Story {i} says, in plain sentences, how the hills and the river shaped the valley "
        f"and why the people who came later followed the water down to the sea.</p>"
        for i in range(8)
    ]
    boiler = [f'<li><a href="/t{i}">Topic {i}</a></li>' for i in range(20)]
    boiler += ["<footer><a href='/a'>About</a> | <a href='/t'>Terms</a></footer>"] * 4
    path = tmp_path / "lines.npz"
    save_class_model(_class_model(content, boiler), path)
    return str(path)


def test_pal_paper_variant_judges_source_lines(tmp_path: Path) -> None:
    tree = parse(PAGE)
    blocks = segment(tree)
    paper = DensityLmCleaner(variant="paper", model=_line_model(tmp_path))
    assert paper.needs_tree and paper.unit == "lines"
    labeled = paper.label(blocks, None, tree=tree)
    kept = [lb.block.text for lb in labeled if lb.verdict is Verdict.GOOD]
    assert any(t.startswith("Paragraph") for t in kept)
    assert not any(t.startswith("Section") for t in kept)
    # A minified page is one source line: Pal's chunk is the whole page, so every block shares
    # that one line's verdict.
    flat = parse(PAGE.replace("\n", ""))
    verdicts = {lb.verdict for lb in paper.label(segment(flat), None, tree=flat)}
    assert len(verdicts) == 1
    # On blocks (``unit="blocks"``) the same page is split as the project splits it.
    on_blocks = DensityLmCleaner(variant="paper", unit="blocks", model=_line_model(tmp_path))
    assert not on_blocks.needs_tree
    assert any(good(on_blocks.label(segment(flat), None)))


def test_lines_and_blocks_give_other_chunks_on_the_same_page() -> None:
    tree = parse(PAGE)
    assert len(source_lines(page_html(tree))) != len(segment(tree))


def mlp_file(tmp_path: Path, bias: float) -> str:
    """A network that ignores its inputs: probability sigmoid(bias) for every unit."""
    width = len(FEATURE_NAMES)
    spec = {
        "kind": "mlp",
        "mean": [0.0] * width,
        "scale": [1.0] * width,
        "weights": [[[0.0] for _ in range(width)], [[1.0]]],
        "biases": [[0.0], [bias]],
    }
    doc = {"format": FORMAT, "features": list(FEATURE_NAMES), "threshold": 0.5, "mlp": spec}
    path = tmp_path / f"mlp{bias}.json"
    path.write_text(json.dumps(doc))
    return str(path)


def test_the_papers_network_judges_every_unit_with_no_mean_filter(tmp_path: Path) -> None:
    # A network that keeps everything: the project's variant still drops what is at or below the
    # page's mean density, the paper's keeps every unit.
    blocks = [block(0, 90, 10), block(1, 20, 80), block(2, 95, 5), block(3, 5, 95)]
    model = mlp_file(tmp_path, 5.0)
    project = DensityMlpCleaner(model=model, variant="project")
    paper = DensityMlpCleaner(model=model)  # the article's method is the default
    assert paper.variant == "paper" and paper.needs_tree
    assert good(project.label(blocks, None)) == [True, False, True, False]
    assert good(paper.label(blocks, None)) == [True] * 4
    assert all(lb.score is not None for lb in paper.label(blocks, None))
    # On the page's own paragraphs too.
    tree = parse(PAGE)
    page_blocks = segment(tree)
    assert all(good(paper.label(page_blocks, None, tree=tree)))
    nothing = DensityMlpCleaner(model=mlp_file(tmp_path, -5.0), variant="paper")
    assert not any(good(nothing.label(page_blocks, None, tree=tree)))


def test_without_the_page_the_paper_variants_judge_blocks_and_say_so() -> None:
    blocks = segment(PAGE)
    for cleaner in (DensityMlpCleaner(), DensityLmCleaner(variant="paper")):
        labeled, notes = cleaner.label_noted(blocks, None)
        assert [lb.block for lb in labeled] == blocks
        assert notes == ("paper_unit_unavailable",)
        assert cleaner.label_noted(blocks, None, tree=parse(PAGE))[1] == ()
    assert DensityMlpCleaner(variant="project").label_noted(blocks, None)[1] == ()


def test_shipped_paper_network_has_no_first_stage() -> None:
    doc = json.loads(Path(MLP_PAPER_MODEL).read_text())
    assert doc["metadata"]["first_stage"] == "none"
    assert "paragraphs" in doc["metadata"]["unit"]


# The parameters each cleaner reports for its paper variant: density-mlp's is its default.
PAPER_PARAMS = {"density-lm": {"variant": "paper", "unit": "lines"}, "density-mlp": {}}


@pytest.mark.parametrize("cleaner", ["density-lm", "density-mlp"])
def test_paper_variants_run_through_the_library(cleaner: str) -> None:
    result = clean_html(PAGE, cleaner=cleaner, variant="paper", language="en")
    assert dict(result.params) == PAPER_PARAMS[cleaner]
    assert len(result.blocks) == len(segment(PAGE))
    # Until `pipeline.clean.label_blocks` passes ``tree=`` the paper's unit is not available
    # there, and the page says so instead of pretending.
    if "paper_unit_unavailable" not in result.notes:
        assert "Paragraph 0" in result.text


@pytest.mark.parametrize("cleaner", ["density-lm", "density-mlp"])
def test_paper_variants_run_through_the_cli(cleaner: str, tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text(PAGE)
    result = CliRunner().invoke(
        main, ["clean", str(page), "--cleaner", cleaner, "--param", "variant=paper", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["params"] == PAPER_PARAMS[cleaner]


@pytest.mark.parametrize("cleaner", ["density-lm", "density-mlp"])
def test_paper_variant_runs_through_the_job(cleaner: str, tmp_path: Path) -> None:
    from pipeline.jobconfig import JobConfig
    from pipeline.run import process_warc
    from tests.test_run import docs_table, sample_warc

    out = tmp_path / "out"
    cfg = JobConfig(output=str(out), cleaner=cleaner, params=(("variant", "paper"),))
    report = process_warc(str(sample_warc(tmp_path)), cfg)
    assert report.stats.balanced
    rows = docs_table(out).to_pylist()
    assert rows and all(json.loads(r["cleaner_params"]) == {"variant": "paper"} for r in rows)


# --- the article's simple filters and Pal's filter alone, on their own units --------------------


def test_article_filters_judge_paragraphs_by_density_above_05_or_the_mean() -> None:
    from pipeline.cleaners.density import FixedDensityCleaner, MeanDensityCleaner

    # A layout table: one paragraph to the article's formatter (no break at td), two blocks to us.
    # The left cell is dense on its own (0.6), the right one is mostly markup.
    left = "x" * 60
    html = (
        "<html><body><p>" + "Prose " * 30 + "</p>"
        f"<table><tr><td class='cell'>{left}</td>"
        f"<td><span class='a'><span class='b'><span class='c'>tiny</span></span></span></td>"
        "</tr></table></body></html>"
    )
    tree = parse(html)
    blocks = segment(tree)
    paragraphs = article_paragraphs(page_html(tree))
    assert len(paragraphs) == 2 and len(blocks) == 3
    fixed = FixedDensityCleaner(variant="paper")
    assert fixed.needs_tree and fixed.params() == {"threshold": 0.5, "variant": "paper"}
    labels = good(fixed.label(blocks, None, tree=tree))
    expected = [u.density > 0.5 for u in paragraphs]
    # Both cells take their paragraph's verdict: the table's density, not each cell's own.
    assert labels == [expected[0], expected[1], expected[1]]
    assert good(FixedDensityCleaner().label(blocks, None)) == [b.text_density > 0.5 for b in blocks]
    mean_bar = statistics.mean(u.density for u in paragraphs)
    mean_labels = good(MeanDensityCleaner(variant="paper").label(blocks, None, tree=tree))
    assert mean_labels[0] == (paragraphs[0].density > mean_bar)
    assert MeanDensityCleaner(variant="paper").params() == {"variant": "paper"}
    assert MeanDensityCleaner().params() == {}


def test_pal_filter_alone_on_source_lines() -> None:
    tree = parse(PAGE)
    blocks = segment(tree)
    paper = StddevDensityCleaner(variant="paper")
    assert paper.needs_tree and paper.params()["unit"] == "lines"
    units = source_lines(page_html(tree))
    keep = pal_stage_one(units)
    labeled = paper.label(blocks, None, tree=tree)
    kept_text = " ".join(lb.block.text for lb in labeled if lb.verdict is Verdict.GOOD)
    assert all(u.text.strip() in kept_text for u, k in zip(units, keep, strict=True) if k)
    assert not any(lb.block.text.startswith("Section") for lb in labeled if good([lb])[0])
    # Without the page, or with unit=blocks, Pal's rule runs on our blocks.
    on_blocks = StddevDensityCleaner(variant="paper", unit="blocks")
    assert not on_blocks.needs_tree
    assert good(on_blocks.label(blocks, None)) == good(paper.label(blocks, None))
    labeled, notes = paper.label_noted(blocks, None)
    assert notes == ("paper_unit_unavailable",)
    with pytest.raises(ValueError, match="unit"):
        StddevDensityCleaner(unit="lines")
