package canon

import (
	"fmt"
	"regexp"
	"strings"
)

// The string family: ONNX's ops on string tensors (StringNormalizer-10,
// RegexFullMatch-20, StringConcat-20, StringSplit-20); TfIdfVectorizer is in
// defs_tfidf.go. Equal on strings is the Equal comparison (see Compare). A string element is bytes; the ops that
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
