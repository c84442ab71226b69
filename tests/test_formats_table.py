"""Tables of publications (issue 12): any CSV, TSV or .xlsx whose header has a text and an
authors column; Zotero's and Scopus's CSV exports as presets, in their exact layouts."""

import shutil

import pytest
from hostile_files import repeated, row, workbook

from expert_gui.cli import main
from expert_gui.core.data.formats.presets import PRESETS, TableColumns, detect_columns
from expert_gui.core.data.formats.table import preview
from expert_gui.core.data.loading import load_collection
from expert_gui.core.errors import CollectionError

TABLES = "collections/tables"


def people(c, doc_id):
    return [c.person_ids[p] for p in c.people_of(c.doc_index[doc_id])]


def kinds(c):
    return {(p.kind, p.line) for p in c.report.problems}


def test_a_librarians_csv_opens_with_ids_made_and_names_normalised(fixtures):
    c = load_collection(fixtures / TABLES / "publications.csv", use_cache=False)
    assert c.report.format == "table"
    assert c.doc_ids == ["publications:2", "publications:3", "publications:4",
                         "publications:5"]
    # "de Rijke, Maarten" and "Maarten de Rijke", split on ';' and on '|', are one person, with
    # the BibTeX reader's id
    assert people(c, "publications:2") == ["christophe-van-gysel", "maarten-de-rijke",
                                           "marcel-worring"]
    assert people(c, "publications:3") == ["krisztian-balog", "leif-azzopardi",
                                           "maarten-de-rijke"]
    names = dict(zip(c.person_ids, c.person_names, strict=True))
    assert names["christophe-van-gysel"] == "Christophe Van Gysel"
    assert c.text(1).startswith("Formal models for expert finding in enterprise corpora\n")
    assert '"generative"' in c.text(1)  # CSV quoting undone, the year column left out
    assert kinds(c) == {("no-people", 5)}


def test_the_same_people_as_in_bibtex(fixtures):
    bib = load_collection(fixtures / "collections/papers.bib", use_cache=False)
    csv = load_collection(fixtures / TABLES / "publications.csv", use_cache=False)
    assert {"christophe-van-gysel", "maarten-de-rijke"} <= set(bib.person_ids) & set(
        csv.person_ids)


def test_in_a_folder_or_renamed_documents_csv(fixtures, tmp_path):
    # issue 12: it did not open in a folder, nor renamed documents.csv ("expected an
    # associations file")
    (tmp_path / "a").mkdir()
    shutil.copy(fixtures / TABLES / "publications.csv", tmp_path / "a")
    c = load_collection(tmp_path / "a", use_cache=False)
    assert c.report.format == "table" and c.n_documents == 4
    (tmp_path / "b").mkdir()
    shutil.copy(fixtures / TABLES / "publications.csv", tmp_path / "b" / "documents.csv")
    c = load_collection(tmp_path / "b", use_cache=False)
    assert c.report.format == "folder" and c.n_documents == 4
    assert people(c, "documents:2") == ["christophe-van-gysel", "maarten-de-rijke",
                                        "marcel-worring"]


def test_a_table_beside_a_subfolder_of_tables_is_a_folder_of_exports(fixtures, tmp_path):
    # issue 30: a sub-folder per download is read too; alone, the folder's table is the table
    shutil.copy(fixtures / TABLES / "publications.csv", tmp_path / "pubs.csv")
    assert load_collection(tmp_path, use_cache=False).report.format == "table"
    (tmp_path / "a").mkdir()  # sorts before the table
    shutil.copy(fixtures / TABLES / "publications.csv", tmp_path / "a" / "old.csv")
    c = load_collection(tmp_path, use_cache=False)
    assert c.report.format == "exports"
    assert c.report.files == [str((tmp_path / f).resolve()) for f in ("pubs.csv", "a/old.csv")]
    # the copies merge by title and year, but for "Orphan record": two words tell no paper
    assert c.n_documents == 5 and c.report.counts["duplicates merged"] == 3


def test_tsv_with_an_id_column_and_pipe_separated_people(tmp_path):
    path = tmp_path / "papers.tsv"
    path.write_text("id\tTitle\tAuthors\n"
                    "p1\tRing buffers\tAnn Archer | Bob Baker\n"
                    "\tCrypto offload\tBaker, Bob\n", encoding="utf-8")
    c = load_collection(path, use_cache=False)
    assert c.doc_ids == ["p1", "papers:3"]
    assert people(c, "papers:3") == ["bob-baker"]
    assert kinds(c) == {("generated-id", 3)}


def test_zotero_export(fixtures):
    c = load_collection(fixtures / TABLES / "zotero.csv", use_cache=False)
    assert c.doc_ids == ["QF5XZ8KD", "7T2MJ9WB", "A8C3PQZL"]
    assert people(c, "QF5XZ8KD") == ["christophe-van-gysel", "maarten-de-rijke",
                                     "marcel-worring"]
    assert people(c, "A8C3PQZL") == ["world-health-organization"]
    first = c.text(0).split("\n")
    assert first[0] == "Unsupervised, Efficient and Semantic Expertise Retrieval"
    assert first[-1] == "expert finding; neural language models"  # its tags
    assert "Montréal" not in c.text(0)  # only the title, abstract and tags are text
    assert c.report.problems == []


