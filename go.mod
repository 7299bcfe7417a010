module github.com/modelbridge/modelbridge

go 1.26.8

require (
	github.com/nlpodyssey/gopickle v0.2.0
	github.com/owulveryck/onnx-go v0.5.0
	github.com/spf13/cobra v1.10.2
	gonum.org/v1/gonum v0.17.0
	google.golang.org/protobuf v1.36.12
	gorgonia.org/tensor v0.9.3
)

require golang.org/x/sys v0.50.0

require (
	github.com/chewxy/hm v1.0.0 // indirect
	github.com/chewxy/math32 v1.0.4 // indirect
	github.com/gogo/protobuf v1.3.0 // indirect
	github.com/golang/protobuf v1.5.0 // indirect
	github.com/google/flatbuffers v2.0.8+incompatible
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/pkg/errors v0.8.1 // indirect
	github.com/spf13/pflag v1.0.9
	github.com/xtgo/set v1.0.0 // indirect
	gorgonia.org/vecf32 v0.9.0 // indirect
	gorgonia.org/vecf64 v0.9.0 // indirect
)
