"""Input listing (files, directories, globs, path lists, s3) and per-input shard names."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.warc.inputs import InputError, input_key, input_stem, list_inputs


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    for rel in [
        "a/one.warc.gz",
        "a/two.warc",
        "a/skip.txt",
        "a/deeper/three.arc.gz",
        "a/deeper/four.arc",
        "a/deeper/x.warc.wat.gz",
        "b/one.warc.gz",
    ]:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")
    return tmp_path


def test_directory_is_searched_recursively_for_archives_only(tree: Path) -> None:
    got = list_inputs([str(tree / "a")])
    assert got == [
        str(tree / "a/deeper/four.arc"),
        str(tree / "a/deeper/three.arc.gz"),
        str(tree / "a/one.warc.gz"),
        str(tree / "a/two.warc"),
    ]


def test_globs_files_and_dedup_keep_spec_order(tree: Path) -> None:
    got = list_inputs(
        [str(tree / "b/one.warc.gz"), str(tree / "*/one.warc.gz"), str(tree / "a/one.warc.gz")]
    )
    assert got == [str(tree / "b/one.warc.gz"), str(tree / "a/one.warc.gz")]


def test_explicit_file_is_taken_whatever_its_name(tree: Path) -> None:
    assert list_inputs([str(tree / "a/skip.txt")]) == [str(tree / "a/skip.txt")]


def test_common_crawl_wet_and_wat_files_are_refused_by_name_where_they_are_given(
    tree: Path,
) -> None:
    # they hold no page: read, a run would end with no document and every record skipped
    derived = tree / "c" / "CC-MAIN-20240301-00000.warc.wet.gz"
    derived.parent.mkdir()
    derived.write_bytes(b"")
    (tree / "c" / "CC-MAIN-20240301-00000.warc.WAT").write_bytes(b"")
    where_pages_are = r"not a WARC of pages; its pages are in the WARC file of the same name"
    with pytest.raises(InputError, match=rf"^input: a WET file .*{where_pages_are}"):
        list_inputs([str(derived)])
    with pytest.raises(InputError, match=rf"^input: a WAT file .*{where_pages_are}"):
        list_inputs([str(tree / "a/deeper/x.warc.wat.gz")])
    with pytest.raises(InputError, match=r"^input directory .*/c holds no WARC file: a WAT"):
        list_inputs([str(tree / "c")])
    with pytest.raises(InputError, match=r"^input glob .* matches no WARC file: a WET"):
        list_inputs([str(tree / "c" / "*.gz")])
    listing = tree / "wet.paths"
    listing.write_text("crawl-data/x/warc/a.warc.gz\ncrawl-data/x/wet/a.warc.wet.gz\n")
    with pytest.raises(InputError, match=r"wet\.paths:2: a WET file .*wet/a\.warc\.wet\.gz$"):
        list_inputs([str(listing)])
    # beside WARC files, a directory's or glob's derived files are passed over
    (tree / "c" / "CC-MAIN-20240301-00000.warc.gz").write_bytes(b"")
    for spec in (tree / "c", tree / "c" / "*"):
        assert list_inputs([str(spec)]) == [str(tree / "c" / "CC-MAIN-20240301-00000.warc.gz")]


def test_missing_inputs_fail_with_their_name(tree: Path) -> None:
    with pytest.raises(InputError, match="nope"):
        list_inputs([str(tree / "nope.warc.gz")])
    with pytest.raises(InputError, match="matches nothing"):
        list_inputs([str(tree / "*.nothing")])
    (tree / "empty").mkdir()
    with pytest.raises(InputError, match=r"no \.warc"):
        list_inputs([str(tree / "empty")])
    with pytest.raises(InputError, match="path list not found"):
        list_inputs(["@" + str(tree / "missing.txt")])


@pytest.mark.parametrize("compressed", [False, True])
def test_common_crawl_paths_file_with_base_url(tmp_path: Path, compressed: bool) -> None:
    lines = (
        b"crawl-data/CC-MAIN-2024-10/segments/1/warc/CC-MAIN-1-00000.warc.gz\n"
        b"# a comment\n\n"
        b"crawl-data/CC-MAIN-2024-10/segments/1/warc/CC-MAIN-1-00001.warc.gz\n"
        b"crawl-data/CC-MAIN-2024-10/segments/1/warc/CC-MAIN-1-00000.warc.gz\n"
        b"s3://other/x.warc.gz\n"
    )
    name = "warc.paths.gz" if compressed else "warc.paths"
    (tmp_path / name).write_bytes(gzip.compress(lines) if compressed else lines)
    got = list_inputs([str(tmp_path / name)], base_url="s3://commoncrawl/")
    assert got == [
        "s3://commoncrawl/crawl-data/CC-MAIN-2024-10/segments/1/warc/CC-MAIN-1-00000.warc.gz",
        "s3://commoncrawl/crawl-data/CC-MAIN-2024-10/segments/1/warc/CC-MAIN-1-00001.warc.gz",
        "s3://other/x.warc.gz",
    ]


def test_at_list_resolves_relative_lines_against_its_directory(tmp_path: Path) -> None:
    (tmp_path / "lists").mkdir()
    (tmp_path / "lists/inputs.txt").write_text("../data/x.warc.gz\n/abs/y.arc\n")
    assert list_inputs(["@" + str(tmp_path / "lists/inputs.txt")]) == [
        str(tmp_path / "data/x.warc.gz"),
        "/abs/y.arc",
    ]


def test_s3_prefix_lists_objects(tmp_path: Path) -> None:
    moto_server = pytest.importorskip("moto.server")
    pytest.importorskip("s3fs")
    boto3 = pytest.importorskip("boto3")
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        creds = {"aws_access_key_id": "test", "aws_secret_access_key": "test"}
        s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", **creds)
        s3.create_bucket(Bucket="crawl")
        for key in ["seg/b.warc.gz", "seg/a.warc.gz", "seg/sub/c.arc", "seg/readme.md"]:
            s3.put_object(Bucket="crawl", Key=key, Body=b"")
        options = {"key": "test", "secret": "test", "client_kwargs": {"endpoint_url": endpoint}}
        got = list_inputs(["s3://crawl/seg/"], storage_options=options)
        assert got == [
            "s3://crawl/seg/a.warc.gz",
            "s3://crawl/seg/b.warc.gz",
            "s3://crawl/seg/sub/c.arc",
        ]
        assert list_inputs(["s3://crawl/seg/*.warc.gz"], storage_options=options) == got[:2]
    finally:
        server.stop()


def test_input_stem_is_readable_deterministic_and_distinct() -> None:
    a = input_stem("/data/x/CC-MAIN-20240101-00000.warc.gz")
    b = input_stem("/data/y/CC-MAIN-20240101-00000.warc.gz")
    assert a.startswith("CC-MAIN-20240101-00000-") and b.startswith("CC-MAIN-20240101-00000-")
    assert a != b and a == input_stem("/data/x/CC-MAIN-20240101-00000.warc.gz")
    assert input_stem("s3://bucket/k/file.ARC.GZ").startswith("file-")


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=0, max_size=400))
def test_input_stem_is_always_safe(path: str) -> None:
    stem = input_stem(path)
    assert "/" not in stem and "\\" not in stem and "\0" not in stem and ".." not in stem
    assert not stem.startswith(".") and 13 < len(stem) <= 93
    assert stem not in (".", "..")


def test_a_symlink_beside_its_target_is_listed_once(tmp_path: Path) -> None:
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    (crawl / "a.warc.gz").write_bytes(b"")
    (crawl / "b-link.warc.gz").symlink_to("a.warc.gz")
    (tmp_path / "crawl-link").symlink_to(crawl, target_is_directory=True)
    expected = [str(crawl / "a.warc.gz")]
    assert list_inputs([str(crawl)]) == expected
    # the first spelling is kept: it names the input's output files
    assert list_inputs([str(crawl / "b-link.warc.gz"), str(crawl)]) == [
        str(crawl / "b-link.warc.gz")
    ]
    assert list_inputs([str(crawl), str(tmp_path / "crawl-link"), str(crawl / "*.gz")]) == expected
    (tmp_path / "list.txt").write_text(
        f"crawl/a.warc.gz\n./crawl/b-link.warc.gz\n{crawl}/a.warc.gz\n"
    )
    assert list_inputs(["@" + str(tmp_path / "list.txt")]) == expected


def test_urls_are_deduplicated_by_what_they_name() -> None:
    assert input_key("S3://bucket/k/x.warc.gz") == input_key("s3://bucket/k/x.warc.gz")
    # keys are compared as written: these are other objects on S3
    assert input_key("s3://bucket/k//x.warc.gz") != input_key("s3://bucket/k/x.warc.gz")
    assert input_key("s3://Bucket/k/x.warc.gz") != input_key("s3://bucket/k/x.warc.gz")
    assert input_key("HTTPS://Data.Commoncrawl.org/crawl-data/./a/../x.warc.gz") == input_key(
        "https://data.commoncrawl.org/crawl-data/x.warc.gz"
    )
    assert input_key("https://h/x.warc.gz?part=1") != input_key("https://h/x.warc.gz?part=2")
    assert input_key("file:///tmp/../tmp/x.warc") == input_key("/tmp/x.warc")


def test_path_list_urls_in_two_spellings_are_read_once(tmp_path: Path) -> None:
    (tmp_path / "warc.paths").write_text(
        "https://data.commoncrawl.org/a/x.warc.gz\nHTTPS://data.commoncrawl.org/a/./x.warc.gz\n"
    )
    assert list_inputs([str(tmp_path / "warc.paths")]) == [
        "https://data.commoncrawl.org/a/x.warc.gz"
    ]


def test_a_gzipped_path_list_is_streamed_with_a_cap(tmp_path: Path) -> None:
    # Issue 48: a 102 KB .paths.gz was inflated whole (1.15 GB in the client). It is read line
    # by line now: one endless line stops at the line cap, with a bounded read.
    import gzip
    import tracemalloc

    bomb = tmp_path / "bomb.paths.gz"
    with gzip.open(bomb, "wb") as f:
        for _ in range(100):
            f.write(b"a" * 1_000_000)  # 100 MB of one line, about 100 KB gzipped
    assert bomb.stat().st_size < 200_000
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match=r"bomb\.paths\.gz:1: a line longer than 65,536"):
            list_inputs([str(bomb)])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 2**20, peak


def test_a_path_list_past_its_caps_names_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.warc import inputs

    listing = tmp_path / "many.paths"
    listing.write_text("".join(f"x/{i}.warc.gz\n" for i in range(20)))
    assert len(list_inputs([str(listing)])) == 20
    monkeypatch.setattr(inputs, "MAX_PATH_LIST_ENTRIES", 10)
    with pytest.raises(InputError, match="more than 10 paths"):
        list_inputs([str(listing)])
    monkeypatch.setattr(inputs, "MAX_PATH_LIST_BYTES", 100)
    with pytest.raises(InputError, match="more than 100 bytes of paths"):
        list_inputs([str(listing)])
    (tmp_path / "latin.paths").write_bytes(b"caf\xe9.warc.gz\n")
    with pytest.raises(InputError, match=r"latin\.paths:1: a line that is not UTF-8"):
        list_inputs([str(tmp_path / "latin.paths")])


def test_dot_segments_of_a_url_are_resolved_as_a_browser_does() -> None:
    assert input_key("https://h.example/../a.warc") == "https://h.example/a.warc"
    assert input_key("https://h.example/a/b/../../c.warc") == "https://h.example/c.warc"
    assert input_key("https://h.example/a/.") == "https://h.example/a/"
    assert input_key("https://h.example/a/b/..") == "https://h.example/a/"
    assert input_key("https://h.example/a/") == "https://h.example/a/"
    assert input_key("https://H.example") == "https://h.example"
    # An empty segment is a name on a web server: kept, as are the query and fragment.
    assert input_key("https://h.example/a//b.warc?x=1#f") == "https://h.example/a//b.warc?x=1#f"


def test_the_stem_is_the_base_name_and_a_hash_of_the_whole_path() -> None:
    import hashlib

    path = "/data/x/My Crawl..part 1.WARC.GZ"
    digest = hashlib.sha1(path.encode()).hexdigest()[:12]
    assert input_stem(path) == f"My_Crawl.part_1-{digest}"
    assert (
        input_stem("/d/" + "a" * 200 + ".arc")
        == "a" * 80 + "-" + hashlib.sha1(("/d/" + "a" * 200 + ".arc").encode()).hexdigest()[:12]
    )
    assert input_stem("/d/..warc.gz").startswith("input-")


def test_a_file_name_that_is_not_utf8_is_shown_escaped_and_found_again() -> None:
    import os

    from pipeline.warc.inputs import display_path, stored_paths

    real = os.fsdecode(b"/d/bad\xff\xfe.warc.gz")
    shown = display_path(real)
    assert shown == "/d/bad\\xff\\xfe.warc.gz"
    assert stored_paths(shown) == [shown, real]
    assert display_path("/d/plain.warc") == "/d/plain.warc"
    assert stored_paths("/d/plain.warc") == ["/d/plain.warc"]
    # A URL's escapes are its own: never turned into bytes.
    assert stored_paths("s3://b/a\\xff.warc.gz") == ["s3://b/a\\xff.warc.gz"]


def test_the_line_cap_of_a_path_list_is_exact(tmp_path: Path) -> None:
    from pipeline.warc.inputs import MAX_PATH_LINE

    name = "x" * (MAX_PATH_LINE - len(".warc\n")) + ".warc"
    (tmp_path / "ok.paths").write_text(f"# a comment\n\n{name}\n")
    assert [p.rsplit("/", 1)[1] for p in list_inputs([str(tmp_path / "ok.paths")])] == [name]
    (tmp_path / "long.paths").write_text(f"# a comment\n\nx{name}\n")
    with pytest.raises(InputError, match=r"long\.paths:3: a line longer than 65,536 bytes"):
        list_inputs([str(tmp_path / "long.paths")])


def test_the_entry_and_byte_caps_of_a_path_list_are_exact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.warc import inputs

    listing = tmp_path / "many.paths"
    listing.write_text("".join(f"x/{i}.warc.gz\n" for i in range(10)))
    size = listing.stat().st_size
    monkeypatch.setattr(inputs, "MAX_PATH_LIST_ENTRIES", 10)
    monkeypatch.setattr(inputs, "MAX_PATH_LIST_BYTES", size)
    assert len(list_inputs([str(listing)])) == 10
    monkeypatch.setattr(inputs, "MAX_PATH_LIST_BYTES", size - 1)
    with pytest.raises(InputError, match=f"more than {size - 1} bytes of paths"):
        list_inputs([str(listing)])
    monkeypatch.setattr(inputs, "MAX_PATH_LIST_BYTES", size)
    monkeypatch.setattr(inputs, "MAX_PATH_LIST_ENTRIES", 9)
    with pytest.raises(InputError, match="more than 9 paths"):
        list_inputs([str(listing)])
