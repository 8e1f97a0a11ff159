"""The ZeroMQ front door: server loop, route table, request handlers and argument checks. Reads
the engine's parts.
"""
