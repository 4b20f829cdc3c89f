"""docker/: the compose file's commands, run as plain processes on 127.0.0.1 (no Docker here).

The scheduler, ``replicas`` workers and the job service's command line are taken from
docker/compose.yaml, with only the container-specific parts replaced: the ``scheduler`` host name
and ports, the ``/data`` mounts, and ``dask`` by this interpreter's ``dask`` script.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.jobhelpers import DASK, REPO, dask_cluster, make_inputs, rows

DOCKER = REPO / "docker"
pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((DOCKER / "compose.yaml").read_text())


def test_dockerfile_shape() -> None:
    text = (DOCKER / "Dockerfile").read_text()
    # A build stage with a compiler makes the wheel (compiled walk); the runtime stage installs it.
    stages = re.findall(r"^FROM (\S+)(?: AS (\S+))?$", text, re.M)
    assert stages == [("python:3.11-slim", "build"), ("python:3.11-slim", "")]
    assert re.search(r"apt-get install .*\bgcc\b", text)
    assert re.search(r"^RUN pip wheel .*--wheel-dir /wheels \.", text, re.M)
    # The build stage refuses a wheel without every compiled module (tests/test_build.py runs
    # the check on real wheels).
    assert re.search(r"&& python docker/check_wheel\.py /wheels/warcclean-\*\.whl$", text, re.M)
    assert re.search(
        r'^RUN pip install "\$\(ls /wheels/warcclean-\*\.whl\)\[s3,report\]"', text, re.M
    )
    # One BLAS thread everywhere in the image, workers without a nanny included.
    from pipeline.threads import BLAS_THREAD_VARIABLES

    assert all(re.search(rf"\b{name}=1\b", text) for name in BLAS_THREAD_VARIABLES)
    # Dask's profiler off in every worker of the image (python/cpython#106883 on 3.11), by the
    # variable Dask reads for that key.
    from pipeline.job.schedule import _env_name

    assert re.search(rf"\b{_env_name('distributed.worker.profile.enabled')}=False\b", text)
    # Arrow's allocator without transparent huge pages, as the job's own clusters start workers.
    from pipeline.job.schedule import LOCAL_CLUSTER_CONFIG

    assert LOCAL_CLUSTER_CONFIG["distributed.nanny.pre-spawn-environ.MIMALLOC_ALLOW_THP"] == "0"
    assert re.search(r"\bMIMALLOC_ALLOW_THP=0\b", text)
    # The language profiles are built into the image's cache, before the unprivileged user.
    cache_dir = re.search(r"^ENV WARCCLEAN_CACHE_DIR=(\S+)$", text, re.M)
    prebuild = text.find('RUN python -c "from pipeline.lang.profiles import model; model()"')
    assert cache_dir and 0 < cache_dir.start() < prebuild < text.rfind("USER ")
    users = re.findall(r"^USER (\S+)$", text, re.M)
    assert users and users[-1] not in {"root", "0"}
    for line in re.findall(r"^COPY (?!--from)(.+)$", text, re.M):
        for copied in line.split()[:-1]:
            assert (REPO / copied).exists(), copied


def test_compose_services(compose: dict) -> None:
    services = compose["services"]
    assert set(services) >= {"scheduler", "worker", "job"}
    assert services["scheduler"]["command"][:2] == ["dask", "scheduler"]
    worker = services["worker"]["command"]
    assert worker[:3] == ["dask", "worker", "tcp://scheduler:8786"]
    assert worker[worker.index("--nthreads") + 1] == "1"
    assert worker[worker.index("--memory-limit") + 1] == "4GiB"
    assert services["worker"]["deploy"]["replicas"] >= 2
    job = services["job"]["command"]
    assert job[:3] == ["dask", "submit", "jobs/clean_warcs.py"]
    assert job[job.index("--scheduler") + 1] == "tcp://scheduler:8786"
    # "${WARC_IN:-../data/in}:/data/in:ro" -> "/data/in"
    mounts = {re.search(r"}:(/[^:]+)", v).group(1) for v in services["job"]["volumes"]}
    assert mounts == {"/data/in", "/data/out"}
    assert services["worker"]["volumes"] == services["job"]["volumes"]


def _localize(cmd: list[str], data: Path) -> list[str]:
    """Container names to local ones; ``{port}`` is filled in by `dask_cluster`."""
    out = []
    for arg in cmd:
        arg = arg.replace("tcp://scheduler:8786", "tcp://127.0.0.1:{port}")
        arg = arg.replace("/data/", f"{data}/")
        out.append(arg)
    if out[0] == "dask":
        out[0] = DASK
    return out


def test_compose_commands_run_as_processes(compose: dict, tmp_path: Path) -> None:
    services = compose["services"]
    make_inputs(tmp_path / "data" / "in", n=4)
    sched = _localize(services["scheduler"]["command"], tmp_path / "data")
    sched = [a if a != "0.0.0.0" else "127.0.0.1" for a in sched]
    sched[sched.index("--port") + 1] = "{port}"
    del sched[sched.index("--dashboard-address") : sched.index("--dashboard-address") + 2]
    worker = _localize(services["worker"]["command"], tmp_path / "data")
    replicas = services["worker"]["deploy"]["replicas"]
    job = _localize(services["job"]["command"], tmp_path / "data")

    with dask_cluster(tmp_path / "logs", sched, [worker] * replicas) as address:
        job[job.index("--scheduler") + 1] = address
        proc = subprocess.run(
            [*job, "--no-progress"],
            capture_output=True,
            text=True,
            timeout=240,
            cwd=REPO,
            check=False,
        )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = tmp_path / "data" / "out"
    assert len(list((out / "_done").iterdir())) == 4
    assert len(rows(out)) == sum(i + 2 for i in range(4))
