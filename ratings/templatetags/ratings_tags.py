"""Ratings on other apps' pages without their Python importing this app: the profile's rating panels
(Wertungszahl, its history as an inline SVG chart, rated matches, wins, the game's statistics, recent rated
matches), the head-to-head form, and a Wertungszahl badge.

``{% load ratings_tags %}`` then ``{% rating_panels player viewer %}`` and ``{% rating_badge user "gin" %}``.
"""

from __future__ import annotations

from django import template
from django.utils.html import format_html

from ratings import profile_selectors
from ratings.selectors import rating_of

register = template.Library()

#: The chart's drawing area (SVG user units; the SVG scales to its box), a margin on the left for the labels.
CHART_WIDTH = 320
CHART_HEIGHT = 120
CHART_PAD = 10
CHART_LEFT = 40


def chart_points(values: list[int], *, width: int = CHART_WIDTH, height: int = CHART_HEIGHT,
                 pad: int = CHART_PAD, left: int = CHART_LEFT) -> str:
    """The ``points`` of an SVG polyline through ``values``, left to right, higher values higher up.

    >>> chart_points([1500, 1520, 1510], width=120, height=60, pad=10, left=10)
    '10,50 60,10 110,30'
    """
    if len(values) < 2:
        return ""
    low, high = min(values), max(values)
    span_x = (width - left - pad) / (len(values) - 1)
    span_y = (height - 2 * pad) / (high - low) if high != low else 0

    def fmt(number: float) -> str:
        text = f"{number:.1f}"
        return text[:-2] if text.endswith(".0") else text

    points = []
    for i, value in enumerate(values):
        x = left + i * span_x
        y = pad + (high - value) * span_y if span_y else height / 2
        points.append(f"{fmt(x)},{fmt(y)}")
    return " ".join(points)


@register.inclusion_tag("ratings/_profile_ratings.html")
def rating_panels(player, viewer=None):
    """Per game: the Wertungszahl (with "?" while provisional) and its history, rated matches, wins, the
    game's own statistics and the latest rated matches with their changes; then the head-to-head form.
    A fixed number of queries (``profile_selectors.player_panels``)."""
    panels = profile_selectors.player_panels(user=player, viewer=viewer)
    charts = {
        panel.game: {
            "points": chart_points(panel.history),
            "low": min(panel.history) if panel.history else None,
            "high": max(panel.history) if panel.history else None,
        }
        for panel in panels
    }
    return {
        "panels": [(panel, charts[panel.game]) for panel in panels],
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
        "pad": CHART_PAD,
        "left": CHART_LEFT,
        "bottom": CHART_HEIGHT - CHART_PAD,
        "right": CHART_WIDTH - CHART_PAD,
        "player": player,
        "viewer": viewer,
    }


@register.simple_tag
def rating_badge(user, game: str):
    """``user``'s Wertungszahl in ``game``, with "?" while provisional (one query)."""
    rating = rating_of(user=user, game=game)
    text = f"{rating.display}?" if rating.provisional else str(rating.display)
    return format_html('<span class="rating-badge" data-game="{}">{}</span>', game, text)
