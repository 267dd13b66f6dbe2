"""Game lists: a player's three lists, open tables and live games; unlisted games in none; whom
a game waits on."""

import pytest
from django.utils import timezone

from accounts.friends import user_block
from greycircle.games import selectors, services
from greycircle.games.models import Game, GameStatus
from greycircle.games.selectors import MyGames
from greycircle.games.services import SeatSpec
from tests.factories import game_started, let_anyone_invite

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]


def new_game(creator, *opponents, **options) -> Game:
    return game_started(creator=creator, kind="tictactoe", opponents=list(opponents), **options)


def ids(games) -> list[int]:
    return [game.pk for game in games]


def test_each_game_is_in_the_one_list_that_fits_it(alice, bob, carol):
    my_turn = new_game(alice, SeatSpec(user=bob))  # alice, at seat 0, moves first
    their_turn = new_game(bob, SeatSpec(user=alice))
    waiting = new_game(alice, SeatSpec())
    against_computer = new_game(alice, SeatSpec(ai_level="first"))  # alice to move
    finished = new_game(alice, SeatSpec(user=carol))
    services.game_resign(game_id=finished.pk, user=carol)
    withdrawn = new_game(alice, SeatSpec())
    services.game_cancel(game_id=withdrawn.pk, user=alice)
    new_game(bob, SeatSpec(user=carol))  # not hers
    let_anyone_invite(alice, carol)
    # An invitation waits on the invitee's answer, and on nobody else.
    invited_by_bob = services.game_create(
        creator=bob, kind="tictactoe", opponents=[SeatSpec(user=alice)]
    )
    inviting_carol = services.game_create(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(user=carol)]
    )

    def listed(which: str) -> set[int]:
        return set(ids(selectors.games_for_user(user=alice, which=which)))

    assert listed(MyGames.MY_TURN) == {my_turn.pk, against_computer.pk, invited_by_bob.pk}
    assert listed(MyGames.THEIR_TURN) == {their_turn.pk, waiting.pk, inviting_carol.pk}
    assert listed(MyGames.FINISHED) == {finished.pk}
    assert withdrawn.pk not in listed(MyGames.FINISHED)
    assert len(ids(selectors.games_for_user(user=alice))) == 8
    assert ids(selectors.games_for_user(user=alice, status=GameStatus.CANCELLED)) == [withdrawn.pk]


def test_lists_are_newest_first(alice, bob):
    first = new_game(alice, SeatSpec(user=bob))
    second = new_game(alice, SeatSpec(user=bob))
    assert ids(selectors.games_for_user(user=alice, which=MyGames.MY_TURN)) == [second.pk, first.pk]

    services.move_submit(game_id=first.pk, user=alice, move={"cell": 0}, expected_version=1)
    services.move_submit(game_id=second.pk, user=alice, move={"cell": 0}, expected_version=1)
    services.move_submit(game_id=first.pk, user=bob, move={"cell": 4}, expected_version=2)
    assert ids(selectors.games_for_user(user=alice, which=MyGames.MY_TURN)) == [first.pk]
    assert ids(selectors.games_for_user(user=bob, which=MyGames.MY_TURN)) == [second.pk]

    # Finished: the most recently ended first, whatever happened to the games since.
    services.game_resign(game_id=second.pk, user=alice)
    services.game_resign(game_id=first.pk, user=alice)
    services.game_rematch(game_id=second.pk, user=alice)
    assert ids(selectors.games_for_user(user=alice, which=MyGames.FINISHED)) == [
        first.pk,
        second.pk,
    ]


def test_live_games_are_those_in_play_between_people(alice, bob, carol):
    duel = new_game(alice, SeatSpec(user=bob))
    later = new_game(bob, SeatSpec(user=carol))
    new_game(alice, SeatSpec(ai_level="first"))  # against a computer: not between people
    new_game(alice, SeatSpec())  # not in play yet
    over = new_game(carol, SeatSpec(user=alice))
    services.game_resign(game_id=over.pk, user=alice)

    assert ids(selectors.games_live()) == [later.pk, duel.pk]
    assert ids(selectors.games_live(kind="circles")) == []


