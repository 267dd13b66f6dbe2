"""Helpers of the contract tests (`tests/<game>/test_serializers.py`): engine output checked
against each game's serializers, which refuse undeclared keys."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

AT = datetime(2025, 1, 1, tzinfo=UTC)


def errors(serializer_class: type, data: Any) -> Any:
    """The serializer's errors for `data` ({} when it fits); undeclared keys are errors too."""
    serializer = serializer_class(data=data)
    return {} if serializer.is_valid() else serializer.errors


def assert_fits(serializer_class: type, data: Any) -> None:
    assert errors(serializer_class, data) == {}, (serializer_class.__name__, data)


def log_entry(number: int, seat: int, logged: Any, viewer: int | None) -> dict[str, Any]:
    """A log entry as the platform serves it (`selectors.move_entry_for_seat`) to `viewer`."""
    entry = {**logged.public}
    if viewer is not None:
        entry.update(logged.private.get(viewer, {}))
    return {"number": number, "seat": seat, "at": AT, "imported": False, **entry}
