"""The site's profile page, `/u/<username>/`: recent games with their results, and what the
viewer may do about the player (befriend, invite, block) as their relationship allows."""

import re

import pytest

from accounts import friends, guests
from accounts.selectors import are_friends, friend_requests_of, has_blocked
from greycircle.games import registry, services
from greycircle.games.services import SeatSpec, game_create
from tests.factories import game_started, let_anyone_invite
from tests.frontend.test_game_rows import WIPE_OUT

pytestmark = pytest.mark.django_db


def result_of(html: str, game_id: int) -> str:
    """The result line of one recent game on a profile page."""
    item = html[html.index(f'data-game-id="{game_id}"') :]
    start = item.index('<p class="game-list__result"')
    return item[start : item.index("</p>", start)]


def test_recent_games_show_the_result_as_the_viewer_sees_it(client, alice, bob, carol):
    against_computer = game_create(
        creator=alice, kind="circles", opponents=[SeatSpec(ai_level="easy")], record=WIPE_OUT
    )
    against_bob = game_started(creator=alice, kind="circles", opponents=[SeatSpec(user=bob)])
    services.game_resign(game_id=against_bob.pk, user=bob)

    client.force_login(carol)  # played in neither: the winner's name
    html = client.get("/u/alice/").content.decode()
    assert "alice won 13-0 on discs" in result_of(html, against_computer.pk)
    assert "alice won: bob resigned" in result_of(html, against_bob.pk)

    client.force_login(bob)  # from his seat
    html = client.get("/u/alice/").content.decode()
    assert 'data-result="lost"><strong>You resigned' in result_of(html, against_bob.pk)
    client.force_login(alice)
    html = client.get("/u/bob/").content.decode()
    assert 'data-result="won"><strong>You won: bob resigned' in result_of(html, against_bob.pk)


# --- Actions: befriend, invite, block, as the relationship allows ------------------------------


def actions(client, username: str) -> str:
    """The profile's "You and <name>" card ("" when there is none)."""
    html = client.get(f"/u/{username}/").content.decode()
    start = html.find('<section class="card profile-actions"')
    return "" if start < 0 else html[start : html.index("</section>", start)]


def buttons(card: str) -> list[str]:
    return re.findall(r'<button class="button[^"]*" type="submit">([^<]+)</button>', card)


def invite_links(card: str) -> list[str]:
    return re.findall(r'href="(/play/\?invite=[^"]+)"', card)


def act(client, username: str, action: str):
    return client.post(f"/u/{username}/{action}/")


def test_your_own_profile_has_no_actions(client, alice):
    client.force_login(alice)

    assert actions(client, "alice") == ""


def test_a_stranger_can_be_asked_and_blocked_but_not_invited(client, alice, bob):
    client.force_login(alice)

    card = actions(client, "bob")

    assert buttons(card) == ["Add friend", "Block"]
    assert invite_links(card) == []
    assert "bob takes invitations to games from friends only." in card


def test_a_stranger_who_takes_invitations_from_anyone_can_be_invited_to_each_kind(
    client, alice, bob
):
    let_anyone_invite(bob)
    client.force_login(alice)

    links = invite_links(actions(client, "bob"))

    assert links == [
        f"/play/?invite=bob&amp;kind={game_kind.kind}#new-{game_kind.kind}"
        for game_kind in registry.all_kinds()
    ]


def test_befriending_from_the_profiles_as_the_request_goes(client, alice, bob):
    client.force_login(alice)
    response = act(client, "bob", "befriend")
    assert response.status_code == 302
    assert response.url == "/u/bob/"
    assert "Friend request sent to bob." in client.get(response.url).content.decode()
    card = actions(client, "bob")
    assert "You asked bob to be friends: no answer yet." in card
    assert buttons(card) == ["Cancel friend request", "Block"]  # no second "Add friend"

    client.force_login(bob)
    card = actions(client, "alice")
    assert "alice wants to be your friend." in card
    assert buttons(card) == ["Accept friend request", "Decline", "Block"]
    act(client, "alice", "befriend")
    assert are_friends(user=alice, other=bob)
    card = actions(client, "alice")
    assert "You are friends." in card
    assert buttons(card) == ["Remove friend", "Block"]
    assert len(invite_links(card)) == len(registry.all_kinds())

    act(client, "alice", "unfriend")
    assert not are_friends(user=alice, other=bob)
    assert buttons(actions(client, "alice")) == ["Add friend", "Block"]


