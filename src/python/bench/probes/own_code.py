"""What generation reads from a target's own code (the reference's text of its module), never run: its int,
float and short str constants (a boundary is usually written there: ``0x660 <= cp``, ``kelvin < -1e-9``,
``== "--"``), its parameters in order and their literal defaults (an optional parameter's default is a value the
function is built to take)."""

from __future__ import annotations

import functools

from bench import pyast
from bench.probes.strategies import MAX_TEXT

MAX_TEXT_NUMBERS = 48  # numbers a text is given in place of one it spells


def constants_of(source: str, qualname: str) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """The int constants (and their neighbours) and short str literals of one function of ``source``."""
    import ast

    node = _node(source, qualname)
    if node is None:
        return (), ()
    ints, strings = set(), set()
    for item in [*ast.walk(node), *_named_constants(source, node)]:
        if isinstance(item, ast.UnaryOp) and isinstance(item.op, ast.USub) and isinstance(item.operand, ast.Constant):
            item = ast.Constant(-item.operand.value) if type(item.operand.value) is int else item  # ``-5 <= n``
        if isinstance(item, ast.Constant):
            if isinstance(item.value, int) and not isinstance(item.value, bool) and abs(item.value) < 1 << 62:
                ints.update((item.value - 1, item.value, item.value + 1))
            elif isinstance(item.value, str) and 0 < len(item.value) <= 24 and item is not _docstring(node):
                strings.add(item.value)
    return tuple(sorted(ints))[:64], tuple(sorted(strings))[:64]


def _named_constants(source: str, node) -> list:
    """The values of the module's constants (``SEPARATING_LINE = "\\001"``) that the function names, or that a
    function of the module it calls names: a boundary is written there as often as in the function itself, and
    tabulate's ``_is_separating_line`` compares each cell with it through ``_is_separating_line_value``."""
    import ast

    body = _module(source).body
    constants = {item.targets[0].id: item.value for item in body if isinstance(item, ast.Assign)
                 and len(item.targets) == 1 and isinstance(item.targets[0], ast.Name)
                 and isinstance(item.value, (ast.Constant, ast.UnaryOp))}
    functions = {item.name: item for item in body if isinstance(item, ast.FunctionDef)}
    named = {item.id for item in ast.walk(node) if isinstance(item, ast.Name)}
    called = [functions[name] for name in sorted(named) if name in functions and functions[name] is not node]
    named |= {item.id for callee in called for item in ast.walk(callee) if isinstance(item, ast.Name)}
    return [constants[name] for name in sorted(named) if name in constants]


def float_constants_of(source: str, qualname: str) -> tuple[float, ...]:
    """The float constants of one function of ``source``, each also negated: a bound is written there."""
    import ast

    node = _node(source, qualname)
    if node is None:
        return ()
    found = {v for item in ast.walk(node) if isinstance(item, ast.Constant) and type(item.value) is float
             for v in (item.value, -item.value)}
    return tuple(sorted(found))[:32]


def bytes_constants_of(source: str, qualname: str) -> tuple[bytes, ...]:
    """The short bytes literals of one function of ``source``: a protocol's delimiters (``b"\\r\\n"``) are
    written there, and where one stands in the data is where a parser's boundary lives."""
    import ast

    node = _node(source, qualname)
    if node is None:
        return ()
    return tuple(sorted({item.value for item in ast.walk(node) if isinstance(item, ast.Constant)
                         and type(item.value) is bytes and 0 < len(item.value) <= 24}))[:32]


def text_numbers_of(source: str, qualname: str) -> tuple[int, ...]:
    """The numbers a text handed to the target may spell: its own int constants (with their neighbours), then
    those of the rest of its module, none negative. An entry point reads its input as text, and the bound
    that text meets is often written in a helper it reaches (a parser's ``0xDC00 <= low`` sits in its escape
    method, not in ``loads``)."""
    import ast

    own = [v for v in constants_of(source, qualname)[0] if v >= 0]
    try:
        tree = _module(source)
    except SyntaxError:
        return tuple(own[:MAX_TEXT_NUMBERS])
    rest = sorted({v for item in ast.walk(tree) if isinstance(item, ast.Constant) and type(item.value) is int
                   and 0 <= item.value < 1 << 62 for v in (item.value - 1, item.value, item.value + 1) if v >= 0})
    return tuple(dict.fromkeys([*own, *rest]))[:MAX_TEXT_NUMBERS]


@functools.lru_cache(maxsize=4)
def _module(source: str):
    return pyast.parse(source)


