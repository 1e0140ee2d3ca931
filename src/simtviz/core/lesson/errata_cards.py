"""The chapter's errors, each on a card: what it says, what is true, and the probe that shows it.

Every truth here was measured on the H200 (tests/gpu/test_lesson_gpu.py) and is shown live by the probe named
on the card (``simtviz.backends.lesson``).
"""

from __future__ import annotations

from simtviz.core.lesson.model import Erratum

CUDA_LANG = Erratum(
    "cuda-lang",
    "cuda.lang is the Python language for writing SIMT kernels.",
    "Every example in the chapter imports numba.cuda, and numba.cuda is what runs them. "
    "The CUDA Python index lists numba.cuda for SIMT kernels; cuda.lang does not come with "
    "numba-cuda (the probe looks for it on this machine).",
    "ecosystem",
    "cuda_lang_importable",
)
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
    "Nothing checks indices in a numba-cuda kernel, CuPy arrays included. The surplus threads "
    "read past the end of A and B and write past the end of C, silently. A write far enough "
    "away faults, but the fault surfaces only at the next synchronize(), and it is sticky: "
    "every later CUDA call fails. Guard with: if i < C.size.",
    "bounds_check",
    "oob_writes",
)
HOST_ARRAY_ERROR = Erratum(
    "host-array-error",
    "Passing an array that lives on the host to a kernel is an error.",
    "numba-cuda copies every NumPy array to the GPU before the kernel and every one back after "
    "it, so the launch waits for the kernel (it is no longer asynchronous). It warns "
    "(NumbaPerformanceWarning: Host array used in CUDA kernel will incur copy overhead) and "
    "gives the right answer: slow, not an error. numba-cuda plans to deprecate these host-array "
    "conveniences: pass GPU arrays.",
    "host_array_to_kernel",
    "host_copy_warnings",
)
GPU_ARRAY_ERROR = Erratum(
    "gpu-array-error",
    "Passing an array in GPU memory to an ordinary Python function is an error.",
    "Only sometimes. np.asarray(cupy_array) raises TypeError, and so does arithmetic that mixes "
    "a CuPy and a NumPy array (cp_array + np_array). np.sum(cupy_array) runs on the GPU and "
    "returns a cupy.ndarray. A plain Python loop works, one 0-d CuPy array at a time.",
    "gpu_array_to_python",
    "mixed_error",
)
IMPLICIT_COPIES = Erratum(
    "implicit-copies",
    "CuPy never copies between the CPU and the GPU implicitly.",
    "It refuses whole arrays (np.asarray(x) raises TypeError), but float(x), x.item(), bool(x) "
    "and so `if x > 0:`, print(x) and x.tolist() copy to the host silently, and wait for the "
    "GPU to finish first (on the H200 float() returned after 52.3 ms, with the kernel's result).",
    "gpu_array_to_python",
    "silent_copies",
)
CP_SYNCHRONIZE = Erratum(
    "cp-synchronize",
    "cp.synchronize() waits for all pending GPU work (the CuPy interface).",
    "CuPy has no cp.synchronize (AttributeError in CuPy 14). "
    "Use cp.cuda.Device().synchronize() or cp.cuda.runtime.deviceSynchronize().",
    "async_timeline",
    "cupy_has_synchronize",
)
EXCEPT_EXCEPTION = Erratum(
    "except-exception",
    "Catch the launch error with `except Exception as e:`.",
    "except Exception also catches your own bugs. The chapter's snippet as printed has no imports "
    "and no kernel: it prints `Exception occurred: name 'cp' is not defined`, which reads like "
    "the CUDA error. Catch the CUDA classes: cuda.core's CUDAError (a bad launch, raised by the "
    "launch call) and numba's CudaAPIError (a fault in the kernel, raised by synchronize()).",
    "error_checks",
    "as_printed_output",
)
