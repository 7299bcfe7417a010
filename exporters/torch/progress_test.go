package torchexport

import (
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// One large tensor is reported a chunk at a time, so a progress bar moves
// through it instead of jumping at its end.
func TestStateDictProgressWithinATensor(t *testing.T) {
	big := &canon.Tensor{Name: "w", DType: canon.Float32, Shape: []int64{5, 1 << 20}}
	big.Data = make([]byte, big.ByteSize())
	small := &canon.Tensor{Name: "b", DType: canon.Float32, Shape: []int64{4}, Data: make([]byte, 16)}
	var calls []int64
	var total int64
	err := WriteStateDictProgress(filepath.Join(t.TempDir(), "w.pt"), []Entry{{"w", big}, {"b", small}}, func(done, tot int64) {
		calls = append(calls, done)
		total = tot
	})
	if err != nil {
		t.Fatal(err)
	}
	if total != big.ByteSize()+16 || len(calls) == 0 || calls[len(calls)-1] != total {
		t.Fatalf("progress ended at %v of %d", calls, total)
	}
	if len(calls) < 3 {
		t.Errorf("a 20 MiB tensor was reported in %d steps; want it split into chunks", len(calls))
	}
	for i := 1; i < len(calls); i++ {
		if calls[i] < calls[i-1] {
			t.Fatalf("progress went back: %v", calls)
		}
	}
}
