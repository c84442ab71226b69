"""Before Qt starts on Linux: can it open a window at all? If not, say why in words.

Qt's X11 plugin ("xcb") needs system libraries that a bare Debian or Ubuntu install lacks
(libxcb-cursor0, libxcb-icccm4, ...). Without them Qt prints one line about a platform plugin and
aborts. Loading the plugin ourselves first names the missing libraries and the packages that
hold them (README.md, "Linux desktop", lists them all).
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

# Debian/Ubuntu packages of the libraries the xcb plugin and Qt's GUI modules load.
DESKTOP_PACKAGES = (
    "libegl1 libgl1 libfontconfig1 libfreetype6 libglib2.0-0 libdbus-1-3 libx11-6 libx11-xcb1 "
    "libxkbcommon0 libxkbcommon-x11-0 libxcb1 libxcb-cursor0 libxcb-glx0 libxcb-icccm4 "
    "libxcb-image0 libxcb-keysyms1 libxcb-randr0 libxcb-render0 libxcb-render-util0 "
    "libxcb-shape0 libxcb-shm0 libxcb-sync1 libxcb-util1 libxcb-xfixes0 libxcb-xkb1"
).split()

# Where Debian's package name does not follow from the library's name.
PACKAGE_EXCEPTIONS = {"libglib-2.0.so.0": "libglib2.0-0", "libgthread-2.0.so.0": "libglib2.0-0"}

_SONAME = re.compile(r"(lib[\w.+-]+?\.so(?:\.\d+)*)")


def debian_package(soname: str) -> str:
    """The Debian package that ships a library, by Debian's naming rule: libfoo.so.4 is in
    libfoo4, and libfoo-x11.so.0 in libfoo-x11-0 (a dash when the name ends in a digit)."""
    if soname in PACKAGE_EXCEPTIONS:
        return PACKAGE_EXCEPTIONS[soname]
    m = re.fullmatch(r"(lib[\w.+-]+?)\.so\.(\d+)(?:\.\d+)*", soname)
    if m is None:
        return soname
    name, version = m.group(1).lower(), m.group(2)
    return f"{name}-{version}" if name[-1].isdigit() else f"{name}{version}"


def xcb_plugin() -> Path:
    import PySide6

    return Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"


def uses_xcb(env=os.environ) -> bool:
    """Whether Qt will pick its X11 plugin: on Linux, unless told otherwise or in a Wayland
    session (where Qt 6 takes its Wayland plugin)."""
    if not sys.platform.startswith("linux"):
        return False
    chosen = env.get("QT_QPA_PLATFORM", "")
    if chosen:
        return chosen.split(":")[0].split(";")[0] == "xcb"
    return not (env.get("WAYLAND_DISPLAY") and env.get("XDG_SESSION_TYPE") == "wayland")


def missing_libraries(plugin: Path) -> list[str]:
    """The libraries the plugin needs and the system lacks ([] when it loads)."""
    try:
        ctypes.CDLL(str(plugin))
        return []
    except OSError as exc:
        first = _SONAME.search(str(exc))
        missing = [first.group(1)] if first else [str(exc)]
    if shutil.which("ldd"):  # the loader stops at the first; ldd names them all
        try:
            out = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True,
                                 timeout=10).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        listed = [line.split()[0] for line in out.splitlines() if "not found" in line]
        missing = list(dict.fromkeys(listed)) or missing
    return missing


def platform_problem(env=os.environ, plugin: Path | None = None) -> str | None:
    """Why the app cannot open a window here, in words; None when nothing is known wrong."""
    if not uses_xcb(env):
        return None
    if not env.get("DISPLAY"):
        return ("Expertise Explorer cannot open its window: there is no display (DISPLAY is not "
                "set). Run it in a desktop session, or over SSH with X forwarding (ssh -X). The "
                "command line (expert-gui stats, train, query, ...) works without one.")
    plugin = plugin or xcb_plugin()
    if not plugin.is_file():
        return None  # not a layout we know: let Qt speak for itself
    missing = missing_libraries(plugin)
    if not missing:
        return None
    packages = " ".join(dict.fromkeys(debian_package(m) for m in missing))
    return (f"Expertise Explorer cannot open its window: Qt's X11 plugin needs system "
            f"libraries that are not installed: {', '.join(missing)}.\n"
            f"On Debian or Ubuntu, install them with:\n\n    sudo apt-get install {packages}\n\n"
            "README.md (\"Linux desktop\") lists every package a Linux desktop needs. The command "
            "line (expert-gui stats, train, query, ...) works without them.")
