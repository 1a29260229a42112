"""The importer's one error type: a message a user can act on."""

from __future__ import annotations


class ImportError_(Exception):
    """Raised for anything the importer refuses; the message names what,
    where (the user's source line when known) and what to change. (The
    trailing underscore keeps it apart from Python's built-in ImportError.)"""

    def __init__(self, message: str, where: str | None = None, hint: str | None = None):
        self.message = message
        self.where = where
        self.hint = hint
        text = message
        if where:
            text += f"\n  at {where}"
        if hint:
            text += f"\n  {hint}"
        super().__init__(text)
