// Package torchexport writes canonical graphs for PyTorch users: a state
// dict in the zip format torch.load reads (written with this project's own
// pickle encoder, tensor bytes streamed from their source into 64-byte
// aligned STORED entries), and a generated model.py whose nn.Module holds
// those weights under readable names and reproduces the graph with standard
// torch ops. A graph that uses an op with no exact torch equivalent is
// refused, naming the node, before any file is written.
package torchexport
