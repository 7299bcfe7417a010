"""Writes the small traced recurrent fixtures the TorchScript importer's
tests read, each with its inputs and what PyTorch computed from them:

  lstm_bidir2.pt   nn.LSTM(4, 3, num_layers=2, bidirectional=True,
                   batch_first=True) with given (h0, c0); returns
                   (output, h_n, c_n)
  gru2.pt          nn.GRU(4, 5, num_layers=2) (sequence first) with a
                   given h0; returns (output, h_n)
  rnn_relu_bidir.pt nn.RNN(3, 4, nonlinearity="relu", bidirectional=True)
                   with a given h0; returns (output, h_n)
  rnn_tanh_nobias.pt nn.RNN(3, 2, bias=False, batch_first=True) with a
                   given h0; returns (output, h_n)
  gru_packed.pt    nn.GRU(3, 4) over pack_padded_sequence(x, lengths),
                   then pad_packed_sequence; returns (output, h_n)
  lstm_packed_bidir.pt nn.LSTM(3, 2, bidirectional=True, batch_first=True)
                   likewise, batch first; returns (output, h_n, c_n)

Run with a Python that has torch (1.13 was used):
    python3 make_recurrent_fixtures.py
Each NAME.pt comes with NAME_input_K.npy and NAME_output_K.npy.
"""
import os

import numpy as np
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class Wrap(torch.nn.Module):
    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def forward(self, x, h0, c0=None):
        if c0 is None:
            y, h = self.rnn(x, h0)
            return y, h
        y, (h, c) = self.rnn(x, (h0, c0))
        return y, h, c


class Packed(torch.nn.Module):
    def __init__(self, rnn, batch_first):
        super().__init__()
        self.rnn = rnn
        self.batch_first = batch_first

    def forward(self, x, lengths):
        p = pack_padded_sequence(x, lengths, batch_first=self.batch_first)
        y, h = self.rnn(p)
        y, _ = pad_packed_sequence(y, batch_first=self.batch_first, total_length=x.shape[1 if self.batch_first else 0])
        if isinstance(h, tuple):
            return (y,) + h
        return y, h


def save(here, name, rnn, inputs, module=None):
    module = (module or Wrap(rnn)).eval()
    traced = torch.jit.trace(module, tuple(inputs))
    traced.save(os.path.join(here, name + ".pt"))
    for k, x in enumerate(inputs):
        np.save(os.path.join(here, "%s_input_%d.npy" % (name, k)), x.numpy())
    with torch.no_grad():
        for k, y in enumerate(traced(*inputs)):
            np.save(os.path.join(here, "%s_output_%d.npy" % (name, k)), y.numpy())


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    torch.manual_seed(0)
    save(here, "lstm_bidir2", torch.nn.LSTM(4, 3, num_layers=2, bidirectional=True, batch_first=True),
         [torch.randn(2, 5, 4), torch.randn(4, 2, 3), torch.randn(4, 2, 3)])
    torch.manual_seed(1)
    save(here, "gru2", torch.nn.GRU(4, 5, num_layers=2), [torch.randn(6, 3, 4), torch.randn(2, 3, 5)])
    torch.manual_seed(2)
    save(here, "rnn_relu_bidir", torch.nn.RNN(3, 4, nonlinearity="relu", bidirectional=True),
         [torch.randn(4, 2, 3), torch.randn(2, 2, 4)])
    torch.manual_seed(3)
    save(here, "rnn_tanh_nobias", torch.nn.RNN(3, 2, bias=False, batch_first=True),
         [torch.randn(2, 4, 3), torch.randn(1, 2, 2)])
    torch.manual_seed(6)
    gru = torch.nn.GRU(3, 4)
    save(here, "gru_packed", gru, [torch.randn(5, 3, 3), torch.tensor([5, 3, 2])], Packed(gru, False))
    torch.manual_seed(7)
    lstm = torch.nn.LSTM(3, 2, bidirectional=True, batch_first=True)
    save(here, "lstm_packed_bidir", lstm, [torch.randn(3, 4, 3), torch.tensor([4, 4, 1])], Packed(lstm, True))


if __name__ == "__main__":
    main()
