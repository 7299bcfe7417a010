// Package optable helps a backend keep its op table, keyed by op kind (or
// a format's op name), in one map filled from several files: each op family
// adds its entries from its own file's init function.
package optable

// Add merges entries into *table, creating the map on first use. A key
// added twice is a programming error and panics, naming the key, so two
// files can never silently disagree about one op.
func Add[V any](table *map[string]V, entries map[string]V) {
	if *table == nil {
		*table = make(map[string]V, len(entries))
	}
	for k, v := range entries {
		if _, dup := (*table)[k]; dup {
			panic("optable: op " + k + " is added twice")
		}
		(*table)[k] = v
	}
}
