// The structure block: tokens (§5.4.1), nodes and their properties (§5.4.2).
// SPDX-License-Identifier: BSD-3-Clause

package fdt

import "unsafe"

// Tokens: big-endian u32s, each aligned to 4 bytes (§5.4.1). FDT_BEGIN_NODE is followed by the
// node's name, NUL-terminated and padded to 4 bytes; FDT_PROP by the value's length, the offset
// of the property's name in the strings block, and the value, padded to 4 bytes.
const (
	tokBeginNode = 1
	tokEndNode   = 2
	tokProp      = 3
	tokNop       = 4
	tokEnd       = 9
)

// Node is a node of the tree: the offset of its FDT_BEGIN_NODE token in the structure block.
// Values come from the Tree's own accessors; a negative Node is none.
type Node int

// Prop is a property of a node: the offset of its FDT_PROP token in the structure block.
type Prop int

// token reads the token at off of the structure block and returns its kind and the offset of
// the token after it, which is always greater than off. ok false if the token or what it
// carries does not fit: a name without its NUL inside the block, a property whose value runs
// past the block or whose name offset is not a NUL-terminated string of the strings block.
func (t *Tree) token(off int) (kind uint32, next int, ok bool) {
	if off%4 != 0 {
		return 0, 0, false
	}
	k, ok := be32(t.structs, off)
	if !ok {
		return 0, 0, false
	}
	switch k {
	case tokBeginNode:
		end := indexNUL(t.structs, off+4)
		if end < 0 {
			return 0, 0, false
		}
		return k, align4(end + 1), true
	case tokProp:
		n, ok1 := be32(t.structs, off+4)
		nameoff, ok2 := be32(t.structs, off+8)
		if !ok1 || !ok2 || uint64(n) > uint64(len(t.structs)-(off+12)) {
			return 0, 0, false
		}
		if uint64(nameoff) >= uint64(len(t.strings)) || indexNUL(t.strings, int(nameoff)) < 0 {
			return 0, 0, false
		}
		return k, align4(off + 12 + int(n)), true
	}
	return k, off + 4, true
}

// indexNUL returns the index of the first NUL in b at or after from, -1 if there is none.
func indexNUL(b []byte, from int) int {
	for i := from; i >= 0 && i < len(b); i++ {
		if b[i] == 0 {
			return i
		}
	}
	return -1
}

func align4(n int) int { return (n + 3) &^ 3 }

// skipNops returns the offset of the first token at or after off that is not FDT_NOP, its
// kind, and the offset after it.
func (t *Tree) skipNops(off int) (at int, kind uint32, next int, ok bool) {
	for {
		k, n, ok := t.token(off)
		if !ok {
			return 0, 0, 0, false
		}
		if k != tokNop {
			return off, k, n, true
		}
		off = n
	}
}

// Root returns the root node; negative for the zero Tree.
func (t *Tree) Root() Node {
	if t.structs == nil {
		return -1
	}
	return t.root
}

// Name returns n's name as the tree spells it, "node-name@unit-address" (§2.2.1); the root's is
// empty. nil if n is not a node.
func (t *Tree) Name(n Node) []byte {
	k, _, ok := t.token(int(n))
	if n < 0 || !ok || k != tokBeginNode {
		return nil
	}
	return t.structs[int(n)+4 : indexNUL(t.structs, int(n)+4)]
}

// FirstChild returns n's first subnode.
func (t *Tree) FirstChild(n Node) (Node, bool) {
	k, next, ok := t.token(int(n))
	if n < 0 || !ok || k != tokBeginNode {
		return -1, false
	}
	for { // past the properties (and NOPs)
		at, k, nx, ok := t.skipNops(next)
		if !ok {
			return -1, false
		}
		switch k {
		case tokProp:
			next = nx
		case tokBeginNode:
			return Node(at), true
		default:
			return -1, false
		}
	}
}

// Next returns the next sibling of n: the node after n's subtree, under the same parent.
func (t *Tree) Next(n Node) (Node, bool) {
	k, off, ok := t.token(int(n))
	if n < 0 || !ok || k != tokBeginNode {
		return -1, false
	}
	for depth := 1; depth > 0; {
		k, next, ok := t.token(off)
		if !ok {
			return -1, false
		}
		switch k {
		case tokBeginNode:
			depth++
		case tokEndNode:
			depth--
		case tokEnd:
			return -1, false
		}
		off = next
	}
	at, k, _, ok := t.skipNops(off)
	if !ok || k != tokBeginNode {
		return -1, false
	}
	return Node(at), true
}

// FirstProp returns n's first property.
func (t *Tree) FirstProp(n Node) (Prop, bool) {
	k, next, ok := t.token(int(n))
	if n < 0 || !ok || k != tokBeginNode {
		return -1, false
	}
	at, k, _, ok := t.skipNops(next)
	if !ok || k != tokProp {
		return -1, false
	}
	return Prop(at), true
}

