"""Device helpers a traced kernel calls instead of indexing its arrays (see core/trace/rewrite.py).

Only the threads of a *window* of blocks (``first`` .. ``first + blocks - 1`` in linear block order,
whole blocks so that whole warps are logged) take log slots: ``tv_thread_id`` gives the others
-1. Every access makes one ``cuda.atomic.add`` on a two-counter array: ``count[1]`` for a thread
in the window (the value is its slot), ``count[0]`` for one outside. Both count every attempt,
so the launch's accesses are ``count[0] + count[1]`` and the window's ``count[1]``, and a row is
written only while the slot is below the log's capacity (the budget), so an overfull log still
says how many accesses were made. A thread's slots grow in its program order (its atomics are
ordered), which is how the analysis numbers each thread's executions of a site. Each row also
carries the thread's *epoch*: how many ``cuda.syncthreads()`` (``tv_sync``) it had passed, so the
analysis knows which accesses of one block a barrier separates.

The access itself happens only when every index is inside the array: a load out of bounds gives 0
of the array's type, a store is skipped. Negative indices count as out of bounds too: CUDA C
would touch memory before the array, numba would wrap them to its end, and both hide a bug.

The log is int64 with shape ``(LOG_FIELDS, capacity)``: field-major, so consecutive slots of a
warp are consecutive addresses, and each field is a contiguous column for the analysis.

Written for both targets: the simulator runs these as Python (no inline PTX, no intrinsics), so
``zero_of`` is a plain function there and an ``overload`` on the GPU; and 32 is written out
because ``cuda.warpsize`` breaks ``compile_ptx``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any

from numba import config, cuda, float32, float64, int32

# Fields of the log (rows of the (LOG_FIELDS, capacity) array).
F_THREAD = 0  # global linear thread id: block linear id * threads per block + thread linear id in block
F_SITE = 1  # access site (see trace_rewrite.Site)
F_FLAGS = 2  # oob | kind << 1 | array << 3
F_OFFSET = 3  # byte offset from the array's start (sum of index * stride); may be out of range
F_I0 = 4  # the indices as the thread computed them (unused dimensions 0)
F_I1 = 5
F_I2 = 6
F_EPOCH = 7  # barriers (cuda.syncthreads) the thread had passed when it made the access
LOG_FIELDS = 8

KIND_LOAD = 0
KIND_STORE = 1
KIND_ATOMIC = 2
KIND_NAMES = ("load", "store", "atomic")

# The counter array: accesses of threads outside the window, and log slots taken (inside it).
C_OUTSIDE = 0
C_SLOTS = 1
COUNTERS = 2
NOT_LOGGED = -1  # tv_thread_id of a thread outside the window

SIMULATOR = bool(config.ENABLE_CUDASIM)

# inline: the helpers are a few instructions each; a call per access would cost more than them.
_device = cuda.jit(device=True, inline=True)

if SIMULATOR:

    def zero_of(a):  # type: ignore[no-untyped-def]
        return a.dtype.type(0)

else:
    from numba.cuda.extending import overload

    def zero_of(a):  # type: ignore[no-untyped-def]  # pragma: no cover - replaced on the device
        raise NotImplementedError

    @overload(zero_of, target="cuda")
    def _zero_of_impl(a):  # type: ignore[no-untyped-def]
        dtype = a.dtype

        def impl(a):  # type: ignore[no-untyped-def]
            return dtype(0)

        return impl


@contextmanager
def device_cc(cc: tuple[int, int]) -> Iterator[None]:
    """Compile device functions for ``cc`` while no GPU is present (CI's ``compile_ptx``).

    numba-cuda 0.30 compiles each device function a kernel calls for the *current* device's
    compute capability, which needs a driver; ``compile_ptx(..., cc=...)`` of a kernel that calls
    one fails on a machine without a GPU. Only for compiling to PTX: a launch needs the real one.
    """
    import numba.cuda.dispatcher as dispatcher

    saved = dispatcher.get_current_device
    dispatcher.get_current_device = lambda: SimpleNamespace(compute_capability=cc)
    try:
        yield
    finally:
        dispatcher.get_current_device = saved


def compile_ptx_offline(pyfunc: Callable[..., Any], signature: str, cc: tuple[int, int]) -> str:
    """PTX of a kernel that calls these helpers, without a GPU (see ``device_cc``)."""
    with device_cc(cc):
        ptx, _ = cuda.compile_ptx(pyfunc, signature, cc=cc)
    return str(ptx)


@_device
def tv_thread_id(first, blocks):  # type: ignore[no-untyped-def]
    """Global linear thread id (x fastest, blocks in x-then-y-then-z order) of a thread whose
    block is in the window ``first`` .. ``first + blocks - 1``; NOT_LOGGED for any other."""
    block = cuda.blockIdx.x + cuda.gridDim.x * (cuda.blockIdx.y + cuda.gridDim.y * cuda.blockIdx.z)
    if block < first or block - first >= blocks:
        return NOT_LOGGED
    threads = cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z
    inner = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
    return block * threads + inner


@_device
def _log(log, count, tid, epoch, site, flags, offset, i0, i1, i2):  # type: ignore[no-untyped-def]
    # One atomic per access, on the counter that fits the thread (a select, not a branch).
    inside = tid >= 0
    slot = cuda.atomic.add(count, C_SLOTS if inside else C_OUTSIDE, 1)
    if inside and slot < log.shape[1]:
        log[F_THREAD, slot] = tid
        log[F_SITE, slot] = site
        log[F_FLAGS, slot] = flags
        log[F_OFFSET, slot] = offset
        log[F_I0, slot] = i0
        log[F_I1, slot] = i1
        log[F_I2, slot] = i2
        log[F_EPOCH, slot] = epoch


@_device
def _flags(oob, kind, array):  # type: ignore[no-untyped-def]
    return (1 if oob else 0) + kind * 2 + array * 8


# --- 1-D -------------------------------------------------------------------------------------


@_device
def _oob1(a, i):  # type: ignore[no-untyped-def]
    return i < 0 or i >= a.shape[0]


@_device
def tv_load1(a, i, log, count, tid, epoch, site, array):  # type: ignore[no-untyped-def]
    oob = _oob1(a, i)
    _log(log, count, tid, epoch, site, _flags(oob, KIND_LOAD, array), i * a.strides[0], i, 0, 0)
    if oob:
        return zero_of(a)
    return a[i]


@_device
def tv_store1(a, i, value, log, count, tid, epoch, site, array):  # type: ignore[no-untyped-def]
    oob = _oob1(a, i)
    _log(log, count, tid, epoch, site, _flags(oob, KIND_STORE, array), i * a.strides[0], i, 0, 0)
    if not oob:
        a[i] = value


@_device
def tv_atomic_add1(a, i, value, log, count, tid, epoch, site, array):  # type: ignore[no-untyped-def]
    oob = _oob1(a, i)
    _log(log, count, tid, epoch, site, _flags(oob, KIND_ATOMIC, array), i * a.strides[0], i, 0, 0)
    if oob:
        return zero_of(a)
    return cuda.atomic.add(a, i, value)


# --- 2-D -------------------------------------------------------------------------------------


@_device
def _oob2(a, i, j):  # type: ignore[no-untyped-def]
    return i < 0 or i >= a.shape[0] or j < 0 or j >= a.shape[1]


@_device
def _offset2(a, i, j):  # type: ignore[no-untyped-def]
    return i * a.strides[0] + j * a.strides[1]


@_device
def tv_load2(a, i, j, log, count, tid, epoch, site, array):  # type: ignore[no-untyped-def]
    oob = _oob2(a, i, j)
    _log(log, count, tid, epoch, site, _flags(oob, KIND_LOAD, array), _offset2(a, i, j), i, j, 0)
    if oob:
        return zero_of(a)
    return a[i, j]


@_device
def tv_store2(a, i, j, value, log, count, tid, epoch, site, array):  # type: ignore[no-untyped-def]
    oob = _oob2(a, i, j)
    _log(log, count, tid, epoch, site, _flags(oob, KIND_STORE, array), _offset2(a, i, j), i, j, 0)
    if not oob:
        a[i, j] = value


@_device
def tv_atomic_add2(a, i, j, value, log, count, tid, epoch, site, array):  # type: ignore[no-untyped-def]
    oob = _oob2(a, i, j)
    _log(log, count, tid, epoch, site, _flags(oob, KIND_ATOMIC, array), _offset2(a, i, j), i, j, 0)
    if oob:
        return zero_of(a)
    return cuda.atomic.add(a, (i, j), value)


# --- 3-D -------------------------------------------------------------------------------------


@_device
def _oob3(a, i, j, k):  # type: ignore[no-untyped-def]
    return (
        i < 0 or i >= a.shape[0] or j < 0 or j >= a.shape[1] or k < 0 or k >= a.shape[2]
    )  # fmt: skip


@_device
def _offset3(a, i, j, k):  # type: ignore[no-untyped-def]
    return i * a.strides[0] + j * a.strides[1] + k * a.strides[2]


@_device
def tv_load3(a, i, j, k, log, count, tid, epoch, site, array):  # type: ignore[no-untyped-def]
    oob = _oob3(a, i, j, k)
    _log(log, count, tid, epoch, site, _flags(oob, KIND_LOAD, array), _offset3(a, i, j, k), i, j, k)
    if oob:
        return zero_of(a)
    return a[i, j, k]


@_device
def tv_store3(a, i, j, k, value, log, count, tid, epoch, site, array):  # type: ignore[no-untyped-def]
    oob = _oob3(a, i, j, k)
    _log(log, count, tid, epoch, site, _flags(oob, KIND_STORE, array), _offset3(a, i, j, k), i, j, k)
    if not oob:
        a[i, j, k] = value


@_device
def tv_atomic_add3(a, i, j, k, value, log, count, tid, epoch, site, array):  # type: ignore[no-untyped-def]
    oob = _oob3(a, i, j, k)
    _log(log, count, tid, epoch, site, _flags(oob, KIND_ATOMIC, array), _offset3(a, i, j, k), i, j, k)
    if oob:
        return zero_of(a)
    return cuda.atomic.add(a, (i, j, k), value)


@_device
def tv_sync(epoch):  # type: ignore[no-untyped-def]
    """``cuda.syncthreads()`` as the student wrote it, and the thread's barrier count after it:
    two accesses of one block with equal counts had no barrier between them."""
    cuda.syncthreads()
    return epoch + 1


# A kernel that uses every helper, on global and on shared arrays (the same helpers serve both:
# numba passes a shared array to a device function like any array, and after inlining the
# accesses stay ld/st.shared), so CI proves they compile (kernels.registry).
_PROBE_SIG = "void(float32[::1], float64[:, ::1], int32[:, :, ::1], int64[:, ::1], int64[::1], int64, int64)"


@cuda.jit
def trace_helpers_probe(a, b, c, log, count, first, blocks):  # type: ignore[no-untyped-def]
    tid = tv_thread_id(first, blocks)
    ep = 0
    i = tid
    v = tv_load1(a, i, log, count, tid, ep, 0, 0) + tv_load2(b, i, 1, log, count, tid, ep, 1, 1)
    tv_store1(a, i + 1, v, log, count, tid, ep, 2, 0)
    tv_store2(b, i, i, v, log, count, tid, ep, 3, 1)
    w = tv_load3(c, i, 0, 1, log, count, tid, ep, 4, 2)
    tv_store3(c, 0, i, 1, w + 1, log, count, tid, ep, 5, 2)
    tv_atomic_add1(a, i, 1.0, log, count, tid, ep, 6, 0)
    tv_atomic_add2(b, i, 0, 1.0, log, count, tid, ep, 7, 1)
    tv_atomic_add3(c, i, 0, 0, 1, log, count, tid, ep, 8, 2)
    # shared arrays: array ids after the parameters'
    s1 = cuda.shared.array(64, float64)
    s2 = cuda.shared.array((32, 33), float32)
    s3 = cuda.shared.array((2, 4, 8), int32)
    tv_store1(s1, i, v, log, count, tid, ep, 9, 3)
    tv_store2(s2, i, 1, v, log, count, tid, ep, 10, 4)
    tv_store3(s3, 0, 1, i, w, log, count, tid, ep, 11, 5)
    ep = tv_sync(ep)
    tv_atomic_add1(s1, i, 1.0, log, count, tid, ep, 12, 3)
    tv_atomic_add2(s2, 1, i, 1.0, log, count, tid, ep, 13, 4)
    tv_atomic_add3(s3, 1, 0, i, 1, log, count, tid, ep, 14, 5)
    x = tv_load1(s1, i, log, count, tid, ep, 15, 3) + tv_load2(s2, 1, i, log, count, tid, ep, 16, 4)
    tv_store1(a, i, x + tv_load3(s3, 0, 1, i, log, count, tid, ep, 17, 5), log, count, tid, ep, 18, 0)


PTX_KERNELS = {"trace_helpers_probe": _PROBE_SIG}
