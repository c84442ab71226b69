"""Where the records of a load were read (file and line), kept compactly for its reports."""

from __future__ import annotations

from array import array
from pathlib import Path


class Places:
    """Where many records were read, compactly: each file name once, then two integer arrays."""

    def __init__(self):
        self._files: list[str] = []
        self._file_index: dict[str, int] = {}
        self._file = array("i")
        self._line = array("q")  # -1: no line

    def append(self, file: str | Path, line: int | None) -> None:
        name = str(file)
        i = self._file_index.get(name)
        if i is None:
            i = self._file_index[name] = len(self._files)
            self._files.append(name)
        self._file.append(i)
        self._line.append(-1 if line is None else line)

    def __getitem__(self, k: int) -> tuple[str, int | None]:
        line = self._line[k]
        return self._files[self._file[k]], (None if line < 0 else line)
