"""Profile pages under /profil/ (the sign-in pages themselves are allauth's, under /accounts/)."""

from django.urls import path

from accounts import views

app_name = "accounts"
urlpatterns = [
    path("", views.profile_own, name="profile"),
    path("bearbeiten/", views.profile_edit, name="edit"),
    path("loeschen/", views.profile_delete, name="delete"),
    path("spieler/<str:username>/", views.profile_public, name="public"),
]
