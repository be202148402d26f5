// The path walk: from a name to an inode, as path_resolution(7) describes it.
// SPDX-License-Identifier: BSD-3-Clause

package vfs

import "unsafe"

// Linux's limits (include/uapi/linux/limits.h, fs/namei.c).
const (
	PathMax     = 4096 // with the NUL
	MaxSymlinks = 40   // links followed in one walk: ELOOP beyond
)

// Lookup is where a walk ended: the directory holding the last component, the component's
// inode (0 when no such name exists: open's O_CREAT and mkdir make it), and its name. A path
// that ends in "/" itself (as "/", or a link to it) names Dir with an empty Name. MustDir
// records a trailing slash: the file must be a directory (or become one, for mkdir).
//
// A path that leads into a share (SetMount) stops at its mount point: Mount is the share's number
// + 1 and Rest what is left of the path, relative to the share's root (empty: the root itself,
// which then is Ino, named Name in Dir). The kernel walks Rest on the host, over 9P.
type Lookup struct {
	Dir, Ino Ino
	Name     []byte
	MustDir  bool
	Mount    int
	Rest     []byte
}

// walker holds what is left to walk: the path, and above it the rest of each symbolic link
// being followed (a stack instead of recursion: trap context has a fixed stack). The parts are
// kept as address and length, not slices: storing a slice through a pointer would take the
// GC's write barrier, which trap context may not (doc.go). Their memory — the kernel's copy of
// the path, frames, the initramfs — is not the Go heap's.
type walker struct {
	parts [MaxSymlinks + 1]span
	n     int
	links int
}

type span struct {
	p uintptr
	n int
}

func spanOf(b []byte) span { return span{uintptr(unsafe.Pointer(unsafe.SliceData(b))), len(b)} }
func (s span) bytes() []byte {
	if s.n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(ptrAt(s.p)), s.n)
}

// next takes the next component off the stack. last reports that nothing but slashes follows
// it, slash that a slash does.
func (w *walker) next() (comp []byte, last, slash, ok bool) {
	for w.n > 0 {
		p := w.parts[w.n-1].bytes()
		i := 0
		for i < len(p) && p[i] == '/' {
			i++
		}
		if i == len(p) {
			w.n--
			continue
		}
		j := i
		for j < len(p) && p[j] != '/' {
			j++
		}
		comp, w.parts[w.n-1] = p[i:j], spanOf(p[j:])
		last, slash = true, false
		for k := w.n - 1; k >= 0; k-- {
			for _, c := range w.parts[k].bytes() {
				if c != '/' {
					last = false
				}
				slash = true
			}
		}
		return comp, last, slash, true
	}
	return nil, false, false, false
}

// follow pushes the target of symbolic link ino and says where the walk goes on from: the
// root for an absolute target, dir (the link's directory) for a relative one.
func (w *walker) follow(ino, dir Ino) (Ino, Errno) {
	if w.links++; w.links > MaxSymlinks || w.n == len(w.parts) {
		return 0, ELOOP
	}
	t := linkTarget(&inodes[ino])
	if len(t) == 0 {
		return 0, ENOENT
	}
	w.parts[w.n] = spanOf(t)
	w.n++
	if t[0] == '/' {
		return Root, OK
	}
	return dir, OK
}

// Walk resolves path, relative to the directory start unless it is absolute. With follow a
// symbolic link in the last component is followed too (stat, open without O_NOFOLLOW); links
// before it always are. Errors: ENOENT for an empty path or a missing directory on the way,
// ENOTDIR for a component on the way that is not a directory, ENAMETOOLONG, ELOOP.
func Walk(start Ino, path []byte, follow bool) (Lookup, Errno) {
	return WalkAt(start, path, follow, nil)
}

