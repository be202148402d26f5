// The guest's root file system as it is assembled: entries by path, later ones winning, written sorted.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// fsNode is one file, directory or symbolic link of the archive. Nodes are never changed once
// made: the zoneinfo nodes are shared by every run of the process (zoneinfo.go).
type fsNode struct {
	mode  uint32 // st_mode: type and permission bits
	mtime int64  // seconds since the epoch; 0 for what the runner makes up
	size  int64  // bytes of data
	data  []byte // the contents or a link's target, when held in memory
	host  string // else the host file whose first size bytes are the contents (read at write time)
}

func (n *fsNode) isDir() bool { return n.mode&modeType == modeDir }

// fsTree maps guest paths — relative, clean, without a leading "/" ("etc/passwd") — to nodes.
// The sources (base files, zoneinfo, the program, each -fs) are added in order and a later one
// replaces an earlier one at the same path, so the archive never holds a name twice and the
// kernel need not decide which copy counts. Sorting the names when writing puts every directory
// before its contents (a path sorts before every path it prefixes) and makes the archive the
// same from run to run.
type fsTree struct {
	nodes    map[string]*fsNode
	size     int64  // bytes of the encoded archive, trailer included
	limit    int64  // put refuses to grow size beyond this (0: no limit)
	limitWhy string // what the limit is, for the error: "half the guest's RAM, -m 1G"
}

func newFSTree(limit int64, limitWhy string) *fsTree {
	return &fsTree{nodes: map[string]*fsNode{}, size: cpioEntrySize(cpioTrailer, 0), limit: limit, limitWhy: limitWhy}
}

// put adds n at name, making missing parents directories (0755) and turning a parent that is
// not a directory into one: the later addition wins, as for the name itself. It fails when the
// archive would outgrow the limit, so that a -fs of a huge tree stops early with a reason
// instead of the runner reading it all or the guest dying at boot.
func (t *fsTree) put(name string, n *fsNode) error {
	if err := checkCpioEntry(name, n.size); err != nil {
		return err
	}
	for i := 0; i < len(name); i++ {
		if name[i] == '/' {
			if p, ok := t.nodes[name[:i]]; !ok || !p.isDir() {
				t.set(name[:i], &fsNode{mode: modeDir | 0o755})
			}
		}
	}
	t.set(name, n)
	if t.limit > 0 && t.size > t.limit {
		return fmt.Errorf("the guest's root file system would be larger than %s (%s) once /%s is added: give the guest more memory with -m, or leave files out",
			mib(t.limit), t.limitWhy, name)
	}
	return nil
}

// set stores n at name, keeping the size up to date. A directory replaced by anything else
// takes its contents with it: the archive must not hold children of a file.
func (t *fsTree) set(name string, n *fsNode) {
	if old, ok := t.nodes[name]; ok {
		t.size -= cpioEntrySize(name, old.size)
		if old.isDir() && !n.isDir() {
			for k, c := range t.nodes {
				if strings.HasPrefix(k, name+"/") {
					t.size -= cpioEntrySize(k, c.size)
					delete(t.nodes, k)
				}
			}
		}
	}
	t.nodes[name] = n
	t.size += cpioEntrySize(name, n.size)
}

// names returns the paths sorted: parents before children.
func (t *fsTree) names() []string {
	names := make([]string, 0, len(t.nodes))
	for k := range t.nodes {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// write encodes the archive to w. A host file is read now, not when it was found; one that has
// shrunk since is an error (its header already promised size bytes), one that has grown is cut.
func (t *fsTree) write(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	var hdr []byte
	var zeros [3]byte
	for i, name := range t.names() {
		n := t.nodes[name]
		hdr = cpioHeader(hdr[:0], uint32(i+1), n.mode, n.mtime, n.size, name)
		bw.Write(hdr)
		if n.host != "" {
			if err := copyHostFile(bw, n.host, n.size); err != nil {
				return err
			}
		} else {
			bw.Write(n.data)
		}
		bw.Write(zeros[:cpioPad(n.size)])
	}
	bw.Write(cpioHeader(hdr[:0], 0, 0, 0, 0, cpioTrailer))
	return bw.Flush()
}

func copyHostFile(w io.Writer, path string, size int64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := io.CopyN(w, f, size); err != nil {
		if err == io.EOF {
			return fmt.Errorf("%s: the file shrank while the guest's file system was written", path)
		}
		return err
	}
	return nil
}

// mib formats a byte count for messages.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
