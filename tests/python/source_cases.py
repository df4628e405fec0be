"""Method-file snippets covering each source rule and review flag, shared by the unit test of
check_source.py and its differential test against the reference scorer.

Each case is (name, source text, function, passes). In CASES, `passes` is what both rule set
mnist-a100/1.2.0 and ratchet decide, written down by hand so that the unit test pins it even where
the reference is absent. STRICTER_CASES are files the reference passes although loading them runs
code of the file (or hands it to code that may run it); ratchet's own rule refuses every one.
"""

import random

METHOD = "def method(train_x, train_y, test_x):\n    return test_x[:, 0].long()\n"


def _blob(alphabet, length, seed):
    chooser = random.Random(seed)
    return "".join(chooser.choice(alphabet) for _ in range(length))


CASES = [
    # imports
    ("plain method", "import torch\n\n\n" + METHOD, "method", True),
    ("docstring and pass", '"""doc"""\npass\n' + METHOD, "method", True),
    ("import mnist for the main block", "import mnist\nimport torch\n" + METHOD, "method", True),
    ("import torch.nn as nn", "import torch.nn as nn\n" + METHOD, "method", True),
    ("import numpy as torch", "import numpy as torch\n" + METHOD, "method", False),
    ("from functools import cache", "from functools import cache\n" + METHOD, "method", True),
    ("from functools import lru_cache as cache",
     "from functools import lru_cache as cache\n" + METHOD, "method", False),
    ("from mylib import field", "from mylib import field\n" + METHOD, "method", False),
    ("import binds a dunder", "import os as __builtins__\n" + METHOD, "method", False),
    ("from __future__ import annotations",
     "from __future__ import annotations\n" + METHOD, "method", True),
    ("relative import of a trusted name", "from . import torch\n" + METHOD, "method", True),
    # module-level calls and expressions
    ("print at import", "print('hi')\n" + METHOD, "method", False),
    ("torch.manual_seed constant", "import torch\ntorch.manual_seed(0)\n" + METHOD, "method", True),
    ("torch.manual_seed computed", "import torch\ntorch.manual_seed(len('ab'))\n" + METHOD,
     "method", False),
    ("matmul precision", "import torch\ntorch.set_float32_matmul_precision('high')\n" + METHOD,
     "method", True),
    ("aliased module call", "import torch as t\nt.manual_seed(0)\n" + METHOD, "method", False),
    ("bare name expression", "x = 1\nx\n" + METHOD, "method", False),
    ("walrus expression", "(y := 3)\n" + METHOD, "method", False),
    ("torch.zeros at import", "import torch\nW = torch.zeros(3)\n" + METHOD, "method", False),
    ("torch.device at import", "import torch\nDEV = torch.device('cuda')\n" + METHOD, "method",
     True),
    # assignments
    ("torch flag", "import torch\ntorch.backends.cudnn.benchmark = True\n" + METHOD, "method",
     True),
    ("torch flag computed", "import torch\ntorch.backends.cudnn.benchmark = bool(1)\n" + METHOD,
     "method", False),
    ("torch flag from a name", "import torch\nON = True\ntorch.backends.cudnn.benchmark = ON\n"
     + METHOD, "method", False),
    ("overwrites torch.compile", "import torch\ntorch.compile = 3\n" + METHOD, "method", False),
    ("overwrites torch.jit", "import torch\ntorch.jit = None\n" + METHOD, "method", False),
    ("annotated torch flag", "import torch\ntorch.backends.cuda.matmul.allow_tf32: bool = True\n"
     + METHOD, "method", True),
    ("torch config setting", "import torch\ntorch._dynamo.config.cache_size_limit = 64\n"
     + METHOD, "method", True),
    ("torch private config module setting",
     "import torch\ntorch.fx.experimental._config.translation_validation = False\n" + METHOD,
     "method", True),
    ("optional import fallback", "try:\n    import triton\nexcept ImportError:\n"
     "    triton = None\n" + METHOD, "method", True),
    ("cache rebound", "cache = print\n" + METHOD, "method", False),
    ("tuple targets", "A, B = 1, 2\nX = Y = (3, 'a', None, -1.5)\n" + METHOD, "method", True),
    ("tuple target rebinds property", "property, B = 1, 2\n" + METHOD, "method", False),
    ("tuple target with an attribute", "import torch\ntorch.x, y = 1, 2\n" + METHOD, "method",
     False),
    ("__all__ and __version__", "__all__ = ['method']\n__version__ = '1'\n" + METHOD, "method",
     True),
    ("__name__ rebound", "__name__ = 'x'\n" + METHOD, "method", False),
    ("lambda not called", "F = lambda x: x.sum()\n" + METHOD, "method", True),
    ("lambda called", "F = (lambda: 0)()\n" + METHOD, "method", False),
    ("comprehension over a tuple", "X = [i * i for i in (1, 2, 3)]\n" + METHOD, "method", True),
    ("comprehension over range()", "X = [i * i for i in range(3)]\n" + METHOD, "method", False),
    ("f-string of constants", "X = f'{1 + 1:>4}'\n" + METHOD, "method", True),
    ("f-string with a call", "X = f'{len(\"ab\")}'\n" + METHOD, "method", False),
    ("annotated constant", "X: int = 3\nY: float\n" + METHOD, "method", True),
    ("annotated reserved name", "cache: int\n" + METHOD, "method", False),
    ("annotation that calls", "X: type(3) = 3\n" + METHOD, "method", False),
    ("subscript and slice", "T = (1, 2, 3)[1:]\nD = {'a': 1}['a']\n" + METHOD, "method", True),
    ("augmented assignment", "X = 1\nX += 1\n" + METHOD, "method", False),
    # statements that are not allowed at import
    ("for loop", "for i in (1, 2):\n    pass\n" + METHOD, "method", False),
    ("while loop", "while False:\n    pass\n" + METHOD, "method", False),
    ("with block", "with open('x') as f:\n    pass\n" + METHOD, "method", False),
    ("assert", "assert True\n" + METHOD, "method", False),
    ("del", "X = 1\ndel X\n" + METHOD, "method", False),
    ("raise", "raise SystemExit\n" + METHOD, "method", False),
    ("global", "global X\n" + METHOD, "method", False),
    ("match", "match 1:\n    case 1:\n        pass\n" + METHOD, "method", False),
    ("if other than main", "if True:\n    X = 1\n" + METHOD, "method", False),
    ("main guard", METHOD + "if __name__ == '__main__':\n    print(method)\n", "method", True),
    ("main guard reversed", METHOD + "if '__main__' == __name__:\n    print(method)\n",
     "method", True),
    ("main guard with else", METHOD + "if __name__ == '__main__':\n    pass\nelse:\n    X = 1\n",
     "method", False),
    ("TYPE_CHECKING block", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
     "    import numpy\n" + METHOD, "method", True),
    ("TYPE_CHECKING block that calls", "import typing\nif typing.TYPE_CHECKING:\n"
     "    print(1)\n" + METHOD, "method", False),
    ("try with a computed handler", "try:\n    import triton\nexcept type(ImportError):\n"
     "    pass\n" + METHOD, "method", False),
    ("try binding a trusted name", "try:\n    import triton\nexcept ImportError as cache:\n"
     "    pass\n" + METHOD, "method", False),
    ("try with a call in its body", "try:\n    print(1)\nfinally:\n    pass\n" + METHOD, "method",
     False),
    # functions and decorators
    ("async method", "async def method(train_x, train_y, test_x):\n    return 0\n", "method",
     True),
    ("torch.compile bare", "import torch\n\n\n@torch.compile\n" + METHOD, "method", True),
    ("torch.compile with options", "import torch\n\n\n@torch.compile(mode='max-autotune', "
     "dynamic=False)\n" + METHOD, "method", True),
    ("torch.compile with a computed option", "import torch\n\n\n@torch.compile(mode=str(1))\n"
     + METHOD, "method", False),
    ("unknown decorator", "def deco(f):\n    return f\n\n\n@deco\n" + METHOD, "method", False),
    # An alias resolves whole names only: `ft.lru_cache` is not read as `functools.lru_cache`.
    ("aliased functools", "import functools as ft\n\n\n@ft.lru_cache(maxsize=None)\n"
     "def helper(n):\n    return n\n\n\n" + METHOD, "method", False),
    ("aliased decorator", "from functools import lru_cache as memo\n\n\n@memo(maxsize=None)\n"
     "def helper(n):\n    return n\n\n\n" + METHOD, "method", True),
    ("triton kernel", "import triton\nimport triton.language as tl\n\n\n@triton.autotune("
     "configs=[triton.Config({'BLOCK': 128}, num_warps=4)], key=['n'])\n@triton.jit\n"
     "def kernel(x_ptr, n, BLOCK: tl.constexpr):\n    pass\n\n\n" + METHOD, "method", True),
    ("default that calls", "def helper(x=len('a')):\n    return x\n\n\n" + METHOD, "method",
     False),
    ("annotations that are names", "import torch\n\n\ndef method(train_x: torch.Tensor, "
     "train_y: torch.Tensor, test_x: 'torch.Tensor') -> torch.Tensor:\n    return 0\n", "method",
     True),
    ("return annotation that calls", "def method(a, b, c) -> type(1):\n    return 0\n", "method",
     False),
    ("module __getattr__", "def __getattr__(name):\n    return 0\n\n\n" + METHOD, "method",
     False),
    ("function named property", "def property(f):\n    return f\n\n\n" + METHOD, "method",
     False),
    # classes
    ("class with property and setter", "class Box:\n    '''doc'''\n    SIZE = 3\n\n"
     "    def __init__(self):\n        self._v = 0\n\n    @property\n    def v(self):\n"
     "        return self._v\n\n    @v.setter\n    def v(self, value):\n        self._v = value\n\n"
     "    @staticmethod\n    def s():\n        return 1\n\n\n" + METHOD, "method", True),
    ("setter of no property", "class Box:\n    @w.setter\n    def v(self, value):\n"
     "        pass\n\n\n" + METHOD, "method", False),
    ("__init_subclass__", "class Base:\n    def __init_subclass__(cls):\n        pass\n\n\n"
     + METHOD, "method", False),
    ("__class_getitem__", "class Base:\n    def __class_getitem__(cls, item):\n        return 0\n\n\n"
     + METHOD, "method", False),
    ("metaclass keyword", "class Meta(type):\n    pass\n\n\nclass Box(metaclass=Meta):\n"
     "    pass\n\n\n" + METHOD, "method", False),
    ("computed base", "class Box(type('B', (), {})):\n    pass\n\n\n" + METHOD, "method", False),
    ("nn.Module subclass", "import torch\n\n\nclass Net(torch.nn.Module):\n"
     "    def forward(self, x):\n        return x\n\n\n" + METHOD, "method", True),
    ("dataclass with field", "from dataclasses import dataclass, field\n\n\n@dataclass\n"
     "class Cfg:\n    lr: float = 0.1\n    sizes: list = field(default_factory=list)\n\n\n"
     + METHOD, "method", True),
    ("aliased field", "from dataclasses import dataclass, field as fld\n\n\n@dataclass(frozen=True)\n"
     "class Cfg:\n    sizes: list = fld(default_factory=list)\n\n\n" + METHOD, "method", True),
    ("class decorator not allowed", "def deco(c):\n    return c\n\n\n@deco\nclass Box:\n"
     "    pass\n\n\n" + METHOD, "method", False),
    ("class named cache", "class cache:\n    pass\n\n\n" + METHOD, "method", False),
    ("class body call", "class Box:\n    print(1)\n\n\n" + METHOD, "method", False),
    ("class body main guard", "class Box:\n    if __name__ == '__main__':\n        pass\n\n\n"
     + METHOD, "method", False),
    ("class body try", "class Box:\n    try:\n        X = 1\n    except Exception:\n"
     "        pass\n\n\n" + METHOD, "method", False),
    ("nested class", "class Outer:\n    class Inner:\n        X = 1\n\n\n" + METHOD, "method",
     True),
    ("nn.Module through from torch import nn", "from torch import nn\n\n\nclass Net(nn.Module):\n"
     "    def forward(self, x):\n        return x\n\n\n" + METHOD, "method", True),
    ("autograd.Function with static methods", "import torch\n\n\nclass Square(torch.autograd."
     "Function):\n    @staticmethod\n    def forward(ctx, x):\n        return x * x\n\n"
     "    @staticmethod\n    def backward(ctx, g):\n        return 2 * g\n\n\n" + METHOD, "method",
     True),
    ("subclass of a class of the file and of a builtin", "class Base:\n    X = 1\n\n\n"
     "class Child(Base):\n    Y = 2\n\n\nclass Failed(RuntimeError):\n    pass\n\n\n" + METHOD,
     "method", True),
    ("classmethod over a plain function", "class Box:\n    @classmethod\n    def make(cls):\n"
     "        return cls\n\n\nMAKE = Box.make\n" + METHOD, "method", True),
    ("decorator arguments from constant names", "import torch\nimport triton\n\nMODE = "
     "'max-autotune'\nCONFIGS = [triton.Config({'BLOCK': b}, num_warps=4) for b in (64, 128)]\n\n\n"
     "@triton.autotune(configs=CONFIGS, key=['n'])\n@triton.heuristics({'EVEN': lambda args: "
     "args['n'] % 2 == 0})\n@triton.jit\ndef kernel(x_ptr, n):\n    pass\n\n\n"
     "@torch.compile(mode=MODE, fullgraph=True)\n" + METHOD, "method", True),
    ("typing annotations and library constants", "import math\nfrom typing import Optional, "
     "Tuple\n\nTWO_PI = 2 * math.pi\nSIZES = (1, 2, 3)\nLAST = SIZES[-1] + 1\n\n\n"
     "def helper(x: Optional[int] = None, y: Tuple[int, int] = (1, 2)) -> Optional[float]:\n"
     "    return x\n\n\n" + METHOD, "method", True),
    # which function, size, parsing
    ("function only under TYPE_CHECKING", "TYPE_CHECKING = False\nif TYPE_CHECKING:\n"
     "    def method(a, b, c):\n        return 0\n", "method", False),
    ("other function name", METHOD.replace("def method", "def predict"), "predict", True),
    ("missing function", METHOD, "predict", False),
    ("syntax error", "def method(:\n    pass\n", "method", False),
    ("indentation error", "def method(a, b, c):\nreturn 0\n", "method", False),
    ("too large", METHOD + "#" * 20480 + "\n", "method", False),
    ("exactly at the limit", METHOD + "#" * (20480 - len(METHOD) - 1) + "\n", "method", True),
    # review flags (the file passes; the flags are advice)
    ("high-entropy blob", "BLOB = '" + _blob(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 700, 1) + "'\n"
     + METHOD, "method", True),
    ("hex blob", "BLOB = b'" + _blob("0123456789abcdef", 600, 2) + "'\n" + METHOD, "method",
     True),
    ("prose string", "DOC = '''" + ("the quick brown fox jumps over the lazy dog " * 20)
     + "'''\n" + METHOD, "method", True),
    ("numeric literals", "W = (" + ", ".join(str(i % 97) + ".5" for i in range(450)) + ")\n"
     + METHOD, "method", True),
    ("decoders and reach", "import base64\nimport zlib\nimport socket\nfrom urllib import "
     "request\nimport ctypes\n" + METHOD, "method", True),
    ("dynamic calls", "def method(train_x, train_y, test_x):\n    eval('1')\n"
     "    getattr(train_x, 'sum')\n    open('/dev/null')\n    return 0\n", "method", True),
    ("near the limit", METHOD + "#" * 16000 + "\n", "method", True),
]

