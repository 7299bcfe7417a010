package pt2

import (
	"slices"
	"strings"
)

//go:generate sh -c "/usr/bin/python3 gen_keyword_only.py > keyword_only_table.go && gofmt -w keyword_only_table.go"

// overloadArgNames are one aten overload's argument names: keyword-only
// (declared after "*") and positional, each comma-joined.
type overloadArgNames struct {
	keyword, positional string
}

// isKeywordOnly tells whether the overload target (torch.ops.aten.NAME.OVERLOAD)
// declares argument name keyword-only. The overload's own schema decides
// (keywordOnly's names are positional in some overloads: to.dtype's dtype,
// addmm's alpha); a name the schema of PyTorch 1.13 does not have (an
// argument added since, or an overload new in 2.x) falls back to
// keywordOnly.
func isKeywordOnly(target, name string) bool {
	if args, ok := overloadArgs[strings.TrimPrefix(target, atenPrefix)]; ok {
		if slices.Contains(strings.Split(args.keyword, ","), name) {
			return true
		}
		if slices.Contains(strings.Split(args.positional, ","), name) {
			return false
		}
	}
	return keywordOnly[name]
}
