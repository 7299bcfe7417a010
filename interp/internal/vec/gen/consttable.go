package main

import "fmt"

// namedBits is one constant of a table: its name and float32 bits.
type namedBits struct {
	name string
	bits uint32
}

// constTable is a read-only table of float32 constants, each repeated 16
// times so that one load fills a ZMM (or the low half a YMM) register.
type constTable struct {
	label  string // the assembly symbol, <label><>
	consts []namedBits
}

// at is the address of constant name in the table.
func (c *constTable) at(name string) string {
	for i, k := range c.consts {
		if k.name == name {
			return fmt.Sprintf("%s<>+%d(SB)", c.label, 64*i)
		}
	}
	panic(c.label + " constant " + name)
}

// float32Table emits c's DATA and GLOBL lines.
func (e *emitter) float32Table(c *constTable) {
	for i, k := range c.consts {
		for j := 0; j < 16; j++ {
			e.raw(fmt.Sprintf("DATA %s<>+%d(SB)/4, $0x%08x\n", c.label, 64*i+4*j, k.bits))
		}
	}
	e.raw(fmt.Sprintf("GLOBL %s<>(SB), RODATA|NOPTR, $%d\n\n", c.label, 64*len(c.consts)))
}
