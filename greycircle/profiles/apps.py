from django.apps import AppConfig


class ProfilesConfig(AppConfig):
    name = "greycircle.profiles"
    label = "profiles"
    verbose_name = "Profiles"
