"""First run: a short welcome above the panels with the three steps (open your collection,
train, ask), dismissed once and remembered; and the collection-formats guide, shown in the app."""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from expert_gui.assets import formats_guide_path

WELCOME = (
    "<b>Welcome.</b> To try it, train on the demo collection (File &gt; Open demo "
    "collection) with Ctrl+T, then ask about <i>photovoltaics</i>. For your own organisation: <b>1.</b> <b>Open your collection</b> "
    "(Ctrl+O; <a href='guide'>the formats</a>) &nbsp; <b>2.</b> <b>Train</b> (Ctrl+T) "
    "&nbsp; <b>3.</b> <b>Ask</b> who knows most about a topic (Ctrl+L).")

MAX_LINES = 6  # of the welcome's text on a narrow window; the rest is cut


class WelcomeBanner(QFrame):
    """The welcome text; `dismissed` when its close button is pressed."""

    dismissed = Signal()
    guide_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("welcome-banner")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("#welcome-banner { background: #e7f0fc; border: 1px solid #9dbce8; "
                           "border-radius: 4px; }")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Maximum)
        self.text = QLabel(WELCOME)
        # Wrapped to the window's width, never cut (at 1024 px one line ran off the edge); a
        # toolbar sizes a widget by its size hint, not by its height for a width, so
        # resizeEvent gives the banner the height its width needs.
        self.text.setWordWrap(True)
        self.text.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.text.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.text.linkActivated.connect(lambda _link: self.guide_requested.emit())
        close = self.dismiss = QPushButton("Got it")
        close.setObjectName("welcome-dismiss")
        close.setToolTip("Hide this for good (Help > Getting started shows it again)")
        close.clicked.connect(self.dismissed)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)  # every pixel counts on an 800 x 500 screen
        layout.addWidget(self.text, 1)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        # Until its first resize, two lines: a wrapped label's own minimum is its height at a
        # few pixels' width, and it had made the window taller than a small screen.
        self._set_text_height(2 * self.text.fontMetrics().lineSpacing())

    def resizeEvent(self, event) -> None:
        """A toolbar sizes a widget by its size hint, never by its height for a width, and
        shrinks it by itself neither: so once a resize is done (changing a size inside its own
        resize event recursed under X11), the banner takes the height its text needs at its new
        width, shorter as well as taller, up to MAX_LINES lines on a very narrow window."""
        super().resizeEvent(event)
        QTimer.singleShot(0, self, self._fit_height)

    def _fit_height(self) -> None:
        layout = self.layout()
        m = layout.contentsMargins()
        width = (self.width() - m.left() - m.right() - layout.spacing()
                 - self.dismiss.sizeHint().width())
        self._set_text_height(min(self._text_height(width),
                                  MAX_LINES * self.text.fontMetrics().lineSpacing()))

    def _set_text_height(self, needed: int) -> None:
        m = self.layout().contentsMargins()
        height = max(needed, self.dismiss.sizeHint().height()) + m.top() + m.bottom()
        if needed != self.text.maximumHeight() or height != self.maximumHeight():
            self.text.setFixedHeight(needed)
            self.setFixedHeight(height)

    def _text_height(self, width: int) -> int:
        """The height of the text laid out at `width` (a wrapped label guesses its own)."""
        document = QTextDocument()
        document.setDocumentMargin(0)
        document.setDefaultFont(self.text.font())
        document.setHtml(self.text.text())
        document.setTextWidth(max(width, 1))
        return math.ceil(document.size().height())


class GuideDialog(QDialog):
    """docs/collection-formats.md, rendered."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("formats-guide")
        self.setWindowTitle("Collection formats")
        self.resize(760, 680)
        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(True)
        path = formats_guide_path()
        if path is None:
            self.browser.setPlainText("The collection-formats guide (docs/collection-formats.md) "
                                      "is not installed with this copy of the app.")
        else:
            self.browser.setMarkdown(path.read_text(encoding="utf-8"))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addWidget(buttons)
