"""PAR sheets: every wager's return to player, computed by the engines themselves (issue 26).

    croupier par GAME [--option KEY=VALUE ...] [--json] [--rounds N] [--seed S] [--procs P]

A PAR sheet lists, for every wager of a game, the probability of each result, what it pays,
the return to player (RTP), the house edge, the hit frequency and the volatility. Nothing in
this package knows a pay table or a settlement rule: every payout is the net an engine
settles for a round whose outcome was forced (the scenario entry points, SCENARIOS.md), and
every probability is either counted exactly (:mod:`.exact`, :mod:`.craps`, :mod:`.cards`)
or estimated by playing the engines with a seeded random source in parallel processes
(:mod:`.sim`), with a 95% interval.

* :mod:`.model` - the sheet (JSON form, stable), built from exact distributions or tallies;
* :mod:`.exact` - the shared-outcome games (roulette, sic-bo, wheel of fortune);
* :mod:`.craps` - craps, every wager's decision cycle solved as an absorbing Markov chain
  over the engine's layouts;
* :mod:`.cards` - baccarat, lucky draw baccarat, casino war, three and four card poker by
  card composition;
* :mod:`.sim` and :mod:`.players` - the simulated games and the strategies played;
* :mod:`.blackjack` - the blackjack family's basic strategy (an infinite-deck solver that
  asks the variant's rule set what is allowed and paid) and its house edge;
* :mod:`.jackpot` - the jackpot wagers' RTP under each regime;
* :mod:`.commission` - p2p poker: the expected commission per hand;
* :mod:`.published` - the published figures each sheet is compared with;
* :mod:`.markdown` and :mod:`.cli` - the Markdown sheets (``docs/par/``) and the command.
"""
