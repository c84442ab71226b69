"""Render expert-gui.svg to the PNG sizes desktops ask for (hicolor theme sizes), with Qt's own
SVG renderer. Run after editing the SVG: .venv/bin/python resources/icons/render_pngs.py"""

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
HERE = Path(__file__).resolve().parent


def main() -> None:
    app = QGuiApplication.instance() or QGuiApplication([])  # noqa: F841 (fonts, image I/O)
    renderer = QSvgRenderer(str(HERE / "expert-gui.svg"))
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        image.save(str(HERE / f"expert-gui-{size}.png"))


if __name__ == "__main__":
    main()
