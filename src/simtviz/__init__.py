"""simtviz: see CUDA's SIMT thread indexing, thread by thread."""

__version__ = "0.1.0"
