package torchimport

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/pickle"
)

// stateDictKeys are the checkpoint entries that conventionally hold the
// model's weights, in the order they are tried.
var stateDictKeys = []string{"state_dict", "model_state_dict", "model", "module", "net", "network", "weights"}

// singleTensorName names the one initializer of a file that holds a bare
// tensor rather than a dict.
const singleTensorName = "tensor"

// maxNesting bounds how deep nested dicts are followed.
const maxNesting = 64

type namedRecord struct {
	Name string
	Rec  *tensorRecord
}

// collection is what a file's top-level value yields: tensors by flattened
// name, and the non-tensor entries that were skipped.
type collection struct {
	Tensors []namedRecord
	Props   []canon.KeyValue
	seen    map[any]bool
	// holds caches containsTensor for containers: a pickle can share one
	// list or dict many times through its memo, and without the cache a
	// few hundred bytes of nested sharing take exponential time to search.
	holds map[any]bool
}

// collect picks the state dict inside root (by key, a conventional
// checkpoint key, or root itself) and flattens it.
func collect(root pickle.Value, key string) (*collection, error) {
	c := &collection{seen: map[any]bool{}, holds: map[any]bool{}}
	if rec, ok := root.(*tensorRecord); ok {
		c.Tensors = append(c.Tensors, namedRecord{singleTensorName, rec})
		return c, nil
	}
	d, isDict := root.(*pickle.Dict)
	if key != "" {
		if !isDict {
			return nil, fmt.Errorf("--key %s: the file holds a %s, not a dict", key, pickle.TypeName(root))
		}
		v, ok := lookupPath(d, key)
		if !ok {
			return nil, fmt.Errorf("--key %s: no such entry; the file's top-level keys are %s", key, keyList(d))
		}
		c.Props = append(c.Props, canon.KeyValue{Key: "torch.key", Value: key})
		c.skipOthers(d, key)
		if err := c.walk(v, "", 0); err != nil {
			return nil, err
		}
		return c, c.requireTensors(key)
	}
	if !isDict {
		return nil, fmt.Errorf("the file holds a %s, not a state dict or checkpoint dict", pickle.TypeName(root))
	}
	if !hasDirectTensor(d) {
		for _, k := range stateDictKeys {
			if v, ok := d.Get(k); ok && c.containsTensor(v, 0) {
				c.Props = append(c.Props, canon.KeyValue{Key: "torch.key", Value: k})
				c.skipOthers(d, k)
				if err := c.walk(v, "", 0); err != nil {
					return nil, err
				}
				return c, nil
			}
		}
	}
	if err := c.walk(d, "", 0); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *collection) requireTensors(key string) error {
	if len(c.Tensors) == 0 {
		return fmt.Errorf("--key %s: the entry holds no tensors", key)
	}
	return nil
}

// skipOthers lists the checkpoint's other top-level entries as skipped.
func (c *collection) skipOthers(d *pickle.Dict, chosen string) {
	for i, k := range d.Keys {
		ks := keyString(k)
		if ks == chosen || strings.HasPrefix(chosen, ks+".") {
			continue
		}
		c.skip(ks, d.Values[i])
	}
}

func (c *collection) skip(name string, v pickle.Value) {
	c.Props = append(c.Props, canon.KeyValue{Key: "torch.skipped." + name, Value: c.summarize(v)})
}

