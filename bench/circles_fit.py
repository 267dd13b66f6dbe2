"""Circles: fit the ``expert`` player's evaluation (`circles.ai_fitted`) from self-play games.

    python -m bench.circles_fit --games 3000 --seed 1 [--positions /tmp/fit.txt] [--out PATH]

1. **Positions.** ``--games`` self-play games from the start: ``--random-plies`` (drawn per game
   between 0 and the value) random moves first, for variety; then `circles.ai.medium_move` (3-ply
   alpha-beta) with an ``--epsilon`` share of random moves while more than ``--exact-empties``
   squares are empty; from there both sides play perfectly (the exact solver,
   `circles.ai_search.Search`). Every position where the side to move has a move is kept,
   labelled with the game's final disc margin for that side: the exact value of the position from
   ``--exact-empties`` empties down (perfect play keeps it), the margin the game reached before.
   Everything comes from ``--seed``: a run replays exactly. ``--positions FILE`` keeps them
   (``own opp label`` a line, hex bitboards of the side to move and the other): given an existing
   file, the games are read from it instead of played.
2. **Fit.** Per phase (`circles.ai_fitted.phase_of`: 10 phases of 6 plies), ridge least squares
   (Jacobi-preconditioned conjugate gradients on the normal equations, pure Python) of the margin
   on the model's features (`circles.ai_fitted.features`): the side to move's bias and parity, the
   scalar weights and the edge pattern classes. A phase's rows are its own positions and those
   within ``--overlap`` empties of it, so neighbouring phases' weights agree; the edge classes are
   shrunk towards 0 by ``--ridge`` (a pattern seen that many times keeps half its value). The
   last phase is fitted first: with ``--lookahead K`` (at least 6 + ``--overlap``), a position
   with more than ``--exact-empties`` empties is labelled not by its game's margin but by the
   value of the game's first position K or more empties later (its exact value, or the margin
   the later phase's fitted weights predict there), which leaves out the noise of the
   3-ply player's mistakes after it. Every tenth game is held out: the printed error per phase
   is the root mean square of the predicted margin against those labels on the phase's own
   positions, fitted and held out, in discs.
``--speed N`` fits nothing: it times `circles.ai_eval.evaluate_with` (``hard``'s) and
`circles.ai_fitted.fitted_evaluate_with` on the same N positions from seeded self-play games,
alternating rounds, and prints evaluations per CPU second of each.

3. **Write** ``--out`` (default ``circles/data/fitted.txt``), integers in `SCALE` units a disc:

       phase <p> <bias> <parity> <discs> <mobility> <corner_moves> <frontier> <x_squares>
       edge <pattern> <value in phase 0> ... <value in phase 9>

   An edge pattern is 8 characters from a corner along the edge (``x`` the side to move's disc,
   ``o`` the other's, ``.`` empty), the smallest of its class (see `circles.ai_fitted.edge_class`);
   classes never seen are left out (worth 0).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

from bench.circles_classic import squares_low_first
from bench.match_stats import machine_line
from circles.ai import medium_move
from circles.ai_fitted import PHASES, SCALARS, SCALE, features, phase_of
from circles.ai_search import Search
from circles.rules import FULL, Position, flip_mask, move_mask

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "circles" / "data" / "fitted.txt"
HOLDOUT_EVERY = 10


def self_play(
    rng: random.Random, *, random_plies: int, epsilon: float, exact_empties: int
) -> list[tuple[int, int, int]]:
    """One game's positions (own, opp, final margin for the side to move), as the module says."""
    start = Position.start()
    own, opp = start.own, start.opponent
    opening = rng.randint(0, random_plies)
    ply = 0
    seen: list[tuple[int, int, int]] = []  # (own, opp, sign: +1 if the first player to move)
    sign = 1
    while True:
        moves = move_mask(own, opp)
        if not moves:
            if not move_mask(opp, own):
                break
            own, opp, sign = opp, own, -sign
            continue
        seen.append((own, opp, sign))
        squares = squares_low_first(moves)
        empties = (~(own | opp) & FULL).bit_count()
        if len(squares) == 1:
            square = squares[0]
        elif empties <= exact_empties:
            _value, square = Search().solve_root(own, opp, squares, -65, 65)
        elif ply < opening or rng.random() < epsilon:
            square = rng.choice(squares)
        else:
            rng.shuffle(squares)
            square = medium_move(own, opp, squares, depth=3)
        flips = flip_mask(square, own, opp)
        own, opp, sign = opp ^ flips, own | flips | (1 << square), -sign
        ply += 1
    margin = (own.bit_count() - opp.bit_count()) * sign  # for the first player to move
    return [(o, p, margin * s) for o, p, s in seen]


