"""The lesson's steps from memory to error checking (§2.2.3 – §2.2.6), the timing step the lesson
adds after §2.2.5.

Every ``code`` is a complete program that runs as shown; a line that differs from the chapter
says ``# corrected:`` and why. Programs that import CuPy run only where there is a GPU.
"""

from __future__ import annotations

from simtviz.core.lesson.errata_cards import (
    BOUNDS_CHECKED,
    CP_RAND,
    CP_SYNCHRONIZE,
    EXCEPT_EXCEPTION,
    GPU_ARRAY_ERROR,
    HOST_ARRAY_ERROR,
    IMPLICIT_COPIES,
    UNDEFINED_A,
    UNIFORM_FLOAT32,
    ZEROS_FLOAT32,
)
from simtviz.core.lesson.model import Claim, Question, Step, TryIt, probe_try

SIM, GPU = "sim", "gpu"
CHAPTER_N = 2**24 + 11  # §2.2.5's vector size

VECADD = """\
@cuda.jit
def vecadd(A, B, C):
    work_index = cuda.grid(1)
    if work_index < C.size:  # corrected: surplus threads must not write (nothing checks bounds)
        C[work_index] = A[work_index] + B[work_index]
"""

MEMORY = Step(
    "2.2.3",
    "Memory in GPU computing",
    (
        "A GPU has its own DRAM; a kernel's arrays must be there before it runs.",
        "In Python, moving data between CPU and GPU is the programmer's job, as in C++.",
        "Python packages such as CuPy call the CUDA C++ memory APIs (§2.1.3.2) for you.",
        "Several packages wrap GPU memory; the chapter uses CuPy, and so does this lesson.",
    ),
    "",
    (),
    "Nothing: in the simulator every array is in host memory.",
    "GPU memory: the simulator has none.",
)

CREATING = Step(
    "2.2.3.1",
    "Creating arrays on the GPU with CuPy",
    (
        "CuPy makes arrays in GPU memory.",
        "Its functions look like NumPy's: zeros, zeros_like, random.",
    ),
    """\
import cupy as cp
import numpy as np

# create a matrix of zeros on the GPU
# corrected: when a datatype is not specified, float64 is used (as in NumPy), not float32
A_device = cp.zeros((1024, 1024))

# create an array of 2^20 random doubles on the GPU
B_device = cp.random.random((2**20), dtype=np.double)  # corrected: cp.random, not cp.rand

# create an array of zeroes with the same shape and datatype as an existing array
C_device = cp.zeros_like(A_device)  # corrected: A_device; the chapter's A is undefined

# corrected: the chapter prints nothing; this line shows the dtypes
print(A_device.dtype, B_device.dtype, C_device.dtype, cp.arange(4).dtype)
""",
    (probe_try("array_dtypes", "Show the dtypes; run the chapter's three lines"),),
    "Which of the chapter's lines fail and why (cp.rand and A fail before any GPU is needed).",
    "CuPy's arrays and their dtypes: CuPy needs a GPU. NumPy's defaults are shown instead, "
    "labelled as NumPy's.",
    (ZEROS_FLOAT32, CP_RAND, UNDEFINED_A),
    question=Question(
        "What dtype does cp.zeros(4) give?",
        "float64",
        "array_dtypes",
        "zeros_dtype",
        "CuPy follows NumPy: float64 unless you pass dtype=.",
        choices=("float32", "float64", "int64"),
    ),
    after_answer=(
        "Its defaults are NumPy's too: cp.zeros and cp.random give float64,",
        "and cp.arange of whole numbers gives int64.",
    ),
    claims=(
        Claim("cp.zeros gives float64", "array_dtypes", "zeros_dtype", {GPU: "float64"}),
        Claim("cp.arange(4) gives int64", "array_dtypes", "arange_dtype", {GPU: "int64"}),
        Claim("CuPy has no cp.rand", "array_dtypes", "has_cp_rand", {SIM: False, GPU: False}),
    ),
)

