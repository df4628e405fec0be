#!/usr/bin/env python3
"""The source rules for Python submissions, decided without importing or running the file.

    python3 check_source.py FILE FUNCTION [--max-bytes N] [--name NAME] [--review-flags JSON]

prints one JSON object, {"ok", "error", "function", "flags"}, and exits 0 when it could decide
(the file passes, or breaks a rule: "error" is the message for the `source` rule id), 2 on bad
usage or an unreadable file. An empty FUNCTION means "the file's single top-level function".

A method file may, at import, only import modules, define functions and classes, assign constants
and set torch flags; the names that the allow-lists below trust cannot be rebound. Those decisions
and their messages are those of rule set mnist-a100/1.2.0, so a user sees the same verdict from
ratchet as from that rule set's reference scorer wherever it refuses a file. A file those rules
pass must then keep ratchet's own rule (class Inert): nothing the file defines may run, or be
handed to code that could run it, while it loads. Any fault of this checker while it reads a
file is a refusal too, never a crash. The review flags are advice for the human who reads a record
before it stands; they reject nothing. Standard library only: the parent runs this file in the
sandbox with Debian's python3.
"""

import os
import sys

# The method file lies in this file's folder under the name its author chose: nothing there may be
# imported in place of a module this file imports. The parent runs the interpreter isolated (-I),
# which keeps the folder off sys.path; this is the second guard, before any other import.
if sys.path and os.path.abspath(sys.path[0] or ".") == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

import argparse  # noqa: E402
import ast  # noqa: E402
import builtins  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402

MAX_SOURCE_BYTES = 20480

# Calls a file may make at import: each configures torch and reads no data.
MODULE_CALLS = frozenset({
    "torch.set_float32_matmul_precision", "torch.set_default_dtype", "torch.set_grad_enabled",
    "torch.manual_seed", "torch.use_deterministic_algorithms", "torch.set_num_threads",
    "torch.set_num_interop_threads", "torch.set_printoptions", "torch.set_flush_denormal"})
# Decorators a module-level function or class may carry, bare or called with static arguments.
DECORATORS = frozenset({
    "torch.compile", "torch.no_grad", "torch.inference_mode", "torch.jit.script", "triton.jit",
    "triton.autotune", "triton.heuristics", "functools.cache", "functools.lru_cache", "cache",
    "lru_cache", "staticmethod", "classmethod", "property", "dataclass", "dataclasses.dataclass",
    "functools.cached_property", "cached_property"})
# Calls allowed inside static expressions (decorator arguments, defaults, class attributes).
STATIC_CALLS = frozenset({"triton.Config", "dataclasses.field", "field", "torch.device"})
# Class-body methods that Python calls by itself while the module is still importing.
CLASS_HOOKS = frozenset({"__init_subclass__", "__class_getitem__", "__set_name__",
                         "__mro_entries__"})
# The first component of every allow-listed name. If a file could rebind one (say `cache = print`,
# or `def property(f): ...`), an allowed decorator would become the file's own code running at
# import; so none may be rebound, and an import may bind one only to the genuine object.
RESERVED = frozenset(name.split(".")[0] for name in DECORATORS | MODULE_CALLS | STATIC_CALLS)
# Where a `from X import name` must come from for a reserved name to be the genuine one.
FROM_IMPORTS = {"cache": "functools", "lru_cache": "functools", "cached_property": "functools",
                "dataclass": "dataclasses", "field": "dataclasses"}
# Dunder names a module or class may assign: metadata, never __name__ or an import hook.
DUNDER_DATA = frozenset({"__all__", "__version__", "__author__", "__doc__", "__slots__",
                         "__constants__"})
# Every allow-listed dotted name and each of its dotted prefixes (torch.jit, torch.jit.script):
# an assignment of a torch flag may not overwrite one of them.
PROTECTED = frozenset(".".join(name.split(".")[:end])
                      for name in DECORATORS | MODULE_CALLS | STATIC_CALLS
                      for end in range(2, name.count(".") + 2))
# Expression nodes whose evaluation cannot call into the file's code (calls are judged apart).
STATIC_NODES = (
    ast.Constant, ast.Name, ast.Attribute, ast.Subscript, ast.Slice, ast.Starred, ast.Tuple,
    ast.List, ast.Dict, ast.Set, ast.UnaryOp, ast.BinOp, ast.BoolOp, ast.Compare, ast.IfExp,
    ast.JoinedStr, ast.FormattedValue, ast.keyword, ast.expr_context, ast.operator, ast.unaryop,
    ast.boolop, ast.cmpop, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp,
    ast.comprehension)
# How a rejected statement is named in the message; other statements go by their node's name.
STATEMENT_NAMES = {
    ast.If: 'an `if` other than `if __name__ == "__main__":`', ast.For: "a loop",
    ast.AsyncFor: "a loop", ast.While: "a loop", ast.With: "a `with` block",
    ast.AsyncWith: "a `with` block", ast.AugAssign: "an augmented assignment",
    ast.Assert: "an assert", ast.Delete: "a `del`", ast.Raise: "a `raise`",
    ast.Return: "a return"}
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)

