"""Script a torchvision detection model and record PyTorch's outputs.

    python make_detection_scripted.py MODEL DIR

Writes DIR/model.pt (torch.jit.script of the eval-mode model, saved),
DIR/names.txt (the keys of the detections dict, in order), DIR/rules.json
(the cut-offs where runs may tie, as make_detection_onnx.py writes) and, for each of
two images (320x320 and 256x384), DIR/caseN/input_0.pb and DIR/caseN/NAME.npy
for every entry of the detections PyTorch's scripted module returns. The
model and its random (seeded) weights are those of make_detection_onnx.py.
"""
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_detection_onnx import make, rules, save_pb  # noqa: E402


def main():
    name, out = sys.argv[1], sys.argv[2]
    model = make(name)
    with open(os.path.join(out, "rules.json"), "w") as f:
        json.dump(rules(model), f)
    scripted = torch.jit.script(model)
    path = os.path.join(out, "model.pt")
    scripted.save(path)
    scripted = torch.jit.load(path)
    gen = torch.Generator().manual_seed(1)
    images = [torch.rand(3, 320, 320, generator=gen), torch.rand(3, 256, 384, generator=gen)]
    names = None
    with torch.no_grad():
        for i, image in enumerate(images):
            _, detections = scripted([image])
            result = detections[0]
            names = list(result.keys())
            case = os.path.join(out, "case%d" % i)
            os.makedirs(case, exist_ok=True)
            save_pb(os.path.join(case, "input_0.pb"), image.numpy())
            for k, v in result.items():
                np.save(os.path.join(case, k + ".npy"), v.numpy())
    with open(os.path.join(out, "names.txt"), "w") as f:
        f.write(" ".join(names) + "\n")


if __name__ == "__main__":
    main()
