// Hosted tests of the tree: data, directories, the walk, the operations.
// SPDX-License-Identifier: BSD-3-Clause

package vfs

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"gmpos/kernel/mm"
)

func TestDataSparseAndTruncate(t *testing.T) {
	setup(t)
	base := freeFrames()
	ino := create(t, "/f", "hello")
	if got := readAll(ino); got != "hello" {
		t.Fatalf("read %q", got)
	}
	// A write 10 MiB out leaves a hole that reads as zeros and takes no frames.
	if n, e := Write(ino, 10<<20, []byte("end")); n != 3 || e != OK {
		t.Fatalf("far write: %d %v", n, e)
	}
	if s := StatOf(ino); s.Size != 10<<20+3 || s.Blocks > 4*8 {
		t.Fatalf("sparse file: size %d blocks %d", s.Size, s.Blocks)
	}
	buf := make([]byte, 8192)
	if n := Read(ino, 5<<20, buf); n != 8192 || !bytes.Equal(buf, make([]byte, 8192)) {
		t.Fatalf("hole read: %d bytes, zero %v", n, bytes.Equal(buf, make([]byte, 8192)))
	}
	// Shrinking frees frames and clears the tail, so growing again reads zeros.
	if e := Truncate(ino, 3); e != OK {
		t.Fatal(e)
	}
	if e := Truncate(ino, 10); e != OK {
		t.Fatal(e)
	}
	if got := readAll(ino); got != "hel\x00\x00\x00\x00\x00\x00\x00" {
		t.Fatalf("after shrink and grow: %q", got)
	}
	lk := walk(t, "/f", false)
	if e := Unlink(lk.Dir, lk.Name); e != OK {
		t.Fatal(e)
	}
	if freeFrames() != base {
		t.Fatalf("%d frames leaked", base-freeFrames())
	}
	check(t)
}

func TestDataLargePattern(t *testing.T) {
	setup(t)
	ino := create(t, "/big", "")
	want := make([]byte, 9<<20+123)
	for i := range want {
		want[i] = byte(i*7 + i>>12)
	}
	for off := 0; off < len(want); off += 1 << 20 {
		end := min(off+1<<20, len(want))
		if n, e := Write(ino, int64(off), want[off:end]); n != end-off || e != OK {
			t.Fatalf("write at %d: %d %v", off, n, e)
		}
	}
	got := make([]byte, len(want)+100)
	if n := Read(ino, 0, got); n != len(want) || !bytes.Equal(got[:n], want) {
		t.Fatalf("read back %d bytes, equal %v", n, bytes.Equal(got[:n], want))
	}
	// A read across a page boundary at an odd offset.
	if n := Read(ino, 4095, got[:3]); n != 3 || !bytes.Equal(got[:3], want[4095:4098]) {
		t.Fatalf("boundary read")
	}
}

func TestWriteENOSPC(t *testing.T) {
	setup(t)
	ino := create(t, "/fill", "")
	chunk := make([]byte, 1<<20)
	total := 0
	for {
		n, e := Write(ino, int64(total), chunk)
		total += n
		if e == ENOSPC {
			break
		}
		if e != OK || total > arenaSize {
			t.Fatalf("write: %d %v after %d", n, e, total)
		}
	}
	if total < arenaSize/2 {
		t.Fatalf("ENOSPC after only %d bytes", total)
	}
	if StatOf(ino).Size != uint64(total) {
		t.Fatalf("size %d, wrote %d", StatOf(ino).Size, total)
	}
	// Removing it gives every frame back.
	lk := walk(t, "/fill", false)
	Unlink(lk.Dir, lk.Name)
	if _, free := mm.FrameCounts(); free < arenaSize/4096-8 {
		t.Fatalf("only %d frames free after unlink", free)
	}
}

