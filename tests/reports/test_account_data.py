"""A player's reports in their data download and after their account is deleted: the reports they
filed are theirs to see (never the outcome); reports about them stay for staff."""

import pytest

from greycircle.players.data import account_data_export
from greycircle.players.deletion import account_anonymise
from greycircle.reports.models import Report
from greycircle.reports.services import report_file

pytestmark = pytest.mark.django_db


def test_my_data_has_the_reports_i_filed_not_those_about_me(alice, bob, client_for):
    report_file(reporter=alice, reason="spam", comment="Links everywhere.", username="bob")
    report_file(reporter=bob, reason="abusive_chat", username="alice")
    Report.objects.filter(reporter=alice).update(status="handled", outcome="actioned")

    [mine] = client_for(alice).get("/api/v1/me/data/").json()["reports"]

    assert set(mine) == {"reason", "comment", "about", "created", "status"}
    assert (mine["reason"], mine["comment"], mine["about"], mine["status"]) == (
        "spam",
        "Links everywhere.",
        "bob",
        "handled",
    )
    assert account_data_export(user=bob)["reports"][0]["about"] == "alice"


def test_a_deleted_account_leaves_its_reports_for_staff_without_its_name(alice, bob):
    filed = report_file(reporter=alice, reason="spam", username="bob")
    about = report_file(reporter=bob, reason="cheating", username="alice")

    account_anonymise(user=alice)

    filed.refresh_from_db()
    about.refresh_from_db()
    assert (filed.reporter, filed.user) == (None, bob)
    assert (about.reporter, about.user_id) == (bob, alice.pk)
