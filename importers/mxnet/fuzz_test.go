package mxnetimport

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/mxparams"
	"github.com/modelbridge/modelbridge/internal/testfix/readcheck"
)

// fuzzSymbol is a small checkpoint in the ≥1.0 "attrs" generation:
// data -> FullyConnected(fc_weight, fc_bias) -> relu.
const fuzzSymbol = `{"nodes": [
 {"op": "null", "name": "data", "inputs": []},
 {"op": "null", "name": "fc_weight", "inputs": []},
 {"op": "null", "name": "fc_bias", "inputs": []},
 {"op": "FullyConnected", "name": "fc", "attrs": {"num_hidden": "2"}, "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},
 {"op": "BatchNorm", "name": "bn", "attrs": {"fix_gamma": "True"}, "inputs": [[3, 0, 0], [5, 0, 0], [6, 0, 0], [7, 0, 0], [8, 0, 0]]},
 {"op": "null", "name": "bn_gamma", "inputs": []},
 {"op": "null", "name": "bn_beta", "inputs": []},
 {"op": "null", "name": "bn_moving_mean", "inputs": []},
 {"op": "null", "name": "bn_moving_var", "inputs": []},
 {"op": "Activation", "name": "relu", "attrs": {"act_type": "relu"}, "inputs": [[4, 0, 0]]}
],
"arg_nodes": [0, 1, 2, 5, 6, 7, 8], "heads": [[9, 0, 0]], "attrs": {"mxnet_version": ["int", 10300]}}`

func fuzzParams(f *testing.F) []byte {
	var buf bytes.Buffer
	ts := []*canon.Tensor{
		canon.NewFloat32Tensor("", []int64{2, 3}, []float32{1, 2, 3, 4, 5, 6}),
		canon.NewFloat32Tensor("", []int64{2}, []float32{7, 8}),
		canon.NewFloat32Tensor("", []int64{2}, []float32{9, 9}),
		canon.NewFloat32Tensor("", []int64{2}, []float32{0, 0}),
		canon.NewFloat32Tensor("", []int64{2}, []float32{0, 0}),
		canon.NewFloat32Tensor("", []int64{2}, []float32{1, 1}),
	}
	names := []string{"arg:fc_weight", "arg:fc_bias", "arg:bn_gamma", "arg:bn_beta", "aux:bn_moving_mean", "aux:bn_moving_var"}
	if err := mxparams.Write(&buf, names, ts); err != nil {
		f.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzReadCheckpoint reads a symbol JSON with (when params is not empty) a
// params file beside it, both fuzzed, through the importer's Read.
func FuzzReadCheckpoint(f *testing.F) {
	params := fuzzParams(f)
	f.Add([]byte(fuzzSymbol), params)
	f.Add([]byte(fuzzSymbol), []byte{})
	syms := readcheck.Seeds(16<<10, "mxnet/*/*-symbol.json")
	for _, s := range syms {
		f.Add(s, []byte{})
	}
	for _, p := range readcheck.Seeds(1<<10, "mxnet/go_test/*.params") {
		for _, s := range readcheck.Seeds(4<<10, "mxnet/go_test/*-symbol.json") {
			f.Add(s, p)
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, sym, params []byte) {
		symPath := filepath.Join(dir, "fuzz-symbol.json")
		paramsPath := filepath.Join(dir, "fuzz-0000.params")
		if err := os.WriteFile(symPath, sym, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(paramsPath)
		if len(params) > 0 {
			if err := os.WriteFile(paramsPath, params, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		g, err := Read(symPath, formats.ReadOptions{})
		readcheck.CheckError(t, err)
		if err == nil {
			n := len(sym) + len(params)
			limit := int64(n)*readcheck.MaxBytesPerInputByte + readcheck.SlackBytes + mxparams.DensifyLimit(len(params))
			readcheck.CheckGraphLimit(t, g, n, limit)
			g.Close()
		}
	})
}
