"""Command-line entry points: ``warcclean`` (clean, eval) and ``dask submit``.

Commands are thin: each parses options and calls the library; nothing here decides anything a
library caller could not decide the same way.
"""

from __future__ import annotations

import click


@click.group()
@click.version_option(package_name="warcclean")
def main() -> None:
    """warcclean: clean web pages and WARC crawls into a labelled text corpus."""


# The commands below are defined by their owners' modules:
#   clean  -> this file (debug one page)
#   eval   -> pipeline.evaluate
#   submit -> this file (the `dask submit` entry point)
