"""The real exports of ../shared/realfiles (issue 20), each as its README describes it: its
records, less the duplicates merged (each named in the report), and its people, within a few
percent of the README's count of distinct author strings, or lower for a reason given here.

Skipped where the files are absent (CI has no ../shared); EXPERT_GUI_REALFILES names another
copy. No timing is asserted; benchmarks/bench_exports.py measures the loads.
"""

import os
import shutil
from pathlib import Path

import pytest

from expert_gui.core.data.loading import load_collection

REALFILES = Path(os.environ.get("EXPERT_GUI_REALFILES",
                                Path(__file__).resolve().parents[2] / "shared" / "realfiles"))
pytestmark = pytest.mark.skipif(not REALFILES.is_dir(), reason="needs ../shared/realfiles")

# path, format, records (README), documents, people, authors (README; else counted as said),
# how far below the authors the people may be, and why.
CASES = [
    ("wos-plain/savedrecs.txt", "wos", 102, 102, 599, 604, 0.03, ""),
    ("wos-plain-folder", "exports", 1000, 1000, 4242, 4235, 0.03, ""),
    # README: "–"; 60 distinct AF strings: "Tobler, W" and "Tobler, Waldo" are one person
    ("wos-tab/savedrecs.txt", "table", 81, 81, 49, 60, 0.20, "initials joined to full names"),
    ("pubmed-medline/citations.nbib", "medline", 200, 200, 1015, 1025, 0.03, ""),
    # README: "–"; 1410 distinct (LastName, ForeName) pairs
    ("pubmed-xml/pubmed_result.xml", "pubmed-xml", 292, 292, 1394, 1410, 0.03, ""),
    # 8 consortium papers of 1,500-3,000 authors each write names in initials ("T. B. Wold")
    # that other records give in full ("Wold, Trude Beate"): 2,622 spellings joined
    ("bibtex-wos/WOS_653.bib", "bibtex", 653, 652, 9673, 12485, 0.25, "consortium initials"),
    ("bibtex-scopus/scopus.bib", "bibtex", 79, 79, 400, 402, 0.03, ""),
    ("bibtex-mendeley/library.bib", "bibtex", 300, 265, 423, 420, 0.03, ""),
    # README: "–"; 5,153 distinct names once Rayyan's cuts at "and" are mended
    ("bibtex-rayyan/abstracts_deduplicated.bib", "bibtex", 1788, 1785, 5075, 5153, 0.03, ""),
    ("csl-json/My_Library.json", "csl-json", 1018, 1018, 862, 869, 0.03, ""),
    # one person typed "Kinloch, A. J.", "A.J. Kinloch" and "Kinloch, Anthony J."
    ("endnote-xml/My_EndNote_Library.xml", "endnote-xml", 300, 265, 415, 452, 0.10,
     "initials joined to full names"),
    # two authors have two Scopus author ids each (ids beat names): one more than names
    ("scopus-csv-2021/scopus.csv", "table", 81, 81, 127, 126, 0.03, ""),
    # README: "–"; 66 distinct "Author full names"
    ("scopus-csv-2023-no-abstract/scopus.csv", "table", 10, 10, 66, 66, 0.03, ""),
    ("lens-csv/lens-export.csv", "table", 252, 250, 995, 1015, 0.03, ""),
    # "W Tobler", "WR Tobler", "Waldo R Tobler"; 2 of the 452 strings are "…"
    ("publish-or-perish-csv/PoPCites.csv", "table", 829, 827, 428, 452, 0.06,
     "initials joined to full names"),
    ("ieee-csv/ieee.csv", "table", 390, 390, 980, 982, 0.03, ""),
    ("ris-embase/EMBASE_571.ris", "ris", 571, 565, 9498, 9729, 0.03, ""),
    ("zotero-csv/Exported_Items.csv", "table", 466, 466, 1460, 1469, 0.03, ""),
]


@pytest.mark.parametrize("path, format, records, documents, people, authors, below, why",
                         CASES, ids=[c[0].split("/")[0] for c in CASES])
def test_a_real_export(path, format, records, documents, people, authors, below, why):
    c = load_collection(REALFILES / path, use_cache=False)
    report = c.report
    assert report.format == format
    assert report.counts["records"] == records
    merged = [p for p in report.problems if p.kind == "merged-duplicate"]
    assert c.n_documents == documents == records - len(merged)
    assert report.counts["duplicates merged"] == len(merged)
    assert c.n_people == people
    assert -below <= (people - authors) / authors <= 0.03, why


@pytest.mark.parametrize("parts, documents", [
    (("pubmed-medline", "pubmed-xml"), 292),  # all 200 of the .nbib are in the XML
    (("wos-tab", "scopus-csv-2021", "lens-csv", "publish-or-perish-csv"), 995),
    (("bibtex-wos", "ris-embase"), 1114),
])
def test_exports_of_one_search_in_one_folder(tmp_path, parts, documents):
    for part in parts:
        for f in (REALFILES / part).iterdir():
            shutil.copy(f, tmp_path / f"{part}-{f.name}")
    c = load_collection(tmp_path, use_cache=False)
    assert c.report.format == "exports" and c.n_documents == documents
    assert c.report.counts["duplicates merged"] == c.report.counts["records"] - documents
