"""Cards and piles of King's Corner as small integers, and their notation.

A card is an ``int`` 0-51: ``card = 4 * rank + suit`` with ranks ``A23456789TJQK`` as 0-12
(aces low) and suits ``CDHS`` as 0-3. Sorting cards as integers therefore sorts them by rank,
then suit (``AC AD AH AS 2C …``), which is the order hands are shown in. Red suits are diamonds
and hearts.

A pile is an ``int`` 0-7 in the order ``N E S W NE SE SW NW``: 0-3 are the foundations, 4-7 the
corners. `KING_CORNER` says where a King dealt onto a foundation goes instead (N→NW, E→NE, S→SE,
W→SW).
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "ACE",
    "CORNERS",
    "DECK",
    "FOUNDATIONS",
    "KING",
    "KING_CORNER",
    "PILE_NAMES",
    "RANKS",
    "SUITS",
    "card_name",
    "colour_name",
    "fits_on",
    "is_red",
    "parse_card",
    "parse_pile",
    "penalty",
    "rank_of",
    "rank_word",
    "suit_of",
]

RANKS: Final = "A23456789TJQK"
SUITS: Final = "CDHS"
ACE: Final = 0
KING: Final = 12
DECK: Final = tuple(range(52))

PILE_NAMES: Final = ("N", "E", "S", "W", "NE", "SE", "SW", "NW")
FOUNDATIONS: Final = (0, 1, 2, 3)
CORNERS: Final = (4, 5, 6, 7)
KING_CORNER: Final = {0: 7, 1: 4, 2: 5, 3: 6}

_CARD_NAMES: Final = tuple(RANKS[card >> 2] + SUITS[card & 3] for card in DECK)
_CARD_BY_NAME: Final = {name: card for card, name in enumerate(_CARD_NAMES)}
_PILE_BY_NAME: Final = {name: pile for pile, name in enumerate(PILE_NAMES)}
_RANK_WORDS: Final = (
    "ace",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "10",
    "jack",
    "queen",
    "king",
)


def rank_of(card: int) -> int:
    """0 (ace) to 12 (king)."""
    return card >> 2


def suit_of(card: int) -> int:
    """0-3 for clubs, diamonds, hearts, spades."""
    return card & 3


def is_red(card: int) -> bool:
    suit = card & 3
    return suit == 1 or suit == 2


def colour_name(card: int) -> str:
    return "red" if is_red(card) else "black"


def rank_word(rank: int) -> str:
    return _RANK_WORDS[rank]


def fits_on(card: int, top: int) -> bool:
    """True when `card` may go on `top`: one rank lower and of the opposite colour."""
    return (card >> 2) + 1 == (top >> 2) and is_red(card) != is_red(top)


def penalty(card: int) -> int:
    """Penalty points for a card left in hand at a stalemate: King 10, any other card 1."""
    return 10 if card >> 2 == KING else 1


def card_name(card: int) -> str:
    """``"7D"``, ``"TD"``, ``"KS"``."""
    return _CARD_NAMES[card]


def parse_card(name: object) -> int | None:
    """The card named `name` (case-insensitive, ``10`` accepted for ``T``), or None."""
    if not isinstance(name, str):
        return None
    text = name.strip().upper()
    if text.startswith("10"):
        text = "T" + text[2:]
    return _CARD_BY_NAME.get(text)


def parse_pile(name: object) -> int | None:
    """The pile named `name` (``N`` … ``NW``, case-insensitive), or None."""
    if not isinstance(name, str):
        return None
    return _PILE_BY_NAME.get(name.strip().upper())
