"""King's Corner `hard`: its simulator plays by the rules, and its search is legal, seeded, blind
to hidden cards and bounded by its deadline (tiny iteration counts: these are not strength tests,
bench/kingscorner_match.py measures strength)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from time import perf_counter

from kingscorner.ai import choose_move, observe
from kingscorner.ai_search import (
    CLOCK_EVERY,
    PILE_BASE,
    Sim,
    action_move,
    hard_move,
    legal_actions,
)
from kingscorner.cards import CORNERS, FOUNDATIONS, card_name
from kingscorner.rules import END_TURN, RULES, GameState, Move, MovePile, PlayCard, position
from tests.kingscorner.test_ai import hidden_shuffled, play, random_states

ITERATIONS = 60


def sim_of(state: GameState) -> Sim:
    """The simulator's copy of a real state (its stock's top card is last)."""
    return Sim(
        [list(hand) for hand in state.hands],
        [pile[0] if pile else -1 for pile in state.piles],
        [pile[-1] if pile else -1 for pile in state.piles],
        list(reversed(state.stock)),
        state.turn,
        state.plays_this_turn,
        state.idle_turns,
    )


def canonical(move: Move, state: GameState) -> int:
    """`move` as the simulator offers it: one empty foundation, and one empty corner, for all."""
    empty_foundation = next((p for p in FOUNDATIONS if not state.piles[p]), -1)
    empty_corner = next((p for p in CORNERS if not state.piles[p]), -1)
    if isinstance(move, PlayCard):
        to = move.to
        if not state.piles[to]:
            to = empty_foundation if to in FOUNDATIONS else empty_corner
        return move.card * 8 + to
    if isinstance(move, MovePile):
        target = move.target if state.piles[move.target] else empty_corner
        return PILE_BASE + move.source * 8 + target
    return 480


def endgame_states(count: int, *, seed: int) -> Iterator[GameState]:
    """Positions with the stock gone, some with turns already passed idle (near a stalemate)."""
    rng = random.Random(seed)
    produced = 0
    while produced < count:
        state = RULES.new_game(rng.choice((2, 3, 4)), seed=rng.getrandbits(32), options={})
        while RULES.to_move(state) is not None and produced < count:
            if not state.stock and rng.random() < 0.5:
                produced += 1
                yield state
            actions = RULES.legal_moves(state)[:-1]
            # Mostly drawing, so the stock runs out before the hands do.
            state = RULES.play(
                state, rng.choice(actions) if actions and rng.random() < 0.3 else END_TURN
            )


def test_the_simulator_plays_by_the_rules():
    rng = random.Random(21)
    for game in range(30):
        state = RULES.new_game(2 + game % 5, seed=game, options={})
        sim = sim_of(state)
        while not state.over:
            actions = legal_actions(sim)
            assert {canonical(move, state) for move in RULES.legal_moves(state)} == set(actions)
            action = actions[-1] if rng.random() < 0.3 else rng.choice(actions)
            state = RULES.play(state, action_move(action))
            sim.play(action)
            assert [sorted(hand) for hand in sim.hands] == [list(hand) for hand in state.hands]
            assert sim.tops == [pile[-1] if pile else -1 for pile in state.piles]
            assert sim.bottoms == [pile[0] if pile else -1 for pile in state.piles]
            assert sim.over() == state.over
        outcome = RULES.outcome(state)
        assert outcome is not None
        assert sorted(sim.winners()) == outcome.winners


def test_hard_only_ever_makes_legal_moves_including_endgames():
    states = [*random_states(40, seed=31), *endgame_states(20, seed=32)]
    assert any(state.idle_turns for state in states)
    for index, state in enumerate(states):
        move = choose_move(state, level="hard", seed=index, budget_ms=3)
        assert move in RULES.legal_moves(state)


def test_hard_is_reproducible_for_a_seed_with_an_iteration_cap():
    answers = set()
    for index, state in enumerate(random_states(20, seed=33)):
        first = hard_move(observe(state), seed=index, iterations=ITERATIONS)
        assert hard_move(observe(state), seed=index, iterations=ITERATIONS) == first
        answers.add(first)
    assert len(answers) > 5


def test_hard_ignores_other_hands_and_the_stock_order():
    rng = random.Random(34)
    changed = 0
    for index, state in enumerate([*random_states(20, seed=34), *endgame_states(5, seed=35)]):
        shuffled = hidden_shuffled(state, rng)
        changed += shuffled != state
        assert observe(shuffled) == observe(state)
        assert hard_move(observe(shuffled), seed=index, iterations=ITERATIONS) == hard_move(
            observe(state), seed=index, iterations=ITERATIONS
        )
        assert choose_move(shuffled, level="hard", seed=index, budget_ms=0) == choose_move(
            state, level="hard", seed=index, budget_ms=0
        )
    assert changed > 15


def test_hard_stops_at_its_deadline():
    # Past its deadline at the start, a search with no iteration cap to speak of stops at its
    # first reading of the clock: it answers as a search of that many iterations does.
    state = RULES.new_game(4, seed=36, options={})
    observation = observe(state)
    late = hard_move(observation, seed=1, iterations=10**9, deadline=perf_counter())
    assert late == hard_move(observation, seed=1, iterations=CLOCK_EVERY)


def test_hard_goes_out_when_a_sequence_empties_the_hand():
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
    actions = []
    after = state
    while RULES.to_move(after) == 0:
        actions.append(hard_move(observe(after), seed=len(actions), iterations=400))
        after = RULES.play(after, actions[-1])
    assert END_TURN not in actions
    outcome = RULES.outcome(after)
    assert outcome is not None
    assert outcome.winners == [0]


def test_hard_holds_a_card_back_rather_than_let_the_opponent_go_out():
    # The opponent holds one card, a black 7 (the only cards unseen are 7C and 7S: one in its
    # hand, one in the stock). Playing 8H on 9S now gives it a place to go out; holding 8H back
    # and drawing the other 7 lets hard go out next turn with 8H, the 7 and 6D.
    tops = ["9S", "AC", "AD", "AH", "AS", "2C", "2D", "2H"]
    named = {"8H", "6D", "7C", "7S", *tops}
    rest = [card_name(card) for card in range(52) if card_name(card) not in named]
    piles = {"N": ["9S"]}
    for index, name in enumerate(["E", "S", "W", "NE", "SE", "SW", "NW"]):
        piles[name] = [*rest[index::7], tops[index + 1]]
    state = position(hands=[["8H", "6D"], ["7S"]], piles=piles, stock=["7C"])
    assert RULES.legal_moves(state) == [play("8H", "N"), END_TURN]

    for seed in range(3):
        assert hard_move(observe(state), seed=seed, iterations=200) == END_TURN
