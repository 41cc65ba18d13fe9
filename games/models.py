"""The database truth of live play: tables, their seats, the matches and rounds played there, the move log
and the table chat. Every write goes through ``games.services``; nothing here knows the rules."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.registry import game_choices


class Game:
    """The names of the two games the site ships, for code that means one of them. Which games there are,
    their labels and the fields' choices are the registry's (``games.registry``)."""

    GIN = "gin"
    ROMME = "romme"


class BotLevel(models.TextChoices):
    SIMPLE = "simple", "Anfänger"
    ADVANCED = "advanced", "Fortgeschritten"
    EXPERT = "expert", "Experte"


class Table(models.Model):
    """One table: its options (as the engine normalised them), who may see it, and the state of play.

    ``state`` is the engine's whole match (hidden cards too); it never leaves the server except through
    ``games.reads.presenters``. ``version`` grows by one with every committed change, so clients can tell
    whether they missed something.
    """

    class Status(models.TextChoices):
        OPEN = "open", "offen"
        PLAYING = "playing", "läuft"
        FINISHED = "finished", "beendet"
        ABORTED = "aborted", "abgebrochen"

    game = models.CharField(max_length=10, choices=game_choices)
    preset = models.CharField(max_length=20, blank=True, default="")
    options = models.JSONField(default=dict)
    seat_count = models.PositiveSmallIntegerField()
    ranked = models.BooleanField(default=False)
    private = models.BooleanField(default=False)
    # Made by a tournament (through ``table_create_seated``): the players are given, no chat, no computer
    # players, no rematch (see ``games.services`` table policy).
    tournament = models.BooleanField(default=False)
    # A secret a tournament gives tables that must play the same deals; never shown (see services.deal_rng).
    deal_seed = models.CharField(max_length=64, blank=True, default="")
    # The tables that share deals and stay closed together (a tournament stage; by default all tables given
    # one ``deal_seed``): until every one of them has ended, only staff and the table's own players may watch,
    # and a round's deal is shown only once every table sharing it has finished that round
    # (``games.reads.selectors.deal_rounds_disclosed``). Empty: a table on its own.
    deal_group = models.CharField(max_length=64, blank=True, default="", db_index=True)
    invite_token = models.CharField(max_length=43, blank=True, default="", db_index=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    version = models.PositiveIntegerField(default=0)
    # When the referee must act for a human: the turn time of the seat to act, or the end of the break
    # between rounds. ``bot_due_at`` is when a computer player's next move is due.
    turn_deadline = models.DateTimeField(null=True, blank=True)
    bot_due_at = models.DateTimeField(null=True, blank=True)
    state = models.JSONField(null=True, blank=True)
    current_match = models.ForeignKey(
        "Match", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Of ``current_match``, kept by ``games.services`` with every change so a move reads them with the locked
    # row instead of querying the rounds and the move log: the round in play (or just ended), the last
    # finished one (the frames' ``last_deal``), and how many moves the match has logged (the ``seq`` of its
    # next move). Not indexed: nothing looks a table up by them, and each index costs every move's update.
    current_round = models.ForeignKey(
        "Round", null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_index=False
    )
    last_round = models.ForeignKey(
        "Round", null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_index=False
    )
    moves_logged = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="created_tables"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [
            models.Index(fields=["status", "private", "game", "-created_at"], name="table_lobby_idx"),
            # The referee's due tables (``games.reads.selectors.tables_due``) are found among the playing ones,
            # their clocks compared in the rows: an index of ``turn_deadline`` or ``bot_due_at`` (which change
            # with every move) would make no move's update of the row a HOT update on PostgreSQL (every index
            # of the row given a new entry); ``status`` changes only when a match starts or ends.
            models.Index(fields=["id"], condition=models.Q(status="playing"), name="table_playing_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.get_game_display()} #{self.pk} ({self.get_status_display()})"


class Seat(models.Model):
    """A place at a table, held by a user or by a computer player of a named level."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="seats"
    )
    bot_level = models.CharField(max_length=10, choices=BotLevel.choices, blank=True, default="")
    consecutive_timeouts = models.PositiveSmallIntegerField(default=0)
    # Left the match (resigned or timed out three times); the seat keeps its place in the record.
    left = models.BooleanField(default=False)
    # Ready for the next round (between rounds) or for a rematch (after the match).
    ready = models.BooleanField(default=False)

    class Meta:
        ordering = ["table", "index"]
        constraints = [
            models.UniqueConstraint(fields=["table", "index"], name="seat_unique_index"),
            models.UniqueConstraint(
                fields=["table", "user"], condition=models.Q(user__isnull=False), name="seat_unique_user"
            ),
        ]

    def __str__(self) -> str:
        return f"Platz {self.index} an Tisch {self.table_id}"

    @property
    def is_bot(self) -> bool:
        return bool(self.bot_level)

    @property
    def taken(self) -> bool:
        return self.user_id is not None or self.is_bot


