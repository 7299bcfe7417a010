package torchscript

// Control statements of scripted code: the TorchScript printer writes
// prim::If as if/else and prim::Loop as "for i in range(n)" or "while c",
// with the values a branch or an iteration changes assigned to the same
// names on every path.

type (
	ifStmt struct {
		line int
		cond expr
		then []stmt
		els  []stmt
	}
	// forStmt is "for target in iter:"; scripted code only loops over
	// range(n).
	forStmt struct {
		line   int
		target string
		iter   expr
		body   []stmt
	}
	whileStmt struct {
		line int
		cond expr
		body []stmt
	}
)

func (s *ifStmt) stmtLine() int    { return s.line }
func (s *forStmt) stmtLine() int   { return s.line }
func (s *whileStmt) stmtLine() int { return s.line }

// controlStatement parses an if, for or while statement; ok is false for
// anything else (left to statement).
func (p *parser) controlStatement() (s stmt, ok bool, err error) {
	if !p.atName("if") && !p.atName("for") && !p.atName("while") {
		return nil, false, nil
	}
	// Blocks nest like expressions: a hostile file cannot nest them
	// without bound.
	if err := p.nest(); err != nil {
		return nil, true, err
	}
	defer p.unnest()
	switch {
	case p.atName("if"):
		s, err = p.ifStatement()
	case p.atName("for"):
		s, err = p.forStatement()
	case p.atName("while"):
		s, err = p.whileStatement()
	default:
		return nil, false, nil
	}
	return s, true, err
}

// header parses "EXPR:" and the newline after it.
func (p *parser) header() (expr, error) {
	x, err := p.expr()
	if err != nil {
		return nil, err
	}
	if err := p.expectOp(":"); err != nil {
		return nil, err
	}
	return x, p.expectNewline()
}

func (p *parser) ifStatement() (*ifStmt, error) {
	line := p.next().line // "if" or "elif"
	s := &ifStmt{line: line}
	var err error
	if s.cond, err = p.header(); err != nil {
		return nil, err
	}
	if s.then, err = p.block(); err != nil {
		return nil, err
	}
	switch {
	case p.atName("elif"):
		inner, err := p.ifStatement()
		if err != nil {
			return nil, err
		}
		s.els = []stmt{inner}
	case p.atName("else"):
		p.pos++
		if err := p.expectOp(":"); err != nil {
			return nil, err
		}
		if err := p.expectNewline(); err != nil {
			return nil, err
		}
		if s.els, err = p.block(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (p *parser) forStatement() (*forStmt, error) {
	line := p.next().line // "for"
	target, err := p.expectName()
	if err != nil {
		return nil, err
	}
	if !p.atName("in") {
		return nil, p.errf("expected 'in' after for %s (only a single loop variable is supported)", target)
	}
	p.pos++
	s := &forStmt{line: line, target: target}
	if s.iter, err = p.header(); err != nil {
		return nil, err
	}
	if s.body, err = p.block(); err != nil {
		return nil, err
	}
	return s, nil
}

func (p *parser) whileStatement() (*whileStmt, error) {
	line := p.next().line // "while"
	s := &whileStmt{line: line}
	var err error
	if s.cond, err = p.header(); err != nil {
		return nil, err
	}
	if s.body, err = p.block(); err != nil {
		return nil, err
	}
	return s, nil
}
