from functools import cache

import factory
from django.contrib.auth.hashers import make_password

from accounts.models import User

PASSWORD = "correct-horse-battery"


@cache
def password_hash() -> str:
    """PASSWORD hashed once per test run, with the real hasher: hashing costs a tenth of a
    second or more, far more than the rest of creating a user. (Every factory user shares the
    salt, which is harmless in tests; servers started by tests verify it like any hash.)"""
    return make_password(PASSWORD)


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User

    username = factory.Sequence(lambda n: f"player{n}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.com")
    password = factory.LazyFunction(password_hash)
