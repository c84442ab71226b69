"""Before Qt starts on Linux, the app says in words what keeps it from opening a window."""

from pathlib import Path

import pytest

from expert_gui.gui import platform_check
from expert_gui.gui.platform_check import (
    DESKTOP_PACKAGES,
    debian_package,
    platform_problem,
    uses_xcb,
)

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.mark.parametrize("soname, package", [
    ("libxcb-cursor.so.0", "libxcb-cursor0"),
    ("libxcb-icccm.so.4", "libxcb-icccm4"),
    ("libxcb-render-util.so.0", "libxcb-render-util0"),
    ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
    ("libX11-xcb.so.1", "libx11-xcb1"),
    ("libEGL.so.1", "libegl1"),
    ("libdbus-1.so.3", "libdbus-1-3"),
    ("libglib-2.0.so.0", "libglib2.0-0"),
])
def test_debian_package_names(soname, package):
    assert debian_package(soname) == package


def test_which_sessions_use_the_x11_plugin(monkeypatch):
    monkeypatch.setattr(platform_check.sys, "platform", "linux")
    assert uses_xcb({"DISPLAY": ":0"})
    assert uses_xcb({"QT_QPA_PLATFORM": "xcb"})
    assert not uses_xcb({"QT_QPA_PLATFORM": "offscreen"})
    assert not uses_xcb({"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"})
    monkeypatch.setattr(platform_check.sys, "platform", "darwin")
    assert not uses_xcb({"DISPLAY": ":0"})


def test_missing_libraries_are_named_with_the_packages_to_install(monkeypatch, tmp_path):
    monkeypatch.setattr(platform_check.sys, "platform", "linux")
    plugin = tmp_path / "libqxcb.so"
    plugin.write_bytes(b"")
    monkeypatch.setattr(platform_check, "missing_libraries",
                        lambda p: ["libxcb-cursor.so.0", "libxcb-icccm.so.4"])
    text = platform_problem({"DISPLAY": ":0"}, plugin)
    assert "not installed: libxcb-cursor.so.0, libxcb-icccm.so.4" in text
    assert "sudo apt-get install libxcb-cursor0 libxcb-icccm4" in text
    monkeypatch.setattr(platform_check, "missing_libraries", lambda p: [])
    assert platform_problem({"DISPLAY": ":0"}, plugin) is None


def test_a_library_that_does_not_load_is_reported(tmp_path):
    broken = tmp_path / "libbroken.so"
    broken.write_bytes(b"not an ELF file")
    assert platform_check.missing_libraries(broken)  # the loader's complaint, not a crash


def test_no_display_is_said_in_words(monkeypatch):
    monkeypatch.setattr(platform_check.sys, "platform", "linux")
    assert "there is no display" in platform_problem({})


def test_the_readme_lists_every_package_a_linux_desktop_needs():
    readme = README.read_text(encoding="utf-8")
    section = readme[readme.index("## Linux desktop"):readme.index("## What it does")]
    assert all(package in section.split() for package in DESKTOP_PACKAGES)
