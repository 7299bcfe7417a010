package mxnetimport

func init() {
	// MXNet 1.x writes _cond, _while_loop and _foreach nodes with their
	// graphs under the node's "subgraphs" (whole symbols); see
	// src/operator/control_flow.cc for the *_input_locs attributes. _cond
	// and _foreach are read (ops_control.go).
	lacks["Loop"] = "MXNet's _while_loop (a subgraph symbol whose step outputs are stacked to max_iterations rows whatever the number of iterations) is not read yet (refused by name)"
}