def test_scopus_export_keeps_namesakes_apart_by_author_id(fixtures):
    c = load_collection(fixtures / TABLES / "scopus.csv", use_cache=False)
    assert c.doc_ids == ["2-s2.0-84968919893", "2-s2.0-85000000001"]
    assert people(c, "2-s2.0-84968919893") == ["scopus:56013556400", "scopus:6602939838",
                                               "scopus:7003278575"]
    namesakes = people(c, "2-s2.0-85000000001")
    assert namesakes == ["scopus:57201234567", "scopus:7409012345"]
    # two people of one name are shown with what tells them apart (issue 41)
    assert [c.person_names[c.person_index[p]] for p in namesakes] == [
        "Wei Wang (scopus:57201234567)", "Wei Wang (scopus:7409012345)"]
    assert "Entity retrieval; Expert finding" in c.text(0)


def test_presets_are_detected_from_the_exact_headers(fixtures):
    for name in ("zotero", "scopus"):
        assert preview(fixtures / TABLES / f"{name}.csv").columns == PRESETS[name]
    assert detect_columns(["Title", "Year"]) is None
    assert detect_columns(["ID", "Title", "Abstract", "Authors"]) == TableColumns(
        text=("Title", "Abstract"), people="Authors", id="ID")


def test_chosen_columns_override_the_header(fixtures):
    path = fixtures / TABLES / "publications.csv"
    columns = TableColumns(text=("abstract",), people="authors", id="year")
    c = load_collection(path, columns=columns, use_cache=False)
    assert c.doc_ids == ["2016", "2006", "2016#2", "2020"] and ("shared-key", 4) in kinds(c)
    with pytest.raises(CollectionError, match="no column 'nope'"):
        load_collection(path, columns=TableColumns(text=("nope",), people="authors"),
                        use_cache=False)
    with pytest.raises(CollectionError, match="columns apply to a table"):
        load_collection(fixtures / "collections/papers.bib", format="bibtex", columns=columns)


def test_a_table_without_its_columns_is_one_error(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("name,year\nx,2020\n", encoding="utf-8")
    with pytest.raises(CollectionError, match="text column") as err:
        load_collection(path, format="table", use_cache=False)
    assert err.value.line == 1


def test_xlsx(tmp_path):
    import datetime

    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["Title", "Abstract", "Authors", "Date"])
    sheet.append(["Ring buffers", "Lockless rings", "Van Gysel, Christophe; Ann Archer",
                  datetime.date(2016, 4, 11)])
    sheet.append([None, None, None, None])
    sheet.append(["Crypto", 42, "de Rijke, Maarten", 2020])
    book.save(tmp_path / "pubs.xlsx")
    c = load_collection(tmp_path / "pubs.xlsx", use_cache=False)
    assert c.report.format == "table" and c.doc_ids == ["pubs:2", "pubs:4"]
    assert c.text(1) == "Crypto\n42"
    assert people(c, "pubs:2") == ["ann-archer", "christophe-van-gysel"]
    (tmp_path / "broken.xlsx").write_bytes(b"PK\x03\x04 not a workbook")
    with pytest.raises(CollectionError, match="Excel workbook"):
        load_collection(tmp_path / "broken.xlsx", format="table", use_cache=False)


def test_a_sparse_workbook_previews_without_filling_in_rows(tmp_path):
    # issue 32 item 2: a cell in column XFD and one in row 1,048,576 (4.7 KB); every row was
    # padded to 16,384 cells and every missing row filled in, and stats ran past 300 s
    path = workbook(tmp_path / "pubs.xlsx", [
        row(1, ("A1", "title"), ("B1", "authors"), ("XFD1", "far")),
        row(1_048_576, ("A1048576", "Ring buffers"), ("B1048576", "Ann Archer"))],
        dimension="A1:XFD1048576")
    shown = preview(path)
    assert shown.header == ["title", "authors", "far"]
    assert shown.rows == [["Ring buffers", "Ann Archer"]]
    c = load_collection(path, use_cache=False)
    assert c.doc_ids == ["pubs:1048576"]


def test_a_workbook_cell_over_the_record_limit_is_reported_not_read(tmp_path):
    # issue 32 item 4: a 208 KB workbook with one 100 MB cell was read as one document (about
    # 1.2 GB of memory): the 16 MiB record limit held for lines, not for cells
    path = workbook(tmp_path / "pubs.xlsx", [
        row(1, ("A1", "title"), ("B1", "authors")),
        b'<row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2" t="inlineStr"><is><t>Ann Archer'
        b"</t></is></c></row>",
        row(3, ("A3", "Ring buffers"), ("B3", "Ann Archer"))],
        [b"<si><t>", *repeated(b"word ", (1 << 24) + 5), b"</t></si>"])
    assert path.stat().st_size < 1 << 20
    c = load_collection(path, use_cache=False)
    assert c.doc_ids == ["pubs:3"]
    assert kinds(c) == {("record-too-long", 2)}


def test_cli_columns(fixtures, tmp_path, capsys):
    path = fixtures / TABLES / "publications.csv"
    assert main(["stats", str(path), "--no-cache", "--people-column", "authors",
                 "--text-columns", "title", "--json"]) == 0
    assert '"documents": 4' in capsys.readouterr().out
    assert main(["stats", str(fixtures / TABLES / "zotero.csv"), "--preset", "scopus"]) == 2
    assert "no column 'Abstract', 'Author Keywords', 'Author full names'" in \
        capsys.readouterr().err


def test_dates_come_from_the_year_column(fixtures):
    import numpy as np

    c = load_collection(fixtures / TABLES / "publications.csv", use_cache=False)
    assert c.doc_dates.tolist()[:2] == [np.datetime64("2016-01-01", "D").item(),
                                        np.datetime64("2006-01-01", "D").item()]
    z = load_collection(fixtures / TABLES / "zotero.csv", use_cache=False)
    assert str(z.doc_dates[1]) == "2012-01-01"