// NextProp returns the property after p in its node.
func (t *Tree) NextProp(p Prop) (Prop, bool) {
	k, next, ok := t.token(int(p))
	if p < 0 || !ok || k != tokProp {
		return -1, false
	}
	at, k, _, ok := t.skipNops(next)
	if !ok || k != tokProp {
		return -1, false
	}
	return Prop(at), true
}

// PropName returns p's name (without its NUL); nil if p is not a property.
func (t *Tree) PropName(p Prop) []byte {
	k, _, ok := t.token(int(p))
	if p < 0 || !ok || k != tokProp {
		return nil
	}
	off, _ := be32(t.structs, int(p)+8)
	return t.strings[off:indexNUL(t.strings, int(off))] // token checked both
}

// PropValue returns p's value: a view of the blob, never copied (possibly empty: a property
// may be a flag). nil if p is not a property.
func (t *Tree) PropValue(p Prop) []byte {
	k, _, ok := t.token(int(p))
	if p < 0 || !ok || k != tokProp {
		return nil
	}
	n, _ := be32(t.structs, int(p)+4)
	v := int(p) + 12
	return t.structs[v : v+int(n) : v+int(n)] // token checked the length
}

// Prop returns the value of n's property called name; ok false if n has none.
func (t *Tree) Prop(n Node, name string) ([]byte, bool) {
	for p, ok := t.FirstProp(n); ok; p, ok = t.NextProp(p) {
		if same(t.PropName(p), bytesOf(name)) {
			return t.PropValue(p), true
		}
	}
	return nil, false
}

// Child returns n's first subnode called name: its full name ("memory@40000000") if name has an
// '@', else its node-name, the part before any '@' ("memory" matches "memory@40000000" and
// "memory") (§2.2.1).
func (t *Tree) Child(n Node, name string) (Node, bool) {
	for c, ok := t.FirstChild(n); ok; c, ok = t.Next(c) {
		if nameIs(t.Name(c), bytesOf(name)) {
			return c, true
		}
	}
	return -1, false
}

// NameIs reports whether a node's full name matches name: exactly if name has a unit address
// ('@'), else by its node-name alone.
func NameIs(full []byte, name string) bool { return nameIs(full, bytesOf(name)) }

func nameIs(full, name []byte) bool {
	for _, c := range name {
		if c == '@' {
			return same(full, name)
		}
	}
	base := full
	for i, c := range full {
		if c == '@' {
			base = full[:i]
			break
		}
	}
	return same(base, name)
}

// bytesOf views a string's bytes without copying them: the package only reads them. (A
// conversion may allocate; generic code over string|[]byte is instantiated with a dictionary
// that escape analysis cannot see through, so its arguments would escape.)
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// same reports whether a and b hold the same bytes.
func same(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Lookup returns the node at path: absolute ("/cpus/cpu@1"; a component without a unit address
// matches the first node of that node-name) or starting with an alias, a property of /aliases
// whose value is an absolute path ("serial0", "serial0/child"). A ':' ends the path, as in
// /chosen's stdout-path ("serial0:115200n8", §3.6).
func (t *Tree) Lookup(path string) (Node, bool) { return t.LookupBytes(bytesOf(path)) }

// LookupBytes is Lookup for a path held in bytes (a property's value).
func (t *Tree) LookupBytes(path []byte) (Node, bool) { return t.lookup(path, true) }

// lookup resolves path; an alias only if aliases (an alias's value is not looked up as one
// again: no chains, no loops).
func (t *Tree) lookup(path []byte, aliases bool) (Node, bool) {
	for i, c := range path {
		if c == ':' {
			path = path[:i]
			break
		}
	}
	if len(path) == 0 || t.Root() < 0 {
		return -1, false
	}
	n := t.Root()
	if path[0] != '/' {
		end := 0
		for end < len(path) && path[end] != '/' {
			end++
		}
		al, ok := t.Child(n, "aliases")
		if !ok || !aliases {
			return -1, false
		}
		var target []byte
		for p, ok := t.FirstProp(al); ok; p, ok = t.NextProp(p) {
			if same(t.PropName(p), path[:end]) {
				target, _ = String(t.PropValue(p))
				break
			}
		}
		if len(target) == 0 || target[0] != '/' {
			return -1, false // no such alias, or one that is not absolute
		}
		if n, ok = t.lookup(target, false); !ok {
			return -1, false
		}
		path = path[end:]
	}
	for i := 0; i < len(path); {
		for i < len(path) && path[i] == '/' {
			i++
		}
		j := i
		for j < len(path) && path[j] != '/' {
			j++
		}
		if i == j {
			break
		}
		c, ok := t.FirstChild(n)
		for ; ok && !nameIs(t.Name(c), path[i:j]); c, ok = t.Next(c) {
		}
		if !ok {
			return -1, false
		}
		n, i = c, j
	}
	return n, true
}