func TestWalk(t *testing.T) {
	setup(t)
	mkdir(t, "/a")
	mkdir(t, "/a/b")
	f := create(t, "/a/b/f", "x")
	sym := func(p, target string) {
		lk := walk(t, p, false)
		if _, e := Symlink(lk.Dir, lk.Name, []byte(target)); e != OK {
			t.Fatalf("Symlink %s: %v", p, e)
		}
	}
	sym("/abs", "/a/b")
	sym("/a/rel", "b/f")
	sym("/a/up", "../a/./b")
	sym("/loop1", "/loop2")
	sym("/loop2", "/loop1")
	sym("/dangling", "/nowhere")
	sym("/root", "/")
	for _, c := range []struct {
		path   string
		follow bool
		ino    Ino
		err    Errno
	}{
		{"/a/b/f", true, f, OK},
		{"a/b/f", true, f, OK},
		{"//a///b//f", true, f, OK},
		{"/a/./b/../b/f", true, f, OK},
		{"/../../a/b/f", true, f, OK},
		{"/abs/f", false, f, OK},
		{"/a/rel", true, f, OK},
		{"/a/up/f", true, f, OK},
		{"/root/a/b/f", true, f, OK},
		{"/a/b/f/", true, f, OK}, // the walk succeeds; MustDir tells the caller
		{"/a/b/f/x", true, 0, ENOTDIR},
		{"/a/x/f", true, 0, ENOENT},
		{"/loop1", true, 0, ELOOP},
		{"/loop1/x", false, 0, ELOOP},
		{"", true, 0, ENOENT},
		{"/" + string(bytes.Repeat([]byte("n"), 256)), true, 0, ENAMETOOLONG},
		{"/dangling", true, 0, OK},
	} {
		lk, e := Walk(Root, []byte(c.path), c.follow)
		if e != c.err || e == OK && lk.Ino != c.ino {
			t.Errorf("Walk(%q) = ino %d, %v; want %d, %v", c.path, lk.Ino, e, c.ino, c.err)
		}
	}
	if lk := walk(t, "/a/b/f/", true); !lk.MustDir {
		t.Errorf("trailing slash not reported")
	}
	if lk := walk(t, "/dangling", false); lk.Ino == 0 || !inodes[lk.Ino].IsSymlink() {
		t.Errorf("lstat of a dangling link: %+v", lk)
	}
	if lk := walk(t, "/", true); lk.Ino != Root || len(lk.Name) != 0 {
		t.Errorf("/: %+v", lk)
	}
	if lk := walk(t, "/root", true); lk.Ino != Root {
		t.Errorf("link to /: %+v", lk)
	}
	// getcwd.
	buf := make([]byte, 64)
	b := walk(t, "/a/b", true).Ino
	if n, e := Path(b, buf); e != OK || string(buf[:n]) != "/a/b" {
		t.Errorf("Path = %q, %v", buf[:n], e)
	}
	if _, e := Path(b, buf[:3]); e != ENAMETOOLONG {
		t.Errorf("Path into a short buffer: %v", e)
	}
	check(t)
}

func TestDirectoryManyEntries(t *testing.T) {
	setup(t)
	d := mkdir(t, "/d")
	var want []string
	for i := range 1000 {
		name := fmt.Sprintf("/d/file-%04d-%s", i, bytes.Repeat([]byte("x"), i%40))
		create(t, name, "")
		want = append(want, name[3:])
	}
	// Record order is not creation order (a short name fits in an earlier page's slack).
	if got := slices.Sorted(slices.Values(list(d)[2:])); !slices.Equal(got, want) {
		t.Fatalf("%d names listed, want %d", len(got), len(want))
	}
	// Remove every other one while reading the directory, as os.RemoveAll does: the cookies
	// stay valid, nothing is skipped or repeated.
	seen := 0
	for off := int64(0); ; {
		_, _, name, next, ok := NextEntry(d, off)
		if !ok {
			break
		}
		if !IsDots(name) {
			seen++
			if seen%2 == 0 {
				if e := Unlink(d, bytes.Clone(name)); e != OK {
					t.Fatal(e)
				}
			}
		}
		off = next
	}
	if seen != 1000 || len(list(d)) != 502 {
		t.Fatalf("seen %d, left %d", seen, len(list(d)))
	}
	// Freed records are reused: adding 500 names does not grow the directory.
	size := inodes[d].Size
	for i := range 500 {
		create(t, fmt.Sprintf("/d/n%d", i), "")
	}
	if inodes[d].Size > size {
		t.Errorf("directory grew from %d to %d bytes", size, inodes[d].Size)
	}
	check(t)
}

