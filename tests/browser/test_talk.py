"""Talk and moderation in Chromium, end to end (issue 23): two players chat in their game, live;
one insults the other, once in words the screening misses (shown to both) and once in words it
flags (shown to its author only, and reported automatically); the other reports the insult from
its chat message; a moderator who is no superuser finds the player in the desk's queue, reads the
messages in context on the case page and mutes the player for three days; the player then sees the
moderators' notice on the page and cannot write, the insult acted on has left the reporter's open
page (its author still sees it, hidden), and the reporter is thanked without being told what was
done."""

import re

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from greycircle.games.services import SeatSpec
from tests.browser.pages import LIVE_WITHIN_MS
from tests.factories import PASSWORD, UserFactory, game_started, moderator_make

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GREETING = "Good luck, have fun!"
ANSWER = "Thanks, you too."
# An insult the word list misses: everyone sees it until someone reports it.
INSULT = "You play like a brainless donkey"
# One it catches: hidden from the others as soon as it is written.
PROFANITY = "shut up, you piece of shit"


def open_game(page: Page, game_id: int) -> None:
    page.goto(f"/games/{game_id}/")
    expect(page.locator("#connection")).to_have_text("Live")


def chat_write(page: Page, text: str) -> None:
    """Type into the game's chat and press Enter, as a player at a keyboard does.

    The field empties once the server has accepted the message before (the author's own copy
    can arrive on the socket before that answer): typing before then would mix the two."""
    box = page.locator("#chat").get_by_label("Message", exact=True)
    expect(box).to_have_value("")
    box.click()
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def chat_bodies(page: Page):
    return page.locator("#chat-messages .chat__body")


