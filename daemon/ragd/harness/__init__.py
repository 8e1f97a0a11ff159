"""Eval and bench harnesses: in-process indexes, private daemons, the gate's cross-corpus
evaluation. Used by `ragd eval`, bench/ and tests; nothing in the daemon imports them.
"""
