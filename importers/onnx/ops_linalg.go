package onnximport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The linear-algebra family: Det (opset 11; 22 added bfloat16).

func init() {
	optable.Add(&ops, map[string]opEntry{
		"Det": {simple(func() canon.Op { return &canon.Det{} }), 11, []string{"Det"}},
	})
}
