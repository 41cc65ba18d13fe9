"""High card: a third game that lives only in the test suite, to prove that a game is one engine and one
registry entry (``games.registry``): nothing outside this package names it."""
