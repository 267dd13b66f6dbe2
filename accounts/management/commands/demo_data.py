"""Demo accounts for a local site: `alice` and `bob` (players) and `admin` (staff), idempotently."""

from allauth.account.models import EmailAddress
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from accounts.models import User

DEMO_PASSWORD = "greycircle"
DEMO_USERS = [
    ("alice", "alice@example.com", False),
    ("bob", "bob@example.com", False),
    ("admin", "admin@example.com", True),
]


class Command(BaseCommand):
    help = "Create the demo accounts (password 'greycircle'); only on a DEBUG site."

    def handle(self, *args, **options) -> None:
        if not settings.DEBUG:
            raise CommandError("Demo accounts are only for local (DEBUG) sites.")
        for username, email, staff in DEMO_USERS:
            user, created = User.objects.get_or_create(
                username=username,
                defaults={"email": email, "is_staff": staff, "is_superuser": staff},
            )
            if created:
                user.set_password(DEMO_PASSWORD)
                user.save()
                self.stdout.write(f"created {username}")
            # A verified address, so that the e-mail they asked for is printed on the console.
            if not EmailAddress.objects.filter(user=user).exists():
                EmailAddress.objects.create(user=user, email=email, primary=True, verified=True)
        players = ", ".join(username for username, _, staff in DEMO_USERS if not staff)
        staff = ", ".join(username for username, _, staff in DEMO_USERS if staff)
        self.stdout.write(
            f"Demo logins (password '{DEMO_PASSWORD}'): {players}; {staff} (staff, also /admin/)"
        )
