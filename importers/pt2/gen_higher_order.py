#!/usr/bin/python3
"""Writes testdata/higher_order: .pt2 archives with torch.cond, torch.while_loop
and torch._higher_order_ops.map (map_impl) nodes, and the outputs they must give.

These archives are schema-built, not made by PyTorch: PyTorch 2 cannot run
here. Each starts from a real torch.export archive of PyTorch 2.6
(../shared/fixtures/torch2-ops/nn_linear/exported.pt2): its zip layout, its
version entry, its parameters (serialized_state_dict.pt, kept byte for byte:
fc.weight, fc.bias, fc_nobias.weight) and its constants are kept, and its
serialized program is rewritten to hold the higher-order node, written as
PyTorch 2.6's serializer (torch/_export/serde/serialize.py, schema 8.2)
writes one:
  - the target is torch.ops.higher_order.<name>; the arguments are
    positional, unnamed ("name": ""), in the operator's order (cond: pred,
    true_fn, false_fn, operands; while_loop: cond_fn, body_fn,
    carried_inputs, additional_inputs; map_impl: f, xs, pos_args);
  - a branch or body is {"as_graph": {"name": <submodule>, "graph": Graph}},
    a Graph with its own inputs, nodes, outputs and tensor_values; every
    tensor it reads (parameters too) is an operand, one graph input each,
    and so is a size it reads (listed by name among the tensors, a
    symbolic-int input of the subgraph);
  - a tensor list is "as_tensors"; a symbolic predicate is
    {"as_sym_bool": {"as_name": ...}} defined by an _operator comparison;
  - each result is one "as_tensor" named after its getitem user.
serialized_example_inputs.pt is rewritten with the new inputs (PyTorch
1.13's torch.save, which PyTorch 2.6 loads).

The expected outputs are computed independently, by the same computation in
PyTorch 1.13 eager with the archive's own weights. Each case directory
holds exported.pt2 and set<k>/x<i>.npy (inputs), set<k>/y<i>.npy (outputs).

    /usr/bin/python3 importers/pt2/gen_higher_order.py
"""
import copy
import io
import json
import os
import shutil
import sys
import zipfile
import zlib

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = os.path.join(HERE, "..", "..", "..", "shared", "fixtures", "torch2-ops", "nn_linear", "exported.pt2")
OUT = os.path.join(HERE, "testdata", "higher_order")

FLOAT, LONG, BOOL = 7, 5, 12  # torch.export ScalarType codes
S0 = "Symbol('s0', positive=True, integer=True)"


def size(d):
    if isinstance(d, int):
        return {"as_int": d}
    return {"as_expr": {"expr_str": d[0], "hint": {"as_int": d[1]}}}


def meta(shape, dtype=FLOAT):
    strides, step = [], 1
    for d in reversed(shape):
        strides.insert(0, {"as_int": step})
        step *= d if isinstance(d, int) else 1
    return {"dtype": dtype, "sizes": [size(d) for d in shape], "requires_grad": False,
            "device": {"type": "cpu"}, "strides": strides, "storage_offset": {"as_int": 0}, "layout": 7}


def t(name):
    return {"as_tensor": {"name": name}}


def ts(*names):
    return {"as_tensors": [{"name": n} for n in names]}


class Graph:
    """One serialized Graph: inputs, nodes, outputs and the metadata of its values."""

    def __init__(self):
        self.g = {"inputs": [], "outputs": [], "nodes": [], "tensor_values": {}, "sym_int_values": {},
                  "sym_bool_values": {}, "is_single_tensor_return": False, "custom_obj_values": {},
                  "sym_float_values": {}}

    def input(self, name, shape, dtype=FLOAT):
        self.g["inputs"].append(t(name))
        self.g["tensor_values"][name] = meta(shape, dtype)
        return name

    def op(self, target, args, outs, metadata=None):
        """args: (schema name, Argument) pairs; outs: (name, shape, dtype) tensors."""
        node = {"target": target, "inputs": [{"name": n, "arg": a} for n, a in args], "outputs": [],
                "metadata": metadata or {"nn_module_stack": "L__self__,,__main__.Model"}}
        for name, shape, dtype in outs:
            node["outputs"].append(t(name))
            self.g["tensor_values"][name] = meta(shape, dtype)
        self.g["nodes"].append(node)
        if not outs:
            return None
        return outs[0][0] if len(outs) == 1 else [o[0] for o in outs]

    def aten(self, op, args, name, shape, dtype=FLOAT):
        return self.op("torch.ops.aten." + op, args, [(name, shape, dtype)])

    def hop(self, op, args, outs):
        return self.op("torch.ops.higher_order." + op, [("", a) for a in args], outs)

    def output(self, *names):
        self.g["outputs"] = [t(n) for n in names]
        self.g["is_single_tensor_return"] = False
        return self.g

    def output_single(self, name):
        self.g["outputs"] = [t(name)]
        self.g["is_single_tensor_return"] = True
        return self.g


