package quantize

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/interp"
)

// Method is how a tensor's range is chosen from the calibration data.
type Method string

const (
	// MinMax takes the smallest and largest value seen.
	MinMax Method = "minmax"
	// Percentile clips the magnitudes above a percentile (Percentile).
	Percentile Method = "percentile"
	// Entropy picks the clipping threshold whose quantized distribution is
	// closest (Kullback-Leibler divergence) to the measured one.
	Entropy Method = "entropy"
)

// Methods lists the calibration methods.
var Methods = []Method{MinMax, Percentile, Entropy}

// Samples yields calibration or evaluation inputs one set at a time, so
// that a folder of many inputs is never held in memory at once.
type Samples interface {
	Len() int
	// Sample returns input set i, keyed by graph input name.
	Sample(i int) (map[string]*canon.Tensor, error)
}

// entropyLevels is the number of quantized bins the entropy method
// compares against (TensorRT's and ONNX Runtime's 128: int8 magnitudes).
const entropyLevels = 128

// histBins is the resolution of the magnitude histograms that the
// percentile and entropy methods choose thresholds from.
const histBins = 2048

type tensorStats struct {
	min, max float64
	absMax   float64
	hist     []float64 // |x| over [0, absMax], histBins bins
	seen     bool
}

// CalibrateOptions tunes Calibrate.
type CalibrateOptions struct {
	Method Method
	// Percentile for the percentile method (default 99.999).
	Percentile float64
	// Progress is told how many of the calibration runs are done.
	Progress func(done, total int64)
	// MaxBytes bounds the calibrated values held at once (default: a
	// quarter of the interpreter's memory budget); more tensors than fit
	// are calibrated in several series of runs.
	MaxBytes int64
}

// Calibrate runs g in the interpreter on every sample and returns the
// range of each named float tensor. Percentile and entropy read the
// samples twice: once for the extremes that fix the histograms' ranges,
// once for the histograms.
func Calibrate(g *canon.Graph, tensors []string, src Samples, opts CalibrateOptions) (map[string]Range, error) {
	if src.Len() == 0 {
		return nil, fmt.Errorf("no calibration inputs")
	}
	method := opts.Method
	if method == "" {
		method = MinMax
	}
	if !slices.Contains(Methods, method) {
		return nil, fmt.Errorf("calibration method %q: use minmax, percentile or entropy", method)
	}
	pct := opts.Percentile
	if pct == 0 {
		pct = 99.999
	}
	if pct <= 0 || pct > 100 {
		return nil, fmt.Errorf("percentile %g: must be in (0, 100]", pct)
	}
	stats := make(map[string]*tensorStats, len(tensors))
	for _, t := range tensors {
		stats[t] = &tensorStats{min: math.Inf(1), max: math.Inf(-1)}
	}
	passes := 1
	if method != MinMax {
		passes = 2
	}
	budget := opts.MaxBytes
	if budget <= 0 {
		budget = interp.MemoryLimit() / 4
	}
	chunks := chunkByBytes(g, tensors, budget)
	total := int64(len(chunks) * passes * src.Len())
	done := int64(0)
	for _, chunk := range chunks {
		prog, err := withOutputs(g, chunk)
		if err != nil {
			return nil, err
		}
		for pass := 0; pass < passes; pass++ {
			if pass == 1 {
				for _, name := range chunk {
					stats[name].hist = make([]float64, histBins)
				}
				if canon.GraphDraws(g) {
					// A new Program repeats its random draws, so the
					// histograms see the values whose extremes fixed
					// their ranges.
					if prog, err = withOutputs(g, chunk); err != nil {
						return nil, err
					}
				}
			}
			// Each sample's values overwrite the last's: the statistics
			// are taken before the next run.
			vals := map[string]*canon.Tensor{}
			for i := 0; i < src.Len(); i++ {
				in, err := src.Sample(i)
				if err != nil {
					return nil, err
				}
				if err := prog.RunInto(in, vals); err != nil {
					return nil, fmt.Errorf("calibration input %d: %w", i, err)
				}
				for _, name := range chunk {
					t := vals[name]
					if t == nil {
						t = in[name]
					}
					if t == nil || t.DType != canon.Float32 {
						continue
					}
					if pass == 0 {
						stats[name].observe(t.Data)
					} else {
						stats[name].histogram(t.Data)
					}
				}
				done++
				if opts.Progress != nil {
					opts.Progress(done, total)
				}
			}
		}
	}
	out := make(map[string]Range, len(tensors))
	for name, s := range stats {
		if !s.seen {
			continue
		}
		r := Range{Min: float32(s.min), Max: float32(s.max)}
		var t float64
		switch method {
		case Percentile:
			t = s.percentile(pct)
		case Entropy:
			t = s.entropyThreshold(entropyLevels)
		}
		if method != MinMax && t > 0 {
			r.Min = float32(max(s.min, -t))
			r.Max = float32(min(s.max, t))
		}
		out[name] = r
	}
	return out, nil
}