# ratchet's own rule (class Inert). Library classes a class may derive from: building a subclass
# runs only their own code (torch.autograd.Function's metaclass makes the backward class), never the
# subclass's. Any other library base may bring a metaclass or an __init_subclass__ that calls into
# the new class (enum.Enum calls its members' __new__ and __init__).
LIBRARY_BASES = frozenset({"torch.nn.Module", "torch.autograd.Function"})
# Subscripts that only build a type annotation, whatever they are given: typing's forms and the
# builtin generics (typing.Optional[Net], list[Net]).
TYPE_FORMS = frozenset({"list", "dict", "tuple", "set", "frozenset", "type"})
# The decorators a class may carry. Any other is handed the class and may call its functions:
# torch.jit.script calls the class's mro(), which the class may define.
CLASS_DECORATORS = frozenset({"dataclass", "dataclasses.dataclass"})
SETTERS = frozenset({"setter", "getter", "deleter"})
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
INERT_RULE = ("Nothing a method file defines may run, or be handed to code that could run it, "
              "while the file loads")

# Review flags: thresholds of rule set mnist-a100/1.2.0 ("review_flags" in its JSON).
REVIEW = {"blob_bytes": 512, "blob_entropy": 5.2, "hex_fraction": 0.95, "numeric_literals": 400,
          "near_limit_fraction": 0.75}
DECODERS = {"base64", "binascii", "zlib", "lzma", "bz2", "gzip", "pickle", "marshal", "struct",
            "codecs"}
REACH_OUT = {"socket", "urllib", "http", "requests", "subprocess", "ctypes", "multiprocessing",
             "shutil"}
DYNAMIC_CALLS = {"eval", "exec", "compile", "__import__", "open", "getattr"}
HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


class SourceError(Exception):
    """A broken source rule; the text is the message a user sees."""


class LoadsCode(SourceError):
    """A break of ratchet's own rule, in a file the reference scorer's rules pass."""


class AmbiguousFunction(ValueError):
    """FUNCTION was left empty, and the file has no top-level function or several."""


def dotted(node):
    """"a.b.c" for a chain of attribute reads on a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def origin(node, aliases):
    """The dotted name of `node`, read through `import x as y` / `from m import x as y` aliases."""
    name = dotted(node)
    return aliases.get(name, name)


def call_arguments(call):
    return call.args + [keyword.value for keyword in call.keywords]


def is_static(node, aliases):
    """True when evaluating `node` cannot run code of the file: constants, names, attribute reads,
    containers and operators of those, lambdas that are not called, and allow-listed calls."""
    if node is None:
        return True
    if isinstance(node, ast.Lambda):
        return all(is_static(d, aliases) for d in node.args.defaults + node.args.kw_defaults)
    if isinstance(node, ast.Call):
        return (origin(node.func, aliases) in STATIC_CALLS
                and all(is_static(a, aliases) for a in call_arguments(node)))
    if not isinstance(node, STATIC_NODES):
        return False
    return all(is_static(child, aliases) for child in ast.iter_child_nodes(node))


def decorator_allowed(node, aliases, properties=frozenset()):
    """An allow-listed decorator, bare or called with static arguments, or `@x.setter` (getter,
    deleter) for a property `x` defined in the same class."""
    if isinstance(node, ast.Call):
        return (origin(node.func, aliases) in DECORATORS
                and all(is_static(a, aliases) for a in call_arguments(node)))
    if isinstance(node, ast.Attribute) and node.attr in {"setter", "getter", "deleter"}:
        return isinstance(node.value, ast.Name) and node.value.id in properties
    return origin(node, aliases) in DECORATORS


def signature_static(args, aliases):
    """Defaults and annotations are evaluated when `def` runs, at import: they must be static."""
    annotations = [a.annotation for a in args.posonlyargs + args.args + args.kwonlyargs]
    annotations += [args.vararg and args.vararg.annotation, args.kwarg and args.kwarg.annotation]
    return (all(is_static(d, aliases) for d in args.defaults + args.kw_defaults)
            and all(is_static(a, aliases) for a in annotations if a is not None))


def bindable(name):
    """A name the file may bind at module or class level: dunder metadata only, and nothing the
    allow-lists trust."""
    if name.startswith("__"):
        return name in DUNDER_DATA
    return name not in RESERVED


def constant_only(node):
    """Built from constants, constant containers and operators only: the value of a torch flag."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(constant_only(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(constant_only(e) for e in node.keys + node.values if e is not None)
    if isinstance(node, (ast.UnaryOp, ast.BinOp, ast.BoolOp)):
        return all(constant_only(c) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr))
    return False


def torch_flag(target):
    """A target such as `torch.backends.cudnn.benchmark`, which is not an allow-listed name."""
    name = dotted(target)
    return bool(name) and name.startswith("torch.") and name not in PROTECTED


