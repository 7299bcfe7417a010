package main

import (
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/modelbridge/modelbridge/canon"
	mxnetexport "github.com/modelbridge/modelbridge/exporters/mxnet"
	"github.com/modelbridge/modelbridge/formats"
)

// refuseInputOverwrite fails when writing out with exp would replace any
// file the input model consists of: the model itself, its MXNet params
// file, or its ONNX external data (`convert a.onnx b.onnx` where a's
// weights live in b.onnx.data), or the --weights file (weights, "" when
// none) with its own external data. Atomic writes would keep the
// conversion itself safe, but the user's input would be gone.
func refuseInputOverwrite(in, out string, exp *formats.Exporter, g *canon.Graph, params, weights string) error {
	// Only files that exist can be part of the input; checking them first
	// spares reading the model again in the usual case.
	var outputs []string
	for _, o := range outputFiles(out, exp, g) {
		if _, err := os.Stat(o); err == nil {
			outputs = append(outputs, o)
		}
	}
	if len(outputs) == 0 {
		return nil
	}
	for _, src := range inputFiles(in, g, params) {
		for _, o := range outputs {
			if formats.SameFile(src, o) {
				return usageErrorf("refusing to overwrite %s, which is part of the input model %s; choose another output path", o, in)
			}
		}
	}
	for _, src := range weightsFiles(weights) {
		for _, o := range outputs {
			if formats.SameFile(src, o) {
				return usageErrorf("refusing to overwrite %s, which is part of the --weights input %s; choose another output path", o, weights)
			}
		}
	}
	return nil
}

// weightsFiles lists the files a --weights input consists of: the file
// and, for an ONNX model, the external data it names.
func weightsFiles(weights string) []string {
	if weights == "" {
		return nil
	}
	files := []string{weights}
	if strings.EqualFold(filepath.Ext(weights), ".onnx") {
		for _, loc := range externalDataLocations(weights) {
			files = append(files, filepath.Join(filepath.Dir(weights), loc))
		}
	}
	return files
}

// outputFiles lists the files exp may write for out.
func outputFiles(out string, exp *formats.Exporter, g *canon.Graph) []string {
	switch exp.Name {
	case "onnx":
		// External data is also chosen automatically for big models.
		return []string{out, out + ".data"}
	case "mxnet":
		sym, params := mxnetexport.Paths(out, g.Name)
		return []string{sym, params}
	case "torch":
		return []string{out, filepath.Join(out, "weights.pt"), filepath.Join(out, "model.py"), filepath.Join(out, "README")}
	}
	return []string{out}
}

// inputFiles lists the files the model read from in consists of.
func inputFiles(in string, g *canon.Graph, params string) []string {
	files := []string{in}
	if params != "" {
		files = append(files, params)
	}
	for _, kv := range g.Meta.Props {
		if kv.Key == "params_file" && params == "" {
			files = append(files, filepath.Join(filepath.Dir(in), kv.Value))
		}
	}
	if g.Meta.SourceFormat == "onnx" {
		for _, loc := range externalDataLocations(in) {
			files = append(files, filepath.Join(filepath.Dir(in), loc))
		}
	}
	return files
}

// externalDataLocations returns the external data files an ONNX model
// names, walking the protobuf wire format (ModelProto.graph = 7,
// GraphProto.initializer = 5, TensorProto.external_data = 13, entry key 1
// and value 2) without copying the weights.
func externalDataLocations(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var locs []string
	eachBytesField(data, 7, func(graph []byte) {
		eachBytesField(graph, 5, func(tensor []byte) {
			eachBytesField(tensor, 13, func(entry []byte) {
				var key, value string
				eachBytesField(entry, 1, func(b []byte) { key = string(b) })
				eachBytesField(entry, 2, func(b []byte) { value = string(b) })
				if key == "location" && value != "" && !seen[value] && !strings.ContainsRune(value, 0) {
					seen[value] = true
					locs = append(locs, value)
				}
			})
		})
	})
	return locs
}

// eachBytesField calls fn with the payload of every length-delimited field
// num of msg; it stops quietly at malformed data (the importer has
// already accepted the file).
func eachBytesField(msg []byte, num protowire.Number, fn func([]byte)) {
	for len(msg) > 0 {
		n, typ, k := protowire.ConsumeTag(msg)
		if k < 0 {
			return
		}
		m := protowire.ConsumeFieldValue(n, typ, msg[k:])
		if m < 0 {
			return
		}
		if n == num && typ == protowire.BytesType {
			if v, j := protowire.ConsumeBytes(msg[k:]); j >= 0 {
				fn(v)
			}
		}
		msg = msg[k+m:]
	}
}
