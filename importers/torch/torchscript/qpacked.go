package torchscript

import (
	"fmt"
	"strings"

	"github.com/modelbridge/modelbridge/internal/pickle"
)

// Packed parameters of quantized layers. In the archive they appear as
//   - torch.classes.quantized.LinearPackedParamsBase objects whose state is
//     (weight, bias);
//   - torch.classes.quantized.Conv2dPackedParamsBase (and Conv3d) objects
//     whose state is (3, config, [weight, bias]) (version 3) or
//     ("2", [config as an int16 tensor, weight], [bias]) (version 2, which
//     PyTorch 1.13 writes): config is [spatial dims, stride, padding,
//     dilation, output_padding, groups, transpose flag];
//   - quantized conv modules (torch.ao.nn.quantized.Conv2d, ConvReLU2d, ...)
//     pickled by their own __getstate__ as a tuple (in_channels,
//     out_channels, kernel_size, stride, padding, dilation, transposed,
//     output_padding, groups, padding_mode, weight, bias, scale,
//     zero_point, training), whose __setstate__ packs the weight.
//
// The weight is a quantized tensor, the bias a float tensor or None.

// packedParams is a layer's packed weight, bias and convolution geometry.
type packedParams struct {
	path          string
	weight        *qtensorRef
	bias          *tensorRef
	conv          bool
	stride        []int64
	padding       []int64
	dilation      []int64
	outputPadding []int64
	groups        int64
	transposed    bool
	// config is a version-2 state's int16 config tensor, decoded on first
	// use (it needs the archive).
	config *tensorRef
}

const quantizedClassModule = "__torch__.torch.classes.quantized"

// quantizedObject converts the quantized objects described above; ok is
// false for any other object.
func (cv *converter) quantizedObject(x *pickle.Object, path string) (value, bool, error) {
	if x.Class.Module == quantizedClassModule {
		p, err := packedFromClass(x, path)
		return p, true, err
	}
	st, isTuple := x.State.(*pickle.Tuple)
	if !isTuple || !strings.HasPrefix(x.Class.Module, "__torch__") || len(st.Items) != 15 {
		return nil, false, nil
	}
	if _, isQ := st.Items[10].(*qtensorRef); !isQ {
		return nil, false, nil
	}
	p, attrs, err := packedFromConvModule(st, path)
	if err != nil {
		return nil, true, fmt.Errorf("attribute %s (%s.%s): %w", path, x.Class.Module, x.Class.Name, err)
	}
	if err := attrs.Set("_packed_params", p); err != nil {
		return nil, true, err
	}
	return &moduleVal{class: x.Class, path: path, attrs: attrs, cache: map[string]value{}, conv: cv}, true, nil
}

func packedFromClass(x *pickle.Object, path string) (*packedParams, error) {
	st, ok := x.State.(*pickle.Tuple)
	if !ok {
		return nil, fmt.Errorf("attribute %s: %s object has state %s, not a tuple", path, x.Class.Name, pickle.TypeName(x.State))
	}
	p := &packedParams{path: path}
	switch x.Class.Name {
	case "LinearPackedParamsBase":
		if len(st.Items) != 2 {
			return nil, fmt.Errorf("attribute %s: LinearPackedParamsBase state has %d items, want (weight, bias)", path, len(st.Items))
		}
		if err := p.setWeightBias(st.Items[0], st.Items[1]); err != nil {
			return nil, fmt.Errorf("attribute %s: %w", path, err)
		}
		return p, nil
	case "Conv2dPackedParamsBase", "Conv3dPackedParamsBase":
		if err := p.readConvState(st); err != nil {
			return nil, fmt.Errorf("attribute %s: %s: %w", path, x.Class.Name, err)
		}
		return p, nil
	}
	return nil, fmt.Errorf("attribute %s: packed parameters %s are not read (only LinearPackedParamsBase and Conv2dPackedParamsBase are)", path, x.Class.Name)
}

func (p *packedParams) setWeightBias(w, b pickle.Value) error {
	q, ok := w.(*qtensorRef)
	if !ok {
		return fmt.Errorf("packed weight is a %s, not a quantized tensor (a float16 or float weight is not read)", pickle.TypeName(w))
	}
	p.weight = q
	switch bb := b.(type) {
	case pickle.None:
	case *tensorRef:
		p.bias = bb
	default:
		return fmt.Errorf("packed bias is a %s, not a tensor or None", pickle.TypeName(b))
	}
	return nil
}

