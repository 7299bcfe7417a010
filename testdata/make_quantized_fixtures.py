#!/usr/bin/python3
"""Makes small quantized TorchScript models with PyTorch 1.13.

Run with Debian's python3 (python3-torch, python3-onnx):
    /usr/bin/python3 testdata/make_quantized_fixtures.py testdata/quantized

Post-training static quantization (torch.ao.quantization, eager and FX
mode) on PyTorch's x86 engine of this build (onednn; Debian's PyTorch has
no FBGEMM), calibrated on random inputs, traced with torch.jit.trace. For
each model it writes NAME.pt and NAME_data/ with input_0.pb and
output_0.pb (PyTorch's own quantized output) as ONNX TensorProto files.
"""
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.ao.quantization as tq
from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
from onnx import numpy_helper

ENGINE = "onednn"


class EagerNet(nn.Module):
    """Conv+ReLU (per-channel weights), a residual quantized add, a strided
    conv, max pooling, hardswish, global average pooling, flatten, linear."""

    def __init__(self):
        super().__init__()
        self.quant = tq.QuantStub()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.relu1 = nn.ReLU()
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1, groups=2)
        self.skip = nn.quantized.FloatFunctional()
        self.conv3 = nn.Conv2d(8, 12, 3, stride=2, padding=1, bias=False)
        self.pool = nn.MaxPool2d(2)
        self.act = nn.Hardswish()
        self.fc = nn.Linear(12, 6)
        self.dequant = tq.DeQuantStub()

    def forward(self, x):
        x = self.relu1(self.conv1(self.quant(x)))
        x = self.skip.add(x, self.conv2(x))
        x = self.pool(self.conv3(x))
        x = self.act(x)
        x = F.adaptive_avg_pool2d(x, 1)
        x = torch.flatten(x, 1)
        return self.dequant(self.fc(x))


class FxNet(nn.Module):
    """Conv1d, linear+ReLU, concatenation, multiplication and addition of
    quantized tensors (FX mode)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 6, 3, padding=1)
        self.fc1 = nn.Linear(16, 16)
        self.fc2 = nn.Linear(16, 8)

    def forward(self, x):
        y = F.relu(self.conv(x))
        z = F.relu(self.fc1(y))
        c = torch.cat([y, z], 1)
        return self.fc2(c * c + c)


class IntNet(nn.Module):
    """A quantized linear layer whose output is its integers (int_repr)."""

    def __init__(self):
        super().__init__()
        self.quant = tq.QuantStub()
        self.fc = nn.Linear(20, 10)

    def forward(self, x):
        y = self.fc(self.quant(x))
        return y.int_repr() if y.is_quantized else y  # float while calibrating


def save_pb(array, path):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array).SerializeToString())


def eager(model, shape, gen, fuse=None):
    model.eval()
    model.qconfig = tq.get_default_qconfig(ENGINE)
    if fuse:
        tq.fuse_modules(model, fuse, inplace=True)
    tq.prepare(model, inplace=True)
    for _ in range(16):
        model(torch.randn(*shape, generator=gen) * 2)
    return tq.convert(model)


def fx(model, shape, gen):
    model.eval()
    qmap = tq.get_default_qconfig_mapping(ENGINE)
    ex = torch.randn(*shape, generator=gen)
    prepared = prepare_fx(model, qmap, example_inputs=(ex,))
    for _ in range(16):
        prepared(torch.randn(*shape, generator=gen) * 2)
    return convert_fx(prepared)


def main(out):
    torch.backends.quantized.engine = ENGINE
    gen = torch.Generator().manual_seed(20261205)
    torch.manual_seed(20261205)
    models = {
        "q_eager_convnet": (eager(EagerNet(), (2, 3, 12, 12), gen, [["conv1", "relu1"]]), (2, 3, 12, 12)),
        "q_fx_mixed": (fx(FxNet(), (3, 4, 16), gen), (3, 4, 16)),
        "q_int_linear": (eager(IntNet(), (5, 20), gen), (5, 20)),
    }
    os.makedirs(out, exist_ok=True)
    for name, (model, shape) in models.items():
        x = torch.randn(*shape, generator=gen) * 2
        traced = torch.jit.trace(model, x)
        traced.save(os.path.join(out, name + ".pt"))
        loaded = torch.jit.load(os.path.join(out, name + ".pt"))
        with torch.no_grad():
            y = loaded(x)
            assert torch.equal(y, model(x)), name
        d = os.path.join(out, name + "_data")
        os.makedirs(d, exist_ok=True)
        save_pb(x.numpy(), os.path.join(d, "input_0.pb"))
        save_pb(y.numpy(), os.path.join(d, "output_0.pb"))
        print(name, tuple(y.shape), y.dtype, os.path.getsize(os.path.join(out, name + ".pt")), "bytes")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "testdata/quantized")
