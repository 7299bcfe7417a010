"""Writes scalar_arith.pt: a traced module mixing tensors with Python and
0-d constants (int and float), the case torch's type promotion decides.

Run with a Python that has torch (1.13 was used):
    python3 make_scalar_fixture.py
It also writes scalar_arith_input.npy and scalar_arith_output.npy, the
input used and what PyTorch computed from it.
"""
import os

import numpy as np
import torch


class ScalarArith(torch.nn.Module):
    def forward(self, x):
        y = x * 2 + x / 4 + 0.5
        y = y * 2.0 - 3
        y = 1 - y
        y = torch.add(y, x, alpha=2)
        y = torch.sub(y, 1, alpha=3)
        return y / 3


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    torch.manual_seed(0)
    x = torch.randn(2, 3, 4)
    traced = torch.jit.trace(ScalarArith().eval(), x)
    traced.save(os.path.join(here, "scalar_arith.pt"))
    np.save(os.path.join(here, "scalar_arith_input.npy"), x.numpy())
    np.save(os.path.join(here, "scalar_arith_output.npy"), traced(x).detach().numpy())


if __name__ == "__main__":
    main()
