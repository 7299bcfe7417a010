"""The transformer models of interp's BenchmarkVsORT (random weights).

vit_b_16.onnx: torchvision vit_b_16 at 1x3x224x224 (opset 17, so that
LayerNorm is exported as LayerNormalization); its head, which torchvision
starts at zero, gets random weights so that its outputs say something.

bert_encoder.onnx: a BERT-base-shaped encoder on 1x128x768 hidden states:
12 post-norm layers of self-attention (12 heads of 64, an additive mask
over the keys, scores divided by sqrt(64)), GELU (erf) feed-forward of
3072, LayerNorm eps 1e-12, written as the BERT reference code writes it so
that the export has BERT's own pattern (MatMul, Div, Add mask, Softmax,
MatMul), not PyTorch's fused multi-head attention.
"""
import math
import os

import torch
import torchvision


class BertSelfAttention(torch.nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads, self.head = heads, hidden // heads
        self.query = torch.nn.Linear(hidden, hidden)
        self.key = torch.nn.Linear(hidden, hidden)
        self.value = torch.nn.Linear(hidden, hidden)

    def split(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.heads, self.head).permute(0, 2, 1, 3)

    def forward(self, x, mask):
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head)
        probs = torch.softmax(scores + mask, dim=-1)
        ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        return ctx.view(ctx.shape[0], ctx.shape[1], -1)


class BertLayer(torch.nn.Module):
    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.attention = BertSelfAttention(hidden, heads)
        self.attention_out = torch.nn.Linear(hidden, hidden)
        self.attention_norm = torch.nn.LayerNorm(hidden, eps=1e-12)
        self.intermediate = torch.nn.Linear(hidden, ffn)
        self.output = torch.nn.Linear(ffn, hidden)
        self.output_norm = torch.nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, x, mask):
        x = self.attention_norm(x + self.attention_out(self.attention(x, mask)))
        h = torch.nn.functional.gelu(self.intermediate(x))
        return self.output_norm(x + self.output(h))


class BertEncoder(torch.nn.Module):
    def __init__(self, layers=12, hidden=768, heads=12, ffn=3072, seq=128):
        super().__init__()
        self.layers = torch.nn.ModuleList(BertLayer(hidden, heads, ffn) for _ in range(layers))
        # BERT's extended attention mask: 0 for tokens attended to, -10000
        # for padding; the last 16 positions are padding.
        keep = torch.ones(1, seq)
        keep[:, seq - 16:] = 0
        self.register_buffer("mask", ((1.0 - keep) * -10000.0)[:, None, None, :])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x, self.mask)
        return x


def export(model, shape, path, opset):
    model.eval()
    torch.onnx.export(model, torch.randn(*shape), path, opset_version=opset,
                      input_names=["x"], output_names=["y"])
    print(path)


def export_transformers(out):
    torch.manual_seed(0)
    vit = torchvision.models.vit_b_16()
    torch.nn.init.normal_(vit.heads.head.weight, std=0.02)
    export(vit, (1, 3, 224, 224), os.path.join(out, "vit_b_16.onnx"), 17)
    export(BertEncoder(), (1, 128, 768), os.path.join(out, "bert_encoder.onnx"), 17)


if __name__ == "__main__":
    import sys
    export_transformers(sys.argv[1] if len(sys.argv) > 1 else "/tmp")
