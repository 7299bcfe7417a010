package mxnetimport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// maxSymbolBytes bounds the symbol JSON read into memory.
const maxSymbolBytes = 256 << 20

// entry is a reference to one output of a node: [node_id, output_index,
// version]; MXNet before NNVM wrote only the first two.
type entry struct{ Node, Index int }

func (e *entry) UnmarshalJSON(b []byte) error {
	var v []int64
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("want [node_id, output_index(, version)], got %s", clip(b))
	}
	if len(v) < 1 || len(v) > 3 {
		return fmt.Errorf("want [node_id, output_index(, version)], got %s", clip(b))
	}
	if v[0] < 0 || v[0] > 1<<30 || (len(v) > 1 && (v[1] < 0 || v[1] > 1<<20)) {
		return fmt.Errorf("node reference %s is out of range", clip(b))
	}
	e.Node = int(v[0])
	if len(v) > 1 {
		e.Index = int(v[1])
	}
	return nil
}

// attrMap accepts an object of strings; non-string values (numbers, bools)
// written by hand-made files are kept as their JSON text.
type attrMap map[string]string

func (m *attrMap) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("attributes must be an object of strings: %v", err)
	}
	*m = make(attrMap, len(raw))
	for k, v := range raw {
		var s string
		if json.Unmarshal(v, &s) == nil {
			(*m)[k] = s
		} else {
			(*m)[k] = string(bytes.TrimSpace(v))
		}
	}
	return nil
}

// node is one entry of "nodes". The attribute maps differ by generation:
// "param" (before 0.9, with "attr" for user attributes), "attr" (0.9-0.12)
// and "attrs" (1.0 on).
type node struct {
	Op     string  `json:"op"`
	Name   string  `json:"name"`
	Inputs []entry `json:"inputs"`
	Param  attrMap `json:"param"`
	Attr   attrMap `json:"attr"`
	Attrs  attrMap `json:"attrs"`
	// Subgraphs are a control-flow op's graphs (_cond, _foreach,
	// _while_loop), each a whole symbol.
	Subgraphs []*symbol `json:"subgraphs"`
	// merged holds all three maps.
	merged attrMap
}

type symbol struct {
	Nodes    []*node         `json:"nodes"`
	ArgNodes []int           `json:"arg_nodes"`
	Heads    []entry         `json:"heads"`
	Attrs    json.RawMessage `json:"attrs"`

	generation string // "param", "attr" or "attrs"
	version    int64  // mxnet_version, 0 when absent
}

func clip(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "..."
	}
	return string(b)
}

// parseSymbol decodes and checks the structure of a symbol file; it does not
// look at op semantics.
func parseSymbol(data []byte, file string) (*symbol, error) {
	var s symbol
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: not a valid MXNet symbol JSON: %v", file, err)
	}
	if err := checkSymbol(&s, file, 0); err != nil {
		return nil, err
	}
	return &s, nil
}

// maxSubgraphDepth bounds nested subgraphs (a _cond inside a loop body):
// real models nest two or three deep.
const maxSubgraphDepth = 16

// checkSymbol checks the structure of s and of its nodes' subgraphs, and
// merges each node's attribute maps.
func checkSymbol(s *symbol, file string, depth int) error {
	if depth > maxSubgraphDepth {
		return fmt.Errorf("%s: subgraphs nest deeper than %d", file, maxSubgraphDepth)
	}
	for i, n := range s.Nodes {
		if n == nil {
			continue
		}
		for k, sub := range n.Subgraphs {
			if sub == nil {
				return fmt.Errorf("%s: node %d (%s): subgraph %d is null", file, i, n.Name, k)
			}
			if _, err := finishSymbol(sub, fmt.Sprintf("%s: node %d (%s) subgraph %d", file, i, n.Name, k)); err != nil {
				return err
			}
			if err := checkSymbol(sub, file, depth+1); err != nil {
				return err
			}
		}
	}
	if depth == 0 {
		_, err := finishSymbol(s, file)
		return err
	}
	return nil
}

