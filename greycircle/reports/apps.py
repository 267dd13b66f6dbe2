from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "greycircle.reports"
    label = "reports"
    verbose_name = "Reports"
