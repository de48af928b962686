"""The importers' error type, a file that cannot be imported said in a sentence, and the subclass marking a bug.

Pure logic: no Dagster imports.
"""

from __future__ import annotations

import functools


class ImportFileError(ValueError):
    """A file (or bytes) that cannot be imported. ``str()`` is a sentence naming the row/column when known."""

    def __init__(self, message: str, *, row: int | None = None, column: str | None = None):
        self.message = message
        self.row = row
        self.column = column
        super().__init__(self._render())

    def _render(self) -> str:
        where = []
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.column is not None:
            where.append(f"column '{self.column}'")
        if not where:
            return self.message
        place = ", ".join(where)
        return f"{place[0].upper()}{place[1:]}: {self.message}"

    def __str__(self) -> str:
        return self._render()

    def __reduce__(self):
        return (functools.partial(type(self), self.message, row=self.row, column=self.column), ())


class UnexpectedImportError(ImportFileError):
    """An ImportFileError wrapping an exception the parsers did not anticipate (a bug to fix, not bad input).

    Callers see an ordinary :class:`ImportFileError`; tests assert this subclass never appears.
    """
