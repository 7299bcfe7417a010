package runtimes

// ortFormat is the one model format ONNX Runtime reads: the name of the
// importer that reads the same files (canon.Metadata.SourceFormat).
const ortFormat = "onnx"

// RunsFilesOf reports whether runtime rt runs, from its own file, a model
// that modelbridge read as format. ONNX Runtime runs ONNX files only,
// Arm NN .tflite files only;
// the interpreter runs whatever was imported; PyTorch's files are told
// apart by TorchKind.
func RunsFilesOf(rt, format string) bool {
	switch rt {
	case ORT:
		return format == ortFormat
	case ArmNN:
		return format == armnnFormat
	}
	return true
}
