"""The project's typed errors: the only exceptions bad input may raise.

Each names the file (and line, where there is one) and says what was expected, so the CLI and
the GUI can show it to the user as it is.
"""

from __future__ import annotations

from pathlib import Path


class ExpertGuiError(Exception):
    """Base of every error the user can cause with bad input or settings."""


class InputFileError(ExpertGuiError):
    """A file that cannot be read as what it should be."""

    def __init__(self, path: str | Path, line: int | None, message: str):
        self.path = str(path)
        self.line = line
        self.message = message
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")


class CollectionError(InputFileError):
    """A collection file that cannot be parsed at all (malformed beyond a per-record problem)."""


class TopicsError(InputFileError):
    """A topics, qrels or run file that cannot be parsed."""


class ModelFileError(InputFileError):
    """A model folder that is missing, truncated, tampered with or of a newer format."""


class EmbeddingsFileError(InputFileError):
    """A pretrained word-vector file that cannot be parsed."""


class QueryError(ExpertGuiError):
    """A query that cannot be answered (for example, an unknown person id)."""


class UnknownPersonError(QueryError):
    """A person id the model does not know; `suggestions` are the closest ids it does know."""

    def __init__(self, person_id: str, suggestions: list[str]):
        self.person_id = person_id
        self.suggestions = suggestions
        hint = f"; closest: {', '.join(suggestions)}" if suggestions else ""
        super().__init__(f"no person with id {person_id!r}{hint}")


class TrainingError(ExpertGuiError):
    """Training stopped for a reason the user must see (for example, a non-finite loss)."""


class OutputFolderError(ExpertGuiError):
    """An output folder the program may not write into: foreign content, unwritable, or in use."""

    def __init__(self, path: str | Path, message: str):
        self.path = str(path)
        self.message = message
        super().__init__(f"{self.path}: {message}")
