"""The page rules that correct the learned model's labels on one page: guards that drop what the
model kept (markup, media files' addresses, JavaScript notices, consent and closed dialogs,
filter panels, link-heavy pages, link and teaser lists) and rescues that keep what it dropped (a
standfirst, code between content, the title heading), and the comment section's own label.
`pipeline.rules.sequence` runs them in order."""