def test_players_chat_one_reports_an_insult_and_a_moderator_mutes_its_author(new_page, log_in):
    alice = UserFactory(username="alice")
    bob = UserFactory(username="bob")
    moderator_make()
    game = game_started(creator=alice, kind="circles", opponents=[SeatSpec(user=bob)])
    alice_page, bob_page = new_page(), new_page()
    log_in(alice_page, "alice", PASSWORD)
    log_in(bob_page, "bob", PASSWORD)
    open_game(alice_page, game.pk)
    open_game(bob_page, game.pk)
    expect(chat_bodies(bob_page)).to_have_count(0)

    # 1. They greet each other; each message arrives on the other page without a reload.
    chat_write(alice_page, GREETING)
    expect(chat_bodies(alice_page)).to_have_text([GREETING])
    expect(chat_bodies(bob_page)).to_have_text([GREETING], timeout=LIVE_WITHIN_MS)
    chat_write(bob_page, ANSWER)
    expect(chat_bodies(alice_page)).to_have_text([GREETING, ANSWER], timeout=LIVE_WITHIN_MS)

    # 2. Alice swears (flagged: she sees it marked, bob never gets it), then insults bob in
    # words the screening misses, which he does get, after the hidden one would have come.
    chat_write(alice_page, PROFANITY)
    hidden = alice_page.locator("#chat-messages .chat__message").filter(has_text=PROFANITY)
    expect(hidden).to_contain_text("(only you and the moderators see this)")
    chat_write(alice_page, INSULT)
    expect(chat_bodies(alice_page)).to_have_text([GREETING, ANSWER, PROFANITY, INSULT])
    expect(chat_bodies(bob_page)).to_have_text([GREETING, ANSWER, INSULT], timeout=LIVE_WITHIN_MS)

    # 3. Bob reports the insult from its message; the dialog thanks him.
    insult = bob_page.locator("#chat-messages .chat__message").filter(has_text=INSULT)
    insult.get_by_role("button", name="Report the message of alice").click()
    dialog = bob_page.get_by_role("dialog", name="Report alice's message")
    dialog.get_by_role("radio", name="Abusive chat").check()
    dialog.get_by_label("What happened (optional)").fill("Insults all game long.")
    dialog.get_by_role("button", name="Send").click()
    expect(dialog.get_by_role("status")).to_have_text("Thank you; the moderators will look at it.")
    dialog.get_by_role("button", name="Close").click()
    expect(dialog).to_have_count(0)
    # Opening the game read bob's notifications about it: the badge starts empty.
    expect(bob_page.locator("#unread-badge")).to_be_hidden()

    # 4. The moderator finds alice in the queue: bob's report and the screening's.
    desk = new_page()
    log_in(desk, "mod", PASSWORD)
    desk.goto("/admin/reports/report/")
    row = desk.locator("#desk-queue tr.desk-player").filter(has_text="alice")
    expect(row).to_have_count(1)
    expect(row.locator("td").first).to_have_text("2")
    expect(row).to_contain_text("Abusive chat: 2")
    row.get_by_role("link", name="alice").click()
    expect(desk.get_by_role("heading", name="Open reports (2)")).to_be_visible()
    # Each message is shown in its game's context, the one reported marked.
    reported = desk.locator("#open-reports tr.desk-reported")
    expect(reported.filter(has_text=INSULT)).to_contain_text("(reported)")
    expect(reported.filter(has_text=PROFANITY)).to_contain_text("hidden from others: flagged")
    context = desk.locator("#open-reports .desk-context").first
    expect(context).to_contain_text(GREETING)
    expect(context).to_contain_text(ANSWER)

    act = desk.locator("#act")
    act.get_by_role("radio", name="Mute their chat for some days").check()
    act.get_by_role("spinbutton", name="Days").fill("3")
    act.get_by_role("textbox", name="Reason").fill("Insulted her opponent in game chat, twice.")
    act.get_by_role("button", name="Resolve…").click()
    expect(desk.locator("#content")).to_contain_text(
        "Mute alice's chat for 3 days, and mark these reports handled?"
    )
    desk.get_by_role("button", name="Yes, do it").click()
    expect(desk.locator(".messagelist")).to_contain_text(
        "Done: Mute alice's chat for 3 days; 2 reports handled, the reporters thanked."
    )
    expect(desk.get_by_text("No open reports: the queue is empty.")).to_be_visible()
    # The insult acted on leaves bob's open page at once; alice still sees it, marked hidden.
    expect(chat_bodies(bob_page)).to_have_text([GREETING, ANSWER], timeout=LIVE_WITHIN_MS)

    # 5. Alice's next page shows the moderators' notice, with its end; her chat refuses her.
    muted_until = User.objects.get(pk=alice.pk).chat_muted_until
    assert muted_until is not None
    alice_page.reload()
    expect(alice_page.locator("#connection")).to_have_text("Live")
    notice = alice_page.get_by_role("note", name="Your chat is muted.")
    expect(notice).to_contain_text("A moderator has muted you")
    expect(notice).to_contain_text(f"Until {muted_until:%-d %B %Y, %H:%M} UTC.")
    expect(chat_bodies(alice_page)).to_have_text([GREETING, ANSWER, PROFANITY, INSULT])
    hidden = alice_page.locator("#chat-messages .chat__message").filter(has_text=INSULT)
    expect(hidden).to_contain_text("(only you and the moderators see this)")
    chat_write(alice_page, "Can I still write?")
    expect(alice_page.locator("#chat").get_by_role("alert")).to_have_text(
        f"A moderator muted your chat until {muted_until:%Y-%m-%d %H:%M} UTC."
    )
    expect(alice_page.locator("#chat").get_by_label("Message", exact=True)).to_have_value(
        "Can I still write?"
    )
    expect(chat_bodies(alice_page)).to_have_count(4)

    # Bob is thanked (live, on the game page's badge), never told what was done.
    expect(bob_page.locator("#unread-badge")).to_have_text("1 unread", timeout=LIVE_WITHIN_MS)
    bob_page.get_by_role("navigation", name="Main").get_by_role(
        "link", name=re.compile("^Inbox")
    ).click()
    thanks = bob_page.get_by_role(
        "link", name="Thank you: the moderators have looked at your report about alice"
    )
    expect(thanks).to_be_visible()
    expect(bob_page.locator("main")).not_to_contain_text(re.compile("mute", re.IGNORECASE))