def annotated_types_of(source: str, qualname: str) -> dict[str, tuple[str, ...]]:
    """The types one function's annotations give its parameters, by the types' last names: ``bool | None``,
    ``t.Optional[int]``, ``"str | None"``. Only the outer types: ``list[str]`` is a list. An annotation names
    what the function is built to take, and an option the tests never pass (``no_args_is_help: bool | None =
    None``) is given a value of it."""
    node = _node(source, qualname)
    if node is None:
        return {}
    spec = node.args
    found = {}
    for argument in spec.posonlyargs + spec.args + spec.kwonlyargs:
        kinds = _annotated(argument.annotation) if argument.annotation is not None else ()
        if kinds:
            found[argument.arg] = kinds
    return found


_GENERICS = {"List": "list", "Tuple": "tuple", "Dict": "dict", "Set": "set", "FrozenSet": "frozenset"}


def _annotated(expr) -> tuple[str, ...]:
    import ast

    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):  # a quoted annotation
        try:
            expr = pyast.parse(expr.value, mode="eval").body
        except SyntaxError:
            return ()
    if isinstance(expr, ast.Constant) and expr.value is None:
        return ("NoneType",)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
        return _merged(_annotated(expr.left), _annotated(expr.right))
    name = _last_name(expr.value if isinstance(expr, ast.Subscript) else expr)
    if isinstance(expr, ast.Subscript) and name in ("Optional", "Union"):
        items = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
        kinds = _merged(*(_annotated(item) for item in items))
        return _merged(kinds, ("NoneType",)) if name == "Optional" else kinds
    name = _GENERICS.get(name, name)
    return (name,) if name else ()


def _last_name(expr) -> str:
    import ast

    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return ""


def _merged(*groups) -> tuple[str, ...]:
    return tuple(dict.fromkeys(kind for group in groups for kind in group))


def defaults_of(source: str, qualname: str) -> tuple[tuple, dict]:
    """The literal defaults of one function's parameters (None, a bool, a number, a short str), written: by
    position (``None`` where a parameter has none) and by name. An optional parameter's default is a value the
    function is built to take, and its ``is None`` branch is where a wrong variable hides."""
    node = _node(source, qualname)
    if node is None:
        return (), {}
    spec = node.args
    ordered = spec.posonlyargs + spec.args
    pairs = list(zip(ordered[len(ordered) - len(spec.defaults):], spec.defaults))
    pairs += [(a, d) for a, d in zip(spec.kwonlyargs, spec.kw_defaults) if d is not None]
    written = {a.arg: literal(d) for a, d in pairs}
    written = {name: value for name, value in written.items() if value is not None}
    return tuple(written.get(a.arg) for a in ordered), written


def parameters_of(source: str, qualname: str) -> tuple[tuple[str, ...], int]:
    """The names of one function's positional parameters in order, and how many of them are positional-only."""
    node = _node(source, qualname)
    if node is None:
        return (), 0
    return tuple(a.arg for a in node.args.posonlyargs + node.args.args), len(node.args.posonlyargs)


def memo_attributes_of(source: str, qualname: str) -> tuple[str, ...]:
    """The attributes of a method's first parameter that its own code tests in a condition and also sets
    (``if not self._schema: ... self._schema = ...``): a memo. A site whose live object has an attribute
    changed answers from the memo the tests filled, unless the memo is cleared with it. A counter (``self.hits
    += 1``) is set and read but tested in no condition: cleared, it would turn every input into a TypeError."""
    import ast

    node = _node(source, qualname)
    if node is None or not node.args.args:
        return ()
    first = node.args.args[0].arg

    def attributes(tree, ctx):
        return {item.attr for item in ast.walk(tree) if isinstance(item, ast.Attribute) and isinstance(item.ctx, ctx)
                and isinstance(item.value, ast.Name) and item.value.id == first}

    tested = set().union(*(attributes(item.test, ast.Load) for item in ast.walk(node)
                           if isinstance(item, (ast.If, ast.IfExp, ast.While))))
    return tuple(sorted(tested & attributes(node, ast.Store)))


def checked_types_of(source: str, qualname: str) -> dict[str, tuple[str, ...]]:
    """The types one function's own code checks each parameter (``"step"``) or attribute of one
    (``"self.nested"``) against, by the types' last names: ``isinstance(step, timedelta)``, ``isinstance(n,
    (int, float))``, ``type(x) is dict``, ``type(x) in (...)``, also through a local assigned from it. A check
    names a type the function is built to take; the tests often pass only one of them."""
    import ast

    node = _node(source, qualname)
    if node is None:
        return {}
    spec = node.args
    aliases = _aliases(node, {a.arg for a in spec.posonlyargs + spec.args + spec.kwonlyargs})
    unpacked = _unpacked(node, aliases)
    found: dict[str, list[str]] = {}
    for item in ast.walk(node):
        for table in (aliases, unpacked):
            checked = _checked(item, table)
            if checked is not None:
                name, kinds = checked
                found.setdefault(name, [])
                found[name] += [k for k in _type_names(kinds) if k not in found[name]]
    return {name: tuple(kinds) for name, kinds in found.items() if kinds}


