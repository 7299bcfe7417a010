package runtimes

import "testing"

func TestRunsFilesOf(t *testing.T) {
	for _, c := range []struct {
		rt, format string
		want       bool
	}{{ORT, "onnx", true}, {ORT, "torchscript", false}, {ORT, "mxnet", false}, {Interp, "caffe", true}} {
		if got := RunsFilesOf(c.rt, c.format); got != c.want {
			t.Errorf("RunsFilesOf(%s, %s) = %v", c.rt, c.format, got)
		}
	}
}