def test_a_request_can_be_cancelled_or_declined_from_the_profiles(client, alice, bob):
    friends.friend_request_send(sender=alice, username="bob")
    client.force_login(bob)
    act(client, "alice", "decline-request")
    assert not friend_requests_of(user=bob).exists()

    friends.friend_request_send(sender=alice, username="bob")
    client.force_login(alice)
    act(client, "bob", "cancel-request")
    assert not friend_requests_of(user=alice).exists()
    page = client.get("/u/bob/").content.decode()
    assert "Friend request cancelled." in page

    # With nothing pending, the service's refusal shows and nothing changes.
    response = client.get(act(client, "bob", "cancel-request").url)
    assert "No such friend request." in response.content.decode()


def test_a_player_you_blocked_shows_only_the_way_to_unblock(client, alice, bob):
    game_started(creator=bob, kind="circles", opponents=[SeatSpec(ai_level="easy")])
    client.force_login(alice)
    act(client, "bob", "block")
    assert has_blocked(blocker=alice, blocked=bob)

    page = client.get("/u/bob/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "You blocked bob" in html
    assert buttons(html) == ["Unblock"]
    assert "Add friend" not in html
    assert "/play/?invite=" not in html
    assert "Recent games" not in html  # nothing of theirs

    # bob sees nothing of alice, and cannot act on her profile.
    client.force_login(bob)
    assert client.get("/u/alice/").status_code == 404
    assert act(client, "alice", "befriend").status_code == 404

    client.force_login(alice)
    act(client, "bob", "unblock")
    assert not has_blocked(blocker=alice, blocked=bob)
    assert buttons(actions(client, "bob")) == ["Add friend", "Block"]


def test_a_guest_is_offered_only_what_a_guest_can_do(client, alice):
    guest = guests.guest_create()
    let_anyone_invite(alice)
    client.force_login(guest)

    card = actions(client, "alice")

    assert buttons(card) == ["Block"]
    assert invite_links(card) == []
    assert 'href="/account/upgrade/"' in card
    assert "Create an account" in card
    # Asked anyway, the service refuses.
    response = client.get(act(client, "alice", "befriend").url)
    assert "Create an account to make friends: guests cannot." in response.content.decode()


def test_a_guests_profile_offers_no_friendship_nor_invitation(client, alice):
    guest = guests.guest_create()
    guest.accept_invitations_from_anyone = True
    guest.save()
    client.force_login(alice)

    card = actions(client, guest.username)

    assert buttons(card) == ["Block"]
    assert invite_links(card) == []
    assert "plays as a guest: guests cannot be added as friends or invited to games." in card


def test_unknown_actions_and_players_are_404_and_actions_need_a_post(client, alice, bob):
    client.force_login(alice)

    assert act(client, "bob", "adopt").status_code == 404
    assert act(client, "nobody", "befriend").status_code == 404
    assert client.get("/u/bob/befriend/").status_code == 405


def test_the_invite_link_fills_in_that_kinds_form_only(client, alice, bob):
    let_anyone_invite(bob)
    client.force_login(alice)

    page = client.get("/play/?invite=bob&kind=cirkis")

    forms = {kind.kind: form for kind, form in page.context["forms"]}
    assert forms["cirkis"]["seat_1"].value() == "user"
    assert forms["cirkis"]["username_1"].value() == "bob"
    assert forms["circles"]["username_1"].value() in (None, "")
    assert 'Invite bob to <a href="#new-cirkis">CirKis</a>' in page.content.decode()
