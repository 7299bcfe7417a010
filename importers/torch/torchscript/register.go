package torchscript

import torchimport "github.com/modelbridge/modelbridge/importers/torch"

// The torch importer recognizes TorchScript archives (a code/ folder) and
// hands them to this package.
func init() { torchimport.ReadTorchScript = ReadMapped }
