package torchscript

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix/torchtrace"
)

// mathEdgeInputs are inputs for the elementwise expansions: signed zeros,
// infinities, NaN, tiny and large values, halves; a against b covers
// every pair (outer grid) so each quadrant and edge of atan2 and the
// other two-operand functions is hit.
const mathEdgeInputs = `
torch.manual_seed(0)
v = torch.tensor([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 1e-8, -1e-8, 3.7, -3.7, 80.0, -80.0, 1e30,
                  float("inf"), float("-inf"), float("nan")])
a = v.reshape(-1, 1).expand(-1, v.numel()).contiguous()
b = v.reshape(1, -1).expand(v.numel(), -1).contiguous()
p = torch.rand(4, 6) * 0.98 + 0.01
xs = [a, b, p, torch.randn(4, 6)]
`

// TestTracedMathExpansions checks the elementwise expansions against
// PyTorch 1.13 on edge values, in the interpreter and (exported to ONNX)
// in ONNX Runtime.
func TestTracedMathExpansions(t *testing.T) {
	script := `
class M(torch.nn.Module):
    def forward(self, a, b, p, r):
        y = r.clone()
        y.square_()
        z = r.clone()
        z.lerp_(p, 0.75)
        w = r.clone()
        w.atan2_(p)
        return (torch.square(a), torch.trunc(a), torch.fix(a), torch.frac(a), torch.log10(a), torch.log2(a),
                torch.log1p(a), torch.expm1(a), torch.exp2(a), torch.sinc(a), torch.deg2rad(a), torch.rad2deg(a),
                torch.isfinite(a), torch.sgn(a), torch.positive(a),
                torch.atan2(a, b), torch.logaddexp(a, b), torch.logaddexp2(a, b), torch.hypot(a, b),
                torch.copysign(a, b), torch.xlogy(a, b), torch.heaviside(a, b), torch.true_divide(a, b),
                torch.float_power(p, r), torch.float_power(p, 2.5), torch.logit(p), torch.logit(a, 0.25),
                torch.nan_to_num(a), torch.nan_to_num(a, 1.0, 2.0, -3.0), torch.special.entr(a),
                torch.addcmul(r, p, r, value=0.5), torch.addcdiv(r, p, r, value=-2.0), torch.addcmul(r, p, r),
                torch.lerp(r, p, 0.3), torch.lerp(r, p, 1.0), torch.lerp(r, p, -0.7), torch.lerp(r, p, p * 3 - 1),
                torch.clamp(r, p - 0.5, p), torch.clamp(r, min=p - 0.5), torch.clamp_min(r, p), torch.clamp_max(r, p),
                torch.clamp(a, b), torch.clamp(r, torch.full([], -0.2), torch.full([], 0.4)),
                torch.heaviside((r * 3).to(torch.int32), torch.full([1], 7, dtype=torch.int32)), y, z, w)
` + mathEdgeInputs
	dir, nOut := trace(t, script)
	g := compareTraced(t, dir, nOut, 1e-5, 1e-6)
	compareTracedORT(t, g, dir, formats.WriteOptions{}, 1e-5, 1e-6)
}

