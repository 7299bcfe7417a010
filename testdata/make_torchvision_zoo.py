#!/usr/bin/python3
"""Makes traced archives of torchvision's models and PyTorch's outputs.

Run with Debian's python3 (python3-torch 1.13, python3-torchvision 0.14):
    /usr/bin/python3 testdata/make_torchvision_zoo.py OUTDIR [MODEL...]
    /usr/bin/python3 testdata/make_torchvision_zoo.py --list

With no MODEL it makes every model in the list. For each model it writes
OUTDIR/MODEL/traced.pt (torch.jit.trace in eval mode), input_0.npy and
output_0.npy (PyTorch's own output on that input) and spec.txt (what was
made, so a changed spec is made again). Weights are random (fixed seed,
batch-norm statistics randomized too), nothing is downloaded. Inputs are as
small as each model allows, to keep the conversions quick.

--list prints one line per model: name, input shape.
"""
import os
import sys

import numpy as np
import torch
import torchvision
import torchvision.models as models

# Input shapes (batch 1). Most classifiers end in adaptive pooling and take
# 64x64; the others need what their fixed kernels or patch grids require.
IMAGE = (1, 3, 64, 64)
SPECS = {}


def add(names, shape=IMAGE, **kwargs):
    for name in names:
        SPECS[name] = (shape, kwargs)


add(["alexnet"] + ["vgg%d%s" % (d, bn) for d in (11, 13, 16, 19) for bn in ("", "_bn")], (1, 3, 64, 64))
add(["resnet18", "resnet34", "resnet50", "resnet101", "resnet152",
     "resnext50_32x4d", "resnext101_32x8d", "resnext101_64x4d",
     "wide_resnet50_2", "wide_resnet101_2"])
add(["squeezenet1_0", "squeezenet1_1"])
add(["densenet121", "densenet161", "densenet169", "densenet201"])
add(["inception_v3"], (1, 3, 80, 80))
add(["googlenet"])
add(["shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5", "shufflenet_v2_x2_0"])
add(["mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large"])
add(["mnasnet0_5", "mnasnet0_75", "mnasnet1_0", "mnasnet1_3"])
add(["efficientnet_b%d" % i for i in range(8)] + ["efficientnet_v2_s", "efficientnet_v2_m", "efficientnet_v2_l"])
add(["regnet_%s_%s" % (xy, s) for xy in "xy"
     for s in ("400mf", "800mf", "1_6gf", "3_2gf", "8gf", "16gf", "32gf")] + ["regnet_y_128gf"])
add(["convnext_tiny", "convnext_small", "convnext_base", "convnext_large"])
# A ViT's position embedding fixes its image size; torchvision takes it as
# a parameter.
add(["vit_b_16", "vit_l_16", "vit_b_32", "vit_l_32"], (1, 3, 64, 64), image_size=64)
add(["vit_h_14"], (1, 3, 56, 56), image_size=56)
add(["swin_t", "swin_s", "swin_b", "swin_v2_t", "swin_v2_s", "swin_v2_b"])
# MaxViT's 7x7 windows must tile every stage and its builder fixes them:
# 224x224.
add(["maxvit_t"], (1, 3, 224, 224))
add(["fcn_resnet50", "fcn_resnet101", "deeplabv3_resnet50", "deeplabv3_resnet101",
     "deeplabv3_mobilenet_v3_large", "lraspp_mobilenet_v3_large"], num_classes=5, weights_backbone=None)
add(["r3d_18", "mc3_18", "r2plus1d_18"], (1, 3, 4, 32, 32))
# S3D ends in a fixed 2x7x7 average pool: 16 frames of 224x224 at least.
add(["s3d"], (1, 3, 16, 224, 224))
# MViT's builders fix 16 frames of 224x224.
add(["mvit_v1_b", "mvit_v2_s"], (1, 3, 16, 224, 224))


class Tupled(torch.nn.Module):
    """Returns a segmentation model's dict of outputs as a tuple."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return tuple(self.model(x).values())


def build(name, kwargs):
    model = models.get_model(name, weights=None, **kwargs)
    g = torch.Generator().manual_seed(7)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and m.running_mean is not None:
                m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=g) * 0.1)
                m.running_var.copy_(torch.rand(m.running_var.shape, generator=g) + 0.5)
    model.eval()
    if name in models.list_models(module=models.segmentation):
        model = Tupled(model)
    return model


def spec_text(name):
    shape, kwargs = SPECS[name]
    return "torch %s torchvision %s shape %s kwargs %s\n" % (
        torch.__version__, torchvision.__version__, list(shape), sorted(kwargs.items()))


def make(out, name):
    d = os.path.join(out, name)
    spec = spec_text(name)
    stamp = os.path.join(d, "spec.txt")
    if os.path.exists(stamp) and open(stamp).read() == spec:
        return
    os.makedirs(d, exist_ok=True)
    if os.path.exists(stamp):
        os.remove(stamp)
    shape, kwargs = SPECS[name]
    torch.manual_seed(0)
    model = build(name, kwargs)
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        traced = torch.jit.trace(model, x, check_trace=False)
        y = traced(x)
    if isinstance(y, tuple):
        y = y[0]
    traced.save(os.path.join(d, "traced.pt"))
    np.save(os.path.join(d, "input_0.npy"), x.numpy())
    np.save(os.path.join(d, "output_0.npy"), y.numpy())
    with open(stamp, "w") as f:
        f.write(spec)


def main(argv):
    if argv[1:] == ["--list"]:
        for name, (shape, _) in SPECS.items():
            print(name, "x".join(str(s) for s in shape))
        return 0
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out, names = argv[1], argv[2:] or list(SPECS)
    unknown = [n for n in names if n not in SPECS]
    if unknown:
        print("unknown models: %s (see --list)" % " ".join(unknown), file=sys.stderr)
        return 2
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    failed = 0
    for name in names:
        try:
            make(out, name)
            print("made", name, flush=True)
        except Exception as e:  # one model's failure must not stop the rest
            failed += 1
            print("FAILED %s: %s: %s" % (name, type(e).__name__, str(e).splitlines()[0] if str(e) else ""), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
