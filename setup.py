"""Everything is in pyproject.toml but what it cannot say: the app's files outside the package
(resources/: the demo collection, the icons; docs/collection-formats.md) go into the wheel as
expert_gui/resources and expert_gui/docs, so a `pipx install .` has them."""

from pathlib import Path

from setuptools import find_packages, setup

ROOT = Path(__file__).parent
resources = ["expert_gui.resources"] + [
    "expert_gui.resources." + ".".join(d.relative_to(ROOT / "resources").parts)
    for d in sorted((ROOT / "resources").rglob("*")) if d.is_dir() and d.name != "__pycache__"]

setup(
    packages=find_packages(include=["expert_gui*"]) + resources + ["expert_gui.docs"],
    package_dir={"expert_gui.resources": "resources", "expert_gui.docs": "docs"},
    package_data={"expert_gui.resources": ["**/*"], "expert_gui.docs": ["collection-formats.md"]},
    exclude_package_data={"": ["__pycache__/*", "*.pyc"]},
)
