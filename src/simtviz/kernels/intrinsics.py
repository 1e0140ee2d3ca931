"""Hardware registers a thread can read through inline PTX: the SM it runs on and the clock.

On the CUDA simulator there is no PTX; the same names are device functions that return -1, so
the recording kernel has one source for both backends.
"""

from __future__ import annotations

from numba import config, cuda

SIMULATED = bool(config.ENABLE_CUDASIM)

if SIMULATED:

    @cuda.jit(device=True)
    def sm_id():  # pragma: no cover - trivial
        return -1

    @cuda.jit(device=True)
    def global_timer_ns():  # pragma: no cover - trivial
        return -1

else:
    from llvmlite import ir
    from numba import types
    from numba.cuda.extending import intrinsic

    @intrinsic
    def _read_smid(typingctx):
        def codegen(context, builder, signature, args):
            asm = ir.InlineAsm(
                ir.FunctionType(ir.IntType(32), []), "mov.u32 $0, %smid;", "=r", side_effect=True
            )
            return builder.call(asm, [])

        return types.int32(), codegen

    @intrinsic
    def _read_globaltimer(typingctx):
        def codegen(context, builder, signature, args):
            asm = ir.InlineAsm(
                ir.FunctionType(ir.IntType(64), []), "mov.u64 $0, %globaltimer;", "=l", side_effect=True
            )
            return builder.call(asm, [])

        return types.int64(), codegen

    # Called straight from kernels: wrapping them in a device function would make numba look for
    # a current device while typing, and CI compiles to PTX with none.
    sm_id = _read_smid
    global_timer_ns = _read_globaltimer
