"""Tests of metrics_core.io: every format read back, every malformed or hostile file refused."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from metrics_core.io import (
    IOLimits,
    list_variables,
    load_coef,
    load_data_matrix,
    load_labels,
    load_table,
)
from metrics_core.validation._errors import ClustlensInputError

try:
    from tests import io_fixtures as fx
except ImportError:  # tests/ is not a package: pytest put it on sys.path
    import io_fixtures as fx

SMALL = IOLimits(max_array_bytes=1 << 20, max_dense_n=1000, max_members=8)


def refused(fn, *args, match: str, source: str | None = None, **kwargs) -> str:
    """Call ``fn`` expecting ClustlensInputError whose message matches and names the file."""
    with pytest.raises(ClustlensInputError, match=match) as info:
        fn(*args, **kwargs)
    msg = str(info.value)
    name = source or kwargs.get("name") or (str(args[0]) if isinstance(args[0], Path) else None)
    if name:
        assert name in msg, msg
    return msg


# ---------------------------------------------------------------------------------------------
# labels: good files
# ---------------------------------------------------------------------------------------------

TEXT_LABEL_CASES = [
    ("plain.txt", b"1\n2\n2\n3\n", {}, [1, 2, 2, 3], None),
    ("header.csv", b"y\n1\n2\n2\n", {}, [1, 2, 2], "read column 'y'"),
    ("crlf_bom.csv", b"\xef\xbb\xbfy\r\n0\r\n1\r\n", {}, [0, 1], None),
    ("two.tsv", b"id\tlabel\n0\t5\n1\t6\n", {}, [5, 6], "picked column 'label'"),
    ("ws.txt", b"0 7\n1 8\n2 7\n", {"column": 1}, [7, 8, 7], "read column 1"),
    ("semi.csv", b"a;b\n1;x\n2;y\n", {"column": "b"}, ["x", "y"], "read column 'b'"),
    ("strings.csv", b"cat\ndog\ncat\n", {}, ["cat", "dog", "cat"], None),
    ("quoted.csv", b'name,label\n"a, b",x\nc,y\n', {}, ["x", "y"], None),
    ("floaty.csv", b"1.0\n2.0\n-3.0\n", {}, [1, 2, -3], "float-coded labels read as integers"),
    ("row.csv", b"1,2,2,1\n", {}, [1, 2, 2, 1], "single row of 4 labels"),
    ("blank_lines.txt", b"\n1\n\n2\n\n", {}, [1, 2], None),
    ("pred.csv", b"idx,cluster\n0,4\n1,5\n", {"kind": "pred"}, [4, 5], "'cluster'"),
]


@pytest.mark.parametrize(("fname", "data", "kw", "expected", "note"), TEXT_LABEL_CASES)
def test_labels_text(fname, data, kw, expected, note):
    res = load_labels(data, name=fname, **kw)
    assert res.labels.tolist() == expected
    if note:
        assert any(note in n for n in res.notes), res.notes


def test_labels_from_path_and_file_object(tmp_path):
    p = tmp_path / "gnd.npy"
    p.write_bytes(fx.npy_bytes(np.array([3, 1, 2])))
    assert load_labels(p).labels.tolist() == [3, 1, 2]
    assert load_labels(str(p)).labels.tolist() == [3, 1, 2]
    fh = io.BytesIO(p.read_bytes())
    fh.name = "gnd.npy"
    assert load_labels(fh).labels.tolist() == [3, 1, 2]


@pytest.mark.parametrize(
    ("arr", "expected", "note"),
    [
        (np.array([1, 2, 3]), [1, 2, 3], None),
        (np.array([[1.0, 2.0, 3.0]]), [1, 2, 3], "flattened a (1, 3) array"),
        (np.array([[4], [5]], dtype=np.int32), [4, 5], "flattened a (2, 1) array"),
        (np.array(["a", "b", "a"]), ["a", "b", "a"], None),
        (np.array([-1, 0, 0]), [-1, 0, 0], None),
    ],
)
def test_labels_npy(arr, expected, note):
    res = load_labels(fx.npy_bytes(arr), name="y.npy")
    assert res.labels.tolist() == expected
    if note:
        assert note in res.notes


def test_labels_npz_kind_picks_convention():
    data = fx.npz_bytes(gnd=np.array([0, 0, 1]), grps=np.array([1, 1, 2]), C=np.eye(3))
    t = load_labels(data, name="run.npz", kind="true")
    p = load_labels(data, name="run.npz", kind="pred")
    assert (t.variable, t.labels.tolist()) == ("gnd", [0, 0, 1])
    assert (p.variable, p.labels.tolist()) == ("grps", [1, 1, 2])
    assert any("conventional name" in n for n in t.notes)
    assert set(t.candidates) == {"gnd", "grps", "C"}
    assert load_labels(data, name="run.npz", variable="grps").labels.tolist() == [1, 1, 2]


def test_labels_mat5_numeric_and_cellstr():
    data = fx.savemat_bytes({"gnd": np.array([[1.0], [2.0], [2.0]]), "X": np.ones((3, 4))})
    res = load_labels(data, name="d.mat")
    assert (res.variable, res.labels.tolist()) == ("gnd", [1, 2, 2])
    res = load_labels(fx.mat5_cellstr(["cat", "dog", "cat"]), name="s.mat")
    assert res.labels.tolist() == ["cat", "dog", "cat"]


def test_labels_mat5_compressed_and_only_suitable_variable():
    data = fx.savemat_bytes({"foo": np.arange(5), "X": np.ones((5, 2))}, compress=True)
    res = load_labels(data, name="d.mat")
    assert res.variable == "foo"
    assert any("only one" in n for n in res.notes)


def test_labels_mat73_dense_and_cellstr(tmp_path):
    p = fx.mat73_file(
        tmp_path / "v73.mat",
        dense={"gnd": np.array([[1.0], [2.0], [3.0]]), "X": np.ones((3, 2))},
        cellstr={"names": ["ant", "bee", "ant"]},
    )
    res = load_labels(p)
    assert (res.variable, res.labels.tolist()) == ("gnd", [1, 2, 3])
    res = load_labels(p, variable="names")
    assert res.labels.tolist() == ["ant", "bee", "ant"]
    # from bytes too (h5py file-object driver, MATLAB user block before the HDF5 superblock)
    assert load_labels(p.read_bytes(), name="v73.mat").labels.tolist() == [1, 2, 3]


# ---------------------------------------------------------------------------------------------
# coefficient matrices and data matrices: good files
# ---------------------------------------------------------------------------------------------

RNG = np.random.default_rng(0)
DENSE = RNG.random((5, 5))
SPARSE = sp.random(6, 6, density=0.3, format="csr", random_state=1)


def _coef_sources(tmp_path: Path) -> list[tuple[str, object, np.ndarray]]:
    dense_csv = "\n".join(",".join(repr(float(x)) for x in row) for row in DENSE).encode()
    p73 = fx.mat73_file(tmp_path / "c73.mat", dense={"C": DENSE, "gnd": np.arange(5)})
    s73 = fx.mat73_file(tmp_path / "s73.mat", sparse={"CKSym": sp.csc_array(SPARSE)})
    return [
        ("npy", (fx.npy_bytes(DENSE), "C.npy"), DENSE),
        ("npy-int", (fx.npy_bytes(np.eye(3, dtype=np.int8)), "C.npy"), np.eye(3)),
        ("npy-fortran", (fx.npy_bytes(np.asfortranarray(DENSE)), "C.npy"), DENSE),
        ("npz-dense", (fx.npz_bytes(Z=DENSE, gnd=np.arange(5)), "r.npz"), DENSE),
        ("npz-csr", (fx.sparse_npz_bytes(SPARSE), "C.npz"), SPARSE),
        ("npz-csc", (fx.sparse_npz_bytes(SPARSE.tocsc(), False), "C.npz"), SPARSE),
        ("npz-coo", (fx.sparse_npz_bytes(SPARSE.tocoo()), "C.npz"), SPARSE),
        ("mat5-dense", (fx.savemat_bytes({"CMat": DENSE}), "c.mat"), DENSE),
        ("mat5-sparse", (fx.savemat_bytes({"W": SPARSE.tocsc()}, True), "c.mat"), SPARSE),
        ("mat73-dense", (p73, None), DENSE),
        ("mat73-sparse", (s73, None), SPARSE),
        ("csv", (dense_csv, "C.csv"), DENSE),
        ("csv-header", (b"a,b\n1,2\n3,4\n", "C.csv"), np.array([[1.0, 2], [3, 4]])),
    ]


def test_coef_every_format(tmp_path):
    for label, (src, fname), expected in _coef_sources(tmp_path):
        res = load_coef(src, name=fname)
        m = res.matrix
        want = expected.toarray() if sp.issparse(expected) else expected
        if sp.issparse(expected):
            assert sp.issparse(m) and m.format == "csr", label
        else:
            assert isinstance(m, np.ndarray) and m.flags.c_contiguous, label
        assert m.dtype == np.float64, label
        got = m.toarray() if sp.issparse(m) else m
        np.testing.assert_allclose(got, want, err_msg=label)


def test_list_variables_headers(tmp_path):
    mat = fx.savemat_bytes({"C": SPARSE.tocsc(), "gnd": np.arange(6)}, compress=True)
    info = {v.name: v for v in list_variables(mat, name="a.mat")}
    assert info["C"].sparse and info["C"].shape == (6, 6) and info["C"].nnz == SPARSE.nnz
    assert info["gnd"].shape == (1, 6) and not info["gnd"].sparse
    p = fx.mat73_file(
        tmp_path / "b.mat", dense={"X": np.ones((4, 3))}, sparse={"C": sp.csc_array(sp.eye(4))}
    )
    info = {v.name: v for v in list_variables(p)}
    assert info["X"].shape == (4, 3) and info["X"].dtype == "double"
    assert info["C"].sparse and info["C"].shape == (4, 4) and info["C"].nnz == 4
    (v,) = list_variables(fx.sparse_npz_bytes(SPARSE), name="C.npz")
    assert v.sparse and v.shape == (6, 6) and v.nnz == SPARSE.nnz
    assert list_variables(b"1\n2\n", name="y.csv") == []


def test_list_variables_reads_no_data(tmp_path):
    # the declared 80 GB dataset is listed, not read
    p = fx.hdf5_huge_declared(tmp_path / "huge.h5")
    (v,) = list_variables(p)
    assert v.shape == (100_000, 100_000)


def test_data_matrix_formats():
    X = RNG.random((7, 3))
    assert load_data_matrix(fx.npy_bytes(X), name="X.npy").matrix.shape == (7, 3)
    res = load_data_matrix(fx.savemat_bytes({"fea": X, "gnd": np.arange(7)}), name="d.mat")
    np.testing.assert_allclose(res.matrix, X)
    res = load_data_matrix(b"f1,f2\n1,2\n3,4\n5,6\n", name="X.csv")
    assert res.matrix.tolist() == [[1, 2], [3, 4], [5, 6]]


def test_choice_rules():
    two = fx.npz_bytes(P=np.eye(3), Q=np.eye(3))
    refused(load_coef, two, name="two.npz", match="several variables.*'P'.*'Q'")
    res = load_coef(two, name="two.npz", variable="Q")
    assert res.variable == "Q"
    refused(load_coef, two, name="two.npz", variable="R", match="no variable 'R'")
    res = load_coef(fx.npz_bytes(P=np.eye(3), gnd=np.arange(3)), name="one.npz")
    assert res.variable == "P"


# ---------------------------------------------------------------------------------------------
# contingency tables
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "table", "classes", "clusters", "note"),
    [
        (b"0,0,3\n0,1,44\n1,2,44\n", [[3, 44, 0], [0, 0, 44]], [0, 1], [0, 1, 2], None),
        (b"class\tcluster\tcount\nb\t1\t2\na\t1\t5\n", [[5], [2]], ["a", "b"], [1], None),
        (b"1 1 2\n1 1 3\n", [[5]], [1], [1], "summed 1 repeated"),
    ],
)
def test_table(data, table, classes, clusters, note):
    t, cls, clu = res = load_table(data, name="counts.csv")
    assert t.dtype == np.int64 and t.tolist() == table
    assert cls.tolist() == classes and clu.tolist() == clusters
    if note:
        assert any(note in n for n in res.notes)


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"0,0\n1,1\n", "needs 3 columns"),
        (b"0,0,3\n0,1,x\n", "not a number.*line 2, column 3"),
        (b"0,0,3\n0,1,-1\n", "non-negative whole number.*line 2"),
        (b"0,0,3\n0,1,2.5\n", "non-negative whole number"),
        (b"0,0,3\n0,1\n", "ragged.*line 2"),
    ],
)
def test_table_bad(data, match):
    refused(load_table, data, name="counts.csv", match=match)


# ---------------------------------------------------------------------------------------------
# malformed files
# ---------------------------------------------------------------------------------------------

MALFORMED = [
    ("empty.csv", b"", load_labels, "empty"),
    ("empty.npy", b"", load_coef, "empty"),
    ("empty.mat", b"", load_coef, "empty"),
    ("blank.csv", b"\n \n", load_labels, "no data"),
    ("garbage.npy", fx.GARBAGE, load_coef, "not a NumPy .npy file"),
    ("garbage.npz", fx.GARBAGE, load_coef, "not a zip archive"),
    ("garbage.mat", fx.GARBAGE, load_coef, "not a MATLAB"),
    ("garbage.csv", fx.GARBAGE, load_labels, "not a text file.*NUL"),
    ("latin.csv", b"\xff\xfe\x01\x02abc", load_labels, "not a text file"),
    ("noext", fx.GARBAGE, load_labels, "not a text file"),
    ("noext2", fx.npy_bytes(np.eye(2)), load_table, "cannot tell the file type"),
    ("C.xlsx", b"PK\x03\x04xxxx", load_coef, "unsupported file type '.xlsx'"),
    ("labels.csv", fx.npy_bytes(np.arange(3)), load_labels, "content is a NumPy .npy"),
    ("C.npy", fx.npz_bytes(C=np.eye(2)), load_coef, "content is a zip archive"),
    ("C.npz", fx.npy_bytes(np.eye(2)), load_coef, "content is a NumPy .npy"),
    ("bad_zip.npz", b"PK\x03\x04" + bytes(200), load_coef, "not a valid .npz"),
    ("truncated.npy", fx.npy_bytes(np.eye(4))[:-8], load_coef, "truncated"),
    ("bad_header.npy", b"\x93NUMPY\x01\x00\x10\x00{'descr': oops}\n", load_coef, "header"),
    ("ragged.csv", b"1,2\n3,4\n5\n7,8\n", load_coef, "ragged.*line 3"),
    ("ragged_labels.csv", b"a,b\n1,2\n3,4,5\n", load_labels, "ragged.*line 3"),
    ("text_in_matrix.csv", b"1,2\n3,x\n", load_coef, "'x' is not a number.*line 2, column 2"),
    ("nan.csv", b"1,2\nnan,4\n", load_coef, r"non-finite.*nan.*row 1, column 0"),
    ("inf.npy", fx.npy_bytes(np.array([[1, np.inf], [0, 1]])), load_coef, "row 0, column 1"),
    ("nonsquare.npy", fx.npy_bytes(np.ones((3, 4))), load_coef, "square N x N.*3 x 4"),
    ("nonsquare.csv", b"1,2,3\n4,5,6\n", load_coef, "square N x N.*2 x 3"),
    ("complex.npy", fx.npy_bytes(np.eye(2) * 1j), load_coef, "complex"),
    ("strs.npy", fx.npy_bytes(np.array([["a", "b"], ["c", "d"]])), load_coef, "numeric"),
    ("missing.csv", b"y\n1\n\n2\n", load_labels, None),  # blank lines are skipped: fine
    ("missing2.csv", b"id,y\n0,1\n1,\n2,2\n", load_labels, "missing label.*line 3"),
    ("na.csv", b"1\n2\nNA\n", load_labels, "missing label 'NA'.*line 3"),
    (
        "nan_labels.npy",
        fx.npy_bytes(np.array([1.0, np.nan])),
        load_labels,
        r"missing label \(NaN\).*index 1",
    ),
    ("frac.csv", b"1\n1.5\n", load_labels, "not a whole number.*line 2"),
    ("matrix_labels.npy", fx.npy_bytes(np.ones((3, 3))), load_labels, "not a label vector"),
    ("scalar.npy", fx.npy_bytes(np.array(3)), load_labels, "single value"),
    ("header_only.csv", b"y\n", load_labels, "header line but no data"),
    ("wide.csv", b"a,b,c\n1,2,3\n", load_labels, "3 columns.*pass column="),
]


@pytest.mark.parametrize(("fname", "data", "fn", "match"), MALFORMED, ids=[c[0] for c in MALFORMED])
def test_malformed(fname, data, fn, match):
    if match is None:
        fn(data, name=fname)
        return
    refused(fn, data, name=fname, match=match)


def test_missing_and_directory(tmp_path):
    refused(load_labels, tmp_path / "nope.csv", match="file not found")
    refused(load_labels, tmp_path, match="is a directory")


def test_bad_arguments():
    refused(load_labels, b"1\n", name="y.csv", kind="both", match="kind must be", source="kind")
    refused(load_labels, b"1\n2\n", name="y.csv", column=3, match="out of range")
    refused(load_labels, b"a,b\n1,2\n", name="y.csv", column="z", match="no column 'z'")
    refused(load_labels, 42, match="expected a file path", source="input")


# ---------------------------------------------------------------------------------------------
# hostile files: pickles, sizes, archives
# ---------------------------------------------------------------------------------------------


def test_pickled_npy_is_never_unpickled(tmp_path):
    flag = tmp_path / "unpickled"
    data = fx.npy_bytes(np.array([fx.Boom(str(flag)), 1], dtype=object), allow_pickle=True)
    refused(load_labels, data, name="evil.npy", match="object array.*never loaded")
    refused(load_coef, data, name="evil.npy", match="object array")
    assert not flag.exists()


def test_npz_with_pickled_member(tmp_path):
    flag = tmp_path / "unpickled"
    buf = io.BytesIO()
    np.savez(buf, gnd=np.array([fx.Boom(str(flag)), 2], dtype=object))
    refused(load_labels, buf.getvalue(), name="evil.npz", match="object array.*member 'gnd'")
    info = list_variables(buf.getvalue(), name="evil.npz")
    assert info[0].dtype == "object"
    assert not flag.exists()


def test_npy_declaring_huge_array_is_refused_before_reading():
    data = fx.npy_declaring((300_000, 300_000))  # 720 GB declared, 128 bytes on disk
    msg = refused(load_coef, data, name="huge.npy", match="larger than the limit N = 200000")
    assert len(data) < 200, msg
    refused(load_labels, fx.npy_declaring((10**12,)), name="y.npy", match="declares 7.3 TiB")
    refused(load_labels, fx.npy_declaring((1000,), data=b"\0" * 80), name="y.npy", match="trunc")


def test_limits_are_configurable():
    refused(load_coef, fx.npy_bytes(np.eye(1001)), name="C.npy", limits=SMALL, match="N = 1000")
    big = fx.npy_bytes(np.zeros(300_000))
    refused(load_labels, big, name="y.npy", limits=SMALL, match="limit for one array")


def test_zip_bomb_and_member_count():
    bomb = fx.zip_bomb_npz(16 << 20)  # 16 MiB of zeros in ~16 KB
    assert len(bomb) < 100_000
    refused(load_coef, bomb, name="bomb.npz", limits=SMALL, match="limit for one array")
    many = fx.many_members_npz(70)
    refused(load_coef, many, name="many.npz", match="70 members, more than the limit of 64")


# ---------------------------------------------------------------------------------------------
# hostile sparse matrices
# ---------------------------------------------------------------------------------------------

BAD_SPARSE = [
    (
        "index out of range",
        dict(data=[1.0, 1.0], indices=[0, 7], indptr=[0, 1, 2], shape=[2, 2]),
        "column index 7 is out of range.*stored entry 1",
    ),
    (
        "negative index",
        dict(data=[1.0], indices=[-1], indptr=[0, 1, 1], shape=[2, 2]),
        "index -1 is out of range",
    ),
    (
        "indptr decreasing",
        dict(data=[1.0, 1.0], indices=[0, 1], indptr=[0, 2, 1, 2], shape=[3, 3]),
        "decreases.*position 2",
    ),
    (
        "indptr wrong length",
        dict(data=[1.0], indices=[0], indptr=[0, 1], shape=[3, 3]),
        "has 2 entries but a matrix with 3 rows needs 4",
    ),
    (
        "indptr not from 0",
        dict(data=[1.0], indices=[0], indptr=[1, 1, 1], shape=[2, 2]),
        "must start at 0",
    ),
    (
        "nnz inconsistent",
        dict(data=[1.0, 2.0, 3.0], indices=[0, 1, 0], indptr=[0, 1, 2], shape=[2, 2]),
        "index pointer ends at 2 but there are 3",
    ),
    (
        "data count",
        dict(data=[1.0], indices=[0, 1], indptr=[0, 1, 2], shape=[2, 2]),
        "2 stored entries but there are 1 values",
    ),
    (
        "float indices",
        dict(data=[1.0], indices=[0.0], indptr=[0, 1, 1], shape=[2, 2]),
        "must be integers",
    ),
    (
        "nan value",
        dict(data=[1.0, np.nan], indices=[0, 1], indptr=[0, 1, 2], shape=[2, 2]),
        "non-finite.*row 1, column 1",
    ),
    (
        "bad shape",
        dict(data=[1.0], indices=[0], indptr=[0, 1], shape=[1, 1, 1]),
        "two non-negative integers",
    ),
]


@pytest.mark.parametrize(("label", "members", "match"), BAD_SPARSE, ids=[c[0] for c in BAD_SPARSE])
def test_sparse_npz_index_checks(label, members, match):
    refused(load_coef, fx.raw_sparse_npz(**members), name="C.npz", match=match)


def test_sparse_npz_other_checks():
    bad_fmt = fx.raw_sparse_npz(b"dia", data=[[1.0]], offsets=[0], shape=[1, 1])
    refused(load_coef, bad_fmt, name="C.npz", match="format 'dia' is not supported")
    coo = fx.raw_sparse_npz(b"coo", data=[1.0], row=[0], col=[5], shape=[2, 2])
    refused(load_coef, coo, name="C.npz", match="column index 5 is out of range")
    csc = fx.raw_sparse_npz(b"csc", data=[1.0], indices=[9], indptr=[0, 1, 1, 1], shape=[3, 3])
    refused(load_coef, csc, name="C.npz", match="row index 9 is out of range")
    rect = fx.sparse_npz_bytes(sp.random(3, 4, density=0.5, format="csr"))
    refused(load_coef, rect, name="C.npz", match="square N x N.*3 x 4")


def test_mat5_sparse_bad_index():
    refused(
        load_coef, fx.mat5_sparse_bad_index(), name="C.mat", match="row index 99 is out of range"
    )


def test_mat5_declared_size_and_inflation():
    refused(load_coef, fx.mat5_declaring_huge_dims(), name="C.mat", match="declares 74.5 GiB")
    refused(load_coef, fx.mat5_declaring_huge_dims(), name="C.mat", limits=SMALL, match="N = 1000")
    refused(
        load_data_matrix,
        fx.mat5_declaring_huge_dims(),
        name="C.mat",
        match="declares 74.5 GiB",
    )
    bomb = fx.mat5_cell_bomb(8 << 20)
    refused(load_labels, bomb, name="cell.mat", limits=SMALL, match="inflates to more than")


# ---------------------------------------------------------------------------------------------
# hostile HDF5 / MATLAB v7.3
# ---------------------------------------------------------------------------------------------


def test_hdf5_links_and_storage_refused(tmp_path):
    secret = tmp_path / "secret.bin"
    cases = [
        (fx.hdf5_external_link(tmp_path / "ext.mat"), "external link to '/etc/passwd'"),
        (fx.hdf5_soft_link(tmp_path / "soft.mat"), "soft link to '/hidden'"),
        (fx.hdf5_sparse_with_external_child(tmp_path / "child.mat"), "external.*'C'/jc"),
        (fx.hdf5_external_storage(tmp_path / "store.mat", secret), "external files.*secret"),
        (fx.hdf5_virtual(tmp_path / "vds.mat", tmp_path / "src.h5"), "virtual dataset"),
    ]
    for path, match in cases:
        for fn in (load_coef, list_variables):
            refused(fn, path, match=match)
        # also when uploaded as bytes
        refused(load_coef, path.read_bytes(), name="up.mat", match=match.split(".*")[0])


def test_hdf5_huge_declared_refused(tmp_path):
    p = fx.hdf5_huge_declared(tmp_path / "huge.mat")
    assert p.stat().st_size < 20_000
    refused(load_coef, p, match="declares 74.5 GiB")
    refused(load_coef, p, limits=SMALL, match="limit N = 1000")
    refused(load_data_matrix, p, match="declares 74.5 GiB")


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"ir": [0, 1, 2, 40]}, "row index 40 is out of range"),
        ({"jc": [0, 2, 1, 3, 4]}, "decreases"),
        ({"jc": [0, 1, 2, 3]}, "square N x N, got shape 4 x 3"),
        ({"jc": [0, 1, 2, 3, 9]}, "ends at 9 but there are 4"),
    ],
)
def test_mat73_sparse_index_checks(tmp_path, kw, match):
    p = fx.mat73_sparse_bad(tmp_path / "bad.mat", **kw)
    refused(load_coef, p, match=match)


# ---------------------------------------------------------------------------------------------
# damaged copies of good files: only ClustlensInputError, never a crash or another exception
# ---------------------------------------------------------------------------------------------


def test_damaged_files_fail_cleanly(tmp_path):
    """Seeded truncations and byte flips of every binary format.

    scipy's compiled MAT v5 reader crashed the process on some of these before the loader
    walked each variable's element tags itself; this test keeps that from coming back.
    """
    m = sp.random(8, 8, density=0.3, format="csr", random_state=0)
    seeds = {
        "a.npy": fx.npy_bytes(np.eye(5)),
        "b.npz": fx.sparse_npz_bytes(m),
        "c.npz": fx.sparse_npz_bytes(m, compressed=False),
        "d.mat": fx.savemat_bytes({"C": m.tocsc(), "gnd": np.arange(8.0)}),
        "e.mat": fx.savemat_bytes({"C": m.tocsc(), "gnd": np.arange(8.0)}, compress=True),
        "f.mat": fx.mat5_cellstr(["a", "b", "c"]),
        "g.mat": fx.mat73_file(
            tmp_path / "g.mat", dense={"gnd": np.arange(8.0)}, sparse={"C": sp.csc_array(m)}
        ).read_bytes(),
    }
    rng = np.random.default_rng(1)
    for fname, data in seeds.items():
        for trial in range(60):
            b = bytearray(data)
            if trial % 3 == 0:
                b = b[: rng.integers(0, len(b))]
            else:
                for _ in range(rng.integers(1, 6)):
                    b[rng.integers(0, len(b))] = rng.integers(0, 256)
            for fn in (load_coef, load_labels, list_variables):
                try:
                    fn(bytes(b), name=fname)
                except ClustlensInputError as exc:
                    assert fname in str(exc)


@pytest.mark.parametrize(
    ("data", "note"),
    [
        (b"1\n2\n2\n3\n", "labels run 1..3 (1-based, as MATLAB writes them)"),
        (b"0\n1\n1\n", "labels run 0..1"),
        (b"-1\n5\n5\n", "2 distinct integer labels from -1 to 5"),
        (b"cat\ndog\n", "2 distinct string labels"),
    ],
)
def test_label_values_get_a_one_line_note(data, note):
    res = load_labels(data, name="y.txt")
    assert note in res.notes
    assert res.notes.count(note) == 1
