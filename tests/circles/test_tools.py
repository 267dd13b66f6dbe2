"""The perft management command, the standalone benchmark, and the engine's purity."""

from __future__ import annotations

import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from bench import circles_perft
from tests.games.tictactoe import GAME_KIND as TICTACTOE

ROOT = Path(__file__).resolve().parents[2]


def test_perft_command_prints_a_row_per_depth():
    out = StringIO()
    call_command("perft", "circles", "--depth", "5", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0].split()[:4] == ["depth", "leaves", "seconds", "leaves/s"]
    rows = [line.split() for line in lines[1:]]
    assert [(row[0], row[1]) for row in rows] == [
        ("1", "4"),
        ("2", "12"),
        ("3", "56"),
        ("4", "244"),
        ("5", "1,396"),
    ]


def test_perft_command_refuses_unknown_kinds_and_engines_without_perft(tictactoe):
    with pytest.raises(CommandError, match="no game kind 'chess'"):
        call_command("perft", "chess")
    with pytest.raises(CommandError, match="no perft"):
        call_command("perft", TICTACTOE.kind)
    with pytest.raises(CommandError, match="at least 1"):
        call_command("perft", "circles", "--depth", "0")


def test_the_standalone_benchmark_checks_its_counts(capsys):
    assert circles_perft.main(["--depth", "6"]) == 0
    out = capsys.readouterr().out
    assert out.count(" ok") == 6
    assert "8,200" in out


def test_the_engine_and_computer_import_without_django():
    code = (
        "import sys, circles.rules, circles.ai, bench.circles_perft; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
