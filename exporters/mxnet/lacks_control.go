package mxnetexport

func init() {
	const why = "MXNet's _cond, _while_loop and _foreach take subgraph symbols, which the MXNet writer does not build yet"
	for _, k := range []string{"If", "Loop", "Scan"} {
		lacks[k] = why
	}
}
