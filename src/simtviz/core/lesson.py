"""The chapter (CUDA Programming Guide §2.2, "Intro to CUDA Python") as a lesson: frozen data.

Each ``Step`` is one section in the chapter's order: a short explanation for students, the
chapter's code (corrected where it is wrong, every correction marked ``# corrected:``), the
"Try it" demonstrations, what the simulator can and cannot show, and the errata cards for the
errors the chapter makes at that point. A card names the live probe
(``simtviz.backends.lesson``) and the key in its result that is the evidence.

Qt-free and import-light: the lesson panel, the CLI and the handout all read this.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

# What a Try-it can ask the app to do.
ACTIONS = ("probe", "index_map", "vecadd", "open_view")


@dataclass(frozen=True)
class Erratum:
    """One error in the chapter: what it says, what is true, and the probe that shows it live."""

    id: str
    chapter_says: str  # the English gist of the chapter's words
    truth: str
    probe: str  # a name in simtviz.backends.lesson.PROBES
    evidence: str  # the key of that probe's result that proves it


@dataclass(frozen=True)
class TryIt:
    """A demonstration: ``action`` (one of ACTIONS) with its parameters."""

    action: str
    label: str
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ValueError(f"unknown Try-it action {self.action!r}")
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))


@dataclass(frozen=True)
class Step:
    section: str  # "2.2.4"; "B1", "B2"... for the steps beyond the chapter
    title: str
    explanation: tuple[str, ...]  # short sentences, one per line on the slide
    code: str
    try_its: tuple[TryIt, ...]
    sim_shows: str
    sim_cannot: str
    errata: tuple[Erratum, ...] = ()
    beyond: bool = False

    @property
    def heading(self) -> str:
        """What ``lessonStepTitle`` shows: the section number first."""
        return f"{self.section} {self.title}"


def _probe(name: str, label: str, **params: Any) -> TryIt:
    return TryIt("probe", label, {"probe": name, **params})


# ---- the errata (shared/DESIGN.md, and one more found while building this) ----

CP_RAND = Erratum(
    "cp-rand",
    "Create random numbers with cp.rand.random(...).",
    "CuPy has no cp.rand. The function is cp.random.random(...).",
    "array_dtypes",
    "has_cp_rand",
)
ZEROS_FLOAT32 = Erratum(
    "zeros-float32",
    "When no datatype is given, cp.zeros uses float32 by default.",
    "cp.zeros defaults to float64, exactly like NumPy.",
    "array_dtypes",
    "zeros_dtype",
)
UNDEFINED_A = Erratum(
    "undefined-A",
    "C_device = cp.zeros_like(A) makes an array shaped like the existing one.",
    "There is no A in that code: Python raises NameError. It means A_device.",
    "array_dtypes",
    "chapter_lines",
)
UNIFORM_FLOAT32 = Erratum(
    "uniform-float32",
    "cp.random.uniform(-1, 1, N) creates uniform random float32 values.",
    "cp.random.uniform returns float64 unless you ask for another dtype.",
    "array_dtypes",
    "uniform_dtype",
)
BOUNDS_CHECKED = Erratum(
    "bounds-checked",
    "CuPy arrays are bounds-checked inside kernels, so the kernel needs no check.",
    "Nothing checks indices in a numba-cuda kernel, CuPy arrays included. "
    "Surplus threads write past the end. Guard with: if i < C.size.",
    "bounds_check",
    "oob_writes",
)
HOST_ARRAY_ERROR = Erratum(
    "host-array-error",
    "Passing an array that lives on the host to a kernel is an error.",
    "numba-cuda copies each NumPy array to the GPU and back, warns "
    "(NumbaPerformanceWarning: Host array used in CUDA kernel will incur copy overhead), "
    "and gives the right answer. Slow, not an error.",
    "host_array_to_kernel",
    "host_copy_warnings",
)
GPU_ARRAY_ERROR = Erratum(
    "gpu-array-error",
    "Passing an array in GPU memory to an ordinary Python function is an error.",
    "Only sometimes. np.asarray(cupy_array) raises TypeError. "
    "np.sum(cupy_array) runs on the GPU and returns a cupy.ndarray. "
    "A plain Python loop works, one 0-d CuPy array at a time.",
    "gpu_array_to_python",
    "np_sum_is_cupy",
)
CP_SYNCHRONIZE = Erratum(
    "cp-synchronize",
    "cp.synchronize() waits for all pending GPU work (the CuPy interface).",
    "CuPy has no cp.synchronize (AttributeError in CuPy 14). "
    "Use cp.cuda.Device().synchronize() or cp.cuda.runtime.deviceSynchronize().",
    "async_timeline",
    "cupy_has_synchronize",
)

# ---- the steps, in the chapter's order ----

STEPS: tuple[Step, ...] = (
    Step(
        "2.2.2.1",
        "Specifying kernels: @cuda.jit",
        (
            "A kernel is a Python function that runs on the GPU.",
            "@cuda.jit marks it as one.",
            "Nothing is compiled when Python reads the function.",
            "numba compiles it at the first launch, for this GPU: just in time (JIT).",
            "So the first launch is slow. The second reuses the compiled code.",
        ),
        """\
