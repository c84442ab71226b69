"""The TensorBoard Projector's TSV format."""

import numpy as np
import pytest

from expert_gui.core.explore.projector import write_projector_tsv


def test_one_column_has_no_header_and_labels_stay_on_one_line(tmp_path):
    write_projector_tsv(tmp_path, np.eye(2), ["word"], [("a\tb",), ("c\nd",)])
    assert (tmp_path / "metadata.tsv").read_text() == "a b\nc d\n"
    assert (tmp_path / "vectors.tsv").read_text() == "1\t0\n0\t1\n"


def test_several_columns_have_a_header(tmp_path):
    write_projector_tsv(tmp_path, np.array([[0.5, -1.25]]), ["id", "n"], [("x", 3)])
    assert (tmp_path / "metadata.tsv").read_text() == "id\tn\nx\t3\n"
    assert (tmp_path / "vectors.tsv").read_text() == "0.5\t-1.25\n"
    with pytest.raises(ValueError):
        write_projector_tsv(tmp_path, np.eye(2), ["id"], [("x",)])
