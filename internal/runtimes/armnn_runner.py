# Runs a .tflite model in Arm NN (TfLiteParser, reference CPU backend) for
# `modelbridge check`.
#   python3 armnn_runner.py JOB.json
# JOB: {"model": PATH, "samples": [{"inputs": [file.npy in the subgraph's
#       input order], "out": DIR}]}
# Each sample's outputs go to DIR/output_N.npy in the subgraph's output
# order. Prints {"version": ..., "outputs": N, "inputs": [names]}. Exits 3
# when pyarmnn cannot be imported.
import contextlib
import io
import json
import os
import sys

try:
    import numpy as np
    # pyarmnn announces each parser it was built without as it loads.
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        import pyarmnn as ann
except ImportError as e:
    print("pyarmnn cannot be imported: %s" % e, file=sys.stderr)
    sys.exit(3)


def main():
    with open(sys.argv[1]) as f:
        job = json.load(f)
    parser = ann.ITfLiteParser()
    network = parser.CreateNetworkFromBinaryFile(job["model"])
    graph = 0
    in_names = parser.GetSubgraphInputTensorNames(graph)
    out_names = parser.GetSubgraphOutputTensorNames(graph)
    # Arm NN keeps one runtime per process: every sample runs in this one.
    runtime = ann.IRuntime(ann.CreationOptions())
    opt, _ = ann.Optimize(network, [ann.BackendId("CpuRef")], runtime.GetDeviceSpec(), ann.OptimizerOptions())
    net_id, _ = runtime.LoadNetwork(opt)
    in_bindings = [parser.GetNetworkInputBindingInfo(graph, n) for n in in_names]
    out_bindings = [parser.GetNetworkOutputBindingInfo(graph, n) for n in out_names]
    for sample in job["samples"]:
        if len(sample["inputs"]) != len(in_names):
            print("the model has %d inputs (%s), %d were given" % (len(in_names), ", ".join(in_names), len(sample["inputs"])),
                  file=sys.stderr)
            sys.exit(2)
        data = [np.load(p) for p in sample["inputs"]]
        inputs = ann.make_input_tensors(in_bindings, data)
        outputs = ann.make_output_tensors(out_bindings)
        runtime.EnqueueWorkload(net_id, inputs, outputs)
        os.makedirs(sample["out"], exist_ok=True)
        for i, r in enumerate(ann.workload_tensors_to_ndarray(outputs)):
            np.save(os.path.join(sample["out"], "output_%d.npy" % i), r)
    print(json.dumps({"version": ann.ARMNN_VERSION, "outputs": len(out_names), "inputs": list(in_names)}))


if __name__ == "__main__":
    main()
