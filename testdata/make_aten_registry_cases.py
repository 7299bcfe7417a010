#!/usr/bin/python3
"""Makes one tiny traced module per aten op that torch.onnx can export.

PyTorch 1.13's ONNX exporter has a symbolic function for about 345 aten
ops at opset 17 (torch.onnx._internal.registration.registry). For each of
them this script traces one or more small modules that call the op with
typical arguments, and writes, per case:

    OUT/CASE/traced.pt                      torch.jit.trace + torch.jit.save
    OUT/CASE/scripted.pt                    (instead) torch.jit.script, for the scripting
                                            statements and builtins tracing never records
    OUT/CASE/test_data_set_0/input_N.pb     the inputs (ONNX TensorProto)
    OUT/CASE/test_data_set_0/output_N.pb    PyTorch's eager outputs

and two indexes:

    OUT/INDEX.tsv     op, case, inputs (dtype[shape];...), check, traced kinds, note
    OUT/NOT_TRACED.tsv  op, why no standalone traced module exercises it

"check" is "values" (compare every element), "shape" (the values are
undefined, e.g. torch.empty: compare shape and dtype) or "range:LO:HI"
(random sampling: shape, dtype and every value in [LO, HI]). "traced
kinds" are the aten ops the traced graph holds; when the registry op is not
among them, the user-level call is traced as its decomposition.

Run with Debian's python3 (python3-torch, python3-onnx):
    /usr/bin/python3 testdata/make_aten_registry_cases.py OUT
    /usr/bin/python3 testdata/make_aten_registry_cases.py OUT CASE_OR_OP...  (only those; the
                                                              indexes then list only them)
    /usr/bin/python3 testdata/make_aten_registry_cases.py --list

e2e's TestAtenRegistry runs it and reads every case through the
TorchScript importer.

Inputs are random with a seed derived from the case name, so every run
writes the same files and adding a case does not change the others.
"""
import os
import shutil
import sys
import warnings
import zlib
from typing import List, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import numpy_helper

aten = torch.ops.aten

# ---------------------------------------------------------------------------
# Inputs. A spec names a dtype, a shape and how values are drawn.


class In:
    """One input: dtype name (f32, f64, i64, i32, u8, bool), shape and the
    range its values are drawn from."""

    def __init__(self, dtype, shape, lo=None, hi=None, kind="normal", values=None):
        self.dtype, self.shape, self.lo, self.hi, self.kind = dtype, tuple(shape), lo, hi, kind
        self.values = values

    def make(self, gen):
        s = self.shape
        if self.values is not None:
            dt = torch.float32 if self.dtype == "f32" else torch.int64
            return torch.tensor(self.values, dtype=dt).reshape(s)
        if self.dtype == "bool":
            return torch.rand(s, generator=gen) < 0.5
        if self.dtype in ("i64", "i32", "u8", "i8"):
            t = torch.randint(self.lo, self.hi, s, generator=gen)
            return t.to({"i64": torch.int64, "i32": torch.int32, "u8": torch.uint8, "i8": torch.int8}[self.dtype])
        if self.kind == "uniform":
            t = torch.rand(s, generator=gen) * (self.hi - self.lo) + self.lo
        else:
            t = torch.randn(s, generator=gen)
        return t.to(torch.float64 if self.dtype == "f64" else torch.float32)

    def spec(self):
        return "%s[%s]" % (self.dtype, ",".join(str(d) for d in self.shape))


def F32(*shape):
    """Standard normal float32."""
    return In("f32", shape)


def Pos(*shape):
    """Float32 in [0.5, 2): for log, sqrt, divisors."""
    return In("f32", shape, 0.5, 2.0, "uniform")


def Unit(*shape):
    """Float32 in (-0.9, 0.9): for asin, acos, tan and grid coordinates."""
    return In("f32", shape, -0.9, 0.9, "uniform")


def Prob(*shape):
    """Float32 in [0.05, 0.95]."""
    return In("f32", shape, 0.05, 0.95, "uniform")


def I64(lo, hi, *shape):
    return In("i64", shape, lo, hi)


def Fixed(*values):
    """An int64 vector with the given values (offsets, lengths)."""
    return In("i64", (len(values),), values=list(values))


def FixedF(*values):
    """A float32 vector with the given values (loop bounds)."""
    return In("f32", (len(values),), values=list(values))


def Bool(*shape):
    return In("bool", shape)


# ---------------------------------------------------------------------------
# Cases.


class Case:
    def __init__(self, op, name, fn, inputs, module=None, check="values", note="", script=None):
        self.op, self.name, self.fn, self.inputs = op, name, fn, inputs
        self.module, self.check, self.note = module, check, note
        # script: an nn.Module class compiled with torch.jit.script instead
        # of tracing fn (TorchScript statements that tracing never records).
        self.script = script


CASES = []
NOT_TRACED = {}


def case(op, fn, *inputs, name=None, module=None, check="values", note=""):
    """Adds a case: fn(self, *inputs) is the traced forward, where self.m is
    module (a factory called with a seeded RNG) when given."""
    n = name or op
    CASES.append(Case(op, n, fn, list(inputs), module, check, note))


def scripted(op, cls, *inputs, name=None, check="values", note=""):
    """Adds a case that scripts cls (written to scripted.pt, not traced.pt):
    for the TorchScript scripting statements and builtins tracing never
    records."""
    CASES.append(Case(op, name or op, None, list(inputs), None, check, note or "scripted", script=cls))


def untraced(reason, *ops):
    for op in ops:
        NOT_TRACED[op] = reason


def seeded_module(factory):
    def make():
        m = factory()
        randomize(m)
        return m
    return make


def randomize(m):
    # Fresh norm statistics are 0/1 and fresh affine parameters 1/0, which
    # would hide mistakes.
    g = torch.Generator().manual_seed(7)
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.InstanceNorm2d)):
                if mod.running_mean is not None:
                    mod.running_mean.copy_(torch.rand(mod.num_features, generator=g) - 0.5)
                    mod.running_var.copy_(torch.rand(mod.num_features, generator=g) + 0.5)
            for p in mod.parameters(recurse=False):
                p.copy_(torch.randn(p.shape, generator=g) * 0.5)


M = seeded_module

# -- scripting-only and internal entries ------------------------------------
# TorchScript scripting statements and builtins: tracing never records them,
# so each gets a scripted module (torch.jit.script) that uses it.


class ScriptDeriveIndex(nn.Module):
    def forward(self, x):
        y = x[0]
        for j in range(1, x.size(0)):
            y = y * j + x[j]
        return y


class ScriptRangeLength(nn.Module):
    def forward(self, x, y):
        z = x
        for j in range(2, int(y.sum())):
            z = z + j
        return z


class ScriptGetItem(nn.Module):
    def forward(self, x):
        t = (x, x * 2)
        l = [x + 1, x - 1]
        return t[1] + l[0]


class ScriptIs(nn.Module):
    b: Optional[torch.Tensor]

    def __init__(self):
        super().__init__()
        self.b = None

    def forward(self, x):
        b = self.b
        if b is None:
            return x + 1
        return x + b


class ScriptIsNot(nn.Module):
    b: Optional[torch.Tensor]

    def __init__(self):
        super().__init__()
        self.b = None

    def forward(self, x):
        b = self.b
        if b is not None:
            return x + b
        return x - 1


class ScriptNot(nn.Module):
    def forward(self, x):
        if not bool(x.sum() > 0):
            y = x * 3
        else:
            y = x
        return y


class ScriptLen(nn.Module):
    def forward(self, x):
        return x * len(x.shape), x + len([x, x])


class ScriptDim(nn.Module):
    def forward(self, x):
        if x.dim() == 2:
            return x + 1
        return x


