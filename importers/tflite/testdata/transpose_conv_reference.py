"""Reference for TFLite's float TRANSPOSE_CONV (reference_ops::TransposeConv):
input pixel (iy, ix) adds filter[:, fy, fx, :] @ x to output pixel
(iy*stride - pad_top + fy, ix*stride - pad_left + fx), where the padding is
the forward convolution's with the output as its input (SAME or VALID).

usage: transpose_conv_reference.py X.npy W_OHWI.npy OUT_H OUT_W STRIDE_H STRIDE_W SAME|VALID OUT.npy
"""
import sys

import numpy as np


def pad_before(size, k, s, same):
    out = (size + s - 1) // s if same else (size + s - k) // s
    return max((out - 1) * s + k - size, 0) // 2


def main(argv):
    x = np.load(argv[0]).astype(np.float64)
    w = np.load(argv[1]).astype(np.float64)
    oh, ow, sh, sw = (int(v) for v in argv[2:6])
    same = argv[6] == "SAME"
    n, ih, iw, _ = x.shape
    co, kh, kw, _ = w.shape
    pt, pl = pad_before(oh, kh, sh, same), pad_before(ow, kw, sw, same)
    y = np.zeros((n, oh, ow, co))
    for iy in range(ih):
        for ix in range(iw):
            for fy in range(kh):
                for fx in range(kw):
                    oy, ox = iy * sh - pt + fy, ix * sw - pl + fx
                    if 0 <= oy < oh and 0 <= ox < ow:
                        y[:, oy, ox, :] += x[:, iy, ix, :] @ w[:, fy, fx, :].T
    np.save(argv[7], y.astype(np.float32))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
