"""The `<id:...>` path converter: a row id in a URL, bounded by what the database can hold.

Django's `<int:...>` and DRF's digits-only lookups accept any number of digits, and an id of 2**63
or more then fails inside the database driver (SQLite: `OverflowError`, a 500) instead of finding
no row. This converter refuses such a path (Django answers 404, as for any URL that matches
nothing). Importing this module registers it; every URL module that uses it imports it.
"""

from __future__ import annotations

from django.urls import register_converter

# The largest value of a signed 64-bit column (BIGINT): no row id is larger.
MAX_ROW_ID = 2**63 - 1


# How the API schema documents such an id (drf-spectacular's PATH_CONVERTER_OVERRIDES).
ROW_ID_SCHEMA = {"type": "integer", "minimum": 0, "maximum": MAX_ROW_ID, "format": "int64"}


class RowIdConverter:
    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if number > MAX_ROW_ID:
            raise ValueError(f"{value} is larger than any row id")  # Django: no match, 404
        return number

    def to_url(self, value: int | str) -> str:
        return str(value)


register_converter(RowIdConverter, "id")
