package torchimport

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
)

// readChecked reads path and returns the read's error; the inputs here once
// hung the reader, and a regression shows as a test that does not finish.
func readChecked(t *testing.T, path string) error {
	t.Helper()
	g, err := Read(path, formats.ReadOptions{})
	if err == nil {
		g.Close()
	}
	return err
}

// A pickle can share one list many times through its memo: 60 levels of
// [prev, prev] are a few hundred bytes but 2^60 paths. Looking for tensors
// in it must visit each list once.
func TestSharedListsDoNotExplode(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("\x80\x02}X\x05\x00\x00\x00model]q\x000")
	for i := 1; i < 60; i++ {
		b.WriteString("(h")
		b.WriteByte(byte(i - 1))
		b.WriteString("h")
		b.WriteByte(byte(i - 1))
		b.WriteString("lq")
		b.WriteByte(byte(i))
		b.WriteString("0")
	}
	b.WriteString("h;s.") // BINGET 59
	path := filepath.Join(t.TempDir(), "dag.pt")
	if err := writeTorchZip(path, "a", b.Bytes(), nil, nil, nil, false); err != nil {
		t.Fatal(err)
	}
	if err := readChecked(t, path); err != nil {
		t.Fatal(err)
	}
}

// Many strided views of one small storage each stay under the per-view
// limit, but together they must not expand a small file without bound.
func TestStridedViewsShareOneBudget(t *testing.T) {
	var ts []synthTensor
	for i := 0; i < 64; i++ {
		ts = append(ts, synthTensor{Name: "b" + string(rune('A'+i%26)) + string(rune('a'+i/26)), StorageType: "FloatStorage", Key: "0", Numel: 1, Offset: 0, Size: []int64{1 << 10, 1 << 8}, Stride: []int64{0, 0}})
	}
	path := writeSynth(t, ts, false, "")
	_, err := Read(path, formats.ReadOptions{})
	if err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Fatalf("64 broadcast views of one float (1 MB each): want a refusal, got %v", err)
	}
}

// Names tied to one storage share its bytes, but a file naming one
// storage far more often than torch.save would must not turn into an
// unbounded amount of tensor data for whoever writes the graph out.
func TestTiesShareOneBudget(t *testing.T) {
	var ts []synthTensor
	for i := 0; i < 12; i++ {
		ts = append(ts, synthTensor{Name: "t" + string(rune('a'+i)), StorageType: "FloatStorage", Key: "0", Numel: 1 << 18, Size: []int64{1 << 18}, Stride: []int64{1}})
	}
	_, err := Read(writeSynth(t, ts[:2], false, ""), formats.ReadOptions{})
	if err != nil {
		t.Fatalf("two names for one 1 MB storage: %v", err)
	}
	_, err = Read(writeSynth(t, ts, false, ""), formats.ReadOptions{})
	if err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Fatalf("12 names for one 1 MB storage: want a refusal, got %v", err)
	}
}
