package mxparams

import (
	"bytes"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/testfix/readcheck"
)

// FuzzParse decodes arbitrary bytes as an NDArray list file. Sparse arrays
// are densified, so a successful read may hold more data than the file,
// but never more than DensifyLimit allows.
func FuzzParse(f *testing.F) {
	var buf bytes.Buffer
	w := canon.NewFloat32Tensor("w", []int64{2, 3}, []float32{1, 2, 3, 4, 5, 6})
	b := canon.NewFloat32Tensor("b", []int64{2}, []float32{7, 8})
	if err := Write(&buf, []string{"arg:w", "arg:b"}, []*canon.Tensor{w, b}); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	for _, s := range readcheck.Seeds(64<<10, "mxnet/*/*.params", "mxnet/legacy/*") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		arrays, err := Parse(data, "fuzz.params")
		readcheck.CheckError(t, err)
		if err != nil {
			return
		}
		var total int64
		for _, a := range arrays {
			if err := a.Tensor.CheckData(); err != nil {
				t.Fatalf("array %q read without error is inconsistent: %v", a.Name, err)
			}
			total += int64(len(a.Tensor.Data))
		}
		if limit := int64(len(data)) + DensifyLimit(len(data)); total > limit {
			t.Fatalf("a %d-byte file gave %d bytes of arrays", len(data), total)
		}
	})
}
