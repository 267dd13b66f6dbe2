"""Profile statistics: won, lost and tied per kind, by opponent, head-to-head; a rating per speed;
privacy."""

import pytest

from accounts.friends import user_block
from greycircle.games import services
from greycircle.games.clocks import TimeControl
from greycircle.games.services import SeatSpec
from greycircle.profiles import selectors
from tests.factories import game_started

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]

X_WINS = [0, 3, 1, 4, 2]  # seat 0 takes the top row
TIE = [0, 1, 2, 4, 3, 5, 7, 6, 8]  # a full board, no line


def finished(creator, opponent: SeatSpec, cells=None, resigns=None, **options):
    game = game_started(creator=creator, kind="tictactoe", opponents=[opponent], **options)
    if resigns is not None:
        services.game_resign(game_id=game.pk, user=resigns)
        return game
    for cell in cells:
        game.refresh_from_db()
        seat = game.seats.all()[game.to_move]
        services.move_submit(
            game_id=game.pk, user=seat.user, move={"cell": cell}, expected_version=game.version
        )
    return game


def stats(user, viewer) -> dict:
    [tictactoe] = selectors.profile_statistics(user=user, viewer=viewer)
    return tictactoe


def test_each_finished_game_counts_once_from_the_players_side(alice, bob, carol):
    finished(alice, SeatSpec(user=bob), X_WINS)  # alice won
    finished(alice, SeatSpec(user=bob), TIE)
    finished(bob, SeatSpec(user=alice), X_WINS)  # bob won
    finished(alice, SeatSpec(user=carol), resigns=carol)  # alice won
    still_playing = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    assert still_playing.status == "active"

    alice_seen_by_bob = stats(alice, bob)
    assert alice_seen_by_bob["all"] == {"played": 4, "won": 2, "lost": 1, "tied": 1}
    assert alice_seen_by_bob["against_people"] == alice_seen_by_bob["all"]
    # bob's own side of his three games with alice: one win, one loss, one tie.
    assert alice_seen_by_bob["head_to_head"] == {"played": 3, "won": 1, "lost": 1, "tied": 1}
    assert stats(alice, alice)["head_to_head"] is None, "nobody plays themselves"
    # Not the game carol resigned before anybody moved: it was too short to rate.
    [correspondence] = alice_seen_by_bob["ratings"]
    assert (correspondence["speed"], correspondence["games"]) == ("correspondence", 3)


def test_games_against_the_computer_count_by_level(alice):
    finished(alice, SeatSpec(ai_level="first"), resigns=alice)
    finished(alice, SeatSpec(ai_level="random"), resigns=alice)
    finished(alice, SeatSpec(ai_level="random"), resigns=alice)

    tictactoe = stats(alice, alice)
    assert tictactoe["against_people"]["played"] == 0
    assert {row["level"]: row["played"] for row in tictactoe["against_computer"]} == {
        "first": 1,
        "random": 2,
    }
    assert all(row["lost"] == row["played"] for row in tictactoe["against_computer"])
    assert tictactoe["ratings"] == [], "games against computers are not rated"


def test_a_rating_per_speed_correspondence_first(alice, bob):
    finished(alice, SeatSpec(user=bob), X_WINS, time_control=TimeControl(3, 2))
    finished(alice, SeatSpec(user=bob), X_WINS)
    finished(alice, SeatSpec(user=bob), X_WINS)

    ratings = stats(alice, bob)["ratings"]
    assert [(rating["speed"], rating["games"]) for rating in ratings] == [
        ("correspondence", 2),
        ("live", 1),
    ]
    assert ratings[1] == {
        "speed": "live",
        "rating": 1662,
        "deviation": 290,
        "provisional": True,
        "games": 1,
    }


def test_a_block_either_way_hides_the_profile(alice, bob, carol):
    user_block(blocker=alice, username="bob")

    assert selectors.profile_user_for(username="bob", viewer=alice) is None
    assert selectors.profile_user_for(username="alice", viewer=bob) is None
    assert selectors.profile_user_for(username="ALICE", viewer=carol) == alice


def test_recent_games_leave_out_unlisted_games_of_others(alice, bob, carol):
    listed = finished(alice, SeatSpec(user=bob), X_WINS)
    hidden = game_started(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)], unlisted=True
    )

    def recent(viewer) -> set[int]:
        return {game["id"] for game in selectors.profile_recent_games(user=alice, viewer=viewer)}

    assert recent(carol) == {listed.pk}
    assert recent(bob) == {listed.pk, hidden.pk}, "bob plays in it"
    assert recent(alice) == {listed.pk, hidden.pk}
