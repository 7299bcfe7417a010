// Package pipeline is what convert, convert --batch, optimize and extract
// share: read a model (validated), bind weights to it, infer shapes,
// optimize and verify it, convert it to float16, lay out its kernels, and
// write it, refusing to overwrite any file it was read from. Importers
// and exporters are asked what they can do through formats, never by
// name. The commands keep their flags and their printing.
//
// A model goes through it as
//
//	g, imp, err := pipeline.Read(in, "", opts)
//	err = pipeline.RequireModel(in, g, true)
//	out, rep, err := pipeline.Plan{Optimize: &optimize.Options{Verify: true}}.Apply(g, exp)
//	err = pipeline.Write(out, exp, path, formats.WriteOptions{})
package pipeline