class ScriptFloordiv(nn.Module):
    def forward(self, x):
        return x[: x.size(0) // 2]


class ScriptAppend(nn.Module):
    def forward(self, x):
        l: List[torch.Tensor] = []
        for i in range(x.size(0)):
            l.append(x[i] * i)
        return torch.stack(l)


class ScriptList(nn.Module):
    def forward(self, x):
        s = list(x.shape)
        return x.reshape(s[1], s[0])


class ScriptInsert(nn.Module):
    def forward(self, x):
        l = [x]
        l.insert(0, x * 2)
        return l[0]


class ScriptPop(nn.Module):
    def forward(self, x):
        l = [x, x * 2]
        return l.pop()


class ScriptSetItem(nn.Module):
    def forward(self, x):
        l = [x, x]
        l[1] = x * 2
        return l[1]


class ScriptDelete(nn.Module):
    def forward(self, x):
        l = [x, x * 2]
        del l[0]
        return l[0]


class ScriptInterpolate(nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=2.0, mode="nearest")


class ScriptIsFloatingPoint(nn.Module):
    def forward(self, x):
        if x.is_floating_point():
            return x + 1
        return x


class ScriptIsPinned(nn.Module):
    def forward(self, x):
        if x.is_pinned():
            return x + 1
        return x


class ScriptItem(nn.Module):
    def forward(self, x):
        return x * x.sum().item()


class ScriptItemPromotes(nn.Module):
    def forward(self, x, y):
        s = x.sum().item()
        return y * s, y + s * 2.0


scripted("Delete", ScriptDelete, F32(2, 3))
scripted("__derive_index", ScriptDeriveIndex, F32(4, 3))
scripted("__range_length", ScriptRangeLength, F32(2, 3), FixedF(5.0))
scripted("__getitem_", ScriptGetItem, F32(2, 3))
scripted("_set_item", ScriptSetItem, F32(2, 3))
scripted("__interpolate", ScriptInterpolate, F32(1, 2, 3, 3))
scripted("__is_", ScriptIs, F32(2, 3))
scripted("__isnot_", ScriptIsNot, F32(2, 3))
scripted("__not_", ScriptNot, F32(2, 3))
scripted("append", ScriptAppend, F32(3, 2))
scripted("insert", ScriptInsert, F32(2, 3))
scripted("pop", ScriptPop, F32(2, 3))
scripted("list", ScriptList, F32(2, 3))
scripted("len", ScriptLen, F32(2, 3))
scripted("floordiv", ScriptFloordiv, F32(5, 3))
scripted("dim", ScriptDim, F32(2, 3))
scripted("is_floating_point", ScriptIsFloatingPoint, F32(2, 3))
scripted("is_pinned", ScriptIsPinned, F32(2, 3))
scripted("item", ScriptItem, F32(2, 3))
scripted("item", ScriptItemPromotes, F32(2, 3), I64(-5, 5, 2, 3), name="item_promotes",
         note="a float item times an int64 tensor is float32")
untraced("no aten::_floor_divide operator exists in PyTorch 1.13 (kept for archives of older versions)",
         "_floor_divide")
untraced("helper of the ONNX exporter (ceil-mode pooling padding), not an aten operator", "get_pool_ceil_padding")
untraced("the ONNX exporter's Scan helper for loops, not an operator that tracing records", "scan")
case("lift", lambda s, x: torch.ops.aten.lift(x) * 2, F32(2, 3),
     note="functionalization's aten::lift (torch.tensor under torch.compile), called directly")

# -- elementwise unary ------------------------------------------------------


def unary(f, spread):
    """torch.f(x); spread scales x by 3 so that rounding sees several integers."""
    if spread:
        return lambda s, x: f(x * 3)
    return lambda s, x: f(x)


for op, inp in [("abs", F32), ("acos", Unit), ("asin", Unit), ("atan", F32), ("ceil", F32), ("cos", F32),
                ("erf", F32), ("exp", F32), ("floor", F32), ("log", Pos), ("log10", Pos), ("log1p", Pos),
                ("log2", Pos), ("neg", F32), ("reciprocal", Pos), ("relu", F32), ("round", F32),
                ("rsqrt", Pos), ("sigmoid", F32), ("sign", F32), ("sin", F32), ("sqrt", Pos), ("tan", Unit),
                ("tanh", F32), ("square", F32), ("isnan", F32), ("isinf", F32), ("isfinite", F32),
                ("detach", F32), ("clone", F32), ("conj_physical", F32), ("resolve_conj", F32),
                ("resolve_neg", F32)]:
    case(op, unary(getattr(torch, op), op in ("round", "ceil", "floor")), inp(2, 3, 4))
case("_conj", lambda s, x: torch.view_as_real(torch._conj(torch.view_as_complex(x)).resolve_conj()), F32(2, 3, 2),
     note="complex: a real tensor has no conjugate bit (PyTorch 1.13 asserts)")
case("round", lambda s, x: torch.round(x * 30, decimals=1), F32(2, 3, 4), name="round_decimals")
case("isnan", lambda s, x: torch.isnan(torch.log(x)), F32(2, 3, 4), name="isnan_of_log")
case("isinf", lambda s, x: torch.isinf(1 / torch.floor(x)), F32(2, 3, 4), name="isinf_of_reciprocal")
case("isfinite", lambda s, x: torch.isfinite(torch.log(x)), F32(2, 3, 4), name="isfinite_of_log")
case("bitwise_not", lambda s, x: torch.bitwise_not(x), Bool(2, 3))
case("bitwise_not", lambda s, x: ~x, I64(-10, 10, 2, 3), name="bitwise_not_int")
case("nan_to_num", lambda s, x: torch.nan_to_num(torch.log(x), nan=0.5, posinf=9.0, neginf=-9.0), F32(2, 3, 4))

# -- activations -----------------------------------------------------------
case("celu", lambda s, x: F.celu(x, alpha=0.7), F32(2, 3, 4))
case("elu", lambda s, x: F.elu(x, alpha=0.8), F32(2, 3, 4))
case("selu", lambda s, x: F.selu(x), F32(2, 3, 4))
case("gelu", lambda s, x: F.gelu(x), F32(2, 3, 4))
case("gelu", lambda s, x: F.gelu(x, approximate="tanh"), F32(2, 3, 4), name="gelu_tanh")
case("glu", lambda s, x: F.glu(x, dim=-1), F32(2, 3, 4))
case("hardshrink", lambda s, x: F.hardshrink(x, 0.6), F32(2, 3, 4))
case("softshrink", lambda s, x: F.softshrink(x, 0.4), F32(2, 3, 4))
case("tanhshrink", lambda s, x: F.tanhshrink(x), F32(2, 3, 4))
case("hardsigmoid", lambda s, x: F.hardsigmoid(x * 3), F32(2, 3, 4))
case("hardswish", lambda s, x: F.hardswish(x * 3), F32(2, 3, 4))
case("hardtanh", lambda s, x: F.hardtanh(x, -0.5, 0.7), F32(2, 3, 4))
case("leaky_relu", lambda s, x: F.leaky_relu(x, 0.1), F32(2, 3, 4))
case("log_sigmoid", lambda s, x: F.logsigmoid(x * 4), F32(2, 3, 4))
case("mish", lambda s, x: F.mish(x), F32(2, 3, 4))
case("relu6", lambda s, x: F.relu6(x * 5), F32(2, 3, 4))
case("silu", lambda s, x: F.silu(x), F32(2, 3, 4))
case("softplus", lambda s, x: F.softplus(x), F32(2, 3, 4))
case("softplus", lambda s, x: F.softplus(x * 4, beta=2.0, threshold=3.0), F32(2, 3, 4), name="softplus_beta")
case("threshold", lambda s, x: F.threshold(x, 0.1, 20.0), F32(2, 3, 4))
case("prelu", lambda s, x: s.m(x), F32(2, 3, 4, 4), module=M(lambda: nn.PReLU(3)))
case("rrelu", lambda s, x: F.rrelu(x, 0.1, 0.3, training=False), F32(2, 3, 4), note="eval mode: fixed slope (lower+upper)/2")
case("softmax", lambda s, x: F.softmax(x, dim=1), F32(2, 3, 4))
case("log_softmax", lambda s, x: F.log_softmax(x, dim=-1), F32(2, 3, 4))
case("_log_softmax", lambda s, x: torch._log_softmax(x, 1, False), F32(2, 3, 4))

# -- binary and comparison --------------------------------------------------
case("add", lambda s, x, y: x + y, F32(2, 3, 4), F32(3, 4))
case("add", lambda s, x, y: torch.add(x, y, alpha=2.5), F32(2, 3, 4), F32(4), name="add_alpha")
case("add", lambda s, x, y: x + y, I64(-50, 50, 2, 3), I64(-50, 50, 2, 3), name="add_int")
case("sub", lambda s, x, y: torch.sub(x, y, alpha=0.5), F32(2, 3, 4), F32(2, 3, 4))
case("rsub", lambda s, x: 1.5 - x, F32(2, 3, 4))
case("mul", lambda s, x, y: x * y, F32(2, 3, 4), F32(2, 1, 4))
case("mul", lambda s, x: x * 3, I64(-50, 50, 2, 3), name="mul_int_scalar")
case("div", lambda s, x, y: x / y, F32(2, 3, 4), Pos(2, 3, 4))
case("div", lambda s, x, y: torch.div(x, y, rounding_mode="floor"), F32(2, 3, 4), Pos(2, 3, 4), name="div_floor")
case("div", lambda s, x, y: torch.div(x, y, rounding_mode="trunc"), I64(-50, 50, 2, 3), I64(1, 7, 2, 3),
     name="div_trunc_int")
case("true_divide", lambda s, x, y: torch.true_divide(x, y), F32(2, 3, 4), Pos(2, 3, 4))
case("floor_divide", lambda s, x, y: torch.floor_divide(x, y), F32(2, 3, 4), Pos(2, 3, 4))
case("floor_divide", lambda s, x, y: torch.floor_divide(x, y), I64(-50, 50, 2, 3), I64(1, 7, 2, 3),
     name="floor_divide_int")
case("fmod", lambda s, x, y: torch.fmod(x * 5, y), F32(2, 3, 4), Pos(2, 3, 4))
case("remainder", lambda s, x, y: torch.remainder(x * 5, y), F32(2, 3, 4), Pos(2, 3, 4))
case("remainder", lambda s, x, y: torch.remainder(x, y), I64(-50, 50, 2, 3), I64(1, 7, 2, 3), name="remainder_int")
case("pow", lambda s, x, y: torch.pow(x, y), Pos(2, 3, 4), F32(2, 3, 4))
case("pow", lambda s, x: x ** 2, F32(2, 3, 4), name="pow_scalar")
case("maximum", lambda s, x, y: torch.maximum(x, y), F32(2, 3, 4), F32(3, 4))
case("minimum", lambda s, x, y: torch.minimum(x, y), F32(2, 3, 4), F32(3, 4))
case("lerp", lambda s, x, y: torch.lerp(x, y, 0.3), F32(2, 3, 4), F32(2, 3, 4))
case("lerp", lambda s, x, y, w: torch.lerp(x, y, w), F32(2, 3, 4), F32(2, 3, 4), Prob(2, 3, 4), name="lerp_tensor")
case("addcmul", lambda s, x, y, z: torch.addcmul(x, y, z, value=0.5), F32(2, 3, 4), F32(2, 3, 4), F32(2, 3, 4))
for op in ["eq", "ne", "ge", "gt", "le", "lt"]:
    case(op, (lambda f: lambda s, x, y: f(torch.round(x), torch.round(y)))(getattr(torch, op)), F32(2, 3, 4), F32(3, 4))
case("eq", lambda s, x, y: x == y, I64(0, 3, 2, 3), I64(0, 3, 2, 3), name="eq_int")
case("logical_and", lambda s, x, y: torch.logical_and(x, y), Bool(2, 3), Bool(2, 3))
case("logical_or", lambda s, x, y: torch.logical_or(x, y), Bool(2, 3), Bool(2, 3))
case("logical_xor", lambda s, x, y: torch.logical_xor(x, y), Bool(2, 3), Bool(2, 3))
case("__and_", lambda s, x, y: x & y, Bool(2, 3), Bool(2, 3))
case("__or_", lambda s, x, y: x | y, Bool(2, 3), Bool(2, 3))
case("__xor_", lambda s, x, y: x ^ y, Bool(2, 3), Bool(2, 3))
case("__lshift_", lambda s, x, y: x << y, I64(-20, 20, 2, 3), I64(0, 4, 2, 3))
case("__rshift_", lambda s, x, y: x >> y, I64(-20, 20, 2, 3), I64(0, 4, 2, 3))
case("where", lambda s, c, x, y: torch.where(c, x, y), Bool(2, 3, 4), F32(2, 3, 4), F32(3, 4))
case("where", lambda s, x: torch.where(x > 0), F32(2, 3, 4), name="where_nonzero")
case("clamp", lambda s, x: torch.clamp(x, -0.5, 0.5), F32(2, 3, 4))
case("clamp", lambda s, x, lo, hi: torch.clamp(x, lo, hi), F32(2, 3, 4), In("f32", (3, 4), -1.0, -0.2, "uniform"),
     In("f32", (3, 4), 0.2, 1.0, "uniform"), name="clamp_tensor")
case("clamp_min", lambda s, x: torch.clamp_min(x, 0.2), F32(2, 3, 4))
case("clamp_max", lambda s, x: torch.clamp_max(x, 0.2), F32(2, 3, 4))

# -- reductions ---------------------------------------------------------------
case("sum", lambda s, x: torch.sum(x), F32(2, 3, 4))
case("sum", lambda s, x: torch.sum(x, dim=(0, 2), keepdim=True), F32(2, 3, 4), name="sum_dims")
case("mean", lambda s, x: torch.mean(x, dim=1), F32(2, 3, 4))
case("mean", lambda s, x: torch.mean(x), F32(2, 3, 4), name="mean_all")
case("prod", lambda s, x: torch.prod(x, dim=1), Pos(2, 3, 4))
case("prod", lambda s, x: torch.prod(x), Pos(2, 3, 4), name="prod_all")
case("amax", lambda s, x: torch.amax(x, dim=(1, 2)), F32(2, 3, 4))
case("amin", lambda s, x: torch.amin(x, dim=-1, keepdim=True), F32(2, 3, 4))
case("aminmax", lambda s, x: torch.aminmax(x, dim=1), F32(2, 3, 4))
case("max", lambda s, x: torch.max(x), F32(2, 3, 4))
case("max", lambda s, x: torch.max(x, dim=1), F32(2, 3, 4), name="max_dim")
case("max", lambda s, x, y: torch.max(x, y), F32(2, 3, 4), F32(3, 4), name="max_binary")
case("min", lambda s, x: torch.min(x), F32(2, 3, 4))
case("min", lambda s, x: torch.min(x, dim=2, keepdim=True), F32(2, 3, 4), name="min_dim")
case("min", lambda s, x, y: torch.min(x, y), F32(2, 3, 4), F32(3, 4), name="min_binary")
case("argmax", lambda s, x: torch.argmax(x, dim=1), F32(2, 3, 4))
case("argmax", lambda s, x: torch.argmax(x), F32(2, 3, 4), name="argmax_all")
case("argmin", lambda s, x: torch.argmin(x, dim=-1, keepdim=True), F32(2, 3, 4))
case("all", lambda s, x: torch.all(x), Bool(2, 3))
case("all", lambda s, x: torch.all(x > -1.0, dim=1), F32(2, 3, 4), name="all_dim")
case("any", lambda s, x: torch.any(x), Bool(2, 3))
case("any", lambda s, x: torch.any(x > 1.0, dim=1), F32(2, 3, 4), name="any_dim")
case("logsumexp", lambda s, x: torch.logsumexp(x, dim=1), F32(2, 3, 4))
case("cumsum", lambda s, x: torch.cumsum(x, dim=1), F32(2, 3, 4))
case("std", lambda s, x: torch.std(x, dim=1), F32(2, 3, 4))
case("std", lambda s, x: torch.std(x, unbiased=False), F32(2, 3, 4), name="std_all_biased")
case("var", lambda s, x: torch.var(x, dim=(0, 2), keepdim=True), F32(2, 3, 4))
case("std_mean", lambda s, x: torch.std_mean(x, dim=1), F32(2, 3, 4))
case("var_mean", lambda s, x: torch.var_mean(x, dim=1, unbiased=False), F32(2, 3, 4))
case("norm", lambda s, x: torch.norm(x, p=2, dim=1), F32(2, 3, 4))
case("norm", lambda s, x: torch.norm(x, p=1, dim=-1, keepdim=True), F32(2, 3, 4), name="norm_p1")
case("frobenius_norm", lambda s, x: torch.frobenius_norm(x, dim=(1, 2)), F32(2, 3, 4))
case("linalg_norm", lambda s, x: torch.linalg.norm(x, dim=1), F32(2, 3, 4))
case("linalg_vector_norm", lambda s, x: torch.linalg.vector_norm(x, ord=3, dim=-1), F32(2, 3, 4))
case("linalg_matrix_norm", lambda s, x: torch.linalg.matrix_norm(x), F32(2, 3, 4))
case("linalg_det", lambda s, x: torch.linalg.det(x), F32(2, 3, 3))
case("logdet", lambda s, x: torch.logdet(x @ x.transpose(1, 2) + torch.eye(3)), F32(2, 3, 3))
case("logdet", lambda s, x: torch.logdet(x), F32(4, 3, 3), name="logdet_any_sign",
     note="negative determinants give NaN")
case("linalg_det", lambda s, x: torch.det(x), F32(3, 4, 4), name="det")
case("logdet", lambda s, x: torch.slogdet(x), F32(3, 4, 4), name="slogdet",
     note="slogdet is traced as linalg_slogdet")

# -- linear algebra ---------------------------------------------------------
case("addmm", lambda s, b, x, y: torch.addmm(b, x, y, beta=0.5, alpha=2.0), F32(4), F32(3, 5), F32(5, 4))
case("baddbmm", lambda s, b, x, y: torch.baddbmm(b, x, y, beta=0.5, alpha=1.5), F32(2, 3, 4), F32(2, 3, 5), F32(2, 5, 4))
case("bmm", lambda s, x, y: torch.bmm(x, y), F32(2, 3, 5), F32(2, 5, 4))
case("mm", lambda s, x, y: torch.mm(x, y), F32(3, 5), F32(5, 4))
case("mv", lambda s, x, y: torch.mv(x, y), F32(3, 5), F32(5))
case("dot", lambda s, x, y: torch.dot(x, y), F32(5), F32(5))
case("matmul", lambda s, x, y: x @ y, F32(2, 3, 5), F32(5, 4))
case("matmul", lambda s, x, y: torch.matmul(x, y), F32(5), F32(2, 5, 4), name="matmul_vector")
case("outer", lambda s, x, y: torch.outer(x, y), F32(3), F32(4))
case("tensordot", lambda s, x, y: torch.tensordot(x, y, dims=([1, 2], [0, 1])), F32(2, 3, 4), F32(3, 4, 5))
case("einsum", lambda s, x, y: torch.einsum("bij,bjk->bik", x, y), F32(2, 3, 5), F32(2, 5, 4))
case("linear", lambda s, x: s.m(x), F32(2, 3, 4), module=M(lambda: nn.Linear(4, 5)))
case("linear", lambda s, x: F.linear(x, s.m.weight), F32(2, 4), module=M(lambda: nn.Linear(4, 5)), name="linear_nobias")
case("cross", lambda s, x, y: torch.cross(x, y, dim=1), F32(2, 3, 4), F32(2, 3, 4))
case("linalg_cross", lambda s, x, y: torch.linalg.cross(x, y), F32(2, 4, 3), F32(2, 4, 3))
case("cdist", lambda s, x, y: torch.cdist(x, y), F32(2, 3, 4), F32(2, 5, 4))
case("cosine_similarity", lambda s, x, y: F.cosine_similarity(x, y, dim=1), F32(2, 3, 4), F32(2, 3, 4))
case("pairwise_distance", lambda s, x, y: F.pairwise_distance(x, y), F32(3, 4), F32(3, 4))

# -- shapes and views -------------------------------------------------------
case("view", lambda s, x: x.view(6, 4), F32(2, 3, 4))
case("view", lambda s, x: x.view(x.size(0), -1), F32(2, 3, 4), name="view_dynamic")
case("view_as", lambda s, x, y: x.view_as(y), F32(2, 3, 4), F32(6, 4))
case("reshape", lambda s, x: x.reshape(4, -1), F32(2, 3, 4))
case("reshape_as", lambda s, x, y: x.reshape_as(y), F32(2, 3, 4), F32(4, 6))
case("_reshape_from_tensor", lambda s, x: torch._reshape_from_tensor(x, torch.tensor([4, 6])), F32(2, 3, 4))
case("flatten", lambda s, x: torch.flatten(x, 1), F32(2, 3, 4))
case("squeeze", lambda s, x: torch.squeeze(x, 1), F32(2, 1, 4))
case("squeeze", lambda s, x: torch.squeeze(x), F32(2, 1, 4, 1), name="squeeze_all")
case("unsqueeze", lambda s, x: torch.unsqueeze(x, -1), F32(2, 3, 4))
case("transpose", lambda s, x: torch.transpose(x, 0, 2), F32(2, 3, 4))
case("t", lambda s, x: x.t(), F32(3, 4))
case("numpy_T", lambda s, x: x.T, F32(2, 3, 4))
case("permute", lambda s, x: x.permute(2, 0, 1), F32(2, 3, 4))
case("movedim", lambda s, x: torch.movedim(x, 0, -1), F32(2, 3, 4))
case("expand", lambda s, x: x.expand(2, 3, 4), F32(3, 1))
case("expand_as", lambda s, x, y: x.expand_as(y), F32(3, 1), F32(2, 3, 4))
case("contiguous", lambda s, x: x.transpose(0, 1).contiguous(), F32(2, 3, 4))
case("alias", lambda s, x: aten.alias(x) + 1, F32(2, 3, 4))
case("as_strided", lambda s, x: torch.as_strided(x, (3, 2), (1, 3), 1), F32(2, 3, 4))
case("broadcast_tensors", lambda s, x, y: torch.broadcast_tensors(x, y), F32(3, 1), F32(2, 1, 4))
case("size", lambda s, x: x.new_zeros(x.size(1), x.size(2)) + x.size(0), F32(2, 3, 4))
case("numel", lambda s, x: x / x.numel(), F32(2, 3, 4))
case("_shape_as_tensor", lambda s, x: torch._shape_as_tensor(x), F32(2, 3, 4))
case("select", lambda s, x: x[:, 1], F32(2, 3, 4))
case("slice", lambda s, x: x[:, 1:3, ::2], F32(2, 3, 4))
case("narrow", lambda s, x: torch.narrow(x, 2, 1, 2), F32(2, 3, 4))
case("unbind", lambda s, x: torch.unbind(x, dim=1), F32(2, 3, 4))
case("chunk", lambda s, x: torch.chunk(x, 2, dim=2), F32(2, 3, 4))
case("unsafe_chunk", lambda s, x: torch.unsafe_chunk(x, 3, dim=1), F32(2, 3, 4))
case("split", lambda s, x: torch.split(x, 3, dim=2), F32(2, 3, 5))
case("split_with_sizes", lambda s, x: torch.split(x, [1, 3], dim=2), F32(2, 3, 4))
case("unsafe_split", lambda s, x: torch.unsafe_split(x, 2, dim=2), F32(2, 3, 4))
case("unsafe_split_with_sizes", lambda s, x: torch.unsafe_split_with_sizes(x, [2, 1], dim=1), F32(2, 3, 4))
case("tensor_split", lambda s, x: torch.tensor_split(x, 3, dim=2), F32(2, 3, 5))
case("cat", lambda s, x, y: torch.cat([x, y], dim=1), F32(2, 3, 4), F32(2, 2, 4))
case("stack", lambda s, x, y: torch.stack([x, y], dim=1), F32(2, 3, 4), F32(2, 3, 4))
case("flip", lambda s, x: torch.flip(x, [0, 2]), F32(2, 3, 4))
case("roll", lambda s, x: torch.roll(x, (1, -2), (1, 2)), F32(2, 3, 4))
case("roll", lambda s, x: torch.roll(x, 5), F32(2, 3, 4), name="roll_flat")
case("repeat", lambda s, x: x.repeat(2, 1, 3), F32(2, 3, 4))
case("repeat_interleave", lambda s, x: torch.repeat_interleave(x, 2, dim=1), F32(2, 3, 4))
case("tril", lambda s, x: torch.tril(x, -1), F32(2, 4, 4))
case("triu", lambda s, x: torch.triu(x, 1), F32(2, 4, 4))
case("diagonal", lambda s, x: torch.diagonal(x, 1, 1, 2), F32(2, 4, 4))
case("unfold", lambda s, x: x.unfold(2, 2, 1), F32(2, 3, 4))
case("meshgrid", lambda s, x, y: torch.meshgrid(x, y, indexing="ij"), F32(3), F32(4))
case("pixel_shuffle", lambda s, x: F.pixel_shuffle(x, 2), F32(1, 8, 3, 3))
case("pixel_unshuffle", lambda s, x: F.pixel_unshuffle(x, 2), F32(1, 2, 4, 6))
case("im2col", lambda s, x: F.unfold(x, kernel_size=2, stride=1, padding=1), F32(1, 2, 4, 4))

# -- dtype conversions ------------------------------------------------------
for t in ["Byte", "Char", "Short", "Int", "Long", "Float", "Double", "Half"]:
    case("_cast_" + t, (lambda n: lambda s, x: getattr(torch, "_cast_" + n)(x * 4))(t), F32(2, 3, 4))
untraced("no aten operator of this name exists in PyTorch 1.13 (the ONNX exporter keeps the symbolic for "
         "archives of older versions)", "_cast_Bool", "_cast_BFloat16", "_cast_ComplexFloat", "_cast_ComplexDouble")
case("to", lambda s, x: x.to(torch.int64), F32(2, 3, 4))
case("to", lambda s, x: (x > 0).to(torch.float32), F32(2, 3, 4), name="to_from_bool")
case("to", lambda s, x: x.to(torch.float64), F32(2, 3, 4), name="to_double")
case("type_as", lambda s, x, y: x.type_as(y), I64(-5, 5, 2, 3), F32(2, 3))

# -- creation ---------------------------------------------------------------
case("zeros", lambda s, x: torch.zeros(x.shape) + x, F32(2, 3))
case("ones", lambda s, x: torch.ones(x.size(0), 4), F32(2, 3))
case("full", lambda s, x: torch.full((x.size(0), 4), 2.5), F32(2, 3))
case("zeros_like", lambda s, x: torch.zeros_like(x), F32(2, 3))
case("ones_like", lambda s, x: torch.ones_like(x, dtype=torch.int64), F32(2, 3))
case("full_like", lambda s, x: torch.full_like(x, 7.0), F32(2, 3))
case("new_zeros", lambda s, x: x.new_zeros((x.size(1), 2)), F32(2, 3))
case("new_ones", lambda s, x: x.new_ones((2, x.size(0))), F32(2, 3))
case("new_full", lambda s, x: x.new_full((x.size(1),), -1.5), F32(2, 3))
case("empty", lambda s, x: torch.empty(x.size(0), 5), F32(2, 3), check="shape")
case("empty_like", lambda s, x: torch.empty_like(x), F32(2, 3), check="shape")
case("new_empty", lambda s, x: x.new_empty((x.size(1), 2)), F32(2, 3), check="shape")
case("arange", lambda s, x: x + torch.arange(x.size(1)), F32(2, 3))
case("arange", lambda s, x: torch.arange(1, x.size(1) * 2, 2), F32(2, 5), name="arange_step")
case("arange", lambda s, x: x + torch.arange(0.5, 2.0, 0.5), F32(2, 3), name="arange_float")
case("_dim_arange", lambda s, x: torch._dim_arange(x, 1), F32(2, 3))
case("linspace", lambda s, x: x + torch.linspace(-1.0, 1.0, 5), F32(2, 5))
case("eye", lambda s, x: x + torch.eye(x.size(0), 3), F32(3, 3))
case("hann_window", lambda s, x: x * torch.hann_window(x.size(1)), F32(2, 8))
case("scalar_tensor", lambda s, x: x + torch.scalar_tensor(2.5), F32(2, 3))
case("tensor", lambda s, x: x + torch.tensor([1.0, 2.0, 3.0]), F32(2, 3))
case("as_tensor", lambda s, x: torch.as_tensor(x, dtype=torch.float64), F32(2, 3))
case("fill", lambda s, x: x.clone().fill_(2.0) * x, F32(2, 3), note="torch.fill(x, v) itself fails to trace in PyTorch 1.13")
case("one_hot", lambda s, x: F.one_hot(x, 5), I64(0, 5, 2, 3))

# -- random sampling --------------------------------------------------------
case("rand", lambda s, x: torch.rand(x.size(0), 1000), F32(2, 3), check="range:0:1")
case("rand_like", lambda s, x: torch.rand_like(x), F32(20, 30), check="range:0:1")
case("randn", lambda s, x: torch.randn(x.size(0), 1000), F32(2, 3), check="range:-inf:inf")
case("randn_like", lambda s, x: torch.randn_like(x), F32(20, 30), check="range:-inf:inf")
case("bernoulli", lambda s, x: torch.bernoulli(x), Prob(20, 30), check="range:0:1")
case("normal", lambda s, x, y: torch.normal(x, y), F32(20, 30), Pos(20, 30), check="range:-inf:inf")
case("multinomial", lambda s, x: torch.multinomial(x, 4, replacement=True), Pos(3, 6), check="range:0:5")
case("multinomial", lambda s, x: torch.multinomial(x, 4), Pos(3, 6), check="range:0:5", name="multinomial_no_replacement")
case("multinomial", lambda s, x: torch.multinomial(x, 2, replacement=True), Pos(6), check="range:0:5", name="multinomial_vector")
case("bernoulli", lambda s, x: torch.bernoulli(x, 0.3), F32(20, 30), check="range:0:1", name="bernoulli_p")
case("normal", lambda s, x: torch.normal(x, 0.5), F32(20, 30), check="range:-inf:inf", name="normal_tensor_float")
case("normal", lambda s, x: x + torch.normal(2.0, 0.5, (20, 30)), F32(20, 30), check="range:-inf:inf",
     name="normal_float_float")
case("rand", lambda s, x: x + torch.rand(2, 3, dtype=torch.float64), F32(2, 3), check="range:-inf:inf",
     name="rand_float64")
case("_sample_dirichlet", lambda s, x: torch._sample_dirichlet(x), Pos(10, 4), check="range:0:1")
case("_standard_gamma", lambda s, x: torch._standard_gamma(x), Pos(10, 4), check="range:0:inf")
case("rrelu", lambda s, x: F.rrelu(x, 0.1, 0.3, training=True), F32(20, 30), check="range:-inf:inf",
     name="rrelu_training", note="training mode samples slopes")

# -- indexing ---------------------------------------------------------------
case("gather", lambda s, x, i: torch.gather(x, 1, i), F32(2, 3, 4), I64(0, 3, 2, 2, 4))
case("scatter", lambda s, x, i, v: torch.scatter(x, 1, i, v), F32(2, 3, 4), I64(0, 3, 2, 1, 4), F32(2, 1, 4))
case("scatter", lambda s, x, i: torch.scatter(x, 2, i, 5.0), F32(2, 3, 4), I64(0, 4, 2, 3, 1), name="scatter_value")
case("scatter_add", lambda s, x, i, v: torch.scatter_add(x, 1, i, v), F32(2, 3, 4), I64(0, 3, 2, 5, 4), F32(2, 5, 4))
case("index_select", lambda s, x, i: torch.index_select(x, 1, i), F32(2, 3, 4), I64(0, 3, 5))
case("index", lambda s, x, i: x[i], F32(4, 3), I64(0, 4, 2, 3))
case("index", lambda s, x, i, j: x[:, i, j], F32(2, 3, 4), I64(0, 3, 5), I64(0, 4, 5), name="index_two")
case("index", lambda s, x, m: x[m], F32(4, 3), Bool(4, 3), name="index_mask")
case("index_add", lambda s, x, i, v: torch.index_add(x, 1, i, v, alpha=2.0), F32(2, 3, 4), I64(0, 3, 2), F32(2, 2, 4))
case("index_copy", lambda s, x, v: torch.index_copy(x, 1, torch.tensor([2, 0]), v), F32(2, 3, 4), F32(2, 2, 4))
case("index_fill", lambda s, x, i: torch.index_fill(x, 2, i, -1.0), F32(2, 3, 4), I64(0, 4, 2))
case("index_put", lambda s, x, i, v: torch.index_put(x, (i,), v), F32(4, 3), I64(0, 4, 2), F32(2, 3))
case("index_put", lambda s, x, i, v: torch.index_put(x, (i,), v, accumulate=True), F32(4, 3), I64(0, 4, 5), F32(5, 3),
     name="index_put_accumulate")
case("index_put", lambda s, x, m: x.masked_fill(m, 0.0).index_put((m,), torch.tensor(3.0)), F32(4, 3), Bool(4, 3),
     name="index_put_mask")
case("masked_fill", lambda s, x, m: x.masked_fill(m, -2.0), F32(2, 3, 4), Bool(3, 4))
case("masked_scatter", lambda s, x, m, v: x.masked_scatter(m, v), F32(2, 3), Bool(2, 3), F32(2, 3))
case("masked_select", lambda s, x, m: torch.masked_select(x, m), F32(2, 3), Bool(2, 3))
case("take", lambda s, x, i: torch.take(x, i), F32(2, 3), I64(0, 6, 4))
case("nonzero", lambda s, x: torch.nonzero(x), I64(0, 2, 3, 4))
case("nonzero_numpy", lambda s, x: torch.nonzero(x > 0, as_tuple=True), F32(3, 4))
case("topk", lambda s, x: torch.topk(x, 2, dim=1), F32(2, 5, 4))
case("topk", lambda s, x: torch.topk(x, 3, largest=False), F32(2, 3, 5), name="topk_smallest")
case("sort", lambda s, x: torch.sort(x, dim=-1), F32(2, 3, 5))
case("sort", lambda s, x: torch.sort(x, dim=1, descending=True), F32(2, 5, 3), name="sort_descending")
case("argsort", lambda s, x: torch.argsort(x, dim=1), F32(2, 5, 3))
case("bucketize", lambda s, x: torch.bucketize(x, torch.tensor([-1.0, 0.0, 0.5, 1.0])), F32(2, 3, 4))
case("unique_dim", lambda s, x: torch.unique(x, dim=0), I64(0, 2, 5, 2))
case("_unique", lambda s, x: torch._unique(x, sorted=True, return_inverse=True), I64(0, 5, 8))
case("_unique2", lambda s, x: torch.unique(x, return_inverse=True, return_counts=True), I64(0, 5, 8))

# -- pooling ----------------------------------------------------------------
case("adaptive_avg_pool1d", lambda s, x: F.adaptive_avg_pool1d(x, 3), F32(2, 3, 7))
case("adaptive_avg_pool2d", lambda s, x: F.adaptive_avg_pool2d(x, (2, 3)), F32(1, 3, 5, 7))
case("adaptive_avg_pool3d", lambda s, x: F.adaptive_avg_pool3d(x, 2), F32(1, 2, 4, 4, 6))
case("adaptive_max_pool1d", lambda s, x: F.adaptive_max_pool1d(x, 2), F32(2, 3, 6))
case("adaptive_max_pool2d", lambda s, x: F.adaptive_max_pool2d(x, 1), F32(1, 3, 5, 7))
case("adaptive_max_pool2d", lambda s, x: F.adaptive_max_pool2d(x, (2, 3)), F32(1, 3, 4, 6), name="adaptive_max_pool2d_2x3")
case("adaptive_max_pool3d", lambda s, x: F.adaptive_max_pool3d(x, 2), F32(1, 2, 4, 4, 4))
case("avg_pool1d", lambda s, x: F.avg_pool1d(x, 3, 2, 1), F32(2, 3, 8))
case("avg_pool2d", lambda s, x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), F32(1, 3, 7, 7))
case("avg_pool2d", lambda s, x: F.avg_pool2d(x, 2, 2, ceil_mode=True), F32(1, 3, 5, 5), name="avg_pool2d_ceil")
case("avg_pool3d", lambda s, x: F.avg_pool3d(x, 2), F32(1, 2, 4, 4, 4))
case("max_pool1d", lambda s, x: F.max_pool1d(x, 3, 2), F32(2, 3, 8))
case("max_pool2d", lambda s, x: F.max_pool2d(x, 3, 2, 1), F32(1, 3, 7, 7))
case("max_pool2d", lambda s, x: F.max_pool2d(x, 2, 2, ceil_mode=True), F32(1, 3, 5, 5), name="max_pool2d_ceil")
case("max_pool3d", lambda s, x: F.max_pool3d(x, 2), F32(1, 2, 4, 4, 4))
case("max_pool1d_with_indices", lambda s, x: F.max_pool1d(x, 2, return_indices=True), F32(2, 3, 8))
case("max_pool2d_with_indices", lambda s, x: F.max_pool2d(x, 2, return_indices=True), F32(1, 3, 4, 6))
case("max_pool3d_with_indices", lambda s, x: F.max_pool3d(x, 2, return_indices=True), F32(1, 2, 4, 4, 4))

