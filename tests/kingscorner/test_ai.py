"""King's Corner computer players: legal, deterministic, blind to hidden cards, and sensible."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from kingscorner.ai import LEVELS, choose_move, observe, plan_turn
from kingscorner.cards import card_name, parse_card, parse_pile
from kingscorner.rules import END_TURN, RULES, GameState, Move, MovePile, PlayCard, position

BUDGET_MS = 200
SEEDED_LEVELS = ("easy", "normal")
"""The levels that never read the clock (`hard`'s own tests are in test_ai_search.py)."""


def play(name: str, to: str) -> PlayCard:
    card, pile = parse_card(name), parse_pile(to)
    assert card is not None
    assert pile is not None
    return PlayCard(card, pile)


def pile(state: GameState, name: str) -> list[str]:
    index = parse_pile(name)
    assert index is not None
    return [card_name(c) for c in state.piles[index]]


def random_states(count: int, *, seed: int) -> Iterator[GameState]:
    """`count` positions from random games of 2-6 seats, many in the middle of a turn."""
    rng = random.Random(seed)
    produced = 0
    game = 0
    while produced < count:
        state = RULES.new_game(2 + game % 5, seed=rng.getrandbits(32), options={})
        game += 1
        while RULES.to_move(state) is not None and produced < count:
            if rng.random() < 0.3:
                produced += 1
                yield state
            moves = RULES.legal_moves(state)
            actions = moves[:-1]
            state = RULES.play(
                state, rng.choice(actions) if actions and rng.random() < 0.8 else END_TURN
            )


def take_turn(
    state: GameState, *, level: str = "normal", seed: int = 0
) -> tuple[list[Move], GameState]:
    """The actions a computer seat makes until its turn (or the game) ends."""
    seat = RULES.to_move(state)
    actions: list[Move] = []
    while RULES.to_move(state) == seat:
        move = choose_move(state, level=level, seed=seed + len(actions), budget_ms=BUDGET_MS)
        assert move in RULES.legal_moves(state)
        actions.append(move)
        state = RULES.play(state, move)
        assert len(actions) < 60
    return actions, state


def hidden_shuffled(state: GameState, rng: random.Random) -> GameState:
    """The same position for the seat to move, with other hands and the stock dealt anew."""
    seat = state.turn
    hidden = [c for s, h in enumerate(state.hands) if s != seat for c in h] + list(state.stock)
    rng.shuffle(hidden)
    hands = []
    for s, h in enumerate(state.hands):
        if s == seat:
            hands.append(h)
        else:
            hands.append(tuple(sorted(hidden[: len(h)])))
            hidden = hidden[len(h) :]
    return GameState(
        hands=tuple(hands),
        piles=state.piles,
        stock=tuple(hidden),
        turn=state.turn,
        plays_this_turn=state.plays_this_turn,
        idle_turns=state.idle_turns,
    )


STUCK = {"N": ["AC"], "E": ["AD"], "S": ["AH"], "W": ["AS"]}


def test_levels_and_unknown_level():
    assert LEVELS == ("easy", "normal", "hard")
    state = RULES.new_game(2, seed=1, options={})
    with pytest.raises(ValueError, match="genius"):
        choose_move(state, level="genius", seed=1, budget_ms=BUDGET_MS)


@pytest.mark.parametrize("level", SEEDED_LEVELS)
def test_the_computer_only_ever_makes_legal_moves(level):
    for index, state in enumerate(random_states(300, seed=11)):
        move = choose_move(state, level=level, seed=index, budget_ms=BUDGET_MS)
        assert move in RULES.legal_moves(state)


@pytest.mark.parametrize("level", SEEDED_LEVELS)
def test_the_computer_is_deterministic(level):
    for index, state in enumerate(random_states(80, seed=12)):
        first = choose_move(state, level=level, seed=index, budget_ms=BUDGET_MS)
        again = choose_move(state, level=level, seed=index, budget_ms=BUDGET_MS)
        assert first == again


@pytest.mark.parametrize("level", SEEDED_LEVELS)
def test_the_computer_ignores_other_hands_and_the_stock_order(level):
    rng = random.Random(13)
    changed = 0
    for index, state in enumerate(random_states(150, seed=13)):
        shuffled = hidden_shuffled(state, rng)
        changed += shuffled != state
        assert observe(shuffled) == observe(state)
        assert choose_move(state, level=level, seed=index, budget_ms=BUDGET_MS) == choose_move(
            shuffled, level=level, seed=index, budget_ms=BUDGET_MS
        )
    assert changed > 100


def test_the_observation_is_what_the_seat_may_see():
    state = position(
        hands=[["7D", "2C"], ["4C", "5C"]], piles={"N": ["9S", "8H"]}, stock=["3C"], to_move=1
    )
    seen = observe(state)
    assert (seen.seat, seen.hand, seen.hand_sizes, seen.stock) == (
        1,
        (parse_card("4C"), parse_card("5C")),
        (2, 2),
        1,
    )
    assert seen.piles[0] == (parse_card("9S"), parse_card("8H"))


def test_easy_plays_random_cards_never_moves_piles_and_stops_when_stuck():
    played_cards = set()
    for index, state in enumerate(random_states(300, seed=14)):
        move = choose_move(state, level="easy", seed=index, budget_ms=BUDGET_MS)
        card_plays = [m for m in RULES.legal_moves(state) if isinstance(m, PlayCard)]
        assert not isinstance(move, MovePile)
        if card_plays:
            assert move in card_plays
            played_cards.add(move)
        else:
            assert move == END_TURN
    assert len(played_cards) > 50
    state = position(
        hands=[["5C"], ["2C"]],
        piles={"N": ["7C"], "E": ["6H", "5S"], "S": ["AS"], "W": ["AH"]},
        stock=[],
    )
    assert RULES.legal_moves(state) != [END_TURN]  # a pile move exists; easy ignores it
    assert choose_move(state, level="easy", seed=1, budget_ms=BUDGET_MS) == END_TURN


def test_easy_draws_from_its_seed():
    state = position(
        hands=[["7D", "7H", "6C", "6S", "KD"], ["2C"]],
        piles={"N": ["8C"], "E": ["8S"]},
        stock=["3C"],
    )
    choices = {choose_move(state, level="easy", seed=seed, budget_ms=0) for seed in range(40)}
    assert len(choices) > 3


def test_normal_goes_out_when_a_sequence_empties_the_hand():
    # Out only by: KH into the empty corner, 7D and 6C down a pile, E moved onto S to free a
    # foundation, and 3S into it.
    state = position(
        hands=[["7D", "6C", "KH", "3S"], ["2C", "2D"]],
        piles={
            "N": ["8C"],
            "E": ["9H", "8S"],
            "S": ["TC"],
            "W": ["AS"],
            "NE": ["KD"],
            "SE": ["KC"],
            "SW": ["KS"],
        },
        stock=["4C", "5C"],
    )
    actions, after = take_turn(state)
    assert END_TURN not in actions
    assert RULES.outcome(after).winners == [0]
    assert RULES.outcome(after).reason == "went_out"
    assert any(isinstance(action, MovePile) for action in actions)
    plan = plan_turn(observe(state))
    assert plan == actions


def test_normal_puts_a_king_into_an_empty_corner():
    state = position(
        hands=[["KH", "5C", "9D"], ["2C"]],
        piles={**STUCK, "NE": ["KC"], "SE": ["KS"], "SW": ["QC"]},
        stock=["4C"],
    )
    actions, after = take_turn(state)
    assert actions == [play("KH", "NW"), END_TURN]
    assert pile(after, "NW") == ["KH"]


def test_normal_frees_a_foundation_by_moving_a_pile_and_fills_it():
    state = position(
        hands=[["9C", "4S"], ["2C"]],
        piles={"N": ["8C"], "E": ["7D", "6C"], "S": ["AS"], "W": ["AH"]}
        | {"NE": ["KC"], "SE": ["KD"], "SW": ["KS"], "NW": ["KH"]},
        stock=["4C"],
    )
    actions, after = take_turn(state)
    assert actions[0] == MovePile(parse_pile("E"), parse_pile("N"))
    assert pile(after, "N") == ["8C", "7D", "6C"]
    assert len(pile(after, "E")) == 1
    assert actions[-1] == END_TURN
    assert len(after.hands[0]) == 2  # one card shed, one drawn


def test_normal_sheds_a_king_first_when_only_one_card_can_go():
    state = position(
        hands=[["KH", "5C"], ["2C"]],
        piles={"N": ["AC"], "E": ["AD"], "S": ["AH"]}
        | {"NE": ["KC"], "SE": ["KS"], "SW": ["KD"], "NW": ["QS"]},
        stock=["4C"],
    )
    actions, _ = take_turn(state)
    assert actions == [play("KH", "W"), END_TURN]


def test_normal_fills_a_foundation_with_the_card_that_leaves_fewest_openings():
    # An ace opens nothing; the 9 would let the next player lay either red 8.
    state = position(
        hands=[["9C", "AH"], ["2C", "3C", "4C"]],
        piles={"N": ["AC"], "E": ["AD"], "S": ["AS"]}
        | {"NE": ["KC"], "SE": ["KS"], "SW": ["KD"], "NW": ["KH"]},
        stock=["5C"],
    )
    actions, _ = take_turn(state)
    assert actions == [play("AH", "W"), END_TURN]


def test_normal_finishes_every_turn_and_every_game():
    rng = random.Random(15)
    for game in range(6):
        state = RULES.new_game(2 + game % 5, seed=game, options={})
        for _ in range(2_000):
            if RULES.to_move(state) is None:
                break
            actions, state = take_turn(state, seed=rng.getrandbits(32))
            assert actions[-1] == END_TURN or RULES.to_move(state) is None
        assert RULES.outcome(state) is not None
