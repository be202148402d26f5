// Share exercises a directory shared with the host (-share) or copied from it (-fs): it reads
// what the host put there, writes 64 MiB and names and renames and removes, as an ordinary
// program does with a data directory. One line per check ("check NAME: true"), the big file's
// sha256 on a line of its own, then it exits 3 with a file written but never closed, which must
// still reach the host.
//
//	share DIR        the checks, in DIR (the guest's path of the shared directory)
//	share -copy DIR  DIR is a -fs copy: the same reads, and writes that stay in the guest
//
// SPDX-License-Identifier: BSD-3-Clause
package main

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// pattern is the big file's contents: the test computes the same bytes on the host.
func pattern(n int) []byte {
	b := make([]byte, n)
	x := uint32(1)
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

func check(name string, err error) {
	if err != nil {
		fmt.Printf("check %s: false (%v)\n", name, err)
		return
	}
	fmt.Printf("check %s: true\n", name)
}

func expect(got, want error) error {
	if !errors.Is(got, want) {
		return fmt.Errorf("got %v, want %v", got, want)
	}
	return nil
}

func main() {
	copyMode := len(os.Args) > 2 && os.Args[1] == "-copy"
	dir := os.Args[len(os.Args)-1]
	p := func(name string) string { return filepath.Join(dir, name) }

	check("read a file the host wrote", func() error {
		b, err := os.ReadFile(p("from-host.txt"))
		if err != nil || string(b) != "written on the host\n" {
			return fmt.Errorf("%q %v", b, err)
		}
		return nil
	}())
	check("stat: size and mode", func() error {
		fi, err := os.Stat(p("from-host.txt"))
		if err != nil || fi.Size() != 20 || fi.Mode().Perm() != 0o640 || !fi.Mode().IsRegular() {
			return fmt.Errorf("%v %v", fi, err)
		}
		return nil
	}())
	check("a subdirectory the host made, listed", func() error {
		ents, err := os.ReadDir(p("hostdir"))
		if err != nil {
			return err
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if !slices.Equal(names, []string{"a", "b", "c"}) || !ents[0].Type().IsRegular() {
			return fmt.Errorf("%v", names)
		}
		return nil
	}())
	check("a missing name: ENOENT", expect(func() error { _, err := os.Open(p("nope")); return err }(), syscall.ENOENT))
	check("symbolic links the host made: followed in the middle and at the end, Lstat, a loop", func() error {
		if b, err := os.ReadFile(p("linkdir/b")); err != nil || string(b) != "b" {
			return fmt.Errorf("through linkdir: %q %v", b, err)
		}
		if b, err := os.ReadFile(p("flink")); err != nil || string(b) != "a" {
			return fmt.Errorf("flink: %q %v", b, err)
		}
		if fi, err := os.Lstat(p("flink")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return fmt.Errorf("Lstat flink: %v %v", fi, err)
		}
		if fi, err := os.Stat(p("flink")); err != nil || !fi.Mode().IsRegular() {
			return fmt.Errorf("Stat flink: %v %v", fi, err)
		}
		if ents, err := os.ReadDir(p("linkdir")); err != nil || len(ents) != 3 {
			return fmt.Errorf("ReadDir linkdir: %d %v", len(ents), err)
		}
		_, err := os.Open(p("loop1"))
		return expect(err, syscall.ELOOP)
	}())
	check("Chdir into a subdirectory, Getwd, relative names, .. and back", func() error {
		old, _ := os.Getwd()
		defer os.Chdir(old)
		if err := os.Chdir(p("hostdir")); err != nil {
			return err
		}
		if wd, err := os.Getwd(); err != nil || wd != p("hostdir") {
			return fmt.Errorf("Getwd %q %v", wd, err)
		}
		if b, err := os.ReadFile("b"); err != nil || string(b) != "b" {
			return fmt.Errorf("relative read: %q %v", b, err)
		}
		if b, err := os.ReadFile("../from-host.txt"); err != nil || string(b) != "written on the host\n" {
			return fmt.Errorf("../ read: %q %v", b, err)
		}
		if err := expect(os.Chdir("a"), syscall.ENOTDIR); err != nil {
			return fmt.Errorf("chdir to a file: %v", err)
		}
		return nil
	}())
	check("40 goroutines reading at once (more calls than a share has request slots)", func() error {
		errs := make(chan error, 40)
		for g := range 40 {
			go func() {
				for range 10 {
					name := []string{"a", "b", "c"}[g%3]
					b, err := os.ReadFile(p("hostdir/" + name))
					if err == nil && string(b) != name {
						err = fmt.Errorf("%s: %q", name, b)
					}
					if err != nil {
						errs <- err
						return
					}
				}
				errs <- nil
			}()
		}
		for range 40 {
			if err := <-errs; err != nil {
				return err
			}
		}
		return nil
	}())
	if copyMode {
		check("writes go to the guest's copy", os.WriteFile(p("guest-only"), []byte("x"), 0o644))
		return
	}

	data := pattern(64 << 20)
	check("64 MiB written in 1 MiB writes, fsynced, closed", func() error {
		f, err := os.Create(p("big"))
		if err != nil {
			return err
		}
		for off := 0; off < len(data); off += 1 << 20 {
			if _, err := f.Write(data[off : off+1<<20]); err != nil {
				return err
			}
		}
		if err := f.Sync(); err != nil {
			return err
		}
		return f.Close()
	}())
	fmt.Printf("sha256 %x\n", sha256.Sum256(data))
	check("read back through ReadAt at odd offsets", func() error {
		f, err := os.Open(p("big"))
		if err != nil {
			return err
		}
		defer f.Close()
		buf := make([]byte, 300000)
		for _, off := range []int64{0, 1, 4095, 131071, 40 << 20} {
			if _, err := f.ReadAt(buf, off); err != nil {
				return err
			}
			if string(buf) != string(data[off:off+int64(len(buf))]) {
				return fmt.Errorf("at %d: different bytes", off)
			}
		}
		if n, err := f.Seek(0, io.SeekEnd); n != int64(len(data)) || err != nil {
			return fmt.Errorf("SeekEnd %d %v", n, err)
		}
		return nil
	}())
	check("O_EXCL on an existing file: EEXIST", expect(func() error {
		_, err := os.OpenFile(p("big"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		return err
	}(), syscall.EEXIST))
	check("MkdirAll, a file in it, rename across directories", func() error {
		if err := os.MkdirAll(p("made/in/guest"), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p("made/in/guest/f"), []byte("moved"), 0o600); err != nil {
			return err
		}
		return os.Rename(p("made/in/guest/f"), p("made/renamed"))
	}())
	check("rmdir of a non-empty directory: ENOTEMPTY", expect(syscall.Rmdir(p("made")), syscall.ENOTEMPTY))
	check("remove a file and an empty directory", func() error {
		if err := os.WriteFile(p("doomed"), nil, 0o644); err != nil {
			return err
		}
		if err := os.Remove(p("doomed")); err != nil {
			return err
		}
		return os.Remove(p("made/in/guest"))
	}())
	check("Truncate and Chmod", func() error {
		if err := os.WriteFile(p("small"), []byte("0123456789"), 0o644); err != nil {
			return err
		}
		if err := os.Truncate(p("small"), 4); err != nil {
			return err
		}
		if err := os.Chmod(p("small"), 0o600); err != nil {
			return err
		}
		fi, err := os.Stat(p("small"))
		if err != nil || fi.Size() != 4 || fi.Mode().Perm() != 0o600 {
			return fmt.Errorf("%v %v", fi, err)
		}
		return nil
	}())
	check("rename between the share and /tmp: EXDEV", func() error {
		if err := os.WriteFile("/tmp/share-xdev", nil, 0o644); err != nil {
			return err
		}
		return expect(os.Rename("/tmp/share-xdev", p("xdev")), syscall.EXDEV)
	}())
	// A file written and never closed: the program exits at once. Every write is a round trip
	// to the host, so its bytes are there.
	f, err := os.Create(p("unclosed"))
	if err == nil {
		_, err = f.WriteString("written, then os.Exit(3)\n")
	}
	check("an unclosed file written", err)
	os.Exit(3)
}
