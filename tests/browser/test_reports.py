"""Reporting a player in Chromium: the profile's Report button opens the dialog (focus in it,
Escape closes it and focus comes back), the report is sent and the reporter thanked, and a
second report of the same player is refused in the dialog."""

import pytest
from playwright.sync_api import expect

from greycircle.reports.models import Report
from tests.factories import PASSWORD, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_player_reports_another_from_their_profile_with_the_keyboard(page, log_in):
    UserFactory(username="kim")
    lee = UserFactory(username="lee")
    log_in(page, "kim", PASSWORD)
    page.goto("/u/lee/")
    report = page.get_by_role("button", name="Report lee to the moderators")

    report.focus()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Report lee")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("radio", name="Abusive chat")).to_be_focused()
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    expect(report).to_be_focused()

    report.click()
    dialog = page.get_by_role("dialog", name="Report lee")
    dialog.get_by_role("radio", name="Spam").check()
    dialog.get_by_label("What happened (optional)").fill("Links to a gold shop in every game.")
    dialog.get_by_role("button", name="Send").click()
    expect(dialog.get_by_role("status")).to_have_text("Thank you; the moderators will look at it.")
    [filed] = Report.objects.all()
    assert (filed.user, filed.reason, filed.comment) == (
        lee,
        "spam",
        "Links to a gold shop in every game.",
    )
    dialog.get_by_role("button", name="Close").click()
    expect(dialog).to_have_count(0)

    report.click()
    dialog = page.get_by_role("dialog", name="Report lee")
    dialog.get_by_role("radio", name="Something else").check()
    dialog.get_by_role("button", name="Send").click()
    expect(dialog.get_by_role("alert")).to_have_text(
        "You have reported this already; the moderators will look at it."
    )
    assert Report.objects.count() == 1
