"""Each contradiction on a constructed file: the exact count before and after one mutation, and the verdict
``added_anomaly`` gives (the mutants of reading E in docs/measurements/mutation-audit.md, in miniature)."""

from __future__ import annotations

import ast

import pytest

from bench.mutate.anomalies import added_anomaly
from bench.mutate.guards import blocks_against_their_test
from bench.mutate.contradictions import (
    guarded_reads,
    index_past_guard,
    invariant_loop_tests,
    repeated_tests,
)
from bench.mutate.habits import broken_twin, empty_ranges, meeting_splits, odd_comparisons, odd_literals, operator_kinds, twin_pairs


def _verdict(text: str, old: str, new: str) -> str:
    start = text.index(old)
    return added_anomaly(text.encode(), start, start + len(old), new)


def _after(text: str, old: str, new: str) -> ast.AST:
    assert text.count(old) == 1, old
    return ast.parse(text.replace(old, new))


EXPIRY = '''def alive(link, now):
    return now < link.expires


def fresh(link, now):
    if now < link.expires:
        return link.value
    return None


def count(links, n):
    total = 0
    for link in links:
        total += n
    return total
'''


def test_an_operator_the_file_writes_nowhere_else():
    assert "LtE" not in operator_kinds(ast.parse(EXPIRY))
    assert _verdict(EXPIRY, "return now < link.expires", "return now <= link.expires") == \
        "an operator the file writes nowhere else"
    assert _verdict(EXPIRY, "total += n", "total -= n") == "an operator the file writes nowhere else"


HEBREW = '''def valid(label, pos, kind):
    if kind == 1 and pos > 0:
        return label[pos - 1] == "a"
    if kind == 2 and 0 < pos:
        return label[pos - 1] == "b"
    if kind == 3:
        if pos > 0:
            return label[pos - 1] == "c"
        return False
    if pos <= 9:
        return True
    return pos < 9
'''


def test_a_comparison_written_against_the_files_own_habit():
    before = ast.parse(HEBREW)
    assert odd_comparisons(before) == 1  # pos > 0 three times (0 < pos mirrored); pos against 9 two ways already
    after = _after(HEBREW, "        if pos > 0:", "        if pos <= 0:")
    assert odd_comparisons(after) == 3  # pos against 0 two ways now, and one of them the odd one out
    assert _verdict(HEBREW, "        if pos > 0:", "        if pos <= 0:") == \
        "a comparison written against the file's own habit"
    # the same operands tested both ways already: one more flip adds no operator and no odd one out
    split = "a = x > 0\nb = x > 0\nc = x <= 0\nd = x <= 0\ne = x > 0\n"
    assert odd_comparisons(ast.parse(split)) == 1
    assert odd_comparisons(ast.parse(split.replace("e = x > 0", "e = x <= 0"))) == 1


BLOCKS = '''def invocation(self, keywords, name):
    pairs = None
    if self.kwonly:
        pairs = {arg: arg for arg in self.kwonly}
    if name in keywords:
        default = keywords[name]
        pairs = default
    found = name in keywords and keywords[name]
    return pairs, found, name not in self.seen
'''


def test_a_test_that_contradicts_its_block():
    assert blocks_against_their_test(ast.parse(BLOCKS)) == 0
    assert blocks_against_their_test(_after(BLOCKS, "if self.kwonly:", "if not self.kwonly:")) == 1
    assert blocks_against_their_test(_after(BLOCKS, "if name in keywords:", "if name not in keywords:")) == 1
    assert blocks_against_their_test(_after(BLOCKS, "name in keywords and", "name not in keywords and")) == 1
    assert _verdict(BLOCKS, "if name in keywords:", "if name not in keywords:") == "a test that contradicts its block"


COMPLETE = '''def complete(self, ctx):
    results = self.custom(ctx)
    if results and isinstance(results[0], str):
        results = [wrap(r) for r in results]
    return results
'''


def test_an_index_past_a_non_empty_guard():
    assert index_past_guard(ast.parse(COMPLETE)) == 0
    assert index_past_guard(_after(COMPLETE, "results[0]", "results[1]")) == 1
    assert index_past_guard(_after(COMPLETE, "results[0]", "results[-1]")) == 0  # still the one element
    assert _verdict(COMPLETE, "results[0]", "results[1]") == "an index past a non-empty guard"


