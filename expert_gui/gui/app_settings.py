"""The app's remembered settings (`gui.ini` in the config folder), read so that no value of it can
stop the app from starting.

QSettings reads its file when first asked for a value: a FIFO there blocks the window forever,
and a value of the wrong kind (a list where a path belongs, a path of 50 MB) made the start-up
end in "Unexpected error". So the file is used only when it is a regular file (or absent); otherwise
the settings last for this session only. Each value is read
through a getter that checks its kind and size, and one that is malformed is ignored (and
dropped from the file). What was ignored, and a settings folder that cannot be written, is
collected for `notices()`, which the window shows once after it appears.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

from expert_gui.core.data.inputs import kind_of
from expert_gui.core.paths import config_dir, unwritable

SETTINGS_FILE = "gui.ini"
MAX_PATH = 4096  # the longest path (Linux's PATH_MAX), or line of text, a setting may hold

_notices: list[str] = []
_noted: set[str] = set()  # every notice once per process
_session: tempfile.TemporaryDirectory | None = None  # where settings go when gui.ini cannot


def settings() -> QSettings:
    """The app's settings: `gui.ini`, or settings for this session only when that is not a
    file QSettings can read without blocking (a FIFO, a device, a folder)."""
    path = config_dir() / SETTINGS_FILE
    why = not_a_file(path)
    if not why:
        why = unwritable(path.parent)
        if why:
            note(f"{path.parent}: {why}; settings changed now are not kept")
        return QSettings(str(path), QSettings.Format.IniFormat)
    global _session
    if _session is None:
        _session = tempfile.TemporaryDirectory(prefix="expert-gui-settings-")
        note(f"{path}: {why}; the app starts with its defaults and keeps settings for this "
              "session only")
    return QSettings(str(Path(_session.name) / SETTINGS_FILE), QSettings.Format.IniFormat)


def not_a_file(path: Path) -> str:
    """Why `path` is not a file the app can open without blocking ("" when it is, or is
    absent): a FIFO, a device or a folder."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return ""
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    return "" if stat.S_ISREG(mode) else f"{kind_of(mode)}, not a settings file"


def read_path(s: QSettings, key: str) -> Path | None:
    """A remembered path, or None (unset, or malformed: ignored and noted)."""
    value = read_text(s, key, "a path")
    return Path(value) if value else None


def read_text(s: QSettings, key: str, what: str = "text") -> str:
    """A remembered line of text ("" when unset, or malformed: ignored and noted)."""
    value = s.value(key)
    if value is None or value == "":
        return ""
    if not isinstance(value, str):
        return _ignore(s, key, f"expected {what}, found {_kind(value)}") or ""
    if len(value) > MAX_PATH or "\0" in value:
        found = "a NUL character" if "\0" in value else f"{len(value):,} characters"
        return _ignore(s, key, f"expected {what}, found {found}") or ""
    return value


def read_flag(s: QSettings, key: str) -> bool:
    """A remembered yes/no (False when unset, or malformed: ignored and noted)."""
    value = s.value(key)
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return bool(_ignore(s, key, f"expected true or false, found {_kind(value)}"))


def read_bytes(s: QSettings, key: str) -> QByteArray | None:
    """A remembered window geometry or state, or None (unset, or malformed: ignored)."""
    value = s.value(key)
    if value is None or isinstance(value, QByteArray):
        return value
    return _ignore(s, key, f"expected saved window data, found {_kind(value)}")


def notices() -> list[str]:
    """What the start-up passed over since the last call (a setting ignored, a user folder
    that cannot be written), one line each."""
    found = list(_notices)
    _notices.clear()
    return found


def _ignore(s: QSettings, key: str, why: str) -> None:
    note(f"the setting {key} in {s.fileName()} was ignored: {why}")
    s.remove(key)
    return None


def note(text: str) -> None:
    """Add a line for `notices()` (once per process)."""
    if text not in _noted:
        _noted.add(text)
        _notices.append(text)


def _kind(value) -> str:
    if isinstance(value, str):
        return f"text of {len(value):,} characters"
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)}"
    return type(value).__name__
