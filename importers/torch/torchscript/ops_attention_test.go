package torchscript

import (
	"archive/zip"
	"bytes"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/interp"
)

// archiveWithCode is the fuzz archive (traced tiny_convnet) with its
// top-level code replaced: TorchScript that PyTorch 1.13 cannot write
// (scaled_dot_product_attention is PyTorch 2) read through the real path.
func archiveWithCode(t *testing.T, code string) *zip.Reader {
	t.Helper()
	archive, err := os.ReadFile(fuzzArchive)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range zr.File {
		rc, err := e.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(e.Name, "/code/__torch__.py") {
			b = []byte(code)
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.Name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// attention is PyTorch's documented reference: softmax(q·kᵀ·scale +
// bias)·v over the last two axes of (H, L, E) slices.
func attention(q, k, v [][]float64, scale float64, bias func(i, j int) float64) [][]float64 {
	out := make([][]float64, len(q))
	for i := range q {
		w := make([]float64, len(k))
		top := math.Inf(-1)
		for j := range k {
			for e := range q[i] {
				w[j] += q[i][e] * k[j][e]
			}
			w[j] = w[j]*scale + bias(i, j)
			top = math.Max(top, w[j])
		}
		sum := 0.0
		for j := range w {
			w[j] = math.Exp(w[j] - top)
			sum += w[j]
		}
		out[i] = make([]float64, len(v[0]))
		for j := range w {
			for e := range v[j] {
				out[i][e] += w[j] / sum * v[j][e]
			}
		}
	}
	return out
}

// TestScaledDotProductAttention reads torch.scaled_dot_product_attention
// with its defaults, is_causal, a float mask, a bool mask and a scale.
func TestScaledDotProductAttention(t *testing.T) {
	code := `class TinyConvNet(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  def forward(self: __torch__.TinyConvNet,
    x: Tensor) -> Tensor:
    q = torch.slice(x, 3, 0, 4)
    k = torch.slice(x, 3, 4, 8)
    v = torch.slice(x, 3, 8, 12)
    m = torch.slice(torch.select(torch.select(x, 0, 0), 0, 0), 1, 0, 3)
    a = torch.scaled_dot_product_attention(q, k, v)
    b = torch.scaled_dot_product_attention(q, k, v, None, 0., True)
    c = torch.scaled_dot_product_attention(q, k, v, m)
    d = torch.scaled_dot_product_attention(q, k, v, torch.gt(m, 0), scale=0.25)
    return torch.cat([a, b, c, d], 3)
`
	g, err := Read(archiveWithCode(t, code), "attention.pt", formats.ReadOptions{InputShapes: map[string][]int64{"x": {1, 2, 3, 12}}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	x := make([]float32, 2*3*12)
	for i := range x {
		x[i] = float32(math.Sin(float64(i)*1.3)) * 1.5
	}
	// Each row of the bool mask (x[0, 0, :, 0:3] > 0) keeps its diagonal.
	for i := range 3 {
		x[i*12+i] = 0.5
	}
	in := canon.NewFloat32Tensor(g.Inputs[0].Name, []int64{1, 2, 3, 12}, x)
	outs, err := interp.Run(g, map[string]*canon.Tensor{in.Name: in})
	if err != nil {
		t.Fatal(err)
	}
	got, err := outs[g.Outputs[0].Name].Float64s()
	if err != nil {
		t.Fatal(err)
	}
	at := func(h, i, c int) float64 { return float64(x[(h*3+i)*12+c]) }
	mask := func(i, j int) float64 { return at(0, i, j) }
	for h := range 2 {
		part := func(off int) [][]float64 {
			rows := make([][]float64, 3)
			for i := range rows {
				for e := range 4 {
					rows[i] = append(rows[i], at(h, i, off+e))
				}
			}
			return rows
		}
		q, k, v := part(0), part(4), part(8)
		want := [][][]float64{
			attention(q, k, v, 0.5, func(int, int) float64 { return 0 }),
			attention(q, k, v, 0.5, func(i, j int) float64 {
				if j > i {
					return math.Inf(-1)
				}
				return 0
			}),
			attention(q, k, v, 0.5, mask),
			attention(q, k, v, 0.25, func(i, j int) float64 {
				if mask(i, j) > 0 {
					return 0
				}
				return math.Inf(-1)
			}),
		}
		for p, w := range want {
			for i := range 3 {
				for e := range 4 {
					g := got[(h*3+i)*16+p*4+e]
					if math.Abs(g-w[i][e]) > 1e-5 {
						t.Fatalf("part %d, head %d, [%d][%d]: got %v, want %v", p, h, i, e, g, w[i][e])
					}
				}
			}
		}
	}
}
