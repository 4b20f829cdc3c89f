"""Clean WARC files into a partitioned Parquet corpus on a Dask cluster.

    dask submit jobs/clean_warcs.py INPUT... --output OUT [--scheduler tcp://host:8786]
    python jobs/clean_warcs.py INPUT... --output OUT
    warcclean run INPUT... --output OUT              # the same job, installed with the package

One task per input WARC (`pipeline.run.process_warc`; on worker processes it runs in a
supervised child that holds each page to its time cap, `pipeline.supervise`); inputs that
already have a completion marker are skipped, so re-running the same command resumes. The job
itself lives in the library (`pipeline.job`), so that a ``pip install`` without a clone runs it
too: this script only starts it.
"""

from pipeline.job.command import run_as_program

# Each worker process of a local cluster imports this script again (multiprocessing's spawn
# loads the main script): it must do nothing but this import then.
if __name__ == "__main__":
    run_as_program()