func (c *collection) walk(v pickle.Value, prefix string, depth int) error {
	if depth > maxNesting {
		return fmt.Errorf("entry %q: dicts nested more than %d deep", prefix, maxNesting)
	}
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	switch x := v.(type) {
	case *tensorRecord:
		if prefix == "" {
			prefix = singleTensorName
		}
		c.Tensors = append(c.Tensors, namedRecord{prefix, x})
		return nil
	case *pickle.Dict:
		if c.seen[x] {
			c.skip(prefix, "<cycle>")
			return nil
		}
		c.seen[x] = true
		for i, k := range x.Keys {
			if err := c.walk(x.Values[i], join(keyString(k)), depth+1); err != nil {
				return err
			}
		}
		return nil
	case *pickle.List, *pickle.Tuple:
		var items []pickle.Value
		if l, ok := x.(*pickle.List); ok {
			items = l.Items
		} else {
			items = x.(*pickle.Tuple).Items
		}
		if !c.containsTensor(x, 0) {
			c.skip(prefix, v)
			return nil
		}
		if c.seen[x] {
			c.skip(prefix, "<cycle>")
			return nil
		}
		c.seen[x] = true
		for i, it := range items {
			if err := c.walk(it, join(strconv.Itoa(i)), depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	c.skip(prefix, v)
	return nil
}

func hasDirectTensor(d *pickle.Dict) bool {
	for _, v := range d.Values {
		if _, ok := v.(*tensorRecord); ok {
			return true
		}
	}
	return false
}

// containsTensor reports whether v holds a tensor within maxNesting levels.
// Each container is searched once per collection (a container reached
// again while it is being searched, through a cycle, counts as holding
// none, since the first visit covers it).
func (c *collection) containsTensor(v pickle.Value, depth int) bool {
	if depth > maxNesting {
		return false
	}
	var items []pickle.Value
	switch x := v.(type) {
	case *tensorRecord:
		return true
	case *pickle.Dict:
		items = x.Values
	case *pickle.List:
		items = x.Items
	case *pickle.Tuple:
		items = x.Items
	default:
		return false
	}
	if found, done := c.holds[v]; done {
		return found
	}
	c.holds[v] = false
	for _, it := range items {
		if c.containsTensor(it, depth+1) {
			c.holds[v] = true
			return true
		}
	}
	return false
}

// lookupPath finds key at the top level, or as a dotted path of nested keys.
func lookupPath(d *pickle.Dict, key string) (pickle.Value, bool) {
	if v, ok := d.Get(key); ok {
		return v, true
	}
	parts := strings.Split(key, ".")
	var cur pickle.Value = d
	for _, p := range parts {
		cd, ok := cur.(*pickle.Dict)
		if !ok {
			return nil, false
		}
		if cur, ok = cd.Get(p); !ok {
			return nil, false
		}
	}
	return cur, true
}

func keyString(k pickle.Value) string {
	switch x := k.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case *big.Int:
		return x.String()
	}
	return pickle.Format(k)
}

func keyList(d *pickle.Dict) string {
	var ks []string
	for i, k := range d.Keys {
		if i == 20 {
			ks = append(ks, "...")
			break
		}
		ks = append(ks, strconv.Quote(keyString(k)))
	}
	if len(ks) == 0 {
		return "(none: the dict is empty)"
	}
	return strings.Join(ks, ", ")
}

// maxSummary bounds the text kept for one skipped value: a pickle can
// name one long string or structure from many entries through its memo.
const maxSummary = 200

// summarize describes a skipped value: scalars verbatim (up to maxSummary
// bytes), containers by size.
func (c *collection) summarize(v pickle.Value) string {
	switch x := v.(type) {
	case *pickle.Dict:
		return fmt.Sprintf("dict with %d entries%s", x.Len(), c.tensorNote(x))
	case *pickle.List:
		return fmt.Sprintf("list of %d%s", len(x.Items), c.tensorNote(x))
	case *tensorRecord:
		return fmt.Sprintf("tensor %v", x.Size)
	}
	s, ok := v.(string)
	if !ok {
		s = pickle.Format(v)
	}
	if len(s) > maxSummary {
		// A copy, so that the prop does not keep a long string alive.
		s = strings.Clone(s[:maxSummary]) + "..."
	}
	return s
}

func (c *collection) tensorNote(v pickle.Value) string {
	if c.containsTensor(v, 0) {
		return " (holds tensors; select it with --key)"
	}
	return ""
}
