"""URLs of the pages about played matches, under /partie/ (``games.web.match_views``)."""

from django.urls import path

from games.web import match_views as views

app_name = "matches"
urlpatterns = [
    path("<int:match_id>/", views.match_detail, name="detail"),
    path("<int:match_id>/partie.json", views.match_record, name="record"),
    path("tisch/<int:table_id>/", views.table_last_match, name="table_last"),
    path("ansehen/", views.record_view, name="view_record"),
    path("schluessel/", views.signing_key, name="signing_key"),
    path("vergleich/", views.compare_form, name="compare_form"),
    path("vergleich/<str:user_a>/<str:user_b>/", views.compare, name="compare"),
]
