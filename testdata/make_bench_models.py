"""Makes the ONNX files interp's benchmarks compare against ONNX Runtime.

    /usr/bin/python3 testdata/make_bench_models.py [DIR]    (default /tmp)

torchvision resnet18 and mobilenet_v2 at 1x3x224x224, and resnext50_32x4d's
layer1[1] at 1x256x56x56, exported at opset 13 with random weights
(seed 0): BenchmarkResNet18ONNX, BenchmarkMobileNetV2ONNX,
BenchmarkResNeXtBlockONNX, BenchmarkVsORT and BenchmarkORT read them from
there. vgg11_bn.onnx (515 MB) keeps its BatchNormalization nodes (an eval
export would fold them), so that `convert --optimize` and
BenchmarkOptimizeVGG11 have real folding to verify. vit_b_16.onnx and bert_encoder.onnx
(make_bench_transformers.py) are the transformer rows of BenchmarkVsORT.
"""
import os
import sys
import warnings

import torch
import torchvision

from make_bench_transformers import export_transformers


def export(model, shape, path, keep_batchnorm=False):
    model.eval()
    mode = torch.onnx.TrainingMode.PRESERVE if keep_batchnorm else torch.onnx.TrainingMode.EVAL
    torch.onnx.export(model, torch.randn(*shape), path, opset_version=13,
                      input_names=["x"], output_names=["y"], training=mode)
    print(path)


def main():
    # PRESERVE on an eval-mode model keeps inference BatchNorms; the
    # exporter's advice about training-mode folding does not apply.
    warnings.filterwarnings("ignore", message="It is recommended that constant folding")
    out = sys.argv[1] if len(sys.argv) > 1 else "/tmp"
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    export(torchvision.models.resnet18(), (1, 3, 224, 224), os.path.join(out, "resnet18.onnx"))
    export(torchvision.models.mobilenet_v2(), (1, 3, 224, 224), os.path.join(out, "mobilenet_v2.onnx"))
    export(torchvision.models.resnext50_32x4d().layer1[1], (1, 256, 56, 56), os.path.join(out, "resnext50_block.onnx"))
    export(torchvision.models.vgg11_bn(), (1, 3, 224, 224), os.path.join(out, "vgg11_bn.onnx"), keep_batchnorm=True)
    export_transformers(out)


if __name__ == "__main__":
    main()
