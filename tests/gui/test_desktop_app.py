"""The desktop application: its name, version and icon, Help > About, and the first-run welcome
that stays dismissed."""

import pytest
from PySide6.QtWidgets import QApplication

from expert_gui import APP_NAME, __version__
from expert_gui.core.paths import log_dir, models_dir
from expert_gui.gui import about, welcome
from expert_gui.gui.app import create_application
from expert_gui.gui.main_window import MainWindow

pytestmark = pytest.mark.gui


def test_the_application_has_its_name_version_and_icon(qapp):
    app = create_application()
    assert app.applicationName() == APP_NAME
    assert app.applicationVersion() == __version__
    assert app.organizationName() == "expert-gui"
    assert app.desktopFileName() == "expert-gui"
    assert not app.windowIcon().isNull()
    assert {s.width() for s in app.windowIcon().availableSizes()} >= {16, 32, 48, 256}


def test_about_names_versions_device_and_folders_it_can_open(qtbot, window, monkeypatch):
    opened = []
    monkeypatch.setattr(about, "open_folder", opened.append)
    qtbot.waitUntil(lambda: window.state.runner.running("device") is None, timeout=60_000)
    window.show_about()
    dialog = window.about_dialog
    details = dict(dialog.details)
    assert details[APP_NAME] == __version__
    for name in ("Python", "Qt", "PySide6", "torch"):
        assert details[name][0].isdigit()
    assert details["Device"].startswith(("CPU", "GPU"))
    assert details["Models folder"] == str(models_dir())
    dialog.folder_buttons["Logs"].click()
    assert opened == [log_dir()]
    dialog.copy_details()
    assert f"{APP_NAME}: {__version__}" in QApplication.clipboard().text()


def test_the_welcome_shows_on_the_first_run_only_and_comes_back_on_request(qtbot):
    first = MainWindow()
    qtbot.addWidget(first)
    assert first.welcome_bar is not None and "Open your collection" in welcome.WELCOME
    first.findChild(welcome.WelcomeBanner).dismissed.emit()
    assert first.welcome_bar is None
    second = MainWindow()
    qtbot.addWidget(second)
    assert second.welcome_bar is None  # remembered
    second.show_welcome()
    assert second.welcome_bar is not None


def test_the_welcomes_link_shows_the_formats_guide(qtbot, window, tmp_path, monkeypatch):
    guide = tmp_path / "collection-formats.md"
    guide.write_text("# Collection formats\n\nA folder of `documents.tsv` ...\n", encoding="utf-8")
    monkeypatch.setattr(welcome, "formats_guide_path", lambda: guide)
    window.show_welcome()
    window.findChild(welcome.WelcomeBanner).text.linkActivated.emit("guide")
    assert "documents.tsv" in window.guide_dialog.browser.toPlainText()
