"""The contingency table: built once from two label vectors, every partition metric reads it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp

from metrics_core._threads import check_workers, thread_map
from metrics_core.validation._errors import ClustlensInputError
from metrics_core.validation._labels import check_contingency, check_label_pair

NoisePolicy = Literal["keep", "exclude", "singletons"]
NOISE_POLICIES: tuple[str, ...] = ("keep", "exclude", "singletons")

# Tables with more cells than this are stored as CSR; below it a dense int64 array is cheaper to
# use (32 MB at the limit) and lets the exact Hungarian solver run on it directly.
DENSE_CELL_LIMIT = 4_000_000
# Two numeric label vectors of at least this many labels each are factorised at the same
# time, one on a second thread (pandas' hashing and numpy's counting release the GIL): 1e6
# 40-bit ids 7.9 -> 4.1 ms, compact ints 2.4 -> 1.8 ms on this 2-core machine. Below it,
# handing a vector to a thread costs about what it saves (2^16: 0.50 -> 0.39 ms, 2^14: 0.15 ->
# 0.19 ms). Not strings: 198 -> 176 ms, but both vectors' Python strings alive at once (the
# traced peak 137 -> 258 MB at 1e6).
CONCURRENT_MIN = 1 << 16
# pandas.factorize sizes its hash table for every label unless told (~30 MB at 1e6 labels, in
# no cache, for a hundred ids). A strided sample of HINT_SAMPLE labels with at most a quarter
# of them distinct says the ids are few: the table starts at SMALL_HINT slots (and doubles if
# more come). 1e6 40-bit ids, K = 10 / 1,000 / 10,000: 4.4 / 9.3 / 9.1 ms -> 3.2 / 3.7 / 5.4 ms
# with a 2^16 start; every label distinct, 50 -> 94 ms (hence the sample).
HINT_SAMPLE = 4096
SMALL_HINT = 1 << 16


@dataclass(frozen=True, eq=False)
class Contingency:
    """A classes x clusters table of counts with the label values it was built on.

    Rows are ground-truth classes, columns are predicted clusters; ``table[i, j]`` counts the
    points of class ``classes[i]`` put in cluster ``clusters[j]``. Every row and column is
    non-empty. The table is a dense ``int64`` array, or an ``int64`` CSR array when it has more
    than ``DENSE_CELL_LIMIT`` cells.

    Attributes
    ----------
    table : numpy.ndarray or scipy.sparse.csr_array
    classes, clusters : numpy.ndarray
        Label values of the rows and columns.
    row_sums, col_sums : numpy.ndarray
        Class sizes a_i and cluster sizes b_j.
    counts, nz_rows, nz_cols : numpy.ndarray
        The non-zero cells n_ij and their row and column indices, in row-major order.
    n_noise : int
        Number of points whose predicted label was a noise label (see ``noise_policy``).
    noise_policy : str
        How those points were treated: ``"keep"`` (one cluster, as scikit-learn does),
        ``"exclude"`` (dropped from both labelings before counting) or ``"singletons"``
        (each noise point its own cluster).
    """

    table: np.ndarray | sp.csr_array
    classes: np.ndarray
    clusters: np.ndarray
    n_noise: int = 0
    noise_policy: str = "keep"
    row_sums: np.ndarray = field(init=False)
    col_sums: np.ndarray = field(init=False)
    counts: np.ndarray = field(init=False)
    nz_rows: np.ndarray = field(init=False, repr=False)
    nz_cols: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # The non-zero cells, found once (row-major): MI, the F-measure and the matching tables
        # all read these instead of scanning a dense K x C table again.
        t = self.table
        if sp.issparse(t):
            rows = np.asarray(t.sum(axis=1)).ravel()
            cols = np.asarray(t.sum(axis=0)).ravel()
            csr = sp.csr_array(t)
            csr.sort_indices()
            nz_rows = np.repeat(np.arange(csr.shape[0], dtype=np.intp), np.diff(csr.indptr))
            nz_cols = csr.indices.astype(np.intp)
            vals = csr.data
        else:
            rows = t.sum(axis=1)
            cols = t.sum(axis=0)
            flat = np.flatnonzero(t != 0)  # via a bool mask: 5x faster than on the ints
            n_cols = max(t.shape[1], 1)
            nz_rows, nz_cols = np.divmod(flat, n_cols)
            vals = t.reshape(-1)[flat]
        keep = vals > 0
        if not keep.all():
            nz_rows, nz_cols, vals = nz_rows[keep], nz_cols[keep], vals[keep]
        object.__setattr__(self, "row_sums", rows.astype(np.int64, copy=False))
        object.__setattr__(self, "col_sums", cols.astype(np.int64, copy=False))
        object.__setattr__(self, "counts", vals.astype(np.int64, copy=False))
        object.__setattr__(self, "nz_rows", nz_rows.astype(np.intp, copy=False))
        object.__setattr__(self, "nz_cols", nz_cols.astype(np.intp, copy=False))

    @property
    def n_samples(self) -> int:
        """Number of points counted in the table."""
        return int(self.row_sums.sum())

    @property
    def n_classes(self) -> int:
        return int(self.table.shape[0])

    @property
    def n_clusters(self) -> int:
        return int(self.table.shape[1])

    @property
    def is_sparse(self) -> bool:
        return sp.issparse(self.table)

    def dense(self) -> np.ndarray:
        """The table as a dense array (beware: large tables are large)."""
        return self.table.toarray() if sp.issparse(self.table) else np.asarray(self.table)


def _factorize(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (uniques, codes) with ``uniques[codes] == labels``, uniques sorted."""
    uniques, codes, order = _factorize_unsorted(labels)
    if order is None:
        return uniques, codes
    rank = np.empty(order.size, dtype=np.intp)
    rank[order] = np.arange(order.size)
    return uniques[order], rank[codes]


