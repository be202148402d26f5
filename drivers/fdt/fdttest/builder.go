// Builder: a flattened device tree written token by token.
// SPDX-License-Identifier: BSD-3-Clause

package fdttest

import "encoding/binary"

// Tokens and header constants (devicetree specification §5.2, §5.4.1).
const (
	Magic     = 0xd00dfeed
	BeginNode = 1
	EndNode   = 2
	PropToken = 3
	Nop       = 4
	End       = 9
)

// Builder writes a tree token by token. Calls chain: b.Begin("").Prop(...).End().
type Builder struct {
	structs, strings []byte
	// Reserve lists the memory reservation block's entries (address, size).
	Reserve [][2]uint64
}

func (b *Builder) u32(v uint32) { b.structs = binary.BigEndian.AppendUint32(b.structs, v) }

func (b *Builder) pad() {
	for len(b.structs)%4 != 0 {
		b.structs = append(b.structs, 0)
	}
}

// Begin opens a node (the root's name is "").
func (b *Builder) Begin(name string) *Builder {
	b.u32(BeginNode)
	b.structs = append(append(b.structs, name...), 0)
	b.pad()
	return b
}

// End closes the innermost open node.
func (b *Builder) End() *Builder { b.u32(EndNode); return b }

// Prop adds a property to the open node; its name goes into the strings block.
func (b *Builder) Prop(name string, v []byte) *Builder {
	off := len(b.strings)
	b.strings = append(append(b.strings, name...), 0)
	b.u32(PropToken)
	b.u32(uint32(len(v)))
	b.u32(uint32(off))
	b.structs = append(b.structs, v...)
	b.pad()
	return b
}

// Str adds a string property (NUL-terminated).
func (b *Builder) Str(name, v string) *Builder { return b.Prop(name, []byte(v+"\x00")) }

// Cells adds a property of u32 cells.
func (b *Builder) Cells(name string, v ...uint32) *Builder { return b.Prop(name, Cells(v...)) }

// NopToken adds an FDT_NOP.
func (b *Builder) NopToken() *Builder { b.u32(Nop); return b }

// Blob ends the structure block with FDT_END and returns the whole tree.
func (b *Builder) Blob() []byte {
	st := binary.BigEndian.AppendUint32(append([]byte(nil), b.structs...), End)
	out := make([]byte, 40)
	for _, r := range append(b.Reserve, [2]uint64{}) {
		out = binary.BigEndian.AppendUint64(out, r[0])
		out = binary.BigEndian.AppendUint64(out, r[1])
	}
	offStruct := len(out)
	out = append(out, st...)
	offStrings := len(out)
	out = append(out, b.strings...)
	h := []uint32{Magic, uint32(len(out)), uint32(offStruct), uint32(offStrings), 40, 17, 16, 0,
		uint32(len(b.strings)), uint32(len(st))}
	for i, v := range h {
		binary.BigEndian.PutUint32(out[4*i:], v)
	}
	return out
}

// Cells encodes u32 cells, big-endian.
func Cells(v ...uint32) []byte {
	var b []byte
	for _, c := range v {
		b = binary.BigEndian.AppendUint32(b, c)
	}
	return b
}
