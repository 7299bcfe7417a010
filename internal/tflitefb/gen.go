// Package tflitefb holds the Go types generated from TensorFlow Lite's
// flatbuffer schema (schema.fbs: ../shared/specs/tflite_schema.fbs with its
// namespace changed from tflite to tflitefb, so that the generated package
// has its own name). Regenerate from the repository root with
//
//	go generate ./internal/tflitefb
//
// using flatc 2.0.8 (Debian's flatbuffers-compiler), whose output needs the
// github.com/google/flatbuffers Go runtime v2.0.8 pinned in go.mod.
package tflitefb

//go:generate flatc --go -o .. schema.fbs
