"""Device code: the instrumented recording kernel, the chapter's vecadd, inline-PTX intrinsics.

Importing this package imports numba: the backend must be chosen first (``simtviz.backends``).
"""