COPYING = Step(
    "2.2.3.2",
    "Copying arrays between host and GPU",
    (
        "cp.array(host_array) copies host memory to the GPU.",
        "cp.asnumpy(device_array) copies it back, after the GPU's earlier work is done.",
        "Copies cross the PCIe or NVLink bus: far slower than GPU memory.",
    ),
    """\
import cupy as cp
import numpy as np

# Create an array in host memory
A_host = np.zeros((1024, 1024))
# Copy the array to the GPU
A_device = cp.array(A_host)

# Create an array in GPU memory
B_device = cp.random.random((1024, 1024))  # corrected: cp.random, not cp.rand
# copy the array to host memory
B_host = cp.asnumpy(B_device)
# corrected: added, to show where each array lives
print("on the GPU:", isinstance(A_device, cp.ndarray), "on the host:", isinstance(B_host, np.ndarray))
""",
    (probe_try("copy_bandwidth", "Time 64 MiB copies: pageable and pinned", mbytes=64),),
    "Nothing: in the simulator every array already lives in host memory.",
    "Copy times and GB/s: there is no GPU to copy to.",
    (CP_RAND,),
    question=Question(
        "Copying 64 MiB from the GPU to the host: into pinned or into ordinary (pageable) memory, "
        "which is faster?",
        "pinned",
        "copy_bandwidth",
        "faster_d2h",
        "The GPU copies straight into pinned pages; pageable memory goes through a staging buffer.",
        choices=("pinned", "pageable", "the same"),
    ),
    after_answer=(
        "Pinned (page-locked) host memory copies faster than ordinary memory: "
        "64 MB to the host took 20.5 ms from pageable and 1.2 ms into pinned memory on the H200.",
    ),
    claims=(Claim("pinned copies are faster", "copy_bandwidth", "faster_d2h", {GPU: "pinned"}),),
)

NDARRAY = Step(
    "2.2.3.3",
    "The ndarray object type: host or GPU",
    (
        "A NumPy array lives in host memory. A CuPy array lives in GPU memory.",
        "The chapter says mixing them up is an error, and that CuPy never copies by itself.",
    ),
    """\
import cupy as cp
import numpy as np
from numba import cuda


"""
    + VECADD
    + """

# not in the chapter: its two claims, run
n = 1000
a = np.arange(n, dtype=np.float64)  # host arrays
c = np.zeros(n)
vecadd[(n + 255) // 256, 256](a, a, c)  # chapter: an error. Really: copied, warned, correct
print("host arrays, right answer:", bool((c == 2 * a).all()))

x = cp.arange(4, dtype=cp.float64)  # a GPU array
for name, use in (("np.asarray(x)", lambda: np.asarray(x)), ("x + np.ones(4)", lambda: x + np.ones(4))):
    try:
        use()
    except TypeError as e:
        print(name, "raises TypeError:", e)
print("np.sum(x) is a", type(np.sum(x)).__name__, "summed on the GPU")
print("float(x[3]) =", float(x[3]), "copied to the host without a word")
""",
    (
        probe_try("host_array_to_kernel", "Give the kernel NumPy arrays"),
        probe_try("gpu_array_to_python", "Give NumPy and Python a CuPy array"),
        probe_try("bounds_check", "Run the vecadd without the guard"),
    ),
    "A kernel given NumPy arrays runs and is correct. The simulator raises IndexError "
    "for out-of-bounds indices.",
    "The copy and its warning, and anything CuPy does: only a GPU shows them. "
    "A GPU does not raise for out-of-bounds indices.",
    (HOST_ARRAY_ERROR, GPU_ARRAY_ERROR, IMPLICIT_COPIES, BOUNDS_CHECKED),
    question=Question(
        "The vecadd kernel is given NumPy arrays instead of CuPy arrays. What happens?",
        "the right answer",
        "host_array_to_kernel",
        "outcome",
        "numba-cuda copies each NumPy array to the GPU and back, and warns: slow, but correct.",
        choices=("an error", "the right answer", "a wrong answer"),
        sim_value="the right answer",
    ),
    after_answer=(
        "Run it: numba copies NumPy arrays for a kernel, both ways, and warns.",
        "CuPy refuses np.asarray(x) and x + numpy_array (TypeError),",
        "but float(x), x.item(), bool(x), print(x), x.tolist() copy to the host silently and wait.",
    ),
    claims=(
        Claim(
            "NumPy arguments give the right answer",
            "host_array_to_kernel",
            "outcome",
            {SIM: "the right answer", GPU: "the right answer"},
        ),
        Claim("cp + np raises TypeError", "gpu_array_to_python", "mixed_raises", {GPU: True}),
        Claim("float(x) copies silently", "gpu_array_to_python", "float_outcome", {GPU: "silent copy"}),
    ),
)

STREAMS_PICTURE = """\
host      launch A, B ─→ goes on ...... synchronize() ─┐ goes on
stream 1  [ kernel A ][ kernel B ] ────────────────────┘
stream 2    [ copy ][ kernel C ]   its own queue: wait for it alone"""