// TestTracedReductionsAndProducts checks std/var, norms, all/any,
// cumprod, the products, cross, kron, diff, linspace/logspace and the
// signed shifts against PyTorch 1.13.
func TestTracedReductionsAndProducts(t *testing.T) {
	script := `
class M(torch.nn.Module):
    def forward(self, x, v, m, q):
        c = x.clone()
        c[0, 1] = 0.0
        c[1, 2] = -2.0
        i32 = (x * 1000).to(torch.int32)
        i64 = (x * 1000).to(torch.int64)
        flo = x.clone()
        flo.floor_divide_(0.3)
        sh = i32.clone()
        sh <<= 3
        kk = (torch.arange(60) % 32).reshape(3, 4, 5).to(torch.int32)
        return (torch.std(x), torch.std(x, 1), torch.var(x, [0, 2], unbiased=False), torch.var(x, 1, keepdim=True),
                torch.std(x, [1], correction=2), torch.var(x, dim=None, correction=0), *torch.std_mean(x, [1, 2]),
                *torch.var_mean(x, 0, True, True), torch.std(x[:, :1, :1], 1),
                torch.norm(x), torch.norm(x, 3), torch.norm(x, float("inf"), [1]), torch.norm(c, 0, [2]),
                torch.norm(x, -1.5, [0, 1], True), torch.norm(x, "fro", [1, 2]), torch.linalg.vector_norm(x, float("-inf")),
                torch.linalg.vector_norm(x, 0.5, [2], dtype=torch.float64), torch.linalg.norm(m), torch.linalg.norm(m, float("inf")),
                torch.linalg.norm(m, 1), torch.linalg.norm(m, -1), torch.linalg.norm(x, 3, 2), torch.linalg.norm(x, "fro", (0, 2)),
                torch.linalg.matrix_norm(x, float("-inf")), torch.linalg.norm(v, 4),
                torch.all(c), torch.all(c, 1), torch.any(c > 1, 2, keepdim=True), torch.any(c == 5), torch.all(c.to(torch.uint8), 0),
                torch.count_nonzero(c), torch.count_nonzero(c, 2), torch.count_nonzero(c, (0, 2)), *torch.aminmax(x),
                *torch.aminmax(x, dim=1, keepdim=True), torch.cumprod(c, 1), torch.cumprod(c * 3, -1), torch.cumprod(i32 % 5, 2),
                torch.cumprod(c, 0, dtype=torch.float64), torch.sum(x, 1, dtype=torch.float64), torch.mean(x, [2], dtype=torch.float64),
                torch.sum(i32, dtype=torch.int32), torch.prod(c, 2, dtype=torch.float64), torch.cumsum(i32, 1, dtype=torch.int32),
                torch.softmax(x, 1, dtype=torch.float64), torch.log_softmax(x, -1, dtype=torch.float64),
                torch.mv(m, v[:4]), torch.dot(v, v), torch.vdot(v, v), torch.outer(v, v[:3]), torch.ger(v[:2], v),
                torch.inner(m, m), torch.inner(x, v[:5]), torch.addmv(v[:3], m[:3], v[:4], beta=0.5, alpha=2.0),
                torch.addbmm(m[:4, :3] / 0.0, x, x.transpose(1, 2)[:, :, :3], beta=0.0), torch.addr(m, v[:5], v[:4], alpha=-1.0),
                torch.cross(q, q.flip(0)), torch.cross(q, q * 2 + 1, dim=1), torch.linalg.cross(q, q.flip(1)),
                torch.kron(m, v[:3]), torch.kron(x[:2], m[:2, :2]), torch.diff(x, 1, 1), torch.diff(x, 2, append=x[:, :, :2]),
                torch.diff(x > 0, dim=0), torch.linspace(-1.3, 7.1, 11), torch.linspace(2, 10, 5, dtype=torch.int64),
                torch.linspace(0.0, 1.0, 7, dtype=torch.float64), torch.linspace(5.0, 5.0, 1), torch.logspace(-2, 3, 6),
                torch.logspace(0, 5, 4, base=2.0), i32 << 3, i32 >> 2, i64 >> 63, i64 << 62, i32 >> 31, torch.bitwise_left_shift(i64, 5),
                torch.bitwise_right_shift(i32, 4), flo, sh, i32 << kk, i32 >> kk, i64 << kk.long() * 2, i64 >> kk.long() * 2)
torch.manual_seed(0)
xs = [torch.randn(3, 4, 5), torch.randn(6), torch.randn(5, 4), torch.randn(3, 3)]
`
	dir, nOut := trace(t, script)
	g := compareTraced(t, dir, nOut, 1e-5, 1e-6)
	compareTracedORT(t, g, dir, formats.WriteOptions{}, 1e-5, 1e-6)
}

// TestTracedArangeRunTimeBound: arange up to a count computed from the
// data, and from sizes, in the interpreter and in ONNX Runtime.
func TestTracedArangeRunTimeBound(t *testing.T) {
	script := `
class M(torch.nn.Module):
    def forward(self, x):
        k = (x > 0).sum() + 1
        j = (x < 0).long().sum()
        return (torch.arange(k), torch.arange(j, k + 4), torch.arange(1, k, 2, dtype=torch.float32),
                torch.arange(x.shape[0] * 2, dtype=torch.float32))
torch.manual_seed(0)
xs = [torch.randn(3, 4)]
`
	dir, nOut := trace(t, script)
	g := compareTraced(t, dir, nOut, 0, 0)
	compareTracedORT(t, g, dir, formats.WriteOptions{}, 0, 0)
}

