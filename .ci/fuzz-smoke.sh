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
	FuzzRead:./internal/npy \
	FuzzParse:./internal/mxparams \
	FuzzReadCheckpoint:./importers/mxnet \
	FuzzDecode:./internal/pickle \
	FuzzUnpickle:./internal/pickle \
	FuzzReadFile:./importers/torch \
	FuzzCode:./importers/torch/torchscript; do
	name=${target%%:*}
	pkg=${target#*:}
	echo "fuzz-smoke: $name ($pkg, $fuzztime)"
	if ! go test -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" -fuzzminimizetime 5s -parallel 1 "$pkg"; then
		echo "fuzz-smoke: $name FAILED; the failing input is under $pkg/testdata/fuzz/$name" >&2
		status=1
	fi
done
exit $status
