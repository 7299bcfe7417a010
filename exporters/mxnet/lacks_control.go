package mxnetexport

func init() {
	// Facts from MXNet 1.x's src/operator/control_flow.cc: _cond, _while_loop
	// and _foreach take whole symbols as subgraphs; _while_loop needs a
	// max_iterations known before running and stacks its step outputs to
	// max_iterations rows, however many iterations ran.
	lacks["Loop"] = "MXNet's _while_loop needs a max_iterations known before running and stacks its step outputs to max_iterations rows whatever the number of iterations, and MXNet 1.x has no 0-d arrays for ONNX's scalar iteration number and condition; export to ONNX"
}