SYNCHRONIZING = Step(
    "2.2.4",
    "Synchronizing the CPU and the GPU",
    (
        "synchronize() makes the host wait until all GPU work is done.",
        "numba: cuda.synchronize(). CuPy: cp.cuda.Device().synchronize().",
        "Finer: a stream is one queue of GPU work; wait for one stream, not the whole GPU "
        "(§2.5). In Python, create streams with cuda.core.",
    ),
    """\
import cupy as cp
from numba import cuda

# corrected: the chapter's ".." (a SyntaxError) stands for GPU work; here is some


@cuda.jit
def scale(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = 2 * x[i]


x = cp.ones(2**20)
scale[(x.size + 255) // 256, 256](x)

# Wait on host thread for all pending GPU work to complete
# this uses the interface provided by cupy
cp.cuda.Device().synchronize()  # corrected: CuPy has no cp.synchronize()

# Wait on host thread for all pending GPU work to complete
# this uses the interface provided by numba.cuda
cuda.synchronize()
print("x[0] after the kernel:", float(x[0]))  # corrected: added to show the result
""",
    (probe_try("async_timeline", "Timeline: a 50 ms kernel, launch, synchronize", hold_ms=50.0),),
    "That cuda.synchronize() exists; that CuPy has no cp.synchronize.",
    "Asynchrony: the simulator runs the kernel inside the launch call. No GPU times.",
    (CP_SYNCHRONIZE,),
    question=Question(
        "A kernel that runs for 50 ms is launched, no NumPy array among its arguments. When does "
        "the launch call return?",
        "right away",
        "async_timeline",
        "launch_returned",
        "The launch only queues the kernel; synchronize() is what waits for it.",
        choices=("right away", "after the kernel"),
        sim_value="after the kernel",
    ),
    after_answer=(
        "With GPU (CuPy) arrays a launch only queues the kernel: the host goes on at once, "
        "and the kernel may not even have started.",
        "With NumPy arrays numba copies them back after the kernel, so the launch waits: "
        "52.46 ms for a 52 ms kernel on the H200 (0.095 ms with CuPy arrays).",
        "A first launch waits too, while numba compiles: ≈0.33 s on the H200 (new argument types ≈34 ms).",
    ),
    claims=(
        Claim(
            "a launch returns before the kernel ends",
            "async_timeline",
            "launch_returned",
            {SIM: "after the kernel", GPU: "right away"},
        ),
        Claim(
            "CuPy has no cp.synchronize", "async_timeline", "cupy_has_synchronize", {SIM: False, GPU: False}
        ),
    ),
    diagram=STREAMS_PICTURE,
)

TOGETHER = Step(
    "2.2.5",
    "Putting it all together: the vector add",
    (
        "The classic first kernel: C = A + B.",
        "N = 2^24 + 11 is not a multiple of the block size.",
        "So the last block has surplus threads: the guard stops them.",
        "cp.asnumpy waits for the kernel, so the copies see its result.",
        "Copy back, add on the CPU to check, print Test succeeded.",
    ),
    """\
import numpy as np
from numba import cuda
import cupy as cp


# Defines a CUDA kernel to perform C = A + B vector addition
"""
    + VECADD
    + """

# note that vector size is not a power of 2 nor a multiple of the block_size defined below
vector_size = 2**24 + 11

device = cp.cuda.Device()
# corrected: cp.random.uniform gives float64 values (the chapter says float32)
# Create device arrays of uniform random values as input, and an array of zeros
# as the result vector
a = cp.random.uniform(-1, 1, vector_size)
b = cp.random.uniform(-1, 1, vector_size)
c = cp.zeros_like(a)

block_size = 256
grid_size = int(np.ceil(vector_size/block_size))
vecadd[grid_size, block_size](a, b, c)

# synchronize the CPU thread and the GPU to ensure that the kernel has completed
# this is included to illustrate good practices, even though the copy below would implicitly wait for
# the kernel to complete
device.synchronize()

# Copy all 3 arrays to the CPU as ndarrays
a_np = cp.asnumpy(a)
b_np = cp.asnumpy(b)
c_np = cp.asnumpy(c)

# corrected: the chapter says "copy"; this line performs the addition on the CPU to verify
expected = a_np + b_np

# Test that the answer is correct, within floating point epsilon
np.testing.assert_array_almost_equal(c_np, expected)

# The assert will print diagnostics and abort
# so this only prints if the assertion passes
print("Test succeeded")
""",
    (
        TryIt("vecadd", "Run the vector add (guarded)", {"n": None, "block": 256, "unguarded": False}),
        TryIt("vecadd", "Run it as printed (no guard)", {"n": None, "block": 256, "unguarded": True}),
        probe_try("bounds_check", "Count the surplus threads' writes at N = 2^24 + 11", n=CHAPTER_N),
        probe_try("array_dtypes", "Show the dtype of cp.random.uniform"),
    ),
    "The program and its check, at the simulator's smaller default N.",
    "GPU time and bandwidth. The unguarded kernel raises IndexError here; a GPU would not. "
    "Counting the 2^24 + 11 launch's surplus threads: 16.8 million simulated threads would take "
    "about 40 minutes.",
    (UNIFORM_FLOAT32,),
    question=Question(
        "N = 2^24 + 11 with 256-thread blocks: how many surplus threads does the launch run?",
        "245",
        "bounds_check",
        "oob_writes",
        "ceil((2^24 + 11) / 256) = 65,537 blocks = 16,777,472 threads; 16,777,472 - 16,777,227 = 245.",
    ),
    claims=(
        Claim("the unguarded launch writes 245 elements past C", "bounds_check", "oob_writes", {GPU: 245}),
        Claim("cp.random.uniform gives float64", "array_dtypes", "uniform_dtype", {GPU: "float64"}),
    ),
)

