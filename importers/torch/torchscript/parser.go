package torchscript

import (
	"fmt"
	"strconv"
	"strings"
)

// maxNesting bounds expression nesting so that hostile sources cannot
// exhaust the stack.
const maxNesting = 200

type parser struct {
	file  string
	lines []string
	toks  []token
	pos   int
	depth int
}

// parseSource parses one code/ file into its classes and functions.
func parseSource(file, src string) (*sourceFile, error) {
	toks, err := lex(file, src)
	if err != nil {
		return nil, err
	}
	p := &parser{file: file, toks: toks, lines: strings.Split(src, "\n")}
	sf := &sourceFile{path: file, classes: map[string]*classDef{}, funcs: map[string]*funcDef{}}
	for !p.at(tokEOF) {
		switch {
		case p.atName("class"):
			c, err := p.classDef()
			if err != nil {
				return nil, err
			}
			sf.classes[c.name] = c
		case p.atName("def"):
			f, err := p.funcDef()
			if err != nil {
				return nil, err
			}
			sf.funcs[f.name] = f
		case p.at(tokNewline):
			p.pos++
		default:
			// Module-level statements (imports of other versions' code
			// layouts) carry nothing a forward pass needs.
			if err := p.skipStatement(); err != nil {
				return nil, err
			}
		}
	}
	return sf, nil
}

// nest enters one more level of expression nesting, or fails when there
// are too many; unnest leaves it.
func (p *parser) nest() error {
	p.depth++
	if p.depth > maxNesting {
		return p.errf("expression nested too deeply")
	}
	return nil
}

func (p *parser) unnest() { p.depth-- }

func (p *parser) peek() token { return p.toks[p.pos] }

func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tokEOF {
		p.pos++
	}
	return t
}

func (p *parser) at(k tokKind) bool { return p.toks[p.pos].kind == k }

func (p *parser) atOp(op string) bool {
	t := p.toks[p.pos]
	return t.kind == tokOp && t.text == op
}

func (p *parser) atName(n string) bool {
	t := p.toks[p.pos]
	return t.kind == tokName && t.text == n
}

func (p *parser) errf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.file, p.peek().line, fmt.Sprintf(format, args...))
}

func (p *parser) expectOp(op string) error {
	if !p.atOp(op) {
		return p.errf("expected %q, found %s", op, p.peek())
	}
	p.pos++
	return nil
}

func (p *parser) expectName() (string, error) {
	if !p.at(tokName) {
		return "", p.errf("expected a name, found %s", p.peek())
	}
	return p.next().text, nil
}

func (p *parser) expectNewline() error {
	if !p.at(tokNewline) {
		return p.errf("expected end of line, found %s", p.peek())
	}
	p.pos++
	return nil
}

// lineText is the source of line n, trimmed, for error messages.
func (p *parser) lineText(n int) string {
	if n < 1 || n > len(p.lines) {
		return ""
	}
	s := strings.TrimSpace(p.lines[n-1])
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}

// skipStatement skips one logical line or one block statement.
func (p *parser) skipStatement() error {
	for !p.at(tokNewline) && !p.at(tokEOF) {
		if p.at(tokIndent) || p.at(tokDedent) {
			return p.errf("unexpected %s", p.peek())
		}
		p.pos++
	}
	if p.at(tokNewline) {
		p.pos++
	}
	if p.at(tokIndent) {
		return p.skipBlock()
	}
	return nil
}

// skipBlock skips an indented block, the INDENT included.
func (p *parser) skipBlock() error {
	if !p.at(tokIndent) {
		return p.errf("expected an indented block, found %s", p.peek())
	}
	level := 0
	for {
		t := p.next()
		switch t.kind {
		case tokIndent:
			level++
		case tokDedent:
			level--
			if level == 0 {
				return nil
			}
		case tokEOF:
			return p.errf("unexpected end of file in a block")
		}
	}
}