# -- padding ----------------------------------------------------------------
# F.pad records aten::pad in PyTorch 1.13; each padding op is also called
# directly, which records the op itself.
case("pad", lambda s, x: F.pad(x, (1, 2, 0, 1), value=0.5), F32(1, 2, 3, 4))
case("pad", lambda s, x: aten.pad(x, [1, 1], "reflect"), F32(1, 2, 5), name="pad_reflect")
case("constant_pad_nd", lambda s, x: torch.constant_pad_nd(x, [1, 2, 0, 1], 0.5), F32(1, 2, 3, 4))
case("_pad_circular", lambda s, x: aten._pad_circular(x, [2, 1, 1, 1]), F32(1, 2, 4, 5))
case("_pad_circular", lambda s, x: F.pad(x, (2, 1, 1, 1), mode="circular"), F32(1, 2, 4, 5),
     name="_pad_circular_functional")
for mode, prefix in [("reflect", "reflection_pad"), ("replicate", "replication_pad")]:
    for rank, pads, shape in [(1, [2, 1], (1, 2, 5)), (2, [2, 1, 1, 2], (1, 2, 4, 5)),
                              (3, [1, 1, 1, 0, 0, 1], (1, 2, 3, 4, 4))]:
        op = "%s%dd" % (prefix, rank)
        case(op, (lambda f, p: lambda s, x: f(x, p))(getattr(aten, op), pads), F32(*shape))
        case(op, (lambda m, p: lambda s, x: F.pad(x, p, mode=m))(mode, tuple(pads)), F32(*shape),
             name=op + "_functional")

