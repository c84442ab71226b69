"""The Qt binding must not leak or drop references to None.

PySide6 6.12.0 on Python 3.11 dropped one reference to None on every call that returns nothing
(`QLabel.setText`, `QPainter.setPen`, ...); a few thousand such calls, minutes of a live plot,
and the interpreter aborts with "none_dealloc". On 3.12+ None is immortal and the count is fixed,
so the check is the same everywhere: the count must not fall.
"""

import sys

from PySide6.QtGui import QPainter, QPen, QPixmap
from PySide6.QtWidgets import QLabel

CALLS = 1000


def test_void_qt_calls_keep_none_alive(qapp):
    label = QLabel()
    pixmap = QPixmap(8, 8)
    before = sys.getrefcount(None)
    for i in range(CALLS):
        label.setText(str(i))
    painter = QPainter(pixmap)
    for _ in range(CALLS):
        painter.setPen(QPen())
        painter.save()
        painter.restore()
    painter.end()
    lost = before - sys.getrefcount(None)
    assert lost <= 0, f"{lost} references to None lost in {4 * CALLS} void Qt calls"
