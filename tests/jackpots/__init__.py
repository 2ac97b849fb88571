"""Jackpot pool service tests: both backends, a real redis-server (pytest-redis)."""