def sub(name, graph):
    return {"as_graph": {"name": name, "graph": graph}}


PARAMS = [("p_fc_weight", "fc.weight", [6, 8]), ("p_fc_bias", "fc.bias", [6]), ("p_fc_nobias_weight", "fc_nobias.weight", [6, 8])]


def program(base, g, user_inputs, outputs, ranges=None):
    """The base program with graph g: the parameters, then user_inputs, in and out."""
    ep = copy.deepcopy(base)
    gm = ep["graph_module"]
    specs = [{"parameter": {"arg": {"name": a}, "parameter_name": p}} for a, p, _ in PARAMS]
    specs += [{"user_input": {"arg": t(n)}} for n in user_inputs]
    gm["signature"]["input_specs"] = specs
    gm["signature"]["output_specs"] = [{"user_output": {"arg": t(n)}} for n in outputs]
    gm["graph"] = g
    for entry in gm["module_call_graph"]:
        entry["signature"] = None
    ep["range_constraints"] = ranges or {}
    return ep


def outer_graph(user):
    g = Graph()
    for a, _, shape in PARAMS:
        g.input(a, shape)
    for name, shape, dtype in user:
        g.input(name, shape, dtype)
    return g


def linear_branch(name, bias, post):
    """A cond branch on (x [3,8], w, b, w2): linear then post, and a second result."""
    b = Graph()
    x = b.input("arg0_1", [3, 8])
    w = b.input("arg1_1", [6, 8])
    bb = b.input("arg2_1", [6])
    w2 = b.input("arg3_1", [6, 8])
    if bias:
        lin = b.aten("linear.default", [("input", t(x)), ("weight", t(w)), ("bias", t(bb))], "linear", [3, 6])
        second = b.aten("mul.Tensor", [("self", t(x)), ("other", {"as_float": 2.0})], "mul", [3, 8])
    else:
        lin = b.aten("linear.default", [("input", t(x)), ("weight", t(w2))], "linear", [3, 6])
        second = b.aten("sub.Tensor", [("self", t(x)), ("other", {"as_float": 1.0})], "sub", [3, 8])
    out = b.aten(post + ".default", [("self", t(lin))], post, [3, 6])
    return sub(name, b.output(out, second))


def case_cond_tensor(base, w):
    """torch.cond(x.sum() > 0, relu(fc(x)), x * 2 | tanh(fc_nobias(x)), x - 1)."""
    g = outer_graph([("x", [3, 8], FLOAT)])
    s = g.aten("sum.default", [("self", t("x"))], "sum_1", [])
    gt = g.aten("gt.Scalar", [("self", t(s)), ("other", {"as_float": 0.0})], "gt", [], BOOL)
    g.hop("cond", [t(gt), linear_branch("true_graph_0", True, "relu"), linear_branch("false_graph_0", False, "tanh"),
                   ts("x", "p_fc_weight", "p_fc_bias", "p_fc_nobias_weight")],
          [("getitem", [3, 6], FLOAT), ("getitem_1", [3, 8], FLOAT)])
    ep = program(base, g.output("getitem", "getitem_1"), ["x"], ["getitem", "getitem_1"])

    def run(x):
        if x.sum() > 0:
            return torch.relu(torch.nn.functional.linear(x, w["fc.weight"], w["fc.bias"])), x * 2
        return torch.tanh(torch.nn.functional.linear(x, w["fc_nobias.weight"])), x - 1

    sets = [[torch.randn(3, 8).abs()], [-torch.randn(3, 8).abs()]]
    return ep, run, sets


