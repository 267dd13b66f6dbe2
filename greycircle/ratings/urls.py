from django.urls import path

from greycircle.ratings import views

urlpatterns = [
    path("leaderboard/<slug:kind>/", views.leaderboard, name="leaderboard"),
]
