"""S3 in and out, against moto's S3 server on 127.0.0.1 (s3fs with an endpoint_url)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.job import reports, schedule
from pipeline.jobconfig import JobConfig, freeze
from pipeline.warc import inputs
from tests.jobhelpers import make_inputs, rows
from tests.warc_builders import first_record_at

moto_server = pytest.importorskip("moto.server")
s3fs = pytest.importorskip("s3fs")
pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def endpoint():
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0)
    server.start()
    try:
        host, port = server.get_host_and_port()
        yield f"http://{host}:{port}"
    finally:
        server.stop()


@pytest.fixture
def s3(endpoint: str, monkeypatch: pytest.MonkeyPatch):
    # moto accepts any credentials; set them so no real AWS configuration is consulted.
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    fs = s3fs.S3FileSystem(
        key="testing",
        secret="testing",
        client_kwargs={"endpoint_url": endpoint},
        skip_instance_cache=True,
    )
    for bucket in ("warcs", "corpus"):
        if not fs.exists(bucket):
            fs.mkdir(bucket)
    yield fs
    for bucket in ("warcs", "corpus"):
        fs.rm(bucket, recursive=True)


def test_s3_in_and_out_match_local(tmp_path: Path, s3, endpoint: str) -> None:
    from distributed import Client, LocalCluster

    local_inputs = make_inputs(tmp_path / "in", n=3)
    for path in local_inputs:
        s3.put(path, f"warcs/crawl/{Path(path).name}")
    storage = freeze(
        {"key": "testing", "secret": "testing", "client_kwargs": {"endpoint_url": endpoint}}
    )
    cfg = JobConfig(output="s3://corpus/out", storage_options=storage, batch_rows=2)
    s3_inputs = inputs.list_inputs(["s3://warcs/crawl/"], storage_options=cfg.storage_dict)
    assert len(s3_inputs) == 3
    with (
        LocalCluster(
            processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        result = schedule.run_job(client, s3_inputs, cfg)
        local = schedule.run_job(client, local_inputs, JobConfig(output=str(tmp_path / "out")))
        assert not result.failed and not local.failed
        keys = s3.find("corpus/out")
        assert sum(k.endswith(".parquet") and "/docs/" in k for k in keys) >= 3
        assert sum("/_done/" in k for k in keys) == 3
        assert not [k for k in keys if k.endswith(".tmp")]
        assert rows("corpus/out", drop=("warc_path",), filesystem=s3) == rows(
            tmp_path / "out", drop=("warc_path",)
        )
        # offsets are positions in the stored objects: a range read returns the record
        import pyarrow.dataset as ds

        doc = ds.dataset("corpus/out/docs", filesystem=s3, partitioning="hive").head(1)
        row = doc.to_pylist()[0]
        assert row["warc_path"].startswith("s3://warcs/crawl/")
        assert isinstance(row["markdown"], str) and row["markdown"]  # --formats both
        assert row["structure"] == []  # plain articles: no code, table or math
        start, length = row["warc_offset"], row["warc_length"]
        piece = s3.cat_file(row["warc_path"], start=start, end=start + length)
        rid, uri, _ = first_record_at(piece, 0, length)
        assert (rid, uri) == (row["record_id"], row["url"])
        assert result.reports[0].files[0].startswith("s3://corpus/out/")
        # a second run finds every marker on S3 and does nothing
        again = schedule.run_job(client, s3_inputs, cfg)
        assert again.reports == [] and len(again.skipped) == 3
        # The site stage on S3 (staged keys, journal, server-side copies) gives the local rows.
        from pipeline.job.site_stage import run_site_stage
        from pipeline.site.rule import SiteSettings

        on_s3 = run_site_stage(client, cfg.output, SiteSettings(), storage_options=cfg.storage_dict)
        run_site_stage(client, str(tmp_path / "out"), SiteSettings())
        assert on_s3.skipped is None and on_s3.files >= 3
        s3.invalidate_cache()  # the objects were replaced under this client's listing
        keys = s3.find("corpus/out")
        assert "corpus/out/_site/state.json" in keys
        assert not [k for k in keys if "/_site/staging/" in k or k.endswith("journal.json")]
        assert rows("corpus/out", drop=("warc_path",), filesystem=s3) == rows(
            tmp_path / "out", drop=("warc_path",)
        )
    run_report = reports.run_report(result, cfg, "2024-01-01T00:00:00Z")
    where = reports.write_run_report(run_report, cfg, None)
    assert s3.exists(where.removeprefix("s3://"))
