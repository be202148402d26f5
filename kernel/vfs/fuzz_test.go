// Fuzz targets: the initramfs decoder, the path walk, and sequences of operations.
// SPDX-License-Identifier: BSD-3-Clause

package vfs

import (
	"bytes"
	"fmt"
	"testing"
)

// cpioEntry encodes one newc entry (the runner's encoder is qemu/runner/initramfs.go; this one
// makes seeds and test archives).
func cpioEntry(name string, mode uint32, data string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		1, mode, 0, 0, 1, 1700000000, len(data), 0, 0, 1, 3, len(name)+1, 0)
	b.WriteString(name)
	b.WriteByte(0)
	for b.Len()%4 != 0 {
		b.WriteByte(0)
	}
	b.WriteString(data)
	for b.Len()%4 != 0 {
		b.WriteByte(0)
	}
	return b.Bytes()
}

func archive(entries ...[]byte) []byte {
	return append(bytes.Join(entries, nil), cpioEntry("TRAILER!!!", 0, "")...)
}

var sampleArchive = archive(
	cpioEntry(".", SIFDIR|0o755, ""),
	cpioEntry("etc", SIFDIR|0o755, ""),
	cpioEntry("etc/passwd", SIFREG|0o644, "root:x:0:0:root:/root:/bin/sh\n"),
	cpioEntry("./tmp", SIFDIR|0o1777, ""),
	cpioEntry("/usr", SIFDIR|0o755, ""),
	cpioEntry("usr/link", SIFLNK|0o777, "../etc/passwd"),
	cpioEntry("dev", SIFDIR|0o755, ""),
	cpioEntry("dev/null", SIFCHR|0o666, ""),
)

func TestUnpack(t *testing.T) {
	setup(t)
	n, why, at := Unpack(sampleArchive)
	if why != "" || n != 8 {
		t.Fatalf("Unpack: %d entries, %q at %q", n, why, at)
	}
	if got := readAll(walk(t, "/usr/link", true).Ino); got != "root:x:0:0:root:/root:/bin/sh\n" {
		t.Errorf("through the link: %q", got)
	}
	if m := inodes[walk(t, "/tmp", true).Ino].Mode; m != SIFDIR|0o1777 {
		t.Errorf("/tmp mode %o", m)
	}
	if r := inodes[walk(t, "/dev/null", true).Ino].Rdev; r != MakeDev(1, 3) {
		t.Errorf("/dev/null rdev %x", r)
	}
	// A file from the archive is copied into frames at its first write; the archive is not
	// touched.
	p := walk(t, "/etc/passwd", true).Ino
	before := bytes.Clone(sampleArchive)
	if _, e := Write(p, 0, []byte("ROOT")); e != OK {
		t.Fatal(e)
	}
	if !bytes.Equal(before, sampleArchive) || readAll(p) != "ROOT:x:0:0:root:/root:/bin/sh\n" {
		t.Errorf("copy on write: archive changed %v, file %q", !bytes.Equal(before, sampleArchive), readAll(p))
	}
	// A second archive replaces files and keeps directories.
	if _, why, _ := Unpack(archive(cpioEntry("etc/passwd", SIFREG|0o600, "new"), cpioEntry("etc", SIFDIR|0o700, ""))); why != "" {
		t.Fatal(why)
	}
	if got := readAll(walk(t, "/etc/passwd", true).Ino); got != "new" {
		t.Errorf("replaced file: %q", got)
	}
	check(t)
	for _, c := range []struct {
		a   []byte
		why string
	}{
		{nil, "truncated header (no TRAILER!!! entry)"},
		{[]byte("070707" + string(make([]byte, 200))), "bad magic: not a cpio newc archive"},
		{archive(cpioEntry("a/b", SIFREG, "")), "a parent directory is missing or not a directory"},
		{archive(cpioEntry("x", 0o170000, "")), "an entry has an unknown file type"},
		{archive(cpioEntry("l", SIFLNK, "")), "a symbolic link's target is empty or too long"},
		{cpioEntry("f", SIFREG, "data"), "truncated header (no TRAILER!!! entry)"},
		{archive(cpioEntry("f", SIFREG, "data"))[:114], "file data runs past the end of the archive"},
	} {
		setup(t)
		if _, why, _ := Unpack(c.a); why != c.why {
			t.Errorf("got %q, want %q", why, c.why)
		}
	}
}

// FuzzUnpack: any archive is added or refused with a reason; the tree stays consistent.
func FuzzUnpack(f *testing.F) {
	f.Add(sampleArchive)
	f.Add(archive(cpioEntry("a", SIFDIR, ""), cpioEntry("a/b", SIFLNK, "/a"), cpioEntry("a/b/c", SIFREG, "x")))
	f.Fuzz(func(t *testing.T, a []byte) {
		setup(t)
		Unpack(a)
		check(t)
	})
}

