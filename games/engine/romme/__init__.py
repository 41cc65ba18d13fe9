"""Rommé: melds and the solver, the round state machine, scoring, the match interface, bots and replay."""
