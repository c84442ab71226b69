"""CNKI's own exports (its custom text export, E-Study's, NoteExpress's) read as the other exports
are, their Chinese text searchable word by word; and kinds the app does not read named, with
what to export instead."""

import pytest

from expert_gui.core.data.formats import detect_format
from expert_gui.core.data.loading import load_collection
from expert_gui.core.errors import CollectionError
from expert_gui.core.rankers.methods import make_ranker

# CNKI's "自定义" (custom) export: one field a line, a blank line between records.
CNKI_TEXT = """\ufeffSrcDatabase-来源库: 期刊
Title-题名: 面向元宇宙技术体系的数字图书馆建设研究
Author-作者: 王曦;李明;
Organ-单位: 北京大学考古文博学院;北京大学世界文博发展研究中心;
Source-文献来源: 情报科学
Keyword-关键词: 元宇宙;;数字图书馆;;技术创新
Summary-摘要: 研究相关元宇宙技术在数字图书馆中的应用十分必要。
PubTime-发表时间: 2023-03-06 11:12
Year-年: 2023
Period-期: 03
PageCount-页码: 1-6
DOI-DOI: 10.13833/j.issn.1007-7634.2023.03.001
Link-链接: https://kns.cnki.net/kcms/detail/detail.aspx?FileName=QBKX202303001&DbName=CJFQ2023

SrcDatabase-来源库: 硕士
Title-题名: 科研数据库的引文分析
Author-作者: 李明；
Organ-单位: 北京大学信息管理系;
Keyword-关键词: 引文;科研数据
Summary-摘要: 本文分析科研数据库中的引文。
Year-年: 2021
"""

# E-Study's export: DataType first.
E_STUDY = """DataType: 1
Title-题名: 医学综述撰写中的注意事项
Author-作者: 施洋;
Source-刊名: 中国科技信息
Year-年: 2013
PubTime-出版时间: 2013-04-01
Keyword-关键词: 医学综述;写作;规范化
Summary-摘要: 为指导医学人员查阅专业文献并撰写医学综述。
Page-页码: 161
SrcDatabase-来源数据库: 期刊
Organ-机构: 新疆医科大学学报编辑部;
"""

# NoteExpress as CNKI writes it (authors ";"-joined) and as Wanfang does (a line each, an
# address per author, an English title).
NOTEEXPRESS = """{Reference Type}: Journal Article
{Title}: 计算机辅助导航技术在脊柱外科中的应用
{Author}: 潘紫麟;刘庆鹏;
{Author Address}: 哈尔滨医科大学附属第二医院骨科;
{Journal}: 医学综述
{Year}: 2021
{Issue}: 11
{Pages}: 2184-2188
{Keywords}: 脊柱疾病;计算机辅助;导航技术
{Abstract}: 随着当代计算机技术的不断发展，计算机辅助导航技术逐渐应用于脊柱外科手术中。
{ISBN/ISSN}: 1006-2084
{Database Provider}: CNKI

{Reference Type}: Journal Article
{Title}: 超声引导下前锯肌平面阻滞的影响
{Translated Title}: Influence of ultrasound-guided serratus plane block
{Author}: 江文杰
{Author}: 韩超
{Translated Author}: Wenjie JIANG
{Translated Author}:  Chao HAN
{Author Address}: 宜兴市人民医院
{Author Address}: 南京医科大学
{Journal}: 临床检验杂志（电子版）
{Year}: 2020
{Keywords}: 前锯肌平面阻滞
{Keywords}:  乳腺癌改良根治术
{Abstract}: 目的 探讨超声引导下前锯肌平面阻滞对乳腺癌改良根治术的影响.
"""


def write(tmp_path, name, text, encoding="utf-8"):
    path = tmp_path / name
    path.write_text(text, encoding=encoding)
    return path


