"""Method-file snippets covering each source rule and review flag, shared by the unit test of
check_source.py and its differential test against the reference scorer.

Each case is (name, source text, function, passes): `passes` is what rule set mnist-a100/1.2.0
decides, written down by hand so that the unit test pins it even where the reference is absent.
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
    ("star import", "from torch import *\n" + METHOD, "method", True),
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
