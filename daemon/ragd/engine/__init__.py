"""The daemon's parts assembled: components, loading them, health, `ragd check`. Built from
core, index, ingest and query.
"""
