package robust

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/internal/testfix"
)

// safetensorsFile lays out a safetensors file: the header length, the
// JSON header, then the data section.
func safetensorsFile(header string, data []byte) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	b = append(b, header...)
	return append(b, data...)
}

// absurdSafetensors declares sizes and ranges the file does not hold, or
// nests its header far deeper than any real file.
func absurdSafetensors(base []byte) []Damaged {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	deepObj := strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000)
	return []Damaged{
		{"header-length-2^40", PatchUint64(base, 0, huge)},
		{"header-length-2^64-1", PatchUint64(base, 0, ^uint64(0))},
		{"header-length-past-the-end-by-1", PatchUint64(base, 0, uint64(len(base)-8+1))},
		{"header-length-0", PatchUint64(base, 0, 0)},
		{"tensor-declaring-4TiB", safetensorsFile(`{"w":{"dtype":"F32","shape":[1099511627776],"data_offsets":[0,4398046511104]}}`, make([]byte, 16))},
		{"offsets-past-the-end", safetensorsFile(`{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}`, make([]byte, 8))},
		{"offsets-past-int64", safetensorsFile(`{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,18446744073709551616]}}`, make([]byte, 16))},
		{"negative-offsets", safetensorsFile(`{"w":{"dtype":"F32","shape":[4],"data_offsets":[-16,0]}}`, make([]byte, 16))},
		{"reversed-offsets", safetensorsFile(`{"w":{"dtype":"F32","shape":[0],"data_offsets":[16,0]}}`, make([]byte, 16))},
		{"overlapping-ranges", safetensorsFile(`{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"b":{"dtype":"F32","shape":[4],"data_offsets":[8,24]}}`, make([]byte, 24))},
		{"same-range-twice", safetensorsFile(`{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"b":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}`, make([]byte, 16))},
		{"gap-between-ranges", safetensorsFile(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[12,20]}}`, make([]byte, 20))},
		{"overflowing-shape", safetensorsFile(`{"w":{"dtype":"F32","shape":[1099511627776,1099511627776,1099511627776],"data_offsets":[0,4]}}`, make([]byte, 4))},
		{"negative-dimension", safetensorsFile(`{"w":{"dtype":"F32","shape":[-1,-4],"data_offsets":[0,16]}}`, make([]byte, 16))},
		{"unknown-dtype", safetensorsFile(`{"w":{"dtype":"F8_E9M0","shape":[4],"data_offsets":[0,4]}}`, make([]byte, 4))},
		{"duplicate-tensor", safetensorsFile(`{"w":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"w":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}}`, make([]byte, 4))},
		{"header-not-an-object", safetensorsFile(`[1,2,3]`, nil)},
		{"header-arrays-nested-100000-deep", safetensorsFile(`{"w":`+deep+`}`, nil)},
		{"header-objects-nested-100000-deep", safetensorsFile(`{"w":`+deepObj+`}`, nil)},
		{"metadata-nested-100000-deep", safetensorsFile(`{"__metadata__":`+deepObj+`}`, nil)},
	}
}

// TestDamagedSafetensors spoils a safetensors file made by the exporter
// from the repository's model (so it runs on a fresh clone) and, when the
// shared fixtures are present, a file written by the real library.
func TestDamagedSafetensors(t *testing.T) {
	dir := t.TempDir()
	made := filepath.Join(dir, "tiny.safetensors")
	convertWith(t, filepath.Join(testfix.RepoRoot(), "testdata/tiny_convnet.onnx"), made)
	base, err := os.ReadFile(made)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("exported", func(t *testing.T) {
		damageAll(t, "tiny.safetensors", base, absurdSafetensors(base))
	})
	t.Run("real", func(t *testing.T) {
		real := torchFixture(t, "torch-files/safetensors/multi_layer.safetensors")
		damageAll(t, "multi_layer.safetensors", real, nil)
	})
}
