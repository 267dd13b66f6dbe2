"""`ServiceError` is the one base of every service's refusals, below every layer that raises one."""

import pytest

from accounts.errors import AccountError, AccountNotFound
from greycircle.errors import ServiceError
from greycircle.games.errors import GameConflict, GameError
from greycircle.moderation.errors import ModerationError
from greycircle.notifications.errors import NotificationNotFound


@pytest.mark.parametrize(
    "error_class", [GameError, GameConflict, AccountError, ModerationError, NotificationNotFound]
)
def test_every_services_refusals_are_service_errors(error_class):
    assert issubclass(error_class, ServiceError)


@pytest.mark.parametrize("error_class", [AccountError, ModerationError, NotificationNotFound])
def test_only_the_game_services_refuse_with_game_errors(error_class):
    assert not issubclass(error_class, GameError)


def test_a_refusal_carries_its_code_detail_http_status_and_extra_members():
    error = AccountNotFound("no_such_user", "No user is called bob.", username="bob")

    assert (error.code, error.detail, error.status, error.extra) == (
        "no_such_user",
        "No user is called bob.",
        404,
        {"username": "bob"},
    )
    assert str(error) == "No user is called bob."
