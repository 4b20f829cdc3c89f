"""Seeing what a run did: the HTML run report (`run_report`) and the page viewer (`page_view`)."""
