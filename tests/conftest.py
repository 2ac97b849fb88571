"""Shared fixtures. Servers started by tests listen on 127.0.0.1 only."""
