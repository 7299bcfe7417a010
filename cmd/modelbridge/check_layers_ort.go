package main

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/runtimes"
)

// ortAllValues asks ONNX Runtime for every intermediate value of an ONNX
// model, keyed by the value names modelbridge's ONNX importer keeps.
func ortAllValues(s *checkSide, in map[string]*canon.Tensor) (map[string]*canon.Tensor, string, error) {
	if !runtimes.RunsFilesOf(runtimes.ORT, s.g.Meta.SourceFormat) {
		return nil, "", usageErrorf("%s is a %s model: ONNX Runtime runs ONNX files; choose --runtime interp or torch for it", s.path, s.g.Meta.SourceFormat)
	}
	var sample runtimes.Sample
	for _, v := range s.g.Inputs {
		sample = append(sample, in[v.Name])
	}
	return runtimes.ORTAllValues(s.path, sample)
}