SPLIT = '''def split_when(iterable, pred, maxsplit=-1):
    if maxsplit == 0:
        yield list(iterable)
        return
    buf = []
    for item in iterable:
        if pred(item):
            yield buf
            if maxsplit == 1:
                yield list(iterable)
                return
            buf = []
            maxsplit -= 1
        buf.append(item)
    yield buf
'''


def test_a_test_repeated_in_one_function():
    assert repeated_tests(ast.parse(SPLIT)) == 0
    assert repeated_tests(_after(SPLIT, "if maxsplit == 1:", "if maxsplit == 0:")) == 1
    assert _verdict(SPLIT, "if maxsplit == 1:", "if maxsplit == 0:") == "a test repeated in one function"
    assert _verdict(SPLIT, "if maxsplit == 1:", "if maxsplit == 2:") == ""  # a wrong bound, not a repeat


CHILDREN = '''def match_child(self, parent, relation, recursive=False):
    match = False
    children = self.pick(recursive)
    for child in children(parent):
        match = self.match(child, relation)
        if match:
            break
    return match
'''


def test_a_loop_that_re_tests_what_it_never_changes():
    assert invariant_loop_tests(ast.parse(CHILDREN)) == 0
    assert invariant_loop_tests(_after(CHILDREN, "        if match:", "        if recursive:")) == 1
    assert _verdict(CHILDREN, "        if match:", "        if recursive:") == \
        "a loop that re-tests what it never changes"


LOADER = '''def load(fullname):
    package, dot, tail = fullname.partition('.')
    found = {}
    module_name = ''.join(['cytoolz', dot, tail])
    found['cytoolz'] = import_module(module_name)
    module_name = ''.join(['toolz', dot, tail])
    found['toolz'] = import_module(module_name)
    return found
'''


@pytest.mark.parametrize("old, new, verdict", [
    ("''.join(['toolz', dot, tail])", "''.join(['toolz', dot, fullname])",
     "a statement that no longer matches its twin"),
    ("''.join(['toolz', dot, tail])", "''.join(['tlz', dot, tail])", ""),  # still differs in one literal
])
def test_a_statement_that_no_longer_nearly_matches_its_twin(old, new, verdict):
    assert twin_pairs(ast.parse(LOADER)) == (0, 3)  # joins, stores, their join calls: one literal apart
    assert _verdict(LOADER, old, new) == verdict


SEARCH = '''class Parser:
    def search(self, string, pos=0, endpos=None):
        if endpos is None:
            endpos = len(string)
        return self._search(string, pos, endpos)

    def findall(self, string, pos=0, endpos=None):
        if endpos is None:
            endpos = len(string)
        return iter(self._search(string, pos, endpos))

    def ready(self):
        return self._search is not None
'''


def test_a_short_if_that_no_longer_matches_its_twin_method():
    assert twin_pairs(ast.parse(SEARCH)) == (3, 3)  # the ifs, their assignments, the _search calls
    flipped = "        if endpos is not None:\n            endpos = len(string)\n        return iter("
    original = "        if endpos is None:\n            endpos = len(string)\n        return iter("
    assert broken_twin(ast.parse(SEARCH), ast.parse(SEARCH.replace(original, flipped)))
    assert _verdict(SEARCH, original, flipped) == "a test that contradicts its block"  # read first: more precise


def test_a_value_found_present_and_overwritten_unread_contradicts_its_test():
    single = "def findall(string, endpos=None):\n    if endpos is None:\n        endpos = len(string)\n" \
             "    return endpos\n"
    assert blocks_against_their_test(ast.parse(single)) == 0
    assert blocks_against_their_test(ast.parse(single.replace("is None", "is not None"))) == 1


def test_an_attribute_used_where_the_test_says_it_is_missing():
    unwrap = "def unwrap(items):\n    out = []\n    for v in items:\n        if hasattr(v, 'unwrap'):\n" \
             "            out.append(v.unwrap())\n        else:\n            out.append(v)\n    return out, not items\n"
    assert blocks_against_their_test(ast.parse(unwrap)) == 0
    assert _verdict(unwrap, "if hasattr(", "if not hasattr(") == "a test that contradicts its block"
    nested = "def resolve(nested):\n    if isinstance(nested, type) and issubclass(nested, Base):\n        return nested\n" \
             "    assert nested or Base\n"
    assert _verdict(nested, "type) and", "type) or") == "a test that contradicts its block"


