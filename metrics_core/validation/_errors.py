"""The one exception type clustlens raises for bad input."""

from __future__ import annotations


class ClustlensInputError(ValueError):
    """Bad input: a malformed file, shape, label or value.

    The message always says which input (``source``), what is wrong and, where it
    can be located, where (``where``: a line, a variable, an index). It subclasses
    :class:`ValueError` so that generic callers can still catch it.

    Parameters
    ----------
    message : str
        What is wrong, in plain words.
    source : str, optional
        The file name or argument name the problem was found in.
    where : str, optional
        Where inside ``source`` (a line number, variable name, row index, ...).
    """

    def __init__(self, message: str, *, source: str | None = None, where: str | None = None):
        self.reason = message
        self.source = source
        self.where = where
        parts = []
        if source:
            parts.append(f"{source}:")
        parts.append(message)
        if where:
            parts.append(f"(at {where})")
        super().__init__(" ".join(parts))


# Tracebacks and doctests name the public path, not this private module.
ClustlensInputError.__module__ = "metrics_core"
