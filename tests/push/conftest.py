"""The local push services (tests/push/push_service.py for browsers, fcm_service.py and
apns_service.py for apps)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.push.apns_service import ApnsService
from tests.push.fcm_service import FcmService
from tests.push.push_service import Browser, PushService

SUBSCRIPTIONS = "/api/v1/push/web/subscriptions/"


@pytest.fixture
def push_service(settings) -> Iterator[PushService]:
    """A push service on 127.0.0.1, which the site may push to over http for the test."""
    settings.WEBPUSH_INSECURE_HOSTS = ["127.0.0.1"]
    with PushService() as service:
        yield service


@pytest.fixture
def subscribed(push_service, client_for):
    """Subscribe a new browser of `user` through the API, as the site's page does."""

    def subscribe(user) -> Browser:
        browser = push_service.browser()
        response = client_for(user).post(SUBSCRIPTIONS, browser.subscription(), format="json")
        assert response.status_code == 201, response.json()
        return browser

    return subscribe


APP_ID = "games.greycircle.app"


@pytest.fixture
def fcm_service(settings) -> Iterator[FcmService]:
    """A stand-in for FCM (and Google's token endpoint) on 127.0.0.1, with the site's service
    account and app set to it."""
    with FcmService() as service:
        settings.FCM_CREDENTIALS = service.credentials()
        settings.FCM_BASE_URL = service.origin
        settings.PUSH_APP_IDS = [APP_ID]
        yield service


@pytest.fixture
def apns_service(settings) -> Iterator[ApnsService]:
    """A stand-in for APNs (HTTP/2) on 127.0.0.1, with the site's team key and app set to it."""
    with ApnsService() as service:
        settings.APNS_KEY = service.key_pem()
        settings.APNS_KEY_ID = service.KEY_ID
        settings.APNS_TEAM_ID = service.TEAM_ID
        settings.APNS_BASE_URL = service.origin
        settings.PUSH_APP_IDS = [APP_ID]
        yield service
