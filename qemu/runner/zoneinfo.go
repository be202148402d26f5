// The time zone database every guest gets at /usr/share/zoneinfo, read once per process.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"archive/zip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// ZoneinfoDir is where Linux keeps the database, and where Go's time.LoadLocation looks first.
const ZoneinfoDir = "/usr/share/zoneinfo"

// namedNode is a node and its path relative to the tree it came from.
type namedNode struct {
	name string
	node *fsNode
}

var zoneinfoCache struct {
	once  sync.Once
	nodes []namedNode
	err   error
}

// zoneinfo returns the database, read on first use: the host's ZoneinfoDir, or Go's own copy
// ($GOROOT/lib/time/zoneinfo.zip) on a host without one. A process that boots many guests (the
// tests) reads the few hundred files once; the nodes are shared and never changed (fstree.go).
func zoneinfo() ([]namedNode, error) {
	z := &zoneinfoCache
	z.once.Do(func() {
		if isDir(ZoneinfoDir) {
			if z.nodes, z.err = readZoneinfoDir(ZoneinfoDir); z.err != nil {
				z.err = fmt.Errorf("reading %s: %v", ZoneinfoDir, z.err)
			}
			return
		}
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			z.err = fmt.Errorf("no %s here, and go env GOROOT failed: %v", ZoneinfoDir, err)
			return
		}
		file := filepath.Join(strings.TrimSpace(string(out)), "lib", "time", "zoneinfo.zip")
		if z.nodes, z.err = readZoneinfoZip(file); z.err != nil {
			z.err = fmt.Errorf("no %s here, and %v", ZoneinfoDir, z.err)
		}
	})
	return z.nodes, z.err
}

// readZoneinfoDir reads a zoneinfo tree, sorted, without its "posix" and "right" subtrees:
// posix duplicates the rest (on Debian it is links to it), and right's zones count leap seconds,
// which Go's time package does not. Links stay links, so the guest's tree is the host's.
func readZoneinfoDir(root string) ([]namedNode, error) {
	var out []namedNode
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		if d.IsDir() && (rel == "posix" || rel == "right") {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		n, err := hostNode(p, info)
		if n == nil || err != nil {
			return err // a special file (none in a real database) is left out
		}
		if n.host != "" { // small files: keep them, so that later runs read nothing
			if n.data, err = os.ReadFile(p); err != nil {
				return err
			}
			n.host, n.size = "", int64(len(n.data))
		}
		out = append(out, namedNode{filepath.ToSlash(rel), n})
		return nil
	})
	return out, err
}

// readZoneinfoZip reads Go's embedded-database archive: uncompressed files, no directories.
func readZoneinfoZip(file string) ([]namedNode, error) {
	zr, err := zip.OpenReader(file)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	var out []namedNode
	for _, f := range zr.File {
		name := path.Clean(f.Name)
		if f.FileInfo().IsDir() || name == "." || strings.HasPrefix(name, "../") || path.IsAbs(name) {
			continue
		}
		r, err := f.Open()
		if err != nil {
			return nil, err
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", file, f.Name, err)
		}
		out = append(out, namedNode{name, &fsNode{mode: modeRegular | 0o644, mtime: f.Modified.Unix(), size: int64(len(data)), data: data}})
	}
	return out, nil
}