TIMING = Step(
    "2.2.5+",
    "Timing a kernel: three wrong ways and the right one (not in the chapter)",
    (
        "A stopwatch around a launch is easy to read and easy to get wrong.",
        "The program times the vector add four ways; three of them are wrong.",
    ),
    """\
import time

import cupy as cp
from numba import cuda


"""
    + VECADD
    + """

def host_ms(launch):
    t0 = time.perf_counter()
    launch()
    return (time.perf_counter() - t0) * 1e3


n = 2**24 + 11
a = cp.random.uniform(-1, 1, n)
b = cp.random.uniform(-1, 1, n)
c = cp.zeros_like(a)
blocks = (n + 255) // 256
launch = lambda: vecadd[blocks, 256](a, b, c)  # noqa: E731

print(f"wrong 1, the first launch:  {host_ms(launch):9.3f} ms (compiles)")
cuda.synchronize()
print(f"wrong 2, the launch call:   {host_ms(launch):9.3f} ms (kernel queued, not done)")
cuda.synchronize()
a_h, b_h, c_h = cp.asnumpy(a), cp.asnumpy(b), cp.asnumpy(c)
print(f"wrong 3, NumPy arrays:      {host_ms(lambda: vecadd[blocks, 256](a_h, b_h, c_h)):9.3f} ms (copies)")

start, end = cp.cuda.Event(), cp.cuda.Event()
start.record()
for _ in range(20):
    launch()
end.record()
end.synchronize()
ms = cp.cuda.get_elapsed_time(start, end) / 20
print(f"right, events, 20 launches: {ms:9.3f} ms per kernel, {3 * n * 8 / ms / 1e6:.0f} GB/s")
""",
    (probe_try("timing_ways", "Time the vector add four ways"),),
    "Nothing: every one of these times needs a GPU.",
    "All four timings: the simulator has no GPU clock.",
    beyond=True,
    question=Question(
        "Timed on the host, is the first launch of the vector add about as long as a warm one, "
        "or far longer?",
        "far longer",
        "timing_ways",
        "first_vs_warm",
        "The first launch compiles the kernel (≈0.33 s); a warm kernel takes ≈0.1 ms.",
        choices=("about the same", "far longer"),
    ),
    after_answer=(
        "Wrong 1: time the first launch. It includes numba's compile (≈0.33 s).",
        "Wrong 2: time the launch call alone. It returns when the kernel is queued, not done.",
        "Wrong 3: pass NumPy arrays. The time is mostly copies over the bus, both ways.",
        "Right: warm up, then CUDA events around the launches, and synchronize on the end event.",
        "On the H200 the vector add (3 × 134 MB) runs in 0.095 ms: ≈4,230 GB/s.",
    ),
    claims=(
        Claim("the first launch is far longer", "timing_ways", "first_vs_warm", {GPU: "far longer"}),
        Claim(
            "NumPy arguments make the launch wait for the kernel",
            "timing_ways",
            "numpy_launch_waits",
            {GPU: True},
        ),
    ),
)

