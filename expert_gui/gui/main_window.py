"""The main window: menus, toolbar, status bar and one dock per panel, its layout remembered."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QRect, QSize, Qt, QTimer
from PySide6.QtGui import (
    QAction,
    QDragEnterEvent,
    QDropEvent,
    QGuiApplication,
    QKeySequence,
    QShortcut,
)
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QDockWidget,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QTabWidget,
    QTextEdit,
    QToolBar,
    QWidget,
)

from expert_gui import APP_NAME
from expert_gui.assets import demo_collection_path
from expert_gui.core.paths import log_dir
from expert_gui.core.store.model_folders import partial_text
from expert_gui.gui.about import AboutDialog
from expert_gui.gui.app_settings import (
    notices,
    read_bytes,
    read_flag,
    read_path,
    read_text,
    settings,
)
from expert_gui.gui.panels.collection import CollectionPanel
from expert_gui.gui.panels.comparison import ComparisonPanel
from expert_gui.gui.panels.entropy import EntropyPanel
from expert_gui.gui.panels.neighbours import NeighboursPanel
from expert_gui.gui.panels.profile import ProfilePanel
from expert_gui.gui.panels.query import QueryPanel
from expert_gui.gui.panels.reviewers.panel import ReviewersPanel
from expert_gui.gui.panels.training.model_list import model_warning
from expert_gui.gui.panels.training.panel import TrainingPanel
from expert_gui.gui.panels.training.saved_models import WARNING_SIGN
from expert_gui.gui.session import Session
from expert_gui.gui.state import AppState
from expert_gui.gui.table_columns import columns_from_text, columns_text, table_to_preview
from expert_gui.gui.welcome import GuideDialog, WelcomeBanner
from expert_gui.gui.widgets import ElidedLabel, StatusBar

log = logging.getLogger("expert_gui.gui")
DEFAULT_SIZE = QSize(1280, 800)
SCREEN_SHARE = 0.9  # a new window takes at most this share of the screen's free area

# Background work named in the status bar while it runs, by TaskRunner slot.
BUSY_LABELS = {"load": "loading", "model": "opening the model", "model2": "indexing Model 2",
               "entropy": "ranking topics", "evaluation": "evaluating", "word-map": "mapping words",
               "profile": "profiling", "profile-topics": "ranking topics for profiles",
               "people-map": "mapping people", "export": "exporting embeddings",
               "report": "writing the report", "query-ranker": "indexing for the query",
               "rankers": "preparing the methods",
               "every-document": "indexing every document for the words held out",
               "reviewers-load": "reading the papers",
               "reviewers-run": "assigning reviewers", "reviewers-export": "saving the assignment"}


# The most characters of the device's name kept whole in a crowded status bar.
DEVICE_CHARS = 24

# Background work that writes files: quitting waits for it to finish (or save and stop).
WRITING_TASKS = ("training", "load", "export", "report", "reviewers-export")


def fit_rect(rect: QRect, available: QRect) -> QRect:
    """`rect` shrunk to fit inside `available` and moved into it (a window restored from a
    larger screen, or from a session at another scale factor, must open whole)."""
    width = min(rect.width(), available.width())
    height = min(rect.height(), available.height())
    x = min(max(rect.x(), available.left()), available.left() + available.width() - width)
    y = min(max(rect.y(), available.top()), available.top() + available.height() - height)
    return QRect(x, y, width, height)


class ShortcutsEverywhere(QObject):
    """The window's menu shortcuts work wherever the focus is.

    A text field claims some keys for itself before shortcuts are looked up (Ctrl+E moves a
    line edit's cursor to the end of the line on X11), so Ctrl+E typed in the query box used to
    edit the query instead of exporting. Installed on the window's text fields, this filter
    keeps those claims from the window's own shortcuts.
    """

    EDITORS = (QLineEdit, QAbstractSpinBox, QPlainTextEdit, QTextEdit)

    def __init__(self, window: QMainWindow, actions: list[QAction]):
        super().__init__(window)
        self.actions = actions
        for kind in self.EDITORS:
            for editor in window.findChildren(kind):
                editor.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        if event.type() != QEvent.Type.ShortcutOverride:
            return False
        pressed = QKeySequence(event.keyCombination())
        for action in self.actions:
            if action.isEnabled() and any(
                    s.matches(pressed) == QKeySequence.SequenceMatch.ExactMatch
                    for s in action.shortcuts()):
                return True  # not claimed by the widget: the shortcut fires
        return False


def compute_device_text() -> str:
    """The GPU's name, or the CPU and its thread count. It imports torch, and what torch imports
    when a process makes its first optimiser (torch._dynamo: about a second, which the first
    Train click of a session waited for): seconds, which the window spends in the background."""
    import torch

    torch.optim.Adadelta([torch.zeros(1, requires_grad=True)])
    if torch.cuda.is_available():
        return f"GPU: {torch.cuda.get_device_name(0)}"
    return f"CPU: {torch.get_num_threads()} threads"


class MainWindow(QMainWindow):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(APP_NAME)
        self.setObjectName("main-window")
        self.setAcceptDrops(True)
        self.state = AppState(self)
        self.collection_panel = CollectionPanel(self.state)
        self.training_panel = TrainingPanel(self.state)
        self.query_panel = QueryPanel(self.state)
        self.entropy_panel = EntropyPanel(self.state)
        self.neighbours_panel = NeighboursPanel(self.state)
        self.comparison_panel = ComparisonPanel(self.state)
        self.profile_panel = ProfilePanel(self.state)
        self.reviewers_panel = ReviewersPanel(self.state)
        self.panels = {
            "Collection": self.collection_panel,
            "Training": self.training_panel,
            "Query": self.query_panel,
            "Entropy": self.entropy_panel,
            "Nearest terms": self.neighbours_panel,
            "Model 2 comparison": self.comparison_panel,
            "Profile": self.profile_panel,
            "Reviewers": self.reviewers_panel,
        }
        self.docks: dict[str, QDockWidget] = {}
        self.shortcut_actions: list[QAction] = []
        self._build_docks()
        self._build_status_bar()
        self._build_actions()
        self.state.message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        # After the messages of the collection that caused it, so it is the one left showing.
        self.state.model_dropped.connect(lambda text: QTimer.singleShot(
            0, lambda: self.statusBar().showMessage(text, 15000)))
        self.state.model_changed.connect(self._show_model_state)
        self.state.retraining_changed.connect(lambda: self._show_model_state(self.state.model))
        self.state.model_changed.connect(
            lambda model: self.export_embeddings_action.setEnabled(model is not None))
        self.state.collection_changed.connect(self._remember_collection)
        self.state.query_requested.connect(lambda _: self.show_panel("Query"))
        self.state.profile_requested.connect(lambda _: self.show_panel("Profile"))
        self.state.collection_requested.connect(self.collection_panel.open_collection)
        self.state.reread_requested.connect(self.collection_panel.reread)
        self._pending_train = False  # Ctrl+T during a load: the collection before it, until done
        self.state.runner.finished.connect(self._load_ended)
        self.state.model_requested.connect(self.training_panel.open_model)
        self.shortcuts = ShortcutsEverywhere(self, self.shortcut_actions)
        self.session = Session(self, settings())
        self.resize(self._default_size())
        # Before the layout is restored: Qt restores a maximized window's layout once it has its
        # size, and a bar added in between is left out of it, its "Got it" over the menus.
        self.welcome_bar: QToolBar | None = None
        if not read_flag(settings(), "welcome/dismissed"):
            self.show_welcome()
        self._restore_layout()

    # -- building ---------------------------------------------------------------------------------
    def _build_docks(self) -> None:
        self.setDockOptions(QMainWindow.DockOption.AllowTabbedDocks
                            | QMainWindow.DockOption.AllowNestedDocks
                            | QMainWindow.DockOption.AnimatedDocks)
        self.setTabPosition(Qt.DockWidgetArea.AllDockWidgetAreas, QTabWidget.TabPosition.North)
        first = None
        for title, panel in self.panels.items():
            dock = QDockWidget(title, self)
            dock.setObjectName(f"dock-{title.lower().replace(' ', '-')}")
            dock.setWidget(panel)
            dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                             | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                             | QDockWidget.DockWidgetFeature.DockWidgetClosable)
            self.addDockWidget(Qt.DockWidgetArea.TopDockWidgetArea, dock)
            if first is None:
                first = dock
            else:
                self.tabifyDockWidget(first, dock)
            self.docks[title] = dock
        self.setCentralWidget(None)
        first.raise_()

    def _action(self, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
            self.shortcut_actions.append(action)
        action.setStatusTip(tip)
        action.setToolTip(f"{tip} ({QKeySequence(shortcut).toString()})" if shortcut else tip)
        action.triggered.connect(slot)
        return action

    def _build_actions(self) -> None:
        cp, tp, qp = self.collection_panel, self.training_panel, self.query_panel
        self.open_action = self._action("&Open collection…", cp.choose_collection,
                                        QKeySequence.StandardKey.Open,
                                        "Open a collection: a file (an export from Web of "
                                        "Science, PubMed, Scopus, Zotero, EndNote…, a table, "
                                        "TREC) or a folder (TSV files, exports, a git "
                                        "repository, text files)")
        self.demo_action = self._action("Open &demo collection", self.open_demo, None,
                                        "Open the demo collection shipped with the app")
        self.topics_action = self._action("Open &topics…", cp.choose_topics, "Ctrl+Shift+T",
                                          "Open a topic set (TSV, SERT or TREC)")
        self.qrels_action = self._action("Open &qrels…", cp.choose_qrels, "Ctrl+Shift+Q",
                                         "Open relevance judgments (TREC qrels)")
        self.model_action = self._action("Open &model…", tp.choose_model, "Ctrl+Shift+O",
                                         "Open a trained model folder")
        self.export_action = self._action("&Export ranking…", qp.export_ranking, "Ctrl+E",
                                          "Save the current ranking as CSV or a TREC run")
        self.export_embeddings_action = self._action(
            "Export em&beddings…", self.profile_panel.export_embeddings, None,
            "Save word and person embeddings for the TensorBoard Projector "
            "(vectors.tsv + metadata.tsv)")
        self.export_embeddings_action.setEnabled(self.state.model is not None)
        quit_action = self._action("&Quit", self.close, QKeySequence.StandardKey.Quit, "Quit")
        self.train_action = self._action("&Train", self.train_when_ready, "Ctrl+T",
                                         "Train a model on the open collection")
        # A disabled action takes no shortcut: while a setting is refused, Ctrl+T still shows
        # the field and says why (enabled only then, so the two never share the key).
        self.refused_train = QShortcut(QKeySequence("Ctrl+T"), self, self.train_when_ready)
        self.refused_train.setEnabled(False)
        self.pause_action = self._action("&Pause / resume", tp.toggle_pause, "Ctrl+P",
                                         "Pause or resume training")
        self.stop_action = self._action("&Stop training", tp.stop_training, "Ctrl+.",
                                        "Stop training, keeping the last checkpoint")
        self.query_action = self._action("&Query", self.focus_query, "Ctrl+L",
                                         "Type a query")

        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        for a in (self.open_action, self.demo_action, self.topics_action,
                  self.qrels_action, self.model_action, self.export_action,
                  self.export_embeddings_action):
            file_menu.addAction(a)
        file_menu.addSeparator()
        file_menu.addAction(quit_action)
        model_menu = bar.addMenu("&Model")
        for a in (self.train_action, self.pause_action, self.stop_action, self.query_action):
            model_menu.addAction(a)
        view_menu = bar.addMenu("&View")
        for i, title in enumerate(self.docks, start=1):
            show = self._action(title, lambda _=False, t=title: self.show_panel(t), f"Alt+{i}",
                                f"Show the {title} panel")
            view_menu.addAction(show)
        view_menu.addSeparator()
        view_menu.addAction(self._action("Reset layout", self.reset_layout, None,
                                         "Put every panel back in its tab"))
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self._action("&Getting started", self.show_welcome, None,
                                         "The three steps: open your collection, train, ask"))
        help_menu.addAction(self._action("Collection &formats", self.show_formats_guide, None,
                                         "How to lay out your documents and their authors"))
        if sys.platform.startswith("linux"):
            help_menu.addAction(self._action(
                "Add to applications &menu", self.install_desktop_entry, None,
                "Install a desktop entry and the icon, so the app is in your menu"))
        help_menu.addAction(self._action("Show log folder", self.show_log_folder, None,
                                         "Where the log file is"))
        help_menu.addSeparator()
        help_menu.addAction(self._action("&About", self.show_about, None, "About this app"))

        toolbar = self.addToolBar("Main")
        toolbar.setObjectName("toolbar-main")
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        for a in (self.open_action, self.model_action, self.train_action, self.pause_action,
                  self.stop_action, self.query_action, self.export_action):
            toolbar.addAction(a)
        tp.training_state_changed.connect(self._update_training_actions)
        self._update_training_actions()

    def _build_status_bar(self) -> None:
        # Every label of the status bar shortens itself rather than widen the window, after a
        # whole word (a path-like label, in its middle).
        self.setStatusBar(StatusBar(self))
        self.device_label = ElidedLabel("Device: …")
        self.device_label.setObjectName("device-label")
        self.state.runner.start("device", compute_device_text, on_success=self._show_device)
        self.model_label = ElidedLabel("No model", words=True)
        self.model_label.setObjectName("model-label")
        self.busy_label = ElidedLabel("", words=True)
        self.busy_label.setObjectName("busy-label")
        self.busy_label.setStyleSheet("color: #495057;")
        self._busy_details: dict[str, str] = {}  # a task's own words for what it does now
        self.state.runner.started.connect(self._show_busy)
        self.state.runner.finished.connect(self._show_busy)
        self.state.busy_detail.connect(self._busy_detail)
        self.training_label = ElidedLabel("Training…", words=True)
        self.training_label.setObjectName("training-label")
        self.training_label.setVisible(False)
        for label in (self.busy_label, self.training_label, self.model_label, self.device_label):
            label.setContentsMargins(8, 0, 8, 0)
            self.statusBar().addPermanentWidget(label)

    def _show_device(self, text: str) -> None:
        """A few words ("CPU: 2 threads"), kept whole (up to DEVICE_CHARS) when the other labels
        crowd the bar and shorten instead: a measured model answering while a run trains it
        again, beside the work in the background, left "CPU: …reads" under Xvfb."""
        label = self.device_label
        label.setText(text)
        label.setMinimumWidth(min(label.sizeHint().width(),
                                  label.fontMetrics().averageCharWidth() * DEVICE_CHARS))

    # -- actions ----------------------------------------------------------------------------------
    def show_panel(self, title: str) -> None:
        dock = self.docks[title]
        dock.show()
        dock.raise_()

    def focus_query(self) -> None:
        """Ctrl+L: the query box, always (it takes a query before any model: the baselines
        answer it)."""
        self.show_panel("Query")
        self.query_panel.focus_query()
        edit, text = self.query_panel.query_edit, self.query_panel.query_edit.text()
        # once the dock is raised; not over what was typed meanwhile (keys queued while the
        # GUI thread was busy ran before this, and selecting them let the next key erase them)
        QTimer.singleShot(0, lambda: edit.text() == text and self.query_panel.focus_query())

    def train_when_ready(self) -> None:
        """Ctrl+T: train now, or as soon as the collection being loaded is open, or say why
        not (pressed while the demo loaded, it used to be ignored without a word)."""
        tp = self.training_panel
        if tp.is_training():
            return
        if self.state.runner.unhandled("load") is not None:
            self._pending_train = self.state.collection
            self.statusBar().showMessage("Training starts when the collection has loaded.",
                                         15000)
            return
        if self.state.collection is None:
            self.statusBar().showMessage("Nothing to train on yet: open a collection first "
                                         "(Ctrl+O).", 8000)
            return
        if tp.form.problem()[1]:
            self.show_panel("Training")  # where the field to change is
        tp.start_training()

    def _load_ended(self, slot: str) -> None:
        """A Ctrl+T pressed during the load is acted on now, or told why not."""
        if slot != "load" or self._pending_train is False:
            return
        before, self._pending_train = self._pending_train, False
        if self.state.collection is not None and self.state.collection is not before:
            self.training_panel.start_training()
        else:
            self.statusBar().showMessage("Not training: the collection did not load.", 15000)

    def open_demo(self) -> None:
        path = demo_collection_path()
        if path is None:
            QMessageBox.information(self, APP_NAME, "The demo collection is not installed.")
            return
        self.collection_panel.open_collection(path)

    def open_startup_collection(self, named: Path | None = None) -> None:
        """The collection `named` on the command line, else the last one when it still exists
        (the demo on a first launch); then the last model, but only if it belongs to that
        collection. A collection named that is not the last opens without the last session's
        query and model."""
        s = settings()
        last = read_path(s, "last/collection")
        if named is not None and (last is None or named.resolve() != last.resolve()):
            self.collection_panel.open_collection(named)
            self.show_notices()
            return
        model = read_path(s, "last/model")
        if model is not None and model.is_dir():
            self.training_panel.restore_after_collection(model)
        if last is not None and last.exists():
            self.session.start()  # the query, method and person of the last session
            columns = columns_from_text(read_text(s, "last/columns"))
            if columns is not None and table_to_preview(last) is None:
                columns = None  # no longer a table
            self.collection_panel.open_collection(last, columns)
        else:
            self.open_demo()
        self.show_notices()

    def show_notices(self, more: list[str] = ()) -> None:
        """What the start-up passed over (a setting ignored, a folder that cannot be written),
        in one dialog that does not block, and in the log."""
        lines = [*more, *notices()]
        if not lines:
            return
        for line in lines:
            log.warning("%s", line)
        box = QMessageBox(QMessageBox.Icon.Information, APP_NAME,
                          "The app started without some of what it keeps:", parent=self)
        box.setInformativeText("\n\n".join(lines))
        box.setModal(False)
        box.setObjectName("startup-notice")
        box.show()

    def show_about(self) -> None:
        device = self.device_label.text() if self.state.runner.running("device") is None \
            else "being detected…"
        self.about_dialog = AboutDialog(device, self)
        self.about_dialog.open()

    def show_welcome(self) -> None:
        """The first-run banner above the panels (again, from Help > Getting started)."""
        if self.welcome_bar is not None:
            return
        banner = WelcomeBanner()
        banner.dismissed.connect(self.dismiss_welcome)
        banner.guide_requested.connect(self.show_formats_guide)
        self.welcome_bar = QToolBar("Welcome", self)
        self.welcome_bar.setObjectName("toolbar-welcome")
        self.welcome_bar.setMovable(False)
        self.welcome_bar.addWidget(banner)
        self.addToolBarBreak()
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.welcome_bar)

    def dismiss_welcome(self) -> None:
        settings().setValue("welcome/dismissed", True)
        if self.welcome_bar is not None:
            self.removeToolBar(self.welcome_bar)
            self.welcome_bar.deleteLater()
            self.welcome_bar = None

    def show_formats_guide(self) -> None:
        self.guide_dialog = GuideDialog(self)
        self.guide_dialog.show()

    def install_desktop_entry(self) -> None:
        from expert_gui.desktop_entry import install_desktop_entry

        try:
            written = install_desktop_entry()
        except OSError as exc:
            QMessageBox.warning(self, APP_NAME, f"Could not add the app to the menu: {exc}")
            return
        QMessageBox.information(self, APP_NAME, f"{APP_NAME} is now in your applications menu "
                                f"(desktop entry: {written[-1]}).")

    def show_log_folder(self) -> None:
        QMessageBox.information(self, "Log folder", str(log_dir()))

    def reset_layout(self) -> None:
        docks = list(self.docks.values())
        for dock in docks:
            dock.setFloating(False)
            self.addDockWidget(Qt.DockWidgetArea.TopDockWidgetArea, dock)
            dock.show()
        for dock in docks[1:]:
            self.tabifyDockWidget(docks[0], dock)
        docks[0].raise_()

    def _update_training_actions(self) -> None:
        tp = self.training_panel
        # As the panel's Train, except without a collection (Ctrl+T then says why it cannot,
        # or trains once the collection being loaded is open).
        _, problem = tp.form.problem()
        self.train_action.setEnabled(not tp.is_training() and not problem)
        self.refused_train.setEnabled(not tp.is_training() and bool(problem))
        self.train_action.setToolTip(f"Cannot train: {problem}" if problem else
                                     "Train a model on the open collection (Ctrl+T)")
        self.pause_action.setEnabled(tp.is_training())
        self.stop_action.setEnabled(tp.is_training())
        self.training_label.setVisible(tp.is_training())
        self.query_panel.set_training(tp.training_collection())
        paused = tp.is_paused()
        self.training_label.setText(tp.brief_activity())
        self.training_label.setStyleSheet("color: #495057; font-weight: bold;" if paused
                                          else "color: #d9480f; font-weight: bold;")

    def _busy_detail(self, slot: str, text: str) -> None:
        self._busy_details[slot] = text
        self._show_busy()

    def _show_busy(self, _slot: str = "") -> None:
        """Which background work runs now, in its own words when it says them (training has
        its own label)."""
        running = [slot for slot in BUSY_LABELS if self.state.runner.running(slot)]
        self.busy_label.setText(", ".join(self._busy_details.get(s) or BUSY_LABELS[s]
                                          for s in running) + "…" if running else "")

    def _show_model_state(self, model) -> None:
        if model is None:
            self.model_label.setText("No model")
            self.model_label.setStyleSheet("")
            return
        name = self.state.model_path.name if self.state.model_path else "unsaved model"
        partial = f", partial: {partial_text(model)}" if partial_text(model) else ""
        measured = ("measured; being trained again on every document; "
                    if self.state.measured_answers() else "")
        warning = model_warning(model)
        self.model_label.setText(f"Model: {name} ({measured}{model.n_people:,} people, "
                                 f"{model.n_words:,} words, dim {model.dim}{partial})"
                                 + (f" {WARNING_SIGN} {warning}" if warning else ""))
        self.model_label.setStyleSheet("color: #c92a2a;" if warning else "")
        if self.state.model_path is not None:
            settings().setValue("last/model", str(self.state.model_path))

    def _remember_collection(self, _collection) -> None:
        if self.state.collection_path is not None:
            s = settings()
            s.setValue("last/collection", str(self.state.collection_path))
            columns = self.collection_panel.columns  # a table's: not asked again at relaunch
            s.setValue("last/columns", columns_text(columns) if columns is not None else "")

    # -- layout and closing -------------------------------------------------------------------------
    def _available(self) -> QRect:
        screen = self.screen() or QGuiApplication.primaryScreen()
        return screen.availableGeometry()

    def _default_size(self) -> QSize:
        """1280 x 800, or less on a small screen (or a large scale factor): never beyond it."""
        available = self._available()
        return DEFAULT_SIZE.boundedTo(QSize(int(available.width() * SCREEN_SHARE),
                                            int(available.height() * SCREEN_SHARE)))

    def _restore_layout(self) -> None:
        s = settings()
        geometry = read_bytes(s, "window/geometry")
        state = read_bytes(s, "window/state")
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)
        self.fit_to_screen()

    def fit_to_screen(self) -> None:
        """Keep the whole window on the screen it opens on."""
        if self.isMaximized() or self.isFullScreen():
            return
        available = self._available()
        fitted = fit_rect(self.geometry(), available)
        if fitted != self.geometry():
            self.setGeometry(fitted)

    def save_layout(self) -> None:
        s = settings()
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState())
        s.sync()

    def confirm_stop_training(self) -> bool:
        kept = ("the measured model is kept" if self.state.retraining is not None else
                "the last checkpoint is kept")
        answer = QMessageBox.question(
            self, "Training is running", f"Stop training and quit? {kept.capitalize()}.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    def closeEvent(self, event) -> None:
        if self.training_panel.is_training() and not self.confirm_stop_training():
            event.ignore()
            return
        self.save_layout()
        # Waits for the work that writes files (a stopped training saves its checkpoint); the
        # rest only reads, and ends with the process.
        self.state.runner.shut_down(wait_for=WRITING_TASKS)
        super().closeEvent(event)

    # -- drag and drop --------------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        urls = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if urls:
            event.acceptProposedAction()
            # Leave the drop handler before the load starts (the drag source waits for us).
            QTimer.singleShot(0, lambda: self.collection_panel.open_collection(Path(urls[0])))
