package torchscript

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	// torch.device("cpu") appears as the device= keyword of the factory
	// calls traced code makes (nn.LSTM's zero initial state); the device
	// does not change what a model computes, so its name is kept as is.
	optable.Add(&opTable, map[string]opEntry{
		"torch.device": {handler: opDevice},
	})
}

func opDevice(c *opCall) (value, error) {
	if err := c.bind("type"); err != nil {
		return nil, err
	}
	s, ok := c.bound[0].(string)
	if !ok {
		return nil, c.errf("argument type must be a device name, got %s", typeName(c.bound[0]))
	}
	return s, nil
}
