package interp

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Kernels of the random family: RandomUniform, RandomNormal,
// RandomUniformLike, RandomNormalLike, Bernoulli, Multinomial.
//
// Each node draws from its own PCG generator, seeded with the node's Seed
// attribute when it has one and otherwise with a hash of the node's name,
// and kept for the life of the Program: a Program's runs continue the
// stream, and a new Program (interp.Run) repeats it. The values follow the
// op's distribution but are not PyTorch's or ONNX Runtime's draws (each
// framework has its own generator); compare such outputs by shape, dtype
// and range, as `check` does (canon.DrawnValues).

func init() {
	optable.Add(&kernels, map[string]kernelEntry{
		"RandomUniform":     computesF64(drawing(runRandomUniform)),
		"RandomNormal":      computesF64(drawing(runRandomNormal)),
		"RandomUniformLike": computesF64(drawing(runRandomUniformLike)),
		"RandomNormalLike":  computesF64(drawing(runRandomNormalLike)),
		"Bernoulli":         computesF64(drawing(runBernoulli)),
		"Multinomial":       computesF64(drawing(runMultinomial)),
	})
}

// drawStream is one node's generator.
type drawStream struct {
	mu  sync.Mutex
	rng *rand.Rand
}

// drawing builds a kernel that draws from the node's own stream, made on
// the first run (the seed needs the node's name).
func drawing[T canon.Op](run func(*exec, T, *rand.Rand) error) kernelBuilder {
	return func(op canon.Op) kernel {
		o := op.(T)
		s := &drawStream{}
		return func(x *exec) error {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.rng == nil {
				s.rng = rand.New(rand.NewPCG(drawSeed(x.s.node, op)))
			}
			return run(x, o, s.rng)
		}
	}
}

// drawSeed is the generator's seed: the node's Seed attribute, else its name.
func drawSeed(n *canon.Node, op canon.Op) (uint64, uint64) {
	var seed float32
	var seeded bool
	switch o := op.(type) {
	case *canon.RandomUniform:
		seed, seeded = o.Seed, o.Seeded
	case *canon.RandomNormal:
		seed, seeded = o.Seed, o.Seeded
	case *canon.RandomUniformLike:
		seed, seeded = o.Seed, o.Seeded
	case *canon.RandomNormalLike:
		seed, seeded = o.Seed, o.Seeded
	case *canon.Bernoulli:
		seed, seeded = o.Seed, o.Seeded
	case *canon.Multinomial:
		seed, seeded = o.Seed, o.Seeded
	}
	if seeded {
		return uint64(math.Float32bits(seed)), 0x6d6f64656c627267
	}
	h := fnv.New64a()
	h.Write([]byte(n.Name))
	if len(n.Outputs) > 0 {
		h.Write([]byte{0})
		h.Write([]byte(n.Outputs[0]))
	}
	return h.Sum64(), 0x72616e646f6d0a0a
}

// newDrawTensor allocates the output of a float draw of dtype dt.
func (x *exec) newDrawTensor(dt canon.DType, shape []int) (*tensor, error) {
	switch {
	case dt == canon.Float64:
		return x.newD(shape), nil
	case dt.IsFloat():
		t := x.newF(shape)
		t.dt = dt
		return t, nil
	}
	return nil, fmt.Errorf("draws of dtype %s: want a float type", dt)
}

func int64sToInts(s []int64) []int {
	out := make([]int, len(s))
	for i, d := range s {
		out[i] = int(d)
	}
	return out
}

func runRandomUniform(x *exec, op *canon.RandomUniform, r *rand.Rand) error {
	return x.drawUniform(op.DType, int64sToInts(op.Shape), op.Low, op.High, r)
}

func runRandomUniformLike(x *exec, op *canon.RandomUniformLike, r *rand.Rand) error {
	return x.drawUniform(op.DType, append([]int(nil), x.in(0).shape...), op.Low, op.High, r)
}

func runRandomNormal(x *exec, op *canon.RandomNormal, r *rand.Rand) error {
	return x.drawNormal(op.DType, int64sToInts(op.Shape), op.Mean, op.Scale, r)
}

func runRandomNormalLike(x *exec, op *canon.RandomNormalLike, r *rand.Rand) error {
	return x.drawNormal(op.DType, append([]int(nil), x.in(0).shape...), op.Mean, op.Scale, r)
}

func (x *exec) drawUniform(dt canon.DType, shape []int, lo, hi float32, r *rand.Rand) error {
	out, err := x.newDrawTensor(dt, shape)
	if err != nil {
		return err
	}
	l, w := float64(lo), float64(hi)-float64(lo)
	for i := range out.size() {
		v := l + w*r.Float64()
		if !out.isF64() {
			// [low, high) in the output's precision too: a draw that
			// rounds up to high is drawn again.
			for hi > lo && roundFloat(dt, float32(v)) >= hi {
				v = l + w*r.Float64()
			}
		}
		out.setFl(i, v)
	}
	x.set(0, out)
	return nil
}

func (x *exec) drawNormal(dt canon.DType, shape []int, mean, scale float32, r *rand.Rand) error {
	out, err := x.newDrawTensor(dt, shape)
	if err != nil {
		return err
	}
	for i := range out.size() {
		out.setFl(i, float64(mean)+float64(scale)*r.NormFloat64())
	}
	x.set(0, out)
	return nil
}

func runBernoulli(x *exec, op *canon.Bernoulli, r *rand.Rand) error {
	p := x.in(0)
	if !p.isFloating() {
		return fmt.Errorf("probabilities are %s, want a float tensor", p.dt)
	}
	shape := append([]int(nil), p.shape...)
	var out *tensor
	switch {
	case op.DType == canon.Float64 || op.DType.IsFloat():
		var err error
		if out, err = x.newDrawTensor(op.DType, shape); err != nil {
			return err
		}
	default:
		out = x.newI(op.DType, shape)
	}
	for i := range p.size() {
		q := p.fl(i)
		if !(q >= 0 && q <= 1) {
			return fmt.Errorf("element %d of the probabilities is %g, outside [0, 1]", i, q)
		}
		v := 0.0
		if r.Float64() < q {
			v = 1
		}
		out.setNum(i, v)
	}
	x.set(0, out)
	return nil
}

func runMultinomial(x *exec, op *canon.Multinomial, r *rand.Rand) error {
	in := x.in(0)
	if len(in.shape) != 2 || !in.isFloating() {
		return fmt.Errorf("input is %s%v, want a float matrix (batch, classes)", in.dt, in.shape)
	}
	batch, classes := in.shape[0], in.shape[1]
	out := x.newI(op.DType, []int{batch, int(op.SampleSize)})
	cum := make([]float64, classes)
	for b := range batch {
		top := math.Inf(-1)
		for k := range classes {
			top = max(top, in.fl(b*classes+k))
		}
		if math.IsInf(top, -1) || math.IsNaN(top) || math.IsInf(top, 1) {
			return fmt.Errorf("row %d holds no finite log-probability (largest %g)", b, top)
		}
		total := 0.0
		for k := range classes {
			total += math.Exp(in.fl(b*classes+k) - top)
			cum[k] = total
		}
		for s := range int(op.SampleSize) {
			u := r.Float64() * total
			k := 0
			for k < classes-1 && cum[k] <= u {
				k++
			}
			out.i[b*int(op.SampleSize)+s] = int64(k)
		}
	}
	x.set(0, out)
	return nil
}