def generate(args: argparse.Namespace) -> list[list[tuple[int, int, int]]]:
    games = []
    for index in range(args.games):
        rng = random.Random(f"{args.seed}:{index}")
        games.append(
            self_play(
                rng,
                random_plies=args.random_plies,
                epsilon=args.epsilon,
                exact_empties=args.exact_empties,
            )
        )
        if (index + 1) % 250 == 0:
            print(f"  {index + 1} games", file=sys.stderr, flush=True)
    return games


def write_positions(path: Path, games: list[list[tuple[int, int, int]]]) -> None:
    with path.open("w", encoding="utf-8") as out:
        for game in games:
            for own, opp, label in game:
                out.write(f"{own:016x} {opp:016x} {label}\n")
            out.write("\n")


def read_positions(path: Path) -> list[list[tuple[int, int, int]]]:
    games: list[list[tuple[int, int, int]]] = [[]]
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            games.append([])
            continue
        own, opp, label = line.split()
        games[-1].append((int(own, 16), int(opp, 16), int(label)))
    return [game for game in games if game]


# --- the fit ---------------------------------------------------------------------------------

Row = tuple[tuple[int, ...], tuple[tuple[int, int], ...], float]
"""(dense inputs: 1, parity, scalars; edges' (column, sign); label in discs)."""

DENSE = 2 + len(SCALARS)


def _rows(
    positions: list[tuple[int, int, int]] | list[tuple[int, int, float]],
    columns: dict[str, int],
    *,
    grow: bool,
) -> list[Row]:
    """Model rows for `positions`; edge classes get columns (new ones only when `grow`)."""
    rows = []
    for own, opp, label in positions:
        _empties, parity, scalars, edges = features(own, opp)
        sparse: dict[int, int] = {}
        for canon, sign in edges:
            if not sign:
                continue
            column = columns.get(canon)
            if column is None:
                if not grow:
                    continue
                column = columns[canon] = DENSE + len(columns)
            sparse[column] = sparse.get(column, 0) + sign
        rows.append(((1, parity, *scalars), tuple(sparse.items()), float(label)))
    return rows


def _normal_apply(rows: list[Row], x: list[float], damping: list[float]) -> list[float]:
    """(AᵀA + diag(damping)) x."""
    out = [d * v for d, v in zip(damping, x, strict=True)]
    for dense, sparse, _label in rows:
        value = sum(a * b for a, b in zip(dense, x, strict=False))
        for column, sign in sparse:
            value += sign * x[column]
        for k, a in enumerate(dense):
            out[k] += a * value
        for column, sign in sparse:
            out[column] += sign * value
    return out


def ridge_fit(rows: list[Row], size: int, *, ridge: float, iterations: int) -> list[float]:
    """Ridge least squares (edge columns damped by `ridge`) by preconditioned CG."""
    damping = [1e-6] * DENSE + [ridge] * (size - DENSE)
    rhs = [0.0] * size
    diagonal = damping[:]
    for dense, sparse, label in rows:
        for k, a in enumerate(dense):
            rhs[k] += a * label
            diagonal[k] += a * a
        for column, sign in sparse:
            rhs[column] += sign * label
            diagonal[column] += sign * sign
    x = [0.0] * size
    r = rhs[:]
    z = [ri / di for ri, di in zip(r, diagonal, strict=True)]
    p = z[:]
    rz = sum(a * b for a, b in zip(r, z, strict=True))
    start = math.sqrt(sum(v * v for v in rhs)) or 1.0
    for _ in range(iterations):
        q = _normal_apply(rows, p, damping)
        step = rz / (sum(a * b for a, b in zip(p, q, strict=True)) or 1e-30)
        x = [a + step * b for a, b in zip(x, p, strict=True)]
        r = [a - step * b for a, b in zip(r, q, strict=True)]
        if math.sqrt(sum(v * v for v in r)) < 1e-6 * start:
            break
        z = [ri / di for ri, di in zip(r, diagonal, strict=True)]
        rz_new = sum(a * b for a, b in zip(r, z, strict=True))
        p = [a + rz_new / rz * b for a, b in zip(z, p, strict=True)]
        rz = rz_new
    return x


def _rms(rows: list[Row], x: list[float]) -> float:
    if not rows:
        return float("nan")
    total = 0.0
    for dense, sparse, label in rows:
        value = sum(a * b for a, b in zip(dense, x, strict=False))
        for column, sign in sparse:
            value += sign * x[column]
        total += (value - label) ** 2
    return math.sqrt(total / len(rows))


