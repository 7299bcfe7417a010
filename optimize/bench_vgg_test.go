package optimize

import (
	"os"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
)

// BenchmarkOptimizeVGG11 optimizes torchvision's vgg11_bn exported to ONNX
// at $MODELBRIDGE_VGG11_ONNX (default /tmp/vgg11_bn.onnx), as `convert
// --optimize` does, with and without verification: its 515 MB of weights
// show what the check costs over the optimization itself.
func BenchmarkOptimizeVGG11(b *testing.B) {
	path := os.Getenv("MODELBRIDGE_VGG11_ONNX")
	if path == "" {
		path = "/tmp/vgg11_bn.onnx"
	}
	if _, err := os.Stat(path); err != nil {
		b.Skipf("skipping: %s not found (export torchvision vgg11_bn to ONNX there)", path)
	}
	for _, verify := range []bool{false, true} {
		name := "NoVerify"
		if verify {
			name = "Verify"
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				g, err := onnximport.Read(path, formats.ReadOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := Optimize(g, Options{Verify: verify}); err != nil {
					b.Fatal(err)
				}
				g.Close()
			}
		})
	}
}
