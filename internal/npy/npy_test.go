package npy

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// The testdata files were written by numpy.save.
func TestReadNumpyFiles(t *testing.T) {
	a, err := ReadFile("testdata/f32_3x4.npy")
	if err != nil {
		t.Fatal(err)
	}
	v, _ := a.Float64s()
	if a.DType != canon.Float32 || len(a.Shape) != 2 || a.Shape[0] != 3 || a.Shape[1] != 4 || v[11] != 11 {
		t.Fatalf("f32_3x4: got %s%v %v", a.DType, a.Shape, v)
	}
	b, err := ReadFile("testdata/i64_be.npy")
	if err != nil {
		t.Fatal(err)
	}
	iv, _ := b.Int64s()
	if b.DType != canon.Int64 || len(iv) != 5 || iv[4] != 4 {
		t.Fatalf("big-endian i64: got %s%v %v", b.DType, b.Shape, iv)
	}
	c, err := ReadFile("testdata/scalar_f64.npy")
	if err != nil {
		t.Fatal(err)
	}
	cv, _ := c.Float64s()
	if len(c.Shape) != 0 || cv[0] != 3.5 {
		t.Fatalf("scalar: got %v %v", c.Shape, cv)
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	in := canon.NewFloat32Tensor("x", []int64{2, 3}, []float32{1, 2, 3, 4, 5, 6})
	var buf bytes.Buffer
	if err := Write(&buf, in); err != nil {
		t.Fatal(err)
	}
	out, err := Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Data, in.Data) || len(out.Shape) != 2 {
		t.Fatalf("round trip changed the tensor: %v", out.Shape)
	}
}

func TestBadFiles(t *testing.T) {
	good, _ := os.ReadFile("testdata/f32_3x4.npy")
	cases := map[string][]byte{
		"empty":       {},
		"wrong magic": []byte("NUMPY\x01\x00xxxxxxxxxxxxxxxx"),
		"truncated":   good[:len(good)-5],
		"huge shape":  bytes.Replace(good, []byte("(3, 4)"), []byte("(9999999999999, 99999999)"), 1),
	}
	for name, data := range cases {
		_, err := Read(bytes.NewReader(data), int64(len(data)))
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if strings.TrimSpace(err.Error()) == "" {
			t.Errorf("%s: empty error", name)
		}
	}
}