def test_and_as_a_value_in_a_file_that_only_tests_with_it():
    store = "def get(error, data):\n    if error and data:\n        return 1\n    return error.valid_data or missing\n"
    assert "And as a value" not in operator_kinds(ast.parse(store))
    assert _verdict(store, "valid_data or", "valid_data and") == "an operator the file writes nowhere else"


def test_a_guard_that_no_longer_guards_what_it_reads():
    grouping = "def group(tlist, prev_):\n    if prev_ and prev_.is_whitespace:\n        return tlist\n    return None\n"
    assert guarded_reads(ast.parse(grouping)) == 1
    assert _verdict(grouping, "if prev_ and", "if tlist and") == "a guard that no longer guards what it reads"


VALIDATORS = '''def validate_day(day, max_days):
    return 1 <= day <= max_days


def validate_week(week, max_week):
    return 1 <= week <= max_week


def validate_month(month):
    return 1 <= month <= 12


def validate_hour(hour):
    return 0 <= hour <= 23
'''


def test_a_bound_no_other_comparison_of_the_file_uses():
    assert odd_literals(ast.parse(VALIDATORS)) == 1  # 1 three times on the left of <=, 0 once: odd already
    assert odd_literals(_after(VALIDATORS, "1 <= month", "2 <= month")) == 2
    assert _verdict(VALIDATORS, "1 <= month", "2 <= month") == "a bound no other comparison of the file uses"


COMPOSED = '''def composed_doc(*fs):
    if not fs:
        return "*args, **kwargs"
    return "{f}({g})".format(f=fs[0].__name__, g=composed_doc(*fs[1:]))


def apply(*func_and_args):
    func, args = func_and_args[0], func_and_args[1:]
    return func(*args)
'''


def test_a_usable_value_returned_early_then_indexed_contradicts_its_guard():
    assert blocks_against_their_test(ast.parse(COMPOSED)) == 0
    assert _verdict(COMPOSED, "if not fs:", "if fs:") == "a test that contradicts its block"


def test_a_head_that_overlaps_its_tail():
    assert index_past_guard(ast.parse(COMPOSED)) == 0
    assert _verdict(COMPOSED, "func_and_args[0]", "func_and_args[1]") == "an index past a non-empty guard"
    assert index_past_guard(_after(COMPOSED, "func_and_args[1:]", "func_and_args[2:]")) == 0  # a gap: reasoning


