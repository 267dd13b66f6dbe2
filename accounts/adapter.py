"""The site's allauth adapter: look-alike usernames, failed-login limits, the client's address,
mail that names the site, and the confirmation link on the console of a local site.

Library seam (UPGRADING.md, "django-allauth"): django-allauth==65.22.1. The failed-login limits use
`allauth.core.internal.ratelimit` (`get_rates`, `get_cache_key`, `get_ip`, `respond_429`), so that
they count and clear in allauth's own keys.

Browser sign-up and log-in (allauth's forms) and the apps' (allauth headless) both go through it.
"""

from __future__ import annotations

import math
import sys
import time
from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core import context as allauth_context
from allauth.core.exceptions import ImmediateHttpResponse
from allauth.core.internal import ratelimit
from django.conf import settings
from django.contrib.sites.requests import RequestSite
from django.core.cache import cache
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest

from accounts.models import LOOKALIKE_USERNAME, lookalike_exists
from accounts.usernames import normalize_username, username_reserved

LOGIN_FAILED = "login_failed"
RESERVED_USERNAME = "Usernames starting with “guest-” or “deleted-” are the site's own."
# Set on a request whose log-in was refused by the failed-login limit: seconds to wait.
# RetryAfterMiddleware (greycircle.api.middleware) turns the answer into a 429 with Retry-After.
RETRY_AFTER_ATTRIBUTE = "rate_limited_retry_after"
CONSOLE_EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
CONFIRMATION_MAILS = ("account/email/email_confirmation", "account/email/email_confirmation_signup")


def confirmation_notice(email: str, url: str) -> str:
    """The lines that point out a confirmation link among a server's console output."""
    rule = "=" * 72
    return f"\n{rule}\n  To confirm {email}, open:\n  {url}\n{rule}\n\n"


def client_ip(request: HttpRequest) -> str | None:
    """The client's address, as DRF's throttles see it (REST_FRAMEWORK["NUM_PROXIES"]).

    With no trusted proxies (the default) that is the peer address; X-Forwarded-For is then
    ignored, so a client cannot pick the address its rate limits are counted against. With N
    trusted proxies it is the address the outermost of them saw (N-th from the right).
    """
    proxies = settings.ALLAUTH_TRUSTED_PROXY_COUNT
    forwarded = request.headers.get("x-forwarded-for")
    if proxies and forwarded:
        addresses = forwarded.split(",")
        return addresses[-min(proxies, len(addresses))].strip() or None
    return request.META.get("REMOTE_ADDR") or None


def login_failed_retry_after(request: HttpRequest, key: str) -> int:
    """Seconds until the failed-login limits for `key` allow another attempt (at least 1)."""
    now = time.time()
    wait = 1.0
    for rate in ratelimit.get_rates(app="allauth.account", action=LOGIN_FAILED):
        cache_key = ratelimit.get_cache_key(
            request, app="allauth.account", action=LOGIN_FAILED, rate=rate, key=key
        )
        # allauth keeps each limit's attempt times newest first.
        recent = [ts for ts in cache.get(cache_key, []) if ts > now - rate.duration]
        if len(recent) >= rate.amount:
            wait = max(wait, recent[rate.amount - 1] + rate.duration - now)
    return math.ceil(wait)


class AccountAdapter(DefaultAccountAdapter):
    error_messages = {
        **DefaultAccountAdapter.error_messages,
        "username_lookalike": LOOKALIKE_USERNAME,
        "username_reserved": RESERVED_USERNAME,
    }

    # --- Usernames ----------------------------------------------------------------------------

    def clean_username(self, username: str, shallow: bool = False) -> str:
        """NFKC-normalise the username, then refuse it if taken, if it looks like one taken, or
        if it starts like the names the site gives guests and deleted accounts."""
        username = super().clean_username(normalize_username(username), shallow=shallow)
        if username_reserved(username):
            raise self.validation_error("username_reserved")
        if not shallow and lookalike_exists(username):
            raise self.validation_error("username_lookalike")
        return username

    # --- Mail ---------------------------------------------------------------------------------

    def send_mail(self, template_prefix: str, email: str, context: dict[str, Any]) -> None:
        # allauth's mails say "Hello from {site name}": the site's name, not the host it was
        # reached at, which is all a RequestSite knows (subjects: ACCOUNT_EMAIL_SUBJECT_PREFIX).
        site = RequestSite(allauth_context.request)
        site.name = settings.SITE_NAME
        super().send_mail(template_prefix, email, {"current_site": site, **context})
        if (
            template_prefix in CONFIRMATION_MAILS
            and settings.EMAIL_BACKEND == CONSOLE_EMAIL_BACKEND
        ):
            # A local site prints its mail on the console, among the access log: the newcomer
            # who just signed up finds the link to confirm their address set apart after it.
            sys.stdout.write(confirmation_notice(email, context["activate_url"]))
            sys.stdout.flush()

    # --- Client address -----------------------------------------------------------------------

    def get_client_ip(self, request: HttpRequest) -> str:
        ip = client_ip(request)
        if not ip:
            raise PermissionDenied("Unable to determine client IP address")
        return ip

    # --- Failed log-ins -----------------------------------------------------------------------
    #
    # allauth counts failed log-ins per IP and per "key". Its key is the login (username or
    # e-mail) alone, so five wrong passwords from anywhere lock the account for everyone. Here
    # the key is the client's address *and* the login: an attacker's failures count against
    # their own address, never against the owner logging in from elsewhere. (The per-IP limit
    # bounds how many accounts one address may try; see ACCOUNT_RATE_LIMITS.)

    def _get_login_attempts_cache_key(self, request: HttpRequest, **credentials: Any) -> str:
        login = credentials.get("email", credentials.get("username", "")) or ""
        return f"{ratelimit.get_ip(request)}|{login.lower()}"

    def pre_authenticate(self, request: HttpRequest, **credentials: Any) -> None:
        try:
            super().pre_authenticate(request, **credentials)
        except ValidationError as error:
            if error.code != "too_many_login_attempts":
                raise
            key = self._get_login_attempts_cache_key(request, **credentials)
            retry_after = login_failed_retry_after(request, key)
            if hasattr(getattr(request, "allauth", None), "headless"):
                # The apps get allauth's rate-limit answer: 429 {"status": 429}.
                response = ratelimit.respond_429(request)
                response["Retry-After"] = str(retry_after)
                raise ImmediateHttpResponse(response) from None
            # The browser form shows the error; the middleware makes the page a 429.
            setattr(request, RETRY_AFTER_ATTRIBUTE, retry_after)
            minutes = math.ceil(retry_after / 60)
            raise ValidationError(
                f"Too many failed login attempts. Try again in "
                f"{minutes} minute{'s' if minutes != 1 else ''}.",
                code="too_many_login_attempts",
            ) from None
