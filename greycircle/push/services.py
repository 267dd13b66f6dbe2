"""A user's Web Push subscriptions: registering a browser's, and removing it.

Choices:
- An endpoint is one browser's, so it belongs to one user: registered again (the same browser
  after another user signed in there), it moves to whoever registered it last, with the keys it
  has now.
- At most SUBSCRIPTIONS_MAX per user; a new one past that drops the user's oldest (the one
  registered longest ago). A browser that was reset or uninstalled never says goodbye, so
  refusing new ones would lock a user out of push on their new devices instead.
- Only endpoints the site may POST to: https (plain http only to the hosts of
  WEBPUSH_INSECURE_HOSTS, for the test suite's local push service), no credentials in the URL,
  no local or private address (the site would otherwise POST wherever a user says, inside its
  own network). The push service itself is whatever the browser chose.
- Keys are checked as pushing needs them: p256dh a point on P-256 (65 bytes, uncompressed), auth
  16 bytes, both base64url. A refused subscription changes nothing.
- Renewal (the browser's `pushsubscriptionchange`, handled by the service worker, which has the
  session cookie but no CSRF token): each registration answers a new secret, the renewal token,
  which the page keeps for the worker; only its SHA-256 is stored. The old endpoint with its
  token replaces the subscription by the new one, or removes it, for whoever it belongs to,
  whoever (if anyone) is signed in: the token, not the cookie, says it is that browser. Each
  renewal answers a new token and the old one stops working, so a token is good once. The new
  subscription is checked as a registration is; an endpoint someone else had moves, as
  registering it again would.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from greycircle.push.errors import PushInvalid, PushRenewalRefused
from greycircle.push.keys import b64url, b64url_decode
from greycircle.push.models import ENDPOINT_MAX, WebPushSubscription

SUBSCRIPTIONS_MAX = 20
P256DH_BYTES = 65
AUTH_BYTES = 16
USER_AGENT_MAX = WebPushSubscription._meta.get_field("user_agent").max_length
RENEWAL_TOKEN_BYTES = 32
RENEWAL_TOKEN_MAX = 64  # the token's base64url is 43 characters


@dataclass(frozen=True)
class Registered:
    """A subscription as kept, and the renewal token its browser renews it with (given once:
    the site keeps only its hash)."""

    subscription: WebPushSubscription
    renewal_token: str


def _renewal_token_new() -> tuple[str, str]:
    """A new renewal token and its hash."""
    token = secrets.token_urlsafe(RENEWAL_TOKEN_BYTES)
    return token, _renewal_hash(token)


def _renewal_hash(token: str) -> str:
    # A plain hash: the token is 256 random bits, so there is nothing to guess it from.
    return hashlib.sha256(token.encode()).hexdigest()


def webpush_subscribe(
    *, user: Any, endpoint: str, p256dh: str, auth: str, user_agent: str = ""
) -> Registered:
    """Keep the browser subscription `endpoint` (with its keys) for `user` (see the module)."""
    _endpoint_check(endpoint)
    p256dh, auth = _keys_checked(p256dh=p256dh, auth=auth)
    token, token_hash = _renewal_token_new()
    with transaction.atomic():
        subscription, _ = WebPushSubscription.objects.update_or_create(
            endpoint=endpoint,
            defaults={
                "user": user,
                "p256dh": p256dh,
                "auth": auth,
                "user_agent": user_agent[:USER_AGENT_MAX],
                "created": timezone.now(),  # registered (again) now: the newest of the user's
                "last_success": None,
                "renewal_hash": token_hash,
            },
        )
        oldest = WebPushSubscription.objects.filter(user=user).order_by("-created", "-pk")[
            SUBSCRIPTIONS_MAX:
        ]
        WebPushSubscription.objects.filter(
            pk__in=list(oldest.values_list("pk", flat=True))
        ).delete()
    return Registered(subscription=subscription, renewal_token=token)


def webpush_renew(
    *,
    old_endpoint: str,
    renewal_token: str,
    endpoint: str | None = None,
    p256dh: str = "",
    auth: str = "",
) -> Registered | None:
    """Replace the subscription at `old_endpoint` by the browser's new one (`endpoint` and its
    keys), or remove it when there is none; refused unless `renewal_token` is its token (see the
    module). The renewed subscription and its new token, or None once removed."""
    if endpoint is not None:
        _endpoint_check(endpoint)
        p256dh, auth = _keys_checked(p256dh=p256dh, auth=auth)
    with transaction.atomic():
        subscription = (
            WebPushSubscription.objects.select_for_update().filter(endpoint=old_endpoint).first()
        )
        if (
            subscription is None
            or not subscription.renewal_hash
            or not hmac.compare_digest(subscription.renewal_hash, _renewal_hash(renewal_token))
        ):
            raise PushRenewalRefused(
                "renewal_refused", "No subscription has that endpoint and renewal token."
            )
        if endpoint is None:
            subscription.delete()
            return None
        WebPushSubscription.objects.filter(endpoint=endpoint).exclude(pk=subscription.pk).delete()
        token, token_hash = _renewal_token_new()
        subscription.endpoint = endpoint
        subscription.p256dh = p256dh
        subscription.auth = auth
        subscription.renewal_hash = token_hash
        subscription.last_success = None
        subscription.save(
            update_fields=["endpoint", "p256dh", "auth", "renewal_hash", "last_success"]
        )
    return Registered(subscription=subscription, renewal_token=token)


def webpush_unsubscribe(
    *, user: Any, endpoint: str | None = None, subscription_id: int | None = None
) -> int:
    """Remove `user`'s subscription with that endpoint or id; how many were removed (0 or 1:
    another user's, or one already gone, is left alone)."""
    mine = WebPushSubscription.objects.filter(user=user)
    if endpoint is not None:
        mine = mine.filter(endpoint=endpoint)
    if subscription_id is not None:
        mine = mine.filter(pk=subscription_id)
    deleted, _ = mine.delete()
    return deleted


