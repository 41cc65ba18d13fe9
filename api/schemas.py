"""The response shapes of the public API (pydantic, through django-ninja): the OpenAPI schema is made from
these, and every response is validated against its declared one."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ninja import Schema
from pydantic import Field


class Error(Schema):
    detail: str


class Invalid(Schema):
    """A parameter that is not what the schema says (422): where and why, per parameter."""

    detail: list[dict[str, Any]]


class PlayerRef(Schema):
    """A person as the API names them: the public name; the user name (for the player URLs) only while the
    account is active (a deleted or deactivated account has no public page, and a deleted one no name)."""

    username: str | None = Field(description="for /api/v1/players/{username}/...; null for a closed account")
    name: str = Field(description="the public display name")


class LeaderboardRow(Schema):
    place: int
    player: PlayerRef
    wertungszahl: int = Field(description="the rating: round(1500 + 60 × (μ − 25))")
    matches: int = Field(description="rated matches (gin) or lists (Rommé) of this game")
    win_share: float = Field(description="share of matches won (Rommé: lists won, shared first places included), 0–1")
    change_7d: int = Field(description="Wertungszahl now minus before the first rated match of the last 7 days")


class Leaderboard(Schema):
    game: str
    page: int
    per_page: int
    next_page: int | None = Field(description="the page after this one; null: this is the last")
    rows: list[LeaderboardRow]


class Fact(Schema):
    slug: str
    label: str
    value: str


class GameProfile(Schema):
    game: str
    label: str
    wertungszahl: int | None = Field(description="null: never rated in this game")
    provisional: bool = Field(description="fewer than 10 rated matches: shown with '?' on the site")
    rated_matches: int
    matches: int = Field(description="finished public matches of this game, rated or not")
    facts: list[Fact] = Field(description="the game's own statistics, as the profile page shows them")


class Profile(Schema):
    username: str
    name: str
    games: list[GameProfile]


class RatingPoint(Schema):
    match_id: int
    at: datetime
    before: int
    after: int
    left: bool = Field(description="the player left this match (resigned or timed out three times)")


class RatingHistory(Schema):
    game: str
    username: str
    points: list[RatingPoint] = Field(description="every change, oldest first")


class Opponent(Schema):
    name: str = Field(description="public name; empty for a computer player")
    bot_level: str = Field(description="'simple' | 'expert' for a computer player, else empty")
    username: str | None = Field(description="null for a computer player or a closed account")


class MatchEntry(Schema):
    match_id: int
    game: str
    finished_at: datetime
    ranked: bool
    seats: int
    seat: int
    outcome: str = Field(description="won | lost | drawn | left")
    place: int | None
    score: int | None
    score_kind: str = Field(description="points (gin) | minus (Rommé casual) | result (Masters scoring)")
    opponents: list[Opponent]
    record_url: str = Field(description="the signed record: /api/v1/matches/{match_id}")


class MatchPage(Schema):
    items: list[MatchEntry]
    next_cursor: str | None = Field(description="pass as ?cursor= for the next page; null on the last")


class Signature(Schema):
    algorithm: str
    key_id: str
    public_key: str
    value: str


class Record(Schema):
    """A signed game record (spec records.md): exactly the site's download. Fields beyond these are kept."""

    model_config = {"extra": "allow"}

    game: str
    options: dict[str, Any]
    players: list[str]
    player_ids: list[int | None]
    signed_at: str
    rounds: list[dict[str, Any]]
    signature: Signature


class PublicKey(Schema):
    algorithm: str
    key_id: str
    hex: str = Field(description="the 32 raw public key bytes, hex")
    pem: str = Field(description="SubjectPublicKeyInfo PEM, for openssl")


class Keys(Schema):
    current: PublicKey
    retired: list[PublicKey] = Field(description="earlier keys: records they signed still hold")
    signed_bytes: str = Field(description="what a signature covers")


class TournamentSummary(Schema):
    id: int
    name: str
    game: str
    format: str
    status: str
    starts_at: datetime | None
    started_at: datetime | None
    finished_at: datetime | None


class Tournaments(Schema):
    upcoming: list[TournamentSummary]
    running: list[TournamentSummary]
    finished: list[TournamentSummary]


class StandingRow(Schema):
    model_config = {"extra": "allow"}

    place: int | None
    player: PlayerRef


class StageTable(Schema):
    number: int
    table_id: int | None = Field(description="null for a bye")
    players: list[PlayerRef | None] = Field(description="per seat; null for a bye's empty seat")
    finished: bool
    record_url: str | None = Field(description="the signed record of its match, once it is public")


class Stage(Schema):
    number: int
    label: str
    started_at: datetime
    finished_at: datetime | None
    tables: list[StageTable] = Field(description="the pairings (gin) or seatings (Rommé) of the stage")


class Tournament(TournamentSummary):
    settings: dict[str, Any]
    options: dict[str, Any]
    current_stage: int
    participants: list[PlayerRef]
    standings: list[StandingRow] = Field(description="best first, the format's own columns beside place")
    stages: list[Stage]
    bracket: list[dict[str, Any]] | None = Field(
        description="a knockout's bracket round by round (players with scores, who won, the table), else null")


class LobbySeat(Schema):
    index: int
    name: str
    bot: str


class LobbyTable(Schema):
    model_config = {"extra": "allow"}

    id: int
    game: str
    free_seats: int
    seats: list[LobbySeat]
