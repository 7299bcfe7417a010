package canon

import "fmt"

// TfIdfVectorizer (ONNX 9): n-gram counts of integer or string tokens.

func init() {
	Register(withReason(&OpDef{
		Kind:       "TfIdfVectorizer",
		Summary:    "count the n-grams (with skips) of a pool in each row of integer or string tokens: TF, IDF or TFIDF weighting; f32 output",
		HalfUnsafe: "ONNX defines its output as float32 only",
		New:        func() Op { return &TfIdfVectorizer{Mode: TfIdfTF, MinGram: 1, MaxGram: 1} },
		Infer:      func(c *InferCtx) ([]ValueInfo, error) { return one(c.tfidf(c.n.Op.(*TfIdfVectorizer))) },
		Check:      func(c *CheckCtx) error { return wrapCheck(c, c.N.Op.(*TfIdfVectorizer).Validate()) },
		OutputDTypes: func(n *Node, in []DType) ([]DType, error) {
			return []DType{Float32}, nil
		},
		Example: func() Example {
			x := NewInt64Tensor("", []int64{2, 6}, []int64{1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8})
			return Example{Op: &TfIdfVectorizer{Mode: TfIdfTF, MinGram: 1, MaxGram: 2, MaxSkip: 2,
				NgramCounts: []int64{0, 4}, NgramIndexes: []int64{0, 1, 2, 3, 4, 5, 6},
				PoolInts: []int64{2, 3, 5, 4, 5, 6, 7, 8, 6, 7}},
				Inputs: []ExampleInput{{DType: Int64, Shape: x.Shape, Const: x}}}
		},
	}, Without{Accumulation: SumsNoProducts, RemapAxes: AxesFixed, Decompose: Primitive, Noop: NoNoopSetting}))
}

// TfIdfMode is TfIdfVectorizer's weighting.
type TfIdfMode uint8

const (
	// TfIdfTF: the counts.
	TfIdfTF TfIdfMode = iota
	// TfIdfIDF: 1 (or the n-gram's weight) where the count is positive.
	TfIdfIDF
	// TfIdfTFIDF: the counts times the weights.
	TfIdfTFIDF
)

func (m TfIdfMode) String() string {
	switch m {
	case TfIdfTF:
		return "TF"
	case TfIdfIDF:
		return "IDF"
	case TfIdfTFIDF:
		return "TFIDF"
	}
	return fmt.Sprintf("TfIdfMode(%d)", uint8(m))
}

// TfIdfVectorizer counts, in each row of X ([C] or [N, C] tokens: i32, i64
// or strings), the n-grams of a pool. The pool lists the 1-grams, then
// the 2-grams and so on (NgramCounts[k] is where the (k+1)-grams start, in
// PoolInts or PoolStrings); n-gram j of the pool is counted at output
// position NgramIndexes[j]. Only n-grams of MinGram..MaxGram items count;
// the items of an n-gram are 1..MaxSkip+1 tokens apart (all gaps equal),
// and a 1-gram counts once per position. The output is f32, [M] or [N, M]
// with M = max(NgramIndexes)+1. Weights (one per pool n-gram) scale the
// counts in TFIDF mode and replace positive counts in IDF mode.
type TfIdfVectorizer struct {
	Mode             TfIdfMode
	MinGram, MaxGram int64
	MaxSkip          int64
	NgramCounts      []int64
	NgramIndexes     []int64
	// Exactly one pool is set (non-nil).
	PoolInts    []int64
	PoolStrings []string
	Weights     []float32
}

func (*TfIdfVectorizer) Kind() string         { return "TfIdfVectorizer" }
func (*TfIdfVectorizer) Signature() Signature { return sig(1, inX) }

// poolLen is the number of items in the pool.
func (o *TfIdfVectorizer) poolLen() int {
	if o.PoolStrings != nil {
		return len(o.PoolStrings)
	}
	return len(o.PoolInts)
}

// OutputSize is M, the length of an output row.
func (o *TfIdfVectorizer) OutputSize() int64 {
	m := int64(-1)
	for _, i := range o.NgramIndexes {
		m = max(m, i)
	}
	return m + 1
}

// maxTfIdfOutput bounds an output row: NgramIndexes is an attribute list,
// and one huge index must not make the interpreter allocate gigabytes.
const maxTfIdfOutput = 1 << 24

