package torchscript

import (
	"fmt"
	"strings"
)

// tokKind classifies a token of the Python subset TorchScript serializes.
type tokKind uint8

const (
	tokEOF tokKind = iota
	tokName
	tokInt
	tokFloat
	tokString
	tokOp
	tokNewline
	tokIndent
	tokDedent
)

type token struct {
	kind tokKind
	text string // names, operators, number text; decoded contents for strings
	line int
}

func (t token) String() string {
	switch t.kind {
	case tokEOF:
		return "end of file"
	case tokNewline:
		return "end of line"
	case tokIndent:
		return "indent"
	case tokDedent:
		return "dedent"
	case tokString:
		return fmt.Sprintf("%q", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

// maxSourceBytes bounds one code/ file: real ones are kilobytes.
const maxSourceBytes = 16 << 20

// maxStatementTokens and maxFileTokens bound the tokens of one logical
// line and of one file (32 bytes each): traced code has one call per line
// and files of at most a few hundred thousand tokens.
const (
	maxStatementTokens = 1 << 16
	maxFileTokens      = 1 << 22
)

// operators, longest first so that "//" wins over "/".
var operators = []string{
	"**=", "//=", "->", "**", "//", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=", "<<", ">>",
	"(", ")", "[", "]", "{", "}", ",", ":", ".", "=", "+", "-", "*", "/", "%", "@", "<", ">", "&", "|", "^", "~",
}

// lex splits src into tokens with Python's indentation rules: INDENT and
// DEDENT at changes of leading whitespace, no NEWLINE inside brackets.
func lex(file, src string) ([]token, error) {
	if len(src) > maxSourceBytes {
		return nil, fmt.Errorf("%s: %d bytes is too large for a TorchScript source file", file, len(src))
	}
	var toks []token
	indents := []int{0}
	depth := 0 // bracket nesting
	line := 1
	atLineStart := true
	i := 0
	errf := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", file, line, fmt.Sprintf(format, args...))
	}
	stmtStart := 0 // index of the current logical line's first token
	for i < len(src) {
		// Bound the tokens before the parser sees them: a statement is
		// parsed into one tree, and a 10 MB line of "1+1+..." would cost
		// hundreds of MB of tokens before its nesting is found too deep.
		if len(toks)-stmtStart > maxStatementTokens {
			return nil, errf("a statement of more than %d tokens; real TorchScript code has far shorter ones (corrupt or hostile source)", maxStatementTokens)
		}
		if len(toks) > maxFileTokens {
			return nil, errf("more than %d tokens in one source file (corrupt or hostile source)", maxFileTokens)
		}
		if atLineStart && depth == 0 {
			// Measure indentation; skip blank and comment-only lines.
			col := 0
			j := i
			for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
				if src[j] == '\t' {
					col = (col/8 + 1) * 8
				} else {
					col++
				}
				j++
			}
			if j < len(src) && (src[j] == '\n' || src[j] == '\r' || src[j] == '#') {
				for j < len(src) && src[j] != '\n' {
					j++
				}
				if j < len(src) {
					j++
					line++
				}
				i = j
				continue
			}
			if j >= len(src) {
				i = j
				break
			}
			i = j
			atLineStart = false
			switch top := indents[len(indents)-1]; {
			case col > top:
				indents = append(indents, col)
				toks = append(toks, token{kind: tokIndent, line: line})
			case col < top:
				for col < indents[len(indents)-1] {
					indents = indents[:len(indents)-1]
					toks = append(toks, token{kind: tokDedent, line: line})
				}
				if col != indents[len(indents)-1] {
					return nil, errf("inconsistent indentation")
				}
			}
		}
		c := src[i]
		switch {
		case c == '\n':
			if depth == 0 {
				toks = append(toks, token{kind: tokNewline, line: line})
				atLineStart = true
				stmtStart = len(toks)
			}
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
			i += 2
			line++
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case isNameStart(c):
			j := i + 1
			for j < len(src) && isNameChar(src[j]) {
				j++
			}
			toks = append(toks, token{kind: tokName, text: src[i:j], line: line})
			i = j
		case isDigit(c) || (c == '.' && i+1 < len(src) && isDigit(src[i+1])):
			j, isFloat := scanNumber(src, i)
			toks = append(toks, token{kind: tokInt, text: src[i:j], line: line})
			if isFloat {
				toks[len(toks)-1].kind = tokFloat
			}
			i = j
		case c == '"' || c == '\'':
			s, j, err := scanString(src, i)
			if err != nil {
				return nil, errf("%v", err)
			}
			toks = append(toks, token{kind: tokString, text: s, line: line})
			i = j
		default:
			op := ""
			for _, o := range operators {
				if strings.HasPrefix(src[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				return nil, errf("unexpected character %q", c)
			}
			switch op {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				if depth == 0 {
					return nil, errf("unbalanced %q", op)
				}
				depth--
			}
			toks = append(toks, token{kind: tokOp, text: op, line: line})
			i += len(op)
		}
	}
	if depth != 0 {
		return nil, errf("unclosed bracket at end of file")
	}
	if len(toks) > 0 && toks[len(toks)-1].kind != tokNewline && toks[len(toks)-1].kind != tokDedent {
		toks = append(toks, token{kind: tokNewline, line: line})
	}
	for len(indents) > 1 {
		indents = indents[:len(indents)-1]
		toks = append(toks, token{kind: tokDedent, line: line})
	}
	toks = append(toks, token{kind: tokEOF, line: line})
	return toks, nil
}

func isNameStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isNameChar(c byte) bool { return isNameStart(c) || isDigit(c) }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// scanNumber reads an int or float literal (1, 0., 1e-05, 0x1f) starting at i.
func scanNumber(src string, i int) (end int, isFloat bool) {
	j := i
	if strings.HasPrefix(src[i:], "0x") || strings.HasPrefix(src[i:], "0X") {
		j += 2
		for j < len(src) && (isDigit(src[j]) || strings.IndexByte("abcdefABCDEF", src[j]) >= 0) {
			j++
		}
		return j, false
	}
	for j < len(src) && isDigit(src[j]) {
		j++
	}
	if j < len(src) && src[j] == '.' {
		isFloat = true
		j++
		for j < len(src) && isDigit(src[j]) {
			j++
		}
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && isDigit(src[k]) {
			isFloat = true
			for k < len(src) && isDigit(src[k]) {
				k++
			}
			j = k
		}
	}
	return j, isFloat
}

// scanString reads a quoted string with the common escapes.
func scanString(src string, i int) (string, int, error) {
	q := src[i]
	var sb strings.Builder
	j := i + 1
	for j < len(src) {
		c := src[j]
		switch {
		case c == q:
			return sb.String(), j + 1, nil
		case c == '\n':
			return "", j, fmt.Errorf("unterminated string")
		case c == '\\' && j+1 < len(src):
			j++
			switch e := src[j]; e {
			case 'n':
				sb.WriteByte('\n')
			case 't':
				sb.WriteByte('\t')
			case 'r':
				sb.WriteByte('\r')
			case '0':
				sb.WriteByte(0)
			default:
				sb.WriteByte(e)
			}
			j++
		default:
			sb.WriteByte(c)
			j++
		}
	}
	return "", j, fmt.Errorf("unterminated string")
}
