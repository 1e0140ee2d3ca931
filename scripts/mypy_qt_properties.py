"""mypy plugin: PySide6 constructors accept `objectName=` (pyproject.toml's [tool.mypy] loads it).

At run time every QObject constructor takes any Qt property as a keyword (`QLabel("x",
objectName="hint")`), but PySide6's stubs list only the class's own properties, so the inherited
`objectName` reads as an error on every named widget. This adds that one keyword, typed `str`, to
the signature of each QObject subclass's constructor; everything else stays as the stubs say.
"""

from __future__ import annotations

from collections.abc import Callable

from mypy.nodes import ARG_NAMED_OPT, ARG_STAR2
from mypy.plugin import FunctionSigContext, Plugin
from mypy.types import FunctionLike, Instance, get_proper_type

QOBJECT = "PySide6.QtCore.QObject"


def _with_object_name(ctx: FunctionSigContext) -> FunctionLike:
    sig = ctx.default_signature
    ret = get_proper_type(sig.ret_type)
    if not isinstance(ret, Instance) or not ret.type.has_base(QOBJECT):
        return sig
    if "objectName" in sig.arg_names or ARG_STAR2 in sig.arg_kinds:
        return sig
    text = ctx.api.named_generic_type("builtins.str", [])
    return sig.copy_modified(
        arg_types=[*sig.arg_types, text],
        arg_kinds=[*sig.arg_kinds, ARG_NAMED_OPT],
        arg_names=[*sig.arg_names, "objectName"],
    )


SignatureHook = Callable[[FunctionSigContext], FunctionLike]


class QtPropertiesPlugin(Plugin):
    def get_function_signature_hook(self, fullname: str) -> SignatureHook | None:
        return _with_object_name if fullname.startswith("PySide6.") else None


def plugin(version: str) -> type[Plugin]:
    return QtPropertiesPlugin
