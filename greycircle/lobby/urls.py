from django.urls import path

from greycircle.lobby import views

urlpatterns = [path("lobby/", views.lobby, name="lobby")]
