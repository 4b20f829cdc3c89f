"""The cleaner protocol and registry (`pipeline.cleaners.registry`) and the rule-based cleaners
from the literature: jusText, BTE, the text-density family, Kimatu and the n-gram language
model."""
