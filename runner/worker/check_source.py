#!/usr/bin/env python3
"""The source rules for Python submissions, decided without importing or running the file.

    python3 check_source.py FILE FUNCTION [--max-bytes N] [--name NAME] [--review-flags JSON]

prints one JSON object, {"ok", "error", "function", "flags"}, and exits 0 when it could decide
(the file passes, or breaks a rule: "error" is the message for the `source` rule id), 2 on bad
usage or an unreadable file. An empty FUNCTION means "the file's single top-level function".

A method file may, at import, only import modules, define functions and classes, assign constants
and set torch flags; the names that the allow-lists below trust cannot be rebound. The decisions
and the messages are those of rule set mnist-a100/1.2.0, so a user sees the same verdict from
ratchet as from that rule set's reference scorer. The review flags are advice for the human who
reads a record before it stands; they reject nothing. Standard library only: the parent runs this
file in the sandbox with Debian's python3.
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
        check_source(source, function, filename, max_bytes)
    except SourceError as problem:
        error = str(problem)
    except RecursionError:  # nesting deeper than the checker's recursion: reject, never crash
        error = f"{filename} is nested too deeply to check"
    try:
        flags = review_flags(source, max_bytes, review)
    except (SyntaxError, ValueError, RecursionError):
        flags = []
    return {"ok": error is None, "error": error, "function": function, "flags": flags}


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
        except (SyntaxError, ValueError, RecursionError):
            function = None  # the file does not parse: check_source says so, as a rule
    print(json.dumps(verdict(source, function or "", filename, args.max_bytes,
                             args.review_flags)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