// Validate reports attribute values that make no sense: the checks ONNX
// Runtime makes when it loads the op, and the weights case ONNX's text
// and ONNX Runtime read differently.
func (o *TfIdfVectorizer) Validate() error {
	switch {
	case o.Mode > TfIdfTFIDF:
		return fmt.Errorf("unknown mode %d", o.Mode)
	case o.MinGram < 1:
		return fmt.Errorf("min_gram_length %d must be positive", o.MinGram)
	case o.MaxGram < o.MinGram:
		return fmt.Errorf("max_gram_length %d is below min_gram_length %d", o.MaxGram, o.MinGram)
	case o.MaxSkip < 0:
		return fmt.Errorf("max_skip_count %d must not be negative", o.MaxSkip)
	case len(o.NgramCounts) == 0:
		return fmt.Errorf("ngram_counts is empty")
	case o.MaxGram > int64(len(o.NgramCounts)):
		return fmt.Errorf("max_gram_length %d is beyond the %d n-gram sizes ngram_counts describes", o.MaxGram, len(o.NgramCounts))
	case len(o.NgramIndexes) == 0:
		return fmt.Errorf("ngram_indexes is empty")
	case (o.PoolStrings == nil) == (o.PoolInts == nil):
		return fmt.Errorf("give exactly one of pool_int64s and pool_strings")
	case o.poolLen() == 0:
		return fmt.Errorf("the pool is empty")
	}
	for _, i := range o.NgramIndexes {
		if i < 0 || i >= maxTfIdfOutput {
			return fmt.Errorf("ngram_indexes holds %d, outside [0, %d)", i, maxTfIdfOutput)
		}
	}
	ngrams, err := o.Ngrams()
	if err != nil {
		return err
	}
	if len(ngrams) != len(o.NgramIndexes) {
		return fmt.Errorf("the pool holds %d n-grams but ngram_indexes has %d entries", len(ngrams), len(o.NgramIndexes))
	}
	if o.Weights != nil {
		if len(o.Weights) != len(o.NgramIndexes) {
			return fmt.Errorf("%d weights for %d n-grams", len(o.Weights), len(o.NgramIndexes))
		}
		for j, i := range o.NgramIndexes {
			if i != int64(j) {
				// ONNX's text scales n-gram j's count by weight j; ONNX
				// Runtime scales output position i by weight i.
				return fmt.Errorf("weights with ngram_indexes other than 0, 1, 2...: ONNX and ONNX Runtime disagree on which weight scales which output, so the result would be ambiguous")
			}
		}
	}
	return nil
}

// TfIdfNgram is one n-gram of the pool: its items' positions in the pool.
type TfIdfNgram struct {
	Start, Len int
}

// Ngrams lists the pool's n-grams in pool order (the order NgramIndexes
// follows), checking that NgramCounts cuts the pool into whole n-grams.
func (o *TfIdfVectorizer) Ngrams() ([]TfIdfNgram, error) {
	total := int64(o.poolLen())
	var out []TfIdfNgram
	for k, start := range o.NgramCounts {
		end := total
		if k+1 < len(o.NgramCounts) {
			end = o.NgramCounts[k+1]
		}
		size := int64(k + 1)
		if start < 0 || end < start || end > total {
			return nil, fmt.Errorf("ngram_counts %v: the %d-grams [%d, %d) lie outside the pool of %d items", o.NgramCounts, size, start, end, total)
		}
		if (end-start)%size != 0 {
			return nil, fmt.Errorf("ngram_counts %v: the %d items of %d-grams do not make whole %d-grams", o.NgramCounts, end-start, size, size)
		}
		for p := start; p < end; p += size {
			out = append(out, TfIdfNgram{Start: int(p), Len: int(size)})
		}
	}
	return out, nil
}

func (c *InferCtx) tfidf(op *TfIdfVectorizer) (ValueInfo, error) {
	x := c.in[0]
	switch dt := x.DType; {
	case dt == Undefined:
	case dt == String && op.PoolStrings == nil:
		return ValueInfo{}, c.errf("input X is string but the pool holds integers (pool_int64s)")
	case (dt == Int32 || dt == Int64) && op.PoolInts == nil:
		return ValueInfo{}, c.errf("input X is %s but the pool holds strings (pool_strings)", dt)
	case dt != String && dt != Int32 && dt != Int64:
		return ValueInfo{}, c.errf("input X is %s; TfIdfVectorizer takes i32, i64 or string tokens", dt)
	}
	if !x.RankKnown {
		return ValueInfo{DType: Float32}, nil
	}
	m := knownDim(op.OutputSize())
	switch len(x.Shape) {
	case 0, 1:
		return shaped(Float32, []Dim{m}), nil
	case 2:
		return shaped(Float32, []Dim{x.Shape[0], m}), nil
	}
	return ValueInfo{}, c.errf("input X has shape %s; TfIdfVectorizer takes [C] or [N, C]", fmtShape(x))
}