READING_SLIPS = [  # (reading, the file, the original text, the mutant text, the verdict)
    ('G', 'def parse(hour):\n    minute = (hour - int(hour)) * 60\n    second = (minute - int(minute)) * 60\n    return hour, minute, second\n',
     'int(hour)) * 60', 'int(hour)) * 61', 'a statement that no longer matches its twin'),
    ('G', 'def fmt(value):\n    return 2 if 1 < value < 2 else int(value)\n',
     '1 < value', '2 < value', 'a range that holds nothing'),
    ('G', 'def same(a, b):\n    return a.get(-1) == b.get(-1), a[1:]\n',
     'b.get(-1)', 'b.get(-0)', 'a sign on zero'),
    ('G', 'def partial(A, r):\n    head, tail = A[:r], A[r:]\n    return head, tail, r + 1\n',
     'A[:r]', 'A[:r + 1]', 'a head and tail that no longer meet'),
    ('G', 'def copy(c, other, n):\n    c.body += other.body\n    return c, n - 1\n',
     'c.body += ', 'c.body -= ', 'an operator the file writes nowhere else'),
    ('G', 'def process(tlist):\n    token = tlist.first()\n    while token:\n        token = tlist.next(token)\n    return not token\n',
     'while token:', 'while not token:', 'an operator the file writes nowhere else'),
    ('G', 'def transform(g, valuefunc, reducefunc):\n    if valuefunc:\n        g = map(valuefunc, g)\n    if not reducefunc:\n        return g\n    return reducefunc(g)\n',
     'if valuefunc:', 'if not valuefunc:', 'a test that contradicts its block'),
    ('H', 'def match(flags, condition):\n    if flags & SEL_A:\n        return 1\n    if condition & SEL_B:\n        return 2\n    return flags | SEL_B\n',
     'condition & SEL_B', 'condition | SEL_B', 'an operator the file writes nowhere else'),
    ('H', 'def _new(self, result, original):\n    return String(self._t, result, original, self._trivia)\n',
     'result, original, self', 'original, result, self', "arguments crossed against the function's own parameters"),
    ('H', "def init(self, meta):\n    if hasattr(meta, 'json_module'):\n        warn('deprecated')\n        self.json = getattr(meta, 'json_module', json)\n    if not self.json:\n        self.json = json\n",
     'if hasattr(', 'if not hasattr(', 'a test that contradicts its block'),
    ('H', "def __rsub__(self, other):\n    if isinstance(other, timedelta):\n        return Duration(tdelta=other)\n    if not isinstance(other, date):\n        raise TypeError(f'not a date: {other!r}')\n    return other - self\n",
     'if isinstance(other, timedelta)', 'if not isinstance(other, timedelta)', 'a test that contradicts its block'),
    ('H', 'class _DefaultSize:\n    def __getitem__(self, _):\n        return 1\n\n    def __setitem__(self, _, value):\n        assert value == 1\n\n    def pop(self, _):\n        return 1\n',
     'return 1\n\n    def __setitem__', 'return 0\n\n    def __setitem__', 'a statement that no longer matches its twin'),
    ('I', 'def run(data, many):\n    if many:\n        v = check(data)\n        if v is missing:\n            data.pop(0)\n    else:\n        v = check(data)\n        if v is missing:\n            data.clear()\n    return data, v is not None\n',
     'if v is missing:\n            data.clear', 'if v is not missing:\n            data.clear', "a comparison written against the file's own habit"),
    ('I', 'def dump(data, original_data):\n    data = pre(data)\n    data = post(data, original_data)\n    return data\n',
     'return data', 'return original_data', 'a value computed last and never read'),
    ('I', 'def infer(value):\n    field_cls = lookup(value)\n    if field_cls is None:\n        return fallback(value)\n    else:\n        return field_cls()\n    return value is not None\n',
     'if field_cls is None:', 'if field_cls is not None:', 'a test that contradicts its block'),
    ('I', 'def incomplete(param):\n    ready = param.a and param.b\n    return ready, param.nargs == -1 or (param.nargs > 1 and param.many)\n',
     '-1 or (', '-1 and (', 'a condition that can never hold'),
    ('I', 'def key(args, kwargs):\n    both = args and kwargs\n    return both, args or None, frozenset(kwargs) if kwargs else None\n',
     'args or None', 'args and None', 'a boolean whose result a literal fixes'),
    ('I', 'class T:\n    def _match(self, funcs):\n        if funcs:\n            return 1, funcs\n        return None, None\n\n    def first(self, funcs):\n        return self._match(funcs)[1]\n',
     'self._match(funcs)[1]', 'self._match(funcs)[2]', 'an index past what the function returns'),
    ('I', 'def insert(indent, idx, multiline):\n    if indent is None and (idx > 0 or multiline):\n        return 1\n    return indent or idx\n',
     'None and (', 'None or (', 'parentheses that change nothing'),
    ('I', 'def memoize(_func=None, key_func=None):\n    if _func is not None:\n        return memoize()(_func)\n    return wraps(key_func)\n',
     'if _func is not None', 'if key_func is not None', 'a guard that no longer guards what it reads'),
    ('J', 'class Series:\n    def __iter__(self):\n        if self._growing:\n            return up(self)\n        return down(self)\n\n    def __len__(self):\n        if self._growing:\n            return self._n\n        return 0\n\n    def last(self):\n        return self._growing and self._stop\n',
     'if self._growing:\n            return up', 'if not self._growing:\n            return up', 'a flag tested against its habit'),
    ('J', 'class Field:\n    def dump(self, value):\n        if self.by_value:\n            return value.value\n        return value.name\n\n    def load(self, value):\n        if self.by_value:\n            return self.lookup(value)\n        return self.named(value)\n',
     'if self.by_value:\n            return self.lookup', 'if not self.by_value:\n            return self.lookup', 'a flag tested against its habit'),
    ('J', 'def set_attrs(self, value):\n    self.fore = value & 7\n    self.back = (value >> 4) & 7\n    self.style = value & (BRIGHT | DIM)\n',
     'self.fore = value & 7', 'self.fore = value | 7', 'a constant combined against its habit'),
    ('J', 'def valid(hour, minutes, seconds):\n    ok = 0 <= minutes <= 59 and 0 <= seconds <= 59\n    return ok and 0 <= hour <= 23 and len(minutes) < 3\n',
     '0 <= hour', '0 < hour', 'a constant combined against its habit'),
    ('J', 'def index(self, value):\n    if self._step > 0:\n        q, r = divmod(value - self._start, self._step)\n    else:\n        q, r = divmod(self._start - value, -self._step)\n    return q + 1, r\n',
     'value - self._start', 'value + self._start', 'two operands combined against their habit'),
    ('J', 'class Links:\n    def __contains__(self, key):\n        return key in self.data\n\n    def remove(self, key):\n        if key not in self.data:\n            raise KeyError(key)\n',
     'key in self', 'key not in self', 'a protocol method answering the opposite'),
    ('J', 'def item(self, index):\n    part = self.parts[index]\n    if len(part) == 1:\n        return part[0]\n    return part\n',
     'len(part) == 1', 'len(part) == 2', 'a length test whose block reads fewer elements than it counts'),
    ('K', 'def pipe(data, *funcs):\n    for func in funcs:\n        data = func(data)\n    return data\n',
     'return data', 'return func', 'a loop variable read after its loop'),
    ('K', 'MS = 1000\n\ndef from_ms(value):\n    return value / 1000\n\ndef to_ms(value):\n    return value * MS\n',
     'value / 1000', 'value / 1001', 'a round constant made unround'),
    ('K', 'def incomplete(args, param):\n    last = None\n    for arg in args:\n        last = arg\n    return last is not None and last in param.opts\n',
     'last is not None and', 'last is None and', 'a guard that then reads the value'),
    ('K', 'def init(self, by_value=False):\n    if by_value is False:\n        self.kind = "name"\n    else:\n        if by_value is True:\n            self.kind = "value"\n        else:\n            self.kind = by_value\n    if self.kind is not None:\n        self.ready = True\n',
     'if by_value is False:', 'if by_value is not False:', 'a test its enclosing test settles'),
    ('K', 'def getchar(echo):\n    char = sys.stdin.read(1)\n    if echo:\n        sys.stdout.write(char)\n    return char\n',
     'read(1)', 'read(0)', 'a call asked for nothing'),
    ('K', 'def ensure(errors):\n    return errors if is_error(errors) else tuple(errors)\n',
     'if is_error', 'if not is_error', 'a value passed through when its type test fails'),
    ('L', 'def partitions(iterable):\n    sequence = list(iterable)\n    n = len(sequence)\n    for i in range(1, n):\n        yield sequence[:i], (n,)\n',
     'range(1, n)', 'range(1, iterable)', 'a value used against its kind'),
    ('L', 'def reductions(f, seq, acc):\n    last = acc\n    for x in seq:\n        last = f(last, x)\n        yield last\n',
     'yield last', 'yield f', 'a value only ever read to compute itself'),
    ('L', 'def main(parser, argv):\n    args = parser.parse_args(argv)\n    if not hasattr(args, "func"):\n        parser.print_help()\n        parser.exit()\n    return args.func(args)\n',
     'if not hasattr', 'if hasattr', 'an attribute read after the guard that left when it was there'),
    ('L', 'def past(node, found):\n    if node is None or found:\n        return found\n    parent = node.parent\n    while not found and parent:\n        found, parent = match(parent), up(parent)\n    sibling = node.prev\n    while not found and sibling:\n        found, sibling = match(sibling), up(sibling)\n    return found\n',
     'while not found and sibling', 'while not found or sibling', 'a statement that no longer matches its twin'),
    ('L', 'def previous(self, ignore=()):\n    prev = [i for i in self.items if not isinstance(i, ignore)]\n    return prev[-1] if prev else None\n',
     'prev[-1] if', 'ignore[-1] if', 'a guard that no longer guards what it reads'),
    ('L', 'def split(pred, seq):\n    yes, no = [], []\n    return [yes.append(item) if pred(item) else no.append(item) for item in seq]\n\n\ndef lsplit(pred, seq):\n    yes, no = [], []\n    for item in seq:\n        if pred(item):\n            yes.append(item)\n        else:\n            no.append(item)\n    return yes, no\n',
     'if pred(item):', 'if not pred(item):', 'a conditional whose twin tests otherwise'),
    ('M', 'def escape(ident):\n    string = []\n    for index, c in enumerate(ident):\n        if c == "-":\n            string.append("\\\\" + c)\n        else:\n            string.append(c)\n    return "".join(string)\n',
     'string.append(c)', 'string.append(index)', 'a number put into text'),
    ('M', 'class Bool:\n    def __eq__(self, other):\n        if not isinstance(other, bool):\n            return NotImplemented\n        return other == self._value\n',
     'if not isinstance', 'if isinstance', 'NotImplemented for the very type a method handles'),
    ('M', 'def select_one(self, tag):\n    tags = self.select(tag, limit=1)\n    return tags[0] if tags else None\n',
     'tags[0]', 'tags[1]', 'an index past a non-empty guard'),
    ('M', 'def ends_with_whitespace(it):\n    return len(it) > 0 and isinstance(it[-1], Whitespace)\n',
     'it[-1]', 'it[-2]', 'an index past a non-empty guard'),
    ('S', 'def clamp(value, floor=None, ceil=None):\n    if floor is not None and value < floor:\n        value = floor\n    elif ceil is not None and value > ceil:\n        value = ceil\n    return value\n',
     'elif ceil is not None and value', 'elif value', 'a value that defaults to None, used unguarded'),
    ('S', 'class From:\n    def __init__(self, name, module, real_name=None):\n        self.real_name = real_name or name\n        super().__init__(name, module + self.real_name)\n',
     'real_name or name', 'real_name', 'a value that defaults to None, used unguarded'),
    ('S', 'def check(self, bound):\n    if bound.low is not None and bound.value < bound.low:\n        return 1\n    elif bound.high is not None and bound.value > bound.high:\n        return 2\n    return 0\n',
     'elif bound.high is not None and bound', 'elif bound', 'a guard its twin branch keeps'),
    ('S', 'def join(dest, colls):\n    if isinstance(dest, str):\n        return "".join(colls)\n    elif isinstance(dest, dict):\n        return merge(colls)\n    elif isinstance(dest, list):\n        return flatten(colls)\n    raise TypeError(dest)\n',
     'elif isinstance(dest, list)', 'elif not isinstance(dest, list)', 'a test of a chain negated once'),
    ('S', 'class Arg:\n    def __init__(self, nargs):\n        if __debug__:\n            check_count(nargs)\n\n    def more(self, default):\n        if __debug__:\n            check_default(default)\n\n    def last(self, name):\n        if __debug__:\n            check_name(name)\n',
     'if __debug__:\n            check_default', 'if not __debug__:\n            check_default', 'a flag tested against its habit'),
    ('T', 'def colons(align, width):\n    assert width != 0\n    if align in ["right", "decimal"]:\n        return "-" * (width - 1) + ":"\n    elif align == "center":\n        return ":" + "-" * (width - 2) + ":"\n    elif align == "left":\n        return ":" + "-" * (width - 1)\n    else:\n        return "-" * width\n',
     'elif align == "left"', 'elif align != "left"', 'a test of a chain negated once'),
    ('T', 'def replace(self, idx, last, value):\n    has_ws = ends(value)\n    next_ws = idx < last and blank(self.body[idx + 1])\n    if (idx < last or value.body) and not (next_ws or has_ws):\n        value.append(None)\n',
     ' and blank(self.body[idx + 1])', '', 'a clause that cancels itself'),
    ('T', 'def partition(n, seq, pad=no_pad):\n    assert n is not None\n    args = [iter(seq)] * n\n    if pad is no_pad:\n        return zip(*args)\n    else:\n        return zip_longest(*args, fillvalue=pad)\n',
     'pad is no_pad', 'pad is not no_pad', 'a sentinel passed on where its test finds it'),
    ('T', 'class NoSuchOption:\n    def format_message(self):\n        if not self.possibilities:\n            return self.message\n        text = ", ".join(sorted(self.possibilities))\n        return self.message + text\n',
     'if not self.possibilities', 'if self.possibilities', 'an exit when the value is there, then reading it'),
    ('T', 'class Parameter:\n    def value_is_missing(self, value):\n        if value is None:\n            return True\n        if (self.nargs != 1 or self.multiple) and value == ():\n            return True\n        return False\n',
     ' or self.multiple)', ')', 'parentheses holding one operand'),
    ('U', 'def to_group(self, field, group):\n    n = 1\n    assert field not in self.taken\n    while group in self.taken:\n        n += 1\n        if "." in field:\n            group = field.replace(".", "_" * n)\n        elif "_" in field:\n            group = field.replace("_", "_" * n)\n        elif "-" in field:\n            group = field.replace("-", "_" * n)\n        else:\n            raise KeyError(field)\n    return group\n',
     'elif "_" in field', 'elif "_" not in field', 'a test of a chain negated once'),
    ('U', 'def group_arrays(tlist, match):\n    def valid_prev(t):\n        return t.ok\n\n    def valid_next(t):\n        return t.ok\n\n    def post(t):\n        return t.ok\n\n    _group(tlist, sql.Identifier, match, valid_prev, valid_next, post, extend=True)\n\n\ndef _group(tlist, cls, match, valid_prev, valid_next, post, extend=True):\n    return cls(tlist, match, extend)\n',
     'valid_prev, valid_next, post, extend', 'valid_prev, post, valid_next, extend', "arguments against the callee's own signature"),
    ('U', 'def match(match_expr):\n    prefix = match_expr[:2]\n    if prefix in (">=", "<="):\n        return 1\n    elif prefix and prefix[0] in (">", "<"):\n        return 2\n    elif match_expr and match_expr[0] in "0123456789":\n        return 3\n    return 0\n',
     'prefix and prefix[0] in (">", "<")', 'prefix', 'a branch an earlier bare test settles'),
    ('U', 'def visit(self, node):\n    for keyword in node.options:\n        self.write(f"context.eval_ctx.{keyword.key} = ")\n        self.visit(keyword.value)\n',
     'self.write(f"', 'self.write("', 'a placeholder that is never filled'),
    ('U', 'class Complement:\n    def __eq__(self, other):\n        return (type(self) is type(other) and other._included == self._included or type(other) in (set, frozenset) and self._included == other)\n',
     'type(self) is type(other) and ', '', 'a type test after the read that needs the type'),
    ('U', 'class Integer:\n    def __init__(self, strict=False):\n        self.strict = strict\n\n    def check(self, value):\n        if self.strict and not isinstance(value, int):\n            raise TypeError(value)\n        return int(value)\n',
     'self.strict and ', '', 'an option stored and never read'),
    ('V', 'def iter_entries(root, on_error=None, follow=None):\n    if on_error is not None and not callable(on_error):\n        raise TypeError(f"on_error:{on_error!r} is not callable.")\n    return walk(root, on_error, follow)\n',
     'on_error is not None and not callable', 'not callable', "a parameter's own default rejected"),
    ('V', 'def _type(string, has_invisible=True, numparse=True):\n    if string is None:\n        return None\n    elif isinstance(string, bytes):\n        return bytes\n    elif numparse and is_number(string):\n        return float\n    return str\n',
     'isinstance(string, bytes)', 'isinstance(numparse, bytes)', 'a flag tested for a type'),
    ('V', 'def natural_list(items):\n    if len(items) == 2:\n        return f"{str(items[0])} and {str(items[1])}"\n    return ", ".join(str(i) for i in items[:-1]) + f" and {str(items[-1])}"\n',
     '+ f" and', '+ " and', 'a placeholder that is never filled'),
    ('W', 'def count(seq):\n    if hasattr(seq, "__len__"):\n        return len(seq)\n    return sum(1 for i in seq)\n',
     'sum(1 for', 'sum(0 for', 'a count of nothing'),
    ('W', 'def select_keys(pred, coll):\n    return select(lambda pair: pred(pair[0]), coll)\n\n\ndef select_values(pred, coll):\n    return select(lambda pair: pred(pair[1]), coll)\n',
     'pred(pair[1])', 'pred(pair[0])', 'twin functions made the same'),
]


@pytest.mark.parametrize("reading, text, old, new, verdict", READING_SLIPS)
def test_each_slip_a_reading_found_is_refused_by_name(reading, text, old, new, verdict):
    assert _verdict(text, old, new) == verdict


def test_the_counts_behind_the_slips_before_any_mutation():
    plural = 'def fmt(value):\n    return 2 if 1 < value < 2 else int(value)\n'
    assert empty_ranges(ast.parse(plural)) == 0
    split = 'def partial(A, r):\n    head, tail = A[:r], A[r:]\n    return head, tail, r + 1\n'
    assert meeting_splits(ast.parse(split)) == 1
    rsub = "def __rsub__(self, other):\n    if isinstance(other, timedelta):\n        return Duration(tdelta=other)\n    if not isinstance(other, date):\n        raise TypeError(f'not a date: {other!r}')\n    return other - self\n"
    assert blocks_against_their_test(ast.parse(rsub)) == 0
