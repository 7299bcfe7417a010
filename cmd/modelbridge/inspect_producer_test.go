package main

import (
	"strings"
	"testing"
)

// TestInspectProducerLine: a file without a producer version (an MXNet
// params file, a TorchScript archive) prints the producer alone, with no
// trailing space.
func TestInspectProducerLine(t *testing.T) {
	for _, c := range []struct{ producer, version, want string }{
		{"mxnet", "", "producer:  mxnet\n"},
		{"mxnet", "1.3.0", "producer:  mxnet 1.3.0\n"},
	} {
		var b strings.Builder
		printInspect(&b, inspectReport{File: "f", Format: "mxnet", Producer: c.producer, ProducerVersion: c.version})
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("producer %q version %q: output\n%q\nlacks %q", c.producer, c.version, b.String(), c.want)
		}
	}
}
