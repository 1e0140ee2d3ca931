"""Go to a thread: what the inspector's box accepts, where it lands, and the words when it can't.

Every expected cell is worked by hand in the comments: global x = blockIdx.x × blockDim.x +
threadIdx.x (same for y, z); a global linear index n = x + y·Ex + z·Ex·Ey on an extent
(Ex, Ey, Ez); the cell is (plane, row, column) = (z − oz, y − oy, x − ox) inside a window with
origin (ox, oy, oz), except 1-D launches, which draw one row per block: (0, lx // bx, lx % bx).
"""

from __future__ import annotations

import re

import pytest

from simtviz.core.launch import LaunchConfig
from simtviz.core.locate import LocateError, ThreadAddress, locate, parse_address
from simtviz.core.window import Window

NOT_A_THREAD = (
    "is not a thread: write blockIdx then threadIdx (e.g. 1,2 3,0) or one global linear index (e.g. 42)"
)


# ---- parsing ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, address",
    [
        ("1,2 3,0", ThreadAddress(block=(1, 2, 0), thread=(3, 0, 0))),
        ("blockIdx 1,2 threadIdx 3,0", ThreadAddress(block=(1, 2, 0), thread=(3, 0, 0))),
        ("block=1,2 thread=3,0", ThreadAddress(block=(1, 2, 0), thread=(3, 0, 0))),
        ("(1, 2) (3, 0)", ThreadAddress(block=(1, 2, 0), thread=(3, 0, 0))),
        ("2 31", ThreadAddress(block=(2, 0, 0), thread=(31, 0, 0))),  # 1-D: x only, y = z = 0
        ("1,0,1 2,0,1", ThreadAddress(block=(1, 0, 1), thread=(2, 0, 1))),  # three parts each
        ("42", ThreadAddress(linear=42)),
        ("  0 ", ThreadAddress(linear=0)),
    ],
)
def test_parse_accepts_the_ways_people_write_a_thread(text: str, address: ThreadAddress) -> None:
    assert parse_address(text) == address


@pytest.mark.parametrize(
    "text",
    [
        "hello",
        "1 2 3",  # three indices: which two are block and thread?
        "(1,2)",  # only a block
        "(1,a) (2,3)",  # two groups, but one is not numbers
        "-1 0",  # no negative indices
        "-5",  # nor a negative global index
        "",
    ],
)
def test_parse_rejects_what_is_not_a_thread(text: str) -> None:
    with pytest.raises(LocateError) as info:
        parse_address(text)
    assert str(info.value) == f"“{text.strip()}” {NOT_A_THREAD}"


def test_an_index_has_at_most_three_parts() -> None:
    with pytest.raises(LocateError) as info:
        parse_address("1,2,3,4 0,0")
    assert str(info.value) == "“1,2,3,4”: write x, x,y or x,y,z"


# ---- 3-D launch, window with an origin on every axis ------------------------------------------
# grid (2,2,2) × block (4,2,2): extent (8, 4, 4), 128 threads.
# Window origin (2, 1, 1), size (4, 2, 2): x 2…5, y 1…2, z 1…2.
CUBE = LaunchConfig.of((2, 2, 2), (4, 2, 2))
CUBE_WINDOW = Window((2, 1, 1), (4, 2, 2))


@pytest.mark.parametrize(
    "text, cell",
    [
        # window's first thread (2, 1, 1): x 2 = 0·4 + 2, y 1 = 0·2 + 1, z 1 = 0·2 + 1
        ("0,0,0 2,1,1", (0, 0, 0)),
        # the same thread by its global index: 2 + 1·8 + 1·32 = 42
        ("42", (0, 0, 0)),
        # window's last thread (5, 2, 2): x 5 = 1·4 + 1, y 2 = 1·2 + 0, z 2 = 1·2 + 0 → (2−1, 2−1, 5−2)
        ("blockIdx 1,1,1 threadIdx 1,0,0", (1, 1, 3)),
        # and by global index: 5 + 2·8 + 2·32 = 85
        ("85", (1, 1, 3)),
        # (3, 2, 1): 3 + 2·8 + 1·32 = 51 → (1−1, 2−1, 3−2)
        ("51", (0, 1, 1)),
    ],
)
def test_3d_window_with_origin(text: str, cell: tuple[int, int, int]) -> None:
    assert locate(CUBE, CUBE_WINDOW, parse_address(text)) == cell


