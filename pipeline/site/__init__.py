"""The site stage: what one page cannot tell, seen across the pages of a whole output.

A per-page cleaner keeps, on many pages of a site, the same "related stories" box, newsletter
notice or copyright line. After the cleaning pass the site stage counts, for every block of every
document in the output, how many distinct documents of the block's site hold the same normalized
text (`pipeline.site.keys`), stores that count on the block (``site_pages``), labels the kept
blocks seen on at least K pages ``repeat`` (`pipeline.site.rule`), rebuilds the text and Markdown
of the documents it changed from their stored blocks with the one renderer
(`pipeline.site.rebuild`), and marks exact duplicate documents (``duplicate_of``).

This package holds the logic, per file and per partition (`pipeline.site.files`), the whole
stage in one process for an output small enough (`pipeline.site.gathered`), and the safe
publication of a stage's files (`pipeline.site.commit`); it never imports Dask. The Dask job
that shuffles the keys across workers is `pipeline.job.site_stage`.
"""
