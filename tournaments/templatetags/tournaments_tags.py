"""Tournament parts of other apps' pages: the profile's list of finished tournaments (the template names the
tag; accounts imports nothing of tournaments)."""

from django import template

from tournaments.selectors import finished_tournaments_of

register = template.Library()


@register.inclusion_tag("tournaments/_profile_tournaments.html")
def profile_tournaments(player):
    return {"played": finished_tournaments_of(user=player)}