def outside_window(x: int, y: int, z: int) -> str:
    return (
        f"that thread (x {x}, y {y}, z {z}) ran but is outside the recorded window; "
        "move the window to record it"
    )


@pytest.mark.parametrize(
    "text, xyz",
    [
        ("1,0,0 2,1,1", (6, 1, 1)),  # one past the window in x: 1·4 + 2 = 6 = 2 + 4
        ("0,1,0 2,1,1", (2, 3, 1)),  # one past in y: 1·2 + 1 = 3 = 1 + 2
        ("0,0,1 2,1,1", (2, 1, 3)),  # one past in z: 1·2 + 1 = 3 = 1 + 2
        ("0,0,0 1,1,1", (1, 1, 1)),  # one before in x
        ("0,0,0 2,0,1", (2, 0, 1)),  # one before in y
        ("0,0,0 2,1,0", (2, 1, 0)),  # one before in z
        # the launch's last thread 127: x 127 % 8 = 7, y (127 // 8) % 4 = 3, z 127 // 32 = 3
        ("127", (7, 3, 3)),
        ("0", (0, 0, 0)),
    ],
)
def test_3d_threads_outside_the_window(text: str, xyz: tuple[int, int, int]) -> None:
    with pytest.raises(LocateError) as info:
        locate(CUBE, CUBE_WINDOW, parse_address(text))
    assert str(info.value) == outside_window(*xyz)


def test_3d_full_window_first_and_last_thread() -> None:
    full = Window.full(CUBE)
    assert locate(CUBE, full, parse_address("0")) == (0, 0, 0)
    assert locate(CUBE, full, parse_address("127")) == (3, 3, 7)  # (7, 3, 3) as above
    assert locate(CUBE, full, parse_address("1,1,1 3,1,1")) == (3, 3, 7)  # 1·4+3, 1·2+1, 1·2+1


# ---- launch bounds, in words ------------------------------------------------------------------


def test_global_index_bounds() -> None:
    full = Window.full(CUBE)
    with pytest.raises(LocateError) as info:
        locate(CUBE, full, parse_address("128"))  # one past the last of 128 threads
    assert str(info.value) == "global linear index 128 is outside 0 … 127"
    with pytest.raises(LocateError) as info:
        locate(CUBE, full, ThreadAddress(linear=-1))
    assert str(info.value) == "global linear index -1 is outside 0 … 127"
    big = LaunchConfig.of((4, 1, 1), (256, 1, 1))  # 1,024 threads: thousands get a comma
    with pytest.raises(LocateError) as info:
        locate(big, Window.full(big), parse_address("1024"))
    assert str(info.value) == "global linear index 1,024 is outside 0 … 1,023"


@pytest.mark.parametrize(
    "text, words",
    [
        ("2,0,0 0,0,0", "blockIdx.x = 2 is outside 0 … 1 (gridDim.x = 2)"),
        ("0,2,0 0,0,0", "blockIdx.y = 2 is outside 0 … 1 (gridDim.y = 2)"),
        ("0,0,2 0,0,0", "blockIdx.z = 2 is outside 0 … 1 (gridDim.z = 2)"),
        ("0,0,0 4,0,0", "threadIdx.x = 4 is outside 0 … 3 (blockDim.x = 4)"),
        ("0,0,0 0,2,0", "threadIdx.y = 2 is outside 0 … 1 (blockDim.y = 2)"),
        ("0,0,0 0,0,2", "threadIdx.z = 2 is outside 0 … 1 (blockDim.z = 2)"),
    ],
)
def test_one_past_the_launch_on_each_axis(text: str, words: str) -> None:
    with pytest.raises(LocateError) as info:
        locate(CUBE, Window.full(CUBE), parse_address(text))
    assert str(info.value) == words


