"""API authentication: allauth headless session tokens for apps."""

from allauth.headless.contrib.rest_framework.authentication import XSessionTokenAuthentication
from drf_spectacular.extensions import OpenApiAuthenticationExtension

from accounts.middleware import guest_session_keep


class SessionTokenAuthentication(XSessionTokenAuthentication):
    """`X-Session-Token` from allauth headless (`/_allauth/app/v1/auth/...`).

    An unknown or expired token is rejected with 401 instead of being treated as anonymous, so an
    app learns at once that it must sign in again.
    """

    allow_invalid_session_tokens = False

    def authenticate(self, request):
        result = super().authenticate(request)
        if result is not None:
            # A guest's token is their only way in: each day's first request renews it, as the
            # guest_activity middleware renews a browser's session.
            user, session = result
            if guest_session_keep(session=session, user=user):
                session.save()
        return result


class SessionTokenScheme(OpenApiAuthenticationExtension):
    target_class = "greycircle.api.authentication.SessionTokenAuthentication"
    name = "sessionToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "X-Session-Token",
            "description": "Session token returned by allauth headless "
            "(POST /_allauth/app/v1/auth/login or /auth/signup).",
        }
