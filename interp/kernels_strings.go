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
		"TfIdfVectorizer":  computesF64(buildTfIdf),
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
