"""Template tags the games app offers other apps' pages: the match history on a profile page.

The profile page belongs to ``accounts``, which imports no other app of the site; the history is the games
app's, so the page only loads this tag and the games side reads and renders the matches.
"""

from __future__ import annotations

from django import template

from games.reads.history import matches_for_user

register = template.Library()


@register.inclusion_tag("games/_match_history.html")
def match_history(player, viewer=None, limit: int = 20) -> dict:
    """The card of ``player``'s finished matches, as ``viewer`` (the signed-in user or anonymous) may see them:
    ``{% load games_history %}{% match_history player viewer=request.user %}``."""
    own = viewer is not None and getattr(viewer, "is_authenticated", False) and viewer.pk == player.pk
    return {"history": matches_for_user(user=player, viewer=viewer, limit=limit), "is_own": own}
