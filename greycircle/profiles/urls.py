from django.urls import path

from greycircle.profiles import views

urlpatterns = [
    path("u/<str:username>/", views.profile, name="profile"),
    path("u/<str:username>/<slug:action>/", views.profile_action, name="profile-action"),
]