def _predict(position: tuple[int, int, int], fitted: tuple[list[float], dict[str, int]]) -> float:
    """The margin a phase's fitted weights predict for `position`, in discs."""
    x, columns = fitted
    ((dense, sparse, _label),) = _rows([position], columns, grow=False)
    return sum(a * b for a, b in zip(dense, x, strict=False)) + sum(
        sign * x[column] for column, sign in sparse
    )


def _empties(position: tuple[int, int, int]) -> int:
    return (~(position[0] | position[1]) & FULL).bit_count()


def _label(
    game: list[tuple[int, int, int]],
    index: int,
    fitted: dict[int, tuple[list[float], dict[str, int]]],
    *,
    phase: int,
    lookahead: int,
    exact_empties: int,
) -> int | float:
    """The label of `game[index]` for fitting `phase` (see the module: ``--lookahead``)."""
    position = game[index]
    empties = _empties(position)
    if not lookahead or empties <= exact_empties:
        return position[2]
    for later in game[index + 1 :]:
        later_empties = _empties(later)
        if later_empties > empties - lookahead:
            continue
        later_phase = phase_of(later_empties)
        if later_phase <= phase or later_phase not in fitted or not position[2] or not later[2]:
            break  # no fitted later phase, or a tie: which side is which is unknown
        value = later[2] if later_empties <= exact_empties else _predict(later, fitted[later_phase])
        # both labels are one final margin seen from each side to move: their signs relate them
        return value if (position[2] > 0) == (later[2] > 0) else -value
    return position[2]


def fit(
    games: list[list[tuple[int, int, int]]],
    *,
    ridge: float,
    overlap: int,
    iterations: int,
    lookahead: int = 0,
    exact_empties: int = 0,
) -> tuple[list[tuple[list[float], dict[str, int]]], list[str]]:
    """Per phase: (weights, edge class -> column); and the report's lines. Fits the last phase
    first, so that with a `lookahead` the earlier ones can be labelled by the later fits."""
    report: dict[int, str] = {}
    fitted: dict[int, tuple[list[float], dict[str, int]]] = {}
    for phase in reversed(range(PHASES)):
        own_empties = [e for e in range(61) if phase_of(e) == phase]
        low, high = min(own_empties) - overlap, max(own_empties) + overlap
        chosen: list[tuple[int, int, float]] = []
        own: list[tuple[int, int, float]] = []
        held: list[tuple[int, int, float]] = []
        for number, game in enumerate(games):
            for index, position in enumerate(game):
                empties = _empties(position)
                if not low <= empties <= high:
                    continue
                label = _label(
                    game,
                    index,
                    fitted,
                    phase=phase,
                    lookahead=lookahead,
                    exact_empties=exact_empties,
                )
                labelled = (position[0], position[1], label)
                if number % HOLDOUT_EVERY == 0:
                    if phase_of(empties) == phase:
                        held.append(labelled)
                    continue
                chosen.append(labelled)
                if phase_of(empties) == phase:
                    own.append(labelled)
        columns: dict[str, int] = {}
        rows = _rows(chosen, columns, grow=True)
        x = ridge_fit(rows, DENSE + len(columns), ridge=ridge, iterations=iterations)
        own_rows = _rows(own, columns, grow=False)
        held_rows = _rows(held, columns, grow=False)
        report[phase] = (
            f"phase {phase} (empties {min(own_empties)}-{max(own_empties)}): {len(rows)} rows "
            f"({len(own_rows)} its own), {len(columns)} edge classes; RMS error "
            f"{_rms(own_rows, x):.2f} fitted, {_rms(held_rows, x):.2f} held out "
            f"({len(held_rows)}) discs"
        )
        print(report[phase], flush=True)
        fitted[phase] = (x, columns)
    return [fitted[phase] for phase in range(PHASES)], [report[p] for p in range(PHASES)]


