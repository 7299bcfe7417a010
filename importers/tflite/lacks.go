package tfliteimport

// lacks lists the canonical kinds the TFLite importer does not write, and
// why. A new canonical kind belongs here unless an op above writes it.
var lacks = map[string]string{}
