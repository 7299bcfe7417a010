"""Runs a .tflite model in Arm NN (TfLiteParser, CpuRef backend).

usage: armnn_run.py MODEL.tflite IN_0.npy [IN_1.npy ...] OUT_DIR

Inputs are given in the subgraph's input order; outputs are written as
OUT_DIR/output_N.npy in the subgraph's output order. Exits 3 when pyarmnn
is not installed, so that callers can skip.
"""
import os
import sys

try:
    import numpy as np
    import pyarmnn as ann
except ImportError as e:  # pragma: no cover
    print("pyarmnn is not installed: %s" % e, file=sys.stderr)
    sys.exit(3)


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    model, inputs, out_dir = argv[0], argv[1:-1], argv[-1]
    parser = ann.ITfLiteParser()
    network = parser.CreateNetworkFromBinaryFile(model)
    graph = 0
    in_names = parser.GetSubgraphInputTensorNames(graph)
    out_names = parser.GetSubgraphOutputTensorNames(graph)
    if len(in_names) != len(inputs):
        print("model has %d inputs, %d files given" % (len(in_names), len(inputs)), file=sys.stderr)
        return 2
    runtime = ann.IRuntime(ann.CreationOptions())
    opt, messages = ann.Optimize(network, [ann.BackendId("CpuRef")], runtime.GetDeviceSpec(), ann.OptimizerOptions())
    net_id, _ = runtime.LoadNetwork(opt)
    bindings = [parser.GetNetworkInputBindingInfo(graph, n) for n in in_names]
    data = [np.load(p) for p in inputs]
    input_tensors = ann.make_input_tensors(bindings, data)
    out_bindings = [parser.GetNetworkOutputBindingInfo(graph, n) for n in out_names]
    output_tensors = ann.make_output_tensors(out_bindings)
    runtime.EnqueueWorkload(net_id, input_tensors, output_tensors)
    results = ann.workload_tensors_to_ndarray(output_tensors)
    os.makedirs(out_dir, exist_ok=True)
    for i, r in enumerate(results):
        np.save(os.path.join(out_dir, "output_%d.npy" % i), r)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