func TestRmdirAndUnlinkErrors(t *testing.T) {
	setup(t)
	mkdir(t, "/d")
	create(t, "/d/f", "")
	for _, c := range []struct {
		op   func() Errno
		want Errno
		what string
	}{
		{func() Errno { return Rmdir(Root, []byte("d")) }, ENOTEMPTY, "rmdir non-empty"},
		{func() Errno { return Rmdir(walk(t, "/d", true).Ino, []byte("f")) }, ENOTDIR, "rmdir file"},
		{func() Errno { return Unlink(Root, []byte("d")) }, EISDIR, "unlink dir"},
		{func() Errno { return Unlink(Root, []byte("x")) }, ENOENT, "unlink missing"},
		{func() Errno { return Rmdir(Root, []byte(".")) }, EINVAL, "rmdir ."},
		{func() Errno { return Rmdir(Root, []byte("..")) }, ENOTEMPTY, "rmdir .."},
		{func() Errno { return Link(walk(t, "/d", true).Ino, Root, []byte("d2")) }, EPERM, "link dir"},
	} {
		if got := c.op(); got != c.want {
			t.Errorf("%s: %v, want %v", c.what, got, c.want)
		}
	}
	// An unlinked open file keeps its data until closed.
	f := walk(t, "/d/f", true).Ino
	Write(f, 0, []byte("data"))
	Open(f)
	Unlink(walk(t, "/d", true).Ino, []byte("f"))
	if Get(f) == nil || readAll(f) != "data" {
		t.Fatalf("unlinked open file lost")
	}
	if e := Link(f, Root, []byte("back")); e != ENOENT {
		t.Errorf("link of an unlinked file: %v", e)
	}
	Close(f)
	if Get(f) != nil {
		t.Fatalf("closed unlinked file not freed")
	}
	// A removed working directory takes no new names.
	d := walk(t, "/d", true).Ino
	Open(d)
	if e := Rmdir(Root, []byte("d")); e != OK {
		t.Fatal(e)
	}
	if _, e := Create(d, []byte("x"), SIFREG); e != ENOENT {
		t.Errorf("create in a removed directory: %v", e)
	}
	if _, e := Path(d, make([]byte, 10)); e != ENOENT {
		t.Errorf("getcwd of a removed directory: %v", e)
	}
	Close(d)
	check(t)
}

func TestRename(t *testing.T) {
	setup(t)
	a, b := mkdir(t, "/a"), mkdir(t, "/b")
	mkdir(t, "/a/sub")
	create(t, "/a/f", "F")
	create(t, "/b/g", "G")
	mkdir(t, "/b/empty")
	mkdir(t, "/b/full")
	create(t, "/b/full/x", "")
	for _, c := range []struct {
		od          Ino
		on          string
		nd          Ino
		nn          string
		flags, want Errno
	}{
		{a, "nope", b, "x", 0, ENOENT},
		{a, "f", b, "g", RenameNoreplace, EEXIST},
		{a, "f", b, "nope", RenameExchange, ENOENT},
		{a, "sub", b, "g", 0, ENOTDIR},
		{a, "f", b, "empty", 0, EISDIR},
		{a, "sub", b, "full", 0, ENOTEMPTY},
		{Root, "a", a, "x", 0, EINVAL}, // below itself
		{a, "f", b, "g", 3, EINVAL},
		{a, "f", b, "g", RenameWhiteout, EINVAL},
	} {
		if got := Rename(c.od, []byte(c.on), c.nd, []byte(c.nn), uint32(c.flags)); got != c.want {
			t.Errorf("rename %d/%s -> %d/%s flags %d: %v, want %v", c.od, c.on, c.nd, c.nn, c.flags, got, c.want)
		}
	}
	check(t)
	// Over an existing file: the old one is gone.
	if e := Rename(a, []byte("f"), b, []byte("g"), 0); e != OK {
		t.Fatal(e)
	}
	if got := readAll(walk(t, "/b/g", true).Ino); got != "F" {
		t.Errorf("/b/g = %q", got)
	}
	// A directory over an empty one, across parents: ".." and the link counts follow.
	if e := Rename(a, []byte("sub"), b, []byte("empty"), 0); e != OK {
		t.Fatal(e)
	}
	check(t)
	// Exchange a file and a directory.
	if e := Rename(b, []byte("g"), b, []byte("full"), RenameExchange); e != OK {
		t.Fatal(e)
	}
	if !inodes[walk(t, "/b/g", true).Ino].IsDir() || readAll(walk(t, "/b/full", true).Ino) != "F" {
		t.Errorf("exchange did not swap")
	}
	if e := Rename(Root, []byte("a"), b, []byte("a2"), RenameExchange); e != ENOENT {
		t.Errorf("exchange with a missing name: %v", e)
	}
	if e := Rename(b, []byte("g"), Root, []byte("a"), RenameExchange); e != OK {
		t.Fatal(e)
	}
	check(t)
	if got := list(Root); !slices.Equal(got, []string{".", "..", "a", "b"}) {
		t.Errorf("root: %q", got)
	}
}

