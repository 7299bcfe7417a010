package canon

import (
	"fmt"
	"regexp"
	"strings"
)

// The string family: ONNX's ops on string tensors (StringNormalizer-10,
// RegexFullMatch-20, StringConcat-20, StringSplit-20) and TfIdfVectorizer-9,
// which counts n-grams of integer or string tokens. Equal on strings is the
// Equal comparison (see Compare). A string element is bytes; the ops that
// change case or match a regular expression need UTF-8 and say so at run
// time when an element is not.

func init() {
	Register(withReason(&OpDef{
		Kind:    "StringNormalizer",
		Summary: "drop stopwords (case-sensitive or not) from a [C] or [1, C] string tensor, then change case (NONE, LOWER, UPPER)",
		New:     func() Op { return &StringNormalizer{} },
		Infer:   func(c *InferCtx) ([]ValueInfo, error) { return one(c.stringNormalizer(c.n.Op.(*StringNormalizer))) },
		Check: func(c *CheckCtx) error {
			op := c.N.Op.(*StringNormalizer)
			if op.CaseChange > CaseUpper {
				return c.Errorf("unknown case change %d", op.CaseChange)
			}
			_, err := CaseLocale(op.Locale)
			if err != nil {
				return c.Errorf("%v", err)
			}
			return nil
		},
		OutputDTypes: stringOutputs(String),
		Example: func() Example {
			// Case-sensitive, without a case change: ONNX Runtime needs the
			// locale installed for those (en_US.UTF-8 by default).
			x := NewStringTensor("", []int64{1, 4}, []string{"Monday", "tuesday", "monday", "Straße"})
			return Example{Op: &StringNormalizer{CaseSensitive: true, Stopwords: []string{"monday"}},
				Inputs: []ExampleInput{{DType: String, Shape: x.Shape, Const: x}}}
		},
	}, stringWithout))
	Register(withReason(&OpDef{
		Kind:    "RegexFullMatch",
		Summary: "whether each string matches an RE2 pattern in full; bool output",
		New:     func() Op { return &RegexFullMatch{} },
		Infer:   func(c *InferCtx) ([]ValueInfo, error) { return one(c.regexFullMatch()) },
		Check: func(c *CheckCtx) error {
			_, err := CompileFullMatch(c.N.Op.(*RegexFullMatch).Pattern)
			return wrapCheck(c, err)
		},
		OutputDTypes: stringOutputs(Bool),
		Example: func() Example {
			x := NewStringTensor("", []int64{2, 2}, []string{"www.example.com", "example.com", "www.a-b.com", "www.x.org"})
			return Example{Op: &RegexFullMatch{Pattern: `www\.[\w.-]+\.\bcom\b`},
				Inputs: []ExampleInput{{DType: String, Shape: x.Shape, Const: x}}}
		},
	}, stringWithout))
	Register(withReason(&OpDef{
		Kind:    "StringConcat",
		Summary: "concatenate two string tensors elementwise, with NumPy broadcasting",
		New:     func() Op { return &StringConcat{} },
		// Not marked Elementwise: the passes that move ops across
		// Transposes and the cost model's elementwise pricing assume
		// numbers.
		Traits:       Traits{Broadcasts: true},
		Infer:        func(c *InferCtx) ([]ValueInfo, error) { return one(c.stringConcat()) },
		OutputDTypes: stringOutputs(String),
		Example: func() Example {
			x := NewStringTensor("", []int64{3}, []string{"a", "", "ü"})
			y := NewStringTensor("", []int64{1}, []string{"_z"})
			return Example{Op: &StringConcat{}, Inputs: []ExampleInput{{DType: String, Shape: x.Shape, Const: x}, {DType: String, Shape: y.Shape, Const: y}}}
		},
	}, stringWithout))
	Register(withReason(&OpDef{
		Kind:         "StringSplit",
		Summary:      "split each string at a delimiter (none: at runs of spaces), at most MaxSplit times; substrings padded with \"\" and their counts",
		New:          func() Op { return &StringSplit{MaxSplit: -1} },
		Infer:        func(c *InferCtx) ([]ValueInfo, error) { return c.stringSplit() },
		OutputDTypes: stringOutputs(String, Int64),
		Example: func() Example {
			x := NewStringTensor("", []int64{3}, []string{"a.b.c", "", "d..e"})
			return Example{Op: &StringSplit{Delimiter: ".", MaxSplit: -1}, Inputs: []ExampleInput{{DType: String, Shape: x.Shape, Const: x}}, Outputs: 2}
		},
	}, stringWithout))
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

// stringKinds are the kinds that take string inputs: the string ops,
// TfIdfVectorizer, Equal, the views, Shape and Size (which read only the
// shape) and the kinds that only move elements. Any other kind given a
// string input is refused at inference, naming the node.
var stringKinds = map[string]bool{
	"StringNormalizer": true, "RegexFullMatch": true, "StringConcat": true, "StringSplit": true,
	"TfIdfVectorizer": true, "Equal": true,
	"Identity": true, "Reshape": true, "Flatten": true, "Squeeze": true, "Unsqueeze": true,
	"Shape": true, "Size": true,
	"Concat": true, "Split": true, "Transpose": true, "Slice": true, "Gather": true,
	"GatherElements": true, "GatherND": true, "Where": true, "Expand": true, "Tile": true,
	"DepthToSpace": true, "SpaceToDepth": true, "ReverseSequence": true, "Compress": true,
}

// TakesStrings reports whether kind accepts string tensors as inputs.
func TakesStrings(kind string) bool { return stringKinds[kind] }

// refuseStrings fails when a kind that does not take strings is given one.
func (c *InferCtx) refuseStrings() error {
	if stringKinds[opKind(c.n.Op)] {
		return nil
	}
	for i, v := range c.in {
		if v.DType == String {
			return c.errf("%s %q is a string tensor; %s does not take strings", c.slot(i), c.n.Inputs[i], opKind(c.n.Op))
		}
	}
	return nil
}

var stringWithout = Without{Accumulation: SumsNothing, RemapAxes: AxesFixed, Decompose: "works on strings, which no other canonical op computes with", Noop: NoNoopSetting}

// stringOutputs is an OutputDTypes of fixed output dtypes.
func stringOutputs(dts ...DType) func(*Node, []DType) ([]DType, error) {
	return func(*Node, []DType) ([]DType, error) { return append([]DType(nil), dts...), nil }
}

func wrapCheck(c *CheckCtx, err error) error {
	if err != nil {
		return c.Errorf("%v", err)
	}
	return nil
}

// CaseChange is StringNormalizer's case_change_action.
type CaseChange uint8

const (
	CaseNone CaseChange = iota
	CaseLower
	CaseUpper
)

func (c CaseChange) String() string {
	switch c {
	case CaseNone:
		return "NONE"
	case CaseLower:
		return "LOWER"
	case CaseUpper:
		return "UPPER"
	}
	return fmt.Sprintf("CaseChange(%d)", uint8(c))
}

// StringNormalizer removes Stopwords from X, a [C] or [1, C] string tensor
// (compared byte for byte when CaseSensitive, else after lowercasing both
// sides code point by code point), then changes the case of what is left.
// When every string is removed the output holds one empty string. Case
// mapping is per code point under Locale (ONNX's default en_US.UTF-8 when
// empty): see CaseLocale.
type StringNormalizer struct {
	CaseChange    CaseChange
	CaseSensitive bool
	Stopwords     []string
	Locale        string
}

func (*StringNormalizer) Kind() string         { return "StringNormalizer" }
func (*StringNormalizer) Signature() Signature { return sig(1, inX) }

// LocaleCase is how a locale maps case: the default Unicode simple
// mappings, or Turkish/Azeri, where i and I pair with dotted İ and dotless ı.
type LocaleCase uint8

const (
	UnicodeCase LocaleCase = iota
	TurkicCase
)

// CaseLocale tells how locale (a POSIX or BCP 47 name such as en_US.UTF-8,
// de-DE or tr_TR) maps case per code point. Of the locales C libraries
// ship, only Turkish and Azeri map single code points differently from
// Unicode's default (towupper('i') is İ); "" is ONNX's default, en_US.
func CaseLocale(locale string) (LocaleCase, error) {
	lang := locale
	if i := strings.IndexAny(lang, "_-.@"); i >= 0 {
		lang = lang[:i]
	}
	for _, r := range lang {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return 0, fmt.Errorf("locale %q is not a locale name (want a name such as en_US.UTF-8 or de-DE)", locale)
		}
	}
	switch strings.ToLower(lang) {
	case "tr", "az":
		return TurkicCase, nil
	}
	return UnicodeCase, nil
}

