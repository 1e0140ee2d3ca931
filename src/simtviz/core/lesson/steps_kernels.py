"""The lesson's steps on SIMT kernels, from §2.2.2 to the index intrinsics (§2.2.2.3), and the
warps-and-lanes step the lesson adds after §2.2.2.3.

Every ``code`` is a complete program that runs as shown (the snippet tests run each one); a line
that differs from the chapter says ``# corrected:`` and why.
"""

from __future__ import annotations

from simtviz.core.lesson.errata_cards import BOUNDS_CHECKED
from simtviz.core.lesson.model import Claim, Question, Step, TryIt, probe_try

SIM, GPU = "sim", "gpu"

COUNT_KERNEL = """\
import numpy as np
from numba import cuda


@cuda.jit
def count(hits):
    cuda.atomic.add(hits, 0, 1)  # every thread adds 1 once

"""

SIMT = Step(
    "2.2.2",
    "SIMT kernels in Python",
    (
        "A kernel is a function called from the host that runs on the GPU.",
        "CUDA has two models: SIMT and CUDA tile. This chapter uses SIMT.",
        "A SIMT kernel is written for one thread and run by many threads at once.",
        "Every thread runs the whole function.",
    ),
    COUNT_KERNEL
    + """
hits = np.zeros(1, dtype=np.int64)
count[2, 4](hits)  # 2 blocks of 4 threads
print("threads that ran the kernel:", hits[0])
""",
    (probe_try("thread_count", "Count the threads that ran count[2, 4]", launches=((2, 4),)),),
    "The count: the simulator runs every thread, one after another.",
    "Threads running at the same time: the simulator runs them one at a time.",
    question=Question(
        "count[2, 4](hits): how many threads run the kernel's body?",
        "8",
        "thread_count",
        "threads_ran",
        "2 blocks × 4 threads per block = 8 threads, each running the whole function once.",
        sim_value="8",
    ),
    claims=(
        Claim("2 blocks of 4 threads run the body 8 times", "thread_count", "threads_ran", {SIM: 8, GPU: 8}),
    ),
)

SPECIFYING = Step(
    "2.2.2.1",
    "Specifying kernels: @cuda.jit",
    (
        "Import numba's CUDA target: from numba import cuda.",
        "@cuda.jit on the line above a function makes it a kernel.",
        "Nothing is compiled when Python reads the function.",
        "The first launch compiles it for this GPU, just in time (JIT): ≈0.33 s on the H200.",
        "Later launches with the same argument types reuse that code.",
    ),
    """\
import numpy as np  # corrected: added, the launches below need arrays
from numba import cuda


@cuda.jit
def function(input_array, output_array):
    ...


# corrected: the chapter stops at the kernel; these lines launch it so the program runs
x = np.arange(4.0)
y = np.zeros(4)
function[1, 4](x, y)  # first launch: numba compiles for float64 arrays
function[1, 4](x, y)  # same types: the compiled code is reused
function[1, 4](x.astype(np.float32), y.astype(np.float32))  # float32: compiled again
print("three launches done")
""",
    (probe_try("jit_timing", "Time the first launch, the second, and float32"),),
    "The kernel runs and gives the right answer.",
    "Compile time: the simulator compiles nothing, so every launch costs the same.",
    question=Question(
        "After two float64 launches, the same kernel is launched with float32 arrays. Does numba "
        "compile it again?",
        "yes",
        "jit_timing",
        "float32_compiled_again",
        "numba compiles one version per set of argument types; float32 arrays are new types.",
        choices=("yes", "no"),
    ),
    after_answer=("New argument types (float32 arrays, not float64) compile again: 33.8 ms on the H200.",),
    claims=(
        Claim(
            "float32 arrays compile a second version", "jit_timing", "float32_compiled_again", {GPU: "yes"}
        ),
        Claim("the kernel gives the right answer", "jit_timing", "verified", {SIM: True, GPU: True}),
    ),
)

LAUNCHING = Step(
    "2.2.2.2",
    "Launching kernels: the execution configuration",
    (
        "The launch says how many threads run the kernel: its execution configuration.",
        "Each launch has its own: a different block size or number of blocks every time.",
    ),
    COUNT_KERNEL
    + """
hits = np.zeros(1, dtype=np.int64)
count[1, 32](hits)  # 1 block of 32 threads
count[3, 64](hits)  # the same kernel with its own configuration: 3 blocks of 64
print("threads in both launches:", hits[0])
""",
    (
        probe_try(
            "thread_count", "Count the threads of count[1, 32] and count[3, 64]", launches=((1, 32), (3, 64))
        ),
    ),
    "The count of both launches.",
    "Nothing more: counting needs no GPU.",
    question=Question(
        "count[1, 32] and then count[3, 64] add to the same counter. What does it hold after both?",
        "224",
        "thread_count",
        "threads_ran",
        "1 × 32 + 3 × 64 = 32 + 192 = 224.",
        sim_value="224",
    ),
    claims=(Claim("32 + 192 threads ran", "thread_count", "threads_ran", {SIM: 224, GPU: 224}),),
)

