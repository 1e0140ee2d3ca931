"""Mutation testing for simtviz: plant small bugs one at a time and check that a test fails.

    python scripts/mutation.py                  # every module of MODULES (make mutation)
    python scripts/mutation.py core/window.py   # some modules (paths under src/simtviz)
    python scripts/mutation.py --planted        # the 24 bugs of issue 9, each must be caught
    python scripts/mutation.py --list core/limits.py   # the mutants, without running them

Why not mutmut: numba-heavy code pays ~1.5 s to import numba in every test process, and the
whole suite takes a minute; mutmut runs the suite per mutant. This runner (1) applies one AST
mutation to one file in a private copy of the tree (parallel runs never touch the worktree),
(2) runs only the tests mapped to that file (TESTS below), and (3) forks each run from a worker
that has already imported numpy, numba's simulator and pytest, so a mutant costs the tests only.

Mutations: comparison operators (< ↔ <=, > ↔ >=, == ↔ !=), arithmetic (+ ↔ -, * → +, // → *,
% → //, / → *), integer constants n → n + 1, True ↔ False, and ↔ or, ``not x`` → ``x``,
``return <value>`` → ``return None``. Docstrings, strings, f-strings, annotations, decorators
(``@dataclass(frozen=True)`` declares, it does not compute) and lines marked
``# pragma: no mutate`` are left alone.

A mutant is *killed* when its tests fail (or time out) and *survives* when they pass. The report
lists survivors as ``file:line: original → mutated``; docs/TESTING.md explains each one.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import ctypes
import fnmatch
import functools
import hashlib
import importlib
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from line_tests import LineTracer, tests_by_line

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "simtviz"

# What `make mutation` mutates: every module that holds logic and runs without a GPU: the
# Qt-free core, the CLI, the simulator halves of the backends, the kernels the simulator runs, and
# the Qt panels through their pure helpers (framing, schedule data, the kernel tab's TraceData).
# Left out: the GPU halves (backends/gpu.py, backends/cuda_tools.py, */gpu.py, gpu_timing.py, kernels/busy.py,
# kernels/schedule.py, kernels/intrinsics.py: tests/gpu covers them) and widget code, whose
# logic lives in the helpers listed here.
MODULES = [
    "core/schema.py",
    "core/oracle.py",
    "core/window.py",
    "core/limits.py",
    "core/estimates.py",
    "core/launch.py",
    "core/recording.py",
    "core/maps.py",
    "core/formulas.py",
    "core/errors.py",
    "core/files.py",
    "cli/__init__.py",
    "cli/errors.py",
    "cli/interrupts.py",
    "cli/parser.py",
    "cli/record.py",
    "cli/vecadd.py",
    "cli/devices.py",
    "backends/sim.py",
    "backends/sim_process.py",
    "backends/record/sim.py",
    "backends/vecadd/sim.py",
    "backends/watcher.py",
    "core/schedule/occupancy.py",
    "core/schedule/__init__.py",
    "core/locate.py",
    "core/color_names.py",
    "core/run_timings.py",
    # added 2026-12-03 (issue 18): the trace, the lesson, their CLI and the panels' helpers
    "core/trace/analysis.py",
    "core/trace/rewrite.py",
    "core/trace/shared.py",
    "core/trace/model.py",
    "core/trace/report.py",
    "core/trace/args.py",
    "core/trace/source.py",
    "core/lesson/__init__.py",
    "core/lesson/handout.py",
    "core/vecadd.py",
    "cli/trace.py",
    "cli/schedule.py",
    "cli/occupancy.py",
    "cli/snapshot.py",
    "cli/progress.py",
    "backends/base.py",
    "backends/selection.py",
    "backends/experiment.py",
    "backends/sim_child.py",
    "backends/trace/__init__.py",
    "backends/trace/sim.py",
    "backends/trace/prepare.py",
    "backends/isolated.py",
    "backends/isolated_child.py",
    "backends/trace/child.py",
    "backends/schedule/occupancy.py",
    "backends/lesson/__init__.py",
    "backends/lesson/common.py",
    "backends/lesson/sim.py",
    "kernels/record.py",
    "kernels/verify.py",
    "kernels/trace_helpers.py",
    "qt/map/framing.py",
    "qt/tabs/schedule/data.py",
    "qt/tabs/kernel/views.py",
    "core/lesson/grading.py",
    # added 2026-12-03 (issues 20-24): the emulator, exercises, hazards, words, file checks
    "core/trace/words.py",
    "core/trace/infer.py",
    "core/trace/hazards.py",
    "core/trace/templates.py",
    "core/npz_read.py",
    "core/exercise/model.py",
    "core/exercise/checks.py",
    "core/exercise/explain.py",
    "core/exercise/handout.py",
    "core/exercise/catalog.py",
    "core/exercise/catalog_more.py",
    "core/lesson/model.py",
    "core/lesson/errata_cards.py",
    "core/lesson/steps_intro.py",
    "core/lesson/steps_kernels.py",
    "core/lesson/steps_memory.py",
    "core/lesson/steps_beyond.py",
    "cli/exercise.py",
    "backends/emu_backend.py",
    "backends/record/emu.py",
    "backends/vecadd/emu.py",
    "backends/trace/emu.py",
    "backends/trace/batch.py",
    "backends/child_limits.py",
    "backends/lesson/experiment.py",
    "backends/lesson/both.py",
    "emu/check.py",
    "emu/threads.py",
    "emu/values.py",
    "emu/modules.py",
    "emu/interp.py",
    "emu/memory.py",
    "emu/cuda_api.py",
    "kernels/lesson.py",
    "core/trace/ast_nodes.py",
    # added 2026-12-03 evening (issue 19): the trace's plan and typed tables
    "core/trace/plan.py",
    "core/trace/stats.py",
]

# Tests that cover each module (glob → test files), first match wins. Each mutant runs them
# (without those marked slow or gpu), so they decide what a run costs.
TESTS: list[tuple[str, list[str]]] = [
    # first match wins: these come before the broad globs below
    (
        "core/trace/plan.py",
        ["tests/core/trace/test_trace_plan.py", "tests/cli/test_trace_cli_plan.py"],
    ),
    (
        "core/trace/stats.py",
        [
            "tests/core/trace/test_stats_handworked.py",
            "tests/core/trace/test_trace_analysis_handworked.py",
            "tests/cli/test_cli_text_handworked.py",
            "tests/core/trace/test_trace_banks.py",
        ],
    ),
    (
        "backends/isolated*.py",
        [
            "tests/backends/test_isolated_handworked.py",
            "tests/backends/test_isolated_handworked2.py",
            "tests/backends/test_isolated.py",
            "tests/backends/trace/test_trace_child_limits.py",
            "tests/cli/test_trace_cli.py",
        ],
    ),
    (
        "core/trace/ast_nodes.py",
        ["tests/core/trace/test_trace_rewrite.py", "tests/core/trace/test_trace_module_handworked.py"],
    ),
    (
        "kernels/lesson.py",
        [
            "tests/kernels/test_lesson_kernels_handworked2.py",
            "tests/core/lesson/test_lesson_walk.py",
            "tests/backends/lesson/test_lesson_probes.py",
        ],
    ),
    (
        "core/trace/words.py",
        [
            "tests/core/trace/test_words_handworked.py",
            "tests/core/trace/test_words_handworked2.py",
            "tests/core/trace/test_trace_words.py",
            "tests/core/trace/test_trace_report_handworked.py",
        ],
    ),
    (
        "core/trace/infer.py",
        [
            "tests/core/trace/test_infer_handworked.py",
            "tests/core/trace/test_infer_handworked2.py",
            "tests/backends/trace/test_trace_student_errors.py",
            "tests/qt/tabs/kernel/test_kernel_files.py",
        ],
    ),
    (
        "core/trace/hazards.py",
        [
            "tests/core/trace/test_hazards_handworked.py",
            "tests/core/trace/test_trace_hazards.py",
            "tests/emu/test_exercises_emu.py",
        ],
    ),
    ("core/trace/templates.py", ["tests/emu/test_emu_differential.py", "tests/kernels/test_trace_ptx.py"]),
    (
        "core/npz_read.py",
        [
            "tests/core/test_npz_read_handworked.py",
            "tests/core/test_npz_read_handworked2.py",
            "tests/core/test_record_headers.py",
            "tests/core/test_files.py",
        ],
    ),
    (
        "core/exercise/*",
        [
            "tests/core/exercise/test_checks_handworked.py",
            "tests/core/exercise/test_checks_handworked2.py",
            "tests/core/exercise/test_model_handworked.py",
            "tests/core/exercise/test_explain_handworked.py",
            "tests/core/exercise/test_handout_handworked.py",
            "tests/core/exercise/test_catalog_handworked.py",
            "tests/emu/test_exercises_emu.py",
            "tests/core/exercise/test_exercises.py",
            "tests/cli/test_exercise_cli.py",
        ],
    ),
    (
        "cli/exercise.py",
        [
            "tests/cli/test_exercise_cli_handworked.py",
            "tests/cli/test_exercise_cli.py",
            "tests/cli/test_cli_flush_handworked2.py",  # its last line flushed
        ],
    ),
    (
        "backends/emu_backend.py",
        ["tests/backends/test_emu_backend.py", "tests/backends/test_emu_selection.py"],
    ),
    (
        "backends/*/emu.py",
        [
            "tests/emu/test_emu_backends_handworked2.py",
            "tests/emu/test_emu_backends_handworked3.py",
            "tests/emu/test_emu_record.py",
            "tests/emu/test_emu_vecadd.py",
            "tests/emu/test_emu_differential.py",
        ],
    ),
    (
        "backends/trace/batch.py",
        [
            "tests/backends/trace/test_trace_batch_handworked2.py",
            "tests/emu/test_exercises_emu.py",
            "tests/core/exercise/test_exercises.py",
        ],
    ),
    (
        "backends/child_limits.py",
        [
            "tests/backends/test_child_limits_handworked2.py",
            "tests/backends/trace/test_trace_child_limits.py",
            "tests/backends/trace/test_gpu_checker_ends.py",
            "tests/backends/trace/test_child_docs_truth.py",
        ],
    ),
    (
        "emu/*",
        [
            "tests/emu/test_check_handworked.py",
            "tests/emu/test_cuda_api_handworked.py",
            "tests/emu/test_cuda_api_handworked2.py",
            "tests/emu/test_interp_handworked.py",
            "tests/emu/test_interp_handworked2.py",
            "tests/emu/test_interp_handworked3.py",
            "tests/emu/test_memory_handworked.py",
            "tests/emu/test_memory_handworked2.py",
            "tests/emu/test_memory_handworked3.py",
            "tests/emu/test_memory_handworked4.py",
            "tests/emu/test_modules_handworked.py",
            "tests/emu/test_threads_handworked.py",
            "tests/emu/test_values_handworked.py",
            "tests/emu/test_emu_lockstep.py",
            "tests/emu/test_emu_record.py",
            "tests/emu/test_emu_vecadd.py",
            "tests/emu/test_emu_differential.py",
        ],
    ),
    (
        "core/schema.py",
        [
            "tests/core/test_handworked_records.py",
            "tests/core/test_colour_fields_handworked.py",
            "tests/backends/test_device_verifier_sim.py",
            "tests/core/test_oracle.py",
        ],
    ),
    (
        "core/oracle.py",
        [
            "tests/core/test_handworked_records.py",
            "tests/core/test_oracle.py",
            "tests/backends/test_device_verifier_sim.py",
        ],
    ),
    ("core/window.py", ["tests/core/test_handworked_records.py"]),
    (
        "core/limits.py",
        [
            "tests/core/test_limits_boundaries.py",
            "tests/core/test_limits.py",
            "tests/core/test_error_reports_handworked.py",
        ],
    ),
    (
        "core/estimates.py",
        [
            "tests/core/test_limits_boundaries.py",
            "tests/backends/test_base_handworked.py",  # the emulator's rates, through BackendInfo
            "tests/cli/test_cli_exit_codes.py",
        ],
    ),
    (
        "core/launch.py",
        [
            "tests/core/test_launch_handworked.py",
            "tests/core/test_launch.py",
            "tests/core/test_handworked_records.py",
            "tests/core/test_colour_fields_handworked.py",
        ],
    ),
    (
        "core/recording.py",
        [
            "tests/core/test_recording_handworked.py",
            "tests/core/test_recording_handworked2.py",
            "tests/core/test_recording_handworked3.py",
            "tests/core/test_recording_handworked4.py",
            "tests/core/test_recording_handworked5.py",  # an export never pickles
            "tests/core/test_record_headers.py",
            "tests/core/test_handworked_records.py",
            "tests/core/test_colour_fields_handworked.py",
            "tests/cli/test_cli.py",
            "tests/qt/tabs/index_map/test_map_placement_handworked.py",
        ],
    ),
    ("core/maps.py", ["tests/core/test_colour_fields_handworked.py"]),
    (
        "core/formulas.py",
        [
            "tests/core/test_formulas_handworked2.py",
            "tests/core/test_colour_fields_handworked.py",
            "tests/core/test_handworked_records.py",
        ],
    ),
    (
        "core/errors.py",
        [
            "tests/core/test_error_reports_handworked.py",
            "tests/core/test_errors_handworked2.py",
            "tests/cli/test_cli_exit_codes.py",
            "tests/cli/test_cli.py",
        ],
    ),
    (
        "core/files.py",
        [
            "tests/core/test_files_handworked2.py",
            "tests/core/test_files_handworked3.py",
            "tests/core/test_files.py",
            # through the kernel tab's Open (read_user_text) and a record's opening (read_kind)
            "tests/qt/tabs/kernel/test_kernel_files.py",
            "tests/core/test_record_headers.py",
        ],
    ),
    (
        "core/vecadd.py",
        [
            "tests/core/test_vecadd_handworked.py",
            "tests/core/test_vecadd_handworked2.py",
            "tests/core/test_vecadd_core.py",
            "tests/cli/test_vecadd_cli.py",
        ],
    ),
    (
        "core/schedule/occupancy.py",
        [
            "tests/core/schedule/test_occupancy_words_handworked.py",
            "tests/core/schedule/test_occupancy.py",
            "tests/core/schedule/test_occupancy_profiles.py",
            "tests/cli/test_schedule_cli.py",
        ],
    ),
    (
        "core/schedule/__init__.py",
        [
            "tests/core/schedule/test_schedule_core.py",
            "tests/core/schedule/test_schedule_handworked.py",
            "tests/core/schedule/test_schedule_handworked2.py",
        ],
    ),
    ("core/locate.py", ["tests/core/test_locate_handworked.py", "tests/core/test_lecture_core.py"]),
    ("core/color_names.py", ["tests/core/test_color_names_handworked.py", "tests/cli/test_cli_fidelity.py"]),
    (
        "core/run_timings.py",
        [
            "tests/core/test_run_timings_boundary.py",
            "tests/core/test_run_timings.py",
            "tests/cli/test_cli_exit_codes.py",
        ],
    ),
    # issue 18: fast hand-worked files first (a run stops at the first failure)
    (
        "core/trace/analysis.py",
        [
            "tests/core/trace/test_trace_analysis_handworked.py",
            "tests/core/trace/test_trace_analysis_edges.py",
            "tests/cli/test_cli_text_handworked.py",
            "tests/core/trace/test_trace_report_handworked.py",
            "tests/core/trace/test_trace_banks.py",
            "tests/core/trace/test_trace_lex_order.py",
        ],
    ),
    (
        "core/trace/rewrite.py",
        [
            "tests/core/trace/test_rewrite_handworked.py",
            "tests/core/trace/test_trace_module_handworked.py",
            "tests/core/trace/test_trace_rewrite.py",
            "tests/core/trace/test_trace_analysis_handworked.py",
            "tests/backends/trace/test_trace_sim.py",
        ],
    ),
    (
        "core/trace/shared.py",
        [
            "tests/core/trace/test_trace_module_handworked.py",
            "tests/core/trace/test_trace_module_handworked2.py",
            "tests/core/trace/test_trace_shared_handworked2.py",
            "tests/core/trace/test_trace_shared_handworked3.py",
            "tests/core/trace/test_trace_rewrite.py",
            "tests/core/trace/test_trace_shared.py",
        ],
    ),
    (
        "core/trace/model.py",
        [
            "tests/core/trace/test_trace_module_handworked.py",
            "tests/core/trace/test_trace_model_handworked.py",
            "tests/core/trace/test_trace_model_handworked2.py",
            "tests/cli/test_cli_text_handworked.py",
            "tests/backends/trace/test_trace_window.py",
        ],
    ),
    (
        "core/trace/report.py",
        [
            "tests/core/trace/test_trace_report_handworked.py",
            "tests/core/trace/test_trace_report_handworked2.py",
            "tests/cli/test_cli_text_handworked.py",
            "tests/core/trace/test_trace_banks.py",
            "tests/backends/trace/test_trace_window.py",
        ],
    ),
    (
        "core/trace/args.py",
        [
            "tests/core/trace/test_trace_args.py",
            "tests/core/trace/test_trace_args_handworked.py",
            "tests/core/trace/test_trace_args_handworked2.py",
        ],
    ),
    (
        "core/trace/source.py",
        [
            "tests/core/trace/test_trace_module_handworked.py",
            "tests/core/trace/test_trace_rewrite.py",
            "tests/core/trace/test_trace_source_handworked.py",
            "tests/core/trace/test_trace_source_handworked2.py",
            "tests/core/trace/test_trace_source_handworked3.py",
            "tests/core/trace/test_trace_source_handworked4.py",
            "tests/core/trace/test_infer_handworked2.py",
        ],
    ),
    ("core/lesson/grading.py", ["tests/core/lesson/test_lesson_questions.py"]),
    (
        "core/lesson*.py",
        [
            "tests/core/lesson/test_lesson_handworked.py",
            "tests/core/lesson/test_lesson_handworked2.py",  # the GPU's claims, against the words
            "tests/core/lesson/test_lesson.py",
            "tests/backends/lesson/test_lesson_probes.py",
            "tests/backends/lesson/test_lesson_experiment.py",
            "tests/core/lesson/test_lesson_try_its_handworked.py",
            # every claim and question of every step, run on the simulator
            "tests/core/lesson/test_lesson_walk.py",
            "tests/core/lesson/test_lesson_questions.py",
        ],
    ),
    (
        "cli/trace.py",
        [
            "tests/cli/test_trace_cli_handworked2.py",
            "tests/cli/test_cli_text_handworked.py",  # its options, saved line and file name, stubbed
            "tests/cli/test_trace_cli.py",
            "tests/cli/test_cli_flush_handworked2.py",
        ],
    ),
    ("cli/interrupts.py", ["tests/cli/test_ctrl_c_never_lost.py", "tests/cli/test_cli_exit_codes.py"]),
    (
        "cli/schedule.py",
        [
            "tests/cli/test_cli_text_handworked.py",
            "tests/cli/test_schedule_cli.py",
            "tests/cli/test_schedule_cli_handworked2.py",
            "tests/cli/test_cli_flush_handworked2.py",
        ],
    ),
    (
        "cli/occupancy.py",
        [
            "tests/cli/test_cli_text_handworked.py",
            "tests/cli/test_schedule_cli.py",
            "tests/cli/test_cli_flush_handworked2.py",
        ],
    ),
    (
        "cli/snapshot.py",
        [
            "tests/cli/test_cli_text_handworked.py",
            "tests/cli/test_cli_snapshot_handworked.py",
            "tests/cli/test_cli_snapshot_handworked2.py",
            "tests/cli/test_cli_exit_codes.py",
            "tests/core/test_export_targets.py",
        ],
    ),
    (
        "cli/progress.py",
        [
            "tests/cli/test_progress_handworked.py",
            "tests/cli/test_progress_handworked2.py",
            "tests/backends/test_launch_progress.py",
            "tests/cli/test_cli.py",
        ],
    ),
    (
        "backends/trace/child.py",
        [
            "tests/backends/trace/test_trace_child_handworked2.py",
            "tests/backends/trace/test_trace_check_handworked.py",
            "tests/core/trace/test_trace_analysis_handworked.py",
            "tests/backends/trace/test_trace_sim.py",
            "tests/backends/trace/test_trace_window.py",
            "tests/cli/test_trace_cli.py",
            "tests/backends/test_child_process.py",
        ],
    ),
    (
        "backends/trace/prepare.py",
        [
            "tests/backends/trace/test_trace_prepare_handworked2.py",
            "tests/backends/trace/test_trace_check_handworked.py",
            "tests/core/trace/test_trace_analysis_handworked.py",
            "tests/backends/trace/test_trace_sim.py",
            "tests/backends/trace/test_trace_window.py",
            "tests/cli/test_trace_cli.py",
            "tests/backends/test_child_process.py",
        ],
    ),
    (
        "backends/trace/*",
        [
            "tests/backends/trace/test_trace_sim_handworked2.py",  # the sim's limit exactly, run_gpu
            "tests/backends/trace/test_trace_check_handworked.py",
            "tests/core/trace/test_trace_analysis_handworked.py",
            "tests/backends/trace/test_trace_sim.py",
            "tests/backends/trace/test_trace_window.py",
            "tests/cli/test_trace_cli.py",
            "tests/backends/test_child_process.py",
        ],
    ),
    (
        "backends/schedule/*",
        [
            "tests/backends/test_schedule_occupancy_handworked.py",
            "tests/backends/test_schedule_backend.py",
            "tests/cli/test_schedule_cli.py",
        ],
    ),
    (
        "backends/lesson/*",
        [
            "tests/backends/lesson/test_lesson_common_handworked.py",
            "tests/backends/lesson/test_lesson_sim_handworked.py",
            "tests/backends/lesson/test_lesson_sim_handworked2.py",
            "tests/backends/lesson/test_lesson_both_handworked2.py",
            "tests/backends/lesson/test_lesson_both_handworked3.py",  # unwritten slots; one block
            "tests/backends/lesson/test_lesson_experiment_handworked2.py",  # run_gpu's result
            "tests/backends/lesson/test_lesson_probes.py",
            "tests/backends/lesson/test_lesson_experiment.py",
            "tests/core/lesson/test_lesson_walk.py",
            "tests/core/lesson/test_lesson_questions.py",
        ],
    ),
    (
        "backends/base.py",
        [
            "tests/backends/test_base_handworked.py",
            "tests/core/test_limits_boundaries.py",
            "tests/backends/test_sim_backend_faults.py",
            "tests/backends/test_experiments.py",
        ],
    ),
    (
        "backends/selection.py",
        [
            "tests/backends/test_selection_handworked.py",
            "tests/cli/test_cli_exit_codes.py",
            "tests/backends/test_sim_backend.py",
        ],
    ),
    ("backends/experiment.py", ["tests/backends/test_experiments.py"]),
    (
        "backends/sim_child.py",
        [
            "tests/backends/test_sim_child_handworked.py",
            "tests/backends/test_sim_child_handworked2.py",
            "tests/backends/test_sim_backend_faults.py",
            "tests/backends/test_sim_backend.py",
        ],
    ),
    (
        "kernels/trace_helpers.py",
        [
            "tests/kernels/test_trace_helpers_handworked.py",
            "tests/kernels/test_trace_helpers_handworked2.py",  # shared arrays' edges
            "tests/core/trace/test_trace_analysis_handworked.py",
            "tests/backends/trace/test_trace_sim.py",
            "tests/backends/trace/test_trace_window.py",
        ],
    ),
    (
        "kernels/*",
        [
            "tests/core/test_handworked_records.py",
            "tests/backends/test_device_verifier_sim.py",
            "tests/kernels/test_record_kernel_handworked2.py",
            "tests/backends/test_device_verifier_handworked2.py",
        ],
    ),
    (
        "qt/map/framing.py",
        [
            "tests/qt/map/test_framing_handworked.py",
            "tests/qt/test_panels_handworked.py",
            "tests/qt/tabs/index_map/test_index_map.py",
        ],
    ),
    (
        "qt/tabs/schedule/data.py",
        [
            "tests/qt/tabs/schedule/test_schedule_data_handworked.py",
            "tests/qt/tabs/schedule/test_schedule_data_handworked2.py",
            "tests/qt/test_panels_handworked.py",
            "tests/qt/tabs/schedule/test_schedule_view.py",
        ],
    ),
    (
        "qt/tabs/kernel/views.py",
        [
            "tests/qt/tabs/kernel/test_kernel_views_handworked.py",
            "tests/qt/tabs/kernel/test_kernel_views_handworked2.py",
            "tests/qt/tabs/kernel/test_kernel_views_handworked3.py",
            "tests/core/trace/test_trace_module_handworked.py",
            "tests/qt/tabs/kernel/test_kernel_tab.py",
        ],
    ),
    (
        "cli/vecadd.py",
        [
            "tests/cli/test_cli_limits_handworked2.py",
            "tests/cli/test_cli_exit_codes.py",
            "tests/core/test_error_reports_handworked.py",
            "tests/cli/test_cli.py",
            "tests/cli/test_vecadd_cli.py",
            "tests/cli/test_cli_limits.py",
            "tests/cli/test_cli_flush_handworked2.py",  # its last line flushed
        ],
    ),
    (
        "cli/*",
        [
            "tests/cli/test_cli_limits_handworked2.py",
            "tests/cli/test_cli_exit_codes.py",
            "tests/core/test_error_reports_handworked.py",
            "tests/cli/test_cli.py",
            "tests/cli/test_vecadd_cli.py",
            "tests/cli/test_cli_limits.py",
        ],
    ),
    ("backends/sim.py", ["tests/backends/test_sim_backend_faults.py", "tests/backends/test_sim_backend.py"]),
    (
        "backends/sim_process.py",
        [
            "tests/backends/test_sim_process_handworked2.py",
            "tests/backends/test_sim_process_handworked3.py",  # _pid_alive's bool
            "tests/backends/test_sim_backend_faults.py",
            "tests/backends/test_sim_backend.py",
            "tests/backends/test_experiments.py",
        ],
    ),
    (
        "backends/record/sim.py",
        [
            "tests/backends/test_launch_progress_handworked2.py",
            "tests/backends/test_launch_progress_handworked3.py",
            "tests/backends/test_launch_progress_handworked4.py",
            "tests/core/test_handworked_records.py",
            "tests/backends/test_sim_backend_faults.py",
            "tests/backends/test_sim_backend.py",
        ],
    ),
    (
        "backends/vecadd/sim.py",
        [
            "tests/backends/test_vecadd_sim_handworked.py",
            "tests/backends/test_vecadd_sim_handworked2.py",
            "tests/backends/test_vecadd_sim_handworked3.py",
            "tests/cli/test_vecadd_cli.py",
            "tests/cli/test_cli_exit_codes.py",
            "tests/core/test_vecadd_core.py",
            "tests/backends/test_watcher_handworked.py",
        ],
    ),
    (
        "backends/watcher.py",
        [
            "tests/backends/test_watcher_handworked.py",
            "tests/backends/test_vecadd_sim_handworked.py",
            "tests/backends/test_launch_progress_handworked2.py",
        ],
    ),
]

SWAP_CMP = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
}
SWAP_BIN = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Add,
    ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.Div: ast.Mult,
}
SYMBOL = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%", ast.Div: "/",
    ast.And: "and", ast.Or: "or",
}  # fmt: skip


@dataclass(frozen=True)
class Mutant:
    module: str  # path under src/simtviz
    index: int  # the index-th mutation point of the file, in ast.walk order
    line: int
    description: str


def tests_for(module: str) -> list[str]:
    """The module's tests: its ``TESTS`` entry first (hand-worked files lead), then every other
    non-GPU test file that imports it, so a test written for one module also counts against the
    mutants of the modules it uses."""
    for pattern, tests in TESTS:
        if fnmatch.fnmatch(module, pattern):
            mapped = [t for t in tests if (ROOT / t).exists()]
            return mapped + [t for t in importers(module) if not _covered(t, mapped)]
    return ["tests"]


def _covered(test: str, mapped: list[str]) -> bool:
    return any(test == m or test.startswith(m.rstrip("/") + "/") for m in mapped)


@functools.cache
def importers(module: str) -> list[str]:
    """Test files (outside tests/gpu) that name ``module`` in an import."""
    dotted = "simtviz." + module.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
    parent, _, leaf = dotted.rpartition(".")
    named = re.compile(rf"{re.escape(dotted)}(?![\w.])|from {re.escape(parent)} import [^\n]*\b{leaf}\b")
    found = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        if "gpu" not in path.relative_to(ROOT).parts and named.search(path.read_text()):
            found.append(str(path.relative_to(ROOT)))
    return found


def _skipped_nodes(tree: ast.AST) -> set[int]:
    """ids of nodes never mutated: docstrings, annotations, f-strings and what they hold."""
    skip: set[int] = set()

    def cover(node: ast.AST | None) -> None:
        if node is not None:
            skip.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                cover(body[0])
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            # Declarations, not behaviour: @dataclass(frozen=True, slots=True) and the like.
            for decorator in node.decorator_list:
                cover(decorator)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            cover(node.returns)
            for arg in [*node.args.args, *node.args.kwonlyargs, *node.args.posonlyargs]:
                cover(arg.annotation)
            cover(node.args.vararg)
            cover(node.args.kwarg)
        if isinstance(node, ast.AnnAssign):
            cover(node.annotation)
        if isinstance(node, ast.JoinedStr):
            cover(node)
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            cover(node)
    return skip


def _points(tree: ast.AST, source_lines: list[str]) -> Iterator[tuple[ast.AST, str, str]]:
    """(node, kind, description) for each mutation point, in a fixed order."""
    skip = _skipped_nodes(tree)
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        line = getattr(node, "lineno", None)
        if line is not None and "pragma: no mutate" in source_lines[line - 1]:
            continue
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in SWAP_CMP:
                    yield node, f"cmp:{i}", f"{SYMBOL[type(op)]} → {SYMBOL[SWAP_CMP[type(op)]]}"
        elif isinstance(node, ast.BinOp | ast.AugAssign) and type(node.op) in SWAP_BIN:
            yield node, "bin", f"{SYMBOL[type(node.op)]} → {SYMBOL[SWAP_BIN[type(node.op)]]}"
        elif isinstance(node, ast.BoolOp):
            other = "or" if isinstance(node.op, ast.And) else "and"
            yield node, "bool", f"{SYMBOL[type(node.op)]} → {other}"
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            yield node, "not", "not x → x"
        elif isinstance(node, ast.Constant) and type(node.value) is bool:
            yield node, "const", f"{node.value} → {not node.value}"
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            yield node, "const", f"{node.value} → {node.value + 1}"
        elif (
            isinstance(node, ast.Return)
            and node.value is not None
            and not (isinstance(node.value, ast.Constant) and node.value.value is None)
        ):
            yield node, "return", "return <value> → return None"


def _apply(node: ast.AST, kind: str) -> None:
    if kind.startswith("cmp:"):
        i = int(kind[4:])
        node.ops[i] = SWAP_CMP[type(node.ops[i])]()  # type: ignore[attr-defined]
    elif kind == "bin":
        node.op = SWAP_BIN[type(node.op)]()  # type: ignore[attr-defined]
    elif kind == "bool":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()  # type: ignore[attr-defined]
    elif kind == "const":
        value = node.value  # type: ignore[attr-defined]
        node.value = (not value) if type(value) is bool else value + 1  # type: ignore[attr-defined]
    elif kind == "return":
        node.value = ast.Constant(None)  # type: ignore[attr-defined]


class _Unnot(ast.NodeTransformer):
    def __init__(self, target: ast.AST) -> None:
        self.target = target

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        return node.operand if node is self.target else node


def mutants(module: str) -> list[Mutant]:
    source = (PACKAGE / module).read_text()
    tree = ast.parse(source)
    lines = source.splitlines()
    return [
        Mutant(module, i, getattr(node, "lineno", 0), desc)
        for i, (node, _kind, desc) in enumerate(_points(tree, lines))
    ]


def mutated_source(mutant: Mutant) -> str:
    source = (PACKAGE / mutant.module).read_text()
    tree = ast.parse(source)
    node, kind, _ = list(_points(tree, source.splitlines()))[mutant.index]
    if kind == "not":
        tree = _Unnot(node).visit(tree)
    else:
        _apply(node, kind)
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


# --- running -------------------------------------------------------------------------------------

_COPY: Path | None = None


def _copy_tree() -> Path:
    tmp = Path(tempfile.mkdtemp(prefix="simtviz-mutation-"))
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", ".pytest_cache")
    shutil.copytree(ROOT / "src", tmp / "src", ignore=ignore)
    shutil.copytree(ROOT / "tests", tmp / "tests", ignore=ignore)
    shutil.copytree(ROOT / "resources", tmp / "resources", ignore=ignore)  # the app's presets, icons
    shutil.copytree(ROOT / "docs", tmp / "docs", ignore=ignore)  # tests that hold the docs to the code
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tmp / name)
    return tmp


def _init_worker() -> None:
    """One private copy of the tree per worker, and the heavy imports done once."""
    global _COPY
    _COPY = _copy_tree()
    from multiprocessing import util

    util.Finalize(None, shutil.rmtree, args=(_COPY,), kwargs={"ignore_errors": True}, exitpriority=0)
    os.environ.update(
        NUMBA_ENABLE_CUDASIM="1",
        SIMTVIZ_BACKEND="sim",
        QT_QPA_PLATFORM="offscreen",
        PYTHONDONTWRITEBYTECODE="1",
        # the copy first; what the caller had after it (site folders a lent machine installs into)
        PYTHONPATH=os.pathsep.join(p for p in (str(_COPY / "src"), os.environ.get("PYTHONPATH", "")) if p),
    )
    sys.dont_write_bytecode = True
    import numba.cuda  # noqa: F401
    import numpy  # noqa: F401
    import pytest  # noqa: F401

    # What every run would import again (about 0.3 s a run); never simtviz, whose mutated module
    # must come from the copy. (Importing Qt and pyqtgraph here made the other runs slower.)
    for name in ("hypothesis", "pytestqt.plugin"):
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


def _run_tests(tests: list[str], timeout: float, trace: tuple[list[str], Path] | None = None) -> str:
    """Fork, run pytest on ``tests`` in the copy, and say "passed", "failed" or "timeout".

    With ``trace`` (files in the copy, a JSON file to write), record which tests run each line of
    those files (``line_tests.LineTracer``) and write that map as JSON."""
    assert _COPY is not None
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 3
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            # A mutant that makes a test record a whole launch can grow past the machine's memory
            # (seen: 21 GB of 23 on the 2-core machine); past the cap it fails, and counts as caught.
            cap = int(float(os.environ.get("MUTATION_MEMORY_GB", "6")) * 2**30)
            resource.setrlimit(resource.RLIMIT_DATA, (cap, cap))
            # The cap counts address space reserved, not used: numba's simulator starts a thread per
            # CUDA thread (8 MiB of stack each, and a 64 MiB malloc arena per thread), so a block of
            # 1,024 threads passed 6 GB while using 0.2. The app's own simulator child limits them the
            # same way (backends/child_limits.py).
            threading.stack_size(2 << 20)
            with contextlib.suppress(OSError, AttributeError):
                ctypes.CDLL(None).mallopt(-8, 8)  # M_ARENA_MAX (glibc)
            os.chdir(_COPY)
            sys.path.insert(0, str(_COPY / "src"))
            sys.path.insert(0, str(_COPY / "tests"))
            import pytest

            quiet = ["-x", "-q", "-p", "no:cacheprovider", "-o", "addopts="]
            quiet += ["-W", "ignore::pytest.PytestAssertRewriteWarning"]  # plugins imported before the fork
            args = [*quiet, "-m", "not gpu and not slow", *tests]
            if trace is None:
                code = int(pytest.main(args))
            else:
                tracer = LineTracer(trace[0])
                tracer.start()
                try:
                    code = int(pytest.main(args, plugins=[tracer]))
                finally:
                    tracer.stop()
                trace[1].write_text(json.dumps(tracer.lines))
        finally:
            os._exit(code)
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return "passed" if os.waitstatus_to_exitcode(status) == 0 else "failed"
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return "timeout"
        time.sleep(0.02)


def _restore(module: str) -> None:
    assert _COPY is not None
    shutil.copy(PACKAGE / module, _COPY / "src" / "simtviz" / module)


def run_mutant(mutant: Mutant, timeout: float, first: list[str] | None = None) -> tuple[Mutant, str]:
    """Run the tests that execute the mutant's line first (``first``, from the baseline's map);
    if they pass, every mapped test file, so the verdict never depends on the map."""
    assert _COPY is not None
    target = _COPY / "src" / "simtviz" / mutant.module
    target.write_text(mutated_source(mutant))
    try:
        if first:
            outcome = _run_tests(first, timeout)
            if outcome != "passed":
                return mutant, outcome
        return mutant, _run_tests(tests_for(mutant.module), timeout)
    finally:
        _restore(mutant.module)


def baseline(modules: list[str]) -> tuple[str, float, dict[str, dict[int, list[str]]]]:
    """The mapped tests of ``modules`` (one mapping) on their unchanged sources, traced: outcome,
    seconds, and for each module which tests run each of its lines."""
    assert _COPY is not None
    for module in modules:
        _restore(module)
    files = {module: str(_COPY / "src" / "simtviz" / module) for module in modules}
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "lines.json"
        outcome = _run_tests(tests_for(modules[0]), 1200, trace=(list(files.values()), out))
        seconds = time.monotonic() - start
        found = json.loads(out.read_text()) if outcome == "passed" and out.exists() else {}
    by_line = {
        module: tests_by_line(
            {int(k): v for k, v in found.get(name, {}).items()}, (PACKAGE / module).read_text()
        )
        for module, name in files.items()
    }
    return outcome, seconds, by_line


# --- the planted bugs of issue 9 -----------------------------------------------------------------

# (bug, [(file under src/simtviz, text, replacement), ...], tests that must fail)
Plant = tuple[str, list[tuple[str, str, str]], list[str]]
HANDWORKED = ["tests/core/test_handworked_records.py"]
COLOURS = ["tests/core/test_colour_fields_handworked.py"]
MAP = ["tests/qt/tabs/index_map/test_map_placement_handworked.py"]
PLANTED: list[Plant] = [
    (
        "map 'lane' shows the warp field",
        [
            (
                "core/schema.py",
                '"lane": ColorField(False, False, _scalar("laneid"))',
                '"lane": ColorField(False, False, _scalar("warp"))',
            )
        ],
        COLOURS,
    ),
    (
        "'block linear id' strides y by gridDim.y",
        [("core/schema.py", "b[:, 0] + b[:, 1] * gx +", "b[:, 0] + b[:, 1] * gy +")],
        COLOURS,
    ),
    (
        "inspector's block linear id strides y by gridDim.y",
        [("core/formulas.py", "block_id = bx + by * gx +", "block_id = bx + by * gy +")],
        COLOURS,
    ),
    (
        "vecadd check says verified after a failed comparison",
        [("core/vecadd.py", "result.verified = False", "result.verified = True")],
        ["tests/cli/test_cli_exit_codes.py"],
    ),
    (
        "record exits 0 when verification fails",
        [("cli/record.py", "return EXIT_OK if verification.ok else EXIT_CHECK_FAILED", "return EXIT_OK")],
        ["tests/cli/test_cli_exit_codes.py"],
    ),
    (
        "Ctrl-C exits 0",
        [("cli/errors.py", "return EXIT_INTERRUPTED", "return 0")],
        ["tests/cli/test_cli_exit_codes.py"],
    ),
    (
        "verification skips cuda.grid(3)",
        [
            (
                "core/oracle.py",
                "for name in CHECKED_FIELDS:",
                'for name in [n for n in CHECKED_FIELDS if n != "grid3"]:',
            )
        ],
        HANDWORKED,
    ),
    (
        "kernel and oracle agree on the same wrong blockIdx.z (z // blockDim.y)",
        [
            (
                "kernels/record.py",
                "blockIdx[row, 2] = cuda.blockIdx.z",
                "blockIdx[row, 2] = z // cuda.blockDim.y",
            ),
            ("core/oracle.py", "gy // by, gz // bz]", "gy // by, gz // by]"),
        ],
        HANDWORKED,
    ),
    (
        "record arrays filled with 0, not -1",
        [("core/schema.py", "xp.full((threads, *f.shape), -1,", "xp.full((threads, *f.shape), 0,")],
        HANDWORKED,
    ),
    (
        "choose_window ignores the z origin",
        [("core/window.py", "oz = min(max(0, origin[2]), ez - wz)", "oz = 0")],
        HANDWORKED,
    ),
    (
        "the map ignores the window's origin",
        [("qt/map/widget.py", "return (float(ox), float(oy))", "return (0.0, 0.0)")],
        MAP,
    ),
    (
        "z-plane label off by one",
        [
            (
                "qt/map/widget.py",
                "z = rec.window.origin[2] + self._plane\n        bz",
                "z = rec.window.origin[2] + self._plane + 1\n        bz",
            )
        ],
        MAP,
    ),
    (
        "plane clamp off by one",
        [
            (
                "qt/map/widget.py",
                "self._plane = min(self._plane, planes - 1)",
                "self._plane = min(self._plane, planes)",
            )
        ],
        MAP,
    ),
    (
        "blockDim.z limit 63",
        [("core/limits.py", "(1024, 1024, 64)", "(1024, 1024, 63)")],
        ["tests/core/test_limits_boundaries.py"],
    ),
    (
        "asks first from exactly the limit (<= → <)",
        [
            (
                "backends/base.py",
                "return threads > self.max_threads_unasked",
                "return threads >= self.max_threads_unasked",
            )
        ],
        ["tests/core/test_limits_boundaries.py"],
    ),
    (
        "record drops --force",
        [
            (
                "backends/base.py",
                "RecordRequest(config, window, force)",
                "RecordRequest(config, window, False)",
            )
        ],
        ["tests/backends/test_sim_backend_faults.py"],
    ),
    (
        "the child's error reply is ignored",
        [("backends/sim_process.py", 'if reply[0] == "error":', "if False:")],
        ["tests/backends/test_sim_backend_faults.py"],
    ),
    (
        "shutdown never kills a child that does not exit",
        [
            (
                "backends/sim_process.py",
                "                proc.kill()\n                proc.join(1.0)",
                "                pass",
            )
        ],
        ["tests/backends/test_sim_backend_faults.py"],
    ),
    (
        "launch panel clamps to 65535",
        [("qt/tabs/index_map/launch.py", "setValue(min(value, SPIN_MAX))", "setValue(min(value, 65535))")],
        MAP,
    ),
    (
        "'Run it anyway? Yes' runs without force",
        [("qt/session.py", "replace(request, force=True)", "request")],
        ["tests/qt/test_run_anyway.py"],
    ),
    (
        "CSV written in place",
        [
            (
                "core/recording.py",
                "        return atomic_write(path, write)\n\n\nREQUIRED_KEYS",
                '        with open(path, "wb") as fh:\n'
                "            write(fh)\n        return Path(path)\n\n\nREQUIRED_KEYS",
            )
        ],
        MAP,
    ),
    (
        "PNG written in place",
        [
            (
                "qt/map/widget.py",
                "return atomic_write(path, lambda fh: fh.write(payload))",
                "Path(path).write_bytes(payload)\n        return Path(path)",
            )
        ],
        MAP,
    ),
    (
        "verify_on_device always 'all matched'",
        [("backends/record/gpu.py", "matched = n - counts[BAD_ROWS]", "matched = n")],
        ["tests/backends/test_device_verifier_sim.py"],
    ),
    (
        "device verifier checks lane mod 16",
        [("kernels/verify.py", "if laneid[row] != linear % WARP_SIZE:", "if laneid[row] != linear % 16:")],
        ["tests/backends/test_device_verifier_sim.py"],
    ),
]


def run_planted(index: int) -> tuple[str, str]:
    bug, edits, tests = PLANTED[index]
    assert _COPY is not None
    if _run_tests(tests, 300) != "passed":  # a failure must be the bug's, not the copy's
        return bug, "TESTS FAIL WITHOUT THE BUG"
    sources: dict[str, str] = {}
    for module, text, replacement in edits:
        source = sources.get(module) or (PACKAGE / module).read_text()
        if source.count(text) != 1:
            return bug, f"NOT PLANTED ({text!r} found {source.count(text)} times in {module})"
        sources[module] = source.replace(text, replacement)
    for module, source in sources.items():
        (_COPY / "src" / "simtviz" / module).write_text(source)
    try:
        outcome = _run_tests(tests, 300)
    finally:
        for module in sources:
            _restore(module)
    return bug, {"failed": "caught", "timeout": "caught (timeout)", "passed": "SURVIVED"}[outcome]


def source_hash(module: str) -> str:
    """Which version of a module a result belongs to (results of an older version are stale)."""
    return hashlib.sha1((PACKAGE / module).read_bytes()).hexdigest()[:12]


def _read_results(path: Path | None) -> dict[tuple[str, int], tuple[int, str, str]]:
    """Mutants already run on the current source of their module (a results file written by an
    earlier, perhaps interrupted, run; rows of another version of the module are ignored)."""
    done: dict[tuple[str, int], tuple[int, str, str]] = {}
    if path is None or not path.exists():
        return done
    hashes: dict[str, str | None] = {}
    for row in path.read_text().splitlines():
        parts = row.split("\t")
        if len(parts) != 6 or not parts[1].isdigit() or not parts[2].isdigit():
            continue
        module = parts[0]
        if module not in hashes:
            hashes[module] = source_hash(module) if (PACKAGE / module).exists() else None
        if parts[5] == hashes[module]:
            done[(module, int(parts[1]))] = (int(parts[2]), parts[3], parts[4])
    return done


def _keyed(source: str) -> list[tuple[int, tuple[str, str, int]]]:
    """Each mutant's index and what identifies it across versions: its line's text, its
    description, and how many identical (text, description) pairs come before it."""
    lines = source.splitlines()
    seen: dict[tuple[str, str], int] = {}
    keyed = []
    for index, (node, _kind, desc) in enumerate(_points(ast.parse(source), lines)):
        line = getattr(node, "lineno", 0)
        pair = (lines[line - 1].strip() if line else "", desc)
        keyed.append((index, (*pair, seen.get(pair, 0))))
        seen[pair] = seen.get(pair, 0) + 1
    return keyed


def carried_over(module: str, path: Path) -> list[tuple[int, int, str]]:
    """Mutants of the module's current source that an earlier version, recorded in ``path``, had
    on an identical line and whose tests failed: (index, line, description). Tests are only ever
    added, so such a mutant is still killed; a survivor or a changed line is run again. The earlier
    versions come from git (nothing is carried outside a checkout)."""
    rows: dict[tuple[str, int], str] = {}
    for row in path.read_text().splitlines() if path.exists() else []:
        parts = row.split("\t")
        if len(parts) == 6 and parts[0] == module and parts[1].isdigit():
            rows[(parts[5], int(parts[1]))] = parts[3]
    versions = {version for version, _ in rows}
    killed: dict[tuple[str, str, int], str] = {}
    try:
        commits = subprocess.run(
            ["git", "log", "--format=%H", "-n", "60", "--", f"src/simtviz/{module}"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return []
    for commit in commits:
        shown = subprocess.run(
            ["git", "show", f"{commit}:src/simtviz/{module}"], cwd=ROOT, capture_output=True
        )
        version = hashlib.sha1(shown.stdout).hexdigest()[:12]
        if shown.returncode or version not in versions:
            continue
        versions.discard(version)  # newest first: a later outcome of the same line wins
        with contextlib.suppress(SyntaxError, UnicodeDecodeError):
            for index, key in _keyed(shown.stdout.decode()):
                outcome = rows.get((version, index))
                if outcome is not None:
                    killed.setdefault(key, outcome)
    current = mutants(module)
    return [
        (index, current[index].line, current[index].description)
        for index, key in _keyed((PACKAGE / module).read_text())
        if killed.get(key, "passed") != "passed"
    ]


def tree_hash() -> str:
    """Which version of the sources and tests a traced baseline belongs to."""
    digest = hashlib.sha1()
    for path in sorted([*PACKAGE.rglob("*.py"), *(ROOT / "tests").rglob("*.py")]):
        digest.update(str(path.relative_to(ROOT)).encode() + path.read_bytes())
    return digest.hexdigest()[:12]


Baseline = tuple[str, float, dict[str, dict[int, list[str]]]]


def _read_baselines(path: Path | None) -> dict[str, Baseline]:
    """Traced baselines of an earlier run on this very tree (none when anything changed)."""
    if path is None or not path.exists():
        return {}
    try:
        saved = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if saved.get("tree") != tree_hash():
        return {}
    return {
        key: (outcome, seconds, {m: {int(k): v for k, v in lines.items()} for m, lines in by_line.items()})
        for key, (outcome, seconds, by_line) in saved.get("groups", {}).items()
    }


def _write_baselines(path: Path | None, groups: dict[str, Baseline]) -> None:
    if path is not None:
        path.write_text(json.dumps({"tree": tree_hash(), "groups": groups}))


EXPLANATIONS = ROOT / "docs" / "TESTING.md"
_EXPLAINED = re.compile(r"^- `?([\w/.]+\.py):(\d+)`? `([^`]+)`: \S")


def explained(text: str) -> set[tuple[str, int, str]]:
    """The survivors a document explains: lines ``- module:line `original → mutated`: reason``."""
    found = set()
    for row in text.splitlines():
        if match := _EXPLAINED.match(row):
            found.add((match[1], int(match[2]), match[3].strip()))
    return found


def _report(modules: list[str], done: dict[tuple[str, int], tuple[int, str, str]]) -> tuple[int, int]:
    """Per-module counts and survivors of the mutants in ``done``, each survivor marked when
    docs/TESTING.md does not explain it; returns (run, survived, not explained)."""
    reasons = explained(EXPLANATIONS.read_text()) if EXPLANATIONS.exists() else set()
    total = survived = unexplained = 0
    for module in modules:
        rows = sorted((k[1], v) for k, v in done.items() if k[0] == module)
        if not rows:
            continue
        alive = [(line, desc) for _, (line, outcome, desc) in rows if outcome == "passed"]
        total += len(rows)
        survived += len(alive)
        print(f"{module}: {len(rows)} mutants, {len(rows) - len(alive)} killed, {len(alive)} survived")
        for line, desc in alive:
            known = (module, line, desc) in reasons
            unexplained += not known
            note = "" if known else "   (not explained in docs/TESTING.md)"
            print(f"    survived {module}:{line}: {desc}{note}")
    return total, survived, unexplained


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("modules", nargs="*", help="paths under src/simtviz (default: MODULES)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--planted", action="store_true", help="check the planted bugs of issue 9")
    parser.add_argument("--list", action="store_true", help="list the mutants only")
    parser.add_argument(
        "--results",
        type=Path,
        help="append each mutant's outcome to this file as it finishes; mutants already in it are "
        "not run again (so an interrupted run resumes)",
    )
    parser.add_argument(
        "--stop-after", type=float, help="seconds: start no new mutant after this, report what ran"
    )
    parser.add_argument(
        "--carry-over",
        action="store_true",
        help="with --results: a mutant killed on an identical line of an earlier version of its module "
        "is recorded as 'killed before' instead of run again (survivors and changed lines run)",
    )
    parser.add_argument(
        "--survivors",
        action="store_true",
        help="with --results: run again only the mutants it records as survivors (after tests were "
        "added for them); the new outcome is appended and counts",
    )
    args = parser.parse_args(argv)

    if args.planted:
        with ProcessPoolExecutor(args.jobs, initializer=_init_worker) as pool:
            results = list(pool.map(run_planted, range(len(PLANTED))))
        for bug, outcome in results:
            print(f"{outcome:16} {bug}")
        return 0 if all(o.startswith("caught") for _, o in results) else 1

    modules = args.modules or MODULES
    if args.list:
        for module in modules:
            for m in mutants(module):
                print(f"{m.module}:{m.line}: {m.description}")
        return 0
    started = time.monotonic()
    done = _read_results(args.results)
    if args.carry_over:
        if args.results is None:
            parser.error("--carry-over needs --results")
        with args.results.open("a") as out:
            for module in modules:
                for index, line, desc in carried_over(module, args.results):
                    if (module, index) not in done:
                        done[(module, index)] = (line, "killed before", desc)
                        row = (module, index, line, "killed before", desc, source_hash(module))
                        out.write("\t".join(map(str, row)) + "\n")
    if args.survivors:
        if args.results is None:
            parser.error("--survivors needs --results")
        again = {key for key, (_, outcome, _) in done.items() if outcome == "passed" and key[0] in modules}
        # Everything else counts as done, so only the survivors are queued.
        for module in modules:
            for m in mutants(module):
                if (module, m.index) not in again:
                    done.setdefault((module, m.index), (m.line, "not run again", m.description))
        for key in again:
            del done[key]
    out = args.results.open("a") if args.results else None
    with ProcessPoolExecutor(args.jobs, initializer=_init_worker) as pool:
        # Baselines in parallel, then every module's mutants in one queue: the workers stay busy
        # across modules instead of waiting for the slowest mutant of each.
        todo = {module: [m for m in mutants(module) if (module, m.index) not in done] for module in modules}
        todo = {module: found for module, found in todo.items() if found}
        hashes = {module: source_hash(module) for module in todo}
        # One traced baseline per test mapping (the emulator's seven modules share one).
        groups: dict[tuple[str, ...], list[str]] = {}
        for module in todo:
            groups.setdefault(tuple(tests_for(module)), []).append(module)
        # Traced baselines are kept beside the results, keyed by the whole tree's hash, so a run
        # resumed on another machine (or after a timeout) does not trace them again.
        cache_path = args.results.with_suffix(".lines.json") if args.results else None
        cache = _read_baselines(cache_path)
        bases: dict[Future[Baseline], tuple[str, ...]] = {}
        for group in groups.values():
            if (key := "|".join(group)) in cache:
                ready: Future[Baseline] = Future()
                ready.set_result(cache[key])
                bases[ready] = tuple(group)
            else:
                bases[pool.submit(baseline, group)] = tuple(group)
        pending: dict[Future[tuple[Mutant, str]], Mutant] = {}
        # Each group's mutants are queued as soon as its own baseline is traced, so workers that
        # finish the quick baselines are not left idle behind the slowest one.
        for future in as_completed(bases):
            group = bases[future]
            outcome, seconds, by_line = future.result()
            if outcome == "passed":
                cache["|".join(group)] = (outcome, seconds, by_line)
                _write_baselines(cache_path, cache)
            for module in group:
                if outcome != "passed":
                    print(f"{module}: its tests fail before any mutation ({outcome}); skipped", flush=True)
                    continue
                lines = by_line[module]
                mapped = sum(1 for m in todo[module] if m.line in lines)
                print(
                    f"{module}: {len(todo[module])} mutants to run (tests {seconds:.1f} s traced; "
                    f"{mapped} on lines whose own tests run first)",
                    flush=True,
                )
                timeout = max(20.0, 3 * seconds)
                for m in todo[module]:
                    pending[pool.submit(run_mutant, m, timeout, lines.get(m.line))] = m
        try:
            for future in as_completed(pending):
                if args.stop_after and time.monotonic() - started > args.stop_after:
                    for other in pending:
                        other.cancel()
                try:
                    m, outcome = future.result()
                except CancelledError:
                    continue
                done[(m.module, m.index)] = (m.line, outcome, m.description)
                if out:
                    row = (m.module, m.index, m.line, outcome, m.description, hashes[m.module])
                    out.write("\t".join(map(str, row)) + "\n")
                    out.flush()
        finally:
            if out:
                out.close()
    if args.survivors:  # the report counts what the file records, never the placeholders above
        done = _read_results(args.results)
    total, survived, unexplained = _report(modules, done)
    rate = 100 * survived / total if total else 0.0
    print(
        f"\n{total} mutants, {survived} survived ({rate:.1f} %), {unexplained} of them not explained "
        f"in docs/TESTING.md, {time.monotonic() - started:.0f} s"
    )
    # The bar of issue 18: at most 5 % survive, and each survivor is explained as equivalent.
    return 0 if rate <= 5 and not unexplained else 1


if __name__ == "__main__":
    sys.exit(main())
