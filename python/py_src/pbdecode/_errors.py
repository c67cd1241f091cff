"""The package's exceptions (raised by the native module as well)."""

from __future__ import annotations


class DecodeError(ValueError):
    """The input was turned down: the JSON error object of ``decode --json``.

    ``check`` is the name scripts match on (``size``, ``wire``,
    ``model-ir_version``), ``path`` the field path (``""`` at the top),
    ``offset`` the byte offset, ``message`` what failed; ``hint``, for a
    well-known file that is no protobuf, what it looks like and what reads
    it (the command's ``this looks like ..`` note), else None; in a file in
    protobuf's text format, ``line`` and ``column`` (1-based) say where,
    and ``offset`` is the byte offset in the text (else both are None).
    """

    def __init__(
        self,
        text: str,
        check: str,
        path: str,
        offset: int,
        message: str,
        hint: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ):
        super().__init__(text)
        self.check = check
        self.path = path
        self.offset = offset
        self.message = message
        self.hint = hint
        self.line = line
        self.column = column

    def __reduce__(self):
        return (
            type(self),
            (str(self), self.check, self.path, self.offset, self.message, self.hint, self.line, self.column),
        )

    def to_dict(self) -> dict:
        """The ``{"check", "path", "offset", "message"}`` object (with
        ``"line"`` and ``"column"`` for a text file)."""
        d = {"check": self.check, "path": self.path, "offset": self.offset, "message": self.message}
        if self.line is not None:
            d["line"] = self.line
            d["column"] = self.column
        return d


class ValuesUnavailable(ValueError):
    """One tensor's values cannot be read (its external data missing, short,
    outside the folder or failing its checksum; a data type without a
    decoding); ``reason`` is what ``--json`` says as ``values_unavailable``.
    Raised for that tensor only, never when a file is opened."""

    def __init__(self, tensor: str, reason: str):
        super().__init__(f"tensor {tensor!r}: values not available: {reason}" if tensor else reason)
        self.tensor = tensor
        self.reason = reason

    def __reduce__(self):
        return (type(self), (self.tensor, self.reason))
