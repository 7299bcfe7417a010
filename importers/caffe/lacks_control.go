package caffeimport

func init() {
	for _, k := range []string{"If", "Loop", "Scan"} {
		lacks[k] = "BVLC Caffe nets are straight-line: it has no control-flow layers"
	}
}
