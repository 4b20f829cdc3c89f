"""Scoring cleaners against labelled dev sets, and aligning blocks with reference text."""