def write_model(
    path: Path, fitted: list[tuple[list[float], dict[str, int]]], header: list[str]
) -> None:
    lines = [
        "# Circles expert: the fitted evaluation (circles/ai_fitted.py reads it at import).",
        "# Made by bench/circles_fit.py (see its docstring); do not edit by hand.",
        f"# Integers in {SCALE} units per disc of predicted final margin, side to move's view.",
        "# phase <p> <bias> <parity> " + " ".join(f"<{name}>" for name in SCALARS),
        "#   phase p: (60 - empties) // 6, at most 9; parity counts +1 with an odd number of",
        "#   empty squares, -1 with an even one; each scalar is side to move minus the other.",
        f"# edge <pattern> <value in phase 0> ... <value in phase {PHASES - 1}>",
        "#   8 squares from a corner along an edge: x the side to move, o the other, . empty;",
        "#   the same value for the reverse, minus it for the colours swapped; unlisted: 0.",
        *(f"# {line}" for line in header),
    ]
    for phase, (x, _columns) in enumerate(fitted):
        values = [round(SCALE * v) for v in x[:DENSE]]
        lines.append(f"phase {phase} " + " ".join(str(v) for v in values))
    patterns = sorted({canon for _x, columns in fitted for canon in columns})
    for canon in patterns:
        values = []
        for x, columns in fitted:
            column = columns.get(canon)
            values.append(round(SCALE * x[column]) if column is not None else 0)
        if any(values):
            lines.append(f"edge {canon} " + " ".join(str(v) for v in values))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def speed(count: int, *, seed: int, rounds: int = 5) -> None:
    """Print evaluations per CPU second of hard's and the fitted evaluation (same positions)."""
    from circles.ai_eval import evaluate_with
    from circles.ai_fitted import fitted_evaluate_with

    positions: list[tuple[int, int, int, int]] = []
    index = 0
    while len(positions) < count:
        game = self_play(
            random.Random(f"speed:{seed}:{index}"), random_plies=10, epsilon=0.05, exact_empties=0
        )
        positions.extend((o, p, move_mask(o, p), move_mask(p, o)) for o, p, _label in game)
        index += 1
    positions = positions[:count]
    best = {"hard": 0.0, "fitted": 0.0}
    for _ in range(rounds):
        for name, function in (("hard", evaluate_with), ("fitted", fitted_evaluate_with)):
            started = time.process_time()
            for own, opp, own_moves, opp_moves in positions:
                function(own, opp, own_moves, opp_moves)
            rate = count / (time.process_time() - started)
            best[name] = max(best[name], rate)
    print(
        f"{count} positions from {index} games, best of {rounds} rounds: hard's evaluate_with "
        f"{best['hard']:,.0f}/s, fitted_evaluate_with {best['fitted']:,.0f}/s "
        f"(fitted/hard {best['fitted'] / best['hard']:.2f})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--random-plies", type=int, default=10)
    parser.add_argument("--epsilon", type=float, default=0.05)
    parser.add_argument("--exact-empties", type=int, default=10)
    parser.add_argument("--ridge", type=float, default=8.0)
    parser.add_argument("--overlap", type=int, default=2)
    parser.add_argument("--lookahead", type=int, default=0)
    parser.add_argument("--iterations", type=int, default=60)
    parser.add_argument("--positions", type=Path, help="keep (or reuse) the positions here")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--speed", type=int, metavar="N", help="time the evaluations only")
    args = parser.parse_args(argv)

    print(f"before: {machine_line()}", flush=True)
    if args.speed:
        speed(args.speed, seed=args.seed)
        print(f"after: {machine_line()}")
        return 0
    started = time.perf_counter()
    if args.positions is not None and args.positions.exists():
        games = read_positions(args.positions)
        source = f"read from {args.positions}"
    else:
        games = generate(args)
        source = (
            f"{args.games} self-play games, seed {args.seed}, up to {args.random_plies} random "
            f"plies, epsilon {args.epsilon}, exact from {args.exact_empties} empties"
        )
        if args.positions is not None:
            write_positions(args.positions, games)
    generated = time.perf_counter() - started
    positions = sum(len(game) for game in games)
    print(f"{positions} positions from {len(games)} games ({source}) in {generated:.0f} s")
    fitted, report = fit(
        games,
        ridge=args.ridge,
        overlap=args.overlap,
        iterations=args.iterations,
        lookahead=args.lookahead,
        exact_empties=args.exact_empties,
    )
    elapsed = time.perf_counter() - started
    command = (
        f"python -m bench.circles_fit --games {args.games} --seed {args.seed} --random-plies "
        f"{args.random_plies} --epsilon {args.epsilon} --exact-empties {args.exact_empties} "
        f"--ridge {args.ridge} --overlap {args.overlap} --lookahead {args.lookahead} "
        f"--iterations {args.iterations}"
    )
    header = [
        command,
        f"{positions} positions ({source}); every {HOLDOUT_EVERY}th game held out",
        *report,
    ]
    write_model(args.out, fitted, header)
    print(f"wrote {args.out}; positions {generated:.0f} s, total {elapsed:.0f} s")
    print(f"after: {machine_line()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