KERNEL_LAUNCH = Step(
    "2.2.2.2.1",
    "Kernel launch: kernel[blocks, threads]",
    (
        "Square brackets after the name: number of blocks, then threads per block.",
        "The same order as C++'s <<<blocks, threads>>>.",
        "A block runs on one SM and shares its resources.",
        "At most 1024 threads per block on today's GPUs.",
        "An SM can run several blocks at once when resources allow.",
    ),
    """\
import numpy as np  # corrected: added, the launch below needs arrays
from numba import cuda


@cuda.jit
def my_kernel(input, output):
    ...


# corrected: the chapter's names are placeholders; with numbers the launch runs
num_thread_blocks, threads_per_block = 4, 32
in_array = np.arange(128.0)
out_array = np.zeros(128)

# launch the kernel
my_kernel[num_thread_blocks, threads_per_block](in_array, out_array)
print("launched", num_thread_blocks * threads_per_block, "threads")  # corrected: added
""",
    (
        TryIt(
            "index_map",
            "4 blocks of 32 threads, one row per block",
            {"grid": (4, 1, 1), "block": (32, 1, 1), "colors": ("blockIdx.x",)},
        ),
        probe_try("thread_count", "Count the threads of [4, 32]", launches=((4, 32),)),
    ),
    "Every thread of the launch, one row per block.",
    "Which SM ran each block, and when: the simulator runs blocks one after another.",
    question=Question(
        "my_kernel[4, 32]: how many threads run it?",
        "128",
        "thread_count",
        "threads_ran",
        "4 blocks × 32 threads per block = 128.",
        sim_value="128",
    ),
    claims=(Claim("[4, 32] runs 128 threads", "thread_count", "threads_ran", {SIM: 128, GPU: 128}),),
)

MULTI_DIM = Step(
    "2.2.2.2.2",
    "Multi-dimensional grids and blocks",
    (
        "Grids and blocks can be 1-D, 2-D or 3-D.",
        "1-D: one integer each. 2-D or 3-D: a tuple each.",
        "Missing dimensions are 1.",
    ),
    """\
import numpy as np  # corrected: added, the launch below needs arrays
from numba import cuda


@cuda.jit
def function(input, output):
    ...


# corrected: the chapter's names are placeholders; with numbers the launch runs
gridX, gridY, blockX, blockY = 3, 2, 8, 4
in_array = np.zeros((8, 24))
out_array = np.zeros((8, 24))

# launch the kernel
function[(gridX, gridY), (blockX, blockY)](in_array, out_array)
print("launched", gridX * gridY * blockX * blockY, "threads")  # corrected: added
""",
    (
        TryIt(
            "index_map",
            "A 3 × 2 grid of 8 × 4 blocks",
            {"grid": (3, 2, 1), "block": (8, 4, 1), "colors": ("blockIdx.x", "blockIdx.y")},
        ),
        probe_try("thread_count", "Count the threads of [(3, 2), (8, 4)]", launches=(((3, 2), (8, 4)),)),
    ),
    "The 2-D map: 24 columns, 8 rows, coloured by block.",
    "Which SM ran each block.",
    question=Question(
        "function[(3, 2), (8, 4)]: how many threads in all?",
        "192",
        "thread_count",
        "threads_ran",
        "3 × 2 = 6 blocks of 8 × 4 = 32 threads: 192.",
        sim_value="192",
    ),
    claims=(Claim("[(3, 2), (8, 4)] runs 192 threads", "thread_count", "threads_ran", {SIM: 192, GPU: 192}),),
)