def case_cond_symbolic(base, w):
    """torch.cond(x.shape[0] > 4, cos(x) + x.shape[0], sin(x) * 2) on x of symbolic batch s0."""
    g = outer_graph([("x", [(S0, 3), 8], FLOAT)])
    n = g.op("torch.ops.aten.sym_size.int", [("self", t("x")), ("dim", {"as_int": 0})], [])
    g.g["nodes"][-1]["outputs"] = [{"as_sym_int": {"as_name": "sym_size_int"}}]
    g.g["sym_int_values"]["sym_size_int"] = {"as_expr": {"expr_str": S0, "hint": {"as_int": 3}}}
    g.g["nodes"].append({"target": "_operator.gt",
                         "inputs": [{"name": "a", "arg": {"as_sym_int": {"as_name": "sym_size_int"}}}, {"name": "b", "arg": {"as_int": 4}}],
                         "outputs": [{"as_sym_bool": {"as_name": "gt"}}], "metadata": {}})
    g.g["sym_bool_values"]["gt"] = {"as_expr": {"expr_str": "StrictGreaterThan(%s, Integer(4))" % S0, "hint": {"as_bool": False}}}
    del n
    # The size a branch reads is lifted to an operand: listed among the
    # tensors by name, a symbolic-int input of the branch graph.
    branches = []
    for name in ("true_graph_0", "false_graph_0"):
        b = Graph()
        b.input("arg0_1", [(S0, 3), 8])
        b.g["inputs"].append({"as_sym_int": {"as_name": "arg1_1"}})
        b.g["sym_int_values"]["arg1_1"] = {"as_expr": {"expr_str": S0, "hint": {"as_int": 3}}}
        if name == "true_graph_0":
            y = b.aten("cos.default", [("self", t("arg0_1"))], "cos", [(S0, 3), 8])
            y = b.aten("add.Tensor", [("self", t(y)), ("other", {"as_sym_int": {"as_name": "arg1_1"}})], "add", [(S0, 3), 8])
        else:
            y = b.aten("sin.default", [("self", t("arg0_1"))], "sin", [(S0, 3), 8])
            y = b.aten("mul.Tensor", [("self", t(y)), ("other", {"as_float": 2.0})], "mul", [(S0, 3), 8])
        branches.append(sub(name, b.output(y)))
    g.hop("cond", [{"as_sym_bool": {"as_name": "gt"}}, branches[0], branches[1], ts("x", "sym_size_int")],
          [("getitem", [(S0, 3), 8], FLOAT)])
    ep = program(base, g.output("getitem"), ["x"], ["getitem"], {"s0": {"min_val": 2, "max_val": 64}})

    def run(x):
        return (torch.cos(x) + x.shape[0],) if x.shape[0] > 4 else (torch.sin(x) * 2,)

    return ep, run, [[torch.randn(3, 8)], [torch.randn(6, 8)]]


def case_while_loop(base, w):
    """i, x = 0, x; while i < 10 and x.abs().max() < 4: i, x = i + 1, x * 1.5 + y."""
    g = outer_graph([("x", [3, 8], FLOAT), ("y", [8], FLOAT)])
    g.aten("zeros.default", [("size", {"as_ints": []}), ("dtype", {"as_scalar_type": LONG}),
                             ("device", {"as_device": {"type": "cpu"}}), ("pin_memory", {"as_bool": False})], "zeros", [], LONG)
    c = Graph()
    c.input("arg0_1", [], LONG)
    c.input("arg1_1", [3, 8])
    c.input("arg2_1", [8])
    ab = c.aten("abs.default", [("self", t("arg1_1"))], "abs_1", [3, 8])
    mx = c.aten("max.default", [("self", t(ab))], "max_1", [])
    lt = c.aten("lt.Scalar", [("self", t(mx)), ("other", {"as_float": 4.0})], "lt", [], BOOL)
    lt1 = c.aten("lt.Scalar", [("self", t("arg0_1")), ("other", {"as_int": 10})], "lt_1", [], BOOL)
    both = c.aten("logical_and.default", [("self", t(lt)), ("other", t(lt1))], "logical_and", [], BOOL)
    b = Graph()
    b.input("arg0_1", [], LONG)
    b.input("arg1_1", [3, 8])
    b.input("arg2_1", [8])
    inc = b.aten("add.Tensor", [("self", t("arg0_1")), ("other", {"as_int": 1})], "add", [], LONG)
    mul = b.aten("mul.Tensor", [("self", t("arg1_1")), ("other", {"as_float": 1.5})], "mul", [3, 8])
    nxt = b.aten("add.Tensor", [("self", t(mul)), ("other", t("arg2_1"))], "add_1", [3, 8])
    g.hop("while_loop", [sub("while_loop_cond_graph_0", c.output_single(both)), sub("while_loop_body_graph_0", b.output(inc, nxt)),
                         ts("zeros", "x"), ts("y")],
          [("getitem", [], LONG), ("getitem_1", [3, 8], FLOAT)])
    ep = program(base, g.output("getitem", "getitem_1"), ["x", "y"], ["getitem", "getitem_1"])

    def run(x, y):
        i = torch.zeros((), dtype=torch.long)
        while bool(x.abs().max() < 4.0) and bool(i < 10):
            i, x = i + 1, x * 1.5 + y
        return i, x

    sets = [[torch.randn(3, 8) * 0.1, torch.randn(8) * 0.1], [torch.randn(3, 8) + 5, torch.randn(8)],
            [torch.randn(3, 8) * 0.01, torch.zeros(8)]]
    return ep, run, sets