def _endpoint_check(endpoint: str) -> None:
    def refuse(why: str) -> PushInvalid:
        return PushInvalid("invalid_endpoint", f"The endpoint {why}.")

    if len(endpoint) > ENDPOINT_MAX:
        raise refuse(f"is longer than {ENDPOINT_MAX} characters")
    if not endpoint.isascii() or not endpoint.isprintable() or " " in endpoint:
        raise refuse("is not a URL")
    try:
        parts = urlsplit(endpoint)
        host = parts.hostname
        parts.port  # noqa: B018 (a port that is not a number raises here)
    except ValueError:
        raise refuse("is not a URL") from None
    if not host or parts.username is not None or parts.password is not None or parts.fragment:
        raise refuse("is not a push service's URL")
    insecure = host in settings.WEBPUSH_INSECURE_HOSTS
    if parts.scheme != "https" and not (parts.scheme == "http" and insecure):
        raise refuse("must be an https URL")
    if not insecure and _local(host):
        raise refuse("is not a public address")


def _local(host: str) -> bool:
    if host == "localhost" or host.endswith((".localhost", ".local", ".internal")):
        return True
    try:
        return not ipaddress.ip_address(host).is_global
    except ValueError:  # a name, not an address
        return False


def _keys_checked(*, p256dh: str, auth: str) -> tuple[str, str]:
    """The keys, unpadded; refused unless p256dh is a P-256 point and auth 16 bytes."""
    try:
        point = b64url_decode(p256dh)
        secret = b64url_decode(auth)
    except ValueError:
        raise PushInvalid("invalid_keys", "The keys must be base64url.") from None
    if len(point) != P256DH_BYTES or len(secret) != AUTH_BYTES:
        raise PushInvalid(
            "invalid_keys",
            f"p256dh must be {P256DH_BYTES} bytes and auth {AUTH_BYTES} bytes.",
        )
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise PushInvalid("invalid_keys", "p256dh is not a P-256 public key.") from None
    return b64url(point), b64url(secret)