def _unpacked(node, aliases: dict[str, str]) -> dict[str, str]:
    """Each local name unpacked from a parameter, by the item it is: ``y_step, m_step, d_step = step`` makes
    ``d_step`` stand for ``"step[2]"``, so ``isinstance(d_step, timedelta)`` names a type the third item of a
    ``step`` tuple is built to be (a check the whole ``step`` given as a timedelta never reaches)."""
    import ast

    found: dict[str, str] = {}
    for item in ast.walk(node):
        if isinstance(item, ast.Assign) and isinstance(item.value, ast.Name) and item.value.id in aliases \
                and "." not in aliases[item.value.id]:
            for target in item.targets:
                for j, element in enumerate(target.elts if isinstance(target, (ast.Tuple, ast.List)) else ()):
                    if isinstance(element, ast.Name):
                        found.setdefault(element.id, f"{aliases[item.value.id]}[{j}]")
    return found


def _aliases(node, parameters: set[str]) -> dict[str, str]:
    """Each parameter by its own name, and each local name assigned from exactly one parameter or attribute of
    one (or from a name so assigned), by that: ``y_step, m_step, d_step = step`` makes ``d_step`` stand for
    ``step``, ``nested = self.nested`` makes ``nested`` stand for ``self.nested``; a check of the local is a
    check of what the caller passed (or of what the object it passed holds)."""
    import ast

    aliases = {name: name for name in parameters}
    assigns = [item for item in ast.walk(node) if isinstance(item, ast.Assign)]
    grown = True
    while grown:
        grown = False
        for item in assigns:
            sources = {_source(n, aliases) for n in ast.walk(item.value)} - {None}
            if isinstance(item.value, ast.Attribute) and _source(item.value, aliases):
                sources = {_source(item.value, aliases)}  # ``x = self.attr``: the attribute, not ``self``
            if len(sources) != 1:
                continue
            for target in item.targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name) and name.id not in aliases:
                        aliases[name.id] = next(iter(sources))
                        grown = True
    return aliases


def _source(node, aliases):
    """What ``node`` stands for: a parameter (``step``), an attribute of one (``self.nested``), or None."""
    import ast

    if isinstance(node, ast.Name):
        return aliases.get(node.id)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases \
            and "." not in aliases[node.value.id]:
        return aliases[node.value.id] + "." + node.attr
    return None


def _checked(item, aliases):
    """``(what is checked, the node naming the types)`` of an isinstance call or a ``type(x) is/==/in``
    comparison, what is checked being a parameter or an attribute of one (see :func:`_aliases`)."""
    import ast

    def parameter(node):
        return _source(node, aliases)

    if isinstance(item, ast.Call) and isinstance(item.func, ast.Name) and item.func.id == "isinstance" \
            and len(item.args) == 2 and parameter(item.args[0]):
        return parameter(item.args[0]), item.args[1]
    if isinstance(item, ast.Compare) and len(item.ops) == 1 and isinstance(item.left, ast.Call) \
            and isinstance(item.left.func, ast.Name) and item.left.func.id == "type" and len(item.left.args) == 1 \
            and parameter(item.left.args[0]) and isinstance(item.ops[0], (ast.Is, ast.Eq, ast.In)):
        return parameter(item.left.args[0]), item.comparators[0]
    return None


def _type_names(node) -> list[str]:
    import ast

    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [name for element in node.elts for name in _type_names(element)]
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    return []


@functools.lru_cache(maxsize=16)
def _node(source: str, qualname: str):
    """The function's node in ``source``, or None: parsed once for all that generation reads of one target
    (each in-place site of a target asks again, and a module such as click's core is 100 KB). Read only."""
    try:
        return function_node(_module(source).body, qualname.split("."))
    except SyntaxError:
        return None


def function_node(body, path):
    import ast

    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == path[0]:
            return node if len(path) == 1 else function_node(node.body, path[1:])
    return None


def _docstring(node):
    import ast

    first = node.body[0] if getattr(node, "body", None) else None
    return first.value if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) else None


def literal(node):
    import ast

    if not isinstance(node, ast.Constant):
        return None
    value = node.value
    if value is None:
        return ["N"]
    if isinstance(value, bool):
        return ["b", value]
    if isinstance(value, int):
        return ["i", str(value)]
    if isinstance(value, float):
        return ["f", repr(value)]
    if isinstance(value, str) and len(value) <= MAX_TEXT:
        return ["s", value]
    return None
