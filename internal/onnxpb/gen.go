// Package onnxpb holds the Go types generated from the ONNX protobuf schema
// (onnx.proto, IR 8 as shipped by ONNX 1.12, extended with the IR 9 to IR 13
// fields and enum values). Its proto package is modelbridge.onnx so that it
// can share a binary with other libraries that register onnx.*.
package onnxpb

//go:generate protoc --go_out=. --go_opt=paths=source_relative onnx.proto
