"""Reading WARC and ARC files: the inputs of a run, their records and their HTTP payloads."""
