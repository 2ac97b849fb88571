"""Hand evaluation for every ranking the rulebooks define."""
