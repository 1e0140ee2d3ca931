"""The lesson's first steps: the chapter's introduction and setting up (§2.2 – §2.2.1.4), from
what CUDA Python is and which package does what to running a first program.

Every ``code`` is a complete program that runs as shown (the snippet tests run each one); a line
that differs from the chapter says ``# corrected:`` and why. Programs that import CuPy run only
where there is a GPU.
"""

from __future__ import annotations

from simtviz.core.lesson.errata_cards import CUDA_LANG
from simtviz.core.lesson.model import Claim, Question, Step, probe_try

SIM, GPU = "sim", "gpu"

LIBRARY_VS_KERNEL = """\
import cupy as cp
from numba import cuda


@cuda.jit
def vecadd(A, B, C):
    i = cuda.grid(1)
    if i < C.size:
        C[i] = A[i] + B[i]


def gpu_ms(launch, repeat=21):
    \"\"\"Median GPU time of one call, between CUDA events, the GPU idle before each.\"\"\"
    times = []
    for _ in range(repeat):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        launch()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    return sorted(times)[repeat // 2]


n = 2**24
a = cp.random.uniform(-1, 1, n)
b = cp.random.uniform(-1, 1, n)
c = cp.empty_like(a)
blocks = (n + 255) // 256

vecadd[blocks, 256](a, b, c)  # the first launch compiles: not timed
cp.add(a, b, out=c)
cp.cuda.Device().synchronize()

print(f"cp.add(a, b): {gpu_ms(lambda: cp.add(a, b, out=c)):.3f} ms")
print(f"vecadd:       {gpu_ms(lambda: vecadd[blocks, 256](a, b, c)):.3f} ms")
"""

INTRO = Step(
    "2.2",
    "Intro to CUDA Python",
    (
        "This chapter writes GPU kernels in Python.",
        "CUDA Python is a large ecosystem of tools and libraries, still growing.",
        "Many ways to use a GPU from Python need no kernel at all: libraries do the work.",
        "The Accelerated Python User's Guide (NVIDIA Accelerated Computing Hub) starts there.",
        "This chapter is about the other way: controlling the GPU and writing SIMT kernels.",
    ),
    "",
    (),
    "The whole lesson's kernels, run one CPU thread at a time.",
    "Anything timed, and anything CuPy does: CuPy needs a GPU.",
)

ECOSYSTEM = Step(
    "2.2.1",
    "The CUDA Python ecosystem",
    (
        "GPU control and library GPU code: cuda.core (devices, memory, streams), "
        "cuda.compute (CCCL's algorithms), CuPy (NumPy on the GPU).",
        "Writing kernels: a SIMT kernel language, cuda.coop (CCCL primitives inside kernels), "
        "cuda.tile (the tile model).",
        "Others: cuda.pathfinder finds CUDA components; cuda.bindings wraps the C APIs.",
    ),
    """\
# The chapter calls the SIMT kernel language cuda.lang; its examples import numba.cuda.
from importlib.util import find_spec

from numba import cuda

print("kernels here are written with:", cuda.__name__)
print("cuda.lang installed:", find_spec("cuda") is not None and find_spec("cuda.lang") is not None)
""",
    (probe_try("ecosystem", "Which package runs the kernels?"),),
    "Which packages are installed, and that numba.cuda runs the kernels.",
    "Nothing more: this step needs no GPU.",
    (CUDA_LANG,),
    question=Question(
        "Which package runs every kernel in this chapter?",
        "numba.cuda",
        "ecosystem",
        "kernel_package",
        "Every example starts with `from numba import cuda`; cuda.lang is not installed with it.",
        choices=("cuda.lang", "numba.cuda", "cuda.core"),
        sim_value="numba.cuda",
    ),
    after_answer=(
        "The chapter names the SIMT language cuda.lang, but every example imports numba.cuda.",
        "This lesson says numba.cuda, the package that runs the chapter's code.",
    ),
    claims=(
        Claim(
            "cuda.lang is not installed with numba-cuda",
            "ecosystem",
            "cuda_lang_importable",
            {SIM: False, GPU: False},
        ),
    ),
)

