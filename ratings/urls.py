"""URLs of ranked play: the leaderboards (mounted at /bestenliste/, names without a namespace so the site's
navigation keeps ``{% url 'leaderboard' %}``) and the pool's endpoints (``pool_patterns``, mounted at
/spielen/gewertet/ under the namespace ``pool``), with the seats' Wertungszahl for the lobby and for one
ranked table's page."""

from django.urls import path

from ratings import views

urlpatterns = [
    path("", views.leaderboard, name="leaderboard"),
    path("<str:game>/", views.leaderboard, name="leaderboard_game"),
]

pool_patterns = [
    path("status.json", views.pool_status, name="status"),
    path("panel/", views.pool_panel, name="panel"),
    path("wertungszahlen.json", views.seat_ratings, name="seat_ratings"),
    path("tisch/<int:table_id>/wertungszahlen.json", views.table_ratings, name="table_ratings"),
    path("verlassen/", views.pool_leave, name="leave"),
    path("<str:game>/", views.pool_join, name="join"),
]
