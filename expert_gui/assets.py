"""Files the app ships: `resources/` in a checkout, `expert_gui/resources/` in an installed wheel
(setup.py maps one onto the other), and the collection-formats guide from `docs/`."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
ICON_NAME = "expert-gui"  # the icon's name in a desktop theme, and its files' stem
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
FORMATS_GUIDE = "collection-formats.md"


def resource_path(*parts: str) -> Path | None:
    """A shipped file or folder, or None when this install lacks it."""
    for root in (_PACKAGE.parent / "resources", _PACKAGE / "resources"):
        candidate = root.joinpath(*parts)
        if candidate.exists():
            return candidate
    return None


def demo_collection_path() -> Path | None:
    """The demo collection shipped in `resources/demo` (in a checkout, or inside the package)."""
    path = resource_path("demo")
    return path if path is not None and (path / "documents.tsv").is_file() else None


def icon_files() -> dict[int | str, Path]:
    """The application icon: {size: PNG} for each shipped size, and "svg": the scalable one."""
    found: dict[int | str, Path] = {}
    for size in ICON_SIZES:
        path = resource_path("icons", f"{ICON_NAME}-{size}.png")
        if path is not None:
            found[size] = path
    svg = resource_path("icons", f"{ICON_NAME}.svg")
    if svg is not None:
        found["svg"] = svg
    return found


def formats_guide_path() -> Path | None:
    """docs/collection-formats.md (in a checkout, or shipped in the wheel)."""
    for candidate in (_PACKAGE.parent / "docs" / FORMATS_GUIDE, _PACKAGE / "docs" / FORMATS_GUIDE):
        if candidate.is_file():
            return candidate
    return None
