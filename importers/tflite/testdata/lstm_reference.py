"""Reference for TFLite's float UNIDIRECTIONAL_SEQUENCE_LSTM (batch major,
no peephole, projection or layer norm), in float64 NumPy, written from the
kernel's definition (tensorflow/lite/kernels/lstm_eval.cc):

    i = sigmoid(x W_i' + h R_i' + b_i)     f = sigmoid(x W_f' + h R_f' + b_f)
    g = tanh(x W_c' + h R_c' + b_c)        o = sigmoid(x W_o' + h R_o' + b_o)
    c = clip(f c + i g, cell_clip)         h = o tanh(c)

usage: lstm_reference.py X.npy WEIGHTS_DIR CELL_CLIP OUT.npy
WEIGHTS_DIR holds w_i w_f w_c w_o r_i r_f r_c r_o b_i b_f b_c b_o .npy.
"""
import sys

import numpy as np


def main(argv):
    x_path, wdir, clip, out = argv[0], argv[1], float(argv[2]), argv[3]
    x = np.load(x_path).astype(np.float64)
    w = {k: np.load("%s/%s.npy" % (wdir, k)).astype(np.float64)
         for k in ["w_i", "w_f", "w_c", "w_o", "r_i", "r_f", "r_c", "r_o", "b_i", "b_f", "b_c", "b_o"]}
    batch, steps, _ = x.shape
    hidden = w["b_i"].shape[0]
    h = np.zeros((batch, hidden))
    c = np.zeros((batch, hidden))
    sig = lambda v: 1 / (1 + np.exp(-v))
    ys = []
    for t in range(steps):
        xt = x[:, t, :]
        gate = lambda k: xt @ w["w_" + k].T + h @ w["r_" + k].T + w["b_" + k]
        i, f, g, o = sig(gate("i")), sig(gate("f")), np.tanh(gate("c")), sig(gate("o"))
        c = f * c + i * g
        if clip > 0:
            c = np.clip(c, -clip, clip)
        h = o * np.tanh(c)
        ys.append(h)
    np.save(out, np.stack(ys, axis=1).astype(np.float32))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
