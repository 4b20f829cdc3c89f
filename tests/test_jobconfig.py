"""The job's configuration (`pipeline.jobconfig`): what it refuses, and how the command line's
``--param``, ``--isolate-memory`` and ``--memory-limit`` values are read."""

from __future__ import annotations

import pickle

import pytest

from pipeline.jobconfig import (
    MIN_ISOLATE_MEMORY,
    MIN_WORKER_MEMORY,
    JobConfig,
    freeze,
    parse_memory,
    parse_memory_limit,
    parse_pairs,
    parse_value,
)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"output": ""}, "output must be a non-empty path or URL"),
        ({"formats": "html"}, "formats must be one of text, markdown, both, got 'html'"),
        ({"batch_rows": 0}, "batch_rows must be >= 1, got 0"),
        ({"batch_bytes": 0}, "batch_bytes must be >= 1, got 0"),
        ({"record_limit": 0}, "record_limit must be >= 1, got 0"),
    ],
)
def test_a_config_that_cannot_run_is_refused(fields: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        JobConfig(**{"output": "out", **fields})


def test_the_smallest_config_that_runs_is_taken() -> None:
    config = JobConfig(output="o", batch_rows=1, batch_bytes=1, record_limit=1)
    assert (config.batch_rows, config.batch_bytes, config.record_limit) == (1, 1, 1)
    assert JobConfig(output="o").record_limit is None


def test_by_default_comments_stay_out_and_page_types_are_not_named() -> None:
    # What docs/output.md and the command's help promise without --include-comments,
    # --page-type or --formats.
    config = JobConfig(output="o")
    assert (config.include_comments, config.classify_page, config.formats) == (False, False, "both")


@pytest.mark.parametrize(
    ("formats", "text", "markdown"),
    [("text", True, False), ("markdown", False, True), ("both", True, True)],
)
def test_formats_say_what_is_written(formats: str, text: bool, markdown: bool) -> None:
    config = JobConfig(output="o", formats=formats)
    assert (config.writes_text, config.writes_markdown) == (text, markdown)


def test_a_config_is_one_value_for_every_task() -> None:
    # Shipped with every task: picklable, hashable, and the same however its mappings were
    # ordered on the command line.
    a = JobConfig(output="o", params=freeze({"b": 2, "a": [1]}), storage_options=freeze(None))
    b = JobConfig(output="o", params=freeze({"a": [1], "b": 2}))
    assert a.params == (("a", [1]), ("b", 2)) and a.storage_options == ()
    assert pickle.loads(pickle.dumps(a)) == a == b
    assert a.params_json() == '{"a": [1], "b": 2}' == b.params_json()
    assert a.params_dict == {"a": [1], "b": 2}
    c = JobConfig(output="o", storage_options=freeze({"anon": True}))
    assert c.storage_dict == {"anon": True}
    assert hash(JobConfig(output="o")) == hash(JobConfig(output="o"))


def test_param_values_are_json_where_they_parse() -> None:
    assert parse_value("70") == 70 and parse_value("0.5") == 0.5
    assert parse_value("true") is True and parse_value("null") is None
    assert parse_value("[1, 2]") == [1, 2]
    assert parse_value("english") == "english" and parse_value("") == ""


def test_pairs_split_at_the_first_equals_and_trim_the_key() -> None:
    got = parse_pairs([" length_low =70", "stoplist=english", "expr=a=b", "empty="])
    assert got == {"length_low": 70, "stoplist": "english", "expr": "a=b", "empty": ""}
    assert parse_pairs([]) == {}


@pytest.mark.parametrize("pair", ["novalue", "=5", " =5"])
def test_a_pair_without_a_key_is_a_usage_error_naming_the_option(pair: str) -> None:
    with pytest.raises(ValueError, match=f"--storage-option expects KEY=VALUE, got {pair!r}"):
        parse_pairs(["ok=1", pair], option="--storage-option")


def test_isolate_memory_takes_sizes_or_none() -> None:
    assert parse_memory("4GB") == 4_000_000_000
    assert parse_memory("512MiB") == 512 * 2**20
    assert parse_memory("1") == 1
    assert parse_memory(" None ") is None and parse_memory("none") is None
    for bad in ("0", "-1GB", "lots", ""):
        with pytest.raises(ValueError, match=f"--isolate-memory expects a size .*got {bad!r}"):
            parse_memory(bad)


def test_isolate_memory_below_the_minimum_says_why() -> None:
    assert parse_memory(str(MIN_ISOLATE_MEMORY), minimum=MIN_ISOLATE_MEMORY) == MIN_ISOLATE_MEMORY
    with pytest.raises(ValueError, match=r"must be at least 2\.00 GiB .*about 1\.5 GB"):
        parse_memory(str(MIN_ISOLATE_MEMORY - 1), minimum=MIN_ISOLATE_MEMORY)
    # An empty value is no size (dask's parse_bytes reads it as 1 byte), not a value too small.
    with pytest.raises(ValueError, match="expects a size such as 4GB or 'none', got ''"):
        parse_memory("", minimum=MIN_ISOLATE_MEMORY)


def test_worker_memory_limits_are_auto_none_or_an_explicit_size() -> None:
    assert parse_memory_limit(" AUTO ") == "auto"
    assert parse_memory_limit("None") is None
    assert parse_memory_limit("4GiB") == 4 * 2**30
    assert parse_memory_limit(str(MIN_WORKER_MEMORY)) == MIN_WORKER_MEMORY
    # A bare fraction is a share of the machine to Dask and 0 bytes to parse_bytes: refused,
    # as are sizes under what a warmed worker holds.
    for bad in ("0.5", str(MIN_WORKER_MEMORY - 1), "100MiB", "lots", ""):
        with pytest.raises(
            ValueError, match=f"--memory-limit expects 'auto', 'none' or a size .*got {bad!r}"
        ):
            parse_memory_limit(bad)