def _factorize_unsorted(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(uniques, codes) with ``uniques[codes] == labels``, and the order that sorts the uniques
    (``None`` when they already are sorted).

    Callers that count a table permute its K rows by that order rather than relabel the N codes.
    """
    if labels.dtype.kind in "iub" and labels.size:
        lo = int(labels.min())
        span = int(labels.max()) - lo + 1
        if span <= 4 * labels.size + 1024:
            # Integer labels over a compact range: one O(N) bincount instead of an O(N log N) sort.
            shifted = labels.astype(np.intp, copy=False)
            if lo != 0:
                shifted = shifted - lo
            present = np.bincount(shifted, minlength=span) > 0
            uniques = (np.flatnonzero(present) + lo).astype(labels.dtype)
            if present.all():
                # Already dense codes 0..K-1: skip the gather (it costs more than the count).
                return uniques, shifted, None
            lookup = np.cumsum(present, dtype=np.intp) - 1
            return uniques, lookup[shifted], None
    if labels.dtype.kind in "iuU" and labels.size:
        # Arbitrary ids and strings: one O(N) hash pass (pandas.factorize, the floor's own
        # factoriser) instead of np.unique's O(N log N) sort; only the K uniques are sorted.
        import pandas as pd

        codes, uniques = pd.factorize(labels, size_hint=_size_hint(labels))
        uniques = np.asarray(uniques, dtype=labels.dtype)
        order = np.argsort(uniques, kind="stable")
        codes = codes.astype(np.intp, copy=False)
        if (order == np.arange(order.size)).all():
            return uniques, codes, None
        return uniques, codes, order
    uniques, codes = np.unique(labels, return_inverse=True)
    return uniques, codes.reshape(-1).astype(np.intp, copy=False), None


def _size_hint(labels: np.ndarray) -> int | None:
    """``pandas.factorize``'s ``size_hint`` for ``labels``: ``SMALL_HINT`` when a strided
    sample says they hold few distinct values, else ``None`` (pandas' own: one slot a label)."""
    n = labels.shape[0]
    if n <= SMALL_HINT:
        return None
    import pandas as pd

    sample = labels[:: n // HINT_SAMPLE]
    return SMALL_HINT if len(pd.unique(sample)) <= sample.shape[0] // 4 else None


@dataclass(frozen=True)
class NoiseSingleton:
    """The cluster of one noise point under ``noise_policy="singletons"``: point ``index``.

    A type of its own, so it never equals (or hashes like) a real cluster label, even one
    spelled ``"noise:3"``; it prints as ``noise:<index>``.
    """

    index: int

    def __str__(self) -> str:
        return f"noise:{self.index}"


def _is_noise(labels: np.ndarray, noise_labels: Iterable[Any]) -> np.ndarray:
    mask = np.zeros(labels.shape[0], dtype=bool)
    for value in noise_labels:
        if labels.dtype.kind in "iub" and isinstance(value, (int, np.integer)):
            mask |= labels == value
        elif labels.dtype.kind == "U" and isinstance(value, (str, int, np.integer)):
            mask |= labels == str(value)
    return mask


def _factorize_pair(
    t: np.ndarray, p: np.ndarray, *, sorted_pred: bool, workers: int
) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray | None], ...]:
    """:func:`_factorize_unsorted` of ``t`` and of ``p`` (``p``'s uniques sorted, order
    ``None``, when ``sorted_pred``), the two at once on two threads when both are long."""

    def pred(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        if sorted_pred:
            return (*_factorize(labels), None)
        return _factorize_unsorted(labels)

    jobs = [(_factorize_unsorted, t), (pred, p)]
    numeric = t.dtype.kind in "iub" and p.dtype.kind in "iub"
    if numeric and workers > 1 and min(t.shape[0], p.shape[0]) >= CONCURRENT_MIN:
        return tuple(thread_map(lambda job: job[0](job[1]), jobs, 2))
    return tuple(fn(labels) for fn, labels in jobs)


def contingency_table(
    labels_true: Any,
    labels_pred: Any,
    *,
    noise_policy: NoisePolicy = "keep",
    noise_labels: Iterable[Any] = (-1,),
    workers: int | None = None,
) -> Contingency:
    """Count the classes x clusters contingency table in one pass.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        Ground-truth class labels (any hashable: ints of any sign, strings, whole floats).
    labels_pred : array-like of shape (n_samples,)
        Predicted cluster labels.
    noise_policy : {"keep", "exclude", "singletons"}, default="keep"
        What to do with points whose *predicted* label is in ``noise_labels`` (DBSCAN and
        HDBSCAN mark noise with -1). ``"keep"``: they form one cluster, as scikit-learn does;
        ``"exclude"``: they are dropped from both labelings; ``"singletons"``: each is its own
        cluster. The number of such points is ``Contingency.n_noise`` whatever the policy.
    noise_labels : iterable, default=(-1,)
        Predicted label values that mean "noise".
    workers : int, optional
        Threads: two label vectors of ``CONCURRENT_MIN`` (65,536) labels or more are factorised
        at the same time when it is 2 or more. ``None``: the environment's
        ``CLUSTLENS_WORKERS``, else every CPU this process may use; ``1``: the calling thread
        only. The table never depends on it.

    Returns
    -------
    Contingency

    Examples
    --------
    >>> c = contingency_table(["a", "a", "b", "b"], [1, 1, 1, 2])
    >>> c.table.tolist(), c.classes.tolist(), c.clusters.tolist()
    ([[2, 0], [1, 1]], ['a', 'b'], [1, 2])
    >>> contingency_table([0, 0, 1, 1], [5, -1, 5, -1], noise_policy="exclude").n_samples
    2
    """
    if noise_policy not in NOISE_POLICIES:
        raise ClustlensInputError(
            f"unknown noise_policy {noise_policy!r}; choose one of {', '.join(NOISE_POLICIES)}",
            source="noise_policy",
        )
    workers = check_workers(workers)
    t, p = check_label_pair(labels_true, labels_pred)
    noise_labels = tuple(noise_labels)
    if noise_policy == "keep":
        # counted from the table below: noise is a test of the label value, so the clusters
        # that are noise (K labels) tell as much as the N points do
        noise, n_noise = None, 0
    else:
        noise = _is_noise(p, noise_labels)
        n_noise = int(noise.sum())
    if n_noise and noise_policy == "exclude":
        if n_noise == p.shape[0]:
            raise ClustlensInputError(
                f"all {n_noise:,} predicted labels are noise ({list(noise_labels)}); with "
                "noise_policy='exclude' no point is left to score. Use 'keep' or 'singletons'",
                source="labels_pred",
            )
        keep = ~noise
        t, p = t[keep], p[keep]
    singletons = bool(n_noise) and noise_policy == "singletons"
    (classes, ti, class_order), (clusters, pi, cluster_order) = _factorize_pair(
        t, p, sorted_pred=singletons, workers=workers
    )
    if singletons:
        # Noise points become clusters of their own. The real clusters keep their labels (and
        # type); each singleton is a NoiseSingleton, which equals no real label whatever it is.
        pi = pi.copy()
        first_new = len(clusters)
        noise_idx = np.flatnonzero(noise)
        pi[noise_idx] = first_new + np.arange(n_noise)
        used = np.bincount(pi, minlength=first_new + n_noise) > 0
        remap = np.cumsum(used) - 1
        pi = remap[pi]
        names = np.empty(first_new + n_noise, dtype=object)
        names[:first_new] = clusters.tolist()
        names[first_new:] = [NoiseSingleton(int(i)) for i in noise_idx]
        clusters = names[used]
    # ti is scratch once counted, unless it is t itself (labels that already were codes 0..K-1)
    scratch = not np.may_share_memory(ti, t)
    table = _count(ti, pi, len(classes), len(clusters), scratch)
    if noise is None:
        noisy = np.flatnonzero(_is_noise(clusters, noise_labels))
        if noisy.size:
            n_noise = int(table[:, noisy].sum())
    # Hash-factorised labels: the table was counted in order of first appearance; sorting its
    # K rows and C columns costs far less than relabelling the N codes.
    if class_order is not None:
        table, classes = table[class_order], classes[class_order]
    if cluster_order is not None:
        table, clusters = table[:, cluster_order], clusters[cluster_order]
    if sp.issparse(table):
        table = sp.csr_array(table)
    return Contingency(table, classes, clusters, n_noise, noise_policy)


def _count(ti: np.ndarray, pi: np.ndarray, k: int, c: int, scratch: bool = False) -> Any:
    """The k x c table of the codes ``ti``, ``pi`` (dense, or CSR past ``DENSE_CELL_LIMIT``
    cells); ``scratch``: ``ti`` may be overwritten (then the pair codes are formed in it: a
    fresh N-long array costs its pages, ~2 ms at N = 1e6)."""
    if k * c <= DENSE_CELL_LIMIT:
        if scratch and ti.dtype == np.int64:
            flat = ti
            flat *= c
            flat += pi
        else:
            flat = ti.astype(np.int64, copy=False) * c + pi  # no copy: the product is one
        return np.bincount(flat, minlength=k * c).astype(np.int64, copy=False).reshape(k, c)
    ones = np.ones(ti.shape[0], dtype=np.int64)
    table = sp.csr_array((ones, (ti, pi)), shape=(k, c))
    table.sum_duplicates()
    return table


def contingency_from_table(
    table: Any,
    classes: Any | None = None,
    clusters: Any | None = None,
) -> Contingency:
    """Wrap a precomputed table of counts (rows: classes, columns: clusters).

    Empty rows and columns are dropped (they hold no points and change no score). Use this to
    score a table counted elsewhere, e.g. by a database ``GROUP BY`` over billions of rows.

    Examples
    --------
    >>> contingency_from_table([[3, 44, 3], [2, 4, 44]]).n_samples
    100
    """
    t = check_contingency(table)
    k, c = t.shape
    classes = np.arange(k) if classes is None else np.asarray(classes)
    clusters = np.arange(c) if clusters is None else np.asarray(clusters)
    if classes.shape != (k,) or clusters.shape != (c,):
        raise ClustlensInputError(
            f"table has shape {t.shape} but {classes.shape[0]} class names and "
            f"{clusters.shape[0]} cluster names were given",
            source="contingency",
        )
    rows = np.asarray(t.sum(axis=1)).ravel() > 0
    cols = np.asarray(t.sum(axis=0)).ravel() > 0
    if not rows.all() or not cols.all():
        t = t[rows][:, cols] if not sp.issparse(t) else sp.csr_array(t[rows][:, cols])
        classes, clusters = classes[rows], clusters[cols]
    if not sp.issparse(t) and t.size > DENSE_CELL_LIMIT:
        t = sp.csr_array(t)
    return Contingency(t, classes, clusters)


def as_contingency(
    labels_true: Any = None,
    labels_pred: Any = None,
    *,
    contingency: Contingency | Any | None = None,
    **kwargs: Any,
) -> Contingency:
    """Return a :class:`Contingency` from labels or from a given (raw or wrapped) table."""
    if contingency is not None:
        if labels_true is not None or labels_pred is not None:
            raise ClustlensInputError(
                "give either labels_true and labels_pred or contingency, not both",
                source="arguments",
            )
        if isinstance(contingency, Contingency):
            return contingency
        return contingency_from_table(contingency)
    if labels_true is None or labels_pred is None:
        raise ClustlensInputError(
            "both labels_true and labels_pred are needed (or a contingency table)",
            source="arguments",
        )
    return contingency_table(labels_true, labels_pred, **kwargs)