// chunkByBytes splits the tensors into groups whose values (at their
// inferred sizes) fit in budget bytes: each group is one series of runs
// over the samples, so the values held at once stay within the
// interpreter's memory budget however many tensors are calibrated.
func chunkByBytes(g *canon.Graph, tensors []string, budget int64) [][]string {
	var chunks [][]string
	var cur []string
	var used int64
	for _, t := range tensors {
		size := int64(4)
		if shape, ok := g.Values.Get(t).StaticShape(); ok {
			size = 4 * max(canon.NumElements(shape), 1)
		}
		if len(cur) > 0 && budget > 0 && used+size > budget {
			chunks = append(chunks, cur)
			cur, used = nil, 0
		}
		cur = append(cur, t)
		used += size
	}
	if len(cur) > 0 {
		chunks = append(chunks, cur)
	}
	return chunks
}

// withOutputs compiles g with the tensors added to its outputs.
func withOutputs(g *canon.Graph, tensors []string) (*interp.Program, error) {
	c := *g
	c.Outputs = slices.Clone(g.Outputs)
	have := map[string]bool{}
	for _, o := range c.Outputs {
		have[o.Name] = true
	}
	for _, in := range g.Inputs {
		have[in.Name] = true
	}
	for _, t := range tensors {
		if !have[t] {
			have[t] = true
			v, ok := g.Values.Lookup(t)
			if !ok {
				v = canon.ValueInfo{Name: t}
			}
			c.Outputs = append(c.Outputs, v)
		}
	}
	return interp.New(&c)
}

func f32At(data []byte, i int) float64 {
	return float64(math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:])))
}

func (s *tensorStats) observe(data []byte) {
	n := len(data) / 4
	lo, hi := s.min, s.max
	for i := 0; i < n; i++ {
		v := f32At(data, i)
		if v != v { // NaN carries no range
			continue
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	if n > 0 {
		s.seen = true
	}
	s.min, s.max = lo, hi
	s.absMax = max(math.Abs(lo), math.Abs(hi))
}

func (s *tensorStats) histogram(data []byte) {
	if s.absMax == 0 || math.IsInf(s.absMax, 0) {
		return
	}
	w := s.absMax / histBins
	n := len(data) / 4
	for i := 0; i < n; i++ {
		v := math.Abs(f32At(data, i))
		if v != v || v == 0 {
			// Zeros (all of a Relu's negative half) are exact at any
			// threshold; counted, they would drown the distribution's shape.
			continue
		}
		b := int(v / w)
		if b >= histBins {
			b = histBins - 1
		}
		s.hist[b]++
	}
}

// percentile is the magnitude below which pct percent of the values lie.
func (s *tensorStats) percentile(pct float64) float64 {
	total := 0.0
	for _, c := range s.hist {
		total += c
	}
	if total == 0 {
		return 0
	}
	want := total * pct / 100
	acc := 0.0
	w := s.absMax / histBins
	for i, c := range s.hist {
		acc += c
		if acc >= want {
			return float64(i+1) * w
		}
	}
	return s.absMax
}

// entropyThreshold is the magnitude threshold minimizing the KL
// divergence between the clipped histogram and its quantization to the
// given number of levels (the method TensorRT introduced: values above
// the threshold are counted in the last bin, each group of bins is
// spread evenly over its nonzero bins).
func (s *tensorStats) entropyThreshold(levels int) float64 {
	hist := s.hist
	if len(hist) == 0 {
		return 0
	}
	best, bestKL := len(hist), math.Inf(1)
	p := make([]float64, len(hist))
	q := make([]float64, len(hist))
	for i := levels; i <= len(hist); i++ {
		copy(p, hist[:i])
		outliers := 0.0
		for _, c := range hist[i:] {
			outliers += c
		}
		p[i-1] += outliers
		// Quantize hist[:i] into levels groups.
		for j := range q[:i] {
			q[j] = 0
		}
		for k := 0; k < levels; k++ {
			start, end := k*i/levels, (k+1)*i/levels
			sum, nonzero := 0.0, 0
			for j := start; j < end; j++ {
				sum += hist[j]
				if hist[j] != 0 {
					nonzero++
				}
			}
			if nonzero == 0 {
				continue
			}
			for j := start; j < end; j++ {
				if hist[j] != 0 {
					q[j] = sum / float64(nonzero)
				}
			}
		}
		kl := klDivergence(p[:i], q[:i])
		if kl < bestKL {
			best, bestKL = i, kl
		}
	}
	return (float64(best) + 0.5) * s.absMax / float64(len(hist))
}

func klDivergence(p, q []float64) float64 {
	sp, sq := 0.0, 0.0
	for i := range p {
		sp += p[i]
		sq += q[i]
	}
	if sp == 0 || sq == 0 {
		return math.Inf(1)
	}
	kl := 0.0
	for i := range p {
		if p[i] == 0 {
			continue
		}
		pi := p[i] / sp
		qi := q[i] / sq
		if qi == 0 {
			qi = 1e-12 // an outlier bin the quantized distribution lost
		}
		kl += pi * math.Log(pi/qi)
	}
	return kl
}