def test_an_unlisted_game_is_in_no_list_but_its_players_own(alice, bob, carol):
    table = new_game(alice, SeatSpec(), unlisted=True)
    duel = new_game(alice, SeatSpec(user=bob), unlisted=True)

    assert ids(selectors.games_open(viewer=carol)) == []
    assert ids(selectors.games_live()) == []
    assert set(ids(selectors.games_for_user(user=alice))) == {table.pk, duel.pk}
    assert ids(selectors.games_for_user(user=bob)) == [duel.pk]
    # Whoever has the link (its key) still finds it, and may join the open one.
    found = selectors.game_get(game_id=table.pk)
    assert selectors.game_visible_to(game=found, viewer=carol, key=table.link_key)
    assert not selectors.game_visible_to(game=found, viewer=carol)
    joined = services.game_join(game_id=table.pk, user=carol, key=table.link_key)
    assert joined.status == GameStatus.ACTIVE
    assert ids(selectors.games_live()) == []


def test_games_of_someone_on_the_other_side_of_a_block_are_not_listed(alice, bob, carol):
    table = new_game(bob, SeatSpec())
    duel = new_game(bob, SeatSpec(user=carol))
    user_block(blocker=alice, username="bob")

    assert ids(selectors.games_open(viewer=alice)) == []
    assert ids(selectors.games_live(viewer=alice)) == []
    # Either way round: bob does not see alice's games either.
    alices = new_game(alice, SeatSpec())
    assert ids(selectors.games_open(viewer=bob)) == []
    assert ids(selectors.games_open(viewer=carol)) == [alices.pk, table.pk]
    assert ids(selectors.games_live(viewer=carol)) == [duel.pk]


def test_a_summary_names_the_creator_and_says_whether_it_is_unlisted(alice, bob):
    game = services.game_rematch(
        game_id=services.game_resign(
            game_id=new_game(alice, SeatSpec(user=bob), unlisted=True).pk, user=alice
        ).pk,
        user=bob,
    )
    summary = selectors.game_summary_for(game=selectors.game_get(game_id=game.pk), viewer=alice)

    assert summary["created_by"] == "bob"
    assert summary["unlisted"] is True
    assert summary["you"] == 1


@pytest.mark.parametrize(
    "listing",
    [
        lambda user: selectors.games_for_user(user=user),
        lambda user: selectors.games_for_user(user=user, which=MyGames.MY_TURN),
        lambda user: selectors.games_for_user(user=user, which=MyGames.THEIR_TURN),
        lambda user: selectors.games_live(),
        lambda user: selectors.games_live(viewer=user),
    ],
)
def test_a_list_costs_two_queries_however_many_games(
    listing, alice, user_factory, django_assert_num_queries
):
    for _ in range(6):
        new_game(alice, SeatSpec(user=user_factory()))
        new_game(user_factory(), SeatSpec(user=alice))
    with django_assert_num_queries(2):  # the games, then their seats with their users
        summaries = [selectors.game_summary_for(game=game, viewer=alice) for game in listing(alice)]
    assert len(summaries) in (6, 12)


