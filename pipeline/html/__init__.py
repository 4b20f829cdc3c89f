"""From a page's bytes to its blocks: decoding, the guards, parsing and segmentation, and the
cues the markup gives about each block and about the page."""
