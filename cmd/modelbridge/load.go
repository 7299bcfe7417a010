package main

import (
	"github.com/spf13/cobra"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/pipeline"
)

// readFlags are the model-reading options shared by commands.
type readFlags struct {
	from         string
	params       string
	key          string
	inputShapes  []string
	inputTypes   []string
	dynamicBatch bool
	ignoreCRC    bool
}

func (r *readFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&r.from, "from", "", "input format (default: from the file's contents and extension; one of "+joinNames(formats.ImporterNames())+")")
	cmd.Flags().StringVar(&r.params, "params", "", "weights file to pair with a graph file (MXNet .params)")
	cmd.Flags().StringVar(&r.key, "key", "", "key of the state dict inside a checkpoint (PyTorch)")
	cmd.Flags().StringArrayVar(&r.inputShapes, "input-shape", nil, "input shape NAME=D1,D2,... (or #N=... for input N) for graphs whose inputs have unknown sizes; a dimension is a size or a name for a symbolic size, e.g. x=N,3,224,224; a TYPE: prefix gives the element type too, e.g. ids=i64:1,15 (repeatable)")
	cmd.Flags().StringArrayVar(&r.inputTypes, "input-type", nil, "input element type NAME=TYPE (or #N=TYPE) for formats that do not record it (TorchScript): f32, f16, bf16, f64, i8, i16, i32, i64, u8, u16, u32, u64 or bool, e.g. ids=i64 (repeatable)")
	cmd.Flags().BoolVar(&r.dynamicBatch, "dynamic-batch", false, "make axis 0 of every input a symbolic batch size (refused where a reshape bakes the batch in)")
	cmd.Flags().BoolVar(&r.ignoreCRC, "ignore-crc", false, "read zip entries (PyTorch files) whose CRC-32 check fails, for a damaged file you want anyway")
}

func (r *readFlags) options() (formats.ReadOptions, error) {
	shapes, names, err := tensorfile.ParseInputShapes(r.inputShapes)
	if err != nil {
		return formats.ReadOptions{}, usageErrorf("%v", err)
	}
	dtypes, err := tensorfile.ParseInputDTypes(r.inputShapes, r.inputTypes)
	if err != nil {
		return formats.ReadOptions{}, usageErrorf("%v", err)
	}
	return formats.ReadOptions{Params: r.params, Key: r.key, InputShapes: shapes, DimNames: names, InputDTypes: dtypes, DynamicBatch: r.dynamicBatch, IgnoreCRC: r.ignoreCRC}, nil
}

// load reads a model; pipeline.Read validates it.
func (r *readFlags) load(path string) (*canon.Graph, *formats.Importer, error) {
	opts, err := r.options()
	if err != nil {
		return nil, nil, err
	}
	return pipeline.Read(path, r.from, opts)
}

func joinNames(names []string) string {
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}
