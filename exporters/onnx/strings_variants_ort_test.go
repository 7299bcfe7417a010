package onnxexport

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// stringCase is one node on string (or token) inputs, beyond what the
// node suite covers.
type stringCase struct {
	name   string
	op     canon.Op
	inputs []*canon.Tensor
	outs   int
}

func strT(name string, shape []int64, v ...string) *canon.Tensor {
	return canon.NewStringTensor(name, shape, v)
}

func stringCases() []stringCase {
	wordsAs := func(name string) *canon.Tensor {
		return strT(name, []int64{2, 3}, "the", "The", "cat", "a", "the", "ünï")
	}
	words := wordsAs("x")
	tokens := canon.NewInt64Tensor("x", []int64{2, 7}, []int64{4, 7, 4, 7, 9, 4, 7, 7, 4, 9, 9, 4, 1, 7})
	i32 := &canon.Tensor{Name: "x", DType: canon.Int32, Shape: []int64{7}}
	for _, v := range []int32{4, 7, 4, 7, 9, 4, 7} {
		i32.Data = append(i32.Data, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	intPool := func(mode canon.TfIdfMode, w []float32) *canon.TfIdfVectorizer {
		return &canon.TfIdfVectorizer{Mode: mode, MinGram: 1, MaxGram: 3, MaxSkip: 1,
			NgramCounts: []int64{0, 3, 7}, NgramIndexes: []int64{0, 1, 2, 3, 4, 5},
			PoolInts: []int64{4, 7, 1, 4, 7, 7, 4, 4, 7, 4}, Weights: w}
	}
	return []stringCase{
		{"split_spaces_maxsplit", &canon.StringSplit{MaxSplit: 1},
			[]*canon.Tensor{strT("x", []int64{5}, "  a b  c  ", "x", "", "   ", "one two")}, 2},
		{"split_spaces", &canon.StringSplit{MaxSplit: -1},
			[]*canon.Tensor{strT("x", []int64{2, 2}, " a\tb  c ", "x", "", "é è")}, 2},
		{"split_multibyte_delimiter", &canon.StringSplit{Delimiter: "ab", MaxSplit: 1},
			[]*canon.Tensor{strT("x", []int64{3}, "xabyabz", "ab", "abab")}, 2},
		{"split_commas", &canon.StringSplit{Delimiter: ",", MaxSplit: -1},
			[]*canon.Tensor{strT("x", []int64{3}, ",a,,b,", "", ",")}, 2},
		{"normalizer_2d_all_stopwords", &canon.StringNormalizer{CaseSensitive: true, Stopwords: []string{"a", "b"}},
			[]*canon.Tensor{strT("x", []int64{1, 3}, "a", "b", "a")}, 1},
		{"normalizer_2d_stopwords", &canon.StringNormalizer{CaseSensitive: true, Stopwords: []string{"the"}},
			[]*canon.Tensor{strT("x", []int64{1, 6}, "the", "The", "cat", "a", "the", "ünï")}, 1},
		// Case changes need the locale in ONNX Runtime's C library;
		// C.UTF-8 maps every code point as Unicode does.
		{"normalizer_upper_insensitive_c_utf8", &canon.StringNormalizer{CaseChange: canon.CaseUpper, Stopwords: []string{"THE", "ÜNÏ"}, Locale: "C.UTF-8"},
			[]*canon.Tensor{strT("x", []int64{1, 6}, "the", "The", "cat", "a", "thé", "ünï")}, 1},
		{"normalizer_lower_c_utf8", &canon.StringNormalizer{CaseChange: canon.CaseLower, CaseSensitive: true, Locale: "C.UTF-8"},
			[]*canon.Tensor{strT("x", []int64{5}, "ÀÉÎ", "Straße", "ǅ", "ΣΑΣ", "İ")}, 1},
		{"normalizer_upper_c_utf8", &canon.StringNormalizer{CaseChange: canon.CaseUpper, CaseSensitive: true, Locale: "C.UTF-8"},
			[]*canon.Tensor{strT("x", []int64{5}, "àéî", "straße", "ǆ", "ς", "ı")}, 1},
		{"regex_alternation", &canon.RegexFullMatch{Pattern: `a|ab`},
			[]*canon.Tensor{strT("x", []int64{4}, "a", "ab", "abc", "")}, 1},
		{"regex_classes", &canon.RegexFullMatch{Pattern: `(?i)h[[:alpha:]]+\d{2,3}\pL*`},
			[]*canon.Tensor{strT("x", []int64{5}, "Hello12", "hx1234", "HI99é", "h12", "hé12")}, 1},
		{"regex_anchors_inside", &canon.RegexFullMatch{Pattern: `^a.*$|b`},
			[]*canon.Tensor{strT("x", []int64{4}, "a\nb", "abc", "b", "cb")}, 1},
		{"concat_broadcast", &canon.StringConcat{},
			[]*canon.Tensor{strT("x", []int64{2, 1}, "ä", ""), strT("y", []int64{3}, "-", "ß", "")}, 1},
		{"equal_broadcast", &canon.Compare{Fn: canon.CmpEqual},
			[]*canon.Tensor{strT("x", []int64{2, 1}, "a", "é"), strT("y", []int64{3}, "é", "a", "A")}, 1},
		{"concat", &canon.Concat{Axis: 1}, []*canon.Tensor{strT("x", []int64{2, 1}, "p", "q"), wordsAs("y")}, 1},
		{"transpose", &canon.Transpose{Perm: []int64{1, 0}}, []*canon.Tensor{words}, 1},
		{"gather", &canon.Gather{Axis: 1}, []*canon.Tensor{words, canon.NewInt64Tensor("y", []int64{2, 2}, []int64{2, 0, -1, 2})}, 1},
		{"gather_elements", &canon.GatherElements{Axis: 1}, []*canon.Tensor{words, canon.NewInt64Tensor("y", []int64{2, 2}, []int64{2, 0, 1, 1})}, 1},
		{"where", &canon.Where{}, []*canon.Tensor{{Name: "c", DType: canon.Bool, Shape: []int64{2, 1}, Data: []byte{1, 0}},
			words, strT("y", []int64{3}, "u", "v", "w")}, 1},
		{"expand", &canon.Expand{Shape: []int64{2, 2, 3}}, []*canon.Tensor{strT("x", []int64{1, 3}, "a", "", "ü")}, 1},
		{"tile", &canon.Tile{Repeats: []int64{1, 2}}, []*canon.Tensor{words}, 1},
		{"slice", &canon.Slice{Starts: []int64{-1}, Ends: []int64{-4}, Axes: []int64{1}, Steps: []int64{-2}}, []*canon.Tensor{words}, 1},
		{"split", &canon.Split{Axis: 1, Sizes: []int64{1, 2}}, []*canon.Tensor{words}, 2},
		{"tfidf_tf", intPool(canon.TfIdfTF, nil), []*canon.Tensor{tokens}, 1},
		{"tfidf_idf", intPool(canon.TfIdfIDF, nil), []*canon.Tensor{tokens}, 1},
		{"tfidf_idf_weights", intPool(canon.TfIdfIDF, []float32{0.5, 2, 3, 0.25, 4, 1.5}), []*canon.Tensor{tokens}, 1},
		{"tfidf_tfidf_weights", intPool(canon.TfIdfTFIDF, []float32{0.5, 2, 3, 0.25, 4, 1.5}), []*canon.Tensor{tokens}, 1},
		{"tfidf_tfidf", intPool(canon.TfIdfTFIDF, nil), []*canon.Tensor{tokens}, 1},
		{"tfidf_int32_trigrams_only", &canon.TfIdfVectorizer{Mode: canon.TfIdfTF, MinGram: 3, MaxGram: 3, MaxSkip: 2,
			NgramCounts: []int64{0, 2, 4}, NgramIndexes: []int64{3, 0, 1, 2, 4},
			PoolInts: []int64{4, 7, 4, 7, 7, 4, 4, 7, 4, 7}}, []*canon.Tensor{i32}, 1},
		{"tfidf_strings", &canon.TfIdfVectorizer{Mode: canon.TfIdfTF, MinGram: 1, MaxGram: 2, MaxSkip: 3,
			NgramCounts: []int64{0, 2}, NgramIndexes: []int64{1, 0, 2, 2},
			PoolStrings: []string{"the", "ünï", "the", "cat", "a", "the"}}, []*canon.Tensor{words}, 1},
	}
}

// TestStringOpVariantsMatchORT runs each case in the interpreter and, as
// written at opset 20, in ONNX Runtime: the outputs must be equal (strings
// byte for byte, counts exactly, f32 weights within rounding).
func TestStringOpVariantsMatchORT(t *testing.T) {
	rt := testfix.ORT(t)
	for _, c := range stringCases() {
		t.Run(c.name, func(t *testing.T) {
			g := &canon.Graph{Name: c.name}
			n := &canon.Node{Name: "n", Op: c.op}
			for _, x := range c.inputs {
				g.Inputs = append(g.Inputs, canon.ValueInfo{Name: x.Name, DType: x.DType, Shape: canon.DimsOf(x.Shape...), RankKnown: true})
				n.Inputs = append(n.Inputs, x.Name)
			}
			for i := range c.outs {
				o := []string{"out", "count"}[i]
				n.Outputs = append(n.Outputs, o)
				g.Outputs = append(g.Outputs, canon.ValueInfo{Name: o})
			}
			g.Nodes = []*canon.Node{n}
			if err := g.Infer(); err != nil {
				t.Fatal(err)
			}
			for i := range g.Outputs {
				g.Outputs[i] = g.Values.Get(g.Outputs[i].Name)
				g.Outputs[i].Const = nil
			}
			feeds := map[string]*canon.Tensor{}
			for _, x := range c.inputs {
				feeds[x.Name] = x
			}
			want, err := interp.Run(g, feeds)
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(t.TempDir(), "model.onnx")
			if err := Write(g, p, formats.WriteOptions{Opset: 20}); err != nil {
				t.Fatal(err)
			}
			got, err := rt.Run(p, c.inputs, ort.Options{Level: "disabled", Threads: 1})
			if err != nil && strings.Contains(err.Error(), "locale") {
				t.Skipf("ONNX Runtime's host lacks the locale: %v", err)
			}
			if err != nil {
				t.Fatalf("ONNX Runtime: %v", err)
			}
			for i, o := range g.Outputs {
				if err := compare.ONNXBackend(want[o.Name], got[i]); err != nil {
					t.Errorf("output %s: interpreter %v vs ONNX Runtime %v: %v", o.Name, show(want[o.Name]), show(got[i]), err)
				}
			}
		})
	}
}

func show(t *canon.Tensor) any {
	if t == nil {
		return nil
	}
	if t.DType == canon.String {
		return t.Strings
	}
	v, _ := t.Float64s()
	return v
}