def test_cnki_custom_text_export(tmp_path):
    c = load_collection(write(tmp_path, "CNKI-636597288626875000.txt", CNKI_TEXT),
                        use_cache=False)
    assert c.report.format == "cnki" and c.report.problems == []
    assert c.doc_ids == ["cnki:QBKX202303001", "CNKI-636597288626875000:15"]
    assert c.text(0).split("\n") == ["面向元宇宙技术体系的数字图书馆建设研究",
                                     "研究相关元宇宙技术在数字图书馆中的应用十分必要。",
                                     "元宇宙; 数字图书馆; 技术创新"]
    # each author one person, as written; 李明 of both papers (one fullwidth ；) is one
    assert sorted(c.person_ids) == ["李明", "王曦"]
    assert c.documents_of(c.person_index["李明"]).tolist() == [0, 1]
    assert c.affiliations_of(c.person_index["王曦"]) == ("北京大学考古文博学院",
                                                       "北京大学世界文博发展研究中心")
    assert [str(d) for d in c.doc_dates] == ["2023-01-01", "2021-01-01"]
    # found inside the abstract, not only where it stands alone as a keyword
    ranking = make_ranker("model2-jm", collection=c).rank("数据库")
    assert not ranking.unknown_words and ranking.person_ids[ranking.people[0]] == "李明"


def test_e_study_export(tmp_path):
    c = load_collection(write(tmp_path, "estudy.txt", E_STUDY), use_cache=False)
    assert c.report.format == "cnki" and c.n_documents == 1 and c.person_ids == ["施洋"]
    assert c.text(0).startswith("医学综述撰写中的注意事项\n为指导医学人员")
    assert c.affiliations_of(0) == ("新疆医科大学学报编辑部",)


def test_noteexpress_export(tmp_path):
    c = load_collection(write(tmp_path, "cnki.net", NOTEEXPRESS), use_cache=False)
    assert c.report.format == "noteexpress" and c.report.problems == []
    assert c.n_documents == 2
    assert sorted(c.person_ids) == ["刘庆鹏", "江文杰", "潘紫麟", "韩超"]  # pinyin: no more people
    assert c.text(1).split("\n") == [
        "超声引导下前锯肌平面阻滞的影响", "Influence of ultrasound-guided serratus plane block",
        "目的 探讨超声引导下前锯肌平面阻滞对乳腺癌改良根治术的影响.", "前锯肌平面阻滞; 乳腺癌改良根治术"]
    # Wanfang: an address for each author, in order; CNKI: its list for every author
    assert c.affiliations_of(c.person_index["韩超"]) == ("南京医科大学",)
    assert c.affiliations_of(c.person_index["刘庆鹏"]) == ("哈尔滨医科大学附属第二医院骨科",)


def test_cnki_exports_in_one_folder(tmp_path):
    write(tmp_path, "a.txt", CNKI_TEXT)
    write(tmp_path, "b.net", NOTEEXPRESS)
    c = load_collection(tmp_path, use_cache=False)
    assert c.report.format == "exports" and c.n_documents == 4


RIS_BEHIND_A_HEADER = """Record #1 of 1
Provider: John Wiley & Sons, Ltd
Content:text/plain; charset="UTF-8"

TY  - JOUR
ID  - CN-01234567
AU  - Smith, John
TI  - Exercise for knee pain
PY  - 2018
ER  -
"""


def test_a_cochrane_ris_export_is_read(tmp_path):
    c = load_collection(write(tmp_path, "citation-export.ris.txt", RIS_BEHIND_A_HEADER),
                        use_cache=False)
    assert c.report.format == "ris" and c.person_ids == ["john-smith"]


@pytest.mark.parametrize("name, content, says", [
    ("savedrecs.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600),
     "savedrecs.xls is an Excel 97-2003 workbook (.xls)"),
    ("CNKI.xls", "<html><table><tr><td>Title-题名</td></tr></table></html>".encode(),
     "CNKI.xls is a web page"),
    ("cochrane.txt", b"Record #1 of 2\nID: CN-01234567\nAU: Smith J\nTI: Exercise\nYR: 2018\n",
     "cochrane.txt is a Cochrane Library text export"),
    ("refs.txt", "[1]张福锁,王激清.中国主要粮食作物肥料利用率[J].土壤学报,2008(05):915-924.\n".encode(),
     "refs.txt is a list of formatted references (GB/T 7714)"),
    ("paper.pdf", b"%PDF-1.7\n...", "paper.pdf is a PDF"),
])
def test_kinds_the_app_does_not_read_are_named_with_what_to_export(tmp_path, name, content,
                                                                   says):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(CollectionError) as caught:
        detect_format(path)
    assert caught.value.message.startswith(says) and "export the records again" in \
        caught.value.message
    # beside an export in a folder, it is passed over and named in the report
    write(tmp_path, "b.net", NOTEEXPRESS)
    c = load_collection(tmp_path, use_cache=False)
    [skipped] = [p for p in c.report.problems if p.kind == "skipped-file"]
    assert skipped.message.startswith(f"not read: {says}")
