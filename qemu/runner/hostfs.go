// -fs HOSTDIR[:GUESTDIR]: host directories copied into the guest's root file system.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// FSMount is one -fs: the tree under Host appears in the guest under Guest. It is a copy made
// when the guest boots (the guest's writes stay in the guest), not a shared folder.
type FSMount struct {
	Host  string // absolute host directory
	Guest string // absolute, clean guest path
}

func (m FSMount) String() string { return m.Host + ":" + m.Guest }

// ParseFS reads -fs HOSTDIR[:GUESTDIR]. GUESTDIR defaults to HOSTDIR's absolute path, so that
// paths the host prints name the same files in the guest. A host path may itself contain ':':
// the text after the last ':' is GUESTDIR only if it is an absolute path, and otherwise the
// whole argument is HOSTDIR.
func ParseFS(s string) (FSMount, error) {
	host, guest := s, ""
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		switch g := s[i+1:]; {
		case strings.HasPrefix(g, "/"):
			host, guest = s[:i], g
		case !isDir(s):
			return FSMount{}, fmt.Errorf("-fs %s: want HOSTDIR[:GUESTDIR] with GUESTDIR an absolute path", s)
		}
	}
	if host == "" {
		return FSMount{}, fmt.Errorf("-fs %s: no host directory", s)
	}
	abs, err := filepath.Abs(host)
	if err != nil {
		return FSMount{}, fmt.Errorf("-fs %s: %v", s, err)
	}
	st, err := os.Stat(abs)
	switch {
	case os.IsNotExist(err):
		return FSMount{}, fmt.Errorf("-fs %s: %s does not exist", s, abs)
	case err != nil:
		return FSMount{}, fmt.Errorf("-fs %s: %v", s, err)
	case !st.IsDir():
		return FSMount{}, fmt.Errorf("-fs %s: %s is not a directory (-fs copies a directory's tree)", s, abs)
	}
	if guest == "" {
		guest = abs
	}
	return FSMount{Host: abs, Guest: path.Clean(guest)}, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// guestName is an absolute guest path as an archive name: "/usr/lib" → "usr/lib", "/" → "".
func guestName(p string) string { return strings.TrimPrefix(path.Clean("/"+p), "/") }

// addHostTree adds m's tree to t: directories, regular files with their permission bits and
// symbolic links as links (the target unchanged: a relative one keeps working, an absolute one
// names a guest path). Sockets, FIFOs and devices mean nothing in a copy and are left out, named
// in one warning. The walk is sorted, and stops as soon as the archive outgrows its limit.
func addHostTree(t *fsTree, m FSMount, warn func(string)) error {
	root := m.Host
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r // -fs of a link to a directory copies the directory
	}
	if !isDir(root) {
		return fmt.Errorf("-fs %s: %s is not a directory", m, m.Host)
	}
	base := guestName(m.Guest)
	var skipped []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		name := path.Join(base, filepath.ToSlash(rel))
		if name == "." { // GUESTDIR "/": the root itself is not an entry
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		n, err := hostNode(p, info)
		if err != nil {
			return err
		}
		if n == nil {
			skipped = append(skipped, p)
			return nil
		}
		return t.put(name, n)
	})
	if err != nil {
		return fmt.Errorf("-fs %s: %v", m, err)
	}
	if len(skipped) > 0 && warn != nil {
		more := ""
		if len(skipped) > 5 {
			more = fmt.Sprintf(" and %d more", len(skipped)-5)
			skipped = skipped[:5]
		}
		warn(fmt.Sprintf("-fs %s: left out %s%s: not a regular file, directory or symbolic link", m, strings.Join(skipped, ", "), more))
	}
	return nil
}

// hostNode makes the node for the host file p (Lstat'ed as info): its contents are read when the
// archive is written, a link's target now. nil for a file of another type.
func hostNode(p string, info fs.FileInfo) (*fsNode, error) {
	fm := info.Mode()
	mode := uint32(fm.Perm())
	if fm&fs.ModeSetuid != 0 {
		mode |= 0o4000
	}
	if fm&fs.ModeSetgid != 0 {
		mode |= 0o2000
	}
	if fm&fs.ModeSticky != 0 {
		mode |= 0o1000
	}
	n := &fsNode{mode: mode, mtime: info.ModTime().Unix()}
	switch fm.Type() {
	case fs.ModeDir:
		n.mode |= modeDir
	case 0:
		n.mode |= modeRegular
		n.size, n.host = info.Size(), p
	case fs.ModeSymlink:
		target, err := os.Readlink(p)
		if err != nil {
			return nil, err
		}
		n.mode = modeSymlink | 0o777
		n.data, n.size = []byte(target), int64(len(target))
	default:
		return nil, nil
	}
	return n, nil
}
