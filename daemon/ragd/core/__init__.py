"""Shared facts every layer reads: settings, roots, names, exit codes, logging, the process
environment, systemd notify. Imports no other ragd layer.
"""