// finishSymbol checks one symbol's nodes and heads and reads its version.
func finishSymbol(sp *symbol, file string) (*symbol, error) {
	s := *sp
	defer func() { *sp = s }()
	if len(s.Nodes) == 0 {
		return nil, fmt.Errorf("%s: symbol JSON has no \"nodes\"; is this an MXNet -symbol.json file?", file)
	}
	if len(s.Heads) == 0 {
		return nil, fmt.Errorf("%s: symbol JSON has no \"heads\" (graph outputs)", file)
	}
	for i, n := range s.Nodes {
		if n == nil {
			return nil, fmt.Errorf("%s: node %d is null", file, i)
		}
		if n.Op == "" {
			return nil, fmt.Errorf("%s: node %d (%q) has no \"op\"", file, i, n.Name)
		}
		if n.Name == "" {
			n.Name = fmt.Sprintf("node%d", i)
		}
		n.merged = attrMap{}
		for _, m := range []attrMap{n.Attr, n.Param, n.Attrs} {
			for k, v := range m {
				n.merged[k] = v
			}
		}
		switch {
		case n.Attrs != nil:
			s.generation = "attrs"
		case n.Param != nil && s.generation == "":
			s.generation = "param"
		case n.Attr != nil && s.generation == "":
			s.generation = "attr"
		}
		for k, in := range n.Inputs {
			if in.Node >= len(s.Nodes) {
				return nil, fmt.Errorf("%s: node %d (%s) input %d refers to node %d, but there are only %d nodes", file, i, n.Name, k, in.Node, len(s.Nodes))
			}
			// MXNet writes nodes in topological order; a forward reference
			// is a cycle or a damaged file.
			if in.Node >= i {
				return nil, fmt.Errorf("%s: node %d (%s) input %d refers to node %d, which does not come before it (cycle or nodes out of order)", file, i, n.Name, k, in.Node)
			}
		}
		if n.Op == "null" && len(n.Inputs) > 0 {
			return nil, fmt.Errorf("%s: variable node %d (%s) has inputs", file, i, n.Name)
		}
	}
	for k, h := range s.Heads {
		if h.Node >= len(s.Nodes) {
			return nil, fmt.Errorf("%s: head %d refers to node %d, but there are only %d nodes", file, k, h.Node, len(s.Nodes))
		}
	}
	if len(s.Attrs) > 0 {
		var top map[string]json.RawMessage
		if json.Unmarshal(s.Attrs, &top) == nil {
			if v, ok := top["mxnet_version"]; ok {
				var pair []json.RawMessage
				if json.Unmarshal(v, &pair) == nil && len(pair) == 2 {
					var n int64
					if json.Unmarshal(pair[1], &n) == nil {
						s.version = n
					}
				}
			}
		}
	}
	if s.generation == "" {
		s.generation = "attrs"
		if s.version == 0 {
			s.generation = "attr"
		}
	}
	return sp, nil
}

// versionString renders mxnet_version (major*10000 + minor*100 + patch).
func versionString(v int64) string {
	if v <= 0 {
		return ""
	}
	return fmt.Sprintf("%d.%d.%d", v/10000, v/100%100, v%100)
}

// attrs reads one node's attributes with MXNet's string conventions.
type attrs struct {
	m    attrMap
	node string
	op   string
}

func (a attrs) errf(key, format string, args ...any) error {
	return fmt.Errorf("node %s (%s): attribute %s=%q: %s", a.node, a.op, key, a.m[key], fmt.Sprintf(format, args...))
}

// has reports whether key is set to something other than MXNet's "None".
func (a attrs) has(key string) bool {
	v, ok := a.m[key]
	return ok && strings.TrimSpace(v) != "None" && strings.TrimSpace(v) != ""
}

func (a attrs) str(key, def string) string {
	if !a.has(key) {
		return def
	}
	return strings.TrimSpace(a.m[key])
}

func (a attrs) required(key string) error {
	if !a.has(key) {
		return fmt.Errorf("node %s (%s): required attribute %s is missing", a.node, a.op, key)
	}
	return nil
}

func parseInt(s string) (int64, error) {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimSuffix(s, "L"), "l") // Python 2 longs
	return strconv.ParseInt(s, 10, 64)
}

// parseTuple accepts "(3, 3)", "(3,3)", "[1,1]", "(3,)", "()", "3".
func parseTuple(s string) ([]int64, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") || strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		s = s[1 : len(s)-1]
	}
	out := []int64{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	parts := strings.Split(s, ",")
	for i, p := range parts {
		if strings.TrimSpace(p) == "" && i == len(parts)-1 && i > 0 {
			break // trailing comma of a 1-tuple
		}
		v, err := parseInt(p)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", strings.TrimSpace(p))
		}
		out = append(out, v)
	}
	return out, nil
}

func (a attrs) ints(key string, def []int64) ([]int64, error) {
	if !a.has(key) {
		return def, nil
	}
	v, err := parseTuple(a.m[key])
	if err != nil {
		return nil, a.errf(key, "not a tuple of integers: %v", err)
	}
	return v, nil
}

func (a attrs) int(key string, def int64) (int64, error) {
	if !a.has(key) {
		return def, nil
	}
	v, err := parseInt(a.m[key])
	if err != nil {
		return 0, a.errf(key, "not an integer")
	}
	return v, nil
}

func (a attrs) float(key string, def float64) (float64, error) {
	if !a.has(key) {
		return def, nil
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(a.m[key]), 64)
	if err != nil {
		return 0, a.errf(key, "not a number")
	}
	return v, nil
}

func (a attrs) bool(key string, def bool) (bool, error) {
	if !a.has(key) {
		return def, nil
	}
	switch strings.ToLower(strings.TrimSpace(a.m[key])) {
	case "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	}
	return false, a.errf(key, "not a boolean (want True/False/1/0)")
}
