// Package allformats registers every format modelbridge reads and writes. Import
// it for its side effects, as commands and cross-format tests do.
package allformats

import (
	// Exporters.
	_ "github.com/modelbridge/modelbridge/exporters/mxnet"
	_ "github.com/modelbridge/modelbridge/exporters/onnx"
	_ "github.com/modelbridge/modelbridge/exporters/safetensors"
	_ "github.com/modelbridge/modelbridge/exporters/tflite"
	_ "github.com/modelbridge/modelbridge/exporters/torch"

	// Importers.
	_ "github.com/modelbridge/modelbridge/importers/caffe"
	_ "github.com/modelbridge/modelbridge/importers/mxnet"
	_ "github.com/modelbridge/modelbridge/importers/onnx"
	_ "github.com/modelbridge/modelbridge/importers/pt2"
	_ "github.com/modelbridge/modelbridge/importers/safetensors"
	_ "github.com/modelbridge/modelbridge/importers/tflite"
	_ "github.com/modelbridge/modelbridge/importers/torch"
	_ "github.com/modelbridge/modelbridge/importers/torch/torchscript"
)
