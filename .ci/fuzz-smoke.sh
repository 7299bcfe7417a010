#!/bin/sh
# Runs every reader's fuzz target briefly (FUZZTIME, default 10s each, one
# worker) so that CI catches a crash the seed corpora or a short random
# walk can reach. Long runs are done by hand:
#   go test -run '^$' -fuzz '^FuzzReadModelFile$' -fuzztime 5m ./importers/onnx
set -eu
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10s}
status=0
for target in \
	FuzzReadModelFile:./importers/onnx \
	FuzzReadExternalData:./importers/onnx \
	FuzzReadTensorFile:./importers/onnx \
	FuzzRead:./internal/npy \
	FuzzParse:./internal/mxparams \
	FuzzReadCheckpoint:./importers/mxnet \
	FuzzDecode:./internal/pickle \
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
