#!/usr/bin/python3
"""Makes modelbridge's own small test models with PyTorch.

Run with Debian's python3 (python3-torch, python3-onnx):
    /usr/bin/python3 testdata/make_fixtures.py testdata

For each model it writes NAME.onnx (opset 13) and NAME_data/ with
input_0.pb and output_0.pb: the input and PyTorch's own eval-mode output,
as ONNX TensorProto files.
"""
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import numpy_helper


class TinyConvNet(nn.Module):
    """Conv + BN + ReLU, a grouped conv, a strided grouped deconv with
    output padding, ceil-mode pooling, and a classifier."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=2)
        self.deconv = nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, output_padding=1, groups=2)
        self.bn2 = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        self.fc = nn.Linear(4 * 16 * 16, 10)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.conv2(x))
        x = F.relu(self.bn2(self.deconv(x)))
        x = self.pool(x)
        return self.fc(torch.flatten(x, 1))


def randomize_bn(model, gen):
    # Fresh BatchNorm statistics are 0/1, which would hide mistakes.
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.copy_(torch.rand(m.num_features, generator=gen) - 0.5)
            m.running_var.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
            m.weight.data.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
            m.bias.data.copy_(torch.rand(m.num_features, generator=gen) - 0.5)


def save_pb(array, path):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array).SerializeToString())


def main(out):
    gen = torch.Generator().manual_seed(20261202)
    torch.manual_seed(20261202)
    model = TinyConvNet().eval()
    with torch.no_grad():
        randomize_bn(model, gen)
        x = torch.rand(1, 3, 32, 32, generator=gen) * 2 - 1
        y = model(x)
    name = "tiny_convnet"
    torch.onnx.export(model, x, os.path.join(out, name + ".onnx"), opset_version=13,
                      input_names=["input"], output_names=["logits"],
                      training=torch.onnx.TrainingMode.EVAL, do_constant_folding=False)
    data = os.path.join(out, name + "_data")
    os.makedirs(data, exist_ok=True)
    save_pb(x.numpy(), os.path.join(data, "input_0.pb"))
    save_pb(y.numpy(), os.path.join(data, "output_0.pb"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
