"""Where user files live: settings, caches, trained models and logs, as the platform expects.

`EXPERT_GUI_HOME` overrides all of them (tests and portable installs use it). A folder that
cannot be created or written (a read-only home, a file where the folder should be) is never
fatal: the functions still return its path, `unwritable` says why, and each user of it goes on
without it where the work does not need it (no cache, no saved settings, the log on stderr).
"""

from __future__ import annotations

import os
from pathlib import Path

import appdirs

APP_NAME = "expert-gui"
APP_AUTHOR = "expert-gui"


def _root(kind: str) -> Path:
    home = os.environ.get("EXPERT_GUI_HOME")
    if home:
        return Path(home) / kind
    getter = {
        "config": appdirs.user_config_dir,
        "cache": appdirs.user_cache_dir,
        "data": appdirs.user_data_dir,
        "log": appdirs.user_log_dir,
    }[kind]
    return Path(getter(APP_NAME, APP_AUTHOR))


def config_dir() -> Path:
    return _ensure(_root("config"))


def cache_dir() -> Path:
    return _ensure(_root("cache"))


def models_dir() -> Path:
    return _ensure(_root("data") / "models")


def log_dir() -> Path:
    return _ensure(_root("log"))


def user_folders() -> dict[str, Path]:
    """Every user folder by what it holds, as Help > About lists them."""
    return {"Models": models_dir(), "Logs": log_dir(), "Settings": config_dir(),
            "Cache": cache_dir()}


def _ensure(path: Path) -> Path:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        pass  # `unwritable(path)` says why
    return path


def unwritable(folder: Path) -> str:
    """Why the program cannot create files in `folder` ("" when it can); a folder that does not
    exist is judged by the nearest one above it. A read-only mount is named as such, not as a
    permission."""
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        return f"{folder} is a file, not a folder"
    try:
        read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (AttributeError, OSError):  # no statvfs (Windows): the access check says it
        read_only = False
    if read_only:
        return "read-only file system"
    if not os.access(folder, os.W_OK | os.X_OK):
        return "permission denied"
    return ""