def case_while_cond(base, w):
    """A cond inside a while_loop body: i, x = 0, x; while i < 6:
    i, x = i + 1, (x * 0.5 + y if x.sum() > 0 else x + 1)."""
    g = outer_graph([("x", [3, 8], FLOAT), ("y", [8], FLOAT)])
    g.aten("zeros.default", [("size", {"as_ints": []}), ("dtype", {"as_scalar_type": LONG}),
                             ("device", {"as_device": {"type": "cpu"}}), ("pin_memory", {"as_bool": False})], "zeros", [], LONG)
    c = Graph()
    c.input("arg0_1", [], LONG)
    c.input("arg1_1", [3, 8])
    c.input("arg2_1", [8])
    lt = c.aten("lt.Scalar", [("self", t("arg0_1")), ("other", {"as_int": 6})], "lt", [], BOOL)
    b = Graph()
    b.input("arg0_1", [], LONG)
    b.input("arg1_1", [3, 8])
    b.input("arg2_1", [8])
    inc = b.aten("add.Tensor", [("self", t("arg0_1")), ("other", {"as_int": 1})], "add", [], LONG)
    s_ = b.aten("sum.default", [("self", t("arg1_1"))], "sum_1", [])
    gt = b.aten("gt.Scalar", [("self", t(s_)), ("other", {"as_int": 0})], "gt", [], BOOL)
    tb = Graph()
    tb.input("arg0_1", [3, 8])
    tb.input("arg1_1", [8])
    mul = tb.aten("mul.Tensor", [("self", t("arg0_1")), ("other", {"as_float": 0.5})], "mul", [3, 8])
    add = tb.aten("add.Tensor", [("self", t(mul)), ("other", t("arg1_1"))], "add", [3, 8])
    fb = Graph()
    fb.input("arg0_1", [3, 8])
    fb.input("arg1_1", [8])
    add1 = fb.aten("add.Tensor", [("self", t("arg0_1")), ("other", {"as_int": 1})], "add", [3, 8])
    b.hop("cond", [t(gt), sub("true_graph_0", tb.output(add)), sub("false_graph_0", fb.output(add1)), ts("arg1_1", "arg2_1")],
          [("getitem", [3, 8], FLOAT)])
    g.hop("while_loop", [sub("while_loop_cond_graph_0", c.output_single(lt)), sub("while_loop_body_graph_0", b.output(inc, "getitem")),
                         ts("zeros", "x"), ts("y")],
          [("getitem", [], LONG), ("getitem_1", [3, 8], FLOAT)])
    ep = program(base, g.output("getitem", "getitem_1"), ["x", "y"], ["getitem", "getitem_1"])

    def run(x, y):
        i = torch.zeros((), dtype=torch.long)
        while bool(i < 6):
            i, x = i + 1, (x * 0.5 + y if bool(x.sum() > 0) else x + 1)
        return i, x

    return ep, run, [[torch.randn(3, 8), torch.randn(8) - 0.3], [-torch.randn(3, 8).abs() * 0.3, -torch.rand(8)]]


