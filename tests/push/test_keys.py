"""The site's VAPID key: from the settings (PEM or raw), or the site's own, made once and kept;
and `manage.py push_vapid_keys`."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command

from greycircle.push import keys
from greycircle.push.models import VapidKey

pytestmark = pytest.mark.django_db


def test_the_embedded_sites_own_key_is_made_once_and_kept():
    first = keys.vapid_public_key()
    assert keys.vapid_public_key() == first
    [row] = VapidKey.objects.all()
    assert keys.public_key_of(row.private_key) == first
    assert keys.vapid_signer().public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    ) == keys.b64url_decode(first)


def test_a_pem_key_from_the_settings_is_used_even_written_on_one_line(settings):
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    point = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    for value in (pem, pem.replace("\n", "\\n")):
        settings.WEBPUSH_VAPID_PRIVATE_KEY = value
        assert keys.vapid_public_key() == keys.b64url(point)
    assert not VapidKey.objects.exists()


@pytest.mark.parametrize("value", ["nonsense!", keys.b64url(bytes(31)), "-----BEGIN nothing"])
def test_a_key_that_is_not_p256_is_a_configuration_error(settings, value):
    settings.WEBPUSH_VAPID_PRIVATE_KEY = value
    with pytest.raises(ImproperlyConfigured):
        keys.vapid_public_key()


def test_the_command_prints_a_new_pair_in_the_environments_form(settings):
    out = StringIO()
    call_command("push_vapid_keys", stdout=out)
    lines = out.getvalue().splitlines()
    private_key = re.fullmatch(r"WEBPUSH_VAPID_PRIVATE_KEY=([A-Za-z0-9_-]{43})", lines[0])[1]
    public_key = re.fullmatch(r"# public key \(applicationServerKey\): (\S+)", lines[1])[1]
    settings.WEBPUSH_VAPID_PRIVATE_KEY = private_key
    assert keys.vapid_public_key() == public_key
