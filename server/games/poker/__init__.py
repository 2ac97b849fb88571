"""Player-vs-player poker: one engine, a rule set per game."""
