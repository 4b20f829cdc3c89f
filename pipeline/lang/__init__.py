"""Languages: identification, stoplists, and word counting that works in every script."""