def test_negative_indices_are_outside_the_launch() -> None:
    with pytest.raises(LocateError, match=re.escape("blockIdx.x = -1 is outside 0 … 1 (gridDim.x = 2)")):
        locate(CUBE, Window.full(CUBE), ThreadAddress(block=(-1, 0, 0), thread=(0, 0, 0)))
    with pytest.raises(LocateError, match=re.escape("threadIdx.z = -1 is outside 0 … 1 (blockDim.z = 2)")):
        locate(CUBE, Window.full(CUBE), ThreadAddress(block=(0, 0, 0), thread=(0, 0, -1)))


# ---- 2-D launch, window with an origin --------------------------------------------------------
# grid (4,3) × block (8,4): extent (32, 12). Window origin (8, 1), size (16, 4): x 8…23, y 1…4.
PLANE = LaunchConfig.of((4, 3, 1), (8, 4, 1))
PLANE_WINDOW = Window((8, 1, 0), (16, 4, 1))


def test_2d_window_with_origin() -> None:
    # 42 = 10 + 1·32 → (10, 1) → (0, 1−1, 10−8)
    assert locate(PLANE, PLANE_WINDOW, parse_address("42")) == (0, 0, 2)
    # (1,1) (3,0): x 1·8 + 3 = 11, y 1·4 + 0 = 4 (the window's last row) → (0, 3, 3)
    assert locate(PLANE, PLANE_WINDOW, parse_address("blockIdx 1,1 threadIdx 3,0")) == (0, 3, 3)
    # the window's last thread (23, 4): block (2, 1), thread (7, 0)
    assert locate(PLANE, PLANE_WINDOW, parse_address("2,1 7,0")) == (0, 3, 15)
    # (1,2) (3,0): y 2·4 = 8 is below the window's rows 1…4
    with pytest.raises(LocateError) as info:
        locate(PLANE, PLANE_WINDOW, parse_address("1,2 3,0"))
    assert str(info.value) == outside_window(11, 8, 0)
    # last thread of the launch: 383 → (31, 11)
    with pytest.raises(LocateError) as info:
        locate(PLANE, PLANE_WINDOW, parse_address("383"))
    assert str(info.value) == outside_window(31, 11, 0)


# ---- 1-D launch: one row per block -------------------------------------------------------------
# grid 4 × block 32: extent 128. Window origin 32, size 64: blocks 1 and 2 (x 32…95).
LINE = LaunchConfig.of((4, 1, 1), (32, 1, 1))
LINE_WINDOW = Window((32, 0, 0), (64, 1, 1))


def test_1d_window_with_origin() -> None:
    # 42 − 32 = 10: row 10 // 32 = 0, column 10
    assert locate(LINE, LINE_WINDOW, parse_address("42")) == (0, 0, 10)
    # first recorded thread: block 1, thread 0 → x 32 → (0, 0, 0)
    assert locate(LINE, LINE_WINDOW, parse_address("1 0")) == (0, 0, 0)
    # last recorded thread: block 2, thread 31 → x 95, local 63 → row 1, column 31
    assert locate(LINE, LINE_WINDOW, parse_address("blockIdx 2 threadIdx 31")) == (0, 1, 31)
    for text, x in (("3 0", 96), ("0 31", 31), ("0", 0), ("127", 127)):
        with pytest.raises(LocateError) as info:
            locate(LINE, LINE_WINDOW, parse_address(text))
        assert str(info.value) == outside_window(x, 0, 0)


def test_1d_full_window() -> None:
    full = Window.full(LINE)
    assert locate(LINE, full, parse_address("42")) == (0, 1, 10)  # 42 = 1·32 + 10
    assert locate(LINE, full, parse_address("127")) == (0, 3, 31)  # last: block 3, thread 31
    with pytest.raises(LocateError) as info:
        locate(LINE, full, parse_address("128"))
    assert str(info.value) == "global linear index 128 is outside 0 … 127"