# -- resampling -------------------------------------------------------------
case("upsample_nearest1d", lambda s, x: F.interpolate(x, scale_factor=2, mode="nearest"), F32(1, 2, 5))
case("upsample_nearest2d", lambda s, x: F.interpolate(x, size=(5, 7), mode="nearest"), F32(1, 2, 3, 4))
case("upsample_nearest3d", lambda s, x: F.interpolate(x, scale_factor=2, mode="nearest"), F32(1, 2, 2, 3, 3))
case("upsample_linear1d", lambda s, x: F.interpolate(x, size=9, mode="linear", align_corners=False), F32(1, 2, 5))
case("upsample_bilinear2d", lambda s, x: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False),
     F32(1, 2, 3, 4))
case("upsample_bilinear2d", lambda s, x: F.interpolate(x, size=(5, 7), mode="bilinear", align_corners=True),
     F32(1, 2, 3, 4), name="upsample_bilinear2d_align")
case("upsample_bicubic2d", lambda s, x: F.interpolate(x, size=(6, 7), mode="bicubic", align_corners=False),
     F32(1, 2, 3, 4))
case("upsample_trilinear3d", lambda s, x: F.interpolate(x, scale_factor=2, mode="trilinear", align_corners=False),
     F32(1, 2, 2, 3, 3))
