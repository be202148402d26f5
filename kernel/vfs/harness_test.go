// Test harness: "physical memory" in a Go byte slice, and helpers.
// SPDX-License-Identifier: BSD-3-Clause

package vfs

import (
	"fmt"
	"testing"
	"unsafe"

	"gmpos/kernel/mm"
)

const arenaBase, arenaSize = 0x100000, 64 << 20

var arena []byte

// setup gives the frame allocator 64 MiB of arena and makes an empty tree.
func setup(t testing.TB) {
	t.Helper()
	if arena == nil {
		arena = make([]byte, arenaSize+mm.PageSize)
	}
	base := (uintptr(unsafe.Pointer(&arena[0])) + mm.PageSize - 1) &^ (mm.PageSize - 1)
	mm.SetPhysOffset(base - arenaBase)
	inodes = [MaxInodes]Inode{} // the last test's frames go with the allocator's reset
	mm.Init([]mm.Region{{Base: arenaBase, Len: arenaSize}})
	Reset()
	SetNow(1e18)
}

func freeFrames() uintptr { _, f := mm.FrameCounts(); return f }

// walk resolves p from the root, failing the test on an error.
func walk(t testing.TB, p string, follow bool) Lookup {
	t.Helper()
	lk, e := Walk(Root, []byte(p), follow)
	if e != OK {
		t.Fatalf("Walk(%q): errno %d", p, e)
	}
	return lk
}

func mkdir(t testing.TB, p string) Ino {
	t.Helper()
	lk := walk(t, p, false)
	ino, e := Mkdir(lk.Dir, lk.Name, 0o755)
	if e != OK {
		t.Fatalf("Mkdir(%q): errno %d", p, e)
	}
	return ino
}

func create(t testing.TB, p string, data string) Ino {
	t.Helper()
	lk := walk(t, p, false)
	ino, e := Create(lk.Dir, lk.Name, SIFREG|0o644)
	if e != OK {
		t.Fatalf("Create(%q): errno %d", p, e)
	}
	if n, e := Write(ino, 0, []byte(data)); n != len(data) || e != OK {
		t.Fatalf("Write(%q) = %d, %d", p, n, e)
	}
	return ino
}

func readAll(ino Ino) string {
	b := make([]byte, inodes[ino].Size)
	return string(b[:Read(ino, 0, b)])
}

// list returns a directory's names in record order, with "." and "..".
func list(dir Ino) []string {
	var names []string
	for off := int64(0); ; {
		_, _, name, next, ok := NextEntry(dir, off)
		if !ok {
			return names
		}
		names = append(names, string(name))
		off = next
	}
}

// check verifies the tree's invariants: every directory's link count is 2 plus its
// subdirectories, every name points at a live inode whose type matches the record, every
// regular file's link count equals its names, and ".." points at the parent.
func check(t testing.TB) {
	t.Helper()
	names := map[Ino]int{}
	for ino := Ino(1); ino < MaxInodes; ino++ {
		in := &inodes[ino]
		if !in.IsDir() {
			continue
		}
		subdirs := 0
		for off := int64(0); ; {
			e, typ, name, next, ok := nextEntry(in, off)
			if !ok {
				break
			}
			off = next
			if Get(e) == nil {
				t.Fatalf("dir %d: %q -> free inode %d", ino, name, e)
			}
			if typ != DirType(inodes[e].Mode) {
				t.Fatalf("dir %d: %q type %d, inode mode %o", ino, name, typ, inodes[e].Mode)
			}
			if IsDots(name) {
				continue
			}
			names[e]++
			if inodes[e].IsDir() {
				subdirs++
				if p := parentOf(&inodes[e]); p != ino {
					t.Fatalf("dir %d (%q): .. = %d, want %d", e, name, p, ino)
				}
			}
		}
		if n := in.Size / pageSize; n > 0 {
			// dirAdd's fast path: tail is a record boundary whose record reaches the end of the
			// last page.
			pg, o := dirPage(in, n-1), 0
			for o < int(in.tail) {
				o += readRecord(pg, o).reclen
			}
			if o != int(in.tail) || o+readRecord(pg, o).reclen != pageSize {
				t.Fatalf("dir %d: tail %d is not the last page's last record", ino, in.tail)
			}
		}
		if want := uint32(2 + subdirs); in.Nlink != want && in.Nlink != 0 {
			t.Fatalf("dir %d: nlink %d, want %d", ino, in.Nlink, want)
		}
	}
	for ino := Ino(2); ino < MaxInodes; ino++ {
		in := &inodes[ino]
		if in.Mode == 0 || in.IsDir() {
			continue
		}
		if int(in.Nlink) != names[ino] {
			t.Fatalf("inode %d: nlink %d, %d names", ino, in.Nlink, names[ino])
		}
		if in.Nlink == 0 && in.Opens == 0 {
			t.Fatalf("inode %d: no names, not open, not freed", ino)
		}
	}
}

func (e Errno) String() string { return fmt.Sprintf("errno %d", uint32(e)) }
