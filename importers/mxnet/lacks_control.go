package mxnetimport

func init() {
	const why = "MXNet's control-flow ops (_cond, _while_loop, _foreach) carry subgraphs in the symbol JSON, which the importer does not read yet (refused by name)"
	for _, k := range []string{"If", "Loop", "Scan"} {
		lacks[k] = why
	}
}