def torch_setting(name):
    """ratchet's rule, stricter than the reference's torch flag: a setting under torch.backends or
    of one of torch's config modules (`torch._dynamo.config.cache_size_limit`), never an attribute
    of a class or a function of torch (`torch.Tensor.argmin = None` changes what the harness's own
    torch does)."""
    parts = name.split(".")
    if parts[0] != "torch":
        return True
    # torch.backends.cudnn.benchmark, not torch.backends.cudnn itself (a module the harness uses)
    if parts[1] == "backends":
        return len(parts) >= 4
    # torch._dynamo.config.x or torch.fx.experimental._config.x: a config module's setting
    return any(part == "config" or part.endswith("_config") for part in parts[2:-1])


def target_allowed(target, value):
    if isinstance(target, ast.Name):
        if target.id in RESERVED:  # only `name = None`, the fallback of an optional import
            return isinstance(value, ast.Constant) and value.value is None
        return bindable(target.id)
    if isinstance(target, (ast.Tuple, ast.List)):
        return all(isinstance(t, ast.Name) and bindable(t.id) and t.id not in RESERVED
                   for t in target.elts)
    return torch_flag(target) and constant_only(value)


def main_guard(node):
    """`if __name__ == "__main__":` without `else`: an import never runs its body."""
    test = node.test
    if (node.orelse or not isinstance(test, ast.Compare) or len(test.ops) != 1
            or not isinstance(test.ops[0], ast.Eq)):
        return False
    sides = (test.left, test.comparators[0])
    return (any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides)
            and any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides))