// TestTracedMoreMath checks the NaN-aware and sign functions, tensordot,
// matrix powers, chained products and logcumsumexp against PyTorch 1.13.
func TestTracedMoreMath(t *testing.T) {
	script := `
class M(torch.nn.Module):
    def forward(self, a, b, p, r):
        s = torch.randn(1)  # unused; keeps the signature
        q = r.clone()
        q[0, 1] = float("nan")
        q[2, 3] = float("-inf")
        sq = p[:, :4]
        return (torch.signbit(a), torch.angle(a), torch.fmax(a, b), torch.fmin(a, b), torch.ldexp(r, torch.round(p * 4)),
                torch.special.xlog1py(a, b), torch.nansum(q), torch.nansum(q, 1), torch.nanmean(q, 0, keepdim=True),
                torch.dist(r, p), torch.dist(r, p, 3.5), torch.dist(r, p, float("inf")), torch.dist(r, p, 0),
                torch.tensordot(r.reshape(2, 2, 6), p.reshape(6, 2, 2), dims=([2, 0], [0, 2])), torch.tensordot(r, p.t(), dims=1),
                torch.matrix_power(sq, 0), torch.matrix_power(sq, 1), torch.matrix_power(sq, 2), torch.matrix_power(sq, 3),
                torch.matrix_power(sq, 5), torch.linalg.matrix_power(sq, 6), torch.linalg.multi_dot([r, p.t(), sq]),
                torch.linalg.multi_dot([r[0], p.t(), sq[0]]), torch.chain_matmul(sq, sq, sq), torch.logcumsumexp(q, 1),
                torch.logcumsumexp(r * 50, 0), *torch.cummax(q, 1), *torch.cummin(q, 1), *torch.cummax(torch.round(r * 2), 0),
                *torch.cummin((r * 3).to(torch.int64), 1), *torch.cummax(a, 0), torch.trace(r), torch.trace(r.t()),
                torch.trace((r * 3).to(torch.int32)), torch.cdist(r, p), torch.cdist(r, p, 1.0), torch.cdist(r, p, 0.0),
                torch.cdist(r.reshape(2, 2, 6), p.reshape(2, 2, 6), float("inf")), torch.cdist(r[:, :2], p[:3, :2], 3.0),
                torch.isclose(a, b), torch.isclose(a, b, equal_nan=True), torch.isclose(a, a + 1e-6, 1e-5, 0.0),
                torch.isclose(r, torch.round(r), 0.1, 0.2), torch.isin(torch.round(r * 2), torch.round(p * 2)),
                torch.isin((r * 3).to(torch.int64), (p * 3).to(torch.int64), invert=True), torch.isin(a, 2.5))
` + mathEdgeInputs
	dir, nOut := trace(t, script)
	g := compareTraced(t, dir, nOut, 1e-5, 1e-6)
	compareTracedORT(t, g, dir, formats.WriteOptions{}, 1e-5, 1e-6)
}

// TestMathRefusals: functions no canonical op computes exactly are
// refused by name, with the reason.
func TestMathRefusals(t *testing.T) {
	for _, c := range []struct{ call, want string }{
		{"torch.lgamma(x)", "torch.lgamma: not supported: lgamma"},
		{"torch.digamma(x)", "torch.digamma: not supported: digamma has no ONNX operator"},
		{"torch.erfc(x)", "torch.erfc: not supported: 1 - erf(x) loses"},
		{"torch.linalg.inv(x)", "torch.linalg_inv: not supported: matrix inverses need"},
		{"torch.linalg.matrix_norm(x, 2)", "needs singular values"},
		{"torch.matrix_power(x, -1)", "needs the matrix inverse"},
	} {
		t.Run(c.call, func(t *testing.T) {
			dir, _ := trace(t, "class M(torch.nn.Module):\n    def forward(self, x):\n        return "+c.call+"\nxs = [torch.rand(3, 3) + 0.5]\n")
			g, _, err := readTraced(t, dir)
			if err == nil {
				g.Close()
				t.Fatal("imported; want a refusal")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not say %q", err, c.want)
			}
		})
	}
}

// TestMathAliasesNameOperators: every alias and in-place form calls an operator of the
// table and declares the kinds that operator may emit.
func TestMathAliasesNameOperators(t *testing.T) {
	all := maps.Clone(mathAliases)
	maps.Copy(all, inPlaceForms)
	for name, a := range all {
		target, ok := opTable[a.of]
		if !ok {
			t.Errorf("%s names %s, which the table lacks", name, a.of)
			continue
		}
		for _, k := range target.kinds {
			if !slices.Contains(opTable[name].kinds, k) {
				t.Errorf("%s does not declare %s, which %s may emit", name, k, a.of)
			}
		}
	}
}

// TestVarianceWithoutShapes: std and var of an input whose shape is not
// given count the reduced entries at run time, in the interpreter and in
// ONNX Runtime.
func TestVarianceWithoutShapes(t *testing.T) {
	m := torchtrace.Trace(t, `
class M(torch.nn.Module):
    def forward(self, x):
        return (torch.std(x, 1), torch.var(x, [0, -1], unbiased=False), *torch.std_mean(x), torch.var(x, 2, correction=7))
torch.manual_seed(0)
xs = [torch.randn(3, 4, 5)]
`)
	// No input sizes: the counts are computed at run time.
	g, err := ReadFile(m.Path(), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	m.CompareGraph(t, g, 1e-5, 1e-6)
	m.CompareORT(t, g, formats.WriteOptions{}, 1e-5, 1e-6)
}
