"""Writes the small traced fixtures the TorchScript importer's tests read,
each with the input used and what PyTorch computed from it:

  scalar_arith.pt  a module mixing tensors with Python and 0-d constants
                   (int and float), the case torch's type promotion decides
  gelu.pt          Linear -> GELU(approximate="tanh") -> Linear -> GELU(),
                   both approximations as torch.gelu writes them
  front_ops.pt     F.pad in its three modes, pixel_shuffle/unshuffle,
                   max/min overloads, rsqrt, arange, full_like, eye,
                   indexing and indexed assignment with buffer indices,
                   and int/float promotion, flattened into one output

Run with a Python that has torch (1.13 was used):
    python3 make_fixtures.py
Each NAME.pt comes with NAME_input.npy and NAME_output.npy.
"""
import os

import numpy as np
import torch
import torch.nn.functional as F


class ScalarArith(torch.nn.Module):
    def forward(self, x):
        y = x * 2 + x / 4 + 0.5
        y = y * 2.0 - 3
        y = 1 - y
        y = torch.add(y, x, alpha=2)
        y = torch.sub(y, 1, alpha=3)
        return y / 3


def gelu_model():
    return torch.nn.Sequential(
        torch.nn.Linear(4, 6),
        torch.nn.GELU(approximate="tanh"),
        torch.nn.Linear(6, 3),
        torch.nn.GELU(),
    )


class FrontOps(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("idx", torch.tensor([2, 0, 1, 1]))
        self.register_buffer("ints", torch.tensor([[7, -3], [4, 9]]))

    def forward(self, x):
        p = F.pad(x, (1, 2, 0, 1)) + F.pad(x, (1, 2, 0, 1), mode="reflect") + F.pad(x, (1, 2, 0, 1), mode="replicate")
        s = F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2) - x
        vals, where = torch.max(x, dim=1)
        y = x.clone()
        y[:, self.idx[:2]] = 0.5
        ints = self.ints / 2 + self.ints // 3 + self.ints % 4 + self.ints * 1.5
        parts = [p, s, vals, where.float(), torch.min(x, 0.5 - x), torch.rsqrt(x.abs() + 1),
                 torch.arange(x.shape[3]) * 1.0, torch.full_like(x, 2.0) * torch.eye(4), x[:, self.idx], y, ints]
        return torch.cat([t.reshape(-1) for t in parts])


def save(here, name, module, x):
    traced = torch.jit.trace(module.eval(), x)
    traced.save(os.path.join(here, name + ".pt"))
    np.save(os.path.join(here, name + "_input.npy"), x.numpy())
    with torch.no_grad():
        np.save(os.path.join(here, name + "_output.npy"), traced(x).numpy())


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    torch.manual_seed(0)
    save(here, "scalar_arith", ScalarArith(), torch.randn(2, 3, 4))
    torch.manual_seed(1)
    save(here, "gelu", gelu_model(), 2 * torch.randn(2, 4))
    torch.manual_seed(2)
    save(here, "front_ops", FrontOps(), torch.randn(1, 4, 4, 4))


if __name__ == "__main__":
    main()
