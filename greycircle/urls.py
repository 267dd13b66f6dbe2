from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.routers import SimpleRouter

import greycircle.converters  # noqa: F401 (registers the <id:...> path converter)
from accounts.api import BlockViewSet, FriendRequestViewSet, FriendViewSet, GuestUpgradeView
from greycircle.api import handlers
from greycircle.conversations.api import ConversationViewSet
from greycircle.games.api import GameViewSet
from greycircle.games.invitation_api import InvitationViewSet
from greycircle.lobby.api import SeekViewSet
from greycircle.notifications.api import NotificationViewSet
from greycircle.players.api import GuestCreateView, MeDataView, MeView
from greycircle.profiles.api import ProfileView
from greycircle.ratings.api import LeaderboardView

admin.site.site_header = "Grey Circle Games administration"
admin.site.site_title = "Grey Circle Games admin"

# Path converters rather than regexes, so each viewset's ids are `<id:pk>` (bounded row ids).
router = SimpleRouter(use_regex_path=False)
router.register("games", GameViewSet, basename="game")
router.register("invitations", InvitationViewSet, basename="invitation")
router.register("friends/requests", FriendRequestViewSet, basename="friend-request")
router.register("friends", FriendViewSet, basename="friend")
router.register("blocks", BlockViewSet, basename="block")
router.register("notifications", NotificationViewSet, basename="notification")
router.register("seeks", SeekViewSet, basename="seek")
router.register("conversations", ConversationViewSet, basename="conversation")

api_v1 = [
    path("me/", MeView.as_view(), name="me"),
    path("me/data/", MeDataView.as_view(), name="me-data"),
    path("me/upgrade/", GuestUpgradeView.as_view(), name="me-upgrade"),
    path("guest/", GuestCreateView.as_view(), name="guest"),
    path("leaderboards/<slug:kind>/", LeaderboardView.as_view(), name="leaderboard"),
    path("users/<str:username>/", ProfileView.as_view(), name="profile"),
    path("", include("greycircle.push.urls")),
    path("", include("greycircle.reports.urls")),
    path("", include("greycircle.moderation.api_urls")),
    path("", include("greycircle.chat.urls")),
    *router.urls,
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("allauth.urls")),
    path("_allauth/", include("allauth.headless.urls")),
    path("api/v1/", include((api_v1, "api"), namespace="v1")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    re_path(r"^api/(?P<path>.*)$", handlers.api_path_not_found),
    path("", include("accounts.urls")),
    # The pages that span an account and the games (accounts may not name greycircle.players).
    path("", include("greycircle.players.urls")),
    path("", include("greycircle.notifications.urls")),
    path("", include("greycircle.ratings.urls")),
    path("", include("greycircle.profiles.urls")),
    path("", include("greycircle.lobby.urls")),
    path("", include("greycircle.moderation.urls")),
    path("", include("greycircle.conversations.urls")),
    path("", include("frontend.urls")),
]

# Errors Django answers itself (no URL matched, SuspiciousOperation, a crash): JSON under /api/
# and /_allauth/, the usual pages elsewhere.
handler400 = "greycircle.api.handlers.bad_request"
handler403 = "greycircle.api.handlers.permission_denied"
handler404 = "greycircle.api.handlers.page_not_found"
handler500 = "greycircle.api.handlers.server_error"
