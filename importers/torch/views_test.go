package torchimport

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

func f32s(vs ...float32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

func iota32(n int) []byte {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i)
	}
	return f32s(v...)
}

func writeSynth(t *testing.T, ts []synthTensor, deflate bool, extraGlobal string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "synth.pt")
	sizes := map[string]int{}
	var keys []string
	for _, x := range ts {
		if _, ok := sizes[x.Key]; !ok {
			keys = append(keys, x.Key)
		}
		es := 4
		if strings.HasPrefix(x.StorageType, "Complex") {
			es = 8
		}
		sizes[x.Key] = int(x.Numel) * es
	}
	fill := func(_ string, buf []byte) { copy(buf, iota32(len(buf)/4)) }
	if err := writeTorchZip(path, "any_folder_name", statePickle(ts, extraGlobal), keys, sizes, fill, deflate); err != nil {
		t.Fatal(err)
	}
	return path
}

// Offsets, transposed (non-contiguous) views, tied weights and deflated
// entries, in a file laid out as torch writes it.
func TestViewsTiesAndDeflate(t *testing.T) {
	ts := []synthTensor{
		{Name: "whole", StorageType: "FloatStorage", Key: "0", Numel: 6, Size: []int64{2, 3}, Stride: []int64{3, 1}},
		{Name: "tied", StorageType: "FloatStorage", Key: "0", Numel: 6, Size: []int64{2, 3}, Stride: []int64{3, 1}},
		{Name: "tail", StorageType: "FloatStorage", Key: "0", Numel: 6, Offset: 2, Size: []int64{4}, Stride: []int64{1}},
		{Name: "transposed", StorageType: "FloatStorage", Key: "0", Numel: 6, Size: []int64{3, 2}, Stride: []int64{1, 3}},
		{Name: "column", StorageType: "FloatStorage", Key: "1", Numel: 8, Offset: 1, Size: []int64{2, 2}, Stride: []int64{4, 2}},
	}
	for _, deflate := range []bool{false, true} {
		g := readOK(t, writeSynth(t, ts, deflate, ""), formats.ReadOptions{})
		byName := g.InitializerIndex()
		want := map[string][]byte{
			"whole":      iota32(6),
			"tied":       iota32(6),
			"tail":       f32s(2, 3, 4, 5),
			"transposed": f32s(0, 3, 1, 4, 2, 5),
			"column":     f32s(1, 3, 5, 7),
		}
		for name, w := range want {
			if !bytes.Equal(byName[name].Data, w) {
				t.Errorf("deflate=%v %s: got %v", deflate, name, byName[name].Data)
			}
		}
		if &byName["whole"].Data[0] != &byName["tied"].Data[0] {
			t.Errorf("deflate=%v: tied weights do not share data", deflate)
		}
		if &byName["tail"].Data[0] != &byName["whole"].Data[8] {
			t.Errorf("deflate=%v: storage read twice (tail is not a view of whole's bytes)", deflate)
		}
		found := false
		for _, p := range g.Meta.Props {
			found = found || (p.Key == "torch.tied.tied" && p.Value == "whole")
		}
		if !found {
			t.Errorf("tie not recorded: %v", g.Meta.Props)
		}
	}
}

// Hostile or corrupt files fail with specific errors and never panic.
func TestBadFiles(t *testing.T) {
	ok := []synthTensor{{Name: "w", StorageType: "FloatStorage", Key: "0", Numel: 4, Size: []int64{4}, Stride: []int64{1}}}
	_, err := Read(writeSynth(t, ok, false, "os\nsystem"), formats.ReadOptions{})
	if err == nil || !strings.Contains(err.Error(), "os.system") || !strings.Contains(err.Error(), "nothing was run") {
		t.Errorf("os.system: %v", err)
	}
	cases := map[string]struct {
		ts   []synthTensor
		want string
	}{
		"view past storage": {[]synthTensor{{Name: "w", StorageType: "FloatStorage", Key: "0", Numel: 4, Offset: 2, Size: []int64{4}, Stride: []int64{1}}}, "reaches element 5"},
		"complex":           {[]synthTensor{{Name: "c", StorageType: "ComplexFloatStorage", Key: "0", Numel: 2, Size: []int64{2}, Stride: []int64{1}}}, "does not support"},
		"broadcast bomb":    {[]synthTensor{{Name: "b", StorageType: "FloatStorage", Key: "0", Numel: 1, Size: []int64{1 << 20, 1 << 20}, Stride: []int64{0, 0}}}, "refusing"},
	}
	for name, c := range cases {
		path := writeSynth(t, c.ts, false, "")
		_, err := Read(path, formats.ReadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: want %q, got %v", name, c.want, err)
		}
	}
	// A storage declaring more elements than its entry holds.
	path := filepath.Join(t.TempDir(), "short.pt")
	pkl := statePickle([]synthTensor{{Name: "w", StorageType: "FloatStorage", Key: "0", Numel: 1 << 40, Size: []int64{4}, Stride: []int64{1}}}, "")
	if err := writeTorchZip(path, "a", pkl, []string{"0"}, map[string]int{"0": 16}, func(string, []byte) {}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path, formats.ReadOptions{}); err == nil || !strings.Contains(err.Error(), "truncated or corrupt") {
		t.Errorf("short storage: %v", err)
	}
}

// TestTruncatedAndCorruptFixtures: every truncation of real state dicts
// fails cleanly, and flipped bytes never panic.
func TestTruncatedAndCorruptFixtures(t *testing.T) {
	fix := filepath.Join(testfix.Fixtures(t), "torch", "tiny_convnet")
	for _, name := range []string{"state_dict.pt", "state_dict_legacy.pt"} {
		data, err := os.ReadFile(filepath.Join(fix, name))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		for _, n := range []int{0, 3, 20, 100, len(data) / 3, len(data) / 2, len(data) - 100, len(data) - 1} {
			p := filepath.Join(dir, "cut.pt")
			os.WriteFile(p, data[:n], 0o644)
			if _, err := Read(p, formats.ReadOptions{}); err == nil {
				t.Errorf("%s cut at %d: no error", name, n)
			}
		}
		for i := 0; i < len(data); i += 7 {
			buf := bytes.Clone(data)
			buf[i] ^= 0xff
			p := filepath.Join(dir, "flip.pt")
			os.WriteFile(p, buf, 0o644)
			if g, err := Read(p, formats.ReadOptions{}); err == nil {
				g.Close()
			}
		}
	}
}
