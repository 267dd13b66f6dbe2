"""Every message's screening: the text kept, the limits, the word list and the links."""

from __future__ import annotations

import pytest
from rest_framework.throttling import SimpleRateThrottle

from greycircle.api.throttling import rate_parse
from greycircle.chat.errors import MessageRefused, MessageThrottled
from greycircle.chat.screening import (
    CHAT_MESSAGE_MAX_CHARS,
    message_allowance,
    message_screen,
)


def test_the_text_kept_is_nfc_without_invisible_characters_and_with_single_spaces():
    screening = message_screen(text="  cafe\u0301\u200b  and\t\n\x07 \u202etea\u202c  ")

    assert screening.text == "café and tea"
    assert screening == message_screen(text=screening.text)


def test_an_emoji_sequence_keeps_its_joiner():
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"

    assert message_screen(text=f"gg {family}").text == f"gg {family}"


@pytest.mark.parametrize("text", ["", "   ", "\u200b\u200d\x00", "\n\t"])
def test_an_empty_message_is_refused(text):
    with pytest.raises(MessageRefused) as refusal:
        message_screen(text=text)

    assert refusal.value.code == "message_empty"


def test_a_message_is_at_most_500_characters_once_cleaned():
    assert message_screen(text="a" * CHAT_MESSAGE_MAX_CHARS + "\u200b   ").text == "a" * 500

    with pytest.raises(MessageRefused) as refusal:
        message_screen(text="a" * (CHAT_MESSAGE_MAX_CHARS + 1))

    assert refusal.value.code == "message_too_long"
    assert "500" in refusal.value.detail


@pytest.mark.parametrize(
    "text",
    [
        "you are a piece of shit",
        "SHIT",
        "sh1t",
        "$hit happens",
        "s h i t",
        "f.u.c.k off",
        "sh\u200bit",  # a zero-width space inside the word
        "\u0455hit",  # a Cyrillic dze for the "s"
        "\uff53\uff48\uff49\uff54",  # full-width letters
    ],
)
def test_profanity_is_flagged_through_obvious_disguises(text):
    screening = message_screen(text=text)

    assert screening.flagged
    assert screening.reason.startswith("profanity: ")


@pytest.mark.parametrize(
    "text",
    [
        "good game, well played",
        "what a stupid move by me",
        "I will kill your king",
        "Scunthorpe is a town",
        "that was a class assignment",
        "assassinate the queen",
    ],
)
def test_game_talk_is_not_flagged(text):
    screening = message_screen(text=text)

    assert not screening.flagged
    assert screening.reason == ""


@pytest.mark.parametrize(
    "text",
    [
        "see https://example.org/x",
        "go to www.example.com now",
        "visit spam-site.xyz!",
        "EXAMPLE.COM/join",
        "at 10.0.0.1",
        "\uff45xample\uff0ecom",  # full-width letters and stop
    ],
)
def test_web_addresses_are_links(text):
    assert message_screen(text=text).has_links


@pytest.mark.parametrize("text", ["e.g. the corner", "it is 1.5 points", "well.played", "ok."])
def test_other_dots_are_not_links(text):
    assert not message_screen(text=text).has_links


def test_markup_is_kept_as_text():
    """Escaping is the page's job: the text is kept as written, never stripped into markup."""
    text = '<img src=x onerror="alert(1)"> <b>hi</b>'

    assert message_screen(text=text).text == text


def test_the_allowance_is_five_messages_in_ten_seconds(alice, bob, rate_window_still):
    for _ in range(5):
        message_allowance(user=alice, scope="chat")

    with pytest.raises(MessageThrottled) as refusal:
        message_allowance(user=alice, scope="chat")

    assert refusal.value.code == "too_many_messages"
    assert refusal.value.status == 429
    assert 1 <= refusal.value.retry_after <= 10
    assert refusal.value.extra == {"retry_after": refusal.value.retry_after}
    message_allowance(user=bob, scope="chat")  # per user


def test_the_allowance_has_a_daily_limit(alice, rate_window_still, monkeypatch):
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "chat", "100/10s")
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "chat_daily", "3/day")
    for _ in range(3):
        message_allowance(user=alice, scope="chat")

    with pytest.raises(MessageThrottled) as refusal:
        message_allowance(user=alice, scope="chat")

    assert refusal.value.retry_after > 3600


@pytest.mark.parametrize(
    ("rate", "parsed"),
    [("5/10s", (5, 10)), ("30/min", (30, 60)), ("200/day", (200, 86400)), (None, (None, None))],
)
def test_a_rate_may_count_several_units(rate, parsed):
    assert rate_parse(rate) == parsed
