"""Progressive jackpot pools: the pool model, the service interface and its two stores
(in memory, Redis). The regimes' prize arithmetic is :mod:`server.games.banked.jackpot_regimes`."""
