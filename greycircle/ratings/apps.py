from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "greycircle.ratings"
    label = "ratings"
    verbose_name = "Ratings"