INDICES = Step(
    "2.2.2.3",
    "Thread and grid index intrinsics, cuda.grid(n)",
    (
        "Inside the kernel each thread reads who it is.",
        "threadIdx: its place in the block. blockIdx: its block's place in the grid.",
        "blockDim and gridDim: the sizes from the launch. Unset dimensions: size 1, index 0.",
        "Indices start at 0. threadIdx.x runs from 0 to blockDim.x - 1.",
        "threadIdx.x + blockIdx.x * blockDim.x is the thread's global index in a 1-D launch.",
        "cuda.grid(1) computes exactly that: in a 2-D launch it ignores y, and threads share values.",
        "The grid is rounded up to whole blocks: the surplus threads must do nothing.",
    ),
    """\
# corrected: the chapter shows the kernel alone; these imports and the launch below make it run
import numpy as np
from numba import cuda


# C = A + B vector addition
@cuda.jit
def vecadd(A, B, C):
    idx = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    # corrected: added; the same index the short way, in 1-D launches only: idx = cuda.grid(1)
    if idx < C.size:  # corrected: nothing checks bounds in a kernel, CuPy arrays included
        C[idx] = A[idx] + B[idx]


# corrected: the chapter shows the kernel only; these lines launch it so the program runs
N = 1000
A = np.ones(N)
B = np.full(N, 2.0)
C = np.zeros(N)
vecadd[(N + 255) // 256, 256](A, B, C)
print("every C[i] is 3.0:", bool((C == 3.0).all()))
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
        probe_try("index_formula", "Compute idx in every thread; cuda.grid(1) in 1-D and 2-D"),
        probe_try("bounds_check", "Run the vecadd without the guard"),
    ),
    "Every index of every thread, and the worked formula for one thread.",
    "Writes past the end: the simulator checks indices like NumPy and raises IndexError, "
    "a GPU checks nothing.",
    (BOUNDS_CHECKED,),
    question=Question(
        "32-thread blocks: what is idx for thread 5 of block 2?",
        "69",
        "index_formula",
        "idx_b2_t5",
        "idx = threadIdx.x + blockIdx.x × blockDim.x = 5 + 2 × 32 = 69.",
        sim_value="69",
    ),
    claims=(
        Claim("thread 5 of block 2 has idx 69", "index_formula", "idx_b2_t5", {SIM: 69, GPU: 69}),
        Claim(
            "cuda.grid(1) equals the formula in a 1-D launch",
            "index_formula",
            "grid1_equals_formula_1d",
            {SIM: True, GPU: True},
        ),
        # grid (3, 2) of (8, 4) blocks: x runs over 3 × 8 = 24 values, y is ignored.
        Claim(
            "in a 2-D launch of 192 threads cuda.grid(1) takes 24 values",
            "index_formula",
            "distinct_grid1_2d",
            {SIM: 24, GPU: 24},
        ),
    ),
)

WARPS = Step(
    "2.2.2.3+",
    "Warps and lanes (not in the chapter)",
    (
        "The GPU runs a block's threads in warps of 32: threads 0–31, 32–63, ...",
        "A thread's lane is its place in its warp: threadIdx.x % 32 in a 1-D block.",
        "A warp executes one instruction for all its active threads together.",
    ),
    """\
import numpy as np
from numba import cuda


@cuda.jit
def who(warp, lane):
    t = cuda.threadIdx.x
    warp[t] = t // 32  # warps are 32 threads on every NVIDIA GPU so far
    lane[t] = cuda.laneid  # the thread's place in its warp, read from the hardware


warp = np.zeros(48, dtype=np.int32)
lane = np.zeros(48, dtype=np.int32)
who[1, 48](warp, lane)
print("warp:", warp)
print("lane:", lane)
""",
    (
        TryIt(
            "index_map",
            "One block of 48 threads: colour by thread, warp, lane",
            {"grid": (1, 1, 1), "block": (48, 1, 1), "colors": ("thread id in block", "warp", "lane")},
        ),
        probe_try("warps", "Read warp and lane in every thread of a 48-thread block"),
    ),
    "Warp and lane of every thread (the simulator numbers lanes as a GPU does).",
    "Warps executing together: the simulator runs one thread at a time.",
    beyond=True,
    question=Question(
        "A block of 48 threads: how many threads are in its second warp?",
        "16",
        "warps",
        "second_warp_threads",
        "Warp 0 holds threads 0–31; warp 1 holds threads 32–47: 48 - 32 = 16.",
        sim_value="16",
    ),
    after_answer=(
        "A block of 48 threads has a full warp and a partial one of 16 threads.",
        "The partial warp still takes a whole warp's slot: pick block sizes that are multiples of 32.",
    ),
    claims=(
        Claim("the second warp has 16 threads", "warps", "second_warp_threads", {SIM: 16, GPU: 16}),
        Claim("the lane is threadIdx.x % 32", "warps", "lane_is_tid_mod_32", {SIM: True, GPU: True}),
    ),
)

STEPS = (
    SIMT,
    SPECIFYING,
    LAUNCHING,
    KERNEL_LAUNCH,
    MULTI_DIM,
    INDICES,
    WARPS,
)
