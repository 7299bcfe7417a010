package interp

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Kernels of the string family, following ONNX Runtime's CPU kernels:
// StringNormalizer maps case code point by code point (as C++'s
// std::toupper on wide characters does) and wants UTF-8; RegexFullMatch
// is RE2's FullMatch (Go's regexp implements RE2's syntax and semantics);
// StringSplit without a delimiter splits at runs of ' '.

func init() {
	optable.Add(&kernels, map[string]kernelEntry{
		"StringNormalizer": computesF64(withOp(runStringNormalizer)),
		"RegexFullMatch":   computesF64(buildRegexFullMatch),
		"StringConcat":     computesF64(fixed(runStringConcat)),
		"StringSplit":      computesF64(withOp(runStringSplit)),
	})
}

// caseMapper changes case per code point under a locale.
type caseMapper struct {
	special unicode.SpecialCase // nil: Unicode's default mappings
}

func newCaseMapper(locale string) (caseMapper, error) {
	lc, err := canon.CaseLocale(locale)
	if err != nil {
		return caseMapper{}, err
	}
	if lc == canon.TurkicCase {
		return caseMapper{special: unicode.TurkishCase}, nil
	}
	return caseMapper{}, nil
}

func (m caseMapper) lower(s string) string {
	if m.special != nil {
		return strings.ToLowerSpecial(m.special, s)
	}
	return strings.Map(unicode.ToLower, s)
}

func (m caseMapper) upper(s string) string {
	if m.special != nil {
		return strings.ToUpperSpecial(m.special, s)
	}
	return strings.Map(unicode.ToUpper, s)
}

func runStringNormalizer(x *exec, op *canon.StringNormalizer) error {
	in := x.in(0)
	c := 0
	switch {
	case len(in.shape) == 1 && in.shape[0] >= 1:
		c = in.shape[0]
	case len(in.shape) == 2 && in.shape[0] == 1 && in.shape[1] >= 1:
		c = in.shape[1]
	default:
		return fmt.Errorf("input of shape %v: StringNormalizer takes [C] or [1, C] with C > 0", in.shape)
	}
	if err := needUTF8(in.s, "StringNormalizer reads UTF-8 text"); err != nil {
		return err
	}
	m, err := newCaseMapper(op.Locale)
	if err != nil {
		return err
	}
	kept := make([]string, 0, c)
	stop := make(map[string]bool, len(op.Stopwords))
	for _, w := range op.Stopwords {
		if !op.CaseSensitive {
			w = m.lower(w)
		}
		stop[w] = true
	}
	for _, s := range in.s {
		key := s
		if !op.CaseSensitive && len(stop) > 0 {
			key = m.lower(s)
		}
		if !stop[key] {
			kept = append(kept, s)
		}
	}
	if len(kept) == 0 {
		kept = append(kept, "") // ONNX keeps one empty string
	}
	var extra int64
	for i, s := range kept {
		switch op.CaseChange {
		case canon.CaseLower:
			kept[i] = m.lower(s)
		case canon.CaseUpper:
			kept[i] = m.upper(s)
		}
		extra += int64(len(kept[i]))
	}
	shape := []int{len(kept)}
	if len(in.shape) == 2 {
		shape = []int{1, len(kept)}
	}
	out := x.newS(shape, extra)
	copy(out.s, kept)
	x.set(0, out)
	return nil
}

func buildRegexFullMatch(op canon.Op) kernel {
	re, err := canon.CompileFullMatch(op.(*canon.RegexFullMatch).Pattern)
	return func(x *exec) error {
		if err != nil {
			return err
		}
		in := x.in(0)
		// RE2 and Go read invalid UTF-8 differently: refuse it.
		if err := needUTF8(in.s, "RegexFullMatch matches UTF-8 text"); err != nil {
			return err
		}
		out := x.newI(canon.Bool, append([]int{}, in.shape...))
		for i, s := range in.s {
			out.i[i] = b2i(re.MatchString(s))
		}
		x.set(0, out)
		return nil
	}
}

func runStringConcat(x *exec) error {
	a, b := x.in(0), x.in(1)
	if a.dt != canon.String || b.dt != canon.String {
		return fmt.Errorf("inputs are %s and %s; StringConcat takes strings", a.dt, b.dt)
	}
	shape, err := broadcastShape(a.shape, b.shape)
	if err != nil {
		return err
	}
	// The output's bytes, counted before anything is made.
	checkedNumel(shape, stringHeader)
	var extra int64
	bcastWalk(shape, [][]int{a.shape, b.shape}, func(_ int, offs []int) {
		extra += int64(len(a.s[offs[0]]) + len(b.s[offs[1]]))
	})
	out := x.newS(shape, extra)
	bcastWalk(shape, [][]int{a.shape, b.shape}, func(o int, offs []int) {
		out.s[o] = a.s[offs[0]] + b.s[offs[1]]
	})
	x.set(0, out)
	return nil
}

// splitString is StringSplit on one element. The substrings share s's
// bytes.
func splitString(s, delim string, maxSplit int64) []string {
	if s == "" {
		return nil
	}
	limit := -1 // strings.SplitN's "no limit"
	if maxSplit >= 0 && maxSplit < int64(len(s)) {
		limit = int(maxSplit) + 1
	}
	if delim != "" {
		return strings.SplitN(s, delim, limit)
	}
	var out []string
	rest := strings.TrimLeft(s, " ")
	for rest != "" {
		if limit > 0 && len(out) == limit-1 {
			out = append(out, strings.TrimRight(rest, " "))
			break
		}
		end := strings.IndexByte(rest, ' ')
		if end < 0 {
			out = append(out, rest)
			break
		}
		out = append(out, rest[:end])
		rest = strings.TrimLeft(rest[end:], " ")
	}
	return out
}

func runStringSplit(x *exec, op *canon.StringSplit) error {
	in := x.in(0)
	parts := make([][]string, len(in.s))
	longest := 0
	for i, s := range in.s {
		parts[i] = splitString(s, op.Delimiter, op.MaxSplit)
		longest = max(longest, len(parts[i]))
	}
	counts := x.newI(canon.Int64, append([]int{}, in.shape...))
	subs := x.newS(append(append([]int{}, in.shape...), longest), 0)
	for i, p := range parts {
		counts.i[i] = int64(len(p))
		copy(subs.s[i*longest:], p)
	}
	x.set(0, subs)
	if x.nout() > 1 {
		x.set(1, counts)
	} else {
		x.p.pool.put(counts)
	}
	return nil
}
