"""Export a torchvision detection model to ONNX and record PyTorch's outputs.

    python make_detection_onnx.py MODEL DIR

Writes DIR/model.onnx (torch.onnx.export, opset 16, dynamic height and
width), DIR/names.txt (the output names in order), DIR/rules.json (the NMS
threshold, the most detections kept and the mask pasting geometry) and, for each of two
images (320x320 and 256x384), DIR/caseN/input_0.pb and DIR/caseN/NAME.npy
for every output PyTorch returns. Weights are random (seeded) and re-drawn
so that the scores differ and there are detections to compare.
"""
import json
import os
import sys

import numpy as np
import torch
from onnx import numpy_helper
from torch.onnx import register_custom_op_symbolic
from torch.onnx.symbolic_helper import parse_args
from torch.onnx.symbolic_opset11 import select, squeeze
from torchvision.models import detection
from torchvision.models.resnet import Bottleneck

OPSET = 16
# The scale of the ResNet-50 models' residual branches (see make).
RESIDUAL_SCALE = 0.25


# torchvision 0.14 registers roi_align for opset 11 only: at opset 16 its
# RoiAlign node (no coordinate_transformation_mode) reads as half_pixel, which
# is aligned=True, while Mask/Faster R-CNN pool with aligned=False. This is the
# opset-16 form newer torchvision writes.
@parse_args("v", "v", "f", "i", "i", "i", "i")
def roi_align_opset16(g, feats, rois, spatial_scale, out_h, out_w, sampling_ratio, aligned):
    batch = g.op("Cast", squeeze(g, select(g, rois, 1, g.op("Constant", value_t=torch.tensor([0]))), 1), to_i=7)
    boxes = select(g, rois, 1, g.op("Constant", value_t=torch.tensor([1, 2, 3, 4])))
    mode = "half_pixel" if aligned else "output_half_pixel"
    return g.op("RoiAlign", feats, boxes, batch, spatial_scale_f=spatial_scale, output_height_i=out_h,
                output_width_i=out_w, sampling_ratio_i=max(sampling_ratio, 0), coordinate_transformation_mode_s=mode)


def make(name):
    torch.manual_seed(0)
    kw = dict(weights=None, weights_backbone=None)
    if name.startswith("ssd") or name.startswith("retinanet"):
        kw["score_thresh"] = 0.0
    else:
        kw["box_score_thresh"] = 0.0
    rcnn = name.startswith("maskrcnn") or name.startswith("keypointrcnn")
    if rcnn:
        # Images resized to 400 pixels (the transform's own min_size, as
        # torchvision's *_320_fpn models use 320) rather than 800: a quarter
        # of the work, and both test images are still resized (by 1.25 and
        # 1.5625).
        kw.update(min_size=400, max_size=667)
    model = getattr(detection, name)(**kw).eval()
    # torchvision's own initialisation makes the features vanish or the
    # class scores uniform (ties everywhere); redraw every conv and linear
    # layer with a unit-gain scale and rescale the class logits so that the
    # scores spread out without saturating.
    resnet = "resnet50" in name
    gain, bias = (1.414, 0.5) if name.startswith("ssd") else (1.0, 0.1) if resnet else (1.2, 0.1)
    logit_gain = 1.0 if name.startswith("ssd") or resnet else 10.0
    with torch.no_grad():
        for mod_name, mod in model.named_modules():
            if isinstance(mod, torch.nn.ConvTranspose2d):
                fan_in = mod.weight.shape[0] * mod.weight[0, 0].numel()
            elif isinstance(mod, (torch.nn.Conv2d, torch.nn.Linear)):
                fan_in = mod.weight[0].numel()
            else:
                continue
            g = gain
            if "cls_score" in mod_name or "cls_logits" in mod_name:
                g *= logit_gain
            mod.weight.normal_(0, g / fan_in ** 0.5)
            if mod.bias is not None:
                mod.bias.uniform_(-bias, bias)
        if resnet:
            # ResNet-50's residual sums grow without bound under random
            # weights: set every BatchNorm's statistics from one random image.
            norms = [mod for mod in model.modules() if isinstance(mod, torch.nn.BatchNorm2d)]
            for mod in norms:
                mod.reset_running_stats()
                mod.momentum = None
                mod.train()
            model([torch.rand(3, 320, 320, generator=torch.Generator().manual_seed(2))])
            for mod in norms:
                mod.eval()
        if resnet:
            # Each bottleneck's residual branch, at unit scale, lets float
            # rounding grow through ResNet-50's 16 blocks (float32 against
            # float64: 1.2e-4 of layer4's range; PyTorch against ONNX
            # Runtime: 1.5e-3 of the FPN features', up to 1e-2 in scores).
            # Scaled by 1/4, as residual networks are initialised to start
            # near the identity (zero_init_residual, SkipInit), float32
            # against float64 is at most 1.1e-6 at every stage.
            for mod in model.backbone.body.modules():
                if isinstance(mod, Bottleneck):
                    mod.bn3.weight.mul_(RESIDUAL_SCALE)
                    mod.bn3.bias.mul_(RESIDUAL_SCALE)
    return model


def rules(model):
    """The cut-offs where runs that agree to rounding may decide differently."""
    heads = getattr(model, "roi_heads", model)
    r = {"nms_iou": heads.nms_thresh, "max_detections": heads.detections_per_img}
    if hasattr(model, "roi_heads"):
        # Keypoint heatmaps are resized to the box's size in the resized image.
        r.update(min_size=model.transform.min_size[0], max_size=model.transform.max_size)
    if getattr(heads, "mask_predictor", None) is not None:
        # The mask head doubles the pooled size (a stride-2 transposed
        # convolution); paste_masks_in_image pads the masks by one cell.
        r.update(mask_size=2 * heads.mask_roi_pool.output_size[0], mask_padding=1)
    return r


def save_pb(path, array):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array).SerializeToString())


def main():
    name, out = sys.argv[1], sys.argv[2]
    register_custom_op_symbolic("torchvision::roi_align", roi_align_opset16, OPSET)
    model = make(name)
    gen = torch.Generator().manual_seed(1)
    images = [torch.rand(3, 320, 320, generator=gen), torch.rand(3, 256, 384, generator=gen)]
    names = None
    with torch.no_grad():
        for i, image in enumerate(images):
            result = model([image])[0]
            names = list(result.keys())
            case = os.path.join(out, "case%d" % i)
            os.makedirs(case, exist_ok=True)
            save_pb(os.path.join(case, "input_0.pb"), image.numpy())
            for k, v in result.items():
                np.save(os.path.join(case, k + ".npy"), v.numpy())
        with open(os.path.join(out, "names.txt"), "w") as f:
            f.write(" ".join(names) + "\n")
        with open(os.path.join(out, "rules.json"), "w") as f:
            json.dump(rules(model), f)
        axes = {"input": {1: "height", 2: "width"}}
        for n in names:
            axes[n] = {0: "detections"}
        torch.onnx.export(model, ([images[0]],), os.path.join(out, "model.onnx"), opset_version=OPSET,
                          input_names=["input"], output_names=names, dynamic_axes=axes)


if __name__ == "__main__":
    main()
