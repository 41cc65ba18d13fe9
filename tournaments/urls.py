from django.urls import path

from tournaments import views

app_name = "tournaments"
urlpatterns = [
    path("", views.tournament_list, name="list"),
    path("<int:tournament_id>/", views.tournament_detail, name="detail"),
    path("<int:tournament_id>/live/", views.tournament_live, name="live"),
    path("<int:tournament_id>/anmelden/", views.register, name="register"),
    path("<int:tournament_id>/abmelden/", views.withdraw, name="withdraw"),
    path("<int:tournament_id>/einchecken/", views.check_in, name="check_in"),
    path("<int:tournament_id>/pause/", views.pause, name="pause"),
    path("<int:tournament_id>/weiter/", views.resume, name="resume"),
    path("tisch/<int:table_id>/ende.json", views.table_end, name="table_end"),
    path("leitung/neu/", views.staff_create, name="staff_create"),
    path("<int:tournament_id>/leitung/", views.staff_page, name="staff"),
    path("<int:tournament_id>/leitung/<str:action>/", views.staff_action, name="staff_action"),
    path("<int:tournament_id>/leitung.csv", views.staff_csv, name="staff_csv"),
]
