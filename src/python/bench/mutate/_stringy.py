"""Cheap, local guesses that an expression is a string, bytes or container rather than a number.

Swapping ``+`` for ``-`` on two strings gives a mutant that dies of a ``TypeError`` at the first call: a
trivial task. The arithmetic operator asks these helpers and proposes nothing where an operand is *obviously*
not a number. "Obviously" means from the expression itself, the function's parameter annotations and the
function's own assignments, never from inference across functions: a filter, not a type checker.
"""

from __future__ import annotations

import ast
import re

_CONTAINER_NODES = (
    ast.JoinedStr,
    ast.List,
    ast.ListComp,
    ast.Tuple,
    ast.Set,
    ast.SetComp,
    ast.Dict,
    ast.DictComp,
    ast.GeneratorExp,
)
_NON_NUMBER_BUILTINS = frozenset(
    {
        "str", "repr", "ascii", "bytes", "bytearray", "list", "tuple", "set", "frozenset", "dict", "sorted",
        "format", "chr", "hex", "oct", "bin", "reversed", "zip", "map", "filter", "enumerate", "type", "getattr",
    }
)  # fmt: skip
_NON_NUMBER_METHODS = frozenset(
    {
        "join", "format", "format_map", "strip", "lstrip", "rstrip", "lower", "upper", "casefold", "title",
        "capitalize", "swapcase", "replace", "split", "rsplit", "splitlines", "partition", "rpartition",
        "encode", "decode", "ljust", "rjust", "center", "zfill", "expandtabs", "translate", "removeprefix",
        "removesuffix", "group", "groups", "copy", "keys", "values", "items", "sub", "isoformat", "strftime",
    }
)  # fmt: skip
# Parts of identifiers that name text or sequences (`line_prefix`, `sep`, `msg`, ...), split on `_`.
_STRINGY_WORDS = frozenset(
    {
        "str", "string", "strings", "text", "msg", "message", "fmt", "format", "template", "name", "names",
        "prefix", "suffix", "sep", "separator", "line", "lines", "path", "char", "chars", "word", "words",
        "label", "title", "url", "pattern", "regex", "doc", "indent", "buf", "buffer", "parts", "tokens",
        "items", "list", "lst", "tuple", "args", "kwargs", "s", "src", "source", "header", "headers", "key",
        "keys", "values", "set",
    }
)  # fmt: skip
_NON_NUMBER_ANNOTATIONS = frozenset(
    {"str", "bytes", "bytearray", "list", "tuple", "set", "frozenset", "dict", "List", "Tuple", "Set",
     "FrozenSet", "Dict", "Sequence", "MutableSequence", "Mapping", "MutableMapping", "Iterable", "AnyStr"}
)  # fmt: skip
_TYPE_NAMES = frozenset({"int", "float", "complex", "bool", "type", "object"}) | _NON_NUMBER_ANNOTATIONS


def _is_stringy_identifier(identifier: str) -> bool:
    words = [word for word in re.split(r"_+", identifier.lower()) if word]
    return any(word in _STRINGY_WORDS for word in words)


def _is_class_name(identifier: str) -> bool:
    # `Foo` and `FooBar` name classes; `MAX_SIZE` and `A` (constants, flag members) do not.
    return identifier[:1].isupper() and not identifier.isupper()


def is_type_like(expr: ast.expr) -> bool:
    """``int | None``, ``Foo | Bar`` and such: operands of a `|` between types, not numbers."""
    if isinstance(expr, ast.Constant) and expr.value is None:
        return True
    if isinstance(expr, ast.Name):
        return expr.id in _TYPE_NAMES or _is_class_name(expr.id)
    if isinstance(expr, ast.Attribute):
        return _is_class_name(expr.attr)
    return isinstance(expr, ast.Subscript) and is_type_like(expr.value)


def is_obviously_not_number(expr: ast.expr, stringy_names: frozenset[str]) -> bool:
    """True where ``expr`` is evidently text, bytes, None or a container (never a plain number)."""
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, (str, bytes)) or expr.value is None
    if isinstance(expr, _CONTAINER_NODES):
        return True
    if isinstance(expr, ast.Name):
        return expr.id in stringy_names or _is_stringy_identifier(expr.id)
    if isinstance(expr, ast.Attribute):
        return _is_stringy_identifier(expr.attr)
    if isinstance(expr, ast.Call):
        func = expr.func
        if isinstance(func, ast.Name):
            return func.id in _NON_NUMBER_BUILTINS or _is_stringy_identifier(func.id)
        return isinstance(func, ast.Attribute) and func.attr in _NON_NUMBER_METHODS
    if isinstance(expr, ast.BinOp):
        # `"a" + x`, `"%s" % x`, `"-" * n`: the result has the text's type.
        return is_obviously_not_number(expr.left, stringy_names) or (
            isinstance(expr.op, (ast.Add, ast.Mult)) and is_obviously_not_number(expr.right, stringy_names)
        )
    if isinstance(expr, ast.Subscript):
        return isinstance(expr.slice, ast.Slice)
    if isinstance(expr, ast.IfExp):
        return is_obviously_not_number(expr.body, stringy_names) or is_obviously_not_number(
            expr.orelse, stringy_names
        )
    return False


def _annotation_is_non_number(annotation: ast.expr | None) -> bool:
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value.split("[")[0].split(".")[-1].strip() in _NON_NUMBER_ANNOTATIONS
    if isinstance(annotation, ast.Subscript):
        return _annotation_is_non_number(annotation.value)
    if isinstance(annotation, ast.Attribute):
        return annotation.attr in _NON_NUMBER_ANNOTATIONS
    return isinstance(annotation, ast.Name) and annotation.id in _NON_NUMBER_ANNOTATIONS


def stringy_names(function: ast.FunctionDef | ast.AsyncFunctionDef, own_nodes: list[ast.AST]) -> frozenset[str]:
    """Names in ``function`` that hold text or containers: by annotation or by an obvious assignment."""
    arguments = function.args
    names = {
        arg.arg
        for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)
        if _annotation_is_non_number(arg.annotation)
    }
    names.update(arg.arg for arg in (arguments.vararg, arguments.kwarg) if arg is not None)
    for node in own_nodes:
        if isinstance(node, ast.Assign) and is_obviously_not_number(node.value, frozenset(names)):
            names.update(target.id for target in node.targets if isinstance(target, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if _annotation_is_non_number(node.annotation):
                names.add(node.target.id)
    return frozenset(names)
