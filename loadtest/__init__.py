"""The site's load test (``make loadtest``): scripted, signed-in players over real WebSockets against the site,
and the same clients against the bare stack in ``../shared/stackbench/`` in the same run, so the figure that
counts is the ratio. See docs/scale.md.

- ``loadtest.players``: the clients (a gin table of two people playing random legal moves from their own
  ``state`` frames; a bare-stack table as ``stackbench/load.py`` drives it) and the figures.
- ``loadtest.servers``: starting and stopping the stacks (databases, daphne processes, referee) on 127.0.0.1.
- ``loadtest.site``: what runs inside Django: creating the players, sessions and tables; checking the move log.
- ``loadtest.__main__``: the command line.
"""
