"""Progressive jackpot pools: in-memory and Redis backends."""