func (p *parser) classDef() (*classDef, error) {
	line := p.next().line // "class"
	name, err := p.expectName()
	if err != nil {
		return nil, err
	}
	if p.atOp("(") {
		p.pos++
		for !p.atOp(")") {
			if p.at(tokEOF) {
				return nil, p.errf("unclosed class bases")
			}
			p.pos++
		}
		p.pos++
	}
	if err := p.expectOp(":"); err != nil {
		return nil, err
	}
	if err := p.expectNewline(); err != nil {
		return nil, err
	}
	if !p.at(tokIndent) {
		return nil, p.errf("class %s has no body", name)
	}
	p.pos++
	c := &classDef{name: name, line: line, file: p.file, attrs: map[string]classAttr{}, methods: map[string]*funcDef{}}
	for !p.at(tokDedent) && !p.at(tokEOF) {
		switch {
		case p.atName("def"):
			f, err := p.funcDef()
			if err != nil {
				return nil, err
			}
			c.methods[f.name] = f
		case p.at(tokNewline):
			p.pos++
		case p.atName("pass"):
			p.pos++
			if err := p.expectNewline(); err != nil {
				return nil, err
			}
		case p.at(tokName) && p.toks[p.pos+1].kind == tokOp && p.toks[p.pos+1].text == ":":
			attrName := p.next().text
			p.pos++ // ":"
			ann, err := p.expr()
			if err != nil {
				return nil, err
			}
			a := classAttr{name: attrName, annotation: ann}
			if p.atOp("=") {
				p.pos++
				if a.value, err = p.expr(); err != nil {
					return nil, err
				}
			}
			if err := p.expectNewline(); err != nil {
				return nil, err
			}
			c.attrs[attrName] = a
		default:
			// __parameters__ = [...], __annotations__["0"] = T, ...
			s, err := p.simpleStatement()
			if err != nil {
				return nil, err
			}
			if as, ok := s.(*assignStmt); ok && len(as.targets) == 1 {
				if sub, ok := as.targets[0].(*subscriptExpr); ok {
					if n, ok := sub.x.(*nameExpr); ok && n.name == "__annotations__" {
						if key, ok := sub.index.(*stringLit); ok {
							c.attrs[key.v] = classAttr{name: key.v, annotation: as.value}
						}
					}
				}
			}
		}
	}
	if p.at(tokDedent) {
		p.pos++
	}
	return c, nil
}

