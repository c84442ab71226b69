"""The columns of a table of publications (CSV, TSV, .xlsx), shown before it is loaded: the first
rows as they are, and which column is the text, which the people, which the id, detected from
the header (or a known export's preset: Zotero, Scopus, Web of Science, Lens, Publish or Perish,
IEEE, PubMed), each of which the user may change."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import fields, replace
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from expert_gui.core.data.formats import FORMATS
from expert_gui.core.data.formats.folder import DOCUMENT_FILES
from expert_gui.core.data.formats.presets import PEOPLE_STYLES, PRESETS, TableColumns, fit
from expert_gui.core.data.formats.table import TablePreview, is_table_file, table_file
from expert_gui.core.data.formats.table import preview as preview_table
from expert_gui.gui.dialogs import show_error
from expert_gui.gui.widgets import fill_table, make_table

GENERATED = "(none: the file's name and the row's line)"
UNDATED = "(none: undated)"
CUSTOM = "Custom"
MAX_WIDTH = 260  # pixels of a preview column, at first
STYLES = PEOPLE_STYLES


class TableColumnsDialog(QDialog):
    """Choose the columns of a table; `columns()` is the choice once accepted."""

    def __init__(self, name: str, preview: TablePreview, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("table-columns-dialog")
        self.setWindowTitle(f"Columns of {name}")
        self.header = [h.strip() for h in preview.header]
        # Each preset as this header has it (None: the header lacks its title or people).
        self.fitted = {name: fit(p, self.header) for name, p in PRESETS.items()}

        self.table = make_table(self.header or [""], stretch_last=False)
        fill_table(self.table, [[c[:200] for c in row] for row in preview.rows])
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.resizeColumnsToContents()
        for column in range(self.table.columnCount()):  # long abstracts would hide the rest
            self.table.setColumnWidth(column, min(self.table.columnWidth(column), MAX_WIDTH))

        self.preset = QComboBox()
        self.preset.addItems([CUSTOM, *PRESETS])
        self.id_column = QComboBox()
        self.id_column.addItems([GENERATED, *self.header])
        self.date_column = QComboBox()
        self.date_column.addItems([UNDATED, *self.header])
        self.people_column = QComboBox()
        self.people_column.addItems(self.header)
        self.people_style = QComboBox()
        for key, label in STYLES.items():
            self.people_style.addItem(label, key)
        self.text_columns = QListWidget()
        for h in self.header:
            it = QListWidgetItem(h)
            it.setFlags(it.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            it.setCheckState(Qt.CheckState.Unchecked)
            self.text_columns.addItem(it)
        self.text_columns.setMaximumHeight(110)
        self.status = QLabel()
        self.status.setWordWrap(True)

        form = QFormLayout()
        form.addRow("Preset", self.preset)
        form.addRow("Text (joined)", self.text_columns)
        form.addRow("People", self.people_column)
        form.addRow("People are", self.people_style)
        form.addRow("Document id", self.id_column)
        form.addRow("Date", self.date_column)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Load")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"The first {len(preview.rows)} rows of {name}:"))
        layout.addWidget(self.table, 1)
        layout.addLayout(form)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self.resize(900, 620)

        self.show_columns(preview.columns)
        self.preset.currentTextChanged.connect(self._preset_chosen)
        for signal in (self.id_column.currentIndexChanged, self.date_column.currentIndexChanged,
                       self.people_column.currentIndexChanged,
                       self.people_style.currentIndexChanged, self.text_columns.itemChanged):
            signal.connect(self._changed)
        self._changed()

    def show_columns(self, columns: TableColumns | None) -> None:
        """Set the controls to a choice of columns (those the header lacks are left unset)."""
        if columns is None:
            self.status.setText(f"No text and people columns were recognised among its "
                                f"{len(self.header)} columns: tick the text columns and choose "
                                "the people column.")
            return
        for i in range(self.text_columns.count()):
            it = self.text_columns.item(i)
            it.setCheckState(Qt.CheckState.Checked if it.text() in columns.text
                             else Qt.CheckState.Unchecked)
        if columns.people in self.header:
            self.people_column.setCurrentText(columns.people)
        self.people_style.setCurrentIndex(list(STYLES).index(columns.people_style))
        self.id_column.setCurrentText(columns.id if columns.id in self.header else GENERATED)
        self.date_column.setCurrentText(columns.date if columns.date in self.header else UNDATED)
        self.preset.blockSignals(True)
        self.preset.setCurrentText(columns.preset or CUSTOM)
        self.preset.blockSignals(False)

    def columns(self) -> TableColumns | None:
        """The chosen columns, or None while they are not a valid choice. Unchanged from a
        preset, the preset itself (with what the dialog does not show, such as the people
        column read where the chosen one is empty)."""
        text = tuple(self.text_columns.item(i).text() for i in range(self.text_columns.count())
                     if self.text_columns.item(i).checkState() == Qt.CheckState.Checked)
        people = self.people_column.currentText()
        if not text or not people:
            return None
        ident, date = self.id_column.currentText(), self.date_column.currentText()
        chosen = TableColumns(text=text, people=people, id=None if ident == GENERATED else ident,
                              people_style=self.people_style.currentData(),
                              date=None if date == UNDATED else date)
        preset = self.fitted.get(self.preset.currentText())
        if preset is not None and set(preset.text) == set(text) and replace(
                preset, text=text, preset="", people_fallback=None) == chosen:
            return preset
        return chosen

    def _preset_chosen(self, name: str) -> None:
        if name in PRESETS:
            fitted = self.fitted[name]
            self.show_columns(fitted or PRESETS[name])
            if fitted is None:
                p = PRESETS[name]
                missing = [c for c in (p.text[0], p.people) if c not in self.header]
                self.status.setText(f"This file is not a {name} export: it has no column "
                                    + ", ".join(map(repr, missing)))
                return
        self._changed()

    def _changed(self, *_) -> None:
        chosen = self.columns()
        if chosen is not None and not chosen.preset and self.preset.currentText() != CUSTOM:
            self.preset.blockSignals(True)
            self.preset.setCurrentText(CUSTOM)
            self.preset.blockSignals(False)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(chosen is not None)
        if chosen is None:
            self.status.setText("Choose at least one text column and the people column.")
        else:
            self.status.setText(
                f"Text: {', '.join(chosen.text)}. People: {chosen.people} "
                f"({STYLES[chosen.people_style]}). Ids: "
                + (chosen.id if chosen.id else "the file's name and the row's line") + ".")


def table_to_preview(path: Path) -> Path | None:
    """The table whose columns to show before `path` opens: the path itself when it is a table
    file (not a folder's documents file, whose people may come from an associations file
    beside it), or the one table of a folder that opens as a table; else None."""
    if path.is_file():
        return path if is_table_file(path) and path.name not in DOCUMENT_FILES else None
    if path.is_dir() and not FORMATS["folder"].looks_like(path):
        return table_file(path)
    return None


def choose_table_columns(parent: QWidget, runner, path: Path,
                         on_chosen: Callable[[TableColumns], None]) -> None:
    """Read the table's first rows in the background, then show the dialog; `on_chosen` gets the
    columns when the user loads, nothing happens when they cancel."""
    def show(preview: TablePreview) -> None:
        dialog = TableColumnsDialog(path.name, preview, parent)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def done(result: int) -> None:
            chosen = dialog.columns()
            if result == QDialog.DialogCode.Accepted and chosen is not None:
                on_chosen(chosen)

        dialog.finished.connect(done)
        dialog.open()

    runner.start("preview", preview_table, path, on_success=show,
                 on_failure=lambda exc, tb: show_error(parent, f"Cannot open {path.name}", exc,
                                                       tb))


def columns_text(columns: TableColumns) -> str:
    """The columns as one line of JSON, for the settings (a relaunch opens the table with them
    instead of asking again)."""
    return json.dumps(columns.to_dict())


def columns_from_text(text: str) -> TableColumns | None:
    """`columns_text` read back; None when it is not columns (a hand-edited settings file)."""
    try:
        values = json.loads(text)
        if not isinstance(values, dict) or set(values) - {f.name for f in fields(TableColumns)}:
            return None
        text_columns = values.get("text")
        if not isinstance(text_columns, list) or not all(isinstance(c, str)
                                                         for c in text_columns):
            return None
        return TableColumns(**{**values, "text": tuple(text_columns)})
    except (ValueError, TypeError):
        return None
