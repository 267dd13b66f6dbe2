"""What the admin tests of every app ask of the admin's pages (the signed-in superuser is
conftest's `admin_client`)."""

from django.contrib.auth.models import Permission
from django.contrib.messages import get_messages
from django.test import Client

from tests.factories import UserFactory


def staff_with(*codenames: str) -> Client:
    """A client signed in as a new member of staff who holds only the permissions `codenames`."""
    user = UserFactory(is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
    client = Client()
    client.force_login(user)
    return client


def message_texts(response) -> list[str]:
    """The messages the admin showed on `response`'s page."""
    return [str(message) for message in get_messages(response.wsgi_request)]