case("grid_sampler", lambda s, x, g: F.grid_sample(x, g, mode="bilinear", padding_mode="zeros", align_corners=False),
     F32(1, 2, 4, 5), Unit(1, 3, 3, 2))

# -- convolution ------------------------------------------------------------
case("_convolution", lambda s, x: s.m(x), F32(1, 3, 6, 6), module=M(lambda: nn.Conv2d(3, 4, 3, padding=1)))
case("convolution", lambda s, x: torch.convolution(x, s.m.weight, s.m.bias, [1, 1], [1, 1], [1, 1], False, [0, 0], 1),
     F32(1, 3, 6, 6), module=M(lambda: nn.Conv2d(3, 4, 3)))
case("conv1d", lambda s, x: F.conv1d(x, s.m.weight, s.m.bias, stride=2, padding=1), F32(1, 3, 9),
     module=M(lambda: nn.Conv1d(3, 4, 3)))
case("conv2d", lambda s, x: F.conv2d(x, s.m.weight, s.m.bias, padding=1, groups=1), F32(1, 3, 6, 6),
     module=M(lambda: nn.Conv2d(3, 4, 3)))
case("conv2d", lambda s, x: s.m(x), F32(1, 3, 6, 6), module=M(lambda: nn.Conv2d(3, 4, 3, padding="same")),
     name="conv2d_same")