# Decided here by ratchet alone: the reference passes each of these.
STRICTER_CASES = [
    # a descriptor under classmethod runs when the attribute is read on the class
    ("classmethod over property, read at import", "class Box:\n    @classmethod\n    @property\n"
     "    def size(cls):\n        return print('ran')\n\n\nSIZE = Box.size\n" + METHOD, "method",
     False),
    ("classmethod over property, read in a default", "class Box:\n    @classmethod\n"
     "    @property\n    def size(cls):\n        return print('ran')\n\n\n"
     "def method(train_x, train_y, test_x, size=Box.size):\n    return 0\n", "method", False),
    # enum.Enum: building the class calls the members' __new__/__init__; members are objects of the
    # file's class, whose operators, __format__ and properties are the file's code
    ("enum class", "import enum\n\n\nclass Color(enum.Enum):\n    RED = 1\n\n"
     "    def __init__(self, value):\n        print('ran')\n\n\n" + METHOD, "method", False),
    ("enum member in an f-string", "from enum import Enum\n\n\nclass Color(Enum):\n    RED = 1\n\n"
     "    def __format__(self, spec):\n        return print('ran') or ''\n\n\n"
     "NAME = f'{Color.RED}'\n" + METHOD, "method", False),
    ("enum member compared", "import enum\n\n\nclass Color(enum.IntEnum):\n    RED = 1\n\n"
     "    def __eq__(self, other):\n        return print('ran') or True\n\n\n"
     "SAME = Color.RED == 1\n" + METHOD, "method", False),
    ("enum member property in a default", "import enum\n\n\nclass Color(enum.Enum):\n"
     "    RED = 1\n\n    @property\n    def label(self):\n        return print('ran')\n\n\n"
     "def method(train_x, train_y, test_x, label=Color.RED.label):\n    return 0\n", "method",
     False),
    # other bases whose class machinery may call the class's code, and what a class is handed to
    ("NamedTuple base (a library's class machinery)", "import typing\n\n\n"
     "class Cfg(typing.NamedTuple):\n    lr: float = 0.1\n\n\n" + METHOD, "method", False),
    ("builtin base name rebound", "import enum\n\nException = enum.Enum\n\n\n"
     "class Color(Exception):\n    RED = 1\n\n    def __init__(self, value):\n"
     "        print('ran')\n\n\n" + METHOD, "method", False),
    ("aliased base rebound", "from torch import nn\nimport enum as nn\n\n\nclass Color(nn.Enum):\n"
     "    RED = 1\n\n    def __init__(self, value):\n        print('ran')\n\n\n" + METHOD, "method",
     False),
    ("class decorator handed the class", "import torch\n\n\n@torch.jit.script\nclass Box:\n"
     "    def mro():\n        return print('ran') or [1, 2]\n\n    def __init__(self):\n"
     "        self.x = 1\n\n\n" + METHOD, "method", False),
    ("functools.cache on a class used as a base", "import functools\n\n\n@functools.cache\n"
     "class Base:\n    pass\n\n\nclass Child(Base):\n    pass\n\n\n" + METHOD, "method", False),
    ("class hook inside an if block", "TYPE_CHECKING = True\n\n\nclass Base:\n"
     "    if TYPE_CHECKING:\n        def __init_subclass__(cls):\n            print('ran')\n\n\n"
     "class Child(Base):\n    pass\n\n\n" + METHOD, "method", False),
    # what a decorator factory is given it may call, wrap or register before the method runs
    ("decorator argument is a function of the file", "import functools\n\n\ndef hook(f):\n"
     "    return print('ran')\n\n\n@functools.lru_cache(hook)\ndef helper():\n    return 0\n\n\n"
     + METHOD, "method", False),
    ("decorator argument is a library callable", "import atexit\n\n\nclass Box:\n"
     "    @staticmethod(atexit.register)\n    def later():\n        print('ran')\n\n\n" + METHOD,
     "method", False),
    ("decorator argument is a lambda", "import functools\n\n\n@functools.lru_cache(lambda f: "
     "print('ran'))\ndef helper():\n    return 0\n\n\n" + METHOD, "method", False),
    ("decorator argument holds a class of the file", "import triton\n\n\nclass Config:\n"
     "    def all_kwargs():\n        return print('ran') or {}\n\n\n"
     "@triton.autotune(configs=[Config], key=['n'])\n@triton.jit\ndef kernel(x_ptr, n):\n"
     "    pass\n\n\n" + METHOD, "method", False),
    ("decorator argument unpacked", "import functools\n\n\ndef hook(f):\n"
     "    return print('ran')\n\n\nOPTIONS = {'maxsize': hook}\n\n\n"
     "@functools.lru_cache(**OPTIONS)\ndef helper():\n    return 0\n\n\n" + METHOD, "method",
     False),
    # a name the allow-lists read through an import, bound again
    ("aliased decorator redefined", "from functools import lru_cache as memo\n\n\ndef memo(f):\n"
     "    return print('ran')\n\n\n@memo\n" + METHOD, "method", False),
    ("aliased static call rebound", "from dataclasses import field as fld\n\nfld = print\n"
     "X = fld('ran')\n" + METHOD, "method", False),
    ("setter of a rebound property", "class Hook:\n    def setter(f):\n        return print('ran')"
     "\n\n\nclass Box:\n    @property\n    def x(self):\n        return 1\n\n    x = Hook\n\n"
     "    @x.setter\n    def x(self, value):\n        pass\n\n\n" + METHOD, "method", False),
    # ** calls the unpacked object's keys(): here a function of the class
    ("dict unpacking of a class", "class Box:\n    def keys():\n        return print('ran') or []"
     "\n\n\nX = {**Box}\n" + METHOD, "method", False),
    ("keyword unpacking into an allowed call", "import torch\n\n\nclass Box:\n    def keys():\n"
     "        return print('ran') or []\n\n\ntorch.manual_seed(0, **Box)\n" + METHOD, "method",
     False),
    # a library's operator or subscript handed a class or function of the file, whose attributes it
    # may read and call (numpy checks for a class before it calls __array__; a library need not)
    ("library subscript given a class of the file", "import numpy\n\n\nclass Box:\n"
     "    def __array__(self=None, dtype=None):\n        return print('ran')\n\n\n"
     "X = numpy.r_[Box]\n" + METHOD, "method", False),
    ("library operator given a function of the file", "import math\n\n\ndef hook():\n"
     "    return 0\n\n\nX = math.pi < hook\n" + METHOD, "method", False),
    ("star import", "from torch import *\n" + METHOD, "method", False),
    ("torch flag with a dunder part", "import torch\n\ntorch.__path__ = ['/tmp/elsewhere']\n"
     + METHOD, "method", False),
    # a "flag" that is a method of torch's classes or a function of torch: the harness's own torch
    # would run without it
    ("a method of torch.Tensor set to None", "import torch\n\ntorch.Tensor.argmin = None\n"
     + METHOD, "method", False),
    ("a function of torch set to a constant", "import torch\n\ntorch.argmax = 0\n" + METHOD,
     "method", False),
    # a module under torch.backends, not a setting of it: the harness's torch reads its flags
    ("a torch.backends module set to None", "import torch\n\ntorch.backends.cudnn = None\n"
     + METHOD, "method", False),
]
