"""The reports' API paths, under `/api/v1/` (included by greycircle.urls)."""

from rest_framework.routers import SimpleRouter

from greycircle.reports.api import ReportViewSet

router = SimpleRouter(use_regex_path=False)
router.register("reports", ReportViewSet, basename="report")

urlpatterns = router.urls
