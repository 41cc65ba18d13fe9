"""Tournament parts of other apps' pages: the profile's list of finished tournaments (the template names the
tag; accounts imports nothing of tournaments)."""

from django import template

from tournaments.selectors import finished_tournaments_of

register = template.Library()


@register.inclusion_tag("tournaments/_profile_tournaments.html")
def profile_tournaments(player):
    return {"played": finished_tournaments_of(user=player)}


@register.filter
def stage_now(tournament) -> str:
    """The stage a running tournament is at, in its format's words ("Runde 2", a Rommé series "Serie 2")."""
    from tournaments import formats

    return formats.of(tournament).stage_label(tournament.current_stage)


@register.filter
def format_label(tournament) -> str:
    """What pages call the tournament's format, in the page's language (its class's label, from the registry)."""
    from tournaments import formats

    return formats.label_of(tournament.format)
