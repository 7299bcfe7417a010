"""Makes the ONNX files interp's benchmarks compare against ONNX Runtime.

    /usr/bin/python3 testdata/make_bench_models.py [DIR]    (default /tmp)

torchvision resnet18 and mobilenet_v2 at 1x3x224x224, and resnext50_32x4d's
layer1[1] at 1x256x56x56, exported at opset 13 with random weights
(seed 0): BenchmarkResNet18ONNX, BenchmarkMobileNetV2ONNX,
BenchmarkResNeXtBlockONNX, BenchmarkVsORT and BenchmarkORT read them from
there. vgg11_bn.onnx (515 MB) keeps its BatchNormalization nodes (an eval
export would fold them), so that `convert --optimize` and
BenchmarkOptimizeVGG11 have real folding to verify. lstm_h512_s64, deeplabv3_mobilenet_v3_large
(1x3x256x256), efficientnet_b0 and convnext_tiny are BenchmarkVsORT's
recurrent, segmentation and large-kernel rows; vit_b_16.onnx and
bert_encoder.onnx (make_bench_transformers.py) are the transformer rows.
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


class TinyLSTM(torch.nn.Module):
    """torch2's tiny_lstm fixture (a 2-layer batch-first LSTM, then a Linear
    on the last step), scaled from 8 -> 16 to 256 -> 512."""

    def __init__(self, inputs=256, hidden=512, classes=3):
        super().__init__()
        self.lstm = torch.nn.LSTM(inputs, hidden, num_layers=2, batch_first=True)
        self.head = torch.nn.Linear(hidden, classes)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.head(y[:, -1])


def export_recurrent_and_segmentation(out):
    """The recurrent, segmentation and large-kernel rows of BenchmarkVsORT."""
    torch.manual_seed(0)
    export(TinyLSTM(), (1, 64, 256), os.path.join(out, "lstm_h512_s64.onnx"))
    export(torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None, aux_loss=False),
           (1, 3, 256, 256), os.path.join(out, "deeplabv3_mobilenet_v3_large.onnx"))
    export(torchvision.models.efficientnet_b0(), (1, 3, 224, 224), os.path.join(out, "efficientnet_b0.onnx"))
    export(torchvision.models.convnext_tiny(), (1, 3, 224, 224), os.path.join(out, "convnext_tiny.onnx"))


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
    export_recurrent_and_segmentation(out)
    export_transformers(out)


if __name__ == "__main__":
    main()
