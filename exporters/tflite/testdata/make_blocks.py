"""Writes the torchvision-like blocks the TFLite export tests convert.

usage: /usr/bin/python3 make_blocks.py OUT_DIR

Each block is exported to ONNX (opset 14) in eval mode with a fixed seed;
batch norms get non-trivial statistics so that folding them is tested.
"""
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


def bn(c):
    b = nn.BatchNorm2d(c)
    with torch.no_grad():
        b.weight.uniform_(0.5, 1.5)
        b.bias.uniform_(-0.5, 0.5)
        b.running_mean.uniform_(-0.3, 0.3)
        b.running_var.uniform_(0.5, 2.0)
    return b


class ResNetBlocks(nn.Module):
    """Stem, max pool, a basic block and a downsampling block, then the head."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), bn(16), nn.ReLU())
        self.pool = nn.MaxPool2d(3, 2, 1)
        self.c1 = nn.Sequential(nn.Conv2d(16, 16, 3, 1, 1, bias=False), bn(16), nn.ReLU(),
                                nn.Conv2d(16, 16, 3, 1, 1, bias=False), bn(16))
        self.c2 = nn.Sequential(nn.Conv2d(16, 32, 3, 2, 1, bias=False), bn(32), nn.ReLU(),
                                nn.Conv2d(32, 32, 3, 1, 1, bias=False), bn(32))
        self.down = nn.Sequential(nn.Conv2d(16, 32, 1, 2, bias=False), bn(32))
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = self.pool(self.stem(x))
        x = F.relu(self.c1(x) + x)
        x = F.relu(self.c2(x) + self.down(x))
        x = F.adaptive_avg_pool2d(x, 1)
        return self.fc(torch.flatten(x, 1))


class MobileBlocks(nn.Module):
    """Inverted residuals with depthwise convolutions, squeeze-excite, hard-swish."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), bn(16), nn.ReLU6())
        self.expand = nn.Sequential(nn.Conv2d(16, 48, 1, bias=False), bn(48), nn.ReLU6())
        self.dw = nn.Sequential(nn.Conv2d(48, 48, 3, 1, 1, groups=48, bias=False), bn(48), nn.ReLU6())
        self.project = nn.Sequential(nn.Conv2d(48, 16, 1, bias=False), bn(16))
        self.dw2 = nn.Conv2d(16, 32, 5, 2, 2, groups=16)  # depth multiplier 2
        self.se1 = nn.Conv2d(32, 8, 1)
        self.se2 = nn.Conv2d(8, 32, 1)
        self.pool = nn.AvgPool2d(2)
        self.fc = nn.Linear(32 * 4 * 4, 10)

    def forward(self, x):
        x = self.stem(x)
        x = x + self.project(self.dw(self.expand(x)))
        x = F.hardswish(self.dw2(x))
        s = F.hardsigmoid(self.se2(F.relu(self.se1(F.adaptive_avg_pool2d(x, 1)))))
        x = self.pool(x * s)
        return torch.softmax(self.fc(torch.flatten(x, 1)), dim=1)


class DecoderBlocks(nn.Module):
    """Transposed and grouped convolutions, resizes, concat skips, pads."""

    def __init__(self):
        super().__init__()
        self.enc = nn.Conv2d(3, 8, 3, 2, 1)
        self.up1 = nn.ConvTranspose2d(8, 8, 4, 2, 1)
        self.up2 = nn.ConvTranspose2d(8, 4, 2, 2, groups=2)
        self.grp = nn.Conv2d(8, 8, 3, 1, 1, groups=2)
        self.out = nn.Conv2d(12, 5, 3, 1, 0)

    def forward(self, x):
        e = F.leaky_relu(self.enc(x), 0.1)                      # 16x16
        u = F.relu(self.up1(e))                                 # 32x32
        b = F.interpolate(e, scale_factor=2, mode="bilinear", align_corners=False)
        a = F.interpolate(e, size=(32, 32), mode="bilinear", align_corners=True)
        n = F.interpolate(e, scale_factor=2, mode="nearest")
        y = torch.cat([u + b, a - n], 1)                        # 16 ch
        y = self.up2(y[:, 4:12])                                # 4 ch, 64x64
        m = F.interpolate(n.mean(1, keepdim=True), scale_factor=2, mode="nearest")
        g = self.grp(torch.cat([y, F.interpolate(x, scale_factor=2, mode="nearest"), m], 1))
        z = torch.cat([y, F.relu6(g)], 1)
        z = F.avg_pool2d(z, 3, 1, 1, count_include_pad=False)
        z = F.pad(z, (1, 1, 1, 1))
        return torch.softmax(self.out(z)[:, :, 1:-1, ::2], dim=1)


class FlattenHead(nn.Module):
    """A flatten of a spatial map before fully connected layers, channel softmax and reductions."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3, 2, 1)
        self.fc1 = nn.Linear(6 * 16 * 16, 32)
        self.fc2 = nn.Linear(32, 7)

    def forward(self, x):
        y = torch.sigmoid(self.conv(x))
        p = torch.softmax(y, dim=1).mean(dim=(2, 3))
        h = F.relu(self.fc1(torch.flatten(y, 1)))
        return torch.tanh(self.fc2(h)) + p.mean(1, keepdim=True), y.mean(dim=1)


class NormBlocks(nn.Module):
    """A ConvNeXt block (layer norm over channels-last, linear layers) and a
    token MLP with layer norm over the last axis."""

    def __init__(self):
        super().__init__()
        self.dw = nn.Conv2d(3, 8, 7, 1, 3)
        self.norm = nn.LayerNorm(8, eps=1e-6)
        self.fc1 = nn.Linear(8, 32)
        self.fc2 = nn.Linear(32, 8)
        self.tnorm = nn.LayerNorm(16)
        self.tfc = nn.Linear(16, 5)

    def forward(self, x):
        y = self.dw(x)
        z = self.norm(y.permute(0, 2, 3, 1))
        z = self.fc2(F.relu(self.fc1(z))).permute(0, 3, 1, 2)
        y = y + z                                               # 1x8x32x32
        tokens = F.avg_pool2d(y, 8).flatten(2)                  # 1x8x16
        return self.tfc(self.tnorm(tokens)), y


class RuntimeGaps(nn.Module):
    """Ops TFLite has that Arm NN 22's parser does not read (PRELU, REDUCE_MAX, SUM, MIRROR_PAD)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, 1, 1)
        self.prelu = nn.PReLU(4)

    def forward(self, x):
        y = self.prelu(self.conv(F.pad(x, (2, 1, 1, 2), mode="reflect")))
        return y.amax(dim=(2, 3)) + y.sum(dim=(1, 2))[:, :4]


BLOCKS = {"runtime_gaps": RuntimeGaps, "norm_blocks": NormBlocks, "resnet_blocks": ResNetBlocks, "mobile_blocks": MobileBlocks, "decoder_blocks": DecoderBlocks, "flatten_head": FlattenHead}


def main(out):
    os.makedirs(out, exist_ok=True)
    for name, cls in BLOCKS.items():
        torch.manual_seed(0)
        m = cls().eval()
        x = torch.randn(1, 3, 32, 32)
        torch.onnx.export(m, x, os.path.join(out, name + ".onnx"), opset_version=14,
                          input_names=["x"], do_constant_folding=True,
                          training=torch.onnx.TrainingMode.PRESERVE)  # keeps BatchNormalization nodes


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
