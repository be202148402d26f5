// The program's initial working directory: the kernel option cwd= (docs/contract.md).
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// GuestCwd is the program's initial working directory: where the runner's own working
// directory wd appears in the guest if it lies inside a HOSTDIR, so that relative paths typed on
// the host mean the same files in the guest; otherwise "/". The innermost HOSTDIR wins (the one
// whose copy is the most specific), then the later -fs. Links are tried both as written and
// resolved, as a shell's $PWD and the kernel's idea of it may differ.
func GuestCwd(wd string, mounts []FSMount) string {
	best, depth := "/", -1
	inside := func(wd, host string) (string, bool) {
		rel, err := filepath.Rel(host, wd)
		return filepath.ToSlash(rel), err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
	}
	rwd, rerr := filepath.EvalSymlinks(wd)
	for _, m := range mounts {
		rel, ok := inside(wd, m.Host)
		if rh, err := filepath.EvalSymlinks(m.Host); !ok && err == nil && rerr == nil {
			rel, ok = inside(rwd, rh)
		}
		if d := len(m.Host); ok && d >= depth { // of two HOSTDIRs holding wd, the longer is inside the other
			best, depth = path.Join(m.Guest, rel), d
		}
	}
	return best
}

// checkCwd refuses a working directory the kernel could not take: the command line carries any
// byte but NUL (%XX), and a path has at most PATH_MAX bytes with its NUL.
func checkCwd(p string) error {
	if strings.IndexByte(p, 0) >= 0 {
		return fmt.Errorf("the working directory %q contains a NUL byte", p)
	}
	if len(p)+1 > cpioMaxName {
		return fmt.Errorf("the guest's working directory is %d bytes long: a path has at most %d", len(p), cpioMaxName-1)
	}
	return nil
}

// hasOption reports whether opts sets the kernel option key.
func hasOption(opts []string, key string) bool {
	for _, o := range opts {
		if strings.HasPrefix(o, key+"=") {
			return true
		}
	}
	return false
}
