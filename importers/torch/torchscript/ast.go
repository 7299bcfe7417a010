package torchscript

// Expressions of the serialized TorchScript subset.
type expr interface{ exprLine() int }

type (
	nameExpr struct {
		line int
		name string
	}
	intLit struct {
		line int
		v    int64
	}
	floatLit struct {
		line int
		v    float64
	}
	stringLit struct {
		line int
		v    string
	}
	// constLit is True, False or None.
	constLit struct {
		line int
		v    any // bool or nil
	}
	attrExpr struct {
		line int
		x    expr
		name string
	}
	subscriptExpr struct {
		line  int
		x     expr
		index expr
	}
	callExpr struct {
		line   int
		fn     expr
		args   []expr
		kwargs []keywordArg
	}
	listExpr struct {
		line  int
		items []expr
	}
	tupleExpr struct {
		line  int
		items []expr
	}
	unaryExpr struct {
		line int
		op   string
		x    expr
	}
	binaryExpr struct {
		line int
		op   string
		a, b expr
	}
	// dictExpr is a dict literal {k: v, ...}, its entries in order.
	dictExpr struct {
		line         int
		keys, values []expr
	}
	// unsupportedExpr is a construct parsed only to be refused when run
	// (a conditional expression, a lambda, a comprehension).
	unsupportedExpr struct {
		line int
		what string
	}
)

type keywordArg struct {
	name  string
	value expr
}

func (e *nameExpr) exprLine() int        { return e.line }
func (e *intLit) exprLine() int          { return e.line }
func (e *floatLit) exprLine() int        { return e.line }
func (e *stringLit) exprLine() int       { return e.line }
func (e *constLit) exprLine() int        { return e.line }
func (e *attrExpr) exprLine() int        { return e.line }
func (e *subscriptExpr) exprLine() int   { return e.line }
func (e *callExpr) exprLine() int        { return e.line }
func (e *listExpr) exprLine() int        { return e.line }
func (e *tupleExpr) exprLine() int       { return e.line }
func (e *unaryExpr) exprLine() int       { return e.line }
func (e *binaryExpr) exprLine() int      { return e.line }
func (e *unsupportedExpr) exprLine() int { return e.line }
func (e *dictExpr) exprLine() int        { return e.line }

// Statements.
type stmt interface{ stmtLine() int }

type (
	assignStmt struct {
		line int
		// targets: one entry per comma-separated target; more than one
		// means tuple unpacking.
		targets []expr
		unpack  bool
		value   expr
	}
	returnStmt struct {
		line  int
		value expr // nil for a bare return
	}
	exprStmt struct {
		line int
		x    expr
	}
	passStmt struct{ line int }
	// controlStmt is if/for/while/with/try/...: kept (with its first line
	// of source) so that running it reports where it is.
	controlStmt struct {
		line    int
		keyword string
		text    string
	}
)

func (s *assignStmt) stmtLine() int  { return s.line }
func (s *returnStmt) stmtLine() int  { return s.line }
func (s *exprStmt) stmtLine() int    { return s.line }
func (s *passStmt) stmtLine() int    { return s.line }
func (s *controlStmt) stmtLine() int { return s.line }

type param struct {
	name       string
	annotation expr // may be nil
	dflt       expr // may be nil
}

type funcDef struct {
	name   string
	line   int
	file   string
	params []param
	body   []stmt
}

// classAttr is an annotated class attribute ("conv1 : T" or
// "start_dim : Final[int] = 0").
type classAttr struct {
	name       string
	annotation expr
	value      expr // nil when only annotated
}

type classDef struct {
	name    string
	line    int
	file    string
	attrs   map[string]classAttr
	methods map[string]*funcDef
}

// sourceFile is one parsed code/ file.
type sourceFile struct {
	path    string // as named in the archive, from "code/" on
	classes map[string]*classDef
	funcs   map[string]*funcDef
}