from numba import cuda

@cuda.jit
def function(input_array, output_array):
    ...
""",
        (_probe("jit_timing", "Time the first launch and the second"),),
        "The kernel runs and gives the right answer.",
        "Compile time: the simulator compiles nothing, so both launches cost the same.",
    ),
    Step(
        "2.2.2.2.1",
        "Launching kernels: kernel[blocks, threads]",
        (
            "The launch says how many threads run the kernel.",
            "Square brackets: number of blocks, then threads per block.",
            "Every launch may use its own numbers.",
            "A block runs on one SM and shares its resources.",
            "At most 1024 threads per block on today's GPUs.",
        ),
        """\
from numba import cuda

@cuda.jit
def my_kernel(input, output):
    ...

# launch the kernel
my_kernel[num_thread_blocks, threads_per_block](in_array, out_array)
""",
        (
            TryIt(
                "index_map",
                "4 blocks of 32 threads, one row per block",
                {"grid": (4, 1, 1), "block": (32, 1, 1), "colors": ("blockIdx.x",)},
            ),
        ),
        "Every thread of the launch, one row per block.",
        "Which SM ran each block, and when: the simulator runs blocks one after another.",
    ),
    Step(
        "2.2.2.2.2",
        "Multi-dimensional grids and blocks",
        (
            "Grids and blocks can be 1-D, 2-D or 3-D.",
            "1-D: one integer each. 2-D or 3-D: a tuple each.",
            "Missing dimensions are 1.",
        ),
        """\
from numba import cuda

@cuda.jit
def function(input, output):
    ...

# launch the kernel
function[(gridX, gridY), (blockX, blockY)](in_array, out_array)
""",
        (
            TryIt(
                "index_map",
                "A 3 × 2 grid of 8 × 4 blocks",
                {"grid": (3, 2, 1), "block": (8, 4, 1), "colors": ("blockIdx.x", "blockIdx.y")},
            ),
        ),
        "The 2-D map: 24 columns, 8 rows, coloured by block.",
        "Which SM ran each block.",
    ),
    Step(
        "2.2.2.3",
        "Thread and grid index intrinsics, cuda.grid(n)",
        (
            "Inside the kernel each thread reads who it is.",
            "threadIdx: its place in the block. blockIdx: its block's place in the grid.",
            "blockDim and gridDim: the sizes from the launch.",
            "Indices start at 0. threadIdx.x runs from 0 to blockDim.x - 1.",
            "threadIdx.x + blockIdx.x * blockDim.x is the thread's global index.",
            "cuda.grid(1) computes the same number.",
            "The grid is rounded up to whole blocks: extra threads must do nothing.",
        ),
        """\
# C = A + B vector addition
@cuda.jit
def vecadd(A, B, C):
    idx = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    # the same index, the short way:
    # idx = cuda.grid(1)
    if idx < C.size:  # corrected: nothing checks bounds in a kernel, CuPy arrays included
        C[idx] = A[idx] + B[idx]
