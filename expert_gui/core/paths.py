"""Where user files live: settings, caches, trained models and logs, as the platform expects.

`EXPERT_GUI_HOME` overrides all of them (tests and portable installs use it).
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


def _ensure(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path
