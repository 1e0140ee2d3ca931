"""The analysis' sort (lex_order) orders rows exactly as np.lexsort does, ties in row order:
every request, sector and last-writer count of a trace depends on it."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from simtviz.core.trace.analysis import _writers, instances, lex_order


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 4).flatmap(
        lambda k: st.lists(
            st.tuples(*[st.integers(-(2**40), 2**40) | st.integers(0, 3) for _ in range(k)]),
            min_size=1,
            max_size=60,
        )
    )
)
def test_lex_order_is_lexsort(rows: list[tuple[int, ...]]) -> None:
    cols = [np.array(c, dtype=np.int64) for c in zip(*rows, strict=True)]
    assert lex_order(np, *cols).tolist() == np.lexsort(np.stack(cols)).tolist()


def test_columns_too_wide_for_one_key_still_sort_by_the_primary_first() -> None:
    # Three columns spanning 2^40 each cannot share one int64 key: sorted in passes.
    big = 1 << 40
    minor = np.array([3, 1, 2, 0], dtype=np.int64) * big
    middle = np.array([0, 0, big, big], dtype=np.int64)
    primary = np.array([1, 1, 0, 0], dtype=np.int64) * big
    assert lex_order(np, minor, middle, primary).tolist() == [3, 2, 1, 0]


def test_instances_number_each_threads_executions_of_a_site_in_log_order() -> None:
    # Thread 7 runs site 0 three times, thread 2 once, interleaved with site 1 rows.
    thread = np.array([7, 2, 7, 7, 7, 2], dtype=np.int64)
    site = np.array([0, 0, 1, 0, 0, 1], dtype=np.int64)
    assert instances(np, thread, site).tolist() == [0, 0, 0, 1, 2, 0]


def test_writers_count_distinct_threads_per_element() -> None:
    # Element 0: threads 4 and 9 (9 twice); element 2: thread 4 only; element 1 untouched.
    flat = np.array([0, 2, 0, 0], dtype=np.int64)
    thread = np.array([9, 4, 4, 9], dtype=np.int64)
    assert _writers(np, flat, thread, 3).tolist() == [2, 0, 1]