class Match(models.Model):
    """One match (gin) or list (Rommé) at a table; rich enough for a later rating service to consume."""

    class Status(models.TextChoices):
        PLAYING = "playing", "läuft"
        FINISHED = "finished", "beendet"
        ABORTED = "aborted", "abgebrochen"

    class Ending(models.TextChoices):
        """How a match ended, as the end-of-match announcement carries it."""

        FINISHED = "finished", "zu Ende gespielt"
        RESIGNED = "resigned", "aufgegeben"
        TIMEOUTS = "timeouts", "Zeit dreimal abgelaufen"
        ABORTED = "aborted", "abgebrochen"

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="matches")
    number = models.PositiveIntegerField(default=1)
    game = models.CharField(max_length=10, choices=game_choices)
    options = models.JSONField(default=dict)
    ranked = models.BooleanField(default=False)
    # Seat order: [{"seat": 0, "user_id": 7, "name": "anna", "bot": ""}, ...]
    players = models.JSONField(default=list)
    users = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="matches", blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    final_scores = models.JSONField(null=True, blank=True)
    winner_seat = models.SmallIntegerField(null=True, blank=True)
    winner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="won_matches"
    )
    # Seats that left (resign or three timeouts), for ratings and the Rommé Abbruch.
    left_seats = models.JSONField(default=list)
    # Seats that asked to call the match off before its first move, at a casual table whose creator has not
    # agreed yet (``games.services.match_abort``): shown at the table until the creator or everyone agrees.
    abort_votes = models.JSONField(default=list, blank=True)
    ending = models.CharField(max_length=10, choices=Ending.choices, blank=True, default="")
    # Set once every listener of ``games.signals.match_ended`` has run without error; an ended match
    # without it is what the catch-up command (``manage.py matches_ended``) announces again.
    announced_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at"]
        constraints = [models.UniqueConstraint(fields=["table", "number"], name="match_unique_number")]
        indexes = [
            models.Index(fields=["status", "-finished_at"], name="match_history_idx"),
            models.Index(fields=["-started_at"], name="match_started_idx"),
            models.Index(fields=["finished_at"], condition=models.Q(announced_at__isnull=True),
                         name="match_unannounced_idx"),
        ]

    def __str__(self) -> str:
        return f"Partie {self.number} an Tisch {self.table_id}"


class Round(models.Model):
    """One round of a match: the hash of its deal from the start, and once it ends its record and result.

    ``deal`` is kept from the start (it is what the hash covers) but is published only once
    ``finished_at`` is set; the presenter enforces that.
    """

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveIntegerField()
    deal_hash = models.CharField(max_length=64)
    deal = models.JSONField(null=True, blank=True)
    record = models.JSONField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["match", "number"]
        constraints = [models.UniqueConstraint(fields=["match", "number"], name="round_unique_number")]

    def __str__(self) -> str:
        return f"Runde {self.number} von {self.match}"


class Move(models.Model):
    """The move log: every action applied to a table, by whom and at which table version."""

    class By(models.TextChoices):
        PLAYER = "player", "Spieler"
        BOT = "bot", "Computer"
        TIMEOUT = "timeout", "Zeitablauf"
        RESIGN = "resign", "Aufgabe"

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="moves")
    # Not indexed on its own: ``move_unique_seq`` (match, seq) serves every look-up by match, and each index
    # of the log is one more entry written with every move.
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="moves", db_index=False)
    round_number = models.PositiveIntegerField()
    seq = models.PositiveIntegerField()
    seat = models.SmallIntegerField(null=True, blank=True)
    action = models.JSONField()
    by = models.CharField(max_length=10, choices=By.choices, default=By.PLAYER)
    version = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["match", "seq"]
        constraints = [models.UniqueConstraint(fields=["match", "seq"], name="move_unique_seq")]

    def __str__(self) -> str:
        return f"Zug {self.seq} ({self.action.get('action')}) in {self.match}"


class ChatMessage(models.Model):
    """A line of table chat; stored as typed, escaped by whoever renders it."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="chat_messages")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_messages")
    text = models.CharField(max_length=300)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table", "created_at"]
        indexes = [
            models.Index(fields=["table", "-created_at"], name="chat_table_idx"),
            models.Index(fields=["user", "-created_at"], name="chat_user_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.user} an Tisch {self.table_id}: {self.text[:30]}"


class MatchAnalysis(models.Model):
    """The analysis of a finished match (``games.analysis``), computed once after it ended: per decision of a
    person the expert's move and the estimated cost of the move made, the costliest moments and each person's
    accuracy. ``error`` says why a match has none (its analysis failed); the row then stops the clock from
    trying again."""

    match = models.OneToOneField(Match, on_delete=models.CASCADE, primary_key=True, related_name="analysis")
    data = models.JSONField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True, default="")
    computed_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Analyse von {self.match}"
