package torchscript

import "github.com/modelbridge/modelbridge/internal/optable"

// Operators that draw random numbers are refused by name. The IR has no
// random operator: the interpreter, the optimizer (constant folding and
// merging of equal nodes) and `modelbridge check` all take a graph to be a
// function of its inputs, which a graph that samples is not.
func init() {
	const why = "it draws random numbers at run time; modelbridge's IR has no random operator (its interpreter, optimizer and `check` treat a graph as a function of its inputs), so the draw is not read: pass the random values in as an input, or make them a constant, before saving"
	entries := map[string]opEntry{}
	for _, op := range []string{
		"rand", "rand_like", "randn", "randn_like", "randint", "randint_like", "randperm",
		"normal", "bernoulli", "multinomial", "poisson", "binomial",
		"_standard_gamma", "_sample_dirichlet",
		// Tensor methods that fill a tensor with draws in place.
		"uniform_", "normal_", "bernoulli_", "exponential_", "random_", "cauchy_", "log_normal_", "geometric_",
	} {
		entries["torch."+op] = entry(refuseOp(why))
	}
	optable.Add(&opTable, entries)
}
