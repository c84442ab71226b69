"""The Linux desktop entry: `expert-gui.desktop` and the icon, installed for the current user
(freedesktop.org: $XDG_DATA_HOME/applications and the hicolor icon theme), so the app appears in
the applications menu and its windows get their icon in the taskbar."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from expert_gui import APP_NAME, __version__
from expert_gui.assets import ICON_NAME, icon_files

DESKTOP_FILE = "expert-gui.desktop"  # its stem is QGuiApplication.desktopFileName, so they match


def data_home() -> Path:
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")


def launch_command() -> str:
    """How the menu starts the app (the Exec key): the `expert-gui` script of this install,
    else this Python with `-m expert_gui`."""
    script = Path(sys.executable).with_name("expert-gui")
    if script.is_file():
        return _exec_argument(str(script))
    found = shutil.which("expert-gui")
    if found:
        return _exec_argument(found)
    return f"{_exec_argument(sys.executable)} -m expert_gui"


_RESERVED = set(' \t\n"\'\\><~|&;$*?#()`')


def _exec_argument(arg: str) -> str:
    """One argument of an Exec key as the Desktop Entry Specification quotes it: in double
    quotes (with ", `, $ and \\ escaped) when it holds a reserved character, % doubled, and
    every backslash doubled again by the string escaping that applies to the whole value."""
    arg = arg.replace("%", "%%")
    if any(ch in _RESERVED for ch in arg):
        arg = '"' + "".join("\\" + ch if ch in '"`$\\' else ch for ch in arg) + '"'
    return arg.replace("\\", "\\\\")


def desktop_entry_text() -> str:
    return "\n".join([
        "[Desktop Entry]",
        "Type=Application",
        f"Name={APP_NAME}",
        "GenericName=Expertise finder",
        "Comment=Who here knows most about a topic? Learned from your documents and their authors",
        f"Exec={launch_command()} %f",  # a file or folder dropped on the launcher opens
        f"Icon={ICON_NAME}",
        "Terminal=false",
        "Categories=Office;",
        "Keywords=expert;expertise;search;people;documents;",
        "StartupNotify=true",
        f"StartupWMClass={APP_NAME}",
        f"X-Expert-GUI-Version={__version__}",
        "",
    ])


def install_desktop_entry(home: Path | None = None) -> list[Path]:
    """Write the desktop entry and the icons under `home` (default $XDG_DATA_HOME or
    ~/.local/share); returns the files written. Raises OSError off Linux or on a write error."""
    if not sys.platform.startswith("linux"):
        raise OSError("desktop entries are for Linux desktops; on this system, start the app "
                      "with `expert-gui`")
    home = data_home() if home is None else home
    written = []
    for size, source in icon_files().items():
        folder = "scalable" if size == "svg" else f"{size}x{size}"
        target = home / "icons" / "hicolor" / folder / "apps" / f"{ICON_NAME}{source.suffix}"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        written.append(target)
    entry = home / "applications" / DESKTOP_FILE
    entry.parent.mkdir(parents=True, exist_ok=True)
    tmp = entry.with_suffix(".tmp")
    tmp.write_text(desktop_entry_text(), encoding="utf-8")
    tmp.chmod(0o755)
    os.replace(tmp, entry)
    written.append(entry)
    return written
