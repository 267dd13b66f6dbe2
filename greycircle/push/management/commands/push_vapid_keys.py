"""`manage.py push_vapid_keys`: a new VAPID key pair, as the environment takes it."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from greycircle.push.keys import public_key_of, vapid_private_key_new


class Command(BaseCommand):
    help = (
        "Print a new VAPID key pair for Web Push: set WEBPUSH_VAPID_PRIVATE_KEY to it once, "
        "and keep it (browsers subscribed with another key must subscribe again)."
    )

    def handle(self, *args, **options) -> None:
        private_key = vapid_private_key_new()
        self.stdout.write(f"WEBPUSH_VAPID_PRIVATE_KEY={private_key}")
        self.stdout.write(f"# public key (applicationServerKey): {public_key_of(private_key)}")