// RegexFullMatch reports, per element of a string tensor, whether Pattern
// (RE2 syntax, which Go's regexp implements) matches the whole string.
type RegexFullMatch struct {
	Pattern string
}

func (*RegexFullMatch) Kind() string         { return "RegexFullMatch" }
func (*RegexFullMatch) Signature() Signature { return sig(1, inX) }

// CompileFullMatch compiles pattern anchored at both ends, so that a match
// is a match of the whole string (RE2::FullMatch).
func CompileFullMatch(pattern string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(`\A(?:` + pattern + `)\z`)
	if err != nil {
		// Compile the pattern alone for a message about the user's text.
		if _, err2 := regexp.Compile(pattern); err2 != nil {
			err = err2
		}
		return nil, fmt.Errorf("pattern %q is not a valid RE2 expression: %v", pattern, err)
	}
	return re, nil
}

// StringConcat concatenates X and Y elementwise (bytes of X then of Y),
// with NumPy broadcasting.
type StringConcat struct{}

func (*StringConcat) Kind() string         { return "StringConcat" }
func (*StringConcat) Signature() Signature { return sig(1, inX, InputSpec{Name: "Y"}) }

// StringSplit splits each string of X at Delimiter, at most MaxSplit times
// (negative: no limit), the rest of the string being the last substring.
// An empty Delimiter splits at runs of spaces (' '), ignoring leading and
// trailing ones. Output 0 has X's shape plus one axis, as long as the
// longest split, padded with empty strings; output 1 (i64, X's shape) is
// the number of substrings of each element.
type StringSplit struct {
	Delimiter string
	MaxSplit  int64
}

