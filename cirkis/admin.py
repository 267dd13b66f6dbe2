"""The CirKis admin: CirKis games only, the board drawn from the spectator view (the fields in
their owners' colours), the scores, and the moves in words. Read-only like every game admin (see
`greycircle.games.admin.GameAdminBase`); it needs ``cirkis.view_cirkisgame`` (and
``cirkis.change_cirkisgame`` to abort a game)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

from django.contrib import admin
from django.template.loader import render_to_string

from cirkis.board import FIELDS, PIECES
from cirkis.client import client_data
from cirkis.geometry import union_outline
from cirkis.models import CirKisGame
from greycircle.games.admin import GameAdminBase, seat_name
from greycircle.games.models import Game, GameStatus

# The seats' colours, as on the game page.
COLOURS: Final = ("purple", "red", "green", "yellow")
FILLS: Final = ("#7c3aad", "#d2382b", "#2b9a52", "#f2c21b")
STROKES: Final = ("#4a1f6e", "#86170f", "#145d30", "#9a7600")
EMPTY_FILLS: Final = {"kite": "#fbfaf6", "dart": "#ece7db", "sliver": "#ddd6c6"}
EMPTY_RING_FILL: Final = "#f3ecd8"
FREE_TURN_REASONS: Final = {
    "filled": "filled a hole",
    "center_star": "completed the Center Star",
    "first_sliver": "first Sliver",
}
FINISHED: Final = {
    "target": "reached the target",
    "went_out": "went out",
    "blocked": "nobody could place a piece",
}


def _points(points: Iterable[Sequence[float]]) -> str:
    return " ".join(f"{x:g},{y:g}" for x, y in points)


def colour(seat: int) -> str:
    return COLOURS[seat] if 0 <= seat < len(COLOURS) else f"seat {seat + 1}"


def who(seat: int | None, names: list[str]) -> str:
    """``alice (purple)``."""
    if seat is None:
        return "nobody"
    return f"{seat_name(names, seat)} ({colour(seat)})"


def piece_name(key: str) -> str:
    piece = PIECES.get(key)
    return piece.name if piece is not None else key


def article(name: str) -> str:
    return "an" if name[:1].upper() in "AEIOU" else "a"


def field_list(ids: Sequence[int]) -> str:
    if len(ids) == 1:
        return f"field {ids[0]}"
    return "fields " + ", ".join(str(i) for i in ids[:-1]) + f" and {ids[-1]}"


def shape_name(label: str) -> str:
    if label == "R":
        return "the Center Ring"
    for shape in client_data()["shapes"]:
        if shape["label"] == label:
            return str(shape["name"])
    return label


def completion_text(done: dict[str, Any], names: list[str]) -> str:
    """``+10 Circle C3 to alice (purple), +5 to bob (red)``."""
    awards = sorted(
        ((int(seat), int(points)) for seat, points in (done.get("scores") or {}).items()),
        key=lambda award: (-award[1], award[0]),
    )
    name = shape_name(str(done.get("shape", "?")))
    if not awards:
        return f"{name} completed: nobody scores"
    (first_seat, first_points), *rest = awards
    text = f"+{first_points} {name} to {who(first_seat, names)}"
    for seat, points in rest:
        text += f", +{points} to {who(seat, names)}"
    if done.get("majority") is None:
        text += " (tied for the most)"
    return text


def event_texts(events: Iterable[dict[str, Any]], names: list[str]) -> list[str]:
    texts = []
    for event in events:
        kind = event.get("type")
        person = who(event.get("seat"), names)
        if kind == "completed":
            texts.append(completion_text(event, names))
        elif kind == "free_turn":
            reason = FREE_TURN_REASONS.get(event.get("reason", ""), event.get("reason"))
            texts.append(f"{person} gets a free turn ({reason})")
        elif kind == "free_turn_unused":
            texts.append(f"{person} cannot use the free turn")
        elif kind == "lost_turn":
            texts.append(f"{person} lost a turn")
        elif kind == "went_out":
            texts.append(f"{person} went out: +{event.get('points')}")
        elif kind == "round_over":
            reason = FINISHED.get(event.get("reason", ""), event.get("reason"))
            texts.append(f"round {int(event.get('round', 0)) + 1} is over ({reason})")
        elif kind == "game_over":
            reason = FINISHED.get(event.get("reason", ""), event.get("reason"))
            texts.append(f"the game is over ({reason})")
    return texts


@admin.register(CirKisGame)
class CirKisGameAdmin(GameAdminBase):
    kind = CirKisGame.rules.kind

    class Media:
        css = {"all": ["cirkis/admin.css"]}

    @admin.display(description="board")
    def spectator_view(self, game: Game) -> str:
        return super().spectator_view(game)

    def render_view(self, game: Game, view: dict[str, Any], seat_names: list[str]) -> str:
        data = client_data()
        owners: list[int | None] = view["owners"]
        fields = []
        for index, field in enumerate(data["fields"]):
            owner = owners[index] if index < len(owners) else None
            if owner is None:
                fill = EMPTY_RING_FILL if field["ring"] else EMPTY_FILLS.get(field["kind"], "#fff")
                stroke = "#b9b09c"
                css = f"cirkis-admin__field cirkis-admin__field--{field['kind']}"
            else:
                fill, stroke = FILLS[owner % len(FILLS)], STROKES[owner % len(STROKES)]
                css = f"cirkis-admin__field cirkis-admin__field--p{owner}"
            fields.append(
                {
                    "id": index,
                    "points": _points(field["points"]),
                    "fill": fill,
                    "stroke": stroke,
                    "css": css,
                    "owner": owner,
                }
            )
        leader = view.get("leader")
        leader_outline = None
        if leader:
            outline = union_outline([FIELDS[i].polygon for i in leader["fields"]])
            if outline is not None:  # the board's y is up, SVG's down
                leader_outline = _points((x, -y) for x, y in outline)
        # A resigned or aborted game is over whatever its position says.
        to_move = view.get("to_move") if game.status == GameStatus.ACTIVE else None
        seats = []
        for seat, score in enumerate(view["scores"]):
            left = view["pieces_left"][seat] if seat < len(view["pieces_left"]) else {}
            seats.append(
                {
                    "seat": seat,
                    "name": seat_name(seat_names, seat),
                    "colour": colour(seat),
                    "fill": FILLS[seat % len(FILLS)],
                    "score": score,
                    "fields": sum(1 for owner in owners if owner == seat),
                    "pieces": sum(left.values()),
                    "pieces_left": ", ".join(
                        f"{count} {piece_name(key)}" for key, count in left.items() if count
                    ),
                    "to_move": seat == to_move,
                }
            )
        finished = view.get("finished")
        context = {
            "rim": _points(data["rim"]),
            "fields": fields,
            "shapes": [
                {"points": _points(shape["outline"]), "kind": shape["kind"]}
                for shape in data["shapes"]
            ],
            "ring": _points(data["center_ring"]["outline"]),
            "leader": leader,
            "leader_text": (
                f"{article(piece_name(leader['piece']))} {piece_name(leader['piece'])} of "
                f"{who(leader['seat'], seat_names)} on {field_list(leader['fields'])}"
                if leader
                else None
            ),
            "leader_outline": leader_outline,
            "seats": seats,
            "to_move": None if to_move is None else who(to_move, seat_names),
            "free_turn": view.get("free_turn", False),
            "finished": FINISHED.get(finished, finished) if finished else None,
            "target": view.get("target"),
            "long_game": view.get("long_game", False),
            "center_ring": view.get("center_ring", False),
            "round": int(view.get("round", 0)) + 1,
            "completed": [completion_text(done, seat_names) for done in view.get("completed", [])],
            "last_events": event_texts(view.get("last_events", []), seat_names),
            "status": game.get_status_display(),
        }
        return render_to_string("cirkis/admin/position.html", context)

    def describe_move(self, entry: dict[str, Any], seat: int, seat_names: list[str]) -> str:
        """``alice (purple) placed a Big Slice on fields 25, 35 and 36; +10 Circle C0 to …``."""
        name = piece_name(str(entry.get("piece", "?")))
        text = f"{who(entry.get('seat', seat), seat_names)} placed {article(name)} {name}"
        if entry.get("fields"):
            text += f" on {field_list(entry['fields'])}"
        return "; ".join([text, *event_texts(entry.get("events", []), seat_names)])
