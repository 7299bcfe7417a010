// Package caffepb holds the Go types generated from BVLC Caffe's schema
// (caffe.proto as in ../shared/specs, with only its package line changed).
// Its proto package is modelbridge.caffe so that it can share a binary with
// other libraries that register caffe.*.
package caffepb

//go:generate protoc --go_out=. --go_opt=paths=source_relative caffe.proto
