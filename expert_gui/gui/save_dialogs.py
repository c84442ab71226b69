"""Where the app saves what the user asks it to (a ranking, a report, embeddings): the dialogs
start in the last folder the user saved to (it used to be the program's own folder), and a file
name typed without an extension gets the one of the type chosen ("ranking" was saved as
"ranking", which no spreadsheet opens)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import QFileDialog, QWidget

from expert_gui.gui.app_settings import read_path, settings

LAST_FOLDER = "last/save_folder"


def start_folder() -> Path:
    """The last folder saved to, while it exists; else the user's documents folder."""
    last = read_path(settings(), LAST_FOLDER)
    if last is not None and last.is_dir():
        return last
    documents = QStandardPaths.writableLocation(
        QStandardPaths.StandardLocation.DocumentsLocation)
    return Path(documents) if documents and Path(documents).is_dir() else Path.home()


def remember(folder: Path) -> None:
    settings().setValue(LAST_FOLDER, str(folder))


def file_stem(text: str, fallback: str) -> str:
    """`text` as a file name's stem (letters, digits, '-' and '_'; at most 40 characters):
    'neural network' -> 'neural-network'; `fallback` when nothing is left."""
    stem = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in text.strip())
    return "-".join(part for part in stem.split("-") if part)[:40].strip("-") or fallback


def save_file(parent: QWidget | None, title: str, name: str,
              types: dict[str, str]) -> tuple[Path, str] | None:
    """Ask where to save a file; `types` maps each type's filter ("CSV (*.csv)") to the
    extension a name typed without one gets. The path and the type chosen, or None."""
    path, chosen = QFileDialog.getSaveFileName(parent, title, str(start_folder() / name),
                                               ";;".join(types))
    if not path:
        return None
    path = Path(path)
    if not path.suffix:
        path = path.with_name(path.name + types.get(chosen, next(iter(types.values()))))
    remember(path.parent)
    return path, chosen


def choose_folder(parent: QWidget | None, title: str) -> Path | None:
    """Ask for a folder to save into; None when cancelled."""
    folder = QFileDialog.getExistingDirectory(parent, title, str(start_folder()))
    if not folder:
        return None
    remember(Path(folder))
    return Path(folder)
