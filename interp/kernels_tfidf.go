package interp

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// TfIdfVectorizer, counting n-grams as ONNX Runtime's CPU kernel does: a
// 1-gram once per position, longer n-grams once per gap (1 to
// MaxSkip+1 tokens) at which their items lie.

func init() {
	optable.Add(&kernels, map[string]kernelEntry{"TfIdfVectorizer": computesF64(buildTfIdf)})
}

// tfidfPool is a TfIdfVectorizer's pool, ready for lookups: each n-gram
// of the counted sizes, keyed by its items, gives its output position.
type tfidfPool struct {
	op      *canon.TfIdfVectorizer
	ngrams  map[string]int64 // n-gram key → output position
	outSize int
}

// ngramKey encodes items unambiguously: each item's length, then its bytes.
func ngramKey(b []byte, item string) []byte {
	n := len(item)
	b = append(b, byte(n), byte(n>>8), byte(n>>16), byte(n>>24), byte(n>>32), byte(n>>40), byte(n>>48), byte(n>>56))
	return append(b, item...)
}

func intItem(v int64) string {
	u := uint64(v)
	return string([]byte{byte(u), byte(u >> 8), byte(u >> 16), byte(u >> 24), byte(u >> 32), byte(u >> 40), byte(u >> 48), byte(u >> 56)})
}

func newTfIdfPool(op *canon.TfIdfVectorizer) (*tfidfPool, error) {
	if err := op.Validate(); err != nil {
		return nil, err
	}
	list, err := op.Ngrams()
	if err != nil {
		return nil, err
	}
	p := &tfidfPool{op: op, ngrams: map[string]int64{}, outSize: int(op.OutputSize())}
	var key []byte
	for j, ng := range list {
		if int64(ng.Len) < op.MinGram || int64(ng.Len) > op.MaxGram {
			continue
		}
		key = key[:0]
		for k := ng.Start; k < ng.Start+ng.Len; k++ {
			if op.PoolStrings != nil {
				key = ngramKey(key, op.PoolStrings[k])
			} else {
				key = ngramKey(key, intItem(op.PoolInts[k]))
			}
		}
		if _, dup := p.ngrams[string(key)]; dup {
			return nil, fmt.Errorf("the pool lists the %d-gram at item %d twice", ng.Len, ng.Start)
		}
		p.ngrams[string(key)] = op.NgramIndexes[j]
	}
	return p, nil
}

func buildTfIdf(op canon.Op) kernel {
	pool, err := newTfIdfPool(op.(*canon.TfIdfVectorizer))
	return func(x *exec) error {
		if err != nil {
			return err
		}
		return pool.run(x)
	}
}

func (p *tfidfPool) run(x *exec) error {
	in := x.in(0)
	op := p.op
	rows, c := 1, 0
	var shape []int
	switch len(in.shape) {
	case 0:
		c, shape = 1, []int{p.outSize}
	case 1:
		c, shape = in.shape[0], []int{p.outSize}
	case 2:
		rows, c = in.shape[0], in.shape[1]
		if rows < 1 {
			return fmt.Errorf("input of shape %v: TfIdfVectorizer takes [C] or [N, C] with N > 0", in.shape)
		}
		shape = []int{rows, p.outSize}
	default:
		return fmt.Errorf("input of shape %v: TfIdfVectorizer takes [C] or [N, C]", in.shape)
	}
	switch {
	case in.dt == canon.String && op.PoolStrings == nil, in.dt != canon.String && op.PoolInts == nil:
		return fmt.Errorf("input is %s but the pool holds the other kind of token", in.dt)
	case in.dt != canon.String && in.dt != canon.Int32 && in.dt != canon.Int64:
		return fmt.Errorf("input is %s; TfIdfVectorizer takes i32, i64 or string tokens", in.dt)
	}
	item := func(i int) string {
		if in.dt == canon.String {
			return in.s[i]
		}
		return intItem(in.i[i])
	}
	tally := x.newI(canon.Int64, shape)
	defer x.p.pool.put(tally)
	counts := tally.i
	clear(counts)
	count := func(row int, key []byte) {
		if pos, ok := p.ngrams[string(key)]; ok {
			counts[row*p.outSize+int(pos)]++
		}
	}
	// Skips beyond the row's length can hold no n-gram of 2 or more items.
	maxDist := int(min(op.MaxSkip+1, int64(max(c, 1))))
	maxGram := int(min(op.MaxGram, int64(max(c, 1))))
	var key []byte
	for r := range rows {
		base := r * c
		first := int(op.MinGram)
		if first == 1 {
			for i := range c {
				count(r, ngramKey(key[:0], item(base+i)))
			}
			first = 2
		}
		if first > maxGram {
			continue
		}
		for d := 1; d <= maxDist; d++ {
			for start := 0; start+d*(first-1) < c; start++ {
				key = key[:0]
				for n, at := 1, start; n <= maxGram && at < c; n, at = n+1, at+d {
					key = ngramKey(key, item(base+at))
					if n >= first {
						count(r, key)
					}
				}
			}
		}
	}
	out := x.newF(shape)
	w := op.Weights
	for i, n := range counts {
		col := i % p.outSize
		switch {
		case op.Mode == canon.TfIdfIDF && n > 0 && w != nil:
			out.f[i] = w[col]
		case op.Mode == canon.TfIdfIDF:
			out.f[i] = float32(min(n, 1))
		case op.Mode == canon.TfIdfTFIDF && w != nil:
			out.f[i] = float32(n) * w[col]
		default:
			out.f[i] = float32(n)
		}
	}
	x.set(0, out)
	return nil
}
