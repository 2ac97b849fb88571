"""Table actors: one trio task per table, seats, timers, views."""