// WalkAt is Walk with a buffer for the rest of a path that enters a share through a symbolic
// link (the rest is then pieced together from the link's target and the path; without the
// buffer that is EXDEV).
func WalkAt(start Ino, path []byte, follow bool, scratch []byte) (Lookup, Errno) {
	if len(path) == 0 {
		return Lookup{}, ENOENT
	}
	if len(path) >= PathMax {
		return Lookup{}, ENAMETOOLONG
	}
	cur := start
	if path[0] == '/' {
		cur = Root
	}
	if Get(cur) == nil {
		return Lookup{}, ENOENT
	}
	var w walker
	w.parts[0], w.n = spanOf(path), 1
	for {
		comp, last, slash, ok := w.next()
		if !ok { // only slashes were left: the path names cur itself
			return Lookup{Dir: cur, Ino: cur, MustDir: true, Mount: int(inodes[cur].mount)}, OK
		}
		if m := inodes[cur].mount; m != 0 && string(comp) != ".." {
			rest, e := w.rest(comp, scratch)
			return Lookup{Dir: cur, Ino: cur, Mount: int(m), Rest: rest, MustDir: slash && last}, e
		}
		if len(comp) > NameMax {
			return Lookup{}, ENAMETOOLONG
		}
		d := &inodes[cur]
		if !d.IsDir() {
			return Lookup{}, ENOTDIR
		}
		var ino Ino
		switch string(comp) {
		case ".":
			ino = cur
		case "..":
			ino = parentOf(d)
		default:
			ino, _ = dirLookup(d, comp)
		}
		if last && (ino == 0 || !inodes[ino].IsSymlink() || !(follow || slash)) {
			return Lookup{Dir: cur, Ino: ino, Name: comp, MustDir: slash, Mount: int(inodes[ino].mount)}, OK
		}
		if ino == 0 {
			return Lookup{}, ENOENT
		}
		in := &inodes[ino]
		if in.IsSymlink() {
			var e Errno
			if cur, e = w.follow(ino, cur); e != OK {
				return Lookup{}, e
			}
			continue
		}
		if !in.IsDir() {
			return Lookup{}, ENOTDIR
		}
		cur = ino
	}
}

// rest is what is left of the walk from component comp on, as one path: a slice of the path
// itself when no symbolic link is being followed, else pieced together in scratch.
func (w *walker) rest(comp, scratch []byte) ([]byte, Errno) {
	if w.n == 1 {
		// comp is immediately followed by the rest of the one path.
		return unsafe.Slice(unsafe.SliceData(comp), len(comp)+w.parts[0].n), OK
	}
	if scratch == nil {
		return nil, EXDEV
	}
	n := copy(scratch, comp)
	for k := w.n - 1; k >= 0; k-- {
		b := w.parts[k].bytes()
		if n+len(b) > len(scratch) {
			return nil, ENAMETOOLONG
		}
		n += copy(scratch[n:], b)
	}
	return scratch[:n], OK
}

// parentOf is a directory's "..": its parent, or itself for the root.
func parentOf(d *Inode) Ino {
	ino, _ := dirLookup(d, dotdot[:])
	return ino
}

// linkTarget is a symbolic link's target: in the module, or at the start of its one frame.
func linkTarget(in *Inode) []byte {
	if in.ext != 0 {
		return extBytes(in)
	}
	if in.root == 0 {
		return nil
	}
	return frame(in.root)[:in.Size]
}

// Path writes the absolute path of directory ino into buf, as getcwd(2) does, and returns its
// length; ENOENT for a directory that has been removed, ENAMETOOLONG (Linux: ERANGE, the
// caller's) when buf is too small.
func Path(ino Ino, buf []byte) (int, Errno) {
	if Get(ino) == nil || inodes[ino].Nlink == 0 {
		return 0, ENOENT
	}
	if ino == Root {
		if len(buf) < 1 {
			return 0, ENAMETOOLONG
		}
		buf[0] = '/'
		return 1, OK
	}
	// Build it backwards at the end of buf, then move it to the front.
	end := len(buf)
	for ino != Root {
		parent := parentOf(&inodes[ino])
		name := nameIn(&inodes[parent], ino)
		if name == nil {
			return 0, ENOENT
		}
		if end < len(name)+1 {
			return 0, ENAMETOOLONG
		}
		end -= len(name)
		copy(buf[end:], name)
		end--
		buf[end] = '/'
		ino = parent
	}
	return copy(buf, buf[end:]), OK
}

// PathIn writes the absolute path of file ino, named in directory dir, into buf (a file has no
// parent of its own: the caller says where it was found): /proc/self/fd's links. ENOENT if dir
// no longer names ino (renamed or removed since).
func PathIn(dir, ino Ino, buf []byte) (int, Errno) {
	if Get(dir) == nil || !inodes[dir].IsDir() || Get(ino) == nil {
		return 0, ENOENT
	}
	name := nameIn(&inodes[dir], ino)
	if name == nil {
		return 0, ENOENT
	}
	n, e := Path(dir, buf)
	if e != OK {
		return 0, e
	}
	if n > 1 {
		if n == len(buf) {
			return 0, ENAMETOOLONG
		}
		buf[n] = '/'
		n++
	}
	if n+len(name) > len(buf) {
		return 0, ENAMETOOLONG
	}
	return n + copy(buf[n:], name), OK
}

// nameIn is the name of ino in directory dir (not "." or ".."), nil if it has none there.
func nameIn(dir *Inode, ino Ino) []byte {
	for off := int64(0); ; {
		e, _, name, next, ok := nextEntry(dir, off)
		if !ok {
			return nil
		}
		if e == ino && string(name) != "." && string(name) != ".." {
			return name
		}
		off = next
	}
}

// The names of the two records every directory starts with.
var dot, dotdot = [1]byte{'.'}, [2]byte{'.', '.'}
