"""Thin reference clients: Python library, terminal client, browser page."""