// FuzzWalk: any path resolves or fails with one of the walk's errors, never panics; a path that
// resolves resolves again the same way with "/./" inserted.
func FuzzWalk(f *testing.F) {
	for _, p := range []string{"/a/b/f", "a/../a/./b//", "/l1/x", "/up/up/up", "/loop"} {
		f.Add([]byte(p), true)
	}
	f.Fuzz(func(t *testing.T, p []byte, follow bool) {
		setup(t)
		if _, why, _ := Unpack(archive(
			cpioEntry("a", SIFDIR|0o755, ""), cpioEntry("a/b", SIFDIR|0o755, ""),
			cpioEntry("a/b/f", SIFREG|0o644, "x"), cpioEntry("l1", SIFLNK, "a/b"),
			cpioEntry("up", SIFLNK, ".."), cpioEntry("loop", SIFLNK, "loop"),
			cpioEntry("a/b/abs", SIFLNK, "/a"))); why != "" {
			t.Fatal(why)
		}
		lk, e := Walk(Root, p, follow)
		switch e {
		case OK:
			if Get(lk.Dir) == nil || lk.Ino != 0 && Get(lk.Ino) == nil {
				t.Fatalf("%q: %+v", p, lk)
			}
			if len(p) > 0 && p[0] == '/' && len(p)+2 < PathMax {
				lk2, e2 := Walk(Root, append([]byte("/."), p...), follow)
				if e2 != OK || lk2.Ino != lk.Ino {
					t.Fatalf("%q: %+v, with /. prefix %+v %v", p, lk, lk2, e2)
				}
			}
		case ENOENT, ENOTDIR, ENAMETOOLONG, ELOOP:
		default:
			t.Fatalf("%q: errno %d", p, e)
		}
	})
}

// FuzzOps runs a sequence of operations on a small tree and checks its invariants after each
// one, and that removing everything gives every frame back.
func FuzzOps(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add([]byte{1, 0, 1, 1, 0, 17, 3, 34, 5, 17, 2, 49})
	names := []string{"/a", "/b", "/a/x", "/a/y", "/b/x", "/a/x/z", "/c", "/b/l"}
	f.Fuzz(func(t *testing.T, ops []byte) {
		setup(t)
		base := freeFrames()
		var open []Ino
		for i := 0; i+1 < len(ops); i += 2 {
			op, arg := ops[i]%10, ops[i+1]
			p1, p2 := names[arg%8], names[arg>>3%8]
			lk1, e1 := Walk(Root, []byte(p1), false)
			lk2, e2 := Walk(Root, []byte(p2), false)
			if e1 != OK || e2 != OK {
				continue
			}
			switch op {
			case 0:
				if lk1.Ino == 0 {
					Mkdir(lk1.Dir, lk1.Name, 0o755)
				}
			case 1:
				if lk1.Ino == 0 {
					if ino, e := Create(lk1.Dir, lk1.Name, SIFREG|0o644); e == OK {
						Write(ino, int64(arg)*1000, bytes.Repeat([]byte{arg}, int(arg)*100))
					}
				}
			case 2:
				Unlink(lk1.Dir, lk1.Name)
			case 3:
				Rmdir(lk1.Dir, lk1.Name)
			case 4, 5, 6:
				Rename(lk1.Dir, lk1.Name, lk2.Dir, lk2.Name, uint32(op-4))
			case 7:
				if lk1.Ino != 0 && lk2.Ino == 0 {
					Link(lk1.Ino, lk2.Dir, lk2.Name)
				}
			case 8:
				if lk1.Ino != 0 && inodes[lk1.Ino].IsReg() {
					Truncate(lk1.Ino, int64(arg)*300)
				} else if lk1.Ino == 0 {
					Symlink(lk1.Dir, lk1.Name, []byte(p2))
				}
			case 9:
				if lk1.Ino != 0 {
					Open(lk1.Ino)
					open = append(open, lk1.Ino)
				}
			}
			check(t)
		}
		for _, ino := range open {
			Close(ino)
		}
		// Remove everything, deepest first.
		for range 4 {
			for j := len(names) - 1; j >= 0; j-- {
				if lk, e := Walk(Root, []byte(names[j]), false); e == OK && lk.Ino != 0 {
					if inodes[lk.Ino].IsDir() {
						Rmdir(lk.Dir, lk.Name)
					} else {
						Unlink(lk.Dir, lk.Name)
					}
				}
			}
		}
		check(t)
		if len(list(Root)) == 2 && freeFrames() != base {
			t.Fatalf("%d frames leaked", int(base)-int(freeFrames()))
		}
	})
}
