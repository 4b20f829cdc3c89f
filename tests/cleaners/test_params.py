"""``--param K=V``: names checked against the cleaner's parameters, values are JSON of their type.

Every command that takes ``--param`` goes through `pipeline.cleaners.params`: an unknown name
lists the cleaner's parameters, text that is not JSON (for a parameter that takes no text) and
JSON of the wrong type are errors, and all of them exit 2 on the command line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from pipeline.cleaners.params import OptionError, cleaner_options, parse_params
from pipeline.cleaners.registry import available, describe_parameters, make_cleaner, parameters
from pipeline.cli import main
from pipeline.job import command
from tests.jobhelpers import make_inputs
from tests.test_cli_clean import PAGE


def test_every_cleaner_declares_its_parameters() -> None:
    # A cleaner that took **options without declaring them would accept any name unchecked.
    for name in available():
        assert parameters(name) is not None, name


@pytest.mark.parametrize("name", available())
def test_each_default_written_as_json_reads_back_and_builds_the_cleaner(name: str) -> None:
    params = parameters(name)
    assert params is not None
    items = [f"{k}={json.dumps(p.default)}" for k, p in params.items()]
    parsed = parse_params(name, items)
    assert parsed == {k: p.default for k, p in params.items()}
    make_cleaner(name, **parsed)


def test_an_unknown_name_lists_the_cleaners_parameters() -> None:
    with pytest.raises(TypeError) as info:
        parse_params("neighbours", ["length_low=50"])
    message = str(info.value)
    assert "no parameter 'length_low'" in message
    for name in ("threshold", "link_guard", "strictness", "consent_guard"):
        assert name in message
    # The library's own call says the same instead of Python's bare "unexpected keyword".
    with pytest.raises(TypeError, match="threshold"):
        make_cleaner("neighbours", length_low=50)
    assert describe_parameters("density-mean") == (
        "cleaner 'density-mean' takes: variant (str, default \"project\")"
    )


@pytest.mark.parametrize(
    ("cleaner", "item", "message"),
    [
        ("justext", "length_low=5O", "not valid JSON; length_low takes int"),
        ("justext", "no_headings=True", "not valid JSON; no_headings takes bool (true or false)"),
        ("neighbours", "threshold={", "not valid JSON"),
        ("justext", "length_low=0.5", "length_low takes int, not a number"),
        ("justext", "length_low=true", "length_low takes int, not true or false"),
        ("bte", 'tag_weight="0.5"', "tag_weight takes float, not a string"),
        ("neighbours", "link_guard=1", "link_guard takes bool, not a whole number"),
        ("kimatu", "near=[2]", "near takes int | None, not a list"),
        ("bte", "tag_weight", "expected KEY=VALUE"),
    ],
)
def test_values_must_be_json_of_the_parameters_type(cleaner: str, item: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_params(cleaner, [item])


def test_values_of_the_right_type_and_bare_text_for_text_parameters() -> None:
    assert parse_params("justext", ["length_low=50", "stopwords_low=0.25"]) == {
        "length_low": 50,
        "stopwords_low": 0.25,
    }
    # A float parameter takes a whole number; null where None is allowed.
    assert parse_params("neighbours", ["threshold=1", "model=null"]) == {
        "threshold": 1,
        "model": None,
    }
    # Text bare or as a JSON string; a number is still text for a parameter that takes text.
    assert parse_params("density-lm", ["variant=paper"]) == {"variant": "paper"}
    assert parse_params("density-lm", ['variant="paper"']) == {"variant": "paper"}
    assert parse_params("neighbours", ["model=2024"]) == {"model": "2024"}


@given(st.floats(allow_nan=False, allow_infinity=False), st.integers(-(10**12), 10**12))
def test_numbers_read_back_exactly(value: float, whole: int) -> None:
    assert parse_params("bte", [f"tag_weight={json.dumps(value)}"]) == {"tag_weight": value}
    assert parse_params("kimatu", [f"near={whole}"]) == {"near": whole}


def test_cleaner_options_say_which_option_is_wrong() -> None:
    with pytest.raises(OptionError) as info:
        cleaner_options("no-such", ())
    assert info.value.option == "--cleaner" and "available" in str(info.value)
    with pytest.raises(OptionError) as info:
        cleaner_options("neighbours", ["strictness=20"])  # the right type, out of its range
    assert info.value.option == "--param" and "strictness" in str(info.value)
    assert cleaner_options("justext", ["length_low=50"]) == {"length_low": 50}


def _usage_error(args: list[str], *needles: str, cli=main) -> None:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, (result.output, result.exception)
    assert "Traceback" not in result.output
    for needle in needles:
        assert needle in result.output, result.output


@pytest.mark.parametrize(
    ("params", "needles"),
    [
        (["--param", "length_low=50"], ("no parameter 'length_low'", "threshold")),
        (["--param", "threshold=0.5x"], ("not valid JSON", "threshold takes float | None")),
    ],
)
def test_every_command_exits_2_on_a_bad_param(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, params: list[str], needles: tuple[str, ...]
) -> None:
    page = tmp_path / "page.html"
    page.write_bytes(PAGE)
    _usage_error(["clean", str(page), *params], *needles)
    _usage_error(["show", str(page), "-o", str(tmp_path / "v.html"), *params], *needles)
    dataset = tmp_path / "dataset"
    (dataset / "html").mkdir(parents=True)
    _usage_error(["eval", str(dataset), "--cleaner", "neighbours", *params], *needles)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the cluster was started")

    monkeypatch.setattr(command, "make_client", refuse)
    inputs = make_inputs(tmp_path / "in", n=1)
    out = tmp_path / "out"
    _usage_error([*inputs, "-o", str(out), *params], *needles, cli=command.main)
    assert not out.exists()