def test_every_audience_of_a_version_shares_one_reading_of_what_is_not_theirs_alone(
    alice, bob, django_assert_num_queries
):
    let_anyone_invite(bob)
    game = services.game_create(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    game = Game.objects.get_with_seats(game.pk)  # open: bob's invitation is pending

    with django_assert_num_queries(1):  # the invitations, once for the three audiences
        views = {seat: selectors.game_view_for_seat(game=game, seat=seat) for seat in (0, 1, None)}

    assert {seat: view["you"] for seat, view in views.items()} == {0: 0, 1: 1, None: None}
    assert [view["invitations"][0]["user"] for view in views.values()] == ["bob"] * 3
    views[0]["status"] = "changed by one reader"
    assert views[1]["status"] == views[None]["status"] == GameStatus.OPEN


# --- who may see a game at all (game_visible_to) -----------------------------------------------


def visible(game, viewer, key=""):
    return selectors.game_visible_to(
        game=selectors.game_get(game_id=game.pk), viewer=viewer, key=key
    )


def test_an_unlisted_game_is_seen_by_its_players_and_by_whoever_has_its_key(alice, bob, carol):
    duel = new_game(alice, SeatSpec(user=bob), unlisted=True)
    assert len(duel.link_key) >= 22

    assert visible(duel, alice)
    assert visible(duel, bob)
    assert not visible(duel, carol)
    assert not visible(duel, carol, key="guessed")
    assert not visible(duel, carol, key=duel.link_key[:-1])
    assert visible(duel, carol, key=duel.link_key)


def test_a_listed_game_has_no_key_and_anyone_may_see_it(alice, carol):
    table = new_game(alice, SeatSpec())
    assert table.link_key == ""
    assert visible(table, carol)
    assert not visible(new_game(alice, SeatSpec(), unlisted=True), carol, key="")


def test_staff_see_every_game(alice, staff):
    assert visible(new_game(alice, SeatSpec(), unlisted=True), staff)


@pytest.mark.parametrize("direction", ["viewer blocked a player", "a player blocked the viewer"])
def test_nobody_sees_a_game_across_a_block_but_its_players_still_do(direction, alice, bob, carol):
    duel = new_game(alice, SeatSpec(user=bob), unlisted=True)
    if direction == "viewer blocked a player":
        user_block(blocker=carol, username="bob")
    else:
        user_block(blocker=bob, username="carol")

    assert not visible(duel, carol, key=duel.link_key)
    assert not visible(new_game(bob, SeatSpec()), carol)
    assert visible(duel, bob)


def test_a_socket_finds_its_audience_by_the_same_rule_in_one_query(
    alice, bob, carol, django_assert_num_queries
):
    duel = new_game(alice, SeatSpec(user=bob), unlisted=True)
    with django_assert_num_queries(1):
        assert selectors.game_audience_for(game_id=duel.pk, viewer=bob) == (1,)
    assert selectors.game_audience_for(game_id=duel.pk, viewer=carol) is None
    assert selectors.game_audience_for(game_id=duel.pk, viewer=carol, key=duel.link_key) == (None,)
    user_block(blocker=bob, username="carol")
    assert selectors.game_audience_for(game_id=duel.pk, viewer=carol, key=duel.link_key) is None
    assert selectors.game_audience_for(game_id=duel.pk + 1000, viewer=carol) is None


def test_a_game_waits_on_the_person_to_move_and_on_nobody_else(alice, bob):
    game = new_game(alice, SeatSpec(user=bob))  # alice, at seat 0, moves first

    assert selectors.turn_waits_for(game=game, seat=0)
    assert not selectors.turn_waits_for(game=game, seat=1)
    assert not selectors.turn_waits_for(game=game, seat=None)  # a spectator


def test_a_game_waits_on_nobody_before_it_starts_or_once_it_is_over(alice, bob):
    waiting = new_game(alice, SeatSpec())
    over = new_game(alice, SeatSpec(user=bob))
    services.game_resign(game_id=over.pk, user=bob)

    assert not selectors.turn_waits_for(game=waiting, seat=0)
    assert not selectors.turn_waits_for(game=Game.objects.get(pk=over.pk), seat=0)


def test_a_game_does_not_wait_on_a_player_whose_seat_a_computer_took_over(alice, bob):
    game = new_game(alice, SeatSpec(user=bob))
    game.seats.filter(index=0).update(ai_level="normal", taken_over_at=timezone.now())

    assert not selectors.turn_waits_for(game=Game.objects.get(pk=game.pk), seat=0)


def test_a_list_entry_says_whether_the_game_waits_on_its_viewer(alice, bob):
    game = new_game(alice, SeatSpec(user=bob))

    def waits_for(viewer):
        summary = selectors.game_summary_for(game=Game.objects.get(pk=game.pk), viewer=viewer)
        return selectors.summary_waits_for_viewer(summary=summary)

    assert waits_for(alice)
    assert not waits_for(bob)
    game.seats.filter(index=0).update(ai_level="normal", taken_over_at=timezone.now())
    assert not waits_for(alice)  # a computer plays alice's seat now
