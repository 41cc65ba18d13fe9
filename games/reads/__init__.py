"""Everything that reads: selectors, the presenters (the one place hidden cards are filtered), the
policy of who may see what, the match pages' reads, history, replay and the signed records."""
