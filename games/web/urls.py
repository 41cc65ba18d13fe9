"""URLs of live play under /spielen/: the lobby, creating and joining tables, the table page, records."""

from django.urls import path

from games.web import views

app_name = "games"
urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("tische/", views.lobby_tables, name="lobby_tables"),
    path("neu/", views.table_create, name="create"),
    path("schnellspiel/<str:game>/", views.quick_game, name="quick"),
    path("tisch/<int:table_id>/", views.table_detail, name="table"),
    path("tisch/<int:table_id>/setzen/", views.table_join, name="join"),
    path("tisch/<int:table_id>/aufstehen/", views.table_leave, name="leave"),
    path("tisch/<int:table_id>/computer/", views.table_bots, name="bots"),
    path("tisch/<int:table_id>/partie.json", views.match_record, name="record"),
]
