// Twalk and path elements: encoding a relative path, cutting a long one, checking names.
// SPDX-License-Identifier: BSD-3-Clause

package p9

// NameMax is the longest name a directory entry may have (Linux NAME_MAX): what a user
// program's struct dirent holds, and what a Linux host's file systems allow.
const NameMax = 255

// nextElem returns the first non-empty element of the slash-separated path p and what follows
// it (from the slash after it). An empty elem: no element left.
func nextElem(p []byte) (elem, rest []byte) {
	i := 0
	for i < len(p) && p[i] == '/' {
		i++
	}
	j := i
	for j < len(p) && p[j] != '/' {
		j++
	}
	return p[i:j], p[j:]
}

// Elements is how many non-empty elements the slash-separated path has: the nwname of the
// Twalk that Walk would encode, and so the nwqid of a walk that succeeds entirely.
func Elements(path []byte) int {
	k := 0
	for e, rest := nextElem(path); len(e) != 0; e, rest = nextElem(rest) {
		k++
	}
	return k
}

// WalkSplit cuts path after its MaxWalk-th element: first has at most MaxWalk elements (all of
// path if it has no more), rest the others, without leading slashes (empty: nothing left).
// first is capped at its length. A long path is walked in steps: Walk(first) from the start
// fid to a new fid, then Walk(WalkSplit(rest)) from that fid to itself, and so on.
func WalkSplit(path []byte) (first, rest []byte) {
	cut := 0
	p := path
	for k := 0; k < MaxWalk; k++ {
		e, r := nextElem(p)
		if len(e) == 0 {
			break
		}
		cut = len(path) - len(r)
		p = r
	}
	rest = path[cut:]
	for len(rest) > 0 && rest[0] == '/' {
		rest = rest[1:]
	}
	return path[:cut:cut], rest
}

// Walk encodes Twalk: fid[4] newfid[4] nwname[2] nwname*(wname[s]) — walk from fid along the
// non-empty elements of the relative, slash-separated path (empty elements, from "//" or a
// leading or trailing slash, are skipped) and call the result newfid (walk(5)). No element: a
// clone of fid. newfid may equal fid (the fid moves). 0 if path has more than MaxWalk elements
// (use WalkSplit), an element longer than 65535 bytes, or the message does not fit b.
//
// Elements are sent as they are. "." and ".." mean what the server makes of them (QEMU's local
// backend: the directory itself, and its parent but never above the export's root), and a
// symbolic link met on the way is not followed: a client that wants Linux path semantics
// (symbolic links, ".." across mounts) resolves those itself and walks element by element.
func Walk(b []byte, tag uint16, fid, newfid uint32, path []byte) int {
	n := HeaderSize + 4 + 4 + 2
	k := 0
	for e, rest := nextElem(path); len(e) != 0; e, rest = nextElem(rest) {
		k++
		if k > MaxWalk || len(e) > maxStr {
			return 0
		}
		n += 2 + len(e)
	}
	if !fits(b, n) {
		return 0
	}
	o := header(b, n, Twalk, tag)
	o = put32(b, o, fid)
	o = put32(b, o, newfid)
	o = put16(b, o, uint16(k))
	for e, rest := nextElem(path); len(e) != 0; e, rest = nextElem(rest) {
		o = putStr(b, o, e)
	}
	return n
}

// direntName reports whether name can be a directory entry's name: 1 to NameMax bytes, no '/'
// and no NUL. "." and ".." are.
func direntName(name []byte) bool {
	if len(name) == 0 || len(name) > NameMax {
		return false
	}
	for _, c := range name {
		if c == '/' || c == 0 {
			return false
		}
	}
	return true
}

// ValidName reports whether name is a name a client may create, link, rename to or remove: a
// directory entry's name (1 to NameMax bytes, no '/', no NUL) other than "." and "..".
func ValidName(name []byte) bool {
	if !direntName(name) {
		return false
	}
	return !(name[0] == '.' && (len(name) == 1 || len(name) == 2 && name[1] == '.'))
}