LIBRARIES = Step(
    "2.2.1.1",
    "Using CUDA libraries in Python: a library first",
    (
        "C++ started with few libraries; Python started with libraries such as CuPy.",
        "Many Python libraries call GPU code written in CUDA C++ and tuned by experts.",
        "Use a library when it can say what you need. Write a kernel when none can.",
        "Live: cp.add against the hand-written vecadd, both timed with CUDA events.",
    ),
    LIBRARY_VS_KERNEL,
    (probe_try("library_vs_kernel", "Time cp.add and the vecadd"),),
    "Nothing: both need a GPU (CuPy needs one to make arrays).",
    "Both timings: there is no GPU clock in the simulator.",
    question=Question(
        "Adding two 2^24-element arrays, one call each: which finishes sooner, cp.add or the "
        "hand-written vecadd?",
        "cp.add",
        "library_vs_kernel",
        "faster",
        "The two kernels read and write the same bytes, but a numba launch with CuPy arrays spends "
        "≈94 µs on the host before the GPU starts; CuPy's launch ≈7 µs.",
        choices=("cp.add", "vecadd", "about the same"),
    ),
    after_answer=(
        "On the H200: cp.add 0.10 ms, the numba vecadd 0.18 ms per call (2^24 + 11 float64s).",
        "The kernels take the same GPU time; the numba launch costs ≈94 µs of host time, CuPy's ≈7 µs.",
    ),
    claims=(Claim("cp.add is the faster call", "library_vs_kernel", "faster", {GPU: "cp.add"}),),
)

SCOPE = Step(
    "2.2.1.2",
    "Scope of this chapter",
    (
        "Prefer libraries; the rest of the chapter is for when you must write GPU code.",
        "It follows §2.1 (the C++ chapter): first how to specify a kernel,",
        "then CuPy's GPU ndarray: allocating GPU memory, copying between CPU and GPU.",
    ),
    "",
    (),
    "Every step's kernel.",
    "What CuPy does: CuPy needs a GPU.",
)

SETUP = Step(
    "2.2.1.3",
    "Getting set up",
    (
        "Most of CUDA Python is on PyPI: pip install it.",
        'For this chapter: pip install "numba-cuda[cu13]" cupy-cuda13x (cu12 for a CUDA 12 driver).',
        "All of it needs a recent NVIDIA driver; the CUDA Toolkit is usually not needed.",
        "Platform notes: the CUDA Python page of the NVIDIA Developer Zone.",
    ),
    """\
from numba import cuda

# True on a machine with an NVIDIA GPU and driver; also True in numba's CPU simulator
print("numba can run CUDA kernels here:", cuda.is_available())
""",
    (),
    "True: the simulator stands in for a GPU (NUMBA_ENABLE_CUDASIM=1).",
    "Whether this machine has a GPU and a driver: the simulator needs neither.",
)

RUNNING = Step(
    "2.2.1.4",
    "Running CUDA Python applications",
    (
        "A CUDA Python program runs like any Python program.",
        "Save it as cuda-python-app.py and run: python3 cuda-python-app.py",
        "Library calls or your own kernels: no special launcher.",
    ),
    """\
# cuda-python-app.py -- run it with:  python3 cuda-python-app.py
import numpy as np
from numba import cuda


@cuda.jit
def double(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = 2 * x[i]


x = np.arange(8.0)
double[1, 8](x)
print(x)
""",
    (),
    "The program runs and prints [ 0.  2.  4. ... 14.].",
    "Nothing: this program needs no GPU feature.",
)

STEPS = (
    INTRO,
    ECOSYSTEM,
    LIBRARIES,
    SCOPE,
    SETUP,
    RUNNING,
)
