#!/bin/sh
# Runs every reader's fuzz target briefly (FUZZTIME, default 10s each, one
# worker; about 2.5 minutes in all) so that CI catches a crash the committed
# seed corpora (testdata/fuzz/<target>) or a short random walk can reach.
# FuzzRead (onnx, in memory) and FuzzUnpickle (single pickles with the
# test allow-list) overlap FuzzReadModelFile and FuzzDecode but reach the
# decoders without the file and mapping layers, so they run too.
# Long runs are done by hand:
#   go test -run '^$' -fuzz '^FuzzReadModelFile$' -fuzztime 5m ./importers/onnx
set -eu
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10s}
status=0
for target in \
	FuzzReadModelFile:./importers/onnx \
	FuzzReadExternalData:./importers/onnx \
	FuzzReadTensorFile:./importers/onnx \
	FuzzRead:./importers/onnx \
	FuzzRead:./importers/safetensors \
	FuzzRead:./importers/caffe \
	FuzzRead:./importers/tflite \
	FuzzRead:./internal/npy \
	FuzzParse:./internal/mxparams \
	FuzzReadCheckpoint:./importers/mxnet \
	FuzzDecode:./internal/pickle \
	FuzzUnpickle:./internal/pickle \
	FuzzReadFile:./importers/torch \
	FuzzRead:./importers/pt2 \
	FuzzCode:./importers/torch/torchscript; do
	name=${target%%:*}
	pkg=${target#*:}
	echo "fuzz-smoke: $name ($pkg, $fuzztime)"
	# No minimization: a short run spends its time fuzzing, and minimizing
	# an input as the time runs out makes Go report "context deadline
	# exceeded" without any failure. A crash still writes its input below.
	before=$(ls "$pkg/testdata/fuzz/$name" 2>/dev/null | wc -l)
	if ! go test -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" -fuzzminimizetime 0 -parallel 1 "$pkg"; then
		after=$(ls "$pkg/testdata/fuzz/$name" 2>/dev/null | wc -l)
		if [ "$after" -gt "$before" ]; then
			echo "fuzz-smoke: $name FAILED; the failing input is under $pkg/testdata/fuzz/$name" >&2
			status=1
		else
			echo "fuzz-smoke: $name stopped without a failing input (Go's fuzzer timing out at the deadline); not a crash" >&2
		fi
	fi
done
exit $status