// readConvState reads a version-3 state (3, config, [weight, bias]) or a
// version-2 state ("2", [config tensor, weight], [bias]).
func (p *packedParams) readConvState(st *pickle.Tuple) error {
	if len(st.Items) != 3 {
		return fmt.Errorf("state has %d items, not (version, ..., ...)", len(st.Items))
	}
	p.conv = true
	if v, _ := st.Items[0].(string); v == "2" {
		req, ok1 := pickleItems(st.Items[1])
		opt, ok2 := pickleItems(st.Items[2])
		if !ok1 || !ok2 || len(req) != 2 || len(opt) != 1 {
			return fmt.Errorf("version-2 state %s is not (\"2\", [config, weight], [bias])", pickle.Format(st))
		}
		cfg, ok := req[0].(*tensorRef)
		if !ok {
			return fmt.Errorf("version-2 config is a %s, not a tensor", pickle.TypeName(req[0]))
		}
		p.config = cfg
		return p.setWeightBias(req[1], opt[0])
	}
	if v, _ := st.Items[0].(int64); v != 3 {
		return fmt.Errorf("state version %s; only versions 2 and 3 are read", pickle.Format(st.Items[0]))
	}
	cfg, err := pickleInts(st.Items[1])
	if err != nil {
		return fmt.Errorf("config: %v", err)
	}
	ts, ok := pickleItems(st.Items[2])
	if !ok || len(ts) < 2 {
		return fmt.Errorf("tensors %s are not a list (weight, bias)", pickle.Format(st.Items[2]))
	}
	if err := p.setGeometry(cfg); err != nil {
		return err
	}
	return p.setWeightBias(ts[0], ts[1])
}

// setGeometry reads [dims, stride, padding, dilation, output_padding,
// groups, flags].
func (p *packedParams) setGeometry(cfg []int64) error {
	if len(cfg) < 1 || cfg[0] < 1 || cfg[0] > 3 || int64(len(cfg)) != 4*cfg[0]+3 {
		return fmt.Errorf("config %v is not [dims, stride, padding, dilation, output_padding, groups, flags]", cfg)
	}
	d := cfg[0]
	p.stride, p.padding, p.dilation, p.outputPadding = cfg[1:1+d], cfg[1+d:1+2*d], cfg[1+2*d:1+3*d], cfg[1+3*d:1+4*d]
	p.groups, p.transposed = cfg[1+4*d], cfg[2+4*d]&1 != 0
	return nil
}

// readConfig decodes a version-2 config tensor (once).
func (p *packedParams) readConfig(a *archive) error {
	if p.config == nil {
		return nil
	}
	t, err := p.config.load(a, p.path+".config")
	if err != nil {
		return err
	}
	cfg, err := t.Int64s()
	if err != nil {
		return fmt.Errorf("packed parameters %s: config: %v", p.path, err)
	}
	if err := p.setGeometry(cfg); err != nil {
		return fmt.Errorf("packed parameters %s: %v", p.path, err)
	}
	p.config = nil
	return nil
}

// packedFromConvModule reads a quantized conv module's tuple state and
// returns its packed parameters and its other attributes.
func packedFromConvModule(st *pickle.Tuple, path string) (*packedParams, *pickle.Dict, error) {
	it := st.Items
	p := &packedParams{path: path + "._packed_params", conv: true}
	var err error
	geometry := []*[]int64{&p.stride, &p.padding, &p.dilation}
	for i, dst := range geometry {
		if *dst, err = pickleInts(it[3+i]); err != nil {
			return nil, nil, fmt.Errorf("state item %d: %v", 3+i, err)
		}
	}
	if p.outputPadding, err = pickleInts(it[7]); err != nil {
		return nil, nil, fmt.Errorf("output_padding: %v", err)
	}
	g, ok1 := it[8].(int64)
	tr, ok2 := it[6].(bool)
	mode, ok3 := it[9].(string)
	if !ok1 || !ok2 || !ok3 {
		return nil, nil, fmt.Errorf("state %s is not a quantized conv module's (groups, transposed, padding_mode)", pickle.Format(st))
	}
	p.groups, p.transposed = g, tr
	if mode != "zeros" {
		// __setstate__ packs such a module with no padding: its forward pads first.
		p.padding = make([]int64, len(p.padding))
	}
	if err := p.setWeightBias(it[10], it[11]); err != nil {
		return nil, nil, err
	}
	attrs := pickle.NewDict()
	names := []string{"in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation", "transposed",
		"output_padding", "groups", "padding_mode", "", "", "scale", "zero_point", "training"}
	for i, n := range names {
		if n == "" {
			continue
		}
		if err := attrs.Set(n, it[i]); err != nil {
			return nil, nil, err
		}
	}
	return p, attrs, nil
}

func pickleItems(v pickle.Value) ([]pickle.Value, bool) {
	switch x := v.(type) {
	case *pickle.List:
		return x.Items, true
	case *pickle.Tuple:
		return x.Items, true
	}
	return nil, false
}

func pickleInts(v pickle.Value) ([]int64, error) {
	items, ok := pickleItems(v)
	if !ok {
		return nil, fmt.Errorf("want a list of ints, got %s", pickle.TypeName(v))
	}
	out := make([]int64, len(items))
	for i, x := range items {
		n, ok := x.(int64)
		if !ok {
			return nil, fmt.Errorf("want ints, got %s", pickle.Format(v))
		}
		out[i] = n
	}
	return out, nil
}
