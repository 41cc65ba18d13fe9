"""Benchmarks: the meld solvers, self-play speed and the bots' strength (`make bench`)."""
