# Runs a PyTorch model for `modelbridge check`.
#   python3 torch_runner.py JOB.json
# JOB: {"kind": "script" | "pt2" | "folder", "model": PATH,
#       "samples": [{"inputs": [file.npy in forward's order], "out": DIR}]}
# Each sample's outputs (a tensor, or the tensors of a tuple/list/dict in
# order) go to DIR/output_N.npy. Prints {"version": ..., "outputs": N}.
import importlib.util
import json
import os
import sys

import numpy as np
import torch


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(3)


def load(kind, path):
    if kind == "script":
        try:
            return torch.jit.load(path, map_location="cpu").eval()
        except RuntimeError as e:
            if "Unknown builtin op" in str(e) or "Unknown type name" in str(e):
                fail("PyTorch %s cannot load %s, which uses an operator it lacks (was it saved by a newer PyTorch? "
                     "run it with that version via MODELBRIDGE_PYTHON): %s" % (torch.__version__, path, str(e).strip()))
            raise
    if kind == "pt2":
        if not hasattr(torch, "export") or not hasattr(torch.export, "load"):
            fail("PyTorch %s cannot load a .pt2 program: torch.export.load arrived in PyTorch 2.1; "
                 "install PyTorch 2.1 or newer for /usr/bin/python3 (pip install torch)" % torch.__version__)
        return torch.export.load(path).module()
    spec = importlib.util.spec_from_file_location("modelbridge_model", os.path.join(path, "model.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    m = mod.Model()
    m.load_state_dict(torch.load(os.path.join(path, "weights.pt"), map_location="cpu"), strict=True)
    return m.eval()


def flatten(y):
    if isinstance(y, torch.Tensor):
        return [y]
    if isinstance(y, (bool, int, float)):
        return [torch.tensor(y)]
    if y is None:
        return []
    if isinstance(y, dict):
        y = list(y.values())
    out = []
    for v in y:
        out.extend(flatten(v))
    return out


def main():
    with open(sys.argv[1]) as f:
        job = json.load(f)
    model = load(job["kind"], job["model"])
    n = 0
    for s in job["samples"]:
        xs = [torch.from_numpy(np.load(p)) for p in s["inputs"]]
        with torch.no_grad():
            ys = flatten(model(*xs))
        os.makedirs(s["out"], exist_ok=True)
        for i, y in enumerate(ys):
            np.save(os.path.join(s["out"], "output_%d.npy" % i), y.detach().contiguous().numpy())
        n = len(ys)
    print(json.dumps({"version": torch.__version__, "outputs": n}))


main()