def case_map(base, w):
    """map(lambda a, b: (relu(fc(a)), b.sum()), xs=(x, z)) over the leading axis."""
    g = outer_graph([("x", [4, 3, 8], FLOAT), ("z", [4, 8], FLOAT)])
    b = Graph()
    b.input("arg0_1", [3, 8])
    b.input("arg1_1", [8])
    b.input("arg2_1", [6, 8])
    b.input("arg3_1", [6])
    lin = b.aten("linear.default", [("input", t("arg0_1")), ("weight", t("arg2_1")), ("bias", t("arg3_1"))], "linear", [3, 6])
    relu = b.aten("relu.default", [("self", t(lin))], "relu", [3, 6])
    s = b.aten("sum.default", [("self", t("arg1_1"))], "sum_1", [])
    g.hop("map_impl", [sub("body_graph_0", b.output(relu, s)), ts("x", "z"), ts("p_fc_weight", "p_fc_bias")],
          [("getitem", [4, 3, 6], FLOAT), ("getitem_1", [4], FLOAT)])
    ep = program(base, g.output("getitem", "getitem_1"), ["x", "z"], ["getitem", "getitem_1"])

    def run(x, z):
        a = torch.stack([torch.relu(torch.nn.functional.linear(xi, w["fc.weight"], w["fc.bias"])) for xi in x])
        return a, torch.stack([zi.sum() for zi in z])

    return ep, run, [[torch.randn(4, 3, 8), torch.randn(4, 8)]]


def case_map_symbolic(base, w):
    """map(lambda a: (fc(a) * 2,), xs=(x,)) over a symbolic leading axis s0."""
    g = outer_graph([("x", [(S0, 4), 8], FLOAT)])
    b = Graph()
    b.input("arg0_1", [8])
    b.input("arg1_1", [6, 8])
    b.input("arg2_1", [6])
    lin = b.aten("linear.default", [("input", t("arg0_1")), ("weight", t("arg1_1")), ("bias", t("arg2_1"))], "linear", [6])
    mul = b.aten("mul.Tensor", [("self", t(lin)), ("other", {"as_int": 2})], "mul", [6])
    g.hop("map_impl", [sub("body_graph_0", b.output(mul)), ts("x"), ts("p_fc_weight", "p_fc_bias")],
          [("getitem", [(S0, 4), 6], FLOAT)])
    ep = program(base, g.output("getitem"), ["x"], ["getitem"], {"s0": {"min_val": 2, "max_val": 64}})

    def run(x):
        return (torch.stack([torch.nn.functional.linear(r, w["fc.weight"], w["fc.bias"]) * 2 for r in x]),)

    return ep, run, [[torch.randn(4, 8)], [torch.randn(2, 8)], [torch.randn(7, 8)]]


def case_map_cond(base, w):
    """map over rows of x, each row through torch.cond(row.sum() > 0, fc(row), -fc(row)): nested."""
    g = outer_graph([("x", [5, 8], FLOAT)])
    body = Graph()
    body.input("arg0_1", [8])
    body.input("arg1_1", [6, 8])
    body.input("arg2_1", [6])
    s = body.aten("sum.default", [("self", t("arg0_1"))], "sum_1", [])
    gt = body.aten("gt.Scalar", [("self", t(s)), ("other", {"as_int": 0})], "gt", [], BOOL)
    branches = []
    for name, negate in (("true_graph_0", False), ("false_graph_0", True)):
        br = Graph()
        br.input("arg0_1", [8])
        br.input("arg1_1", [6, 8])
        br.input("arg2_1", [6])
        out = br.aten("linear.default", [("input", t("arg0_1")), ("weight", t("arg1_1")), ("bias", t("arg2_1"))], "linear", [6])
        if negate:
            out = br.aten("neg.default", [("self", t(out))], "neg", [6])
        branches.append(sub(name, br.output(out)))
    body.hop("cond", [t(gt), branches[0], branches[1], ts("arg0_1", "arg1_1", "arg2_1")], [("getitem", [6], FLOAT)])
    g.hop("map_impl", [sub("body_graph_0", body.output("getitem")), ts("x"), ts("p_fc_weight", "p_fc_bias")],
          [("getitem", [5, 6], FLOAT)])
    ep = program(base, g.output("getitem"), ["x"], ["getitem"])

    def run(x):
        rows = []
        for r in x:
            y = torch.nn.functional.linear(r, w["fc.weight"], w["fc.bias"])
            rows.append(y if r.sum() > 0 else -y)
        return (torch.stack(rows),)

    return ep, run, [[torch.randn(5, 8)]]


