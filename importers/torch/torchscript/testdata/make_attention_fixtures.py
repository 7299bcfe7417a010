"""Writes the small traced attention fixtures the TorchScript importer's
tests read, each with its inputs and what PyTorch computed from them:

  mha_fused.pt       nn.MultiheadAttention(8, 2, batch_first=True) in eval
                     mode under no_grad: PyTorch 1.13 records
                     aten::_native_multi_head_attention; need_weights=False
  enc_layer.pt       nn.TransformerEncoderLayer(8, 2, 16, dropout=0,
                     batch_first=True) in eval mode under no_grad:
                     aten::_transformer_encoder_layer_fwd (relu, norm after)
  enc_layer_gelu_nf.pt the same with activation="gelu", norm_first=True
  mha_bmm_masked.pt  nn.MultiheadAttention(8, 2) (sequence first) with a
                     float attn_mask: the unfused path's baddbmm, softmax
                     and bmm; returns (output, weights)

Run with a Python that has torch (1.13 was used):
    python3 make_attention_fixtures.py
Each NAME.pt comes with NAME_input_K.npy and NAME_output_K.npy.
"""
import numpy as np
import torch
from torch import nn


class SelfAttn(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, x):
        return self.attn(x, x, x, need_weights=False)[0]


class Encoder(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, **kw)

    def forward(self, x):
        return self.layer(x)


class Masked(nn.Module):
    def __init__(self, mask):
        super().__init__()
        self.attn = nn.MultiheadAttention(8, 2)
        self.register_buffer("mask", mask)

    def forward(self, x):
        y, w = self.attn(x, x, x, attn_mask=self.mask)
        return y, w


def save(name, model, inputs):
    model.eval()
    with torch.no_grad():
        traced = torch.jit.trace(model, inputs)
        outs = traced(*inputs)
    if not isinstance(outs, tuple):
        outs = (outs,)
    traced.save(name + ".pt")
    for k, x in enumerate(inputs):
        np.save("%s_input_%d.npy" % (name, k), x.numpy())
    for k, y in enumerate(outs):
        np.save("%s_output_%d.npy" % (name, k), y.numpy())
    kinds = sorted({n.kind() for n in traced.inlined_graph.nodes() if n.kind().startswith("aten::")})
    print(name, kinds)


torch.manual_seed(0)
save("mha_fused", SelfAttn(), (torch.randn(2, 5, 8),))
save("enc_layer", Encoder(), (torch.randn(2, 5, 8),))
save("enc_layer_gelu_nf", Encoder(activation="gelu", norm_first=True), (torch.randn(2, 5, 8),))
mask = torch.triu(torch.full((5, 5), -1e4), 1) + 0.25 * torch.randn(5, 5)
save("mha_bmm_masked", Masked(mask), (torch.randn(5, 2, 8),))