func TestWalkIntoMount(t *testing.T) {
	setup(t)
	mkdir(t, "/mnt")
	sh := mkdir(t, "/mnt/share")
	SetMount(sh, 0)
	if _, e := Symlink(Root, []byte("link"), []byte("mnt/share/sub")); e != OK {
		t.Fatal(e)
	}
	for _, c := range []struct {
		path, rest string
		mount      int
		ino        Ino
	}{
		{"/mnt/share/a/b", "a/b", 1, sh},
		{"/mnt/share//a/../b/", "a/../b/", 1, sh},
		{"/mnt/share", "", 1, sh},
		{"/mnt/share/", "", 1, sh},
		{"/mnt/share/..", "", 0, walk(t, "/mnt", true).Ino},
		{"/mnt/./share/x", "x", 1, sh},
	} {
		lk, e := Walk(Root, []byte(c.path), true)
		if e != OK || string(lk.Rest) != c.rest || lk.Mount != c.mount || lk.Ino != c.ino {
			t.Errorf("Walk(%q) = %+v, %v; want rest %q mount %d ino %d", c.path, lk, e, c.rest, c.mount, c.ino)
		}
	}
	// Through a symbolic link: the rest is pieced together in the scratch buffer.
	if _, e := Walk(Root, []byte("/link/x"), true); e != EXDEV {
		t.Errorf("through a link without scratch: %v", e)
	}
	scratch := make([]byte, PathMax)
	if lk, e := WalkAt(Root, []byte("/link/x"), true, scratch); e != OK || string(lk.Rest) != "sub/x" || lk.Mount != 1 {
		t.Errorf("through a link: %+v %v", lk, e)
	}
}

// TestPathIn names a file by the directory it was found in, and stops naming it once moved.
func TestPathIn(t *testing.T) {
	setup(t)
	dir, e := Mkdir(Root, []byte("tmp"), 0o755)
	if e != OK {
		t.Fatal(e)
	}
	f, e := Create(dir, []byte("x"), SIFREG|0o644)
	if e != OK {
		t.Fatal(e)
	}
	buf := make([]byte, 64)
	if n, e := PathIn(dir, f, buf); e != OK || string(buf[:n]) != "/tmp/x" {
		t.Errorf("PathIn = %q, %v", buf[:n], e)
	}
	if n, e := PathIn(dir, f, buf[:5]); e != ENAMETOOLONG {
		t.Errorf("short buffer: %q, %v", buf[:n], e)
	}
	if e := Rename(dir, []byte("x"), Root, []byte("y"), 0); e != OK {
		t.Fatal(e)
	}
	if _, e := PathIn(dir, f, buf); e != ENOENT {
		t.Errorf("after rename: %v, want ENOENT", e)
	}
	if n, e := PathIn(Root, f, buf); e != OK || string(buf[:n]) != "/y" {
		t.Errorf("in /: %q, %v", buf[:n], e)
	}
}
