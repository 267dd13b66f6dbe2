"""`manage.py cirkis_board`: the committed data equals a fresh build; --check catches drift.

These tests touch no database (no `db` fixture), only files.
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from cirkis import board_build
from cirkis.management.commands import cirkis_board


def test_committed_board_data_equals_a_fresh_build():
    out = io.StringIO()
    call_command("cirkis_board", "--check", stdout=out)
    assert "up to date" in out.getvalue()


def test_check_fails_with_a_diff_when_the_file_is_stale(tmp_path, monkeypatch):
    stale = tmp_path / "board_data.json"
    text = board_build.BOARD_DATA_PATH.read_text(encoding="utf-8")
    stale.write_text(text.replace('"kind":"sliver"', '"kind":"kite"', 1), encoding="utf-8")
    monkeypatch.setattr(cirkis_board, "BOARD_DATA_PATH", stale)
    with pytest.raises(CommandError) as excinfo:
        call_command("cirkis_board", "--check", stdout=io.StringIO())
    message = str(excinfo.value)
    assert "differs from a fresh build" in message
    assert "cirkis_board --write" in message
    assert '-    {"id":155,"kind":"kite"' in message
    assert '+    {"id":155,"kind":"sliver"' in message


def test_write_regenerates_the_file(tmp_path, monkeypatch):
    target = tmp_path / "board_data.json"
    monkeypatch.setattr(cirkis_board, "BOARD_DATA_PATH", target)
    call_command("cirkis_board", "--write", stdout=io.StringIO())
    assert target.read_text(encoding="utf-8") == board_build.BOARD_DATA_PATH.read_text(
        encoding="utf-8"
    )


def test_svg_draws_every_field(tmp_path):
    target = tmp_path / "board.svg"
    call_command("cirkis_board", "--svg", str(target), stdout=io.StringIO())
    root = ET.parse(target).getroot()
    ns = {"svg": "http://www.w3.org/2000/svg"}
    titles = [t.text for t in root.iterfind(".//svg:polygon/svg:title", ns)]
    assert len(titles) == 165
    assert "field 155 (sliver)" in titles


def test_command_needs_an_action():
    with pytest.raises(CommandError, match="--write"):
        call_command("cirkis_board", stdout=io.StringIO())