case("conv3d", lambda s, x: F.conv3d(x, s.m.weight, s.m.bias, padding=1), F32(1, 2, 4, 4, 4),
     module=M(lambda: nn.Conv3d(2, 3, 3)))
case("conv_transpose1d", lambda s, x: s.m(x), F32(1, 3, 5), module=M(lambda: nn.ConvTranspose1d(3, 2, 3, stride=2)))
case("conv_transpose2d", lambda s, x: s.m(x), F32(1, 3, 4, 4),
     module=M(lambda: nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1, output_padding=1)))
case("conv_transpose3d", lambda s, x: s.m(x), F32(1, 2, 3, 3, 3), module=M(lambda: nn.ConvTranspose3d(2, 2, 2, stride=2)))
case("conv_tbc", lambda s, x: torch.conv_tbc(x, s.m.weight.permute(2, 1, 0).contiguous(), s.m.bias, 1),
     F32(6, 2, 3), module=M(lambda: nn.Conv1d(3, 4, 3)), note="input is (time, batch, channels)")

# -- normalization ----------------------------------------------------------
case("batch_norm", lambda s, x: s.m(x), F32(2, 3, 4, 4), module=M(lambda: nn.BatchNorm2d(3)))
case("batch_norm", lambda s, x: s.m(x), F32(2, 3, 5), module=M(lambda: nn.BatchNorm1d(3)), name="batch_norm_1d")
case("instance_norm", lambda s, x: s.m(x), F32(2, 3, 4, 4), module=M(lambda: nn.InstanceNorm2d(3, affine=True)))
case("layer_norm", lambda s, x: s.m(x), F32(2, 3, 4), module=M(lambda: nn.LayerNorm(4)))
case("native_layer_norm", lambda s, x: torch.native_layer_norm(x, [3, 4], s.m.weight, s.m.bias, 1e-5), F32(2, 3, 4),
     module=M(lambda: nn.LayerNorm([3, 4])))
