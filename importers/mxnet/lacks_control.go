package mxnetimport

func init() {
	// MXNet 1.x writes _cond, _while_loop and _foreach nodes with their
	// graphs under the node's "subgraphs" (whole symbols); see
	// src/operator/control_flow.cc for the *_input_locs attributes. _cond
	// is read (ops_control.go).
	const why = "MXNet's _while_loop and _foreach carry subgraphs in the symbol JSON, which the importer does not read yet (refused by name)"
	for _, k := range []string{"Loop", "Scan"} {
		lacks[k] = why
	}
}