def type_checking(test):
    return dotted(test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def import_aliases(tree):
    """{bound name: dotted origin} for the module's top-level imports, so that after
    `from dataclasses import field as f`, a call `f(...)` is judged as `dataclasses.field(...)`."""
    aliases = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            aliases.update((a.asname, a.name) for a in node.names if a.asname)
        elif isinstance(node, ast.ImportFrom) and node.module:
            aliases.update((a.asname or a.name, f"{node.module}.{a.name}") for a in node.names)
    return aliases


class Checker:
    """Walks the statements a module import executes, raising SourceError at the first one that
    could run code of the file."""

    def __init__(self, filename, aliases):
        self.filename, self.aliases = filename, aliases

    def reject(self, node, what, where):
        hint = ""
        if isinstance(node, (ast.Expr, ast.If, ast.For, ast.While, ast.With)):
            hint = ("; move the work inside your function, and put a scoring call such as "
                    "print(mnist.score(...)) under `if __name__ == \"__main__\":`")
        raise SourceError(
            f"{self.filename} line {node.lineno}: {what} at {where} level. At import a method file "
            "may only import, define functions and classes, assign constants and set torch flags"
            + hint)

    def statement(self, node, where, properties=frozenset()):
        aliases = self.aliases
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return self.imports(node, where)
        if isinstance(node, ast.Pass):
            return
        if isinstance(node, ast.Expr):
            return self.expression(node, where)
        if isinstance(node, FUNCTIONS):
            return self.function(node, where, properties)
        if isinstance(node, ast.ClassDef):
            return self.class_def(node, where)
        if isinstance(node, ast.Assign):
            if (all(target_allowed(t, node.value) for t in node.targets)
                    and is_static(node.value, aliases)):
                return
            names = ", ".join(dotted(t) or "?" for t in node.targets)
            self.reject(node, f"an assignment to {names} that runs code or rebinds a protected "
                        "name", where)
        if isinstance(node, ast.AnnAssign):
            if (target_allowed(node.target, node.value) and is_static(node.value, aliases)
                    and is_static(node.annotation, aliases)):
                return
            self.reject(node, f"an assignment to {dotted(node.target)} that runs code or rebinds "
                        "a protected name", where)
        if isinstance(node, ast.If) and where == "module" and main_guard(node):
            return
        if isinstance(node, ast.If) and type_checking(node.test) and not node.orelse:
            for inner in node.body:  # checked like any other statement: its body runs too
                self.statement(inner, where, properties)
            return
        if isinstance(node, ast.Try) and where == "module":
            return self.try_block(node)
        self.reject(node, STATEMENT_NAMES.get(type(node), type(node).__name__), where)

    def imports(self, node, where):
        for alias in node.names:
            bound = alias.asname or alias.name.split(".")[0]
            if bound.startswith("__"):
                self.reject(node, f"an import that binds the dunder name {bound}", where)
            if bound in RESERVED:
                if isinstance(node, ast.Import):
                    genuine = alias.name.split(".")[0] == bound
                else:
                    genuine = FROM_IMPORTS.get(bound) == node.module and alias.name == bound
                if not genuine:
                    self.reject(node, f"an import that rebinds {bound}, which the scorer's "
                                "allow-list trusts", where)

    def expression(self, node, where):
        value = node.value
        if isinstance(value, ast.Constant):
            return  # a docstring
        if isinstance(value, ast.Call) and dotted(value.func) in MODULE_CALLS:
            if all(is_static(a, self.aliases) for a in call_arguments(value)):
                return
        name = dotted(value.func) if isinstance(value, ast.Call) else None
        self.reject(node, f"a call to {name}" if name else "a call", where)

    def function(self, node, where, properties):
        if node.name in RESERVED or (where == "module" and node.name.startswith("__")):
            self.reject(node, f"a function named {node.name}, which the scorer's allow-list "
                        "trusts", where)
        for decorator in node.decorator_list:
            if not decorator_allowed(decorator, self.aliases, properties):
                shown = dotted(decorator.func if isinstance(decorator, ast.Call) else decorator)
                line = getattr(decorator, "lineno", node.lineno)
                raise SourceError(f"{self.filename} line {line}: the decorator {shown} is not on "
                                  f"the allow-list {sorted(DECORATORS)}")
        if not signature_static(node.args, self.aliases) or not is_static(node.returns,
                                                                           self.aliases):
            self.reject(node, "a default value or annotation that runs code", where)

    def class_def(self, node, where):
        aliases = self.aliases
        if not bindable(node.name):
            self.reject(node, f"a class named {node.name}, which the scorer's allow-list trusts",
                        where)
        if node.keywords or not all(is_static(b, aliases) for b in node.bases):
            self.reject(node, "a class with keywords or computed bases", where)
        if not all(decorator_allowed(d, aliases) for d in node.decorator_list):
            self.reject(node, "a class decorator that is not on the allow-list", where)
        # Properties defined in this class body, whose @x.setter (getter, deleter) is allowed.
        properties = {m.name for m in node.body if isinstance(m, FUNCTIONS)
                      and any(decorator_allowed(d, aliases) and dotted(d) == "property"
                              for d in m.decorator_list)}
        for inner in node.body:
            if isinstance(inner, FUNCTIONS) and inner.name in CLASS_HOOKS:
                self.reject(node, f"{inner.name}, which runs when the class is subscripted or "
                            "subclassed,", where)
            self.statement(inner, "class", properties)

    def try_block(self, node):
        if not all(h.type is None or is_static(h.type, self.aliases) for h in node.handlers):
            self.reject(node, "an exception handler that runs code", "module")
        if not all(h.name is None or bindable(h.name) for h in node.handlers):
            self.reject(node, "an exception handler that binds a protected name", "module")
        for block in (node.body, node.orelse, node.finalbody, *[h.body for h in node.handlers]):
            for inner in block:
                self.statement(inner, "module")


def target_names(target):
    """The names an assignment or loop target binds (an attribute or a subscript binds none)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Starred):
        return target_names(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in target_names(element)]
    return []


class Inert:
    """ratchet's own rule, checked once the reference scorer's rules pass: nothing the file defines
    may run, or be handed to code that could run it, while it loads.

    The reference rules already keep the calls at import to an allow-list. What remains are the
    paths by which Python or a library calls code of the file without a call in the source: a
    metaclass or __init_subclass__ of a base (enum.Enum builds its members), a class hook the
    reference misses inside an `if` block, a class decorator handed the class, a descriptor under
    classmethod (a property read on the class), a rebound name in @x.setter or behind an import
    alias, a decorator factory given a function to call, wrap or register, `**` unpacking (it
    calls keys()), and a library's operator or subscript handed a class or function of the file.
    Closing those keeps two facts true while the file loads: no object of a class of the file
    exists (no call makes one, and no base builds one), and no class of the file has a metaclass
    of the file's. So every operator, comparison, attribute read, f-string and subscript the
    reference rules allow runs Python's or a library's code on Python's or a library's objects,
    never the file's.
    """

    def __init__(self, filename, tree, aliases):
        self.filename, self.aliases = filename, aliases
        self.bindings = {}  # name -> [(kind, node, value)], module and class level alike
        self.collect(tree.body, "module")
        self.taint_memo, self.data_memo = {}, {}

    def reject(self, node, what, where, why):
        raise LoadsCode(f"{self.filename} line {node.lineno}: {what} at {where} level: {why}. "
                        f"{INERT_RULE}")

    # What each name may be bound to, from every binding at module and class level (a class body
    # reads its own names first, then the module's: taking them together is on the safe side).
    def bind(self, name, kind, node, value=None):
        self.bindings.setdefault(name, []).append((kind, node, value))

    def collect(self, body, where):
        for node in body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    if isinstance(node, ast.Import):
                        bound = alias.asname or alias.name.split(".")[0]
                        self.bind(bound, "import", node, alias.name if alias.asname else bound)
                    elif alias.name != "*":
                        source = node.module and not node.level and f"{node.module}.{alias.name}"
                        self.bind(alias.asname or alias.name, "import", node, source or None)
            elif isinstance(node, FUNCTIONS):
                self.bind(node.name, "def", node)
            elif isinstance(node, ast.ClassDef):
                self.bind(node.name, "class", node)
                self.collect(node.body, "class")
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    self.bind_target(target, node.value, node)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                self.bind_target(node.target, node.value, node)
            elif isinstance(node, ast.Try):
                for handler in node.handlers:
                    if handler.name:
                        self.bind(handler.name, "except", handler)
                for block in (node.body, node.orelse, node.finalbody,
                              *[h.body for h in node.handlers]):
                    self.collect(block, where)
            elif isinstance(node, ast.If) and not (where == "module" and main_guard(node)):
                self.collect(node.body + node.orelse, where)

    def bind_target(self, target, value, node):
        if isinstance(target, ast.Name):
            self.bind(target.id, "assign", node, value)
        elif (isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List))
              and len(target.elts) == len(value.elts)
              and not any(isinstance(e, ast.Starred) for e in target.elts + value.elts)):
            for element, part in zip(target.elts, value.elts):
                self.bind_target(element, part, node)
        else:  # unpacking of something else, or an attribute (a torch flag), which binds no name
            for name in target_names(target):
                self.bind(name, "unpack", node, value)

    def imported(self, name):
        """The dotted origin of `name` when imports of one origin are its only bindings (besides
        `name = None`, the fallback of an optional import); else None."""
        sources = set()
        for kind, _, value in self.bindings.get(name, ()):
            if kind == "import" and value:
                sources.add(value)
            elif not (kind == "assign" and isinstance(value, ast.Constant) and value.value is None):
                return None
        return sources.pop() if len(sources) == 1 else None

    def library_name(self, node):
        """The dotted name `node` reads, its first part read through its import; None otherwise."""
        name = dotted(node)
        source = self.imported(name.split(".")[0]) if name else None
        return source and ".".join([source] + name.split(".")[1:])

    def tainted(self, node, local):
        """Whether `node` may evaluate to a function, class or lambda of the file, or to something
        holding one. `local` maps the comprehension variables in scope to the same question."""
        if isinstance(node, ast.Lambda):
            return True
        if isinstance(node, (ast.Constant, ast.JoinedStr)):
            return False
        if isinstance(node, ast.Name):
            return local[node.id] if node.id in local else self.name_tainted(node.id)
        if isinstance(node, COMPREHENSIONS):
            local = dict(local)
            for generator in node.generators:
                held = self.tainted(generator.iter, local)
                local.update((name, held) for name in target_names(generator.target))
            results = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            return any(self.tainted(result, local) for result in results)
        return any(self.tainted(child.value if isinstance(child, ast.keyword) else child, local)
                   for child in ast.iter_child_nodes(node)
                   if isinstance(child, (ast.expr, ast.keyword)))

    def name_tainted(self, name):
        if name not in self.taint_memo:
            self.taint_memo[name] = True  # bound through itself: assume the worst
            self.taint_memo[name] = any(
                kind in ("def", "class") or (kind in ("assign", "unpack")
                                             and self.tainted(value, {}))
                for kind, _, value in self.bindings.get(name, ()))
        return self.taint_memo[name]

    def inert(self, node):
        """Whether a decorator argument is plain data, which no decorator can call: constants,
        f-strings, a static call such as triton.Config(...), literal lists, tuples and sets (and
        comprehensions) that hold nothing of the file, literal dicts whose keys hold nothing of the
        file (their values may: @triton.heuristics takes a dict of lambdas, to call at launch),
        operators on such values, and names assigned only such values."""
        if isinstance(node, (ast.Constant, ast.JoinedStr, ast.Call)):
            return True
        if isinstance(node, ast.Dict):
            return not any(self.tainted(key, {}) for key in node.keys if key is not None)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set, *COMPREHENSIONS)):
            return not isinstance(node, ast.GeneratorExp) and not self.tainted(node, {})
        if isinstance(node, ast.Name):
            return self.data_name(node.id)
        if isinstance(node, ast.IfExp):
            return self.inert(node.body) and self.inert(node.orelse)
        if isinstance(node, (ast.UnaryOp, ast.BinOp, ast.BoolOp, ast.Compare)):
            return all(self.inert(c) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr))
        return False

    def data_name(self, name):
        if name not in self.data_memo:
            self.data_memo[name] = False
            bindings = self.bindings.get(name, ())
            self.data_memo[name] = bool(bindings) and all(
                kind == "assign" and self.inert(value) for kind, _, value in bindings)
        return self.data_memo[name]

    # The statements an import runs, in order.
    def block(self, body, where, latest=None):
        latest = {} if latest is None else latest  # class level: the statement last binding a name
        for node in body:
            self.statement(node, where, latest)
            if where == "class":
                names = [a.asname or a.name.split(".")[0] for a in getattr(node, "names", ())]
                if isinstance(node, (*FUNCTIONS, ast.ClassDef)):
                    names = [node.name]
                elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    names = [name for target in targets for name in target_names(target)]
                latest.update((name, node) for name in names)

    def statement(self, node, where, latest):
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            self.reject(node, f"a star import (from {node.module} import *)", where,
                        "the names it binds cannot be checked; import the names you use")
        elif isinstance(node, ast.Expr):
            self.expression(node.value, where)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                name = dotted(target) if isinstance(target, ast.Attribute) else None
                if name and any(part.startswith("__") for part in name.split(".")):
                    self.reject(node, f"an assignment to {name}", where,
                                "a dunder attribute is no torch flag")
                if name and not torch_setting(name):
                    self.reject(node, f"an assignment to {name}", where,
                                "only a setting under torch.backends or of a config module is a "
                                "torch flag, not a class's attribute or a function of torch")
            self.expression(node.value, where)
            self.expression(getattr(node, "annotation", None), where)
        elif isinstance(node, FUNCTIONS):
            self.function(node, where, latest)
        elif isinstance(node, ast.ClassDef):
            self.class_def(node, where)
        elif isinstance(node, ast.Try):
            for handler in node.handlers:
                self.expression(handler.type, where)
            for block in (node.body, *[h.body for h in node.handlers], node.orelse, node.finalbody):
                self.block(block, where)
        elif isinstance(node, ast.If) and not (where == "module" and main_guard(node)):
            self.block(node.body, where, latest)  # an `if TYPE_CHECKING:` block

    def function(self, node, where, latest):
        if where == "class" and node.name in CLASS_HOOKS:  # the reference looks only one level down
            self.reject(node, f"the method {node.name}, inside a block of the class body,", where,
                        "Python calls it when the class is subclassed or subscripted")
        last = len(node.decorator_list) - 1
        for index, decorator in enumerate(node.decorator_list):
            self.decorator(decorator, where, latest)
            called = decorator.func if isinstance(decorator, ast.Call) else decorator
            if origin(called, self.aliases) == "classmethod" and index != last:
                self.reject(decorator, f"@classmethod over another decorator on {node.name}", where,
                            "classmethod may only wrap a plain function (over a property, "
                            "reading the attribute on the class runs it)")
        args = node.args
        for value in (args.defaults + args.kw_defaults + [node.returns]
                      + [a.annotation for a in args.posonlyargs + args.args + args.kwonlyargs]
                      + [args.vararg and args.vararg.annotation,
                         args.kwarg and args.kwarg.annotation]):
            self.expression(value, where)

    def decorator(self, node, where, latest):
        if (isinstance(node, ast.Attribute) and node.attr in SETTERS
                and isinstance(node.value, ast.Name)):
            name = node.value.id
            before = latest.get(name)
            first = (before.decorator_list or [None])[0] if isinstance(before, FUNCTIONS) else None
            # The property itself, or what an earlier (checked) @x.setter made of it.
            if not (dotted(first) == "property" or (isinstance(first, ast.Attribute)
                                                    and first.attr in SETTERS)):
                self.reject(node, f"@{name}.{node.attr}", where,
                            f"{name} is not the property defined just before it")
            return
        called = node.func if isinstance(node, ast.Call) else node
        self.alias(called, where)
        if isinstance(node, ast.Call):
            self.unpacking(node, where)
            for argument in call_arguments(node):
                if not self.inert(argument):
                    self.reject(argument, f"an argument of the decorator {dotted(called)} that is "
                                "not plain data", where, "a decorator may call, wrap or register "
                                "what it is given, so its arguments may only be constants, "
                                "triton.Config(...), literal lists, tuples, sets and dicts that "
                                "hold nothing of the file but as a dict's values, and names "
                                "assigned only such values")
                self.expression(argument, where)

    def class_def(self, node, where):
        for base in node.bases:
            bindings = self.bindings.get(base.id, ()) if isinstance(base, ast.Name) else None
            if bindings == ():
                allowed = isinstance(getattr(builtins, base.id, None), type)
            elif bindings and len(bindings) == 1 and bindings[0][0] == "class":
                allowed = True  # a class of the file, itself held to these rules
            else:
                allowed = self.library_name(base) in LIBRARY_BASES
            if not allowed:
                self.reject(base, f"the base {dotted(base) or ast.unparse(base)} of class "
                            f"{node.name}", where, "a class may derive only from object, a builtin "
                            "class, torch.nn.Module, torch.autograd.Function or a class of the "
                            "file; another base may bring a metaclass or __init_subclass__ that "
                            "runs the class's code, as enum.Enum does")
        for decorator in node.decorator_list:
            called = decorator.func if isinstance(decorator, ast.Call) else decorator
            if origin(called, self.aliases) not in CLASS_DECORATORS:
                self.reject(decorator, f"the decorator {dotted(called)} on class {node.name}",
                            where, "a class may carry only @dataclass, which builds it; another "
                            "decorator is handed the class and may call its functions, as "
                            "torch.jit.script calls its mro()")
            self.decorator(decorator, where, {})
        self.block(node.body, "class")

    def type_form(self, node):
        """typing.Optional, Tuple (imported from typing), list, dict...: a subscript of one builds
        an annotation from what it is given, never calling it."""
        if isinstance(node, ast.Name) and not self.bindings.get(node.id):
            return node.id in TYPE_FORMS
        return (self.library_name(node) or "").startswith("typing.")

    def alias(self, called, where):
        """A decorator or call recognised through an import alias: the import must be the alias's
        only binding, or the allow-list would trust whatever the file bound it to."""
        name = dotted(called)
        if name in self.aliases and self.imported(name) is None:
            self.reject(called, f"{name}, which names {self.aliases[name]} through an import but "
                        "is bound again,", where, "a name that the allow-lists read through an "
                        "import may be bound only by that import")

    def unpacking(self, call, where):
        if (any(isinstance(a, ast.Starred) for a in call.args)
                or any(k.arg is None for k in call.keywords)):
            self.reject(call, f"`*` or `**` unpacking in the call of {dotted(call.func)}", where,
                        "`**` calls the unpacked object's keys()")

    def expression(self, node, where, local=None):
        """An expression the import evaluates, one that the reference rules found static."""
        if node is None:
            return
        local = local or {}
        if isinstance(node, ast.Lambda):  # only its defaults run now
            for default in node.args.defaults + node.args.kw_defaults:
                self.expression(default, where, local)
            return
        if isinstance(node, ast.Dict) and None in node.keys:
            self.reject(node, "`**` unpacking in a dict", where,
                        "it calls the unpacked object's keys()")
        if isinstance(node, ast.Call):
            self.alias(node.func, where)
            self.unpacking(node, where)
        operands = []
        if isinstance(node, ast.BinOp):
            operands = [node.left, node.right]
        elif isinstance(node, ast.Compare) and not all(isinstance(op, (ast.Is, ast.IsNot))
                                                       for op in node.ops):
            operands = [node.left, *node.comparators]  # `is` compares identities, calling nothing
        elif isinstance(node, ast.Subscript) and not self.type_form(node.value):
            operands = [node.slice]
        for operand in operands:
            if self.tainted(operand, local):
                what = {ast.BinOp: "an operator", ast.Compare: "a comparison",
                        ast.Subscript: "a subscript"}[type(node)]
                self.reject(node, f"{what} given a function, class or lambda of the file", where,
                            "the other side may be a library's code, which could call it")
        if isinstance(node, COMPREHENSIONS):
            local = dict(local)
            for generator in node.generators:
                self.expression(generator.iter, where, local)
                held = self.tainted(generator.iter, local)
                local.update((name, held) for name in target_names(generator.target))
                for condition in generator.ifs:
                    self.expression(condition, where, local)
            results = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            for result in results:
                self.expression(result, where, local)
            return
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.expr, ast.keyword)):
                self.expression(child.value if isinstance(child, ast.keyword) else child, where,
                                local)


def parse(source, filename):
    try:
        return ast.parse(source)
    except SyntaxError as error:
        raise SourceError(f"{filename} does not parse: {error}") from None
    except ValueError as error:  # null bytes, on Python versions that do not call it a SyntaxError
        raise SourceError(f"{filename} does not parse: {error}") from None


def check_source(source, function, filename="the method file", max_bytes=MAX_SOURCE_BYTES):
    """Raise SourceError unless `source` (bytes) is at most `max_bytes`, inert at import, and
    defines `function` at its top level."""
    if len(source) > max_bytes:
        raise SourceError(f"{filename} is {len(source):,} bytes; the limit is {max_bytes:,}, "
                          "so a method cannot carry a trained model or the dataset with it")
    tree = parse(source, filename)
    checker = Checker(filename, import_aliases(tree))
    for node in tree.body:
        checker.statement(node, "module")
    if not any(isinstance(n, FUNCTIONS) and n.name == function for n in tree.body):
        raise SourceError(f"{filename} does not define {function}() at the top level")
    Inert(filename, tree, checker.aliases).block(tree.body, "module")


def single_function(source, path):
    """The name of the file's only top-level function, as `file.py` without `:function` means;
    AmbiguousFunction when there are none or several, SyntaxError when it does not parse."""
    tree = ast.parse(source)
    names = [n.name for n in tree.body if isinstance(n, FUNCTIONS)]
    if len(names) != 1:
        raise AmbiguousFunction(f"{path} defines {len(names)} top-level functions; name one as "
                         f"{path}:function")
    return names[0]


def bits_per_character(text):
    counts = [text.count(c) for c in sorted(set(text))]
    return -sum(c / len(text) * math.log2(c / len(text)) for c in counts) if text else 0.0


def review_flags(source, max_bytes=MAX_SOURCE_BYTES, review=None):
    """What a reviewer should read before a record stands: string literals that look like data
    (512+ characters at 5.2+ bits per character, or nearly all hex digits; prose and code sit at
    4.1-4.8 bits, base64 near 6), hundreds of numeric literals, decoders, imports that reach out
    of the process, dynamic code, and a size close to the limit."""
    review = dict(REVIEW, **(review or {}))
    tree = ast.parse(source)
    blobs, numbers, imports, calls = [], 0, set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
            if len(node.value) < review["blob_bytes"]:
                continue
            value = node.value if isinstance(node.value, str) else node.value.decode("latin-1")
            text = "".join(value.split())
            hex_digits = sum(c in HEX_DIGITS for c in text)
            if (bits_per_character(text) >= review["blob_entropy"]
                    or hex_digits >= review["hex_fraction"] * max(1, len(text))):
                blobs.append(len(node.value))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, (int, float))
              and not isinstance(node.value, bool)):
            numbers += 1
        elif isinstance(node, ast.Import):
            imports.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imports.add(node.module.split(".")[0])
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in DYNAMIC_CALLS):
            calls.add(node.func.id)
    flags = []
    if blobs:
        flags.append(f"embedded data? {len(blobs)} high-entropy literal(s), {sum(blobs):,} "
                     "characters")
    if numbers >= review["numeric_literals"]:
        flags.append(f"embedded weights? {numbers:,} numeric literals")
    for kind, found in (("decodes data", imports & DECODERS),
                        ("reaches outside the process", imports & REACH_OUT)):
        if found:
            flags.append(f"{kind}: imports {', '.join(sorted(found))}")
    if calls:
        flags.append(f"dynamic code or files: calls {', '.join(sorted(calls))}")
    if len(source) > review["near_limit_fraction"] * max_bytes:
        flags.append(f"{len(source):,} bytes, close to the {max_bytes:,}-byte limit")
    return flags


def verdict(source, function, filename, max_bytes=MAX_SOURCE_BYTES, review=None):
    """The CLI's answer as a dict. Review flags are listed whenever the file parses."""
    error = None
    try:
        if function and not ascii_identifier(function):
            shown = json.dumps(function, ensure_ascii=False)
            raise SourceError(f"{filename}'s function is named {shown}; a function is named with "
                              "A-Z a-z 0-9 _ only, not starting with a digit (rename it)")
        check_source(source, function, filename, max_bytes)
    except SourceError as problem:
        error = str(problem)
    except (RecursionError, MemoryError):  # nesting deeper than the parser or the checker can go
        error = f"{filename} is nested too deeply to check"
    except Exception as fault:  # noqa: BLE001  a fault of the checker refuses the file: no crash
        error = f"{filename} could not be checked ({type(fault).__name__}: {fault})"
    try:
        flags = review_flags(source, max_bytes, review)
    except Exception:  # noqa: BLE001  a file that does not parse, or nests too deeply, has none
        flags = []
    return {"ok": error is None, "error": valid_text(error), "function": valid_text(function),
            "flags": [valid_text(flag) for flag in flags]}


def ascii_identifier(name):
    """A function name ratchet shows and keeps: ASCII letters, digits and '_', not starting with a
    digit (Python would also take other letters, and read some as others: NFKC)."""
    return name.isascii() and name.isidentifier() and len(name) <= 255


def valid_text(text):
    """`text` with lone surrogates (a string constant's escapes, quoted in a message) replaced by
    U+FFFD: the scorer reads the answer as UTF-8 JSON, and a verdict it cannot read is none."""
    if text is None:
        return None
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="check_source.py", description="Check a Python method file against the source "
        "rules without running it; prints one JSON object.")
    parser.add_argument("file")
    parser.add_argument("function", help='the method\'s name; "" for the single top-level one')
    parser.add_argument("--max-bytes", type=int, default=MAX_SOURCE_BYTES)
    parser.add_argument("--name", help="the file name messages use (default: FILE's base name)")
    parser.add_argument("--review-flags", type=json.loads, default=None, metavar="JSON",
                        help="the rule set's review_flags object")
    args = parser.parse_args(argv)
    if args.max_bytes < 1:
        parser.error("--max-bytes must be positive")
    if args.review_flags is not None and (not isinstance(args.review_flags, dict)
                                          or set(args.review_flags) - set(REVIEW)):
        parser.error(f"--review-flags must be an object with keys among {sorted(REVIEW)}")
    try:
        with open(args.file, "rb") as handle:
            source = handle.read()
    except OSError as error:
        print(f"check_source.py: error: cannot read {args.file}: {error.strerror}",
              file=sys.stderr)
        return 2
    filename = args.name or os.path.basename(args.file)
    function = args.function
    if not function:
        try:
            function = single_function(source, args.file)
        except AmbiguousFunction as error:
            print(f"check_source.py: error: {error}", file=sys.stderr)
            return 2
        except Exception:  # noqa: BLE001  the file does not parse: check_source says so, as a rule
            function = None
    print(json.dumps(verdict(source, function or "", filename, args.max_bytes,
                             args.review_flags)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
