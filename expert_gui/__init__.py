"""Expertise explorer: unsupervised, efficient and semantic expertise retrieval (Van Gysel et al., 2016)."""

__version__ = "0.1.0"
APP_NAME = "Expertise Explorer"
ORGANIZATION = "expert-gui"

PAPER_CITATION = (
    "Christophe Van Gysel, Maarten de Rijke and Marcel Worring. "
    "Unsupervised, Efficient and Semantic Expertise Retrieval. WWW 2016."
)
