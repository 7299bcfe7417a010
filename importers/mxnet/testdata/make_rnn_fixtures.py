"""Writes rnn_*.npy: the flat `parameters` vector of MXNet's fused RNN op,
packed from a PyTorch layer's weights exactly as Gluon's
_RNNLayer._forward_kernel packs its own (every i2h_weight and h2h_weight,
layer by layer, forward then reverse; then every i2h_bias and h2h_bias in
the same order; MXNet's gate order is cuDNN's, which PyTorch also uses),
with an input, initial states and what PyTorch computes from them.

  rnn_lstm_*   nn.LSTM(3, 4, num_layers=2, bidirectional=True)
  rnn_gru_*    nn.GRU(3, 5, num_layers=2)

Run with a Python that has torch (1.13 was used):
    python3 make_rnn_fixtures.py
"""
import os

import numpy as np
import torch


def pack(rnn):
    dirs = 2 if rnn.bidirectional else 1
    names = []
    for l in range(rnn.num_layers):
        for d in range(dirs):
            sfx = "_l%d%s" % (l, "_reverse" if d else "")
            names.append(("weight_ih" + sfx, "weight_hh" + sfx, "bias_ih" + sfx, "bias_hh" + sfx))
    p = dict(rnn.named_parameters())
    ws = [p[n].detach().reshape(-1) for w_ih, w_hh, _, _ in names for n in (w_ih, w_hh)]
    bs = [p[n].detach().reshape(-1) for _, _, b_ih, b_hh in names for n in (b_ih, b_hh)]
    return torch.cat(ws + bs).numpy()


def save(here, name, rnn, x, states):
    rnn = rnn.eval()
    np.save(os.path.join(here, name + "_parameters.npy"), pack(rnn))
    np.save(os.path.join(here, name + "_data.npy"), x.numpy())
    for k, s in enumerate(states):
        np.save(os.path.join(here, "%s_state%d.npy" % (name, k)), s.numpy())
    with torch.no_grad():
        y, h = rnn(x, tuple(states) if len(states) > 1 else states[0])
    hs = h if isinstance(h, tuple) else (h,)
    np.save(os.path.join(here, name + "_out.npy"), y.numpy())
    for k, s in enumerate(hs):
        np.save(os.path.join(here, "%s_out_state%d.npy" % (name, k)), s.numpy())


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    torch.manual_seed(4)
    save(here, "rnn_lstm", torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True),
         torch.randn(5, 2, 3), [torch.randn(4, 2, 4), torch.randn(4, 2, 4)])
    torch.manual_seed(5)
    save(here, "rnn_gru", torch.nn.GRU(3, 5, num_layers=2), torch.randn(4, 3, 3), [torch.randn(2, 3, 5)])


if __name__ == "__main__":
    main()
