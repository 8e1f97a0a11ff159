"""One module per bench section, each returning that section's results as a dict:
(a) cli, (b) freshness, (c) ingest, (d) incremental, (e) memory, (f) search, (g) precision."""
