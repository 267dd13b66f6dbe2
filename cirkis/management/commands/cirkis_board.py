"""`manage.py cirkis_board`: regenerate, verify or draw the CirKis board data.

- ``--write``: rebuild cirkis/board_data.json from the construction and cirkis/pieces.json.
- ``--check``: rebuild it in memory; fail with a diff if the committed file differs.
- ``--svg PATH``: draw the committed board (fields by kind, shapes outlined, ids) as SVG.
"""

from __future__ import annotations

import difflib
from html import escape
from pathlib import Path
from types import ModuleType
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from cirkis.board_build import BOARD_DATA_PATH, build_board_data, dump_board_data

MAX_DIFF_LINES = 40


class Command(BaseCommand):
    help = "Regenerate (--write), verify (--check) or draw (--svg PATH) the CirKis board data."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--write", action="store_true", help="rewrite board_data.json")
        parser.add_argument("--check", action="store_true", help="fail if board_data.json is stale")
        parser.add_argument("--svg", metavar="PATH", help="write an SVG picture of the board")

    def handle(self, *args: Any, **options: Any) -> None:
        if not (options["write"] or options["check"] or options["svg"]):
            raise CommandError("give --write, --check and/or --svg PATH")
        if options["write"] or options["check"]:
            fresh = dump_board_data(build_board_data())
            if options["write"]:
                BOARD_DATA_PATH.write_text(fresh, encoding="utf-8")
                self.stdout.write(f"wrote {BOARD_DATA_PATH}")
            else:
                self._check(fresh)
        if options["svg"]:
            from cirkis import board  # loads the committed data (after any --write above)

            Path(options["svg"]).write_text(render_svg(board), encoding="utf-8")
            self.stdout.write(f"wrote {options['svg']}")

    def _check(self, fresh: str) -> None:
        committed = BOARD_DATA_PATH.read_text(encoding="utf-8") if BOARD_DATA_PATH.exists() else ""
        if committed == fresh:
            self.stdout.write(f"{BOARD_DATA_PATH.name} is up to date")
            return
        diff = list(
            difflib.unified_diff(
                committed.splitlines(),
                fresh.splitlines(),
                f"committed {BOARD_DATA_PATH.name}",
                "fresh build",
                lineterm="",
                n=0,
            )
        )
        shown = "\n".join(line[:160] for line in diff[:MAX_DIFF_LINES])
        more = len(diff) - MAX_DIFF_LINES
        raise CommandError(
            f"{BOARD_DATA_PATH} differs from a fresh build "
            f"(run `python manage.py cirkis_board --write` and review):\n{shown}"
            + (f"\n... {more} more diff lines" if more > 0 else "")
        )


SCALE = 50.0  # pixels per unit (short edge)
FILL = {"kite": "#f4f1ea", "dart": "#d8d2c4", "sliver": "#a8d88c"}
CIRCLE_FILL, STAR_FILL, RING_FILL = "#9cc4e4", "#f4a95e", "#f7e48a"


def render_svg(board: ModuleType) -> str:
    """An SVG picture of the board module's data: the picture is drawn from the committed file."""
    from cirkis.geometry import union_outline

    def xy(p: tuple[float, float]) -> str:
        return f"{p[0] * SCALE:.2f},{-p[1] * SCALE:.2f}"

    def path(points: Any) -> str:
        return " ".join(xy(p) for p in points)

    half = 9.0 * SCALE
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{-half} {-half} {2 * half} {2 * half}" '
        f'width="{2 * half:.0f}" height="{2 * half:.0f}" font-family="sans-serif">',
        f'<rect x="{-half}" y="{-half}" width="{2 * half}" height="{2 * half}" fill="white"/>',
    ]
    for field in board.FIELDS:
        fill = FILL[field.kind]
        if field.center_ring:
            fill = RING_FILL
        elif field.shape is not None:
            fill = CIRCLE_FILL if board.SHAPES[field.shape].kind == "circle" else STAR_FILL
        out.append(
            f'<polygon points="{path(field.polygon)}" fill="{fill}" stroke="#333" '
            f'stroke-width="1" stroke-linejoin="round"><title>field {field.id} '
            f"({escape(field.kind)})</title></polygon>"
        )
    for shape in board.SHAPES:
        outline = union_outline([board.FIELDS[i].polygon for i in shape.fields])
        colour = "#1f5f99" if shape.kind == "circle" else "#b5520b"
        out.append(
            f'<polygon points="{path(outline or ())}" fill="none" stroke="{colour}" '
            f'stroke-width="{4 if shape.central else 2.5}"/>'
        )
        label = f"{'C' if shape.kind == 'circle' else 'S'}{shape.number}"
        out.append(
            f'<text x="{shape.head[0] * SCALE:.2f}" y="{-shape.head[1] * SCALE - 4:.2f}" '
            f'font-size="11" font-weight="bold" fill="{colour}" text-anchor="middle">{label}</text>'
        )
    for i in board.CENTER_RING:
        out.append(
            f'<polygon points="{path(board.FIELDS[i].polygon)}" fill="none" stroke="#a08600" '
            f'stroke-width="2" stroke-dasharray="5 3"/>'
        )
    out.append(
        f'<polygon points="{path(board.RIM)}" fill="none" stroke="#c0392b" stroke-width="3"/>'
    )
    for field in board.FIELDS:
        x, y = field.centroid
        out.append(
            f'<text x="{x * SCALE:.2f}" y="{-y * SCALE + 3:.2f}" font-size="9" '
            f'text-anchor="middle" fill="#222">{field.id}</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"