case("group_norm", lambda s, x: s.m(x), F32(2, 4, 3, 3), module=M(lambda: nn.GroupNorm(2, 4)))
case("_weight_norm", lambda s, x: s.m(x), F32(2, 4), module=M(lambda: nn.utils.weight_norm(nn.Linear(4, 3))))

# -- dropout (eval: the identity) -------------------------------------------
case("dropout", lambda s, x: F.dropout(x, 0.5, training=False), F32(2, 3, 4))
case("dropout_", lambda s, x: F.dropout(x * 1, 0.5, training=False, inplace=True), F32(2, 3, 4))
case("alpha_dropout", lambda s, x: F.alpha_dropout(x, 0.5, training=False), F32(2, 3, 4))
case("alpha_dropout_", lambda s, x: F.alpha_dropout(x * 1, 0.5, training=False, inplace=True), F32(2, 3, 4))
case("feature_dropout", lambda s, x: F.dropout2d(x, 0.5, training=False), F32(2, 3, 4, 4))
case("feature_dropout_", lambda s, x: F.dropout2d(x * 1, 0.5, training=False, inplace=True), F32(2, 3, 4, 4))
case("feature_alpha_dropout", lambda s, x: F.feature_alpha_dropout(x, 0.5, training=False), F32(2, 3, 4, 4))
case("feature_alpha_dropout_", lambda s, x: F.feature_alpha_dropout(x * 1, 0.5, training=False, inplace=True),
     F32(2, 3, 4, 4))
case("native_dropout", lambda s, x: torch.native_dropout(x, 0.5, False), F32(2, 3, 4))
case("dropout", lambda s, x: F.dropout(x, 0.5, training=True), F32(20, 30), name="dropout_training",
     check="range:-inf:inf", note="training mode: random mask, values 0 or 2x")
case("dropout_", lambda s, x: F.dropout(x * 1, 0.25, training=True, inplace=True), F32(20, 30),
     name="dropout_training_inplace", check="range:-inf:inf", note="training mode: random mask")

# -- embeddings -------------------------------------------------------------
case("embedding", lambda s, i: s.m(i), I64(0, 10, 2, 3), module=M(lambda: nn.Embedding(10, 4)))
case("embedding_bag", lambda s, i, o: s.m(i, o), I64(0, 10, 6), Fixed(0, 2, 4),
     module=M(lambda: nn.EmbeddingBag(10, 4, mode="mean")), note="the second input is the bags' offsets")
case("embedding_renorm", lambda s, i: s.m(i), I64(0, 10, 2, 3), module=M(lambda: nn.Embedding(10, 4, max_norm=1.0)),
     note="max_norm renormalizes the weight rows in place")

# -- losses -----------------------------------------------------------------
case("binary_cross_entropy_with_logits", lambda s, x, y: F.binary_cross_entropy_with_logits(x, y), F32(3, 4), Prob(3, 4))
case("cross_entropy_loss", lambda s, x, y: F.cross_entropy(x, y), F32(4, 5), I64(0, 5, 4))
case("cross_entropy_loss", lambda s, x, y: F.cross_entropy(x, y, label_smoothing=0.1, reduction="none"),
     F32(2, 5, 3), I64(0, 5, 2, 3), name="cross_entropy_loss_smoothing")
case("nll_loss", lambda s, x, y: aten.nll_loss(F.log_softmax(x, 1), y, None, 1, -100), F32(4, 5), I64(0, 5, 4))
case("nll_loss", lambda s, x, y: F.nll_loss(F.log_softmax(x, 1), y), F32(4, 5), I64(0, 5, 4), name="nll_loss_functional")
case("nll_loss2d", lambda s, x, y: aten.nll_loss2d(F.log_softmax(x, 1), y, None, 2, -100), F32(2, 5, 3, 3),
     I64(0, 5, 2, 3, 3))
case("nll_loss2d", lambda s, x, y: F.nll_loss(F.log_softmax(x, 1), y, reduction="sum"), F32(2, 5, 3, 3),
     I64(0, 5, 2, 3, 3), name="nll_loss2d_functional")
case("nll_loss_nd", lambda s, x, y: F.nll_loss(F.log_softmax(x, 1), y, ignore_index=1), F32(2, 5, 3, 2, 2),
     I64(0, 5, 2, 3, 2, 2))
