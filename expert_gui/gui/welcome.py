"""First run: a short welcome above the panels with the three steps (open your collection,
train, ask), dismissed once and remembered; and the collection-formats guide, shown in the app."""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, Qt, Signal
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
    "<b>Welcome.</b> To try the app, train on the demo collection (open on first start; "
    "File &gt; Open demo collection) with Ctrl+T, then ask it about <i>photovoltaics</i>, say. "
    "For your own organisation, three steps:<br>"
    "<b>1.</b> <b>Open your collection</b> (Ctrl+O): documents and their authors "
    "(<a href='guide'>the formats</a>) &nbsp; <b>2.</b> <b>Train</b> a model on it (Ctrl+T) "
    "&nbsp; <b>3.</b> <b>Ask</b> who knows most about a topic (Ctrl+L).")


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
        # eventFilter gives the label the height its width needs.
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
        layout.addWidget(self.text, 1)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.text.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        """The text, laid out at a new width, takes the height that width needs, and the banner
        (with the toolbar that holds it) that height, shorter as well as taller: a toolbar sizes
        a widget by its size hint, and neither shrinks by itself."""
        if watched is self.text and event.type() == QEvent.Type.Resize:
            needed = self._text_height(self.text.width())
            if needed != self.text.maximumHeight():
                self.text.setFixedHeight(needed)  # not the label's guess of a wrapped height
                margins = self.layout().contentsMargins()
                self.setFixedHeight(max(needed, self.dismiss.sizeHint().height())
                                    + margins.top() + margins.bottom())
        return False

    def _text_height(self, width: int) -> int:
        """The height of the text laid out at `width` (the label's own answer is bounded by
        the fixed height it was last given)."""
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
