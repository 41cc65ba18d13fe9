"""The engine's errors, split by cause; all are ``ValueError`` so callers may catch them together."""


class InvalidCard(ValueError):
    """A card code that is not a card of the game (``"1H"``, ``"XS"``, a joker in gin)."""


class IllegalAction(ValueError):
    """A well-formed action that the rules do not allow now (out of turn, a card not held, over the limit)."""


class InvalidRecord(ValueError):
    """A game record that cannot be replayed. Names the round (1-based), the move index (0-based) and why."""

    def __init__(self, reason: str, *, round_number: int | None = None, move_index: int | None = None):
        self.reason = reason
        self.round_number = round_number
        self.move_index = move_index
        where = []
        if round_number is not None:
            where.append(f"round {round_number}")
        if move_index is not None:
            where.append(f"move {move_index}")
        super().__init__(f"{', '.join(where)}: {reason}" if where else reason)


class RecordsLeftOut(ValueError):
    """A record asked of a match state stored without it (``to_json(keep_records=n)`` keeps only the last n
    finished rounds' records): the whole record is not in that state, and a partial one would be wrong."""