ERROR_CHECKING = Step(
    "2.2.6",
    "Error checking: where errors surface",
    (
        "CUDA errors become Python exceptions; catch them with try / except.",
        "The chapter launches 2048 threads per block, more than any GPU runs, and catches the error.",
    ),
    """\
import numpy as np
from numba import cuda
import cupy as cp

# corrected: catch CUDA's errors only: cuda.core's CUDAError (a bad launch, raised by the
# launch call in numba-cuda >= 0.23) and numba's CudaAPIError (a fault inside the kernel,
# raised by synchronize(); older numba-cuda raised it for a bad launch too)
from cuda.core._utils.cuda_utils import CUDAError
from numba.cuda.cudadrv.driver import CudaAPIError

CUDA_ERRORS = (CUDAError, CudaAPIError)


# Defines a CUDA kernel to perform C = A + B vector addition
"""
    + VECADD
    + """

try:
    vector_size = 2**24 + 11

    device = cp.cuda.Device()
    a = cp.random.uniform(-1, 1, vector_size)
    b = cp.random.uniform(-1, 1, vector_size)
    c = cp.zeros_like(a)

    # this block size is too large for any current GPUs
    block_size = 2048
    grid_size = int(np.ceil(vector_size/block_size))
    # Error: launching kernel with invalid block size
    vecadd[grid_size, block_size](a, b, c)

    device.synchronize()
    print("Test did not encounter any errors")

except CUDA_ERRORS as e:  # corrected: except Exception would also hide NameError and every bug
    print(f"Exception occurred: {e}")
""",
    (
        TryIt("vecadd", "Launch with 2048 threads per block", {"n": None, "block": 2048, "unguarded": False}),
        probe_try("launch_2048", "Catch the exception: at the launch, or at synchronize()?"),
        probe_try("error_checks", "Run the chapter's snippet as printed; fault inside a kernel"),
    ),
    "The app checks the limit itself and shows the driver's text with the numbers (2048 > 1024). "
    "The chapter's unguarded kernel launched with 2048-thread blocks raises IndexError here: its "
    "surplus threads index past the end. That is not the launch limit (the simulator checks no "
    "limits: the guarded kernel runs).",
    "The driver's own rejection: the simulator checks no launch limits (2048 just runs), and a "
    "fault inside a kernel is an IndexError at the launch, not sticky.",
    (EXCEPT_EXCEPTION,),
    question=Question(
        "Launching with 2048 threads per block: where does the error appear?",
        "the launch line",
        "launch_2048",
        "failed_at",
        "The driver checks the configuration when the launch is made: the launch call raises.",
        choices=("the launch line", "synchronize()", "nowhere"),
        sim_value="nowhere",
    ),
    after_answer=(
        "A bad launch configuration (2048 threads per block) fails at the launch line: "
        "CUDAError, CUDA_ERROR_INVALID_VALUE. It is not sticky: the next launch works.",
        "A fault inside a kernel (a far out-of-bounds write) surfaces later, at synchronize(): "
        "numba's CudaAPIError, CUDA_ERROR_ILLEGAL_ADDRESS. It is sticky: every later CUDA call fails.",
        "except Exception catches your own bugs too (a NameError looks like the CUDA error).",
        "Catch the CUDA classes instead: CUDAError and CudaAPIError.",
    ),
    claims=(
        Claim(
            "2048 threads fail at the launch line",
            "launch_2048",
            "failed_at",
            {SIM: "nowhere", GPU: "the launch line"},
        ),
        Claim("a launch error is not sticky", "launch_2048", "sticky", {GPU: False}),
        Claim(
            "on the simulator the unguarded kernel's IndexError is not the launch limit",
            "launch_2048",
            "unguarded_raised",
            {SIM: "IndexError"},
        ),
        Claim(
            "a kernel fault surfaces at synchronize()",
            "error_checks",
            "fault_surfaced_at",
            {SIM: "the launch line", GPU: "synchronize()"},
        ),
        Claim("a kernel fault is sticky", "error_checks", "fault_sticky", {SIM: False, GPU: True}),
        Claim(
            "the snippet as printed reports a NameError as a CUDA error",
            "error_checks",
            "as_printed_output",
            {
                SIM: "Exception occurred: name 'cp' is not defined",
                GPU: "Exception occurred: name 'cp' is not defined",
            },
        ),
    ),
)

STEPS = (
    MEMORY,
    CREATING,
    COPYING,
    NDARRAY,
    SYNCHRONIZING,
    TOGETHER,
    TIMING,
    ERROR_CHECKING,
)