def case_cond_shapes(base, w):
    """Hostile: branches returning different shapes ([3,6] and [3,8]); PyTorch 2.6 refuses to export this."""
    g = outer_graph([("x", [3, 8], FLOAT)])
    s = g.aten("sum.default", [("self", t("x"))], "sum_1", [])
    gt = g.aten("gt.Scalar", [("self", t(s)), ("other", {"as_float": 0.0})], "gt", [], BOOL)
    tb = Graph()
    tb.input("arg0_1", [3, 8])
    tb.input("arg1_1", [6, 8])
    lin = tb.aten("linear.default", [("input", t("arg0_1")), ("weight", t("arg1_1"))], "linear", [3, 6])
    fb = Graph()
    fb.input("arg0_1", [3, 8])
    fb.input("arg1_1", [6, 8])
    relu = fb.aten("relu.default", [("self", t("arg0_1"))], "relu", [3, 8])
    g.hop("cond", [t(gt), sub("true_graph_0", tb.output(lin)), sub("false_graph_0", fb.output(relu)), ts("x", "p_fc_weight")],
          [("getitem", [3, 6], FLOAT)])
    return program(base, g.output("getitem"), ["x"], ["getitem"]), None, []


CASES = {"cond_tensor": case_cond_tensor, "cond_symbolic": case_cond_symbolic, "while_loop": case_while_loop,
         "while_cond": case_while_cond,
         "map": case_map, "map_symbolic": case_map_symbolic, "map_cond": case_map_cond, "cond_shapes": case_cond_shapes}


def check_graph(g, where):
    """Each Argument is a union: exactly one member set; each tensor named has metadata."""
    def arg(a, what):
        assert isinstance(a, dict) and len(a) == 1, "%s: %s: not a one-member union: %r" % (where, what, a)
        if "as_graph" in a:
            check_graph(a["as_graph"]["graph"], where + "/" + a["as_graph"]["name"])
        if "as_tensor" in a:
            assert a["as_tensor"]["name"] in g["tensor_values"], "%s: %s has no metadata" % (where, a["as_tensor"]["name"])
        for ta in a.get("as_tensors", []):
            assert ta["name"] in g["tensor_values"] or ta["name"] in g["sym_int_values"], "%s: %s has no metadata" % (where, ta["name"])
    for i, a in enumerate(g["inputs"] + g["outputs"]):
        arg(a, "input/output %d" % i)
    for n in g["nodes"]:
        for na in n["inputs"]:
            assert set(na) == {"name", "arg"}, "%s: %s: NamedArgument fields %s" % (where, n["target"], set(na))
            arg(na["arg"], n["target"])
        for o in n["outputs"]:
            arg(o, n["target"] + " output")


def write_archive(path, entries, program_json, example):
    buf = io.BytesIO()
    torch.save((tuple(example), {}), buf)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as out:
        for info, data in entries:
            if info.filename == "serialized_exported_program.json":
                data = program_json
            elif info.filename == "serialized_example_inputs.pt" and example:
                data = buf.getvalue()
            zi = zipfile.ZipInfo(info.filename, date_time=info.date_time)
            zi.compress_type = zipfile.ZIP_STORED
            out.writestr(zi, data)


def main():
    with zipfile.ZipFile(BASE) as z:
        entries = [(i, z.read(i.filename)) for i in z.infolist()]
    data = dict((i.filename, d) for i, d in entries)
    base = json.loads(data["serialized_exported_program.json"])
    weights = torch.load(io.BytesIO(data["serialized_state_dict.pt"]))
    weights = {k: v.detach() for k, v in weights.items()}
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    for name, make in CASES.items():
        torch.manual_seed(zlib.crc32(name.encode()))  # each case's data apart from the others'
        ep, run, sets = make(base, weights)
        check_graph(ep["graph_module"]["graph"], name)
        d = os.path.join(OUT, name)
        os.makedirs(d)
        write_archive(os.path.join(d, "exported.pt2"), entries, json.dumps(ep).encode(), sets[0] if sets else [])
        for k, xs in enumerate(sets):
            sd = os.path.join(d, "set%d" % k)
            os.makedirs(sd)
            ys = run(*xs)
            for i, x in enumerate(xs):
                np.save(os.path.join(sd, "x%d.npy" % i), x.numpy())
            for i, y in enumerate(ys):
                np.save(os.path.join(sd, "y%d.npy" % i), np.require(y.numpy(), requirements="C"))
        print(name, len(sets), "sets", file=sys.stderr)


if __name__ == "__main__":
    main()