""",
        (
            TryIt(
                "index_map",
                "Colour by each index in turn; inspect one thread",
                {
                    "grid": (4, 1, 1),
                    "block": (32, 1, 1),
                    "colors": ("threadIdx.x", "blockIdx.x", "global linear index"),
                    # idx = 5 + 2 * 32 = 69
                    "inspect": {"blockIdx": (2, 0, 0), "threadIdx": (5, 0, 0)},
                },
            ),
            _probe("bounds_check", "Run the vecadd without the guard"),
        ),
        "Every index of every thread, and the worked formula for one thread.",
        "Writes past the end: the simulator checks indices like NumPy and raises IndexError, "
        "a GPU checks nothing.",
        (BOUNDS_CHECKED,),
    ),
    Step(
        "2.2.3.1",
        "Creating arrays on the GPU with CuPy",
        (
            "CuPy makes arrays in GPU memory.",
            "Its functions look like NumPy's: zeros, zeros_like, random.",
            "Defaults are NumPy's too: float64 unless you say otherwise.",
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
""",
        (_probe("array_dtypes", "Show the dtypes; run the chapter's three lines"),),
        "Which of the chapter's lines fail and why (cp.rand and A fail before any GPU is needed).",
        "CuPy's arrays and their dtypes: CuPy needs a GPU. NumPy's defaults are shown instead, "
        "labelled as NumPy's.",
        (ZEROS_FLOAT32, CP_RAND, UNDEFINED_A),
    ),
    Step(
        "2.2.3.2",
        "Copying arrays between host and GPU",
        (
            "cp.array(host_array) copies host memory to the GPU.",
            "cp.asnumpy(device_array) copies it back.",
            "Copies cross the PCIe or NVLink bus: far slower than GPU memory.",
            "Pinned (page-locked) host memory copies faster than ordinary memory.",
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
""",
        (_probe("copy_bandwidth", "Time 64 MiB copies: pageable and pinned", mbytes=64),),
        "Nothing: in the simulator every array already lives in host memory.",
        "Copy times and GB/s: there is no GPU to copy to.",
        (CP_RAND,),
    ),
    Step(
        "2.2.3.3",
        "The ndarray object type: host or GPU",
        (
            "A NumPy array lives in host memory. A CuPy array lives in GPU memory.",
            "CuPy never copies between them by itself: you decide when.",
            "The chapter says mixing them up is an error. Run it and see.",
            "numba copies host arrays for a kernel, and warns.",
            "NumPy functions may run on a CuPy array, on the GPU.",
        ),
        """\
# not in the chapter: its two claims, run
import numpy as np
import cupy as cp

a = np.arange(n, dtype=np.float64)      # host arrays
c = np.zeros(n)
vecadd[blocks, 256](a, a, c)            # chapter: an error
                                        # really: copied, warned, correct

x = cp.arange(4, dtype=cp.float64)      # a GPU array
np.asarray(x)                           # TypeError: use x.get()
np.sum(x)                               # a cupy.ndarray, summed on the GPU
sum(v for v in x)                       # works: 0-d CuPy arrays
""",
        (
            _probe("host_array_to_kernel", "Give the kernel NumPy arrays"),
            _probe("gpu_array_to_python", "Give NumPy and Python a CuPy array"),
            _probe("bounds_check", "Run the vecadd without the guard"),
        ),
        "A kernel given NumPy arrays runs and is correct. The simulator raises IndexError "
        "for out-of-bounds indices.",
        "The copy and its warning, and anything CuPy does: only a GPU shows them. "
        "A GPU does not raise for out-of-bounds indices.",
        (HOST_ARRAY_ERROR, GPU_ARRAY_ERROR, BOUNDS_CHECKED),
    ),
    Step(
        "2.2.4",
        "Synchronizing the CPU and the GPU",
        (
            "A launch only queues the kernel. The host goes on at once.",
            "The kernel may not even have started yet.",
            "synchronize() makes the host wait until the GPU is done.",
            "numba: cuda.synchronize(). CuPy: cp.cuda.Device().synchronize().",
        ),
        """\
import cupy as cp
from numba import cuda

...

# Wait on host thread for all pending GPU work to complete
# this uses the interface provided by cupy
cp.cuda.Device().synchronize()  # corrected: CuPy has no cp.synchronize()

# Wait on host thread for all pending GPU work to complete
# this uses the interface provided by numba.cuda
cuda.synchronize()
""",
        (_probe("async_timeline", "Timeline: a 50 ms kernel, launch, synchronize", hold_ms=50.0),),
        "That cuda.synchronize() exists; that CuPy has no cp.synchronize.",
        "Asynchrony: the simulator runs the kernel inside the launch call. No GPU times.",
        (CP_SYNCHRONIZE,),
    ),
    Step(
        "2.2.5",
        "Putting it all together: the vector add",
        (
            "The classic first kernel: C = A + B.",
            "N = 2^24 + 11 is not a multiple of the block size.",
            "So the last block has surplus threads: the guard stops them.",
            "Copy back, check on the CPU, print Test succeeded.",
        ),
        """\
import numpy as np
from numba import cuda
import cupy as cp


# Defines a CUDA kernel to perform C = A + B vector addition
@cuda.jit
def vecadd(A, B, C):
    work_index = cuda.grid(1)
    if work_index < C.size:  # corrected: surplus threads must not write (nothing checks bounds)
        C[work_index] = A[work_index] + B[work_index]


# note that vector size is not a power of 2 nor a multiple of the block_size defined below
vector_size = 2**24 + 11

device = cp.cuda.Device()
# corrected: cp.random.uniform gives float64 values (the chapter says float32)
a = cp.random.uniform(-1, 1, vector_size)
b = cp.random.uniform(-1, 1, vector_size)
c = cp.zeros_like(a)

block_size = 256
grid_size = int(np.ceil(vector_size/block_size))
vecadd[grid_size, block_size](a, b, c)

# synchronize the CPU thread and the GPU to ensure that the kernel has completed
device.synchronize()

# Copy all 3 arrays to the CPU as ndarrays
a_np = cp.asnumpy(a)
b_np = cp.asnumpy(b)
c_np = cp.asnumpy(c)

# Perform the addition on the CPU to verify the answer
expected = a_np + b_np

np.testing.assert_array_almost_equal(c_np, expected)
print("Test succeeded")
""",
        (
            TryIt("vecadd", "Run the vector add (guarded)", {"n": None, "block": 256, "unguarded": False}),
            TryIt("vecadd", "Run it as printed (no guard)", {"n": None, "block": 256, "unguarded": True}),
            _probe("array_dtypes", "Show the dtype of cp.random.uniform"),
        ),
        "The program and its check, at a smaller N (n=None: the backend's default size).",
        "GPU time and bandwidth. The unguarded kernel raises IndexError here; a GPU would not.",
        (UNIFORM_FLOAT32,),
    ),
    Step(
        "2.2.6",
        "Error checking: 2048 threads per block",
        (
            "CUDA errors become Python exceptions.",
            "Catch them with try / except.",
            "2048 threads per block is more than any GPU runs: the launch fails.",
            "The driver says CUDA_ERROR_INVALID_VALUE.",
        ),
        """\
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

except Exception as e:
    print(f"Exception occurred: {e}")
""",
        (
            TryIt(
                "vecadd", "Launch with 2048 threads per block", {"n": None, "block": 2048, "unguarded": False}
            ),
            _probe("launch_2048", "Catch the exception"),
        ),
        "The app checks the limit itself and shows the driver's text with the numbers (2048 > 1024).",
        "The driver's own rejection: the simulator checks no launch limits (2048 just runs).",
    ),
    Step(
        "B1",
        "Beyond the chapter: your kernel",
        (
            "Write your own kernel and run it traced.",
            "See every out-of-bounds access, untouched element and collision.",
        ),
        "# open the Your kernel tab\n",
        (TryIt("open_view", "Open Your kernel", {"view": "kernelTab"}),),
        "Traced accesses and out-of-bounds indices.",
        "Kernel times.",
        beyond=True,
    ),
    Step(
        "B2",
        "Beyond the chapter: the schedule",
        (
            "Which SM ran each block, and when.",
            "Blocks run in waves when there are more than fit at once.",
        ),
        "# open the schedule view\n",
        (TryIt("open_view", "Open the schedule view", {"view": "scheduleView"}),),
        "Nothing: only a GPU has SMs and a clock.",
        "The whole schedule: it is measured on a GPU.",
        beyond=True,
    ),
    Step(
        "B3",
        "Beyond the chapter: occupancy",
        (
            "How many blocks fit on one SM at once?",
            "Threads, registers and shared memory each set a limit.",
        ),
        "# open the occupancy view\n",
        (TryIt("open_view", "Open the occupancy view", {"view": "occupancyView"}),),
        "The theoretical occupancy for a built-in GPU profile.",
        "The current GPU's own numbers.",
        beyond=True,
    ),
)


def step_count() -> int:
    return len(STEPS)


def step(section: str) -> Step:
    """The step for ``section`` (e.g. "2.2.4"); KeyError if there is none."""
    for s in STEPS:
        if s.section == section:
            return s
    raise KeyError(section)


def errata() -> tuple[Erratum, ...]:
    """Every erratum once, in the order the lesson first shows it."""
    seen: dict[str, Erratum] = {}
    for s in STEPS:
        for e in s.errata:
            seen.setdefault(e.id, e)
    return tuple(seen.values())


def sections_of(erratum_id: str) -> tuple[str, ...]:
    """The sections whose step carries the card for ``erratum_id``."""
    return tuple(s.section for s in STEPS if any(e.id == erratum_id for e in s.errata))


def probes_of(s: Step) -> tuple[str, ...]:
    """Every probe a step needs: its Try-its' and its errata cards' evidence."""
    names = [t.params["probe"] for t in s.try_its if t.action == "probe"]
    names += [e.probe for e in s.errata]
    return tuple(dict.fromkeys(names))
