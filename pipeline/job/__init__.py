"""The Dask job: clean many WARC files into one output, on a local or remote cluster.

The job's command (`pipeline.job.command`) is installed as ``warcclean run`` and is also what
``jobs/clean_warcs.py`` runs (``dask submit jobs/clean_warcs.py``): one set of options, one code
path. `pipeline.job.schedule` starts or connects to the cluster and keeps a window of one task per
input in flight; `pipeline.job.reports` writes what the run did; `pipeline.job.workers` sets up
each worker process. Besides `pipeline.cli`, this is the only part of the library that imports
Dask: all cleaning and writing happens in `pipeline.run`, on the workers.
"""

# The click context object of a process that is the job's own (``warcclean run``, ``python
# jobs/clean_warcs.py``, ``dask submit``), not a program or test that calls the command: only
# then may the job settle pyarrow's pandas probe (`pipeline.output.arrow.skip_pandas_probe`).
OWN_PROCESS = "warcclean-own-process"
