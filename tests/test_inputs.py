"""The one input builder: C is validated once and held once; bytes are dropped when not needed."""

from __future__ import annotations

import io

import numpy as np
import pytest
import scipy.sparse as sp

import metrics_core as mc
from dashboard import inputs


def _npy(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=False)
    return buf.getvalue()


def test_a_coefficient_matrix_is_held_once() -> None:
    c = np.random.default_rng(0).random((30, 30))
    data = _npy(c)
    a = inputs.build_input("coef", "C.npy", data, trusted=True)
    b = inputs.build_input("coef", "C.npy", data, trusted=True)
    assert a.value is b.value  # one parsed copy, shared through the parse cache
    assert a.data == b"" and a.n_bytes == len(data)  # the raw bytes are not kept
    np.testing.assert_array_equal(a.value, c)


def test_sparse_c_stays_csr_and_bad_c_is_refused_at_the_door() -> None:
    buf = io.BytesIO()
    sp.save_npz(buf, sp.random(20, 20, density=0.1, format="coo", random_state=0))
    inp = inputs.build_input("coef", "C.npz", buf.getvalue(), trusted=True)
    assert sp.issparse(inp.value) and inp.value.format == "csr"
    with pytest.raises(mc.ClustlensInputError, match="square"):
        inputs.build_input("coef", "C.npy", _npy(np.ones((3, 4))), trusted=True)


def test_from_array_keys_like_an_upload_of_the_same_array() -> None:
    y = np.array([1, 1, 2, 2])
    a = inputs.from_array("truth", "sweep truth", y)
    b = inputs.build_input("truth", "y.npy", _npy(y), trusted=True)
    assert a.sha256 == b.sha256 and a.value.tolist() == b.value.tolist()