func (*StringSplit) Kind() string { return "StringSplit" }
func (*StringSplit) Signature() Signature {
	return Signature{Inputs: []InputSpec{inX}, MinOutputs: 1, MaxOutputs: 2}
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

// ---- inference ----

func (c *InferCtx) needString(i int) error {
	if dt := c.in[i].DType; dt != Undefined && dt != String {
		return c.errf("%s is %s; %s takes string tensors", c.slot(i), dt, opKind(c.n.Op))
	}
	return nil
}

func (c *InferCtx) stringNormalizer(op *StringNormalizer) (ValueInfo, error) {
	if err := c.needString(0); err != nil {
		return ValueInfo{}, err
	}
	x := c.in[0]
	if !x.RankKnown {
		return ValueInfo{DType: String}, nil
	}
	switch r := len(x.Shape); {
	case r == 1:
	case r == 2 && (!x.Shape[0].Known() || x.Shape[0].Size == 1):
	default:
		return ValueInfo{}, c.errf("input X has shape %s; StringNormalizer takes [C] or [1, C]", fmtShape(x))
	}
	out := cloneDims(x.Shape)
	if len(out) == 2 {
		out[0] = knownDim(1)
	}
	if len(op.Stopwords) > 0 {
		out[len(out)-1] = c.countDim()
	}
	return shaped(String, out), nil
}

func (c *InferCtx) regexFullMatch() (ValueInfo, error) {
	if err := c.needString(0); err != nil {
		return ValueInfo{}, err
	}
	v := shaped2(c.in[0])
	v.DType = Bool
	return v, nil
}

func (c *InferCtx) stringConcat() (ValueInfo, error) {
	for i := range 2 {
		if err := c.needString(i); err != nil {
			return ValueInfo{}, err
		}
	}
	out, ok, err := c.broadcastAll(0, 1)
	if err != nil || !ok {
		return ValueInfo{DType: String}, err
	}
	return shaped(String, out), nil
}

func (c *InferCtx) stringSplit() ([]ValueInfo, error) {
	if err := c.needString(0); err != nil {
		return nil, err
	}
	x := c.in[0]
	if !x.RankKnown {
		return []ValueInfo{{DType: String}, {DType: Int64}}, nil
	}
	subs := append(cloneDims(x.Shape), c.countDim())
	return []ValueInfo{shaped(String, subs), shaped(Int64, cloneDims(x.Shape))}, nil
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
