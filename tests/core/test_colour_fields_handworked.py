"""Every colour of the map, the map's images and the inspector's worked formulas, by hand.

The thread used throughout is (x, y, z) = (7, 9, 11) of grid (2, 3, 4) × block (5, 4, 3), whose
x, y and z all differ, as do the launch's dimensions (so a swapped x/y stride shows).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from simtviz.backends.sim import SimBackend
from simtviz.core.formulas import formula_lines, tooltip_lines, totals_text, value_lines
from simtviz.core.formulas import launch_code as formula_launch_code
from simtviz.core.launch import LaunchConfig
from simtviz.core.maps import host_images, is_device, map_images
from simtviz.core.recording import Recording
from simtviz.core.schema import COLOR_FIELDS
from simtviz.core.window import Window

THREE_D = LaunchConfig.of((2, 3, 4), (5, 4, 3))  # extent 10 × 12 × 12
ROW = 1417  # (7, 9, 11): 7 + 9 × 10 + 11 × 120

# Thread (7, 9, 11): blockIdx (1, 2, 3), threadIdx (2, 1, 2), thread id 47 (warp 1, lane 15).
HANDWORKED_COLOURS = {
    "global linear index": 1417,  # 7 + 9 × 10 + 11 × (10 × 12)
    "blockIdx.x": 1,
    "blockIdx.y": 2,
    "blockIdx.z": 3,
    "block linear id": 23,  # 1 + 2 × gridDim.x (2) + 3 × (2 × 3)
    "threadIdx.x": 2,
    "threadIdx.y": 1,
    "threadIdx.z": 2,
    "thread id in block": 47,  # 2 + 1 × blockDim.x (5) + 2 × (5 × 4)
    "warp": 1,
    "global warp id": 47,  # block linear id 23 × 2 warps per block (60 threads) + warp 1
    "lane": 15,
    "SM": -1,  # the simulator cannot know it
    "start order": -1,
}

# Which fields are ids (categorical colours) and which only a GPU fills: the menu's table.
CATEGORICAL = {"blockIdx.x", "blockIdx.y", "blockIdx.z", "block linear id", "warp", "global warp id", "SM"}
GPU_ONLY = {"SM", "start order"}


@pytest.fixture(scope="module")
def rec() -> Recording:
    return SimBackend().record(THREE_D)


def test_the_menu_lists_every_colour_in_order() -> None:
    assert list(COLOR_FIELDS) == list(HANDWORKED_COLOURS)
    assert {k for k, v in COLOR_FIELDS.items() if v.categorical} == CATEGORICAL
    assert {k for k, v in COLOR_FIELDS.items() if v.gpu_only} == GPU_ONLY


@pytest.mark.parametrize(("field", "value"), HANDWORKED_COLOURS.items())
def test_each_colour_field_of_the_named_thread(rec, field, value) -> None:
    assert int(rec.color_values(field)[ROW]) == value


def test_colour_fields_of_a_second_thread(rec) -> None:
    # (4, 3, 5), row 634: blockIdx (0, 0, 1), threadIdx (4, 3, 2), thread id 59: warp 1, lane 27;
    # block linear id 0 + 0 + 1 × 6 = 6.
    values = {name: int(rec.color_values(name)[634]) for name in COLOR_FIELDS}
    assert values["block linear id"] == 6
    assert values["thread id in block"] == 59
    assert (values["warp"], values["lane"]) == (1, 27)
    assert values["global linear index"] == 634


def test_hardware_colour_fields_of_a_gpu_record() -> None:
    # A 4-thread GPU record: SMs 3, 0, 3, 1 and start times 50, 10, 50, 30 ns.
    config = LaunchConfig.of((1, 1, 1), (4, 1, 1))
    fields = {
        "threadIdx": np.array([[i, 0, 0] for i in range(4)], dtype=np.int32),
        "blockIdx": np.zeros((4, 3), dtype=np.int32),
        "grid1": np.arange(4, dtype=np.int64),
        "grid2": np.array([[i, 0] for i in range(4)], dtype=np.int64),
        "grid3": np.array([[i, 0, 0] for i in range(4)], dtype=np.int64),
        "laneid": np.arange(4, dtype=np.int32),
        "warp": np.zeros(4, dtype=np.int32),
        "smid": np.array([3, 0, 3, 1], dtype=np.int32),
        "t_ns": np.array([50, 10, 50, 30], dtype=np.int64),
    }
    gpu = Recording(config, Window.full(config), fields, "gpu:test")
    assert gpu.has_hardware_fields
    assert list(gpu.color_values("SM")) == [3, 0, 3, 1]
    # Start order is the rank of each distinct start time: 10 → 0, 30 → 1, 50 → 2.
    assert list(gpu.color_values("start order")) == [2, 0, 2, 1]
    sim = Recording(config, Window.full(config), fields, "sim")
    assert list(sim.color_values("start order")) == [-1, -1, -1, -1]


# --- the map's images -------------------------------------------------------------------------


def test_host_images_give_every_plane_laid_out_by_x_and_y(rec) -> None:
    images = map_images(rec, "lane", (0,))
    assert not is_device(rec)
    assert sorted(images.planes) == list(range(12))  # every plane of a host recording
    plane = images.planes[11]
    assert plane.shape == (12, 10)  # rows are y, columns are x
    assert plane[9, 7] == 15  # thread (7, 9, 11)
    assert images.planes[5][3, 4] == 27  # thread (4, 3, 5)
    # Lanes of the 60-thread blocks run 0 … 31: the colour bar's levels.
    assert images.levels == (0.0, 31.0) and images.any_known


def test_levels_of_an_unknown_field_are_a_grey_placeholder(rec) -> None:
    images = host_images(rec, "SM")
    assert not images.any_known and images.levels == (0.0, 1.0)


def test_levels_of_a_single_value_are_widened_to_one() -> None:
    config = LaunchConfig.of((1, 1, 1), (2, 1, 1))
    single = SimBackend().record(config)
    images = host_images(single, "blockIdx.x")  # 0 everywhere
    assert images.levels == (0.0, 1.0) and images.any_known


def test_1d_map_has_one_row_per_block() -> None:
    config = LaunchConfig.of((3, 1, 1), (40, 1, 1))
    rec = SimBackend().record(config)
    assert rec.plane_shape() == (1, 3, 40)
    image = rec.image("global linear index")
    assert image[2, 5] == 85 and image[1, 35] == 75
    assert rec.row_of(0, 2, 5) == 85


def test_image_plane_bounds(rec) -> None:
    assert rec.image("threadIdx.z", 11)[9, 7] == 2
    with pytest.raises(IndexError):
        rec.image("lane", 12)
    with pytest.raises(IndexError):
        rec.image("lane", -1)
    # Row of (plane 11, row 9, column 7) of a 12 × 10 plane: (11 × 12 + 9) × 10 + 7.
    assert rec.row_of(11, 9, 7) == ROW


# --- the inspector's worked formulas ------------------------------------------------------------


def test_formula_lines_of_a_3d_thread(rec) -> None:
    lines = formula_lines(THREE_D, rec.thread_at(ROW))
    assert lines == [
        "x = threadIdx.x + blockIdx.x * blockDim.x = 2 + 1 × 5 = 7  ✓ as recorded",
        "y = threadIdx.y + blockIdx.y * blockDim.y = 1 + 2 × 4 = 9  ✓ as recorded",
        "z = threadIdx.z + blockIdx.z * blockDim.z = 2 + 3 × 3 = 11  ✓ as recorded",
        "global linear index = x + y * W + z * W * H (W = 10, H = 12) = 7 + 9 × 10 + 11 × 120 = 1417",
        "cuda.grid(1) = threadIdx.x + blockIdx.x * blockDim.x = 7 (x only)",
        "thread id in block = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x "
        "* blockDim.y = 2 + 1 × 5 + 2 × 20 = 47",
        "warp = thread id // 32 = 47 // 32 = 1  ✓ as recorded",
        "lane = thread id % 32 = 47 % 32 = 15  ✓ = cuda.laneid",
        "block linear id = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y"
        " = 1 + 2 × 2 + 3 × 6 = 23",
    ]


def test_formula_lines_flag_a_value_the_thread_did_not_record(rec) -> None:
    t = dict(rec.thread_at(ROW))
    t["grid3"] = (7, 9, 14)  # z worked out with blockDim.y: 2 + 3 × 4
    t["laneid"] = 31
    t["warp"] = 0
    lines = formula_lines(THREE_D, t)
    assert lines[2].endswith("= 11  ✗ but as recorded is 14")
    assert lines[6].endswith("= 1  ✗ but as recorded is 0")
    assert lines[7].endswith("= 15  ✗ but = cuda.laneid is 31")


def test_formula_lines_of_a_2d_thread() -> None:
    config = LaunchConfig.of((2, 3, 1), (8, 6, 1))
    # (13, 16): blockIdx (1, 2), threadIdx (5, 4); width 16; thread id 37.
    t = {"threadIdx": (5, 4, 0), "blockIdx": (1, 2, 0), "grid1": 13, "grid2": (13, 16),
         "grid3": (13, 16, 0), "laneid": 5, "warp": 1}  # fmt: skip
    lines = formula_lines(config, t)
    assert lines == [
        "x = threadIdx.x + blockIdx.x * blockDim.x = 5 + 1 × 8 = 13  ✓ as recorded",
        "y = threadIdx.y + blockIdx.y * blockDim.y = 4 + 2 × 6 = 16  ✓ as recorded",
        "global linear index = x + y * (gridDim.x * blockDim.x) = 13 + 16 × 16 = 269",
        "cuda.grid(1) = threadIdx.x + blockIdx.x * blockDim.x = 13 (x only)",
        "thread id in block = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x "
        "* blockDim.y = 5 + 4 × 8 + 0 × 48 = 37",
        "warp = thread id // 32 = 37 // 32 = 1  ✓ as recorded",
        "lane = thread id % 32 = 37 % 32 = 5  ✓ = cuda.laneid",
        "block linear id = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y"
        " = 1 + 2 × 2 + 0 × 6 = 5",
    ]


def test_formula_lines_of_a_1d_thread() -> None:
    config = LaunchConfig.of((3, 1, 1), (40, 1, 1))
    t = {"threadIdx": (35, 0, 0), "blockIdx": (1, 0, 0), "grid1": 75, "grid2": (75, 0),
         "grid3": (75, 0, 0), "laneid": 3, "warp": 1}  # fmt: skip
    assert formula_lines(config, t) == [
        "idx = threadIdx.x + blockIdx.x * blockDim.x = 35 + 1 × 40 = 75  ✓ = cuda.grid(1)",
        "thread id in block = threadIdx.x = 35",
        "warp = thread id // 32 = 35 // 32 = 1  ✓ as recorded",
        "lane = thread id % 32 = 35 % 32 = 3  ✓ = cuda.laneid",
    ]
    t["grid1"] = 74
    assert formula_lines(config, t)[0].endswith("= 75  ✗ but = cuda.grid(1) is 74")


def test_value_lines_and_tooltip_of_a_simulated_thread(rec) -> None:
    t = rec.thread_at(ROW)
    values = dict(value_lines(rec, t))
    assert values["threadIdx"] == "(2, 1, 2)"
    assert values["blockIdx"] == "(1, 2, 3)"
    assert values["cuda.grid(1)"] == "7"
    assert values["lane (cuda.laneid)"] == "15" and values["warp"] == "1"
    assert values["SM (%smid)"] == "unknown in the simulator"
    assert values["start (%globaltimer)"] == "unknown in the simulator"
    lines = tooltip_lines(rec, "lane", "15", t)
    assert lines[0] == "<b>lane = 15</b>"
    assert "cuda.grid(3) = (7, 9, 11)" in lines
    assert "warp 1, lane 15" in lines
    assert not any(line.startswith("SM ") for line in lines)
    assert tooltip_lines(rec, "lane", "15", None)[1] == "fetching this thread's record …"


# --- the launch panel's code and totals -------------------------------------------------------


def test_launch_code_of_each_rank() -> None:
    one = formula_launch_code(LaunchConfig.of(3, 40))
    assert one.splitlines()[5:] == [
        "    # i = threadIdx.x + blockIdx.x * blockDim.x",
        "    i = cuda.grid(1)",
        "    out[i] = i",
        "",
        "out = cuda.device_array((120,), dtype=np.int64)",
        "index_kernel[3, 40](out)",
        "# 3 blocks × 40 threads = 120 threads",
    ]
    two = formula_launch_code(LaunchConfig.of((2, 3), (8, 6)))
    assert "out = cuda.device_array((18, 16), dtype=np.int64)" in two
    assert "index_kernel[(2, 3), (8, 6)](out)" in two and "    out[y, x] = y * out.shape[1] + x" in two
    three = formula_launch_code(THREE_D)
    assert "out = cuda.device_array((12, 12, 10), dtype=np.int64)" in three
    assert "index_kernel[(2, 3, 4), (5, 4, 3)](out)" in three
    assert three.endswith("# 24 blocks × 60 threads = 1,440 threads")


def test_totals_text_names_a_partial_last_warp() -> None:
    # 60 threads a block: 2 warps, the last of 60 - 32 = 28 threads.
    assert totals_text(THREE_D) == (
        "Threads per block: <b>60</b><br>Blocks: <b>24</b><br>Threads: <b>1,440</b><br>"
        "Warps per block: <b>2</b> — the last warp has only 28 of 32 threads"
    )
    assert totals_text(LaunchConfig.of(2, 64)).endswith("Warps per block: <b>2</b> (all full)")
    assert totals_text(LaunchConfig.of(1, (0, 1, 1))).endswith("Warps per block: <b>0</b>")


def test_launch_shape_arithmetic() -> None:
    assert THREE_D.extent == (10, 12, 12) and THREE_D.rank == 3
    assert (THREE_D.blocks, THREE_D.threads_per_block, THREE_D.total_threads) == (24, 60, 1440)
    assert (THREE_D.warps_per_block, THREE_D.last_warp_size) == (2, 28)
    assert LaunchConfig.of((2, 3), (8, 6)).rank == 2 and LaunchConfig.of(3, 40).rank == 1
    assert LaunchConfig.of(1, (1, 1, 2)).rank == 3 and LaunchConfig.of((1, 2), 1).rank == 2
    assert LaunchConfig.of(1, 33).last_warp_size == 1 and LaunchConfig.of(1, 32).last_warp_size == 32
    assert THREE_D.launch_line() == "record_threads[(2, 3, 4), (5, 4, 3)](...)"
    assert LaunchConfig.of(3, 40).launch_line("k", "out") == "k[3, 40](out)"
    assert str(THREE_D) == "grid (2, 3, 4), block (5, 4, 3)"


# --- a recording on a device: only the planes asked for cross -----------------------------------


class _DeviceArray(np.ndarray):
    def get(self) -> np.ndarray:
        return np.array(self)


_FAKE_XP = SimpleNamespace(
    int32=np.int32, int64=np.int64, ascontiguousarray=lambda a: np.ascontiguousarray(a).view(_DeviceArray)
)


def test_device_images_bring_only_the_planes_asked_for() -> None:
    config = LaunchConfig.of((1, 1, 1), (2, 3, 2))  # 2 planes of 3 rows × 2 columns
    host = SimBackend().record(config)
    fields = {k: np.asarray(v).view(_DeviceArray) for k, v in host.fields.items()}
    device = Recording(config, host.window, fields, "gpu:test", host.verification, xp=_FAKE_XP)
    assert is_device(device) and not is_device(host) and not is_device(None)
    images = map_images(device, "threadIdx.z", (1,))
    assert list(images.planes) == [1]
    assert images.planes[1].tolist() == [[1, 1], [1, 1], [1, 1]] and images.planes[1].dtype == np.int32
    assert images.levels == (0.0, 1.0) and images.any_known
    assert (images.recording, images.field) == (device, "threadIdx.z")
    # Host images of the same launch: both planes, plane 0 all zeros.
    every = host_images(host, "threadIdx.z")
    assert sorted(every.planes) == [0, 1] and every.planes[0].tolist() == [[0, 0], [0, 0], [0, 0]]


def test_block_linear_id_line_of_a_block_in_row_0(rec) -> None:
    # (4, 3, 5), row 634: blockIdx (0, 0, 1): 0 + 0 × 2 + 1 × 6 = 6.
    assert formula_lines(THREE_D, rec.thread_at(634))[-1].endswith(" = 0 + 0 × 2 + 1 × 6 = 6")
