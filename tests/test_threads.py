"""``metrics_core._threads``: a map on a few threads whose results never depend on how many."""

from __future__ import annotations

import threading

import pytest

from metrics_core._threads import available_cpus, check_workers, thread_map
from metrics_core.validation._errors import ClustlensInputError


@pytest.mark.parametrize("workers", [1, 2, 5])
def test_results_come_back_in_the_order_of_the_items(workers):
    import time

    def slow_first(x: int) -> int:
        time.sleep(0.02 if x == 0 else 0.0)
        return x * 10

    assert list(thread_map(slow_first, range(6), workers)) == [0, 10, 20, 30, 40, 50]


def test_one_worker_or_one_item_runs_in_the_calling_thread():
    me = threading.get_ident()
    assert list(thread_map(lambda _: threading.get_ident(), range(3), 1)) == [me] * 3
    assert list(thread_map(lambda _: threading.get_ident(), [0], 4)) == [me]


def test_several_workers_use_other_threads():
    me = threading.get_ident()
    seen = set(thread_map(lambda _: threading.get_ident(), range(8), 2))
    assert me not in seen


def test_the_first_failing_item_in_order_raises():
    def fail_on_odd(x: int) -> int:
        if x % 2:
            raise ValueError(f"item {x}")
        return x

    with pytest.raises(ValueError, match="item 1"):
        list(thread_map(fail_on_odd, range(6), 3))


def test_workers_none_means_the_cpus_this_process_may_use(monkeypatch):
    monkeypatch.delenv("CLUSTLENS_WORKERS", raising=False)
    assert check_workers(None) == available_cpus() >= 1
    assert check_workers(3) == 3


def test_the_environment_sets_the_default_and_a_bad_value_is_named(monkeypatch):
    monkeypatch.setenv("CLUSTLENS_WORKERS", "3")
    assert check_workers(None) == 3
    assert check_workers(1) == 1  # an explicit count wins
    for bad in ("0", "two", "-1", "1.5"):
        monkeypatch.setenv("CLUSTLENS_WORKERS", bad)
        with pytest.raises(ClustlensInputError) as err:
            check_workers(None)
        assert err.value.source == "environment CLUSTLENS_WORKERS"
        assert repr(bad) in str(err.value)


@pytest.mark.parametrize("bad", [0, -2, 2.0, True, "4"])
def test_workers_other_than_none_or_a_positive_int_are_refused(bad):
    with pytest.raises(ClustlensInputError) as err:
        check_workers(bad)
    assert err.value.source == "workers"