case("kl_div", lambda s, x, y: F.kl_div(F.log_softmax(x, 1), y, reduction="batchmean"), F32(3, 4), Prob(3, 4))

# -- recurrent --------------------------------------------------------------
case("lstm", lambda s, x: s.m(x)[0], F32(5, 2, 3), module=M(lambda: nn.LSTM(3, 4)))
case("lstm", lambda s, x: s.m(x), F32(2, 5, 3), module=M(lambda: nn.LSTM(3, 4, num_layers=2, batch_first=True,
                                                                          bidirectional=True)),
     name="lstm_bidirectional")
case("lstm_cell", lambda s, x: s.m(x), F32(2, 3), module=M(lambda: nn.LSTMCell(3, 4)))
case("gru", lambda s, x: s.m(x), F32(5, 2, 3), module=M(lambda: nn.GRU(3, 4)))
case("rnn_tanh", lambda s, x: s.m(x), F32(5, 2, 3), module=M(lambda: nn.RNN(3, 4)))
case("rnn_relu", lambda s, x: s.m(x), F32(5, 2, 3), module=M(lambda: nn.RNN(3, 4, nonlinearity="relu")))


def packed_lstm(s, x):
    packed = nn.utils.rnn.pack_padded_sequence(x, torch.tensor([5, 3]), batch_first=False)
    out, _ = s.m(packed)
    return nn.utils.rnn.pad_packed_sequence(out)[0]


case("_pack_padded_sequence", packed_lstm, F32(5, 2, 3), module=M(lambda: nn.LSTM(3, 4)), note="lengths 5, 3")
case("_pad_packed_sequence", packed_lstm, F32(5, 2, 3), module=M(lambda: nn.LSTM(3, 4)), note="lengths 5, 3")

# -- quantization -----------------------------------------------------------
case("quantize_per_tensor", lambda s, x: torch.quantize_per_tensor(x, 0.05, 10, torch.quint8).int_repr(), F32(2, 3, 4))
case("dequantize", lambda s, x: torch.quantize_per_tensor(x, 0.05, 10, torch.quint8).dequantize(), F32(2, 3, 4))
case("fake_quantize_per_tensor_affine", lambda s, x: torch.fake_quantize_per_tensor_affine(x, 0.05, 3, 0, 255),
     F32(2, 3, 4))
case("fake_quantize_per_channel_affine",
     lambda s, x: torch.fake_quantize_per_channel_affine(x, torch.tensor([0.05, 0.1, 0.02]), torch.tensor([0, 5, 2],
                                                         dtype=torch.int32), 1, -128, 127), F32(2, 3, 4))

# ---------------------------------------------------------------------------


class Traced(nn.Module):
    """The traced module: forward calls the case's function."""

    def __init__(self, fn, module):
        super().__init__()
        self.fn = fn
        if module is not None:
            self.m = module


def forward_of(arity):
    # torch.jit.trace names forward's parameters after the Python ones.
    names = ["x", "y", "z", "w"][:arity]
    src = "def forward(self, %s):\n    return self.fn(self, %s)\n" % (", ".join(names), ", ".join(names))
    scope = {}
    exec(src, scope)
    return scope["forward"]


def save_pb(t, path):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(t.detach().contiguous().numpy()).SerializeToString())


def flatten(out):
    if isinstance(out, (tuple, list)):
        res = []
        for o in out:
            res.extend(flatten(o))
        return res
    return [out]


def seed_of(name):
    return zlib.crc32(name.encode()) & 0x7FFFFFFF


def aten_kinds(traced):
    kinds = set()

    def walk(graph):
        for n in graph.nodes():
            if n.kind().startswith("aten::"):
                kinds.add(n.kind()[len("aten::"):])
            for b in n.blocks():
                walk(b)

    # The inlined graph holds the ops of submodules too.
    walk(traced.inlined_graph)
    return kinds


def registry_ops():
    from torch.onnx._internal import registration
    import torch.onnx.symbolic_opset17  # noqa: F401  (fills the registry up to opset 17)
    return sorted(n[len("aten::"):] for n in registration.registry.all_functions()
                  if n.startswith("aten::") and registration.registry.is_registered_op(n, 17))


def make_case(c, out):
    torch.manual_seed(seed_of(c.name))
    gen = torch.Generator().manual_seed(seed_of(c.name))
    inputs = [i.make(gen) for i in c.inputs]
    module = c.module() if c.module is not None else None
    if c.script is not None:
        m = c.script().eval()
    else:
        cls = type("Case_" + c.name.strip("_"), (Traced,), {"forward": forward_of(len(inputs))})
        m = cls(c.fn, module).eval()
    with torch.no_grad():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.manual_seed(seed_of(c.name) + 1)
            if c.script is not None:
                traced = torch.jit.script(m)
            else:
                traced = torch.jit.trace(m, tuple(inputs), check_trace=False)
            torch.manual_seed(seed_of(c.name) + 1)
            want = flatten(m(*inputs))
    if c.check == "shape":
        # Undefined values (torch.empty): keep the files the same run to run.
        want = [torch.zeros_like(t) for t in want]
    d = os.path.join(out, c.name)
    data = os.path.join(d, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    traced.save(os.path.join(d, "scripted.pt" if c.script is not None else "traced.pt"))
    for i, t in enumerate(inputs):
        save_pb(t, os.path.join(data, "input_%d.pb" % i))
    for i, t in enumerate(want):
        if not isinstance(t, torch.Tensor):
            raise ValueError("output %d is a %s, not a tensor" % (i, type(t).__name__))
        save_pb(t, os.path.join(data, "output_%d.pb" % i))
    return aten_kinds(traced)


def check_table(ops):
    names = set()
    for c in CASES:
        if c.name in names:
            raise SystemExit("duplicate case name %s" % c.name)
        names.add(c.name)
    covered = {c.op for c in CASES} | set(NOT_TRACED)
    missing = [op for op in ops if op not in covered]
    extra = sorted(covered - set(ops))
    if missing or extra:
        raise SystemExit("the case table does not match the registry: missing %s; not in the registry %s" % (
            missing, extra))


def main(argv):
    ops = registry_ops()
    check_table(ops)
    if argv and argv[0] == "--list":
        for c in CASES:
            print("%s\t%s\t%s" % (c.op, c.name, ";".join(i.spec() for i in c.inputs)))
        return 0
    out = argv[0] if argv else "aten-registry"
    only = set(argv[1:])
    os.makedirs(out, exist_ok=True)
    rows, failed = [], 0
    for c in CASES:
        if only and c.name not in only and c.op not in only:
            continue
        shutil.rmtree(os.path.join(out, c.name), ignore_errors=True)
        note = c.note
        try:
            kinds = make_case(c, out)
        except Exception as e:  # a case PyTorch cannot trace is reported, the others go on
            failed += 1
            print("FAILED %s: %s" % (c.name, str(e).splitlines()[0] if str(e) else type(e).__name__))
            shutil.rmtree(os.path.join(out, c.name), ignore_errors=True)
            continue
        if c.op not in kinds and c.op + "_" not in kinds:
            note = (note + "; " if note else "") + "traced as " + " ".join(sorted(kinds))
        rows.append("\t".join([c.op, c.name, ";".join(i.spec() for i in c.inputs), c.check,
                               ",".join(sorted(kinds)), note]))
    with open(os.path.join(out, "INDEX.tsv"), "w") as f:
        f.write("op\tcase\tinputs\tcheck\ttraced_kinds\tnote\n")
        f.write("".join(r + "\n" for r in rows))
    with open(os.path.join(out, "NOT_TRACED.tsv"), "w") as f:
        f.write("op\treason\n")
        for op in sorted(NOT_TRACED):
            f.write("%s\t%s\n" % (op, NOT_TRACED[op]))
    with open(os.path.join(out, "REGISTRY.txt"), "w") as f:
        f.write("".join(op + "\n" for op in ops))
    print("%d cases of %d registry ops written to %s (%d failed); %d ops not traceable alone" % (
        len(rows), len(ops), out, failed, len(NOT_TRACED)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