func (p *parser) funcDef() (*funcDef, error) {
	line := p.next().line // "def"
	name, err := p.expectName()
	if err != nil {
		return nil, err
	}
	f := &funcDef{name: name, line: line, file: p.file}
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	for !p.atOp(")") {
		pname, err := p.expectName()
		if err != nil {
			return nil, err
		}
		prm := param{name: pname}
		if p.atOp(":") {
			p.pos++
			if prm.annotation, err = p.expr(); err != nil {
				return nil, err
			}
		}
		if p.atOp("=") {
			p.pos++
			if prm.dflt, err = p.expr(); err != nil {
				return nil, err
			}
		}
		f.params = append(f.params, prm)
		if !p.atOp(",") {
			break
		}
		p.pos++
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	if p.atOp("->") {
		p.pos++
		if _, err := p.expr(); err != nil {
			return nil, err
		}
	}
	if err := p.expectOp(":"); err != nil {
		return nil, err
	}
	if err := p.expectNewline(); err != nil {
		return nil, err
	}
	if f.body, err = p.block(); err != nil {
		return nil, err
	}
	return f, nil
}

// block parses an indented statement list.
func (p *parser) block() ([]stmt, error) {
	if !p.at(tokIndent) {
		return nil, p.errf("expected an indented block, found %s", p.peek())
	}
	p.pos++
	var out []stmt
	for !p.at(tokDedent) && !p.at(tokEOF) {
		if p.at(tokNewline) {
			p.pos++
			continue
		}
		s, err := p.statement()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if p.at(tokDedent) {
		p.pos++
	}
	return out, nil
}

// controlKeywords start statements the importer does not run.
var controlKeywords = map[string]bool{
	"if": true, "for": true, "while": true, "with": true, "try": true,
	"elif": true, "else": true, "except": true, "finally": true,
	"raise": true, "assert": true, "del": true, "break": true, "continue": true,
	"global": true, "nonlocal": true, "def": true, "class": true, "import": true, "from": true,
}

func (p *parser) statement() (stmt, error) {
	if s, ok, err := p.controlStatement(); ok {
		return s, err
	}
	t := p.peek()
	if t.kind == tokName && controlKeywords[t.text] {
		cs := &controlStmt{line: t.line, keyword: t.text, text: p.lineText(t.line)}
		if err := p.skipStatement(); err != nil {
			return nil, err
		}
		return cs, nil
	}
	return p.simpleStatement()
}

func (p *parser) simpleStatement() (stmt, error) {
	line := p.peek().line
	switch {
	case p.atName("return"):
		p.pos++
		r := &returnStmt{line: line}
		if !p.at(tokNewline) {
			v, err := p.exprList()
			if err != nil {
				return nil, err
			}
			r.value = v
		}
		return r, p.expectNewline()
	case p.atName("pass"):
		p.pos++
		return &passStmt{line: line}, p.expectNewline()
	}
	first, trailing, items, err := p.exprListItems()
	if err != nil {
		return nil, err
	}
	if p.atOp(":") && len(items) == 1 && !trailing {
		// An annotated assignment (x : Optional[bool] = v): the
		// annotation only states the type the value already has.
		p.pos++
		if _, err := p.expr(); err != nil {
			return nil, err
		}
		if !p.atOp("=") {
			return nil, p.errf("an annotation without a value is not supported")
		}
	}
	if p.atOp("=") {
		p.pos++
		value, err := p.exprList()
		if err != nil {
			return nil, err
		}
		if p.atOp("=") {
			return nil, p.errf("chained assignment is not supported")
		}
		return &assignStmt{line: line, targets: items, unpack: len(items) > 1 || trailing, value: value}, p.expectNewline()
	}
	if t := p.peek(); t.kind == tokOp && strings.HasSuffix(t.text, "=") && len(t.text) >= 2 && t.text != "==" && t.text != "!=" && t.text != "<=" && t.text != ">=" {
		return nil, p.errf("augmented assignment %q is not supported", t.text)
	}
	x := first
	if len(items) > 1 || trailing {
		x = &tupleExpr{line: line, items: items}
	}
	return &exprStmt{line: line, x: x}, p.expectNewline()
}

// exprList parses "a, b, c" (a tuple when there is a comma).
func (p *parser) exprList() (expr, error) {
	first, trailing, items, err := p.exprListItems()
	if err != nil {
		return nil, err
	}
	if len(items) > 1 || trailing {
		return &tupleExpr{line: first.exprLine(), items: items}, nil
	}
	return first, nil
}

func (p *parser) exprListItems() (first expr, trailingComma bool, items []expr, err error) {
	first, err = p.expr()
	if err != nil {
		return nil, false, nil, err
	}
	items = []expr{first}
	for p.atOp(",") {
		p.pos++
		if p.at(tokNewline) || p.atOp("=") || p.atOp(")") {
			return first, true, items, nil
		}
		x, err := p.expr()
		if err != nil {
			return nil, false, nil, err
		}
		items = append(items, x)
	}
	return first, false, items, nil
}

// Binary operator precedence, lowest first.
var binaryLevels = [][]string{
	{"or"}, {"and"},
	{"==", "!=", "<", ">", "<=", ">=", "is", "in"},
	{"|"}, {"^"}, {"&"}, {"<<", ">>"},
	{"+", "-"},
	{"*", "/", "//", "%", "@"},
}

func (p *parser) expr() (expr, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxNesting {
		return nil, p.errf("expression nested too deeply")
	}
	if p.atName("lambda") {
		return nil, p.errf("lambda expressions are not supported")
	}
	x, err := p.binary(0)
	if err != nil {
		return nil, err
	}
	if p.atName("if") {
		// a if cond else b: a conditional, refused when evaluated.
		line := p.next().line
		if _, err := p.binary(0); err != nil {
			return nil, err
		}
		if !p.atName("else") {
			return nil, p.errf("expected 'else' in a conditional expression")
		}
		p.pos++
		if _, err := p.expr(); err != nil {
			return nil, err
		}
		return &unsupportedExpr{line: line, what: "conditional expression (x if c else y)"}, nil
	}
	return x, nil
}

func (p *parser) binary(level int) (expr, error) {
	if level == len(binaryLevels) {
		return p.unary()
	}
	if level == 2 && p.atName("not") { // "not" binds looser than comparisons
		line := p.next().line
		if err := p.nest(); err != nil {
			return nil, err
		}
		defer p.unnest()
		x, err := p.binary(level)
		if err != nil {
			return nil, err
		}
		return &unaryExpr{line: line, op: "not", x: x}, nil
	}
	a, err := p.binary(level + 1)
	if err != nil {
		return nil, err
	}
	// Each operator of a chain (a + b + c ...) nests the tree one level
	// deeper on the left, and evaluation recurses through it: count it.
	defer func(depth int) { p.depth = depth }(p.depth)
	for {
		t := p.peek()
		matched := ""
		if t.kind == tokOp || t.kind == tokName {
			for _, op := range binaryLevels[level] {
				if t.text == op {
					matched = op
				}
			}
		}
		if matched == "" {
			return a, nil
		}
		p.pos++
		if err := p.nest(); err != nil {
			return nil, err
		}
		if matched == "is" && p.atName("not") {
			p.pos++
			matched = "is not"
		}
		b, err := p.binary(level + 1)
		if err != nil {
			return nil, err
		}
		a = &binaryExpr{line: t.line, op: matched, a: a, b: b}
	}
}

func (p *parser) unary() (expr, error) {
	if p.atOp("-") || p.atOp("+") || p.atOp("~") {
		t := p.next()
		p.depth++
		defer func() { p.depth-- }()
		if p.depth > maxNesting {
			return nil, p.errf("expression nested too deeply")
		}
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &unaryExpr{line: t.line, op: t.text, x: x}, nil
	}
	x, err := p.postfix()
	if err != nil {
		return nil, err
	}
	if p.atOp("**") {
		t := p.next()
		if err := p.nest(); err != nil {
			return nil, err
		}
		defer p.unnest()
		y, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &binaryExpr{line: t.line, op: "**", a: x, b: y}, nil
	}
	return x, nil
}

func (p *parser) postfix() (expr, error) {
	x, err := p.atom()
	if err != nil {
		return nil, err
	}
	// Like operator chains, each .name, (...) and [...] nests the tree
	// one level deeper.
	defer func(depth int) { p.depth = depth }(p.depth)
	for {
		if p.atOp(".") || p.atOp("(") || p.atOp("[") {
			if err := p.nest(); err != nil {
				return nil, err
			}
		}
		switch {
		case p.atOp("."):
			t := p.next()
			name, err := p.expectName()
			if err != nil {
				return nil, err
			}
			x = &attrExpr{line: t.line, x: x, name: name}
		case p.atOp("("):
			t := p.next()
			call := &callExpr{line: t.line, fn: x}
			for !p.atOp(")") {
				if p.at(tokName) && p.toks[p.pos+1].kind == tokOp && p.toks[p.pos+1].text == "=" {
					name := p.next().text
					p.pos++
					v, err := p.expr()
					if err != nil {
						return nil, err
					}
					call.kwargs = append(call.kwargs, keywordArg{name: name, value: v})
				} else {
					if len(call.kwargs) > 0 {
						return nil, p.errf("positional argument after keyword argument")
					}
					if p.atOp("*") || p.atOp("**") {
						return nil, p.errf("argument unpacking is not supported")
					}
					v, err := p.expr()
					if err != nil {
						return nil, err
					}
					call.args = append(call.args, v)
				}
				if !p.atOp(",") {
					break
				}
				p.pos++
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			x = call
		case p.atOp("["):
			t := p.next()
			idx, err := p.exprList()
			if err != nil {
				return nil, err
			}
			if p.atOp(":") {
				return nil, p.errf("slice subscripts are not supported")
			}
			if err := p.expectOp("]"); err != nil {
				return nil, err
			}
			x = &subscriptExpr{line: t.line, x: x, index: idx}
		default:
			return x, nil
		}
	}
}

func (p *parser) atom() (expr, error) {
	t := p.peek()
	switch t.kind {
	case tokName:
		p.pos++
		switch t.text {
		case "True":
			return &constLit{line: t.line, v: true}, nil
		case "False":
			return &constLit{line: t.line, v: false}, nil
		case "None":
			return &constLit{line: t.line, v: nil}, nil
		case "inf", "nan":
			// The serializer prints infinite and NaN float constants so.
			v, _ := strconv.ParseFloat(t.text, 64)
			return &floatLit{line: t.line, v: v}, nil
		}
		return &nameExpr{line: t.line, name: t.text}, nil
	case tokInt:
		p.pos++
		v, err := strconv.ParseInt(t.text, 0, 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: integer %s: %v", p.file, t.line, t.text, err)
		}
		return &intLit{line: t.line, v: v}, nil
	case tokFloat:
		p.pos++
		v, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: number %s: %v", p.file, t.line, t.text, err)
		}
		return &floatLit{line: t.line, v: v}, nil
	case tokString:
		p.pos++
		if !p.at(tokString) {
			return &stringLit{line: t.line, v: t.text}, nil
		}
		var sb strings.Builder // implicit concatenation
		sb.WriteString(t.text)
		for p.at(tokString) {
			sb.WriteString(p.next().text)
		}
		return &stringLit{line: t.line, v: sb.String()}, nil
	case tokOp:
		switch t.text {
		case "(":
			p.pos++
			if p.atOp(")") {
				p.pos++
				return &tupleExpr{line: t.line}, nil
			}
			x, err := p.exprList()
			if err != nil {
				return nil, err
			}
			if p.atName("for") {
				return nil, p.errf("generator expressions are not supported")
			}
			return x, p.expectOp(")")
		case "[":
			p.pos++
			l := &listExpr{line: t.line}
			for !p.atOp("]") {
				x, err := p.expr()
				if err != nil {
					return nil, err
				}
				if p.atName("for") {
					return nil, p.errf("list comprehensions are not supported")
				}
				l.items = append(l.items, x)
				if !p.atOp(",") {
					break
				}
				p.pos++
			}
			return l, p.expectOp("]")
		case "{":
			return p.dictLiteral()
		}
	}
	return nil, p.errf("unexpected %s", t)
}
